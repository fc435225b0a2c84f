"""Target verdicts of a catalog built with llvm-mc verification (the default `gpuisa build`).

Facts: LLVM's MC tests (file:line below) and llvm-mc 22's own answers, e.g. `v_add_f32 v5, v1, v2`
assembles for -mcpu=gfx90a, `flat_load_u16` draws "instruction not supported on this GPU" on
gfx1030 while `flat_load_ushort v1, v[3:4]` assembles there (flat.s:73, a GFX10 spelling).
The catalog is the session's (tests/conftest.py builds it with `--verify-with llvm-mc` where llvm-mc 22 is installed).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from gpuisa.archs import ARCHS, BY_KEY
from gpuisa.catalog.llvm_stage import _identity_verdict
from gpuisa.model_llvm import INSTRUCTION_LEVEL
from gpuisa.verify import llvm_mc as v

needs_llvm_mc = pytest.mark.skipif(not v.available(), reason="llvm-mc >= 22 not installed (apt-get install llvm-22)")
LLVM_TESTS = "llvm-project-23.1.1/llvm/test/MC/AMDGPU"


def row(verdict: str, evidence: str, spelling: str, detail: str = "") -> tuple:
    return ("FLAT_LOAD_U16", "gfx1030", "rdna2", verdict, evidence, detail or verdict, "x.s", 1, "", spelling)


def test_one_supported_spelling_makes_the_identity_supported():
    got = _identity_verdict({"FLAT_LOAD_U16": row("not supported", "llvm-mc", "FLAT_LOAD_U16"),
                             "FLAT_LOAD_USHORT": row("supported", "llvm-mc", "FLAT_LOAD_USHORT")})
    assert got[3] == "supported" and got[9] == "FLAT_LOAD_USHORT"


def test_not_supported_needs_every_tried_spelling_refused():
    refused = row("not supported", "llvm-test", "FLAT_LOAD_U16", "flat_load_u16: instruction not supported")
    open_ = row("inconclusive", "llvm-mc", "FLAT_LOAD_USHORT", "operands: invalid operand")
    assert _identity_verdict({"A": refused, "B": open_})[3] == "inconclusive"
    both = _identity_verdict({"A": refused, "B": row("not supported", "llvm-mc", "FLAT_LOAD_USHORT")})
    assert both[3] == "not supported" and "flat_load_u16" in both[5].lower()


@pytest.fixture(scope="module")
def verified(sources: Path, catalog_path: Path) -> sqlite3.Connection:
    if not v.available():
        pytest.skip("llvm-mc >= 22 not installed (apt-get install llvm-22)")
    if not (sources / LLVM_TESTS).is_dir():
        pytest.skip(f"LLVM MC tests not found under {sources}")
    conn = sqlite3.connect(f"file:{catalog_path}?mode=ro", uri=True)
    # the premise: llvm-mc judged this catalog's open targets (and ptxas did not run)
    assert conn.execute("SELECT count(*) FROM targets WHERE evidence='llvm-mc'").fetchone()[0] > 1000
    yield conn
    conn.close()


def targets_of(conn: sqlite3.Connection, name: str) -> dict[str, tuple]:
    return {r[0]: r[1:] for r in conn.execute(
        "SELECT target, verdict, evidence, detail, tool, spelling FROM targets WHERE name=?", (name,))}


@pytest.mark.slow
@pytest.mark.tools
@needs_llvm_mc
def test_v_sad_u32_has_a_verdict_on_every_target(verified, sources):
    # gfx7_asm_vop3_e64.s, gfx11_asm_vop3.s, gfx12_asm_vop3_dpp16.s ... test v_sad_u32 on a few targets
    assert "v_sad_u32" in (sources / LLVM_TESTS / "gfx11_asm_vop3.s").read_text()
    every = [t for a in ARCHS for t in a.targets]
    assert len(every) == 33
    got = targets_of(verified, "V_SAD_U32")
    assert set(got) == set(every)
    assert all(x[1] in ("llvm-test", "llvm-mc") and x[0] == "supported" for x in got.values()), got
    assert all(x[3].startswith("llvm-mc 2") for x in got.values() if x[1] == "llvm-mc")   # tool and version
    assert all(x[3] == "LLVM 23.1.1 MC tests" for x in got.values() if x[1] == "llvm-test")


@pytest.mark.slow
@pytest.mark.tools
@needs_llvm_mc
def test_operand_messages_never_make_not_supported(verified, sources):
    # gfx11_asm_operands.s:96 "lds_direct is not supported on this GPU" is about an operand
    assert "lds_direct is not supported on this GPU" in (sources / LLVM_TESTS / "gfx11_asm_operands.s").read_text()
    assert targets_of(verified, "V_ADD_F32")["gfx90a"][0] == "supported"
    for name, target, evidence, detail in verified.execute(
            "SELECT name, target, evidence, detail FROM targets WHERE verdict='not supported'"):
        message = detail.split(": ", 1)[-1] if evidence == "llvm-mc" else detail
        assert "instruction not supported" in message or "invalid instruction" in message, (name, target, detail)
    assert INSTRUCTION_LEVEL.match("instruction not supported on this GPU")


@pytest.mark.slow
@pytest.mark.tools
@needs_llvm_mc
def test_identity_supported_through_its_older_spelling(verified, sources):
    # flat.s:73 `flat_load_ushort v1, v[3:4]` (GFX7-10 spelling); gfx10_unsupported.s:710 refuses
    # `flat_load_u16 v1, v[3:4]` on gfx10 targets
    assert "flat_load_u16 v1, v[3:4]" in (sources / LLVM_TESTS / "gfx10_unsupported.s").read_text().splitlines()[709]
    got = targets_of(verified, "FLAT_LOAD_U16")
    assert got["gfx1030"][0] == "supported" and got["gfx1030"][4] == "FLAT_LOAD_USHORT"
    assert got["gfx1013"][0] == "supported"
    assert got["gfx1100"][0] == "supported" and got["gfx1100"][4] == "FLAT_LOAD_U16"


@pytest.mark.slow
@pytest.mark.tools
@needs_llvm_mc
def test_every_arch_page_leads_with_an_example_of_its_own_arch(verified):
    """Every AMD page (each instruction of each arch's manual): its first example (query.examples
    order) is valid on one of the page's targets (an LLVM test line for that target, or a line
    llvm-mc assembled for it); where no target of the arch takes the instruction, the page says so,
    naming each of its targets and what the tools said there, and leads with no line of its own."""
    from gpuisa.catalog.query import Catalog, examples_note

    conn = verified
    path = Path(conn.execute("PRAGMA database_list").fetchone()[2])
    cat = Catalog(path)
    pages = conn.execute("SELECT name, arch FROM instr_arch").fetchall()
    wrong, unexplained, said = [], [], 0
    for key, arch in pages:
        own = set(BY_KEY[arch].targets)
        examples, targets = cat.examples(key, arch), cat.targets(key)
        note = examples_note(key, BY_KEY[arch], examples, targets)
        supported = [t for t in own if targets[t]["verdict"] == "supported"]
        if examples and own & set(examples[0]["targets"]):
            assert note is None
            continue
        if supported and examples:
            wrong.append((key, arch, examples[0]["asm"], examples[0]["targets"]))
        elif note is None or not all(t in note and (targets[t].get("tool") or "") in note for t in own):
            unexplained.append((key, arch, note))       # each target named, with the tool that judged it
        else:
            said += 1
    assert not wrong, (len(wrong), len(pages), wrong[:10])
    assert not unexplained, (len(unexplained), unexplained[:5])
    assert said < len(pages) / 5, said                  # the exception, not the rule

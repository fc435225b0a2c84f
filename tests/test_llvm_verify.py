"""llvm-mc verification: batching, per-line errors, caching, missing tool, support verdicts.

Tests marked `tools` run the real llvm-mc (>= 22) and are skipped with a reason without it; the
others drive a fake llvm-mc script so the parsing and crash recovery are checked everywhere.
"""

from __future__ import annotations

import os
import stat
import textwrap

import pytest

from gpuisa.model import Provenance
from gpuisa.model_llvm import McExample, McRun
from gpuisa.paths import default_sources
from gpuisa.sources import llvm_mc as mc
from gpuisa.sources.layout import LLVM_TREE
from gpuisa.verify import discover
from gpuisa.verify import llvm_mc as v

SOURCES = default_sources()
ASM = SOURCES / LLVM_TREE / "llvm/test/MC/AMDGPU"

tools = pytest.mark.tools
needs_llvm_mc = pytest.mark.skipif(not v.available(), reason="llvm-mc >= 22 not installed (apt-get install llvm-22)")
needs_sources = pytest.mark.skipif(not ASM.is_dir(), reason=f"LLVM MC tests not found under {SOURCES}")


@pytest.fixture
def cache(tmp_path):
    c = v.McCache(tmp_path / "cache.sqlite")
    yield c
    c.close()


def example(asm: str, target: str, line: int = 1) -> McExample:
    return McExample(asm, b"", (McRun(target),), "asm", "CHECK", Provenance("llvm-mc-test", "x.s", line))


# ---------------------------------------------------------------------------------------------
# without the real tool


def test_missing_llvm_mc_is_one_clear_error(monkeypatch):
    monkeypatch.setenv("GPUISA_LLVM_MC", "/nonexistent/llvm-mc")
    with pytest.raises(v.LlvmMcMissing, match="apt-get install llvm-22"):
        v.find_llvm_mc()
    monkeypatch.delenv("GPUISA_LLVM_MC")
    monkeypatch.setenv("PATH", "")
    monkeypatch.setattr(discover, "LLVM_GLOBS", ())
    assert not v.available()
    with pytest.raises(v.LlvmMcMissing, match="no usable llvm-mc 22 or newer found"):
        v.assemble(["s_nop 0"], "gfx900", cache=False)


FAKE = textwrap.dedent("""\
    #!/usr/bin/env python3
    # A stand-in llvm-mc: "s_nop N" encodes as [N,0,0x80,0xbf], "bad" is an error, "crash" kills it.
    import re, sys
    if "--version" in sys.argv:
        print("LLVM (http://llvm.org/):\\n  LLVM version 22.1.8"); sys.exit(0)
    if "-mcpu=gfx9999" in sys.argv:   # what llvm-mc says of a processor it does not know
        sys.stderr.write("'gfx9999' is not a recognized processor for this target (ignoring processor)\\n")
    rc = 0
    for no, line in enumerate(sys.stdin, 1):
        line = line.strip()
        if line.endswith(":"):
            print(line); continue
        if line == "crash":
            sys.stdout.flush(); sys.stderr.write("Stack dump:\\n"); sys.exit(139)
        m = re.fullmatch(r"s_nop (\\d+)", line)
        if m:
            print(f"\\t{line}   ; encoding: [0x{int(m.group(1)):02x},0x00,0x80,0xbf]")
        else:
            sys.stderr.write(f"<stdin>:{no}:1: error: invalid instruction\\n{line}\\n^\\n"); rc = 1
    sys.exit(rc)
""")


@pytest.fixture
def fake_tool(tmp_path) -> v.LlvmMc:
    path = tmp_path / "llvm-mc-fake"
    path.write_text(FAKE)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return v.find_llvm_mc(str(path))


def test_batch_maps_results_and_errors_to_lines(fake_tool, cache):
    res = v.assemble(["s_nop 1", "bad", "s_nop 2"], "gfx900", tool=fake_tool, cache=cache)
    assert [r.ok for r in res] == [True, False, True]
    assert res[0].bytes == bytes([1, 0, 0x80, 0xBF]) and res[2].asm == "s_nop 2"
    assert res[1].message == "invalid instruction"


def test_crash_reruns_the_lines_after_it(fake_tool, cache):
    res = v.assemble(["s_nop 1", "crash", "s_nop 3", "bad"], "gfx900", tool=fake_tool, cache=cache)
    by_line = {r.line: r for r in res}
    assert by_line["s_nop 1"].ok and by_line["s_nop 3"].ok
    assert "crashed" in by_line["crash"].message
    assert by_line["bad"].message == "invalid instruction"


def test_cache_answers_without_running(fake_tool, cache):
    lines = ["s_nop 4", "bad"]
    cold = v.assemble(lines, "gfx900", tool=fake_tool, cache=cache)
    gone = v.LlvmMc("/nonexistent/llvm-mc", fake_tool.version)     # same version: same cache keys
    assert v.assemble(lines, "gfx900", tool=gone, cache=cache) == cold
    with pytest.raises(v.LlvmMcMissing):                              # a new line needs the tool
        v.assemble(["s_nop 5"], "gfx900", tool=gone, cache=cache)
    other = v.LlvmMc("/nonexistent/llvm-mc", "23.0.0")                # another version: another key
    with pytest.raises(v.LlvmMcMissing):
        v.assemble(lines, "gfx900", tool=other, cache=cache)


def test_runs_of_several_targets_answer_as_one_run_each(fake_tool, tmp_path):
    # assemble_each runs the targets' llvm-mc processes side by side: each job gets its own lines' answers,
    # and one target's failure stays that job's
    jobs = [(["s_nop 1", "bad"], "gfx900", ""), (["s_nop 2"], "gfx1100", ""), (["s_nop 3"], "gfx9999", "")]
    together = v.assemble_each(jobs, tool=fake_tool, cache=v.McCache(tmp_path / "a.sqlite"), workers=2)
    alone = v.McCache(tmp_path / "b.sqlite")
    for (lines, target, _), got in zip(jobs[:2], together, strict=False):
        assert got == v.assemble(lines, target, tool=fake_tool, cache=alone)
    assert [r.ok for r in together[0]] == [True, False] and together[1][0].bytes == bytes([2, 0, 0x80, 0xBF])
    assert isinstance(together[2], v.LlvmMcFailed) and "gfx9999" in str(together[2])


def test_damaged_cache_is_ignored(fake_tool, tmp_path):
    bad = tmp_path / "cache.sqlite"
    bad.write_bytes(b"not a database" * 100)
    res = v.assemble(["s_nop 1"], "gfx900", tool=fake_tool, cache=v.McCache(bad))
    assert res[0].ok


def test_multiline_input_rejected(fake_tool):
    with pytest.raises(ValueError):
        v.assemble(["s_nop 0\ns_nop 1"], "gfx900", tool=fake_tool, cache=False)


def test_representative_is_the_simplest():
    exs = [example("v_sad_u32_e64_dpp v5, v1, v2, v3 quad_perm:[3,2,1,0]", "gfx1100", 1),
           example("v_sad_u32 v5, v1, v2, s3 clamp", "gfx1100", 2),
           example("v_sad_u32 v5, v1, v2, s3", "gfx1100", 3),
           example("v_sad_u32 v255, 0xaf123456, v2, v3", "gfx1100", 4)]
    assert v.pick_representatives(exs, 1)[0].asm == "v_sad_u32 v5, v1, v2, s3"
    assert len(v.pick_representatives(exs, 3)) == 3


# ---------------------------------------------------------------------------------------------
# with the real llvm-mc


@tools
@needs_llvm_mc
@needs_sources
def test_v_sad_u32_matches_the_test_file(cache):
    # gfx11_asm_vop3.s:5940: v_sad_u32 v5, v1, v2, s3 ; encoding: [0x05,0x00,0x25,0xd6,0x01,0x05,0x0e,0x00]
    (res,) = v.assemble(["v_sad_u32 v5, v1, v2, s3"], "gfx1100", cache=cache)
    assert res.ok and res.bytes == bytes.fromhex("050025d601050e00")
    assert res.tool.startswith("llvm-mc 2")


@tools
@needs_llvm_mc
def test_real_errors_are_per_line(cache):
    # gfx11_unsupported.s:1518 says v_lshl_add_u64 is not supported on gfx1100
    res = v.assemble(["s_nop 0", "v_lshl_add_u64 v[10:11], v[2:3], v2, v[6:7]", "v_bogus v1", "s_nop 1"],
                     "gfx1100", cache=cache)
    assert [r.ok for r in res] == [True, False, False, True]
    assert res[1].message.startswith("instruction not supported on this GPU")
    assert res[2].message == "invalid instruction"


@tools
@needs_llvm_mc
def test_unknown_target_is_reported(cache):
    with pytest.raises(v.LlvmMcFailed, match="gfx9999"):
        v.assemble(["s_nop 0"], "gfx9999", cache=cache)


@tools
@needs_llvm_mc
@needs_sources
def test_support_verdicts_for_v_lshl_add_u64(cache):
    # examples: gfx1250_asm_vop3-fake16.s:107,110 and gfx942_asm_features.s:263,267 (gfx942 + gfx950)
    examples = [e for f in ("gfx1250_asm_vop3-fake16.s", "gfx942_asm_features.s")
                for e in mc.read_file(ASM / f, SOURCES).examples if mc.mnemonic(e.asm) == "V_LSHL_ADD_U64"]
    assert {t for e in examples for t in e.targets} >= {"gfx1250", "gfx942", "gfx950"}
    verdicts = v.verify_support({"V_LSHL_ADD_U64": examples}, ["gfx90a", "gfx942", "gfx1100", "gfx1250"],
                                cache=cache)
    got = {x.target: x for x in verdicts}
    assert set(got) == {"gfx90a", "gfx1100"}           # gfx942 and gfx1250 have direct evidence
    # gfx942_asm_features.s:262 (NOT-GFX942 -> gfx90a) and gfx11_unsupported.s:1518 agree:
    assert got["gfx90a"].verdict == "not supported"
    assert got["gfx1100"].verdict == "not supported"
    assert got["gfx90a"].message.startswith("instruction not supported on this GPU")
    assert got["gfx90a"].example is not None


@tools
@needs_llvm_mc
def test_support_verdict_supported_and_beyond_the_tool(cache):
    exs = [example("v_sad_u32 v5, v1, v2, s3", "gfx1100")]
    verdicts = {x.target: x for x in v.verify_support({"V_SAD_U32": exs}, ["gfx900", "gfx9999"], cache=cache)}
    assert verdicts["gfx900"].verdict == "supported" and verdicts["gfx900"].bytes
    # a target llvm-mc does not list in -mcpu=help cannot be judged by it
    assert verdicts["gfx9999"].verdict == "beyond" and "knows no gfx9999" in verdicts["gfx9999"].message
    assert verdicts["gfx9999"].tool.startswith("llvm-mc 2")


@tools
@needs_llvm_mc
def test_operand_complaint_is_never_an_instruction_verdict(cache):
    # llvm-mc 22 on gfx90a: "lds_direct is not supported on this GPU" (an operand), while
    # `v_add_f32 v5, v1, v2` assembles there (issue 11); the second example is tried after the first fails
    lds = example("v_add_f32 v5, lds_direct, v2", "gfx900")
    e64 = example("v_add_f32_e64 v5, v1, v2", "gfx900", 2)
    got = v.verify_support({"V_ADD_F32": [lds, e64]}, ["gfx90a"], per_name=1, cache=cache, skip_evidenced=False)
    assert [(x.verdict, x.line) for x in got] == [("supported", "v_add_f32_e64 v5, v1, v2")]
    only = v.verify_support({"V_ADD_F32": [lds]}, ["gfx90a"], cache=cache, skip_evidenced=False)
    assert only[0].verdict == "inconclusive"
    assert only[0].message.startswith("operands: lds_direct is not supported on this GPU")


@tools
@needs_llvm_mc
@needs_sources
def test_operands_adapted_to_the_target_settle_an_inconclusive_verdict(cache):
    # misaligned-vgpr-tuples-err.s:97: gfx90a refuses 64-bit VGPR tuples at an odd register; the
    # tests' `v_mul_f64 v[5:6], v[1:2], v[2:3]` (gfx7-gfx9 files) is such a line
    assert "vgpr tuples must be 64 bit aligned" in (ASM / "misaligned-vgpr-tuples-err.s").read_text().splitlines()[96]
    odd = example("v_mul_f64 v[5:6], v[1:2], v[2:3]", "gfx900")
    [plain] = v.assemble([odd.asm], "gfx950", cache=cache)
    assert not plain.ok and not v.instruction_level(plain.message)
    [got] = v.verify_support({"V_MUL_F64": [odd]}, ["gfx950"], cache=cache, skip_evidenced=False)
    assert got.verdict == "supported" and got.line == "v_mul_f64 v[4:5], v[0:1], v[2:3]"
    assert got.message == "adapted from x.s:1 (even-aligned register pairs)"
    # gfx90a_ldst_acc.s:4491: no AGPR loads and stores before gfx90a: the line is retried with VGPRs
    agpr = example("buffer_store_dword a1, off, s[12:15], s4", "gfx90a")
    assert ("buffer_store_dword v1, off, s[12:15], s4", "VGPRs for AGPRs") in v.repaired(agpr.asm, "gfx908")


def test_instruction_level_messages():
    # AMDGPUAsmParser: "instruction not supported on this GPU" / "invalid instruction" name the
    # mnemonic; the rest ("agpr loads and stores not supported on this GPU") name operands
    assert v.instruction_level("instruction not supported on this GPU (gfx90a): v_foo")
    assert v.instruction_level("invalid instruction")
    assert not v.instruction_level("lds_direct is not supported on this GPU")
    assert not v.instruction_level("agpr loads and stores not supported on this GPU")
    assert not v.instruction_level("invalid instruction encoding")     # a disassembler warning about bytes


GARBAGE = "#!/bin/sh\nif [ \"$1\" = --version ]; then echo '  LLVM version 22.1.8'; exit 0; fi\n{body}\n"


@pytest.mark.parametrize("body, said", [("while :; do :; done", "timed out"), ("echo 'lorem ipsum'", "no result tied"),
                                        ("kill -SEGV $$", "crashed")])
def test_misbehaving_llvm_mc_gives_tool_failed(tmp_path, monkeypatch, body, said):
    path = tmp_path / "llvm-mc"
    path.write_text(GARBAGE.format(body=body))
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("GPUISA_TOOL_TIMEOUT", "1")
    tool = v.find_llvm_mc(str(path))
    got = v.verify_support({"S_NOP": [example("s_nop 0", "gfx900")]}, ["gfx900", "gfx1030"], tool=tool,
                           cache=False, skip_evidenced=False)
    assert {x.verdict for x in got} == {"tool failed"}, got
    assert all(said in x.message for x in got), [x.message for x in got]


@tools
@needs_llvm_mc
def test_default_cache_lives_under_cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUISA_CACHE", str(tmp_path / "c"))
    monkeypatch.setattr(v, "_DEFAULT_CACHE", None)
    v.assemble(["s_nop 0"], "gfx900")
    assert (tmp_path / "c" / "llvm-mc.sqlite").is_file()
    v.default_cache().close()
    assert os.path.getsize(tmp_path / "c" / "llvm-mc.sqlite") > 0


# ---------------------------------------------------------------------------------------------
# the build's verify stage (llvm-mc runs in a thread beside ptxas)


def test_build_notes_a_missing_llvm_mc_with_its_install_hint(monkeypatch, tmp_path):
    from gpuisa import build
    from gpuisa.model_llvm import McCorpus

    monkeypatch.setenv("GPUISA_LLVM_MC", "/nonexistent/llvm-mc")
    b = build.Build(tmp_path, tmp_path / "c.sqlite", tools=("llvm-mc",), corpus=McCorpus())
    build.verify(b)
    assert b.verification["llvm-mc"]["state"] == "missing"
    assert "apt-get install llvm-22" in b.verification["llvm-mc"]["install"]
    assert b.verification["ptxas"]["state"] == "not run"
    assert any(n.startswith("verification with llvm-mc skipped") for n in b.notes)


def test_build_raises_what_the_llvm_mc_thread_raised(monkeypatch, tmp_path, fake_tool):
    from gpuisa import build
    from gpuisa.model_llvm import McCorpus

    def broken(*args, **kwargs):
        raise v.LlvmMcMissing(f"cannot run {fake_tool.path}")

    monkeypatch.setattr(build, "find_llvm_mc", lambda: fake_tool)
    monkeypatch.setattr(build, "verify_support", broken)
    b = build.Build(tmp_path, tmp_path / "c.sqlite", tools=("llvm-mc",), corpus=McCorpus())
    with pytest.raises(v.LlvmMcMissing, match="cannot run"):
        build.verify(b)

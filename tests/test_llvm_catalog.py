"""Examples, per-target support and manual-vs-LLVM agreement in the catalog, checked against
lines of LLVM 23.1.1's MC tests and the AMD manuals (each cited)."""

from __future__ import annotations

import pytest

from tests.conftest import SOURCES, manual_line

MC = SOURCES / "llvm-project-23.1.1" / "llvm" / "test" / "MC" / "AMDGPU"


def mc_line(name: str, line: int) -> str:
    return (MC / name).read_text(encoding="utf-8").splitlines()[line - 1]


def source_line(rel: str, line: int) -> str:
    return (SOURCES / rel).read_text(encoding="utf-8").splitlines()[line - 1]


def test_v_sad_u32_headline_example_and_bytes(catalog):
    assert "v_sad_u32 v5, v1, v2, s3" in mc_line("gfx11_asm_vop3-fake16.s", 5529)
    assert "[0x05,0x00,0x25,0xd6,0x01,0x05,0x0e,0x00]" in mc_line("gfx11_asm_vop3-fake16.s", 5529)
    doc = catalog.show("v_sad_u32", "rdna3").as_json()
    head = doc["examples"][0]
    assert head["asm"] == "v_sad_u32 v5, v1, v2, s3"
    assert head["bytes"] == "05 00 25 d6 01 05 0e 00"
    assert "gfx1100" in head["targets"]
    assert head["source"]["file"].endswith("gfx11_asm_vop3-fake16.s")


@pytest.mark.parametrize("target", ["gfx1100", "gfx1200", "gfx1250", "gfx1010", "gfx900"])
def test_v_sad_u32_supported_by_test_evidence(catalog, target):
    t = catalog.show("v_sad_u32").as_json()["targets"][target]
    assert t["verdict"] == "supported" and t["evidence"] == "llvm-test"
    assert "v_sad_u32" in source_line(t["file"], t["line"])


def test_v_lshl_add_u64_examples_and_negative_evidence(catalog):
    assert "v_lshl_add_u64 v[2:3], s[4:5], v7, v[8:9]" in mc_line("gfx1250_asm_vop3-fake16.s", 107)
    assert "GFX942: v_lshl_add_u64" in mc_line("gfx942_asm_features.s", 263)
    assert "not supported on this GPU (gfx1100): v_lshl_add_u64" in mc_line("gfx11_unsupported.s", 1518)
    doc = catalog.show("v_lshl_add_u64").as_json()
    targets = {t for ex in doc["examples"] for t in ex["targets"]}
    assert {"gfx1250", "gfx942", "gfx950"} <= targets
    assert any(ex["source"]["file"].endswith("gfx1250_asm_vop3-fake16.s") for ex in doc["examples"])
    gfx1100 = doc["targets"]["gfx1100"]
    assert gfx1100["verdict"] == "not supported"
    assert gfx1100["file"].endswith("gfx11_unsupported.s") and gfx1100["line"] == 1518


def test_every_target_of_every_arch_has_a_verdict(catalog):
    targets = catalog.show("v_sad_u32").as_json()["targets"]
    from gpuisa.archs import ARCHS

    assert set(targets) == {t for a in ARCHS for t in a.targets}
    assert all(v["verdict"] in ("supported", "not supported", "inconclusive", "unknown") for v in targets.values())


def test_rdna1_ds_opcode_field_erratum(catalog):
    # rdna1:5717 puts DS's OP at [24:17], GDS at [16]; LLVM's gfx10 DS tests encode OP at [25:18].
    # The catalog resolves the layout to LLVM's and keeps the manual's as a layout erratum.
    assert manual_line("rdna1", 5717).split("|")[2].strip() == "[24:17]"
    arch_errata = [e for e in catalog.errata("*") if e.arch == "rdna1" and e.kind == "manual-vs-llvm-layout"]
    assert len(arch_errata) == 1 and "[25:18]" in arch_errata[0].detail and "[24:17]" in arch_errata[0].detail
    enc = catalog.show("ds_add_u32", "rdna1").as_json()["encodings"][0]
    assert any("OP [24:17]" in e["manual"] and "OP [25:18]" in e["resolved"] for e in enc["errata"])
    assert not [e for e in catalog.errata("DS_ADD_U32") if e.arch == "rdna1" and e.kind == "manual-vs-llvm"]


def test_cdna3_vop3_opcode_erratum_names_both_sources(catalog):
    # cdna3's VOP3A opcode table lists V_CVT_F32_FP8 at 468; LLVM's gfx942 tests encode 404 (= VOP1 84 + 0x140)
    # (the catalog serves LLVM's 404 and keeps the manual's 468 as this erratum)
    errata = [e for e in catalog.show("v_cvt_f32_fp8", "cdna3").as_json()["errata"]
              if e["arch"] == "cdna3" and e["kind"] == "manual-vs-llvm-opcode"]
    assert len(errata) == 1
    assert "opcode 468" in errata[0]["detail"] and "opcode 404" in errata[0]["detail"]
    manual_src, llvm_src = errata[0]["sources"][:2]
    assert "468" in manual_line("cdna3", manual_src["line"]) and "V_CVT_F32_FP8" in manual_line("cdna3", manual_src["line"])
    assert "v_cvt_f32_fp8" in source_line(llvm_src["file"], llvm_src["line"])


@pytest.mark.parametrize("arch", ["vega", "rdna1", "rdna3", "rdna4", "cdna5"])
def test_valu_salu_agreement_at_least_98_percent(catalog, arch):
    checked, agree = catalog.conn.execute(
        "SELECT sum(checked), sum(agree) FROM agreement WHERE arch=? AND (encoding LIKE 'SOP%' OR encoding LIKE 'VOP%')",
        (arch,)).fetchone()
    assert checked > 500 and agree / checked >= 0.98


def test_every_disagreement_is_an_erratum(catalog):
    disagree = catalog.conn.execute("SELECT sum(checked - agree) FROM agreement").fetchone()[0]
    errata = catalog.conn.execute("SELECT count(*) FROM errata WHERE kind='manual-vs-llvm'").fetchone()[0]
    assert errata == disagree


@pytest.mark.tools
def test_llvm_mc_verifies_targets_without_test_evidence():
    from gpuisa.verify.llvm_mc import LlvmMcMissing, assemble, find_llvm_mc

    try:
        tool = find_llvm_mc()
    except LlvmMcMissing as exc:
        pytest.skip(str(exc))
    for target in ("gfx950", "gfx942", "gfx90a", "gfx908", "gfx1030"):
        (res,) = assemble(["v_sad_u32 v5, v1, v2, s3"], target, tool=tool, cache=False)
        assert res.ok and res.asm.startswith("v_sad_u32"), (target, res.message)
    (res,) = assemble(["v_lshl_add_u64 v[2:3], s[4:5], v7, v[8:9]"], "gfx1200", tool=tool, cache=False)
    assert not res.ok and "not supported on this GPU" in res.message


def test_llvm_alias_folds_a_renamed_instruction(catalog):
    # gfx11_asm_mubuf_alias.s:4 assembles the pre-RDNA3 name buffer_atomic_add as buffer_atomic_add_u32
    assert mc_line("gfx11_asm_mubuf_alias.s", 4).startswith("buffer_atomic_add ")
    assert "buffer_atomic_add_u32" in mc_line("gfx11_asm_mubuf_alias.s", 5)
    doc = catalog.show("buffer_atomic_add", "rdna2").as_json()
    assert doc["name"] == "buffer_atomic_add_u32" and doc["manual_name"] == "BUFFER_ATOMIC_ADD"
    assert any(r["from"] == "buffer_atomic_add" and "gfx11_asm_mubuf_alias.s:4" in r["evidence"] for r in doc["renames"])
    diff = catalog.diff("rdna2", "rdna3").as_json()
    assert {"from": "buffer_atomic_add", "to": "buffer_atomic_add_u32"}.items() <= next(
        r for r in diff["renamed"] if r["from"] == "buffer_atomic_add").items()

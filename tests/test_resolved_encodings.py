"""Evidence wins, visibly: where LLVM's encodings contradict a manual's layout or opcode, the catalog
serves LLVM's fact and keeps the manual's value beside it as an erratum with the evidence count.

Each test first reads the manual line that prints the wrong value and an LLVM CHECK line that
shows the right one, then checks what the catalog serves."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gpuisa.archs import ARCHS
from gpuisa.sources.amd_quirks import CORRECTIONS, LAYOUT_FIXES, OPCODE_FIXES
from tests.conftest import SOURCES, manual_line

LLVM_MC = SOURCES / "llvm-project-23.1.1" / "llvm" / "test" / "MC" / "AMDGPU"


def llvm_check(file: str, pattern: str) -> tuple[int, bytes]:
    """The first CHECK line of an LLVM MC test matching `pattern`, with its encoding bytes."""
    path = LLVM_MC / file
    for i, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if re.search(pattern, text) and "encoding:" in text:
            data = bytes(int(h, 16) for h in re.findall(r"0x([0-9a-fA-F]{2})", text.split("encoding:")[1]))
            return i, data
    raise AssertionError(f"no line matching {pattern!r} in {path}")


def bits(data: bytes, hi: int, lo: int) -> int:
    return (int.from_bytes(data, "little") >> lo) & ((1 << (hi - lo + 1)) - 1)


def field(enc: dict, name: str) -> list[list[int]]:
    return next(f["bits"] for f in enc["fields"] if f["name"] == name)


def test_every_correction_has_reason_and_manual_lines(sources):
    assert CORRECTIONS
    for fix in (*LAYOUT_FIXES, *OPCODE_FIXES):
        assert fix.reason and fix.archs, fix.id
        for s in fix.seen:
            assert s.arch in fix.archs and manual_line(s.arch, s.line), (fix.id, s)


def test_rdna2_ds_op_at_25_18(catalog):
    assert re.match(r"\|\s*OP\s*\|\s*\[24:17\]", manual_line("rdna2", 5772))       # the manual's value
    assert re.match(r"\|\s*GDS\s*\|\s*\[16\]", manual_line("rdna2", 5771))
    line, data = llvm_check("gfx10_asm_ds.s", r"GFX10: ds_and_b32 v0, v1 gds")
    assert bits(data, 31, 26) == 0b110110 and bits(data, 25, 18) == 9 and bits(data, 17, 17) == 1, line
    doc = catalog.show("ds_and_b32", arch="rdna2").as_json()
    enc = doc["encodings"][0]
    assert enc["encoding"] == "DS" and enc["opcode"] == 9
    assert field(enc, "OP") == [[25, 18]] and field(enc, "GDS") == [[17, 17]]
    assert enc["identifier"] == "0xD8240000"
    erratum = next(e for e in enc["errata"] if e["quirk"] == "ds-op-25-18")
    assert "OP [24:17]" in erratum["manual"] and "OP [25:18]" in erratum["resolved"]
    assert "rdna1" in erratum["settled_by"]              # no gfx103x DS test: settled by the sibling
    rdna1 = next(e for e in catalog.show("ds_and_b32", arch="rdna1").as_json()["encodings"][0]["errata"]
                 if e["quirk"] == "ds-op-25-18")
    assert rdna1["evidence"] > 100 and rdna1["against"] == 0


def test_rdna4_flat_load_op_at_21_14_with_offset(catalog):
    assert re.match(r"\|\s*OP\s*\|\s*\[20:13\]", manual_line("rdna4", 6834))
    line, data = llvm_check("gfx1250_asm_vflat.s", r"GFX1250: flat_load_b32 v1, v\[0:1\] offset:64 ")
    assert bits(data, 21, 14) == 20 and bits(data, 95, 72) == 64, line
    enc = catalog.show("flat_load_b32", arch="rdna4").as_json()["encodings"][0]
    assert enc["encoding"] == "VFLAT" and enc["opcode"] == 20
    assert field(enc, "OP") == [[21, 14]] and field(enc, "IOFFSET") == [[95, 72]] and enc["width"] == 96
    assert enc["identifier"] == "0xEC050000"
    erratum = next(e for e in enc["errata"] if e["quirk"] == "flat-op-21-14")
    assert erratum["manual"].startswith("OP [20:13]") and erratum["evidence"] > 50 and erratum["against"] == 0


def test_cdna4_v_mov_b32_vop3a_opcode(catalog):
    text = " ".join(manual_line("cdna4", 8141 + k) for k in range(3)).replace("\\", "")
    assert "opcode + 0x140" in text                                        # the manual's own rule
    line, data = llvm_check("gfx9_asm_vop3.s", r"CHECK: v_mov_b32_e64 v5, v1 ")
    assert bits(data, 31, 26) == 0b110100 and bits(data, 25, 16) == 1 + 0x140, line
    doc = catalog.show("v_mov_b32", arch="cdna4").as_json()
    vop3a = next(e for e in doc["encodings"] if e["encoding"] == "VOP3A")
    assert vop3a["opcode"] == 321 and vop3a["manual_opcode"] == 385
    assert any(e["quirk"] == "vop1-vop3a-offset-0x140" for e in vop3a["errata"])


def test_rdna1_llvm_only_rows_take_the_vega_opcodes(catalog):
    """The RDNA1 manual has no S_ATOMIC_ADD; the Vega manual lists it at opcode 130 and LLVM's gfx10 test encodes
    that opcode in rdna1's SMEM layout (OP [25:18]): the catalog adds the row, shown as an erratum with its evidence."""
    assert re.match(r"\|\s*130\s*\|\s*S_ATOMIC_ADD\s*\|", manual_line("vega", 2787))
    assert "S_ATOMIC_ADD" not in (SOURCES / "amd-isa-manuals" / "rdna1" / "README.md").read_text(encoding="utf-8")
    line, data = llvm_check("gfx10_asm_smem.s", r"GFX10: s_atomic_add s5, s\[2:3\], 0x64 dlc")
    assert bits(data, 31, 26) == 0b111101 and bits(data, 25, 18) == 130, line
    enc = catalog.show("s_atomic_add", arch="rdna1").as_json()["encodings"][0]
    assert enc["encoding"] == "SMEM" and enc["opcode"] == 130
    fix = next(e for e in enc["errata"] if e["quirk"] == "llvm-only-smem-ds")
    assert fix["manual"] == "no such row" and fix["resolved"] == "opcode 130" and fix["evidence"] > 0


def test_cdna2_keeps_both_bf16_mfma_generations(catalog):
    """cdna2 lists V_MFMA_F32_32X32X4BF16 (opcode 108) and V_MFMA_F32_32X32X4BF16_1K (99): LLVM's gfx942 alias of
    the old spelling (mai-gfx942.s:337) names the _1K instruction's new name, so it must not fold the two."""
    assert "V_MFMA_F32_32X32X4BF16 " in manual_line("cdna2", 3610) and "108" in manual_line("cdna2", 3610)
    assert "V_MFMA_F32_32X32X4BF16_1K" in manual_line("cdna2", 3602)
    old = catalog.show("v_mfma_f32_32x32x4bf16", arch="cdna2").as_json()["encodings"][0]
    new = catalog.show("v_mfma_f32_32x32x4bf16_1k", arch="cdna2").as_json()["encodings"][0]
    assert (old["opcode"], new["opcode"]) == (108, 99)


def test_cdna2_s_max_u32_identifier(catalog):
    assert re.match(r"\|\s*OP\s*\|\s*\[29:23\]", manual_line("cdna2", 4500))
    assert manual_line("cdna2", 4501).strip() == ""                        # the table ends: no ENCODING row
    line, data = llvm_check("gfx9_asm_sop2.s", r"CHECK: s_max_u32 s5, s1, s2 ")
    assert bits(data, 31, 30) == 0b10 and bits(data, 29, 23) == 9, line
    enc = catalog.show("s_max_u32", arch="cdna2").as_json()["encodings"][0]
    assert enc["identifier"] == "0x84800000" and field(enc, "ENCODING") == [[31, 30]]
    assert any(e["quirk"] == "sop2-encoding" for e in enc["errata"])


def test_cdna5_wmma_scale16_is_128_bits(catalog):
    assert "[31:20]" in manual_line("cdna5", 6824)
    line, data = llvm_check("gfx1250_asm_wmma_w32.s", r"GFX1250: v_wmma_scale16_f32_32x16x128_f4 ")
    assert len(data) == 16 and bits(data, 31, 16) == 0xCC3A and bits(data, 95, 80) == 0xCC88, line
    enc = catalog.show("v_wmma_scale16_f32_32x16x128_f4", arch="cdna5").as_json()["encodings"][0]
    assert enc["width"] == 128 and enc["opcode"] == 136 and field(enc, "OP") == [[87, 80]]
    scale = catalog.show("v_wmma_scale_f32_32x16x128_f4", arch="cdna5").as_json()["encodings"][0]
    assert scale["identifier"] != enc["identifier"]                         # SCLOP tells them apart
    assert any(e["quirk"] == "vop3px2-128-bits" and "64 bits" in e["manual"] for e in enc["errata"])


def test_cdna4_scaled_mfma_is_a_128_bit_vop3px2_from_llvm(catalog):
    """The cdna4 manual describes the scaled MFMAs only in prose (two back-to-back VOP3Ps, the first with 0xD3AC
    across ENCODING through OP) and prints the load-scale ENCODING as 0xCC35; LLVM's bytes have 0xD3AC, the MFMA
    word 64 bits up with opcode 0x2D: the catalog serves a 128-bit VOP3PX2 and the load-scale instruction (VOP3P
    opcode 0x2C), each with the manual's value and the evidence beside it."""
    assert "V\\_MFMA\\_SCALE\\_F32\\_16X16X128\\_F8F6F4" in manual_line("cdna4", 1952)
    assert "0xD3AC across" in manual_line("cdna4", 1956)
    assert re.match(r"\|\s*ENCODING\s*\|\s*0xCC35 in bits \[31:16\]", manual_line("cdna4", 1960))
    line, data = llvm_check("mai-gfx950.s", r"GFX950: v_mfma_scale_f32_16x16x128_f8f6f4 v\[0:3\], v\[4:11\]")
    assert len(data) == 16 and bits(data, 31, 16) == 0xD3AC and bits(data, 95, 87) == 0x1A7, line
    assert bits(data, 86, 80) == 0x2D and bits(data, 78, 75) == 1, line
    enc = catalog.show("v_mfma_scale_f32_16x16x128_f8f6f4", arch="cdna4").as_json()["encodings"][0]
    assert enc["encoding"] == "VOP3PX2" and enc["width"] == 128 and enc["opcode"] == 0x2D
    assert field(enc, "OP") == [[86, 80]] and field(enc, "SCALE_SRC1") == [[49, 41]]
    fix = next(e for e in enc["errata"] if e["quirk"] == "vop3px2-scale-mfma" and e["name"] == "*")
    assert "0xCC35" in fix["manual"] and "1101001110101100" in fix["resolved"] and fix["evidence"] > 0
    line, data = llvm_check("mai-gfx950.s", r"GFX950: v_mfma_ld_scale_b32 v0, 64 ")
    assert len(data) == 8 and bits(data, 31, 23) == 0x1A7 and bits(data, 22, 16) == 0x2C, line
    ld = catalog.show("v_mfma_ld_scale_b32", arch="cdna4").as_json()["encodings"][0]
    assert ld["encoding"] == "VOP3P" and ld["opcode"] == 0x2C
    fix = next(e for e in ld["errata"] if e["quirk"] == "llvm-td-load-scale")
    assert fix["manual"] == "no such row" and fix["evidence"] > 0


# gfx1250 instructions no cdna5 opcode table lists: (mnemonic, LLVM MC test with a check line, opcode field bits)
GFX1250_TD_CHECKS = {
    "V_WMMA_LD_SCALE_PAIRED_B32": ("gfx1250_asm_wmma_w32.s", (22, 16)),
    "V_WMMA_LD_SCALE16_PAIRED_B64": ("gfx1250_asm_wmma_w32.s", (22, 16)),
    "S_ADD_PC_I64": ("gfx1250_asm_sop1.s", (15, 8)),
    "S_ALLOC_VGPR": ("gfx12_asm_sop1.s", (15, 8)),
    "TENSOR_SAVE": ("gfx1250_asm_vflat.s", (21, 14)),
    "TENSOR_STOP": ("gfx1250_asm_vflat.s", (21, 14)),
}


@pytest.mark.parametrize("name", sorted(GFX1250_TD_CHECKS))
def test_gfx1250_instructions_known_from_llvm_only(catalog, name):
    """Each "llvm-td-gfx1250" row: the cited TableGen line defines the instruction's gfx1250 opcode (premise), the
    cdna5 manual never names it, an LLVM check line's bytes carry the opcode, and the
    catalog serves the row with the quirk as its erratum."""
    fix = CORRECTIONS["llvm-td-gfx1250"]
    _, enc_name, opcode, cite = next(r for r in fix.rows if r[0] == name)
    file, line = cite.rsplit(":", 1)
    td = (SOURCES / file).read_text(encoding="utf-8").splitlines()[int(line) - 1]
    m = re.match(rf"\s*defm {name}\s*:\s*\w+_Real_gfx(?:1250|12\w*)<(0x[0-9a-f]+)>;", td)
    assert m and int(m.group(1), 16) == opcode, td
    manual = (SOURCES / "amd-isa-manuals" / "cdna5" / "README.md").read_text(encoding="utf-8")
    assert name not in manual.upper()   # the manual never names it
    test, (hi, lo) = GFX1250_TD_CHECKS[name]
    at, data = llvm_check(test, rf"(GFX1250|GFX12): {name.lower()}\b")
    assert bits(data, hi, lo) == opcode, (test, at)
    enc = next(e for e in catalog.show(name.lower(), arch="cdna5").as_json()["encodings"] if e["encoding"] == enc_name)
    assert enc["opcode"] == opcode
    erratum = next(e for e in enc["errata"] if e["quirk"] == "llvm-td-gfx1250")
    assert erratum["manual"] == "no such row" and erratum["evidence"] > 0


def test_rdna2_to_rdna3_diff_has_no_ds_reencoding(catalog):
    diff = catalog.diff("rdna2", "rdna3").as_json()
    ds = [r for r in diff["reencoded"] if r["from"]["encoding"] == "DS" and r["to"]["encoding"] == "DS"]
    assert diff["counts"]["common"] > 1000
    assert all(r["fields_changed"] == [] for r in ds), ds[:5]      # no DS layout change
    # what is left are real opcode changes (gfx10 ds_add_rtn_f32 0x55, gfx11 0x79), not a re-encoding
    assert len(ds) <= 5, ds


def test_every_layout_has_a_settled_line(catalog):
    rows = catalog.conn.execute("SELECT arch, encoding, settled FROM layout_status").fetchall()
    assert len(rows) == catalog.conn.execute("SELECT count(*) FROM encodings").fetchone()[0]
    assert all(how for _, _, how in rows)


def test_corrections_are_errata_with_evidence(catalog):
    fixes = catalog.corrections()
    assert {f["quirk"] for f in fixes} >= {"ds-op-25-18", "flat-op-21-14", "vop3p-encoding-9-bits", "sop2-encoding",
                                           "vop3px2-128-bits", "vop1-vop3a-offset-0x140", "no-vop3-form"}
    for f in fixes:
        assert f["against"] == 0 or f["evidence"] >= 20 * f["against"], f
        others = [a.key for a in ARCHS if a.key != f["arch"]]
        assert f["evidence"] > 0 or any(a in f["settled_by"] for a in others) \
            or any(w in f["settled_by"] for w in ("rule", "list", "quirk table")), f
    kinds = {k for (k,) in catalog.conn.execute("SELECT DISTINCT kind FROM errata")}
    assert {"manual-vs-llvm-layout", "manual-vs-llvm-opcode"} <= kinds


def test_layout_fixes_cite_the_line_that_prints_the_manual_value(sources):
    """Each layout correction's manual line prints the field and bit range the correction replaces."""
    assert Path(sources).is_dir()
    for fix in LAYOUT_FIXES:
        for s in fix.seen:
            field_name, bit_range = s.what.split()[:2]
            line = manual_line(s.arch, s.line)
            assert re.match(rf"\|\s*{field_name}\s*\|\s*{re.escape(bit_range.rstrip(','))}", line), (fix.id, s, line)


@pytest.mark.parametrize("arch,name", [("vega", "v_pk_add_f16"), ("cdna1", "v_pk_add_f16")])
def test_gcn_vop3p_encoding_has_nine_bits(catalog, arch, name):
    enc = next(e for e in catalog.show(name, arch=arch).as_json()["encodings"] if e["encoding"] == "VOP3P")
    assert field(enc, "ENCODING") == [[31, 23]]
    assert int(enc["identifier"], 16) >> 23 == 0x1A7

"""Facts from the AMD manuals, asserted against the built catalog. Each cites its manual line."""

from __future__ import annotations

import re

import pytest

from tests.conftest import MANUALS, manual_line

CDNA5_VOP3_FIELDS = [  # amd-isa-manuals/cdna5/README.md:6397-6410 (Table 91, split over two tables)
    ("NEG", [[63, 61]]), ("OMOD", [[60, 59]]), ("SRC2", [[58, 50]]), ("SRC1", [[49, 41]]), ("SRC0", [[40, 32]]),
    ("ENCODING", [[31, 26]]), ("OP", [[25, 16]]), ("CLAMP", [[15, 15]]), ("OPSEL", [[14, 11]]), ("ABS", [[10, 8]]),
    ("VDST", [[7, 0]]),
]


def test_v_sad_u32_cdna5_encoding(catalog):
    assert "V\\_SAD\\_U32 549" in manual_line("cdna5", 21868)
    assert "'b110101" in manual_line("cdna5", 6403)
    doc = catalog.show("v_sad_u32", "cdna5").as_json()
    enc = doc["encodings"][0]
    assert (enc["encoding"], enc["width"], enc["opcode"]) == ("VOP3", 64, 549)
    assert int(enc["identifier"], 16) == 0xD6250000
    assert [(f["name"], f["bits"]) for f in enc["fields"]] == CDNA5_VOP3_FIELDS
    encoding_field = next(f for f in enc["fields"] if f["name"] == "ENCODING")
    assert encoding_field["value"] == 0b110101
    clamp = next(f for f in enc["fields"] if f["name"] == "CLAMP")
    assert clamp["spelling"] == "CM"  # cdna5:6398 spells bit 15 "CM"


@pytest.mark.parametrize(("arch", "opcode", "line", "fragment"), [
    ("cdna1", 476, 5560, "| 476      | V_SAD_U32"),
    ("cdna2", 476, 5449, "| 476      | V_SAD_U32"),
    ("cdna3", 476, 21121, "| 476      | V_SAD_U32"),
    ("cdna4", 476, 22792, "| 476      | V_SAD_U32"),
    ("rdna1", 349, 5458, "| 349      | V_SAD_U32"),
    ("rdna2", 349, 5503, "| 349      | V_SAD_U32"),
    ("rdna3", 549, 5421, "| 549      | V_SAD_U32"),
    ("rdna3.5", 549, 5475, "| 549      | V_SAD_U32"),
    ("rdna4", 549, 6180, "| 549      | V_SAD_U32"),
])
def test_v_sad_u32_opcode_per_generation(catalog, arch, opcode, line, fragment):
    assert fragment in manual_line(arch, line)
    gens = {g["arch"]: g for g in catalog.show("v_sad_u32", "cdna5").as_json()["generations"]}
    assert gens[arch]["opcode"] == opcode


def test_v_sad_u32_generations_same_and_different(catalog):
    gens = {g["arch"]: g for g in catalog.show("v_sad_u32", "cdna5").as_json()["generations"]}
    # rdna3 spells bit 15 CLMP (rdna3:5260 area), cdna5 CM: normalised, so the layout is the same
    assert gens["rdna4"]["same"] and gens["rdna3"]["same_layout"]
    # GCN/CDNA VOP3A fixes ENCODING to 110100 (vega:5037 "Must be: 110100"), cdna5 VOP3 to 110101
    assert "Must be: 110100" in manual_line("vega", 5037)
    assert not gens["vega"]["same_layout"]
    assert {"field": "ENCODING", "change": "fixed value", "from": "110101", "to": "110100"} in gens["vega"]["differs"]


@pytest.mark.parametrize(("arch", "line", "semantics"), [
    ("cdna4", 13690, "D0.u32 = ABSDIFF(S0.u32, S1.u32) + S2.u32"),
    ("rdna4", 17790, "D0.u32 = ABSDIFF(S0.u32, S1.u32) + S2.u32"),
    ("rdna3", 15688, "D0.u = ABSDIFF(S0.u, S1.u) + S2.u"),
    ("cdna5", 21880, "D0.u32 = tmp"),
])
def test_v_sad_u32_semantics_per_arch(catalog, arch, line, semantics):
    assert manual_line(arch, line).strip() == semantics
    assert semantics in catalog.show("v_sad_u32", arch).semantics


def test_v_lshl_add_u64(catalog):
    assert "V\\_LSHL\\_ADD\\_U64 594" in manual_line("cdna5", 22486)
    assert "V\\_LSHL\\_ADD\\_U64 520" in manual_line("cdna4", 14401)
    assert "V\\_LSHL\\_ADD\\_U64 520" in manual_line("cdna3", 13562)
    doc = catalog.show("v_lshl_add_u64").as_json()
    assert doc["arch"] == "cdna5"
    assert doc["encodings"][0]["opcode"] == 594
    gens = {g["arch"]: g["opcode"] for g in doc["generations"]}
    assert gens == {"cdna5": 594, "cdna4": 520, "cdna3": 520}
    assert not any(a.startswith("rdna") for a in doc["archs"])
    # semantics differ per generation and are never merged (cdna4:14407, cdna5:22492-22494)
    assert catalog.show("v_lshl_add_u64", "cdna4").semantics == "D0.u64 = (S0.u64 << S1.u32[2 : 0].u32) + S2.u64"
    cdna5 = doc["semantics"]
    assert "shift = S1[2 : 0].u32 > 4U ? 3'0U : S1[2 : 0].u3;" in cdna5
    assert "unsupported shift counts as a shift of zero" in doc["notes"]  # cdna5:22500


def test_v_mov_b32_rdna3_vop1_and_promoted_vop3(catalog):
    assert "| 1        | V_MOV_B32" in manual_line("rdna3", 5056)
    assert "| 385      | V_MOV_B32" in manual_line("rdna3", 5275)
    encs = [(e["encoding"], e["opcode"]) for e in catalog.show("v_mov_b32", "rdna3").as_json()["encodings"]]
    assert encs == [("VOP1", 1), ("VOP3", 385)]


def test_gcn_vop3_opcodes_from_the_stated_rule(catalog):
    # vega:2961 "The VOP3 opcode is: VOP2 opcode + 0x140" stands in the VOP1 section (a copy error
    # in the manual): V_MOV_B32 is VOP1 opcode 1 (vega:2881), so its VOP3A opcode is 0x141.
    assert "VOP2 opcode + 0x140" in manual_line("vega", 2961)
    encs = {e["encoding"]: e["opcode"] for e in catalog.show("v_mov_b32", "vega").as_json()["encodings"]}
    assert encs == {"VOP1": 1, "VOP3A": 0x141}


def test_llvm_spellings_and_case(catalog):
    for spelling in ("V_SAD_U32", "v_sad_u32_e64", "V_Sad_U32"):
        assert catalog.show(spelling).name == "v_sad_u32"


_TABLE_ROW = re.compile(r"\|\s*(\d+)\s*\|\s*([A-Z][A-Z0-9_]+)\s*(?=\|)")
_CHAPTER = re.compile(r"^#.*Chapter \d+\.\s*(.*?)\**$")


def _opcode_table_names(arch: str) -> set[str]:
    """An independent count: names in `| N | NAME |` rows of the Microcode Formats chapter."""
    names: set[str] = set()
    inside = False
    for line in (MANUALS / arch / "README.md").read_text(encoding="utf-8").splitlines():
        m = _CHAPTER.match(line)
        if m:
            inside = "Microcode Formats" in m.group(1)
            continue
        if inside:
            names.update(n for _, n in _TABLE_ROW.findall(line.replace("\\_", "_")) if n != "RESERVED")
    return names


@pytest.mark.parametrize("arch", ["vega", "vega7", "cdna1", "rdna1", "rdna2", "cdna2", "rdna3", "cdna3",
                                  "rdna3.5", "rdna4", "cdna4", "cdna5"])
def test_coverage_of_opcode_tables(catalog, arch):
    expected = _opcode_table_names(arch)
    assert len(expected) > 900
    have = {r[0] for r in catalog.conn.execute("SELECT manual_name FROM instr_arch WHERE arch=?", (arch,))}
    found = expected & have
    assert len(found) / len(expected) >= 0.99, sorted(expected - have)[:20]


def test_search_ranks_exact_name_first(catalog):
    rows = [h.as_json() for h in catalog.search("v_sad_u32")]
    assert rows[0]["name"] == "v_sad_u32"
    words = [h.as_json() for h in catalog.search("absolute difference", limit=50)]
    assert "v_sad_u32" in [r["name"] for r in words]


def test_diff_one_instruction_and_whole_isa(catalog):
    one = catalog.diff("rdna2", "rdna3", "v_sad_u32").as_json()
    assert one["from_encodings"][0]["opcode"] == 349 and one["to_encodings"][0]["opcode"] == 549
    whole = catalog.diff("cdna4", "cdna5").as_json()
    assert "v_lshl_add_u64" in [r["name"] for r in whole["reencoded"]]
    assert whole["counts"]["added"] > 0 and whole["counts"]["removed"] > 0
    assert catalog.diff("rdna3", "cdna3").added.count("v_lshl_add_u64") == 1


def test_erratum_when_the_stated_vop3_rule_and_the_opcode_table_disagree(catalog):
    # cdna3:7745 (VOP1 section): "The VOP3 opcode is: VOP2 opcode + 0x140"; cdna3:20716 V_MOV_B32 is
    # VOP1 opcode 1, so the rule gives 321; but the VOP3A opcode table (cdna3:20952) lists 385.
    assert "VOP2 opcode + 0x140" in manual_line("cdna3", 7745)
    assert "| 1        | V_MOV_B32" in manual_line("cdna3", 20716)
    assert "| 385      | V_MOV_B32" in manual_line("cdna3", 20952)
    errata = [e for e in catalog.show("v_mov_b32", "cdna3").as_json()["errata"]
              if e["arch"] == "cdna3" and e["kind"] == "vop3-opcode-rule"]
    assert len(errata) == 1
    assert "321" in errata[0]["detail"] and "385" in errata[0]["detail"]
    assert {s["line"] for s in errata[0]["sources"]} == {7745, 20952}


def test_compare_templates_expand_only_into_real_table_entries(catalog):
    # vega7 describes compares by template (vega7:2311 "V_CMP_{COMPF}_F16 ... 0x20 to 0x2F") and offset
    # tables; V_CMP_LT_F16 = 0x20 + 1 (LT offset 1, vega7:2321) = 33, as its opcode table says.
    assert "V_CMP_{COMPF}_F16" in manual_line("vega7", 2311)
    doc = catalog.show("v_cmp_lt_f16", "vega7").as_json()
    # the expanded entry carries its text: vega7:2321 gives LT as "D.u = (S0 < S1)", pseudocode only (Semantics)
    assert "(S0 < S1)" in manual_line("vega7", 2321)
    assert doc["encodings"][0]["opcode"] == 33 and "(S0 < S1)" in doc["semantics"]
    # V_CMPS_* belongs to older GCN: the template exists in vega's manual but no opcode table has it
    with pytest.raises(Exception, match="unknown instruction"):
        catalog.show("v_cmps_lt_f64", "vega")


def test_lost_heading_recovered_from_the_opcode_table(catalog):
    # rdna3:15606 heads V_MED3_F32 543; its text runs on with "Return median signed integer value of three
    # inputs." (15622) and a second Expression block (15625), with no V_MED3_I32 heading; the VOP3 opcode
    # table has V_MED3_I32 at 544. The reader names the orphaned block from the table.
    assert "V\\_MED3\\_F32 543" in manual_line("rdna3", 15606)
    assert manual_line("rdna3", 15622) == "Return median signed integer value of three inputs."
    doc = catalog.show("v_med3_i32", "rdna3").as_json()
    assert doc["description"] == "Return median signed integer value of three inputs."
    assert doc["semantics"].startswith("if v_max3_i32(S0.i, S1.i, S2.i) == S0.i then")
    assert "heading lost in conversion" in doc["sources"][0]["section"]
    f32 = catalog.show("v_med3_f32", "rdna3").semantics
    assert "v_max3_i32" not in f32

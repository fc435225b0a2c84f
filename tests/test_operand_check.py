"""check-operands: LLVM's MC examples parsed against the operand rows of their target's syntax page.

Each test first reads the .rst row or the MC check line it relies on. A sample of test files per
family runs by default; the whole corpus is the slow test.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gpuisa.codec.operand_check import (
    DERIVED,
    EVIDENCE,
    F8F6F4_RULE,
    MISMATCH,
    OTHER_PAGE,
    PAGE,
    TRUE16,
    RowMatcher,
    check_examples,
)
from gpuisa.codec.tables import matrix_dwords, row_of
from gpuisa.sources.llvm_mc import read_file
from gpuisa.sources.llvm_syntax_docs import (
    ATOMIC_RETURN_OPTIONAL,
    LOAD_SCALE_ROW,
    MATRIX_TABLE_LINE,
    MATRIX_TWINS,
    MODIFIER_EVIDENCE,
    OLDER_ROWS,
    OPERAND_EVIDENCE,
    PACKED_CONVERSION,
    PROFILE_TWINS,
    RENAMED_IN_GFX12,
    RENAMED_IN_GFX1250,
    ROW_EVIDENCE,
    SAME_SHAPE_GFX1250,
    SCALED_MATRIX,
    SCALED_MATRIX_TD,
    WIDE_TWINS,
    lookup,
    packed_conversion_dwords,
    profile_bits,
    read_syntax_docs,
    rule_source,
)

DOCS_REL = "llvm-project-23.1.1/llvm/docs"
MC = "llvm-project-23.1.1/llvm/test/MC/AMDGPU"

# One or two MC test files per syntax family, each family's own instructions (DS, SMEM, SOP1, VOP1, MAI).
SAMPLE_FILES: dict[str, tuple[str, ...]] = {
    "GFX7": ("gfx7_asm_sop1.s", "gfx7_asm_ds.s"),
    "GFX8": ("gfx8_asm_vop1.s",),
    "GFX900": ("gfx9_asm_ds.s", "gfx9_asm_smem.s"),
    "GFX90a": ("mai-gfx90a.s",),
    "GFX10": ("gfx10_asm_ds.s",),
    "GFX1030": ("gfx1030_new.s",),
    "GFX1011": ("gfx1011_dlops.s",),
    "GFX1013": ("gfx1013.s",),
    "GFX11": ("gfx11_asm_ds.s",),
    "GFX12 (rdna4)": ("gfx12_asm_ds.s",),
    "GFX12 (cdna5)": ("gfx1250_asm_ds.s",),
}


@pytest.fixture(scope="module")
def docs(sources: Path):
    return read_syntax_docs(sources / DOCS_REL, DOCS_REL)


def _line(sources: Path, rel: str, line: int) -> str:
    return (sources / rel).read_text(encoding="utf-8").splitlines()[line - 1]


def test_ds_add_u32_gfx11_example_parses_and_a_wrong_width_does_not(docs, sources):
    (row,) = lookup(docs, ["GFX11"], "ds_add_u32")
    text = _line(sources, row.provenance.file, row.provenance.line)
    assert re.findall(r":ref:`([^<`]+)<", text) == ["vaddr", "vdata", "offset", "gds"]
    vaddr = docs.page(row.operands[0].label)
    assert "*Size:* 1 dword." in (sources / vaddr.provenance.file).read_text().splitlines()
    # LLVM's own check line for the instruction (gfx11_asm_ds.s)
    checks = [ln for ln in (sources / MC / "gfx11_asm_ds.s").read_text().splitlines()
              if ln.startswith("ds_add_u32 v1, v2 offset:65535")]
    assert checks, "the premise: gfx11_asm_ds.s assembles ds_add_u32 with offset:65535"
    m = RowMatcher(docs, ("GFX11",), False, 11)
    assert m.check(checks[0])[0] == PAGE
    status, reason, cite = m.check("ds_add_u32 v[1:2], v2 offset:65535")
    assert status == MISMATCH and "2 dword(s)" in reason and "vaddr" in reason
    assert cite.startswith(row.provenance.cite().split(" ")[0])
    status, reason, _ = m.check("ds_add_u32 v1, v2 glc")
    assert status == MISMATCH and "glc" in reason


def test_s_load_b32_gfx11_modifiers_and_offset_range(docs, sources):
    (row,) = lookup(docs, ["GFX11"], "s_load_b32")
    text = _line(sources, row.provenance.file, row.provenance.line)
    assert re.findall(r":ref:`([^<`]+)<", text) == ["sdst", "sbase", "soffset", "offset21s", "glc", "dlc"]
    m = RowMatcher(docs, ("GFX11",), False, 11)
    assert m.check("s_load_b32 s5, s[2:3], s0 offset:0xfffff glc dlc")[0] == PAGE
    # offset21s: a 21-bit signed offset (the name says its width); 0x100000 needs 22 bits signed
    status, reason, _ = m.check("s_load_b32 s5, s[2:3], s0 offset:0x100000")
    assert status == MISMATCH and "offset21s" in reason
    # sbase is 2 dwords on its page
    assert m.check("s_load_b32 s5, s2, s0")[0] == MISMATCH


def test_vopd_halves_check_against_x_and_y_tables(docs, sources):
    """The GFX12 page lists v_dual_add_nc_u32 under VOPDY only; v_dual_add_f32 under VOPDX (usable as Y)."""
    x = next(i for i in docs.families["GFX12"].instructions if i.mnemonic == "v_dual_add_nc_u32")
    assert x.section == "VOPDY"
    m = RowMatcher(docs, ("GFX12",), False, 12)
    assert m.check("v_dual_add_f32 v255, v4, v2 :: v_dual_add_nc_u32 v6, v1, v3")[0] == PAGE
    assert m.check("v_dual_add_f32 v255, v4, v2 :: v_dual_add_f32 v6, v1, v3")[0] == PAGE
    assert m.check("v_dual_add_nc_u32 v255, v4, v2 :: v_dual_add_f32 v6, v1, v3")[0] == MISMATCH


def test_gfx950_vop3_src0_reads_the_general_source_page(docs, sources):
    """GFX950's VOP3 rows link src0 to an interpolation-attribute page (PAGE_ERRATA); the check reads the
    general source page, so LLVM's gfx950 example `v_cvt_pk_bf8_f32 v1, v2, v3` parses."""
    assert "attr0.x through attr63.w" in _line(sources, f"{DOCS_REL}/AMDGPU/gfx950_operands.rst", 865)
    assert _line(sources, f"{DOCS_REL}/AMDGPU/gfx950_operands.rst", 860) == ".. _amdgpu_synid_gfx950_src0_1d4114:"
    m = RowMatcher(docs, ("GFX950",), True, 9)
    assert m.check("v_cvt_pk_bf8_f32 v1, v2, v3")[0] == PAGE
    assert m.check("v_cvt_pk_bf8_f32 v1, v[2:3], v3")[0] == MISMATCH


def test_gfx12_vop3_src0_slip_reads_the_rows_own_src1_page(docs, sources):
    """v_fma_f64's GFX12 row links src0 to the attribute page and src1 to a 2-dword page: src0 is read
    from src1's page (2 dwords), not from the 1-dword general page."""
    row = next(i for i in docs.families["GFX12"].instructions if i.mnemonic == "v_fma_f64")
    text = _line(sources, row.provenance.file, row.provenance.line)
    assert "src0<amdgpu_synid_gfx12_src0_1d4114>" in text
    src1 = docs.page(next(o.label for o in row.operands if o.name == "src1"))
    assert "*Size:* 2 dwords." in (sources / src1.provenance.file).read_text().splitlines()
    m = RowMatcher(docs, ("GFX12",), False, 12)
    assert m.check("v_fma_f64 v[0:1], v[2:3], v[4:5], v[6:7]")[0] == PAGE
    assert m.check("v_fma_f64 v[0:1], v2, v[4:5], v[6:7]")[0] == MISMATCH


@pytest.mark.parametrize("label", sorted(OPERAND_EVIDENCE))
def test_operand_evidence_entries_follow_llvm_tests_and_stay_visible(docs, sources, label):
    """Each OPERAND_EVIDENCE entry: its page line is the label it corrects, its MC check line encodes the
    example (on that line or the input line above), the page alone refuses the example, and with the
    correction it parses, counted against the entry."""
    fix = OPERAND_EVIDENCE[label]
    cited = _line(sources, fix.source.file, fix.source.line)   # the page's label, or the row linking it
    assert cited == f".. _{label}:" or f"<{label}>`" in cited, cited
    file, line = fix.evidence.rsplit(":", 1)
    check = _line(sources, file, int(line))
    assert check.startswith(("//", "#")) and "encoding:" in check
    assert fix.example in check or _line(sources, file, int(line) - 1) == fix.example
    family = fix.serving[0] if fix.serving else next(k for k in docs.families if f"_{k.lower()}_" in label)
    m = RowMatcher(docs, (family,), not family.startswith(("GFX10", "GFX11", "GFX12")), 12)
    status, reason, _ = m.check(fix.example)
    # a row of the page's own (EVIDENCE) or one borrowed from another page (OTHER_PAGE), counted either way
    assert status in (EVIDENCE, OTHER_PAGE) and label in m.last_evidence, (status, reason)
    # the page the tests agree with exists; the row's own page is what refused the example
    assert all(target in docs.pages for target in fix.use.values())
    if fix.implicit:   # the row requires the operand the tests leave out
        assert f"{fix.source.section}" in cited and not any(
            o.optional for i in docs.families["GFX12"].instructions if i.mnemonic == fix.source.section
            for o in i.operands if o.label == label)
        return
    mnemonic = fix.example.split()[0].removesuffix("_e32")
    row = m.rows.get(mnemonic) or m.fallback[mnemonic]
    op = next(o for o in row.operands if o.evidence == label)
    token = [t.strip() for t in fix.example.split(None, 1)[1].split(",")]
    assert any(m._operand_on_page(m._as_documented(op), t) is not None for t in token)


def test_operand_evidence_stays_inside_the_sections_the_tests_show(docs, sources):
    """A correction applies only to the row sections its tests cover: a GFX12 VBUFFER row reads the GFX11
    buffer page (`off` allowed); a VGLOBAL vaddr stays a VGPR (the GFX11 global page lists no `off`)."""
    m = RowMatcher(docs, ("GFX12",), False, 12)
    assert m.check("global_load_b32 v1, off, s[2:3]")[0] == MISMATCH
    assert m.check("buffer_load_b32 v5, v[1:3], s[8:11], s3 idxen offen")[0] == MISMATCH
    # GFX12's VOP3 DPP (rows borrowed from GFX11): vsrc1 takes an SGPR, vsrc0 stays a VGPR, no literal
    assert m.check("v_add3_u32_e64_dpp v5, v1, s2, v3 quad_perm:[3,2,1,0]")[0] == OTHER_PAGE
    assert m.check("v_add3_u32_e64_dpp v5, s1, v2, v3 quad_perm:[3,2,1,0]")[0] == MISMATCH
    assert m.check("v_add3_u32_e64_dpp v5, v1, 0x1234, v3 quad_perm:[3,2,1,0]")[0] == MISMATCH
    # and GFX11's own row keeps its page: vsrc1 a VGPR (gfx11_vsrc_6802ce.rst lists only v)
    assert "*Operands:* :ref:`v<amdgpu_synid_v>`" in (sources / DOCS_REL / "AMDGPU/gfx11_vsrc_6802ce.rst").read_text()
    gfx11 = RowMatcher(docs, ("GFX11",), False, 11)
    assert gfx11.check("v_add3_u32_e64_dpp v5, v1, s2, v3 quad_perm:[3,2,1,0]")[0] == MISMATCH


@pytest.mark.parametrize("rule", sorted(ROW_EVIDENCE))
def test_row_evidence_rules_derive_only_forms_no_page_lists(docs, sources, rule):
    """Each ROW_EVIDENCE rule: its pattern line is the row it cites, its MC check line encodes the example
    (on that line or the input line above), no page lists the example's mnemonic, and the derived row
    parses it, counted against the rule."""
    fix = ROW_EVIDENCE[rule]
    assert _line(sources, fix.source.file, fix.source.line).split()[0] == fix.source.section
    file, line = fix.evidence.rsplit(":", 1)
    check = _line(sources, file, int(line))
    assert check.startswith("//") and "[0x" in check
    assert fix.example in check or _line(sources, file, int(line) - 1) == fix.example
    halves = [h.split()[0] for h in fix.example.split("::")]
    derived = halves[0] if "vopd3 x half" in rule else halves[-1]
    rows = lookup(docs, list(docs.families), derived)
    extends = rule in ROW_EXTENSIONS
    if "vopd3 x half" in rule:   # listed, but only as the Y half
        assert rows and {r.section for r in rows} == {"VOPDY"}
    elif not extends:
        assert not rows, f"a page lists {derived}: the rule is not needed"
    bucket = fix.families[0]
    page = bucket.split()[0]
    m = RowMatcher(docs, (page,), False, 12, bucket=bucket)
    if bucket != page:   # a rule for one family bucket leaves the other's examples to the page
        other = "GFX12 (rdna4)" if page == "GFX12" else page
        assert RowMatcher(docs, (page,), False, 12, bucket=other).check(fix.example)[0] == MISMATCH
    status, reason, _ = m.check(fix.example)
    assert status in ((DERIVED, OTHER_PAGE) if extends else (DERIVED,)) and rule in m.last_evidence, (status, reason)


# Rules that extend rows a page lists (gfx1250's flat SADDR, VOPD3 sources, GFX950 rows on a gfx12 target) rather
# than derive rows no page lists: the page's row refuses the example without them.
ROW_EXTENSIONS = ("flat row with an sgpr base", "vopd3 sources", "gfx9 row on a gfx12 target")


@pytest.mark.parametrize("name", sorted(MODIFIER_EVIDENCE))
def test_modifier_evidence_adds_only_what_the_tests_write(docs, sources, name):
    """Each MODIFIER_EVIDENCE entry: its cited row is the one it names, its MC check line encodes the example,
    the page's own row lacks the modifiers, and with them the example parses, counted against the entry;
    rows outside the entry's section keep their modifiers."""
    fix = MODIFIER_EVIDENCE[name]
    assert _line(sources, fix.source.file, fix.source.line).split()[0] == fix.source.section
    file, line = fix.evidence.rsplit(":", 1)
    check = _line(sources, file, int(line))
    assert check.startswith("//") and "encoding:" in check
    assert fix.example in check or _line(sources, file, int(line) - 1) == fix.example
    mnemonic = fix.example.split()[0]
    family = fix.families[0]
    page = family.split(" (")[0]   # a family bucket ('GFX12 (cdna5)': gfx1250 on GFX12's page) or a page
    rows = [r for r in lookup(docs, [page], mnemonic) if r.section.startswith(fix.section)]
    if not rows:   # a row no page lists (gfx1250's WMMA shapes): the listed row a ROW_EVIDENCE rule derives it from
        ruled = rule_source(mnemonic, {page, family})
        rows = [r for r in lookup(docs, [page], ruled[1]) if r.section.startswith(fix.section)] if ruled else []
    (row,) = rows
    assert not {o.name for o in row.operands} & set(fix.modifiers), "the page lists them: no entry needed"
    assert not set(fix.type_tags(mnemonic)) - {o.name for o in row.operands}, "it sizes an operand the row lacks"
    m = RowMatcher(docs, (page,), not family.startswith(("GFX10", "GFX11", "GFX12")), 12,
                   bucket=family if family != page else "")
    status, reason, _ = m.check(fix.example)
    assert status in (EVIDENCE, DERIVED) and name in m.last_evidence, (status, reason)
    if fix.types:   # the width the entry gives is the only one it takes (the row's own 1 dword is refused)
        op_index = [o.name for o in row.operands].index(fix.types[0][0])
        words = fix.example.split(None, 1)[1].split(", ")
        words[op_index] = "v1"
        assert m.check(f"{mnemonic} " + ", ".join(words))[0] == MISMATCH
    # the same modifier on a row the entry does not cover is still refused
    if fix.modifiers:
        assert m.check(f"ds_add_u32 v1, v2 {fix.modifiers[0]}:1")[0] == MISMATCH


def test_packed_conversion_sources_follow_the_manuals_component_counts(sources):
    """The sizes the GFX950 conversion entries give src0 are the cdna4 manual's: 32 FP6 values read from
    S0[sOffset + 5 : sOffset] (6 dwords), and 2 single-precision values S0[31:0], S0[63:32] (2 dwords)."""
    manual = "amd-isa-manuals/cdna4/README.md"
    assert _line(sources, manual, 14929) == "#### **V\\_CVT\\_SCALEF32\\_PK32\\_F32\\_FP6 598**"
    assert _line(sources, manual, 14931).startswith("Convert from a packed 32-component FP6 float input")
    assert "S0[sOffset + 5 : sOffset].fp6" in _line(sources, manual, 14941)
    assert _line(sources, manual, 14594).startswith("Scale a packed 2-component single-precision float input")
    assert "S0[63 : 32].f32" in _line(sources, manual, 14601)
    pk32 = MODIFIER_EVIDENCE["gfx950 pk32 conversion source"]
    assert pk32.type_tags("v_cvt_scalef32_pk32_f32_fp6") == {"src0": "fp6x32"}   # 192 bits
    assert pk32.type_tags("v_cvt_scalef32_sr_pk32_bf6_f32") == {"src0": "f32x32"}
    assert MODIFIER_EVIDENCE["gfx950 sr_pk_fp4_f32 source"].type_tags("v_cvt_scalef32_sr_pk_fp4_f32") == {"src0": "f32x2"}


@pytest.mark.parametrize("name", sorted(OLDER_ROWS))
def test_older_rows_serve_where_the_tests_follow_them(docs, sources, name):
    """Each OLDER_ROWS entry: its cited row is the page's own, its MC check line (run for the page's target)
    encodes the example, the page's row refuses the example and the older page's row of the same instruction
    parses it, counted against the entry; the older row serves only the mnemonics the entry names."""
    fix = OLDER_ROWS[name]
    assert _line(sources, fix.source.file, fix.source.line).split()[0] == fix.source.section
    file, line = fix.evidence.rsplit(":", 1)
    check = _line(sources, file, int(line))
    assert check.startswith("//") and "encoding:" in check and fix.example in check
    assert any(f"-mcpu={fix.family.lower()}" in _line(sources, file, n) for n in (1, 2, 3))
    mnemonic = fix.example.split()[0]
    assert re.match(fix.mnemonics, mnemonic) and lookup(docs, [fix.older], mnemonic)
    own = RowMatcher(docs, (fix.family,), True, 9, rows_of=lambda fam: {
        r.mnemonic: row_of(docs, r, True) for r in docs.families[fam].instructions})
    assert own.check(fix.example)[0] == MISMATCH, "the page's own row parses it: no entry needed"
    m = RowMatcher(docs, (fix.family,), True, 9)
    status, reason, _ = m.check(fix.example)
    assert status == EVIDENCE and name in m.last_evidence, (status, reason)


def test_lds_loads_new_on_gfx950_take_the_dword_forms_older_row(docs, sources):
    """global_load_lds_dwordx3 is new on gfx950 (GFX940's page has no row): it takes GFX940's row of
    global_load_lds_dword, as gfx950_asm_features.s:116 writes it; a vdst is still refused."""
    assert not lookup(docs, ["GFX940"], "global_load_lds_dwordx3")
    assert "global_load_lds_dwordx3 v2, s[4:5] offset:4 ; encoding:" in _line(sources, f"{MC}/gfx950_asm_features.s", 116)
    m = RowMatcher(docs, ("GFX950",), True, 9)
    assert m.check("global_load_lds_dwordx3 v2, s[4:5] offset:4")[0] == EVIDENCE
    assert m.check("global_load_lds_dwordx3 v[4:6], v2, s[4:5] offset:4")[0] == MISMATCH


def test_mfma_load_scale_takes_the_scale_operands_of_the_vop3px2_row(docs, sources):
    """v_mfma_ld_scale_b32 (no page lists it): the cdna4 manual's load-scale operands are SRC0, SRC1 and
    OP_SEL / OP_SEL_HI, VGPRs or inline constants; LLVM also takes SGPRs (mai-gfx950.s:186) and refuses a literal
    and clamp (mai-gfx950-err.s:3-4, :17-18), as the derived row does."""
    manual = "amd-isa-manuals/cdna4/README.md"
    assert "Operands of Load-Scale" in _line(sources, manual, 1958)
    assert _line(sources, manual, 1962).startswith("| SRC0     | Matrix A scale {OP_SEL_HI [0], OP_SEL[0]}")
    assert _line(sources, manual, 1963).startswith("| SRC1     | Matrix B scale {OP_SEL_HI [1], OP_SEL[1]}")
    assert _line(sources, manual, 1965).startswith("Scale values (SRC0 and SRC1) can be either VGPRs or Inline constants")
    assert not lookup(docs, list(docs.families), "v_mfma_ld_scale_b32")
    err = f"{MC}/mai-gfx950-err.s"
    assert _line(sources, err, 3) == "v_mfma_ld_scale_b32 v0, 65" and "literal operands are not supported" in _line(
        sources, err, 4)
    assert _line(sources, err, 17) == "v_mfma_ld_scale_b32 v0, v0 clamp"
    m = RowMatcher(docs, ("GFX950",), True, 9)
    for ok in ("v_mfma_ld_scale_b32 s0, v0", "v_mfma_ld_scale_b32 64, 64",
               "v_mfma_ld_scale_b32 v1, v1 op_sel:[1,0] op_sel_hi:[0,1]"):
        status, reason, _ = m.check(ok)
        assert status == DERIVED and LOAD_SCALE_ROW in m.last_evidence, (ok, reason)
    for bad in ("v_mfma_ld_scale_b32 v0, 65", "v_mfma_ld_scale_b32 v0, v0 clamp", "v_mfma_ld_scale_b32 v0, v0 neg_lo:[0,1]"):
        assert m.check(bad)[0] == MISMATCH, bad


@pytest.mark.parametrize("old", sorted(RENAMED_IN_GFX12))
def test_renamed_rows_print_the_same_encoding_under_both_names(docs, sources, old):
    """gfx1150's s_min_f32 is GFX12's s_min_num_f32: LLVM's two check lines print the same encoding, GFX11's
    page lists neither name, GFX12's lists the new one."""
    new, old_check, new_check = RENAMED_IN_GFX12[old]
    encodings = []
    for name, cite in ((old, old_check), (new, new_check)):
        file, line = cite.rsplit(":", 1)
        text = _line(sources, file, int(line))
        assert re.match(rf"^(//|#) GFX1[12]\d*: {name} ", text), text
        encodings.append(text.split("encoding:")[1].strip())
    assert encodings[0] == encodings[1]
    assert not lookup(docs, ["GFX11"], old) and lookup(docs, ["GFX12"], new)


def test_same_shape_rows_share_the_manuals_encodings(docs, sources):
    """Each SAME_SHAPE_GFX1250 entry: the cdna5 manual's cited line names the new instruction, the manual's opcode
    tables list it in exactly the encodings of the listed instruction whose row it takes, no page lists it and
    GFX12's lists the other; a wrong register width is still refused."""
    lines = (sources / "amd-isa-manuals/cdna5/README.md").read_text(encoding="utf-8").splitlines()

    def tables(name: str) -> set[str]:
        out, head = set(), ""
        for text in lines:
            if text.startswith("#"):
                head = text
            elif re.search(rf"\|\s*\d+\s*\|\s*{name.upper()}\s*\|", text):
                out.add(head)
        return out

    families = list(docs.families)
    for new, (listed, line) in SAME_SHAPE_GFX1250.items():
        assert new.upper() in lines[line - 1], (new, line)
        assert tables(new) and tables(new) == tables(listed), (new, listed)
        assert not lookup(docs, families, new) and lookup(docs, ["GFX12"], listed), new
    m = RowMatcher(docs, ("GFX12",), False, 12, bucket="GFX12 (cdna5)")
    assert m.check("v_add_nc_u64_e64 v[4:5], v[2:3], v[4:5]")[0] == DERIVED
    assert m.check("v_add_nc_u64_e64 v[4:5], v2, v[4:5]")[0] == MISMATCH
    assert m.check("v_tanh_f32_dpp v5, v1 quad_perm:[3,2,1,0] row_mask:0xf bank_mask:0xf")[0] == DERIVED


def test_new_matrix_shapes_take_the_manuals_sizes(docs, sources):
    """Every WMMA / SWMMAC shape of the cdna5 manual's Table 43 that no page lists takes the GFX12 row of its kind
    (MATRIX_TWINS), its registers sized by the table's A, B and C matrices: 32 lanes x 32 bits a dword in wave32,
    SWMMAC's A stored at half its K; LLVM's check lines write those sizes, and a wrong size is refused."""
    lines = (sources / "amd-isa-manuals/cdna5/README.md").read_text(encoding="utf-8").splitlines()
    assert lines[MATRIX_TABLE_LINE - 1].startswith("Table 43. WMMA Instructions")
    bits = {"F32": 32, "I32": 32, "F16": 16, "BF16": 16, "FP8": 8, "BF8": 8, "IU8": 8, "FP4": 4}
    cell = re.compile(r"^(\d+)x(\d+) (\w+)")
    derived = 0
    for text in lines[MATRIX_TABLE_LINE:MATRIX_TABLE_LINE + 50]:
        cols = [c.strip() for c in text.strip("|").split("|")]
        if len(cols) != 4 or not cols[0].startswith("V_") or "F8F6F4" in cols[0]:
            continue
        name = cols[0].lower().replace("_scale_", "_").replace("_scale16_", "_")   # the f4 row gives its shapes
        ruled = rule_source(name, {"GFX12", "GFX12 (cdna5)"})
        if lookup(docs, ["GFX12"], name):
            continue
        assert ruled and ruled[1] == MATRIX_TWINS[name.split("_")[0] + "_" + name.split("_")[1]], name
        (ma, ka, ta), (kb, nb, tb), (mc, nc, tc) = (cell.match(c).groups() for c in cols[1:])
        sparse = name.startswith("v_swmmac")
        want = {"src0": int(ma) * int(ka) // (2 if sparse else 1) * bits[ta], "src1": int(kb) * int(nb) * bits[tb]}
        # "C = F32," (bf16f32): C is f32, WMMA's result D the bf16 its name starts with; SWMMAC accumulates in
        # vdst (C), and its src2 holds a 2-bit index per stored A element (manual line 3649)
        c_type = "F32" if "C = F32" in cols[3] else tc
        want["vdst"] = int(mc) * int(nc) * bits[c_type if sparse or "C = " not in cols[3] else "BF16"]
        if sparse:
            want["src2"] = int(ma) * int(ka) // 2 * 2
        got = matrix_dwords(name, 12, False)
        assert {k: got[k] for k in want} == {k: -(-v // 1024) for k, v in want.items()}, name
        derived += 1
    assert derived >= 35
    # gfx1250_asm_wmma_w32.s:43 is the check line the rule cites
    assert "v_wmma_f32_16x16x32_bf16 v[16:23], v[0:7], v[8:15], v[16:23] ; encoding:" in _line(
        sources, f"{MC}/gfx1250_asm_wmma_w32.s", 43)
    m = RowMatcher(docs, ("GFX12",), False, 12, bucket="GFX12 (cdna5)")
    assert m.check("v_wmma_f32_16x16x32_bf16 v[16:23], v[0:7], v[8:15], v[16:23]")[0] == DERIVED
    assert m.check("v_wmma_f32_16x16x32_bf16 v[16:23], v[0:3], v[8:15], v[16:23]")[0] == MISMATCH
    assert m.check("v_wmma_bf16f32_16x16x32_bf16 v[26:29], v[0:7], v[8:15], v[16:23]")[0] == DERIVED
    assert m.check("v_swmmac_f32_16x16x64_bf16 v[24:31], v[0:7], v[8:23], v32")[0] == DERIVED
    assert "v_swmmac_f32_16x16x128_fp8_fp8 v[24:31], v[0:7], v[8:23], v[32:33] ; encoding:" in _line(
        sources, f"{MC}/gfx1250_asm_wmma_w32.s", 648)
    assert m.check("v_swmmac_f32_16x16x128_fp8_fp8 v[24:31], v[0:7], v[8:23], v[32:33]")[0] == DERIVED
    assert m.check("v_swmmac_f32_16x16x128_fp8_fp8 v[24:31], v[0:7], v[8:23], v32")[0] == MISMATCH
    # GFX12's own page (rdna4) takes no gfx1250 shape
    assert RowMatcher(docs, ("GFX12",), False, 12, bucket="GFX12 (rdna4)").check(
        "v_wmma_f32_16x16x32_bf16 v[16:23], v[0:7], v[8:15], v[16:23]")[0] == MISMATCH


def test_atomics_without_return_leave_vdst_out(docs, sources):
    """GFX11's atomic rows tag vdst :opt, GFX12's do not; LLVM's GFX12 check line writes the no-return form
    (ATOMIC_RETURN_OPTIONAL), which parses on GFX12's page for rdna4 and cdna5; a load's vdst stays required."""
    cite, check, example = ATOMIC_RETURN_OPTIONAL
    assert "flat_atomic_add_f32" in _line(sources, cite.file, cite.line)
    assert ":ref:`opt<amdgpu_synid_gfx11_opt>`" in _line(sources, cite.file, cite.line)
    file, line = check.rsplit(":", 1)
    assert _line(sources, file, int(line)).startswith(f"// GFX12: {example} ; encoding:")
    for bucket in ("GFX12 (rdna4)", "GFX12 (cdna5)"):
        m = RowMatcher(docs, ("GFX12",), False, 12, bucket=bucket)
        assert m.check(example)[0] == PAGE
        assert m.check("flat_atomic_add_f32 v1, v[0:1], v2 offset:-64 th:TH_ATOMIC_RETURN")[0] == PAGE
        assert m.check("flat_atomic_add_f32 v[0:1], v[2:3] offset:-64")[0] == MISMATCH
        assert m.check("global_load_b32 v[2:3], off")[0] == MISMATCH


def test_gfx1250_flat_vopd3_and_borrowed_rows(docs, sources):
    """gfx1250 rules with their manual lines: FLAT takes SADDR (Table 114's fields are FLAT's, GLOBAL's and SCRATCH's),
    VOPD3 has NEGX / NEGY and cndmask selects by any SGPR, SCALE_OFFSET [48]; a GFX950 row borrowed for gfx1250 takes
    null, a literal and omod as GFX12's VOP3 rows do. GFX12's own page (rdna4) takes none of them."""
    manual = (sources / "amd-isa-manuals/cdna5/README.md").read_text(encoding="utf-8").splitlines()
    assert manual[7215].startswith("Table 114. FLAT, GLOBAL and SCRATCH Fields")
    assert manual[7219].startswith("| SADDR ") and manual[7224].startswith("| SCALE_OFFSET | [48]")
    assert "arbitrary SGPR as the select" in manual[3176]
    assert [m for m in manual[6900:6920] if m.startswith(("| NEGX ", "| NEGY "))]
    for rule in ("flat row with an sgpr base", "vopd3 sources", "gfx9 row on a gfx12 target"):
        fix = ROW_EVIDENCE[rule]
        file, line = fix.evidence.rsplit(":", 1)
        assert fix.example in _line(sources, file, int(line)), rule
    cdna5 = RowMatcher(docs, ("GFX12",), False, 12, bucket="GFX12 (cdna5)")
    rdna4 = RowMatcher(docs, ("GFX12",), False, 12, bucket="GFX12 (rdna4)")
    for text in ("flat_atomic_add_f32 v2, v3, s[2:3] offset:64",
                 "v_dual_cndmask_b32 v255, v4, v2, s96 :: v_dual_add_f32 v7, v1, v3",
                 "v_dual_fmac_f32 v0, v1, -v2 :: v_dual_fmac_f32 v5, -v6, v7"):
        assert cdna5.check(text)[0] == DERIVED, text
        assert rdna4.check(text)[0] == MISMATCH, text
    for text in ("global_load_b32 v5, v1, s[2:3] offset:32 scale_offset", "v_prng_b32_e32 v5, null",
                 "v_cvt_pk_bf16_f32 v5, 0.5, m0 mul:2", "v_bitop3_b32 v5, vcc_hi, 0xaf123456, v255 bitop3:0x3f"):
        assert cdna5.check(text)[0] != MISMATCH, text
    assert rdna4.check("global_load_b32 v5, v1, s[2:3] offset:32 scale_offset")[0] == MISMATCH
    assert cdna5.check("flat_load_b32 v1, v2")[0] == MISMATCH   # a 32-bit address needs the SGPR base
    assert cdna5.check("v_dual_cndmask_b32 v255, v4, v2, v96 :: v_dual_add_f32 v7, v1, v3")[0] == MISMATCH


def test_wide_twins_take_the_tablegen_widths(docs, sources):
    """Each WIDE_TWINS entry: LLVM's TableGen line defines the mnemonic with a profile whose types are twice the
    32-bit twin's register widths (v2f64 / v2i64: 4 dwords, v2i32: 2; MADAK/MADMK_F64: 2); the doubled row parses
    LLVM's check line and refuses the 32-bit widths."""
    types = {}
    for text in (sources / "llvm-project-23.1.1/llvm/lib/Target/AMDGPU/SIInstrInfo.td").read_text().splitlines():
        if m := re.match(r"^def (VOP_\w+)\s*: VOPProfile <\[([^\]]*)\]>", text):
            types[m.group(1)] = [t.strip() for t in m.group(2).split(",")]
    bits = {"v2f64": 128, "v2i64": 128, "v2i32": 64, "f64": 64, "untyped": 0}
    profiles = {"V_PK_VOP2_F64_Profile": "VOP_V2F64_V2F64_V2F64", "V_PK_VOP3_F64_Profile": "VOP_V2F64_V2F64_V2F64_V2F64",
                "V_PK_VOP2_I64_Profile": "VOP_V2I64_V2I64_V2I64", "V_PK_LSHL_ADD_U64_Profile": "VOP_V2I64_V2I64_V2I32_V2I64",
                "VOP_MADAK_F64": None, "VOP_MADMK_F64": None}
    m = RowMatcher(docs, ("GFX12",), False, 12, bucket="GFX12 (cdna5)")
    for new, (_twin, cite) in WIDE_TWINS.items():
        file, line = cite.rsplit(":", 1)
        text = _line(sources, file, int(line))
        assert f'"{new}"' in text, (new, text)
        profile = next(p for p in profiles if p in text)
        row = next(r for k, r in m.derived(new))
        regs = [o.dwords for o in row.operands if o.role in ("dst", "src") and "v" in o.accepts]
        # v_fmaak_f64 / v_fmamk_f64 (MADAK / MADMK_F64): an f64 result and sources, the constant a literal
        want = [bits[t] // 32 for t in types[profiles[profile]] if t != "untyped"] if profiles[profile] else [2, 2, 2]
        assert regs == want, (new, regs, want)
    assert m.check("v_pk_add_f64 v[4:7], v[8:11], v[12:15]")[0] == DERIVED
    assert m.check("v_pk_add_f64 v[4:5], v[8:9], v[12:13]")[0] == MISMATCH
    fix = ROW_EVIDENCE["64-bit twin of the 32-bit row"]
    file, line = fix.evidence.rsplit(":", 1)
    assert _line(sources, file, int(line)).startswith(f"// GFX1250: {fix.example} ; encoding:")
    assert m.check(fix.example)[0] == DERIVED


def test_profile_twins_take_the_tablegen_types(docs, sources):
    """Each PROFILE_TWINS entry: its TableGen line defines a profile of exactly the listed types, the mnemonic's
    definition uses that profile (directly or through the VOP3 profile wrapping it), the cdna5 manual's cited line
    names the instruction, and no page lists it; the derived row takes those widths, parses LLVM's check line and
    refuses the twin's own 1-dword widths."""
    td = "llvm-project-23.1.1/llvm/lib/Target/AMDGPU"
    lines = [ln for name in ("VOP3Instructions.td", "SIInstrInfo.td") for ln in
             (sources / td / name).read_text().splitlines()]
    defs = {m.group(1): ln for ln in lines if (m := re.match(r"^def (\w+)\s*:", ln))}
    m = RowMatcher(docs, ("GFX12",), False, 12, bucket="GFX12 (cdna5)")
    for new, fix in PROFILE_TWINS.items():
        file, line = fix.profile.rsplit(":", 1)
        text = _line(sources, file, int(line))
        profile = re.match(r"^def (\w+)\s*:", text).group(1)
        types = [t.strip() for t in re.search(r"\[([^\]]*)\]", text).group(1).split(",")]
        assert [t for t in types if t != "untyped"] == list(fix.types), (new, text)
        at = next(n for n, ln in enumerate(lines) if f'"{new}"' in ln or f'"{new}_gfx1250"' in ln)
        used = re.findall(r"\b(VOP\w+)", " ".join(lines[at:at + 3]))
        assert any(p == profile or profile in defs.get(p, "") for p in used), (new, used, profile)
        assert f"| {new.upper()} " in _line(sources, "amd-isa-manuals/cdna5/README.md", fix.manual) + " "
        assert not lookup(docs, list(docs.families), new) and lookup(docs, ["GFX12"], fix.twin)
        row = next(r for rule, r in m.derived(new) if rule == "twin row sized by its tablegen profile")
        widths = {o.name: o.dwords for o in row.operands if o.role != "modifier"}
        assert {k: max(1, v // 32) for k, v in profile_bits(new).items()} == widths, (new, widths)
    corpus = (sources / MC / "gfx1250_asm_vop3.s").read_text().splitlines()
    for new in PROFILE_TWINS:
        check = next(t for t in corpus if t.startswith(f"// GFX1250: {new} v"))
        text = check.split(":", 1)[1].split(";")[0].strip()
        assert m.check(text, true16=True)[0] in (DERIVED, TRUE16), text
        if "[" in text.split(",")[0]:   # a wider result written as one VGPR does not parse
            assert m.check(re.sub(r"^(\S+) v\[(\d+):\d+\]", r"\1 v\2", text))[0] == MISMATCH, text


def test_scaled_matrix_rows_follow_the_tablegen_asm_and_the_formats(docs, sources):
    """SCALED_MATRIX: LLVM's TableGen asm strings give the operand order and modifiers (VOP3PInstructions.td:1786 and
    the load-scale's :2088), the scale sources are 32 / 64-bit constant-or-register operands (:1750-1751), the cdna5
    manual's cited lines name each instruction (or the LD_SCALE field row) and its formats (FP8 .. FP4, lines
    3723-3729); no page lists them. The derived rows parse LLVM's check lines, size A / B by the named format and
    refuse another width."""
    td = SCALED_MATRIX_TD
    assert _line(sources, td, 1786).strip().startswith('let AsmVOP3P = "$vdst, $src0, $src1, $src2"#')
    assert "MatrixScaleSrcAsm#MatrxFMTAsm#MatrixScaleAsm#MatrixReuseAsm" in _line(sources, td, 1786)
    assert "$src0, $src1$matrix_a_scale$matrix_b_scale$matrix_a_scale_fmt" in _line(sources, td, 2088)
    assert "VCSrc_b64_Lo256:$scale_src0" in _line(sources, td, 1750)
    assert "VCSrc_b32_Lo256:$scale_src0" in _line(sources, td, 1751)
    manual = "amd-isa-manuals/cdna5/README.md"
    assert "OPSEL[2:0]" in _line(sources, manual, 3723) and "FP6" in _line(sources, manual, 3727)
    for name, fix in SCALED_MATRIX.items():
        text = _line(sources, manual, fix.manual)
        assert (name.upper() in text) if fix.shape else ("LD_SCALE" in text), (name, text)
        assert not lookup(docs, list(docs.families), name)
    m = RowMatcher(docs, ("GFX12",), False, 12, bucket="GFX12 (cdna5)")
    corpus = (sources / MC / "gfx1250_asm_wmma_w32.s").read_text().splitlines()
    checks = [t.removeprefix("// GFX1250: ").split(" ; ")[0].strip() for t in corpus
              if t.startswith("// GFX1250: ") and t.split()[2] in SCALED_MATRIX]
    assert len(checks) >= 60
    for text in checks:
        assert m.check(text)[0] == DERIVED, (text, m.check(text))
    fp6 = next(t for t in checks if t.startswith("v_wmma_f32_16x16x128_f8f6f4 ") and "matrix_a_fmt:MATRIX_FMT_FP6" in t)
    assert fp6.split()[2] == "v[8:19],"   # 16x128 FP6 in wave32: 12 dwords
    assert m.check(fp6.replace("v[8:19]", "v[8:23]"))[0] == MISMATCH
    assert m.check("v_wmma_scale_f32_32x16x128_f4 v[0:15], v[8:23], v[24:31], v[40:55], v1, v2 matrix_a_fmt:0")[0] \
        == MISMATCH   # gfx1250_asm_wmma_w32_err.s:481: the FP4-only shape takes no format


def test_dpp16_of_64_bit_rows_on_gfx1251(docs, sources):
    """gfx1251 (FeatureISAVersion12_51 lists FeatureDPALU_DPP, AMDGPU.td) takes DPP16 on 64-bit operands
    (getHasExt64BitDPP); the derived row keeps the 64-bit widths and has no DPP8 form, which gfx1251's tests reject."""
    td = "llvm-project-23.1.1/llvm/lib/Target/AMDGPU"
    lines = (sources / td / "AMDGPU.td").read_text().splitlines()
    assert lines[2268].strip() == "FeatureDPALU_DPP," and any(
        ln.startswith("def FeatureISAVersion12_51 ") for ln in lines[2255:2268])
    assert _line(sources, f"{td}/SIInstrInfo.td", 2625).startswith("class getHasExt64BitDPP ")
    err = (sources / MC / "gfx1251_asm_vop2_err.s").read_text()
    m = RowMatcher(docs, ("GFX12",), False, 12, bucket="GFX12 (cdna5)")
    for file in ("gfx1251_asm_vop1_dpp16.s", "gfx1251_asm_vop2_dpp16.s", "gfx1251_asm_vop3_dpp16.s"):
        checks = [t.removeprefix("// GFX1251: ").split(" ; ")[0].strip() for t in
                  (sources / MC / file).read_text().splitlines() if t.startswith("// GFX1251: ")]
        assert checks and all(m.check(t)[0] in (DERIVED, OTHER_PAGE) for t in checks), file
    assert m.check("v_add_f64_dpp v[4:5], v[2:3], v[4:5] row_share:1 row_mask:0xf bank_mask:0xf")[0] == DERIVED
    assert m.check("v_add_f64_dpp v4, v[2:3], v[4:5] row_share:1 row_mask:0xf bank_mask:0xf")[0] == MISMATCH
    assert "GFX1251-ERR-NEXT:{{^}}v_add_nc_u64 v[2:3], v[2:3], v[4:5] dpp8:[7,6,5,4,3,2,1,0]" in err
    assert m.check("v_add_nc_u64 v[2:3], v[2:3], v[4:5] dpp8:[7,6,5,4,3,2,1,0]")[0] == MISMATCH
    assert m.check("v_add_f64_dpp v[4:5], v[2:3], v[4:5] dpp8:[7,6,5,4,3,2,1,0]")[0] == MISMATCH
    # a 64-bit twin's own row is not shadowed by its DPP16 row (VGPR-only src0): SGPR sources still parse
    assert m.check("v_pk_lshl_add_u64 v[4:7], s[8:11], s[12:13], v[16:19]")[0] == DERIVED


def test_gfx12_sendmsg_rtn_reads_the_message_section(docs, sources):
    """GFX12's s_sendmsg_rtn rows link the message to an empty ssrc0 section (gfx12_operands.rst:996), followed by the
    sendmsg_rtn section describing it (:1001); LLVM's gfx12 check lines write sendmsg(...) and integers there and
    encode the message in SSRC0 (gfx12_asm_sop1.s:3749 [0x00,0x4c,0x81,0xbe]); an SGPR stays refused."""
    rel = f"{DOCS_REL}/AMDGPU/gfx12_operands.rst"
    assert _line(sources, rel, 996) == ".. _amdgpu_synid_gfx12_ssrc0_19fcd2:" and _line(sources, rel, 999) == "-----"
    assert _line(sources, rel, 1001) == ".. _amdgpu_synid_sendmsg_rtn:"
    assert not docs.pages["amdgpu_synid_gfx12_ssrc0_19fcd2"].accepts
    check = _line(sources, f"{MC}/gfx12_asm_sop1.s", 3749)
    assert check.startswith("// GFX12: s_sendmsg_rtn_b32 s1, sendmsg(0, 0, 0)") and "[0x00,0x4c,0x81,0xbe]" in check
    m = RowMatcher(docs, ("GFX12",), False, 12)
    assert m.check("s_sendmsg_rtn_b32 s1, sendmsg(0, 0, 0)")[0] == PAGE
    assert m.check("s_sendmsg_rtn_b64 s[2:3], sendmsg(MSG_RTN_GET_REALTIME)")[0] == PAGE
    assert m.check("s_sendmsg_rtn_b32 s0, s1")[0] == MISMATCH


def test_gfx12_prefetch_offset_and_length_read_llvms_operand_classes(docs, sources):
    """GFX12's s_prefetch_* rows link ioffset (gfx12_operands.rst:127) and sdata (:240) to pages listing no kinds;
    LLVM's TableGen declares them `SMEMOffset:$offset` and `i8imm:$sdata` (SMInstructions.td:242), and the tests
    write integers (gfx12_asm_smem.s:1427): they read the smem_offset24s and uimm8 pages; registers stay refused."""
    rel = f"{DOCS_REL}/AMDGPU/gfx12_operands.rst"
    for label, line in (("amdgpu_synid_gfx12_ioffset", 127), ("amdgpu_synid_gfx12_sdata_5c7b50", 240)):
        assert _line(sources, rel, line) == f".. _{label}:" and not docs.pages[label].accepts
    td = _line(sources, "llvm-project-23.1.1/llvm/lib/Target/AMDGPU/SMInstructions.td", 242)
    assert "SMEMOffset:$offset" in td and "i8imm:$sdata" in td
    check = _line(sources, f"{MC}/gfx12_asm_smem.s", 1427)
    assert check.startswith("// GFX12: s_prefetch_inst s[12:13], 0x10, s4, 2 ")
    m = RowMatcher(docs, ("GFX12",), False, 12)
    assert m.check("s_prefetch_inst s[12:13], 0x10, s4, 2")[0] == PAGE
    assert m.check("s_prefetch_data_pc_rel 0x64, s10, 7")[0] == PAGE
    assert m.check("s_prefetch_inst s[14:15], 0, m0, s7")[0] == MISMATCH


@pytest.mark.parametrize("new", sorted(RENAMED_IN_GFX1250))
def test_gfx1250_renames_assemble_the_gfx12_spelling(docs, sources, new):
    """LLVM's gfx1250 test assembles GFX12's spelling (the input line above the cited check line) and prints the new
    name; GFX12's page lists the old name only, and the new one parses for gfx1250 with its row."""
    old, cite = RENAMED_IN_GFX1250[new]
    file, line = cite.rsplit(":", 1)
    given, check = _line(sources, file, int(line) - 1), _line(sources, file, int(line))
    assert given.split()[0] == old and check.startswith(f"// GFX1250: {new} ")
    assert " ".join(given.split()[1:]) in check
    assert lookup(docs, ["GFX12"], old) and not lookup(docs, list(docs.families), new)
    m = RowMatcher(docs, ("GFX12",), False, 12, bucket="GFX12 (cdna5)")
    assert [row for rule, row in m.derived(new) if rule == "gfx1250 name of a gfx12 row"]
    # the register form parses (s_swap_pc_i64's check line writes an inline constant GFX12's ssrc0 page lacks)
    assert m.check(f"{new} s[2:3]" + (", s[4:5]" if new == "s_swap_pc_i64" else ", 4660" if "call" in new else ""))[0] \
        == DERIVED


def test_packed_conversions_take_the_manuals_widths(docs, sources):
    """Every packed scaled conversion gfx1250's tests write: the cdna5 manual's pseudocode declares the result
    (`declare tmp : 128'B`) and reads the packed source in (K + 1) passes of W bits (`for pass in 0 : 7`,
    `sOffset = pass * 8`); packed_conversion_dwords gives those widths, and the derived row parses the check line."""
    text = (sources / "amd-isa-manuals/cdna5/README.md").read_text(encoding="utf-8")
    corpus = (sources / MC / "gfx1250_asm_vop3.s").read_text().splitlines()
    names = sorted({t.split()[0] for t in corpus if PACKED_CONVERSION.match(t.split()[0] if t.strip() else "")})
    assert len(names) >= 40
    m = RowMatcher(docs, ("GFX12",), False, 12, bucket="GFX12 (cdna5)")
    checked = 0
    for name in names:
        title = "#### **" + name.upper().replace("_", "\\_") + " "
        at = text.find(title)
        body = text[at:text.find("\n#### **V\\_", at + len(title))] if at >= 0 else ""   # to the next instruction
        if "declare tmp" not in body:   # a manual entry without pseudocode (V_CVT_SCALE_PK16_BF16_BF6) or none
            continue
        checked += 1
        result = int(re.search(r"declare tmp : (\d+)'B", body).group(1))
        passes = int(re.search(r"for pass in 0 : (\d+) do", body).group(1)) + 1
        width = int(re.search(r"sOffset = pass \* (\d+);", body).group(1))
        assert packed_conversion_dwords(name) == {"vdst": -(-result // 32), "src0": -(-passes * width // 32)}, name
        check = next(t for t in corpus if t.startswith(f"// GFX1250: {name} v"))
        assert m.check(check.split(":", 1)[1].split(";")[0].strip())[0] == DERIVED, name
    assert checked >= 36, checked


def test_derived_rows_keep_the_plain_rows_limits(docs, sources):
    """A derived DPP row takes src0 as a VGPR and no literal (the DPP dword replaces it: GFX11's VOP3 DPP
    source page gfx11_src_852d86.rst lists no literal); a derived VOPD half keeps its row's widths."""
    page = (sources / DOCS_REL / "AMDGPU/gfx11_src_852d86.rst").read_text()
    assert ":ref:`literal<" not in page and ":ref:`v<amdgpu_synid_v>`" in page
    m = RowMatcher(docs, ("GFX12",), False, 12, bucket="GFX12 (cdna5)")
    assert m.check("v_med3_num_f16_e64_dpp v5, v1, s2, v3 quad_perm:[3,2,1,0]")[0] == DERIVED
    assert m.check("v_med3_num_f16_e64_dpp v5, s1, v2, v3 quad_perm:[3,2,1,0]")[0] == MISMATCH
    assert m.check("v_med3_num_f16_e64_dpp v5, v1, 0x1234, v3 quad_perm:[3,2,1,0]")[0] == MISMATCH
    assert m.check("v_max_num_f16_dpp v5, v1, s2 quad_perm:[3,2,1,0]")[0] == MISMATCH   # VOP2 vsrc1: a VGPR
    assert m.check("v_dual_add_f32 v255, v4, v2 :: v_dual_max_i32 v[6:7], v1, v3")[0] == MISMATCH
    assert m.check("v_dual_fma_f64 v[252:253], v[6:7], v[4:5], v[10:11] :: v_dual_add_f32 v8, v1, v3")[0] == DERIVED
    assert m.check("v_dual_fma_f64 v[252:253], v6, v[4:5], v[10:11] :: v_dual_add_f32 v8, v1, v3")[0] == MISMATCH
    # the rules serve GFX12 only: GFX11's page has its own DPP rows and no v_med3_num_f16
    assert RowMatcher(docs, ("GFX11",), False, 11).check(
        "v_med3_num_f16_e64_dpp v5, v1, v2, v3 quad_perm:[3,2,1,0]")[0] == MISMATCH


def test_image_data_is_sized_by_dmask_d16_and_tfe(docs, sources):
    """The image data pages size vdata by the modifiers (gfx11_vdst_eae4c8.rst); GFX12's page says a fixed
    4 dwords and its tests follow dmask (OPERAND_EVIDENCE); GFX8.0 does not pack d16 (gfx8_vdst_829fc5.rst)."""
    page = " ".join((sources / DOCS_REL / "AMDGPU/gfx11_vdst_eae4c8.rst").read_text().split())
    for said in ("*Size:* depends on :ref:`dmask<amdgpu_synid_dmask>`, :ref:`tfe<amdgpu_synid_tfe>` and",
                 "may specify from 1 to 4 data elements", "data elements in registers are packed",
                 "adds 1 dword if specified"):
        assert said in page, said
    # LLVM's check line: gfx12_asm_vimage.s:712 image_load v[0:2] ... dmask:0xf ... tfe d16 (4 halves + tfe)
    assert "image_load v[0:2], [v4, v5], s[8:15] dmask:0xf" in _line(sources, f"{MC}/gfx12_asm_vimage.s", 712)
    for matcher in (RowMatcher(docs, ("GFX12",), False, 12), RowMatcher(docs, ("GFX11",), False, 11)):
        ok = matcher.check("image_load v[0:2], [v4, v5], s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D_ARRAY tfe d16")
        assert ok[0] in (PAGE, EVIDENCE), ok
        for wrong in ("image_load v[0:3], [v4, v5], s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D_ARRAY tfe d16",
                      "image_load v[0:1], v0, s[0:7] dmask:0x1 dim:SQ_RSRC_IMG_1D",
                      "image_load v0, v0, s[0:7] dmask:0x3 dim:SQ_RSRC_IMG_1D"):
            assert matcher.check(wrong)[0] == MISMATCH, wrong
    gfx8 = (sources / DOCS_REL / "AMDGPU/gfx8_vdst_829fc5.rst").read_text()
    assert "There is no packing." in gfx8
    m8 = RowMatcher(docs, ("GFX8",), True, 8)
    assert m8.check("image_gather4 v[5:8], v[1:2], s[8:15], s[12:15] dmask:0x1 d16")[0] == PAGE
    assert m8.check("image_gather4 v[5:6], v[1:2], s[8:15], s[12:15] dmask:0x1 d16")[0] == PAGE
    assert m8.check("image_gather4 v[5:7], v[1:2], s[8:15], s[12:15] dmask:0x1 d16")[0] == MISMATCH


def test_mfma_f8f6f4_sources_are_sized_by_cbsz_and_blgp(docs, sources):
    """The cdna4 manual: CBSZ / BLGP give the A / B formats (FP8, BF8, FP6, BF6, FP4); GFX950's page gives A and B
    the FP8 size (8 dwords), so FP6 takes 6 and FP4 4 (F8F6F4_RULE), as LLVM's check lines write them."""
    file, line = F8F6F4_RULE.split(" ")[0].rsplit(":", 1)
    said = _line(sources, file, int(line))
    assert "CBSZ[2:0] defines the matrix A format, BLGP[2:0] defines the matrix B format" in said
    assert all(f in said for f in ("(FP8)", "(BF8)", "(FP6)", "(BF6)", "(FP4)"))
    check = _line(sources, f"{MC}/mai-gfx950.s", 630)
    assert "v_mfma_f32_16x16x128_f8f6f4 a[0:3], a[4:9], a[12:17], a[20:23] cbsz:3 blgp:3 ; encoding:" in check
    m = RowMatcher(docs, ("GFX950",), True, 9)
    assert m.check("v_mfma_f32_16x16x128_f8f6f4 a[0:3], a[4:9], a[12:17], a[20:23] cbsz:3 blgp:3")[0] == PAGE
    assert m.check("v_mfma_f32_16x16x128_f8f6f4 a[0:3], a[4:11], a[12:15], a[20:23] cbsz:1 blgp:4")[0] == PAGE
    assert m.check("v_mfma_f32_16x16x128_f8f6f4 a[0:3], a[4:11], a[12:19], a[20:23]")[0] == PAGE   # FP8 default
    for wrong in ("v_mfma_f32_16x16x128_f8f6f4 a[0:3], a[4:11], a[12:17], a[20:23] cbsz:3 blgp:3",
                  "v_mfma_f32_16x16x128_f8f6f4 a[0:3], a[4:9], a[12:19], a[20:23]"):
        assert m.check(wrong)[0] == MISMATCH, wrong


def test_true16_halves_are_counted_apart(docs, sources):
    """The pages describe 16-bit operands as whole VGPRs and say their 16-bit register syntax is unfinished;
    a real-true16 check line (v128.h, op_sel for the high half) parses only under the named rule."""
    assert "This section is incomplete" in _line(sources, f"{DOCS_REL}/AMDGPUOperandSyntax.rst", 126)
    lines = (sources / MC / "gfx11_asm_vop1_t16_promote.s").read_text().splitlines()
    assert any("+real-true16" in ln for ln in lines if ln.startswith("// RUN"))
    # LLVM's check line: "// GFX11: v_ceil_f16_e64 v128.h, 0xfe0b op_sel:[0,1] ; encoding: [...]"
    check = next(ln for ln in lines if ln.startswith("// GFX11: v_ceil_f16_e64 v128.h, 0xfe0b"))
    check = check.removeprefix("// GFX11:").split(";")[0].strip()
    m = RowMatcher(docs, ("GFX11",), False, 11)
    assert m.check(check, true16=True)[0] == TRUE16
    assert m.check(check, true16=False)[0] == MISMATCH
    assert m.check("v_ceil_f16_e64 v[0:1], v1", true16=True)[0] == MISMATCH


def test_sample_per_family(docs, sources):
    """A file or two of each family's own MC tests parses at 99% or more against its page."""
    for family, names in SAMPLE_FILES.items():
        examples = [ex for n in names for ex in read_file(sources / MC / n, sources).examples]
        rep = check_examples(docs, examples)
        t = rep.families[family]
        assert t.total > 10, (family, t.total)
        assert t.rate >= 0.99, (family, t.ok, t.total, [(m.example, m.text, m.reason) for m in t.mismatches[:5]])
        for mm in t.mismatches:   # every mismatch is an erratum with the example's file:line
            assert re.match(rf"{MC}/[\w.-]+:\d+$", mm.example) and mm.reason


def test_negative_checks_are_not_examples(docs, sources):
    """gfx11_asm_smem_err.s holds only expected-error lines: the reader gives no examples to check."""
    res = read_file(sources / MC / "gfx11_asm_smem_err.s", sources)
    text = (sources / MC / "gfx11_asm_smem_err.s").read_text()
    assert "error:" in text and res.negatives
    negative_lines = {n.provenance.line for n in res.negatives}
    assert not negative_lines & {ex.line for ex in res.examples}
    assert sum(t.total for t in check_examples(docs, res.examples).families.values()) == len(res.examples)


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    import contextlib
    import io

    from gpuisa.cli import main

    err, out = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out), pytest.raises(SystemExit) as exc:
        main(argv)
    return int(exc.value.code or 0), out.getvalue(), err.getvalue()


def test_cli_one_file_json_and_bad_input(sources, monkeypatch):
    import json

    monkeypatch.setenv("GPUISA_SOURCES", str(sources))
    path = sources / MC / "gfx10_asm_ds.s"
    code, out, err = run_cli(["check-operands", "--file", str(path), "--json"])
    assert code == 0, err
    doc = json.loads(out)
    fam = doc["families"]["GFX10"]
    assert fam["total"] == len(read_file(path, sources).examples) and fam["rate"] >= 0.99
    assert all(m["example"].startswith(f"{MC}/gfx10_asm_ds.s:") for m in fam["mismatches"])
    for argv, why in ((["check-operands", "--family", "GFX99"], "no syntax family 'GFX99'"),
                      (["check-operands", "--file", str(sources / "nope.s")], "no such MC test file"),
                      (["check-operands", "--top", "-1"], "must be 0 or more")):
        code, out, err = run_cli(argv)
        assert code == 2 and err.startswith("gpuisa: error: ") and why in err and len(err.splitlines()) == 1, err


# Families whose page parses 99% of their examples (the target): every family; the rest of each is listed
# (errata) in the report (GFX12 (cdna5): gfx1250 instructions no page lists and no rule derives: tensor_*, prefetch,
# barriers, v_dual_bitop2_b32 (the encoder cannot place its bitop3 in VOPD3 yet), tensor_*).
AT_99 = ("GFX7", "GFX8", "GFX900", "GFX904", "GFX906", "GFX908", "GFX90a", "GFX940", "GFX950", "GFX10", "GFX1011",
         "GFX1013", "GFX1030", "GFX11", "GFX11 (rdna3.5)", "GFX12 (rdna4)", "GFX12 (cdna5)")


@pytest.mark.slow
def test_whole_corpus(docs, sources):
    from gpuisa.sources.llvm_mc import read_corpus

    rep = check_examples(docs, read_corpus(sources).examples)
    for fam in AT_99:
        t = rep.families[fam]
        assert t.rate >= 0.99, (fam, t.ok, t.total)
    # every OPERAND_EVIDENCE entry explains examples of the corpus (a rule no test needs is not evidence)
    explained = {label: sum(t.evidence[label] for t in rep.families.values())
                 for label in (*OPERAND_EVIDENCE, *ROW_EVIDENCE, *MODIFIER_EVIDENCE, *OLDER_ROWS)}
    assert all(explained.values()), explained
    # a derived row is counted as such, never as the page's own
    assert sum(t.statuses[DERIVED] for t in rep.families.values()) <= sum(explained[r] for r in ROW_EVIDENCE)
    for fam, t in rep.families.items():
        assert t.total == t.ok + len(t.mismatches), fam
        assert all(m.example.startswith(MC) or "Disassembler" in m.example for m in t.mismatches), fam


def test_source_only_rows_follow_their_tablegen_class():
    """Premise of ROW_EVIDENCE "source only": the cited TableGen class has no result and one SSrc_b64 source, the
    listed row's ssrc0 is 2 dwords, and the instruction uses that class."""
    from gpuisa.sources.llvm_syntax_docs import SOURCE_ONLY_GFX1250
    from tests.conftest import SOURCES

    for mnemonic, (listed, cite) in SOURCE_ONLY_GFX1250.items():
        file, line = cite.rsplit(":", 1)
        td = (SOURCES / file).read_text(encoding="utf-8").splitlines()
        cls = td[int(line) - 1].split()[1]
        assert "(outs), (ins SSrc_b64:$src0)" in td[int(line)], td[int(line)]
        assert any(f'SOP1_1_REGIMM64 <"{mnemonic}">' in t and cls == "SOP1_1_REGIMM64" for t in td), mnemonic
        page = (SOURCES / "llvm-project-23.1.1/llvm/docs/AMDGPU/AMDGPUAsmGFX12.rst").read_text(encoding="utf-8")
        row = next(t for t in page.splitlines() if t.split()[:1] == [listed])
        assert "ssrc0_dfa11e" in row and mnemonic not in page

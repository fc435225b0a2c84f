"""The matrix section of instruction pages: shape and types from the name, and the register x lane grids of
A, B and C/D, checked against the cells the cdna3 manual's example tables print."""

from __future__ import annotations

import re

from gpuisa.semantics import matrix as mx
from tests.test_matrix import manual_layout_cells


def _section(html: str) -> str:
    found = re.search(r'<section id="matrix">(.*?)</section>', html, re.S)
    assert found, "no matrix section"
    return found.group(1)


def test_page_view_places_the_manual_cells() -> None:
    cells = [c for c in manual_layout_cells() if c[0] == "v_mfma_f32_32x32x2_f32"]
    assert cells
    view = mx.page_view("V_MFMA_F32_32X32X2_F32", "cdna3")
    grids = {g["operand"]: g for g in view["layouts"]}
    for _, operand, line, (_b, i, j), (lane, reg, _), _ in cells:
        grid = grids["C/D" if operand == "D" else operand]
        row = next(r for r in grid["rows"] if r["register"] == f"v{reg}")
        assert row["cells"][lane] == f"{operand}[{i},{j}]", f"cdna3/README.md:{line}"


def test_sparse_and_unknown_layouts_say_so() -> None:
    view = mx.page_view("V_SWMMAC_F32_16X16X32_F16", "rdna4")
    assert view["sparse"] and view["layouts"] == [] and "not modelled" in view["layout_note"]
    assert mx.page_view("V_ADD_F32", "cdna3") is None


def test_sparse_pages_draw_the_index_register() -> None:
    """A sparse form's page draws the packed A and the index VGPR: cdna3 Table 35 puts set 0's code of V0[15:0] in
    Vn[1:0] (cdna4/README.md:2169), so lane 0's v0[1:0] holds the code of A[0,0]."""
    view = mx.page_view("V_SMFMAC_F32_16X16X32_F16", "cdna3")
    grids = {g["operand"]: g for g in view["layouts"]}
    assert set(grids) == {"A", "B", "C/D", "index"} and grids["A"]["size"] == "16x16 packed"
    row = next(r for r in grids["index"]["rows"] if r["register"] == "v0[1:0]")
    assert row["cells"][0] == "index[0,0]" and "Tables 35/37" in view["layout_note"]


def test_instruction_page_draws_the_matrix(catalog) -> None:
    from gpuisa.web.site import Links, Site

    html = Site(catalog).instruction(catalog.show("v_mfma_f32_32x32x8_f16", "cdna3"), Links())
    sec = _section(html)
    assert "D (32x32, f32) = A (32x8, f16)" in sec and "B (8x32, f16)" in sec
    assert "<h3>A (32x8): register &times; lane</h3>" in sec and "C/D (32x32)" in sec
    assert "A[0,0]" in sec and "D[31,31]" in sec
    plain = Site(catalog).instruction(catalog.show("v_add_f32", "cdna3"), Links())
    assert 'id="matrix"' not in plain


def test_pages_show_the_mma_table_on_both_sides(catalog) -> None:
    """AMD side: rdna3's v_wmma_f32_16x16x16_f16 page lists the PTX m16n8k16 f16 -> f32 product it computes;
    PTX side: the mma page's AMD counterparts name cdna3's v_mfma_f32_16x16x16_f16 and give reasons for none."""
    from gpuisa.web.site import Links, Site

    site = Site(catalog)
    amd = _section(site.instruction(catalog.show("v_wmma_f32_16x16x16_f16", "rdna3"), Links()))
    assert "mma m16n8k16 D.f32 = A.f16 x B.f16 + C.f32" in amd
    ptx = site.instruction(catalog.show_ptx("mma"), Links())
    found = re.search(r'<section id="amd-matrix">(.*?)</section>', ptx, re.S)
    assert found
    sec = found.group(1)
    assert "m16n8k16 D.f32 = A.f16 x B.f16 + C.f32" in sec and "v_mfma_f32_16x16x16_f16" in sec
    assert "none: cdna3&#39;s FP8/BF8 are the FNUZ formats" in sec or "none: cdna3's FP8/BF8" in sec


def test_every_manual_matrix_instruction_has_a_page_view() -> None:
    """Every MFMA/SMFMAC/WMMA/SWMMAC of every manual: grids, or a note saying what is not drawn and why; rdna4 SWMMAC
    is the only family with nothing drawn."""
    from tests.conftest import TEXTS

    empty = set()
    for arch in ("cdna1", "cdna2", "cdna3", "cdna4", "cdna5", "rdna3", "rdna4"):
        for name in TEXTS.instruction_docs(arch):
            if mx.MATRIX_FAMILY.match(name):
                view = mx.page_view(name, arch)
                assert view is not None and view["layout_note"], (arch, name)
                if not view["layouts"]:
                    empty.add((arch, name.split("_")[1]))
                elif "Not drawn" in view["layout_note"]:
                    assert any(w in view["layout_note"] for w in ("64-bit", "16-bit C/D")), (arch, name)
    assert empty == {("rdna4", "SWMMAC")}

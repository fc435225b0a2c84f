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
    view = mx.page_view("V_SMFMAC_F32_16X16X32_F16", "cdna3")
    assert view["sparse"] and view["layouts"] == [] and "not modelled" in view["layout_note"]
    assert mx.page_view("V_ADD_F32", "cdna3") is None


def test_instruction_page_draws_the_matrix(catalog) -> None:
    from gpuisa.web.site import Links, Site

    html = Site(catalog).instruction(catalog.show("v_mfma_f32_32x32x8_f16", "cdna3"), Links())
    sec = _section(html)
    assert "D (32x32, f32) = A (32x8, f16)" in sec and "B (8x32, f16)" in sec
    assert "<h3>A (32x8): register &times; lane</h3>" in sec and "C/D (32x32)" in sec
    assert "A[0,0]" in sec and "D[31,31]" in sec
    plain = Site(catalog).instruction(catalog.show("v_add_f32", "cdna3"), Links())
    assert 'id="matrix"' not in plain

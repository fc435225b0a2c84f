"""PTX mma fragment layouts read from the manual's formulas (9.7.16.5.1-13): every mma shape and type the manual
lists gets a layout where each element is held by exactly one (thread, index), spot checks against formula lines,
the named errata, and the round trip matrices -> fragments -> D = A x B + C -> fragments -> matrix."""

from __future__ import annotations

import numpy as np
import pytest

from gpuisa.semantics import mma_table as mt
from gpuisa.semantics import ptx_fragments as pf
from gpuisa.semantics.errors import EvalError
from gpuisa.sources.read import read_ptx_manual
from tests.conftest import SOURCES

TEXT = (SOURCES / pf.MMA_MD).read_text(encoding="utf-8")
LINES = TEXT.splitlines()


def _mma_products() -> set[tuple[int, int, int, str, str]]:
    manual = read_ptx_manual(SOURCES)
    out = set()
    for ins in manual.instructions:
        if ins.name != "mma":
            continue
        for f in ins.forms:
            try:
                p = mt.parse_ptx(f.form)
            except EvalError:
                continue
            out.add((p.m, p.n, p.k, p.a, p.c))
    return out


PRODUCTS = sorted(_mma_products())


def test_every_mma_shape_and_type_has_a_layout() -> None:
    shapes = {p[:3] for p in PRODUCTS}
    assert {(8, 8, 4), (16, 8, 8), (16, 8, 16), (16, 8, 32), (8, 8, 16), (16, 8, 4), (16, 8, 256)} <= shapes
    for m, n, k, a, c in PRODUCTS:
        for op in ("A", "B", "C"):
            lay = pf.layout(TEXT, m, n, k, a, c, op)        # raises when an element is held twice or by no one
            g, rows, cols, _ = lay.shape
            assert (rows, cols) == {"A": (m, k), "B": (k, n), "C": (m, n)}[op]
            assert len({tuple(x) for x in lay.reshape(-1, 2)}) == g * rows * cols


def test_m8n8k4_f16_is_four_quadpair_products() -> None:
    """9.7.16.5.1: computation 1 is lanes 0-3 and 16-19; C .f32: row = X (+4 from lane 16), X = (%laneid & 0b1) +
    (i & 0b10), col = (i & 0b100) + (%laneid & 0b10) + (i & 0b1)."""
    assert "Threads with `%laneid` 0-3 (low group) and 16-19 (high group)" in LINES[27]
    assert "where X = (%laneid & 0b1) + (i & 0b10)" in LINES[189]
    c = pf.layout(TEXT, 8, 8, 4, "f16", "f32", "C")
    assert c.shape == (4, 8, 8, 2)
    assert tuple(c[0, 2, 3]) == (2, 3)           # lane 2 c3: X = 0 + 2, col = 0 + 2 + 1
    assert tuple(c[1, 6, 3]) == (22, 3)          # lane 22 (computation 2, high group): row X + 4
    assert set(np.unique(c[1, ..., 0])) == {4, 5, 6, 7, 20, 21, 22, 23}
    a_row = pf.layout(TEXT, 8, 8, 4, "f16", "f16", "A", "row")
    a_col = pf.layout(TEXT, 8, 8, 4, "f16", "f16", "A", "col")
    assert tuple(a_row[0, 5, 2]) == (17, 2) and tuple(a_col[0, 5, 2]) == (18, 1)   # lines 54-57, 73-76


def test_m16n8k8_tf32_a_follows_lines_756_760() -> None:
    assert "groupID + 8        for a1 and a3" in LINES[756] and "threadID_in_group + 4   for a2 and a3" in LINES[759]
    a = pf.layout(TEXT, 16, 8, 8, "tf32", "f32", "A")[0]
    assert tuple(a[9, 5]) == (5, 3)              # lane 5: groupID 1, tid 1; a3 -> row 9, col 5


@pytest.mark.parametrize("bad", list(pf.FORMULA_ERRATA))
def test_formula_errata_are_printed_so_and_break_the_layout(bad: str) -> None:
    line = int(pf.FORMULA_ERRATA[bad][1].split("line ")[1].split(" ")[0])
    assert bad in LINES[line - 1]
    block = next(b for b in pf.blocks(TEXT) if bad in b.text)
    with pytest.raises(EvalError):
        f = pf.parse(block.text, errata=False)
        rows, cols = {"A": (block.shape[0], block.shape[2])}.get(block.operand, (block.shape[2], block.shape[1]))
        held = set()
        for lane in range(32):
            for i in range(rows * cols // 32):
                r, c = f.at(lane, i)
                if not (0 <= r < rows and 0 <= c < cols) or (r, c) in held:
                    raise EvalError("as printed")
                held.add((r, c))


@pytest.mark.parametrize("product", PRODUCTS, ids=lambda p: "m{}n{}k{}.{}.{}".format(*p))
def test_round_trip_through_fragments(product: tuple[int, int, int, str, str]) -> None:
    m, n, k, a_t, c_t = product
    rng = np.random.default_rng(sum(product[:3]))
    la, lb, lc = (pf.layout(TEXT, m, n, k, a_t, c_t, op) for op in "ABC")
    g = la.shape[0]
    a = rng.integers(-8, 8, (g, m, k)).astype(np.float64)
    b = rng.integers(-8, 8, (g, k, n)).astype(np.float64)
    c = rng.integers(-8, 8, (g, m, n)).astype(np.float64)
    fa, fb, fc = pf.to_fragments(la, a), pf.to_fragments(lb, b), pf.to_fragments(lc, c)
    assert fa.shape[0] == 32 and fa.size == a.size and fc.size == c.size
    back = [pf.from_fragments(lay, f).reshape(x.shape) for lay, f, x in ((la, fa, a), (lb, fb, b), (lc, fc, c))]
    assert all(np.array_equal(x, y) for x, y in zip(back, (a, b, c), strict=True))
    d = back[0] @ back[1] + back[2]
    assert np.array_equal(pf.from_fragments(lc, pf.to_fragments(lc, d)).reshape(d.shape), a @ b + c)

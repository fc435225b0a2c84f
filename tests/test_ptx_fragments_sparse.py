"""mma.sp fragments (9.7.16.6.2) read from the manual's formulas: the packed A of every mma.sp product the manual
lists, B and C/D from the dense sections the text names; the sparsity-selector threads (9.7.16.6.1), the block-scale
thread and byte selection (9.7.16.3); and the lines that say which layouts are figures only or unspecified."""

from __future__ import annotations

import numpy as np
import pytest

from gpuisa.semantics import matrix as mx
from gpuisa.semantics import mma_table as mt
from gpuisa.semantics import ptx_fragments as pf
from gpuisa.semantics.errors import EvalError
from gpuisa.sources.read import read_ptx_manual
from tests.conftest import SOURCES

SPARSE = (SOURCES / pf.SPARSE_MD).read_text(encoding="utf-8")
DENSE = (SOURCES / pf.MMA_MD).read_text(encoding="utf-8")
LINES = SPARSE.splitlines()


def _sparse_products() -> list[tuple[int, int, int, str, str]]:
    out = set()
    for ins in read_ptx_manual(SOURCES).instructions:
        if ins.name == "mma.sp":
            for f in ins.forms:
                try:
                    p = mt.parse_ptx(f.form)
                except EvalError:
                    continue
                out.add((p.m, p.n, p.k, p.a, p.c))
    return sorted(out)


PRODUCTS = _sparse_products()


def test_sections_and_their_formulas() -> None:
    """Eight sections; 9.7.16.6.2.1's A: 'row = groupID for a0 and a1 / groupID + 8 for a2 and a3', 'firstcol =
    threadID_in_group * 4', 'lastcol = firstcol + 3' (lines 164-172), B and C/D 'the same as' m16n8k16 (:175)."""
    assert "groupID + 8        for a2 and a3" in LINES[164] and "firstcol = threadID_in_group * 4" in LINES[170]
    assert "same as in case of [Matrix Fragments for mma.m16n8k16 with floating point type]" in LINES[174]
    book = pf.sparse_sections(SPARSE)
    assert [s.section for s in book] == [str(i) for i in range(1, 9)]
    assert {s.shape for s in book} == {(16, 8, k) for k in (8, 16, 32, 64, 128)}
    a = pf.sparse_layout(SPARSE, DENSE, 16, 8, 16, "f16", "f32", "A")[0]
    # lane 5: groupID 1, threadID_in_group 1 -> a0, a1 are the two nonzeros of row 1, columns 4..7 (packed 2, 3);
    # a2, a3 the same columns of row 9
    assert [tuple(int(v) for v in a[r, c]) for r, c in ((1, 2), (1, 3), (9, 2), (9, 3))] == [(5, 0), (5, 1), (5, 2), (5, 3)]


def test_every_mma_sp_product_has_its_packed_a() -> None:
    assert len(PRODUCTS) >= 25
    figures = set()
    for m, n, k, a, c in PRODUCTS:
        lay = pf.sparse_layout(SPARSE, DENSE, m, n, k, a, c, "A")     # raises when held twice or by no thread
        assert lay.shape == (1, m, k // 2, 2) and len({tuple(x) for x in lay.reshape(-1, 2)}) == m * k // 2
        pf.sparse_layout(SPARSE, DENSE, m, n, k, a, c, "C")
        try:
            pf.sparse_layout(SPARSE, DENSE, m, n, k, a, c, "B")
        except EvalError as exc:
            assert "only as a figure" in exc.reason
            figures.add((k, a))
    # B as a figure only: k32 f16/bf16, k16 tf32, k64 8-bit, k128 4-bit (9.7.16.6.2.2, .3, .6, .8)
    assert {k for k, _ in figures} == {16, 32, 64, 128} and (64, "s4") not in figures and (8, "tf32") not in figures
    assert "![_images/sparse-mma-16832-f16bf16-B.png]" in LINES[236]


@pytest.mark.parametrize("product", [p for p in PRODUCTS if p[2] in (8, 16, 32, 64)
                                     and (p[2], p[3]) not in {(32, "f16"), (32, "bf16"), (16, "tf32")}
                                     and not (p[2] == 64 and p[3] not in ("s4", "u4"))],
                         ids=lambda p: "m{}n{}k{}.{}.{}".format(*p))
def test_sparse_round_trip_equals_numpy(product: tuple[int, int, int, str, str]) -> None:
    """Logical sparse A -> (packed A fragments, positions) with B, C fragments -> D = expand(A) @ B + C -> fragments ->
    matrix, equal to numpy's product of the logical matrices."""
    m, n, k, a_t, c_t = product
    rng = np.random.default_rng(k)
    la, lb, lc = (pf.sparse_layout(SPARSE, DENSE, m, n, k, a_t, c_t, op) for op in "ABC")
    group, kept = (2, 1) if a_t == "tf32" else (4, 2)
    a = rng.integers(-8, 8, (m, k // group, group)).astype(np.float64)
    keep = np.argsort(rng.random(a.shape), axis=-1) < kept
    a = np.where(keep, a, 0).reshape(m, k)
    b = rng.integers(-8, 8, (k, n)).astype(np.float64)
    c = rng.integers(-8, 8, (m, n)).astype(np.float64)
    groups = a.reshape(m, -1, group)
    pos = np.sort(np.argsort(np.where(groups != 0, 0, 1) * group + np.arange(group), axis=-1, kind="stable")[..., :kept],
                  axis=-1)
    packed = np.take_along_axis(groups, pos, axis=-1).reshape(m, k // 2)
    fa, fb, fc = pf.to_fragments(la, packed), pf.to_fragments(lb, b), pf.to_fragments(lc, c)
    assert fa.shape == (32, m * k // 64)
    values = pf.from_fragments(la, fa).reshape(m, -1, kept)
    logical = np.zeros((m, k // group, group))
    np.put_along_axis(logical, pos, values, axis=-1)
    d = logical.reshape(m, k) @ pf.from_fragments(lb, fb).reshape(k, n) + pf.from_fragments(lc, fc).reshape(m, n)
    assert np.array_equal(pf.from_fragments(lc, pf.to_fragments(lc, d)).reshape(m, n), a @ b + c)
    if group == 4:      # the same expansion as the AMD side's (index pairs, index0 < index1)
        assert np.array_equal(mx.expand(values, pos, k), logical.reshape(m, k))


def test_metadata_threads_follow_the_selector_rules() -> None:
    """9.7.16.6.1 lines 46, 48, 86, 88, 102: one thread, a thread pair, or all four threads of each quad."""
    assert "One thread within a group of four consecutive threads" in LINES[45]
    assert "must be either 0 (threads T0, T1) or 1 (threads T2, T3)" in LINES[47]
    assert pf.metadata_threads(SPARSE, 16, 8, 16, "f16", 2) == tuple(range(2, 32, 4))
    assert pf.metadata_threads(SPARSE, 16, 8, 32, "bf16", 1) == tuple(x for x in range(32) if x % 4 in (2, 3))
    assert pf.metadata_threads(SPARSE, 16, 8, 64, "u4", 0) == tuple(x for x in range(32) if x % 4 in (0, 1))
    assert pf.metadata_threads(SPARSE, 16, 8, 64, "s8", 0) == tuple(range(32))
    assert pf.metadata_threads(SPARSE, 16, 8, 64, "e4m3", 0) == tuple(range(32))
    with pytest.raises(EvalError, match="selector 1 is undefined"):
        pf.metadata_threads(SPARSE, 16, 8, 128, "u4", 1)
    for m, n, k, a, _ in PRODUCTS:        # every product has a rule
        assert pf.metadata_threads(SPARSE, m, n, k, a, 0)


def test_block_scale_threads_and_bytes() -> None:
    """9.7.16.3: thread-id-a picks %laneid % 4 in {0, 1} or {2, 3} (line 105), thread-id-b %laneid % 4 == it (:113);
    1X one byte, 2X a byte pair (0 lower, 2 upper), 4X all four (:125-133); Table 46's valid values. The counts
    fit an M=16 SF_A: 16 threads x bytes = 16 rows x scale_vec values."""
    text = (SOURCES / pf.SCALE_MD).read_text(encoding="utf-8").splitlines()
    assert "`%laneid` % 4 == 0 or 1 provides the _SF_A_" in text[104]
    assert "`%laneid` % 4 == `thread-id-b` provides the _SF_B_" in text[112]
    assert "value of 2 selects upper two bytes" in text[128]
    sel = pf.scale_threads(2, 2, 1, 0, 3)
    assert sel["A"] == (tuple(x for x in range(32) if x % 4 in (2, 3)), (2, 3))
    assert sel["B"] == (tuple(range(3, 32, 4)), (0, 1))
    for vec in (1, 2, 4):
        s = pf.scale_threads(vec, 0, 0, 0, 0)
        assert len(s["A"][0]) * len(s["A"][1]) == 16 * vec and len(s["B"][0]) * len(s["B"][1]) == 8 * vec
    with pytest.raises(EvalError, match="byte-id-a 1 is undefined"):
        pf.scale_threads(2, 1, 0, 0, 0)


@pytest.mark.parametrize("what", list(pf.UNMODELLED))
def test_unmodelled_layouts_cite_the_line_that_says_so(what: str) -> None:
    _section, path, line, _ = pf.UNMODELLED[what]
    text = (SOURCES / path).read_text(encoding="utf-8").splitlines()[line - 1]
    assert ("unspecified" in text) if what == "wmma" else ("Figure" in text or ".png" in text), (what, line)

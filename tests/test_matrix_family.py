"""The whole matrix family (MFMA, SMFMAC, WMMA, SWMMAC of cdna3-5, rdna3-4): every name the manuals give
parses into a shape that agrees with the manual's own formula and tables, sparse A is 2:4 structured as
the manuals define it, and the mixed-type forms keep their types."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpuisa.semantics import matrix as mx
from gpuisa.semantics.errors import EvalError
from tests.conftest import TEXTS, manual_line

ARCHS = ("cdna3", "cdna4", "cdna5", "rdna3", "rdna4")


@pytest.mark.parametrize("arch", ARCHS)
def test_every_matrix_instruction_parses_and_agrees_with_its_formula(arch: str) -> None:
    docs = TEXTS.instruction_docs(arch)
    names = [n for n in docs if mx.MATRIX_FAMILY.match(n)]
    assert len(names) >= 6
    for name in names:
        doc = docs[name][0]
        text = f"{doc.description}\n{doc.pseudocode}"
        shape = mx.parse_name(name)
        left = [p for p in mx.check_against_manual(shape, text) if p not in mx.errata(shape, text)]
        assert left == [], f"{name} ({doc.provenance.cite()}): {left}"


def test_cdna5_formula_slips_are_errata_not_failures() -> None:
    """The cdna5 manual's text for V_WMMA_F32_16X16X64_FP8_BF8 lost its heading in conversion: the formula
    the record carries reads S1.fp8 while the name (and the formula under the right heading, line 17458) say bf8."""
    assert 'S0.fp8(16x64) * S1.bf8(64x16)' in manual_line("cdna5", 17458)
    doc = TEXTS.instruction_docs("cdna5")["V_WMMA_F32_16X16X64_FP8_BF8"][0]
    shape = mx.parse_name("v_wmma_f32_16x16x64_fp8_bf8")
    text = f"{doc.description}\n{doc.pseudocode}"
    assert mx.errata(shape, text) and shape.b == "bf8"
    mx.run_random(shape.name, text, "cdna5", np.random.default_rng(0))


_TABLE41 = re.compile(r"^\| (V_S?WMMAC?_\w+)\s*\| (\d+)x(\d+) (\w+)\b.*?\| (\d+)x(\d+) (\w+)\s*\| (\d+)x(\d+) (\w+)\s*\| "
                      r"(\d+)x(\d+) (\w+)\s*\|")
_TYPES = {"F16": "f16", "BF16": "bf16", "F32": "f32", "I32": "i32", "IU8": "iu8", "IU4": "iu4", "FP8": "fp8",
          "BF8": "bf8"}


def test_rdna4_table_41_shapes_and_types() -> None:
    """rdna4/README.md:3166-3189 (Table 41): A (expanded for SWMMAC), B, C, D sizes and types per instruction."""
    rows = [m for no in range(3160, 3192) if (m := _TABLE41.match(manual_line("rdna4", no)))]
    assert len(rows) == 22
    for m in rows:
        shape = mx.parse_name(m.group(1))
        g = m.groups()
        assert (int(g[1]), int(g[2]), int(g[4]), int(g[5])) == (shape.m, shape.k, shape.k, shape.n), g[0]
        assert (int(g[10]), int(g[11])) == (shape.m, shape.n)
        assert (_TYPES[g[3]], _TYPES[g[6]]) == (shape.a, shape.b), g[0]
        assert (_TYPES[g[9]], _TYPES[g[12]]) == (shape.c_type, shape.out), g[0]
        assert shape.sparse == g[0].startswith("V_SWMMAC") and shape.wave == 32


def test_cdna4_table_33_smfmac_variants() -> None:
    """cdna4/README.md:2087-2100 (Table 33): the SMFMAC variants, one block each, on a wave64."""
    names = set()
    for no in range(2087, 2101):
        cells = [c.strip() for c in manual_line("cdna4", no).strip("|").split("|")]
        for pattern in cells[0].split(";"):
            pattern = pattern.strip()
            for variant in cells[1].split(";"):
                names.add(pattern.replace("{*}", variant.strip()).lower())
    assert len(names) >= 20
    for name in names:
        if name.count("x") < 2 or "{" in name:
            continue
        shape = mx.parse_name(name)
        assert shape.sparse and shape.blocks == 1 and shape.wave == 64


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_sparse_compress_expand_round_trip(seed: int) -> None:
    """Two nonzeros of every four K, index0 < index1 (cdna4/README.md:2079, :2116)."""
    assert "index 0 < index 1" in manual_line("cdna4", 2116)
    shape = mx.parse_name("v_smfmac_f32_16x16x32_f16")
    a, _, _ = mx.random_operands(shape, np.random.default_rng(seed))
    vals, idx = mx.compress(a[0, 0])
    assert vals.shape == (16, 16) and idx.shape == (16, 8, 2)
    assert (idx[..., 0] < idx[..., 1]).all()
    assert (mx.expand(vals, idx, 32) == a[0, 0]).all()


def test_sparse_product_equals_the_dense_product_of_the_expanded_a() -> None:
    sparse = mx.parse_name("v_smfmac_f32_32x32x16_f16")
    rng = np.random.default_rng(7)
    a, b, c = mx.random_operands(sparse, rng, batch=50)
    d = mx.multiply(sparse, a, b, c, arch="cdna3")
    a16 = a.astype(np.float16).astype(np.float64)
    ref = np.matmul(a16, b.astype(np.float16).astype(np.float64)) + c.astype(np.float32)
    assert (np.abs(d - ref) <= mx.accumulation_bound(sparse, a16, b.astype(np.float16), c)).all()


def test_a_that_is_not_2_of_4_sparse_is_refused() -> None:
    shape = mx.parse_name("v_swmmac_f32_16x16x32_f16")
    with pytest.raises(EvalError, match="at most 2 nonzero values in each group of 4"):
        mx.multiply(shape, np.ones((16, 32)), np.ones((32, 16)), np.zeros((16, 16)), arch="rdna4")
    with pytest.raises(EvalError, match="index0 < index1"):
        mx.expand(np.ones((1, 2)), np.array([[[2, 1]]]), 4)


def test_bf16_output_with_f32_accumulator() -> None:
    """cdna5/README.md:17301: V_WMMA_BF16F32_16X16X32_BF16 takes C as f32 and writes D as BF16."""
    assert "Matrix C is single-precision float format. Matrix D is BF16 float format." in manual_line("cdna5", 17301)
    shape = mx.parse_name("v_wmma_bf16f32_16x16x32_bf16")
    assert (shape.c_type, shape.out) == ("f32", "bf16")
    c = np.full((16, 16), 1.0 + 2.0 ** -20)             # kept by f32 C, lost by a bf16 C
    a = np.zeros((16, 32))
    a[:, 0] = 2.0 ** -8
    b = np.zeros((32, 16))
    b[0, :] = 1.0                                       # A@B = 2^-8: 1 + 2^-20 + 2^-8 rounds up only with the 2^-20
    d = mx.multiply(shape, a, b, c, arch="cdna5")[0]
    assert d.dtype.name == "bfloat16"
    assert float(d[0, 0]) == 1.0 + 2.0 ** -7           # RNE of 1 + 2^-8 + 2^-20 to 8 bits: up (past the tie)


def test_int4_inputs_are_checked() -> None:
    shape = mx.parse_name("v_wmma_i32_16x16x16_iu4")
    assert shape.a == "iu4"
    # signed [-8, 7] or unsigned [0, 15] by the NEG bit (rdna3/README.md:2389), never both in one matrix
    assert "signed(1)/unsigned(0)" in manual_line("rdna3", 2389)
    bad = np.full((16, 16), 15)
    bad[0, 0] = -1
    with pytest.raises(EvalError, match=r"\[-8, 7\] \(signed\) or \[0, 15\]"):
        mx.multiply(shape, bad, np.ones((16, 16)), np.zeros((16, 16)), arch="rdna3")
    assert (mx.multiply(shape, np.full((16, 16), 15), np.ones((16, 16), dtype=int), np.zeros((16, 16), dtype=int),
                        arch="rdna3") == 15 * 16).all()
    d = mx.multiply(shape, np.full((16, 16), -8), np.full((16, 16), 7), np.zeros((16, 16), dtype=int), arch="rdna3")
    assert (d == -8 * 7 * 16).all()


def test_layouts_known_where_a_source_gives_them() -> None:
    """SMFMAC (cdna3/cdna4 sparse tables), cdna5 WMMA/SWMMAC (7.12.2-7.12.6) are modelled; rdna4 SWMMAC is refused
    (its sources contradict each other: tests/test_matrix_layouts.py)."""
    assert mx.layout_known(mx.parse_name("v_smfmac_f32_16x16x32_f16"), "cdna3")
    assert mx.layout_known(mx.parse_name("v_wmma_f32_16x16x32_f16"), "cdna5")
    assert mx.layout_known(mx.parse_name("v_swmmac_f32_16x16x64_f16"), "cdna5")
    assert not mx.layout_known(mx.parse_name("v_swmmac_f32_16x16x32_f16"), "rdna4")
    assert mx.layout_known(mx.parse_name("v_mfma_f32_32x32x8_f16"), "cdna3")


def test_rdna4_wmma_c_d_layout_matches_the_manual_example() -> None:
    """rdna4/README.md:3292 `matrix[row][col] -> VGPR[(row / 8) * 16 + col][row % 8]` and the example table
    (:3306-3312). One cell of the example, lane 1 of V1, prints D[0, 1]: the formula (and the cells around it)
    say D[1, 1], so the table has a slip and the formula wins."""
    assert "VGPR[(row / 8) \\* 16 + col][row % 8]" in manual_line("rdna4", 3292)
    shape = mx.parse_name("v_wmma_f32_16x16x16_f16")
    lay = mx.layout(shape, "D", 32, arch="rdna4")[0]
    where = {(int(lane), int(reg)): (i, j) for (i, j), (lane, reg, _) in
             ((ij, lay[ij]) for ij in np.ndindex(16, 16))}
    header = [int(v.strip()[1:]) for v in manual_line("rdna4", 3306).strip("|").split("|")[1:]]
    slips = []
    for no in range(3308, 3313):
        cells = [c.strip() for c in manual_line("rdna4", no).strip("|").split("|")]
        lane = int(cells[0])
        for reg, cell in zip(header, cells[1:], strict=True):
            i, j = map(int, re.fullmatch(r"D\[(\d+), (\d+)\]", cell).groups())
            if where[(lane, reg)] != (i, j):
                slips.append((lane, reg, cell))
    assert slips == [(1, 1, "D[0, 1]")]


@pytest.mark.parametrize(("name", "bits", "regs"), [("v_wmma_f32_16x16x16_f16", 16, 4),
                                                    ("v_wmma_i32_16x16x16_iu8", 8, 2),
                                                    ("v_wmma_i32_16x16x32_iu4", 4, 2)])
def test_rdna4_wmma_a_b_use_the_tables_register_counts(name: str, bits: int, regs: int) -> None:
    """Table 43 (rdna4/README.md:3257-3260): dense A and B take 4 VGPRs (16-bit), 2 (8-bit), 2 (4-bit 16x32) in
    wave32, every lane holding its own data (no copy in lanes 16-31 as on RDNA3); the field rules at :3231."""
    assert "A=B=4" in manual_line("rdna4", 3257) and "A=B=2" in manual_line("rdna4", 3258)
    assert "{ row[2], col[3:0] } { row[3], row[1] } row[0]" in manual_line("rdna4", 3231)
    shape = mx.parse_name(name)
    rng = np.random.default_rng(bits)
    for op, (r, c) in (("A", (shape.m, shape.k)), ("B", (shape.k, shape.n))):
        lay = mx.layout(shape, op, bits, arch="rdna4").reshape(-1, 3)
        assert int(lay[:, 1].max()) + 1 == regs and set(lay[:, 0]) == set(range(32))
        assert len({tuple(x) for x in lay}) == len(lay)
        raw = rng.integers(0, 1 << bits, size=(1, r, c), dtype=np.uint64)
        back = mx.from_registers(shape, op, mx.to_registers(shape, op, raw, bits, arch="rdna4"), bits, arch="rdna4")
        assert (back == raw).all()


@pytest.mark.parametrize("arch", ["cdna1", "cdna2"])
def test_legacy_mfma_names_take_the_block_count_the_manual_gives(arch: str) -> None:
    """V_MFMA_F32_16X16X1F32 names no block count; the opcode table's description does ('..., 4 Blocks, 8 pass, srcA/srcB
    one archVgpr', cdna2/README.md:3583). Every such row of the manual against parse_name."""
    from tests.conftest import MANUALS

    rows = re.findall(r"\| (V_MFMA_\w+) +\| D\((\d+)x(\d+)\w+\) = A\((\d+)x(\d+)\w+\).*?, (\d+) Blocks",
                      (MANUALS / arch / "README.md").read_text(encoding="utf-8"))
    legacy = [r for r in rows if re.search(r"X\d+[A-Z]", r[0].split("_", 3)[-1])]
    assert len(legacy) >= 20
    for name, _, _, _, _, blocks in legacy:
        assert mx.parse_name(name).blocks == int(blocks), name

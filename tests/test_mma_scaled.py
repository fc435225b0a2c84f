"""Block-scaled PTX mma (kind::mxf8f6f4 / mxf4 / mxf4nvf4, 9.7.16.3) against AMD's scaled matrix instructions:
a counterpart where the scale format and block size allow it (evaluated on random matrices and scales), else none
with the manual line that rules it out."""

from __future__ import annotations

import numpy as np
import pytest

from gpuisa.semantics import matrix as mx
from gpuisa.semantics import mma_table as mt
from gpuisa.semantics.errors import EvalError
from tests.conftest import SOURCES, TEXTS

SCALING_MD = SOURCES / "ptx-isa-9.4/9-instruction-set/9.7.16.3-block-scaling-formma.sync.md"
CDNA4 = SOURCES / "amd-isa-manuals/cdna4/README.md"
CDNA5 = SOURCES / "amd-isa-manuals/cdna5/README.md"
MXF8 = "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e2m1.f32.ue8m0"
NVF4_4X = "mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.{}"
MXF4 = "mma.sync.aligned.m16n8k64.row.col.kind::mxf4.block_scale.f32.e2m1.e2m1.f32.ue8m0"
SPARSE = ("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X"
          ".f32.e4m3.e5m2.f32.ue8m0")


def _lines(path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def _names() -> dict[str, list[str]]:
    return {a: [n for n in TEXTS.instruction_docs(a) if mx.MATRIX_FAMILY.match(n)] for a in mt.AMD_ARCHS}


def _by_arch(form: str) -> dict[str, mt.Counterpart]:
    return {cp.arch: cp for cp in mt.counterparts(mt.parse_ptx(form), _names())}


def test_scale_block_sizes_follow_table_44_and_the_defaults() -> None:
    ptx = _lines(SCALING_MD)
    assert ptx[44].startswith("`.scale_vec::2X` | M x 2 | 2 x N")
    assert mt.parse_ptx(MXF8).scale_block == 32                       # K 32, 1X
    assert mt.parse_ptx(NVF4_4X.format("ue4m3")).scale_block == 16    # K 64, 4X
    p = mt.parse_ptx(MXF4)                                            # mxf4 defaults to 2X (9.7.16.5 line 1727)
    assert (p.scale_block, p.scale_type) == (32, "e8m0")
    assert mt.parse_ptx(MXF4).key != mt.parse_ptx(NVF4_4X.format("ue8m0")).key     # different products
    with pytest.raises(EvalError):
        mt.parse_ptx("mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.f32.e2m1.e2m1.f32.ue8m0")


def test_mxf8f6f4_runs_on_the_cdna4_and_cdna5_scaled_instructions() -> None:
    c4, c5 = _lines(CDNA4), _lines(CDNA5)
    assert "block size is 32" in c4[1941] and "V\\_MFMA\\_SCALE\\_F32\\_16X16X128\\_F8F6F4" in c4[1951]
    assert "E8M0, E5M3 or E4M3" in c5[3715]
    cps = _by_arch(MXF8)
    rng = np.random.default_rng(14)
    p = mt.parse_ptx(MXF8)
    assert cps["cdna4"].instruction == "v_mfma_scale_f32_16x16x128_f8f6f4" and cps["cdna4"].level == "padded"
    assert cps["cdna5"].instruction == "v_wmma_scale_f32_16x16x128_f8f6f4"
    for arch in ("cdna4", "cdna5"):
        evidence = mt.check(p, cps[arch], rng).evidence
        assert "within the accumulation bound" in evidence and "E8M0 scales per 32 K" in evidence
    for arch in ("cdna3", "rdna3", "rdna4"):
        assert cps[arch].level == "none" and "no block-scaled matrix instruction" in cps[arch].reason


def test_16_value_blocks_and_e4m3_scales_need_cdna5() -> None:
    c5 = _lines(CDNA5)
    assert "1x16 (K=16)" in c5[3715] and "| F4         | E4M3           | F4         | E4M3" in c5[3759]
    rng = np.random.default_rng(7)
    for stype in ("ue8m0", "ue4m3"):
        cps = _by_arch(NVF4_4X.format(stype))
        assert cps["cdna4"].level == "none"
        assert ("blocks of 32 K" if stype == "ue8m0" else "e8m0 only") in cps["cdna4"].reason
        assert cps["cdna5"].instruction == "v_wmma_scale16_f32_16x16x128_f8f6f4"
        assert "within the accumulation bound" in mt.check(mt.parse_ptx(NVF4_4X.format(stype)), cps["cdna5"],
                                                           rng).evidence
    assert any("UE4M3" in r for r in _by_arch(NVF4_4X.format("ue4m3"))["cdna5"].restrictions)


def test_a_32_value_scale_block_gives_a_different_product() -> None:
    """The reason 16-K PTX scales have no cdna4 counterpart is real: run on 32-K AMD blocks, D changes."""
    p = mt.parse_ptx(NVF4_4X.format("ue8m0"))
    shape = mx.parse_name("v_wmma_scale_f32_16x16x128_f8f6f4")       # blocks of 32
    rng = np.random.default_rng(3)
    a = mx.quantize(rng.standard_normal((16, 64)), "fp4")
    b = mx.quantize(rng.standard_normal((64, 8)), "fp4")
    sa = rng.integers(124, 131, (16, 4))
    sb = rng.integers(124, 131, (4, 8))
    want = (a * mt.scale_values(p, sa, 1)) @ (b * mt.scale_values(p, sb, 0))
    wrong = mt.tiled(shape, "cdna5", a, b, np.zeros((16, 8)), p, (sa, sb))
    right = mt.tiled(mx.parse_name("v_wmma_scale16_f32_16x16x128_f8f6f4"), "cdna5", a, b, np.zeros((16, 8)), p,
                     (sa, sb))
    assert np.allclose(right, want, rtol=1e-5, atol=1e-6) and not np.allclose(wrong, want, rtol=1e-3)


def test_sparse_scaled_forms_are_none_with_the_manual_line() -> None:
    assert "do not supported structured sparsity" in _lines(CDNA5)[3711]
    for arch, cp in _by_arch(SPARSE).items():
        assert cp.level == "none" and cp.reason, arch


def test_ue4m3_scale_codes_follow_the_cdna5_table() -> None:
    """Unsigned E4M3 scales: 111_1110 = 1.75 * 2^8 max normal, 000_1000 = 2^-6, 000_0001 = 2^-9 (cdna5 table)."""
    c5 = _lines(CDNA5)
    assert "111_1110 = 1.75 * 2" in c5[3743] and "000_0001 = 2 -9" in c5[3749]
    shape = mx.parse_name("v_wmma_scale16_f32_16x16x128_f8f6f4")
    a = np.zeros((16, 128))
    a[0, 0] = 1.0
    b = np.zeros((128, 16))
    b[0, 0] = 1.0
    for code, value in ((0x7E, 448.0), (0x08, 2.0 ** -6), (0x01, 2.0 ** -9), (0x38, 1.0)):
        sa = np.full((16, 8), 0x38)
        sa[0, 0] = code
        d = mx.multiply(shape, a, b, np.zeros((16, 16)), arch="cdna5", a_code=4, b_code=4, scale_a=sa,
                        scale_b=np.full((8, 16), 0x38), scale_formats=("ue4m3", "ue4m3"))
        assert d[0, 0, 0] == value
    with pytest.raises(EvalError, match="UE4M3"):
        mx.multiply(shape, a, b, np.zeros((16, 16)), arch="cdna5", scale_a=np.full((16, 8), 0x80),
                    scale_formats=("ue4m3", "ue4m3"))

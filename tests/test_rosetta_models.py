"""The prose models the Rosetta runs where a Semantics block cannot be run as written (semantics.ptx_cvt for cvt of
narrow float formats, semantics.ptx_lanes for bf16 / f32x2 / mixed precision / min-max): each rule checked against
the manual line it cites and an independent reference (ml_dtypes' casts, Python's exact fractions)."""

from __future__ import annotations

from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpuisa.semantics.ptx_cvt import NotModelled, cvt_form, input_domain, run_cvt
from gpuisa.semantics.ptx_lanes import lane_form, run_lanes
from tests.conftest import SOURCES

PTX = SOURCES / "ptx-isa-9.4" / "9-instruction-set"
CVT = PTX / "9.7.10.24-data-movement-and-conversion-instructionscvt.md"


def _f32(x: float) -> int:
    return int(np.float32(x).view(np.uint32))


def _cvt(form: str, **ops: int) -> int:
    cf = cvt_form(form)
    return int(run_cvt(cf, {k: np.array([v], dtype=np.uint64) for k, v in ops.items()})[0])


def _code(x: float, dtype) -> int:
    return int(np.array([x], dtype=np.float64).astype(dtype).view(np.uint8)[0])


def test_fp8_pair_packs_a_high_b_low():
    text = CVT.read_text()
    assert "the value converted from input `a` is stored in the upper 8 bits of `d`" in text
    got = _cvt("cvt.rn.satfinite.e4m3x2.f32", a=_f32(1.5), b=_f32(-0.3125))
    assert got == (_code(1.5, ml_dtypes.float8_e4m3fn) << 8) | _code(-0.3125, ml_dtypes.float8_e4m3fn)


def test_satfinite_rules():
    text = CVT.read_text()
    assert "`.s2f6x2` destination formats `NaN` results are converted to positive _MAX_NORM_" in text
    assert "the result is sign-preserved _MAX_NORM_ of the destination format" in text
    fp4_max = _code(float(ml_dtypes.finfo(ml_dtypes.float4_e2m1fn).max), ml_dtypes.float4_e2m1fn)
    got = _cvt("cvt.rn.satfinite.e2m1x2.f32", a=_f32(float("nan")), b=_f32(-1e30))
    assert got >> 4 == fp4_max and got & 0xF == 0x8 | fp4_max
    e4m3_max = _code(448.0, ml_dtypes.float8_e4m3fn)
    assert _cvt("cvt.rn.satfinite.e4m3x2.f32", a=_f32(float("inf")), b=_f32(500.0)) == e4m3_max << 8 | e4m3_max


def test_relu_and_pzo():
    text = CVT.read_text()
    assert "`.relu` clamps the result to 0 if negative" in text
    assert "if the result of the conversion produces `-0.0`, it will be forced to `+0.0`" in text
    assert _cvt("cvt.rn.relu.satfinite.e5m2x2.f32", a=_f32(-3.0), b=_f32(2.0)) == _code(2.0, ml_dtypes.float8_e5m2)
    assert _cvt("cvt.rn.bf16.f32", a=_f32(-1e-45)) == 0x8000            # -0.0 without .pzo
    assert _cvt("cvt.rn.pzo.bf16.f32", a=_f32(-1e-45)) == 0


def test_unmodelled_forms_say_why():
    for form, why in (("cvt.rs.satfinite.e4m3x4.f32", "figures"), ("cvt.rn.satfinite.s2f6x2.f32", "s2f6x2")):
        with pytest.raises(NotModelled, match=why):
            cvt_form(form)
    assert cvt_form("cvt.rn.f32.s32") is None                          # the manual's own block runs it


@settings(max_examples=200, deadline=None)
@given(st.floats(width=32, allow_nan=False, allow_infinity=False), st.sampled_from(["rn", "rz", "rm", "rp"]))
def test_bf16_rounding_matches_exact_arithmetic(x, mode):
    # 9.7.10.24 Floating Point Notes: .rn nearest even, .rz toward zero, .rm / .rp toward -inf / +inf
    got = _cvt(f"cvt.{mode}.bf16.f32", a=_f32(x))
    value = float(np.array([got], dtype=np.uint16).view(ml_dtypes.bfloat16)[0])
    exact = Fraction(float(np.float32(x)))
    lower = np.array([_f32(x) & 0xFFFF0000], dtype=np.uint32).view(np.float32)[0]     # truncated magnitude
    candidates = {float(lower), float(np.nextafter(np.float32(lower), np.float32(np.copysign(np.inf, x))))}
    if mode == "rn":
        assert value == float(np.float32(x).astype(ml_dtypes.bfloat16)) or np.isinf(value)
    elif mode == "rz":
        assert abs(Fraction(value)) <= abs(exact) and value in candidates
    elif mode == "rm" and not np.isinf(value):
        assert Fraction(value) <= exact
    elif mode == "rp" and not np.isinf(value):
        assert Fraction(value) >= exact


def _lanes(form: str, **ops: int) -> int:
    lf = lane_form(form)
    return int(run_lanes(lf, {k: np.array([v], dtype=np.uint64) for k, v in ops.items()})[0])


def test_f32x2_adds_elements_in_parallel():
    text = (PTX / "9.7.3.3-floating-point-instructionsadd.md").read_text()
    assert "fA[0] = a[0:31];" in text and "d[i] = fA[i] + fB[i];" in text
    a = _f32(1.0) | _f32(2.5) << 32
    b = _f32(0.25) | _f32(-4.0) << 32
    assert _lanes("add.rn.f32x2", a=a, b=b) == _f32(1.25) | _f32(-1.5) << 32


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 0xFFFF), st.integers(0, 0xFFFF), st.integers(0, 0xFFFF))
def test_fma_bf16_is_one_rounding(a, b, c):
    text = (PTX / "9.7.4.4-half-precision-floating-point-instructionsfma.md").read_text()
    assert "Performs a fused multiply-add with no loss of precision in the intermediate product and addition" in text
    va, vb, vc = (float(np.array([v], dtype=np.uint16).view(ml_dtypes.bfloat16)[0]) for v in (a, b, c))
    got = _lanes("fma.rn.bf16", a=a, b=b, c=c)
    value = float(np.array([got], dtype=np.uint16).view(ml_dtypes.bfloat16)[0])
    if not all(np.isfinite(v) for v in (va, vb, vc)) or not np.isfinite(value) or abs(va * vb + vc) > 1e38:
        return
    exact = Fraction(va) * Fraction(vb) + Fraction(vc)
    # no bf16 value lies strictly closer to the exact result
    nxt = [float(np.nextafter(np.float32(value), np.float32(d)).astype(ml_dtypes.bfloat16)) for d in (-np.inf, np.inf)]
    lo = float(np.array([got - 1 if got & 0x7FFF else got], dtype=np.uint16).view(ml_dtypes.bfloat16)[0])
    hi = float(np.array([got + 1], dtype=np.uint16).view(ml_dtypes.bfloat16)[0])
    for other in (lo, hi, *nxt):
        if np.isfinite(other) and other != value:
            assert abs(Fraction(other) - exact) >= abs(Fraction(value) - exact)


def test_min_nan_and_xorsign():
    text = (PTX / "9.7.3.11-floating-point-instructionsmin.md").read_text()
    assert "the result is canonical `NaN` if any of the inputs is `NaN`" in text
    assert "`.xorsign` considers the sign bit of both inputs before applying `.abs` operation" in text
    nan, one, m2 = _f32(float("nan")), _f32(1.0), _f32(-2.0)
    assert _lanes("min.f32", a=nan, b=one) == one                      # min_num: the other operand
    assert np.isnan(np.uint32(_lanes("min.NaN.f32", a=nan, b=one)).view(np.float32))
    assert _lanes("min.xorsign.abs.f32", a=one, b=m2) == _f32(-1.0)     # |1| < |-2|, sign 0 ^ 1
    assert _lanes("max.f32", a=_f32(-0.0), b=_f32(0.0)) == _f32(0.0)   # "-0.0 < +0.0 here"


def test_testp_follows_its_true_if_lines():
    text = (PTX / "9.7.3.1-floating-point-instructionstestp.md").read_text()
    assert "As a special case, positive and negative zero are considered normal numbers." in text
    lf = lane_form("testp.normal.f32")
    vals = [_f32(0.0), _f32(-0.0), 1, _f32(1.0), _f32(float("inf")), _f32(float("nan"))]
    got = run_lanes(lf, {"a": np.array(vals, dtype=np.uint64)}).tolist()
    assert got == [1, 1, 0, 1, 0, 0]
    sub = run_lanes(lane_form("testp.subnormal.f32"), {"a": np.array(vals, dtype=np.uint64)}).tolist()
    assert sub == [0, 0, 1, 0, 0, 0]


@settings(max_examples=300, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False), st.floats(allow_nan=False, allow_infinity=False),
       st.sampled_from(["rz", "rm", "rp"]))
def test_f64_directed_mul_is_exact_then_rounded(x, y, mode):
    text = (PTX / "9.7.3.5-floating-point-instructionsmul.md").read_text()
    assert "mantissa LSB rounds towards negative infinity" in text and "mantissa LSB rounds towards zero" in text
    bits = {k: np.array([v], dtype=np.float64).view(np.uint64) for k, v in (("a", x), ("b", y))}
    z = float(run_lanes(lane_form(f"mul.{mode}.f64"), bits).view(np.float64)[0])
    exact = Fraction(x) * Fraction(y)
    if abs(exact) >= Fraction(float(np.finfo(np.float64).max)):
        return                                                         # overflow: not this test's subject
    up, down = float(np.nextafter(z, np.inf)), float(np.nextafter(z, -np.inf))
    if mode == "rm":
        assert Fraction(z) <= exact < Fraction(up)
    elif mode == "rp":
        assert Fraction(down) < exact <= Fraction(z)
    else:
        assert abs(Fraction(z)) <= abs(exact) and (exact == 0 or abs(exact) < abs(Fraction(up if exact > 0 else down)))


def test_approx_admits_results_within_the_stated_bound():
    from gpuisa.semantics.ptx_approx import approx_differ, approx_form, run_approx

    text = (PTX / "9.7.3.13-floating-point-instructionsrcp.md").read_text()
    assert "The maximum ulp error is 1 across the full range of inputs." in text
    assert "-0.0 | -Inf" in text
    af = approx_form("rcp.approx.f32")
    a = np.array([_f32(3.0), _f32(3.0), _f32(3.0), _f32(-0.0), _f32(-0.0)], dtype=np.uint64)
    want = run_approx(af, {"a": a})
    third = np.float32(1 / 3)                      # 1/3 rounded up by a third of an ulp
    down = np.nextafter(third, np.float32(0))      # 2/3 ulp below 1/3: within 1 ulp
    got = np.array([_f32(third), _f32(down), _f32(np.nextafter(down, np.float32(0))),
                    _f32(float("-inf")), _f32(float("inf"))], dtype=np.uint64)
    assert approx_differ(af, want, got).tolist() == [False, False, True, False, True]


def test_copysign_copies_the_sign_of_a_into_b():
    text = (PTX / "9.7.3.2-floating-point-instructionscopysign.md").read_text()
    assert "Copy sign bit of `a` into value of `b`, and return the result as `d`." in text
    assert _lanes("copysign.f32", a=_f32(-0.0), b=_f32(2.5)) == _f32(-2.5)
    assert _lanes("copysign.f32", a=_f32(1.0), b=_f32(float("-inf"))) == _f32(float("inf"))


@settings(max_examples=200, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False), st.floats(allow_nan=False, allow_infinity=False),
       st.floats(allow_nan=False, allow_infinity=False), st.sampled_from(["fma", "div", "sqrt"]),
       st.sampled_from(["rz", "rm", "rp"]))
def test_f64_directed_fma_div_sqrt_are_exact_then_rounded(x, y, z, op, mode):
    fma = (PTX / "9.7.3.6-floating-point-instructionsfma.md").read_text()
    assert "`fma.f64` computes the product of `a` and `b` to infinite precision and then adds `c`" in fma
    assert "div.rnd.f64           d, a, b;  // IEEE 754 compliant rounding" in \
        (PTX / "9.7.3.8-floating-point-instructionsdiv.md").read_text()
    names = {"fma": "abc", "div": "ab", "sqrt": "a"}[op]
    if (op == "div" and y == 0) or (op == "sqrt" and x < 0):
        return                                                         # NaN / infinity: IEEE, not this test's subject
    bits = {k: np.array([v], dtype=np.float64).view(np.uint64) for k, v in zip(names, (x, y, z), strict=False)}
    d = float(run_lanes(lane_form(f"{op}.{mode}.f64"), bits).view(np.float64)[0])
    big = Fraction(float(np.finfo(np.float64).max))

    def above(v: float) -> int:                  # sign of v - exact result, by exact arithmetic
        if op != "sqrt":
            exact = Fraction(x) * Fraction(y) + Fraction(z) if op == "fma" else Fraction(x) / Fraction(y)
            if abs(exact) >= big:
                return 2                                               # overflow: not this test's subject
        if v in (float("inf"), float("-inf")):   # the neighbour of the largest finite result: beyond any exact value
            return 1 if v > 0 else -1
        if op == "sqrt":
            return 1 if v > 0 and Fraction(v) ** 2 > Fraction(x) else -1 if Fraction(v) ** 2 < Fraction(x) or v < 0 \
                else 0
        return (Fraction(v) > exact) - (Fraction(v) < exact)

    here = above(d)
    if here in (0, 2):
        return
    with np.errstate(over="ignore"):             # the neighbour of the largest finite double is infinity
        up, down = above(float(np.nextafter(d, np.inf))), above(float(np.nextafter(d, -np.inf)))
    if mode == "rm" or (mode == "rz" and here < 0 and (op == "sqrt" or d >= 0)):
        assert here < 0 and up > 0                                      # the largest float below the exact value
    else:
        assert here > 0 and down < 0                                    # the smallest float above it


def test_mul24_and_mad_hi_sat_follow_their_descriptions():
    from gpuisa.crossref.discovery import _run_np, ptx_side
    from tests.conftest import TEXTS

    mul24 = (PTX / "9.7.1.6-integer-arithmetic-instructionsmul24.md").read_text()
    assert "Compute the product of two 24-bit integer values held in 32-bit source registers" in mul24
    assert "`mul24.hi` performs a 24x24-bit multiply and returns the high 32 bits of the 48-bit result." in mul24
    mad24 = (PTX / "9.7.1.7-integer-arithmetic-instructionsmad24.md").read_text()
    assert "limits result of 32-bit signed addition to `MININT..MAXINT`" in mad24

    def run(form: str, **ops: int) -> int:
        p = ptx_side(form, TEXTS)
        return int(_run_np(p.prog, "rdna3", {k: np.array([v], dtype=np.uint64) for k, v in ops.items()}, p.inputs,
                           TEXTS)[0])

    # the top byte of each register is not part of a 24-bit value
    assert run("mul24.hi.u32", a=0xAB00_0000 | 0xFFFFFF, b=0x1200_0000 | 0xFFFFFF) == (0xFFFFFF * 0xFFFFFF) >> 16
    assert run("mul24.lo.s32", a=0xFFFFFF, b=3) == (-3) & 0xFFFFFFFF      # 0xFFFFFF is -1 as a 24-bit .s32 value
    # the high half is a signed value: (-1 * 1).hi = -1, plus 5 is 4, nothing to saturate
    assert run("mad.hi.sat.s32", a=0xFFFFFFFF, b=1, c=5) == 4
    assert run("mad.hi.sat.s32", a=0x7FFFFFFF, b=0x7FFFFFFF, c=0x7FFFFFFF) == 0x7FFFFFFF


def test_unsigned_scale_destinations():
    text = CVT.read_text()
    assert "a positive _MAX_NORM_ in `.ue8m0x2` and `.ue5m3x2` for which the destination sign is not supported" in text
    # E8M0 codes are 2^(e-127): 3.0 is 2^1 (0x80) toward zero and 2^2 (0x81) upward; beyond MAX_NORM: +MAX_NORM
    assert _cvt("cvt.rz.satfinite.ue8m0x2.f32", a=_f32(3.0), b=_f32(-1e38 * 3)) == 0x80 << 8 | 0xFE
    assert _cvt("cvt.rp.satfinite.ue8m0x2.f32", a=_f32(3.0), b=_f32(1.0)) == 0x81 << 8 | 0x7F
    # UE5M3 rounds to nearest like ml_dtypes' unsigned E5M3
    assert _cvt("cvt.rn.satfinite.ue5m3x2.f32", a=_f32(3.3), b=_f32(1000.0)) == \
        _code(3.3, ml_dtypes.float8_e5m3fnu) << 8 | _code(1000.0, ml_dtypes.float8_e5m3fnu)
    # no line states a negative input within range: the discovery feeds none and its rows say so
    note, into = input_domain(cvt_form("cvt.rz.ue8m0x2.bf16x2"))
    assert "non-negative" in note
    mixed = np.array([0x8000_BF80, 0x0001_0000], dtype=np.uint64)      # -0.0 | -1.0; a subnormal | +0.0
    assert [hex(int(v)) for v in into("a", mixed)] == ["0x803f80", "0x810080"]


def test_rna_rounds_ties_away_from_zero():
    assert "rounding to nearest, with ties away from zero" in CVT.read_text()
    tie = 0x3F80_1000                  # 1 + 2^-11: halfway between two tf32 values (tf32 keeps 10 mantissa bits)
    assert _cvt("cvt.rna.tf32.f32", a=tie) == 0x3F80_2000 and _cvt("cvt.rn.tf32.f32", a=tie) == 0x3F80_0000
    assert _cvt("cvt.rna.tf32.f32", a=tie | 1 << 31) == 0xBF80_2000


def test_cvt_pack_clamps_both_ends_and_packs_a_above_b():
    from gpuisa.crossref.discovery import _run_np, ptx_side
    from tests.conftest import TEXTS

    text = (PTX / "9.7.10.25-data-movement-and-conversion-instructionscvt.pack.md").read_text()
    assert "`.sat` modifier limits the converted values to `MIN(convertType)`.. `MAX(convertedType)`" in text
    assert "If operand `c` is specified then remaining bits of `d` are copied from lower bits of `c`." in text

    def run(form: str, **ops: int) -> int:
        p = ptx_side(form, TEXTS)
        return int(_run_np(p.prog, "rdna3", {k: np.array([v], dtype=np.uint64) for k, v in ops.items()}, p.inputs,
                           TEXTS)[0])

    # .s4 range is -8..7: a = 100 -> 7, b = -100 -> -8 (0b1000); c's low bits fill the rest above the 8 packed bits
    assert run("cvt.pack.sat.s4.s32.b32", a=100, b=(-100) & 0xFFFFFFFF, c=0xABCDEF) == (0xABCDEF << 8 | 0x7 << 4 | 0x8) \
        & 0xFFFFFFFF
    assert run("cvt.pack.sat.u16.s32", a=(-5) & 0xFFFFFFFF, b=70000) == 0x0000_FFFF


def test_mixed_fma_packed_reads_b_as_its_syntax_type():
    text = (PTX / "9.7.5.3-mixed-precision-floating-point-instructionsfma.md").read_text()
    # premise: the Syntax gives b the .f32x2 type while the block reads b[0:15] (an erratum the model states)
    assert ".btype  = .ctype = .dtype = { .f32x2 };" in text and "convert(b[0:15])" in text
    lf = lane_form("fma.rn.f32x2.f16x2.f32x2.f32x2")
    assert lf.inputs == {"a": 32, "b": 64, "c": 64} and "mixed-fma-packed-b" in lf.rules
    a = int(np.array([1.5, -2.0], dtype=np.float16).view(np.uint32)[0])
    b = int(np.array([0.1, 3.0], dtype=np.float32).view(np.uint64)[0])
    c = int(np.array([1.0, 2.0 ** -30], dtype=np.float32).view(np.uint64)[0])
    d = run_lanes(lf, {k: np.array([v], dtype=np.uint64) for k, v in (("a", a), ("b", b), ("c", c))})
    got = np.array([int(d[0])], dtype=np.uint64).view(np.float32)
    for i, (x, y, z) in enumerate(((1.5, np.float32(0.1), 1.0), (-2.0, np.float32(3.0), np.float32(2.0 ** -30)))):
        exact = Fraction(x) * Fraction(float(y)) + Fraction(float(z))  # one rounding of the exact value (.rn)
        assert got[i] == np.float32(float(exact))

"""Scaled and stochastic-rounding conversions (cdna4 V_CVT_SCALEF32_*, cdna5 V_CVT_SCALE_*), run from the
manuals' own pseudocode with the helpers lowp adds (f32_to_fp6_scale, fp8_to_f32_scale, *_sr_scale ...).

Expected values come from the manuals' statements: the E8M0 scale is an exponent bias of 127
(cdna4/README.md:1465, :2035), FP4/FP6 saturate to their max (:2038; max codes in Table 30,
:1985-1987), stochastic rounding adds a random value and truncates (:2019).
"""

from __future__ import annotations

import numpy as np
import pytest

from gpuisa.semantics import lowp
from gpuisa.semantics.run import evaluate_wave, machine_for
from gpuisa.semantics.source import amd_semantics
from tests.conftest import TEXTS, manual_line


def _run(name: str, arch: str, **inputs) -> dict:
    sem = amd_semantics(name, arch, TEXTS)
    return evaluate_wave(sem.text, {k: np.asarray([v]) if not isinstance(v, np.ndarray) else v
                                    for k, v in inputs.items()}, sem.style, machine=machine_for(arch), name=sem.name)


def _f32(x: float) -> int:
    return int(np.float32(x).view(np.uint32))


def test_premises() -> None:
    assert "E8M0, bias of 127" in manual_line("cdna4", 1465)
    assert "The scale is an E8M0 exponent with a bias of 127" in manual_line("cdna4", 2035)
    assert "clamped/saturated to the maximum FP4/FP6 magnitude" in manual_line("cdna4", 2038)
    assert "add a random value from the specified VGPR and then truncate" in manual_line("cdna4", 2019)
    assert "S.11.111" in manual_line("cdna4", 1985) and "S.11.1 " in manual_line("cdna4", 1987)
    assert set(lowp.RULES) >= {"scale-is-exponent-bias", "f6-f4-saturate", "f6-f4-nan", "sr-random-bits"}


@pytest.mark.parametrize(("scale", "want"), [(2.0, 2.0), (1.0, 1.0), (0.25, 0.25), (1024.0, 1024.0)])
def test_fp8_to_f32_multiplies_by_the_scale_exponent(scale: float, want: float) -> None:
    # OCP E4M3 0x38 = exponent 7 - bias 7, mantissa 0 = 1.0 (cdna4 Table 30, bias 7: README.md:1983)
    out = _run("V_CVT_SCALEF32_F32_FP8", "cdna4", S0=0x38, S1=_f32(scale), OPSEL=0)
    assert out["D0"][0] == np.uint32(np.float32(want).view(np.uint32))


def test_f32_to_fp8_divides_by_the_scale_exponent() -> None:
    # 8.0 with scale 2^3 (exponent of 8.0f) is 1.0 -> 0x38 in the low byte; -16.0 / 2^3 = -2.0 in the next
    # VGPR[laneId][VDST.u32] is this lane's destination register, D0
    out = _run("V_CVT_SCALEF32_PK_FP8_F32", "cdna4", S0=_f32(8.0), S1=_f32(-16.0), S2=_f32(8.0), OPSEL=0,
               D0=0xAAAA0000)
    word = int(out["D0"][0])
    assert word & 0xFF == 0x38                    # 1.0
    assert (word >> 8) & 0xFF == 0xC0             # -2.0: sign 1, exponent 8 (bias 7), mantissa 0
    assert word >> 16 == 0xAAAA                   # "Other destination bits are preserved"


def test_fp4_and_fp6_saturate_to_max() -> None:
    out = _run("V_CVT_SCALEF32_PK_FP4_F32", "cdna4", S0=_f32(100.0), S1=_f32(-1e30), S2=_f32(1.0), OPSEL=0, D0=0)
    assert int(out["D0"][0]) & 0xFF == 0xF7          # {tmp1, tmp0}: -max (S.11.1 = 0xF), +max (0x7)
    fp6 = lowp.FORMATS["fp6"]
    assert lowp.decode(lowp.encode(np.array([1e6, -1e6]), fp6, saturate=True), fp6).tolist() == [7.5, -7.5]


def test_stochastic_rounding_truncates_after_adding_the_random_bits() -> None:
    x = 1.0 + 2.0 ** -5            # between E4M3's 1.0 (0x38) and 1.125 (0x39)
    low = _run("V_CVT_SCALEF32_SR_FP8_F32", "cdna4", S0=_f32(x), S1=0, S2=_f32(1.0), OPSEL=0, D0=0)
    high = _run("V_CVT_SCALEF32_SR_FP8_F32", "cdna4", S0=_f32(x), S1=0xFFFFFFFF, S2=_f32(1.0), OPSEL=0, D0=0)
    assert int(low["D0"][0]) == 0x38 and int(high["D0"][0]) == 0x39


def test_stochastic_rounding_is_unbiased_on_average() -> None:
    """Adding a uniform random fraction of an ulp then truncating rounds up with probability = the fraction."""
    rng = np.random.default_rng(1)
    n = 4096
    x = np.full(n, 1.0 + 2.0 ** -5)          # 1/4 of the way from 1.0 to 1.125
    y = lowp.stochastic(x, rng.integers(0, 1 << 32, n, dtype=np.uint64), 23, lowp.FORMATS["fp8_ocp"].dtype, 448.0)
    assert set(np.unique(y)) == {1.0, 1.125}
    assert abs(y.mean() - x[0]) < 0.004


# FP6 / BF6 / FP4 from the manual's Table 30 (cdna4/README.md:1985-1987): exponent and mantissa bits, bias,
# no Inf or NaN codes.
F6F4 = {"fp6": (2, 3, 1, 1985), "bf6": (3, 2, 3, 1986), "fp4": (2, 1, 1, 1987)}
ALL_F16 = np.arange(1 << 16, dtype=np.uint16).view(np.float16).astype(np.float32)


def _value(code: int, ebits: int, mbits: int, bias: int) -> float:
    e, f = code >> mbits, code & ((1 << mbits) - 1)
    if e == 0:
        return f / (1 << mbits) * 2.0 ** (1 - bias)
    return (1 + f / (1 << mbits)) * 2.0 ** (e - bias)


@pytest.mark.parametrize("name", list(F6F4))
def test_f6_f4_encode_agrees_with_the_manual_table_on_all_f16_inputs(name: str) -> None:
    """Round to nearest even on the table's values, saturating to +-max (rule f6-f4-saturate); NaN -> -0
    (rule f6-f4-nan)."""
    ebits, mbits, bias, line = F6F4[name]
    row = manual_line("cdna4", line)
    assert f"E{ebits}M{mbits}" in row and f"| {bias} " in row and "N/A" in row
    fmt = lowp.FORMATS[name]
    n = 1 << (fmt.bits - 1)
    values = np.array([_value(c, ebits, mbits, bias) for c in range(n)])
    x = ALL_F16[~np.isnan(ALL_F16)]
    a = np.minimum(np.abs(x.astype(np.float64)), values[-1])
    i = np.clip(np.searchsorted(values, a), 1, n - 1)
    lo, hi = values[i - 1], values[i]
    pick_hi = (a - lo > hi - a) | ((a - lo == hi - a) & (i % 2 == 0))
    want = np.where(pick_hi, i, i - 1) | np.where(np.signbit(x), n, 0)
    got = lowp.encode(x, fmt, saturate=True)
    assert (got == want.astype(np.uint64)).all()
    assert (lowp.encode(ALL_F16, fmt) == lowp.encode(ALL_F16, fmt, saturate=True)).all()   # ml_dtypes saturates
    assert int(lowp.encode(np.array([np.nan]), fmt)[0]) == n                                  # NaN -> -0

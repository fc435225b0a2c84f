"""FP8/BF8 conversions: the formats each manual defines, checked against ml_dtypes and a reference
encoder written only from the manuals' format tables, on all 2^16 float16 inputs, per saturation mode.

Counts for the report: tests print them with -s.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from gpuisa.semantics import lowp
from gpuisa.semantics.run import evaluate_wave, machine_for
from tests.conftest import TEXTS, manual_line


@dataclass(frozen=True)
class ManualFormat:
    """A format as a manual's table gives it: field widths, bias, max, which codes are Inf/NaN."""

    ebits: int
    mbits: int
    bias: int
    max: float
    fnuz: bool          # one NaN at 0x80, no -0, no Inf
    has_inf: bool       # OCP E5M2: exponent all ones, mantissa 0

    def value(self, code: int) -> float | None:
        """The value of a positive code (< 0x80), None for Inf/NaN codes."""
        e, f = code >> self.mbits, code & ((1 << self.mbits) - 1)
        if not self.fnuz:
            top = (1 << self.ebits) - 1
            if self.has_inf and e == top:
                return None
            if not self.has_inf and e == top and f == (1 << self.mbits) - 1:
                return None
        if e == 0:
            return f / (1 << self.mbits) * 2.0 ** (1 - self.bias)
        return (1 + f / (1 << self.mbits)) * 2.0 ** (e - self.bias)


# From the manuals' tables (premises checked in test_manual_tables_state_the_formats).
MANUAL_FORMATS = {
    "fp8_fnuz": ManualFormat(4, 3, 8, 240.0, True, False),      # cdna3/README.md:1828
    "bf8_fnuz": ManualFormat(5, 2, 16, 57344.0, True, False),   # cdna3/README.md:1829
    "fp8_ocp": ManualFormat(4, 3, 7, 448.0, False, False),      # cdna4/README.md:1983
    "bf8_ocp": ManualFormat(5, 2, 15, 57344.0, False, True),    # cdna4/README.md:1984
}


def test_manual_tables_state_the_formats() -> None:
    cdna3_fp8, cdna3_bf8 = manual_line("cdna3", 1828), manual_line("cdna3", 1829)
    assert "E4M3" in cdna3_fp8 and "| 8 " in cdna3_fp8 and "0x80" in cdna3_fp8 and "240" in cdna3_fp8
    assert "E5M2" in cdna3_bf8 and "| 16 " in cdna3_bf8 and "57344" in cdna3_bf8
    cdna4_fp8, cdna4_bf8 = manual_line("cdna4", 1983), manual_line("cdna4", 1984)
    assert "E4M3" in cdna4_fp8 and "| 7 " in cdna4_fp8 and "0x7F" in cdna4_fp8 and "448" in cdna4_fp8
    assert "E5M2" in cdna4_bf8 and "| 15 " in cdna4_bf8 and "0x7C" in cdna4_bf8
    assert "ExpBias = 7" in manual_line("rdna4", 2769) and "ExpBias = 15" in manual_line("rdna4", 2770)
    assert "| 7 " in manual_line("cdna5", 2861) and "| 15 " in manual_line("cdna5", 2864)
    assert {a: f for a, (f, _) in lowp.FP8_FLAVOUR.items()} == {"cdna3": "fnuz", "cdna4": "ocp", "rdna4": "ocp",
                                                               "cdna5": "ocp"}
    # the FP16_OVFL table: FP8 overflow is NaN, BF8 overflow is Inf; with the flag set both saturate
    assert "±max_E4M3" in manual_line("cdna3", 1879) and "NaN" in manual_line("cdna3", 1879)


@pytest.mark.parametrize("name", list(MANUAL_FORMATS))
def test_ml_dtypes_decodes_every_code_as_the_manual_table(name: str) -> None:
    mf, fmt = MANUAL_FORMATS[name], lowp.FORMATS[name]
    got = lowp.decode(np.arange(256), fmt)
    for code in range(256):
        v = mf.value(code & 0x7F)
        if mf.fnuz and code == 0x80:
            assert np.isnan(got[code])
        elif v is None:
            assert not np.isfinite(got[code]), hex(code)
        else:
            assert got[code] == (-v if code & 0x80 else v), hex(code)
    assert fmt.max == mf.max


def reference_encode(x: np.ndarray, mf: ManualFormat, *, saturate: bool, overflow_after_rounding: bool) -> np.ndarray:
    """Round to nearest even from the manual's table alone; overflow per the FP16_OVFL table."""
    codes = [c for c in range(0x80) if mf.value(c) is not None]
    values = np.array([mf.value(c) for c in codes])
    # with an unbounded exponent the next value above max has the next code (its parity breaks the tie)
    ulp = values[-1] - values[-2]
    values = np.append(values, values[-1] + ulp)
    codes.append(codes[-1] + 1)
    codes_a = np.array(codes)
    with np.errstate(invalid="ignore"):
        a = np.abs(x.astype(np.float64))
    i = np.clip(np.searchsorted(values, a), 1, len(values) - 1)
    lo, hi = values[i - 1], values[i]
    pick_hi = (a - lo > hi - a) | ((a - lo == hi - a) & (codes_a[i] % 2 == 0))
    idx = np.where(pick_hi, i, i - 1)
    code = codes_a[idx]
    over = (idx == len(values) - 1) if overflow_after_rounding else (a > mf.max)
    over |= np.isinf(a)
    neg = np.signbit(x)
    max_code = codes[-2]
    over_code = max_code if saturate else (0x7C if mf.has_inf else 0x7F)   # OCP: Inf (E5M2) or NaN (E4M3)
    code = np.where(over, over_code, code)
    out = np.where(neg, code | 0x80, code)
    if mf.fnuz:
        out = np.where(out == 0x80, 0, out)                   # no -0: -0 and tiny negatives are +0
        if not saturate:
            out = np.where(over, 0x80, out)                   # overflow is the one NaN/Inf code
    nan_code = 0x80 if mf.fnuz else 0x7F
    out = np.where(np.isnan(x), np.where(neg & (not mf.fnuz), nan_code | 0x80, nan_code), out)
    return out.astype(np.uint64)


ALL_F16 = np.arange(1 << 16, dtype=np.uint16).view(np.float16).astype(np.float32)


def _same(a: np.ndarray, b: np.ndarray, fmt: lowp.Format) -> np.ndarray:
    """Equal codes, or both NaN (OCP E5M2 has several NaN codes: 0x7D-0x7F, cdna4/README.md:1984)."""
    return (a == b) | (np.isnan(lowp.decode(a, fmt)) & np.isnan(lowp.decode(b, fmt)))


@pytest.mark.parametrize("saturate", [False, True], ids=["fp16_ovfl0", "fp16_ovfl1"])
@pytest.mark.parametrize("name", list(MANUAL_FORMATS))
def test_fp8_encode_agrees_on_all_f16_inputs(name: str, saturate: bool) -> None:
    mf, fmt = MANUAL_FORMATS[name], lowp.FORMATS[name]
    ours = lowp.encode(ALL_F16, fmt, saturate=saturate)
    ref = reference_encode(ALL_F16, mf, saturate=saturate, overflow_after_rounding=True)
    bad = ~_same(ours, ref, fmt)
    assert not bad.any(), [(float(x), hex(int(o)), hex(int(r))) for x, o, r in
                           zip(ALL_F16[bad][:8], ours[bad][:8], ref[bad][:8], strict=True)]
    # ml_dtypes' own cast is lowp.encode without the saturation rule: equal wherever the rule does not fire
    plain = ALL_F16.astype(fmt.dtype).view(np.uint8).astype(np.uint64)
    fired = np.isinf(ALL_F16) | (np.abs(ALL_F16) > fmt.max)
    diff = ~_same(plain, ours, fmt)
    assert not (diff & ~fired).any()
    assert diff.any() == saturate
    # the literal reading of 'Greater than max FP8 magnitude' (before rounding) differs only just above max
    literal = reference_encode(ALL_F16, mf, saturate=saturate, overflow_after_rounding=False)
    band = ~_same(literal, ref, fmt)
    a = np.abs(ALL_F16[band])
    finite = sorted(v for c in range(0x80) if (v := mf.value(c)) is not None)
    assert ((a > mf.max) & (a <= mf.max + (finite[-1] - finite[-2]) / 2)).all()
    print(f"{name} saturate={saturate}: 65536 f16 inputs, ml_dtypes+rules == manual reference on all; "
          f"rule fired on {int((diff).sum())}; literal 'before rounding' reading differs on {int(band.sum())}")


PK = {"cdna3": ("fp8_fnuz", "bf8_fnuz"), "cdna4": ("fp8_ocp", "bf8_ocp")}


@pytest.mark.parametrize("arch", list(PK))
@pytest.mark.parametrize("kind", ["fp8", "bf8"])
def test_manual_pseudocode_converts_all_f16_inputs(arch: str, kind: str) -> None:
    """V_CVT_PK_{FP8,BF8}_F32 as the manual writes it, on 65536 lanes: bytes as the reference, packed in order."""
    from gpuisa.semantics.source import amd_semantics

    sem = amd_semantics(f"v_cvt_pk_{kind}_f32", arch, TEXTS)
    assert f"f32_to_{kind}(S1.f32), f32_to_{kind}(S0.f32)" in sem.text
    name = PK[arch][0 if kind == "fp8" else 1]
    s1 = ALL_F16[::-1].copy()
    out = evaluate_wave(sem.text, {"S0": ALL_F16, "S1": s1, "OPSEL": 0}, sem.style, machine=machine_for(arch),
                        where=sem.cite)
    d0 = np.asarray(out["D0"]).astype(np.uint64)
    mf, fmt = MANUAL_FORMATS[name], lowp.FORMATS[name]
    want_lo = reference_encode(ALL_F16, mf, saturate=False, overflow_after_rounding=True)
    want_hi = reference_encode(s1, mf, saturate=False, overflow_after_rounding=True)
    assert _same(d0 & np.uint64(0xFF), want_lo, fmt).all()
    assert _same((d0 >> np.uint64(8)) & np.uint64(0xFF), want_hi, fmt).all()


def test_fp8_decode_through_pseudocode_selects_the_byte() -> None:
    """V_CVT_F32_FP8 with SDWA_SRC0_SEL = BYTE1 reads S0[15:8] (cdna3/README.md:7678-7679)."""
    from gpuisa.semantics.api import eval_amd

    assert "BYTE1" in manual_line("cdna3", 7678) and "S0[15 : 8]" in manual_line("cdna3", 7679)
    # 0x38: exponent 7, mantissa 0 -> 2^(7-8) = 0.5 with FNUZ bias 8 (cdna3), 2^(7-7) = 1 with OCP bias 7 (cdna4)
    assert eval_amd("v_cvt_f32_fp8", "cdna3", {"S0": 0x3800, "SDWA_SRC0_SEL": 1}, TEXTS)["outputs"]["D0"] == 0.5
    assert eval_amd("v_cvt_f32_fp8", "cdna4", {"S0": 0x3800, "SDWA_SRC0_SEL": 1}, TEXTS)["outputs"]["D0"] == 1.0
    assert eval_amd("v_cvt_f32_fp8", "cdna4", {"S0": 0x3800}, TEXTS)["outputs"]["D0"] == 0.0   # BYTE0 implied


def test_truncate_rounds_toward_zero() -> None:
    """Rule sr-truncates: between two FP8 values the result is the one nearer zero, never beyond max."""
    fmt = lowp.FORMATS["fp8_ocp"]
    x = np.array([1.0, 1.124, 1.126, -1.2, 500.0, -1e9, 0.0], dtype=np.float32)
    got = lowp.decode(lowp.encode(x, fmt, truncate=True), fmt)
    assert list(got) == [1.0, 1.0, 1.125, -1.125, 448.0, -448.0, 0.0]

"""PTX .approx forms as the set of results the manual allows: the exact value within the stated error bound.

An .approx result is implementation-defined; the manual bounds it ("The maximum ulp error is 1 across the full
range of inputs", "maximum relative error ... is 2^-23", "maximum absolute error over input range ..."). So the
form is modelled as the exact value (float64 numpy, far more accurate than the bounds) plus APPROX_BOUNDS, and a
candidate stands for the form when every tested result lies within the bound: an AMD instruction whose results
always do is one admissible implementation. Inputs outside the bound's stated range are not compared (the manual
guarantees nothing there: "only best effort is provided"); special inputs (zeros, infinities, NaN) follow each
page's Input | Result table, which the float64 functions reproduce and which are compared exactly.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from gpuisa.semantics.ptx_cvt import decode

FP = "ptx-isa-9.4/9-instruction-set/"
NOT_COMPARED = np.uint64(0x7FF0DEAD0000DEAD)        # a reference lane outside the bound's range (a NaN payload)


@dataclass(frozen=True, slots=True)
class Bound:
    fn: Callable[..., np.ndarray]
    kind: str                    # ulp | rel | abs | lg2 (abs in (0.5, 2), rel elsewhere) | sincos (abs by range)
    value: float
    cite: str
    domain: str = ""             # where the bound holds ("" everywhere; "b-normal" for div; "positive" ...)


def _div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return a / b


APPROX_BOUNDS: dict[str, Bound] = {
    "rcp.f32": Bound(lambda a: 1.0 / a, "ulp", 1, f"{FP}9.7.3.13-floating-point-instructionsrcp.md:42"),
    "div.f32": Bound(_div, "ulp", 2, f"{FP}9.7.3.8-floating-point-instructionsdiv.md:43 (for |b| in [2^-126, "
                                      "2^126])", "b-normal"),
    "sqrt.f32": Bound(np.sqrt, "rel", 2.0 ** -23, f"{FP}9.7.3.15-floating-point-instructionssqrt.md:40 (positive "
                                                   "finite range)", "positive"),
    "rsqrt.f32": Bound(lambda a: 1.0 / np.sqrt(a), "rel", 2.0 ** -22.9,
                       f"{FP}9.7.3.16-floating-point-instructionsrsqrt.md:48 (positive finite range)", "positive"),
    "sin.f32": Bound(np.sin, "sincos", 2.0 ** -14.7, f"{FP}9.7.3.18-floating-point-instructionssin.md:46-52 "
                     "(2^-20.5 in [-2pi, 2pi], 2^-14.7 in [-100pi, 100pi], none outside)", "100pi"),
    "cos.f32": Bound(np.cos, "sincos", 2.0 ** -14.7, f"{FP}9.7.3.19-floating-point-instructionscos.md:46-52", "100pi"),
    "lg2.f32": Bound(np.log2, "lg2", 2.0 ** -22, f"{FP}9.7.3.20-floating-point-instructionslg2.md:47"),
    "ex2.f32": Bound(np.exp2, "ulp", 2, f"{FP}9.7.3.21-floating-point-instructionsex2.md:46"),
    "tanh.f32": Bound(np.tanh, "rel", 2.0 ** -11, f"{FP}9.7.3.22-floating-point-instructionstanh.md:50"),
    "ex2.f16": Bound(np.exp2, "rel", 2.0 ** -9.9, f"{FP}9.7.4.10-half-precision-floating-point-instructionsex2.md:79"),
    "ex2.bf16": Bound(np.exp2, "rel", 2.0 ** -7, f"{FP}9.7.4.10-half-precision-floating-point-instructionsex2.md:79"),
    "tanh.f16": Bound(np.tanh, "abs", 2.0 ** -10.987,
                      f"{FP}9.7.4.9-half-precision-floating-point-instructionstanh.md:63"),
    "tanh.bf16": Bound(np.tanh, "abs", 2.0 ** -8, f"{FP}9.7.4.9-half-precision-floating-point-instructionstanh.md:63"),
}
_TYPE = re.compile(r"\.(f16x2|bf16x2|f16|bf16|f32|f64)$")
_BITS = {"f16": 16, "bf16": 16, "f32": 32}
# (the f64 and packed .x2 .approx forms are not in APPROX_BOUNDS: not modelled)
_TINY = {"f16": 2.0 ** -14, "bf16": 2.0 ** -126, "f32": 2.0 ** -126}


@dataclass(frozen=True, slots=True)
class ApproxForm:
    form: str
    bound: Bound
    elem: str                    # f16 | bf16 | f32
    count: int                   # elements per register
    inputs: dict[str, int]
    width: int                   # d's bits
    ftz: bool

    @property
    def restriction(self) -> str:
        what = {"ulp": f"{self.bound.value:g} ulp", "rel": f"relative error {self.bound.value:.3g}",
                "abs": f"absolute error {self.bound.value:.3g}", "lg2": "the stated lg2 error",
                "sincos": "the stated absolute error"}[self.bound.kind]
        return (f"approximate: PTX allows any result within {what} of the exact value ({self.bound.cite}); this AMD "
                "instruction's results were within it on every tested input (inputs outside the bound's range not "
                "compared)")


def approx_form(form: str) -> ApproxForm | None:
    if ".approx" not in form:
        return None
    head = form.split(".")[0]
    m = _TYPE.search(form)
    if m is None:
        return None
    elem = m.group(1)
    count = 1                   # packed .x2 approx forms are left out (not modelled)
    bound = APPROX_BOUNDS.get(f"{head}.{elem}")
    if bound is None:
        return None
    names = ["a", "b"] if head == "div" else ["a"]
    w = _BITS[elem] * count
    return ApproxForm(form, bound, elem, count, dict.fromkeys(names, w), w, ".ftz" in form)


def _value(bits: np.ndarray, e: str) -> np.ndarray:
    if e == "f32":
        with np.errstate(invalid="ignore"):             # a signalling NaN widens quietly
            return np.asarray(bits, dtype=np.uint64).astype(np.uint32).view(np.float32).astype(np.float64)
    return decode(bits, e)


def _flush(x: np.ndarray, e: str) -> np.ndarray:
    return np.where(np.abs(x) < _TINY[e], np.copysign(0.0, x), x)


def _dtype(e: str) -> object:
    import ml_dtypes

    return {"f32": np.float32, "f16": np.float16, "bf16": ml_dtypes.bfloat16}[e]


def run_approx(af: ApproxForm, inputs: dict[str, np.ndarray]) -> np.ndarray:
    """The float64 bits of the exact result (NOT_COMPARED outside the bound's range): the reference approx_differ
    compares a candidate's result with."""
    vals = []
    for name in af.inputs:
        v = _value(np.asarray(inputs[name], dtype=np.uint64), af.elem)
        vals.append(_flush(v, af.elem) if af.ftz else v)
    with np.errstate(all="ignore"):
        ref = np.asarray(af.bound.fn(*vals), dtype=np.float64)
    x = vals[-1]
    outside = np.zeros(len(ref), dtype=bool)
    if af.bound.domain == "b-normal":
        outside = ~((np.abs(x) >= 2.0 ** -126) & (np.abs(x) <= 2.0 ** 126)) & np.isfinite(x) & (x != 0)
    elif af.bound.domain == "100pi":
        outside = np.isfinite(x) & (np.abs(x) > 100 * np.pi)
    return np.where(outside, NOT_COMPARED, ref.view(np.uint64))


def approx_differ(af: ApproxForm, want: np.ndarray, got: np.ndarray) -> np.ndarray:
    """Lanes where the candidate's result is outside the allowed set: a special value (zero, infinity, NaN) that is
    not the table's (the exact value rounded to the destination), or a finite result farther from the exact value
    than the bound."""
    ref_bits = np.asarray(want, dtype=np.uint64)
    skip = ref_bits == NOT_COMPARED
    r = ref_bits.view(np.float64)
    g_bits = np.asarray(got, dtype=np.uint64)
    g = _value(g_bits, af.elem)
    with np.errstate(all="ignore"):
        rd = r.astype(_dtype(af.elem)).astype(np.float64)   # the exact value in the destination format
        if af.ftz:
            r, rd, g = _flush(r, af.elem), _flush(rd, af.elem), _flush(g, af.elem)
        g_nan = np.isnan(g)
        special = np.isnan(rd) | np.isinf(rd) | (r == 0) | np.isinf(g) | g_nan
        same_special = (np.isnan(rd) & g_nan) | ((rd == g) & (np.signbit(rd) == np.signbit(g)))
        err = np.abs(g - r)
        b = af.bound
        if b.kind == "ulp":
            mag = np.abs(rd).astype(_dtype(af.elem))            # the ulp at the exact value (the lower binade's
            ulp = np.minimum(np.spacing(mag), np.spacing(np.nextafter(mag, mag.dtype.type(0)))).astype(np.float64)
            ok = err <= b.value * ulp
        elif b.kind == "rel":
            ok = err <= b.value * np.abs(r)
        elif b.kind == "abs":
            ok = err <= b.value
        elif b.kind == "lg2":
            ok = np.where(np.abs(r) < 1.0, err <= b.value, err <= b.value * np.abs(r))   # lg2 of (0.5, 2)
        else:
            ok = err <= b.value                      # sin/cos: 2^-14.7 within [-100pi, 100pi]
        ok |= g == rd                                    # the correctly rounded value is always admissible
    return ~skip & np.where(special, ~same_special, ~ok)

"""Element-wise float arithmetic the Semantics blocks cannot run as written: .bf16, .f32x2, the mixed-precision
forms, and min/max with .NaN / .abs / .xorsign.

The blocks say what each element computes (`d = a + b;`; 9.7.5.1 mixed add `d = convert(a) + c;`; 9.7.3.11 min's
`min_num` / `min_nan`, `.abs` and `setSignBit(d, xorsign)`), but the evaluator has no bf16 or 64-bit packed type,
and the mixed blocks branch on comments and compare with `=`. This model runs each element as the block says, on
numpy lanes of raw bits: the exact value in float64 (a sum or fma keeps its exact rounding error, a product of
two f32 is exact) rounded once to the destination format by the form's .rnd (ptx_cvt.encode for f16 and bf16),
then the prose clamps. LANE_RULES cites each rule. Floats are tested, never proved.

The mixed fma with packed operands follows its Syntax (b is .f32x2) where its block reads b[0:15] (LANE_RULES
mixed-fma-packed-b). Not modelled (the row says why): the mixed mul that converts f16 to bf16 (the rounding of that
convert is not stated), .oob.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass

import numpy as np

from gpuisa.semantics.ptx_cvt import NotModelled, decode, encode, is_nan

FP = "ptx-isa-9.4/9-instruction-set/"
LANE_RULES: dict[str, str] = {
    "elementwise": f"{FP}9.7.3.3-floating-point-instructionsadd.md:32 (.f32x2: 'Single precision (.f32) operands "
                   "are then added in parallel'); 9.7.4.1 add (.f16x2/.bf16x2 elements)",
    "rounding": f"{FP}9.7.3.3-floating-point-instructionsadd.md (.rn nearest even, .rz toward zero, .rm/.rp toward "
                "-inf/+inf); one rounding of the exact result (9.7.4.4 fma: 'no loss of precision in the intermediate product "
                "and addition')",
    "mixed-upconvert": f"{FP}9.7.5.1-mixed-precision-floating-point-instructionsadd.md Semantics (`d = convert(a) + "
                       "c;`, per element for .f32x2; convert of f16/bf16 to f32 is exact)",
    "mixed-downconvert": f"{FP}9.7.5.1 / 9.7.5.4 Semantics (`d[0:15] = convert(a[0:31] + c[0:31]); // Apply rz for "
                         "output`: read as the exact result rounded once toward zero)",
    "mixed-fma-packed-b": f"{FP}9.7.5.3-mixed-precision-floating-point-instructionsfma.md:21-29 (Syntax `fma{{.rnd}}"
                          ".dtype.atype.btype.ctype`, '.btype = .ctype = .dtype = { .f32x2 }') and Description ('Converts "
                          "input operands a, b and c to .cdtype/.dtype type'): b's elements are b[0:31] and b[32:63]; "
                          "the Semantics block's `convert(b[0:15])` / `convert(b[16:31])` read b as .atype, which "
                          "the Syntax does not give it (ERRATUM: the block loses to the Syntax and Description)",
    "ftz": f"{FP}9.7.3.3 Notes ('add.ftz.f32, add.ftz.f32x2 flushes subnormal inputs and results to sign-preserving "
           "zero')",
    "sat": f"{FP}9.7.3.3 ('.sat ... clamps the result to [0.0, 1.0]. NaN results are flushed to +0.0f')",
    "relu": f"{FP}9.7.4.4 fma ('.relu clamps the result to 0 if negative. NaN result is converted to canonical NaN')",
    "min-max": f"{FP}9.7.3.11-floating-point-instructionsmin.md Semantics (min_num: a NaN operand gives the other; "
               "min_nan with .NaN: any NaN gives canonical NaN; -0.0 < +0.0; .abs on the inputs; .xorsign sets the "
               "sign to the XOR of the inputs' signs unless d is NaN); 9.7.3.12 max likewise",
    "neg-abs": f"{FP}9.7.4.5 neg / 9.7.4.6 abs (sign bit flipped / cleared; NaN inputs keep their payload)",
    "copysign": f"{FP}9.7.3.2-floating-point-instructionscopysign.md (no Semantics block; Description: 'Copy sign "
                "bit of a into value of b, and return the result as d')",
    "testp": f"{FP}9.7.3.1-floating-point-instructionstestp.md:31-55 (the manual has no Semantics block; each .op's "
             "'True if ...' line, 'positive and negative zero are considered normal numbers')",
    "f64-directed": f"{FP}9.7.3.3 add / 9.7.3.5 mul ('.rz mantissa LSB rounds towards zero', .rm / .rp): the exact "
                    "sum (TwoSum) or product (its exact remainder, by integers where float64 cannot hold it) rounded "
                    "once in the form's direction",
    "f64-exact": f"{FP}9.7.3.6-floating-point-instructionsfma.md:58 ('fma.f64 computes the product of a and b to "
                 "infinite precision and then adds c to this product, again in infinite precision. The resulting value "
                 "is then rounded to double precision using the rounding mode specified by .rnd'); 9.7.3.7 mad:44 "
                 "(the same for mad.f64); 9.7.3.8 div:24, 9.7.3.13 rcp:23, 9.7.3.15 sqrt:23 ('IEEE 754 compliant "
                 "rounding'): the exact quotient, reciprocal or square root rounded once in the form's direction; "
                 "zeros, infinities and NaN as IEEE 754 (an exact zero sum is -0 only under .rm, 6.3)",
}

_TYPE = re.compile(r"\.(f16x2|bf16x2|f32x2|f16|bf16|f32|f64)\b")
_OPS = ("add", "sub", "mul", "fma", "min", "max", "neg", "abs", "testp", "copysign", "mad", "div", "rcp", "sqrt")
_EXACT_OPS = ("fma", "mad", "div", "rcp", "sqrt")       # f64 with .rz/.rm/.rp: rounded from the exact value
TESTP: dict[str, str] = {      # testp .op -> which inputs are True (9.7.3.1, the 'True if' lines)
    "finite": "not infinite or NaN", "infinite": "positive or negative infinity", "number": "not NaN",
    "notanumber": "NaN", "normal": "a normal number (not NaN, not infinity); zeros are normal",
    "subnormal": "a subnormal number (not NaN, not infinity)"}
_BITS = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}


@dataclass(frozen=True, slots=True)
class LaneForm:
    form: str
    op: str
    inputs: dict[str, int]            # operand -> register bits
    elems: dict[str, str]             # operand (and "d") -> element format
    count: int                        # elements per register
    width: int                        # d's bits
    rules: tuple[str, ...]


def lane_form(form: str) -> LaneForm | None:
    """The model's view of a form, None when the form is not one of its cases; NotModelled when it is but a rule
    is missing."""
    op = form.split(".")[0]
    if op not in _OPS:
        return None
    types = [m.group(1) for m in _TYPE.finditer(form)]
    mods = set(form.split(".")[1:])
    if op == "testp" and len(types) == 1 and types[0] in ("f32", "f64") and mods & set(TESTP):
        return LaneForm(form, op, {"a": _BITS[types[0]]}, {"a": types[0], "d": "pred"}, 1, 1, ("testp",))
    if op == "copysign" and len(types) == 1 and types[0] in ("f32", "f64"):
        return LaneForm(form, op, dict.fromkeys(("a", "b"), _BITS[types[0]]), dict.fromkeys(("a", "b", "d"), types[0]),
                        1, _BITS[types[0]], ("copysign",))
    directed_f64 = types == ["f64"] and op in ("add", "sub", "mul", *_EXACT_OPS) and bool(mods & {"rz", "rm", "rp"})
    if op in _EXACT_OPS[1:] and not directed_f64:
        return None
    if not types or op == "testp" or ("f64" in types and op not in ("min", "max") and not directed_f64):
        return None
    mixed = len(types) > 1
    special = mixed or any(t in ("bf16", "bf16x2", "f32x2") for t in types) or op in ("min", "max") or directed_f64
    if not special:
        return None
    if "oob" in mods:
        raise NotModelled(".oob: the out-of-bounds rule needs the operand's memory source, outside this model")
    rules = ["rounding"] if op in ("add", "sub", "mul", "fma") else []
    if op in ("min", "max"):
        rules.append("min-max")
    if op in ("neg", "abs"):
        rules.append("neg-abs")
    names = {"neg": ["a"], "abs": ["a"], "fma": ["a", "b", "c"], "mad": ["a", "b", "c"], "rcp": ["a"],
             "sqrt": ["a"]}.get(op, ["a", "b"])
    if not mixed:
        t = types[0]
        count = 2 if t.endswith("x2") else 1
        e = t[:-2] if count == 2 else t
        elems = dict.fromkeys(["d", *names], e)
        if count == 2:
            rules.append("elementwise")
    else:
        if op == "mul" and not all(t in ("f32x2",) for t in types[1:]):
            raise NotModelled("mixed mul converting between f16 and bf16: the rounding of that convert is not stated")
        d = types[0]
        count = 2 if d.endswith("x2") else 1
        names = ["a", "b", "c"] if op == "fma" else ["a", "c"]
        src = types[1]
        elem = {n: (src if n in ("a", "b") else types[-1]) for n in names}
        if op == "fma" and count == 2:      # fma.rnd.f32x2.{f16x2,bf16x2}.f32x2.f32x2: b is .btype, an .f32x2
            elem["b"] = types[2]
            rules.append("mixed-fma-packed-b")
        elems = {"d": d} | elem
        elems = {k: (v[:-2] if v.endswith("x2") else v) for k, v in elems.items()}
        rules.append("mixed-downconvert" if _BITS[elems["d"]] < 32 else "mixed-upconvert")
    if directed_f64:
        rules.append("f64-exact" if op in _EXACT_OPS else "f64-directed")
    if "ftz" in mods:
        rules.append("ftz")
    if "sat" in mods:
        rules.append("sat")
    if "relu" in mods:
        rules.append("relu")
    inputs = {n: _BITS[elems[n]] * count for n in names}
    return LaneForm(form, op, inputs, elems, count, _BITS[elems["d"]] * count, tuple(rules))


# ------------------------------------------------------------------ values
def _value(bits: np.ndarray, e: str) -> np.ndarray:
    if e == "f32":
        with np.errstate(invalid="ignore"):             # a signalling NaN widens quietly
            return bits.astype(np.uint32).view(np.float32).astype(np.float64)
    if e == "f64":
        return np.asarray(bits, dtype=np.uint64).view(np.float64)
    return decode(bits, e)


def _flush(x: np.ndarray, e: str) -> np.ndarray:
    tiny = {"f16": 2.0 ** -14, "bf16": 2.0 ** -126, "f32": 2.0 ** -126}[e]
    return np.where(np.abs(x) < tiny, np.copysign(0.0, x), x)


def _two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    with np.errstate(all="ignore"):
        s = a + b
        bb = s - a
        err = (a - (s - bb)) + (b - bb)
    return s, np.where(np.isfinite(s), err, 0.0)


def _round32(r: np.ndarray, err: np.ndarray, mode: str) -> np.ndarray:
    """f32 bits of the value r + err (float64 r, exact remainder err) rounded by mode."""
    with np.errstate(all="ignore"):
        y = r.astype(np.float32)
        y64 = y.astype(np.float64)
        if mode == ".rn":
            # r exactly halfway between two f32 values: the remainder decides (float64's tie rule would not)
            other = np.where(y64 > r, np.nextafter(y, np.float32(-np.inf)), np.nextafter(y, np.float32(np.inf)))
            mid = (y64 + other.astype(np.float64)) / 2
            tie = (r == mid) & (err != 0) & np.isfinite(r)
            toward_other = tie & ((other.astype(np.float64) > y64) == (err > 0))
            y = np.where(toward_other, other, y)
        else:
            above = np.where(y64 != r, y64 > r, err < 0)
            below = np.where(y64 != r, y64 < r, err > 0)
            neg = np.where(r != 0, r < 0, err < 0)
            if mode == ".rm":
                y = np.where(above, np.nextafter(y, np.float32(-np.inf)), y)
            elif mode == ".rp":
                y = np.where(below, np.nextafter(y, np.float32(np.inf)), y)
            else:
                away = np.where(neg, below, above)
                y = np.where(away & ~np.isnan(y), np.nextafter(y, np.float32(0)), y)
    return y.view(np.uint32).astype(np.uint64)


def _encode(r: np.ndarray, err: np.ndarray, e: str, mode: str) -> np.ndarray:
    if e == "f64":
        from gpuisa.semantics.ptx_builtins import _round_to  # the f64 directed rounding the evaluator uses

        return (_round_to(r, err, 64, mode) if mode != ".rn" else r).astype(np.float64).view(np.uint64)
    return _round32(r, err, mode) if e == "f32" else encode(r, err, e, mode)


_NAN = {"f16": 0x7E00, "bf16": 0x7FC0, "f32": 0x7FC00000, "f64": 0x7FF8000000000000}
_SIGN = {"f16": 0x8000, "bf16": 0x8000, "f32": 0x80000000, "f64": 1 << 63}


def _nan_of(bits: np.ndarray, e: str) -> np.ndarray:
    if e in ("f32", "f64"):
        return np.isnan(_value(np.asarray(bits, dtype=np.uint64), e))
    return is_nan(bits, e)


def run_lanes(lf: LaneForm, inputs: dict[str, np.ndarray]) -> np.ndarray:
    """d's bits for every lane, element by element (LANE_RULES)."""
    mods = set(lf.form.split(".")[1:])
    mode = next((f".{m}" for m in ("rn", "rz", "rm", "rp") if m in mods), ".rn")
    if "mixed-downconvert" in lf.rules:
        mode = ".rz"
    de = lf.elems["d"]
    if de == "pred":
        return _testp(lf, np.asarray(inputs["a"], dtype=np.uint64))
    dw = _BITS[de]
    n = len(next(iter(inputs.values())))
    out = np.zeros(n, dtype=np.uint64)
    for i in range(lf.count):
        raw, val = {}, {}
        for name, v in inputs.items():
            w = _BITS[lf.elems[name]]
            raw[name] = (np.asarray(v, dtype=np.uint64) >> np.uint64(w * i)) & np.uint64((1 << w) - 1)
            val[name] = _value(raw[name], lf.elems[name])
            if "ftz" in mods:
                val[name] = _flush(val[name], lf.elems[name])
        code = _element(lf, mods, mode, raw, val, de)
        if "ftz" in mods:
            flushed = np.abs(_value(code, de)) < {"f16": 2.0 ** -14, "bf16": 2.0 ** -126, "f32": 2.0 ** -126}[de]
            code = np.where(flushed & ~_nan_of(code, de), code & np.uint64(_SIGN[de]), code)
        if "relu" in mods:
            v = _value(code, de)
            code = np.where(np.isnan(v), np.uint64(_NAN[de]), np.where(v < 0, np.uint64(0), code))
        out |= code << np.uint64(dw * i)
    return out


def _testp(lf: LaneForm, bits: np.ndarray) -> np.ndarray:
    x = _value(bits, lf.elems["a"])
    tiny = 2.0 ** -126 if lf.elems["a"] == "f32" else 2.0 ** -1022
    op = next(m for m in lf.form.split(".")[1:] if m in TESTP)
    finite = np.isfinite(x)
    truth = {"finite": finite, "infinite": np.isinf(x), "number": ~np.isnan(x), "notanumber": np.isnan(x),
             "normal": finite & ((np.abs(x) >= tiny) | (x == 0)), "subnormal": finite & (np.abs(x) < tiny) & (x != 0)}
    return truth[op].astype(np.uint64)


def _product_error(a: np.ndarray, b: np.ndarray, r: np.ndarray) -> np.ndarray:
    """a * b - r, exactly enough for its sign: Dekker's split where the product is safely normal, Python's exact
    fractions elsewhere (near underflow or overflow)."""
    from fractions import Fraction

    with np.errstate(all="ignore"):
        split = 134217729.0                                    # 2^27 + 1
        def parts(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            c = split * x
            hi = c - (c - x)
            return hi, x - hi
        ah, al = parts(a)
        bh, bl = parts(b)
        err = ((ah * bh - r) + ah * bl + al * bh) + al * bl
    safe = np.isfinite(r) & (np.abs(r) > 2.0 ** -960) & (np.abs(r) < 2.0 ** 960) & np.isfinite(err)
    for i in np.nonzero(~safe & np.isfinite(a) & np.isfinite(b) & np.isfinite(r))[0]:
        exact = Fraction(float(a[i])) * Fraction(float(b[i])) - Fraction(float(r[i]))
        err[i] = 0.0 if exact == 0 else np.copysign(2.0 ** -1074, float(exact))
    return np.where(np.isfinite(r), err, 0.0)


def _element(lf: LaneForm, mods: set[str], mode: str, raw: dict[str, np.ndarray], val: dict[str, np.ndarray],
             de: str) -> np.ndarray:
    sign = np.uint64(_SIGN[de])
    if lf.op == "copysign":
        return (raw["a"] & sign) | (raw["b"] & ~sign)
    if lf.op in ("neg", "abs"):
        a = raw["a"]
        if "ftz" in mods:
            a = np.where((val["a"] == 0) & ~np.isnan(val["a"]), np.where(np.signbit(val["a"]), sign, 0), a)
            a = a.astype(np.uint64)
        return a ^ sign if lf.op == "neg" else a & ~sign
    if lf.op in ("min", "max"):
        return _min_max(lf, mods, raw, val, de)
    if "f64-exact" in lf.rules:
        return _exact_f64(lf.op, val, mode)
    a = val["a"]
    with np.errstate(all="ignore"):
        if lf.op in ("add", "sub"):
            other = val["c"] if "c" in val else val["b"]
            r, err = _two_sum(a, -other if lf.op == "sub" else other)
            zero_sign = (r == 0) & (err == 0) & ~(np.signbit(a) & np.signbit(-other if lf.op == "sub" else other))
        elif lf.op == "mul":
            b = val["c"] if "c" in val else val["b"]
            r = a * b
            err = _product_error(a, b, r) if de == "f64" else np.zeros_like(a)
            zero_sign = np.zeros_like(a, dtype=bool)
        else:
            p = a * val["b"]
            r, err = _two_sum(p, val["c"])
            zero_sign = (r == 0) & (err == 0) & ~(np.signbit(p) & np.signbit(val["c"]))
    if mode == ".rm":
        r = np.where(zero_sign, -0.0, r)          # IEEE 754 6.3: an exact zero sum is -0 when rounding down
    if "sat" in mods:
        r, err = np.where(np.isnan(r), 0.0, np.clip(r, 0.0, 1.0)), np.where((r < 0) | (r > 1) | np.isnan(r), 0.0, err)
    code = _encode(r, err, de, mode)
    if "sat" in mods:
        v = _value(code, de)
        code = np.where(v > 1, _encode(np.ones_like(v), np.zeros_like(v), de, ".rn"), code)
    return code


def _min_max(lf: LaneForm, mods: set[str], raw: dict[str, np.ndarray], val: dict[str, np.ndarray],
             de: str) -> np.ndarray:
    """9.7.3.11 min / 9.7.3.12 max Semantics, two inputs: min_num or min_nan, -0.0 < +0.0, .abs, .xorsign."""
    sign = np.uint64(_SIGN[de])
    a_bits, b_bits = raw["a"], raw["b"]
    xorsign = (a_bits & sign) ^ (b_bits & sign)
    if "abs" in mods:
        a_bits, b_bits = a_bits & ~sign, b_bits & ~sign
    a, b = _value(a_bits, de), _value(b_bits, de)
    if "ftz" in mods:
        a_bits = np.where((np.abs(a) < 2.0 ** -126 if de != "f16" else np.abs(a) < 2.0 ** -14) & ~np.isnan(a),
                          a_bits & sign, a_bits)
        b_bits = np.where((np.abs(b) < 2.0 ** -126 if de != "f16" else np.abs(b) < 2.0 ** -14) & ~np.isnan(b),
                          b_bits & sign, b_bits)
        a, b = _value(a_bits, de), _value(b_bits, de)
    # -0.0 < +0.0: order by value, then by sign at equal zeros
    a_less = (a < b) | ((a == b) & (a == 0) & np.signbit(a) & ~np.signbit(b))
    b_less = (b < a) | ((a == b) & (a == 0) & np.signbit(b) & ~np.signbit(a))
    pick_a = a_less if lf.op == "min" else b_less
    d = np.where(pick_a, a_bits, b_bits).astype(np.uint64)
    na, nb = np.isnan(a), np.isnan(b)
    nan = np.uint64(_NAN[de])
    num = np.where(na & nb, nan, np.where(na, b_bits, np.where(nb, a_bits, d)))      # min_num
    d = np.where(na | nb, nan, d) if "NaN" in mods else num                          # min_nan with .NaN
    if "xorsign" in mods:
        d = np.where(_nan_of(d, de), d, (d & ~sign) | xorsign)
    return d


def lanes_differ(lf: LaneForm, want: np.ndarray, got: np.ndarray) -> np.ndarray:
    """Lanes where some element of d differs, a NaN element matching any NaN (payload and sign not compared)."""
    de = lf.elems["d"]
    if de == "pred":
        return np.asarray(want, dtype=np.uint64) != np.asarray(got, dtype=np.uint64)
    w = _BITS[de]
    mask = np.uint64((1 << w) - 1)
    want, got = np.asarray(want, dtype=np.uint64), np.asarray(got, dtype=np.uint64)
    diff = np.zeros(len(want), dtype=bool)
    for i in range(lf.count):
        x, y = (want >> np.uint64(w * i)) & mask, (got >> np.uint64(w * i)) & mask
        diff |= (x != y) & ~(_nan_of(x, de) & _nan_of(y, de))
    return diff


def _exact_f64(op: str, val: dict[str, np.ndarray], mode: str) -> np.ndarray:
    """f64 fma/mad/div/rcp/sqrt rounded once from the exact value in the direction `mode` (LANE_RULES f64-exact):
    numpy's IEEE result where it is exact in every direction (a NaN or infinite input, division by zero), exact
    rationals (Python's Fraction; an exact square root compared by squaring) elsewhere."""
    names = {"div": ("a", "b"), "rcp": ("a",), "sqrt": ("a",)}.get(op, ("a", "b", "c"))
    x = [np.asarray(val[n], dtype=np.float64) for n in names]
    with np.errstate(all="ignore"):
        if op == "div":
            nearest = x[0] / x[1]
        elif op == "rcp":
            nearest = 1.0 / x[0]
        elif op == "sqrt":
            nearest = np.sqrt(x[0])
        else:
            nearest = x[0] * x[1] + x[2]        # only its NaN/infinity matters where an input is not finite
    finite = np.all([np.isfinite(v) for v in x], axis=0)
    if op in ("div", "rcp"):
        finite &= x[-1] != 0
    out = nearest.copy()
    for i in np.nonzero(finite)[0]:
        out[i] = _exact_lane(op, [float(v[i]) for v in x], mode)
    return out.view(np.uint64)


def _exact_lane(op: str, x: list[float], mode: str) -> float:
    import math
    from fractions import Fraction

    if op == "sqrt":
        a = x[0]
        if a == 0 or a < 0:
            return a if a == 0 else math.nan
        y = math.sqrt(a)                           # correctly rounded to nearest (IEEE 754 squareRoot)
        sq, fa = Fraction(y) ** 2, Fraction(a)
        if sq == fa:
            return y
        above = sq > fa
        return _step(y, above, True, mode)
    if op in ("div", "rcp"):
        num, den = (x[0], x[1]) if op == "div" else (1.0, x[0])
        q = Fraction(num) / Fraction(den)
        if q == 0:
            return math.copysign(0.0, math.copysign(1.0, num) * math.copysign(1.0, den))
    else:
        a, b, c = x
        q = Fraction(a) * Fraction(b) + Fraction(c)
        if q == 0:
            p_neg = (math.copysign(1.0, a) * math.copysign(1.0, b)) < 0
            c_neg = math.copysign(1.0, c) < 0
            if p_neg == c_neg and a * b == 0 and c == 0:
                return -0.0 if c_neg else 0.0      # x + x keeps x's sign, zeros included (IEEE 754 6.3)
            return -0.0 if mode == ".rm" else 0.0
    try:
        y = float(q)                                # CPython rounds int / int correctly, to nearest
    except OverflowError:
        y = math.inf if q > 0 else -math.inf
    if math.isinf(y):
        big = math.copysign(sys.float_info.max, y)
        keep = {".rz": False, ".rm": y < 0, ".rp": y > 0}[mode]
        return y if keep else big
    fy = Fraction(y)
    if fy == q:
        return y
    return _step(y, fy > q, q > 0, mode)


def _step(y: float, above: bool, positive: bool, mode: str) -> float:
    """y, the nearest float to an exact value, moved one step to the neighbour on the mode's side of that value."""
    import math

    if mode == ".rm" and above:
        return math.nextafter(y, -math.inf)
    if mode == ".rp" and not above:
        return math.nextafter(y, math.inf)
    if mode == ".rz" and above == positive:
        return math.nextafter(y, 0.0)
    return y

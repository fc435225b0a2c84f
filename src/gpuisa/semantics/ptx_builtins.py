"""Helpers that PTX Semantics blocks call but never define, written from the manual's prose.

ReadByte (prmt, 9.7.10.7 Description: "The 3 lsbs of the selection value specify which of the
8 source bytes ...; msb=1 means replicate the sign") and extractAndSignOrZeroExt_N (dp4a/dp2a:
"Extract 4 bytes from a 32bit input and sign or zero extend based on input type").
"""

from __future__ import annotations

from typing import Any

import numpy as np
from lark import Tree

from gpuisa.semantics import fp
from gpuisa.semantics.builtins import builtin
from gpuisa.semantics.types import TV, ArrayVal


@builtin("ReadByte")
def _read_byte(ip: Any, args: list[TV], node: Tree) -> TV:
    """ReadByte(mode, ctl, tmp64) for the generic form (no .mode): select, or replicate the sign."""
    mode, ctl, src = args
    if mode.kind == "sym" and ip.sym_value(mode):
        raise ip.fail(f"prmt mode {ip.sym_value(mode)} is not modelled (only the generic form)", node)
    d = ip.dom
    w = ip.lit_width
    sel = ip.sized(ctl, "u", w)
    data = ip.sized(src, "u", w)
    idx = d.band(sel, d.const(7, w), w)
    byte = d.band(d.lshr(data, d.shl(idx, d.const(3, w), w), w), d.const(0xFF, w), w)
    sign = d.nonzero(d.band(byte, d.const(0x80, w), w), w)
    rep = d.nonzero(d.band(sel, d.const(8, w), w), w)
    filled = d.select(sign, d.const(0xFF, w), d.const(0, w))
    return TV("u", w, d.select(rep, filled, byte))


def _extract(ip: Any, args: list[TV], node: Tree, count: int) -> ArrayVal:
    value, typ = args
    signed = ip.sym_value(typ).startswith(".s") if typ.kind == "sym" else False
    w = ip.lit_width
    data, dw = ip.bits(ip.as_int(value, node))
    step = 32 // count
    items = []
    for i in range(count):
        part = ip.extract(TV("b", dw, data), ip.dom.const(i * step, 32), 32, step)
        items.append(TV("i", w, ip.dom.resize(part.data, step, w, signed)))
    return ArrayVal(("i", w), items)


@builtin("extractAndSignOrZeroExt_4")
def _ext4(ip: Any, args: list[TV], node: Tree) -> Any:
    return _extract(ip, args, node, 4)


@builtin("extractAndSignOrZeroExt_2")
def _ext2(ip: Any, args: list[TV], node: Tree) -> Any:
    return _extract(ip, args, node, 2)


@builtin("saturate")
def _saturate(ip: Any, args: list[TV], node: Tree) -> TV:
    """saturate(x): x clamped to the destination's type range (semantics.ptx.SATURATING: ".sat limits
    result to MININT..MAXINT (no overflow) for the size and signedness of the operation")."""
    (value,) = args
    kind, width = ip.declared.get("d", ("i", 32))
    d = ip.dom
    w = ip.lit_width
    x = ip.sized(value, "i", w)
    lo = -(1 << (width - 1)) if kind == "i" else 0
    hi = (1 << (width - 1)) - 1 if kind == "i" else (1 << width) - 1
    lo_c, hi_c = d.const(lo % (1 << w), w), d.const(hi, w)
    x = d.select(d.slt(x, lo_c, w), lo_c, x)
    x = d.select(d.slt(hi_c, x, w), hi_c, x)
    return TV("i", w, x)


# cvt's integer rounding modifiers (9.7.10.24 Integer Notes: .rni nearest even, .rzi toward zero, .rmi toward
# negative infinity, .rpi toward positive infinity).
INTEGER_ROUNDING = {".rni": np.rint, ".rzi": np.trunc, ".rmi": np.floor, ".rpi": np.ceil}


@builtin("convert")
def _convert(ip: Any, args: list[TV], node: Tree) -> TV:
    """convert(a) to d's type, from cvt's prose (9.7.10.24): float-to-integer rounds by the .irnd modifier, is
    "clamped to the destination range by default", and a NaN gives zero, or 1 << (BitWidth(dst) - 1) when the
    source is .f64 and the destination .s64/.u64; integer-to-float and float-to-float round to nearest even
    (the only .frnd the evaluator models); a same-size float with .irnd is rounded to an integral value;
    integer-to-integer keeps the value (the store truncates; .sat clamps, see semantics.ptx.SATURATING)."""
    (value,) = args
    kind, width = ip.declared.get("d", ("i", 32))
    rnd = next((INTEGER_ROUNDING[m] for m in ip.ptx_modifiers if m in INTEGER_ROUNDING), None)
    if kind == "f":
        mode = _mode(ip)
        if value.kind == "f":
            if mode != ".rn" and value.width > width:          # a narrowing conversion rounds by the form's mode
                r = np.asarray(fp.convert(value.data, ("f", value.width), ("f", 64)), dtype=np.float64)
                return TV("f", width, _round_to(r, np.zeros_like(r), width, mode))
            x = fp.convert(value.data, ("f", value.width), ("f", width))
            return TV("f", width, rnd(x) if rnd is not None and value.width == width else x)
        if mode != ".rn":                                     # integer to float: exact int, then one directed rounding
            data, w = ip.bits(ip.as_int(value, node))
            ints = ip.dom.signed_ints(data, w) if value.kind == "i" else ip.dom._obj(data)
            r = np.array([float(int(v)) for v in ints], dtype=np.float64)
            err = np.array([float(int(v) - int(f)) if np.isfinite(f) else 0.0 for v, f in zip(ints, r, strict=True)])
            return TV("f", width, _round_to(r, err, width, mode))
        return TV("f", width, ip.to_float(value, "f", width, node))
    if value.kind != "f":
        return value
    ip.need_numpy(node)
    x = np.asarray(value.data, dtype=np.float64)
    x = (rnd or np.trunc)(x)
    lo = -(1 << (width - 1)) if kind == "i" else 0
    hi = (1 << (width - 1)) - 1 if kind == "i" else (1 << width) - 1
    nan_value = (1 << (width - 1)) if value.width == 64 and width == 64 else 0
    nan = np.isnan(x)
    ints = [nan_value if n else (lo if v <= lo else hi if v >= hi else int(v)) for v, n in zip(x, nan, strict=True)]
    return TV(kind, width, ip.dom.from_ints(ints, width))


@builtin("elem")
def _elem(ip: Any, args: list[TV], node: Tree) -> TV:
    """elem(a, lo, hi): bits lo..hi of a packed register as one element of the form's element type
    (semantics.ptx.PACKED): an exact integer (sign-extended for .s elements) or a float16."""
    value, lo_v, _hi = args
    kind, width = ip.ptx_elem
    lo = ip.concrete_int(lo_v, node)
    data, w = ip.bits(ip.as_int(value, node) if value.kind != "f" else value)
    part = ip.extract(TV("b", w, data), ip.dom.const(lo, 32), 32, width)
    if kind == "f":
        ip.need_numpy(node)
        return TV("f", width, fp.bits_to_float(part.data, "f", width))
    return TV("i", ip.lit_width, ip.dom.resize(part.data, width, ip.lit_width, kind == "i"))


def _clamp_float(ip: Any, x: Any, node: Tree, sat: bool, relu: bool) -> Any:
    """semantics.ptx.CLAMPS on float lanes: .sat to [0.0, 1.0] with NaN -> +0.0; .relu negatives -> 0, NaN stays NaN."""
    if sat:
        x = np.where(np.isnan(x), x.dtype.type(0), np.clip(x, x.dtype.type(0), x.dtype.type(1)))
    if relu:
        x = np.where(x < 0, x.dtype.type(0), x)
    return x


@builtin("satf")
def _satf(ip: Any, args: list[TV], node: Tree) -> TV:
    """satf(x): .sat on a float result (semantics.ptx.CLAMPS)."""
    (x,) = args
    width = ip.declared.get("d", ("f", 32))[1]
    f = ip.to_float(x, "f", width, node)
    return TV("f", width, _clamp_float(ip, f, node, True, False))


@builtin("relu")
def _relu(ip: Any, args: list[TV], node: Tree) -> TV:
    """relu(x): .relu (semantics.ptx.CLAMPS): a negative result becomes 0 (integers and floats)."""
    (x,) = args
    kind, width = ip.declared.get("d", ("i", 32))
    if kind == "f":
        return TV("f", width, _clamp_float(ip, ip.to_float(x, "f", width, node), node, False, True))
    d = ip.dom
    w = ip.lit_width
    v = ip.sized(x, "i", w)
    zero = d.const(0, w)
    return TV("i", w, d.select(d.slt(v, zero, w), zero, v))


@builtin("setelem")
def _setelem(ip: Any, args: list[TV], node: Tree) -> TV:
    """setelem(d, i, x): d with element i replaced by x in the element type; with .sat an integer element is first
    clamped to the element's range (9.7.1.1 add: ".sat limits result to MININT..MAXINT ... for the size and
    signedness of the operation")."""
    d_v, i_v, x = args
    kind, width = ip.ptx_elem
    i = ip.concrete_int(i_v, node)
    d = ip.dom
    w = ip.lit_width
    if kind == "f":
        f = _clamp_float(ip, ip.to_float(x, "f", width, node), node, ".sat" in ip.ptx_modifiers,
                         ".relu" in ip.ptx_modifiers)
        bits = d.resize(fp.float_to_bits(f, "f", width), width, w, False)
    else:
        bits = ip.sized(x, "i", w)
        if ".relu" in ip.ptx_modifiers:
            zero = d.const(0, w)
            bits = d.select(d.slt(bits, zero, w), zero, bits)
        if ".sat" in ip.ptx_modifiers:
            lo = -(1 << (width - 1)) if kind == "i" else 0
            hi = (1 << (width - 1)) - 1 if kind == "i" else (1 << width) - 1
            lo_c, hi_c = d.const(lo % (1 << w), w), d.const(hi, w)
            bits = d.select(d.slt(bits, lo_c, w), lo_c, bits)
            bits = d.select(d.slt(hi_c, bits, w), hi_c, bits)
    field = d.band(bits, d.const((1 << width) - 1, w), w)
    base = ip.sized(d_v, "u", w)
    shift = d.const(i * width, w)
    mask = d.const(((1 << width) - 1) << (i * width), w)
    out = d.bor(d.band(base, d.bnot(mask, w), w), d.shl(field, shift, w), w)
    return TV("u", 32, d.resize(out, w, 32, False))


# Directed rounding (9.7.3.3 add: ".rz mantissa LSB rounds towards zero", ".rm ... towards negative infinity",
# ".rp ... towards positive infinity"; .rn is numpy's own rounding). Operands are widened to float64, where the sum
# or product of f16/f32 values and its rounding error (TwoSum; a product of two f32 is exact) are exact; the error's
# sign then decides the directed step at the destination's precision.
DIRECTED = (".rz", ".rm", ".rp")
_DTYPES = {16: np.float16, 32: np.float32, 64: np.float64}


def _mode(ip: Any) -> str:
    return next((m for m in DIRECTED if m in ip.ptx_modifiers), ".rn")


def _two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    with np.errstate(invalid="ignore", over="ignore"):
        s = a + b
        bb = s - a
        err = (a - (s - bb)) + (b - bb)
    return s, np.where(np.isfinite(s), err, 0.0)


def _round_to(r: np.ndarray, err: np.ndarray, width: int, mode: str) -> np.ndarray:
    """The float `width` nearest r + err in the direction of `mode` (r and err float64, err exact)."""
    dt = _DTYPES[width]
    with np.errstate(over="ignore", invalid="ignore"):
        y = r.astype(dt)
        y64 = y.astype(np.float64)
        above = np.where(y64 != r, y64 > r, err < 0)         # y > exact value
        below = np.where(y64 != r, y64 < r, err > 0)         # y < exact value
        exact_neg = np.where(r != 0, r < 0, err < 0)
        if mode == ".rm":
            y = np.where(above, np.nextafter(y, dt(-np.inf)), y)
        elif mode == ".rp":
            y = np.where(below, np.nextafter(y, dt(np.inf)), y)
        elif mode == ".rz":
            away = np.where(exact_neg, below, above)
            y = np.where(away & ~np.isnan(y), np.nextafter(y, dt(0)), y)
    return y


def _f64(ip: Any, v: TV, node: Tree) -> np.ndarray:
    return np.asarray(ip.to_float(v, "f", 64, node), dtype=np.float64)


def _directed(ip: Any, node: Tree, r: np.ndarray, err: np.ndarray, zero_sum: np.ndarray | None = None) -> TV:
    width = ip.declared.get("d", ("f", 32))[1]
    mode = _mode(ip)
    y = _round_to(r, err, width, mode) if mode != ".rn" else r.astype(_DTYPES[width])
    if zero_sum is not None and mode == ".rm":
        # IEEE 754 6.3: an exact zero sum of operands of opposite signs is -0 under roundTowardNegative
        y = np.where(zero_sum & (r == 0) & (err == 0), _DTYPES[width](-0.0), y)
    return TV("f", width, y)


@builtin("rnd_add")
def _rnd_add(ip: Any, args: list[TV], node: Tree) -> TV:
    """a + b rounded by the form's .rz/.rm/.rp."""
    a, b = (_f64(ip, v, node) for v in args)
    r, err = _two_sum(a, b)
    return _directed(ip, node, r, err, ~(np.signbit(a) & np.signbit(b)))


@builtin("rnd_mul")
def _rnd_mul(ip: Any, args: list[TV], node: Tree) -> TV:
    """a * b rounded by the form's .rz/.rm/.rp (operands of at most 32 bits: the float64 product is exact)."""
    a, b = (_f64(ip, v, node) for v in args)
    with np.errstate(invalid="ignore", over="ignore"):
        r = a * b
    return _directed(ip, node, r, np.zeros_like(r))


@builtin("rnd_fma")
def _rnd_fma(ip: Any, args: list[TV], node: Tree) -> TV:
    """a * b + c with one rounding by the form's .rz/.rm/.rp (operands of at most 32 bits)."""
    a, b, c = (_f64(ip, v, node) for v in args)
    with np.errstate(invalid="ignore", over="ignore"):
        p = a * b
    r, err = _two_sum(p, c)
    return _directed(ip, node, r, err, ~(np.signbit(p) & np.signbit(c)))

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
        if value.kind == "f":
            x = fp.convert(value.data, ("f", value.width), ("f", width))
            return TV("f", width, rnd(x) if rnd is not None and value.width == width else x)
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

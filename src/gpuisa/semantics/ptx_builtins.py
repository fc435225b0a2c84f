"""Helpers that PTX Semantics blocks call but never define, written from the manual's prose.

ReadByte (prmt, 9.7.10.7 Description: "The 3 lsbs of the selection value specify which of the
8 source bytes ...; msb=1 means replicate the sign") and extractAndSignOrZeroExt_N (dp4a/dp2a:
"Extract 4 bytes from a 32bit input and sign or zero extend based on input type").
"""

from __future__ import annotations

from typing import Any

from lark import Tree

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

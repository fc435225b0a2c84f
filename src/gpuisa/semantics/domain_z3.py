"""The same operations as NumpyDomain over z3 bit-vectors: the lowering used for proofs.

The interpreter runs the parsed pseudocode unchanged on this domain, so a proof compares the
two manuals' texts as parsed, not formulas written by hand. Floats are not lowered.
"""

from __future__ import annotations

from typing import Any

import z3


class Z3Domain:
    """Symbolic bit-vector backend (one symbolic lane)."""

    name = "z3"
    symbolic = True
    n = 1

    def const(self, value: int, w: int) -> z3.BitVecRef:
        return z3.BitVecVal(value & ((1 << w) - 1), w)

    def bool_const(self, value: bool) -> z3.BoolRef:
        return z3.BoolVal(bool(value))

    def from_ints(self, values: Any, w: int) -> Any:
        if isinstance(values, z3.BitVecRef):
            return self.resize(values, values.size(), w, False)
        return self.const(int(values), w)

    def resize(self, a: z3.BitVecRef, wfrom: int, wto: int, signed: bool) -> z3.BitVecRef:
        if wto == wfrom:
            return a
        if wto < wfrom:
            return z3.Extract(wto - 1, 0, a)
        return z3.SignExt(wto - wfrom, a) if signed else z3.ZeroExt(wto - wfrom, a)

    def concrete(self, a: z3.BitVecRef) -> int | None:
        s = z3.simplify(a)
        return s.as_long() if z3.is_bv_value(s) else None

    def concrete_bool(self, c: z3.BoolRef) -> bool | None:
        s = z3.simplify(c)
        if z3.is_true(s):
            return True
        if z3.is_false(s):
            return False
        return None

    def add(self, a: Any, b: Any, w: int) -> Any:
        return a + b

    def sub(self, a: Any, b: Any, w: int) -> Any:
        return a - b

    def mul(self, a: Any, b: Any, w: int) -> Any:
        return a * b

    def neg(self, a: Any, w: int) -> Any:
        return -a

    def udiv(self, a: Any, b: Any, w: int) -> Any:
        return z3.If(b == 0, self.const(-1, w), z3.UDiv(a, b))

    def urem(self, a: Any, b: Any, w: int) -> Any:
        return z3.If(b == 0, a, z3.URem(a, b))

    def sdiv(self, a: Any, b: Any, w: int) -> Any:
        return z3.If(b == 0, self.const(-1, w), a / b)

    def srem(self, a: Any, b: Any, w: int) -> Any:
        return z3.If(b == 0, a, z3.SRem(a, b))

    def band(self, a: Any, b: Any, w: int) -> Any:
        return a & b

    def bor(self, a: Any, b: Any, w: int) -> Any:
        return a | b

    def bxor(self, a: Any, b: Any, w: int) -> Any:
        return a ^ b

    def bnot(self, a: Any, w: int) -> Any:
        return ~a

    # z3 shifts by >= width already give 0 (or the sign fill), as the manuals' shifts do
    def shl(self, a: Any, s: Any, w: int) -> Any:
        return a << s

    def lshr(self, a: Any, s: Any, w: int) -> Any:
        return z3.LShR(a, s)

    def ashr(self, a: Any, s: Any, w: int) -> Any:
        return a >> s

    def eq(self, a: Any, b: Any, w: int) -> Any:
        return a == b

    def ult(self, a: Any, b: Any, w: int) -> Any:
        return z3.ULT(a, b)

    def ule(self, a: Any, b: Any, w: int) -> Any:
        return z3.ULE(a, b)

    def slt(self, a: Any, b: Any, w: int) -> Any:
        return a < b

    def sle(self, a: Any, b: Any, w: int) -> Any:
        return a <= b

    def land(self, a: Any, b: Any) -> Any:
        return z3.And(a, b)

    def lor(self, a: Any, b: Any) -> Any:
        return z3.Or(a, b)

    def lnot(self, a: Any) -> Any:
        return z3.Not(a)

    def nonzero(self, a: Any, w: int) -> Any:
        return a != 0

    def from_bool(self, c: Any, w: int) -> Any:
        return z3.If(c, self.const(1, w), self.const(0, w))

    def select(self, c: Any, a: Any, b: Any) -> Any:
        if z3.is_true(c):
            return a
        if z3.is_false(c):
            return b
        return z3.If(c, a, b)

    def popcount(self, a: Any, w: int) -> Any:
        total = self.const(0, w)
        for i in range(w):
            total = total + z3.ZeroExt(w - 1, z3.Extract(i, i, a))
        return total

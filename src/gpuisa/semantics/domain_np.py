"""Integer and boolean operations on a wave of lanes, with numpy arrays.

Values up to 64 bits are uint64 arrays holding the bit pattern; wider ones (the 128-bit
carry-less product, b128 registers) are object arrays of Python ints, slower but exact.
Every result is masked to its width, so wrap-around is the manual's, not numpy's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

U64 = np.uint64


def _m(w: int) -> int:
    return (1 << w) - 1


class NumpyDomain:
    """Bit-vector operations over `lanes` lanes; the evaluator's concrete backend."""

    name = "numpy"
    symbolic = False

    def __init__(self, lanes: int) -> None:
        self.n = lanes

    # ---------------------------------------------------------------- constants and shape
    def const(self, value: int, w: int) -> np.ndarray:
        v = value & _m(w)
        if w > 64:
            a = np.empty(self.n, dtype=object)
            a.fill(v)
            return a
        return np.full(self.n, v, dtype=U64)

    def bool_const(self, value: bool) -> np.ndarray:
        return np.full(self.n, bool(value))

    def from_ints(self, values: Any, w: int) -> np.ndarray:
        """Lane data from user input: an int, a list or an array, masked to w bits."""
        if isinstance(values, np.ndarray) and values.dtype != object and w <= 64:
            arr = values.astype(np.int64).view(U64) if values.dtype.kind == "i" else values.astype(U64)
            arr = np.broadcast_to(arr, (self.n,)).copy()
            return self.mask(arr, w)
        if isinstance(values, int | np.integer):
            return self.const(int(values), w)
        m = _m(w)
        ints = [int(v) & m for v in values]
        return np.array(ints, dtype=object if w > 64 else U64)

    def mask(self, a: np.ndarray, w: int) -> np.ndarray:
        if w >= 64 and a.dtype != object:
            return a
        if a.dtype == object:
            return a & _m(w)
        return a & U64(_m(w))

    def _obj(self, a: np.ndarray) -> np.ndarray:
        if a.dtype == object:
            return a
        if a.dtype.kind in "ui":
            return a.astype(object)    # numpy gives Python ints, element by element in C
        out = np.empty(a.shape, dtype=object)
        out[:] = [int(x) for x in a]
        return out

    def resize(self, a: np.ndarray, wfrom: int, wto: int, signed: bool) -> np.ndarray:
        """Truncate, or zero/sign-extend, a wfrom-bit value to wto bits."""
        if wto == wfrom:
            return a
        if wto < wfrom:
            if a.dtype == object and wto <= 64:
                return (a & _m(wto)).astype(U64)
            return self.mask(a, wto)
        if wto > 64:
            a = self._obj(a)
        if signed:
            ext = _m(wto) ^ _m(wfrom)
            if a.dtype == object:
                sign = (a >> (wfrom - 1)) & 1
                return np.where(sign.astype(bool), a | ext, a)
            sign = (a >> U64(wfrom - 1)) & U64(1)
            return np.where(sign.astype(bool), a | U64(ext), a)
        return a

    def to_int64(self, a: np.ndarray, w: int) -> np.ndarray:
        """Signed interpretation as int64 (w <= 64)."""
        return self.resize(a, w, 64, True).view(np.int64) if w < 64 else a.view(np.int64)

    def signed_ints(self, a: np.ndarray, w: int) -> np.ndarray:
        """Signed interpretation as an object array of Python ints (any width)."""
        o = self._obj(a)
        return np.where(o >= (1 << (w - 1)), o - (1 << w), o)

    def concrete(self, a: np.ndarray) -> int | None:
        """The value when every lane holds the same one, else None."""
        first = a[0]
        if self.n == 1 or bool(np.all(a == first)):
            return int(first)
        return None

    def concrete_bool(self, c: np.ndarray) -> bool | None:
        if self.n == 1:
            return bool(c[0])
        if bool(np.all(c)):
            return True
        if not bool(np.any(c)):
            return False
        return None

    # ---------------------------------------------------------------- arithmetic
    def add(self, a: np.ndarray, b: np.ndarray, w: int) -> np.ndarray:
        return self.mask(a + b, w)

    def sub(self, a: np.ndarray, b: np.ndarray, w: int) -> np.ndarray:
        if a.dtype == object:
            return (a - b) & _m(w)
        return self.mask(a - b, w)

    def mul(self, a: np.ndarray, b: np.ndarray, w: int) -> np.ndarray:
        return self.mask(a * b, w)

    def neg(self, a: np.ndarray, w: int) -> np.ndarray:
        return self.sub(self.const(0, w), a, w)

    def udiv(self, a: np.ndarray, b: np.ndarray, w: int) -> np.ndarray:
        zero = b == 0
        safe = np.where(zero, 1, b).astype(b.dtype)
        return np.where(zero, self.const(-1, w), a // safe)

    def urem(self, a: np.ndarray, b: np.ndarray, w: int) -> np.ndarray:
        zero = b == 0
        safe = np.where(zero, 1, b).astype(b.dtype)
        return np.where(zero, a, a % safe)

    def sdiv(self, a: np.ndarray, b: np.ndarray, w: int) -> np.ndarray:
        sa, sb = self.signed_ints(a, w), self.signed_ints(b, w)
        out = [(-1 if y == 0 else (abs(x) // abs(y)) * (1 if (x < 0) == (y < 0) else -1)) for x, y in zip(sa, sb, strict=True)]
        return self.from_ints(out, w)

    def srem(self, a: np.ndarray, b: np.ndarray, w: int) -> np.ndarray:
        sa, sb = self.signed_ints(a, w), self.signed_ints(b, w)
        out = [(x if y == 0 else (abs(x) % abs(y)) * (1 if x >= 0 else -1)) for x, y in zip(sa, sb, strict=True)]
        return self.from_ints(out, w)

    # ---------------------------------------------------------------- bits
    def band(self, a: np.ndarray, b: np.ndarray, w: int) -> np.ndarray:
        return a & b

    def bor(self, a: np.ndarray, b: np.ndarray, w: int) -> np.ndarray:
        return a | b

    def bxor(self, a: np.ndarray, b: np.ndarray, w: int) -> np.ndarray:
        return a ^ b

    def bnot(self, a: np.ndarray, w: int) -> np.ndarray:
        if a.dtype == object:
            return a ^ _m(w)
        return self.mask(~a, w)

    def _count(self, s: np.ndarray, cap: int) -> np.ndarray:
        if s.dtype == object:
            return np.minimum(s, cap).astype(U64)
        return np.minimum(s, U64(cap))

    def _obj_count(self, s: np.ndarray, cap: int) -> Any:
        """Shift counts for an object-array shift: one Python int when every lane shifts alike (the usual case: a
        constant bit position), else an object array (numpy's object loops run Python's int operators in C)."""
        c = self._count(np.asarray(s), cap).reshape(-1)
        return int(c[0]) if c.size and bool(np.all(c == c[0])) else c.astype(object)

    def shl(self, a: np.ndarray, s: np.ndarray, w: int) -> np.ndarray:
        big = s >= w
        if a.dtype == object:
            return (a << self._obj_count(s, w)) & _m(w)
        c = self._count(s, 63)
        return np.where(big, U64(0), self.mask(a << c, w))

    def lshr(self, a: np.ndarray, s: np.ndarray, w: int) -> np.ndarray:
        big = s >= w
        if a.dtype == object:
            return a >> self._obj_count(s, w)
        c = self._count(s, 63)
        return np.where(big, U64(0), a >> c)

    def ashr(self, a: np.ndarray, s: np.ndarray, w: int) -> np.ndarray:
        if a.dtype == object or w > 64:
            out = (self.signed_ints(a, w) >> self._obj_count(s, w)) & _m(w)
            return out if w > 64 else out.astype(U64)
        sa = self.to_int64(a, w)
        c = self._count(s, 63).astype(np.int64)
        return self.mask((sa >> c).view(U64), w)

    # ---------------------------------------------------------------- comparisons and booleans
    def eq(self, a: np.ndarray, b: np.ndarray, w: int) -> np.ndarray:
        return np.asarray(a == b, dtype=bool)

    def ult(self, a: np.ndarray, b: np.ndarray, w: int) -> np.ndarray:
        return np.asarray(a < b, dtype=bool)

    def ule(self, a: np.ndarray, b: np.ndarray, w: int) -> np.ndarray:
        return np.asarray(a <= b, dtype=bool)

    def slt(self, a: np.ndarray, b: np.ndarray, w: int) -> np.ndarray:
        if w > 64 or a.dtype == object:
            return np.asarray(self.signed_ints(a, w) < self.signed_ints(b, w), dtype=bool)
        return self.to_int64(a, w) < self.to_int64(b, w)

    def sle(self, a: np.ndarray, b: np.ndarray, w: int) -> np.ndarray:
        if w > 64 or a.dtype == object:
            return np.asarray(self.signed_ints(a, w) <= self.signed_ints(b, w), dtype=bool)
        return self.to_int64(a, w) <= self.to_int64(b, w)

    def land(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return a & b

    def lor(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return a | b

    def lnot(self, a: np.ndarray) -> np.ndarray:
        return ~a

    def nonzero(self, a: np.ndarray, w: int) -> np.ndarray:
        return np.asarray(a != 0, dtype=bool)

    def from_bool(self, c: np.ndarray, w: int) -> np.ndarray:
        if w > 64:
            return self._obj(c.astype(U64))
        return c.astype(U64)

    def select(self, c: np.ndarray, a: Any, b: Any) -> Any:
        if (isinstance(a, np.ndarray) and a.dtype == object) or (isinstance(b, np.ndarray) and b.dtype == object):
            a, b = self._obj(np.asarray(a)), self._obj(np.asarray(b))
        return np.where(c, a, b)

    def popcount(self, a: np.ndarray, w: int) -> np.ndarray:
        if a.dtype == object:
            return np.array([x.bit_count() for x in self._obj(a)], dtype=U64)
        return np.bitwise_count(a).astype(U64)

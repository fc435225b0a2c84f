"""Typed arithmetic of the pseudocode: conversions, views, promotion, operators, comparisons.

Mixed into Interp. Results are as wide as the widest operand (at least 32 bits, C's integer
promotion), unsized literals take the other operand's type, a signed operand is sign-extended
when widened, and floats round once in their format.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from gpuisa.semantics import fp
from gpuisa.semantics.types import TV

_LIT_OPS: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add, "-": operator.sub, "*": operator.mul,
    "/": lambda x, y: (int(x / y) if isinstance(x, int) and isinstance(y, int) and y else (x / y if y else 0)),
    "%": lambda x, y: (x % y if y else x), "&": operator.and_, "|": operator.or_, "^": operator.xor,
    "<<": operator.lshift, ">>": operator.rshift, "**": operator.pow,
}
_PY_CMP: dict[str, Callable[[Any, Any], bool]] = {
    "==": operator.eq, "!=": operator.ne, "<>": operator.ne, "<": operator.lt, "<=": operator.le,
    ">": operator.gt, ">=": operator.ge,
}
_NP_CMP = {"==": np.equal, "!=": np.not_equal, "<": np.less, "<=": np.less_equal, ">": np.greater,
           ">=": np.greater_equal}



class ValueOps:
    """Mixin for Interp (uses self.dom, self.fail, self.lit_width, self.exact_table)."""

    def as_int(self, v: TV, node: Any = None) -> TV:
        """Integer view of a value: bools become u1, floats are refused."""
        if v.kind == "bool":
            return TV("u", 1, self.dom.from_bool(v.data, 1))
        if v.kind in ("lit", "u", "i", "b"):
            return v
        raise self.fail(f"integer operation on a {v.kind}{v.width or ''} value", node)

    def bits(self, v: TV, width: int | None = None) -> tuple[Any, int]:
        """(data, width) bit pattern of any value; lits take `width` (default 64)."""
        if v.kind == "bool":
            w = width or 1
            return self.dom.from_bool(v.data, w), w
        if v.kind == "lit":
            w = width or max(self.lit_width, int(v.data).bit_length() + 1)
            return self.dom.const(int(v.data), w), w
        if v.kind in ("u", "i", "b"):
            if not hasattr(v.data, "shape") and not self.dom.symbolic:
                return self.dom.const(int(v.data), v.width), v.width
            if self.dom.symbolic and isinstance(v.data, int):
                return self.dom.const(v.data, v.width), v.width
            return v.data, v.width
        if v.kind in ("flit", "flit32"):
            w = width or (32 if v.kind == "flit32" else 64)
            kind = "f"
            arr = fp.from_python(float(v.data), kind, w if w in (16, 32, 64) else 64, self.dom.n)
            return fp.float_to_bits(arr, kind, w if w in (16, 32, 64) else 64), w
        if v.kind in ("f", "bf"):
            self.need_numpy(None)
            return fp.float_to_bits(v.data, v.kind, v.width), v.width
        raise self.fail(f"no bit pattern for a {v.kind} value")

    def sized(self, v: TV, kind: str, width: int) -> Any:
        """Lane data of an integer value converted to (kind, width), extending by v's own sign."""
        v = self.as_int(v)
        if v.kind == "lit":
            return self.dom.const(int(v.data), width)
        data, w = self.bits(v)
        return self.dom.resize(data, w, width, v.kind == "i")

    def need_numpy(self, node: Any) -> None:
        if self.dom.symbolic:
            raise self.fail("floating point is not lowered to bit-vectors", node)

    def to_float(self, v: TV, kind: str, width: int, node: Any = None) -> np.ndarray:
        """Value conversion of anything numeric to a float format (lanes)."""
        self.need_numpy(node)
        if v.kind in ("f", "bf"):
            return fp.convert(v.data, (v.kind, v.width), (kind, width))
        if v.kind in ("flit", "flit32"):
            return fp.from_python(float(v.data), kind, width, self.dom.n)
        if v.kind == "lit":
            return fp.int_to_float(np.full(self.dom.n, int(v.data), dtype=object), None, kind, width)
        v = self.as_int(v, node)
        data, w = self.bits(v)
        if w <= 64 and isinstance(data, np.ndarray) and data.dtype == np.uint64:   # lanes at once (fp.int_to_float)
            return fp.int_to_float(self.dom.to_int64(data, w) if v.kind == "i" else data, None, kind, width)
        obj = np.array([int(x) for x in data], dtype=object)
        signed = self.dom.signed_ints(data, w) if v.kind == "i" else None
        return fp.int_to_float(obj, signed, kind, width)

    def convert_to(self, v: TV, kind: str, width: int, node: Any = None) -> TV:
        """Value conversion used by casts, assignments to a typed target and compound ops."""
        if kind in ("f", "bf"):
            if v.kind in ("u", "i", "b") and v.width == width and kind == "f":
                # a sized integer stored into a float of its width is a bit copy
                return TV(kind, width, fp.bits_to_float(self.bits(v)[0], kind, width))
            if v.kind == "lit" and kind == "f" and v.data != 0 and node is not None and getattr(node, "_bitcast", False):
                return TV(kind, width, fp.bits_to_float(self.dom.const(int(v.data), width), kind, width))
            return TV(kind, width, self.to_float(v, kind, width, node))
        if v.kind in ("f", "bf"):
            # a float stored into an integer target of the same width is a bit copy
            data, w = self.bits(v)
            return TV(kind, width, self.dom.resize(data, w, width, False))
        if v.kind in ("flit", "flit32"):
            return TV(kind, width, self.dom.const(int(v.data), width))
        return TV(kind, width, self.sized(v, kind, width))

    def view(self, v: TV, kind: str, width: int) -> TV:
        """Reinterpret a value's bits as another type (S0.u32, tmp.f16, S1[2:0].u3)."""
        if v.kind in ("flit", "flit32"):
            if kind in ("f", "bf"):
                return TV(kind, width, self.to_float(v, kind, width))
            fw = width if width in (16, 32, 64) else 32
            arr = fp.from_python(float(v.data), "f", fw, self.dom.n)
            return TV(kind, width, self.dom.resize(fp.float_to_bits(arr, "f", fw), fw, width, False))
        if v.kind == "lit":
            return self.convert_to(v, kind, width)
        if v.kind in ("f", "bf") and kind == v.kind and width == v.width:
            return v
        data, w = self.bits(v)
        data = self.dom.resize(data, w, width, v.kind == "i" and kind == "i")
        if kind in ("f", "bf"):
            self.need_numpy(None)
            return TV(kind, width, fp.bits_to_float(data, kind, width))
        return TV(kind, width, data)

    def truth(self, v: TV, node: Any = None) -> Any:
        """Boolean lanes of a condition."""
        if v.kind == "sym":
            return self.dom.bool_const(self.sym_truth(v))
        if v.kind == "bool":
            return v.data
        if v.kind == "lit":
            return self.dom.bool_const(v.data != 0)
        if v.kind in ("f", "bf"):
            return v.data != 0
        data, w = self.bits(self.as_int(v, node))
        return self.dom.nonzero(data, w)

    def merge(self, mask: Any, new: TV, old: TV | None) -> TV:
        """Lanes in `mask` take `new`, the others keep `old`."""
        if mask is None or old is None:
            return new
        c = self.dom.concrete_bool(mask)
        if c is True:
            return new
        if c is False:
            return old
        if new.kind == "bool" and old.kind == "bool":
            return TV("bool", 1, self.dom.select(mask, new.data, old.data))
        if new.kind in ("f", "bf"):
            o = self.convert_to(old, new.kind, new.width) if old.kind != new.kind or old.width != new.width else old
            return TV(new.kind, new.width, np.where(mask, new.data, o.data))
        if new.kind in ("flit", "flit32") and old.kind in ("flit", "flit32"):
            n = fp.from_python(float(new.data), "f", 64, self.dom.n)
            o = fp.from_python(float(old.data), "f", 64, self.dom.n)
            return TV("f", 64, np.where(mask, n, o))
        if new.kind in ("flit", "flit32"):
            if old.kind in ("f", "bf"):
                return self.merge(mask, self.convert_to(new, old.kind, old.width), old)
            new = TV("f", 64, fp.from_python(float(new.data), "f", 64, self.dom.n))
            return self.merge(mask, new, self.convert_to(old, "f", 64))
        if old.kind in ("f", "bf"):
            return self.merge(mask, self.convert_to(new, old.kind, old.width), old)
        if new.kind == "lit" and old.kind == "lit":
            w = max(64, int(new.data).bit_length() + 1, int(old.data).bit_length() + 1)
            return TV("i", w, self.dom.select(mask, self.dom.const(int(new.data), w), self.dom.const(int(old.data), w)))
        if new.kind == "lit":
            kind, w = (old.kind if old.kind != "bool" else "u"), max(old.width, 1)
        else:
            kind, w = (new.kind if new.kind != "bool" else "u"), max(new.width, 1)
            if old.kind not in ("lit", "bool"):
                w = max(w, old.width)
        nd = self.sized(new, kind, w)
        od = self.sized(old, kind, w)
        return TV(kind, w, self.dom.select(mask, nd, od))

    # ================================================================ statements

    def float_pair(self, a: TV, b: TV, node: Any) -> tuple[np.ndarray, np.ndarray, str, int] | None:
        """Both operands in a common float format, or None when neither is a float."""
        fa, fb = a.kind in ("f", "bf", "flit", "flit32"), b.kind in ("f", "bf", "flit", "flit32")
        if not (fa or fb):
            return None
        self.need_numpy(node)

        def fmt(v: TV) -> tuple[str, int] | None:
            if v.kind in ("f", "bf"):
                return (v.kind, v.width)
            if v.kind == "flit32":
                return ("f", 32)
            return None

        ta, tb = fmt(a), fmt(b)
        cands = [t for t in (ta, tb) if t]
        if not cands:
            target = ("f", 64)
        elif len(cands) == 1:
            target = cands[0]
        else:
            target = max(cands, key=lambda t: (t[1], t[0] == "f"))
        return self.to_float(a, *target, node), self.to_float(b, *target, node), target[0], target[1]

    def int_pair(self, a: TV, b: TV, node: Any) -> tuple[Any, Any, str, int]:
        a, b = self.as_int(a, node), self.as_int(b, node)
        if a.kind == "lit" and b.kind == "lit":
            raise AssertionError("caller handles literal pairs")
        if a.kind == "lit":
            kind, w = ("u" if b.kind == "b" else b.kind), b.width
        elif b.kind == "lit":
            kind, w = ("u" if a.kind == "b" else a.kind), a.width
        else:
            w = max(a.width, b.width)
            if a.width != b.width:
                wider = a if a.width > b.width else b
                kind = "u" if wider.kind == "b" else wider.kind
            else:
                kind = "i" if (a.kind == "i" and b.kind == "i") else "u"
        # C's integer promotion: narrower operands are computed in (at least) 32 bits, so
        # S0.u[23:0] * S1.u[23:0] keeps its 48-bit product's low word, as the text means
        w = max(w, 32)
        if self.exact_table:
            # dialect rule exact-operation: `S0.u + S1.u >= 0x100000000ULL`, `(S0.u * S1.u) >> 32` mean the exact
            # value, so one operation gets twice the width (kept to the register on store)
            w = min(max(2 * w, 64), 128)
        return self.sized(a, kind, w), self.sized(b, kind, w), kind, w

    def binary(self, op: str, a: TV, b: TV, node: Any) -> TV:
        fl = self.float_pair(a, b, node) if op not in ("<<", ">>", "&", "|", "^") else None
        if fl is not None:
            return self.float_binary(op, fl, a, b, node)
        a, b = self.as_int(a, node), self.as_int(b, node)
        if a.kind == "lit" and b.kind == "lit" and not (op == "**" and int(b.data) < 0):
            return TV("lit", 0, _LIT_OPS[op](int(a.data), int(b.data)))
        if op == "**" and a.kind == "lit":
            # dialect rule float-power: 2 ** S1.i (older manuals' ldexp), exact in float64
            return self.binary("**", TV("flit", 0, float(a.data)), b, node)
        if op in ("<<", ">>"):
            if a.kind == "lit":
                w = max(self.lit_width, int(a.data).bit_length() + 1)
                a = TV("i" if a.data < 0 or self.lit_width > 64 else "u", w, self.dom.const(int(a.data), w))
            data, w = self.bits(a)
            kind = "u" if a.kind == "b" else a.kind
            if w < 32:       # integer promotion, as for the other operators
                data, w = self.dom.resize(data, w, 32, kind == "i"), 32
            if self.exact_table and op == "<<" and w < 64:
                data, w = self.dom.resize(data, w, 64, kind == "i"), 64
            if b.kind == "lit":
                s = self.dom.const(min(int(b.data), w) if int(b.data) >= 0 else w, w)
            else:
                sd, sw = self.bits(b)
                s = self.shift_count(sd, sw, w)
            if op == "<<":
                return TV(kind, w, self.dom.shl(data, s, w))
            if kind == "i":
                return TV(kind, w, self.dom.ashr(data, s, w))
            return TV(kind, w, self.dom.lshr(data, s, w))
        x, y, kind, w = self.int_pair(a, b, node)
        d = self.dom
        if op == "+":
            r = d.add(x, y, w)
        elif op == "-":
            r = d.sub(x, y, w)
        elif op == "*":
            r = d.mul(x, y, w)
        elif op == "/":
            r = d.sdiv(x, y, w) if kind == "i" else d.udiv(x, y, w)
        elif op == "%":
            r = d.srem(x, y, w) if kind == "i" else d.urem(x, y, w)
        elif op == "&":
            r = d.band(x, y, w)
        elif op == "|":
            r = d.bor(x, y, w)
        elif op == "^":
            r = d.bxor(x, y, w)
        elif op == "**":
            raise self.fail("integer power of a per-lane base is not modelled", node)
        else:
            raise self.fail(f"operator {op}", node)
        return TV(kind, w, r)

    def shift_count(self, sd: Any, sw: int, w: int) -> Any:
        """A shift count brought to the shifted value's width; counts >= w stay >= w."""
        if sw == w:
            return sd
        if sw < w:
            return self.dom.resize(sd, sw, w, False)
        if self.dom.symbolic:
            import z3  # heavy: only when lowering to bit-vectors for a proof

            big = z3.UGE(sd, z3.BitVecVal(w, sw))
            return z3.If(big, z3.BitVecVal(w, w), z3.Extract(w - 1, 0, sd))
        return np.minimum(sd, np.uint64(w)) if sd.dtype != object else np.array([min(int(x), w) for x in sd], dtype=np.uint64)

    def float_binary(self, op: str, fl: tuple[Any, Any, str, int], a: TV, b: TV, node: Any) -> TV:
        x, y, kind, w = fl
        if kind == "f" and w == 64 and a.kind in ("flit",) and b.kind in ("flit",):
            return TV("flit", 0, float(_LIT_OPS[op](float(a.data), float(b.data)))) if op in _LIT_OPS else TV("flit", 0, 0.0)
        with np.errstate(all="ignore"):
            if op == "**":
                if a.kind in ("flit", "flit32") and float(a.data) == 2.0 and b.kind in ("u", "i", "b", "lit"):
                    e = self.to_float(b, "f", 64, node)
                    r = np.ldexp(1.0, np.clip(e, -2000, 2000).astype(np.int64))
                    kind, w = ("f", 64) if a.kind == "flit" else (kind, w)
                else:
                    r = np.power(x.astype(np.float64), y.astype(np.float64))
                return TV(kind, w, fp.convert(r, ("f", 64), (kind, w)))
            f = {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.divide}.get(op)
            if f is None:
                raise self.fail(f"operator {op} on floats", node)
            if kind == "bf":
                r = f(x.astype(np.float64), y.astype(np.float64))
                return TV(kind, w, fp.convert(r, ("f", 64), ("bf", 16)))
            return TV(kind, w, f(x, y))

    def compare_vals(self, op: str, a: TV, b: TV, node: Any) -> TV:
        if a.kind == "sym" or b.kind == "sym":
            if a.kind != "sym" or b.kind != "sym" or op not in ("==", "!="):
                raise self.fail("a modifier compared with a value", node)
            same = self.sym_value(a) == self.sym_value(b)
            return TV("bool", 1, self.dom.bool_const(same if op == "==" else not same))
        fl = self.float_pair(a, b, node)
        if fl is not None:
            x, y, _, _ = fl
            with np.errstate(all="ignore"):
                r = (x < y) | (x > y) if op == "<>" else _NP_CMP[op](x, y)
            return TV("bool", 1, np.asarray(r, dtype=bool))
        if a.kind == "lit" and b.kind == "lit":
            return TV("bool", 1, self.dom.bool_const(_PY_CMP[op](int(a.data), int(b.data))))
        if a.kind == "bool" and b.kind == "bool" and op in ("==", "!=", "<>"):
            d = self.dom
            e = d.lnot(d.lor(d.land(a.data, d.lnot(b.data)), d.land(b.data, d.lnot(a.data))))
            return TV("bool", 1, e if op == "==" else self.dom.lnot(e))
        x, y, kind, w = self.int_pair(a, b, node)
        d = self.dom
        if op == "==":
            r = d.eq(x, y, w)
        elif op in ("!=", "<>"):
            r = d.lnot(d.eq(x, y, w))
        else:
            lt, le = (d.slt, d.sle) if kind == "i" else (d.ult, d.ule)
            r = {"<": lambda: lt(x, y, w), "<=": lambda: le(x, y, w),
                 ">": lambda: lt(y, x, w), ">=": lambda: le(y, x, w)}[op]()
        return TV("bool", 1, r)

    def unify_for_select(self, a: TV, b: TV, node: Any) -> tuple[TV, TV]:
        """A literal arm of ?: takes the other arm's integer type."""
        numeric = ("lit", "flit", "flit32", "f", "bf")
        if a.kind == "lit" and b.kind not in numeric:
            kind, w = ("u" if b.kind == "bool" else b.kind), max(b.width, 1)
            a = TV(kind, w, self.sized(a, kind, w))
        elif b.kind == "lit" and a.kind not in numeric:
            kind, w = ("u" if a.kind == "bool" else a.kind), max(a.width, 1)
            b = TV(kind, w, self.sized(b, kind, w))
        return a, b

    def _maybe_int(self, v: TV) -> int | None:
        if v.kind == "lit":
            return int(v.data)
        if v.kind in ("u", "i", "b", "bool"):
            v = self.as_int(v)
            data, w = self.bits(v)
            c = self.dom.concrete(data)
            if c is None:
                return None
            if v.kind == "i" and c >= 1 << (w - 1):
                c -= 1 << w
            return c
        return None

    def concrete_int(self, v: TV, node: Any = None) -> int:
        c = self._maybe_int(v)
        if c is None:
            raise self.fail("a bound or index that differs between lanes", node)
        return c

    def _max_int(self, v: TV, node: Any) -> int:
        v = self.as_int(v, node)
        if self.dom.symbolic:
            return (1 << min(v.width, 12)) - 1
        data, w = self.bits(v)
        vals = self.dom.signed_ints(data, w) if v.kind == "i" else data
        return int(max(int(x) for x in vals))


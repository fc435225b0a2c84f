"""Run a parsed pseudocode tree on a Domain: numpy lanes (evaluation) or z3 bit-vectors (proofs).

Execution is SIMT-style: a condition that differs between lanes runs both branches under
lane masks and merges the results, exactly as a wave would; with z3 the masks are symbolic
and the merge is an If(). Integer arithmetic follows the types the text gives (D0.u32,
64'U(...), 3'0U): results are as wide as the widest operand and wrap there, unsized literals
take the other operand's type, and a signed operand is sign-extended when widened.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from lark import Token, Tree

from gpuisa.semantics import fp
from gpuisa.semantics.errors import EvalError, UnsupportedError
from gpuisa.semantics.types import TV, cast_type, parse_view

MAX_LOOP = 4096


class _Break(Exception):
    pass


class _Return(Exception):
    def __init__(self, value: TV) -> None:
        self.value = value


@dataclass
class Lambda:
    params: list[str]
    body: Tree
    block: bool


@dataclass
class ArrayVal:
    elem: tuple[str, int]
    items: list[TV]


@dataclass
class Machine:
    """Machine state the pseudocode may read that is not an operand, with documented defaults."""

    values: dict[str, int] = field(default_factory=dict)


Builtin = Callable[["Interp", list[TV], Tree], TV]
# name -> (pseudocode, style, operand type from the name) of another instruction, or None
Resolver = Callable[[str], "tuple[str, str, tuple[str, int] | None] | None"]


def _lit_value(text: str) -> TV:
    """An unsuffixed or suffixed number: 4U, 0x100000000ULL, 1.0F, 0.5."""
    t = text
    low = t.lower()
    if low.startswith("0x"):
        digits = low[2:].rstrip("ul")
        v = int(digits, 16)
        suffix = low[2 + len(digits):]
        if "ll" in suffix:
            return TV("i" if "u" not in suffix else "u", 64, v)  # resolved to lanes on use
        return TV("lit", 0, v)
    if any(c in low for c in ".e") and not low.endswith(("ll", "ul", "u")):
        if low.endswith("f"):
            return TV("flit32", 0, float(low[:-1]))
        return TV("flit", 0, float(low))
    if low.endswith("f"):
        return TV("flit32", 0, float(low[:-1]))
    digits = low.rstrip("ul")
    v = int(digits)
    suffix = low[len(digits):]
    if "ll" in suffix:
        return TV("u" if "u" in suffix else "i", 64, v)
    return TV("lit", 0, v)


class Interp:
    """Evaluate one pseudocode tree; `env` holds operands, state and locals by name."""

    def __init__(self, dom: Any, *, builtins: dict[str, Builtin], resolver: Resolver | None = None,
                 where: str = "", machine: dict[str, int] | None = None, lane_ids: Any = None) -> None:
        self.dom = dom
        self.builtins = builtins
        self.resolver = resolver
        self.where = where
        self.machine = machine or {}
        self.lane_ids = lane_ids
        self.env: dict[str, Any] = {}
        self.declared: dict[str, tuple[str, int]] = {}
        self.out_type: dict[str, tuple[str, int]] = {}
        self.written: list[str] = []
        self.reads_before_write: set[str] = set()
        self.loop_vars: set[str] = set()
        self.active: Any = None       # None: every lane active
        self.broken: Any = None
        self.returned: Any = None
        self.retval: TV | None = None
        self.depth = 0
        self.operand_type: tuple[str, int] | None = None
        self.lit_width = 64            # PTX's exact integers use a wider one
        self.reverse_slices = True     # AMD [lo : hi] reverses; PTX a[0:15] is only a range
        self.fuse_mad = False          # PTX: a * b + c on floats is one rounding (fma's description)
        self.auto_arrays = False       # PTX: iA[0] = a[0:15] creates an array

    # ================================================================ helpers
    def fail(self, msg: str, node: Any = None) -> UnsupportedError:
        line = getattr(getattr(node, "meta", None), "line", None) if isinstance(node, Tree) else None
        if isinstance(node, Token):
            line = node.line
        return UnsupportedError(msg, self.where, line)

    def _and(self, a: Any, b: Any) -> Any:
        if a is None:
            return b
        if b is None:
            return a
        return self.dom.land(a, b)

    def _andnot(self, a: Any, b: Any) -> Any:
        if b is None:
            return a
        nb = self.dom.lnot(b)
        return nb if a is None else self.dom.land(a, nb)

    def _never(self, mask: Any) -> bool:
        return mask is not None and self.dom.concrete_bool(mask) is False

    # ---------------------------------------------------------------- typed conversions
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
    def run(self, tree: Tree) -> None:
        self.exec_block(tree.children[0] if tree.data == "start" else tree)

    def exec_block(self, stmts: Tree) -> None:
        if stmts.data != "stmts":          # PTX: a single statement as a body
            if not self._never(self.active):
                getattr(self, "st_" + stmts.data)(stmts)
            return
        for st in stmts.children:
            if isinstance(st, Tree):
                if self._never(self.active):
                    return
                getattr(self, "st_" + st.data)(st)

    # ---------------------------------------------------------------- PTX statement forms
    def st_block(self, node: Tree) -> None:
        self.exec_block(node.children[0])

    def st_decl(self, node: Tree) -> None:
        from gpuisa.semantics.ptx import type_of

        ctype, name_tok, *init = node.children
        kind, width = type_of("." + str(ctype).lstrip("."))
        name = str(name_tok)
        self.declared[name] = (kind if kind != "b" else "u", width)
        value = self.eval(init[0]) if init and init[0] is not None else TV("lit", 0, 0)
        self.store(Tree("var", [name_tok]), value, node)

    def _incdec(self, target: Tree, op: str, node: Tree) -> None:
        cur = self.eval(target)
        new = self.binary("+" if op == "++" else "-", cur, TV("lit", 0, 1), node)
        self.store(target, self.to_type_of(new, cur), node)

    def st_post_incdec(self, node: Tree) -> None:
        self._incdec(node.children[0], str(node.children[1]), node)

    def st_pre_incdec(self, node: Tree) -> None:
        self._incdec(node.children[1], str(node.children[0]), node)

    def st_c_while(self, node: Tree) -> None:
        self.st_while_stmt(node)

    def st_c_for(self, node: Tree) -> None:
        init, cond, step, body = node.children
        if init is not None:
            getattr(self, "st_" + init.data)(init)
        loop = Tree("stmts", [body] + ([step] if step is not None else []))
        self.st_while_stmt(Tree("c_while", [cond if cond is not None else Tree("number", ["1"]), loop]))

    def st_c_switch(self, node: Tree) -> None:
        subject, *cases = node.children
        value = self.eval(subject)
        for case in cases:
            label, body = case.children
            hit = self.dom.concrete_bool(self.compare_vals("==", value, self.eval(label), case).data)
            if hit is None:
                raise self.fail("a switch on a per-lane value is not modelled", node)
            if hit:
                self.exec_block(body)
                return

    def ex_modifier(self, node: Tree) -> TV:
        return TV("sym", 0, str(node.children[0]))

    def sym_value(self, v: TV) -> str:
        """A PTX modifier as the form has it: `.mode` -> '.lo'; a value stays itself."""
        name = str(v.data)
        classes = getattr(self, "ptx_classes", {})
        key = name.lstrip(".")
        if key in classes:
            return classes[key]
        return name

    def sym_truth(self, v: TV) -> bool:
        name = str(v.data)
        if name.lstrip(".") in getattr(self, "ptx_classes", {}):
            return bool(self.sym_value(v))
        return name in getattr(self, "ptx_modifiers", set())

    def st_declare(self, node: Tree) -> None:
        name = str(node.children[0])
        kind, width = cast_type(str(node.children[1]))
        dims = [self.concrete_int(self.eval(d), d) for d in node.children[2:]]
        if dims:
            if len(dims) > 1:
                raise self.fail("arrays of arrays are not modelled", node)
            self.env[name] = ArrayVal((kind, width), [self.zero(kind, width) for _ in range(dims[0])])
        else:
            self.declared[name] = (kind, width)
            self.env[name] = self.zero(kind, width)

    def zero(self, kind: str, width: int) -> TV:
        if kind in ("f", "bf"):
            self.need_numpy(None)
            return TV(kind, width, np.zeros(self.dom.n, dtype=fp.storage_dtype(kind, width)))
        return TV(kind, width, self.dom.const(0, width))

    def st_expr_stmt(self, node: Tree) -> None:
        child = node.children[0]
        if isinstance(child, Token):
            return  # a quoted remark such as "Wait for all instructions to complete"
        if isinstance(child, Tree) and child.data == "call":
            self.eval(child)
            return
        raise self.fail("a statement that is only a value", node)

    def st_break_stmt(self, node: Tree) -> None:
        if self.active is None:
            raise _Break()
        self.broken = self.active if self.broken is None else self.dom.lor(self.broken, self.active)
        self.active = self.dom.bool_const(False)

    def st_continue_stmt(self, node: Tree) -> None:
        raise self.fail("continue is not modelled", node)

    def st_return_stmt(self, node: Tree) -> None:
        value = self.eval(node.children[0])
        if self.depth == 0:
            raise self.fail("return outside a lambda", node)
        if self.active is None:
            raise _Return(value)
        self.retval = self.merge(self.active, value, self.retval)
        self.returned = self.active if self.returned is None else self.dom.lor(self.returned, self.active)
        self.active = self.dom.bool_const(False)

    def _after_branch(self, outer: Any) -> None:
        self.active = self._andnot(self._andnot(outer, self.broken), self.returned)

    def st_if_stmt(self, node: Tree) -> None:
        cond, body, *rest = node.children
        clauses = [(cond, body)]
        else_body = None
        for c in rest:
            if c is None:
                continue
            if c.data == "elsif_clause":
                clauses.append((c.children[1], c.children[2]))
            else:
                else_body = c.children[0]
        outer = self.active
        remaining = outer
        for cnd, blk in clauses:
            c = self.truth(self.eval(cnd), cnd)
            cc = self.dom.concrete_bool(c)
            if remaining is None and cc is not None:
                if cc:
                    self.exec_block(blk)
                    return
                continue
            take = self._and(remaining, c)
            if not self._never(take):
                self.active = take
                self.exec_block(blk)
            remaining = self._andnot(remaining, c)
            if self._never(remaining):
                break
        else:
            if else_body is not None and not self._never(remaining):
                self.active = remaining
                self.exec_block(else_body)
        self._after_branch(outer)

    def st_for_stmt(self, node: Tree) -> None:
        var, lo_n, hi_n, body = node.children
        name = str(var)
        lo = self.concrete_int(self.eval(lo_n), lo_n)
        hi_v = self.eval(hi_n)
        hi_c = self._maybe_int(hi_v)
        self.loop_vars.add(name)
        outer, saved_broken = self.active, self.broken
        self.broken = None
        hi_max = self._max_int(hi_v, hi_n) if hi_c is None else hi_c
        if hi_max - lo > MAX_LOOP:
            raise self.fail(f"loop of {hi_max - lo + 1} iterations", node)
        try:
            for i in range(lo, hi_max + 1):
                self.env[name] = TV("lit", 0, i)
                mask = outer
                if hi_c is None:
                    le = self.compare_vals("<=", TV("lit", 0, i), hi_v, node)
                    mask = self._and(mask, le.data)
                self.active = self._andnot(mask, self.broken)
                if self._never(self.active):
                    break
                try:
                    self.exec_block(body)
                except _Break:
                    break
        finally:
            self.active, self.broken = outer, saved_broken
            if self.returned is not None:
                self.active = self._andnot(outer, self.returned)

    def st_while_stmt(self, node: Tree) -> None:
        cond, body = node.children
        outer, saved_broken = self.active, self.broken
        self.broken = None
        try:
            for _ in range(MAX_LOOP):
                c = self.truth(self.eval(cond), cond)
                self.active = self._andnot(self._and(self.active if self.active is not None else outer, c), self.broken)
                if self.active is None:
                    pass
                elif self._never(self.active) or (self.dom.symbolic and not self._satisfiable(self.active)):
                    break
                try:
                    self.exec_block(body)
                except _Break:
                    break
            else:
                raise self.fail("while loop did not finish", node)
        finally:
            self.active, self.broken = outer, saved_broken

    def _satisfiable(self, cond: Any) -> bool:
        import z3

        s = z3.Solver()
        s.add(cond)
        return s.check() != z3.unsat

    # ---------------------------------------------------------------- assignment
    def st_assign(self, node: Tree) -> None:
        *pairs, rhs_node = node.children
        targets = [(pairs[i], str(pairs[i + 1].children[0])) for i in range(0, len(pairs), 2)]
        if targets[-1][1] == ":=":
            self.define_function(targets[-1][0], rhs_node)
            return
        value = self.eval(rhs_node)
        if isinstance(value, ArrayVal):
            target = targets[-1][0]
            if target.data != "var":
                raise self.fail("an array must be bound to a plain name", node)
            self.env[str(target.children[0])] = ArrayVal(value.elem, list(value.items))
            return
        if isinstance(value, Lambda):
            target = targets[-1][0]
            if target.data != "var":
                raise self.fail("a lambda must be bound to a plain name", node)
            self.env[str(target.children[0])] = value
            return
        for target, op in reversed(targets):
            if op != "=":
                current = self.eval(target)
                binop = op[:-1]
                value = self.binary(binop, current, value, node)
                value = self.to_type_of(value, current)
            self.store(target, value, node)

    def to_type_of(self, value: TV, like: TV) -> TV:
        if like.kind in ("lit", "flit", "flit32", "bool"):
            return value
        return self.convert_to(value, like.kind, like.width)

    def define_function(self, target: Tree, body: Tree) -> None:
        if target.data != "call":
            raise self.fail("':=' defines a function and needs NAME(params) on the left", target)
        name = str(target.children[0])
        params = [str(a.children[0]) for a in (target.children[1].children if target.children[1] else [])]
        self.env[name] = Lambda(params, body, False)

    def store(self, target: Tree, value: TV, node: Tree) -> None:
        """Write `value` through an lvalue chain: NAME, .view, [hi:lo], [i], [base +: w]."""
        chain: list[tuple[str, Any]] = []
        t = target
        while t.data != "var":
            own = self.own_register(t)
            if own is not None:
                t = Tree("var", [Token("NAME", own)])
                break
            if t.data == "view":
                chain.append(("view", str(t.children[1])))
            elif t.data == "slice":
                chain.append(("slice", (t.children[1], t.children[2])))
            elif t.data == "part_select":
                chain.append(("part", (t.children[1], t.children[2])))
            elif t.data == "index":
                chain.append(("index", t.children[1]))
            elif t.data == "concat":
                if chain:
                    raise self.fail("a concatenation target cannot be sliced", node)
                self.store_concat(t, value, node)
                return
            else:
                raise self.fail(f"cannot assign to {t.data}", node)
            t = t.children[0]
        name = str(t.children[0])
        chain.reverse()
        # a view on a non-type name is a field: WAVE_MODE.IEEE = ...
        if chain and chain[0][0] == "view" and parse_view(chain[0][1]) is None:
            name = f"{name}.{chain[0][1]}"
            chain = chain[1:]
        if name == "MEM" or name.startswith(("VGPR", "SGPR")):
            raise self.fail(f"{name} (memory and register-file access) is not modelled", node)
        if name not in self.env and name in self.machine and chain:
            self.lookup(name, node)            # a partial write keeps the other bits of EXEC, VCC ...
        old = self.env.get(name)
        if (self.auto_arrays and old is None and name not in self.declared and len(chain) == 1
                and chain[0][0] == "index"
                and value.kind not in ("bool",) and not (value.kind in ("u", "i", "b") and value.width == 1)):
            # PTX: iA[0] = a[0:15], ctl[0] = ... make an array of the element values
            old = self.env[name] = ArrayVal(("b", 0), [])
        if isinstance(old, ArrayVal) and chain and chain[0][0] == "index" and old.elem == ("b", 0):
            idx = self.concrete_int(self.eval(chain[0][1]), chain[0][1])
            while len(old.items) <= idx:
                old.items.append(TV("lit", 0, 0))
        if isinstance(old, ArrayVal):
            if not chain or chain[0][0] != "index":
                raise self.fail(f"array {name} needs an index", node)
            idx = self.concrete_int(self.eval(chain[0][1]), chain[0][1])
            if not 0 <= idx < len(old.items):
                raise EvalError(f"index {idx} outside array {name}[{len(old.items)}]", self.where)
            elem = old.items[idx]
            new = self.write_chain(elem, chain[1:], value, old.elem if old.elem[1] else None, node)
            old.items[idx] = self.merge(self.active, new, elem)
            return
        if isinstance(old, Lambda):
            raise self.fail(f"cannot assign to function {name}", node)
        if not chain:
            if name in self.declared:
                value = self.convert_to(value, *self.declared[name], node)
            elif value.kind in ("flit32",):
                value = TV("f", 32, self.to_float(value, "f", 32))
            new = value
        else:
            new = self.write_chain(old, chain, value, self.declared.get(name), node)
            if chain[0][0] == "view":
                self.out_type[name] = parse_view(chain[0][1]) or self.out_type.get(name, ("b", 32))
        merged = self.merge(self.active, new, old if isinstance(old, TV) else None)
        self.env[name] = merged
        if name not in self.written:
            self.written.append(name)
        if not chain:
            self.out_type.pop(name, None)

    def write_chain(self, old: TV | None, chain: list[tuple[str, Any]], value: TV,
                    declared: tuple[str, int] | None, node: Tree) -> TV:
        """New value of a variable after writing `value` through `chain` (bits outside kept)."""
        if not chain:
            if declared:
                return self.convert_to(value, *declared, node)
            return value
        kind0, arg = chain[0]
        if kind0 == "view":
            vt = parse_view(arg)
            if vt is None:
                raise self.fail(f"unknown view .{arg}", node)
            vkind, vw = vt
            cur = self.view(old, vkind, vw) if old is not None else self.zero(vkind, vw)
            inner = self.write_chain(cur, chain[1:], value, None, node) if chain[1:] else self.convert_to(value, vkind, vw, node)
            ibits, _ = self.bits(inner, vw)
            return self.insert_bits(old, ibits, vw, self.dom.const(0, 32), 32, declared)
        # bit-range writes
        if kind0 == "slice":
            hi = self.concrete_int(self.eval(arg[0]), arg[0])
            lo = self.concrete_int(self.eval(arg[1]), arg[1])
            hi, lo = max(hi, lo), min(hi, lo)
            width = hi - lo + 1
            lo_d, lo_w = self.dom.const(lo, 32), 32
            need = hi + 1
        elif kind0 == "part":
            base = self.as_int(self.eval(arg[0]), node)
            width = self.concrete_int(self.eval(arg[1]), arg[1])
            lo_d, lo_w = self.bits(base, 32)
            need = None
        else:  # index
            idx = self.as_int(self.eval(arg), node)
            c = self._maybe_int(idx)
            width = 1
            if c is not None:
                lo_d, lo_w, need = self.dom.const(c, 32), 32, c + 1
            else:
                lo_d, lo_w = self.bits(idx, 32)
                need = None
        cur_kind, cur_w = ("u", width)
        sub_old = None
        if old is not None:
            sub_old = self.extract(old, lo_d, lo_w, width)
        if chain[1:]:
            inner = self.write_chain(sub_old, chain[1:], value, None, node)
        else:
            inner = value if value.kind != "bool" else TV("u", 1, self.dom.from_bool(value.data, 1))
        ibits, _ = self.bits(self.convert_to(inner, cur_kind, cur_w) if inner.kind not in ("f", "bf") else inner, cur_w)
        ibits = self.dom.resize(ibits, self._width_of(ibits, cur_w), cur_w, False)
        return self.insert_bits(old, ibits, width, lo_d, lo_w, declared, need)

    def _width_of(self, data: Any, default: int) -> int:
        if self.dom.symbolic:
            return data.size()
        return default

    def insert_bits(self, old: TV | None, val: Any, width: int, lo: Any, lo_w: int,
                    declared: tuple[str, int] | None, need: int | None = None) -> TV:
        """Put `width` bits at bit `lo` of old's bit pattern, growing it if needed."""
        if old is None or old.kind == "lit":
            base_w = max(declared[1] if declared else 0, need or width, width, 32 if need is None else 0)
            kind = declared[0] if declared else "b"
            base = self.dom.const(int(old.data) if old is not None else 0, base_w)
        else:
            base, base_w = self.bits(old)
            kind = old.kind if old.kind not in ("bool",) else "u"
        total = max(base_w, need or 0, width if need is not None else 0)
        if total > base_w:
            base = self.dom.resize(base, base_w, total, False)
        lo_t = self.dom.resize(lo_w and lo, lo_w, total, False) if total != lo_w else lo
        mask = self.dom.shl(self.dom.const((1 << width) - 1, total), lo_t, total)
        v = self.dom.resize(val, width, total, False) if total != width else val
        new = self.dom.bor(self.dom.band(base, self.dom.bnot(mask, total), total),
                           self.dom.band(self.dom.shl(v, lo_t, total), mask, total), total)
        if kind in ("f", "bf"):
            if total != old.width:  # type: ignore[union-attr]
                kind = "b"
            else:
                return TV(kind, total, fp.bits_to_float(new, kind, total))
        return TV(kind, total, new)

    def store_concat(self, target: Tree, value: TV, node: Tree) -> None:
        """{ D1.u1, D0.u64 } = value: split the bits, lowest part last in the list."""
        parts = list(target.children)
        widths = []
        for p in parts:
            w = None
            if isinstance(p, Tree) and p.data == "view":
                vt = parse_view(str(p.children[1]))
                w = vt[1] if vt else None
            elif isinstance(p, Tree) and p.data == "var" and str(p.children[0]) in self.declared:
                w = self.declared[str(p.children[0])][1]
            elif isinstance(p, Tree) and p.data == "slice":
                hi = self.concrete_int(self.eval(p.children[1]), p)
                lo = self.concrete_int(self.eval(p.children[2]), p)
                w = abs(hi - lo) + 1
            if w is None:
                raise self.fail("a concatenation target part needs a width", node)
            widths.append(w)
        total = sum(widths)
        data, w = self.bits(value, total)
        data = self.dom.resize(data, w, total, value.kind == "i")
        pos = 0
        for p, pw in zip(reversed(parts), reversed(widths), strict=True):
            piece = self.extract(TV("b", total, data), self.dom.const(pos, 32), 32, pw)
            self.store(p, piece, node)
            pos += pw

    def ex_c_cast(self, node: Tree) -> TV:
        """(float)S0.i, (double)S0.f, (int)S0.f, (snorm)S1.f of the older manuals."""
        ctype, inner = str(node.children[0]), self.eval(node.children[1])
        fmt = {"float": ("f", 32), "double": ("f", 64), "half": ("f", 16)}.get(ctype)
        if fmt:
            return TV(fmt[0], fmt[1], self.to_float(inner, *fmt, node))
        if ctype in ("snorm", "unorm"):
            src = inner if inner.kind in ("f", "bf") else TV("f", 32, self.to_float(inner, "f", 32, node))
            fn = self.builtins.get(f"f32_to_{ctype}")
            return fn(self, [TV("f", 32, fp.convert(src.data, (src.kind, src.width), ("f", 32)))], node)
        kind, w = {"int": ("i", 32), "uint": ("u", 32), "short": ("i", 16), "ushort": ("u", 16)}[ctype]
        if inner.kind in ("f", "bf", "flit", "flit32"):
            self.need_numpy(node)
            x = inner.data if inner.kind in ("f", "bf") else self.to_float(inner, "f", 64, node)
            return TV(kind, w, self.dom.from_ints(fp.float_to_int(x, kind == "i", w), w))
        return TV(kind, w, self.sized(inner, kind, w))

    def extract(self, v: TV, lo: Any, lo_w: int, width: int) -> TV:
        """`width` bits of v starting at (possibly per-lane) bit `lo`, as unsigned."""
        data, w = self.bits(v)
        if w < width:
            data, w = self.dom.resize(data, w, width, False), width
        lo_t = self.dom.resize(lo, lo_w, w, False) if lo_w != w else lo
        if lo_w > w and not self.dom.symbolic:
            lo_t = lo
        shifted = self.dom.lshr(data, lo_t, w)
        return TV("u", width, self.dom.resize(shifted, w, width, False))

    # ================================================================ expressions
    def eval(self, node: Any) -> TV:
        if isinstance(node, Token):
            raise self.fail(f"unexpected token {node!s}", node)
        fn = getattr(self, "ex_" + node.data, None)
        if fn is None:
            raise self.fail(f"expression {node.data} is not modelled", node)
        return fn(node)

    def concrete_int(self, v: TV, node: Any = None) -> int:
        c = self._maybe_int(v)
        if c is None:
            raise self.fail("a bound or index that differs between lanes", node)
        return c

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

    def _max_int(self, v: TV, node: Any) -> int:
        v = self.as_int(v, node)
        if self.dom.symbolic:
            return (1 << min(v.width, 12)) - 1
        data, w = self.bits(v)
        vals = self.dom.signed_ints(data, w) if v.kind == "i" else data
        return int(max(int(x) for x in vals))

    def ex_number(self, node: Tree) -> TV:
        return self.realize(_lit_value(str(node.children[0])))

    def realize(self, v: TV) -> TV:
        if v.kind in ("u", "i") and isinstance(v.data, int):
            return TV(v.kind, v.width, self.dom.const(v.data, v.width))
        return v

    def ex_sized_literal(self, node: Tree) -> TV:
        text = str(node.children[0])
        w_s, rest = text.split("'", 1)
        width = int(w_s)
        suffix = rest[-1] if rest[-1] in "UIFB" and not rest.lower().startswith("0x") else ""
        if rest.lower().startswith("0x") and rest[-1] in "UI":
            suffix = rest[-1]
        body = rest[: -1] if suffix else rest
        kind = {"U": "u", "I": "i", "B": "b", "F": "f", "": ""}[suffix]
        is_float = "." in body or kind == "f"
        if is_float and not body.lower().startswith(("0x", "-0x", "+0x")):
            return TV("f", width, self.to_float(TV("flit", 0, float(body)), "f", width, node))
        value = int(body, 0)
        if kind == "f":
            self.need_numpy(node)
            return TV("f", width, fp.bits_to_float(self.dom.const(value, width), "f", width))
        return TV(kind or ("i" if value < 0 else "u"), width, self.dom.const(value, width))

    def ex_var(self, node: Tree) -> TV:
        name = str(node.children[0])
        v = self.lookup(name, node)
        if self.operand_type is not None and name in BARE_OPERANDS and v.kind == "b":
            # older manuals write S0 < S1 for V_CMP_LT_F32: bare operands take the opcode's type
            return self.view(v, *self.operand_type)
        return v

    def eval_base(self, node: Any) -> TV:
        """Evaluate the base of a view/slice/index: a bare operand keeps its raw bits."""
        if isinstance(node, Tree) and node.data == "var":
            return self.lookup(str(node.children[0]), node)
        own = self.own_register(node)
        if own is not None:
            return self.lookup(own, node)
        return self.eval(node)

    def lookup(self, name: str, node: Any) -> TV:
        if name in self.env:
            v = self.env[name]
            if isinstance(v, TV):
                return v
            if isinstance(v, ArrayVal):
                raise self.fail(f"array {name} used without an index", node)
            raise self.fail(f"function {name} used as a value", node)
        if name in self.machine:
            v = TV("u", 64, self.dom.const(self.machine[name], 64))
            self.env[name] = v
            return v
        if name in ("laneId", "threadId"):    # older manuals say threadId
            if self.lane_ids is not None:
                return TV("u", 32, self.lane_ids)
            return TV("u", 32, self.dom.const(self.machine.get("laneId", 0), 32))
        const = CONSTANTS.get(name)
        if const is not None:
            return const
        err = EvalError(f"operand {name} has no value; give it as {name}=VALUE", self.where,
                        getattr(getattr(node, "meta", None), "line", None))
        err.missing = name  # type: ignore[attr-defined]
        raise err

    def ex_view(self, node: Tree) -> TV:
        base, name_tok = node.children
        name = str(name_tok)
        vt = parse_view(name)
        if vt is None:
            if isinstance(base, Tree) and base.data == "var":
                return self.lookup(f"{base.children[0]}.{name}", node)
            raise self.fail(f"field .{name} of an expression", node)
        return self.view(self.eval_base(base), *vt)

    def ex_slice(self, node: Tree) -> TV:
        base, hi_n, lo_n = node.children
        first = self.concrete_int(self.eval(hi_n), hi_n)
        second = self.concrete_int(self.eval(lo_n), lo_n)
        hi, lo = max(first, second), min(first, second)
        v = self.eval_base(base)
        out = self.extract(v, self.dom.const(lo, 32), 32, hi - lo + 1)
        if self.reverse_slices and first < second:
            # AMD: S0.u[0 : 31] is the field with its bits reversed (V_BFREV_B32)
            return TV(out.kind, out.width, self.reverse(out.data, out.width))
        return out

    def reverse(self, data: Any, w: int) -> Any:
        d = self.dom
        acc = d.const(0, w)
        for i in range(w):
            bit = d.band(d.lshr(data, d.const(i, w), w), d.const(1, w), w)
            acc = d.bor(acc, d.shl(bit, d.const(w - 1 - i, w), w), w)
        return acc

    def ex_part_select(self, node: Tree) -> TV:
        base, lo_n, w_n = node.children
        width = self.concrete_int(self.eval(w_n), w_n)
        lo = self.as_int(self.eval(lo_n), lo_n)
        lo_d, lo_w = self.bits(lo, 32)
        return self.extract(self.eval_base(base), lo_d, lo_w, width)

    def own_register(self, node: Any) -> str | None:
        """VGPR[laneId][SRC0.u32] / VGPR[laneId][VDST.u32]: this lane's operand register -> S0 / D0."""
        if not (isinstance(node, Tree) and node.data == "index"):
            return None
        inner, reg = node.children
        if not (isinstance(inner, Tree) and inner.data == "index" and isinstance(inner.children[0], Tree)
                and inner.children[0].data == "var" and str(inner.children[0].children[0]) == "VGPR"):
            return None
        lane = inner.children[1]
        if not (isinstance(lane, Tree) and lane.data == "var" and str(lane.children[0]) == "laneId"):
            return None
        if isinstance(reg, Tree) and reg.data == "view":
            reg = reg.children[0]
        if not (isinstance(reg, Tree) and reg.data == "var"):
            return None
        name = str(reg.children[0])
        if name == "VDST":
            return "D0"
        if name.startswith("SRC") and name[3:].isdigit():
            return f"S{name[3:]}"
        return None

    def ex_index(self, node: Tree) -> TV:
        own = self.own_register(node)
        if own is not None:
            return self.lookup(own, node)
        base, idx_n = node.children
        if isinstance(base, Tree) and base.data == "var" and isinstance(self.env.get(str(base.children[0])), ArrayVal):
            arr: ArrayVal = self.env[str(base.children[0])]
            idx = self.as_int(self.eval(idx_n), idx_n)
            c = self._maybe_int(idx)
            if c is not None:
                if not 0 <= c < len(arr.items):
                    raise EvalError(f"index {c} outside array {base.children[0]}[{len(arr.items)}]", self.where)
                return arr.items[c]
            out = arr.items[0]
            for k, item in enumerate(arr.items[1:], start=1):
                out = self.merge(self.compare_vals("==", idx, TV("lit", 0, k), node).data, item, out)
            return out
        if isinstance(base, Tree) and base.data == "var" and str(base.children[0]) in ("VGPR", "SGPR", "MEM"):
            raise self.fail(f"{base.children[0]} (memory and register-file access) is not modelled", node)
        v = self.eval_base(base)
        idx = self.as_int(self.eval(idx_n), idx_n)
        lo_d, lo_w = self.bits(idx, 32) if idx.kind != "lit" else (self.dom.const(int(idx.data), 32), 32)
        return self.extract(v, lo_d, lo_w, 1)

    def ex_concat(self, node: Tree) -> TV:
        parts = [self.eval(c) for c in node.children]
        total, acc = 0, None
        for p in reversed(parts):
            if p.kind == "lit":
                raise self.fail("a concatenation part needs a width", node)
            data, w = self.bits(p)
            if acc is None:
                acc, total = data, w
                continue
            nt = total + w
            hi = self.dom.shl(self.dom.resize(data, w, nt, False), self.dom.const(total, nt), nt)
            acc = self.dom.bor(self.dom.resize(acc, total, nt, False), hi, nt)
            total = nt
        return TV("b", total, acc)

    def ex_cast(self, node: Tree) -> TV:
        spec, inner = node.children
        kind, width = cast_type(str(spec).strip())
        v = self.eval(inner)
        if kind in ("f", "bf") and v.kind == "lit":
            # 32'F(0xffc00000): an integer literal spells the bit pattern
            self.need_numpy(node)
            return TV(kind, width, fp.bits_to_float(self.dom.const(int(v.data), width), kind, width))
        if kind in ("u", "i", "b") and v.kind in ("f", "bf"):
            # 32'B(float) copies bits; a sized integer cast of a float converts the value
            if kind == "b" or v.width == width:
                return self.view(v, kind, width)
            self.need_numpy(node)
            ints = fp.float_to_int(v.data, kind == "i", width)
            return TV(kind, width, self.dom.from_ints(ints, width))
        return self.convert_to(v, kind, width, node)

    def ex_string(self, node: Tree) -> TV:
        raise self.fail("a string is not a value", node)

    def ex_cond(self, node: Tree) -> TV:
        c_n, a_n, b_n = node.children
        c = self.truth(self.eval(c_n), c_n)
        cc = self.dom.concrete_bool(c)
        if cc is True:
            return self.eval(a_n)
        if cc is False:
            return self.eval(b_n)
        a, b = self.eval(a_n), self.eval(b_n)
        a, b = self.unify_for_select(a, b, node)
        return self.merge(c, a, b)

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

    def ex_unop(self, node: Tree) -> TV:
        op = str(node.children[0].children[0])
        v = self.eval(node.children[1])
        if op == "+":
            return v
        if op == "!":
            return TV("bool", 1, self.dom.lnot(self.truth(v, node)))
        if op == "-":
            if v.kind == "lit":
                return TV("lit", 0, -int(v.data))
            if v.kind in ("flit", "flit32"):
                return TV(v.kind, 0, -float(v.data))
            if v.kind in ("f", "bf"):
                return TV(v.kind, v.width, -v.data)
            v = self.as_int(v, node)
            data, w = self.bits(v)
            return TV(v.kind if v.kind != "b" else "i", w, self.dom.neg(data, w))
        # ~
        if v.kind == "lit":
            return TV("lit", 0, ~int(v.data))
        v = self.as_int(v, node)
        data, w = self.bits(v)
        return TV(v.kind, w, self.dom.bnot(data, w))

    # ---------------------------------------------------------------- binary operators
    def _op(self, node: Tree) -> str:
        return str(node.children[1].children[0])

    def ex_binop_arith(self, node: Tree) -> TV:
        op = self._op(node)
        left = node.children[0]
        if (self.fuse_mad and op == "+" and isinstance(left, Tree) and left.data == "binop_arith"
                and self._op(left) == "*"):
            # PTX fma: `d = a * b + c` is computed "in infinite precision" and rounded once
            x, y, z = self.eval(left.children[0]), self.eval(left.children[2]), self.eval(node.children[2])
            if any(v.kind in ("f", "bf") for v in (x, y, z)):
                return self.builtins["fma"](self, [x, y, z], node)
            return self.binary("+", self.binary("*", x, y, node), z, node)
        return self.binary(op, self.eval(left), self.eval(node.children[2]), node)

    def ex_binop_shift(self, node: Tree) -> TV:
        return self.binary(self._op(node), self.eval(node.children[0]), self.eval(node.children[2]), node)

    def ex_binop_and(self, node: Tree) -> TV:
        return self.binary("&", self.eval(node.children[0]), self.eval(node.children[1]), node)

    def ex_binop_or(self, node: Tree) -> TV:
        return self.binary("|", self.eval(node.children[0]), self.eval(node.children[1]), node)

    def ex_binop_xor(self, node: Tree) -> TV:
        return self.binary("^", self.eval(node.children[0]), self.eval(node.children[1]), node)

    def ex_binop_pow(self, node: Tree) -> TV:
        return self.binary("**", self.eval(node.children[0]), self.eval(node.children[1]), node)

    def ex_binop_land(self, node: Tree) -> TV:
        a = self.truth(self.eval(node.children[0]), node)
        ca = self.dom.concrete_bool(a)
        if ca is False:
            return TV("bool", 1, a)
        b = self.truth(self.eval(node.children[1]), node)
        return TV("bool", 1, b if ca is True else self.dom.land(a, b))

    def ex_binop_lor(self, node: Tree) -> TV:
        a = self.truth(self.eval(node.children[0]), node)
        ca = self.dom.concrete_bool(a)
        if ca is True:
            return TV("bool", 1, a)
        b = self.truth(self.eval(node.children[1]), node)
        return TV("bool", 1, b if ca is False else self.dom.lor(a, b))

    def ex_compare(self, node: Tree) -> TV:
        a_n, op_n, b_n = node.children
        op = str(op_n.children[0])
        # older manuals test a class: S0.f == NaN, S1.d == sNaN
        for x, y in ((a_n, b_n), (b_n, a_n)):
            if isinstance(y, Tree) and y.data == "var" and str(y.children[0]) in ("NaN", "sNaN", "qNaN") and op in ("==", "!="):
                fn = {"NaN": "isNAN", "sNaN": "isSignalNAN", "qNaN": "isQuietNAN"}[str(y.children[0])]
                r = self.builtins[fn](self, [self.eval(x)], node)
                return r if op == "==" else TV("bool", 1, self.dom.lnot(r.data))
        return self.compare_vals(op, self.eval(a_n), self.eval(b_n), node)

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
        return self.sized(a, kind, w), self.sized(b, kind, w), kind, w

    def binary(self, op: str, a: TV, b: TV, node: Any) -> TV:
        fl = self.float_pair(a, b, node) if op not in ("<<", ">>", "&", "|", "^") else None
        if fl is not None:
            return self.float_binary(op, fl, a, b, node)
        a, b = self.as_int(a, node), self.as_int(b, node)
        if a.kind == "lit" and b.kind == "lit" and not (op == "**" and int(b.data) < 0):
            return TV("lit", 0, _LIT_OPS[op](int(a.data), int(b.data)))
        if op == "**" and a.kind == "lit":
            # 2 ** S1.i (older manuals' ldexp): a float power, exact in float64
            return self.binary("**", TV("flit", 0, float(a.data)), b, node)
        if op in ("<<", ">>"):
            if a.kind == "lit":
                w = max(self.lit_width, int(a.data).bit_length() + 1)
                a = TV("i" if a.data < 0 or self.lit_width > 64 else "u", w, self.dom.const(int(a.data), w))
            data, w = self.bits(a)
            kind = "u" if a.kind == "b" else a.kind
            if w < 32:       # integer promotion, as for the other operators
                data, w = self.dom.resize(data, w, 32, kind == "i"), 32
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
            import z3

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

    # ---------------------------------------------------------------- calls
    def ex_lambda_(self, node: Tree) -> Any:
        params_n, body = node.children
        params = [str(p) for p in params_n.children] if params_n is not None else []
        if body.data == "lambda_expr":
            return Lambda(params, body.children[0], False)
        first, rest = body.children
        return Lambda(params, Tree("stmts", [first, *rest.children], body.meta), True)

    def st_assign_lambda(self, name: str, lam: Lambda) -> None:
        self.env[name] = lam

    def ex_call(self, node: Tree) -> TV:
        name = str(node.children[0])
        arg_nodes = node.children[1].children if node.children[1] is not None else []
        target = self.env.get(name)
        if isinstance(target, Lambda):
            return self.call_lambda(target, [self.eval(a) for a in arg_nodes], node)
        if self.resolver is not None:
            found = self.resolver(name)
            if found is not None:
                return self.call_instruction(name, found, [self.eval(a) for a in arg_nodes], node)
        fn = self.builtins.get(name)
        if fn is not None:
            return fn(self, [self.eval(a) for a in arg_nodes], node)
        raise self.fail(f"helper function {name}() is not modelled", node)

    def call_lambda(self, lam: Lambda, args: list[TV], node: Any) -> TV:
        if len(args) != len(lam.params):
            raise self.fail(f"lambda takes {len(lam.params)} arguments, got {len(args)}", node)
        saved = {p: self.env.get(p) for p in lam.params}
        for p, a in zip(lam.params, args, strict=True):
            self.env[p] = a
        try:
            if not lam.block:
                return self.eval(lam.body)
            outer = (self.active, self.broken, self.returned, self.retval)
            self.returned, self.retval = None, None
            self.depth += 1
            try:
                self.exec_block(lam.body)
                result = self.retval
            except _Return as r:
                result = r.value if self.retval is None else self.merge(self.active, r.value, self.retval)
            finally:
                self.depth -= 1
                self.active, self.broken, self.returned, self.retval = outer
            if result is None:
                raise self.fail("lambda ended without return", node)
            return result
        finally:
            for p, old in saved.items():
                if old is None:
                    self.env.pop(p, None)
                else:
                    self.env[p] = old

    def call_instruction(self, name: str, found: tuple[str, str, tuple[str, int] | None], args: list[TV],
                         node: Any) -> TV:
        """Run another instruction's pseudocode (v_max_u32(...)) with S0.. bound to the arguments."""
        from gpuisa.semantics.run import parse_block

        text, style, operand_type = found
        if self.depth > 8:
            raise self.fail(f"{name}() recursion", node)
        tree = parse_block(text, style, where=name)
        sub = Interp(self.dom, builtins=self.builtins, resolver=self.resolver, where=name,
                     machine=self.machine, lane_ids=self.lane_ids)
        sub.depth = self.depth + 1
        sub.operand_type = operand_type if style == "table" else None
        for i, a in enumerate(args):
            sub.env[f"S{i}"] = a
        sub.run(tree)
        out = next((d for d in ("D0", "D") if d in sub.env), None)
        if out is None:
            raise self.fail(f"{name}() writes no D0", node)
        t = sub.out_type.get(out)
        return sub.view(sub.env[out], *t) if t else sub.env[out]


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

BARE_OPERANDS = frozenset({"S0", "S1", "S2", "S", "D", "D0", "SRC0", "SRC1", "SRC2"})

CONSTANTS: dict[str, TV] = {
    "INF": TV("flit", 0, float("inf")),
    "NAN": TV("flit", 0, float("nan")),
    "PI": TV("flit", 0, 3.141592653589793),
    "true": TV("lit", 0, 1),
    "false": TV("lit", 0, 0),
}

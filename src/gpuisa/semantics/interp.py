"""Run a parsed pseudocode tree on a Domain: numpy lanes (evaluation) or z3 bit-vectors (proofs).

Execution is SIMT-style: a condition that differs between lanes runs both branches under
lane masks and merges the results, exactly as a wave would; with z3 the masks are symbolic
and the merge is an If(). Integer arithmetic follows the types the text gives (D0.u32,
64'U(...), 3'0U): results are as wide as the widest operand and wrap there, unsized literals
take the other operand's type, and a signed operand is sign-extended when widened.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from lark import Token, Tree

from gpuisa.limits import EVAL_MAX_ARRAY, EVAL_MAX_BITS, EVAL_MAX_CALLS, EVAL_MAX_STEPS
from gpuisa.semantics import fp
from gpuisa.semantics.dialect import BARE_OPERANDS, C_CASTS, LANE_ID_NAMES, NAN_CLASSES, NORM_CASTS
from gpuisa.semantics.errors import EvalError, UnsupportedError
from gpuisa.semantics.interp_ptx import PtxForms
from gpuisa.semantics.interp_regs import RegisterOps
from gpuisa.semantics.interp_store import StoreOps
from gpuisa.semantics.parse import parse_block
from gpuisa.semantics.types import TV, ArrayVal, Lambda, cast_type, parse_view
from gpuisa.semantics.value_ops import ValueOps
from gpuisa.semantics.z3_check import check

MAX_LOOP = 4096
# z3's resource units (deterministic, unlike its timeout) for one "does any input reach another iteration" query of a
# symbolic loop: a counted PTX loop with a data-dependent break (bfind.shiftamt.u64) grows each query to ~3M units
# (seconds) and never finishes within the evaluation's time budget; clz.b32's queries, the largest of the loops that
# lower, take up to 0.36M
LOOP_Z3_RLIMIT = 1_000_000


class _Break(Exception):
    pass


class _Return(Exception):
    def __init__(self, value: TV) -> None:
        self.value = value


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


class Interp(ValueOps, StoreOps, PtxForms, RegisterOps):
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
        self.exact_table = False       # older (table) notation: one operation is computed exactly
        self.deadline: float | None = None   # time.monotonic() past which evaluation stops (EvalError)
        self.steps = 0                 # statements and expression nodes evaluated, bounded by EVAL_MAX_STEPS
        self.calls = 0                 # nested lambda / instruction calls, bounded by EVAL_MAX_CALLS
        self.called_steps = 0          # steps of the instructions this one called (each bounded on its own)
        self.line: int | None = None   # line of the statement being run, for errors
        self.regfiles: dict[str, dict[int, Any]] = {}   # VGPR / SGPR: address -> one value per lane
        self.written_registers: list[str] = []          # VGPR[7], SGPR[3] ... in the order written
        self._slice_width = 0                           # width of the last varying_slice

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

    def tick(self, node: Any = None) -> None:
        """Count one step; stop an evaluation that runs past its step or time budget."""
        self.steps += 1
        if self.steps & 1023:
            return
        if self.steps > EVAL_MAX_STEPS:
            raise EvalError(f"evaluation took more than {EVAL_MAX_STEPS} steps; stopped", self.where, self.line)
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise EvalError("evaluation ran past its time budget; stopped", self.where, self.line)

    def check_width(self, width: int, node: Any, what: str = "value", kind: str = "") -> int:
        """A width the text asks for: 1..EVAL_MAX_BITS bits, and a real format for floats (16, 32, 64)."""
        if not 1 <= width <= EVAL_MAX_BITS:
            raise EvalError(f"a {width}-bit {what} is outside 1..{EVAL_MAX_BITS} bits", self.where, self._line(node))
        if kind == "f" and width not in (16, 32, 64):
            raise EvalError(f"no {width}-bit float format (16, 32 or 64)", self.where, self._line(node))
        if kind == "bf" and width != 16:
            raise EvalError(f"no {width}-bit bfloat format (16)", self.where, self._line(node))
        return width

    def _line(self, node: Any) -> int | None:
        line = getattr(getattr(node, "meta", None), "line", None) if isinstance(node, Tree) else None
        if isinstance(node, Token):
            line = node.line
        return line or self.line

    def _never(self, mask: Any) -> bool:
        return mask is not None and self.dom.concrete_bool(mask) is False

    # ---------------------------------------------------------------- typed conversions
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
                self.line = getattr(st.meta, "line", None) or self.line
                self.tick(st)
                getattr(self, "st_" + st.data)(st)

    def st_declare(self, node: Tree) -> None:
        name = str(node.children[0])
        kind, width = cast_type(str(node.children[1]))
        self.check_width(width, node, f"declaration of {name}", kind)
        dims = [self.concrete_int(self.eval(d), d) for d in node.children[2:]]
        if dims:
            if len(dims) > 1:
                raise self.fail("arrays of arrays are not modelled", node)
            if not 0 < dims[0] <= EVAL_MAX_ARRAY:
                raise EvalError(f"array {name} of {dims[0]} elements is outside 1..{EVAL_MAX_ARRAY}", self.where,
                                self._line(node))
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
                self.tick(node)
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
                self.tick(node)
                c = self.truth(self.eval(cond), cond)
                self.active = self._andnot(self._and(self.active if self.active is not None else outer, c), self.broken)
                if self.active is None:
                    pass
                elif self._never(self.active) or (self.dom.symbolic and self.dom.concrete_bool(c) is not True
                                                  and not self._satisfiable(self.active)):
                    # a loop whose own condition is symbolic stops once no input reaches another iteration; one
                    # with a concrete condition (a counted for loop) runs to its end, lanes that broke out staying
                    # inactive (asking z3 whether any input still runs costs seconds per iteration after a break)
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
        import z3  # heavy: only when lowering to bit-vectors for a proof

        s = z3.Solver()
        s.set("rlimit", LOOP_Z3_RLIMIT)
        s.add(cond)
        r = check(s)
        if r == z3.unknown:
            raise EvalError(f"z3 could not tell within {LOOP_Z3_RLIMIT:,} resource units whether the loop goes on "
                            f"({s.reason_unknown()})", self.where, self.line)
        return r != z3.unsat

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

    def ex_c_cast(self, node: Tree) -> TV:
        """(float)S0.i, (double)S0.f, (int)S0.f, (snorm)S1.f of the older manuals (dialect rule c-casts)."""
        ctype, inner = str(node.children[0]), self.eval(node.children[1])
        if ctype in NORM_CASTS:
            src = inner if inner.kind in ("f", "bf") else TV("f", 32, self.to_float(inner, "f", 32, node))
            fn = self.builtins.get(f"f32_to_{ctype}")
            return fn(self, [TV("f", 32, fp.convert(src.data, (src.kind, src.width), ("f", 32)))], node)
        kind, w = C_CASTS[ctype]
        if kind == "f":
            return TV(kind, w, self.to_float(inner, kind, w, node))
        if inner.kind in ("f", "bf", "flit", "flit32"):
            self.need_numpy(node)
            x = inner.data if inner.kind in ("f", "bf") else self.to_float(inner, "f", 64, node)
            return TV(kind, w, self.dom.from_ints(fp.float_to_int(x, kind == "i", w), w))
        return TV(kind, w, self.sized(inner, kind, w))

    def eval(self, node: Any) -> TV:
        if isinstance(node, Token):
            raise self.fail(f"unexpected token {node!s}", node)
        fn = getattr(self, "ex_" + node.data, None)
        if fn is None:
            raise self.fail(f"expression {node.data} is not modelled", node)
        self.tick(node)
        return fn(node)

    def ex_number(self, node: Tree) -> TV:
        return self.realize(_lit_value(str(node.children[0])))

    def realize(self, v: TV) -> TV:
        if v.kind in ("u", "i") and isinstance(v.data, int):
            return TV(v.kind, v.width, self.dom.const(v.data, v.width))
        return v

    def ex_sized_literal(self, node: Tree) -> TV:
        text = str(node.children[0])
        w_s, rest = text.split("'", 1)
        if len(w_s) > 6 or len(rest) > 400:
            raise EvalError(f"literal {text[:40]!r} is too long", self.where, self._line(node))
        width = int(w_s)
        suffix = rest[-1] if rest[-1] in "UIFB" and not rest.lower().startswith("0x") else ""
        if rest.lower().startswith("0x") and rest[-1] in "UI":
            suffix = rest[-1]
        body = rest[: -1] if suffix else rest
        kind = {"U": "u", "I": "i", "B": "b", "F": "f", "": ""}[suffix]
        self.check_width(width, node, "literal", kind)
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
            # dialect rule bare-operands: S0 < S1 in V_CMP_LT_F32 compares as the opcode's type
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
        if name in LANE_ID_NAMES:    # dialect rule thread-id
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
            record = self.record_field(base, name)
            if record is not None:
                return self.lookup(record, node)
            raise self.fail(f"field .{name} of an expression", node)
        if self.regfile_access(base) is not None and self.own_register(base) is None:
            return self.view(self.read_registers(base, vt[1]), *vt)
        return self.view(self.eval_base(base), *vt)

    def record_field(self, base: Any, field_name: str) -> str | None:
        """BARRIER_STATE[3].signalCnt: a field of one record of a state array, as the state name it reads."""
        if not (isinstance(base, Tree) and base.data == "index" and isinstance(base.children[0], Tree)
                and base.children[0].data == "var" and str(base.children[0].children[0]).isupper()):
            return None
        idx = self._maybe_int(self.as_int(self.eval(base.children[1]), base))
        if idx is None:
            raise self.fail(f"a record index of {base.children[0].children[0]} that differs between lanes", base)
        return f"{base.children[0].children[0]}[{idx}].{field_name}"

    def ex_slice(self, node: Tree) -> TV:
        base, hi_n, lo_n = node.children
        varying = self.varying_slice(hi_n, lo_n, node)
        if varying is not None:          # S0[bitsel + 7 : bitsel] with bitsel per lane
            return self.extract(self.eval_base(base), varying[0], varying[1], self._slice_width)
        first = self.concrete_int(self.eval(hi_n), hi_n)
        second = self.concrete_int(self.eval(lo_n), lo_n)
        hi, lo = max(first, second), min(first, second)
        if lo < 0 or hi >= EVAL_MAX_BITS:
            raise EvalError(f"bit range [{first} : {second}] is outside 0..{EVAL_MAX_BITS - 1}", self.where,
                            self._line(node))
        if self.regfile_access(base) is not None and self.own_register(base) is None:
            v = self.read_registers(base, hi + 1)
        else:
            v = self.eval_base(base)
        out = self.extract(v, self.dom.const(lo, 32), 32, hi - lo + 1)
        if self.reverse_slices and first < second:
            # AMD: S0.u[0 : 31] is the field with its bits reversed (V_BFREV_B32)
            return TV(out.kind, out.width, self.reverse(out.data, out.width))
        return out

    def ex_part_select(self, node: Tree) -> TV:
        base, lo_n, w_n = node.children
        width = self.check_width(self.concrete_int(self.eval(w_n), w_n), node, "part select")
        lo = self.as_int(self.eval(lo_n), lo_n)
        lo_d, lo_w = self.bits(lo, 32)
        return self.extract(self.eval_base(base), lo_d, lo_w, width)

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
        if self.regfile_access(node) is not None:
            return self.read_registers(node, 32)
        if isinstance(base, Tree) and base.data == "var" and str(base.children[0]) in ("VGPR", "MEM"):
            raise self.fail(f"{base.children[0]} (memory access, or a register file without [lane][address]) "
                            "is not modelled", node)
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
        self.check_width(width, node, f"{str(spec).strip()} cast", kind)
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
        # dialect rule nan-class: S0.f == NaN, S1.d == sNaN test a class
        for x, y in ((a_n, b_n), (b_n, a_n)):
            if isinstance(y, Tree) and y.data == "var" and str(y.children[0]) in NAN_CLASSES and op in ("==", "!="):
                fn = NAN_CLASSES[str(y.children[0])]
                r = self.builtins[fn](self, [self.eval(x)], node)
                return r if op == "==" else TV("bool", 1, self.dom.lnot(r.data))
        return self.compare_vals(op, self.eval(a_n), self.eval(b_n), node)


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
        if self.calls >= EVAL_MAX_CALLS:
            raise EvalError(f"calls nested more than {EVAL_MAX_CALLS} deep (a recursive lambda?)", self.where,
                            self._line(node))
        saved = {p: self.env.get(p) for p in lam.params}
        for p, a in zip(lam.params, args, strict=True):
            self.env[p] = a
        self.calls += 1
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
            self.calls -= 1
            for p, old in saved.items():
                if old is None:
                    self.env.pop(p, None)
                else:
                    self.env[p] = old

    def call_instruction(self, name: str, found: tuple[str, str, tuple[str, int] | None], args: list[TV],
                         node: Any) -> TV:
        """Run another instruction's pseudocode (v_max_u32(...)) with S0.. bound to the arguments."""
        text, style, operand_type = found
        if self.depth > 8:
            raise self.fail(f"{name}() recursion", node)
        tree = parse_block(text, style, where=name)
        sub = Interp(self.dom, builtins=self.builtins, resolver=self.resolver, where=name,
                     machine=self.machine, lane_ids=self.lane_ids)
        sub.depth = self.depth + 1
        sub.deadline, sub.calls = self.deadline, self.calls + 1
        sub.operand_type = operand_type if style == "table" else None
        sub.exact_table = style == "table"
        for i, a in enumerate(args):
            sub.env[f"S{i}"] = a
        if len(args) == 1:   # a SOPP instruction's one argument is its SIMM16: s_nop(16'0U) (rdna4/README.md:9711)
            sub.env.setdefault("SIMM16", args[0])
        try:
            sub.run(tree)
        finally:
            self.called_steps += sub.steps + sub.called_steps
        out = next((d for d in ("D0", "D") if d in sub.env), None)
        if out is None and not sub.written and not sub.written_registers:
            return TV("lit", 0, 0)      # an instruction with no result (S_NOP) called as a statement
        if out is None:
            raise self.fail(f"{name}() writes no D0", node)
        t = sub.out_type.get(out)
        return sub.view(sub.env[out], *t) if t else sub.env[out]


CONSTANTS: dict[str, TV] = {
    "INF": TV("flit", 0, float("inf")),
    "NAN": TV("flit", 0, float("nan")),
    "PI": TV("flit", 0, 3.141592653589793),
    "true": TV("lit", 0, 1),
    "false": TV("lit", 0, 0),
}

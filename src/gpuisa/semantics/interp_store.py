"""Writes through lvalues: D0.u32 = ..., tmp[15 : 8].u8 = ..., D0.u64[laneId] = ..., {D1.u1, D0.u64} = ...

Mixed into Interp. A write changes only the bits it names and keeps the rest of the variable,
growing it when a slice reaches past its width.
"""

from __future__ import annotations

from typing import Any

from lark import Token, Tree

from gpuisa.semantics import fp
from gpuisa.semantics.errors import EvalError
from gpuisa.semantics.types import TV, ArrayVal, Lambda, parse_view

# Widths of machine state written whole in a concatenation: { PC, EXEC } = SGPR[...].b128 reads "128 bits
# from 4 consecutive SGPRs" (cdna3/README.md:4315), so PC and EXEC are 64 bits each.
STATE_WIDTHS = {"PC": 64, "EXEC": 64, "VCC": 64}


class StoreOps:
    """Mixin for Interp (uses self.env, self.declared, self.active, self.merge ...)."""

    def store(self, target: Tree, value: TV, node: Tree) -> None:
        """Write `value` through an lvalue chain: NAME, .view, [hi:lo], [i], [base +: w]."""
        chain: list[tuple[str, Any]] = []
        t = target
        while t.data != "var":
            own = self.own_register(t)
            if own is not None:
                t = Tree("var", [Token("NAME", own)])
                break
            if self.regfile_access(t) is not None:      # VGPR[lane][addr] / SGPR[addr] (interp_regs)
                chain.reverse()
                self.write_registers(t, chain, value, node)
                return
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
        elif (len(chain) > 1 and chain[0][0] == "index" and chain[1][0] == "view" and parse_view(chain[1][1]) is None
              and name.isupper()):   # BARRIER_STATE[n].signalCnt = ...: one field of one record
            name = self.record_field(Tree("index", [Tree("var", [Token("NAME", name)]), chain[0][1]]), chain[1][1])
            chain = chain[2:]
        if name == "MEM" or name.startswith(("VGPR", "SGPR")):
            raise self.fail(f"{name} (memory access, or a register file without [lane][address]) is not modelled",
                            node)
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
            varying = self.varying_slice(arg[0], arg[1], node)
            if varying is not None:          # D.u[bit + 7 : bit] with `bit` per lane: a fixed-width field
                (lo_d, lo_w), width, need = varying, self._slice_width, None
            else:
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

    def varying_slice(self, hi_n: Any, lo_n: Any, node: Any) -> tuple[Any, int] | None:
        """[hi : lo] whose bounds differ between lanes but not their distance: (per-lane low bit, its width);
        the field width is left in self._slice_width. None when the bounds are the same on every lane."""
        hi_v, lo_v = self.as_int(self.eval(hi_n), hi_n), self.as_int(self.eval(lo_n), lo_n)
        if self._maybe_int(hi_v) is not None and self._maybe_int(lo_v) is not None:
            return None
        diff = self.concrete_int(self.binary("-", hi_v, lo_v, node), node)
        if diff < 0:
            raise self.fail("a reversed bit range whose bounds differ between lanes", node)
        self._slice_width = diff + 1
        return self.bits(lo_v, 32)

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
            elif self.regfile_access(p) is not None:
                w = 32                                     # { TTMP[1], TTMP[0] }: whole registers
            elif isinstance(p, Tree) and p.data == "var" and str(p.children[0]) in STATE_WIDTHS:
                w = STATE_WIDTHS[str(p.children[0])]
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

    def reverse(self, data: Any, w: int) -> Any:
        d = self.dom
        acc = d.const(0, w)
        for i in range(w):
            bit = d.band(d.lshr(data, d.const(i, w), w), d.const(1, w), w)
            acc = d.bor(acc, d.shl(bit, d.const(w - 1 - i, w), w), w)
        return acc

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


"""The register files the pseudocode indexes: VGPR[lane][addr], SGPR[addr] (MOVREL, READLANE, PERMLANE ...),
TTMP[n] and HW_REGISTERS[id].

Mixed into Interp. Registers are 32 bits; a wider view (SGPR[addr].b64) spans consecutive
registers, low register first (the manuals' S_MOVRELS_B64 needs an even index for that reason,
rdna3/README.md:7689). The caller gives the registers an evaluation reads (`VGPR[17]=5`, one
value or one per lane); reading one it did not give is an error naming it, as for any operand.
Written registers come back as results named the same way. A lane index is a lane of the
evaluated wave (domain lanes); SGPRs hold one value per evaluated lane, like every scalar here.
Only the numpy domain models them: a proof over a whole register file is out of scope.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
from lark import Tree

from gpuisa.semantics.errors import EvalError
from gpuisa.semantics.types import TV, parse_view

# Files indexed by one address, one 32-bit value per wave: SGPRs, the trap temporaries (S_TRAP writes
# { TTMP[1], TTMP[0] }, rdna3/README.md:8279) and the hardware registers S_SETREG / S_GETREG address by id.
SCALAR_FILES = ("SGPR", "TTMP", "HW_REGISTERS")
REGISTER_FILES = ("VGPR", *SCALAR_FILES)
REGISTER_NAME = re.compile(r"^(VGPR|SGPR|TTMP|HW_REGISTERS)\[(\d+)\]$")
MAX_REGISTER = 1 << 16        # addresses beyond any register file (VGPRs 0-511 plus AGPRs, SGPRs 0-127)
_MASK32 = np.uint64(0xFFFFFFFF)


def register_name(file: str, addr: int) -> str:
    return f"{file}[{addr}]"


class RegisterOps:
    """Mixin for Interp: reads and writes through VGPR[lane][addr] and SGPR[addr]."""

    def regfile_access(self, node: Any) -> tuple[str, Tree | None, Tree] | None:
        """(file, lane node or None, address node) when `node` is VGPR[lane][addr] or SGPR[addr]."""
        if not (isinstance(node, Tree) and node.data == "index"):
            return None
        base, idx = node.children
        if isinstance(base, Tree) and base.data == "var" and str(base.children[0]) in SCALAR_FILES:
            return str(base.children[0]), None, idx
        if (isinstance(base, Tree) and base.data == "index" and isinstance(base.children[0], Tree)
                and base.children[0].data == "var" and str(base.children[0].children[0]) == "VGPR"):
            return "VGPR", base.children[1], idx
        return None

    def _reg_coords(self, access: tuple[str, Tree | None, Tree], node: Any) -> tuple[str, np.ndarray, np.ndarray | None]:
        """Per evaluated lane: the register address and (VGPR) the lane it names (None: its own lane)."""
        self.need_numpy(node)
        file, lane_n, addr_n = access
        addr = self._lane_ints(self.eval(addr_n), addr_n)
        if ((addr < 0) | (addr >= MAX_REGISTER)).any():
            raise EvalError(f"register address {int(addr.max())} is outside the register file", self.where,
                            self._line(node))
        lanes = None
        if lane_n is not None and not (isinstance(lane_n, Tree) and lane_n.data == "var"
                                       and str(lane_n.children[0]) in ("laneId", "threadId")):
            lanes = self._lane_ints(self.eval(lane_n), lane_n)
            if ((lanes < 0) | (lanes >= self.dom.n)).any():
                raise EvalError(f"lane {int(lanes.max())} is outside the {self.dom.n} lanes evaluated", self.where,
                                self._line(node))
        return file, addr, lanes

    def _lane_ints(self, v: TV, node: Any) -> np.ndarray:
        v = self.as_int(v, node)
        if v.kind == "lit":
            return np.full(self.dom.n, int(v.data), dtype=np.int64)
        data, w = self.bits(v)
        vals = self.dom.signed_ints(data, w) if v.kind == "i" else data
        ints = [int(x) for x in np.broadcast_to(vals, (self.dom.n,))]
        if any(not -MAX_REGISTER <= x < MAX_REGISTER for x in ints):
            raise EvalError(f"register address or lane {max(ints, key=abs)} is outside the register file", self.where,
                            self._line(node))
        return np.array(ints, dtype=np.int64)

    def _register(self, file: str, addr: int, node: Any) -> np.ndarray:
        regs = self.regfiles.setdefault(file, {})
        if addr not in regs:
            name = register_name(file, addr)
            err = EvalError(f"register {name} has no value; give it as {name}=VALUE", self.where, self._line(node))
            err.missing = name  # type: ignore[attr-defined]
            raise err
        return regs[addr]

    def read_registers(self, node: Any, width: int) -> TV:
        """`width` bits (whole registers) at VGPR[lane][addr] / SGPR[addr], per evaluated lane."""
        access = self.regfile_access(node)
        assert access is not None
        file, addr, lanes = self._reg_coords(access, node)
        count = -(-width // 32)
        src = np.arange(self.dom.n) if lanes is None else lanes
        out = np.zeros(self.dom.n, dtype=object if 32 * count > 64 else np.uint64)
        for k in range(count):
            word = np.array([int(self._register(file, int(a) + k, node)[int(s)]) for a, s in zip(addr, src, strict=True)],
                            dtype=out.dtype)
            out = out | (word << (np.uint64(32 * k) if out.dtype != object else 32 * k))
        return TV("b", 32 * count, out)

    def register_width(self, chain: list[tuple[str, Any]]) -> tuple[int, bool]:
        """Bits a register access touches given what follows it (.b64, [hi : lo]), and whether all are written."""
        if chain and chain[0][0] == "view":
            vt = parse_view(chain[0][1])
            if vt is not None:
                w = vt[1]
                return max(32, -(-w // 32) * 32), len(chain) == 1 and w % 32 == 0
        if chain and chain[0][0] == "slice":
            hi = self.concrete_int(self.eval(chain[0][1][0]), chain[0][1][0])
            lo = self.concrete_int(self.eval(chain[0][1][1]), chain[0][1][1])
            return max(32, -(-(max(hi, lo) + 1) // 32) * 32), False
        return 32, not chain

    def write_registers(self, target: Tree, chain: list[tuple[str, Any]], value: TV, node: Tree) -> None:
        """VGPR[lane][addr](.view / [hi : lo]) = value, on the active lanes; other bits of a register are kept."""
        access = self.regfile_access(target)
        assert access is not None
        width, whole = self.register_width(chain)
        file, addr, lanes = self._reg_coords(access, node)
        old = None if whole else self.read_registers(target, width)
        new = self.write_chain(old, chain, value, ("b", width) if whole else None, node)
        data, w = self.bits(new, width)
        data = np.broadcast_to(self.dom.resize(data, w, width, False), (self.dom.n,))
        active = np.ones(self.dom.n, dtype=bool) if self.active is None else np.broadcast_to(self.active, (self.dom.n,))
        regs = self.regfiles.setdefault(file, {})
        for lane in np.nonzero(active)[0]:
            dest = lane if lanes is None else int(lanes[lane])
            word_all = int(data[lane])
            for k in range(width // 32):
                a = int(addr[lane]) + k
                if a not in regs:
                    regs[a] = np.zeros(self.dom.n, dtype=np.uint64)
                regs[a][dest] = np.uint64((word_all >> (32 * k)) & 0xFFFFFFFF)
                name = register_name(file, a)
                if name not in self.written_registers:
                    self.written_registers.append(name)

    def give_register(self, name: str, value: Any) -> None:
        """Caller input VGPR[7]=5 (one value, or one per evaluated lane)."""
        m = REGISTER_NAME.match(name)
        assert m is not None
        arr = np.asarray(value)
        if arr.dtype.kind == "f":
            raise EvalError(f"register {name} takes a 32-bit integer (raw bits), not a float", self.where)
        ints = np.broadcast_to(arr.astype(object), (self.dom.n,))
        self.regfiles.setdefault(m.group(1), {})[int(m.group(2))] = np.array(
            [int(x) & 0xFFFFFFFF for x in ints], dtype=np.uint64)

    def register_results(self) -> dict[str, np.ndarray]:
        """Registers written, per lane, in the order first written."""
        out = {}
        for name in self.written_registers:
            m = REGISTER_NAME.match(name)
            assert m is not None
            out[name] = self.regfiles[m.group(1)][int(m.group(2))] & _MASK32
        return out

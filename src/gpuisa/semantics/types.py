"""Typed values of the pseudocode: a kind, a bit width and per-lane data from a Domain.

Kinds: 'u' unsigned, 'i' signed, 'b' raw bits (arithmetic treats them as unsigned),
'f' IEEE float (16/32/64), 'bf' bfloat16, 'bool', and the unsized literals 'lit' (a Python
int, takes the type of the other operand) and 'flit' (a Python float, likewise). Keeping the
width with every value is what lets the evaluator wrap exactly where the manual's types say.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

INT_KINDS = frozenset({"u", "i", "b"})
FLOAT_KINDS = frozenset({"f", "bf"})


@dataclass(slots=True)
class TV:
    kind: str
    width: int
    data: Any

    @property
    def is_int(self) -> bool:
        return self.kind in INT_KINDS

    @property
    def is_float(self) -> bool:
        return self.kind in FLOAT_KINDS

    @property
    def signed(self) -> bool:
        return self.kind == "i"


# Views: D0.u32, S1.i16, S0.f, D.d (older manuals), S0.bf16. `.u` `.i` `.f` `.b` mean 32 bits.
_VIEW = re.compile(r"^(u|i|b|f|bf|fp|iu|d)(\d*)$")
_SHORT = {"u": ("u", 32), "i": ("i", 32), "b": ("b", 32), "f": ("f", 32), "d": ("f", 64)}


def parse_view(name: str) -> tuple[str, int] | None:
    """(kind, width) for a type view name, or None when `name` is a field (WAVE_MODE.IEEE)."""
    m = _VIEW.match(name)
    if not m:
        return None
    base, digits = m.group(1), m.group(2)
    if not digits:
        return _SHORT.get(base)
    width = int(digits)
    if base == "d":
        return None
    if base == "f":
        return ("f", width) if width in (16, 32, 64) else None
    if base == "bf":
        # bf16 is a float format; bf8/bf6 are 8/6-bit float encodings handled as bits
        return ("bf", 16) if width == 16 else ("b", width)
    if base in ("fp", "iu"):
        return ("b", width)
    return (base, width) if 1 <= width <= 1024 else None


def cast_type(spec: str) -> tuple[str, int]:
    """(kind, width) of a cast or declaration spec such as 32'U, 64'F, 16'BF, 3'I."""
    width_s, kind_s = spec.split("'")
    width = int(width_s)
    kind = {"U": "u", "I": "i", "B": "b", "F": "f", "BF": "bf"}[kind_s]
    if kind == "f" and width not in (16, 32, 64):
        raise ValueError(f"no {width}-bit float format")
    return kind, width


_NAME_TYPE = re.compile(r"_(F|I|U|B|BF)(16|32|64|8)$")


def operand_type_of(name: str) -> tuple[str, int] | None:
    """Source operand type implied by an opcode name: V_CMP_LT_F32 -> ('f', 32), S_AND_B64 -> ('b', 64)."""
    m = _NAME_TYPE.search(name.upper())
    if not m:
        return None
    kind = {"F": "f", "I": "i", "U": "u", "B": "b", "BF": "bf"}[m.group(1)]
    width = int(m.group(2))
    if kind == "f" and width not in (16, 32, 64):
        return None
    if kind == "bf":
        return ("bf", 16) if width == 16 else None
    return kind, width


@dataclass
class Lambda:
    """A lambda / `NAME(x, y) := expr` definition: an expression, or statements with return."""

    params: list[str]
    body: Any
    block: bool


@dataclass
class ArrayVal:
    """`declare in : 8'B[8]` (fixed element type) or a PTX array made by element writes."""

    elem: tuple[str, int]
    items: list[TV] = field(default_factory=list)

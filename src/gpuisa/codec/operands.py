"""Operand values <-> LLVM text: registers, inline constants, literals (printing and parsing).

Spellings and codes come from the named tables in codec/syntax.py.
"""

from __future__ import annotations

import math
import re
import struct

from gpuisa.codec.syntax import (
    INLINE_FLOATS,
    INV_2PI_BITS,
    INV_2PI_F64_SPELLING,
    LITERAL,
    SPECIAL_CODES,
    SPECIALS,
    float_bits,
    reg_range,
    sgpr_limit,
)


class OperandError(ValueError):
    """An operand that does not fit: the message says why (the parser adds line:column)."""


def scalar_name(code: int, dwords: int, gen: int) -> str | None:
    """Text of a scalar register code (SGPR, TTMP, VCC, EXEC, M0, NULL ...), or None if not a register."""
    if code <= sgpr_limit(gen):
        if gen == 9 and code > 101:
            return None
        return reg_range("s", code, dwords)
    if 108 <= code <= 123:
        return reg_range("ttmp", code - 108, dwords)
    table = SPECIALS[gen]
    if dwords == 2 and (code | 0x1000) in table:
        return table[code | 0x1000].name
    sp = table.get(code)
    if sp is None:
        return None
    if dwords > 1 and code in (106, 126, 102, 104):
        return None
    return sp.name


def inline_text(code: int, bits: int = 32, is_float: bool = True) -> str | None:
    """Text of an inline constant code (128-208 integers, 240-248 floats), else None."""
    if 128 <= code <= 192:
        return str(code - 128)
    if 193 <= code <= 208:
        return str(192 - code)
    if code in INLINE_FLOATS:
        if code == 248 and bits == 64:
            return INV_2PI_F64_SPELLING
        return INLINE_FLOATS[code][0]
    return None


def source_text(code: int, dwords: int, gen: int, literal: int | None = None) -> str | None:
    """Text of a 9-bit (or 8-bit scalar) source code."""
    if code >= 256:
        return reg_range("v", code - 256, dwords)
    if code == LITERAL:
        return None if literal is None else f"0x{literal:x}"
    s = scalar_name(code, dwords, gen)
    if s is not None:
        return s
    return inline_text(code, 64 if dwords == 2 else 32)


# --------------------------------------------------------------------------------- parsing

_REG = re.compile(r"^(v|s|ttmp|a)(?:(\d+)|\[(\d+)(?::(\d+))?\])$")
_INT = re.compile(r"^-?(?:0x[0-9a-f]+|0b[01]+|\d+)$")


def parse_register(text: str) -> tuple[str, int, int] | None:
    """('v'|'s'|'ttmp'|'a', first, dwords) for v5, s[2:3], ttmp[4:7], else None."""
    m = _REG.match(text)
    if not m:
        return None
    kind, single, lo, hi = m.groups()
    if single is not None:
        return kind, int(single), 1
    first = int(lo)
    last = int(hi) if hi is not None else first
    if last < first:
        raise OperandError(f"register range {text} runs backwards")
    return kind, first, last - first + 1


def parse_int(text: str) -> int | None:
    t = text.strip().lower()
    if not _INT.match(t):
        return None
    neg = t.startswith("-")
    body = t[1:] if neg else t
    v = int(body, 0)
    return -v if neg else v


def parse_float(text: str) -> float | None:
    try:
        v = float(text)
    except ValueError:
        return None
    return v if math.isfinite(v) else None


def scalar_code(text: str, dwords: int, gen: int) -> int | None:
    """Code of a scalar register spelled `text` (s5, s[2:3], vcc, exec_lo, m0, null, ttmp[0:1] ...)."""
    reg = parse_register(text)
    if reg is not None:
        kind, first, n = reg
        if n != dwords and not (dwords == 1 and n == 1):
            raise OperandError(f"{text} is {n} dword(s), the operand takes {dwords}")
        if kind == "s":
            if first > sgpr_limit(gen):
                raise OperandError(f"{text}: no such SGPR on this target")
            if n > 1 and first % 2:
                raise OperandError(f"{text}: a register pair must start at an even SGPR")
            return first
        if kind == "ttmp":
            if first > 15:
                raise OperandError(f"{text}: no such trap temporary")
            return 108 + first
        return None
    codes = SPECIAL_CODES[gen]
    name = text
    if name in codes:
        code = codes[name]
        single = SPECIALS[gen].get(code)
        pair = SPECIALS[gen].get(code | 0x1000)
        if pair is not None and pair.name == name and (single is None or single.name != name) and dwords == 1:
            raise OperandError(f"{text} is 64 bits; this operand takes a 32-bit register (use {name}_lo)")
        if single is not None and single.name == name and pair is not None and pair.name != name and dwords == 2:
            raise OperandError(f"{text} is 32 bits; this operand takes a 64-bit register (use {pair.name})")
        return code
    alias = {"shared_base": "src_shared_base", "shared_limit": "src_shared_limit", "private_base": "src_private_base",
             "private_limit": "src_private_limit", "vccz": "src_vccz", "execz": "src_execz", "scc": "src_scc",
             "lds_direct": "src_lds_direct", "pops_exiting_wave_id": "src_pops_exiting_wave_id"}.get(name)
    if alias and alias in codes:
        return codes[alias]
    return None


def inline_code(text: str, bits: int, is_float: bool) -> int | None:
    """Inline-constant code for an integer or float spelling, or None when it needs a literal."""
    i = parse_int(text)
    if i is not None:
        if 0 <= i <= 64:
            return 128 + i
        if -16 <= i <= -1:
            return 192 - i
        size = 64 if bits == 64 else bits
        if bits != 64 and 0 <= i < (1 << size) and i >> (size - 1):   # -1 .. -16 written as unsigned
            signed = i - (1 << size)
            if -16 <= signed <= -1:
                return 192 - signed
        if is_float:   # a bit pattern equal to an inline float constant
            for code, (_s, value) in INLINE_FLOATS.items():
                size = 64 if bits == 64 else bits
                if size in (16, 32, 64) and i & ((1 << size) - 1) == float_bits(value, size) and not (code == 248
                                                                                                   and size == 16):
                    return code
            if i in INV_2PI_BITS.values() and INV_2PI_BITS.get(bits) == i:
                return 248
        return None
    f = parse_float(text)
    if f is None:
        return None
    if f == 0.0:
        return 128
    for code, (_spelling, value) in INLINE_FLOATS.items():
        if code == 248:
            size = bits if bits in (16, 32, 64) else 32
            if float_bits(f, size) == float_bits(value, size):
                return code
        elif f == value:
            return code
    return None


def bf16_bits(x: float) -> int:
    """The bfloat16 pattern nearest a float, ties to even, as LLVM's APFloat converts a literal
    (gfx950_xdlops.s:103 `v_dot2c_f32_bf16_e32 v5, 10.1, v2` -> 0x4122, not the truncated 0x4121); rounded from the
    float32 pattern, with the float32 rounding's direction deciding a tie it made."""
    f32 = struct.unpack("<I", struct.pack("<f", x))[0]
    low, high = f32 & 0xFFFF, f32 >> 16
    if low > 0x8000 or (low == 0x8000 and (high & 1 if struct.unpack("<f", struct.pack("<I", f32))[0] == x
                                           else abs(x) > abs(struct.unpack("<f", struct.pack("<I", f32))[0]))):
        high += 1
    return high & 0xFFFF


def literal_value(text: str, bits: int, is_float: bool) -> int | None:
    """32-bit literal dword for an integer or float spelling that is not an inline constant."""
    i = parse_int(text)
    if i is not None:
        if i < -(1 << 31) or i >= (1 << 32):
            if bits == 64 and -(1 << 63) <= i < (1 << 64):
                if is_float and i & 0xFFFFFFFF == 0:
                    return (i >> 32) & 0xFFFFFFFF
                if not is_float and -(1 << 31) <= i < (1 << 32):
                    return i & 0xFFFFFFFF
            raise OperandError(f"literal {text} does not fit in 32 bits")
        return i & 0xFFFFFFFF
    f = parse_float(text)
    if f is None:
        return None
    pattern = float_bits(f, bits if bits in (16, 64) else 32)
    if pattern is None:
        raise OperandError(f"{text} does not fit in a {bits}-bit float")
    return (pattern >> 32) & 0xFFFFFFFF if bits == 64 else pattern

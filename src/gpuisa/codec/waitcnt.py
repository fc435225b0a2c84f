"""s_waitcnt's symbolic operand: vmcnt(N) expcnt(N) lgkmcnt(N), both ways.

Where each counter sits in SIMM16 differs per generation; LLVM's operand page for the target says
(AMDGPU/gfx9_waitcnt.rst "High Bits / Low Bits": VM_CNT 15:14 and 3:0; gfx11_waitcnt.rst "Bits":
VM_CNT 15:10). The page is the one the syntax row links (Operand.page), read here, not copied.
llvm-mc prints the counters that are below their maximum, or all three when none is.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

COUNTERS = (("VM_CNT", "vmcnt"), ("EXP_CNT", "expcnt"), ("LGKM_CNT", "lgkmcnt"))
_RANGE = re.compile(r"^\d+:\d+$")
_TERM = re.compile(r"([a-z_]+)\(\s*([^)]*?)\s*\)")

Fields = tuple[tuple[str, tuple[tuple[int, int], ...]], ...]


@functools.lru_cache(maxsize=16)
def fields_of(docs_dir: Path, page: str) -> Fields:
    """(counter, bit ranges MSB first) from the operand page `page` (label amdgpu_synid_<file stem>)."""
    stem = page.removeprefix("amdgpu_synid_")
    path = docs_dir / "AMDGPU" / f"{stem}.rst"
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        words = line.split()
        for cnt, name in COUNTERS:
            at = next((i for i, w in enumerate(words) if w.startswith(cnt + ":")), None)
            if at is None:
                continue
            ranges = tuple((int(w.split(":")[0]), int(w.split(":")[1])) for w in words[:at] if _RANGE.match(w))
            if ranges:
                out.append((name, ranges))
    if not out:
        raise ValueError(f"{path} has no counter table")
    return tuple(out)


def _get(value: int, ranges: tuple[tuple[int, int], ...]) -> int:
    out = 0
    for hi, lo in ranges:
        out = (out << (hi - lo + 1)) | ((value >> lo) & ((1 << (hi - lo + 1)) - 1))
    return out


def _max(ranges: tuple[tuple[int, int], ...]) -> int:
    return (1 << sum(hi - lo + 1 for hi, lo in ranges)) - 1


def to_text(fields: Fields, value: int) -> str:
    """llvm-mc's spelling of a waitcnt value; bits outside the counters are not shown (gfx9_asm_sopp.s:167:
    s_waitcnt 0x3141 prints vmcnt(1) expcnt(4) lgkmcnt(1))."""
    order = [n for _c, n in COUNTERS]
    counts = [(name, _get(value, ranges), _max(ranges))
              for name, ranges in sorted(fields, key=lambda f: order.index(f[0]))]
    shown = [(n, c) for n, c, m in counts if c != m] or [(n, c) for n, c, _m in counts]
    return " ".join(f"{n}({c})" for n, c in shown)


def from_text(fields: Fields, text: str) -> int:
    """The SIMM16 of `vmcnt(N) & expcnt(N), lgkmcnt_sat(N)` (absent counters at their maximum)."""
    by_name = dict(fields)
    value = 0
    for _name, ranges in fields:
        value |= _put(ranges, _max(ranges))
    rest = _TERM.sub("", text)
    if rest.replace("&", "").replace(",", "").strip():
        raise ValueError(f"{text!r} is not a waitcnt expression")
    for name, arg in _TERM.findall(text):
        sat = name.endswith("_sat")
        base = name.removesuffix("_sat")
        if base not in by_name:
            raise ValueError(f"{name} is not a counter on this target")
        ranges = by_name[base]
        n = int(arg, 0)
        top = _max(ranges)
        if sat:
            n = min(n, top)
        if not 0 <= n <= top:
            raise ValueError(f"{name}({arg}) exceeds {top}")
        value &= ~_put(ranges, top)
        value |= _put(ranges, n)
    return value


def _put(ranges: tuple[tuple[int, int], ...], v: int) -> int:
    out = 0
    for hi, lo in reversed(ranges):
        w = hi - lo + 1
        out |= (v & ((1 << w) - 1)) << lo
        v >>= w
    return out

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


# ------------------------------------------------------------------ s_waitcnt_depctr / s_wait_alu

# Where each dependency counter's wait value sits in SIMM16. LLVM's operand pages (gfx10/gfx1030/
# gfx11_waitcnt_depctr.rst) give the counters a target has, their ranges and defaults, not their bits;
# the RDNA2 manual's S_WAITCNT_DEPCTR row gives the bits (amd-isa-manuals/rdna2/README.md:3217:
# "va_vdst <= SIMM16[15:12] ... sa_sdst == 0 || SIMM16[0] == 1"), and LLVM's tests agree
# (gfx1030_new.txt:126 `depctr_hold_cnt(0)` is 0xff1f: bit 7 clear; gfx10_sopp.txt:317
# `depctr_va_vdst(0)` is 0x0f1f: bits 15:12 clear).
DEPCTR_MANUAL = "amd-isa-manuals/rdna2/README.md:3217"
DEPCTR_BITS: dict[str, tuple[int, int]] = {
    "va_vdst": (15, 12), "va_sdst": (11, 9), "va_ssrc": (8, 8), "hold_cnt": (7, 7),
    "vm_vsrc": (4, 2), "va_vcc": (1, 1), "sa_sdst": (0, 0),
}
_DEPCTR_ROW = re.compile(r"^\s*depctr_([a-z_]+)\(<\*N\*>\)\s.*?\s(\d+)\.\.(\d+)\s+(\d+)\s*$")

DepctrFields = tuple[tuple[str, tuple[int, int], int, int], ...]    # (name, bits, max, default)


@functools.lru_cache(maxsize=16)
def depctr_fields_of(docs_dir: Path, page: str) -> DepctrFields:
    """The counters of a waitcnt_depctr page in its order (llvm-mc prints them in that order):
    (name, bits from DEPCTR_BITS, the page's largest value, the page's default)."""
    path = docs_dir / "AMDGPU" / f"{page.removeprefix('amdgpu_synid_')}.rst"
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        m = _DEPCTR_ROW.match(line)
        if m is None:
            continue
        name, top, default = m.group(1), int(m.group(3)), int(m.group(4))
        bits = DEPCTR_BITS.get(name)
        if bits is None or top != (1 << (bits[0] - bits[1] + 1)) - 1:
            raise ValueError(f"{path}: depctr_{name} 0..{top} does not match {DEPCTR_MANUAL}")
        out.append((name, bits, top, default))
    if not out:
        raise ValueError(f"{path} has no depctr counter table")
    return tuple(out)


def depctr_default(fields: DepctrFields) -> int:
    """SIMM16 with every counter at its default (bits no counter uses are clear)."""
    return sum(d << lo for _n, (_hi, lo), _t, d in fields)


def depctr_to_text(fields: DepctrFields, value: int) -> str:
    """llvm-mc's spelling (AMDGPUInstPrinter::printDepCtr): the counters off their default, all of them
    when none is, or hex when a bit no counter uses is set (gfx1030_new.txt:114 `s_waitcnt_depctr 0x20`)."""
    used = sum(((1 << (hi - lo + 1)) - 1) << lo for _n, (hi, lo), _t, _d in fields)
    if value & ~used & 0xFFFF:
        return f"0x{value:x}"
    vals = [(n, (value >> lo) & top, d) for n, (_hi, lo), top, d in fields]
    shown = [(n, v) for n, v, d in vals if v != d] or [(n, v) for n, v, _d in vals]
    return " ".join(f"depctr_{n}({v})" for n, v in shown)


def depctr_from_text(fields: DepctrFields, text: str) -> int:
    """The SIMM16 of `depctr_va_vdst(1) & depctr_sa_sdst(0), ...` (absent counters at their default)."""
    by_name = {n: (bits, top) for n, bits, top, _d in fields}
    rest = _TERM.sub("", text)
    if rest.replace("&", "").replace(",", "").strip():
        raise ValueError(f"{text!r} is not a depctr expression")
    value = depctr_default(fields)
    for name, arg in _TERM.findall(text):
        key = name.removeprefix("depctr_")
        if not name.startswith("depctr_") or key not in by_name:
            raise ValueError(f"{name} is not a dependency counter on this target")
        (_hi, lo), top = by_name[key]
        n = int(arg, 0)
        if not 0 <= n <= top:
            raise ValueError(f"{name}({arg}) exceeds {top}")
        value = (value & ~(top << lo)) | (n << lo)
    return value


# ------------------------------------------------------------------ s_delay_alu

# s_delay_alu's operand: ID0, SKIP and ID1 in the bits its page gives (gfx11_delay.rst, gfx12_operands.rst "A delay
# between dependent SALU/VALU instructions": 3:0 ID0, 6:4 SKIP, 10:7 ID1), each value named by its place in the page's
# name tables (NO_DEP, VALU_DEP_1 ... SALU_CYCLE_3; SAME, NEXT, SKIP_1 ...), spelled instid0(..) | instskip(..) |
# instid1(..): gfx12_dasm_sopp.txt `s_delay_alu instid0(VALU_DEP_1) | instskip(NEXT) | instid1(VALU_DEP_1)` for 0x91.
_DELAY_BITS = re.compile(r"^\s*(\d+):(\d+)\s+(ID0|SKIP|ID1):")
_DELAY_NAME = re.compile(r"^\s{4}([A-Z][A-Z0-9_]*)\s{2,}\S")
DELAY_TERMS = (("ID0", "instid0"), ("SKIP", "instskip"), ("ID1", "instid1"))
_DELAY_TERM = re.compile(r"([a-z_0-9]+)\(\s*([^)]*?)\s*\)")

DelayFields = tuple[tuple[str, int, int, tuple[str, ...]], ...]   # (term, low bit, bits, names by value)


def _page_lines(docs_dir: Path, page: str) -> list[str]:
    """The lines of an operand page: its own file (gfx11_delay.rst), or its section of the generation's operands
    file (gfx12_operands.rst, from `.. _<label>:` to the next label)."""
    stem = page.removeprefix("amdgpu_synid_")
    own = docs_dir / "AMDGPU" / f"{stem}.rst"
    if own.is_file():
        return own.read_text(encoding="utf-8").splitlines()
    lines = (docs_dir / "AMDGPU" / f"{stem.split('_')[0]}_operands.rst").read_text(encoding="utf-8").splitlines()
    start = lines.index(f".. _{page}:")
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith(".. _amdgpu_synid")), len(lines))
    return lines[start:end]


@functools.lru_cache(maxsize=16)
def delay_fields_of(docs_dir: Path, page: str) -> DelayFields:
    """(term, low bit, bits, names) of ID0, SKIP and ID1 from a delay page: the bit table and the two name tables."""
    lines = _page_lines(docs_dir, page)
    bits = {m.group(3): (int(m.group(2)), int(m.group(1)) - int(m.group(2)) + 1)
            for line in lines if (m := _DELAY_BITS.match(line))}
    tables: dict[str, list[str]] = {"ID": [], "SKIP": []}
    current = None
    for line in lines:
        if "*ID names*" in line:
            current = "ID"
        elif "*SKIP names*" in line:
            current = "SKIP"
        elif current and (m := _DELAY_NAME.match(line)) and m.group(1) != "Name":
            tables[current].append(m.group(1))
    if set(bits) != {"ID0", "SKIP", "ID1"} or not tables["ID"] or not tables["SKIP"]:
        raise ValueError(f"operand page {page} has no delay tables")
    return tuple((term, *bits[field], tuple(tables["SKIP" if field == "SKIP" else "ID"])) for field, term in DELAY_TERMS)


def delay_to_text(fields: DelayFields, value: int) -> str:
    """llvm-mc's spelling: the terms off their default (value 0), `0` when none is, hex when a bit outside the
    fields is set or a value has no name."""
    used = sum(((1 << n) - 1) << lo for _t, lo, n, _names in fields)
    parts = []
    for term, lo, n, names in fields:
        v = (value >> lo) & ((1 << n) - 1)
        if v >= len(names):
            return f"0x{value:x}"
        if v:
            parts.append(f"{term}({names[v]})")
    if value & ~used & 0xFFFF:
        return f"0x{value:x}"
    return " | ".join(parts) if parts else "0"


def delay_from_text(fields: DelayFields, text: str) -> int:
    """The SIMM16 of `instid0(VALU_DEP_1) | instskip(NEXT) | instid1(VALU_DEP_1)`."""
    by_term = {t: (lo, names) for t, lo, _n, names in fields}
    if _DELAY_TERM.sub("", text).replace("|", "").strip():
        raise ValueError(f"{text!r} is not a delay expression")
    value = 0
    for name, arg in _DELAY_TERM.findall(text):
        if name not in by_term:
            raise ValueError(f"{name} is not a delay term")
        lo, names = by_term[name]
        if arg.upper() not in names:
            raise ValueError(f"{name}({arg}): not one of {', '.join(names)}")
        value |= names.index(arg.upper()) << lo
    return value

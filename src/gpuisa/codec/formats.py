"""Buffer formats of MTBUF / typed VBUFFER instructions (the `format:` modifier), both spellings.

gfx9 encodes a data format (DFMT, 4 bits) and a numeric format (NFMT, 3 bits); gfx10+ one unified
format (7 bits). The names and their order (the code is the row's position) are LLVM's tables in
AMDGPUModifierSyntax.rst (`format`: data and numeric formats; `ufmt`: unified formats with their
data/numeric equivalents, rows marked "GFX10 only" absent from gfx11 on). Read from the docs, not
copied: the docs folder is the one the syntax rows come from.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

DFMT_DEFAULT = 1        # BUF_DATA_FORMAT_8 ("The default value.")
NFMT_DEFAULT = 0        # BUF_NUM_FORMAT_UNORM
UFMT_DEFAULT = 1        # BUF_FMT_8_UNORM ("The default format is BUF_FMT_8_UNORM.")

_ROW = re.compile(r"^\s{4}(BUF_\w+)(.*)$")


@dataclass(frozen=True, slots=True)
class FormatNames:
    """The format tables of one generation."""

    dfmt: tuple[str, ...]                               # code -> BUF_DATA_FORMAT_*
    nfmt: tuple[str, ...]                               # code -> BUF_NUM_FORMAT_*
    unified: tuple[str, ...]                            # code -> BUF_FMT_* (gfx10+)
    equivalent: dict[tuple[str, str], str]              # (data, numeric) -> BUF_FMT_*


def _section(lines: list[str], title: str) -> list[str]:
    start = next(i for i, ln in enumerate(lines) if ln.strip() == title)
    end = next((i for i in range(start + 3, len(lines)) if re.match(r"^[A-Za-z].*$", lines[i])
                and lines[i + 1:i + 2] and set(lines[i + 1].strip()) <= {"~", "-", "="} and lines[i + 1].strip()),
               len(lines))
    return lines[start:end]


@functools.lru_cache(maxsize=8)
def names_for(docs_dir: Path, gen: int) -> FormatNames:
    """Format names of generation `gen` from AMDGPUModifierSyntax.rst in `docs_dir`."""
    lines = (docs_dir / "AMDGPUModifierSyntax.rst").read_text(encoding="utf-8").splitlines()
    fmt = _section(lines, "format")
    dfmt: list[str] = []
    nfmt: list[str] = []
    for ln in fmt:
        m = _ROW.match(ln)
        if not m:
            continue
        name, note = m.group(1), m.group(2)
        if name.startswith("BUF_DATA_FORMAT_") and name not in dfmt:
            dfmt.append(name)
        elif name.startswith("BUF_NUM_FORMAT_") and name not in nfmt:
            if "GFX7 only" in note and gen >= 8:
                continue
            if "GFX8 and GFX9 only" in note and not 8 <= gen <= 9:
                nfmt.append("")      # the code stays taken (FLOAT is 7 everywhere)
                continue
            nfmt.append(name)
    unified: list[str] = []
    equivalent: dict[tuple[str, str], str] = {}
    for ln in _section(lines, "ufmt"):
        m = _ROW.match(ln)
        if not m or not m.group(1).startswith("BUF_FMT_"):
            continue
        parts = m.group(2).split()
        if "GFX10" in m.group(2) and gen >= 11:
            continue
        unified.append(m.group(1))
        if len(parts) >= 2:
            equivalent[(parts[0], parts[1])] = m.group(1)
    return FormatNames(tuple(dfmt), tuple(nfmt), tuple(unified), equivalent)


def print_format(names: FormatNames, gen: int, value: int, nfmt: int = 0) -> str | None:
    """The `format:` modifier llvm-mc prints (None for the default format)."""
    if gen < 10:
        dfmt = value
        if dfmt == DFMT_DEFAULT and nfmt == NFMT_DEFAULT:
            return None
        if dfmt >= len(names.dfmt) or nfmt >= len(names.nfmt) or not names.nfmt[nfmt]:
            return f"format:{dfmt | (nfmt << 4)}"
        parts = ([names.dfmt[dfmt]] if dfmt != DFMT_DEFAULT else []) + \
            ([names.nfmt[nfmt]] if nfmt != NFMT_DEFAULT else [])
        return "format:[" + ",".join(parts) + "]"
    if value == UFMT_DEFAULT:
        return None
    if value < len(names.unified):
        return f"format:[{names.unified[value]}]"
    return f"format:{value}"


def parse_format(names: FormatNames, gen: int, text: str) -> tuple[int, int]:
    """(format or data format, numeric format) of a `format:` value; ValueError when unknown."""
    text = text.strip()
    if not (text.startswith("[") and text.endswith("]")):
        v = int(text, 0)
        if not 0 <= v <= 127:
            raise ValueError(f"format {v} is out of range 0..127")
        return (v & 0xF, v >> 4) if gen < 10 else (v, 0)
    items = [x.strip().upper() for x in text[1:-1].split(",") if x.strip()]
    dfmt, nfmt, ufmt = DFMT_DEFAULT, NFMT_DEFAULT, None
    for x in items:
        if x in names.dfmt:
            dfmt = names.dfmt.index(x)
        elif x in names.nfmt and x:
            nfmt = names.nfmt.index(x)
        elif gen >= 10 and x in names.unified:
            ufmt = names.unified.index(x)
        else:
            raise ValueError(f"{x} is not a buffer format on this target")
    if gen < 10:
        return dfmt, nfmt
    if ufmt is not None:
        return ufmt, 0
    name = names.equivalent.get((names.dfmt[dfmt], names.nfmt[nfmt]))
    if name is None or name not in names.unified:
        raise ValueError(f"{text} has no unified format on this target")
    return names.unified.index(name), 0

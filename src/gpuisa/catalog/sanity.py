"""Coverage sanity: a build that lost much of what its sources hold, or of what the previous
catalog held, fails naming the file, and the previous catalog stays.

A damaged manual can still parse: one cut at 90% lost 422 of rdna3's 1,111 descriptions, and deeply
nested Markdown (which the Markdown parser stops descending into) lost 520, both with exit 0. Two
independent yardsticks catch that:
  - the source's own count: every instruction in an AMD manual's opcode tables has an entry in its
    instructions chapter (the real manuals document 98.1-100% of their table entries), and every
    PTX section with a Syntax label is one instruction (221 of 221);
  - the previous catalog at the same path: entries with text, and instructions per arch, may not
    fall by more than MAX_DROP.
`gpuisa build --accept-drop` turns the failure into notes, for a drop that is expected.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from gpuisa.errors import GpuisaError

MAX_DROP = 0.10           # a fall of more than 10% against the previous catalog fails
MIN_DOCUMENTED = 0.90     # of a manual's opcode-table entries, at least this share must have text


class CoverageDropError(GpuisaError):
    """The new catalog would hold much less than the sources or the previous catalog say it should."""


@dataclass(frozen=True, slots=True)
class Counts:
    """What one source contributed: AMD per arch (table entries, in catalog, with text) or PTX."""

    file: str
    table_entries: int = 0
    in_catalog: int = 0
    documented: int = 0
    ptx_sections: int = 0
    ptx_instructions: int = 0


def previous_counts(target: Path) -> dict[str, Counts]:
    """Counts of the catalog now at `target` ({} when there is none or it cannot be read)."""
    if not target.is_file():
        return {}
    try:
        conn = sqlite3.connect(f"file:{target}?mode=ro", uri=True)
        try:
            out = {key: Counts(manual, c.get("table_entries", 0), c.get("in_catalog", 0), c.get("documented", 0))
                   for key, manual, c in ((k, m, json.loads(c)) for k, m, c in
                                          conn.execute("SELECT key, manual, coverage FROM archs"))}
            with_ptx = conn.execute("SELECT 1 FROM sqlite_master WHERE name='ptx_instructions'").fetchone()
            if with_ptx:
                (n,) = conn.execute("SELECT count(*) FROM ptx_instructions").fetchone()
                out["ptx"] = Counts("PTX ISA manual", ptx_instructions=n)
            return out
        finally:
            conn.close()
    except (sqlite3.DatabaseError, ValueError, TypeError, AttributeError):
        return {}


def problems(new: dict[str, Counts], old: dict[str, Counts]) -> list[str]:
    """One line per drop, naming the source file and the numbers."""
    out = []
    for key, c in new.items():
        if key == "ptx":
            if c.ptx_sections and c.ptx_instructions < MIN_DOCUMENTED * c.ptx_sections:
                out.append(f"{c.file}: {c.ptx_instructions} PTX instructions read of the {c.ptx_sections} sections "
                           "its chapter 9 holds (damaged files?)")
        elif c.table_entries and c.documented < MIN_DOCUMENTED * c.table_entries:
            out.append(f"{c.file}: only {c.documented} of the {c.table_entries} instructions in its opcode tables have "
                       "text from its instructions chapter (truncated or damaged manual?)")
        before = old.get(key)
        if before is None:
            continue
        for what, b, a in (("instructions", before.in_catalog, c.in_catalog),
                           ("entries with text", before.documented, c.documented),
                           ("PTX instructions", before.ptx_instructions, c.ptx_instructions)):
            if b and a < (1 - MAX_DROP) * b:
                out.append(f"{c.file}: {what} fell from {b} in the previous catalog to {a}")
    return out


def check(new: dict[str, Counts], old: dict[str, Counts], accept_drop: bool) -> list[str]:
    """Raise CoverageDropError for any drop (the old catalog is kept), or return them as notes."""
    found = problems(new, old)
    if found and not accept_drop:
        more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
        raise CoverageDropError(f"coverage dropped: {found[0]}{more}; the previous catalog is kept "
                                "(`gpuisa build --accept-drop` writes it anyway)")
    return [f"accepted coverage drop: {p}" for p in found]

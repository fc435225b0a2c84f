"""The one name resolver: a user's, LLVM's or an older manual's spelling -> the catalog's name.

    normalise("v_sad_u32_e64")        -> "V_SAD_U32"   (pure: LLVM encoding suffixes dropped, upper case)
    resolve(conn, "s_add_i32")        -> Name("S_ADD_CO_I32", "amd", "alias")   (rdna4's rename, from LLVM)
    resolve(conn, "clmad.lo.u64")     -> Name("clmad", "nvidia", "ptx", form="clmad.lo.u64")

`show`, `eval`, `search`, the web pages and the codec all go through here (via Catalog.resolve /
Catalog.resolve_name), so every entry point accepts the same spellings.
"""

from __future__ import annotations

import difflib
import sqlite3
from dataclasses import dataclass

from gpuisa.catalog.ptx_store import ptx_key, ptx_names
from gpuisa.sources.amd_names import canonical_instruction


@dataclass(frozen=True, slots=True)
class Name:
    """What a spelling names in the catalog."""

    key: str                 # AMD catalog key (V_SAD_U32) or the PTX instruction name as the manual writes it
    vendor: str              # "amd" or "nvidia"
    via: str                 # "name" (the key itself), "alias" (LLVM alias or curated rename), "ptx"
    form: str | None = None  # the PTX form when the spelling named one (clmad.lo.u64)


def normalise(spelling: str) -> str:
    """Manual-style AMD name for a spelling: case folded, LLVM suffixes (_e32, _e64, _dpp, _dpp8, _sdwa ...) dropped."""
    return canonical_instruction(spelling)


def resolve(conn: sqlite3.Connection, spelling: str) -> Name | None:
    """AMD names first (the key, then an alias), then PTX instruction names and forms; None if nothing."""
    key = normalise(spelling)
    if conn.execute("SELECT 1 FROM instructions WHERE name=?", (key,)).fetchone():
        return Name(key, "amd", "name")
    row = conn.execute("SELECT name FROM aliases WHERE alias=?", (key,)).fetchone()
    if row:
        return Name(row[0], "amd", "alias")
    ptx = ptx_key(conn, spelling)
    if ptx is not None:
        form = spelling.strip().lower()
        return Name(ptx, "nvidia", "ptx", None if form == ptx.lower() else form)
    return None


def suggest(conn: sqlite3.Connection, spelling: str, n: int = 5) -> list[str]:
    """Close AMD and PTX names, for "did you mean"."""
    amd_names = [r[0] for r in conn.execute("SELECT name FROM instructions ORDER BY name")]
    amd = [s.lower() for s in difflib.get_close_matches(normalise(spelling), amd_names, n=n, cutoff=0.6)]
    ptx = difflib.get_close_matches(spelling.strip().lower(), ptx_names(conn), n=n, cutoff=0.6)
    return (amd + ptx)[:n]

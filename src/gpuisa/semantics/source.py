"""Where pseudocode comes from: per-architecture AMD manual text, looked up by instruction name.

Semantics are per architecture and never merged: `amd_semantics("v_lshl_add_u64", "cdna5")`
and the same name on cdna4 are different texts. The text is read from the manual with the
AMD manual reader (cached per arch); the catalog build stores the same text, so a catalog-backed
lookup can replace `_docs()` without changing callers.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from gpuisa.archs import resolve_arch
from gpuisa.errors import NotFoundError, SourceError
from gpuisa.model import InstructionDoc
from gpuisa.paths import default_sources
from gpuisa.semantics.types import operand_type_of


@dataclass(frozen=True, slots=True)
class Semantics:
    """One instruction's pseudocode on one architecture, with its notation and source."""

    name: str
    arch: str
    text: str
    style: str       # "headed" or "table"
    section: str
    cite: str        # file:line (section)


def manual_path(arch: str, sources: Path | None = None) -> Path:
    root = sources or default_sources()
    return root / "amd-isa-manuals" / arch / "README.md"


@lru_cache(maxsize=16)
def _docs(arch: str, sources: str = "") -> dict[str, list[InstructionDoc]]:
    """The catalog's copy of the manual text when a catalog exists; else the manual itself."""
    if not sources:
        from gpuisa.errors import CatalogError
        from gpuisa.paths import default_catalog

        if default_catalog().is_file():
            from gpuisa.catalog.query import Catalog

            try:
                return Catalog(default_catalog()).instruction_docs(arch)
            except CatalogError:
                pass   # an old or damaged catalog: read the manual instead
    from gpuisa.sources.amd_manual import read_manual

    path = manual_path(arch, Path(sources) if sources else None)
    if not path.is_file():
        raise SourceError(str(path), f"no AMD manual for {arch}; run `gpuisa fetch` or set GPUISA_SOURCES")
    data = read_manual(path, arch, f"amd-isa-manuals/{arch}/README.md")
    out: dict[str, list[InstructionDoc]] = {}
    for doc in data.docs:
        out.setdefault(doc.name.upper(), []).append(doc)
    return out


_BUILDING: dict[str, dict[str, list[InstructionDoc]]] | None = None


@contextmanager
def docs_from(docs_by_arch: dict[str, dict[str, list[InstructionDoc]]]) -> Iterator[None]:
    """Use these docs (the manuals a catalog build has just read) instead of any catalog on disk:
    the build must not evaluate against the catalog it is replacing."""
    global _BUILDING
    previous, _BUILDING = _BUILDING, docs_by_arch
    try:
        yield
    finally:
        _BUILDING = previous


def arch_docs(arch: str, sources: Path | None = None) -> dict[str, list[InstructionDoc]]:
    """All instruction docs of one architecture's manual, by upper-case name."""
    key = resolve_arch(arch).key
    if _BUILDING is not None and key in _BUILDING:
        return _BUILDING[key]
    return _docs(key, str(sources or ""))


def _pick(docs: list[InstructionDoc]) -> InstructionDoc | None:
    with_code = [d for d in docs if d.pseudocode.strip()]
    return with_code[0] if with_code else None


def amd_semantics(name: str, arch: str, sources: Path | None = None) -> Semantics:
    """The pseudocode of `name` on `arch`; NotFoundError names close spellings."""
    key = resolve_arch(arch).key
    docs = arch_docs(key, sources)
    want = name.strip().upper()
    for suffix in ("_E64", "_E32", "_DPP", "_SDWA"):
        if want.endswith(suffix) and want not in docs:
            want = want[: -len(suffix)]
    if want not in docs:
        close = difflib.get_close_matches(want, list(docs), n=5, cutoff=0.6)
        raise NotFoundError(f"instruction on {key}", name, [c.lower() for c in close])
    doc = _pick(docs[want])
    if doc is None:
        raise NotFoundError(f"pseudocode on {key} (the manual gives none for this instruction)", name)
    return Semantics(want.lower(), key, doc.pseudocode, doc.style, doc.section, doc.provenance.cite())


def resolver_for(arch: str, sources: Path | None = None):
    """Resolver that finds another instruction's text on the same arch (v_max_u32(...) calls)."""
    docs = arch_docs(arch, sources)

    def resolve(fn_name: str) -> tuple[str, str, tuple[str, int] | None] | None:
        key = fn_name.upper()
        # older manuals call SAD_U8(...) / MSAD_U8(...) without the V_ prefix; only upper-case names
        cands = (key, "V_" + key) if fn_name.isupper() and not key.startswith(("V_", "S_")) else (key,)
        for cand in cands:
            d = docs.get(cand)
            doc = _pick(d) if d else None
            if doc is not None:
                return doc.pseudocode, doc.style, operand_type_of(cand)
        return None

    return resolve

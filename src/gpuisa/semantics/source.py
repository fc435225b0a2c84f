"""Where pseudocode comes from: a `Texts` the caller passes in, looked up by instruction name.

Semantics never open a manual or a catalog. The caller hands over the text: a catalog
(`gpuisa.catalog.query.Catalog` has both methods of `Texts`), or `gpuisa.sources.read.ManualTexts`
over the records a build has just read (or reads them from a sources root on demand).
Semantics are per architecture and never merged:
`amd_semantics("v_lshl_add_u64", "cdna5", texts)` and the same name on cdna4 are different texts.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Protocol

from gpuisa.archs import resolve_arch
from gpuisa.errors import NotFoundError
from gpuisa.model import InstructionDoc
from gpuisa.model_ptx import PtxFormText
from gpuisa.semantics import prose
from gpuisa.semantics.dialect import CALL_PREFIX
from gpuisa.semantics.types import operand_type_of
from gpuisa.sources.amd_names import canonical_instruction


class Texts(Protocol):
    """The manual text the evaluator needs, from wherever the caller keeps it."""

    def instruction_docs(self, arch: str) -> dict[str, list[InstructionDoc]]:
        """Every instruction doc of one architecture, by upper-case manual name (and catalog key)."""
        ...

    def ptx_form_text(self, form: str) -> PtxFormText:
        """One PTX form (`clmad.lo.u64`) with its instruction's Syntax and Semantics text; NotFoundError else."""
        ...


@dataclass(frozen=True, slots=True)
class Semantics:
    """One instruction's pseudocode on one architecture, with its notation and source."""

    name: str
    arch: str
    text: str
    style: str       # "headed" or "table"
    section: str
    cite: str        # file:line (section)
    note: str = ""   # set when another text stands in for a prose entry (semantics.prose)


def _pick(docs: list[InstructionDoc]) -> InstructionDoc | None:
    with_code = [d for d in docs if d.pseudocode.strip()]
    return with_code[0] if with_code else None


def amd_semantics(name: str, arch: str, texts: Texts) -> Semantics:
    """The pseudocode of `name` (a manual name or catalog key; LLVM suffixes dropped) on `arch`.

    NotFoundError names close spellings. Old names and LLVM aliases are the catalog's to resolve
    (Catalog.resolve) before calling this."""
    key = resolve_arch(arch).key
    docs = texts.instruction_docs(key)
    want = name.strip().upper()
    if want not in docs:
        want = canonical_instruction(want)
    if want not in docs:
        close = difflib.get_close_matches(want, list(docs), n=5, cutoff=0.6)
        raise NotFoundError(f"instruction on {key}", name, [c.lower() for c in close])
    doc = _pick(docs[want])
    sub = prose_substitute(want, key, doc, texts)
    if sub is not None:
        return Semantics(want.lower(), key, sub.text, sub.style, doc.section if doc else "", sub.cite, sub.note)
    if doc is None:
        raise NotFoundError(f"pseudocode on {key} (the manual gives none for this instruction)", name)
    return Semantics(doc.name.lower(), key, doc.pseudocode, doc.style, doc.section, doc.provenance.cite())


def prose_substitute(name: str, arch: str, doc: InstructionDoc | None, texts: Texts) -> prose.Substitute | None:
    """What stands in for an entry whose text does not parse as pseudocode (semantics.prose), else None."""
    if name not in prose.TIMING_ONLY and name not in prose.BORROWED:
        return None
    donor = prose.DONORS.get(arch)
    return prose.substitute(name, arch, doc, texts.instruction_docs(donor) if donor else None)


def resolver_for(arch: str, texts: Texts):
    """Resolver that finds another instruction's text on the same arch (v_max_u32(...) calls), or on the
    manual prose.HELPER_DONORS names for a helper the arch's manual calls but does not define."""
    key_arch = resolve_arch(arch).key
    docs = texts.instruction_docs(key_arch)

    def resolve(fn_name: str) -> tuple[str, str, tuple[str, int] | None] | None:
        key = fn_name.upper()
        # dialect rule unprefixed-calls: SAD_U8(...) / MSAD_U8(...) name V_SAD_U8; only upper-case names
        cands = (key, CALL_PREFIX + key) if fn_name.isupper() and not key.startswith(("V_", "S_")) else (key,)
        for cand in cands:
            d = docs.get(cand)
            doc = _pick(d) if d else None
            if doc is None and (key_arch, cand) in prose.HELPER_DONORS:
                d = texts.instruction_docs(prose.HELPER_DONORS[(key_arch, cand)][0]).get(cand)
                doc = _pick(d) if d else None
            if doc is not None:
                return doc.pseudocode, doc.style, operand_type_of(cand)
        return None

    return resolve

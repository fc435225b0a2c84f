"""The documents the catalog's query layer answers with, defined once.

`Catalog.show` gives an `AmdDocument` or a `PtxDocument`, `Catalog.diff` an `InstructionDiff` or an
`ArchDiff`, `Catalog.search` a list of `SearchHit`. The CLI (`--json`), the JSON API and the pages
all consume these types; `as_json()` is the documented JSON contract of README.md (schema version 5:
keys are only ever added). Field order here is key order in the JSON.

Models are pydantic (already brought by fastapi): they validate what the catalog rows hold, give the
API its OpenAPI schemas, and spell Python keywords (`from`) through aliases.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class Document(BaseModel):
    """Base of every document and record: unknown keys are an error, the JSON form is by alias."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    def as_json(self) -> dict[str, Any]:
        """The JSON object of the documented contract (what `--json` prints and the API answers)."""
        return self.model_dump(mode="json", by_alias=True)


# ---------------------------------------------------------------------- shared records


class Provenance(Document):
    """Where one fact comes from: the source kind, a file relative to the sources root, a line, a section."""

    source: str | None = None
    file: str | None = None
    line: int | None = None
    section: str | None = None


class SourceEntry(Document):
    """One line of a page's Sources list: what it backs, then its provenance."""

    what: str
    source: str | None = None
    file: str | None = None
    line: int | None = None
    section: str | None = None


_PROVED = re.compile(r"for all (\d+) input bits \(([^,)]*)")
_TESTED = re.compile(r"(\d+) special-value combinations.*?and (\d+) random bit patterns")


class EvidenceRecord(Document):
    """How a cross-vendor mapping was checked: proved / counterexample / tested / curated."""

    kind: str
    detail: str
    time_s: float
    counterexample: dict[str, int] | None = None

    def in_words(self) -> str:
        """One sentence: 'proved by z3 for all 2^96 inputs (one query)', 'tested, not proved: 324 special values
        + 65,536 random bit patterns agree bit for bit', 'refuted by z3: a counterexample', or the curator's note."""
        if self.kind == "proved":
            m = _PROVED.search(self.detail)
            return f"proved by z3 for all 2^{m.group(1)} inputs ({m.group(2)})" if m else f"proved: {self.detail}"
        if self.kind == "tested":
            m = _TESTED.search(self.detail)
            if m:
                return (f"tested, not proved: {int(m.group(1)):,} special values (NaN, infinities, denormals, signed "
                        f"zero) + {int(m.group(2)):,} random bit patterns agree bit for bit")
            return self.detail
        if self.kind == "counterexample":
            return "refuted by z3: the two differ on the counterexample below"
        return f"curated, not machine-checked: {self.detail}"


class EquivalentScope(Document):
    """Whether a mapping checked on one arch's pseudocode holds on the document's arch."""

    status: Literal["checked here", "same pseudocode", "differs"]
    arch: str                     # the arch the mapping was checked on


class Equivalent(Document):
    """One PTX form <-> AMD instruction mapping with its claimed level and the evidence for it."""

    key: str
    concept: str
    ptx: str
    amd: str
    arch: str
    level: str
    restrictions: list[str]
    sequence: list[str]
    reason: str
    evidence: EvidenceRecord
    also: list[dict[str, EvidenceRecord]]
    consistent: bool
    concept_title: str
    on_this_arch: EquivalentScope | None = None   # AMD documents only


# ---------------------------------------------------------------------- AMD


class EncodingField(Document):
    name: str
    bits: list[tuple[int, int]]
    value: int | None
    spelling: str


class Correction(Document):
    """Where LLVM's encodings corrected the manual (an entry of the AMD quirk table applied at build):
    the manual's value beside the resolved one, with the count of LLVM encodings agreeing with each."""

    quirk: str
    arch: str
    encoding: str
    name: str                      # instruction, or "*" for the layout
    manual: str
    resolved: str
    evidence: int
    against: int
    settled_by: str
    detail: str
    manual_opcode: int | None = None
    sources: list[Provenance] = []


class EncodingDoc(Document):
    """One encoding of the instruction in the document's arch; `identifier` is fixed bits + opcode in hex.

    The layout and opcode are the resolved ones; `errata` keeps the manual's values where LLVM's
    encodings corrected them, `manual_opcode` the manual's opcode, `settled` what settled the layout."""

    encoding: str
    width: int | None
    opcode: int | None
    op_field: str | None
    identifier: str | None
    fields: list[EncodingField]
    provenance: Provenance
    errata: list[Correction] = []
    manual_opcode: int | None = None
    settled: str = ""


class OperandField(Document):
    """An encoding field that holds (part of) an operand, with its bit ranges (MSB first)."""

    name: str
    bits: list[list[int]]


class OperandPageRef(Document):
    """LLVM's page describing an operand: its label and file:line."""

    label: str
    file: str
    line: int | None


class Operand(Document):
    """One operand in assembler order; `sources` names the source of each attribute (attribute -> file:line)."""

    name: str
    symbol: str
    access: str
    register_class: str
    field_bits: int | None
    format: str
    view: str
    syntax: str = ""
    role: str = ""
    optional: bool = False
    tags: list[str] = []
    kinds: list[str] = []
    accepts: list[str] = []
    size_bits: int | None = None
    size: str = ""
    description: str = ""
    encoded: str = ""
    fields: list[OperandField] = []
    modifiers: list[str] = []
    page: OperandPageRef | None = None
    sources: dict[str, str] = {}


class OperandKindRef(Document):
    """A kind an operand accepts (LLVM's name, `v`) and the label of the page that explains it."""

    kind: str
    label: str


class OperandPageDocument(Document):
    """One operand or operand-kind page of LLVM's syntax docs (`/api/operand/amdgpu_synid_v`)."""

    label: str
    name: str
    description: str
    size: str
    size_bits: int | None
    accepts: list[OperandKindRef]
    kinds: list[str]
    text: str
    source: Provenance


class SyntaxRow(Document):
    """The row of LLVM's syntax page the operands come from, and the pages serving the arch."""

    family: str
    section: str
    mnemonic: str
    file: str
    line: int | None
    served_by: str


class FieldChange(Document):
    """A field that differs between two layouts: added / removed / moved / fixed value."""

    field: str
    change: str
    from_: str | None = Field(default=None, alias="from")
    to: str | None = None


class EncodingOpcode(Document):
    encoding: str | None
    opcode: int | None


class Generation(Document):
    """The instruction in one arch's manual, compared with the document's primary encoding."""

    arch: str
    arch_display: str
    opcode: int | None
    encoding: str | None
    same_layout: bool
    same_opcode: bool
    differs: list[FieldChange]
    same: bool
    other_encodings: list[EncodingOpcode]


class Rename(Document):
    from_: str = Field(alias="from")
    evidence: str


class Erratum(Document):
    arch: str | None
    kind: str
    detail: str
    sources: list[Provenance]


class Example(Document):
    """One LLVM MC test line: the assembly, the bytes LLVM emits, the targets that check it."""

    asm: str
    bytes: str
    direction: str
    input: str
    targets: list[str]
    arch: str
    mattr: str | None
    source: Provenance


class TargetSupport(Document):
    """Support on one gfx target with its evidence (an LLVM test line or llvm-mc's own verdict)."""

    verdict: str
    evidence: str
    detail: str | None = None
    file: str | None = None
    line: int | None = None
    tool: str | None = None
    arch: str
    examples: int = 0
    spelling: str | None = None    # which of the identity's spellings decided it (gfx1030: flat_load_ushort)


class AmdDocument(Document):
    """The page of one AMD instruction in one arch (`gpuisa show v_sad_u32 --arch cdna5`)."""

    name: str
    vendor: Literal["amd"] = "amd"
    isa: Literal["native"] = "native"
    arch: str
    arch_display: str
    manual_name: str
    aliases: list[str]
    renames: list[Rename]
    group: str
    category: str | None
    summary: str
    description: str
    semantics: str
    semantics_style: str | None
    notes: str
    encodings: list[EncodingDoc]
    operands: list[Operand]
    syntax: SyntaxRow | None = None
    generations: list[Generation]
    archs: list[str]
    errata: list[Erratum]
    examples: list[Example]
    examples_note: str | None = None    # set when no example is valid on this arch's targets: why not
    targets: dict[str, TargetSupport]
    equivalents: list[Equivalent]
    sources: list[SourceEntry]


# ---------------------------------------------------------------------- PTX


class PtxDocumented(Document):
    ptx_version: str | None
    sm: list[str]


class PtxVerified(Document):
    """What ptxas said about one form: status, the PTX ISA version and sm targets it accepted."""

    status: str
    ptx_version: str | None
    feature_version: str | None
    sm: list[str]
    message: str
    ptx_line: str


class PtxForm(Document):
    """One concrete form (`clmad.lo.u64`): documented next to verified, and its SASS per target."""

    form: str
    section: str
    types: list[str]
    modifiers: list[str]
    state_spaces: list[str]
    operands: str | None
    origin: str | None
    in_manual: bool
    documented: PtxDocumented | None
    verified: PtxVerified | None
    sass: dict[str, list[str]]
    source: Provenance


class PtxNote(Document):
    """A "PTX ISA Notes" / "Target ISA Notes" sentence: the version or targets it states."""

    kind: str
    text: str
    subjects: list[str]
    version: str | None
    targets: list[str]
    line: int | None
    width: int | None = None
    groups: list[list[str]] = []     # subjects "with" joins: a form needs one of each group (empty: any subject)


class PtxErratum(Document):
    name: str | None
    form: str | None
    section: str | None
    kind: str | None
    documented: str | None
    verified: str | None
    message: str | None


class PtxRelease(Document):
    version: str | None
    kind: str | None
    text: str | None
    source: Provenance


class PtxSource(Document):
    file: str | None
    line: int | None
    section: str
    url: str | None
    edition: str | None


class PtxSection(Document):
    """One manual section the document draws on (an instruction can span several: `add`, `add.f`)."""

    section: str
    name: str
    names: list[str]
    title: str | None
    category: str | None
    summary: str | None
    syntax: str | None
    description: str | None
    semantics: str | None
    notes: str | None
    examples: list[str]
    ptx_notes: list[PtxNote]
    target_notes: list[PtxNote]
    forms_total: int | None
    capped: bool
    syntax_issues: list[str]
    new_since_older_edition: list[str]
    url: str | None
    file: str | None
    line: int | None
    edition: str | None


class PtxVerification(Document):
    tool: str
    skipped: str


class PtxOperand(Document):
    """One operand of the syntax line, its role from the manual's semantics or wording, the sentences naming it."""

    name: str
    role: Literal["destination", "source", "operand"]
    optional: bool
    mentions: list[str]


class PtxDocument(Document):
    """The page of one PTX instruction, or of one of its forms (`gpuisa show clmad.lo.u64`)."""

    name: str
    vendor: Literal["nvidia"] = "nvidia"
    isa: Literal["ptx"] = "ptx"
    category: str | None
    summary: str | None
    syntax: str | None
    forms: list[PtxForm]
    description: str | None
    semantics: str | None
    notes: str | None
    ptx_isa_notes: list[PtxNote]
    target_isa_notes: list[PtxNote]
    examples: list[str]
    errata: list[PtxErratum]
    releases: list[PtxRelease]
    sources: list[PtxSource]
    sections: list[PtxSection]
    forms_capped: bool
    verification: PtxVerification
    form: str | None = None
    equivalents: list[Equivalent] = []
    operands: list[PtxOperand] = []


InstructionDocument = AmdDocument | PtxDocument


class PtxIndexEntry(Document):
    name: str
    section: str
    summary: str | None


class PtxCategory(Document):
    """One chapter of the PTX manual's instruction set (`Integer Arithmetic Instructions`) and its instructions."""

    category: str
    chapter: str                  # section number of the chapter (9.7.1)
    entries: list[PtxIndexEntry]


# ---------------------------------------------------------------------- diff and search


class EncodingIdentity(Document):
    encoding: str
    opcode: int | None
    identifier: str | None


class InstructionDiff(Document):
    """One instruction between two archs (`gpuisa diff v_sad_u32 --from rdna2 --to rdna3`)."""

    name: str
    from_: str = Field(alias="from")
    to: str
    from_encodings: list[EncodingIdentity]
    to_encodings: list[EncodingIdentity]
    differs: list[FieldChange]
    status: Literal["added", "removed", "changed", "same"]


class ArchRename(Document):
    from_: str = Field(alias="from")
    to: str
    evidence: str


class Reencoded(Document):
    name: str
    from_: EncodingOpcode = Field(alias="from")
    to: EncodingOpcode
    fields_changed: list[str]


class DiffCounts(Document):
    added: int
    removed: int
    reencoded: int
    renamed: int
    common: int


class ArchDiff(Document):
    """Whole-ISA diff between two archs (`gpuisa diff --from rdna3 --to rdna4`)."""

    from_: str = Field(alias="from")
    to: str
    added: list[str]
    removed: list[str]
    renamed: list[ArchRename]
    reencoded: list[Reencoded]
    counts: DiffCounts


class SearchHit(Document):
    """One search result; `match` says how it matched (name / prefix / name contains / text)."""

    name: str
    vendor: str
    archs: list[str]
    summary: str | None
    match: str

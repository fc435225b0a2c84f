"""Records that readers yield and the catalog stores. Plain frozen dataclasses; no I/O here.

Every fact carries a Provenance (which source, which file, which line) so a page can cite it.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Provenance:
    source: str          # "amd-manual", "llvm-mc-test", "ptx-isa", "llvm-mc", "ptxas", "curated"
    file: str            # path relative to the sources root
    line: int | None = None
    section: str | None = None

    def cite(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where} ({self.section})" if self.section else where


@dataclass(frozen=True, slots=True)
class Field:
    """One field of a microcode format. `bits` lists (hi, lo) ranges, most significant first."""

    name: str                      # normalised name (CLAMP), see amd_names.FIELD_SPELLINGS
    bits: tuple[tuple[int, int], ...]
    value: int | None = None       # fixed bits (e.g. ENCODING = 0b110101), else None
    spelling: str = ""             # as the manual spells it (CM, CLMP)
    description: str = ""

    @property
    def width(self) -> int:
        return sum(hi - lo + 1 for hi, lo in self.bits)


@dataclass(frozen=True, slots=True)
class Encoding:
    """A microcode format of one architecture (VOP3 on cdna5), with its fields."""

    arch: str
    name: str                      # normalised: VOP3, VOP3A, SOP2, VOPD, ...
    width: int                     # bits, from the highest field bit (32/64/96/128)
    fields: tuple[Field, ...]
    provenance: Provenance
    spelling: str = ""             # the manual's own heading name

    def field(self, name: str) -> Field | None:
        return next((f for f in self.fields if f.name == name), None)


@dataclass(frozen=True, slots=True)
class OpcodeEntry:
    """A row of an opcode table: instruction `name` has `opcode` in `encoding` on `arch`."""

    arch: str
    encoding: str
    opcode: int
    name: str
    provenance: Provenance


@dataclass(frozen=True, slots=True)
class InstructionDoc:
    """What the manual's instruction chapter says about one instruction in one encoding section."""

    arch: str
    name: str
    section: str                   # e.g. "VOP3 & VOP3SD Instructions"
    opcode: int | None
    description: str
    pseudocode: str                # "" when the manual gives none
    notes: str
    style: str                     # "headed" (per-instruction headings) or "table" (older inline)
    provenance: Provenance


@dataclass(slots=True)
class Skip:
    """Something a reader could not recover, counted and listed with its reason."""

    file: str
    line: int | None
    reason: str
    text: str = ""


@dataclass(frozen=True, slots=True)
class Repair:
    """One place where a reader applied a named vendor quirk (sources.amd_quirks.MANUAL_QUIRKS)."""

    quirk: str                     # the quirk's id
    file: str
    line: int | None
    detail: str = ""


@dataclass(frozen=True, slots=True)
class Erratum:
    """Two sources (or two places in one source) that disagree about one fact."""

    name: str                      # instruction (catalog key spelling) or "*" for a manual-wide issue
    arch: str | None
    kind: str                      # e.g. "vop3-opcode-rule", "manual-vs-llvm"
    detail: str
    sources: tuple[Provenance, ...]


@dataclass(slots=True)
class ManualData:
    """Everything read from one AMD manual."""

    arch: str
    file: str
    encodings: dict[str, Encoding] = field(default_factory=dict)
    opcodes: list[OpcodeEntry] = field(default_factory=list)
    docs: list[InstructionDoc] = field(default_factory=list)
    skips: list[Skip] = field(default_factory=list)
    errata: list[Erratum] = field(default_factory=list)
    repairs: list[Repair] = field(default_factory=list)   # where the reader applied a manual quirk

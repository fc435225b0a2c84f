"""Records for the PTX side of the catalog: what the PTX ISA manual says, and what ptxas says.

Plain frozen dataclasses, no I/O. The manual's facts (`PtxInstruction`, `PtxForm`) and the tool's
verdicts (`PtxVerdict`) are separate records so the catalog can show both side by side and an
erratum is simply a place where they differ.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gpuisa.model import Provenance, Skip


@dataclass(frozen=True, slots=True)
class PtxNote:
    """One sentence of a "PTX ISA Notes" / "Target ISA Notes" block, with what it applies to.

    `subjects` are the backticked qualifiers or forms the sentence names (empty: the whole
    instruction); `targets` the sm targets it lists (with "+" meaning "or higher" and "f"/"a"
    suffixes kept as written).
    """

    kind: str                      # "ptx" (version) or "target"
    text: str
    subjects: tuple[str, ...]
    version: str | None
    targets: tuple[str, ...]
    line: int
    width: int | None = None       # "64-bit `add.cc` ...": only forms of that data width
    # subjects in the groups "with" joins: "`.f16` type `mma` with `.m16n8k16` shape" needs one of each
    # group, "`.relaxed`, `.acquire`, `.weak` qualifiers" any one (empty: one group of all subjects)
    groups: tuple[tuple[str, ...], ...] = ()


@dataclass(frozen=True, slots=True)
class PtxOperand:
    """An operand slot of a syntax line, as written (`d`, `[a]`, `{a, b}`, `N`)."""

    text: str
    optional: bool = False


@dataclass(frozen=True, slots=True)
class PtxForm:
    """One concrete form, e.g. `clmad.lo.u64`, with the requirements the manual documents for it."""

    form: str                      # mnemonic with all modifiers, lower-case as written
    name: str                      # the instruction it belongs to (`clmad`, `mbarrier.arrive`)
    modifiers: tuple[str, ...]     # every dotted component after the name, in order
    types: tuple[str, ...]         # the subset that are data types (.u64, .f16x2)
    state_spaces: tuple[str, ...]  # the subset that are state spaces (.global, .shared::cta)
    operands: str                  # operand text of the syntax line it came from
    template: str                  # the syntax line (after joining continuation lines)
    documented_version: str | None
    documented_sm: tuple[str, ...]  # () = not stated; ("all",) = all targets
    line: int                      # line of the syntax line in the section file
    origin: str = "syntax"         # "syntax" or "example" (seen only in the examples)


@dataclass(frozen=True, slots=True)
class PtxExclusion:
    """Combinations an instruction's Syntax spells that a prose rule of the manual forbids
    (sources/ptx_restrictions.PROSE_RESTRICTIONS): left out of its forms, counted, cited."""

    rule: str                      # the rule's key ("compare-bit-size-order")
    cite: str                      # the line that forbids them: "ptx-isa-9.4/9-instruction-set/....md:14"
    reason: str
    count: int                     # combinations left out
    samples: tuple[str, ...]       # the first few of them
    whole: bool = True             # counted over the whole product (False: over the covering sample)
    operands: str = ""             # the first sample's operands and syntax line, to ask ptxas about it
    template: str = ""
    line: int = 0


@dataclass(frozen=True, slots=True)
class PtxInstruction:
    """One instruction section of chapter 9 (a file, or a subsection of a grouped file)."""

    name: str                      # first name in the heading, e.g. "mbarrier.test_wait"
    names: tuple[str, ...]         # all names the heading lists
    section: str                   # "9.7.1.5"
    title: str
    category: str                  # chapter 9.7.x subsection title, e.g. "Integer Arithmetic Instructions"
    summary: str
    syntax: str
    description: str
    semantics: str
    notes: str
    ptx_notes: tuple[PtxNote, ...]
    target_notes: tuple[PtxNote, ...]
    examples: tuple[str, ...]
    forms: tuple[PtxForm, ...]
    forms_total: int               # size of the full product before capping
    capped: bool                   # True when `forms` is a covering sample of a larger product
    syntax_issues: tuple[str, ...]  # oddities met while expanding (typos, undefined sets)
    url: str
    provenance: Provenance
    new_since: tuple[str, ...] = ()  # forms absent from the older edition (cross-check)
    excluded: tuple[PtxExclusion, ...] = ()   # Syntax combinations the prose forbids (not forms)


@dataclass(frozen=True, slots=True)
class PtxFormText:
    """What evaluating one PTX form needs: the form, and its instruction's Syntax and Semantics text.

    The catalog stores these at build time, so evaluation never re-reads the manual."""

    form: PtxForm
    instruction: str               # the instruction's name (`clmad`)
    syntax: str                    # its Syntax block (the modifier sets: `.mode = { .lo, .hi }`)
    semantics: str                 # its Semantics section as the manual gives it
    cite: str                      # file:line (section)


@dataclass(frozen=True, slots=True)
class PtxRelease:
    """One bullet of chapter 13: what a PTX ISA version added or changed."""

    version: str
    kind: str                      # "feature", "semantic", "other"
    text: str
    names: tuple[str, ...]         # instruction names it mentions
    provenance: Provenance


@dataclass(slots=True)
class PtxManual:
    """Everything read from one edition of the PTX ISA manual."""

    version: str
    root: str
    instructions: list[PtxInstruction] = field(default_factory=list)
    releases: list[PtxRelease] = field(default_factory=list)
    target_versions: dict[str, str] = field(default_factory=dict)  # sm_80 -> "7.0" (release history)
    sections_total: int = 0        # instruction sections the chapter holds (Syntax labels seen)
    skips: list[Skip] = field(default_factory=list)

    def find(self, name: str) -> list[PtxInstruction]:
        """Instructions whose heading lists `name` (case-insensitive)."""
        key = name.lower()
        return [i for i in self.instructions if key in (n.lower() for n in i.names)]


@dataclass(frozen=True, slots=True)
class PtxVerdict:
    """What ptxas (and cuobjdump) said about one form."""

    form: str
    name: str
    section: str
    status: str                    # "verified"; "rejected" (ptxas refuses the form); "unverified" (no operands found);
    #                                "beyond" (newer than this ptxas: not judged); "tool failed" (hung, crashed)
    ptx_version: str | None        # lowest .version that compiles (with the lowest target)
    feature_version: str | None    # the version ptxas names for the feature itself
    sm: tuple[str, ...]            # lowest generic target, or the arch/family targets that accept it
    message: str                   # ptxas's words (rejection or requirement), "" when clean
    ptx_line: str                  # the instruction line that was compiled
    sass: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (target, native opcodes)
    documented: bool = True        # False: accepted by ptxas but not listed by the manual
    tool: str = ""                 # "ptxas 13.5.37": who said so


@dataclass(frozen=True, slots=True)
class PtxErratum:
    """A place where the manual and ptxas disagree, or where the manual contradicts itself."""

    name: str
    form: str
    section: str
    kind: str                      # "version", "target", "undocumented-form", "rejected", "syntax"
    documented: str
    verified: str
    message: str


@dataclass(slots=True)
class PtxVerification:
    """The result of one verification run over a manual."""

    tool: str                      # "ptxas 13.5.37" or "" when skipped
    verdicts: dict[tuple[str, str], PtxVerdict] = field(default_factory=dict)  # (section, form)
    errata: list[PtxErratum] = field(default_factory=list)
    undocumented_forms: list[PtxForm] = field(default_factory=list)  # siblings ptxas accepts
    skipped_reason: str = ""
    # (section, rule) -> what ptxas said about the rule's first excluded sample: ("agrees", its message) when
    # it refuses it, ("accepts", the line) when it takes it (the prose rule is then contradicted), ("unsettled", why)
    exclusions: dict[tuple[str, str], tuple[str, str]] = field(default_factory=dict)
    ptxas_calls: int = 0
    cuobjdump_calls: int = 0
    cache_hits: int = 0
    seconds: float = 0.0

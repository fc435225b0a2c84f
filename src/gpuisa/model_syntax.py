"""Records of LLVM's AMDGPU assembler syntax pages (llvm/docs/AMDGPU/*.rst): plain frozen dataclasses.

LLVM documents, per syntax family (GFX7 ... GFX12, GFX900 ... GFX950), every instruction as one
row of operands in assembler order, and every operand on its own page (size, accepted register
kinds). These records are what `sources/llvm_syntax_docs.py` yields; the catalog joins them to
encoding fields and the codec parses and prints with them. Every record carries its file:line.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gpuisa.model import Provenance, Skip

# Generic operand kinds: the labels of llvm/docs/AMDGPUOperandSyntax.rst (`.. _amdgpu_synid_<kind>:`)
# that operand pages link to under *Operands:*, in words. Pages describing values instead of registers
# link to the number / expression / symbol sections of the same file: those map to value kinds.
KIND_NAMES: dict[str, str] = {
    "v": "VGPR", "v16": "VGPR (16-bit half)", "a": "AGPR", "s": "SGPR", "ttmp": "trap temporary SGPR (ttmp)",
    "trap": "trap handler register (tba/tma)", "vcc": "VCC", "vcc_lo": "VCC_LO",
    "exec": "EXEC", "exec_lo": "EXEC_LO", "m0": "M0", "null": "NULL",
    "scc": "SCC", "vccz": "VCCZ", "execz": "EXECZ", "flat_scratch": "FLAT_SCRATCH", "xnack_mask": "XNACK_MASK",
    "lds_direct": "LDS_DIRECT", "constant": "inline constant", "iconst": "inline integer constant",
    "fconst": "inline float constant", "ival": "inline value (special register)", "literal": "literal",
    "off": "off", "uimm8": "8-bit unsigned immediate", "uimm20": "20-bit unsigned immediate",
    "uimm32": "32-bit unsigned immediate", "simm8": "8-bit signed immediate", "simm16": "16-bit signed immediate",
    "simm21": "21-bit signed immediate", "integer_number": "integer", "floating-point_number": "floating-point number",
    "absolute_expression": "absolute expression", "symbol": "label (relocatable symbol)",
}

# Operand tags that are flags rather than a type (llvm/docs/AMDGPUInstructionNotation.rst, "Operand Tags").
FLAG_TAGS: frozenset[str] = frozenset({"opt", "m", "dst", "fx"})


@dataclass(frozen=True, slots=True)
class OperandPage:
    """One operand (or modifier) description: the section under a `.. _amdgpu_synid_...:` label."""

    label: str                     # "amdgpu_synid_gfx11_vaddr_f20ee4": what rows link to
    name: str                      # section title: "vaddr", "offset0", "Type Deviation"
    description: str               # first paragraph ("An offset from the start of GDS/LDS memory.")
    size_text: str                 # the *Size:* sentence as written ("1 dword.", "depends on dmask ..."), "" if none
    size_bits: int | None          # fixed size in bits when the sentence gives one (1 dword -> 32), else None
    accepts: tuple[str, ...]       # generic kinds linked from *Operands:* or the text, LLVM spelling: v, s, a,
                                   # vcc, ttmp, null, exec, scc, m0, constant, iconst, fconst, literal, label ...
    text: str                      # the whole section as plain text (tables, value lists), for pages
    provenance: Provenance         # file and line of the label

    @property
    def kinds(self) -> tuple[str, ...]:
        """`accepts` in words (VGPR, SGPR, inline constant, ...), see KIND_NAMES."""
        return tuple(KIND_NAMES.get(a, a) for a in self.accepts)


@dataclass(frozen=True, slots=True)
class SyntaxOperand:
    """One operand or modifier of one instruction row, in assembler order."""

    name: str                      # as the row spells it: "vdst", "vaddr", "offset", "gds"
    role: str                      # "dst", "src" (comma-separated operands) or "modifier" (space-separated)
    column: str                    # the row's column header: DST0, SRC1, MODIFIERS ...
    label: str                     # OperandPage.label this name links to
    tags: tuple[str, ...] = ()     # tag names after ':' (opt, m, dst, fx, or a type such as b64, u32)
    tag_labels: tuple[str, ...] = ()   # the pages those tags link to

    @property
    def optional(self) -> bool:
        """Modifiers are always optional; operands tagged :opt may be omitted."""
        return self.role == "modifier" or "opt" in self.tags

    @property
    def type_override(self) -> str | None:
        """The :<type> tag (b64, u32, f16 ...): the actual type where it differs from the mnemonic's."""
        return next((t for t in self.tags if t not in FLAG_TAGS), None)


@dataclass(frozen=True, slots=True)
class SyntaxInstruction:
    """One row of a family's instruction table: `ds_add_u32 vaddr, vdata offset gds`."""

    family: str                    # "GFX11"
    section: str                   # encoding section heading: DS, SMEM, VOP3, VGLOBAL ...
    mnemonic: str                  # as LLVM spells it, with any _e32/_e64/_sdwa/_dpp suffix
    operands: tuple[SyntaxOperand, ...]
    provenance: Provenance         # file and line of the row

    @property
    def dsts(self) -> tuple[SyntaxOperand, ...]:
        return tuple(o for o in self.operands if o.role == "dst")

    @property
    def srcs(self) -> tuple[SyntaxOperand, ...]:
        return tuple(o for o in self.operands if o.role == "src")

    @property
    def modifiers(self) -> tuple[SyntaxOperand, ...]:
        return tuple(o for o in self.operands if o.role == "modifier")


@dataclass(slots=True)
class SyntaxFamily:
    """One AMDGPUAsmGFX*.rst page: its instruction rows and the gfx targets its introduction names."""

    key: str                       # "GFX11", "GFX90a", "GFX1011"
    file: str                      # relative to the sources root
    title: str                     # "Syntax of GFX11 Instructions"
    targets_named: tuple[str, ...]  # gfx targets the introduction names ((), when it names none)
    base: str | None               # family this page extends ("GFX9" for GFX906's page), None if complete
    instructions: list[SyntaxInstruction] = field(default_factory=list)
    _index: tuple[int, dict[str, list[SyntaxInstruction]]] | None = field(default=None, repr=False, compare=False)

    def rows(self, mnemonic: str) -> list[SyntaxInstruction]:
        """The rows for one LLVM mnemonic (lower case), in page order; an index rebuilt when rows are added."""
        if self._index is None or self._index[0] != len(self.instructions):
            index: dict[str, list[SyntaxInstruction]] = {}
            for ins in self.instructions:
                index.setdefault(ins.mnemonic, []).append(ins)
            self._index = (len(self.instructions), index)
        return list(self._index[1].get(mnemonic, ()))


@dataclass(slots=True)
class SyntaxDocs:
    """Everything read from llvm/docs/AMDGPU*: families, every labelled operand page, skips."""

    root: str                      # docs folder relative to the sources root
    families: dict[str, SyntaxFamily] = field(default_factory=dict)
    pages: dict[str, OperandPage] = field(default_factory=dict)   # label -> page
    skips: list[Skip] = field(default_factory=list)

    def page(self, label: str) -> OperandPage | None:
        return self.pages.get(label)

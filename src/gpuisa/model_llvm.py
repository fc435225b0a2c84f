"""Records of the LLVM evidence layer: examples and negative evidence from LLVM's AMDGPU MC tests,
and llvm-mc's own verdicts. Plain frozen dataclasses; no I/O here.

Kept apart from model.py so the LLVM reader and verifier can evolve without touching the records
the manual readers share. Every record carries a Provenance so a page can cite file:line.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Literal

from gpuisa.model import Provenance, Skip

Direction = Literal["asm", "disasm"]

# llvm-mc's messages about an instruction itself; every other complaint ("lds_direct is not
# supported on this GPU", "agpr loads and stores not supported on this GPU", "invalid operand")
# is about operands and says nothing about the instruction (AMDGPUAsmParser::checkUnsupportedInstruction)
INSTRUCTION_LEVEL = re.compile(r"^(?:instruction not supported on this GPU|invalid instruction(?! encoding))\b")


@dataclass(frozen=True, slots=True)
class McRun:
    """One `llvm-mc` invocation of a test file (a RUN line): which processor, features and direction."""

    target: str                    # gfx name ("gfx1100"); "generic" when the RUN names no -mcpu
    mattr: str = ""                # normalised -mattr ("+real-true16,+wavefrontsize32"), "" for none
    direction: Direction = "asm"   # "asm": assembles the file; "disasm": -disassemble of the bytes
    roundtrip: bool = False        # output is re-disassembled (%extract-encodings | llvm-mc -disassemble)
    stderr: bool = False           # FileCheck sees stderr (2>&1): diagnostics are checked
    encodings: bool = False        # -show-encoding and not -filetype=null: stdout has "; encoding:"
    cpu: str = ""                  # -mcpu as written ("tahiti"), "" when absent
    line: int = 0                  # the RUN line (first line when continued with "\")


@dataclass(frozen=True, slots=True)
class McExample:
    """A check line that pairs LLVM's printed assembly with its bytes, on the targets of its prefix.

    For an asm test the check text is what llvm-mc printed for the source line `input`; for a
    disassembler test `input` is the byte line and the check holds the decoded assembly. `bytes` is
    the check's `; encoding: [...]` when present (the canonical encoding), else the input bytes.
    """

    asm: str
    bytes: bytes
    runs: tuple[McRun, ...]
    direction: Direction
    prefix: str
    provenance: Provenance         # file relative to the sources root, line of the check line
    input: str = ""                # the asm source line or byte list the check belongs to
    input_line: int | None = None

    @property
    def targets(self) -> tuple[str, ...]:
        """Distinct targets, in RUN order."""
        return tuple(dict.fromkeys(r.target for r in self.runs))

    @property
    def mattrs(self) -> tuple[str, ...]:
        """Distinct -mattr settings, in RUN order."""
        return tuple(dict.fromkeys(r.mattr for r in self.runs))

    @property
    def file(self) -> str:
        return self.provenance.file

    @property
    def input_bytes(self) -> bytes:
        """The bytes of a disassembler input line (they may differ from `bytes` in don't-care bits)."""
        return bytes(int(h, 16) for h in re.findall(r"0[xX]([0-9a-fA-F]{1,2})\b", self.input))

    @property
    def line(self) -> int | None:
        return self.provenance.line


@dataclass(frozen=True, slots=True)
class McNegative:
    """A check line saying llvm-mc rejects the input on its targets (an error, or a decoder warning)."""

    input: str                     # the asm source line (asm) or the byte list (disasm) rejected
    message: str                   # "instruction not supported on this GPU"
    severity: Literal["error", "warning"]
    runs: tuple[McRun, ...]
    direction: Direction
    prefix: str
    provenance: Provenance
    input_line: int | None = None
    column: int | None = None

    @property
    def targets(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(r.target for r in self.runs))

    @property
    def asm(self) -> str:
        """The rejected assembly ("" for disassembler inputs)."""
        return self.input if self.direction == "asm" else ""

    @property
    def not_supported(self) -> bool:
        """True when the message says the instruction itself is absent on the target (not an operand)."""
        return bool(INSTRUCTION_LEVEL.match(self.message))


@dataclass(slots=True)
class McCorpus:
    """Everything read from the MC test files, with counts of what could not be used and why."""

    examples: list[McExample] = field(default_factory=list)
    negatives: list[McNegative] = field(default_factory=list)
    skips: Counter[str] = field(default_factory=Counter)
    samples: dict[str, list[Skip]] = field(default_factory=dict)
    files: int = 0
    check_lines: int = 0           # lines that are FileCheck directives of a live prefix
    encoding_lines: int = 0        # of those, lines carrying "encoding:"
    encoding_skips: Counter[str] = field(default_factory=Counter)

    def examples_per_target(self) -> Counter[str]:
        """How many examples name each target (an example on two targets counts for both)."""
        return Counter(t for ex in self.examples for t in ex.targets)


@dataclass(frozen=True, slots=True)
class McResult:
    """What llvm-mc made of one assembly line on one target: its printed form and bytes, or its error."""

    line: str
    target: str
    mattr: str
    ok: bool
    asm: str = ""                  # as llvm-mc printed it
    bytes: bytes = b""
    message: str = ""              # first error message, without the "<stdin>:L:C: error: " part
    tool: str = ""                 # "llvm-mc 22.1.8"


@dataclass(frozen=True, slots=True)
class TargetVerdict:
    """Support of one instruction on one target, decided by assembling a representative example."""

    mnemonic: str                  # manual-style name, V_SAD_U32
    target: str
    verdict: Literal["supported", "not supported", "inconclusive", "beyond", "tool failed"]
    line: str                      # the assembly that was tried
    asm: str = ""                  # llvm-mc's printed form when it assembled
    bytes: bytes = b""
    message: str = ""              # llvm-mc's message when it did not
    example: Provenance | None = None   # where the representative example came from
    tool: str = ""
    mattr: str = ""                # -mattr it was assembled with

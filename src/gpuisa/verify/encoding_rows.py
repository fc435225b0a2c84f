"""Does each (arch, encoding, instruction) row of the catalog build a word llvm-mc decodes as it?

For every row, the word is the row's identifier (the layout's fixed bits with the opcode in its
field, all other fields zero) at the layout's full width; llvm-mc 22 disassembles it on the arch's
first gfx target, and rows that do not decode to the instruction there are retried on the arch's
other targets (an instruction may exist on gfx1011 and not on gfx1010). A word llvm-mc rejects
with every operand field zero is retried with one operand field at a time set to a few values
(all ones, 0x7C, 0x7D, 0x7E, 1: the null/off/exec encodings some formats require), then with
every 9-bit source field naming v0 (256) and every OPSEL_HI bit set (what packed-math and
VGPR-only instructions require), and on gfx11+ with -mattr=+real-true16 (16-bit registers).
Operand values cannot make a word another instruction, so a match still proves the layout's
fixed bits and the opcode. The caller passes the
rows as plain data and a `same` function that says whether a printed mnemonic names the row's
instruction (the catalog's name resolver), so this module needs no catalog.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from gpuisa.archs import BY_KEY
from gpuisa.verify.llvm_disasm import disassemble_words
from gpuisa.verify.llvm_mc import LlvmMc, assemble, find_llvm_mc


@dataclass(frozen=True, slots=True)
class Row:
    arch: str
    name: str                     # catalog key
    encoding: str
    word: bytes | None            # None: the catalog gives no identifier for this row
    free: tuple[tuple[str, tuple[tuple[int, int], ...]], ...] = ()   # operand fields (not fixed, not OP): name, bits


@dataclass(slots=True)
class RowResult:
    row: Row
    ok: bool
    printed: str | None           # what llvm-mc printed on the last target tried (None: invalid)
    target: str = ""


@dataclass(slots=True)
class RowReport:
    tool: str
    results: list[RowResult] = field(default_factory=list)

    def rate(self, arch: str | None = None, known: Callable[[Row], bool] | None = None) -> tuple[int, int]:
        """(decoded as the row's instruction, rows) for one arch or all, over rows `known` accepts."""
        rows = [r for r in self.results if (arch is None or r.row.arch == arch) and (known is None or known(r.row))]
        return sum(r.ok for r in rows), len(rows)


def mnemonics_of(asm: str) -> list[str]:
    """Mnemonics in llvm-mc's text: one, or two for a VOPD pair (`a ... :: b ...`)."""
    return [part.split()[0] for part in asm.split("::") if part.split()]


_FILLS = (0x7C, 0x7D, 0x7E, 1, -1)


def variants(row: Row) -> list[bytes]:
    """The row's word with one operand field at a time set to each of _FILLS (that fit its width)."""
    if row.word is None:
        return []
    base = int.from_bytes(row.word, "little")
    out = []
    for _, bits in row.free:
        width = sum(hi - lo + 1 for hi, lo in bits)
        for fill in _FILLS:
            value = (1 << width) - 1 if fill < 0 else fill
            if value >= 1 << width or (fill == 1 and width < 2):
                continue
            out.append(_set(base, bits, value).to_bytes(len(row.word), "little"))
    vgprs = base
    for name, bits in row.free:
        width = sum(hi - lo + 1 for hi, lo in bits)
        if width == 9:
            vgprs = _set(vgprs, bits, 0x100)
        elif name.startswith("OPSEL_HI"):
            vgprs = _set(vgprs, bits, (1 << width) - 1)
    out.append(vgprs.to_bytes(len(row.word), "little"))
    return list(dict.fromkeys(out))


def _set(word: int, bits: tuple[tuple[int, int], ...], value: int) -> int:
    """`word` with `value` (MSB first across ranges) written into `bits`."""
    remaining = sum(hi - lo + 1 for hi, lo in bits)
    for hi, lo in bits:
        w = hi - lo + 1
        remaining -= w
        word = (word & ~(((1 << w) - 1) << lo)) | (((value >> remaining) & ((1 << w) - 1)) << lo)
    return word


def check_rows(rows: Sequence[Row], same: Callable[[str, str], bool], *, tool: LlvmMc | None = None) -> RowReport:
    """Disassemble every row's word on its arch's targets; `same(mnemonic, key)` decides a match."""
    tool = tool or find_llvm_mc()
    report = RowReport(tool.label)
    by_arch: dict[str, list[Row]] = {}
    for r in rows:
        by_arch.setdefault(r.arch, []).append(r)
    for arch, arch_rows in by_arch.items():
        pending = [r for r in arch_rows if r.word is not None]
        report.results += [RowResult(r, False, None) for r in arch_rows if r.word is None]
        last: dict[int, RowResult] = {}
        for target in BY_KEY[arch].targets:
            for mattr in ("", "+real-true16") if target.startswith(("gfx11", "gfx12")) else ("",):
                if not pending:
                    break
                pending = _try(pending, [[r.word] for r in pending], target, mattr, same, tool, last)
                if pending:
                    pending = _try(pending, [variants(r) for r in pending], target, mattr, same, tool, last)
        report.results += [last[id(r)] for r in arch_rows if id(r) in last]
    return report


def _try(rows: list[Row], words: list[list[bytes]], target: str, mattr: str, same: Callable[[str, str], bool],
         tool: LlvmMc, last: dict[int, RowResult]) -> list[Row]:
    """Disassemble each row's candidate words on `target`; record results, return rows still unmatched."""
    flat = [w for ws in words for w in ws]
    decoded = iter(disassemble_words(flat, target, mattr, tool=tool)) if flat else iter(())
    still = []
    for r, ws in zip(rows, words, strict=True):
        results = [next(decoded) for _ in ws]
        hit = next((d for d in results if d.asm is not None and any(same(m, r.name) for m in mnemonics_of(d.asm))),
                   None)
        if hit is not None:
            last[id(r)] = RowResult(r, True, hit.asm, target)
            continue
        if id(r) not in last or results:
            first = next((d for d in results if d.asm is not None), results[0] if results else None)
            if first is not None:
                last[id(r)] = RowResult(r, False, first.asm, target)
            elif id(r) not in last:
                last[id(r)] = RowResult(r, False, None, target)
        still.append(r)
    return still


def llvm_knows(candidates: dict[tuple[str, str], list[str]], same: Callable[[str, str], bool], *,
               tool: LlvmMc | None = None) -> set[tuple[str, str]]:
    """(arch, key) pairs whose instruction llvm-mc assembles on one of the arch's targets.

    `candidates` maps each pair to example lines of that instruction (LLVM's tests, any target);
    a pair is known when llvm-mc accepts one of them on a target of the arch and prints the
    instruction (results cached by llvm-mc version)."""
    tool = tool or find_llvm_mc()
    known: set[tuple[str, str]] = set()
    by_arch: dict[str, list[tuple[str, str]]] = {}
    for (arch, key), lines in candidates.items():
        by_arch.setdefault(arch, []).extend((key, line) for line in lines)
    for arch, pairs in by_arch.items():
        for target in BY_KEY[arch].targets:
            todo = [(k, line) for k, line in pairs if (arch, k) not in known]
            if not todo:
                break
            for (key, _), r in zip(todo, assemble([line for _, line in todo], target, tool=tool), strict=True):
                if r.ok and r.asm and any(same(m, key) for m in mnemonics_of(r.asm)):
                    known.add((arch, key))
    return known

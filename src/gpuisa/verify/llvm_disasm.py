"""Disassemble many instruction words with the real llvm-mc in one process per target.

Why: to check that a word built from the catalog's resolved layout and opcode is the instruction
the catalog says, llvm-mc must decode thousands of words. llvm-mc reads its input as one byte
stream, so each word is preceded by a marker (`s_nop N`, the same SOPP word on every AMDGPU
target) and followed by padding s_nops: a word that decodes longer or shorter than expected
cannot shift the words after it, and a word that does not decode is seen as a missing line
between two markers.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass

from gpuisa.verify.llvm_mc import INSTALL_HINT, LlvmMc, LlvmMcFailed, LlvmMcMissing, find_llvm_mc

_SNOP = 0xBF800000                  # s_nop simm16 (SOPP opcode 0): identical from gfx9 to gfx12
_PAD = 3                            # padding dwords after each word (a VOP3 literal, a 128-bit word)
_LINE = re.compile(r"^\s*(.*?)\s*;\s*encoding:\s*\[([^\]]*)\]")
_WARNING = re.compile(r"^<stdin>:(\d+):(\d+): warning: (.*)$", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class Decoded:
    """What llvm-mc printed for one word: its text, or None when it did not decode there."""

    word: bytes
    asm: str | None
    size: int = 0                   # bytes llvm-mc consumed for it (its re-encoding may differ)
    message: str = ""               # llvm-mc's warning when it rejected the word


def _marker(i: int) -> bytes:
    return (_SNOP | (i % 0x7FFF)).to_bytes(4, "little")


_PAD_WORD = (_SNOP | 0x7FFF).to_bytes(4, "little")


def _input(words: Sequence[bytes]) -> str:
    out = []
    for i, w in enumerate(words):
        out.append(",".join(f"0x{b:02x}" for b in _marker(i)))
        out.append(",".join(f"0x{b:02x}" for b in w))
        out.extend([",".join(f"0x{b:02x}" for b in _PAD_WORD)] * _PAD)
    return "\n".join(out) + "\n"


def disassemble_words(words: Sequence[bytes], target: str, mattr: str = "", *,
                      tool: LlvmMc | None = None) -> list[Decoded]:
    """llvm-mc's decoding of each word on `target`, in order (words must be whole dwords).

    A word that crashes llvm-mc is reported as such and the words after it are run again."""
    tool = tool or find_llvm_mc()
    for w in words:
        if not w or len(w) % 4:
            raise ValueError(f"a word is whole dwords, got {len(w)} bytes")
    out: list[Decoded] = []
    while len(out) < len(words):
        done, crashed = _disassemble(words[len(out):], target, mattr, tool)
        out += done
        if crashed:
            out.append(Decoded(words[len(out)], None, 0, "llvm-mc crashed on this word"))
    return out


def _disassemble(words: Sequence[bytes], target: str, mattr: str, tool: LlvmMc) -> tuple[list[Decoded], bool]:
    """One llvm-mc run; on a crash, the words before the one it died on, and True."""
    cmd = [tool.path, "-triple=amdgcn", f"-mcpu={target}", "-disassemble", "-show-encoding"]
    if mattr:
        cmd.append(f"-mattr={mattr}")
    try:
        proc = subprocess.run(cmd, input=_input(words), capture_output=True, text=True,
                              timeout=120 + len(words) // 50)
    except subprocess.TimeoutExpired as exc:
        raise LlvmMcFailed(f"{tool.label} timed out disassembling {len(words)} words for {target}") from exc
    except OSError as exc:
        raise LlvmMcMissing(f"cannot run {tool.path}: {exc.strerror}; {INSTALL_HINT}") from exc
    if "is not a recognized processor" in proc.stderr:
        raise LlvmMcFailed(f"{tool.label} does not know {target}")
    crashed = proc.returncode not in (0, 1)
    printed: list[tuple[str, bytes]] = []
    for raw in proc.stdout.splitlines():
        m = _LINE.match(raw)
        if m:
            printed.append((" ".join(m.group(1).split()), bytes(int(t, 16) for t in m.group(2).split(","))))
    # a word llvm-mc rejects is a warning at column 1 of its input line (line 2 + i * (2 + _PAD))
    rejected: dict[int, str] = {}
    for m in _WARNING.finditer(proc.stderr):
        line, col = int(m.group(1)), int(m.group(2))
        i, rest = divmod(line - 2, 2 + _PAD)
        if rest == 0 and col == 1 and 0 <= i < len(words):
            rejected.setdefault(i, m.group(3))
    out: list[Decoded] = [Decoded(w, None, 0, rejected.get(i, "no output")) for i, w in enumerate(words)]
    expect = 0
    for k, (_, data) in enumerate(printed):
        if expect >= len(words):
            break
        # the marker of `expect`, or of a later word when a word before it ran over its marker
        j = next((j for j in range(expect, min(expect + 4, len(words))) if data == _marker(j)), None)
        if j is None:
            continue
        nxt = printed[k + 1] if k + 1 < len(printed) else None
        if j not in rejected and nxt is not None and nxt[1] not in (_PAD_WORD, _marker(j + 1)):
            out[j] = Decoded(words[j], nxt[0], len(nxt[1]))
        expect = j + 1
    if crashed:
        # llvm-mc died on the word after the last marker it printed (stdout is flushed per line)
        return out[:max(expect - 1, 0)], True
    return out, False

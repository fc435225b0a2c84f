"""Differential fuzzing of the decoder against `llvm-mc --disassemble` on the same byte stream.

Words are built from the resolved encodings of one target: a random instruction's layout with
its fixed bits and opcode, every other bit random. Both decoders read the same stream; llvm-mc's
instruction boundaries come from its `; encoding:` bytes and the byte positions of its
"invalid instruction encoding" warnings (it skips 4 bytes, as the codec does). Instructions both
start at the same offset are compared; each disagreement is classed by family and kind.
"""

from __future__ import annotations

import random
import re
import subprocess
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from gpuisa.codec.conformance import matches, normalize
from gpuisa.codec.decoder import Decoded, _Decoder
from gpuisa.codec.tables import TargetTables, get_bits, put_bits, tables_for

_WARN = re.compile(r"^<stdin>:(\d+):(\d+): warning: invalid instruction encoding")
_ENC = re.compile(r"^\s*(.*?)\s*; encoding: \[([^\]]*)\]")
BYTES_PER_LINE = 16


@dataclass
class FuzzResult:
    target: str
    tool: str
    words: int = 0                     # dwords generated
    compared: int = 0                  # instructions both decoders started at the same offset
    agree: int = 0
    crashes: int = 0                   # exceptions out of our decoder (must stay 0)
    classes: Counter = field(default_factory=Counter)
    cases: dict[tuple[str, str], dict] = field(default_factory=dict)   # one regression case per class

    @property
    def mismatch_rate(self) -> float:
        return 1 - self.agree / self.compared if self.compared else 0.0

    def to_json(self) -> dict:
        return {"target": self.target, "tool": self.tool, "words": self.words, "compared": self.compared,
                "agree": self.agree, "mismatch_rate": round(self.mismatch_rate, 4), "crashes": self.crashes,
                "classes": [{"family": f, "kind": k, "count": n, "case": self.cases[(f, k)]}
                            for (f, k), n in self.classes.most_common()]}


def random_stream(tables: TargetTables, count: int, rng: random.Random) -> bytes:
    """`count` instructions of random operand bits, each with its layout's fixed bits and an opcode."""
    forms = [(lay, op) for lay in tables.layouts.values() if lay.mask for op in lay.forms]
    out = bytearray()
    for _ in range(count):
        lay, opcode = rng.choice(forms)
        word = rng.getrandbits(lay.width)
        for name, value in lay.fixed.items():
            bits = lay.fields[name]
            word &= ~put_bits(bits, -1)
            word |= put_bits(bits, value)
        word &= ~put_bits(lay.op_bits, -1)
        word |= put_bits(lay.op_bits, opcode)
        if get_bits(word, lay.op_bits) != opcode:   # a layout whose fixed bits overlap its opcode field
            continue
        out += word.to_bytes(lay.width // 8, "little")
    return bytes(out)


def llvm_decode(data: bytes, target: str, llvm_mc: str, wave64: bool) -> list[tuple[int, int, str | None]]:
    """(offset, length, text or None when invalid) for llvm-mc's reading of the stream."""
    lines = [" ".join(f"0x{b:02x}" for b in data[i:i + BYTES_PER_LINE]) for i in range(0, len(data), BYTES_PER_LINE)]
    gen10plus = target[3:5] in ("10", "11", "12") and len(target) == 7
    # the codec prints LLVM's fake16 spelling (whole VGPRs); ask llvm-mc for the same
    attr = ["-mattr=" + ",".join((["+wavefrontsize64"] if wave64 else []) + ["-real-true16"])] if gen10plus else []
    proc = subprocess.run([llvm_mc, "--disassemble", "-triple=amdgcn", f"-mcpu={target}", "-show-encoding", *attr],
                          input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=1800)
    warn_at: set[int] = set()
    for line in proc.stderr.splitlines():
        m = _WARN.match(line)
        if m:
            ln, col = int(m.group(1)), int(m.group(2))
            warn_at.add((ln - 1) * BYTES_PER_LINE + (col - 1) // 5)   # "0xNN " is 5 characters
    decoded = []
    for line in proc.stdout.splitlines():
        m = _ENC.match(line)
        if m:
            decoded.append((m.group(1), len([b for b in m.group(2).split(",") if b.strip()])))
    out: list[tuple[int, int, str | None]] = []
    pos = 0
    it = iter(decoded)
    while pos < len(data):
        if pos in warn_at:
            out.append((pos, min(4, len(data) - pos), None))
            pos += 4
            continue
        nxt = next(it, None)
        if nxt is None:
            break
        text, n = nxt
        out.append((pos, n, text))
        pos += n
    return out


def _ours(dec: _Decoder, data: bytes) -> dict[int, Decoded]:
    out = {}
    pos = 0
    while pos < len(data):
        d = dec.decode(data, pos)
        out[pos] = d
        pos += max(len(d.data), 4) if d.valid else 4
    return out


def _kind(ours: Decoded, text: str | None, length: int) -> str | None:
    if text is None and not ours.valid:
        return None
    if text is None:
        return "llvm-mc invalid, codec decodes"
    if not ours.valid:
        return f"codec invalid ({re.sub(r'[0-9]+', 'N', ours.reason)[:40]})"
    if len(ours.data) != length:
        return "length differs"
    a, b = normalize(ours.text), normalize(text)
    if matches(ours.text, text):
        return None
    if a.split(" ")[0] != b.split(" ")[0]:
        return "mnemonic differs"
    for x, y in zip(a.split(" ")[1:], b.split(" ")[1:], strict=False):
        if x != y:
            return f"operand differs ({re.sub(r'[0-9]+', 'N', y.split(':')[0])[:20]})"
    return "operand count differs"


def fuzz(target: str, count: int, llvm_mc: str, tool: str, catalog: Path | None = None, seed: int = 0,
         wave64: bool | None = None) -> FuzzResult:
    """Generate `count` random instructions for `target` and compare both decoders on them."""
    tables = tables_for(target, catalog, wave64=wave64)
    dec = _Decoder(tables)
    rng = random.Random(seed)
    data = random_stream(tables, count, rng)
    res = FuzzResult(target, tool, words=len(data) // 4)
    try:
        ours = _ours(dec, data)
    except Exception:   # counted, and the run goes on: a crash is the one thing that must never happen
        res.crashes += 1
        return res
    for pos, length, text in llvm_decode(data, target, llvm_mc, tables.wave64):
        mine = ours.get(pos)
        if mine is None:
            continue
        res.compared += 1
        kind = _kind(mine, text, length)
        if kind is None:
            res.agree += 1
            continue
        family = mine.encoding or "?"
        res.classes[(family, kind)] += 1
        res.cases.setdefault((family, kind), {"bytes": data[pos:pos + max(length, len(mine.data))].hex(" "),
                                              "llvm": text, "codec": mine.text if mine.valid else None,
                                              "reason": mine.reason})
    return res

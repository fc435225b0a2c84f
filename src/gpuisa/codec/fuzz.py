"""Differential fuzzing of the decoder against `llvm-mc --disassemble`, word by word.

Words are built from the resolved encodings of one target: a random instruction's layout with
its fixed bits and opcode, every other bit random. llvm-mc reads them between s_nop markers
(verify/llvm_disasm.py), so a word it rejects or reads at another length cannot shift the words
after it; the codec reads each word followed by the same padding. Each disagreement is classed
by family and kind. (Reading one raw stream instead paired llvm-mc's text with the wrong offsets
after its first rejected word.)
"""

from __future__ import annotations

import random
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from gpuisa.codec.conformance import matches, normalize
from gpuisa.codec.decoder import Decoded, _Decoder
from gpuisa.codec.tables import TargetTables, get_bits, put_bits, tables_for


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


def random_words(tables: TargetTables, count: int, rng: random.Random) -> list[bytes]:
    """`count` random instructions (see random_stream), one bytes object each."""
    forms = [(lay, op) for lay in tables.layouts.values() if lay.mask for op in lay.forms]
    out = []
    while len(out) < count:
        lay, opcode = rng.choice(forms)
        word = rng.getrandbits(lay.width)
        for name, value in lay.fixed.items():
            bits = lay.fields[name]
            word &= ~put_bits(bits, -1)
            word |= put_bits(bits, value)
        word &= ~put_bits(lay.op_bits, -1)
        word |= put_bits(lay.op_bits, opcode)
        if get_bits(word, lay.op_bits) == opcode:
            out.append(word.to_bytes(lay.width // 8, "little"))
    return out


def fuzz(target: str, count: int, llvm_mc: str, tool: str, catalog: Path | None = None, seed: int = 0,
         wave64: bool | None = None) -> FuzzResult:
    """Generate `count` random instructions for `target` and compare both decoders on each."""
    from gpuisa.verify.llvm_disasm import _PAD, _PAD_WORD, disassemble_words
    from gpuisa.verify.llvm_mc import find_llvm_mc

    tables = tables_for(target, catalog, wave64=wave64)
    dec = _Decoder(tables)
    rng = random.Random(seed)
    words = random_words(tables, count, rng)
    res = FuzzResult(target, tool, words=sum(len(w) for w in words) // 4)
    gen10plus = target[3:5] in ("10", "11", "12") and len(target) == 7
    # the codec prints LLVM's fake16 spelling (whole VGPRs); ask llvm-mc for the same
    mattr = ",".join((["+wavefrontsize64"] if tables.wave64 else []) + ["-real-true16"]) if gen10plus else ""
    theirs = disassemble_words(words, target, mattr, tool=find_llvm_mc(llvm_mc))
    pad = _PAD_WORD * _PAD
    for w, t in zip(words, theirs, strict=True):
        try:
            mine = dec.decode(w + pad, 0)
        except Exception:   # counted, and the run goes on: a crash is the one thing that must never happen
            res.crashes += 1
            continue
        res.compared += 1
        kind = _kind(mine, t.asm, t.size)
        if kind is None:
            res.agree += 1
            continue
        family = mine.encoding or "?"
        res.classes[(family, kind)] += 1
        res.cases.setdefault((family, kind), {"bytes": w.hex(" "), "llvm": t.asm,
                                              "codec": mine.text if mine.valid else None, "reason": mine.reason})
    return res

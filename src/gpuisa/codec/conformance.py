"""Conformance against LLVM's MC tests: every example decoded (bytes -> LLVM's printed text) and
every assembler example encoded (source line -> LLVM's bytes), per target and encoding family,
with the top failure classes and a sample of each (file:line).

Examples checked with `-mattr=+real-true16` (or whose text shows v1.l / v1.h) are decoded in
real-true16 syntax, the others in fake16 syntax (whole VGPRs); VOPD pairs (`X :: Y`) are counted
like any other example.

An assembler test's check line is what llvm-mc's *printer* made of the parsed source line, not
what its disassembler makes of the bytes: some lines do not round-trip (gfx9 MIMG prints a 1-dword
vaddr for v[1:2]; VOP2 bytes print with `_e32`). Where the codec's decoding of such bytes differs
from the check line and llvm-mc 22 is installed, llvm-mc's own disassembly of the bytes is the
expectation (counted as `decode expectation from llvm-mc`), never the codec's output.
"""

from __future__ import annotations

import random
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from gpuisa.archs import TARGET_TO_ARCH
from gpuisa.codec.decoder import _Decoder
from gpuisa.codec.encoder import AsmError, _Encoder
from gpuisa.codec.syntax import generation
from gpuisa.codec.tables import tables_for
from gpuisa.model_llvm import McExample

# The gfx9 / gfx10 / gfx11 / gfx12 / gfx1250 targets the issue measures (one per LLVM syntax page; gfx950 for
# GFX950's page and the cdna4 manual).
DEFAULT_TARGETS = ("gfx900", "gfx90a", "gfx942", "gfx950", "gfx1010", "gfx1030", "gfx1100", "gfx1200", "gfx1250")
SAMPLES = 5
_SPACES = re.compile(r"\s+")
_COMMA = re.compile(r"\s*,\s*")


def normalize(text: str) -> str:
    """LLVM check text compared modulo spacing (check lines align columns with spaces)."""
    return _SPACES.sub(" ", _COMMA.sub(", ", text)).strip()


def matches(ours: str, check: str) -> bool:
    """FileCheck's rule: a check line matches when its text appears in the output line (LLVM's checks
    often stop before default modifiers, e.g. `row_mirror` without `row_mask:0xf bank_mask:0xf`)."""
    a, b = normalize(ours), normalize(check)
    return a == b or (a.startswith(b) and a[len(b):len(b) + 1] == " ")


@dataclass
class Tally:
    ok: int = 0
    total: int = 0

    @property
    def rate(self) -> float:
        return self.ok / self.total if self.total else 0.0

    def to_json(self) -> dict:
        return {"ok": self.ok, "total": self.total, "rate": round(self.rate, 4)}


@dataclass
class TargetReport:
    target: str
    decode: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    encode: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    failures: Counter = field(default_factory=Counter)
    samples: dict[tuple, list[str]] = field(default_factory=lambda: defaultdict(list))
    skipped: Counter = field(default_factory=Counter)
    notes: Counter = field(default_factory=Counter)     # how expectations were settled (llvm-mc's disassembly)

    def fail(self, direction: str, family: str, why: str, ex: McExample, detail: str) -> None:
        key = (direction, family, why)
        self.failures[key] += 1
        if len(self.samples[key]) < SAMPLES:
            self.samples[key].append(f"{ex.file}:{ex.line}: {detail}")

    def totals(self, direction: str) -> Tally:
        t = Tally()
        for v in (self.decode if direction == "decode" else self.encode).values():
            t.ok += v.ok
            t.total += v.total
        return t

    def to_json(self, top: int = 15) -> dict:
        return {
            "target": self.target,
            "decode": {"all": self.totals("decode").to_json(), **{k: v.to_json() for k, v in sorted(self.decode.items())}},
            "encode": {"all": self.totals("encode").to_json(), **{k: v.to_json() for k, v in sorted(self.encode.items())}},
            "skipped": dict(self.skipped), "notes": dict(self.notes),
            "top_failures": [{"direction": d, "family": f, "class": w, "count": n, "samples": self.samples[(d, f, w)]}
                             for (d, f, w), n in self.failures.most_common(top)],
        }


def _family_of(asm: str) -> str:
    """Family for an example nothing decoded: the mnemonic's first word (v, s, ds, buffer, image ...)."""
    word = asm.split(None, 1)[0] if asm.strip() else "?"
    return word.split("_", 1)[0].upper() + "?"


def _why(decoded_text: str, expected: str) -> str:
    """A failure class: the first differing token kind."""
    a, b = normalize(decoded_text).split(" "), normalize(expected).split(" ")
    if a[:1] != b[:1]:
        return "mnemonic differs"
    for x, y in zip(a[1:], b[1:], strict=False):
        if x != y:
            kind = re.sub(r"\d+", "N", y.split(":")[0])[:24]
            return f"operand differs ({kind})"
    return "operand count differs"


def wants_wave64(ex: McExample, target: str) -> bool | None:
    """Wave size an example was checked with (None: either)."""
    if generation(target) < 10:
        return True
    w64 = {"+wavefrontsize64" in m for m in ex.mattrs}
    return next(iter(w64)) if len(w64) == 1 else None


_HALF_TEXT = re.compile(r"\bv\d+\.[lh]\b")


def wants_true16(ex: McExample, target: str) -> bool:
    """Whether an example was checked in real-true16 syntax on `target`: its RUN line says
    +real-true16, or its text shows a VGPR half (v1.l / v1.h) and no RUN line says -real-true16."""
    if generation(target) < 11:
        return False
    mattrs = [r.mattr for r in ex.runs if r.target == target] or list(ex.mattrs)
    if any("-real-true16" in m for m in mattrs):
        return False
    return any("+real-true16" in m for m in mattrs) or bool(_HALF_TEXT.search(ex.asm))


def _run_mattr(ex: McExample, target: str, w64: bool) -> str:
    """The -mattr of the RUN line that checked `ex` on `target` with the wave size the codec used."""
    runs = [r for r in ex.runs if r.target == target]
    for r in runs:
        if ("+wavefrontsize64" in r.mattr) == w64:
            return r.mattr
    return runs[0].mattr if runs else ""


def _judge(rep: TargetReport, ex: McExample, d, family: str, expected: str) -> None:
    tally = rep.decode[family]
    if d.valid and len(d.data) == len(ex.bytes) and matches(d.text, expected):
        tally.ok += 1
    elif not d.valid:
        rep.fail("decode", family, f"invalid: {re.sub(r'[0-9]+', 'N', d.reason)[:50]}", ex, expected)
    elif len(d.data) != len(ex.bytes):
        rep.fail("decode", family, "length differs", ex, f"{expected} -> {d.text} ({len(d.data)} bytes)")
    else:
        rep.fail("decode", family, _why(d.text, expected), ex, f"{expected} -> {d.text}")


def _llvm_disassembly(pending: list[tuple], target: str) -> dict[int, str]:
    """llvm-mc 22's disassembly of the pending examples' bytes, by index (absent: llvm-mc missing,
    too old for the target, or it rejected the bytes)."""
    from gpuisa.verify.llvm_disasm import disassemble_words
    from gpuisa.verify.llvm_mc import LlvmMcFailed, LlvmMcMissing, find_llvm_mc

    try:
        tool = find_llvm_mc()
    except LlvmMcMissing:
        return {}
    if not tool.knows(target):
        return {}
    by_mattr: dict[str, list[int]] = defaultdict(list)
    for i, (ex, _d, _fam, mattr) in enumerate(pending):
        if len(ex.bytes) % 4 == 0:
            by_mattr[mattr].append(i)
    out: dict[int, str] = {}
    for mattr, idx in by_mattr.items():
        try:
            got = disassemble_words([pending[i][0].bytes for i in idx], target, mattr, tool=tool)
        except LlvmMcFailed:
            continue
        for i, g in zip(idx, got, strict=True):
            if g.asm is not None and g.size == len(pending[i][0].bytes):
                out[i] = g.asm
    return out


def check_target(examples: list[McExample], target: str, catalog: Path | None = None,
                 sample: int | None = None, seed: int = 0, sources: Path | None = None,
                 reference: bool = True) -> TargetReport:
    """Both directions over the examples of one target (`sources`: to read check lines back;
    `reference`: settle non-round-tripping assembler lines with llvm-mc's disassembly)."""
    rep = TargetReport(target)
    printed = _CheckLines(sources)
    mine = [ex for ex in examples if target in ex.targets and ex.bytes]
    if sample is not None and len(mine) > sample:
        mine = random.Random(seed).sample(mine, sample)
    coders: dict[tuple[bool, bool], tuple[_Decoder, _Encoder]] = {}
    pending: list[tuple] = []    # assembler examples whose bytes the codec prints unlike the check line
    for ex in mine:
        w64 = wants_wave64(ex, target)
        w64 = (generation(target) < 10) if w64 is None else w64
        t16 = wants_true16(ex, target)
        if t16:
            rep.notes["real-true16 examples (v1.l / v1.h syntax), included"] += 1
        if "::" in ex.asm:
            rep.notes["VOPD pairs, included"] += 1
        if (w64, t16) not in coders:
            t = tables_for(target, catalog, wave64=w64)
            coders[(w64, t16)] = (_Decoder(t, true16=t16), _Encoder(t, true16=t16))
        dec, enc = coders[(w64, t16)]
        # decode: LLVM's bytes must print as LLVM's text (when the check line shows the text)
        d = dec.decode(ex.bytes, 0)
        if ex.direction == "asm" and not printed.has_text(ex):
            rep.skipped["encoding-only check (no printed text to compare)"] += 1
            _encode(rep, enc, ex, d.encoding or _family_of(ex.asm))
            continue
        family = d.encoding or _family_of(ex.asm)
        rep.decode[family].total += 1
        round_trips = d.valid and len(d.data) == len(ex.bytes) and matches(d.text, ex.asm)
        if ex.direction == "asm" and reference and not round_trips:
            pending.append((ex, d, family, _run_mattr(ex, target, w64)))
        else:
            _judge(rep, ex, d, family, ex.asm)
        if ex.direction == "asm":
            _encode(rep, enc, ex, family)
    llvm = _llvm_disassembly(pending, target) if pending else {}
    for i, (ex, d, family, _mattr) in enumerate(pending):
        expected = llvm.get(i, ex.asm)
        if normalize(expected) != normalize(ex.asm):
            rep.notes["decode expectation from llvm-mc (check line does not round-trip)"] += 1
        _judge(rep, ex, d, family, expected)
    return rep


def _encode(rep: TargetReport, enc: _Encoder, ex: McExample, family: str) -> None:
    """The assembler test's source line must give LLVM's bytes."""
    source = ex.input or ex.asm
    etally = rep.encode[family]
    etally.total += 1
    try:
        e = enc.encode_line(source, 1)
    except AsmError as exc:
        rep.fail("encode", family, f"error: {re.sub(r'[0-9]+', 'N', exc.message)[:50]}", ex,
                 f"{source} -> {exc.message}")
        return
    if e is not None and e.data == ex.bytes:
        etally.ok += 1
    else:
        got = e.data.hex(" ") if e else "nothing"
        rep.fail("encode", family, "bytes differ" if e and len(e.data) == len(ex.bytes) else "length differs", ex,
                 f"{source} -> {got} (LLVM {ex.bytes.hex(' ')})")


class _CheckLines:
    """Whether an assembler check line shows llvm-mc's printed text (`// CHECK: v_nop ; encoding: [..]`)
    or only the bytes (`// CHECK: encoding: [..]`, where the reader keeps the source line as text)."""

    def __init__(self, sources: Path | None) -> None:
        self.sources = sources
        self.files: dict[str, list[str]] = {}

    def has_text(self, ex: McExample) -> bool:
        if self.sources is None or ex.line is None:
            return True
        lines = self.files.get(ex.file)
        if lines is None:
            try:
                lines = (self.sources / ex.file).read_text(encoding="utf-8", errors="replace").splitlines()
            except OSError:
                lines = []
            self.files[ex.file] = lines
        if not 0 < ex.line <= len(lines):
            return True
        body = lines[ex.line - 1].split(":", 1)[-1]
        return not body.strip().startswith("encoding:")


def run(sources: Path, targets: tuple[str, ...] = DEFAULT_TARGETS, catalog: Path | None = None,
        sample: int | None = None, processes: int | None = None) -> list[TargetReport]:
    """Read the corpus once and check every target."""
    from gpuisa.errors import NotFoundError
    from gpuisa.sources.llvm_mc import read_corpus

    for t in targets:
        if t not in TARGET_TO_ARCH:
            raise NotFoundError("target", t, [x for x in TARGET_TO_ARCH if x[:5] == t[:5]][:6])
    corpus = read_corpus(sources, processes=processes)
    return [check_target(corpus.examples, t, catalog, sample, sources=sources) for t in targets]

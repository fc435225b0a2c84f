"""Build stage: LLVM's AMDGPU MC tests as examples, per-target support verdicts, and the
cross-check of every manual-derived identifier against the bytes LLVM emits.

Inputs are records (McCorpus from sources.llvm_mc, ManualData, merged instructions); output is
rows in the catalog's llvm_* tables and errata. Verification with llvm-mc is optional and cached.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

from gpuisa.archs import ARCHS, TARGET_TO_ARCH
from gpuisa.catalog import merge as m
from gpuisa.model import Encoding, ManualData
from gpuisa.model_llvm import McCorpus, McExample, TargetVerdict
from gpuisa.sources.llvm_mc import mnemonics
from gpuisa.verify.llvm_mc import simplicity

EXAMPLES_PER_TARGET = 3
ALL_TARGETS: tuple[str, ...] = tuple(t for a in ARCHS for t in a.targets)


Progress = Callable[[str, int, int], None]


@dataclass(slots=True)
class LlvmReport:
    examples: int = 0
    matched: int = 0
    unmatched_names: Counter[str] = field(default_factory=Counter)
    per_target: Counter[str] = field(default_factory=Counter)
    encoding_lines: int = 0
    skipped_encoding_lines: int = 0
    skips: Counter[str] = field(default_factory=Counter)
    verdicts: Counter[str] = field(default_factory=Counter)
    verified_with_llvm_mc: int = 0
    llvm_mc: str = ""
    agreement: dict[tuple[str, str], list[int]] = field(default_factory=dict)
    errata: int = 0


def write_llvm(conn: sqlite3.Connection, corpus: McCorpus, manuals: list[ManualData],
               merged: dict[str, m.MergedInstruction], verdicts: list[TargetVerdict] | None,
               tool_label: str = "") -> LlvmReport:
    """Fill the llvm_* tables, `targets`, `agreement` and manual-vs-LLVM errata."""
    report = LlvmReport(encoding_lines=corpus.encoding_lines, skipped_encoding_lines=sum(corpus.encoding_skips.values()),
                        skips=Counter(corpus.skips), llvm_mc=tool_label)
    keys = m.key_index(merged)
    best: dict[tuple[str, str], list[tuple[tuple, McExample]]] = defaultdict(list)
    counts: Counter[tuple[str, str]] = Counter()
    evidence: dict[tuple[str, str], McExample] = {}
    layouts = {d.arch: d.encodings for d in manuals}
    check = _CrossCheck(layouts, merged)
    for ex in corpus.examples:
        report.examples += 1
        names = [keys.get(n) for n in mnemonics(ex.asm)]
        if not names or names[0] is None:
            report.unmatched_names[mnemonics(ex.asm)[0] if mnemonics(ex.asm) else "?"] += 1
            continue
        report.matched += 1
        rank = (ex.direction != "asm", *simplicity(ex.asm), ex.file, ex.line or 0)
        for target in ex.targets:
            arch = TARGET_TO_ARCH.get(target)
            if arch is None:
                continue
            report.per_target[target] += 1
            for key in filter(None, names):
                counts[(key, target)] += 1
                slot = best[(key, target)]
                full = len(slot) >= EXAMPLES_PER_TARGET
                if (not full or rank < slot[-1][0]) and all(e.asm != ex.asm for _, e in slot):
                    slot.append((rank, ex))
                    slot.sort(key=lambda x: x[0])
                    del slot[EXAMPLES_PER_TARGET:]
                evidence.setdefault((key, target), ex)
            if len(names) == 1:
                check.add(names[0], arch, ex)
    rows = []
    for (key, target), slot in best.items():
        for rank, (_, ex) in enumerate(slot):
            mattr = next((r.mattr for r in ex.runs if r.target == target), "")
            rows.append((key, target, TARGET_TO_ARCH[target], ex.asm, ex.input, ex.bytes.hex(" "), ex.direction,
                         mattr, ex.file, ex.line, rank))
    rows += _verified_examples(best, keys, verdicts or [])
    conn.executemany("INSERT INTO llvm_examples VALUES (?,?,?,?,?,?,?,?,?,?,?)", rows)
    conn.executemany("INSERT INTO llvm_counts VALUES (?,?,?)", [(k, t, n) for (k, t), n in counts.items()])
    _write_targets(conn, corpus, keys, evidence, verdicts or [], report)
    report.agreement = check.write(conn)
    report.errata = check.errata_count
    return report


def _verified_examples(best: dict[tuple[str, str], list[tuple[tuple, McExample]]], keys: dict[str, str],
                       verdicts: list[TargetVerdict]) -> list[tuple]:
    """Lines llvm-mc assembled on a target, as examples of that target's arch where its tests have
    none or only a less plain one (DPP, SDWA, forced encoding): the page's first example is then
    valid on one of its own targets. Rank -1 puts such a line first; its file:line is the test
    line it was taken from, its bytes are llvm-mc's for this target."""
    tested: dict[tuple[str, str], tuple] = {}
    for (key, target), slot in best.items():
        arch = TARGET_TO_ARCH[target]
        rank = slot[0][0][1:]                       # simplicity of the arch's simplest test line
        if (key, arch) not in tested or rank < tested[(key, arch)]:
            tested[(key, arch)] = rank
    out: dict[tuple[str, str], tuple] = {}
    for v in verdicts:
        key = keys.get(v.mnemonic)
        if v.verdict != "supported" or key is None or v.target not in TARGET_TO_ARCH or not v.bytes:
            continue
        arch = TARGET_TO_ARCH[v.target]
        rank = simplicity(v.asm)
        if (key, arch) in out or ((key, arch) in tested and rank >= tested[(key, arch)]):
            continue
        ex = v.example
        out[(key, arch)] = (key, v.target, arch, v.asm, v.line, v.bytes.hex(" "), "llvm-mc", v.mattr,
                            ex.file if ex else "", ex.line if ex else None, -1)
    return list(out.values())


def llvm_aliases(corpus: McCorpus) -> dict[str, tuple[str, str]]:
    """Old -> new names from asm tests where llvm-mc prints another mnemonic than the input's
    (`ds_read2_b32` assembles and prints as `ds_load_2addr_b32` on gfx1100). Names LLVM maps
    inconsistently are dropped."""
    seen: dict[str, tuple[str, str]] = {}
    conflicting: set[str] = set()
    for ex in corpus.examples:
        if ex.direction != "asm" or not ex.input:
            continue
        old, new = mnemonics(ex.input), mnemonics(ex.asm)
        if len(old) != 1 or len(new) != 1 or old[0] == new[0]:
            continue
        prev = seen.get(old[0])
        if prev is None:
            seen[old[0]] = (new[0], f"LLVM assembles {old[0].lower()} as {new[0].lower()} on "
                                    f"{'/'.join(ex.targets)} ({ex.file}:{ex.input_line})")
        elif prev[0] != new[0]:
            conflicting.add(old[0])
    return {k: v for k, v in seen.items() if k not in conflicting}


# how strongly a record speaks for an identity on a target: one supported spelling is enough; a
# "not supported" needs every spelling tried to be refused; tests (LLVM 23) outrank llvm-mc
_VERDICT_RANK = {"supported": 0, "not supported": 1, "inconclusive": 2, "beyond": 3, "tool failed": 4}
_EVIDENCE_RANK = {"llvm-test": 0, "llvm-mc": 1}


def _write_targets(conn: sqlite3.Connection, corpus: McCorpus, keys: dict[str, str],
                   evidence: dict[tuple[str, str], McExample], verdicts: list[TargetVerdict], report: LlvmReport) -> None:
    """One verdict per (identity, target) from every spelling's records; the spelling that decided it is kept.

    FLAT_LOAD_U16 on gfx1030: `flat_load_u16` is "instruction not supported" there, `flat_load_ushort`
    (the same identity, the older name) assembles, so the identity is supported via flat_load_ushort."""
    records: dict[tuple[str, str], dict[str, tuple]] = defaultdict(dict)   # (key, target) -> spelling -> row

    def offer(key: str, target: str, spelling: str, row: tuple) -> None:
        slot = records[(key, target)]
        old = slot.get(spelling)
        if old is None or (_VERDICT_RANK[row[3]], _EVIDENCE_RANK[row[4]]) < (_VERDICT_RANK[old[3]], _EVIDENCE_RANK[old[4]]):
            slot[spelling] = row

    for (key, target), ex in evidence.items():
        spelling = next((n for n in mnemonics(ex.asm) if keys.get(n) == key), key)
        offer(key, target, spelling, (key, target, TARGET_TO_ARCH[target], "supported", "llvm-test",
                                      f"{ex.asm}  ; encoding {ex.bytes.hex(' ')}", ex.file, ex.line,
                                      tests_label(ex.file), spelling))
    for neg in corpus.negatives:
        if not neg.not_supported or neg.direction != "asm":
            continue
        names = mnemonics(neg.input)
        key = keys.get(names[0]) if names else None
        if key is None:
            continue
        for target in neg.targets:
            if target in TARGET_TO_ARCH:
                offer(key, target, names[0], (key, target, TARGET_TO_ARCH[target], "not supported", "llvm-test",
                                              f"{neg.input}: {neg.message}", neg.provenance.file, neg.provenance.line,
                                              tests_label(neg.provenance.file), names[0]))
    for v in verdicts:
        key = keys.get(v.mnemonic)
        if key is None or v.target not in TARGET_TO_ARCH:
            continue
        verdict = v.verdict
        if verdict == "inconclusive" and v.asm and keys.get(mnemonics(v.asm)[0] if mnemonics(v.asm) else "") == key:
            verdict = "supported"             # printed under the identity's other name (a rename LLVM applies)
        detail = (f"{v.line} -> {v.asm}" + (f" ({v.message})" if v.message else "") if verdict == "supported"
                  else f"{v.line}: {v.message}" if v.line else v.message)     # message: "adapted from f:l (how)"
        ex = v.example
        offer(key, v.target, v.mnemonic, (key, v.target, TARGET_TO_ARCH[v.target], verdict, "llvm-mc", detail,
                                          ex.file if ex else None, ex.line if ex else None, v.tool, v.mnemonic))
        report.verified_with_llvm_mc += 1
    rows = [_identity_verdict(slot) for slot in records.values()]
    conn.executemany("INSERT INTO targets VALUES (?,?,?,?,?,?,?,?,?,?)", rows)
    report.verdicts = Counter(r[3] for r in rows)


def tests_label(file: str) -> str:
    """Who said so, for a verdict from LLVM's own tests: "LLVM 23.1.1 MC tests" (from the sources' folder name)."""
    m = re.match(r"llvm-project-(\d+\.\d+\.\d+)/", file or "")
    return f"LLVM {m.group(1)} MC tests" if m else "LLVM MC tests"


def _identity_verdict(slot: dict[str, tuple]) -> tuple:
    """Supported if any spelling is; "not supported" only when every spelling with a record is
    refused as an instruction; otherwise the most telling open record (operands, tool too old)."""
    best = min(slot.values(), key=lambda r: (_VERDICT_RANK[r[3]], _EVIDENCE_RANK[r[4]]))
    if best[3] != "not supported" or len(slot) == 1:
        return best
    refused = "; ".join(f"{s.lower()}: {r[5]}" for s, r in sorted(slot.items()) if r[3] == "not supported")
    if all(r[3] == "not supported" for r in slot.values()):
        return (*best[:5], refused, *best[6:])
    open_ = min((r for r in slot.values() if r[3] != "not supported"), key=lambda r: _VERDICT_RANK[r[3]])
    return (*open_[:5], f"{open_[5]} (refused: {refused})", *open_[6:])


class _CrossCheck:
    """Does the manual's (encoding, opcode) for an instruction match the bytes LLVM emits?

    For each example, the encoding LLVM used is found by matching the fixed bits of each of the
    arch's layouts; the opcode is then read from that layout's OP field. Counted once per distinct
    (instruction, arch, encoding, LLVM opcode); a mismatch is an erratum naming both sources.
    """

    def __init__(self, layouts: dict[str, dict[str, Encoding]], merged: dict[str, m.MergedInstruction]) -> None:
        self.layouts: dict[str, list[tuple[Encoding, int, int, int]]] = {}
        for arch, encs in layouts.items():
            for e in encs.values():
                mask, value = _fixed_mask(e)
                if e.field("OP") and mask:
                    self.layouts.setdefault(arch, []).append((e, mask, value, e.width // 8))
        self._decoded: dict[tuple[str, bytes, frozenset[str]], tuple[str, int] | None] = {}
        self.merged = merged
        self.seen: dict[tuple[str, str, str, int], McExample] = {}
        self.example_counts: Counter[tuple[str, str, bool]] = Counter()
        self.errata_count = 0

    def add(self, key: str, arch: str, ex: McExample) -> None:
        entry = self.merged[key].per_arch.get(arch)
        if entry is None or not entry.encodings or not ex.bytes:
            return
        manual = {e["encoding"]: e["opcode"] for e in entry.encodings}
        memo_key = (arch, ex.bytes[:16], frozenset(manual))
        if memo_key not in self._decoded:
            self._decoded[memo_key] = self._decode(arch, ex.bytes, set(manual))
        found = self._decoded[memo_key]
        if found is None:
            return
        enc_name, opcode = found
        if enc_name not in manual:
            return
        self.example_counts[(arch, enc_name, manual[enc_name] == opcode)] += 1
        self.seen.setdefault((key, arch, enc_name, opcode), ex)

    def _decode(self, arch: str, data: bytes, prefer: set[str]) -> tuple[str, int] | None:
        matches = []
        for enc, mask, value, nbytes in self.layouts.get(arch, []):
            if len(data) < nbytes:
                continue
            word = int.from_bytes(data[:nbytes], "little")
            if word & mask == value:
                op = enc.field("OP")
                matches.append((enc.name in prefer, mask.bit_count(), enc.width, enc.name, _extract(op.bits, word)))
        if not matches:
            return None
        matches.sort(reverse=True)
        return matches[0][3], matches[0][4]

    def write(self, conn: sqlite3.Connection) -> dict[tuple[str, str], list[int]]:
        """Agreement per (arch, encoding) and errata. Where most of an encoding's opcodes disagree
        in the same way, the manual's OP bit range is tested against shifted ranges: a shift that
        makes them agree is reported once as a field-position erratum (rdna1 DS: OP [24:17] in the
        manual, [25:18] in LLVM), and each instruction's erratum names it."""
        groups: dict[tuple[str, str], list[tuple[str, int, int, McExample]]] = defaultdict(list)
        for (key, arch, enc_name, opcode), ex in self.seen.items():
            row = next(e for e in self.merged[key].per_arch[arch].encodings if e["encoding"] == enc_name)
            groups[(arch, enc_name)].append((key, row["opcode"], opcode, ex))
        agg: dict[tuple[str, str], list[int]] = {}
        errata = []
        for (arch, enc_name), items in groups.items():
            agree = sum(manual == llvm for _, manual, llvm, _ in items)
            agg[(arch, enc_name)] = [len(items), agree, 0, 0]
            shift = self._field_shift(arch, enc_name, items) if len(items) - agree >= 3 else None
            layout = next(e for e, *_ in self.layouts[arch] if e.name == enc_name)
            op_bits = layout.field("OP").bits
            if shift:
                moved = ",".join(f"{hi + shift}:{lo + shift}" for hi, lo in op_bits)
                fixed = sum(ok for ok in (self._op_at(arch, enc_name, ex, shift) == manual for _, manual, _, ex in items))
                errata.append(("*", arch, "manual-vs-llvm-field",
                               f"{enc_name}: the {arch} manual puts OP at [{_bits(op_bits)}]; the bytes in LLVM's tests "
                               f"agree with the manual's opcodes at [{moved}] for {fixed} of {len(items)} instructions",
                               json.dumps([_prov_json(layout.provenance)])))
            for key, manual, llvm, ex in items:
                if manual == llvm:
                    continue
                prov = next(e for e in self.merged[key].per_arch[arch].encodings if e["encoding"] == enc_name)["provenance"]
                name = self.merged[key].per_arch[arch].manual_name
                why = (f"; LLVM's bytes carry the manual's opcode {manual} with OP at "
                       f"[{','.join(f'{hi + shift}:{lo + shift}' for hi, lo in op_bits)}], not [{_bits(op_bits)}]"
                       if shift and self._op_at(arch, enc_name, ex, shift) == manual else "")
                errata.append((key, arch, "manual-vs-llvm",
                               f"{name}: the {arch} manual gives {enc_name} opcode {manual}, LLVM's test encodes "
                               f"`{ex.asm}` as {enc_name} opcode {llvm} (bytes {ex.bytes.hex(' ')}){why}",
                               json.dumps([_prov_json(prov), {"source": "llvm-mc-test", "file": ex.file, "line": ex.line}])))
        for (arch, enc_name, ok), n in self.example_counts.items():
            slot = agg.setdefault((arch, enc_name), [0, 0, 0, 0])
            slot[2] += n
            if ok:
                slot[3] += n
        conn.executemany("INSERT INTO agreement VALUES (?,?,?,?,?,?)", [(a, e, *v) for (a, e), v in agg.items()])
        conn.executemany("INSERT INTO errata(name, arch, kind, detail, sources) VALUES (?,?,?,?,?)", errata)
        self.errata_count = len(errata)
        return agg

    def _op_at(self, arch: str, enc_name: str, ex: McExample, shift: int) -> int | None:
        layout = next(e for e, *_ in self.layouts[arch] if e.name == enc_name)
        nbytes = layout.width // 8
        if len(ex.bytes) < nbytes:
            return None
        word = int.from_bytes(ex.bytes[:nbytes], "little")
        bits = tuple((hi + shift, lo + shift) for hi, lo in layout.field("OP").bits)
        if min(lo for _, lo in bits) < 0:
            return None
        return _extract(bits, word)

    def _field_shift(self, arch: str, enc_name: str, items: list[tuple[str, int, int, McExample]]) -> int | None:
        for shift in (1, -1, 2, -2):
            hits = sum(self._op_at(arch, enc_name, ex, shift) == manual for _, manual, _, ex in items)
            if hits >= 0.9 * len(items):
                return shift
        return None


def _bits(bits: tuple[tuple[int, int], ...]) -> str:
    return ",".join(f"{hi}:{lo}" for hi, lo in bits)


def _prov_json(p) -> dict:
    return {k: v for k, v in {"source": p.source, "file": p.file, "line": p.line}.items() if v is not None}


def _fixed_mask(enc: Encoding) -> tuple[int, int]:
    mask = value = 0
    for f in enc.fields:
        if f.value is not None:
            mask |= m.place(f.bits, (1 << f.width) - 1)
            value |= m.place(f.bits, f.value)
    return mask, value


def _extract(bits: tuple[tuple[int, int], ...], word: int) -> int:
    out = 0
    for hi, lo in bits:
        out = (out << (hi - lo + 1)) | ((word >> lo) & ((1 << (hi - lo + 1)) - 1))
    return out

"""Build stage: resolve each arch's encoding layouts and opcodes against LLVM's bytes.

Input: the manuals as read (ManualData) and LLVM's MC-test corpus. Output: the same manuals with
resolved layouts and opcodes (what pages, identifiers, diffs and the codec use), and for each
correction the manual's value, the quirk-table entry that made it (sources/amd_quirks.py), and
the evidence: how many LLVM encodings agree with the resolved fact and how many with the manual.

A correction applies where LLVM's encodings agree with it and none agree with the manual; an arch
with no LLVM encoding of the format is settled by a sibling arch listed in the same entry that
prints the same layout and has evidence, and otherwise keeps the manual's value, marked unsettled.
Every (arch, encoding) gets a `settled` line saying what settled its layout.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections import defaultdict
from dataclasses import dataclass, field, replace

from gpuisa.archs import TARGET_TO_ARCH
from gpuisa.catalog.merge import identifier, layout_encoding
from gpuisa.model import Encoding, Erratum, Field, ManualData, OpcodeEntry, Provenance
from gpuisa.model_llvm import McCorpus, McExample
from gpuisa.sources.amd_names import RENAMES, canonical_instruction
from gpuisa.sources.amd_quirks import LAYOUT_FIXES, OPCODE_FIXES, FieldAt, LayoutFix, OpcodeFix, Seen
from gpuisa.sources.llvm_mc import mnemonics
from gpuisa.verify.encoding_rows import Row, check_rows
from gpuisa.verify.llvm_mc import LlvmMc

_OFFSET = re.compile(r"\boffset:\s*(-?(?:0x[0-9a-fA-F]+|\d+))")
_SGPR_CARRY = re.compile(r"^\S+\s+v\d+,\s*(?:s\[|s\d|vcc|null)")


@dataclass(slots=True)
class Correction:
    """One application of a quirk-table correction on one arch (and encoding / instruction)."""

    quirk: str
    arch: str
    encoding: str
    name: str = "*"                  # instruction, or "*" for a layout correction
    manual: str = ""                 # the manual's value ("OP [20:13]", "opcode 385")
    resolved: str = ""               # the resolved value ("OP [21:14]", "opcode 321")
    evidence: int = 0                # LLVM encodings that agree with the resolved value (not the manual's)
    against: int = 0                 # LLVM encodings that agree with the manual's value (not the resolved)
    settled: str = ""                # what settled it: "LLVM MC tests", "sibling rdna1", ...
    sources: tuple[Provenance, ...] = ()

    def detail(self) -> str:
        what = f"{self.encoding}" if self.name == "*" else f"{self.name} {self.encoding}"
        return (f"{what}: the {self.arch} manual prints {self.manual}; resolved to {self.resolved} by {self.settled} "
                f"({self.evidence} LLVM encodings on {self.arch} agree, {self.against} agree only with the manual)")


@dataclass(slots=True)
class Resolution:
    manuals: list[ManualData]
    corrections: list[Correction] = field(default_factory=list)
    settled: dict[tuple[str, str], str] = field(default_factory=dict)        # (arch, encoding) -> how
    manual_layouts: dict[tuple[str, str], Encoding] = field(default_factory=dict)   # where corrected
    manual_opcodes: dict[tuple[str, str, str], int] = field(default_factory=dict)   # (arch, enc, name) -> manual
    row_fields: dict[tuple[str, str, str], dict[str, int]] = field(default_factory=dict)  # per-row fixed fields

    def layout_errata(self, arch: str, encoding: str) -> list[Correction]:
        return [c for c in self.corrections if c.arch == arch and c.encoding == encoding and c.name == "*"]


# ------------------------------------------------------------------------------------ evidence


@dataclass(frozen=True, slots=True)
class _Ex:
    name: str                        # manual name on this arch
    data: bytes
    asm: str
    prov: Provenance


def _examples(manuals: dict[str, ManualData], corpus: McCorpus | None,
              aliases: dict[str, tuple[str, str]]) -> dict[str, list[_Ex]]:
    """Per arch: LLVM examples on its targets whose mnemonic names one of its instructions (both
    halves of a VOPD pair count, each for its own name); one per distinct (name, bytes)."""
    out: dict[str, list[_Ex]] = {arch: [] for arch in manuals}
    if corpus is None:
        return out
    to_manual: dict[str, dict[str, str]] = {}
    for arch, data in manuals.items():
        names = {e.name for e in data.opcodes} | {e.name for _, e in _llvm_only_rows(manuals, arch)} | \
            {e.name for e in _td_rows(arch)}
        table = {n: n for n in names}
        for old, (new, _) in [*RENAMES.items(), *aliases.items()]:
            if old in names:
                table.setdefault(new, old)
        to_manual[arch] = table
    seen: set[tuple[str, str, bytes]] = set()
    for ex in corpus.examples:
        if not ex.bytes:
            continue
        archs = {TARGET_TO_ARCH[t] for t in ex.targets if t in TARGET_TO_ARCH}
        if not archs:
            continue
        ms = mnemonics(ex.asm)
        if not 1 <= len(ms) <= 2 or (len(ms) == 2 and "::" not in ex.asm):
            continue
        keys = [canonical_instruction(m) for m in ms]
        for arch in archs:
            for key in keys:
                name = to_manual[arch].get(key)
                if name is None or (arch, name, ex.bytes) in seen:
                    continue
                seen.add((arch, name, ex.bytes))
                out[arch].append(_Ex(name, ex.bytes, ex.asm, _prov(ex)))
    return out


def _prov(ex: McExample) -> Provenance:
    return Provenance("llvm-mc-test", ex.file, ex.line)


def _extract(bits: tuple[tuple[int, int], ...], word: int) -> int:
    out = 0
    for hi, lo in bits:
        out = (out << (hi - lo + 1)) | ((word >> lo) & ((1 << (hi - lo + 1)) - 1))
    return out


def _matches(enc: Encoding, op_field: str, data: bytes, opcode: int, extra: dict[str, int] | None = None) -> bool:
    """The bytes carry `enc`'s fixed bits and `opcode` in its op field (and the row's own fixed fields)."""
    nbytes = enc.width // 8
    if len(data) < nbytes:
        return False
    word = int.from_bytes(data[:nbytes], "little")
    op = enc.field(op_field)
    if (op is None and opcode != 0) or (op is not None and _extract(op.bits, word) != opcode):
        return False
    for f in enc.fields:
        want = (extra or {}).get(f.name, f.value)
        if want is not None and _extract(f.bits, word) != want:
            return False
    return True


def _asm_agrees(f: FieldAt, enc_width: int, data: bytes, asm: str) -> bool | None:
    """Does the field hold the operand LLVM printed? None when the example does not show it."""
    if not f.asm or len(data) < enc_width // 8:
        return None
    word = int.from_bytes(data[:enc_width // 8], "little")
    value = _extract(f.bits, word)
    width = sum(hi - lo + 1 for hi, lo in f.bits)
    if f.asm.endswith(":"):
        m = _OFFSET.search(asm) if f.asm == "offset:" else None
        if m is None:
            return value == 0 if f.asm == "offset:" else None
        want = int(m.group(1), 0)
        return value == want % (1 << width)
    return bool(value) == (f" {f.asm}" in f" {asm.replace(',', ' ')} ")


def _fixed(enc: Encoding, fix: LayoutFix) -> Encoding:
    """`enc` with the fix's fields put where LLVM has them."""
    by_name = {f.name: f for f in enc.fields if f.name not in fix.remove}
    for fa in fix.fields:
        old = by_name.get(fa.name)
        by_name[fa.name] = Field(fa.name, fa.bits, fa.value, old.spelling if old else fa.name,
                                 old.description if old else f"added from LLVM's encodings ({fix.id})")
    taken = {fa.name for fa in fix.fields}
    used = {b for fa in fix.fields for hi, lo in fa.bits for b in range(lo, hi + 1)}
    fields = [f for n, f in by_name.items()
              if n in taken or not ({b for hi, lo in f.bits for b in range(lo, hi + 1)} & used)]
    fields.sort(key=lambda f: -f.bits[0][0])
    hi = max(h for f in fields for h, _ in f.bits)
    width = fix.width or 32 * ((hi // 32) + 1)
    return replace(enc, fields=tuple(fields), width=width)


def _bits(bits: tuple[tuple[int, int], ...]) -> str:
    return ",".join(f"{hi}:{lo}" if hi != lo else str(hi) for hi, lo in bits)


def _describe(enc: Encoding, names: list[str]) -> str:
    parts = []
    for n in names:
        f = enc.field(n)
        if f is None:
            parts.append(f"no {n}")
        else:
            parts.append(f"{n} [{_bits(f.bits)}]" + (f"='b{f.value:0{f.width}b}" if f.value is not None else ""))
    if enc.width:
        parts.append(f"{enc.width} bits")
    return ", ".join(parts)


# ------------------------------------------------------------------------------------ the stage


def resolve(manuals: list[ManualData], corpus: McCorpus | None,
            aliases: dict[str, tuple[str, str]] | None = None) -> Resolution:
    """Resolved copies of `manuals` and the corrections made (see module docstring)."""
    aliases = aliases or {}
    out = Resolution([])
    resolved = {d.arch: ManualData(d.arch, d.file, dict(d.encodings), list(d.opcodes) + _heading_rows(d), d.docs,
                                   d.skips, list(d.errata), d.repairs) for d in manuals}
    examples = _examples(resolved, corpus, aliases)
    for fix in LAYOUT_FIXES:
        _layout_fix(fix, resolved, examples, out)
    for ofix in OPCODE_FIXES:
        _opcode_fix(ofix, resolved, examples, out)
    _settle(resolved, examples, out)
    for c in out.corrections:
        kind = "manual-vs-llvm-layout" if c.name == "*" else "manual-vs-llvm-opcode"
        resolved[c.arch].errata.append(Erratum(c.name, c.arch, kind, c.detail(), c.sources))
    out.manuals = [resolved[d.arch] for d in manuals]
    return out


def _heading_rows(data: ManualData) -> list[OpcodeEntry]:
    """Opcode rows for instructions that only their heading numbers (`V_WMMA_SCALE_F32_... 51` in the
    VOP3PX2 section, no opcode table): the section names the encoding."""
    tabled = {e.name for e in data.opcodes}
    out = {}
    for d in data.docs:
        first = d.section.split()[0].upper() if d.section.split() else ""
        if d.name not in tabled and d.opcode is not None and first in data.encodings:
            out.setdefault(d.name, OpcodeEntry(data.arch, first, d.opcode, d.name, d.provenance))
    return list(out.values())


def _rows(data: ManualData, layout: str) -> list[tuple[OpcodeEntry, str]]:
    """Opcode rows whose layout is `layout`, with their op field."""
    rows = []
    for e in data.opcodes:
        enc, op_field = layout_encoding(data.encodings, e.encoding)
        if enc is not None and enc.name == layout:
            rows.append((e, op_field))
    return rows


def _td_rows(arch: str, encoding: str | None = None) -> list[OpcodeEntry]:
    """The opcode rows quirk entries give from LLVM's TableGen for `arch` (LayoutFix.rows of a format the manual
    describes in prose, OpcodeFix "llvm-td" rows), with the TableGen line as provenance."""
    out = []
    for fix in LAYOUT_FIXES:
        if arch in fix.archs:
            out += [OpcodeEntry(arch, enc, op, name, _td_prov(cite)) for name, op, cite in fix.rows
                    for enc in fix.encodings]
    for ofix in OPCODE_FIXES:
        if ofix.kind == "llvm-td" and arch in ofix.archs:
            out += [OpcodeEntry(arch, enc, op, name, _td_prov(cite)) for name, enc, op, cite in ofix.rows]
    return [e for e in out if encoding is None or e.encoding == encoding]


def _td_prov(cite: str) -> Provenance:
    file, line = cite.rsplit(":", 1)
    return Provenance("llvm-tablegen", file, int(line))


def _prose_layout(fix: LayoutFix, arch: str, enc_name: str) -> Encoding:
    """The empty layout a format described only in prose starts from (its provenance: the prose)."""
    seen = next(s for s in fix.seen if s.arch == arch)
    return Encoding(arch, enc_name, 0, (), _seen_prov(seen))


def _layout_fix(fix: LayoutFix, resolved: dict[str, ManualData], examples: dict[str, list[_Ex]],
                out: Resolution) -> None:
    pending: list[tuple[str, str, Encoding, Encoding, int, int, Provenance | None]] = []
    for arch in fix.archs:
        data = resolved.get(arch)
        for enc_name in fix.encodings:
            manual = data.encodings.get(enc_name) if data else None
            if manual is None and fix.rows and data is not None:
                manual = _prose_layout(fix, arch, enc_name)
            if manual is None:
                continue
            fixed = _fixed(manual, fix)
            if fixed == manual:
                continue
            good = bad = 0
            first: Provenance | None = None
            rows = {e.name: (e, opf) for e, opf in _rows(data, enc_name)}
            if not manual.fields:   # a prose format: its instructions are the entry's rows
                rows = {e.name: (e, "OP") for e in _td_rows(arch, enc_name)}
            for ex in examples[arch]:
                if ex.name not in rows:
                    continue
                e, opf = rows[ex.name]
                extra = _row_fields(fix, e.name)
                now = _matches(fixed, opf, ex.data, e.opcode, extra) and all(
                    _asm_agrees(f, fixed.width, ex.data, ex.asm) is not False for f in fix.fields)
                before = _matches(manual, opf, ex.data, e.opcode)
                good += now
                bad += before and not now
                if now and first is None:
                    first = ex.prov
            pending.append((arch, enc_name, manual, fixed, good, bad, first))
    proven = [(a, e, f) for a, e, _, f, good, bad, _ in pending if _convincing(good, bad)]
    for arch, enc_name, manual, fixed, good, bad, first in pending:
        if _convincing(good, bad):
            how = "LLVM's encodings"
        else:
            sib = next((a for a, e, f2 in proven if a != arch and e == enc_name and _same_layout(f2, fixed)), None)
            if sib is None and not bad:
                sib = next((a for a, d in resolved.items() if a != arch and enc_name in d.encodings
                            and _same_layout(d.encodings[enc_name], fixed)
                            and _agreeing(d, examples[a], out).get(enc_name)), None)
            if sib is None or bad:
                out.settled[(arch, enc_name)] = (f"unsettled: {fix.id} not applied ({good} LLVM encodings agree with it, "
                                                 f"{bad} with the manual)")
                continue
            how = f"the same layout on {sib}, where LLVM's encodings agree with it"
            good = 0
        data = resolved[arch]
        data.encodings[enc_name] = fixed
        out.manual_layouts[(arch, enc_name)] = manual
        if not manual.fields:   # a prose format: add the entry's rows LLVM's encodings agree with
            _add_td_rows(fix.id, data, _td_rows(arch, enc_name), examples[arch], out)
        for e, _ in _rows(data, enc_name):
            extra = _row_fields(fix, e.name)
            if extra:
                out.row_fields[(arch, e.encoding, e.name)] = extra
        changed = [f.name for f in fix.fields] + list(fix.remove)
        seen = [s for s in fix.seen if s.arch == arch]
        sources = tuple(Provenance("amd-manual", s.cite().rsplit(":", 1)[0], s.line, s.what) for s in seen)
        out.corrections.append(Correction(
            fix.id, arch, enc_name, "*",
            _describe(manual, changed) if manual.fields else f"no field table, only {manual.provenance.section}",
            _describe(fixed, changed), good, bad, how,
            sources + ((first,) if first else ())))


def _convincing(good: int, bad: int) -> bool:
    """LLVM's encodings agree with a correction: some do, and (almost) none agree only with the manual."""
    return good > 0 and bad * 20 <= good


def _same_layout(a: Encoding, b: Encoding) -> bool:
    """Same fields at the same bits with the same fixed values (spelling and prose aside)."""
    return a.width == b.width and [(f.name, f.bits, f.value) for f in a.fields] == \
        [(f.name, f.bits, f.value) for f in b.fields]


def _row_fields(fix: LayoutFix, name: str) -> dict[str, int]:
    return next(({f: v} for prefix, f, v in fix.row_fields if name.startswith(prefix)), {})


def _opcode_fix(fix: OpcodeFix, resolved: dict[str, ManualData], examples: dict[str, list[_Ex]],
                out: Resolution) -> None:
    for arch in fix.archs:
        data = resolved.get(arch)
        if data is None:
            continue
        if fix.kind == "promotion-offset":
            _promotion_offset(fix, data, examples[arch], out)
        elif fix.kind == "no-promoted-form":
            _no_promoted_form(fix, data, examples[arch], out)
        elif fix.kind == "promotes-to":
            _promotes_to(fix, data, examples[arch], out)
        elif fix.kind == "llvm-only":
            _llvm_only(fix, data, resolved, examples[arch], out)
        elif fix.kind == "llvm-td":
            rows = [OpcodeEntry(arch, enc, op, name, _td_prov(cite)) for name, enc, op, cite in fix.rows]
            _add_td_rows(fix.id, data, rows, examples[arch], out)


def _add_td_rows(fix_id: str, data: ManualData, rows: list[OpcodeEntry], examples: list[_Ex],
                 out: Resolution) -> None:
    """Add opcode rows taken from LLVM's TableGen where LLVM's encodings of the instruction on this arch agree
    with the row in the arch's layout (at least one does, none disagrees), each as a correction."""
    by_name = _by_name(examples)
    own = {(e.name, e.encoding) for e in data.opcodes}
    for e in rows:
        if (e.name, e.encoding) not in own:
            _add_row_llvm_agrees(fix_id, data, e, by_name.get(e.name, []), out,
                                 "LLVM's encodings, with LLVM's TableGen opcode")


def _add_row_llvm_agrees(fix_id: str, data: ManualData, e: OpcodeEntry, exs: list[_Ex], out: Resolution,
                         settled_by: str) -> bool:
    """Add row `e` to the arch and a correction saying so when at least one of LLVM's encodings `exs` of the
    instruction agrees with it in the arch's layout and none disagrees; whether it was added."""
    enc, op_field = layout_encoding(data.encodings, e.encoding)
    agree = [ex for ex in exs if enc is not None and _matches(enc, op_field, ex.data, e.opcode)]
    if not agree or len(agree) < len(exs):
        return False
    data.opcodes.append(OpcodeEntry(data.arch, e.encoding, e.opcode, e.name, agree[0].prov))
    out.corrections.append(Correction(fix_id, data.arch, e.encoding, e.name, "no such row", f"opcode {e.opcode}",
                                      len(agree), 0, settled_by, (agree[0].prov, e.provenance)))
    return True


def _llvm_only_rows(manuals: dict[str, ManualData], arch: str) -> list[tuple[OpcodeFix, OpcodeEntry]]:
    """(entry, sibling's opcode row) for each instruction an "llvm-only" entry may add to `arch`: named by its
    pattern in the sibling's opcode tables, absent from the arch's own."""
    data = manuals.get(arch)
    if data is None:
        return []
    own = {e.name for e in data.opcodes}
    out = []
    for fix in OPCODE_FIXES:
        sibling = manuals.get(fix.source)
        if fix.kind != "llvm-only" or arch not in fix.archs or sibling is None:
            continue
        out += [(fix, e) for e in sibling.opcodes if re.match(fix.pattern, e.name) and e.name not in own]
    return out


def _llvm_only(fix: OpcodeFix, data: ManualData, resolved: dict[str, ManualData], examples: list[_Ex],
               out: Resolution) -> None:
    """Add the sibling's rows of instructions the manual lacks where LLVM encodes them on this arch with the
    sibling's opcode in this arch's layout (at least one encoding agrees, none disagrees)."""
    by_name = _by_name(examples)
    added: set[str] = set()
    for f, e in _llvm_only_rows(resolved, data.arch):
        if f is not fix or e.name in added:
            continue
        if _add_row_llvm_agrees(fix.id, data, e, by_name.get(e.name, []), out,
                                f"LLVM's encodings, with the {fix.source} manual's opcode"):
            added.add(e.name)


def _seen_sources(fix: OpcodeFix, arch: str) -> tuple[Provenance, ...]:
    return tuple(_seen_prov(s) for s in fix.seen if s.arch == arch)


def _seen_prov(s: Seen) -> Provenance:
    return Provenance("amd-manual", s.cite().rsplit(":", 1)[0], s.line, s.what)


def _by_name(examples: list[_Ex]) -> dict[str, list[_Ex]]:
    out: dict[str, list[_Ex]] = defaultdict(list)
    for ex in examples:
        out[ex.name].append(ex)
    return out


def _promotion_offset(fix: OpcodeFix, data: ManualData, examples: list[_Ex], out: Resolution) -> None:
    layout = data.encodings.get(fix.target)
    if layout is None:
        return
    source_ops = {e.name: e.opcode for e in data.opcodes if e.encoding == fix.source}
    by_name = _by_name(examples)
    todo = []
    for i, e in enumerate(data.opcodes):
        if e.encoding != fix.target or e.name not in source_ops:
            continue
        want = source_ops[e.name] + fix.offset
        if want == e.opcode:
            continue
        agree = [ex for ex in by_name.get(e.name, []) if _matches(layout, "OP", ex.data, want)]
        bad = sum(_matches(layout, "OP", ex.data, e.opcode) for ex in by_name.get(e.name, []))
        if bad <= len(agree):
            todo.append((i, e, want, agree, bad))
    total = sum(len(agree) for *_, agree, _ in todo)
    for i, e, want, agree, bad in todo:
        data.opcodes[i] = replace(e, opcode=want)
        out.manual_opcodes[(data.arch, e.encoding, e.name)] = e.opcode
        how = ("LLVM's encodings" if agree else
               f"the manual's rule ({fix.source} opcode + 0x{fix.offset:x}), which {total} LLVM encodings of "
               f"other promoted {fix.source} instructions on {data.arch} follow")
        out.corrections.append(Correction(fix.id, data.arch, e.encoding, e.name, f"opcode {e.opcode}", f"opcode {want}",
                                          len(agree), bad, how, (e.provenance, *(x.prov for x in agree[:1]),
                                                                 *_seen_sources(fix, data.arch))))


def _no_promoted_form(fix: OpcodeFix, data: ManualData, examples: list[_Ex], out: Resolution) -> None:
    by_name = _by_name(examples)
    keep = []
    for e in data.opcodes:
        promoted = (e.provenance.section or "").startswith("VOP3 rule")
        if not (e.encoding.startswith("VOP3") and e.name in fix.names):
            keep.append(e)
            continue
        own = [x for x in data.opcodes if x.name == e.name and x is not e]
        layouts = [data.encodings.get(x.encoding) for x in own]
        in_own = sum(any(lay is not None and _matches(lay, "OP", ex.data, x.opcode) for lay, x in zip(layouts, own,
                                                                                                        strict=True))
                     for ex in by_name.get(e.name, []))
        layout = data.encodings.get(e.encoding)
        as_vop3 = sum(layout is not None and _matches(layout, "OP", ex.data, e.opcode) for ex in by_name.get(e.name, []))
        if as_vop3:
            keep.append(e)        # LLVM does encode it as VOP3 here: the entry does not apply
            continue
        out.manual_opcodes[(data.arch, e.encoding, e.name)] = e.opcode
        how = ("LLVM's encodings (all in its own encoding)" if in_own
               else "the quirk table (LLVM has no VOP3 form of it; no LLVM encoding of it on this arch)")
        out.corrections.append(Correction(fix.id, data.arch, e.encoding, e.name,
                                          f"opcode {e.opcode}" + (" (by the rule)" if promoted else ""),
                                          "no such row", in_own, as_vop3, how, (e.provenance,)))
    data.opcodes[:] = keep


def _promotes_to(fix: OpcodeFix, data: ManualData, examples: list[_Ex], out: Resolution) -> None:
    target = data.encodings.get(fix.target)
    if target is None:
        return
    by_name = _by_name(examples)
    for i, e in enumerate(data.opcodes):
        if e.encoding != fix.source or e.name not in fix.names:
            continue
        exs = [ex for ex in by_name.get(e.name, []) if _matches(target, "OP", ex.data, e.opcode)]
        good = sum(bool(_SGPR_CARRY.match(ex.asm)) for ex in exs)
        data.opcodes[i] = replace(e, encoding=fix.target)
        how = "LLVM's encodings (a scalar carry-out in SDST)" if good else f"the {fix.target} list of a sibling manual"
        out.corrections.append(Correction(fix.id, data.arch, fix.target, e.name, f"{fix.source} (no SDST field)",
                                          f"{fix.target} (SDST [14:8])", good, 0, how,
                                          (e.provenance, *_seen_sources(fix, data.arch))))


def _agreeing(data: ManualData, examples: list[_Ex], out: Resolution) -> dict[str, int]:
    """Per encoding of the arch: LLVM encodings that carry its resolved fixed bits and the opcode
    of their instruction's row."""
    by_name = _by_name(examples)
    counts: dict[str, int] = {}
    for name, enc in data.encodings.items():
        n = 0
        for e, opf in _rows(data, name):
            extra = out.row_fields.get((data.arch, e.encoding, e.name))
            n += sum(_matches(enc, opf, ex.data, e.opcode, extra) for ex in by_name.get(e.name, []))
        counts[name] = n
    return counts


def _settle(resolved: dict[str, ManualData], examples: dict[str, list[_Ex]], out: Resolution) -> None:
    """Say, for every (arch, encoding), what settled its resolved layout."""
    counts = {arch: _agreeing(d, examples[arch], out) for arch, d in resolved.items()}
    for arch, data in resolved.items():
        for name, enc in data.encodings.items():
            key = (arch, name)
            if key in out.settled:
                continue
            n = counts[arch][name]
            if n:
                out.settled[key] = f"LLVM MC tests: {n} encodings agree"
                continue
            sib = next((a for a, d in resolved.items() if a != arch and name in d.encodings and counts[a][name]
                        and _same_layout(d.encodings[name], enc)), None)
            if sib:
                out.settled[key] = f"same layout as {sib} ({counts[sib][name]} LLVM encodings agree there)"
            elif not _rows(data, name):
                out.settled[key] = "not checked: a format without opcodes of its own (extra dwords of another)"
            else:
                out.settled[key] = "unsettled: no LLVM MC test encodes this format on this arch or a sibling"


def settle_with_llvm_mc(res: Resolution, tool: LlvmMc | None = None) -> int:
    """Ask llvm-mc about the layouts no LLVM test settled: a layout whose every row builds a word
    llvm-mc decodes as that row's instruction is settled by llvm-mc. Returns how many it settled."""
    rows = []
    open_keys = {k for k, how in res.settled.items() if how.startswith("unsettled")}
    by_arch = {d.arch: d for d in res.manuals}
    for arch, enc_name in sorted(open_keys):
        data = by_arch[arch]
        for e, opf in _rows(data, enc_name):
            layout = data.encodings[enc_name]
            ident = identifier(layout, e.opcode, opf, res.row_fields.get((arch, e.encoding, e.name)))
            word = None if ident is None else ident.to_bytes(layout.width // 8, "little")
            free = tuple((f.name, f.bits) for f in layout.fields if f.value is None and f.name != opf)
            rows.append(Row(arch, e.name, enc_name, word, free))
    if not rows:
        return 0
    report = check_rows(rows, lambda mnemonic, name: canonical_instruction(mnemonic) == name, tool=tool)
    results: dict[tuple[str, str], list[bool]] = defaultdict(list)
    for r in report.results:
        results[(r.row.arch, r.row.encoding)].append(r.ok)
    settled = 0
    for key, oks in results.items():
        if oks and all(oks):
            res.settled[key] = f"{report.tool}: all {len(oks)} rows decode as their instruction (no LLVM MC test)"
            settled += 1
    return settled


# ------------------------------------------------------------------------------------ writing


def write_resolution(conn: sqlite3.Connection, res: Resolution, keys: dict[str, str]) -> None:
    """The `layout_status` and `corrections` tables (names as catalog keys via `keys`)."""

    def prov(p: Provenance) -> dict:
        return {k: v for k, v in (("source", p.source), ("file", p.file), ("line", p.line), ("section", p.section))
                if v is not None}

    rows = []
    for (arch, enc), how in sorted(res.settled.items()):
        manual = res.manual_layouts.get((arch, enc))
        rows.append((arch, enc, how, manual.width if manual else None,
                     json.dumps([{"name": f.name, "bits": [list(b) for b in f.bits], "value": f.value}
                                 for f in manual.fields]) if manual else None))
    conn.executemany("INSERT INTO layout_status VALUES (?,?,?,?,?)", rows)
    conn.executemany(
        "INSERT INTO corrections VALUES (?,?,?,?,?,?,?,?,?,?,?)",
        [(c.quirk, c.arch, c.encoding, c.name if c.name == "*" else keys.get(c.name, c.name), c.manual, c.resolved,
          c.evidence, c.against, c.settled, c.detail(), json.dumps([prov(p) for p in c.sources]))
         for c in res.corrections])

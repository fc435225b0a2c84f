"""Reader for the PTX ISA manual (Markdown edition): chapter 9 instructions, chapter 13 release notes.

Each section file has YAML front matter (title, section, version, url). An instruction section is a
heading whose body has a "Syntax" label; grouped files (mbarrier, cp.async.bulk, tcgen05, video)
hold several. The fields between labels (Syntax, Description, Semantics, Notes, PTX ISA Notes,
Target ISA Notes, Examples) are kept as the manual writes them, with line numbers; the syntax is
expanded into concrete forms (gpuisa.sources.ptx_syntax) and each form gets the version and target
its notes document. Sections that cannot be read are counted in `skips`, never raised.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import yaml

from gpuisa.errors import SourceError
from gpuisa.limits import MAX_FRONT_MATTER_BYTES, MAX_PTX_SECTION_BYTES
from gpuisa.model import Provenance, Skip
from gpuisa.model_ptx import PtxExclusion, PtxForm, PtxInstruction, PtxManual, PtxNote, PtxRelease
from gpuisa.sources import ptx_restrictions, ptx_syntax
from gpuisa.sources.files import read_text
from gpuisa.sources.layout import PTX_SOURCE
from gpuisa.sources.markdown_blocks import Block, parse_blocks

SOURCE = PTX_SOURCE

_LABELS = {
    "Syntax": "syntax", "Description": "description", "Semantics": "semantics", "Notes": "notes",
    "PTX ISA Notes": "ptx", "Target ISA Notes": "target", "Target ISA Note": "target",
    "Examples": "examples", "Example": "examples",
}
_SECTION_KEY = re.compile(r"^(\d+(?:\.\d+)*)")
_VERSION = re.compile(r"(?:version|versions)\s+(\d+\.\d+)", re.I)
_SM = re.compile(r"\bsm_\d+[af]?\b")
_BACKTICK = re.compile(r"`([^`]+)`")
_PLAIN_QUALIFIER = re.compile(r"(?<![\w`.])\.[a-z][\w:]*")   # a qualifier named without backticks


def _label(text: str) -> str | None:
    """Field label of a paragraph ("Examples of integer type" is an examples label too)."""
    t = text.strip()
    if t in _LABELS:
        return _LABELS[t]
    if re.fullmatch(r"Examples? of [\w .,/`-]+:?", t) and len(t) < 80:
        return "examples"
    return None


@dataclass(slots=True)
class _Segment:
    heading: Block
    raw_heading: str
    blocks: list[Block]
    end_line: int


# ---------------------------------------------------------------- entry point

def read_manual(root: str | Path, older: str | Path | None = None) -> PtxManual:
    """Read one edition (`.../ptx-isa-9.4`); with `older`, mark forms absent from that edition."""
    root = Path(root)
    ch9 = root / "9-instruction-set"
    version = _edition_version(root)
    manual = PtxManual(version=version, root=str(root))
    if not ch9.is_dir():
        manual.skips.append(Skip(str(ch9), None, "no 9-instruction-set folder"))
        return manual
    files = sorted(ch9.glob("*.md"), key=lambda p: _section_sort_key(p.name))
    titles: dict[str, str] = {}
    parsed: list[tuple[Path, dict, list[str], list[Block]]] = []
    for path in files:
        rel = _rel(path, root)
        loaded = _load(manual, path, rel)
        if loaded is None:
            continue
        text, meta, body_lines = loaded
        lines = text.split("\n")
        manual.sections_total += _count_syntax_labels(lines)
        section = str(meta.get("section") or _section_from_name(path.name))
        titles[section] = _clean_title(str(meta.get("title") or ""), section)
        parsed.append((path, meta, lines, parse_blocks("\n".join(body_lines))))
    for path, meta, lines, blocks in parsed:
        _read_file(manual, root, path, meta, lines, blocks, titles)
    _read_release_notes(manual, root)
    if older is not None:
        _mark_new_forms(manual, read_manual(older))
    return manual


def _edition_version(root: Path) -> str:
    m = re.search(r"(\d+\.\d+)$", root.name)
    return m.group(1) if m else ""


def _rel(path: Path, root: Path) -> str:
    return f"{root.name}/{path.relative_to(root).as_posix()}"


def _section_sort_key(name: str) -> tuple[int, ...]:
    m = _SECTION_KEY.match(name)
    return tuple(int(x) for x in m.group(1).split(".")) if m else (9999,)


def _section_from_name(name: str) -> str:
    m = _SECTION_KEY.match(name)
    return m.group(1) if m else ""


def _clean_title(title: str, section: str) -> str:
    title = title.replace("\uf0c1", "").strip()
    return re.sub(r"^" + re.escape(section) + r"\.?\s*", "", title).strip()


def _load(manual: PtxManual, path: Path, rel: str) -> tuple[str, dict, list[str]] | None:
    """Text, front matter and body lines of one section file; unreadable files and bad front
    matter are recorded as skips (the file is still read when only its front matter is bad)."""
    try:
        text = read_text(path, MAX_PTX_SECTION_BYTES, rel)
    except SourceError as exc:
        manual.skips.append(Skip(rel, None, f"unreadable: {exc.message}"))
        return None
    meta, body_lines, problem = _front_matter(text)
    if problem:
        manual.skips.append(Skip(rel, 1, problem))
    return text, meta, body_lines


class FrontMatterLoader(yaml.SafeLoader):
    """safe_load without aliases: a few bytes of nested aliases (`&a [*b, *b, ...]`) expand to gigabytes
    when the document is built, so an alias is refused where it is met, before anything is expanded.
    Front matter is a flat mapping of strings (title, section, version, url): it never needs one."""

    def compose_node(self, parent, index):  # type: ignore[no-untyped-def]
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise yaml.composer.ComposerError(None, None, f"YAML alias *{event.anchor} refused (aliases are not expanded)",
                                              event.start_mark)
        return super().compose_node(parent, index)


def _front_matter(text: str) -> tuple[dict, list[str], str]:
    """(metadata, lines with the front matter blanked so line numbers stay true, problem)."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return {}, lines, "no YAML front matter"
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
    except StopIteration:
        return {}, lines, "front matter not closed"
    front = "\n".join(lines[1:end])
    if len(front) > MAX_FRONT_MATTER_BYTES:
        return {}, [""] * (end + 1) + lines[end + 1:], f"front matter of {len(front)} characters, over the limit; ignored"
    try:
        meta = yaml.load(front, Loader=FrontMatterLoader) or {}
    except yaml.YAMLError as exc:
        meta, problem = {}, f"bad front matter: {str(exc).splitlines()[0]}"
    else:
        problem = "" if isinstance(meta, dict) else "front matter is not a mapping"
        meta = meta if isinstance(meta, dict) else {}
    return meta, [""] * (end + 1) + lines[end + 1:], problem


def _count_syntax_labels(lines: list[str]) -> int:
    """Independent count of instruction sections: "Syntax" label paragraphs."""
    return sum(1 for i, ln in enumerate(lines)
               if ln.strip() == "Syntax" and (i == 0 or not lines[i - 1].strip()))


# ---------------------------------------------------------------- one file

def _read_file(manual: PtxManual, root: Path, path: Path, meta: dict, lines: list[str],
               blocks: list[Block], titles: dict[str, str]) -> None:
    rel = _rel(path, root)
    segments = _segments(blocks, lines)
    for seg in segments:
        labels = [(i, _label(b.text)) for i, b in enumerate(seg.blocks)
                  if b.kind == "text" and _label(b.text)]
        if not any(kind == "syntax" for _, kind in labels):
            continue
        try:
            instr = _read_instruction(rel, meta, lines, seg, labels, titles)
        except Exception as exc:  # a malformed section is counted and listed, never raised
            manual.skips.append(Skip(rel, seg.heading.line, f"unparsed section: {type(exc).__name__}: {exc}",
                                     seg.raw_heading.strip()))
            continue
        if instr is None:
            manual.skips.append(Skip(rel, seg.heading.line, "no instruction name in heading",
                                     seg.raw_heading.strip()))
            continue
        manual.instructions.append(instr)


def _segments(blocks: list[Block], lines: list[str]) -> list[_Segment]:
    segs: list[_Segment] = []
    for b in blocks:
        if b.kind == "heading" and b.line > 0:
            if segs:
                segs[-1].end_line = b.line - 1
            segs.append(_Segment(b, lines[b.line - 1], [], len(lines)))
        elif segs:
            segs[-1].blocks.append(b)
    return segs


def _heading_names(raw: str, text: str) -> tuple[str, ...]:
    names = [n.strip() for n in _BACKTICK.findall(raw)]
    if not names:                       # 9.1 style: "Integer Arithmetic Instructions:add"
        tail = text.replace("\uf0c1", "").split(":")[-1]
        names = [n.strip() for n in re.split(r"[,/]", tail) if n.strip()]
        names = [re.sub(r"\s*\(deprecated\)$", "", n) for n in names]
    return tuple(dict.fromkeys(n for n in names if n))


def _category(section: str, titles: dict[str, str]) -> str:
    parts = section.split(".")
    if len(parts) >= 3 and parts[:2] == ["9", "7"]:
        return titles.get(".".join(parts[:3]), "")
    return titles.get(".".join(parts[:2]), "")


def _read_instruction(rel: str, meta: dict, lines: list[str], seg: _Segment,
                      labels: list[tuple[int, str | None]], titles: dict[str, str]) -> PtxInstruction | None:
    heading_text = seg.heading.text.replace("\uf0c1", "").strip()
    m = _SECTION_KEY.match(heading_text)
    section = m.group(1).rstrip(".") if m else str(meta.get("section", ""))
    names = _heading_names(seg.raw_heading, heading_text)
    if not names:
        return None
    title = re.sub(r"^" + re.escape(section) + r"\.?\s*", "", heading_text)
    fields: dict[str, list[Block]] = {}
    first_label = labels[0][0]
    for n, (idx, kind) in enumerate(labels):
        nxt = labels[n + 1][0] if n + 1 < len(labels) else len(seg.blocks)
        if kind:
            fields.setdefault(kind, []).extend(seg.blocks[idx + 1:nxt])
    pre = [b for b in seg.blocks[:first_label] if b.kind == "text" and b.text.strip()]
    summary = pre[0].text.strip() if pre else ""
    syntax_blocks = _syntax_lines(fields.get("syntax", []), lines)
    syntax_text = "\n\n".join("\n".join(t for _, t in blk) for blk in syntax_blocks)
    ptx_notes = _notes("ptx", fields.get("ptx", []), lines)
    target_notes = _notes("target", fields.get("target", []), lines)
    examples = tuple(b.text for b in fields.get("examples", []) if b.kind == "code")
    issues: list[str] = []
    forms: list[PtxForm] = []
    total, capped = 0, False
    excluded: tuple[PtxExclusion, ...] = ()
    if not _is_pseudo(names):
        rules = ptx_restrictions.for_instruction(names, section)
        forbid = ptx_restrictions.forbidder(rules, lambda form: ptx_syntax.split_form(form, names)) if rules else None
        edition = rel.split("/")[0]
        defined = set(re.findall(r"(?m)^\s*(\.[\w:]+)\s*=", syntax_text))
        missing = {m.placeholder: m for m in ptx_restrictions.missing_sets(names, section)
                   if m.placeholder not in defined}
        exp = ptx_syntax.expand(syntax_blocks, _bases(names, syntax_text),
                                forbid=(lambda form: (r.key if (r := forbid(form)) else None)) if forbid else None,
                                missing={k: m.values for k, m in missing.items()})
        exp.issues += [f"{k} is defined by no set of the Syntax: read as {{{', '.join(m.values)}}} from "
                       f"{edition}/{m.cite} ({m.reason})" for k, m in missing.items()]
        by_key = {r.key: r for r in rules}
        excluded = tuple(PtxExclusion(key, f"{edition}/{by_key[key].cite}", by_key[key].reason, ex.count,
                                      tuple(ex.samples), ex.whole, ex.template.operands if ex.template else "",
                                      ex.template.text if ex.template else "", ex.template.line if ex.template else 0)
                         for key, ex in exp.excluded.items())
        issues = list(dict.fromkeys(exp.issues))
        total, capped = exp.total, exp.capped
        ptx_notes = _through_sets(ptx_notes, exp.definitions)
        target_notes = _through_sets(target_notes, exp.definitions)
        for form, tpl in exp.forms:
            forms.append(_form(form, names, tpl.operands, tpl.text, tpl.line, ptx_notes, target_notes))
        forms += _example_forms(forms, examples, names, fields.get("examples", []), ptx_notes, target_notes)
        if not exp.templates:
            issues.append("syntax block has no instruction template")
    return PtxInstruction(
        name=names[0], names=names, section=section, title=title,
        category=_category(section, titles), summary=summary, syntax=syntax_text,
        description=_field_text(fields.get("description", []), lines),
        semantics=_field_text(fields.get("semantics", []), lines),
        notes=_field_text(fields.get("notes", []), lines),
        ptx_notes=ptx_notes, target_notes=target_notes, examples=examples,
        forms=tuple(forms), forms_total=total, capped=capped, syntax_issues=tuple(issues),
        url=str(meta.get("url", "")),
        provenance=Provenance(SOURCE, rel, seg.heading.line, section),
        excluded=excluded,
    )


def _is_pseudo(names: tuple[str, ...]) -> bool:
    """`{}` and `@` are control-flow notation, not mnemonics: they have no forms to expand."""
    return all(not re.match(r"^[A-Za-z]", n) for n in names)


def _bases(names: tuple[str, ...], syntax_text: str) -> tuple[str, ...]:
    """First words a template may start with: the names' first components, plus name sets (`vop`)."""
    bases = {n.split(".")[0].split("::")[0] for n in names}
    bases |= set(re.findall(r"^\s*([A-Za-z]\w*)\s*=\s*\{", syntax_text, re.M))
    return tuple(sorted(bases, key=len, reverse=True))


def _syntax_lines(blocks: list[Block], lines: list[str]) -> list[list[tuple[int, str]]]:
    """Syntax code as (line, text) per block; 9.1-style unfenced syntax is read from the raw lines."""
    code = [b for b in blocks if b.kind == "code"]
    fenced = [b for b in code if lines[b.line - 1].lstrip().startswith(("```", "~~~"))]
    if fenced:
        return [[(b.line + 1 + i, t) for i, t in enumerate(b.text.split("\n"))] for b in fenced]
    if not blocks:
        return []
    start = min(b.line for b in blocks)
    end = max(b.line + b.text.count("\n") for b in blocks)
    return [[(n, lines[n - 1]) for n in range(start, min(end, len(lines)) + 1)]]


def _field_text(blocks: list[Block], lines: list[str]) -> str:
    """The field as the manual writes it (raw Markdown lines), anchors dropped."""
    if not blocks:
        return ""
    start = min(b.line for b in blocks)
    last = max(blocks, key=lambda b: b.line)
    end = last.line + (last.text.count("\n") + 2 if last.kind == "code" else last.text.count("\n"))
    if last.kind == "table" and last.row_lines:
        end = max(last.row_lines)
    raw = [ln for ln in lines[start - 1:min(end, len(lines))] if not ln.strip().startswith("<a id=")]
    return "\n".join(raw).strip()


# ---------------------------------------------------------------- notes

def _notes(kind: str, blocks: list[Block], lines: list[str]) -> tuple[PtxNote, ...]:
    """Split a notes field into sentences; bullets belong to the paragraph before them."""
    paras: list[tuple[int, str, list[str]]] = []
    for b in blocks:
        if b.kind not in ("text", "code") or not b.text.strip() or b.line <= 0:
            continue
        raw = "\n".join(lines[b.line - 1:b.line + b.text.count("\n")])
        is_bullet = bool(re.match(r"^\s*(>\s*)*[*\-]\s", raw))
        if b.kind == "code" and not is_bullet:
            continue                                    # a code sample, not a note (`* \`sm_100a\`` is a bullet)
        if is_bullet and paras:
            paras[-1][2].append(raw)
        else:
            paras.append((b.line, raw, []))
    out: list[PtxNote] = []
    for line, raw, bullets in paras:
        for sentence in _sentences(raw):
            out.append(_note(kind, sentence, bullets, line))
    return tuple(out)


def _sentences(text: str) -> list[str]:
    text = " ".join(text.split())
    parts = re.split(r"(?<=[.:])\s+(?=[A-Z`])", text)
    return [p for p in parts if p.strip()]


def _through_sets(notes: tuple[PtxNote, ...], definitions: list[ptx_syntax.Definition]) -> tuple[PtxNote, ...]:
    """Notes whose subjects name a Syntax set (`.level1::eviction_priority`) with the set's values as
    subjects, so the note reaches the forms that spell one of them (`ld.L1::evict_last`)."""
    def spelled(subject: str) -> list[str]:
        return [v for part in subject.split("/") if part for v in (
            ptx_syntax.spellings(part, definitions) if part.startswith(".") else [part])]

    def through(subjects: tuple[str, ...]) -> tuple[str, ...]:
        out = []
        for s in subjects:
            values = spelled(s)
            if values != [s] and any(o != s and o in values for o in subjects):
                continue          # "`.field3` variant `.swizzle_mode`": the named value narrows the set
            out.append("/".join(values))
        return tuple(dict.fromkeys(out))

    return tuple(dataclasses.replace(n, subjects=through(n.subjects), groups=tuple(through(g) for g in n.groups))
                 for n in notes)


def _note(kind: str, sentence: str, bullets: list[str], line: int) -> PtxNote:
    version = None
    low = sentence.lower()
    if "introduced" in low or "support" in low or "added" in low:
        m = _VERSION.search(sentence)
        version = m.group(1) if m and "through" not in low else None
    subjects = tuple(s for s in (x.strip() for x in _BACKTICK.findall(sentence))
                     if s and not _SM.fullmatch(s) and not re.fullmatch(r"[\d.]+", s))
    if not subjects:      # "Support for generic addressing of .const space added in PTX ISA version 3.1."
        subjects = tuple(dict.fromkeys(_PLAIN_QUALIFIER.findall(sentence)))
    targets: list[str] = []
    if kind == "target":
        if re.search(r"supported on all target", low):
            targets.append("all")
        targets += _targets_of(sentence)
        for b in bullets:
            targets += _targets_of(b)
    width = re.match(r"^(\d+)-bit `", sentence)
    return PtxNote(kind, sentence + ("\n" + "\n".join(bullets) if bullets else ""), subjects,
                   version, tuple(dict.fromkeys(targets)), line, int(width.group(1)) if width else None,
                   _with_groups(sentence, subjects))


def _with_groups(sentence: str, subjects: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
    """The subjects on each side of "with", when both sides name some ("`.sys` scope with `.b128` type")."""
    groups = []
    for part in re.split(r"\bwith\b", sentence):
        named = tuple(s for s in (x.strip() for x in _BACKTICK.findall(part)) if s in subjects)
        if named:
            groups.append(named)
    return tuple(groups) if len(groups) > 1 else ()


def _targets_of(text: str) -> list[str]:
    """`sm_100f or higher in the same family (Renamed to sm_110f ...)` -> ["sm_110f+"], line by line."""
    out: list[str] = []
    for line in text.split("\n"):
        renamed = re.search(r"[Rr]enamed to `?(sm_\d+[af]?)`?", line)
        found = [renamed.group(1)] if renamed else _SM.findall(line)
        plus = "or higher" in line or "and higher" in line or "or later" in line
        out += [t + ("+" if plus else "") for t in found]
    return out


def _applies(note: PtxNote, name: str, mods: tuple[str, ...], names: tuple[str, ...]) -> bool:
    """Whether a note sentence names this form (no subjects: the whole instruction).

    A sentence naming qualifiers and the instruction ("Type `.b8` with `ldmatrix` ...") is about
    those qualifiers: the bare instruction name is context there, not a subject of its own."""
    if note.width and not any(_width(m) == note.width for m in mods):
        return False
    if not note.subjects:
        return True
    lows = {n.lower() for n in names}
    for group in note.groups or (note.subjects,):
        subjects = [s for s in group if s.lower() not in lows] or (list(group) if not note.groups else [])
        if subjects and not any(_subject_matches(alt, name, mods, names)
                                for subj in subjects for alt in _subject_alternatives(subj)):
            return False
    return True


def _width(mod: str) -> int | None:
    m = re.fullmatch(r"\.[a-z]+?(\d+)", mod)
    return int(m.group(1)) if m and ptx_syntax.is_type(mod) else None


@functools.lru_cache(maxsize=4096)
def _subject_alternatives(subject: str) -> tuple[str, ...]:
    """What a note's subject spells (`.{u8,s8}` -> .u8, .s8); cached: every form of a section asks again."""
    subject = subject.strip().rstrip(",;")
    if "/" in subject and "{" not in subject:      # `.u8/.s8`: either
        return tuple(a for part in subject.split("/") if part for a in _subject_alternatives(part))
    if "{" not in subject:
        return (subject,)
    sets = ptx_syntax._Sets([], 0, [], 0)
    return tuple(x for x in ptx_syntax.expand_text(subject, sets) if x) or (subject,)


def _subject_matches(subject: str, name: str, mods: tuple[str, ...], names: tuple[str, ...]) -> bool:
    low_mods = tuple(m.lower() for m in mods)
    subj = subject.lower()
    if subj == name.lower():
        return True                      # "`mbarrier.try_wait` introduced in ..." (grouped sections)
    parts: list[str]
    if subj.startswith("."):
        parts = ["." + p for p in subj.split(".") if p]
    else:
        owner = next((n.lower() for n in sorted(names, key=len, reverse=True)
                      if subj == n.lower() or subj.startswith(n.lower() + ".")), None)
        if owner is None or owner != name.lower():
            return False
        rest = subj[len(owner):]
        parts = ["." + p for p in rest.split(".") if p]
        if not parts:
            return False
    return all(any(m == p or m.startswith(p + "::") or (p.endswith("::*") and m.startswith(p[:-1]))
                   for m in low_mods) for p in parts)


def _version_key(v: str) -> tuple[int, int]:
    a, _, b = v.partition(".")
    return int(a or 0), int(b or 0)


def _target_key(targets: tuple[str, ...]) -> tuple[int, int]:
    if not targets or targets == ("all",):
        return (0, 0)
    nums = [int(re.sub(r"\D", "", t.split("_")[1].rstrip("+af"))) for t in targets if t.startswith("sm_")]
    special = any(t.rstrip("+").endswith(("a", "f")) for t in targets)
    return (min(nums) if nums else 0, 1 if special else 0)


def documented_requirements(name: str, mods: tuple[str, ...], names: tuple[str, ...],
                            ptx_notes: Iterable[PtxNote], target_notes: Iterable[PtxNote]
                            ) -> tuple[str | None, tuple[str, ...]]:
    """The version and targets the notes document for one form: the strictest that apply."""
    version: str | None = None
    for n in ptx_notes:
        if n.version and _applies(n, name, mods, names) and (
                version is None or _version_key(n.version) > _version_key(version)):
            version = n.version
    sm: tuple[str, ...] = ()
    sm_specific = False
    for n in target_notes:
        if not n.targets or not _applies(n, name, mods, names):
            continue
        specific = bool(n.subjects)
        if not sm or _target_key(n.targets) > _target_key(sm) or (
                specific and not sm_specific and _target_key(n.targets) >= _target_key(sm)):
            sm, sm_specific = n.targets, specific
    return version, sm


def _form(form: str, names: tuple[str, ...], operands: str, template: str, line: int,
          ptx_notes: tuple[PtxNote, ...], target_notes: tuple[PtxNote, ...], origin: str = "syntax") -> PtxForm:
    name, mods = ptx_syntax.split_form(form, names)
    version, sm = documented_requirements(name, mods, names, ptx_notes, target_notes)
    return PtxForm(
        form=form, name=name, modifiers=mods,
        types=tuple(m for m in mods if ptx_syntax.is_type(m)),
        state_spaces=tuple(m for m in mods if ptx_syntax.is_state_space(m)),
        operands=operands, template=template, documented_version=version, documented_sm=sm,
        line=line, origin=origin,
    )


def _example_forms(forms: list[PtxForm], examples: tuple[str, ...], names: tuple[str, ...],
                   blocks: list[Block], ptx_notes: tuple[PtxNote, ...],
                   target_notes: tuple[PtxNote, ...]) -> list[PtxForm]:
    """Forms the examples use that the syntax expansion did not produce: another modifier order
    (`add.s8x4.sat`), a combination the covering sample skipped, or one the syntax lacks."""
    known = {f.form.lower() for f in forms}
    lows = {n.lower() for n in names}
    out: list[PtxForm] = []
    for b in (b for b in blocks if b.kind == "code"):
        _, stmts = ptx_syntax.example_statements(b.text)
        for mnemonic, operands in stmts:
            if mnemonic.lower() in known:
                continue
            name, _ = ptx_syntax.split_form(mnemonic, names)
            if name.lower() not in lows:
                continue
            known.add(mnemonic.lower())
            line = b.line + 1 + next((i for i, t in enumerate(b.text.split("\n")) if mnemonic in t), 0)
            out.append(_form(mnemonic, names, operands, f"{mnemonic} {operands}".strip(), line,
                             ptx_notes, target_notes, origin="example"))
    return out


# ---------------------------------------------------------------- chapter 13

def _read_release_notes(manual: PtxManual, root: Path) -> None:
    ch13 = root / "13-release-notes"
    if not ch13.is_dir():
        manual.skips.append(Skip(str(ch13), None, "no 13-release-notes folder"))
        return
    known = {n.lower() for i in manual.instructions for n in i.names}
    for path in sorted(ch13.glob("*.md"), key=lambda p: _section_sort_key(p.name)):
        rel = _rel(path, root)
        loaded = _load(manual, path, rel)
        if loaded is None:
            continue
        text, meta, _ = loaded
        title = str(meta.get("title", ""))
        m = re.search(r"Version\s+(\d+\.\d+)", title)
        if not m:
            if "release-history" in text or "Release History" in text:
                manual.target_versions.update(_release_history(text))
            continue
        manual.releases.extend(_release_items(m.group(1), text, rel, str(meta.get("section", "")), known))


def _release_items(version: str, text: str, rel: str, section: str, known: set[str]) -> list[PtxRelease]:
    out: list[PtxRelease] = []
    kind = "other"
    for n, raw in enumerate(text.split("\n"), start=1):
        s = raw.strip()
        if s == "New Features":
            kind = "feature"
        elif s.startswith("Semantic Changes"):
            kind = "semantic"
        elif s in ("Features Unimplemented in PTX ISA Version", "Unsupported Features") or s.startswith(
                ("Features Unimplemented", "Unsupported Features")):
            kind = "unsupported"
        elif re.match(r"^[*\-]\s", s):
            item = s[2:].strip()
            if item.lower() in ("none", "none."):
                continue
            names = tuple(dict.fromkeys(t for t in _BACKTICK.findall(item) if t.lower() in known))
            out.append(PtxRelease(version, kind, item, names, Provenance(SOURCE, rel, n, section)))
    return out


def _release_history(text: str) -> dict[str, str]:
    """Table "PTX Release History": the first PTX ISA version that lists each target."""
    out: dict[str, str] = {}
    for row in re.findall(r"<tr>(.*?)</tr>", text, re.S):
        m = re.search(r"PTX ISA (\d+\.\d+)", row)
        if not m:
            continue
        for span in re.findall(r"<span>(sm_[^<]+)</span>", row):
            for target in _expand_targets(span):
                out.setdefault(target, m.group(1))
    return out


def _expand_targets(span: str) -> list[str]:
    m = re.fullmatch(r"sm_\{([^}]*)\}", span.strip())
    if m:
        return ["sm_" + x.strip() for x in m.group(1).split(",") if x.strip()]
    return [span.strip()]


# ---------------------------------------------------------------- cross-check with an older edition

def _mark_new_forms(manual: PtxManual, older: PtxManual) -> None:
    """Record on each instruction the forms the older edition's syntax does not produce."""
    old_forms: dict[str, set[str]] = {}
    for ins in older.instructions:
        for n in ins.names:
            old_forms.setdefault(n.lower(), set()).update(f.form.lower() for f in ins.forms)
    for k, ins in enumerate(manual.instructions):
        seen = set().union(*(old_forms.get(n.lower(), set()) for n in ins.names))
        if not seen:
            new = tuple(f.form for f in ins.forms if f.origin == "syntax")
        else:
            new = tuple(f.form for f in ins.forms if f.origin == "syntax" and f.form.lower() not in seen)
        manual.instructions[k] = _replace(ins, new_since=new)


def _replace(ins: PtxInstruction, **changes: object) -> PtxInstruction:
    from dataclasses import replace
    return replace(ins, **changes)  # type: ignore[arg-type]

"""Expand the PTX manual's syntax blocks into concrete instruction forms.

A syntax block holds instruction templates (`add{.sat}.type2  d, a, b;`) and the sets their
placeholders range over (`.type2 = { .u32, .s32 };`). Templates and sets come in groups (a group
is some templates followed by the sets they use); a placeholder a group does not define falls back
to the sets defined elsewhere in the same section. The manual has typos (misspelled placeholder
names, set values without a leading dot, stray spaces); they are repaired where unambiguous and
reported as issues so the catalog can show them as syntax errata.

Products can explode (ld: ~13 000 combinations); above `CAP` a covering sample is taken instead:
the minimal form plus every alternative of every slot once, and the cap is recorded.
"""

from __future__ import annotations

import difflib
import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass, field

CAP = 96                     # full product up to this size, covering sample above it
COUNT_CAP = 20_000           # excluded combinations counted over the whole product up to this size
_REPAIRS = 400               # rows tried to find an allowed combination for one alternative of a slot
_MAX_DEPTH = 4               # set values may themselves reference sets (.a = { .x{.b} })

_COMMENT = re.compile(r"//.*$")
_DEF = re.compile(r"^\s*((?:[.:A-Za-z_][\w.:\-]*\s*=\s*)+)\{")
_TYPE = re.compile(
    r"^\.(pred|[bsuf]\d+(x\d+)?|bf16(x2)?|tf32|u?e\d+m\d+(x\d+)?|s2f6x2|b\dx16(_p\d+)?"
    r"|texref|samplerref|surfref)$"
)
_SPACE = re.compile(r"^\.(global|shared|local|const|param|tex)(::\w+)*$")
_COMPONENT = re.compile(r"[\w\-]+(?:::?[\w\-]+)*")
# placeholder names the manual uses for sets; one left undefined is a defect of the syntax block
_PLACEHOLDER = re.compile(r"^\.([a-d]?type\d?|[a-z]+type|mode|op|redop|ss|space|scope|sem|dim|shape|layout|"
                          r"vec|num|cop|kind|cmp|geom|comp)$")


def is_type(mod: str) -> bool:
    """True for data-type modifiers (.u32, .f16x2, .e4m3, .b128)."""
    return bool(_TYPE.match(mod))


def is_state_space(mod: str) -> bool:
    """True for state-space modifiers (.global, .shared::cta)."""
    return bool(_SPACE.match(mod))


@dataclass(slots=True)
class Template:
    """One instruction template after continuation lines are joined."""

    text: str
    mnemonic: str
    operands: str
    line: int                               # 1-based line in the section file
    group: int


@dataclass(slots=True)
class Definition:
    """A set definition `.name = { v1, v2 }` (several names may share one set)."""

    names: tuple[str, ...]
    values: tuple[str, ...]
    group: int
    comment: str = ""


@dataclass(slots=True)
class Expansion:
    """The forms one syntax block yields."""

    forms: list[tuple[str, Template]] = field(default_factory=list)   # (form, template), unique
    total: int = 0                          # full product size over all templates
    capped: bool = False
    issues: list[str] = field(default_factory=list)
    templates: list[Template] = field(default_factory=list)
    definitions: list[Definition] = field(default_factory=list)
    excluded: dict[str, Excluded] = field(default_factory=dict)   # rule -> what it took out


@dataclass(slots=True)
class Excluded:
    """Combinations one prose rule takes out of the product (see ptx_restrictions)."""

    count: int = 0
    samples: list[str] = field(default_factory=list)   # the first few, as the Syntax spells them
    whole: bool = True             # counted over the whole product (False: over the covering sample only)
    template: Template | None = None   # the template of the first sample (its operands, to ask ptxas)


Forbid = Callable[[str], str | None]    # form -> the rule that forbids it, None when allowed


# ---------------------------------------------------------------- splitting a block into lines

def _looks_like_template(stripped: str, bases: tuple[str, ...]) -> bool:
    s = re.sub(r"^@\S+\s+", "", stripped)
    return any(s == b or s.startswith((b + ".", b + "{", b + " ", b + ";")) for b in bases)


def split_block(lines: list[tuple[int, str]], bases: tuple[str, ...], group0: int,
                issues: list[str]) -> tuple[list[Template], list[Definition]]:
    """Cut one code block (line number, text) into templates and set definitions, in groups."""
    templates: list[Template] = []
    defs: list[Definition] = []
    group = group0
    last_kind = ""
    open_tpl: list[tuple[int, str]] | None = None
    pending_def: tuple[int, str, str] | None = None   # (line, text so far, comment)

    def flush_template() -> None:
        nonlocal open_tpl
        if open_tpl:
            first_line = open_tpl[0][0]
            text = open_tpl[0][1].strip()
            for _, cont in open_tpl[1:]:
                c = cont.strip()
                text += c if c.startswith((".", "{.", "{::")) and not _has_operands(text) else " " + c
            templates.append(_make_template(text, first_line, group, issues))
        open_tpl = None

    for lineno, raw in lines:
        comment_match = re.search(r"//(.*)$", raw)
        comment = comment_match.group(1).strip() if comment_match else ""
        text = _COMMENT.sub("", raw).rstrip()
        stripped = text.strip()
        if pending_def is not None:
            pending_def = (pending_def[0], pending_def[1] + " " + stripped, pending_def[2] or comment)
            if "}" in stripped:
                defs.append(_make_def(pending_def[1], group, pending_def[2], issues))
                pending_def = None
            continue
        if not stripped:
            flush_template()
            continue
        if _DEF.match(stripped):
            flush_template()
            if last_kind == "template":
                pass
            last_kind = "def"
            if "}" in stripped:
                defs.append(_make_def(stripped, group, comment, issues))
            else:
                pending_def = (lineno, stripped, comment)
            continue
        if _looks_like_template(stripped, bases):
            if last_kind == "def":
                group += 1
            flush_template()
            open_tpl = [(lineno, stripped)]
            last_kind = "template"
            continue
        if open_tpl is not None and raw[:1].isspace() and not open_tpl[-1][1].rstrip().endswith(";"):
            open_tpl.append((lineno, stripped))
            continue
        if open_tpl is not None and not _has_operands(" ".join(t for _, t in open_tpl)):
            open_tpl.append((lineno, stripped))
            continue
        flush_template()               # a caption such as "FP8 floating point type"
    flush_template()
    if pending_def is not None:
        issues.append(f"line {pending_def[0]}: set definition without closing brace")
    return templates, defs


def _has_operands(text: str) -> bool:
    """Whether a template text already has its operand part (whitespace at brace depth 0)."""
    return _split_mnemonic(text)[1] != ""


def _make_def(text: str, group: int, comment: str, issues: list[str]) -> Definition:
    m = _DEF.match(text)
    assert m is not None
    names = tuple(n.strip() for n in m.group(1).split("=") if n.strip())
    body = text[m.end():]
    depth, end = 1, len(body)
    for i, ch in enumerate(body):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                end = i
                break
    values: list[str] = []
    for v in (x.strip() for x in _split_top(body[:end], ",")):
        parts = v.split()
        if len(parts) > 1 and all(p.startswith(".") for p in parts):
            issues.append(f"set {names[0]}: missing comma between {' and '.join(parts)}")
            values.extend(parts)
        elif v:
            values.append(v)
    return Definition(names, tuple(values), group, comment)


def _make_template(text: str, line: int, group: int, issues: list[str]) -> Template:
    fixed = re.sub(r"\.\s+(?=[A-Za-z_])", ".", text)
    if fixed != text:
        issues.append(f"line {line}: stray space after '.' in {text.split()[0]!r}")
    guard = re.match(r"^@\S+\s+", fixed)
    body = fixed[guard.end():] if guard else fixed
    mnemonic, operands = _split_mnemonic(body)
    return Template(fixed, mnemonic, operands.rstrip().rstrip(";").strip(), line, group)


def _split_mnemonic(text: str) -> tuple[str, str]:
    depth = 0
    for i, ch in enumerate(text):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch.isspace() and depth == 0:
            return text[:i], text[i:].strip()
        elif ch == ";" and depth == 0:
            return text[:i], ""
    return text.rstrip(";"), ""


def _split_top(text: str, sep: str) -> list[str]:
    """Split on `sep` outside of braces, brackets and parentheses."""
    out, depth, cur = [], 0, []
    for ch in text:
        if ch in "{[(":
            depth += 1
        elif ch in "}])":
            depth -= 1
        if ch == sep and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    out.append("".join(cur))
    return out


# ---------------------------------------------------------------- expanding one template

class _Sets:
    """Set lookup for one template: its own group first, then the rest of the section."""

    def __init__(self, defs: list[Definition], group: int, issues: list[str], line: int,
                 template: str = "", missing: dict[str, tuple[str, ...]] | None = None) -> None:
        self.table: dict[str, tuple[str, ...]] = {}
        ordered = [d for d in defs if d.group != group] + [d for d in defs if d.group == group]
        local_seen: dict[str, Definition] = {}
        for d in ordered:
            for n in d.names:
                if d.group == group and n in local_seen:
                    # the same set defined twice in one group, told apart by a comment ("for sured.b")
                    prev = local_seen[n]
                    if _comment_picks(d.comment, template):
                        self.table[n] = d.values
                    elif _comment_picks(prev.comment, template):
                        self.table[n] = prev.values
                    else:
                        self.table[n] = tuple(dict.fromkeys(prev.values + d.values))
                    continue
                self.table[n] = d.values
                if d.group == group:
                    local_seen[n] = d
        for n, values in (missing or {}).items():
            self.table.setdefault(n, values)        # a placeholder no set defines, read from the prose
        self.issues, self.line = issues, line

    def get(self, name: str) -> tuple[str, ...] | None:
        return self.table.get(name)

    def near_miss(self, name: str) -> str | None:
        """A defined set whose name is a likely misspelling of `name` (completion_mechansim)."""
        if len(name) < 7:
            return None
        close = difflib.get_close_matches(name, list(self.table), n=1, cutoff=0.88)
        return close[0] if close else None


def _comment_picks(comment: str, template: str) -> bool:
    m = re.search(r"for\s+([\w.]+)", comment)
    return bool(m) and template.startswith(m.group(1))


def _tokens(text: str) -> list[str]:
    """Split a mnemonic into components (`.x`, `{...}`, `x`) keeping braces whole."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "{":
            depth, j = 0, i
            while j < n:
                if text[j] == "{":
                    depth += 1
                elif text[j] == "}":
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            out.append(text[i:j + 1])
            i = j + 1
        elif ch == ".":
            m = _COMPONENT.match(text, i + 1)
            if m:
                out.append("." + m.group(0))
                i = m.end()
            elif i + 1 < n and text[i + 1] == "{":
                out.append(".")                         # sust.b.{1d,2d,3d}
                i += 1
            else:
                i += 1                                  # trailing dot (`{.abs.}`)
        elif ch == ":" and text.startswith("::{", i):
            j = text.find("}", i)
            j = n - 1 if j < 0 else j
            out.append(text[i:j + 1])                 # .shared::{cta, cluster}: one is required
            i = j + 1
        elif ch == ":" and text.startswith("::", i):
            m = _COMPONENT.match(text, i + 2)
            out.append("::" + (m.group(0) if m else ""))
            i = m.end() if m else i + 2
        else:
            m = _COMPONENT.match(text, i)
            if m:
                out.append(m.group(0))
                i = m.end()
            else:
                i += 1
    return out


def expand_text(text: str, sets: _Sets, depth: int = 0) -> list[str]:
    """All concrete strings a mnemonic fragment denotes (each a concatenation of components)."""
    slots = _slots(text, sets, depth)
    return ["".join(p) for p in itertools.product(*slots)] if slots else [""]


def _slots(text: str, sets: _Sets, depth: int) -> list[list[str]]:
    toks = _tokens(text)
    slots: list[list[str]] = []
    i = 0
    while i < len(toks):
        tok = toks[i]
        if tok.startswith("{"):
            inner = tok[1:-1].strip()
            attach = bool(slots) and inner.startswith("::")
            alts = _alternatives(inner, sets, depth)
            if attach:
                prev = slots.pop()
                slots.append(list(dict.fromkeys(p + a for p in prev for a in ["", *alts])))
            elif slots and slots[-1] == ["."] and len(alts) == 1:
                # `.{relu}`: one alternative in braces is optional, as `{.relu}` (the examples use both)
                sets.issues.append(f"line {sets.line}: '.{{{inner}}}' read as the optional '{{.{inner.lstrip('.')}}}'")
                slots[-1] = ["", "." + alts[0].lstrip(".")]
            elif slots and slots[-1] == ["."]:
                slots[-1] = ["." + a.lstrip(".") for a in alts]     # .{1d,2d,3d}: one is required
            else:
                slots.append(list(dict.fromkeys(["", *alts])))
            i += 1
            continue
        if tok.startswith("::{"):
            if slots:
                prev = slots.pop()
                parts = [p.strip().lstrip(":") for p in tok[3:-1].split(",") if p.strip()]
                slots.append([p + "::" + x for p in prev for x in parts])
            i += 1
            continue
        if tok.startswith("::"):
            found = sets.get(tok)
            suffixes = list(found) if found else [tok]
            if slots:
                prev = slots.pop()
                slots.append([p + s for p in prev for s in suffixes])
            else:
                slots.append(suffixes)                  # a suffix alternative on its own (`::cta`)
            i += 1
            continue
        if tok == ".":
            slots.append(["."])
            i += 1
            continue
        # longest run of components naming a set (`.sem.sco`, `.to_proxykind::from_proxykind`)
        matched = False
        for k in (3, 2):
            name = "".join(toks[i:i + k])
            if all(t.startswith(".") for t in toks[i:i + k]) and sets.get(name) is not None:
                slots.append(_values(name, sets, depth))
                i += k
                matched = True
                break
        if matched:
            continue
        if tok.startswith(".") and "::" in tok and sets.get(tok) is None and _subsets(tok, sets):
            slots.append(_sub_expand(tok, sets))          # .collector::buffer_a::op, ::op = {...}
            i += 1
            continue
        if not slots and not tok.startswith(".") and sets.get(tok) is not None:
            slots.append(list(sets.get(tok) or ()))          # vop = { vadd, vsub, ... }
        elif tok.startswith(".") and sets.get(tok) is not None:
            slots.append(_values(tok, sets, depth))
        elif tok.startswith(".") and (alias := sets.near_miss(tok)) is not None and slots:
            sets.issues.append(f"line {sets.line}: template uses {tok} but the sets define {alias}")
            slots.append(_values(alias, sets, depth))
        else:
            if depth == 0 and slots and _PLACEHOLDER.match(tok):
                sets.issues.append(f"line {sets.line}: template uses {tok} but no set defines it")
            slots.append([tok])
        i += 1
    return slots


def _subsets(tok: str, sets: _Sets) -> bool:
    return any(sets.get("::" + part) is not None for part in tok.split("::")[1:])


def _sub_expand(tok: str, sets: _Sets) -> list[str]:
    """Expand `::name` pieces of one component that name `::`-sets (`::op = { ::fill, ::use }`)."""
    parts = tok.split("::")
    options: list[list[str]] = [[parts[0]]]
    for part in parts[1:]:
        found = sets.get("::" + part)
        options.append([v.strip().rstrip("*") for v in found] if found else ["::" + part])
    return ["".join(p) for p in itertools.product(*options)]


def _values(name: str, sets: _Sets, depth: int) -> list[str]:
    out: list[str] = []
    for v in sets.get(name) or ():
        v = v.rstrip("*")                               # footnote markers (`::discard*`)
        if v.lower() == "none":
            out.append("")
            continue
        if not v.startswith((".", "::")):
            sets.issues.append(f"line {sets.line}: value {v!r} of {name} lacks its leading '.'")
            v = "." + v
        if depth < _MAX_DEPTH and ("{" in v or _names_set(v, sets) or ("::" in v and _subsets(v, sets))):
            out.extend(expand_text(v, sets, depth + 1))
        else:
            out.append(v)
    return list(dict.fromkeys(out)) or [name]


def _names_set(value: str, sets: _Sets) -> bool:
    """Whether a set value mentions another set (`.to_proxykind::from_proxykind.release.scope`)."""
    toks = _tokens(value)
    return len(toks) > 1 and any(sets.get(t) is not None for t in toks)


def _alternatives(inner: str, sets: _Sets, depth: int) -> list[str]:
    out: list[str] = []
    for part in _split_top(inner, ","):
        part = part.strip()
        if not part:
            continue
        if not part.startswith((".", "::")):
            part = "." + part if re.match(r"^\w", part) else part
        out.extend(x for x in expand_text(part, sets, depth + 1) if x)
    return out


# ---------------------------------------------------------------- whole blocks

def expand(blocks: list[list[tuple[int, str]]], bases: tuple[str, ...], cap: int = CAP,
           forbid: Forbid | None = None, missing: dict[str, tuple[str, ...]] | None = None) -> Expansion:
    """Expand the code blocks of one Syntax field into unique concrete forms; with `forbid`, leave out
    (and count in `excluded`) the combinations it names a rule for, and let the covering sample
    choose allowed combinations for each alternative instead. `missing`: values for placeholders
    no set of the block defines (read from the prose by the caller)."""
    result = Expansion()
    templates: list[Template] = []
    defs: list[Definition] = []
    group = 0
    for block in blocks:
        t, d = split_block(block, bases, group, result.issues)
        templates += t
        defs += d
        group = max([x.group for x in t] + [x.group for x in d] + [group]) + 1
    result.templates = templates
    result.definitions = defs
    seen: set[str] = set()
    for tpl in templates:
        sets = _Sets(defs, tpl.group, result.issues, tpl.line, tpl.mnemonic, missing)
        slots = _slots(tpl.mnemonic, sets, 0)
        for slot in slots:
            slot.sort(key=lambda s: s != "")           # the absent alternative first
        size = 1
        for slot in slots:
            size *= len(slot)
        result.total += size
        if size <= cap:
            combos = ["".join(p) for p in itertools.product(*slots)]
            if forbid is not None:
                combos = [c for c in combos if not _excluded(result, c, forbid(c), True, tpl)]
        else:
            result.capped = True
            if forbid is not None:
                whole = size <= COUNT_CAP
                for c in (("".join(p) for p in itertools.product(*slots)) if whole else _covering(slots)):
                    _excluded(result, c, forbid(c), whole, tpl)
            combos = _covering(slots, forbid)
        for form in combos:
            if form not in seen:
                seen.add(form)
                result.forms.append((form, tpl))
    return result


def _excluded(result: Expansion, form: str, rule: str | None, whole: bool, tpl: Template) -> bool:
    """Count `form` under `rule` when a rule forbids it; True when it does."""
    if rule is None:
        return False
    ex = result.excluded.setdefault(rule, Excluded(template=tpl))
    ex.count += 1
    ex.whole = ex.whole and whole
    if len(ex.samples) < 3 and form not in ex.samples:
        ex.samples.append(form)
    return True


def spellings(subject: str, definitions: list[Definition]) -> list[str]:
    """What a qualifier named in prose denotes, through the Syntax's sets: `.level1::eviction_priority`
    -> `.L1::evict_normal`, `.L1::evict_first`, ...; `.cluster` -> `.cluster`."""
    sets = _Sets(definitions, -1, [], 0)
    if sets.get(subject) is None and len(subject) >= 7:
        # the ld notes say `.level::eviction_priority`, the Syntax defines `.level1::` and `.level2::`: all the
        # equally close sets (a stricter note about one of them still wins where both apply)
        scored = [(difflib.SequenceMatcher(None, subject, name).ratio(), name) for name in sets.table]
        best = max((score for score, _ in scored), default=0.0)
        if best >= 0.88:
            return list(dict.fromkeys(x for score, name in scored if score == best
                                      for x in expand_text(name, sets) if x))
    return [x for x in expand_text(subject, sets) if x] or [subject]


def matching_template(syntax: str, bases: tuple[str, ...], form: str) -> tuple[Template, str] | None:
    """The Syntax template that spells `form` (case-insensitive) and the form in the manual's spelling
    (`ld.global.l1::evict_last.u32` -> `ld.global.L1::evict_last.u32`), or None: each template's full
    product matched slot by slot without enumerating it, so a form the capped expansion left out is still
    recognised as documented, and a near spelling is not."""
    want = form.strip().lower()
    templates, defs = split_block(list(enumerate(syntax.splitlines(), start=1)), bases, 0, [])
    for tpl in templates:
        slots = _slots(tpl.mnemonic, _Sets(defs, tpl.group, [], tpl.line, tpl.mnemonic), 0)
        spelled = _spell(want, slots)
        if spelled is not None:
            return tpl, spelled
    return None


def _spell(text: str, slots: list[list[str]]) -> str | None:
    """One alternative per slot whose concatenation is `text` ignoring case, in the slots' own case."""
    reachable: dict[int, str] = {0: ""}
    for slot in slots:
        reachable = {pos + len(a): done + a for pos, done in reachable.items() for a in slot
                     if text.startswith(a.lower(), pos)}
        if not reachable:
            return None
    return reachable.get(len(text))


def _covering(slots: list[list[str]], forbid: Forbid | None = None) -> list[str]:
    """The first alternative of every slot, then each other alternative of each slot once; with
    `forbid`, each row the rules forbid is repaired by changing other slots (one, then two) to an
    allowed combination, and an alternative no allowed row holds is left out."""
    base = [s[0] for s in slots]
    if forbid is not None and forbid("".join(base)) is not None:
        base = _repair(slots, base, -1, forbid) or base
    out = ["".join(base)]
    for i, slot in enumerate(slots):
        for alt in slot[1:]:
            row = list(base)
            row[i] = alt
            # an absent optional next to a required set keeps the form valid; keep the rest minimal
            if forbid is not None and forbid("".join(row)) is not None:
                fixed = _repair(slots, row, i, forbid)
                if fixed is None:
                    continue
                row = fixed
            out.append("".join(row))
    if forbid is not None and forbid(out[0]) is not None:
        out = out[1:]
    return out


def _repair(slots: list[list[str]], row: list[str], keep: int, forbid: Forbid) -> list[str] | None:
    """The closest allowed row: `row` with one other slot changed, else two (slot `keep` stays)."""
    others = [j for j in range(len(slots)) if j != keep and len(slots[j]) > 1]
    tried = 0
    for k in (1, 2):
        for js in itertools.combinations(others, k):
            for alts in itertools.product(*(slots[j] for j in js)):
                cand = list(row)
                for j, a in zip(js, alts, strict=True):
                    cand[j] = a
                if cand == row:
                    continue
                tried += 1
                if forbid("".join(cand)) is None:
                    return cand
                if tried >= _REPAIRS:
                    return None
    return None


def split_form(form: str, names: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
    """Split `mbarrier.arrive.release.cta.b64` into the instruction name and its modifiers."""
    comps = ["." + c if i else c for i, c in enumerate(_split_components(form))]
    best = comps[0]
    best_len = 1
    for name in names:
        ncomps = len(_split_components(name))
        if "".join(comps[:ncomps]).lower() == name.lower() and ncomps >= best_len:
            best, best_len = name, ncomps
    return best, tuple(comps[best_len:])


def _split_components(text: str) -> list[str]:
    return [c for c in re.split(r"\.(?![^{]*\})", text) if c]


def minimal_operands(operands: str) -> str:
    """The operand text with optional parts dropped (`{, cache_policy}`, `{!}`, `[|p]`)."""
    text = operands
    prev = None
    while prev != text:
        prev = text
        text = re.sub(r"\{\s*,[^{}]*\}", "", text)        # {, x}
        text = re.sub(r"\{\s*!\s*\}", "", text)            # {!}a
        text = re.sub(r"\[\|\s*\w+\s*\]", "", text)        # d[|p]
        text = re.sub(r"\{\s*\w+\s*,\s*\}", "", text)      # [a, {b,} c]
        text = re.sub(r"\{\s*\.[^{}]*\}", "", text)          # a{.asel}, [a]{.unified}
        text = re.sub(r"\{\s*-\s*\}", "", text)              # {-}a
    return re.sub(r"\s+", " ", text).strip().rstrip(";").strip()


_DECL = re.compile(r"^\.reg\s+(\.\w+)\s+(.*)$")


def example_statements(code: str) -> tuple[dict[str, str], list[tuple[str, str]]]:
    """Register declarations (name -> type; `a<4>` as `a*`) and instructions (mnemonic, operands)
    of an example block; statements may span lines, labels and guards are dropped."""
    text = re.sub(r"//[^\n]*", "", code)
    decls: dict[str, str] = {}
    stmts: list[tuple[str, str]] = []
    for raw in _split_statements(_terminate_lines(text)):
        st = " ".join(raw.split())
        m = _DECL.match(st)
        if m:
            for name in m.group(2).split(","):
                name = name.strip()
                if name:
                    decls[re.sub(r"<\d+>$", "", name) + ("*" if "<" in name else "")] = m.group(1)
            continue
        st = re.sub(r"^[A-Za-z_$][\w$]*:\s*", "", st)
        st = re.sub(r"^@!?[%\w]+\s+", "", st)
        mm = re.match(r"^([a-z][\w.:\-]*)(?:\s+(.*))?$", st)
        if mm:
            stmts.append((mm.group(1), (mm.group(2) or "").strip()))
    return decls, stmts


def _terminate_lines(text: str) -> str:
    """Add the `;` an example line forgot (`cvt.bf16.f16.rz b, f`) when the next line starts a new
    statement at column 0; indented lines and lines after a `,` or an open brace continue."""
    out: list[str] = []
    lines = text.split("\n")
    depth = 0
    for i, line in enumerate(lines):
        depth += line.count("{") + line.count("[") - line.count("}") - line.count("]")
        stripped = line.rstrip()
        nxt = next((x for x in lines[i + 1:] if x.strip()), "")
        starts_new = bool(re.match(r"^[A-Za-z_@.$]", nxt))
        if (stripped and depth <= 0 and not stripped.endswith((";", ",", "{", "(")) and starts_new
                and not re.match(r"^[A-Za-z_$][\w$]*:\s*$", stripped)):
            stripped += ";"
        out.append(stripped)
    return "\n".join(out)


def _split_statements(text: str) -> list[str]:
    out: list[str] = []
    depth, cur = 0, []
    for ch in text:
        if ch in "{[(":
            depth += 1
        elif ch in "}])":
            depth = max(0, depth - 1)
        if ch == ";" and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        out.append("".join(cur))
    return out

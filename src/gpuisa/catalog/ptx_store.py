"""The PTX part of the catalog: tables `ptx_*`, rows in the shared `search_fts`, and the page document.

`write_ptx` stores what the manual reader and the ptxas verifier produced; `ptx_show` rebuilds the
JSON document `gpuisa show clmad --json` prints; `ptx_names` feeds "did you mean" suggestions.
The catalog build owns the connection and the transaction; nothing here commits.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterable
from typing import Any

from gpuisa.catalog.documents import PtxCategory, PtxDocument
from gpuisa.model import Provenance
from gpuisa.model_ptx import (
    PtxExclusion,
    PtxForm,
    PtxFormText,
    PtxInstruction,
    PtxManual,
    PtxNote,
    PtxVerification,
)
from gpuisa.sources.layout import PTX_SOURCE
from gpuisa.sources.ptx_docs import documented_requirements
from gpuisa.sources.ptx_restrictions import for_instruction, forbidder
from gpuisa.sources.ptx_syntax import is_state_space, is_type, matching_template, split_form

VENDOR = "nvidia"
ISA = "ptx"

SCHEMA = """
CREATE TABLE IF NOT EXISTS ptx_instructions (
  id INTEGER PRIMARY KEY, section TEXT NOT NULL, name TEXT NOT NULL, names TEXT NOT NULL,
  title TEXT, category TEXT, summary TEXT, syntax TEXT, description TEXT, semantics TEXT,
  notes TEXT, examples TEXT, ptx_notes TEXT, target_notes TEXT, forms_total INTEGER,
  capped INTEGER, syntax_issues TEXT, new_since TEXT, url TEXT, file TEXT, line INTEGER,
  edition TEXT);
CREATE TABLE IF NOT EXISTS ptx_names (
  lname TEXT NOT NULL, name TEXT NOT NULL, instr_id INTEGER NOT NULL REFERENCES ptx_instructions(id));
CREATE INDEX IF NOT EXISTS ptx_names_lname ON ptx_names(lname);
CREATE TABLE IF NOT EXISTS ptx_forms (
  id INTEGER PRIMARY KEY, instr_id INTEGER NOT NULL REFERENCES ptx_instructions(id),
  form TEXT NOT NULL, lform TEXT NOT NULL, name TEXT NOT NULL, modifiers TEXT, types TEXT,
  state_spaces TEXT, operands TEXT, template TEXT, origin TEXT, line INTEGER,
  doc_version TEXT, doc_sm TEXT, in_manual INTEGER NOT NULL,
  status TEXT, ptx_version TEXT, feature_version TEXT, sm TEXT, message TEXT, ptx_line TEXT);
CREATE INDEX IF NOT EXISTS ptx_forms_lform ON ptx_forms(lform);
CREATE INDEX IF NOT EXISTS ptx_forms_instr ON ptx_forms(instr_id);
CREATE TABLE IF NOT EXISTS ptx_sass (
  form_id INTEGER NOT NULL REFERENCES ptx_forms(id), target TEXT NOT NULL, opcodes TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS ptx_sass_form ON ptx_sass(form_id);
CREATE TABLE IF NOT EXISTS ptx_errata (
  instr_id INTEGER REFERENCES ptx_instructions(id), name TEXT, form TEXT, section TEXT,
  kind TEXT, documented TEXT, verified TEXT, message TEXT);
CREATE INDEX IF NOT EXISTS ptx_errata_instr ON ptx_errata(instr_id);
CREATE TABLE IF NOT EXISTS ptx_releases (
  version TEXT, kind TEXT, text TEXT, names TEXT, file TEXT, line INTEGER);
CREATE TABLE IF NOT EXISTS ptx_meta (key TEXT PRIMARY KEY, value TEXT);
"""

_FTS = ("CREATE VIRTUAL TABLE IF NOT EXISTS search_fts USING fts5(name, vendor, arch, summary, body, "
        "tokenize=\"unicode61 tokenchars '._'\")")


def _j(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def write_ptx(conn: sqlite3.Connection, instructions: PtxManual | Iterable[PtxInstruction],
              verification: PtxVerification | None) -> None:
    """Create the ptx_* tables and fill them; add one search row per instruction name and section."""
    conn.executescript(SCHEMA)
    conn.execute(_FTS)
    manual = instructions if isinstance(instructions, PtxManual) else None
    instrs = list(manual.instructions if manual else instructions)
    verdicts = verification.verdicts if verification else {}
    ids: dict[str, int] = {}
    for ins in instrs:
        cur = conn.execute(
            "INSERT INTO ptx_instructions (section, name, names, title, category, summary, syntax, description,"
            " semantics, notes, examples, ptx_notes, target_notes, forms_total, capped, syntax_issues, new_since,"
            " url, file, line, edition) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (ins.section, ins.name, _j(list(ins.names)), ins.title, ins.category, ins.summary, ins.syntax,
             ins.description, ins.semantics, ins.notes, _j(list(ins.examples)),
             _j([_note(n) for n in ins.ptx_notes]), _j([_note(n) for n in ins.target_notes]),
             ins.forms_total, int(ins.capped), _j(list(ins.syntax_issues)), _j(list(ins.new_since)),
             ins.url, ins.provenance.file, ins.provenance.line, manual.version if manual else ""))
        iid = int(cur.lastrowid or 0)
        ids[ins.section] = iid
        for n in ins.names:
            conn.execute("INSERT INTO ptx_names (lname, name, instr_id) VALUES (?,?,?)", (n.lower(), n, iid))
            conn.execute("INSERT INTO search_fts (name, vendor, arch, summary, body) VALUES (?,?,?,?,?)",
                         (n, VENDOR, ISA, ins.summary, ins.description))
        for f in ins.forms:
            _insert_form(conn, iid, f, verdicts.get((ins.section, f.form)), True)
    if verification:
        by_section = {i.section: i for i in instrs}
        for f in verification.undocumented_forms:
            owner = next((i for i in instrs if f.name in i.names and any(x.template == f.template for x in i.forms)),
                         None) or next((i for i in instrs if f.name in i.names), None)
            if owner is not None and owner.section in by_section:
                _insert_form(conn, ids[owner.section], f, verdicts.get((owner.section, f.form)), False)
        for e in verification.errata:
            conn.execute("INSERT INTO ptx_errata (instr_id, name, form, section, kind, documented, verified, message)"
                         " VALUES (?,?,?,?,?,?,?,?)", (ids.get(e.section), e.name, e.form, e.section, e.kind,
                                                       e.documented, e.verified, e.message))
    asked = verification.exclusions if verification else {}
    for ins in instrs:
        for e in ins.excluded:
            conn.execute("INSERT INTO ptx_errata (instr_id, name, form, section, kind, documented, verified, message)"
                         " VALUES (?,?,?,?,?,?,?,?)", (ids[ins.section], ins.name, "", ins.section, "excluded",
                                                       e.cite, _ptxas_on_exclusion(asked.get((ins.section, e.rule))),
                                                       exclusion_text(e)))
        for issue in ins.syntax_issues:
            conn.execute("INSERT INTO ptx_errata (instr_id, name, form, section, kind, documented, verified, message)"
                         " VALUES (?,?,?,?,?,?,?,?)", (ids[ins.section], ins.name, "", ins.section, "syntax",
                                                       "", "", issue))
    if manual:
        for r in manual.releases:
            conn.execute("INSERT INTO ptx_releases (version, kind, text, names, file, line) VALUES (?,?,?,?,?,?)",
                         (r.version, r.kind, r.text, _j(list(r.names)), r.provenance.file, r.provenance.line))
    meta = {
        "edition": manual.version if manual else "",
        "sections_total": str(manual.sections_total) if manual else "",
        "skips": _j([{"file": s.file, "line": s.line, "reason": s.reason} for s in manual.skips]) if manual else "[]",
        "tool": verification.tool if verification else "",
        "skipped_reason": verification.skipped_reason if verification else "verification not run",
    }
    conn.executemany("INSERT OR REPLACE INTO ptx_meta (key, value) VALUES (?,?)", sorted(meta.items()))


def exclusion_text(e: PtxExclusion) -> str:
    """"N combinations the Syntax generates are excluded by FILE:LINE (reason), e.g. ..." for a page."""
    counted = "" if e.whole else " (counted in the covering sample)"
    return (f"{e.count} combinations the Syntax generates are excluded by {e.cite}{counted}: {e.reason}; "
            f"e.g. {', '.join(e.samples)}")


def _ptxas_on_exclusion(answer: tuple[str, str] | None) -> str:
    """What ptxas said about the rule's first sample, in words."""
    if answer is None:
        return "not asked (no ptxas verification)"
    verdict, message = answer
    return {"agrees": f"ptxas agrees: {message}", "accepts": f"ptxas contradicts the rule: {message}"}.get(
        verdict, f"ptxas unsettled: {message}")


def _note(n: Any) -> dict[str, Any]:
    return {"kind": n.kind, "text": n.text, "subjects": list(n.subjects), "version": n.version,
            "targets": list(n.targets), "line": n.line, "width": n.width, "groups": [list(g) for g in n.groups]}


def _stored_note(d: dict[str, Any]) -> PtxNote:
    """A note as the reader made it, from its stored JSON (catalogs before `groups` read as one group)."""
    return PtxNote(d["kind"], d["text"], tuple(d["subjects"]), d["version"], tuple(d["targets"]), d["line"],
                   d.get("width"), tuple(tuple(g) for g in d.get("groups", ())))


def _insert_form(conn: sqlite3.Connection, iid: int, f: Any, v: Any, in_manual: bool) -> None:
    cur = conn.execute(
        "INSERT INTO ptx_forms (instr_id, form, lform, name, modifiers, types, state_spaces, operands, template,"
        " origin, line, doc_version, doc_sm, in_manual, status, ptx_version, feature_version, sm, message, ptx_line)"
        " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        (iid, f.form, f.form.lower(), f.name, _j(list(f.modifiers)), _j(list(f.types)), _j(list(f.state_spaces)),
         f.operands, f.template, f.origin, f.line, f.documented_version, _j(list(f.documented_sm)),
         int(in_manual), v.status if v else None, v.ptx_version if v else None,
         v.feature_version if v else None, _j(list(v.sm)) if v else None, v.message if v else None,
         v.ptx_line if v else None))
    if v:
        fid = cur.lastrowid
        conn.executemany("INSERT INTO ptx_sass (form_id, target, opcodes) VALUES (?,?,?)",
                         [(fid, t, _j(list(ops))) for t, ops in v.sass])


# ---------------------------------------------------------------- reading back

def ptx_names(conn: sqlite3.Connection) -> list[str]:
    """Every PTX instruction name in the catalog, sorted (for suggestions)."""
    try:
        rows = conn.execute("SELECT DISTINCT name FROM ptx_names ORDER BY lname").fetchall()
    except sqlite3.OperationalError:
        return []
    return [r[0] for r in rows]


def _identify(conn: sqlite3.Connection, name: str) -> tuple[list[int], str, str | None] | None:
    """(section ids, the catalog's spelling of the name, the form asked for) for a name or form, or None."""
    key = name.strip().lower()
    try:
        ids = [r[0] for r in conn.execute("SELECT instr_id FROM ptx_names WHERE lname=? ORDER BY instr_id", (key,))]
    except sqlite3.OperationalError:
        return None
    want_form = None
    if not ids:
        rows = conn.execute("SELECT instr_id, name FROM ptx_forms WHERE lform=? ORDER BY in_manual DESC, id",
                            (key,)).fetchall()
        if not rows:
            rows = conn.execute("SELECT instr_id, name FROM ptx_forms WHERE lform LIKE ? ESCAPE '\\' ORDER BY id",
                                (_like_prefix(key),)).fetchall()
        if not rows:
            rows = _by_template(conn, key)
        if not rows:
            return None
        name = rows[0][1]
        ids = [r[0] for r in conn.execute("SELECT instr_id FROM ptx_names WHERE lname=? ORDER BY instr_id",
                                          (name.lower(),))]
        want_form = key
    if not ids:
        return None
    row = conn.execute("SELECT name FROM ptx_names WHERE instr_id=? AND lname=?", (ids[0], name.lower())).fetchone()
    return ids, row[0] if row else name, want_form


def ptx_key(conn: sqlite3.Connection, name: str) -> str | None:
    """The catalog's PTX instruction name for a name or form (`CLMAD.LO.U64` -> `clmad`), without
    building the document."""
    found = _identify(conn, name)
    return found[1] if found else None


def ptx_index(conn: sqlite3.Connection) -> list[PtxCategory]:
    """Every PTX instruction name under each manual chapter that documents it (`add` is in five), chapters and
    names in section order."""
    try:
        rows = conn.execute("SELECT n.name, i.section, i.category, i.summary FROM ptx_names n"
                            " JOIN ptx_instructions i ON i.id = n.instr_id").fetchall()
    except sqlite3.OperationalError:
        return []
    seen: set[tuple[str, str]] = set()
    chapters: dict[str, dict[str, Any]] = {}
    for name, section, category, summary in sorted(rows, key=lambda r: (_section_key(r[1]), r[0].lower())):
        cat = category or "Other"
        if (cat, name.lower()) in seen:
            continue
        seen.add((cat, name.lower()))
        chapter = chapters.setdefault(cat, {"category": cat, "chapter": ".".join(section.split(".")[:3]),
                                            "entries": []})
        chapter["entries"].append({"name": name, "section": section, "summary": summary})
    return [PtxCategory.model_validate(c) for c in sorted(chapters.values(), key=lambda c: _section_key(c["chapter"]))]


def _section_key(section: str) -> tuple[int, ...]:
    return tuple(int(p) for p in section.split(".") if p.isdigit())


def ptx_show(conn: sqlite3.Connection, name: str, form: str | None = None) -> PtxDocument | None:
    """The page document for an instruction (`clmad`) or one of its forms (`clmad.lo.u64`)."""
    found = _identify(conn, name)
    if found is None:
        return None
    ids, name, implied_form = found
    want_form = form.strip().lower() if form else implied_form
    sections = [_section(conn, i) for i in ids]
    sections = [s for s in sections if s is not None]
    if not sections:
        return None
    forms: list[dict[str, Any]] = []
    for sec in sections:
        forms += _forms(conn, sec["_id"], name)
    if want_form:
        exact = [f for f in forms if f["form"].lower() == want_form]
        if not exact:
            exact = [f for sec in sections if (f := _unlisted_form(conn, sec, want_form)) is not None][:1]
        forms = exact or [f for f in forms if f["form"].lower().startswith(want_form + ".")]
        if not forms:
            return None
        primary = next(s for s in sections if s["section"] == forms[0]["section"])
    else:
        primary = sections[0]
    form_names = {f["form"] for f in forms}
    errata = []
    for sec in sections:
        for r in conn.execute("SELECT name, form, section, kind, documented, verified, message FROM ptx_errata"
                              " WHERE instr_id=? ORDER BY rowid", (sec["_id"],)):
            if want_form and r[1] and r[1] not in form_names:
                continue
            if r[0] != name and r[1] and not any(r[1] == f for f in form_names):
                continue
            errata.append(dict(zip(("name", "form", "section", "kind", "documented", "verified", "message"),
                                   r, strict=True)))
    releases = [{"version": r[0], "kind": r[1], "text": r[2], "source": {"file": r[3], "line": r[4]}}
                for r in conn.execute("SELECT version, kind, text, file, line, names FROM ptx_releases")
                if name in json.loads(r[5] or "[]")]
    meta = dict(conn.execute("SELECT key, value FROM ptx_meta").fetchall())
    doc: dict[str, Any] = {
        "name": name,
        "vendor": VENDOR,
        "isa": ISA,
        "category": primary["category"],
        "summary": primary["summary"],
        "syntax": primary["syntax"],
        "forms": forms,
        "description": primary["description"],
        "semantics": primary["semantics"],
        "notes": primary["notes"],
        "ptx_isa_notes": primary["ptx_notes"],
        "target_isa_notes": primary["target_notes"],
        "examples": primary["examples"],
        "errata": errata,
        "releases": releases,
        "sources": [{"file": s["file"], "line": s["line"], "section": s["section"], "url": s["url"],
                     "edition": s["edition"]} for s in sections],
        "sections": [{k: v for k, v in s.items() if not k.startswith("_")} for s in sections],
        "forms_capped": any(s["capped"] for s in sections),
        "verification": {"tool": meta.get("tool", ""), "skipped": meta.get("skipped_reason", "")},
    }
    if want_form:
        doc["form"] = forms[0]["form"]
    doc["operands"] = operands_of(next((f["operands"] for f in forms if f["in_manual"] and f["operands"]), ""),
                                  primary["description"] or "", primary["semantics"] or "")
    return PtxDocument.model_validate(doc)


_OPERAND_TOKEN = re.compile(r"\{\.[\w:.]+\}|\.[A-Za-z_][\w:]*|[A-Za-z_][\w-]*|[{}]")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def operands_of(spec: str, description: str, semantics: str) -> list[dict[str, Any]]:
    """The operands of a syntax line (`d, a, b, c`; `[a], b{, cache_policy}`) with their roles.

    A role comes from the manual: an operand the Semantics block assigns (`d = ...`, `d ^= c`) is the
    destination, one it reads is a source; otherwise the Description's wording just before the operand
    (`destination register `d``, `source `b``). Each operand keeps the Description's sentences that name it."""
    names: list[tuple[str, bool]] = []
    depth = 0
    for tok in _OPERAND_TOKEN.findall(spec):
        if tok == "{":
            depth += 1
        elif tok == "}":
            depth = max(0, depth - 1)
        elif not tok.startswith(("{", ".")) and tok not in (n for n, _ in names):
            names.append((tok, depth > 0))
    code = "\n".join(line for line in semantics.splitlines() if not line.lstrip().startswith(("```", "//")))
    sentences = [x.strip() for x in _SENTENCE_END.split(description.replace("\n\n", " ")) if x.strip()]
    out = []
    shown: set[str] = set()   # a sentence naming several operands is kept once, at the first it names
    for name, optional in names:
        quoted = f"`{name}`"
        word = re.escape(name)
        first = next((line for line in code.splitlines() if re.search(rf"(?<![\w.]){word}(?![\w-])", line)), None)
        if first is not None:
            # the first statement that names it: assigned there (`d = ...`, `.u32 d = 0;`, `d++`) or read
            assigned = re.match(rf"\s*(\.\w+\s+)*{word}\s*(\[[^\]]*\])?\s*((<<|>>|[-+*/%^|&])?=(?!=)|\+\+|--)", first)
            role = "destination" if assigned else "source"
        else:
            said = re.search(rf"\b(destination|source)\b(?:\s+[\w-]+){{0,3}}\s+{re.escape(quoted)}", description, re.I)
            role = said.group(1).lower() if said else "operand"
        mentions = [x for x in sentences if quoted in x and x not in shown][:2]
        shown.update(mentions)
        out.append({"name": name, "role": role, "optional": optional, "mentions": mentions})
    return out


def _by_template(conn: sqlite3.Connection, form: str) -> list[tuple[int, str]]:
    """(section id, name) of the instruction whose Syntax spells `form` though the capped expansion did not
    list it (`ld.global.v4.u32`); the longest instruction name that prefixes the form wins."""
    comps = form.split(".")
    for k in range(len(comps) - 1, 0, -1):
        head = ".".join(comps[:k])
        rows = conn.execute("SELECT n.instr_id, n.name, i.syntax, i.names FROM ptx_names n JOIN ptx_instructions i"
                            " ON i.id = n.instr_id WHERE n.lname=? ORDER BY n.instr_id", (head,)).fetchall()
        hits = [(iid, name) for iid, name, syntax, names in rows
                if matching_template(syntax or "", tuple(json.loads(names)), form) is not None]
        if hits:
            return hits
    return []


def _unlisted_form(conn: sqlite3.Connection, sec: dict[str, Any], form: str) -> dict[str, Any] | None:
    """A form the Syntax spells but the capped expansion did not list, as a page form: documented by its
    template, with the requirements the stored notes give it (the reader's own documented_requirements), never
    a verification it did not get."""
    names = tuple(sec["names"])
    found = matching_template(sec["syntax"] or "", names, form)
    if found is None:
        return None
    tpl, form = found
    name, mods = split_form(form, names)
    rule = forbidder(for_instruction(names, sec["section"]), lambda f: split_form(f, names))(form)
    if rule is not None:                   # spelled by the Syntax, forbidden by the prose: not a form
        return {"form": form, "section": sec["section"], "types": [m for m in mods if is_type(m)],
                "modifiers": list(mods), "state_spaces": [m for m in mods if is_state_space(m)],
                "operands": tpl.operands, "origin": f"excluded by {(sec['file'] or '').split('/')[0]}/{rule.cite}: "
                f"{rule.reason}", "in_manual": False, "documented": None, "verified": None,
                "sass": {}, "source": {"file": sec["file"], "line": tpl.line}}
    operands, line = (conn.execute("SELECT operands, line FROM ptx_forms WHERE instr_id=? AND in_manual=1 AND"
                                   " template=?", (sec["_id"], tpl.text)).fetchone() or (tpl.operands, sec["line"]))
    version, sm = documented_requirements(name, mods, names, [_stored_note(n) for n in sec["ptx_notes"]],
                                          [_stored_note(n) for n in sec["target_notes"]])
    return {"form": form, "section": sec["section"], "types": [m for m in mods if is_type(m)],
            "modifiers": list(mods), "state_spaces": [m for m in mods if is_state_space(m)], "operands": operands,
            "origin": "syntax (spelled by the template, not in the listed sample)", "in_manual": True,
            "documented": {"ptx_version": version, "sm": list(sm)}, "verified": None, "sass": {},
            "source": {"file": sec["file"], "line": line}} if name.lower() in {n.lower() for n in names} else None


def _like_prefix(key: str) -> str:
    return key.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + ".%"


def _section(conn: sqlite3.Connection, iid: int) -> dict[str, Any] | None:
    row = conn.execute("SELECT id, section, name, names, title, category, summary, syntax, description, semantics,"
                       " notes, examples, ptx_notes, target_notes, forms_total, capped, syntax_issues, new_since,"
                       " url, file, line, edition FROM ptx_instructions WHERE id=?", (iid,)).fetchone()
    if row is None:
        return None
    (iid, section, name, names, title, category, summary, syntax, description, semantics, notes, examples,
     ptx_notes, target_notes, forms_total, capped, issues, new_since, url, file, line, edition) = row
    return {"_id": iid, "section": section, "name": name, "names": json.loads(names), "title": title,
            "category": category, "summary": summary, "syntax": syntax, "description": description,
            "semantics": semantics, "notes": notes, "examples": json.loads(examples),
            "ptx_notes": json.loads(ptx_notes), "target_notes": json.loads(target_notes),
            "forms_total": forms_total, "capped": bool(capped), "syntax_issues": json.loads(issues),
            "new_since_older_edition": json.loads(new_since or "[]"), "url": url, "file": file, "line": line,
            "edition": edition}


def _forms(conn: sqlite3.Connection, iid: int, name: str) -> list[dict[str, Any]]:
    out = []
    rows = conn.execute("SELECT f.id, f.form, f.name, f.modifiers, f.types, f.state_spaces, f.operands, f.origin,"
                        " f.line, f.doc_version, f.doc_sm, f.in_manual, f.status, f.ptx_version, f.feature_version,"
                        " f.sm, f.message, f.ptx_line, i.section, i.file FROM ptx_forms f JOIN ptx_instructions i"
                        " ON i.id = f.instr_id WHERE f.instr_id=? ORDER BY f.in_manual DESC, f.id", (iid,))
    for (fid, form, fname, mods, types, spaces, operands, origin, line, dv, dsm, in_manual, status, pv, fv, sm,
         message, ptx_line, section, file) in rows.fetchall():
        if fname.lower() != name.lower():
            continue
        sass = {t: json.loads(ops) for t, ops in conn.execute(
            "SELECT target, opcodes FROM ptx_sass WHERE form_id=? ORDER BY target", (fid,))}
        out.append({
            "form": form, "section": section, "types": json.loads(types), "modifiers": json.loads(mods),
            "state_spaces": json.loads(spaces), "operands": operands, "origin": origin,
            "in_manual": bool(in_manual),
            "documented": {"ptx_version": dv, "sm": json.loads(dsm or "[]")} if in_manual else None,
            "verified": None if status is None else {
                "status": status, "ptx_version": pv, "feature_version": fv, "sm": json.loads(sm or "[]"),
                "message": message or "", "ptx_line": ptx_line or ""},
            "sass": sass,
            "source": {"file": file, "line": line},
        })
    return out


def ptx_form_text(conn: sqlite3.Connection, form: str) -> PtxFormText | None:
    """One documented form with its instruction's Syntax and Semantics text (what evaluation needs)."""
    try:
        row = conn.execute(
            "SELECT f.form, f.name, f.modifiers, f.types, f.state_spaces, f.operands, f.template, f.doc_version,"
            " f.doc_sm, f.line, f.origin, i.name, i.syntax, i.semantics, i.file, i.line, i.section"
            " FROM ptx_forms f JOIN ptx_instructions i ON i.id = f.instr_id"
            " WHERE f.lform=? AND f.in_manual=1 ORDER BY f.id LIMIT 1", (form.strip().lower(),)).fetchone()
    except sqlite3.OperationalError:
        return None
    if row is None:
        return None
    (fform, fname, mods, types, spaces, operands, template, dv, dsm, line, origin,
     iname, syntax, semantics, file, iline, section) = row
    rec = PtxForm(fform, fname, tuple(json.loads(mods)), tuple(json.loads(types)), tuple(json.loads(spaces)),
                  operands, template, dv, tuple(json.loads(dsm or "[]")), line, origin)
    return PtxFormText(rec, iname, syntax, semantics, Provenance(PTX_SOURCE, file, iline, section).cite())


def ptx_forms_of(conn: sqlite3.Connection, head: str) -> list[str]:
    """Documented forms whose first component is `head` (`clmad` -> clmad.lo.u64, ...), sorted."""
    try:
        rows = conn.execute("SELECT DISTINCT form FROM ptx_forms WHERE in_manual=1 AND (lform=? OR lform LIKE ? "
                            "ESCAPE '\\')", (head.lower(), _like_prefix(head.lower()))).fetchall()
    except sqlite3.OperationalError:
        return []
    return sorted(r[0] for r in rows)

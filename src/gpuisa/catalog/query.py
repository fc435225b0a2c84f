"""Read-only queries over the catalog: the one API that the CLI, the web app and Python users share.

`Catalog.show()` returns the documented JSON contract of `gpuisa show --json` (see README).
"""

from __future__ import annotations

import contextlib
import json
import re
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from gpuisa.archs import BY_KEY, Arch, resolve_arch
from gpuisa.catalog import names
from gpuisa.catalog.documents import (
    AmdDocument,
    ArchDiff,
    Equivalent,
    EquivalentScope,
    Erratum,
    InstructionDiff,
    InstructionDocument,
    OperandPageDocument,
    PtxCategory,
    PtxDocument,
    SearchHit,
)
from gpuisa.catalog.merge import layout_diff, summary_of
from gpuisa.catalog.ptx_store import ptx_form_text, ptx_forms_of, ptx_index, ptx_key, ptx_names, ptx_show
from gpuisa.catalog.schema import SCHEMA_VERSION
from gpuisa.catalog.search_terms import concepts_for, name_variants, squash
from gpuisa.catalog.table_cells import split_cell
from gpuisa.errors import BudgetError, CatalogError, GpuisaError, NotFoundError
from gpuisa.limits import MAX_QUERY_CHARS, MAX_QUERY_TERMS, SEARCH_SECONDS
from gpuisa.model import Encoding, Field, InstructionDoc, Provenance
from gpuisa.model_ptx import PtxFormText

# Rosetta levels that rest on evidence (crossref.discovery.decided; "none" counts when its nearest candidate is refuted).
ROSETTA_DECIDED = ("equivalent", "equivalent with restrictions", "needs a sequence")

_FTS_SAFE = re.compile(r"[^\w.]+", re.UNICODE)


class Catalog:
    """A catalog file opened read-only (URI mode=ro), checked for its schema version."""

    def __init__(self, path: Path) -> None:
        if not path.is_file():
            raise CatalogError(f"no catalog at {path}; run `gpuisa build` first")
        try:
            self.conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
            row = self.conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        except sqlite3.DatabaseError as exc:
            raise CatalogError(f"{path} is not a gpuisa catalog ({exc}); rebuild it with `gpuisa build`") from None
        if row is None or int(row[0]) != SCHEMA_VERSION:
            raise CatalogError(f"{path} has schema {row[0] if row else '?'}, this gpuisa reads {SCHEMA_VERSION}; "
                               "rebuild it with `gpuisa build`")
        self.path = path
        self._encodings: dict[tuple[str, str], Encoding] = {}
        self._docs: dict[str, dict[str, list[InstructionDoc]]] = {}
        self._concept_index: tuple[dict[str, list[str]], dict[str, str]] | None = None

    # ------------------------------------------------------------------ lookups

    def meta(self) -> dict[str, str]:
        return dict(self.conn.execute("SELECT key, value FROM meta"))

    def rosetta(self, arch: str | None = None, chapter: str = "", level: str = "") -> dict[str, Any]:
        """The Rosetta table the build stored (crossref.stage.rosetta_cell per PTX form and arch): rows of PTX forms
        with a cell per arch, filtered by arch key, chapter substring and level; with decided counts per arch and
        chapter. {"rows": []} for a catalog built without equivalents."""
        raw = self.meta().get("rosetta")
        cells = json.loads(raw) if raw else []
        order = {a["key"]: i for i, a in enumerate(self.archs())}
        archs = sorted({c["arch"] for c in cells}, key=lambda a: order.get(a, 99))
        if arch:
            archs = [a for a in archs if a == arch]
        rows: dict[str, dict[str, Any]] = {}
        coverage: dict[str, dict[str, dict[str, int]]] = {}
        for c in cells:
            if c["arch"] not in archs or chapter.lower() not in c["chapter"].lower():
                continue
            cov = coverage.setdefault(c["arch"], {}).setdefault(c["chapter"], {"decided": 0, "total": 0})
            cov["total"] += 1
            cov["decided"] += int(c["level"] in ROSETTA_DECIDED or (c["level"] == "none" and bool(c["nearest"])))
            row = rows.setdefault(c["form"], {"form": c["form"], "chapter": c["chapter"], "cells": {}})
            row["cells"][c["arch"]] = {k: v for k, v in c.items() if k not in ("form", "chapter", "arch")}
        out = [r for r in rows.values() if not level or any(x["level"] == level for x in r["cells"].values())]
        return {"archs": archs, "chapters": sorted({r["chapter"] for r in rows.values()}), "rows": out,
                "coverage": coverage}

    def verification(self) -> dict[str, dict]:
        """Per tool ("llvm-mc", "ptxas"): state (verified / pending / missing / not run), tool, note,
        install hint; {} for a catalog that does not record it."""
        raw = self.meta().get("verification")
        return json.loads(raw) if raw else {}

    def archs(self) -> list[dict]:
        rows = self.conn.execute(
            "SELECT key, display, family, targets, ord, manual, coverage FROM archs ORDER BY ord").fetchall()
        counts = dict(self.conn.execute("SELECT arch, count(*) FROM instr_arch GROUP BY arch"))
        return [{"key": k, "display": d, "family": f, "targets": json.loads(t), "order": o, "manual": mf,
                 "instructions": counts.get(k, 0), "coverage": json.loads(c)}
                for k, d, f, t, o, mf, c in rows]

    def names(self) -> list[str]:
        return [r[0] for r in self.conn.execute("SELECT name FROM instructions ORDER BY name")]

    def ptx_names(self) -> list[str]:
        return ptx_names(self.conn)

    def resolve_name(self, name: str) -> names.Name:
        """What a user/LLVM/old-manual spelling names (catalog.names.resolve); NotFoundError with suggestions."""
        found = names.resolve(self.conn, name)
        if found is None:
            raise NotFoundError("instruction", name, self.suggest(name))
        return found

    def ptx_index(self) -> list[PtxCategory]:
        """PTX instructions by manual chapter (the PTX index page)."""
        return ptx_index(self.conn)

    def ptx_forms_in(self, categories: tuple[str, ...]) -> list[tuple[str, str]]:
        """(form, chapter) of every manual form in those PTX chapters, in section order (the Rosetta's rows)."""
        marks = ",".join("?" * len(categories))
        rows = self.conn.execute(
            "SELECT f.form, i.category, i.section FROM ptx_forms f JOIN ptx_instructions i ON i.id = f.instr_id"
            f" WHERE i.category IN ({marks}) AND f.in_manual = 1 ORDER BY f.id", categories).fetchall()
        seen: set[str] = set()
        out = []
        for form, category, _ in sorted(rows, key=lambda r: tuple(int(x) for x in r[2].split(".") if x.isdigit())):
            if form not in seen:
                seen.add(form)
                out.append((form, category))
        return out

    def resolve(self, name: str) -> str:
        """Catalog key for a user/LLVM spelling (case-insensitive, _e64 etc. dropped, old names, PTX forms)."""
        return self.resolve_name(name).key

    def suggest(self, name: str, n: int = 5) -> list[str]:
        return names.suggest(self.conn, name, n)

    def encoding(self, arch: str, name: str) -> Encoding | None:
        cached = self._encodings.get((arch, name))
        if cached is None:
            row = self.conn.execute("SELECT width, fields, provenance FROM encodings WHERE arch=? AND name=?",
                                    (arch, name)).fetchone()
            if row is None:
                return None
            fields = tuple(Field(f["name"], tuple(tuple(b) for b in f["bits"]), f["value"], f["spelling"],
                                 f["description"]) for f in json.loads(row[1]))
            cached = Encoding(arch, name, row[0], fields, Provenance(**json.loads(row[2])))
            self._encodings[(arch, name)] = cached
        return cached

    def arch_opcodes(self, arch: str) -> list[tuple[str, str, str | None, int]]:
        """(instruction, encoding, layout, opcode) of every instruction of one arch, primary encoding first."""
        return [tuple(r) for r in self.conn.execute(
            "SELECT name, encoding, layout, opcode FROM instr_enc WHERE arch=? ORDER BY name, rank", (arch,))]

    def arch_spellings(self, arch: str) -> dict[str, list[str]]:
        """Names an instruction goes by on one arch: the manual's, the catalog key, then its aliases."""
        out: dict[str, list[str]] = {}
        for key, manual in self.conn.execute("SELECT name, manual_name FROM instr_arch WHERE arch=?", (arch,)):
            out[key] = list(dict.fromkeys([manual, key]))
        for alias, key in self.conn.execute("SELECT alias, name FROM aliases"):
            if key in out and alias not in out[key]:
                out[key].append(alias)
        return out

    # ------------------------------------------------------------------ show

    def show(self, name: str, arch: str | None = None) -> InstructionDocument:
        """The page document for one instruction in one arch (default: the newest that has it).

        AMD names first; a PTX name or form (`clmad`, `clmad.lo.u64`) gives the PTX document."""
        key = self.resolve(name)
        if not self.conn.execute("SELECT 1 FROM instructions WHERE name=?", (key,)).fetchone():
            doc = self.show_ptx(name)
            if doc is None:
                raise NotFoundError("instruction", name, self.suggest(name))
            if arch is not None:
                raise GpuisaError(f"{name} is a PTX instruction; --arch applies to AMD instructions")
            return doc
        row = self.conn.execute("SELECT vendor, grp, summary, archs, aliases FROM instructions WHERE name=?",
                                (key,)).fetchone()
        vendor, group, _newest_summary, archs_json, aliases_json = row
        archs = json.loads(archs_json)
        if arch is None:
            arch_key = archs[0]
        else:
            arch_key = resolve_arch(arch).key
            if arch_key not in archs:
                raise GpuisaError(f"{key.lower()} is not in the {arch_key} manual; it is in: {', '.join(archs)}")
        ia = self.conn.execute(
            "SELECT manual_name, section, description, semantics, notes, style, operands, provenance"
            " FROM instr_arch WHERE name=? AND arch=?", (key, arch_key)).fetchone()
        manual_name, section, description, semantics, notes, style, operands, prov = ia
        if style == "table" and description == semantics:
            description, semantics = split_cell(description)   # one cell in the older manuals
        # the summary of this arch's own manual (never another generation's words on this page)
        summary = summary_of(description) if description else ""
        encodings = self._encodings_of(key, arch_key)
        examples, targets = self.examples(key, arch_key), self.targets(key)
        return AmdDocument.model_validate({
            "name": key.lower(),
            "vendor": vendor,
            "isa": "native",
            "arch": arch_key,
            "arch_display": BY_KEY[arch_key].display,
            "manual_name": manual_name,
            "aliases": [a.lower() for a in json.loads(aliases_json)],
            "renames": [{"from": a.lower(), "evidence": ev} for a, ev in self.conn.execute(
                "SELECT alias, evidence FROM aliases WHERE name=? ORDER BY alias", (key,))],
            "group": group,
            "category": section,
            "summary": summary,
            "description": description,
            "semantics": semantics,
            "semantics_style": style,
            "notes": notes,
            "encodings": encodings,
            "operands": json.loads(operands),
            "syntax": self.syntax_row(key, arch_key),
            "generations": self._generations(key, arch_key, archs, encodings),
            "archs": archs,
            "errata": self.errata(key),
            "examples": examples,
            "examples_note": examples_note(key, BY_KEY[arch_key], examples, targets),
            "targets": targets,
            "equivalents": self._scoped(key, arch_key, self.equivalents(key.lower(), "amd")),
            "sources": self._sources(key, arch_key, prov, encodings),
        })

    def syntax_row(self, key: str, arch: str) -> dict | None:
        """The LLVM syntax-page row the operands come from: {family, section, mnemonic, file, line, served_by}."""
        row = self.conn.execute("SELECT family, section, mnemonic, file, line, served_by FROM syntax_rows"
                                " WHERE name=? AND arch=?", (key, arch)).fetchone()
        if row is None:
            return None
        return dict(zip(("family", "section", "mnemonic", "file", "line", "served_by"), row, strict=True))

    def operand_page(self, label: str) -> OperandPageDocument:
        """One operand or operand-kind page of LLVM's syntax docs (`amdgpu_synid_gfx11_vaddr_f20ee4`, `amdgpu_synid_v`)."""
        label = label if label.startswith("amdgpu_synid_") else f"amdgpu_synid_{label}"
        row = self.conn.execute("SELECT label, name, description, size, size_bits, accepts, kinds, text, file, line"
                                " FROM operand_pages WHERE label=?", (label,)).fetchone()
        if row is None:
            raise NotFoundError("operand page", label, [])
        keys = ("label", "name", "description", "size", "size_bits", "accepts", "kinds", "text", "file", "line")
        page = dict(zip(keys, row, strict=True))
        page["accepts"], page["kinds"] = json.loads(page["accepts"]), json.loads(page["kinds"])
        page["accepts"] = [{"kind": a, "label": f"amdgpu_synid_{a}"} for a in page["accepts"]]
        page["source"] = {"source": "llvm-syntax-docs", "file": page.pop("file"), "line": page.pop("line")}
        return OperandPageDocument.model_validate(page)

    def operand_labels(self) -> list[str]:
        """Labels of every operand page the catalog holds."""
        return [r[0] for r in self.conn.execute("SELECT label FROM operand_pages ORDER BY label")]

    def operand_coverage(self) -> dict:
        """How many (instruction, arch) entries have operands, per arch and encoding, and what is left."""
        row = self.conn.execute("SELECT value FROM meta WHERE key='operand_coverage'").fetchone()
        return json.loads(row[0]) if row else {}

    def examples(self, key: str, arch: str, limit: int = 12) -> list[dict]:
        """LLVM MC test examples, simplest first, this arch's targets before the others'.

        The first one is the page's headline example (`v_sad_u32 v5, v1, v2, s3`)."""
        rows = self.conn.execute(
            "SELECT target, arch, asm, input, bytes, direction, mattr, file, line, rank FROM llvm_examples"
            " WHERE name=? ORDER BY arch != ?, rank, direction != 'asm', length(asm)", (key, arch)).fetchall()
        merged: dict[tuple[str, str, str], dict] = {}
        for target, ex_arch, asm, input_text, data, direction, mattr, file, line, _ in rows:
            ex = merged.get((asm, data, mattr))          # same line, bytes and -mattr: one example, its targets
            if ex is None:
                if len(merged) >= limit:
                    continue
                ex = merged[(asm, data, mattr)] = {"asm": asm, "bytes": data, "direction": direction, "input": input_text,
                                    "targets": [], "arch": ex_arch, "mattr": mattr,
                                    "source": {"source": "llvm-mc" if direction == "llvm-mc" else "llvm-mc-test",
                                               "file": file, "line": line}}
            if target not in ex["targets"]:
                ex["targets"].append(target)
        return list(merged.values())

    def show_ptx(self, name: str, form: str | None = None) -> PtxDocument | None:
        """The PTX document (see ptx_store.ptx_show) with cross-vendor equivalents, or None."""
        doc = ptx_show(self.conn, name, form)
        if doc is None:
            return None
        return doc.model_copy(update={"equivalents": self.equivalents(doc.name, "nvidia")})

    def instruction_docs(self, arch: str) -> dict[str, list[InstructionDoc]]:
        """Manual text of every instruction of one arch, by manual name and by catalog key
        (what the semantics evaluator needs, without reading the manual again)."""
        if arch in self._docs:
            return self._docs[arch]
        out: dict[str, list[InstructionDoc]] = self._docs.setdefault(arch, {})
        for key, manual_name, section, desc, sem, notes, style, prov in self.conn.execute(
                "SELECT name, manual_name, section, description, semantics, notes, style, provenance FROM instr_arch"
                " WHERE arch=?", (arch,)):
            p = json.loads(prov) if prov else {"source": "amd-manual", "file": ""}
            doc = InstructionDoc(arch, manual_name, section, None, desc, sem, notes, style, Provenance(**p))
            out.setdefault(manual_name, []).append(doc)
            if key != manual_name:
                out.setdefault(key, []).append(doc)
        return out

    def ptx_form_text(self, form: str) -> PtxFormText:
        """One documented PTX form with its instruction's Syntax and Semantics, as stored at build time."""
        found = ptx_form_text(self.conn, form)
        if found is None:
            raise NotFoundError("PTX form", form, ptx_forms_of(self.conn, form.strip().split(".")[0])[:8])
        return found

    def equivalents(self, name: str, vendor: str) -> list[Equivalent]:
        """PTX <-> AMD mappings with level, restrictions, sequence and evidence (proved / tested / curated)."""
        row = self.conn.execute("SELECT mappings FROM equivalents WHERE name=? AND vendor=?",
                                (name.lower(), vendor)).fetchone()
        return [Equivalent.model_validate(m) for m in json.loads(row[0])] if row else []

    def _scoped(self, key: str, arch: str, equivalents: list[Equivalent]) -> list[Equivalent]:
        """Each mapping with whether it holds on `arch`: checked on it, or checked on an arch whose pseudocode
        for this instruction is the same text (whitespace aside), or not claimed (the pseudocode differs)."""
        if not equivalents:
            return []
        semantics = {a: " ".join((s or "").split()) for a, s in self.conn.execute(
            "SELECT arch, semantics FROM instr_arch WHERE name=?", (key,))}
        here = semantics.get(arch) or None
        out = []
        for e in equivalents:
            status = ("checked here" if e.arch == arch else
                      "same pseudocode" if here is not None and semantics.get(e.arch) == here else "differs")
            out.append(e.model_copy(update={"on_this_arch": EquivalentScope(status=status, arch=e.arch)}))
        return out

    def targets(self, key: str) -> dict[str, dict]:
        """Verdict per gfx target of every known arch: supported / not supported / inconclusive / unknown."""
        rows = {t: {"verdict": v, "evidence": e, "detail": d, "file": f, "line": ln, "tool": tool, "arch": a,
                    "spelling": (sp or "").lower()}
                for t, a, v, e, d, f, ln, tool, sp in self.conn.execute(
                    "SELECT target, arch, verdict, evidence, detail, file, line, tool, spelling FROM targets WHERE name=?",
                    (key,))}
        counts = dict(self.conn.execute("SELECT target, examples FROM llvm_counts WHERE name=?", (key,)))
        out: dict[str, dict] = {}
        for a in sorted(BY_KEY.values(), key=lambda a: -a.order):
            for t in a.targets:
                entry = rows.get(t, {"verdict": "unknown", "evidence": "none", "arch": a.key,
                                     "detail": "no LLVM test and no llvm-mc verification for this target"})
                entry["examples"] = counts.get(t, 0)
                out[t] = entry
        return out

    def _encodings_of(self, key: str, arch: str) -> list[dict]:
        out = []
        for enc_name, layout, op_field, opcode, ident, prov in self.conn.execute(
                "SELECT encoding, layout, op_field, opcode, identifier, provenance FROM instr_enc"
                " WHERE name=? AND arch=? ORDER BY rank", (key, arch)):
            enc = self.encoding(arch, layout) if layout else None
            fixes = self.corrections(arch, layout or enc_name, key) if layout else []
            out.append({
                "encoding": enc_name,
                "width": enc.width if enc else None,
                "opcode": opcode,
                "op_field": op_field,
                "identifier": None if ident is None else f"0x{int(ident):08X}",
                "fields": [{"name": f.name, "bits": [list(b) for b in f.bits], "value": f.value,
                            "spelling": f.spelling} for f in enc.fields] if enc else [],
                "provenance": json.loads(prov),
                # evidence over the manual: what LLVM's encodings corrected, and what settled the layout
                "errata": [c for c in fixes if c["name"] == "*" or c["encoding"] == enc_name],
                "manual_opcode": next((c["manual_opcode"] for c in fixes
                                       if c["name"] != "*" and c["encoding"] == enc_name and c["manual_opcode"] is not None),
                                      None),
                "settled": self.layout_settled(arch, layout) if layout else "",
            })
        return out

    def _generations(self, key: str, arch: str, archs: list[str], encodings: list[dict]) -> list[dict]:
        ref = encodings[0] if encodings else None
        ref_layout = self.encoding(arch, self._layout_name(key, arch)) if ref else None
        out = []
        for other in archs:
            rows = self.conn.execute(
                "SELECT encoding, layout, opcode FROM instr_enc WHERE name=? AND arch=? ORDER BY rank",
                (key, other)).fetchall()
            if not rows:
                out.append({"arch": other, "arch_display": BY_KEY[other].display, "opcode": None, "encoding": None,
                            "same_layout": False, "same_opcode": False,
                            "differs": [{"field": "*", "change": "no encoding in this manual"}], "same": False,
                            "other_encodings": []})
                continue
            enc_name, layout, opcode = rows[0]
            other_layout = self.encoding(other, layout) if layout else None
            differs = layout_diff(ref_layout, other_layout)
            same_opcode = ref is not None and opcode == ref["opcode"] and enc_name == ref["encoding"]
            entry = {"arch": other, "arch_display": BY_KEY[other].display, "opcode": opcode, "encoding": enc_name,
                     "same_layout": not differs, "same_opcode": same_opcode, "differs": differs,
                     "same": not differs and same_opcode,
                     "other_encodings": [{"encoding": r[0], "opcode": r[2]} for r in rows[1:]]}
            out.append(entry)
        return out

    def _layout_name(self, key: str, arch: str) -> str:
        row = self.conn.execute("SELECT layout FROM instr_enc WHERE name=? AND arch=? ORDER BY rank LIMIT 1",
                                (key, arch)).fetchone()
        return row[0] if row and row[0] else ""

    def _sources(self, key: str, arch: str, prov: str | None, encodings: list[dict]) -> list[dict]:
        out = []
        if prov:
            p = json.loads(prov)
            out.append({"what": "description and semantics", **p})
        for e in encodings:
            out.append({"what": f"{e['encoding']} opcode {e['opcode']}", **e["provenance"]})
            enc = self.encoding(arch, e["encoding"]) if e["fields"] else None
            if enc:
                out.append({"what": f"{e['encoding']} field layout", **{k: v for k, v in
                            {"source": enc.provenance.source, "file": enc.provenance.file,
                             "line": enc.provenance.line, "section": enc.provenance.section}.items() if v}})
        return out

    def errata(self, key: str) -> list[Erratum]:
        """Where the sources disagree about one instruction (`*`: the arch-wide errata)."""
        return [Erratum(arch=a, kind=k, detail=d, sources=json.loads(s)) for a, k, d, s in self.conn.execute(
            "SELECT arch, kind, detail, sources FROM errata WHERE name=? ORDER BY arch", (key,))]

    # ------------------------------------------------------------------ search

    def search(self, text: str, arch: str | None = None, limit: int = 20) -> list[SearchHit]:
        """Ranked: exact names and PTX forms (also typed with spaces: `sad u32`), name prefixes, concepts
        (search_terms.SYNONYMS and the equivalents' concepts: `popcount`, `carry-less`), names containing
        the text, then full-text rank (bm25) over summary and description."""
        if limit < 1 or limit > 500:
            raise GpuisaError(f"--limit must be between 1 and 500, got {limit}")
        query = text.strip()
        if not query:
            raise GpuisaError("empty search text")
        if len(query) > MAX_QUERY_CHARS:
            raise BudgetError(f"search text is {len(query)} characters long; at most {MAX_QUERY_CHARS} are accepted")
        terms = [t for t in _FTS_SAFE.split(query) if t]
        if len(terms) > MAX_QUERY_TERMS:
            raise BudgetError(f"search text has {len(terms)} words; at most {MAX_QUERY_TERMS} are accepted")
        with self.time_budget(SEARCH_SECONDS, f"search for {query[:40]!r}"):
            return self._search(query, terms, arch, limit)

    @contextlib.contextmanager
    def time_budget(self, seconds: float, what: str) -> Iterator[None]:
        """Stop the SQLite work inside after `seconds` (a BudgetError with busy=True): one search cannot hold a worker."""
        deadline = time.monotonic() + seconds
        self.conn.set_progress_handler(lambda: time.monotonic() > deadline, 20_000)
        try:
            yield
        except sqlite3.OperationalError as exc:
            if time.monotonic() > deadline and "interrupt" in str(exc):
                raise BudgetError(f"{what} took longer than its {seconds:g} s budget; narrow it", busy=True) from None
            raise
        finally:
            self.conn.set_progress_handler(None, 0)

    def _search(self, query: str, terms: list[str], arch: str | None, limit: int) -> list[SearchHit]:
        arch_key = None if not arch else "ptx" if arch.strip().lower() in ("ptx", "nvidia") else resolve_arch(arch).key
        lowered = names.normalise(query).lower()
        variants = name_variants(query)
        results: dict[str, dict] = {}

        def add(rows, how):
            for name, vendor, archs, summary in rows:
                if arch_key and arch_key not in archs.split():
                    continue
                if name not in results and len(results) < limit:
                    results[name] = {"name": name, "vendor": vendor, "archs": archs.split(), "summary": summary,
                                     "match": how}

        base = "SELECT name, vendor, arch, summary FROM search_fts"
        exact = [lowered, query.lower(), *variants, *(names.normalise(v).lower() for v in variants)]
        for spelling in exact:
            add(self.conn.execute(base + " WHERE name = ?", (spelling,)), "name")
        for spelling in (query, *variants):
            ptx = ptx_key(self.conn, spelling)
            if ptx is not None:
                add(self.conn.execute(base + " WHERE name = ?", (ptx,)), "name")
        add(self.conn.execute(base + " WHERE name >= ? AND name < ? ORDER BY length(name), name LIMIT ?",
                              (lowered, lowered + "\uffff", limit * 4)), "prefix")
        concepts, titles = self._concepts()
        for concept in concepts_for(query, titles):
            for name in concepts.get(concept, ()):   # a concept whose equivalents this build did not compute
                add(self.conn.execute(base + " WHERE name = ?", (name,)), "concept")
        for part in (lowered, *(v for v in variants if "_" in v)):
            if len(results) < limit and len(part) >= 2:
                pattern = "%" + part.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
                add(self.conn.execute(base + " WHERE name LIKE ? ESCAPE '\\' ORDER BY length(name), name LIMIT ?",
                                      (pattern, limit * 4)), "name contains")
        phrases = [terms, [squash(query)]] if len(terms) > 1 and squash(query) else [terms]
        for words in phrases:
            if len(results) < limit and words:
                fts = " ".join(f'"{t}"*' for t in words)
                try:
                    add(self.conn.execute(base + " WHERE search_fts MATCH ? ORDER BY bm25(search_fts, 10.0, 0, 0, 5.0, 1.0)"
                                          " LIMIT ?", (fts, limit * 4)), "text")
                except sqlite3.OperationalError as exc:
                    if "interrupt" in str(exc):   # the time budget stopped it (see time_budget)
                        raise
                    raise GpuisaError(f"cannot search for {query!r}: {exc}") from None
        return [SearchHit.model_validate(r) for r in results.values()]

    def _concepts(self) -> tuple[dict[str, list[str]], dict[str, str]]:
        """Instruction names per cross-vendor concept (PTX first, then AMD), and each concept's title."""
        if self._concept_index is None:
            names: dict[str, list[str]] = {}
            titles: dict[str, str] = {}
            for name, _, mappings in self.conn.execute(
                    "SELECT name, vendor, mappings FROM equivalents ORDER BY vendor = 'amd', name"):
                for m in json.loads(mappings):
                    titles[m["concept"]] = m["concept_title"]
                    listed = names.setdefault(m["concept"], [])
                    if name not in listed:
                        listed.append(name)
            self._concept_index = (names, titles)
        return self._concept_index

    # ------------------------------------------------------------------ diff

    def diff(self, a: str, b: str, name: str | None = None) -> InstructionDiff | ArchDiff:
        """Whole-ISA diff between two archs (added / removed / re-encoded), or one instruction's."""
        ak, bk = resolve_arch(a).key, resolve_arch(b).key
        if name is not None:
            key = self.resolve(name)
            row = self.conn.execute("SELECT archs FROM instructions WHERE name=?", (key,)).fetchone()
            if row is None:
                raise GpuisaError(f"{name} is a PTX instruction; diff compares AMD generations")
            ga = set(json.loads(row[0]))
            if ak not in ga and bk not in ga:
                raise GpuisaError(f"{key.lower()} is in neither {ak} nor {bk}")
            left = self._encodings_of(key, ak) if ak in ga else []
            right = self._encodings_of(key, bk) if bk in ga else []
            la = self.encoding(ak, self._layout_name(key, ak)) if left else None
            lb = self.encoding(bk, self._layout_name(key, bk)) if right else None
            return InstructionDiff.model_validate({"name": key.lower(), "from": ak, "to": bk,
                    "from_encodings": [{k: e[k] for k in ("encoding", "opcode", "identifier")} for e in left],
                    "to_encodings": [{k: e[k] for k in ("encoding", "opcode", "identifier")} for e in right],
                    "differs": layout_diff(la, lb) if la and lb else [],
                    "status": "added" if not left else "removed" if not right else "changed"
                    if layout_diff(la, lb) or left[0]["opcode"] != right[0]["opcode"] else "same"})
        prim = {}
        for arch in (ak, bk):
            prim[arch] = {n: (e, o, lay) for n, e, o, lay in self.conn.execute(
                "SELECT name, encoding, opcode, layout FROM instr_enc WHERE arch=? AND rank=0", (arch,))}
            for (n,) in self.conn.execute("SELECT name FROM instr_arch WHERE arch=?", (arch,)):
                prim[arch].setdefault(n, (None, None, None))
        left, right = prim[ak], prim[bk]
        added = sorted(set(right) - set(left))
        removed = sorted(set(left) - set(right))
        reencoded = []
        layout_cache: dict[tuple[str, str], list[dict]] = {}
        for n in sorted(set(left) & set(right)):
            (ea, oa, la), (eb, ob, lb) = left[n], right[n]
            if la and lb:
                ck = (la, lb)
                if ck not in layout_cache:
                    layout_cache[ck] = layout_diff(self.encoding(ak, la), self.encoding(bk, lb))
                d = layout_cache[ck]
            else:
                d = []
            if ea != eb or oa != ob or d:
                reencoded.append({"name": n.lower(), "from": {"encoding": ea, "opcode": oa},
                                  "to": {"encoding": eb, "opcode": ob}, "fields_changed": [x["field"] for x in d]})
        names_a = dict(self.conn.execute("SELECT name, manual_name FROM instr_arch WHERE arch=?", (ak,)))
        names_b = dict(self.conn.execute("SELECT name, manual_name FROM instr_arch WHERE arch=?", (bk,)))
        evidence = dict(self.conn.execute("SELECT alias, evidence FROM aliases"))
        renamed = [{"from": names_a[n].lower(), "to": names_b[n].lower(),
                    "evidence": evidence.get(names_a[n]) or evidence.get(names_b[n], "")}
                   for n in sorted(set(left) & set(right))
                   if names_a.get(n) != names_b.get(n)]
        return ArchDiff.model_validate({
            "from": ak, "to": bk, "added": [n.lower() for n in added], "removed": [n.lower() for n in removed],
            "renamed": renamed, "reencoded": reencoded,
            "counts": {"added": len(added), "removed": len(removed), "reencoded": len(reencoded),
                       "renamed": len(renamed), "common": len(set(left) & set(right))}})

    def arch_instructions(self, arch: str) -> dict[str, list[dict]]:
        """Instructions of one arch grouped by functional group, then manual section."""
        key = resolve_arch(arch).key
        groups: dict[str, list[dict]] = {}
        for name, grp, summary, section in self.conn.execute(
                "SELECT i.name, i.grp, i.summary, a.section FROM instructions i JOIN instr_arch a ON a.name=i.name"
                " WHERE a.arch=? ORDER BY i.grp, a.section, i.name", (key,)):
            groups.setdefault(grp, []).append({"name": name.lower(), "summary": summary, "section": section})
        return groups

    # ------------------------------------------------------------------ resolved encodings (codec API)

    def opcode_rows(self, arch: str | None = None) -> list[dict]:
        """Every (arch, encoding, instruction) row with its resolved opcode and layout.

        name (catalog key), arch, encoding (as in the opcode table: 'VOP3A', 'VOPD X'), layout (the
        encoding whose fields apply), op_field ('OP', 'OPX', 'OPY'), opcode, identifier (the layout's
        fixed bits with the opcode in its field, an int; None when the opcode does not fit), width
        (bits of the whole instruction word, extra dwords included)."""
        sql = ("SELECT e.name, e.arch, e.encoding, e.layout, e.op_field, e.opcode, e.identifier, n.width"
               " FROM instr_enc e LEFT JOIN encodings n ON n.arch=e.arch AND n.name=e.layout")
        params: tuple = ()
        if arch is not None:
            sql += " WHERE e.arch=?"
            params = (resolve_arch(arch).key,)
        return [{"name": n, "arch": a, "encoding": enc, "layout": lay, "op_field": opf, "opcode": op,
                 "identifier": None if ident is None else int(ident), "width": width}
                for n, a, enc, lay, opf, op, ident, width in self.conn.execute(sql + " ORDER BY e.arch, e.name, e.rank",
                                                                               params)]

    def corrections(self, arch: str | None = None, encoding: str | None = None, name: str | None = None) -> list[dict]:
        """Corrections of the manual by LLVM's evidence (quirk-table entries applied at build): per
        layout (name '*') and per instruction row, with the manual's value, the resolved one and the
        evidence counts. Filters: arch, encoding (layout), name (catalog key; also returns '*' rows)."""
        sql = ("SELECT quirk, arch, encoding, name, manual, resolved, evidence, against, settled, detail, sources"
               " FROM corrections WHERE 1=1")
        params: list = []
        for col, val in (("arch", arch), ("encoding", encoding)):
            if val is not None:
                sql += f" AND {col}=?"
                params.append(val)
        if name is not None:
            sql += " AND (name=? OR name='*')"
            params.append(name)
        out = []
        for q, a, e, n, man, res, ev, ag, how, detail, src in self.conn.execute(sql + " ORDER BY arch, encoding, name",
                                                                               params):
            m = re.fullmatch(r"opcode (\d+)", man)
            out.append({"quirk": q, "arch": a, "encoding": e, "name": n.lower() if n != "*" else n, "manual": man,
                        "resolved": res, "evidence": ev, "against": ag, "settled_by": how, "detail": detail,
                        "manual_opcode": int(m.group(1)) if m else None, "sources": json.loads(src)})
        return out

    def layout_settled(self, arch: str, encoding: str) -> str:
        """What settled an (arch, encoding) layout: LLVM's tests, a sibling arch, or 'unsettled: ...'."""
        row = self.conn.execute("SELECT settled FROM layout_status WHERE arch=? AND encoding=?", (arch, encoding)).fetchone()
        return row[0] if row else ""

    def layouts(self, arch: str) -> dict[str, Encoding]:
        """Every resolved encoding layout of one arch, by encoding name."""
        key = resolve_arch(arch).key
        return {name: enc for (name,) in self.conn.execute("SELECT name FROM encodings WHERE arch=?", (key,))
                if (enc := self.encoding(key, name)) is not None}

    def key_of(self, spelling: str) -> str | None:
        """Catalog key of an AMD spelling (LLVM mnemonic, old name) by catalog.names, or None."""
        found = names.resolve(self.conn, spelling)
        return found.key if found is not None and found.vendor == "amd" else None

    def llvm_supported(self) -> set[tuple[str, str]]:
        """(catalog key, arch) pairs LLVM supports on at least one of the arch's targets (tests or llvm-mc)."""
        return {(n, a) for n, a in self.conn.execute("SELECT DISTINCT name, arch FROM targets WHERE verdict='supported'")}


def examples_note(key: str, arch: Arch, examples: list[dict], targets: dict[str, dict]) -> str | None:
    """What the page says when none of its examples is valid on one of its own targets (the
    instruction is in this arch's manual, but no tool assembles it here): which tool refused it on
    which targets and with what message, never another arch's line passed off as this one's."""
    own = set(arch.targets)
    if any(own & set(ex["targets"]) for ex in examples):
        return None
    said: dict[str, list[str]] = {}
    for t in arch.targets:
        v = targets.get(t, {})
        verdict, detail = v.get("verdict", "unknown"), v.get("detail") or ""
        tool = v.get("tool") or ("LLVM's MC tests" if v.get("evidence") == "llvm-test" else "")
        why = {"not supported": f"refused by {tool}" if tool else "refused",
               "inconclusive": f"{tool} rejected the operands of every example tried" if tool
               else "every example tried drew an operand error",
               "beyond": f"beyond {tool}" if tool else "beyond the tools installed",
               "tool failed": f"{tool} failed" if tool else "the tool failed",
               "supported": "supported, but no example of it is stored"}.get(
            verdict, "no tool verified it (no LLVM test and no llvm-mc verdict)")
        msg = detail.split(": ", 1)[-1] if detail and detail != verdict else ""
        said.setdefault(f"{why}{f' ({msg})' if msg and verdict != 'unknown' else ''}", []).append(t)
    parts = [f"{', '.join(ts)}: {why}" for why, ts in said.items()]
    elsewhere = sorted({ex["arch"] for ex in examples})
    tail = f" The examples below are from {', '.join(elsewhere)}." if elsewhere else " No example is stored for it."
    return (f"No example of {key.lower()} is valid on {arch.display}: " + "; ".join(parts) + "." + tail)

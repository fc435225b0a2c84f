"""Page rendering shared by the live server and the static export.

Everything here turns `Catalog` documents into HTML through Jinja2 templates with autoescape on:
vendor text is untrusted and is only ever inserted as escaped text. Links are produced by a
`Links` scheme so one renderer serves absolute URLs (server) and relative `.html` files (export).
Keys that other parts of the catalog add later (`examples`, `targets`, `equivalents`, PTX `forms`
and `sass`) are rendered when present, through a generic table view that tolerates any shape.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import pairwise
from pathlib import Path
from typing import Any
from urllib.parse import quote

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

from gpuisa.archs import BY_KEY
from gpuisa.catalog.query import Catalog
from gpuisa.errors import GpuisaError, NotFoundError

HERE = Path(__file__).resolve().parent
TEMPLATES = HERE / "templates"
STATIC = HERE / "static"

# A name or arch usable as one URL path segment / file name: no slashes, no leading dot.
SAFE_SEGMENT = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.:\-]{0,127}$")
_URL = re.compile(r"^https?://[^\s<>\"']+$")
_SLUG = re.compile(r"[^a-z0-9]+")


def slug(text: str) -> str:
    """Anchor id for a heading (group or section names come from the manuals)."""
    return _SLUG.sub("-", text.lower()).strip("-") or "other"


def safe_segment(text: str) -> bool:
    """True when `text` can be a path segment and a file name without escaping the folder."""
    return bool(SAFE_SEGMENT.match(text)) and ".." not in text


def _seg(text: str) -> str:
    return quote(text, safe="")


@dataclass(frozen=True, slots=True)
class Links:
    """URL scheme: absolute extension-less paths for the server, relative `.html` files for the export."""

    root: str = "/"
    suffix: str = ""
    static: bool = False

    @classmethod
    def for_depth(cls, depth: int) -> Links:
        """Links for a static page `depth` folders below the export root."""
        return cls(root="../" * depth or "./", suffix=".html", static=True)

    def _page(self, path: str) -> str:
        return f"{self.root}{path}{self.suffix}"

    def home(self) -> str:
        return self.root + ("index.html" if self.static else "")

    def arch(self, key: str) -> str:
        return self._page(f"arch/{_seg(key)}")

    def instr(self, name: str, arch: str | None = None, vendor: str = "amd") -> str:
        if vendor == "nvidia":
            return self._page(f"ptx/{_seg(name)}")
        if arch:
            return self._page(f"amd/{_seg(arch)}/{_seg(name)}")
        return self._page(f"amd/{_seg(name)}")

    def diff(self, a: str, b: str) -> str:
        return self._page(f"diff/{_seg(a)}/{_seg(b)}")

    def diff_index(self) -> str:
        return self.root + ("diff/index.html" if self.static else "diff")

    def search(self) -> str:
        return self.root + ("search.html" if self.static else "search")

    def asset(self, name: str) -> str:
        return f"{self.root}static/{name}"


# ---------------------------------------------------------------------- view models


@dataclass(slots=True)
class Cell:
    """One table cell of a generic view: text, optionally a link or code."""

    text: str
    href: str | None = None
    code: bool = False


@dataclass(slots=True)
class TableView:
    columns: list[str]
    rows: list[list[Cell]] = field(default_factory=list)


def bits_text(bits: list[list[int]] | list[tuple[int, int]]) -> str:
    """'63:61' / '15' / '53,18:16' as the manuals write bit ranges."""
    return ",".join(f"{hi}:{lo}" if hi != lo else f"{hi}" for hi, lo in bits)


def bit_diagram(enc: dict) -> dict:
    """Rows of 32 bits (MSB first), one cell per field piece with a span equal to its bit count.

    Fixed bits are shown in binary, the opcode in binary inside the opcode field; bits no field
    covers appear as unnamed cells; bits two fields claim go to the first and are listed in
    `overlaps` (the manuals give alternative layouts that way, e.g. VOP3P MFMA fields).
    """
    fields = enc.get("fields") or []
    top = max((hi for f in fields for hi, _ in f["bits"]), default=-1)
    width = max(int(enc.get("width") or 0), 32 * ((top // 32) + 1) if top >= 0 else 32)
    owner: dict[int, tuple[int, int]] = {}
    overlaps: list[str] = []
    digits: dict[int, str] = {}
    for fi, f in enumerate(fields):
        total = sum(hi - lo + 1 for hi, lo in f["bits"])
        value = f.get("value")
        if value is None and f["name"] == enc.get("op_field") and enc.get("opcode") is not None:
            value = enc["opcode"]
        text = format(value, f"0{total}b") if value is not None and value < (1 << total) else None
        pos = 0
        for ri, (hi, lo) in enumerate(f["bits"]):
            for b in range(hi, lo - 1, -1):
                if text is not None:
                    digits[b] = text[pos]
                pos += 1
                if b in owner:
                    other = fields[owner[b][0]]["name"]
                    note = f"{f['name']} ({bits_text(f['bits'])}) shares bits with {other}"
                    if note not in overlaps:
                        overlaps.append(note)
                    continue
                owner[b] = (fi, ri)
    rows = []
    for r in range(width // 32):
        hi_row = width - 1 - 32 * r
        lo_row = hi_row - 31
        cells = []
        b = hi_row
        while b >= lo_row:
            who = owner.get(b)
            start = b
            while b - 1 >= lo_row and owner.get(b - 1) == who:
                b -= 1
            end = b
            b -= 1
            span = start - end + 1
            if who is None:
                cells.append({"name": "", "kind": "unused", "value": None, "bits": bits_text([(start, end)]),
                              "span": span, "title": f"bits {bits_text([(start, end)])}: no field"})
                continue
            f = fields[who[0]]
            is_op = f["name"] == enc.get("op_field") and f.get("value") is None
            kind = "fixed" if f.get("value") is not None else "op" if is_op else "field"
            value = "".join(digits.get(x, "") for x in range(start, end - 1, -1)) or None
            if kind == "field":
                value = None
            title = f"{f['name']}: {_bits_word(f['bits'])} {bits_text(f['bits'])}"
            if f.get("spelling") and f["spelling"] != f["name"]:
                title += f" (the manual spells it {f['spelling']})"
            cells.append({"name": f["name"], "kind": kind, "value": value, "bits": bits_text([(start, end)]),
                          "span": span, "title": title, "spelling": f.get("spelling") or f["name"]})
        rows.append({"hi": hi_row, "lo": lo_row, "cells": cells})
    return {"width": width, "rows": rows, "overlaps": overlaps}


def _is_url(value: Any) -> bool:
    return isinstance(value, str) and bool(_URL.match(value))


def _scalar(value: Any) -> str:
    """Plain text for any JSON value: provenance as file:line, (target, [ops]) pairs as 'target: ops'."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str | int | float):
        return str(value)
    if isinstance(value, dict):
        if "file" in value or "line" in value:
            return cite(value)
        return "; ".join(f"{k}: {_scalar(v)}" for k, v in value.items() if v not in (None, "", []))
    if isinstance(value, list | tuple):
        if len(value) == 2 and isinstance(value[0], str) and isinstance(value[1], list | tuple):
            return f"{value[0]}: {' '.join(_scalar(v) for v in value[1])}"
        nested = any(isinstance(v, list | tuple | dict) for v in value)
        return ("; " if nested else ", ").join(_scalar(v) for v in value)
    return str(value)


_LLVM_FILE = re.compile(r"^llvm-project-(\d+\.\d+\.\d+)/(.+)$")


def source_href(src: Any) -> str | None:
    """An upstream link for a cited file when its revision is fixed: LLVM files of a release go to that
    release tag on GitHub; records with an https `url` keep it. Manual files have no pinned upstream."""
    if not isinstance(src, dict):
        return None
    if _is_url(src.get("url")):
        return str(src["url"])
    m = _LLVM_FILE.match(str(src.get("file") or ""))
    if not m:
        return None
    anchor = f"#L{int(src['line'])}" if isinstance(src.get("line"), int) else ""
    return f"https://github.com/llvm/llvm-project/blob/llvmorg-{m.group(1)}/{quote(m.group(2))}{anchor}"


def cite(src: dict) -> str:
    """'file:line (section)' for a provenance dict."""
    where = str(src.get("file") or src.get("source") or "")
    if src.get("line"):
        where += f":{src['line']}"
    if src.get("section"):
        where += f" ({src['section']})"
    return where


class Site:
    """Renders every page kind from one catalog; holds derived indexes computed once."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self.env = Environment(
            loader=FileSystemLoader(str(TEMPLATES)),
            autoescape=select_autoescape(default=True, default_for_string=True),
            undefined=StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
        )
        self.env.globals.update(bits_text=bits_text, cite=cite, slug=slug, source_href=source_href)
        self.archs = catalog.archs()
        self.arch_keys = [a["key"] for a in self.archs]
        self.names = [n.lower() for n in catalog.names()]
        self._members: dict[str, set[str]] = {}
        self._stems: dict[str, list[str]] = {}
        for n in self.names:
            self._stems.setdefault(_stem(n), []).append(n)

    # ------------------------------------------------------------------ helpers

    def members(self, arch: str) -> set[str]:
        """Lower-case names present in one arch (for arch-local links)."""
        if arch not in self._members:
            groups = self.catalog.arch_instructions(arch)
            self._members[arch] = {i["name"] for items in groups.values() for i in items}
        return self._members[arch]

    def ptx_names(self) -> list[str]:
        """PTX instruction names: `Catalog.ptx_names()` when it exists, else the PTX store's reader, else none."""
        fn = getattr(self.catalog, "ptx_names", None)
        try:
            if callable(fn):
                return sorted({str(n).lower() for n in fn()})
            from gpuisa.catalog.ptx_store import ptx_names
        except (ImportError, GpuisaError):
            return []
        return sorted({str(n).lower() for n in ptx_names(self.catalog.conn)})

    @lru_cache(maxsize=8192)  # noqa: B019 - one Site per catalog, kept for the server's life
    def exists(self, name: str) -> tuple[str, str] | None:
        """(canonical name, vendor) when the catalog knows `name`, for linking vendor-named things."""
        if not isinstance(name, str) or not name or len(name) > 128:
            return None
        try:
            key = self.catalog.resolve(name)
        except GpuisaError:
            return None
        try:
            vendor = str(self.catalog.show(key).get("vendor") or "amd")
        except GpuisaError:
            return None
        return key.lower(), vendor

    def related(self, doc: dict) -> list[str]:
        """Instructions sharing the name stem (v_sad_*) in the same arch, then the doc's own list."""
        out: list[str] = []
        for item in doc.get("related") or []:
            name = item.get("name") if isinstance(item, dict) else item
            if isinstance(name, str) and name.lower() != doc["name"]:
                out.append(name.lower())
        arch = doc.get("arch")
        members = self.members(arch) if arch in BY_KEY else set(self.names)
        for n in self._stems.get(_stem(doc["name"]), []):
            if n != doc["name"] and n in members and n not in out:
                out.append(n)
        return out[:24]

    def table(self, value: Any, links: Links, prefer: tuple[str, ...] = (), skip: tuple[str, ...] = ()) -> TableView:
        """A generic table for a list of records (or a mapping of key -> record) of unknown shape."""
        items: list[dict] = []
        if isinstance(value, dict):
            for k, v in value.items():
                items.append({"key": k, **v} if isinstance(v, dict) else {"key": k, "value": v})
        elif isinstance(value, list | tuple):
            for v in value:
                items.append(v if isinstance(v, dict) else {"value": v})
        columns: list[str] = [c for c in prefer if any(c in i and i[c] not in (None, "", []) for i in items)]
        for i in items:
            for k, v in i.items():
                if k not in columns and k not in skip and v not in (None, "", []):
                    columns.append(k)
        view = TableView(columns=columns)
        for i in items:
            view.rows.append([self._cell(col, i.get(col), i, links) for col in columns])
        return view

    def _cell(self, column: str, value: Any, record: dict, links: Links) -> Cell:
        if isinstance(value, dict) and _is_url(value.get("url")):
            return Cell(cite(value) or value["url"], href=value["url"])
        if _is_url(value):
            return Cell(value, href=value)
        if isinstance(value, str) and column in ("name", "instruction", "amd", "ptx", "target_instruction", "to"):
            hit = self.exists(value)
            if hit:
                vendor = "nvidia" if column == "ptx" else hit[1]
                return Cell(value, href=links.instr(hit[0], vendor=vendor), code=True)
        code = column in ("asm", "form", "syntax", "template", "sass", "bytes", "encoding", "code", "instruction")
        if isinstance(value, bytes):
            value = value.hex()
        return Cell(_scalar(value), code=code and bool(value))

    # ------------------------------------------------------------------ pages

    def render(self, template: str, links: Links, **ctx: Any) -> str:
        return self.env.get_template(template).render(links=links, archs=self.archs, **ctx)

    def home(self, links: Links) -> str:
        total = len(self.names)
        ptx = self.ptx_names()
        lines = _diff_lines(self.archs)
        return self.render("home.html", links, title="gpuisa", total=total, ptx_count=len(ptx),
                           diff_lines=lines, meta=self.catalog.meta())

    def arch_page(self, arch: str, links: Links) -> str:
        from gpuisa.archs import resolve_arch

        key = resolve_arch(arch).key
        info = next(a for a in self.archs if a["key"] == key)
        groups = self.catalog.arch_instructions(key)
        grouped = []
        for grp, items in groups.items():
            sections: dict[str, list[dict]] = {}
            for it in items:
                sections.setdefault(it["section"] or grp, []).append(it)
            grouped.append({"name": grp, "id": slug(grp), "count": len(items),
                            "sections": [{"name": s, "id": slug(f"{grp}-{s}"), "entries": v} for s, v in sections.items()]})
        others = [a for a in self.archs if a["key"] != key]
        errata = [e for e in self.catalog.errata("*") if e.get("arch") == key]
        return self.render("arch.html", links, title=f"{info['display']} instructions", arch=info, groups=grouped,
                           others=others, errata=errata)

    def instruction(self, doc: dict, links: Links) -> str:
        if doc.get("vendor") == "nvidia":
            return self.ptx(doc, links)
        encodings = []
        for i, enc in enumerate(doc.get("encodings") or []):
            encodings.append({**enc, "diagram": bit_diagram(enc) if enc.get("fields") else None, "primary": i == 0})
        ctx = {
            "title": f"{doc['name']} — {doc.get('arch_display', '')}",
            "doc": doc,
            "encodings": encodings,
            "generations": generation_rows(doc),
            "related": self.related(doc),
            "members": self.members(doc["arch"]) if doc.get("arch") in BY_KEY else set(),
            "paragraphs": paragraphs(doc.get("description") or ""),
            "notes": paragraphs(doc.get("notes") or ""),
            "examples": self.examples(doc.get("examples"), links, doc.get("arch")),
            "targets": self.targets_view(doc.get("targets"), links, doc.get("arch")),
            "equivalents": self.table(doc["equivalents"], links,
                                      prefer=("concept", "level", "ptx", "name", "vendor", "note", "notes", "restrictions"))
            if doc.get("equivalents") else None,
            "errata": doc.get("errata") or [],
        }
        return self.render("instruction.html", links, **ctx)

    def examples(self, value: Any, links: Links, arch: str | None = None) -> list[dict]:
        """Examples as {code, bytes, targets, arch, where, href, extra}, the page's arch first; strings become code."""
        out = []
        items = value if isinstance(value, list) else list(value.values()) if isinstance(value, dict) else []
        for ex in items:
            if isinstance(ex, str):
                out.append({"code": ex, "bytes": "", "targets": "", "arch": "", "where": "", "href": None, "extra": []})
                continue
            if not isinstance(ex, dict):
                continue
            code = next((ex[k] for k in ("asm", "text", "code", "input", "example") if isinstance(ex.get(k), str)), "")
            raw = ex.get("bytes") or ex.get("encoding") or ""
            if isinstance(raw, list):
                raw = " ".join(f"0x{b:02x}" if isinstance(b, int) else str(b) for b in raw)
            prov = next((ex[k] for k in ("provenance", "source") if isinstance(ex.get(k), dict)), ex)
            where = cite({k: prov.get(k) for k in ("file", "line") if prov.get(k)}) if prov.get("file") else ""
            targets = _scalar(ex.get("targets") or ex.get("target") or "")
            shown = {"asm", "text", "code", "input", "example", "bytes", "encoding", "provenance", "file", "line",
                     "targets", "target", "source", "arch", "direction"}
            extra = [(k, _scalar(v)) for k, v in ex.items()
                     if k not in shown and v not in (None, "", []) and not (k == "input" and v == code)]
            out.append({"code": code, "bytes": str(raw), "targets": targets, "arch": str(ex.get("arch") or ""),
                        "where": where, "href": source_href(prov), "extra": extra})
        if arch:
            out.sort(key=lambda e: e["arch"] != arch)  # stable: the page's arch first
        return out

    def targets_view(self, value: Any, links: Links, arch: str | None = None) -> dict | None:
        """Per-target support rows {target, arch, verdict, evidence, detail, where, href}, the page's arch first.

        Records without a verdict fall back to a generic table (`{"table": TableView}`).
        """
        if not value:
            return None
        if isinstance(value, dict):
            items = [{"target": k, **v} if isinstance(v, dict) else {"target": k, "verdict": v} for k, v in value.items()]
        elif isinstance(value, list):
            items = [v for v in value if isinstance(v, dict)]
        else:
            items = []
        if not items or not all("verdict" in i or "status" in i for i in items):
            return {"table": self.table(value, links, prefer=("target", "key", "verdict", "status", "value", "evidence",
                                                               "detail", "tool")), "rows": [], "unknown": []}
        rows = []
        for i in items:
            prov = i.get("example") if isinstance(i.get("example"), dict) else i.get("source") \
                if isinstance(i.get("source"), dict) else i
            verdict = str(i.get("verdict") or i.get("status") or "")
            rows.append({"target": str(i.get("target") or i.get("key") or ""), "arch": str(i.get("arch") or ""),
                         "verdict": verdict, "class": slug(verdict), "evidence": _scalar(i.get("evidence")),
                         "detail": _scalar(i.get("detail") or i.get("message") or ""),
                         "where": cite(prov) if prov.get("file") else "", "href": source_href(prov),
                         "count": i.get("examples") if isinstance(i.get("examples"), int) else None,
                         "tool": _scalar(i.get("tool")), "current": bool(arch) and i.get("arch") == arch})
        rows.sort(key=lambda r: not r["current"])
        unknown = [r for r in rows if r["verdict"] in ("", "unknown") and not r["where"]]
        known = [r for r in rows if r not in unknown]
        return {"table": None, "rows": known, "unknown": unknown}

    def ptx(self, doc: dict, links: Links) -> str:
        forms = doc.get("forms") or []
        structured = bool(forms) and all(isinstance(f, dict) and "form" in f for f in forms)
        ctx = {
            "title": f"{doc['name']} — PTX",
            "doc": doc,
            "forms": ptx_form_rows(forms) if structured else None,
            "forms_table": None if structured or not forms else self.table(forms, links, prefer=("form", "types")),
            "sass": ptx_sass_matrix(forms) if structured else None,
            "paragraphs": paragraphs(doc.get("description") or ""),
            "notes": paragraphs(doc.get("notes") or "") if isinstance(doc.get("notes"), str) else [],
            "isa_notes": [n for key in ("ptx_isa_notes", "target_isa_notes") for n in doc.get(key) or []
                          if isinstance(n, dict) and n.get("text")],
            "examples": self.examples(doc.get("examples"), links),
            "equivalents": self.table(doc.get("equivalents") or doc.get("related_amd"), links,
                                      prefer=("concept", "level", "amd", "name", "arch", "restrictions", "note"))
            if doc.get("equivalents") or doc.get("related_amd") else None,
            "errata": [e for e in doc.get("errata") or [] if isinstance(e, dict)],
            "releases": [r for r in doc.get("releases") or [] if isinstance(r, dict)],
        }
        return self.render("ptx.html", links, **ctx)

    def diff_page(self, result: dict, links: Links) -> str:
        if "name" in result:
            return self.render("diff_one.html", links, title=f"{result['name']}: {result['from']} → {result['to']}",
                               r=result)
        renamed = []
        for r in result["renamed"]:
            hit = self.exists(r["to"]) or self.exists(r["from"])
            renamed.append({**r, "key": hit[0] if hit else r["to"]})
        return self.render("diff.html", links, title=f"{result['from']} → {result['to']}", r=result, renamed=renamed,
                           a=BY_KEY[result["from"]], b=BY_KEY[result["to"]])

    def diff_index(self, links: Links) -> str:
        return self.render("diff_index.html", links, title="Generation diffs", diff_lines=_diff_lines(self.archs))

    def search_page(self, links: Links, q: str = "", arch: str = "", results: list[dict] | None = None,
                    error: str = "") -> str:
        return self.render("search.html", links, title=f"Search: {q}" if q else "Search", q=q, arch=arch,
                           results=results, error=error)

    def error_page(self, links: Links, status: int, message: str, suggestions: list[tuple[str, str]] | None = None) -> str:
        titles = {400: "Bad request", 404: "Not found", 500: "Catalog error"}
        return self.render("error.html", links, title=titles.get(status, "Error"), status=status, message=message,
                           suggestions=suggestions or [])

    def not_found(self, links: Links, exc: NotFoundError, arch: str | None = None) -> str:
        """404 page with the closest names linked (instruction) or the arch list (architecture)."""
        if exc.what == "architecture":
            sugg = [(a["display"], links.arch(a["key"])) for a in self.archs]
        else:
            sugg = []
            for s in exc.suggestions:
                hit = self.exists(s)
                if hit:
                    in_arch = arch if arch and hit[1] == "amd" and hit[0] in self.members(arch) else None
                    sugg.append((hit[0], links.instr(hit[0], in_arch, hit[1])))
        return self.error_page(links, 404, str(exc), sugg)


def _stem(name: str) -> str:
    """'v_sad_u32' -> 'v_sad'; PTX 'mbarrier.arrive' -> 'mbarrier'."""
    parts = re.split(r"[_.]", name.lower())
    return "_".join(parts[:2]) if "_" in name else parts[0]


def _sm_key(target: str) -> tuple[int, str]:
    digits = re.sub(r"\D", "", target)
    return (int(digits) if digits else 0, target)


def ptx_form_rows(forms: list[dict]) -> list[dict]:
    """One row per PTX form: what the manual documents next to what ptxas verified, and whether they agree."""
    rows = []
    for f in forms:
        doc = f.get("documented") if isinstance(f.get("documented"), dict) else None
        ver = f.get("verified") if isinstance(f.get("verified"), dict) else None
        doc_v, doc_sm = (doc.get("ptx_version"), _scalar(doc.get("sm"))) if doc else (None, "")
        ver_v, ver_sm = (ver.get("ptx_version"), _scalar(ver.get("sm"))) if ver else (None, "")
        status = str(ver.get("status") or "") if ver else ""
        disagree = bool(doc and ver and status == "verified" and (doc_v != ver_v or (doc_sm and doc_sm != ver_sm)))
        sass = f.get("sass") if isinstance(f.get("sass"), dict) else {}
        rows.append({
            "form": str(f.get("form", "")), "types": _scalar(f.get("types")), "spaces": _scalar(f.get("state_spaces")),
            "in_manual": f.get("in_manual", True) is not False,
            "doc_version": doc_v or "", "doc_sm": doc_sm, "status": status, "status_class": slug(status or "none"),
            "ver_version": ver_v or "", "ver_sm": ver_sm, "message": str(ver.get("message") or "") if ver else "",
            "feature_version": str(ver.get("feature_version") or "") if ver else "",
            "sass_targets": sorted(sass, key=_sm_key), "disagree": disagree,
            "where": cite(f["source"]) if isinstance(f.get("source"), dict) and f["source"].get("file") else "",
        })
    return rows


def ptx_sass_matrix(forms: list[dict]) -> dict | None:
    """SASS opcodes per form (rows) and sm target (columns), as cuobjdump listed them."""
    targets: set[str] = set()
    rows = []
    for f in forms:
        sass = f.get("sass") if isinstance(f.get("sass"), dict) else {}
        if sass:
            targets.update(sass)
            rows.append((str(f.get("form", "")), {t: _scalar(ops).replace(", ", " ") for t, ops in sass.items()}))
    if not rows:
        return None
    cols = sorted(targets, key=_sm_key)
    return {"targets": cols, "rows": [{"form": form, "cells": [cells.get(t, "") for t in cols]} for form, cells in rows]}


def paragraphs(text: str) -> list[str]:
    return [p.strip() for p in re.split(r"\n\s*\n", text) if p.strip()]


def generation_rows(doc: dict) -> list[dict]:
    """One row per arch: encoding, opcode and a list of what differs from the page's arch."""
    ref = (doc.get("encodings") or [None])[0]
    rows = []
    for g in doc.get("generations") or []:
        changes: list[str] = []
        if g.get("encoding") is None:
            changes.append("no encoding in this manual")
        elif ref is not None:
            if g["encoding"] != ref["encoding"]:
                changes.append(f"format {ref['encoding']} → {g['encoding']}")
            if g.get("opcode") != ref["opcode"]:
                changes.append(f"opcode {ref['opcode']} → {g.get('opcode')}")
        for d in g.get("differs") or []:
            if d.get("field") == "*":
                if d.get("change") and d["change"] not in changes:
                    changes.append(d["change"])
                continue
            frm, to = d.get("from"), d.get("to")
            text = f"{d['field']} {d.get('change', '')}"
            if frm is not None or to is not None:
                text += f" {frm if frm is not None else '—'} → {to if to is not None else '—'}"
            changes.append(text)
        rows.append({"arch": g["arch"], "display": g.get("arch_display") or BY_KEY[g["arch"]].display,
                     "encoding": g.get("encoding"), "opcode": g.get("opcode"), "current": g["arch"] == doc.get("arch"),
                     "same": bool(g.get("same")), "same_layout": bool(g.get("same_layout")), "changes": changes,
                     "other_encodings": g.get("other_encodings") or []})
    return rows


def _diff_lines(archs: list[dict]) -> list[list[tuple[str, str]]]:
    """Consecutive generation pairs along the two family lines (GCN5 -> CDNA, RDNA)."""
    ordered = sorted(archs, key=lambda a: a["order"])
    lines = [[a["key"] for a in ordered if a["family"] in ("GCN5", "CDNA")],
             [a["key"] for a in ordered if a["family"] == "RDNA"]]
    return [list(pairwise(line)) for line in lines if len(line) > 1]


def _bits_word(bits: list[list[int]]) -> str:
    return "bit" if len(bits) == 1 and bits[0][0] == bits[0][1] else "bits"

"""Page rendering shared by the live server and the static export.

Everything here turns the catalog's typed documents (catalog/documents.py) into HTML through Jinja2
templates with autoescape on: vendor text is untrusted and is only ever inserted as escaped text.
Links are produced by a `Links` scheme so one renderer serves absolute URLs (server) and relative
`.html` files (export).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import pairwise
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from markdown_it import MarkdownIt
from markupsafe import Markup

from gpuisa.archs import BY_KEY, TARGET_TO_ARCH, resolve_arch
from gpuisa.catalog.documents import (
    AmdDocument,
    ArchDiff,
    EncodingDoc,
    Equivalent,
    Example,
    InstructionDiff,
    InstructionDocument,
    PtxDocument,
    PtxForm,
    SearchHit,
    TargetSupport,
)
from gpuisa.catalog.query import Catalog
from gpuisa.errors import GpuisaError, NotFoundError

HERE = Path(__file__).resolve().parent
TEMPLATES = HERE / "templates"
STATIC = HERE / "static"

# A name or arch usable as one URL path segment / file name: no slashes, no leading dot.
SAFE_SEGMENT = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.:\-]{0,127}$")
_URL = re.compile(r"^https?://[^\s<>\"']+$")
_SLUG = re.compile(r"[^a-z0-9]+")


ROSETTA_PAGE_ROWS = 150       # rows of one /rosetta page (a row is about 1 KB of HTML for 6 archs)
# for a catalog that does not record its Rosetta state (meta 'verification' -> 'rosetta', crossref.stage.state)
NOT_COMPUTED_NOTE = "cells marked not computed are not computed yet (`gpuisa build --rosetta all` computes them)"


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

    def ptx_index(self) -> str:
        return self.root + ("ptx/index.html" if self.static else "ptx")

    def operand(self, label: str) -> str:
        """LLVM's page of one operand or operand kind (`amdgpu_synid_v`)."""
        return self._page(f"operand/{_seg(label)}")

    def diff_index(self) -> str:
        return self.root + ("diff/index.html" if self.static else "diff")

    def rosetta(self, chapter: str = "", level: str = "", page: int = 1) -> str:
        """The Rosetta overview, or one chapter's rows (filtered by level, one page of ROSETTA_PAGE_ROWS); the export
        has a page per chapter (every row, no level filter)."""
        if self.static:
            return self.root + (f"rosetta/{slug(chapter)}.html" if chapter else "rosetta.html")
        query = urlencode({k: v for k, v in (("chapter", chapter), ("level", level), ("page", page)) if v and v != 1})
        return self.root + "rosetta" + (f"?{query}" if query else "")

    def search(self) -> str:
        return self.root + ("search.html" if self.static else "search")

    def decode(self, target: str = "", hex_bytes: str = "") -> str | None:
        """The decode box, filled in (None in the static export: decoding needs the server)."""
        if self.static:
            return None
        query = urlencode({k: v for k, v in (("target", target), ("hex", hex_bytes)) if v})
        return f"{self.root}decode" + (f"?{query}" if query else "")

    def asset(self, name: str) -> str:
        return f"{self.root}static/{name}"


# ---------------------------------------------------------------------- view models


@dataclass(frozen=True, slots=True)
class EncodingView:
    """One encoding as the page draws it: the facts, the bit diagram, and whether it is the primary one."""

    encoding: str
    width: int | None
    opcode: int | None
    op_field: str | None
    identifier: str | None
    diagram: dict | None
    primary: bool
    errata: tuple = ()                 # the manual's values where LLVM's encodings corrected the layout
    settled: str = ""                  # what settled the layout (shown under the diagram)


@dataclass(frozen=True, slots=True)
class ExampleView:
    code: str
    bytes: str
    targets: str
    arch: str
    where: str
    href: str | None
    extra: list[tuple[str, str]]
    decode_href: str | None = None     # these bytes in the decode box, on the example's first target


def bits_text(bits: Iterable[tuple[int, int]] | Iterable[list[int]]) -> str:
    """'63:61' / '15' / '53,18:16' as the manuals write bit ranges."""
    return ",".join(f"{hi}:{lo}" if hi != lo else f"{hi}" for hi, lo in bits)


def bit_diagram(enc: EncodingDoc, word: int | None = None) -> dict:
    """Rows of 32 bits (MSB first), one cell per field piece with a span equal to its bit count.

    Fixed bits are shown in binary, the opcode in binary inside the opcode field; bits no field
    covers appear as unnamed cells; bits two fields claim go to the first and are listed in
    `overlaps` (the manuals give alternative layouts that way, e.g. VOP3P MFMA fields).
    With `word` (a decoded instruction, bit 0 = bit 0 of its first dword) every field cell shows the
    word's bits and its title the field's value.
    """
    fields = enc.fields
    top = max((hi for f in fields for hi, _ in f.bits), default=-1)
    width = max(int(enc.width or 0), 32 * ((top // 32) + 1) if top >= 0 else 32)
    owner: dict[int, tuple[int, int]] = {}
    overlaps: list[str] = []
    digits: dict[int, str] = {}
    for fi, f in enumerate(fields):
        total = sum(hi - lo + 1 for hi, lo in f.bits)
        value = f.value
        if value is None and f.name == enc.op_field and enc.opcode is not None:
            value = enc.opcode
        text = format(value, f"0{total}b") if value is not None and value < (1 << total) else None
        pos = 0
        for ri, (hi, lo) in enumerate(f.bits):
            for b in range(hi, lo - 1, -1):
                if text is not None:
                    digits[b] = text[pos]
                pos += 1
                if b in owner:
                    other = fields[owner[b][0]].name
                    note = f"{f.name} ({bits_text(f.bits)}) shares bits with {other}"
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
            is_op = f.name == enc.op_field and f.value is None
            kind = "fixed" if f.value is not None else "op" if is_op else "field"
            value = "".join(digits.get(x, "") for x in range(start, end - 1, -1)) or None
            if kind == "field":
                value = None
            title = f"{f.name}: {_bits_word(f.bits)} {bits_text(f.bits)}"
            if word is not None:
                value = "".join(str((word >> x) & 1) for x in range(start, end - 1, -1))
                title += f" = {_field_value(word, f.bits)}"
            if f.spelling and f.spelling != f.name:
                title += f" (the manual spells it {f.spelling})"
            cells.append({"name": f.name, "kind": kind, "value": value, "bits": bits_text([(start, end)]),
                          "span": span, "title": title, "spelling": f.spelling or f.name})
        rows.append({"hi": hi_row, "lo": lo_row, "cells": cells})
    return {"width": width, "rows": rows, "overlaps": overlaps}


_LLVM_FILE = re.compile(r"^llvm-project-(\d+\.\d+\.\d+)/(.+)$")


def source_href(file: str | None, line: int | None = None, url: str | None = None) -> str | None:
    """An upstream link for a cited file when its revision is fixed: LLVM files of a release go to that
    release tag on GitHub; records with an https `url` keep it. Manual files have no pinned upstream."""
    if url and _URL.match(url):
        return url
    m = _LLVM_FILE.match(file or "")
    if not m:
        return None
    anchor = f"#L{int(line)}" if line else ""
    return f"https://github.com/llvm/llvm-project/blob/llvmorg-{m.group(1)}/{quote(m.group(2))}{anchor}"


def cite(file: str | None, line: int | None = None, section: str | None = None) -> str:
    """'file:line (section)' as the pages cite a source."""
    where = file or ""
    if line:
        where += f":{line}"
    if section:
        where += f" ({section})"
    return where


_MARKDOWN = MarkdownIt("commonmark", {"html": False}).enable("table").disable("image")


def markdown(text: str | None) -> Markup:
    """The manuals' Markdown as HTML: code spans, emphasis, lists, tables and fenced code (without the
    fences). Raw HTML in vendor text stays text (html off), link targets pass markdown-it's URL check,
    images are not rendered."""
    return Markup(_MARKDOWN.render(text or ""))


def markdown_inline(text: str | None) -> Markup:
    """One line of Markdown (a summary, a note) without a paragraph around it."""
    return Markup(_MARKDOWN.renderInline(text or ""))


LEVEL_WORDS = {"equivalent": "equivalent", "equivalent with restrictions": "equivalent with restrictions",
               "needs a sequence": "needs a sequence", "none": "no equivalent"}


@dataclass(frozen=True, slots=True)
class EvidenceView:
    arch: str
    display: str
    words: str
    counterexample: dict[str, int] | None
    also: list[tuple[str, str, dict[str, int] | None]]


@dataclass(slots=True)
class EquivalentView:
    """One cross-vendor relation in words: what maps to what, how close, where it was checked, what holds here."""

    concept: str
    level: str
    level_class: str
    ptx: str
    ptx_href: str | None
    amd: str
    amd_href: str | None
    sequence: list[str]
    restrictions: list[str]
    reason: str
    checks: list[EvidenceView] = field(default_factory=list)
    here: str = ""


def _display(arch: str) -> str:
    return BY_KEY[arch].display if arch in BY_KEY else arch


def _here_sentence(page_arch: str, rows: list[Equivalent]) -> str:
    """What the checks say about the page's arch, in words."""
    scopes = [(e, e.on_this_arch) for e in rows if e.on_this_arch is not None]
    if not scopes:
        return ""
    name = _display(page_arch)
    here = [e for e, sc in scopes if sc.status == "checked here"]
    if here:
        return f"On {name} itself: {here[0].evidence.in_words()}."
    same = [e for e, sc in scopes if sc.status == "same pseudocode"]
    if same:
        e = same[0]
        return (f"Holds on {name}: its pseudocode for this instruction is the same as {_display(e.arch)}'s, "
                f"where it is {e.evidence.in_words()}.")
    others = " and ".join(dict.fromkeys(_display(e.arch) for e, _ in scopes))
    return (f"Not claimed for {name}: its pseudocode for this instruction differs from the pseudocode of {others}, "
            "where the check ran.")


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
        self.env.globals.update(bits_text=bits_text, cite=cite, slug=slug, source_href=source_href,
                                safe_segment=safe_segment, verification=catalog.verification())
        self.env.filters.update(markdown=markdown, markdown_inline=markdown_inline)
        self.archs = catalog.archs()
        self.arch_keys = [a["key"] for a in self.archs]
        self.names = [n.lower() for n in catalog.names()]
        self.amd_names = set(self.names)
        self._members: dict[str, set[str]] = {}
        self._mma_rows: list[dict] | None = None
        self._matrix_names: dict[str, list[str]] | None = None
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
        """PTX instruction names, lower-case and sorted."""
        return sorted({n.lower() for n in self.catalog.ptx_names()})

    @lru_cache(maxsize=8192)  # noqa: B019 - one Site per catalog, kept for the server's life
    def exists(self, name: str) -> tuple[str, str] | None:
        """(canonical name, vendor) when the catalog knows `name`, for linking vendor-named things."""
        if not name or len(name) > 128:
            return None
        try:
            key = self.catalog.resolve(name).lower()
        except GpuisaError:
            return None
        return key, "amd" if key in self.amd_names else "nvidia"

    def related(self, doc: AmdDocument) -> list[str]:
        """Instructions sharing the name stem (v_sad_*) in the same arch."""
        members = self.members(doc.arch)
        return [n for n in self._stems.get(_stem(doc.name), []) if n != doc.name and n in members][:24]

    def equivalents(self, equivalents: list[Equivalent], links: Links, page_arch: str | None = None) -> list[EquivalentView]:
        """Mappings grouped by what they claim (same PTX form, AMD side, level and restrictions), with the
        evidence per arch it was checked on, and for an AMD page what holds on its arch."""
        groups: dict[tuple, list[Equivalent]] = {}
        for e in equivalents:
            groups.setdefault((e.concept, e.ptx, e.amd, e.level, tuple(e.restrictions), tuple(e.sequence)), []).append(e)
        out = []
        for rows in groups.values():
            e = rows[0]
            ptx = self.exists(e.ptx)
            amd = self.exists(e.amd) if e.amd else None
            view = EquivalentView(
                concept=e.concept_title, level=LEVEL_WORDS.get(e.level, e.level), level_class=slug(e.level),
                ptx=e.ptx, ptx_href=links.instr(ptx[0], vendor="nvidia") if ptx else None,
                amd=e.amd, amd_href=links.instr(amd[0], page_arch if page_arch and amd[0] in self.members(page_arch)
                                                else None) if amd else None,
                sequence=list(e.sequence), restrictions=list(e.restrictions), reason=e.reason,
                here=_here_sentence(page_arch, rows) if page_arch else "")
            for r in rows:
                also = [(label, ev.in_words(), ev.counterexample) for item in r.also for label, ev in item.items()]
                view.checks.append(EvidenceView(r.arch, _display(r.arch), r.evidence.in_words(),
                                                r.evidence.counterexample, also))
            out.append(view)
        if page_arch:  # what holds here first
            out.sort(key=lambda v: not v.here.startswith(("On", "Holds")))
        return out

    # ------------------------------------------------------------------ pages

    def render(self, template: str, links: Links, **ctx: Any) -> str:
        return self.env.get_template(template).render(links=links, archs=self.archs, **ctx)

    def home(self, links: Links) -> str:
        total = len(self.names)
        categories = self.catalog.ptx_index()
        lines = _diff_lines(self.archs)
        return self.render("home.html", links, title="GPU instruction sets", total=total,
                           ptx_count=len({e.name.lower() for c in categories for e in c.entries}), ptx_categories=categories,
                           diff_lines=lines, meta=self.catalog.meta())

    def arch_page(self, arch: str, links: Links) -> str:
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
        errata = [e for e in self.catalog.errata("*") if e.arch == key]
        return self.render("arch.html", links, title=f"{info['display']} instructions", arch=info, groups=grouped,
                           others=others, errata=errata)

    def instruction(self, doc: InstructionDocument, links: Links) -> str:
        if isinstance(doc, PtxDocument):
            return self.ptx(doc, links)
        encodings = [EncodingView(e.encoding, e.width, e.opcode, e.op_field, e.identifier,
                                  bit_diagram(e) if e.fields else None, i == 0, tuple(e.errata), e.settled)
                     for i, e in enumerate(doc.encodings)]
        ctx = {
            "title": f"{doc.name} — {doc.arch_display}",
            "doc": doc,
            "encodings": encodings,
            "generations": generation_rows(doc),
            "related": self.related(doc),
            "members": self.members(doc.arch),
            "paragraphs": paragraphs(doc.description),
            "notes": paragraphs(doc.notes),
            "examples": amd_examples(doc.examples, doc.arch, links),
            "targets": targets_view(doc.targets, doc.arch),
            "equivalents": self.equivalents(doc.equivalents, links, doc.arch),
            "errata": doc.errata,
            "matrix": self.matrix_section(doc.name, doc.arch),
        }
        return self.render("instruction.html", links, **ctx)

    # ---------------------------------------------------------------- matrix instructions (semantics.matrix, mma_table)
    def matrix_section(self, name: str, arch: str) -> dict | None:
        """The AMD page's matrix section: shape, layouts and the PTX products this instruction computes."""
        view = matrix_view(name, arch)
        if view is not None:
            view["ptx"] = [{"ptx": r["ptx"], "family": r["family"], **c} for r in self.mma_rows()
                           for c in r["counterparts"] if c["arch"] == arch and c["instruction"] == name.lower()]
        return view

    def mma_rows(self, forms: tuple[str, ...] | None = None) -> list[dict]:
        """PTX matrix products and their AMD counterparts per arch (no evidence run: `gpuisa eval --mma-table`
        evaluates them); all PTX matrix forms unless `forms` is given. Computed once per Site."""
        from gpuisa.semantics import matrix, mma_table  # numpy: only for matrix pages

        if forms is None and self._mma_rows is not None:
            return self._mma_rows
        if self._matrix_names is None:
            self._matrix_names = {a: [n for n in self.catalog.instruction_docs(a) if matrix.MATRIX_FAMILY.match(n)]
                                  for a in mma_table.AMD_ARCHS if a in self.arch_keys}
        if forms is None:
            every = []
            for n in mma_table.PTX_MATRIX_INSTRUCTIONS:
                doc = self.catalog.show_ptx(n)
                every += [f.form for f in doc.forms] if doc is not None else []
            self._mma_rows = mma_table.table(every, self._matrix_names)
            return self._mma_rows
        return mma_table.table(list(forms), self._matrix_names)

    def ptx(self, doc: PtxDocument, links: Links) -> str:
        ctx = {
            "title": f"{doc.name} — PTX",
            "doc": doc,
            "forms": ptx_form_rows(doc.forms),
            "sass": ptx_sass_matrix(doc.forms),
            "isa_notes": [n for n in (*doc.ptx_isa_notes, *doc.target_isa_notes) if n.text],
            "examples": [ExampleView(ex, "", "", "", "", None, []) for ex in doc.examples],
            "equivalents": self.equivalents(doc.equivalents, links),
            "errata": doc.errata,
            "releases": doc.releases,
            "mma": (self.mma_rows(tuple(f.form for f in doc.forms))
                    if doc.name in ("mma", "mma.sp", "wmma.mma", "wgmma.mma_async", "wgmma.mma_async.sp") else None),
        }
        return self.render("ptx.html", links, **ctx)

    def diff_page(self, result: InstructionDiff | ArchDiff, links: Links) -> str:
        if isinstance(result, InstructionDiff):
            return self.render("diff_one.html", links, title=f"{result.name}: {result.from_} → {result.to}",
                               r=result)
        renamed = []
        for r in result.renamed:
            hit = self.exists(r.to) or self.exists(r.from_)
            renamed.append({"rename": r, "key": hit[0] if hit else r.to})
        return self.render("diff.html", links, title=f"{result.from_} → {result.to}", r=result, renamed=renamed,
                           a=BY_KEY[result.from_], b=BY_KEY[result.to])

    def ptx_index(self, links: Links) -> str:
        """Every PTX instruction by the manual's chapter (category), in section order, with counts."""
        categories = self.catalog.ptx_index()
        return self.render("ptx_index.html", links, title="PTX instructions", categories=categories,
                           total=len({e.name.lower() for c in categories for e in c.entries}))

    def rosetta_page(self, links: Links, chapter: str = "", level: str = "", page: int = 1) -> str:
        """PTX forms by chapter (rows) x archs (columns), each cell the level badge linking to the mapping. Without a
        filter: the overview (decided per arch and chapter, each chapter linking to its rows); with one: the matching
        rows, ROSETTA_PAGE_ROWS to a page (the whole table is some 1,500 rows by 6 archs: megabytes of HTML)."""
        whole = self.catalog.rosetta()
        levels = ["equivalent", "equivalent with restrictions", "needs a sequence", "none", "undecided",
                  "no semantics", "not computed"]
        table = self.catalog.rosetta(None, chapter, level) if chapter or level else None
        if table is not None and chapter in whole["chapters"]:       # a chapter's own page: not the chapters that
            table = {**table, "rows": [r for r in table["rows"] if r["chapter"] == chapter]}   # contain its name
        pages = 1
        if table is not None and not links.static:
            pages = max(1, -(-len(table["rows"]) // ROSETTA_PAGE_ROWS))
            page = min(max(1, page), pages)
            first = (page - 1) * ROSETTA_PAGE_ROWS
            table = {**table, "total": len(table["rows"]), "first": first + 1,
                     "rows": table["rows"][first:first + ROSETTA_PAGE_ROWS]}
        elif table is not None:
            table = {**table, "total": len(table["rows"]), "first": 1}
        title = f"Rosetta: {chapter}" if chapter and table is not None and table["chapters"] else "Rosetta: PTX to AMD"
        return self.render("rosetta.html", links, title=title, table=table, whole=whole, chapter=chapter,
                           level=level, levels=levels, chapters=whole["chapters"], level_words=LEVEL_WORDS, page=page,
                           pages=pages, rosetta_state=self.catalog.verification().get("rosetta")
                           or {"state": "", "note": NOT_COMPUTED_NOTE})

    def diff_index(self, links: Links) -> str:
        return self.render("diff_index.html", links, title="Generation diffs", diff_lines=_diff_lines(self.archs))

    def search_page(self, links: Links, q: str = "", arch: str = "", results: list[SearchHit] | None = None,
                    error: str = "") -> str:
        return self.render("search.html", links, title=f"Search: {q}" if q else "Search", q=q, arch=arch,
                           results=results, error=error)

    def decode_page(self, links: Links, target: str = "", hex_bytes: str = "", rows: list[dict] | None = None,
                    error: str = "", preparing: bool = False) -> str:
        """The decode box: hex in, one row per instruction out (offset, bytes, LLVM text, catalog page, fields)."""
        return self.render("decode.html", links, title=f"Decode for {target}" if rows else "Decode",
                           targets=sorted(TARGET_TO_ARCH, key=_target_order), target=target, hex=hex_bytes,
                           rows=rows, error=error, preparing=preparing)

    def decoded_rows(self, decoded: list, target: str, links: Links, diagrams: int) -> list[dict]:
        """View rows of decoded instructions; the first `diagrams` valid ones get their encoding's bit diagram
        with the word's fields filled in (the catalog's resolved layout for the target's arch)."""
        arch = TARGET_TO_ARCH[target]
        rows = []
        for d in decoded:
            name = d.name.lower() if d.name else None
            row = {"offset": d.offset, "bytes": d.data.hex(" "), "text": d.text, "valid": d.valid,
                   "reason": d.reason, "name": name, "encoding": d.encoding, "symbol": d.symbol,
                   "href": links.instr(name, arch) if name else None, "diagram": None}
            if name and diagrams > 0:
                diagrams -= 1
                doc = self.catalog.show(d.name, arch)
                enc = next((e for e in doc.encodings if e.encoding == d.encoding and e.fields), None)
                if enc is not None:
                    row["diagram"] = {"encoding": enc.encoding,
                                      "diagram": bit_diagram(enc, int.from_bytes(d.data, "little"))}
            rows.append(row)
        return rows

    def operand_page(self, page: dict, links: Links) -> str:
        """One operand or operand-kind page of LLVM's syntax docs (what an operand accepts, its size, its forms)."""
        return self.render("operand.html", links, title=page["name"], page=page)

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


def matrix_view(name: str, arch: str) -> dict | None:
    """Shape, types and lane layouts of an MFMA/WMMA instruction (semantics.matrix), None for others."""
    from gpuisa.semantics import matrix  # numpy and ml_dtypes load only when a matrix page is drawn

    if not matrix.MATRIX_FAMILY.match(name):
        return None
    return matrix.page_view(name, arch)


def amd_examples(examples: list[Example], arch: str, links: Links | None = None) -> list[ExampleView]:
    """LLVM MC test examples with their file:line and upstream link, the page's arch first."""
    out = [ExampleView(ex.asm, ex.bytes, ", ".join(ex.targets), ex.arch,
                       cite(ex.source.file, ex.source.line) if ex.source.file else "",
                       source_href(ex.source.file, ex.source.line),
                       [("mattr", ex.mattr)] if ex.mattr else [],
                       links.decode(ex.targets[0], ex.bytes) if links and ex.bytes and ex.targets else None)
           for ex in examples]
    out.sort(key=lambda e: e.arch != arch)  # stable: the page's arch first
    return out


def targets_view(targets: dict[str, TargetSupport], arch: str) -> dict | None:
    """Per-target support rows {target, arch, verdict, evidence, detail, where, href}, the page's arch first;
    targets without any evidence are listed apart."""
    if not targets:
        return None
    rows = []
    for target, t in targets.items():
        rows.append({"target": target, "arch": t.arch, "verdict": t.verdict, "class": slug(t.verdict),
                     "evidence": t.evidence, "detail": t.detail or "",
                     "where": cite(t.file, t.line) if t.file else "", "href": source_href(t.file, t.line),
                     "count": t.examples, "tool": t.tool or "", "current": t.arch == arch, "spelling": t.spelling or ""})
    rows.sort(key=lambda r: not r["current"])
    unknown = [r for r in rows if r["verdict"] in ("", "unknown") and not r["where"]]
    known = [r for r in rows if r not in unknown]
    return {"rows": known, "unknown": unknown}


def _stem(name: str) -> str:
    """'v_sad_u32' -> 'v_sad'; PTX 'mbarrier.arrive' -> 'mbarrier'."""
    parts = re.split(r"[_.]", name.lower())
    return "_".join(parts[:2]) if "_" in name else parts[0]


def _sm_key(target: str) -> tuple[int, str]:
    digits = re.sub(r"\D", "", target)
    return (int(digits) if digits else 0, target)


def ptx_form_rows(forms: list[PtxForm]) -> list[dict]:
    """One row per PTX form: what the manual documents next to what ptxas verified, and whether they agree."""
    rows = []
    for f in forms:
        doc, ver = f.documented, f.verified
        doc_v, doc_sm = (doc.ptx_version, ", ".join(doc.sm)) if doc else (None, "")
        ver_v, ver_sm = (ver.ptx_version, ", ".join(ver.sm)) if ver else (None, "")
        status = ver.status if ver else ""
        disagree = bool(doc and ver and status == "verified" and (doc_v != ver_v or (doc_sm and doc_sm != ver_sm)))
        rows.append({
            "form": f.form, "types": ", ".join(f.types), "spaces": ", ".join(f.state_spaces),
            "in_manual": f.in_manual,
            "doc_version": doc_v or "", "doc_sm": doc_sm, "status": status, "status_class": slug(status or "none"),
            "ver_version": ver_v or "", "ver_sm": ver_sm, "message": ver.message if ver else "",
            "feature_version": (ver.feature_version or "") if ver else "",
            "sass_targets": sorted(f.sass, key=_sm_key), "disagree": disagree,
            "where": cite(f.source.file, f.source.line) if f.source.file else "",
        })
    return rows


def ptx_sass_matrix(forms: list[PtxForm]) -> dict | None:
    """SASS opcodes per form (rows) and sm target (columns), as cuobjdump listed them."""
    targets: set[str] = set()
    rows = []
    for f in forms:
        if f.sass:
            targets.update(f.sass)
            rows.append((f.form, {t: " ".join(ops) for t, ops in f.sass.items()}))
    if not rows:
        return None
    cols = sorted(targets, key=_sm_key)
    return {"targets": cols, "rows": [{"form": form, "cells": [cells.get(t, "") for t in cols]} for form, cells in rows]}


def paragraphs(text: str) -> list[str]:
    return [p.strip() for p in re.split(r"\n\s*\n", text) if p.strip()]


def generation_rows(doc: AmdDocument) -> list[dict]:
    """One row per arch: encoding, opcode and a list of what differs from the page's arch."""
    ref = doc.encodings[0] if doc.encodings else None
    rows = []
    for g in doc.generations:
        changes: list[str] = []
        if g.encoding is None:
            changes.append("no encoding in this manual")
        elif ref is not None:
            if g.encoding != ref.encoding:
                changes.append(f"format {ref.encoding} → {g.encoding}")
            if g.opcode != ref.opcode:
                changes.append(f"opcode {ref.opcode} → {g.opcode}")
        for d in g.differs:
            if d.field == "*":
                if d.change and d.change not in changes:
                    changes.append(d.change)
                continue
            text = f"{d.field} {d.change}"
            if d.from_ is not None or d.to is not None:
                text += f" {d.from_ if d.from_ is not None else '—'} → {d.to if d.to is not None else '—'}"
            changes.append(text)
        rows.append({"arch": g.arch, "display": g.arch_display, "encoding": g.encoding, "opcode": g.opcode,
                     "current": g.arch == doc.arch, "same": g.same, "same_layout": g.same_layout,
                     "changes": changes, "other_encodings": g.other_encodings})
    return rows


def _diff_lines(archs: list[dict]) -> list[list[tuple[str, str]]]:
    """Consecutive generation pairs along the two family lines (GCN5 -> CDNA, RDNA)."""
    ordered = sorted(archs, key=lambda a: a["order"])
    lines = [[a["key"] for a in ordered if a["family"] in ("GCN5", "CDNA")],
             [a["key"] for a in ordered if a["family"] == "RDNA"]]
    return [list(pairwise(line)) for line in lines if len(line) > 1]


def _target_order(target: str) -> tuple[int, str]:
    """gfx targets newest arch first, then by name (the decode box's list)."""
    return -BY_KEY[TARGET_TO_ARCH[target]].order, target


def _field_value(word: int, bits: list[list[int]]) -> int:
    """A field's value in a word: its pieces concatenated, the first piece most significant."""
    value = 0
    for hi, lo in bits:
        value = (value << (hi - lo + 1)) | ((word >> lo) & ((1 << (hi - lo + 1)) - 1))
    return value


def _bits_word(bits: list[list[int]]) -> str:
    return "bit" if len(bits) == 1 and bits[0][0] == bits[0][1] else "bits"

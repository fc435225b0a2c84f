"""Pages people would rather read (issue 12), checked on the HTML the server sends: PTX Markdown rendered,
PTX operands with roles, "More in <category>", a PTX index reached from the home page, cross-vendor
equivalents in words (web and CLI), the older manuals' cells split, the summary of the page's own arch,
compression and the API docs. Each fact is first read from its source.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from html.parser import HTMLParser

import pytest

from tests.conftest import CONTENT_REQUEST_SECONDS, SOURCES, manual_line

PTX = SOURCES / "ptx-isa-9.4" / "9-instruction-set"
CLMAD = PTX / "9.7.1.5-integer-arithmetic-instructionsclmad.md"
SAD = PTX / "9.7.1.8-integer-arithmetic-instructionssad.md"


class _Text(HTMLParser):
    """The text a reader sees (no tags, no script), and the hrefs."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.hrefs: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self._skip += 1
        href = dict(attrs).get("href")
        if tag == "a" and href:
            self.hrefs.append(href)

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self._skip -= 1

    def handle_data(self, data):
        if not self._skip:
            self.parts.append(data)


def text_of(html: str) -> str:
    p = _Text()
    p.feed(html)
    return "".join(p.parts)


def hrefs_of(html: str) -> list[str]:
    p = _Text()
    p.feed(html)
    return p.hrefs


def section(html: str, sid: str) -> str:
    found = re.search(rf'<section id="{sid}">(.*?)</section>', html, re.S)
    assert found, f"no section {sid}"
    return found.group(1)


@pytest.fixture(scope="module")
def client(catalog_path):
    from fastapi.testclient import TestClient

    from gpuisa.web.app import create_app

    return TestClient(create_app(catalog_path, request_seconds=CONTENT_REQUEST_SECONDS))


@pytest.mark.parametrize(("url", "source"), [("/ptx/clmad", CLMAD), ("/ptx/sad", SAD)])
def test_ptx_markdown_is_rendered(client, url, source):
    text = source.read_text(encoding="utf-8")
    assert "```ptx" in text and "`c`" in text          # the manual writes fences and code spans
    html = client.get(url).text
    main = text_of(html.split("<main", 1)[1])
    assert "`" not in main and "```" not in main
    semantics = section(html, "semantics")
    assert "<pre><code" in semantics and "```" not in semantics
    assert "<code>c</code>" in section(html, "description")


def test_clmad_operands_with_roles_from_the_manual(client):
    text = CLMAD.read_text(encoding="utf-8")
    assert "clmad.mode.u64 d, a, b, c;" in text
    assert "writes the result into destination register `d`" in text and "d ^= c;" in text
    assert "if ((a & (1 << i)) != 0) {" in text and "tmp ^= b << i;" in text
    operands = section(client.get("/ptx/clmad").text, "operands")
    roles = dict(re.findall(r'data-operand="(\w+)"><dt>.*?<span class="role">(\w+)', operands))
    assert roles == {"d": "Destination", "a": "Source", "b": "Source", "c": "Source"}


def test_more_in_category_and_the_ptx_index(client, catalog):
    # clmad.md front matter: title "9.7.1.5. Integer Arithmetic Instructions: clmad"
    assert 'title: "9.7.1.5. Integer Arithmetic Instructions: clmad"' in CLMAD.read_text(encoding="utf-8")
    related = section(client.get("/ptx/clmad").text, "related")
    assert '<a href="/ptx#integer-arithmetic-instructions">More in Integer Arithmetic Instructions</a>' in related
    index = client.get("/ptx").text
    chapter = re.search(r'<section id="integer-arithmetic-instructions" class="group">(.*?)</section>', index, re.S)
    assert chapter and 'href="/ptx/clmad"' in chapter.group(1) and 'href="/ptx/sad"' in chapter.group(1)
    from gpuisa.web.site import slug

    # every page's "More in <category>" lands on a chapter of the index
    categories = {r[0] for r in catalog.conn.execute("SELECT DISTINCT category FROM ptx_instructions") if r[0]}
    assert categories and all(f'<section id="{slug(c)}" class="group">' in index for c in categories)


def test_a_crawl_from_home_reaches_every_ptx_page(client, catalog):
    from gpuisa.web.site import Links, safe_segment

    # every PTX name usable in a URL (the manual's `@` and `{}` sections are listed without a page)
    want = {Links().instr(n, vendor="nvidia") for n in {x.lower() for x in catalog.ptx_names()} if safe_segment(n)}
    seen: set[str] = set()
    frontier = ["/"]
    for _ in range(2):                      # home -> PTX index -> pages
        nxt = []
        for url in frontier:
            for href in hrefs_of(client.get(url).text):
                path = href.split("#", 1)[0]
                if path.startswith("/ptx") and path not in seen:
                    seen.add(path)
                    nxt.append(path)
        frontier = nxt
    assert want <= seen, sorted(want - seen)[:10]
    assert all(client.get(u).status_code == 200 for u in sorted(want)[:40])


def test_equivalents_in_words_for_the_page_arch(client):
    # rdna3:15688 and cdna3:12867 give V_SAD_U32 as one expression; cdna5 (21825-21828 area) accumulates into tmp,
    # and cdna4:13690 is cdna3's line word for word
    assert manual_line("rdna3", 15688).strip() == "D0.u = ABSDIFF(S0.u, S1.u) + S2.u"
    assert manual_line("cdna3", 12867) == manual_line("cdna4", 13690) == "D0.u32 = ABSDIFF(S0.u32, S1.u32) + S2.u32"
    assert "tmp += ABSDIFF(S0[31 : 0].u32, S1[31 : 0].u32);" in (SOURCES / "amd-isa-manuals/cdna5/README.md").read_text(
        encoding="utf-8")
    # sad.u32 has three 32-bit inputs a, b, c (sad.md: "sad.type  d, a, b, c;"): 96 input bits
    cdna5 = text_of(section(client.get("/amd/cdna5/v_sad_u32").text, "related"))
    assert "sad.u32" in cdna5 and "Sum of absolute differences" in cdna5 and "equivalent" in cdna5
    # discovery runs on every arch's own pseudocode: cdna5's differs from cdna3's and is proved itself
    assert "On AMD CDNA 5 itself: proved by z3 for all 2^96 inputs" in cdna5
    assert "~" not in cdna5 and "kind:" not in cdna5 and "time_s" not in cdna5
    cdna4 = text_of(section(client.get("/amd/cdna4/v_sad_u32").text, "related"))
    assert "On AMD CDNA 4 itself: proved by z3 for all 2^96 inputs" in cdna4
    rdna3 = text_of(section(client.get("/amd/rdna3/v_sad_u32").text, "related"))
    assert "On AMD RDNA 3 itself: proved by z3 for all 2^96 inputs" in rdna3


def test_cli_prints_equivalents_as_a_table(catalog_path):
    out = subprocess.run([sys.executable, "-m", "gpuisa", "show", "v_sad_u32", "--arch", "cdna5", "--catalog",
                          str(catalog_path)], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "COLUMNS": "200"})
    assert out.returncode == 0, out.stderr
    eq = out.stdout.split("Cross-vendor equivalents", 1)[1].split("Sources", 1)[0]
    assert "sad.u32" in eq and "proved by z3 for all 2^96" in eq and "not claimed" in eq
    assert '"key"' not in eq and "{" not in eq


def test_older_manual_cell_split_into_description_and_semantics(client, catalog):
    cell = manual_line("vega", 3350)
    assert "V_SAD_U32" in cell and "// UNSIGNED comparison D.u = ABSDIFF(S0.u, S1.u) + S2.u. Dword SAD" in cell
    doc = catalog.show("v_sad_u32", "vega")
    assert doc.description == "Dword SAD with accumulation."
    assert doc.semantics.splitlines() == ["ABSDIFF(x, y) := (x > y ? x - y : y - x) // UNSIGNED comparison",
                                          "D.u = ABSDIFF(S0.u, S1.u) + S2.u."]
    assert doc.summary == "Dword SAD with accumulation."        # vega's own words, not cdna5's
    html = client.get("/amd/vega/v_sad_u32").text
    assert text_of(section(html, "description")).count("ABSDIFF") == 0
    assert "D.u = ABSDIFF(S0.u, S1.u) + S2.u." in section(html, "semantics")


def test_nothing_of_a_cell_is_lost_in_the_split(catalog):
    from gpuisa.catalog.table_cells import split_cell

    rows = catalog.conn.execute("SELECT description FROM instr_arch WHERE style='table' AND description != ''"
                                " AND description = semantics").fetchall()
    assert len(rows) > 1000
    for (cell,) in rows:
        prose, code = split_cell(cell)
        assert sorted("".join(cell.split())) == sorted("".join((prose + code).split())), cell


def test_summary_comes_from_the_page_arch(catalog):
    # cdna5:21870 describes V_SAD_U32 in its own words; vega has only "Dword SAD with accumulation."
    assert manual_line("cdna5", 21870).startswith("Calculate the absolute difference of two unsigned 32-bit")
    assert catalog.show("v_sad_u32", "cdna5").summary.startswith("Calculate the absolute difference")
    assert catalog.show("v_sad_u32", "rdna1").summary == "Dword SAD with accumulation."


def test_home_shows_both_vendors_every_arch_and_a_clean_title(client, catalog):
    html = client.get("/").text
    assert "<title>GPU instruction sets · gpuisa</title>" in html
    for a in catalog.archs():
        assert f'href="/arch/{a["key"]}"' in html
    assert 'href="/ptx"' in html and "NVIDIA PTX" in html


@pytest.mark.parametrize("url", ["/amd/cdna5/v_sad_u32", "/ptx/clmad", "/api/instruction/v_sad_u32", "/api/search?q=sad"])
def test_responses_are_compressed_when_asked(client, url):
    zipped = client.get(url, headers={"accept-encoding": "gzip"})
    assert zipped.status_code == 200 and zipped.headers["content-encoding"] == "gzip"
    plain = client.get(url, headers={"accept-encoding": "identity"})
    assert "content-encoding" not in plain.headers and plain.content == zipped.content   # httpx decodes gzip


def test_api_docs_page_and_schema(client):
    docs = client.get("/docs")
    assert docs.status_code == 200
    assert not re.search(r"https?://", docs.text), "the /docs page names an external URL"
    for src in re.findall(r'(?:src|href)="(/[^"]+)"', docs.text):
        assert client.get(src).status_code == 200, src
    schema = client.get("/openapi.json").json()
    for path, ops in schema["paths"].items():
        responses = ops["get"]["responses"]
        assert "422" not in responses, path
        assert "400" in responses or not ops["get"].get("parameters"), path
    ok = schema["paths"]["/api/instruction/{name}"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    refs = re.findall(r"#/components/schemas/(\w+)", str(ok))
    assert {"AmdDocument", "PtxDocument"} <= set(refs)
    assert client.get("/api/search", params={"q": ""}).status_code == 400


def test_vendor_markdown_stays_inert():
    from gpuisa.web.site import markdown, markdown_inline

    hostile = ('Adds `a` <script>alert(1)</script> "><img src=x onerror=alert(1)> [x](javascript:alert(1)) '
               "![i](https://example.com/i.png)\n\n```ptx\nd = a;\n```")
    html = str(markdown(hostile))
    assert "<script" not in html and "<img" not in html and 'href="javascript' not in html
    assert "&lt;script&gt;" in html and "<code>a</code>" in html and "<pre><code" in html and "```" not in html
    assert "<script" not in str(markdown_inline("<script>x</script> `b`"))


def test_a_counterexample_is_a_small_table_that_breaks_the_restriction(client):
    # bfe.md:29 "Source `b` gives the bit field starting bit position, and source `c` gives the bit field length"
    bfe = (PTX / "9.7.1.20-integer-arithmetic-instructionsbfe.md").read_text(encoding="utf-8")
    assert "Source `b` gives the bit field starting bit position, and source `c` gives the bit field length" in bfe
    html = client.get("/amd/rdna3/v_bfe_u32").text
    item = re.search(r'<li class="equiv" data-ptx="bfe.u32">(.*?)</li>\s*</ul>\s*</li>', html, re.S)
    assert item, "no bfe.u32 item on the v_bfe_u32 page"
    # discovery states the range it proved: pos (b) and len (c) below 32
    assert "b &lt; 32 and c &lt; 32" in item.group(1) or "b < 32 and c < 32" in text_of(item.group(1))
    table = re.search(r'<table class="data cex"><thead><tr>(.*?)</tr></thead>\s*<tbody><tr>(.*?)</tr>', item.group(1), re.S)
    assert table, "the counterexample without the restriction is not shown as a table"
    names = re.findall(r"<th>(\w+)</th>", table.group(1))
    values = [int(v, 16) for v in re.findall(r"<code>(0x[0-9A-F]+)</code>", table.group(2))]
    cex = dict(zip(names, values, strict=True))
    assert set(cex) == {"a", "b", "c"}
    assert cex["b"] >= 32 or cex["c"] >= 32     # it lies outside "pos and len < 32", as it must

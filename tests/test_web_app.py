"""The web reference over the real catalog, through the ASGI app (no browser): pages, API, errors.

Facts asserted come from the AMD manuals (each with the manual line that states it); the API is
checked against the `Catalog` documents it must return unchanged (the `gpuisa show --json` contract).
"""

from __future__ import annotations

import re
import sqlite3
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.conftest import CONTENT_REQUEST_SECONDS, SOURCES, manual_line

# Starlette's TestClient warns that it will move from httpx to httpx2; irrelevant to these checks.
pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx`")


class Elements(HTMLParser):
    """Collects start tags with their attributes and the text inside each (enough for these checks)."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, {k: v or "" for k, v in attrs}))


def elements(html: str) -> list[tuple[str, dict[str, str]]]:
    p = Elements()
    p.feed(html)
    return p.tags


def bit_cells(html: str, encoding: str) -> list[dict[str, str]]:
    """The cells of the first bit diagram for `encoding`, in document order (MSB first)."""
    tags = elements(html)
    start = next(i for i, (t, a) in enumerate(tags) if t == "figure" and a.get("data-encoding") == encoding)
    out = []
    for t, a in tags[start + 1:]:
        if t == "figure":
            break
        if "bitcell" in a.get("class", "").split():
            out.append(a)
    return out


@pytest.fixture(scope="module")
def app(catalog_path: Path):
    from gpuisa.web.app import create_app

    # these tests are about what the pages hold; the request time budget has its own tests (a loaded CI machine
    # must not turn a slow render into a 503 here)
    return create_app(catalog_path, request_seconds=CONTENT_REQUEST_SECONDS)


@pytest.fixture(scope="module")
def client(app):
    from fastapi.testclient import TestClient

    return TestClient(app)


# ---------------------------------------------------------------------- instruction pages

CDNA5_VOP3 = [("NEG", "63:61"), ("OMOD", "60:59"), ("SRC2", "58:50"), ("SRC1", "49:41"), ("SRC0", "40:32"),
              ("ENCODING", "31:26"), ("OP", "25:16"), ("CLAMP", "15"), ("OPSEL", "14:11"), ("ABS", "10:8"),
              ("VDST", "7:0")]


def test_v_sad_u32_cdna5_page_facts(client):
    # cdna5:21868 "V_SAD_U32 549" heading; cdna5:6403 "ENCODING | [31:26] | 'b110101" (Table 91)
    assert "V\\_SAD\\_U32 549" in manual_line("cdna5", 21868)
    assert "'b110101" in manual_line("cdna5", 6403)
    assert "| NEG        | [63:61]" in manual_line("cdna5", 6408)
    assert "| VDST       | [7:0]" in manual_line("cdna5", 6395)
    r = client.get("/amd/cdna5/v_sad_u32")
    assert r.status_code == 200
    html = r.text
    facts = {a["data-fact"]: a for t, a in elements(html) if "data-fact" in a}
    assert set(facts) == {"format", "width", "opcode", "identifier"}
    assert re.search(r'data-fact="format">VOP3<', html)
    assert re.search(r'data-fact="width">64 bits<', html)
    assert re.search(r'data-fact="opcode">549 ', html)
    assert "<code>0xD6250000</code>" in html
    cells = bit_cells(html, "VOP3")
    assert [(c["data-field"], c["data-bits"]) for c in cells] == CDNA5_VOP3
    # drawn to scale: each cell spans as many grid columns as it has bits
    for c in cells:
        hi, _, lo = c["data-bits"].partition(":")
        width = int(hi) - int(lo or hi) + 1
        assert f"span-{width}" in c["class"].split()
    # the fixed ENCODING bits and the opcode shown in binary inside their fields
    assert re.search(r'data-field="ENCODING"[^>]*>\s*<span class="fname">ENCODING</span>\s*'
                     r'<span class="fval">110101</span>', html)
    assert re.search(r'data-field="OP"[^>]*>\s*<span class="fname">OP</span>\s*<span class="fval">'
                     + format(549, "010b") + "</span>", html)


def test_v_sad_u32_sections_and_sources(client):
    html = client.get("/amd/v_sad_u32").text
    for section in ("summary", "encoding", "generations", "operands", "targets", "description", "semantics",
                    "related", "sources"):
        assert f'id="{section}"' in html, section
    assert "Calculate the absolute difference of two unsigned 32-bit integer inputs" in html
    # pseudocode in <pre>, escaped: cdna5:21876 "x > y ? x - y : y - x);"
    assert "x > y ? x - y : y - x);" in manual_line("cdna5", 21876)
    assert "x &gt; y ? x - y : y - x);" in html
    assert "amd-isa-manuals/cdna5/README.md:21868" in html
    assert "amd-isa-manuals/cdna5/README.md:6393" in html
    # related instructions of the same family, linked within the arch
    assert 'href="/amd/cdna5/v_sad_u16"' in html


@pytest.mark.parametrize(("arch", "opcode", "line", "fragment"), [
    ("vega", 476, None, None),
    ("rdna2", 349, 5503, "| 349      | V_SAD_U32"),
    ("rdna3", 549, 5421, "| 549      | V_SAD_U32"),
    ("cdna4", 476, 22792, "| 476      | V_SAD_U32"),
])
def test_v_sad_u32_generations_table_and_links(client, arch, opcode, line, fragment):
    if line:
        assert fragment in manual_line(arch, line)
    html = client.get("/amd/cdna5/v_sad_u32").text
    row = re.search(rf'<tr data-arch="{re.escape(arch)}">(.*?)</tr>', html, re.S)
    assert row, arch
    assert f'href="/amd/{arch}/v_sad_u32"' in row.group(1)
    assert f"<td>{opcode}</td>" in row.group(1)
    page = client.get(f"/amd/{arch}/v_sad_u32")
    assert page.status_code == 200
    assert re.search(rf'data-fact="opcode">{opcode} ', page.text)
    assert f'data-arch="{arch}" class="current"' in page.text


def test_generation_differences_are_named(client):
    # vega:5037 "Must be: 110100" vs cdna5 'b110101: the ENCODING field's fixed value differs
    assert "Must be: 110100" in manual_line("vega", 5037)
    html = client.get("/amd/cdna5/v_sad_u32").text
    row = re.search(r'<tr data-arch="vega">(.*?)</tr>', html, re.S).group(1)
    assert "ENCODING fixed value 110101 → 110100" in row
    assert "opcode 549 → 476" in row
    rdna4 = re.search(r'<tr data-arch="rdna4">(.*?)</tr>', html, re.S).group(1)
    assert ">same<" in rdna4


def test_v_lshl_add_u64_page(client):
    assert "V\\_LSHL\\_ADD\\_U64 594" in manual_line("cdna5", 22486)
    assert "V\\_LSHL\\_ADD\\_U64 520" in manual_line("cdna4", 14401)
    html = client.get("/amd/v_lshl_add_u64").text
    assert re.search(r'data-fact="opcode">594 ', html)
    assert "<code>0xD6520000</code>" in html
    selector = re.search(r'<nav class="archsel"[^>]*>(.*?)</nav>', html, re.S).group(1)
    assert re.findall(r'data-arch="([^"]+)"', selector) == ["cdna5", "cdna4", "cdna3"]
    assert "unsupported shift counts as a shift of zero" in manual_line("cdna5", 22500)
    assert "unsupported shift counts as a shift of zero" in html
    cdna4 = client.get("/amd/cdna4/v_lshl_add_u64").text
    assert re.search(r'data-fact="opcode">520 ', cdna4)
    assert "D0.u64 = (S0.u64 << S1.u32[2 : 0].u32) + S2.u64" in manual_line("cdna4", 14407)
    assert "D0.u64 = (S0.u64 &lt;&lt; S1.u32[2 : 0].u32) + S2.u64" in cdna4


def llvm_line(rel: str, line: int) -> str:
    with open(SOURCES / rel, encoding="utf-8") as fh:
        return next(text for i, text in enumerate(fh, 1) if i == line)


def test_examples_and_target_support_cite_llvm_lines(client, catalog):
    """Examples and per-target verdicts on the page point at LLVM MC test lines that say so."""
    # gfx11_unsupported.s:1518 checks "instruction not supported on this GPU (gfx1100): v_lshl_add_u64"
    # for the line above it (RUN: -mcpu=gfx1100); gfx1250_asm_vop3-fake16.s:107 checks its encoding on GFX1250.
    assert "not supported on this GPU (gfx1100): v_lshl_add_u64" in llvm_line(
        "llvm-project-23.1.1/llvm/test/MC/AMDGPU/gfx11_unsupported.s", 1518)
    assert "GFX1250: v_lshl_add_u64" in llvm_line("llvm-project-23.1.1/llvm/test/MC/AMDGPU/gfx1250_asm_vop3-fake16.s", 107)
    if not catalog.show("v_lshl_add_u64").targets:
        pytest.skip("this catalog carries no LLVM evidence (targets)")
    html = client.get("/amd/cdna5/v_lshl_add_u64").text
    targets = re.search(r'<section id="targets">(.*?)</section>', html, re.S).group(1)
    rows = dict(re.findall(r'<tr data-target="(gfx\d+\w*)"[^>]*>(.*?)</tr>', targets, re.S))
    assert 'class="verdict supported"' in rows["gfx1250"]
    assert 'class="verdict not-supported"' in rows["gfx1100"]
    assert next(iter(rows)) in ("gfx1250", "gfx1251")  # the page's own arch first
    # every cited LLVM line exists and names the instruction; links go to the release tag upstream
    cited = re.findall(r'href="https://github.com/llvm/llvm-project/blob/llvmorg-23.1.1/([^"#]+)#L(\d+)"', html)
    assert cited
    for rel, line in cited:  # a check line names its input, or sits next to it ([[@LINE+2]] / [[@LINE-1]])
        near = " ".join(llvm_line(f"llvm-project-23.1.1/{rel}", n) for n in range(int(line) - 2, int(line) + 3))
        assert "v_lshl_add_u64" in near.lower(), (rel, line)
    examples = re.search(r'<section id="examples">(.*?)</section>', html, re.S).group(1)
    assert "v_lshl_add_u64 v[2:3]" in examples


def test_instruction_absent_from_an_arch_is_404_with_the_archs_that_have_it(client):
    r = client.get("/amd/rdna4/v_lshl_add_u64")
    assert r.status_code == 404
    assert "not in the AMD RDNA 4 manual" in r.text
    assert 'href="/amd/cdna4/v_lshl_add_u64"' in r.text


def test_canonical_redirects(client):
    r = client.get("/amd/V_SAD_U32_e64", follow_redirects=False)
    assert (r.status_code, r.headers["location"]) == (301, "/amd/v_sad_u32")
    r = client.get("/amd/gfx1100/v_sad_u32", follow_redirects=False)  # gfx1100 is RDNA 3 (AMDGPUUsage)
    assert (r.status_code, r.headers["location"]) == (301, "/amd/rdna3/v_sad_u32")
    r = client.get("/arch/gfx950", follow_redirects=False)
    assert r.headers["location"] == "/arch/cdna4"


def test_home_and_arch_pages(client):
    home = client.get("/").text
    for key in ("vega", "vega7", "cdna1", "cdna2", "cdna3", "cdna4", "cdna5", "rdna1", "rdna2", "rdna3", "rdna3.5",
                "rdna4"):
        assert f'href="/arch/{key}"' in home
    assert "<code>gfx1250</code>" in home and "<code>gfx90a</code>" in home
    page = client.get("/arch/cdna5").text
    assert 'id="vector-alu"' in page
    assert 'href="/amd/cdna5/v_sad_u32"' in page
    assert 'href="/amd/cdna5/v_lshl_add_u64"' in page
    assert "v_lshl_add_u64" not in client.get("/arch/rdna4").text


# ---------------------------------------------------------------------- search and diff

def test_search_exact_name_first_and_form_without_javascript(client):
    rows = client.get("/api/search", params={"q": "V_SAD_U32"}).json()
    assert rows[0]["name"] == "v_sad_u32" and rows[0]["match"] == "name"
    page = client.get("/search", params={"q": "v_sad_u32"})
    assert page.status_code == 200
    first = re.search(r'<ol class="results">\s*<li data-match="(\w+)"><a href="([^"]+)"', page.text)
    assert first.groups() == ("name", "/amd/v_sad_u32")
    words = client.get("/search", params={"q": "absolute difference", "arch": "rdna3"}).text
    assert 'href="/amd/rdna3/v_sad_u32"' in words


def test_diff_page_rdna3_to_rdna4(client):
    # rdna3:5873 "Table 104. MUBUF Opcodes" lists 86 BUFFER_ATOMIC_ADD_F32 (rdna3:5912);
    # rdna4:6647 "Table 112. VBUFFER Opcodes" lists it as 86 too (rdna4:6676), and adds
    # 80 BUFFER_ATOMIC_COND_SUB_U32 (rdna4:6673), which rdna3's manual does not have.
    assert "MUBUF Opcodes" in manual_line("rdna3", 5873) and "BUFFER_ATOMIC_ADD_F32" in manual_line("rdna3", 5912)
    assert "VBUFFER Opcodes" in manual_line("rdna4", 6647) and "BUFFER_ATOMIC_ADD_F32" in manual_line("rdna4", 6676)
    assert "BUFFER_ATOMIC_COND_SUB_U32" in manual_line("rdna4", 6673)
    html = client.get("/diff/rdna3/rdna4").text
    added = re.search(r'<section id="added">(.*?)</section>', html, re.S).group(1)
    assert 'href="/amd/rdna4/buffer_atomic_cond_sub_u32"' in added
    reenc = re.search(r'<section id="reencoded">(.*?)</section>', html, re.S).group(1)
    row = re.search(r'href="/amd/rdna4/buffer_atomic_add_f32".*?</tr>', reenc, re.S).group(0)
    assert "MUBUF 86" in row and "VBUFFER 86" in row
    for section in ("added", "removed", "renamed", "reencoded"):
        assert f'id="{section}"' in html
    one = client.get("/diff/cdna4/cdna5", params={"name": "v_lshl_add_u64"}).text
    assert "520" in one and "594" in one


# ---------------------------------------------------------------------- JSON API

def test_api_is_the_catalog_contract(client, catalog):
    api = client.get("/api/instruction/v_sad_u32", params={"arch": "cdna5"}).json()
    assert api == catalog.show("v_sad_u32", "cdna5").as_json()
    assert client.get("/api/instruction/v_lshl_add_u64").json() == catalog.show("v_lshl_add_u64").as_json()
    assert client.get("/api/instruction/clmad").json() == catalog.show("clmad").as_json()
    hits = client.get("/api/search", params={"q": "sad", "limit": 5}).json()
    assert hits == [h.as_json() for h in catalog.search("sad", None, 5)]
    assert client.get("/api/diff/rdna3/rdna4").json() == catalog.diff("rdna3", "rdna4").as_json()
    one = client.get("/api/diff/cdna4/cdna5", params={"name": "v_sad_u32"}).json()
    assert one == catalog.diff("cdna4", "cdna5", "v_sad_u32").as_json()
    arch = client.get("/api/arch/gfx1250").json()
    assert arch["key"] == "cdna5" and arch["groups"] == catalog.arch_instructions("cdna5")
    assert client.get("/api/archs").json() == catalog.archs()


def test_openapi_document_lists_the_api(client):
    doc = client.get("/openapi.json").json()
    assert {"/api/instruction/{name}", "/api/search", "/api/arch/{arch}", "/api/diff/{a}/{b}"} <= set(doc["paths"])
    params = {p["name"] for p in doc["paths"]["/api/search"]["get"]["parameters"]}
    assert params == {"q", "arch", "limit"}


@pytest.mark.parametrize(("url", "status", "fragment"), [
    ("/api/search?q=sad&limit=abc", 400, "limit"),
    ("/api/search?q=sad&limit=0", 400, "limit"),
    ("/api/search?q=sad&limit=501", 400, "limit"),
    ("/api/search?q=sad&arch=gfx9999", 400, "unknown architecture"),
    ("/api/search", 400, "q"),
    ("/api/instruction/v_sad_u32?arch=nosuch", 400, "unknown architecture"),
    ("/api/instruction/v_sad_u33", 404, "v_sad_u32"),
    ("/api/instruction/v_lshl_add_u64?arch=rdna4", 404, "not in the rdna4 manual"),
    ("/api/diff/rdna3/nosuch", 404, "unknown architecture"),
    ("/api/nothing", 404, "no such page"),
])
def test_api_errors(client, url, status, fragment):
    r = client.get(url)
    assert r.status_code == status
    body = r.json()
    assert body["status"] == status and fragment in body["error"]


def test_unknown_instruction_page_suggests_closest_names(client):
    r = client.get("/amd/v_sad_u33")
    assert r.status_code == 404
    assert "unknown instruction" in r.text
    assert 'href="/amd/v_sad_u32"' in r.text
    assert client.get("/amd/cdna5/v_sad_u33").status_code == 404
    r = client.get("/search", params={"q": "sad", "arch": "rdna9"})
    assert r.status_code == 400 and "unknown architecture" in r.text


# ---------------------------------------------------------------------- safety and serving

TRAVERSALS = [
    "/static/../../../../etc/passwd",
    "/static/..%2F..%2F..%2F..%2Fetc%2Fpasswd",
    "/static/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
    "/static/..%5c..%5capp.py",
    "/static/app.js%00.py",
    "/static/site.py",
    "/amd/..%2F..%2F..%2Fetc%2Fpasswd",
    "/amd/cdna5/..%2F..%2Fetc%2Fpasswd",
    "/arch/..%2F..%2Fpyproject.toml",
    "/api/instruction/..%2F..%2F..%2Fetc%2Fpasswd",
    "/api/instruction/%2e%2e",
    "/api/arch/..",
    "/ptx/..%2F..%2Fetc%2Fpasswd",
    "/diff/..%2F../etc",
]


@pytest.fixture(scope="module")
def live(catalog_path: Path):
    from tests.browser.webfixtures import live_server

    with live_server(catalog_path) as url:
        yield url


@pytest.mark.parametrize("path", TRAVERSALS)
def test_no_path_traversal(live, path):
    """Raw requests (no client-side dot-segment normalisation) never reach a file outside the app."""
    import http.client
    from urllib.parse import urlsplit

    host = urlsplit(live)
    conn = http.client.HTTPConnection(host.hostname, host.port, timeout=10)
    conn.request("GET", path)
    r = conn.getresponse()
    body = r.read().decode("utf-8", "replace")
    conn.close()
    assert r.status in (400, 404), (path, r.status)
    assert "root:" not in body and "[project]" not in body and "import " not in body


def test_catalog_is_read_only_and_pages_are_cached(app, client):
    conn = app.app.state.catalog.conn
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        conn.execute("CREATE TABLE web_probe(x)")
    hits = app.hits
    first = client.get("/amd/cdna3/v_sad_u32")
    second = client.get("/amd/cdna3/v_sad_u32")
    assert first.content == second.content and app.hits == hits + 1
    for header in ("content-security-policy", "x-content-type-options"):
        assert header in second.headers and header in first.headers
    assert "script-src 'self'" in second.headers["content-security-policy"]
    head = client.head("/amd/cdna2/v_sad_u32")
    assert head.status_code == 200 and head.content == b""
    # same headers as the GET (the test client asks for gzip, so both are the compressed length)
    assert head.headers["content-length"] == client.get("/amd/cdna2/v_sad_u32").headers["content-length"]


def test_cache_is_bounded(catalog_path: Path):
    from fastapi.testclient import TestClient

    from gpuisa.web.app import create_app

    small = create_app(catalog_path, cache_size=3)
    c = TestClient(small)
    for arch in ("cdna5", "cdna4", "cdna3", "rdna4", "rdna3"):
        assert c.get(f"/amd/{arch}/v_sad_u32").status_code == 200
    assert len(small.cache) == 3 and small.bytes == sum(len(v[2]) for v in small.cache.values())


def test_every_link_on_a_page_resolves(client):
    """Internal links on the main page kinds lead to pages, not 404s."""
    for url in ("/", "/amd/cdna5/v_sad_u32", "/amd/v_lshl_add_u64", "/diff"):
        html = client.get(url).text
        hrefs = {a["href"].split("#")[0] for t, a in elements(html) if t == "a" and a.get("href", "").startswith("/")}
        for href in sorted(h for h in hrefs if h):
            r = client.get(href)
            if href.startswith("/decode?") and r.status_code == 503:   # a target's first use: tables being built
                assert "Preparing the decoder" in r.text and r.headers["retry-after"]
                continue
            assert r.status_code == 200, (url, href, r.status_code)


def test_a_damaged_catalog_gives_a_clear_500_not_a_traceback(catalog_path: Path, tmp_path: Path):
    import shutil

    from fastapi.testclient import TestClient

    from gpuisa.web.app import create_app

    damaged = tmp_path / "damaged.sqlite"
    shutil.copy(catalog_path, damaged)
    with sqlite3.connect(damaged) as conn:
        conn.execute("DROP TABLE errata")
    c = TestClient(create_app(damaged), raise_server_exceptions=False)
    page = c.get("/amd/v_sad_u32")
    assert page.status_code == 500 and "rebuild it with" in page.text and "Traceback" not in page.text
    api = c.get("/api/instruction/v_sad_u32")
    assert api.status_code == 500 and "gpuisa build" in api.json()["error"]

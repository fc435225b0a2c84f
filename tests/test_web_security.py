"""Vendor text is untrusted: markup in a manual must reach every page as escaped text.

The catalog here is built from a tiny manual written into tmp_path whose description, pseudocode
and notes hold `<script>alert(1)</script>` and `"><img src=x onerror=alert(1)>`. The same checks
run over the static export, whose relative links must all resolve to files.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from tests.browser.webfixtures import EVIL, IMG, SCRIPT, build_fixture_catalog

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx`")

ESCAPED_SCRIPT = "&lt;script&gt;alert(1)&lt;/script&gt;"
ESCAPED_IMG = "&#34;&gt;&lt;img src=x onerror=alert(1)&gt;"


@pytest.fixture(scope="module")
def fixture_catalog(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_fixture_catalog(tmp_path_factory.mktemp("hostile"))


@pytest.fixture(scope="module")
def client(fixture_catalog: Path):
    from fastapi.testclient import TestClient

    from gpuisa.web.app import create_app

    return TestClient(create_app(fixture_catalog))


def assert_inert(html: str) -> None:
    assert SCRIPT not in html
    assert "<img src=x" not in html
    assert "onerror=alert" not in html.replace("onerror=alert(1)&gt;", "")


def test_catalog_holds_the_raw_markup(fixture_catalog: Path):
    from gpuisa.catalog.query import Catalog

    doc = Catalog(fixture_catalog).show(EVIL)
    assert SCRIPT in doc.description and IMG in doc.description
    assert SCRIPT in doc.semantics and SCRIPT in doc.notes
    assert SCRIPT in doc.summary


@pytest.mark.parametrize("url", ["/amd/v_evil_u32", "/amd/vega/v_evil_u32", "/amd/cdna5/v_evil_u32"])
def test_instruction_page_escapes_vendor_text(client, url):
    r = client.get(url)
    assert r.status_code == 200
    assert_inert(r.text)
    description = re.search(r'<section id="description">(.*?)</section>', r.text, re.S).group(1)
    assert ESCAPED_SCRIPT in description and ESCAPED_IMG in description
    semantics = re.search(r'<section id="semantics">(.*?)</section>', r.text, re.S).group(1)
    assert "<pre" in semantics and ESCAPED_SCRIPT in semantics and ESCAPED_IMG in semantics
    assert ESCAPED_SCRIPT in re.search(r'<section id="notes">(.*?)</section>', r.text, re.S).group(1)
    assert ESCAPED_SCRIPT in re.search(r'<p class="summary">(.*?)</p>', r.text, re.S).group(1)


@pytest.mark.parametrize("url", [
    "/", "/arch/cdna5", "/search?q=v_evil", "/search?q=alert", "/diff/vega/cdna5",
    "/search?q=%3Cscript%3Ealert(1)%3C/script%3E", "/search?q=%22%3E%3Cimg%20src=x%20onerror=alert(1)%3E",
    "/nothing/%3Cscript%3Ealert(1)%3C%2Fscript%3E", "/amd/%3Cscript%3E", "/amd/v_evil_u3",
])
def test_other_pages_escape(client, url):
    r = client.get(url)
    assert r.status_code in (200, 400, 404)
    assert_inert(r.text)


def test_api_serves_vendor_text_as_json_data(client):
    r = client.get("/api/instruction/v_evil_u32")
    assert r.headers["content-type"].startswith("application/json")
    assert r.headers["x-content-type-options"] == "nosniff"
    assert r.json()["description"].count(SCRIPT) == 1
    hits = client.get("/api/search", params={"q": "alert"}).json()
    assert [h["name"] for h in hits] == ["v_evil_u32"]


def test_static_export_escapes_and_links_resolve(fixture_catalog: Path, tmp_path: Path):
    from gpuisa.web.export import export_site

    out = tmp_path / "site"
    report = export_site(fixture_catalog, out, jobs=1)
    assert not report.skipped
    pages = sorted(out.rglob("*.html"))
    # index, search, 404, diff index, PTX index, Rosetta, 12 arch pages, 132 diff pages, 2 x (newest + 12 per arch)
    assert len(pages) == 6 + 12 + 132 + 2 * 13
    for page in pages:
        html = page.read_text(encoding="utf-8")
        assert_inert(html)
        for href in re.findall(r'(?:href|src)="([^"]+)"', html):
            if href.startswith(("http://", "https://", "data:", "#")):
                continue
            target = (page.parent / unquote(urlsplit(href).path)).resolve()
            assert target.is_relative_to(out.resolve()) and target.is_file(), (page, href)
    evil = (out / "amd" / "cdna5" / "v_evil_u32.html").read_text(encoding="utf-8")
    assert ESCAPED_SCRIPT in evil and ESCAPED_IMG in evil
    index = (out / "static" / "search-index.js").read_text(encoding="utf-8")
    assert "</script" not in index and "v_evil_u32" in index

"""The Rosetta the build stores: the /rosetta page, /api/rosetta, and every stored mapping's evidence re-run.

The catalog fixture's build computes the hinted forms (`--rosetta hinted`, crossref.stage.MODES), so sad.u32
(V_SAD_U32, proved) is in it on every Rosetta arch; the other cells say how to compute them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpuisa.crossref.discovery import amd_instructions, recheck
from tests.conftest import CONTENT_REQUEST_SECONDS, TEXTS


@pytest.fixture(scope="module")
def client(catalog_path: Path):
    from fastapi.testclient import TestClient

    from gpuisa.web.app import create_app

    return TestClient(create_app(catalog_path, request_seconds=CONTENT_REQUEST_SECONDS))


def _cells(catalog) -> list[dict]:
    return json.loads(catalog.meta()["rosetta"])


def test_api_rosetta_has_sad_proved_on_rdna3(client):
    r = client.get("/api/rosetta", params={"arch": "gfx1100", "chapter": "integer arith"})
    assert r.status_code == 200
    out = r.json()
    assert out["archs"] == ["rdna3"]
    rows = {row["form"]: row for row in out["rows"]}
    cell = rows["sad.u32"]["cells"]["rdna3"]
    assert cell["level"] == "equivalent" and cell["amd"] == "v_sad_u32" and cell["evidence"] == "proved"
    assert {row["chapter"] for row in out["rows"]} == {"Integer Arithmetic Instructions",
                                                      "Extended-Precision Integer Arithmetic Instructions"}
    assert client.get("/api/rosetta", params={"arch": "nope"}).status_code in (400, 404)


def test_rosetta_page_links_badges_and_escapes(client):
    r = client.get("/rosetta", params={"chapter": "Integer Arithmetic Instructions", "level": "equivalent"})
    assert r.status_code == 200
    html = r.text
    assert "<code>sad.u32</code>" in html and 'class="level equivalent"' in html
    assert "/amd/rdna3/v_sad_u32#equivalents" in html
    bad = client.get("/rosetta", params={"chapter": "<script>alert(1)</script>"})
    assert bad.status_code == 200 and "<script>alert(1)" not in bad.text


def test_rosetta_overview_links_chapter_pages(client, catalog):
    from urllib.parse import urlencode

    from gpuisa.web.site import ROSETTA_PAGE_ROWS

    whole = catalog.rosetta()
    overview = client.get("/rosetta").text
    # the default page is the per-chapter overview: a link to each chapter's rows, no row of its own
    assert 'class="data rosetta"' not in overview
    for ch in whole["chapters"]:
        assert f'href="/rosetta?{urlencode({"chapter": ch})}"' in overview
    # a chapter's page holds that chapter only (not the chapters whose names contain it), a page at a time
    fp = client.get("/rosetta", params={"chapter": "Floating-Point Instructions"}).text
    assert "Half Precision Floating-Point Instructions</th>" not in fp and "<code>add.f32</code>" in fp
    cvt = [r for r in whole["rows"] if r["chapter"] == "cvt"]
    last = -(-len(cvt) // ROSETTA_PAGE_ROWS)
    page = client.get("/rosetta", params={"chapter": "cvt", "page": last}).text
    assert page.count("<tr><th scope=\"row\">") == len(cvt) - (last - 1) * ROSETTA_PAGE_ROWS
    assert f"<code>{cvt[-1]['form']}</code>" in page and f"<code>{cvt[0]['form']}</code>" not in page


def test_amd_page_lists_ptx_forms_mapping_to_it(catalog):
    # the reverse direction: the rdna3 V_SAD_U32 page names the PTX form that maps to it there
    eq = catalog.show("v_sad_u32", "rdna3").as_json()["equivalents"]
    assert any(e["ptx"] == "sad.u32" and e["arch"] == "rdna3" and e["evidence"]["kind"] == "proved" for e in eq)


@pytest.mark.slow
def test_every_stored_mapping_rechecks(catalog):
    cells = [c for c in _cells(catalog) if c["evidence"] in ("proved", "tested", "counterexample")]
    assert len(cells) >= 6                                    # premise: the build stored evidence to re-check
    # a discovered sequence's program is stored in its cell (crossref.discovery.sequence_program), so it is re-run too
    assert all(c["program"] for c in cells if c["level"] == "needs a sequence")
    amd: dict[str, dict] = {}
    failures = []
    for i, c in enumerate(cells):
        if c["arch"] not in amd:
            amd[c["arch"]] = {a.name: a for a in amd_instructions(c["arch"], TEXTS)}
        ok, what = recheck(c, TEXTS, amd[c["arch"]], prove=i % 7 == 0, random_patterns=2048)
        if not ok:
            failures.append((c["form"], c["arch"], c["amd"] or c["nearest"], what))
    assert not failures, failures[:10]

"""Search that finds things: exact names and PTX forms (also typed with spaces), hyphenated words, and the
synonym table (catalog/search_terms.py), ranked exact > prefix > concept > text.

The premises come from the sources: each synonym entry's own source line, the PTX manual's syntax lines.
"""

from __future__ import annotations

import pytest

from gpuisa.catalog.search_terms import SYNONYMS, concepts_for, name_variants, squash
from tests.conftest import CONTENT_REQUEST_SECONDS, SOURCES

PTX = SOURCES / "ptx-isa-9.4" / "9-instruction-set"


def line_of(rel: str, line: int) -> str:
    with open(SOURCES / rel, encoding="utf-8") as fh:
        for i, text in enumerate(fh, 1):
            if i == line:
                return text.rstrip("\n")
    raise AssertionError(f"{rel} has no line {line}")


@pytest.mark.parametrize("entry", SYNONYMS, ids=[s.concept for s in SYNONYMS])
def test_every_synonym_cites_a_real_source_line(entry):
    rel, line, text = entry.source
    assert text in line_of(rel, line), (rel, line)
    assert entry.reason and entry.words


def test_normalisation():
    assert squash("Carry-less") == squash("carry less") == squash("carryless") == "carryless"
    assert name_variants("sad u32") == ["sad.u32", "sad_u32"]
    assert name_variants("clmad") == []
    titles = {"carryless-multiply": "Carry-less multiply"}
    assert concepts_for("carry-less multiply", titles) == ["carryless-multiply"]


def _names(hits) -> list[str]:
    return [h.name for h in hits]


@pytest.mark.parametrize("query", ["carry-less", "clmul", "carry less", "carryless"])
def test_carryless_finds_clmad_first(catalog, query):
    # clmad.md:16 "Perform carryless multiply and add operation."
    assert "carryless multiply" in (PTX / "9.7.1.5-integer-arithmetic-instructionsclmad.md").read_text(encoding="utf-8")
    hits = catalog.search(query)
    assert hits and hits[0].name == "clmad", _names(hits)


def test_popcount_finds_popc_and_v_bcnt(catalog):
    # popc.md:16 "Population count."; rdna3 manual V_BCNT_U32_B32: 'Count the number of "1" bits ...'
    assert line_of("ptx-isa-9.4/9-instruction-set/9.7.1.15-integer-arithmetic-instructionspopc.md", 16) == \
        "Population count."
    assert "V\\_BCNT\\_U32\\_B32" in line_of("amd-isa-manuals/rdna3/README.md", 16624)
    names = _names(catalog.search("popcount"))
    assert names[:2] == ["popc", "v_bcnt_u32_b32"], names
    assert all(h.match == "concept" for h in catalog.search("popcount")[:2])


@pytest.mark.parametrize("query", ["sad.u32", "sad u32", "SAD.U32"])
def test_a_ptx_form_finds_its_page(catalog, query):
    # sad.md: "sad.type  d, a, b, c;" with ".type = { .u16, .u32, .u64," so sad.u32 is a form of sad
    text = (PTX / "9.7.1.8-integer-arithmetic-instructionssad.md").read_text(encoding="utf-8")
    assert "sad.type  d, a, b, c;" in text and ".u32" in text
    hits = catalog.search(query)
    assert hits[0].name == "sad" and hits[0].vendor == "nvidia" and hits[0].match == "name", _names(hits)


def test_ranking_exact_then_prefix_then_concept_then_text(catalog):
    order = {"name": 0, "prefix": 1, "concept": 2, "name contains": 3, "text": 4}
    for query in ("v_sad_u32", "sad", "popcount", "absolute difference", "clz"):
        ranks = [order[h.match] for h in catalog.search(query, limit=30)]
        assert ranks == sorted(ranks), (query, ranks)


def test_search_page_from_the_get_form(client_for):
    client = client_for
    for query, first in (("carry-less", "/ptx/clmad"), ("clmul", "/ptx/clmad"), ("sad.u32", "/ptx/sad")):
        html = client.get("/search", params={"q": query}).text
        results = html.split('<ol class="results">', 1)[1]
        assert results.split('href="', 1)[1].startswith(first + '"'), query
    popcount = client.get("/search", params={"q": "popcount"}).text
    assert '/ptx/popc"' in popcount and "/amd/v_bcnt_u32_b32" in popcount


@pytest.fixture(scope="module")
def client_for(catalog_path):
    from fastapi.testclient import TestClient

    from gpuisa.web.app import create_app

    return TestClient(create_app(catalog_path, request_seconds=CONTENT_REQUEST_SECONDS))

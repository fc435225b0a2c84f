"""PTX instructions in the shared catalog: `show`, `search`, suggestions, equivalents. Facts from
ptx-isa-9.4 (cited by file)."""

from __future__ import annotations

import pytest

from gpuisa.errors import NotFoundError
from tests.conftest import SOURCES

CLMAD = SOURCES / "ptx-isa-9.4" / "9-instruction-set" / "9.7.1.5-integer-arithmetic-instructionsclmad.md"


def test_clmad_page_from_the_manual(catalog):
    text = CLMAD.read_text(encoding="utf-8")
    assert "clmad.mode.u64" in text and "PTX ISA version 9.3" in text and "sm_80" in text
    doc = catalog.show("clmad").as_json()
    assert doc["vendor"] == "nvidia" and doc["isa"] == "ptx"
    assert doc["category"] == "Integer Arithmetic Instructions"
    forms = {f["form"]: f for f in doc["forms"] if f["in_manual"]}
    assert set(forms) == {"clmad.lo.u64", "clmad.hi.u64"}
    for f in forms.values():
        assert f["documented"]["ptx_version"] == "9.3"
        assert any(sm.startswith("sm_80") for sm in f["documented"]["sm"])


def test_ptx_form_lookup_and_equivalents(catalog):
    doc = catalog.show("sad.u32").as_json()
    assert doc["name"] == "sad" and doc["form"] == "sad.u32"
    eq = {(e["ptx"], e["arch"]): e for e in doc["equivalents"]}
    assert eq[("sad.u32", "rdna3")]["amd"] == "v_sad_u32" and eq[("sad.u32", "rdna3")]["evidence"]["kind"] == "proved"
    assert eq[("sad.s32", "rdna3")]["level"] == "needs a sequence"


def test_ptx_names_in_search_and_suggestions(catalog):
    first = catalog.search("clmad")[0]
    assert (first.name, first.vendor) == ("clmad", "nvidia")
    assert "clmad" in catalog.suggest("clmadd")


LD = SOURCES / "ptx-isa-9.4" / "9-instruction-set" / "9.7.10.8-data-movement-and-conversion-instructionsld.md"


def test_a_form_outside_the_listed_sample_is_itself(catalog):
    """`show ld.global.u32` once answered with `ld.global.u32.proxy::readonly` (the first listed form it
    prefixes). The Syntax spells ld.global.u32 (`ld{.weak}{.ss}...{.vec}.type`, `.ss` has .global, `.type` .u32),
    so the page is that form, documented by its template and not claimed verified."""
    lines = LD.read_text(encoding="utf-8").splitlines()
    assert lines[20].startswith("ld{.weak}{.ss}{.cop}") and ".global" in lines[34] and ".u32" in lines[45]
    doc = catalog.show("ld.global.u32").as_json()
    assert doc["form"] == "ld.global.u32" and [f["form"] for f in doc["forms"]] == ["ld.global.u32"]
    form = doc["forms"][0]
    assert form["in_manual"] and form["verified"] is None and form["origin"].startswith("syntax")
    assert catalog.show("ld.global.v4.u32").as_json()["form"] == "ld.global.v4.u32"
    with pytest.raises(NotFoundError):
        catalog.resolve_name("ld.global.u33")

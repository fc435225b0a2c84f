"""PTX instructions in the shared catalog: `show`, `search`, suggestions, equivalents. Facts from
ptx-isa-9.4 (cited by file)."""

from __future__ import annotations

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

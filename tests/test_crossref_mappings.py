"""Cross-vendor mappings: every claimed level is backed by evidence from both parsed manuals.

Facts under test: rdna3/README.md:15680 V_SAD_U32 (D0.u = ABSDIFF(S0.u, S1.u) + S2.u, an UNSIGNED
comparison) and ptx 9.7.1.8 sad (d = c + ((a<b) ? b-a : a-b), compared in the form's type).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuisa.crossref import CONCEPTS, LEVELS, MAPPINGS, check_mapping, compute_all_evidence, mappings_for
from gpuisa.crossref.mappings import EQ, SEQ
from tests.conftest import TEXTS

BY_KEY = {m.key: m for m in MAPPINGS}


def test_mapping_table_is_well_formed() -> None:
    assert len(BY_KEY) == len(MAPPINGS)
    for m in MAPPINGS:
        assert m.concept in CONCEPTS and m.level in LEVELS, m.key
        if m.level == SEQ:
            assert m.sequence and m.reason, f"{m.key}: a sequence needs its steps and why"
        if m.check in ("bv", "bv-bits", "float"):
            assert m.ptx_prog and m.amd_prog, m.key
        if m.restrictions:
            assert m.level != EQ, f"{m.key}: restrictions contradict 'equivalent'"


def test_sad_u32_proved_equivalent_on_rdna3() -> None:
    r = check_mapping(BY_KEY["sad.u32~v_sad_u32@rdna3"], TEXTS)
    assert r["level"] == "equivalent"
    assert r["evidence"]["kind"] == "proved" and r["consistent"]
    assert r["evidence"]["time_s"] > 0


def test_sad_s32_has_no_single_amd_equivalent_on_rdna3() -> None:
    r = check_mapping(BY_KEY["sad.s32~seq@rdna3"], TEXTS)
    assert r["level"] == "needs a sequence" and "unsigned" in r["reason"]
    assert r["evidence"]["kind"] == "proved"            # the 4-instruction sequence is exact
    single = r["also"][-1]["single instruction v_sad_u32"]
    assert single["kind"] == "counterexample"
    ce = single["counterexample"]
    # the counterexample really separates them: signed and unsigned order of a, b differ
    s = lambda x: x - (1 << 32) if x >> 31 else x  # noqa: E731
    assert (s(ce["a"]) < s(ce["b"])) != (ce["a"] < ce["b"])


def test_sad_u64_has_no_single_amd_equivalent_on_rdna3() -> None:
    r = check_mapping(BY_KEY["sad.u64~seq@rdna3"], TEXTS)
    assert r["level"] == "needs a sequence" and "64-bit" in r["reason"] and r["sequence"]
    assert r["also"][-1]["single instruction v_sad_u32"]["kind"] == "counterexample"


def test_shift_add_semantics_differ_per_arch() -> None:
    """cdna5 zeroes counts > 4, cdna4 keeps S1[2:0]: each proved only under the 0..4 restriction, and
    each refuted without it by a different counterexample."""
    for arch in ("cdna4", "cdna5"):
        r = check_mapping(BY_KEY[f"shl.b64 + add.u64~v_lshl_add_u64@{arch}"], TEXTS)
        assert r["evidence"]["kind"] == "proved"
        assert r["also"][0]["without restrictions"]["kind"] == "counterexample"


def test_restriction_is_needed_bfe() -> None:
    r = check_mapping(BY_KEY["bfe.u32~v_bfe_u32@rdna3"], TEXTS)
    assert r["evidence"]["kind"] == "proved" and r["restrictions"]
    assert r["also"][0]["without restrictions"]["kind"] == "counterexample"


def test_float_mappings_are_tested_not_proved() -> None:
    r = check_mapping(BY_KEY["add.rn.f32~v_add_f32@rdna3"], TEXTS)
    assert r["evidence"]["kind"] == "tested" and "not proved" in r["evidence"]["detail"]
    assert "NaN" in r["evidence"]["detail"]


def test_mappings_for_page_shape() -> None:
    evidence = compute_all_evidence(TEXTS, keys=[m.key for m in MAPPINGS if m.concept == "sad"])
    rows = mappings_for("v_sad_u32", "amd", evidence)
    assert {r["ptx"] for r in rows} >= {"sad.u32", "sad.u16"}
    for r in rows:
        assert set(r) >= {"concept", "level", "restrictions", "sequence", "evidence"}
        assert set(r["evidence"]) >= {"kind", "detail", "time_s"}
        assert r["evidence"]["kind"] in ("proved", "tested", "curated", "counterexample")
    ptx = mappings_for("sad", "nvidia", evidence)
    assert {r["ptx"] for r in ptx} >= {"sad.u32", "sad.s32", "sad.u64"}
    with pytest.raises(ValueError, match="vendor"):
        mappings_for("sad", "intel", evidence)


@pytest.mark.slow
def test_every_claim_is_backed(tmp_path: Path) -> None:
    cache = tmp_path / "evidence.json"
    data = compute_all_evidence(TEXTS, cache)
    assert data["summary"]["inconsistent"] == 0, [r["key"] for r in data["mappings"] if not r["consistent"]]
    assert data["summary"]["proved"] >= 20
    clm = next(r for r in data["mappings"] if r["ptx"] == "clmad.lo.u64")
    assert clm["evidence"]["kind"] == "proved" and "64 per-bit queries" in clm["evidence"]["detail"]
    again = compute_all_evidence(TEXTS, cache)
    assert again["cached"] and again["summary"] == data["summary"]

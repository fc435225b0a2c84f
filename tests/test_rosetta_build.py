"""The build's Rosetta stage computes no new discovery unless asked (crossref.stage.MODES): a default build shows what
the fingerprint cache holds and says how to compute the rest; what discovery computed (`build --rosetta all`, serve's
background pass) is what the next default build shows.
"""

from __future__ import annotations

from pathlib import Path

from gpuisa.crossref import stage
from gpuisa.crossref.discovery import CHAPTERS, NOT_COMPUTED, PtxFormRef, discover_all
from tests.conftest import TEXTS

INTEGER = CHAPTERS[0]
FORMS = [PtxFormRef("sad.u32", INTEGER), PtxFormRef("add.s32", INTEGER)]


def _cells(eq: stage.Equivalents) -> dict[str, dict]:
    return {c["form"]: c for c in eq.rosetta}


def test_default_build_computes_nothing_new_and_says_how(tmp_path: Path):
    assert INTEGER == "Integer Arithmetic Instructions"     # premise: the manual's chapter the forms are listed in
    eq = stage.compute_equivalents(TEXTS, tmp_path / "crossref-evidence.json", FORMS, archs=("rdna3",))
    cells = _cells(eq)
    assert {c["level"] for c in cells.values()} == {NOT_COMPUTED}
    assert all("`gpuisa build --rosetta all`" in c["detail"] for c in cells.values())
    assert list(tmp_path.iterdir()) == []                   # nothing computed, nothing written
    assert eq.summary["not_computed"] == 2 and eq.summary["hinted_pending"]
    told = stage.state(eq.summary)
    assert told["state"] == "partial" and "2 of 2" in told["note"] and "--rosetta all" in told["note"]
    running = stage.state(eq.summary, running=True)
    assert running["state"] == "pending" and "background" in running["note"]
    under_serve = stage.compute_equivalents(TEXTS, tmp_path / "crossref-evidence.json", FORMS, archs=("rdna3",),
                                            running=True)
    assert all("background" in c["detail"] for c in _cells(under_serve).values())


def test_what_discovery_computed_is_what_a_default_build_shows(tmp_path: Path):
    cache = tmp_path / "crossref-evidence.json"
    # discovery as `build --rosetta all` runs it, for one form on one arch
    found = discover_all(("rdna3",), FORMS[:1], TEXTS, cache.with_name("rosetta-proofs.json"), jobs=1)
    (row,) = found["rdna3"]["rows"]
    assert row["level"] == "equivalent" and row["amd"] == "v_sad_u32"
    cells = _cells(stage.compute_equivalents(TEXTS, cache, FORMS, archs=("rdna3",)))
    assert cells["sad.u32"]["level"] == "equivalent" and cells["sad.u32"]["amd"] == "v_sad_u32"
    assert cells["sad.u32"]["evidence"] == row["evidence"]["kind"] == "proved"
    assert cells["add.s32"]["level"] == NOT_COMPUTED             # not computed yet: still not guessed

"""`gpuisa rosetta`: one row per PTX form with its level, from the catalog's texts."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from gpuisa.cli import app
from gpuisa.errors import GpuisaError


@pytest.mark.slow
def test_rosetta_logic_chapter_cdna3(catalog_path, tmp_path, monkeypatch):
    monkeypatch.setenv("GPUISA_CACHE", str(tmp_path))
    args = ["rosetta", "--arch", "gfx942", "--chapter", "logic", "--catalog", str(catalog_path), "--json"]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["arch"] == "cdna3" and not out["cached"]
    rows = {r["form"]: r for r in out["rows"]}
    # and.b32 is V_AND_B32 (the CDNA3 manual: D0.u32 = (S0.u32 & S1.u32)), proved
    assert rows["and.b32"]["amd"] == "v_and_b32" and rows["and.b32"]["evidence"]["kind"] == "proved"
    assert all(r["chapter"] == "Logic and Shift Instructions" for r in out["rows"])
    assert out["coverage"]["Logic and Shift Instructions"]["total"] == len(rows)
    again = json.loads(CliRunner().invoke(app, args).output)
    assert again["cached"] and again["rows"] == out["rows"]


def test_rosetta_bad_chapter_is_one_error(catalog_path):
    res = CliRunner().invoke(app, ["rosetta", "--arch", "cdna3", "--chapter", "nope", "--catalog", str(catalog_path)])
    # GpuisaError is what cli.main turns into `gpuisa: error: ...` and exit 2
    assert isinstance(res.exception, GpuisaError) and "no Rosetta chapter matches" in str(res.exception)


def test_catalog_and_manual_list_the_same_candidates(catalog):
    """A catalog also lists each AMD doc under its catalog key (LLVM's spelling); the Rosetta's candidates and
    fingerprints must not change with it, or `gpuisa rosetta` and the build overwrite each other's cached rows."""
    from gpuisa.crossref.discovery import amd_instructions
    from tests.conftest import TEXTS

    docs = catalog.instruction_docs("rdna3")
    assert any(d.name.upper() != key.upper() for key, ds in docs.items() for d in ds)   # premise: extra keys
    from_catalog = [(a.name, a.fp) for a in amd_instructions("rdna3", catalog)]
    assert from_catalog == [(a.name, a.fp) for a in amd_instructions("rdna3", TEXTS)]

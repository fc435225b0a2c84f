"""Differential fuzzing against llvm-mc 22 (bounded; the long run is bench/bench_codec.py --fuzz)."""

from __future__ import annotations

import pytest

from gpuisa.verify.llvm_mc import available, find_llvm_mc

pytestmark = [pytest.mark.tools,
              pytest.mark.skipif(not available(), reason="llvm-mc >= 22 not installed (apt-get install llvm-22)")]


@pytest.fixture(scope="module")
def codec_catalog(catalog_path):
    from tests.codec_support import use_catalog

    mp = use_catalog(catalog_path)
    yield catalog_path
    mp.undo()


@pytest.mark.parametrize("target", ["gfx1100", "gfx900"])
def test_fuzz_no_crash_and_classes_saved(codec_catalog, target):
    from gpuisa.codec.fuzz import fuzz

    mc = find_llvm_mc()
    res = fuzz(target, 1500, mc.path, f"llvm-mc {mc.version}", codec_catalog, seed=7)
    assert res.crashes == 0
    assert res.compared >= 1000          # both decoders walked the same stream in step
    assert res.agree > 0
    for key, n in res.classes.items():   # every mismatch class keeps one replayable case
        case = res.cases[key]
        assert n > 0 and case["bytes"]

"""check-llvm: LLVM's MC test corpus decoded and encoded per target and encoding family.

A CI-sized random sample runs by default; the whole corpus for the issue's targets is the slow
test. Floors are the levels reached so far (a regression guard); the report prints what each
family reaches. The expected texts and bytes are LLVM's own check lines, read by sources/llvm_mc.py.
"""

from __future__ import annotations

import pytest

from gpuisa.codec.conformance import DEFAULT_TARGETS, check_target

# Families whose operands the codec covers fully on these targets (decode floor on a sample).
COMMON = ("SOP1", "SOP2", "SOPC", "VOP1", "VOP2", "VOP3", "VOPC", "DS", "FLAT", "GLOBAL", "MUBUF")


@pytest.fixture(scope="module")
def corpus(sources):
    from gpuisa.sources.llvm_mc import read_corpus

    return read_corpus(sources)


@pytest.fixture(scope="module")
def codec_catalog(catalog_path):
    from tests.codec_support import use_catalog

    mp = use_catalog(catalog_path)
    yield catalog_path
    mp.undo()


def _report(rep) -> str:
    lines = [f"{rep.target}: decode {rep.totals('decode').rate:.1%} encode {rep.totals('encode').rate:.1%}"]
    for fam in sorted(rep.decode):
        lines.append(f"  {fam}: decode {rep.decode[fam].ok}/{rep.decode[fam].total}"
                     f" encode {rep.encode[fam].ok}/{rep.encode[fam].total}")
    return "\n".join(lines)


@pytest.mark.parametrize("target", ["gfx1100", "gfx900"])
def test_sample_common_families(corpus, codec_catalog, sources, target):
    rep = check_target(corpus.examples, target, codec_catalog, sample=1500, seed=1, sources=sources)
    print(_report(rep))
    assert rep.totals("decode").total > 1000       # the premise: the sample really holds LLVM examples
    common_ok = sum(rep.decode[f].ok for f in COMMON if f in rep.decode)
    common_all = sum(rep.decode[f].total for f in COMMON if f in rep.decode)
    assert common_all > 500 and common_ok / common_all >= 0.75
    assert rep.totals("encode").rate >= 0.6


# The issue's levels (decode >= 99%, encode >= 98% on the whole corpus), held where a target reached them.
ISSUE_LEVELS = (0.99, 0.98)
AT_ISSUE_LEVELS = ("gfx90a", "gfx942", "gfx950", "gfx1010", "gfx1100", "gfx1200")


@pytest.mark.slow
def test_whole_corpus(corpus, codec_catalog, sources):
    for target in DEFAULT_TARGETS:
        rep = check_target(corpus.examples, target, codec_catalog, sources=sources)
        print(_report(rep))
        if rep.totals("decode").total:
            assert rep.totals("decode").rate >= 0.5, _report(rep)
        if target in AT_ISSUE_LEVELS:
            assert rep.totals("decode").total > 1000 and rep.totals("encode").total > 500   # the premise
            assert rep.totals("decode").rate >= ISSUE_LEVELS[0], _report(rep)
            assert rep.totals("encode").rate >= ISSUE_LEVELS[1], _report(rep)

"""The disassembler's fast path (codec/fastpath.py) prints exactly what the general decoder prints.

LLVM's MC corpus bytes (a sample of two targets by default, every example of one target per
architecture in the slow test) and random words drawn by hypothesis from each target's resolved
encodings go through both, one fast decoder per target keeping its memos across words as `gpuisa
disasm` does: where the fast path prints, its text and size equal the general decoder's; where it
declines, the general decoder prints. The premise: the fast path prints most corpus words.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpuisa.codec.conformance import DEFAULT_TARGETS, wants_true16, wants_wave64
from gpuisa.codec.decoder import _Decoder
from gpuisa.codec.syntax import generation

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def corpus(sources):
    from gpuisa.sources.llvm_mc import read_corpus

    return read_corpus(sources)


class _Pair:
    """A fast decoder and the general one over the same tables."""

    def __init__(self, tables, true16: bool) -> None:
        self.fast = _Decoder(tables, true16=true16)
        self.ref = _Decoder(tables, true16=true16, fast=False)
        self.printed = self.declined = 0

    def check(self, data: bytes) -> None:
        found = self.ref.find(data, 0)
        if found is None or len(data) < found[0].width // 8:
            return
        lay, form, _ = found
        try:
            ref = self.ref.render(lay, form, data, 0)
        except Exception:    # the general decoder rejects the word (_Undecodable or a gap in the tables)
            ref = None
        got = self.fast._fast.render(lay, form, data, 0)
        if got is None:
            self.declined += 1
            return
        self.printed += 1
        assert got == ref, f"{data.hex(' ')}: fast path {got!r}, general decoder {ref!r}"


def _corpus_pairs(examples, target: str, catalog, sample: int | None) -> dict:
    from gpuisa.codec.tables import tables_for

    mine = [ex for ex in examples if target in ex.targets and ex.bytes]
    if sample is not None and len(mine) > sample:
        mine = random.Random(3).sample(mine, sample)
    pairs: dict[tuple[bool, bool], _Pair] = {}
    for ex in mine:
        w64 = wants_wave64(ex, target)
        w64 = (generation(target) < 10) if w64 is None else w64
        t16 = bool(wants_true16(ex, target))
        if (w64, t16) not in pairs:
            pairs[(w64, t16)] = _Pair(tables_for(target, catalog, wave64=w64), t16)
        pairs[(w64, t16)].check(ex.bytes)
    return pairs


def _assert_mostly_fast(pairs: dict, target: str) -> None:
    printed = sum(p.printed for p in pairs.values())
    declined = sum(p.declined for p in pairs.values())
    assert printed > 0.5 * (printed + declined), f"{target}: fast path printed {printed}, declined {declined}"


@pytest.mark.parametrize("target", ["gfx1100", "gfx900"])
def test_corpus_sample_prints_as_the_general_decoder(corpus, catalog_path, target):
    _assert_mostly_fast(_corpus_pairs(corpus.examples, target, catalog_path, 3000), target)


# one target of every architecture (archs.py): the conformance targets and the families they leave out
EVERY_FAMILY = tuple(dict.fromkeys((*DEFAULT_TARGETS, "gfx906", "gfx908", "gfx950", "gfx1150")))


@pytest.mark.slow
@pytest.mark.parametrize("target", EVERY_FAMILY)
def test_whole_corpus_prints_as_the_general_decoder(corpus, catalog_path, target):
    _assert_mostly_fast(_corpus_pairs(corpus.examples, target, catalog_path, None), target)


@pytest.fixture(scope="module")
def random_pairs(catalog_path):
    from gpuisa.codec.tables import tables_for

    return {t: _Pair(tables_for(t, catalog_path), False) for t in ("gfx1100", "gfx900")}


@SETTINGS
@given(target=st.sampled_from(["gfx1100", "gfx900"]), seed=st.integers(0, 2**32 - 1))
def test_random_words_print_as_the_general_decoder(random_pairs, target, seed):
    from gpuisa.codec.fuzz import random_words

    pair = random_pairs[target]
    rng = random.Random(seed)
    for word in random_words(pair.ref.t, 200, rng):
        pair.check(word + rng.randbytes(16))    # room for a DPP/SDWA dword or a literal

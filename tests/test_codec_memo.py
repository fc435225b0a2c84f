"""The codec's memos: a repeated instruction decodes, and a repeated line encodes, as it does alone.

The decoder remembers decodings by their bytes (several sizes may share a first dword) and the
assembler remembers lines by their text. Sequences of LLVM check lines are drawn with repeats, a
VOP3 word with and without a literal dword (one first dword, two sizes), blank lines and an
invalid word between them; each item must come out as its own check line, at its own offset or line.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.codec_support import llvm_check

VOP2 = "AMDGPU/gfx11_asm_vop3_from_vop2.s"
CHECKS = [(VOP2, 171), (VOP2, 186), (VOP2, 192), ("AMDGPU/gfx11_asm_sop1.s", 2033),
          ("AMDGPU/gfx11_asm_sop1.s", 2048), ("AMDGPU/gfx11_asm_vop1.s", 2989)]
JUNK = b"\xff\xff\xff\xff"   # no gfx11 format starts with these bits (tests/test_codec_disasm.py)
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def codec_env(catalog_path):
    from tests.codec_support import use_catalog

    mp = use_catalog(catalog_path)
    yield catalog_path
    mp.undo()


@pytest.fixture(scope="module")
def checks() -> list[tuple[str, bytes]]:
    return [llvm_check(*c) for c in CHECKS]


def test_premise_one_first_dword_two_sizes(checks):
    (plain, a), (with_literal, b) = checks[0], checks[1]
    assert (plain, with_literal) == ("v_add_f32_e64 v5, v1, v2", "v_add_f32_e64 v5, vcc_hi, 0xaf123456")
    assert a[:4] == b[:4] and (len(a), len(b)) == (8, 12)


@SETTINGS
@given(picks=st.lists(st.integers(0, len(CHECKS)), min_size=1, max_size=40))
def test_decoded_sequence_matches_each_check_line(codec_env, checks, picks):
    from gpuisa import decode

    data = b"".join(JUNK if i == len(CHECKS) else checks[i][1] for i in picks)
    out = decode(data, "gfx1100")
    assert len(out) == len(picks)
    pos = 0
    for i, d in zip(picks, out, strict=True):
        if i == len(CHECKS):
            assert (d.valid, d.offset, d.data) == (False, pos, JUNK)
        else:
            assert (d.valid, d.offset, d.data, d.text) == (True, pos, checks[i][1], checks[i][0])
        pos += len(d.data)


@SETTINGS
@given(picks=st.lists(st.integers(0, len(CHECKS)), min_size=1, max_size=40))
def test_encoded_sequence_matches_each_check_line(codec_env, checks, picks):
    from gpuisa import encode

    lines = ["" if i == len(CHECKS) else checks[i][0] for i in picks]   # the extra pick: a blank line
    out = encode("\n".join(lines), "gfx1100")
    assert [(e.line, e.text, e.data) for e in out] == [(n, checks[i][0], checks[i][1])
                                                        for n, i in enumerate(picks, 1) if i < len(CHECKS)]


def test_a_load_scale_word_does_not_stand_for_the_scale_wmma_it_begins(codec_env):
    """gfx1250's VOP3PX2 scale WMMA begins with the load-scale instruction's own VOP3P word: after decoding that word
    alone, the memo must not print the 128-bit instruction's first half as it."""
    from gpuisa import decode

    ld_text, ld = llvm_check("AMDGPU/gfx1250_asm_wmma_w32.s", 988)
    x2_text, x2 = llvm_check("AMDGPU/gfx1250_asm_wmma_w32.s", 1208)
    assert ld_text.startswith("v_wmma_ld_scale_paired_b32") and x2[:8] == ld and len(x2) == 16   # premise
    out = decode(ld + x2 + ld, "gfx1250")
    assert [(d.offset, len(d.data)) for d in out] == [(0, 8), (8, 16), (24, 8)]
    assert out[1].text == x2_text
    assert out[0].name == out[2].name

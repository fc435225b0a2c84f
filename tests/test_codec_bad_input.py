"""Bad input never crashes the codec: random bytes, truncations, garbage assembly (hypothesis)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpuisa.errors import GpuisaError


@pytest.fixture(scope="module")
def coders(catalog_path):
    from gpuisa.codec.decoder import _Decoder
    from gpuisa.codec.encoder import _Encoder
    from gpuisa.codec.tables import tables_for

    out = {}
    for t in ("gfx1100", "gfx900", "gfx1250"):
        tab = tables_for(t, catalog_path)
        out[t] = (_Decoder(tab), _Encoder(tab))
    return out


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(min_size=0, max_size=64), target=st.sampled_from(["gfx1100", "gfx900", "gfx1250"]))
def test_random_bytes_decode_or_invalid_with_offset(coders, data, target):
    dec = coders[target][0]
    pos = 0
    while pos < len(data):
        d = dec.decode(data, pos)
        assert d.offset == pos and d.data == data[pos:pos + len(d.data)] and d.data
        assert d.valid or d.reason
        pos += len(d.data)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(max_size=80), target=st.sampled_from(["gfx1100", "gfx900", "gfx1250"]))
def test_garbage_assembly_is_an_error_with_line_and_column(coders, text, target):
    from gpuisa.codec.encoder import AsmError

    enc = coders[target][1]
    for no, line in enumerate(text.split("\n"), 1):
        try:
            enc.encode_line(line, no)
        except AsmError as exc:
            assert exc.line == no and exc.column >= 1 and "\n" not in exc.message
        except GpuisaError as exc:   # pragma: no cover - any other error must still be one clear line
            raise AssertionError(f"not an AsmError: {exc}") from None


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(mnemonic=st.sampled_from(["v_add_f32", "s_mov_b32", "ds_add_u32", "global_load_b32", "v_sad_u32"]),
       ops=st.lists(st.sampled_from(["v1", "s[0:1]", "-|v2|", "0x123456789", "1.5", "vcc", "off", "[", ")", "neg(",
                                     "offset:99999999", "v[3:1]", "s999", "abs(", ""]), max_size=5))
def test_near_miss_assembly(coders, mnemonic, ops):
    from gpuisa.codec.encoder import AsmError

    enc = coders["gfx1100"][1]
    try:
        enc.encode_line(f"{mnemonic} {', '.join(ops)}", 1)
    except AsmError as exc:
        assert exc.column >= 1

"""Assembler: LLVM CHECK lines assembled from their source lines, errors with line:column and why."""

from __future__ import annotations

import pytest

from tests.codec_support import llvm_check, run_cli


@pytest.fixture(scope="module")
def codec_env(catalog_path):
    from tests.codec_support import use_catalog

    mp = use_catalog(catalog_path)
    yield catalog_path
    mp.undo()


def test_must_show_gfx1100_v_sad_u32(codec_env):
    asm, data = llvm_check("AMDGPU/gfx11_asm_vop3-fake16.s", 5529)
    assert data.hex(" ") == "05 00 25 d6 01 05 0e 00" and asm == "v_sad_u32 v5, v1, v2, s3"
    r = run_cli("asm", "--target", "gfx1100", asm, env_catalog=codec_env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == data.hex(" ")


def test_python_api_roundtrip(codec_env):
    from gpuisa import decode, encode

    asm, data = llvm_check("Disassembler/AMDGPU/gfx1250_dasm_vop3.txt", 129)
    [e] = encode(asm, "gfx1250")
    assert e.data == data and e.name == "V_LSHL_ADD_U64"
    assert decode(e.data, "gfx1250")[0].text == asm


@pytest.mark.parametrize("text,line,col,why", [
    ("s_nop 0\nv_frob v1", 2, 1, "unknown mnemonic 'v_frob'"),
    ("v_add_f32_e64 v1, 0x123456789, v3", 1, 19, "does not fit in 32 bits"),
    ("v_sad_u32 v5, v1, v2", 1, 19, "takes 4 operands"),
    ("v_add_f16_e32 v1, 1e10, v2", 1, 19, "does not fit in a 16-bit float"),
    ("v_sad_u32 v5, v1, v2, s3 bogus", 1, 26, "modifier 'bogus' is not allowed"),
    ("v_add_f32 v1, v2, v3\n" + "x" * 10_000_000, 2, 4097, "limit is 4096"),
])
def test_errors_name_line_column_and_why(codec_env, text, line, col, why):
    from gpuisa import encode
    from gpuisa.codec.encoder import AsmError

    with pytest.raises(AsmError) as exc:
        encode(text, "gfx1100")
    assert (exc.value.line, exc.value.column) == (line, col)
    assert why in exc.value.message


def test_cli_error_is_one_line_exit_2(codec_env, tmp_path):
    f = tmp_path / "bad.s"
    f.write_text("s_nop 0\nv_frob v1\n")
    r = run_cli("asm", "--target", "gfx1100", "--file", str(f), env_catalog=codec_env)
    assert r.returncode == 2 and r.stderr == f"gpuisa: error: {f}:2:1: unknown mnemonic 'v_frob' for gfx1100\n"
    f.write_bytes(b"\xff\xfe\x00garbage")
    r = run_cli("asm", "--target", "gfx1100", "--file", str(f), env_catalog=codec_env)
    assert r.returncode == 2 and "not UTF-8" in r.stderr and r.stderr.count("\n") == 1

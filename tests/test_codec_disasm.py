"""Disassembler: LLVM's own CHECK lines decoded from their bytes, raw files, ELF code objects, bad input.

Every expected text is read from an LLVM MC test line first (the premise), never typed from our output.
"""

from __future__ import annotations

import json
import subprocess

import pytest

from tests.codec_support import llvm_check, run_cli


@pytest.fixture(scope="module")
def codec_env(catalog_path):
    from tests.codec_support import use_catalog

    mp = use_catalog(catalog_path)
    yield catalog_path
    mp.undo()


def test_must_show_gfx1250_v_lshl_add_u64(codec_env):
    from gpuisa import decode

    asm, data = llvm_check("Disassembler/AMDGPU/gfx1250_dasm_vop3.txt", 129)
    assert asm == "v_lshl_add_u64 v[2:3], v[4:5], 0, 1"
    [d] = decode(data, "gfx1250")
    assert (d.text, d.data, d.name) == (asm, data, "V_LSHL_ADD_U64")


def test_cli_prints_offset_bytes_text(codec_env):
    asm, data = llvm_check("AMDGPU/gfx11_asm_vop3-fake16.s", 5529)
    r = run_cli("disasm", "--target", "gfx1100", *data.hex(" ").split(), env_catalog=codec_env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split(None, 1)[0] == "0x0000:"
    assert data.hex(" ") in r.stdout and r.stdout.rstrip().endswith(asm)
    words = [data[i:i + 4][::-1].hex() for i in range(0, len(data), 4)]   # llvm-objdump's dword spelling
    j = run_cli("disasm", "--target", "gfx1100", "--json", *words, env_catalog=codec_env)
    doc = json.loads(j.stdout)
    assert doc["instructions"][0]["name"] == "v_sad_u32" and doc["instructions"][0]["text"] == asm


@pytest.mark.parametrize("rel,line,target", [
    ("AMDGPU/gfx11_asm_vop3-fake16.s", 5529, "gfx1100"),          # VOP3 v_sad_u32
    ("Disassembler/AMDGPU/gfx1250_dasm_vop3.txt", 129, "gfx1250"),
])
def test_llvm_check_lines_decode(codec_env, rel, line, target):
    from gpuisa import decode

    asm, data = llvm_check(rel, line)
    assert decode(data, target)[0].text == asm


def test_invalid_word_is_reported_and_decoding_resumes(codec_env, tmp_path):
    from gpuisa import decode

    asm, data = llvm_check("AMDGPU/gfx11_asm_vop3-fake16.s", 5529)
    junk = b"\xff\xff\xff\xff"   # ENCODING bits 0xFF.. name no gfx11 format (rdna3 manual: no 0x3F-prefixed 32-bit form)
    out = decode(junk + data + b"\x01\x02", "gfx1100")
    assert [d.valid for d in out] == [False, True, False]
    assert out[1].offset == 4 and out[1].text == asm
    assert "truncated" in out[2].reason
    f = tmp_path / "code.bin"
    f.write_bytes(junk + data)
    r = run_cli("disasm", "--target", "gfx1100", "--file", str(f), env_catalog=codec_env)
    assert r.returncode == 2 and asm in r.stdout
    assert r.stderr.startswith("gpuisa: error:") and "offset 0x0" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize("content,message", [
    (b"", "empty file"),
    (b"\x7fELF\x02\x01\x01" + bytes(9) + (2).to_bytes(2, "little") + (62).to_bytes(2, "little") + bytes(60), "EM_X86_64"),
    (b"\x7fELF\x02\x01\x01", "damaged ELF"),
])
def test_bad_files_one_line_error(codec_env, tmp_path, content, message):
    f = tmp_path / "input.o"
    f.write_bytes(content)
    r = run_cli("disasm", "--target", "gfx1100", "--file", str(f), env_catalog=codec_env)
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and message in r.stderr and "Traceback" not in r.stderr


def test_unknown_target_and_bad_hex(codec_env):
    r = run_cli("disasm", "--target", "gfx9999", "00", env_catalog=codec_env)
    assert r.returncode == 2 and "unknown target" in r.stderr
    r = run_cli("disasm", "--target", "gfx1100", "zz", env_catalog=codec_env)
    assert r.returncode == 2 and "not hexadecimal" in r.stderr


@pytest.mark.tools
def test_elf_code_object_every_kernel(codec_env, tmp_path):
    from gpuisa.verify.llvm_mc import available, find_llvm_mc

    if not available():
        pytest.skip("llvm-mc >= 22 not installed (apt-get install llvm-22)")
    asm, _ = llvm_check("AMDGPU/gfx11_asm_vop3-fake16.s", 5529)
    src = tmp_path / "k.s"
    src.write_text(f".text\n.globl k1\n.type k1,@function\nk1:\n  {asm}\n  s_endpgm\n.size k1, .-k1\n"
                   f".globl k2\n.type k2,@function\nk2:\n  {asm}\n.size k2, .-k2\n")
    obj = tmp_path / "k.o"
    subprocess.run([find_llvm_mc().path, "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx1100", "-filetype=obj", str(src),
                    "-o", str(obj)], check=True, capture_output=True)
    r = run_cli("disasm", "--target", "gfx1100", "--file", str(obj), "--json", env_catalog=codec_env)
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)["instructions"]
    assert [(x["symbol"], x["text"]) for x in rows if x["text"] == asm] == [("k1", asm), ("k2", asm)]


def test_sopp_integer_immediates_print_as_llvm_does(codec_env):
    """SOPP immediates typed i16imm / i32imm (decoder.INTEGER_SIMM16) print 0..64 in decimal and other values in
    hex (gfx1250_dasm_sopp.txt:29 `s_set_vgpr_msb 10`, :23 `0xff`: instructions the catalog lacks on gfx1250);
    s16imm ones (s_clause, s_ttracedata_imm) always in hex."""
    import re

    from gpuisa import decode
    from gpuisa.codec.decoder import INTEGER_SIMM16
    from tests.codec_support import MC

    td = (MC.parent.parent / "lib" / "Target" / "AMDGPU" / "SOPInstructions.td").read_text().splitlines()
    for mnemonic, where in INTEGER_SIMM16.items():   # the premise: each entry's definition types it so
        line = td[int(where.rsplit(":", 1)[1]) - 1]
        assert f'"{mnemonic}"' in line and re.search(r"\(ins i(16|32)imm:\$simm16\)", line), (mnemonic, line)
    assert '"s_clause", (ins s16imm:$simm16)' in td[1833 - 1]
    for rel, line, target in [("Disassembler/AMDGPU/gfx11_dasm_sopp.txt", 156, "gfx1100"),     # s_nop 0
                              ("Disassembler/AMDGPU/gfx12_dasm_sopp.txt", 13, "gfx1200"),      # s_barrier_wait 1
                              ("Disassembler/AMDGPU/gfx11_dasm_sopp.txt", 150, "gfx1100"),     # s_incperflevel 0x1234
                              ("Disassembler/AMDGPU/gfx11_dasm_sopp.txt", 75, "gfx1100")]:     # s_clause 0x0
        asm, data = llvm_check(rel, line)
        assert decode(data, target)[0].text == asm, (rel, line)

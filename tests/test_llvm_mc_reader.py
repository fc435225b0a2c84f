"""The LLVM MC test reader against facts in llvm-project-23.1.1/llvm/test/MC (cited file:line)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpuisa.paths import default_sources
from gpuisa.sources import llvm_mc as mc
from gpuisa.sources.amd_names import LLVM_SUFFIXES
from gpuisa.sources.layout import LLVM_TREE

SOURCES = default_sources()
LLVM = SOURCES / LLVM_TREE / "llvm"
ASM = LLVM / "test/MC/AMDGPU"
DASM = LLVM / "test/MC/Disassembler/AMDGPU"

needs_sources = pytest.mark.skipif(not ASM.is_dir(), reason=f"LLVM MC tests not found under {SOURCES}")


def read(path: Path) -> mc.FileResult:
    return mc.read_file(path, SOURCES)


def at(res: mc.FileResult, line: int):
    """The example or negative whose check line is `line`."""
    found = [r for r in (*res.examples, *res.negatives) if r.provenance.line == line]
    assert found, f"nothing read from {res.file}:{line}"
    return found[0]


# ---------------------------------------------------------------------------------------------
# RUN lines, each spelling as it appears in the corpus


def test_run_plain_asm():
    # gfx11_asm_vop3.s:2
    rl = mc.parse_run("not llvm-mc -triple=amdgcn -mcpu=gfx1100 -mattr=+wavefrontsize32,+real-true16 "
                      "-show-encoding %s | FileCheck --check-prefixes=GFX11,W32 %s")
    assert rl.prefixes == ("GFX11", "W32")
    assert rl.run is not None
    assert (rl.run.target, rl.run.mattr, rl.run.direction) == ("gfx1100", "+real-true16,+wavefrontsize32", "asm")
    assert rl.run.encodings and not rl.run.stderr


def test_run_errors_to_filecheck():
    # gfx11_asm_vop3.s:4
    rl = mc.parse_run("not llvm-mc -triple=amdgcn -mcpu=gfx1100 -mattr=+wavefrontsize32,+real-true16 "
                      "-filetype=null %s 2>&1 | FileCheck --check-prefix=W32-ERR --implicit-check-not=error: %s")
    assert rl.prefixes == ("W32-ERR",)
    assert rl.run is not None and rl.run.stderr and not rl.run.encodings


def test_run_processor_names_and_triples():
    # vop3.s:1 (-mcpu=tahiti), smrd.s:2 (bonaire), gfx9_asm_vop2.s-style tonga, pal tests (amdgcn--amdpal)
    assert mc.parse_run("llvm-mc -triple=amdgcn -mcpu=tahiti -show-encoding %s | FileCheck %s").run.target == "gfx600"
    assert mc.parse_run("llvm-mc -triple=amdgcn -mcpu=tonga -show-encoding %s | FileCheck %s").run.target == "gfx802"
    assert mc.parse_run("llvm-mc -triple amdgcn--amdpal -mcpu=kaveri -show-encoding %s | FileCheck %s "
                        "--check-prefix=ASM").run.target == "gfx700"
    assert mc.parse_run("llvm-mc --triple=amdgcn --mcpu=gfx1010 -show-encoding %s | FileCheck %s").run.target \
        == "gfx1010"
    assert mc.parse_run("llvm-mc -arch=amdgcn -mcpu gfx900 -show-encoding %s | FileCheck %s").run.target == "gfx900"
    # no -mcpu: LLVM's "generic" processor, which is not gfx600 (v_sad_u32 is rejected there)
    assert mc.parse_run("llvm-mc -triple=amdgcn -show-encoding %s | FileCheck -check-prefix=SI %s").run.target \
        == "generic"


def test_run_default_prefix_and_disassembler():
    # gfx9_asm_vop2.s:1 uses FileCheck without a prefix; gfx11_dasm_vop3.txt:2 disassembles
    assert mc.parse_run("llvm-mc -triple=amdgcn -mcpu=gfx900 -show-encoding %s | FileCheck %s").prefixes == ("CHECK",)
    rl = mc.parse_run("llvm-mc -triple=amdgcn -mcpu=gfx1100 -mattr=+real-true16 -disassemble -show-encoding "
                      "< %s | FileCheck -check-prefixes=GFX11,W32,W32-REAL16 %s")
    assert rl.run.direction == "disasm" and rl.prefixes == ("GFX11", "W32", "W32-REAL16")


def test_run_roundtrip_through_extract_encodings():
    # the gfx1170 tests assemble, extract the encodings and disassemble them again
    rl = mc.parse_run("llvm-mc -triple=amdgcn -mcpu=gfx1170 -mattr=+real-true16 -show-encoding %s | "
                      "%extract-encodings | llvm-mc -triple=amdgcn -mcpu=gfx1170 -mattr=+real-true16 "
                      "-disassemble -show-encoding | FileCheck --strict-whitespace --check-prefixes=GFX1170 %s")
    assert rl.run.roundtrip and rl.run.direction == "asm" and rl.run.target == "gfx1170"


def test_run_lines_not_bound_to_llvm_mc():
    assert mc.parse_run("llvm-readelf -S -r -s %t | FileCheck --check-prefix=READOBJ %s").run is None
    split = mc.parse_run("llvm-mc -triple amdgcn-amd-amdhsa -mcpu=gfx908 %t/xnack.s 2>&1 | FileCheck %s")
    assert split.run is None and split.problem == "input is not %s"
    r600 = mc.parse_run("not llvm-mc -triple=r600 %s -filetype=null 2>&1 | FileCheck --check-prefix=R600 %s")
    assert r600.run is None


def test_run_continuation_lines():
    # elf-header-cov.s:1-2 continues a RUN line with a backslash
    lines = ["// RUN: sed 's/COV/4/g' %s | llvm-mc -triple amdgcn-amd-amdhsa -mcpu=gfx802 -filetype=obj | \\",
             "// RUN:   llvm-readobj --file-headers - | FileCheck %s --check-prefixes=HS4"]
    (rl,) = mc.run_lines(lines)
    assert rl.prefixes == ("HS4",) and rl.line == 1 and rl.run is None


def test_mattr_normalised():
    assert mc.normalize_mattr(["+real-true16,+wavefrontsize64"]) == mc.normalize_mattr(["+wavefrontsize64",
                                                                                      "+real-true16"])
    assert mc.normalize_mattr(["+WavefrontSize64"]) == "+wavefrontsize64"
    assert mc.normalize_mattr(["+xnack", "-xnack"]) == "-xnack"


@needs_sources
def test_cpu_aliases_match_amdgpu_usage():
    # llvm/docs/AMDGPUUsage.rst:349-443: "``gfx600``  - ``tahiti``", aliases on continuation lines
    doc = (LLVM / "docs/AMDGPUUsage.rst").read_text(encoding="utf-8").splitlines()
    current = ""
    seen: dict[str, str] = {}
    for line in doc:
        m = re.match(r"^\s+(?:\\\s+|``(gfx\w+)``\s+)?- ``([a-z0-9]+)``", line)
        if re.match(r"^\s+``(gfx\w+)``", line):
            current = re.match(r"^\s+``(gfx\w+)``", line).group(1)
        if m and current and not m.group(2).startswith("gfx"):
            seen.setdefault(m.group(2), current)
    for alias, gfx in mc.CPU_ALIASES.items():
        assert seen.get(alias) == gfx, alias


@needs_sources
def test_known_processors_match_gcn_processors_td():
    td = (LLVM / "lib/Target/AMDGPU/GCNProcessors.td").read_text(encoding="utf-8")
    names = set(re.findall(r'ProcessorModel<"([^"]+)"', td))
    assert names - set(mc.CPU_ALIASES) == mc.KNOWN_PROCESSORS


def test_unknown_processor_is_generic():
    # dl-insts-err.s:1 runs -mcpu=gfx800, which llvm-mc does not know ("ignoring processor")
    rl = mc.parse_run("not llvm-mc -triple=amdgcn -mcpu=gfx800 %s -filetype=null 2>&1 | FileCheck %s")
    assert rl.run.target == "generic" and rl.run.cpu == "gfx800"


# ---------------------------------------------------------------------------------------------
# mnemonics


def test_mnemonic_examples():
    assert mc.mnemonic("v_sad_u32 v5, v1, v2, s3") == "V_SAD_U32"
    assert mc.mnemonic("v_add_f32_e32 v1, v2, v3") == "V_ADD_F32"
    assert mc.mnemonic("v_add3_u32_e64_dpp v5, v1, v2, v3 quad_perm:[3,2,1,0]") == "V_ADD3_U32"
    assert mc.mnemonic("v_mov_b32_sdwa v1, v2 dst_sel:BYTE_0") == "V_MOV_B32"
    assert mc.mnemonic("v_cmpx_neq_f32_e64_dpp v1, v2 dpp8:[7,6,5,4,3,2,1,0]") == "V_CMPX_NEQ_F32"
    assert mc.mnemonic("v_mov_b32_dpp8 v1, v2 dpp8:[0,1,2,3,4,5,6,7]") == "V_MOV_B32"
    assert mc.mnemonic("") == ""
    assert mc.mnemonics("v_dual_mov_b32 v255, v2 :: v_dual_mov_b32 v6, v3") == ("V_DUAL_MOV_B32", "V_DUAL_MOV_B32")


@given(base=st.from_regex(r"[vs]_[a-z0-9]{1,8}(_[a-z0-9]{1,4}){0,3}", fullmatch=True),
       suffix=st.sampled_from(["", "_e32", "_e64", "_sdwa", "_dpp", "_e64_dpp", "_dpp8"]),
       rest=st.sampled_from(["", " v1, v2", " s[0:1], -1"]))
def test_mnemonic_drops_one_encoding_suffix(base, suffix, rest):
    stripped = base
    for s in (x.lower() for x in LLVM_SUFFIXES):   # a base that itself ends in a suffix loses it, as LLVM's would
        if not suffix and stripped.endswith(s) and len(stripped) > len(s):
            stripped = stripped[: -len(s)]
            break
    assert mc.mnemonic(base + suffix + rest) == stripped.upper()


# ---------------------------------------------------------------------------------------------
# single files


@needs_sources
def test_v_sad_u32_on_gfx1100():
    # gfx11_asm_vop3.s:5939-5940: v_sad_u32 v5, v1, v2, s3 ; encoding: [0x05,0x00,0x25,0xd6,0x01,0x05,0x0e,0x00]
    res = read(ASM / "gfx11_asm_vop3.s")
    ex = at(res, 5940)
    assert ex.asm == "v_sad_u32 v5, v1, v2, s3"
    assert ex.bytes == bytes.fromhex("050025d601050e00")
    assert ex.targets == ("gfx1100",) and ex.direction == "asm"
    assert set(ex.mattrs) == {"+real-true16,+wavefrontsize32", "+real-true16,+wavefrontsize64"}
    assert ex.input == "v_sad_u32 v5, v1, v2, s3" and ex.input_line == 5939
    assert ex.file == "llvm-project-23.1.1/llvm/test/MC/AMDGPU/gfx11_asm_vop3.s"


@needs_sources
def test_v_lshl_add_u64_on_gfx1250_gfx942_gfx950():
    # gfx1250_asm_vop3-fake16.s:107: v_lshl_add_u64 v[2:3], s[4:5], v7, v[8:9] ; encoding: [0x02,0x00,0x52,0xd6,...]
    ex = at(read(ASM / "gfx1250_asm_vop3-fake16.s"), 107)
    assert mc.mnemonic(ex.asm) == "V_LSHL_ADD_U64" and ex.targets == ("gfx1250",)
    assert ex.bytes == bytes.fromhex("020052d6040e2204")
    # gfx942_asm_features.s:1-2 bind prefix GFX942 to gfx942 and gfx950; :263 is the check, the
    # instruction follows it on :264 (this file puts checks before their input)
    res = read(ASM / "gfx942_asm_features.s")
    ex = at(res, 263)
    assert ex.targets == ("gfx942", "gfx950")
    assert ex.bytes == bytes.fromhex("020008d2040e2204")
    assert ex.input_line == 264
    # gfx942_asm_features.s:262: NOT-GFX942 :[[@LINE+2]] ... instruction not supported (gfx90a, gfx1010)
    neg = at(res, 262)
    assert neg.input_line == 264 and neg.not_supported
    assert neg.targets == ("gfx90a", "gfx1010")


@needs_sources
def test_not_supported_evidence():
    # gfx11_unsupported.s:1517-1518: v_lshl_add_u64 ... error: instruction not supported on this GPU (gfx1100)
    neg = at(read(ASM / "gfx11_unsupported.s"), 1518)
    assert neg.asm == "v_lshl_add_u64 v[10:11], v[2:3], v2, v[6:7]"
    assert neg.message == "instruction not supported on this GPU (gfx1100): v_lshl_add_u64"
    assert neg.targets == ("gfx1100",) and neg.severity == "error" and neg.not_supported
    assert set(r.mattr for r in neg.runs) == {"+wavefrontsize32", "+wavefrontsize64"}


@needs_sources
def test_bare_bytes_check_takes_the_source_line():
    # gfx9_asm_vop2.s:5-6: "v_cndmask_b32 v5, v1, v2, vcc" then "// CHECK: [0x01,0x05,0x0a,0x00]"
    ex = at(read(ASM / "gfx9_asm_vop2.s"), 6)
    assert ex.asm == "v_cndmask_b32 v5, v1, v2, vcc" and ex.bytes == bytes.fromhex("01050a00")
    assert ex.targets == ("gfx900",) and ex.prefix == "CHECK"


@needs_sources
def test_checks_before_their_input_without_blank_lines():
    # dl-insts.s:8-9: "// CHECK: encoding: [0x01,0x05,0x0a,0x76]" precedes "v_fmac_f32 v5, v1, v2"
    res = read(ASM / "dl-insts.s")
    ex = at(res, 8)
    assert ex.asm == "v_fmac_f32 v5, v1, v2" and ex.input_line == 9
    assert ex.bytes == bytes.fromhex("01050a76") and ex.targets == ("gfx906", "gfx908")
    assert at(res, 10).asm == "v_fmac_f32 v255, v1, v2"    # dl-insts.s:10-11


@needs_sources
def test_disassembler_example():
    # gfx11_dasm_vop3.txt:7-8: bytes 0x05,0x00,0x55,0xd6,... decode to v_add3_u32 v5, v1, v2, s3 on 4 RUN lines
    ex = at(read(DASM / "gfx11_dasm_vop3.txt"), 8)
    assert ex.direction == "disasm" and ex.asm == "v_add3_u32 v5, v1, v2, s3"
    assert ex.bytes == bytes.fromhex("050055d601050e00") and ex.input_line == 7
    assert ex.targets == ("gfx1100",) and len(ex.runs) == 4


@needs_sources
def test_disassembler_warning_is_negative_evidence():
    # gfx12_dasm_wmma_w32.txt:7-8: [0x08,0xc0,0x40,0xcc,...] # clamp -> warning: invalid instruction encoding
    neg = at(read(DASM / "gfx12_dasm_wmma_w32.txt"), 8)
    assert neg.severity == "warning" and neg.message == "invalid instruction encoding"
    assert neg.input == "[0x08,0xc0,0x40,0xcc,0x00,0x09,0x22,0x1c]" and neg.targets == ("gfx1200",)
    assert neg.asm == "" and not neg.not_supported


def test_malformed_lines_are_counted_not_fatal(tmp_path):
    bad = tmp_path / "broken.s"
    bad.write_text(
        "// RUN: llvm-mc -triple=amdgcn -mcpu=gfx900 -show-encoding %s | FileCheck %s\n"
        "// RUN: llvm-mc 'unbalanced %s | FileCheck %s\n"
        "s_nop 0\n"
        "// CHECK: s_nop 0 ; encoding: [0x00,0x00,0x80\n"
        "s_nop 1\n"
        "// CHECK: s_nop 1 ; encoding: [A,A,0x80,0xbf]\n"
        "s_nop 2\n"
        "// CHECK: s_nop 2 ; encoding: [0x02,0x00,0x80,0xbf]\n"
        "\x00\xff garbage\n", encoding="latin-1")
    res = mc.read_file(bad, tmp_path)
    assert [e.asm for e in res.examples] == ["s_nop 2"]
    assert res.skips["malformed encoding"] == 1
    assert res.skips["encoding with fixup placeholders"] == 1
    assert res.skips["RUN: unparsable RUN line"] == 1
    assert res.encoding_skips.total() == 2 and res.encoding_lines == 3
    assert res.samples["malformed encoding"][0].line == 4


def test_directive_variants(tmp_path):
    # spellings seen in the corpus: "GFX12:v_swmmac..." without a space (gfx12_dasm_wmma_w32.txt:819),
    # -NEXT after a diagnostic echoing the source (cpol-err.s:5-6), [[@LINE+1]], -NOT, -SAME
    f = tmp_path / "variants.s"
    f.write_text(
        "// RUN: llvm-mc -triple=amdgcn -mcpu=gfx1100 -show-encoding %s | FileCheck --check-prefix=A %s\n"
        "// RUN: not llvm-mc -triple=amdgcn -mcpu=gfx900 %s -filetype=null 2>&1 | FileCheck %s --check-prefix=ERR\n"
        "\n"
        "s_nop 0\n"
        "// A:s_nop 0 ; encoding: [0x00,0x00,0x80,0xbf]\n"
        "// ERR: :[[@LINE-2]]:1: error: instruction not supported on this GPU\n"
        "// ERR-NEXT:{{^}}s_nop 0\n"
        "// A-NOT: error\n"
        "\n"
        "// ERR: :[[@LINE+1]]:{{[0-9]+}}: error: invalid operand for instruction\n"
        "s_nop 1\n"
        "// A: s_nop 1\n"
        "// A-SAME: ; encoding: [0x01,0x00,0x80,0xbf]\n")
    res = mc.read_file(f, tmp_path)
    assert [(e.asm, e.bytes.hex(), e.input_line) for e in res.examples] == [
        ("s_nop 0", "000080bf", 4), ("s_nop 1", "010080bf", 11)]
    assert [(n.input, n.input_line, n.column) for n in res.negatives] == [("s_nop 0", 4, 1), ("s_nop 1", 11, None)]
    assert res.negatives[0].targets == ("gfx900",) and res.examples[0].targets == ("gfx1100",)
    assert res.skips["diagnostic context line"] == 1 and res.skips["NOT directive"] == 1
    assert res.skips["assembly output without encoding"] == 0


# ---------------------------------------------------------------------------------------------
# the whole corpus (about 4 s on 2 cores, so not marked slow)


@pytest.fixture(scope="module")
def corpus():
    if not ASM.is_dir():
        pytest.skip(f"LLVM MC tests not found under {SOURCES}")
    return mc.read_corpus(SOURCES)


def test_corpus_size(corpus):
    # DESIGN.md: about 390k asm->bytes and 250k bytes->asm checks
    asm = sum(e.direction == "asm" for e in corpus.examples)
    dasm = sum(e.direction == "disasm" for e in corpus.examples)
    assert asm > 380_000 and dasm > 240_000
    assert len(corpus.negatives) > 100_000


def test_skipped_encoding_lines_under_one_percent(corpus):
    skipped = corpus.encoding_skips.total()
    assert skipped < 0.01 * corpus.encoding_lines, mc.skip_report(corpus)
    # every skip reason keeps samples with file and line to inspect
    for reason in corpus.skips:
        assert corpus.samples[reason], reason


def test_corpus_targets_are_gfx_names(corpus):
    targets = set(corpus.examples_per_target())
    assert {"gfx600", "gfx802", "gfx900", "gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1200", "gfx1250"} <= targets
    assert all(re.fullmatch(r"gfx[0-9a-f]+(-\d+)?(-generic)?|generic", t) for t in targets), targets

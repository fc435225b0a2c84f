"""Encoding families beyond the plain ALU words, each on one LLVM check line (asm and bytes read from
the test file itself): NSA / partial-NSA image addresses, buffer formats, matrix AGPRs, VOPC SDWA,
VOP3B carry-out, the fmaak constant, fake16's invalid-register note, VOPD pairs (X :: Y, one shared
literal, VDSTY's implied LSB), real-true16 VGPR halves (bit 7 in VOP1/VOP2/VOPC, OPSEL in VOP3), matrix
operand sizes, exports, interpolation and LDS-direct loads, s_waitcnt_depctr, s_atc_probe, ray tracing (BVH).
Decode must print LLVM's text, encode must give LLVM's bytes."""

from __future__ import annotations

import pytest

from tests.codec_support import MC, llvm_check

CASES = [
    # (check line, target, directions) -- "both": asm -> bytes and bytes -> asm
    ("AMDGPU/gfx11_asm_mimg_features.s", 5, "gfx1100", "both"),          # MIMG NSA, dmask/dim modifiers
    ("AMDGPU/gfx12_asm_vsample.s", 995, "gfx1200", "both"),             # VSAMPLE partial NSA: v[35:40] last
    ("AMDGPU/gfx9_asm_mtbuf.s", 44, "gfx900", "both"),                   # dfmt / nfmt names, vega OFFSET
    ("Disassembler/AMDGPU/gfx11_dasm_mtbuf.txt", 8, "gfx1100", "both"),  # unified format names
    ("AMDGPU/mai-gfx90a.s", 35, "gfx90a", "both"),                       # VOP3P-MAI: ACC and ACC_CD AGPRs
    ("AMDGPU/gfx9_asm_vopc.s", 77, "gfx900", "both"),                    # VOPC SDWA: SDST in the dst_sel bits
    ("AMDGPU/gfx9_asm_vop3_e64.s", 5159, "gfx900", "both"),              # VOP3B carry-out in SDST
    ("Disassembler/AMDGPU/gfx11_dasm_vop2.txt", 476, "gfx1100", "both"),  # fmaak: K is the literal dword
    ("Disassembler/AMDGPU/gfx11_dasm_vopc-fake16.txt", 66, "gfx1100", "decode"),  # VS_32_Lo128 note
    ("AMDGPU/gfx11_asm_vopd_features.s", 67, "gfx1100", "both"),         # VOPD: cndmask reads VCC unnamed
    ("AMDGPU/gfx11_asm_vopd_features.s", 91, "gfx1100", "both"),         # VOPD: fmaak and fmamk share K
    ("AMDGPU/gfx12_asm_vopd_features.s", 95, "gfx1200", "both"),         # VOPD: fmamk K and Y's literal
    ("AMDGPU/gfx11_asm_vop1.s", 244, "gfx1100", "true16"),               # v1.h: bit 7 of SRC0
    ("AMDGPU/gfx12_asm_vop2.s", 179, "gfx1200", "true16"),               # v5.h, v2.h: bit 7 of VDST / VSRC1
    ("AMDGPU/gfx11_asm_vop3.s", 2295, "gfx1100", "true16"),              # VOP3: halves in OPSEL
    ("AMDGPU/gfx11_asm_vop3_from_vopc.s", 496, "gfx1100", "true16"),     # op_sel with a scalar result's entry
    ("AMDGPU/gfx11_asm_vop3_dpp16_from_vop1.s", 83, "gfx1100", "true16"),  # VOP3 DPP: op_sel the row lacks
    ("AMDGPU/gfx12_asm_wmma_w32.s", 159, "gfx1200", "both"),            # WMMA f16 result: 4 VGPRs, neg_lo
    ("AMDGPU/gfx12_asm_wmma_w32.s", 744, "gfx1200", "both"),            # SWMMAC: sparse A, index_key
    ("AMDGPU/exp-pregfx11.s", 10, "gfx900", "both"),                     # EXP: target, done, vm
    ("AMDGPU/exp-pregfx11.s", 27, "gfx900", "both"),                     # EXP: compr pairs
    ("AMDGPU/exp.s", 31, "gfx1200", "both"),                             # EXPORT: off lanes from EN
    ("Disassembler/AMDGPU/gfx11_dasm_vinterp.txt", 9, "gfx1100", "both"),  # VINTERP: neg, wait_exp:0
    ("Disassembler/AMDGPU/gfx11_dasm_ldsdir.txt", 62, "gfx1100", "both"),  # LDSDIR: attr22.y, wait_vdst
    ("Disassembler/AMDGPU/gfx12_dasm_vdsdir.txt", 8, "gfx1200", "both"),   # VDSDIR: wait_va_vdst, wait_vm_vsrc
    ("Disassembler/AMDGPU/gfx11_dasm_sopk.txt", 372, "gfx1100", "both"),   # hwreg(NAME): all 32 bits
    ("Disassembler/AMDGPU/gfx11_dasm_sopk.txt", 366, "gfx1100", "both"),   # hwreg(id, offset, size): no name
    ("Disassembler/AMDGPU/gfx9_sopk.txt", 458, "gfx900", "both"),          # hwreg(NAME, offset, size)
    ("Disassembler/AMDGPU/gfx11_dasm_smem.txt", 24, "gfx1100", "both"),    # SMEM GLC [14], DLC [13] (smem-glc-14)
    ("AMDGPU/gfx11_asm_vop3_dpp8.s", 1786, "gfx1100", "both"),            # VOP3 DPP8 row GFX11's page lacks
    ("Disassembler/AMDGPU/gfx1030_new.txt", 129, "gfx1030", "both"),       # depctr: all seven counters at 0
    ("Disassembler/AMDGPU/gfx1030_new.txt", 156, "gfx1030", "both"),       # depctr: those off their default
    ("Disassembler/AMDGPU/gfx1030_new.txt", 114, "gfx1030", "both"),       # depctr: an unused bit set -> hex
    ("AMDGPU/smem.s", 27, "gfx1030", "both"),                            # s_atc_probe's mask in SDATA
    ("AMDGPU/gfx10_asm_smem.s", 1175, "gfx1010", "both"),                # no address: SOFFSET left 0
    ("Disassembler/AMDGPU/gfx1011_dlops.txt", 22, "gfx1030", "both"),      # no VOP3 form: no _e32 suffix
    ("Disassembler/AMDGPU/gfx1030_new.txt", 78, "gfx1030", "both"),        # BVH: gfx10 NSA, one VGPR a dword
    ("Disassembler/AMDGPU/gfx1030_new.txt", 84, "gfx1030", "both"),        # BVH a16: 9 dwords, only a16 shown
    ("Disassembler/AMDGPU/gfx12_dasm_vimage.txt", 557, "gfx1200", "both"),  # BVH: gfx12 one operand an argument
    ("AMDGPU/gfx10_asm_ds.s", 1663, "gfx1010", "both"),                 # ds_gws data in ADDR, not DATA0
    ("AMDGPU/gfx90a_ldst_acc.s", 4498, "gfx90a", "both"),                # ... an AGPR there: ACC set
    ("AMDGPU/gfx950_asm_vop3.s", 113, "gfx950", "both"),                 # bitop3: truth table in OMOD, ABS, NEG
    ("AMDGPU/gfx950_asm_vop3.s", 101, "gfx950", "both"),                 # bitop3 below 10: printed in decimal
    ("AMDGPU/gfx942_asm_features.s", 583, "gfx942", "both"),             # SDWA row without dst_sel: DWORD, pad
    ("AMDGPU/gfx942_asm_features.s", 290, "gfx942", "both"),             # a row of modifiers only: sc0 sc1
    ("AMDGPU/mai-gfx950.s", 630, "gfx950", "both"),                      # f8f6f4: FP6 A / B (cbsz:3 blgp:3) 6 dwords
    ("AMDGPU/mai-gfx950.s", 666, "gfx950", "both"),                      # ... FP4 (cbsz:4 blgp:4) 4 dwords
    ("Disassembler/AMDGPU/gfx942_features.txt", 36, "gfx950", "decode"),  # PRINT_ORDER: sc0 nt sc1, as GFX940's rows
    ("AMDGPU/gfx9_asm_vop2_features.s", 17, "gfx950", "decode"),         # ... SDWA: dst_sel first
    ("AMDGPU/mai-gfx950.s", 380, "gfx950", "both"),                      # VOP3PX2: scale MFMA, 128 bits, op_sel_hi
    ("AMDGPU/mai-gfx950.s", 412, "gfx950", "both"),                      # ... op_sel of the scale sources, FP6 A
    ("Disassembler/AMDGPU/gfx950_mai.txt", 497, "gfx950", "both"),       # ... op_sel_hi:[1,1,0] (OPSEL_HI [60:59])
    ("Disassembler/AMDGPU/gfx950_mai.txt", 440, "gfx950", "both"),       # ... AGPRs (ACC, ACC_CD 64 bits up)
    ("AMDGPU/mai-gfx950.s", 174, "gfx950", "both"),                      # v_mfma_ld_scale_b32 alone (VOP3P 0x2C)
    ("Disassembler/AMDGPU/gfx950_mai.txt", 409, "gfx950", "both"),       # ... its op_sel / op_sel_hi
    ("Disassembler/AMDGPU/gfx950.txt", 109, "gfx950", "both"),           # permlane swap e64: OPSEL is bound_ctrl, fi
    ("AMDGPU/gfx942_asm_features.s", 202, "gfx950", "both"),             # GFX950's simm16 holding a hwreg
    ("Disassembler/AMDGPU/gfx942_features.txt", 372, "gfx950", "both"),  # v_cvt_sr_bf8_f32: op_sel of a tied src2
    ("Disassembler/AMDGPU/gfx950_dasm_vop3.txt", 713, "gfx950", "both"),  # ... v_cvt_scalef32_pk_fp4_bf16's
    ("AMDGPU/mubuf-gfx950.s", 13, "gfx950", "both"),                     # a buffer load to LDS: no VGPR data
    ("AMDGPU/gfx1150_asm_features.s", 11, "gfx1150", "both"),            # VOP3 DPP src1 an SGPR (gfx115x)
    ("AMDGPU/gfx1250_asm_salu_lit64.s", 63, "gfx1250", "both"),          # 64-bit literal (code 254), SALU
    ("AMDGPU/gfx1250_asm_salu_lit64.s", 66, "gfx1250", "both"),          # lit64(..): hex that reads as 32 bits
    ("AMDGPU/gfx1250_asm_valu_lit64.s", 207, "gfx1250", "both"),         # a float64 with a low dword: 64 bits
    ("AMDGPU/gfx1250_asm_valu_lit64.s", 218, "gfx1250", "both"),         # ... without one: 32 bits, high dword
    ("AMDGPU/gfx1250_asm_vop2.s", 595, "gfx1250", "both"),               # v_fmaak_f64's K: 64 bits
    ("AMDGPU/gfx12_asm_sop1.s", 864, "gfx1250", "both"),                 # ... printed as the disassembler does
    ("AMDGPU/gfx1250_asm_vflat.s", 3618, "gfx1250", "both"),             # flat with an SGPR base: global row
    ("AMDGPU/gfx1250_asm_vflat.s", 3622, "gfx1250", "both"),             # ... no return: vaddr one VGPR
    ("AMDGPU/gfx1250_asm_vflat.s", 2858, "gfx1250", "both"),             # scale_offset printed after offset
    ("Disassembler/AMDGPU/gfx1250_dasm_vbuffer_mubuf.txt", 620, "gfx1250", "both"),  # cdna5's name, not fmax_x2
    ("AMDGPU/gfx1250_asm_vop3.s", 419, "gfx1250", "true16"),             # i16 result of a v2f16 source
    ("AMDGPU/gfx1250_asm_vop3.s", 573, "gfx1250", "true16"),             # f16 source, i32 result and seed
    ("AMDGPU/gfx1250_asm_vop3.s", 383, "gfx1250", "true16"),             # i16 result of i32 sources
    ("AMDGPU/gfx1250_asm_vop1.s", 620, "gfx1250", "true16"),             # f16 result of an i32 source
    ("AMDGPU/gfx1250_asm_vop3-fake16.s", 606, "gfx1250", "both"),        # byte_sel in OPSEL[3:2], op_sel src0
    ("AMDGPU/gfx12_asm_vop3_from_vop1-fake16.s", 539, "gfx1200", "both"),  # byte_sel in OPSEL[0] / [1]
    ("AMDGPU/gfx1250_asm_vop3_from_vop1-fake16.s", 4220, "gfx1250", "both"),  # ... op_sel's dst entry beside it
    ("AMDGPU/gfx1250_asm_vopd3.s", 1558, "gfx1250", "both"),            # VOPD3 Y bitop2: truth table in VSRCY2
    ("Disassembler/AMDGPU/gfx1250_dasm_wmma_w32.txt", 23, "gfx1250", "both"),  # matrix_a_reuse: OPSEL[2]
    ("Disassembler/AMDGPU/gfx1250_dasm_wmma_w32.txt", 26, "gfx1250", "both"),  # matrix_b_reuse: OPSEL_HI[2]
    ("AMDGPU/gfx12_asm_sop1.s", 715, "gfx1250", "both"),                 # a barrier id as an inline constant
    ("AMDGPU/gfx1250_asm_wmma_w32.s", 1138, "gfx1250", "both"),         # VOP3PX2 scale: SCLOP 'b0101, formats
    ("AMDGPU/gfx1250_asm_wmma_w32.s", 1403, "gfx1250", "both"),         # ... scale16 'b1010, reuse in its load half
    ("AMDGPU/gfx1250_asm_wmma_w32.s", 913, "gfx1250", "both"),          # f8f6f4 A in FP6: 12 VGPRs
    ("AMDGPU/gfx1250_asm_wmma_w32.s", 1023, "gfx1250", "both"),         # load-scale alone: scales in OPSEL_HI / NEG
    ("AMDGPU/gfx1250_asm_wmma_w32.s", 1038, "gfx1250", "both"),         # ... matrix_b_scale_fmt in NEG_HI
    ("AMDGPU/gfx1250_asm_wmma_w32.s", 1083, "gfx1250", "both"),         # ... scale16 (64-bit SGPRs) with reuse
    ("AMDGPU/gfx1250_asm_sop1.s", 20, "gfx1250", "both"),               # s_add_pc_i64: no sdst, a 64-bit literal
    ("AMDGPU/gfx1250_asm_sop1.s", 16, "gfx1250", "both"),               # ... a 32-bit one
    ("Disassembler/AMDGPU/gfx12_dasm_sopp.txt", 91, "gfx1250", "both"),  # s_delay_alu from the simm16 delay page
    ("AMDGPU/gfx11_asm_sopp.s", 103, "gfx1100", "both"),                 # ... and GFX11's delay page
    ("Disassembler/AMDGPU/gfx12_dasm_sopp.txt", 19, "gfx1200", "both"),  # a branch target in decimal
    ("Disassembler/AMDGPU/gfx1250_dasm_vop3_from_vop1.txt", 2928, "gfx1250", "decode"),  # v_nop's VOP3 form bare
    ("Disassembler/AMDGPU/gfx1250_dasm_vop3p.txt", 131, "gfx1250", "both"),  # VOP3P packed modifiers before clamp
]


@pytest.fixture(scope="module")
def codec_env(catalog_path):
    from tests.codec_support import use_catalog

    mp = use_catalog(catalog_path)
    yield catalog_path
    mp.undo()


@pytest.mark.parametrize("rel,line,target,directions", CASES, ids=[f"{c[0].rsplit('/', 1)[1]}:{c[1]}" for c in CASES])
def test_llvm_check_line(codec_env, rel, line, target, directions):
    from gpuisa import decode, encode

    asm, data = llvm_check(rel, line)
    assert asm and data                      # the premise: the line pairs LLVM's text with its bytes
    true16 = directions == "true16"
    if true16:   # the premise: the file's RUN lines check real-true16 syntax
        assert any("+real-true16" in x for x in (MC / rel).read_text().splitlines()[:12] if "RUN:" in x)
    [d] = decode(data, target, true16=true16)
    assert d.valid and " ".join(d.text.split()) == " ".join(asm.split())
    if directions in ("both", "true16"):
        [e] = encode(asm, target)
        assert e.data == data


def test_off_spellings_of_cache_bits_encode_the_default(codec_env):
    """`nosc0` / `nont` write the bit as off: gfx942_asm_features.s:12 and :28 assemble to the plain load's bytes."""
    from gpuisa import encode

    for line in (12, 28):
        written = (MC / "AMDGPU/gfx942_asm_features.s").read_text().splitlines()[line - 1]
        asm, data = llvm_check("AMDGPU/gfx942_asm_features.s", line - 1)
        assert written.startswith(asm) and written != asm   # the premise: LLVM prints the load without the word
        [e] = encode(written, "gfx942")
        assert e.data == data


@pytest.mark.parametrize("line", [360, 716])
def test_old_matrix_spellings_on_gfx942_assemble_as_the_renamed_instruction(codec_env, line):
    """AMDGPUAsmGFX940.rst lists v_mfma_f32_16x16x4bf16 (:1615) beside v_mfma_f32_16x16x4_4b_bf16 (:1612); LLVM
    assembles the old spelling (the input line above the check) as the renamed instruction's bytes."""
    from gpuisa import encode
    from gpuisa.paths import default_sources

    page = (default_sources() / "llvm-project-23.1.1/llvm/docs/AMDGPU/AMDGPUAsmGFX940.rst").read_text().splitlines()
    assert page[1615 - 1].split()[0] == "v_mfma_f32_16x16x4bf16" and page[1612 - 1].split()[0] == "v_mfma_f32_16x16x4_4b_bf16"
    written = (MC / "AMDGPU/mai-gfx942.s").read_text().splitlines()[line - 2]
    asm, data = llvm_check("AMDGPU/mai-gfx942.s", line)
    assert written.split()[0] != asm.split()[0]   # the premise: LLVM prints another name than the input's
    [e] = encode(written, "gfx942")
    assert e.data == data


def test_bitop3_fields_follow_the_cdna4_manual():
    """BITOP3_FIELDS is the manual's TTBL = {OMOD[1:0], ABS[2:0], NEG[2:0]} (V_BITOP3_B16 pseudocode)."""
    from gpuisa.codec.syntax import BITOP3_FIELDS
    from gpuisa.paths import default_sources

    text = (default_sources() / "amd-isa-manuals/cdna4/README.md").read_text(encoding="utf-8").splitlines()
    assert text[14418 - 1] == "TTBL = { INST.OMOD[1 : 0], INST.ABS[2 : 0], INST.NEG[2 : 0] };"
    assert BITOP3_FIELDS == (("NEG", 0), ("ABS", 3), ("OMOD", 6))


def test_depctr_bits_follow_the_rdna2_manual():
    """Each DEPCTR_BITS entry is written in the manual's S_WAITCNT_DEPCTR row (the premise: the row is there)."""
    from gpuisa.codec.waitcnt import DEPCTR_BITS, DEPCTR_MANUAL
    from gpuisa.paths import default_sources

    path, line = DEPCTR_MANUAL.rsplit(":", 1)
    text = (default_sources() / path).read_text(encoding="utf-8").splitlines()[int(line) - 1]
    assert "S_WAITCNT_DEPCTR" in text
    for name, (hi, lo) in DEPCTR_BITS.items():
        spelled = f"SIMM16[{hi}:{lo}]" if hi != lo else f"SIMM16[{hi}]"
        assert f"{name} <= {spelled}" in text or f"{name} == 0 &#124;&#124; {spelled} == 1" in text, name


@pytest.mark.parametrize("line", [56, 59])
def test_gfx1100_refuses_a_scalar_or_constant_in_vop3_dpp_src1(codec_env, line):
    """gfx11_asm_err.s:56 / :59 expect errors for an SGPR / constant in v_add3_u32_e64_dpp's src1 on GFX11, which
    gfx1150 accepts (gfx1150_asm_features.s:11 in CASES above)."""
    from gpuisa import encode
    from gpuisa.codec.encoder import AsmError

    lines = (MC / "AMDGPU/gfx11_asm_err.s").read_text().splitlines()
    written, check = lines[line - 1], lines[line]
    assert written.startswith("v_add3_u32_e64_dpp v5, v1, ") and "GFX11:" in check and "error:" in check
    assert "gfx1100" in " ".join(x for x in lines[:5] if "RUN:" in x)   # the premise: GFX11 checks gfx1100
    with pytest.raises(AsmError):
        encode(written, "gfx1100")


def test_a_64_bit_integer_the_sign_extension_would_change_takes_a_64_bit_literal(codec_env):
    """gfx12_asm_sop1.s:862-863: `s_mov_b64 s[0:1], 0xaf123456` is a 32-bit literal on gfx1200 and a 64-bit one
    (code 254, 8 bytes) on gfx1250, whose 32-bit literal would be sign-extended."""
    from gpuisa import encode

    written = (MC / "AMDGPU/gfx12_asm_sop1.s").read_text().splitlines()[861 - 1]
    old, old_data = llvm_check("AMDGPU/gfx12_asm_sop1.s", 862)
    new, new_data = llvm_check("AMDGPU/gfx12_asm_sop1.s", 863)
    assert written == old == new == "s_mov_b64 s[0:1], 0xaf123456" and len(old_data) == 8 and len(new_data) == 12
    assert encode(written, "gfx1200")[0].data == old_data
    assert encode(written, "gfx1250")[0].data == new_data


def test_a_packed_conversion_scale_literal_is_32_bits(codec_env):
    """gfx1250_asm_vop3-fake16.s:911-912: the scale of v_cvt_scalef32_pk8_fp8_bf16 is an f32 (its profile's last
    source), so 100.0 is the literal 0x42c80000, not bf16 0x42c8 as the mnemonic's last type would say."""
    from gpuisa import encode

    written = (MC / "AMDGPU/gfx1250_asm_vop3-fake16.s").read_text().splitlines()[911 - 1]
    asm, data = llvm_check("AMDGPU/gfx1250_asm_vop3-fake16.s", 912)
    assert written.endswith(", 100.0") and asm.endswith(", 0x42c80000")   # the premise: LLVM wrote f32 100.0
    assert encode(written, "gfx1250")[0].data == data


def test_true16_profiles_are_the_tablegen_types():
    """Each TRUE16_PROFILES entry's types are the list its .td line writes (a template parameter bound where the
    entry says: VOP3_CVT_SR_F8_ByteSel_Profile<f16> gives SrcVT f16)."""
    import re

    from gpuisa.paths import default_sources
    from gpuisa.sources.llvm_syntax_docs import TRUE16_PROFILES

    def line(where: str) -> str:
        path, n = where.rsplit(":", 1)
        return (default_sources() / path).read_text(encoding="utf-8").splitlines()[int(n) - 1]

    for mnemonic, fix in TRUE16_PROFILES.items():
        listed = [t.strip() for t in re.search(r"\[([^\]]+)\]", line(fix.where)).group(1).split(",")]
        if fix.given:
            bound = re.search(r"<(\w+)>", line(fix.given)).group(1)
            listed = [bound if t.endswith("VT") else t for t in listed]
        assert tuple(t for t in listed if t != "untyped") == fix.types, mnemonic


def test_byte_sel_bits_follow_tablegen():
    """syntax.BYTE_SEL: each profile line sets its byte-select flag, and VOPInstructions.td places byte_sel's
    bits in OPSEL ([14:11]) as the table says: a source select in [11] (bit 1) and [12] (bit 0), a destination
    select in [14] (bit 1) and [13] (bit 0)."""
    from gpuisa.codec.syntax import BYTE_SEL
    from gpuisa.paths import default_sources

    td = default_sources() / "llvm-project-23.1.1/llvm/lib/Target/AMDGPU"
    placement = (td / "VOPInstructions.td").read_text(encoding="utf-8").splitlines()[928 - 1:935]
    for pattern, (hi, lo), where in BYTE_SEL:
        path, n = where.rsplit(":", 1)
        flag = (default_sources() / path).read_text(encoding="utf-8").splitlines()[int(n) - 1].strip()
        kind = "Src" if "Src" in flag else "Dst"
        assert flag == f"let HasFP8{kind}ByteSel = 1;", where
        # VOP1Instructions.td:771 v_cvt_f32_fp8 and VOP3Instructions.td:1870 v_cvt_sr_fp8_f16 take these profiles
        assert pattern.match("v_cvt_f32_fp8" if kind == "Src" else "v_cvt_sr_fp8_f16")
        for bit, half in ((hi, 1), (lo, 0)):
            assert any(f"Inst{{{11 + bit}}} = !if(P.HasFP8{kind}ByteSel, byte_sel{{{half}}}" in x for x in placement)
def test_gfx950_rows_print_their_modifiers_in_the_gfx940_rows_order(sources):
    """PRINT_ORDER: GFX950's buffer_load_dword row lists sc0 sc1 nt, the GFX940 row sc0 nt sc1, and llvm-mc prints
    GFX940's order for gfx950 (gfx942_features.txt:36, whose RUN lines include -mcpu=gfx950)."""
    from gpuisa.codec.tables import _shared_docs
    from gpuisa.sources.llvm_syntax_docs import PRINT_ORDER, printed_order

    fix = PRINT_ORDER["GFX950"]
    row = (sources / fix.source.file).read_text().splitlines()[fix.source.line - 1]
    assert row.split()[0] == "buffer_load_dword" and row.index("sc1<") < row.index("nt<")   # the page's order
    rel, line = fix.evidence.split("MC/", 1)[1].rsplit(":", 1)
    head = (MC / rel).read_text().splitlines()[:4]
    assert any("-mcpu=gfx950" in x for x in head)
    asm, _data = llvm_check(rel, int(line))
    assert asm == fix.example and asm.index(" nt") < asm.index(" sc1")   # llvm-mc's order
    before = printed_order(_shared_docs(), "GFX950")
    assert {"sc0", "nt"} <= before["sc1"] and "dst_sel" in before["src0_sel"] and {"cbsz", "abid"} <= before["blgp"]
    assert "op_sel" not in before.get("cbsz", ()) and "cbsz" not in before.get("op_sel", ())   # in no one GFX940 row
    assert printed_order(_shared_docs(), "GFX940") is None


def test_permlane_swap_bound_ctrl_0_sets_the_bit(codec_env):
    """llvm-mc takes `bound_ctrl:0` on v_permlane16_swap_b32 as bound_ctrl:1 (gfx950_asm_features.s:2097-2099, its
    FIXME), and `fi:0` as no fi (:2116-2117): the e64 form's OPSEL bits (syntax.OP_SEL_IS_DPP)."""
    from gpuisa import encode

    lines = (MC / "AMDGPU/gfx950_asm_features.s").read_text().splitlines()
    assert "FIXME: Parsed as bound_ctrl:1?" in lines[2096]
    for line in (2099, 2117):
        written = lines[line - 2]
        _asm, data = llvm_check("AMDGPU/gfx950_asm_features.s", line)
        assert written.startswith("v_permlane16_swap_b32 v1, v2 ")
        [e] = encode(written, "gfx950")
        assert e.data == data, (written, e.data.hex(" "), data.hex(" "))


@pytest.mark.parametrize("line", [26, 1134])
def test_old_matrix_spellings_on_gfx950_assemble_as_the_listed_instruction(codec_env, line):
    """GFX950's page lists v_mfma_f32_16x16x32_f16 and v_smfmac_f32_16x16x64_f16 only; LLVM defines them as
    v_mfma_f32_16x16x32f16 (VOP3PInstructions.td:1324) and aliases v_smfmac_f32_16x16x64f16 (:3161), and assembles
    the old spelling (the input line two below the check) as the listed instruction (tables.MATRIX_OLD_SPELLING_TARGETS)."""
    from gpuisa import encode
    from gpuisa.paths import default_sources

    td = (default_sources() / "llvm-project-23.1.1/llvm/lib/Target/AMDGPU/VOP3PInstructions.td").read_text().splitlines()
    assert 'MAIInst<"v_mfma_f32_16x16x32f16"' in td[1324 - 1] and '"v_smfmac_f32_16x16x64f16"' in td[3161 - 1]
    written = (MC / "AMDGPU/mai-gfx950.s").read_text().splitlines()[line + 1]
    asm, data = llvm_check("AMDGPU/mai-gfx950.s", line)
    assert written.split()[0] != asm.split()[0] and written.split()[0].replace("_", "") == asm.split()[0].replace("_", "")
    [e] = encode(written, "gfx950")
    assert e.data == data


def test_a_bf16_literal_is_rounded_to_nearest_even(codec_env):
    """gfx950_xdlops.s:103-104: 10.1 for a bf16 source is the literal 0x4122, the nearest bfloat16 (float32 0x41219999
    rounded up), not its truncated top half 0x4121; ties go to the even pattern."""
    from gpuisa import encode
    from gpuisa.codec.operands import bf16_bits

    written = (MC / "AMDGPU/gfx950_xdlops.s").read_text().splitlines()[103 - 1]
    asm, data = llvm_check("AMDGPU/gfx950_xdlops.s", 104)
    assert written.startswith("v_dot2c_f32_bf16_e32 v5, 10.1, v2") and asm == "v_dot2c_f32_bf16_e32 v5, 0x4122, v2"
    [e] = encode(written.split(";")[0], "gfx950")
    assert e.data == data
    assert (bf16_bits(1.0 + 2 ** -8), bf16_bits(1.0 + 3 * 2 ** -8)) == (0x3F80, 0x3F82)   # ties to even

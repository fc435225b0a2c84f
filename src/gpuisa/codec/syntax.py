"""The operand syntax of AMDGPU assembly: register names, inline constants and modifiers.

One named table per kind, each entry with where it comes from. Spellings are LLVM's
(llvm/docs/AMDGPUOperandSyntax.rst, AMDGPUModifierSyntax.rst, LLVM 23.1.1); the numeric codes
of the scalar-source field are the AMD manuals' "SSRC / SRC" operand tables. Per-instruction
operand lists come from the syntax docs reader (sources/llvm_syntax_docs.py), never from here.
"""

from __future__ import annotations

import functools
import re
import struct
from collections.abc import Mapping
from dataclasses import dataclass

DOCS = "llvm-project-23.1.1/llvm/docs/AMDGPUOperandSyntax.rst"
MODS = "llvm-project-23.1.1/llvm/docs/AMDGPUModifierSyntax.rst"


def generation(target: str) -> int:
    """LLVM generation number of a gfx target: gfx90a -> 9, gfx1030 -> 10, gfx1250 -> 12."""
    digits = target[3:]
    return int(digits[:2]) if len(digits) == 4 else int(digits[0])


@dataclass(frozen=True, slots=True)
class Special:
    """A named scalar-source code: spelling, register width it stands for (dwords), source line."""

    name: str
    dwords: int
    source: str


# Scalar source / destination codes that name a register other than sN, per generation.
# (gens, code) -> Special. The 64-bit pair names (vcc, exec, flat_scratch, xnack_mask) are the
# spellings of code N with a 2-dword operand (AMDGPUOperandSyntax.rst "vcc", "exec", ...).
_SPECIAL_ROWS: tuple[tuple[tuple[int, ...], int, str, str, str], ...] = (
    ((9,), 102, "flat_scratch_lo", "flat_scratch", "amd-isa-manuals/vega/README.md:1189; " + DOCS + ":424"),
    ((9,), 103, "flat_scratch_hi", "", "amd-isa-manuals/vega/README.md:1190; " + DOCS + ":424"),
    ((9,), 104, "xnack_mask_lo", "xnack_mask", "amd-isa-manuals/vega/README.md:1191; " + DOCS + ":451"),
    ((9,), 105, "xnack_mask_hi", "", "amd-isa-manuals/vega/README.md:1192; " + DOCS + ":451"),
    ((9, 10, 11, 12), 106, "vcc_lo", "vcc", "amd-isa-manuals/rdna3/README.md:1311; " + DOCS + ":480"),
    ((9, 10, 11, 12), 107, "vcc_hi", "", "amd-isa-manuals/rdna3/README.md:1313"),
    ((9, 10), 124, "m0", "", "amd-isa-manuals/vega/README.md:1196; " + DOCS + ":511"),
    ((10,), 125, "null", "null", "amd-isa-manuals/rdna1/README.md (SSRC table); " + DOCS + ":595"),
    ((11, 12), 124, "null", "null", "amd-isa-manuals/rdna3/README.md:1316; " + DOCS + ":595"),
    ((11, 12), 125, "m0", "", "amd-isa-manuals/rdna3/README.md:1317; " + DOCS + ":511"),
    ((9, 10, 11, 12), 126, "exec_lo", "exec", "amd-isa-manuals/rdna3/README.md:1318; " + DOCS + ":526"),
    ((9, 10, 11, 12), 127, "exec_hi", "", "amd-isa-manuals/rdna3/README.md:1319"),
    ((9, 10, 11, 12), 235, "src_shared_base", "src_shared_base", "amd-isa-manuals/rdna3/README.md:1327; " + DOCS + ":690"),
    ((9, 10, 11, 12), 236, "src_shared_limit", "src_shared_limit", "amd-isa-manuals/rdna3/README.md:1328; " + DOCS + ":690"),
    ((9, 10, 11, 12), 237, "src_private_base", "src_private_base", "amd-isa-manuals/rdna3/README.md:1329; " + DOCS + ":690"),
    ((9, 10, 11, 12), 238, "src_private_limit", "src_private_limit", "amd-isa-manuals/rdna3/README.md:1330; " + DOCS + ":690"),
    ((9, 10), 239, "src_pops_exiting_wave_id", "", "amd-isa-manuals/vega/README.md (SRC table); " + DOCS + ":690"),
    ((9, 10, 11, 12), 251, "src_vccz", "", "amd-isa-manuals/vega/README.md:1220; " + DOCS + ":690"),
    ((9, 10, 11, 12), 252, "src_execz", "", "amd-isa-manuals/vega/README.md:1221; " + DOCS + ":690"),
    ((9, 10, 11, 12), 253, "src_scc", "", "amd-isa-manuals/vega/README.md:1222; " + DOCS + ":690"),
    ((9, 10), 254, "src_lds_direct", "", "amd-isa-manuals/vega/README.md:1223; " + DOCS + ":690"),
)

# Codes that select an extra dword or constant rather than a register (rdna3 manual lines 1320-1345).
LITERAL = 255
# 64-bit literal constants (cdna5 manual lines 1362-1366): code 254 in a source field is followed by 64 bits of
# constant, in SRC0 of VOP1 / VOP2 / VOPC and either source of SOP1 / SOP2 / SOPC; V_FMAAK_F64 / V_FMAMK_F64's K is
# always one. LLVM gives them to the targets with Feature64BitLiterals (AMDGPU.td:2166, FeatureISAVersion12_50).
LITERAL64 = 254
LITERAL64_TARGETS = frozenset({"gfx1250", "gfx1251"})
LITERAL64_ENCODINGS = frozenset({"VOP1", "VOP2", "VOPC", "SOP1", "SOP2", "SOPC"})
LITERAL64_K = frozenset({"v_fmaak_f64", "v_fmamk_f64"})
# Targets whose WMMA / SWMMAC leave OPSEL_HI2 (src2's op_sel_hi) clear by default, where gfx12 sets it as every VOP3P
# does: gfx1250_asm_wmma_w32.s:8 `v_wmma_f32_16x16x4_f32 v[4:11], v[0:1], v[2:3], v[4:11]` has byte 1 = 0x00, while
# gfx12_asm_wmma_w32.s:5 `v_wmma_f32_16x16x16_f16 ...` has 0x40; both set OPSEL_HI [60:59] (0x18 in byte 7).
MATRIX_SRC2_HI_CLEAR = frozenset({"gfx1250", "gfx1251"})


def literal64_text(value: int, is_float: bool) -> str:
    """llvm-mc's spelling of a 64-bit literal: lit64(..) when plain hex would read as a 32-bit literal
    (gfx1250_asm_valu_lit64.s:256 `lit64(0x7b)`), the high dword of a float whose low dword is zero
    (gfx1250_asm_vop2.s:595 v_fmaak_f64 K `0x405ec000`), else all 64 bits (`0x10abcdef12345678`)."""
    if value >> 32 == 0:
        return f"lit64(0x{value:x})"
    if is_float and value & 0xFFFFFFFF == 0:
        return f"0x{value >> 32:x}"
    return f"0x{value:x}"
DPP8, DPP8FI, SDWA, DPP16 = 233, 234, 249, 250
INLINE_INT_ZERO, INLINE_INT_MAX, INLINE_INT_NEG_MIN = 128, 192, 208   # 0, 1..64, -1..-16 (DOCS:642-643)

# Floating-point inline constants, codes 240-248 (rdna3 manual lines 1335-1344; DOCS:663-673):
# spelling and the bit patterns a half / single / double literal would have.
INLINE_FLOATS: dict[int, tuple[str, float]] = {
    240: ("0.5", 0.5), 241: ("-0.5", -0.5), 242: ("1.0", 1.0), 243: ("-1.0", -1.0),
    244: ("2.0", 2.0), 245: ("-2.0", -2.0), 246: ("4.0", 4.0), 247: ("-4.0", -4.0),
    248: ("0.15915494", 0.15915494309189532),
}
INV_2PI_BITS = {16: 0x3118, 32: 0x3E22F983, 64: 0x3FC45F306DC9C882}   # rdna3 manual lines 1345-1347
INV_2PI_F64_SPELLING = "0.15915494309189532"                           # DOCS:673

# The NULL register's scalar code per generation (rows above: 125 on gfx10, 124 from gfx11).
NULL_CODE = {9: 125, 10: 125, 11: 124, 12: 124}

# SMEM offsets (vega manual SMEM table: IMM, SOE; rdna manuals: SOFFSET = NULL for no register):
#   gfx9:  IMM=1 SOE=0 -> `sbase, 0xOFF`;  IMM=0 -> `sbase, sN` (the register code in OFFSET[7:0]);
#          IMM=1 SOE=1 -> `sbase, sN offset:0xOFF` (register in SOFFSET)
#   gfx10+: SOFFSET=NULL -> `sbase, 0xOFF`; else `sbase, sN offset:0xOFF` (offset:0x0 printed from gfx12)
# as llvm-mc prints them: gfx9_asm_smem.s, gfx10_smem.txt, gfx12_asm_smem.s.

# gfx12 cache policy (TH and SCOPE fields), AMDGPUModifierSyntax.rst:1115-1146. TH codes: 0 RT,
# 1 NT, 2 HT, 3 LU/WB (BYPASS in SYS scope), 4 NT_RT, 5 RT_NT, 6 NT_HT, 7 NT_WB (stores);
# atomics: bit 0 RETURN, bit 1 NT, bit 2 CASCADE (CASCADE_RT / _NT from DEV scope up).
TH_NAMES = {1: "NT", 2: "HT", 4: "NT_RT", 5: "RT_NT", 6: "NT_HT"}
SCOPES = ("SCOPE_CU", "SCOPE_SE", "SCOPE_DEV", "SCOPE_SYS")


def th_text(th: int, scope: int, kind: str) -> str | None:
    """`th:` spelling of a TH code for a load, store or atomic (None for the default 0)."""
    if th == 0:
        return None
    if kind == "atomic":
        if th & 4:
            return f"TH_ATOMIC_CASCADE_{'NT' if th & 2 else 'RT'}" if scope >= 2 else f"0x{th:x}"
        if th & 2:
            return "TH_ATOMIC_NT" + ("_RETURN" if th & 1 else "")
        return "TH_ATOMIC_RETURN" if th & 1 else f"0x{th:x}"
    prefix = "TH_STORE_" if kind == "store" else "TH_LOAD_"
    if th == 3:
        return prefix + ("BYPASS" if scope == 3 else "WB" if kind == "store" else "LU")
    if th == 7:
        return prefix + "NT_WB" if kind == "store" else f"0x{th:x}"
    return prefix + TH_NAMES[th]


def th_code(text: str, kind: str) -> int | None:
    """TH code of a `th:` value, or None when it is not one of `kind`'s names."""
    t = text.upper()
    if t.startswith("0X"):
        return int(t, 16)
    if kind == "atomic":
        table = {"TH_ATOMIC_RT": 0, "TH_ATOMIC_RETURN": 1, "TH_ATOMIC_RT_RETURN": 1, "TH_ATOMIC_NT": 2,
                 "TH_ATOMIC_NT_RETURN": 3, "TH_ATOMIC_CASCADE_RT": 4, "TH_ATOMIC_CASCADE_NT": 6}
        return table.get(t)
    prefix = "TH_STORE_" if kind == "store" else "TH_LOAD_"
    if not t.startswith(prefix):
        return None
    rest = t[len(prefix):]
    table = {"RT": 0, "NT": 1, "HT": 2, "LU": 3, "WB": 3, "BYPASS": 3, "NT_RT": 4, "RT_NT": 5, "NT_HT": 6, "NT_WB": 7}
    return table.get(rest)


# Export targets (EXP / EXPORT TARGET [9:4]): the manuals' codes (vega/README.md:5994, rdna1/README.md:2799,
# rdna3/README.md:6139, rdna4/README.md:6950) under LLVM's names (gfx11_tgt.rst: mrt{0..7}, mrtz, pos{0..4},
# prim, dual_src_blend0/1; gfx9/gfx10 add null and param{0..31}).
def export_target(code: int, gen: int) -> str | None:
    """LLVM's name of an export target code on a generation, or None when it names none."""
    if code <= 7:
        return f"mrt{code}"
    if code == 8:
        return "mrtz"
    if code == 9 and gen < 11:
        return "null"
    if 12 <= code <= (15 if gen == 9 else 16):
        return f"pos{code - 12}"
    if code == 20 and gen >= 10:
        return "prim"
    if code in (21, 22) and gen >= 11:
        return f"dual_src_blend{code - 21}"
    if 32 <= code <= 63 and gen < 11:
        return f"param{code - 32}"
    return None


def export_code(name: str, gen: int) -> int | None:
    """Inverse of export_target."""
    return next((c for c in range(64) if export_target(c, gen) == name), None)


# Modifiers llvm-mc prints even at 0, and the field each one sets (gfx11_dasm_vinterp.txt
# `v_interp_p10_f32 v0, -v1, v2, v3 wait_exp:0`; gfx11_dasm_ldsdir.txt `lds_direct_load v1 wait_vdst:15`;
# gfx12_dasm_vdsdir.txt `ds_direct_load v1 wait_va_vdst:15 wait_vm_vsrc:0`). GFX12's row lists wait_vdst
# too, as another spelling of wait_va_vdst (AMDGPUAsmGFX12.rst ds_direct_load); llvm-mc prints the latter.
ALWAYS_PRINTED = {"wait_exp": "WAITEXP", "wait_vdst": "WAIT_VA", "wait_va_vdst": "WAIT_VA",
                  "wait_vm_vsrc": "WAIT_VMVSRC"}
# v_permlane16_swap_b32 / v_permlane32_swap_b32 in VOP3: OPSEL holds DPP's fi (OPSEL bit 0, Inst{11}) and bound_ctrl
# (bit 1, Inst{12}), and llvm-mc prints them, not op_sel (VOPInstructions.td:335-346, VOP3OpSelIsDPP_gfx9;
# gfx950.txt:109 `v_permlane16_swap_b32_e64 v1, v2 bound_ctrl:1 fi:1` has 0x18 in byte 1). The assembler takes
# `bound_ctrl:0` as bound_ctrl:1, as for DPP (gfx950_asm_features.s:2098-2100, "FIXME: Parsed as bound_ctrl:1?").
# Mnemonic -> its VOP1 definition (VOP1Instructions.td); modifier -> OPSEL bit.
_VOP1_TD = "llvm-project-23.1.1/llvm/lib/Target/AMDGPU/VOP1Instructions.td"
OP_SEL_IS_DPP: dict[str, str] = {"v_permlane16_swap_b32": f"{_VOP1_TD}:915", "v_permlane32_swap_b32": f"{_VOP1_TD}:919"}
OP_SEL_DPP_BITS = {"bound_ctrl": 1, "fi": 0}
# VOP3 instructions whose TableGen profile has a third source with modifiers that the syntax row does not show (the
# destination's old value, tied to vdst): op_sel has an entry for it before the destination's, OPSEL bit 2
# (VOP3Instructions.td:699-704 VOP3_CVT_SR_F8_F32_Profile: src2_modifiers, VGPR_32:$src2; gfx942_features.txt:372
# `v_cvt_sr_bf8_f32 v1, v2, v3 op_sel:[0,0,1,1]` sets OPSEL bits 2 and 3; :1296-1300
# VOP3_CVT_SCALE_FP4_F16BF16_TiedInput_Profile, gfx950_dasm_vop3.txt:713 `v_cvt_scalef32_pk_fp4_bf16 v1, v2, v3
# op_sel:[0,0,1,1]`). Mnemonic -> its definition.
_VOP3_TD = "llvm-project-23.1.1/llvm/lib/Target/AMDGPU/VOP3Instructions.td"
OP_SEL_TIED_SRC2: dict[str, str] = {"v_cvt_sr_fp8_f32": f"{_VOP3_TD}:829", "v_cvt_sr_bf8_f32": f"{_VOP3_TD}:830",
                                    "v_cvt_scalef32_pk_fp4_f16": f"{_VOP3_TD}:1437",
                                    "v_cvt_scalef32_pk_fp4_bf16": f"{_VOP3_TD}:1438"}
# v_bitop3_b16 / v_bitop3_b32: the 8-bit truth table `bitop3:N` overloads the VOP3 modifier fields,
# TTBL = {OMOD[1:0], ABS[2:0], NEG[2:0]} (cdna4 manual, V_BITOP3_B16 pseudocode and notes: README.md:14418, 14433):
# (field, bit of the table its lowest bit holds)
BITOP3_FIELDS = (("NEG", 0), ("ABS", 3), ("OMOD", 6))
# ... and in a VOPD3 half (v_dual_bitop2_b32, the Y half only) the whole table sits in the half's third-source field,
# VSRCY2 [87:80] (VOPDInstructions.td:89 `Inst{87-80} = !if(... "bitop" ...), bitop3, ...)`; gfx1250_asm_vopd3.s:1558
# `... :: v_dual_bitop2_b32 v7, v1, v3 bitop3:1` has byte 10 = 0x01)
BITOP3_VOPD3_FIELD = "VSRC2"
# Instructions llvm-mc prints without the _e32 / _e64 suffix of their form although they have both forms
# (gfx1250_dasm_vop3_from_vop1.txt:2928 `v_nop` for the VOP3 word [0x00,0x00,0x80,0xd5,..]; gfx12_dasm_vop3_from_vop1.txt
# v_pipeflush likewise; gfx1250_dasm_vop1.txt:779 `v_cvt_pk_f16_bf8 v1, 0x64` for a VOP1 word and
# gfx1250_dasm_vop3_from_vop1.txt:4804 `v_cvt_pk_f16_bf8 v1, v150` for a VOP3 one): mnemonic -> the check line
NO_FORM_SUFFIX: dict[str, str] = {
    "v_nop": "llvm-project-23.1.1/llvm/test/MC/Disassembler/AMDGPU/gfx1250_dasm_vop3_from_vop1.txt:2928",
    "v_pipeflush": "llvm-project-23.1.1/llvm/test/MC/Disassembler/AMDGPU/gfx1250_dasm_vop3_from_vop1.txt:3047",
    "v_cvt_pk_f16_bf8": "llvm-project-23.1.1/llvm/test/MC/Disassembler/AMDGPU/gfx1250_dasm_vop1.txt:779",
    "v_cvt_pk_f16_fp8": "llvm-project-23.1.1/llvm/test/MC/Disassembler/AMDGPU/gfx1250_dasm_vop1.txt:789",
}

# Operand pages that describe a branch target where the row names the operand simm16, not label (GFX12's SOPP branches:
# gfx12_operands.rst:500 "A branch target which is a 16-bit signed integer treated as a PC-relative dword offset"):
# llvm-mc prints the 16 bits in decimal as for label (gfx12_dasm_sopp.txt:16 `s_branch 0`, :19 `s_branch 4660` for
# 0x1234), not as the hex of other 16-bit immediates.
BRANCH_TARGET_PAGES = frozenset({"amdgpu_synid_gfx12_simm16_dff4f4"})
# ... and those describing s_delay_alu's delay where the row names it simm16, not delay (gfx12_operands.rst, section
# amdgpu_synid_gfx12_simm16_faa0f8: "A delay between dependent SALU/VALU instructions"): read as GFX11's delay page
# is (codec/waitcnt.py delay_fields_of; gfx12_dasm_sopp.txt `s_delay_alu instid0(VALU_DEP_1)`).
DELAY_PAGES = frozenset({"amdgpu_synid_gfx12_simm16_faa0f8"})


def is_delay(op_name: str, page: str) -> bool:
    """Whether an operand is s_delay_alu's delay (GFX11's `delay` row operand, or a DELAY_PAGES page)."""
    return op_name == "delay" or page in DELAY_PAGES

# byte_sel:N of the gfx11+ fp8 / bf8 conversions: the byte of the packed operand, held in OPSEL bits that LLVM's
# TableGen places by profile (VOPInstructions.td:928-935): a source byte select (HasFP8SrcByteSel,
# VOP1Instructions.td:753) in OPSEL[0] (byte_sel bit 1) and OPSEL[1] (bit 0), "bit order intentionally reversed"
# (VOPInstructions.td:367); a destination byte select (HasFP8DstByteSel, VOP3Instructions.td:731) in OPSEL[3]
# (bit 1) and OPSEL[2] (bit 0). Those bits are no op_sel entry: gfx12_asm_vop3_from_vop1.s `v_cvt_f32_bf8_e64 v1, 3
# byte_sel:1` sets [12], gfx1250_asm_vop3-fake16.s `v_cvt_sr_bf8_f16 v1, v2, v3 op_sel:[1,0,0] byte_sel:1` [11] and
# [13]. (regular expression over the mnemonic, OPSEL bits for byte_sel bit 1 and bit 0, TableGen line)
BYTE_SEL: tuple[tuple[re.Pattern[str], tuple[int, int], str], ...] = (
    (re.compile(r"^v_cvt_(f32|f16)_(fp8|bf8)$"), (0, 1), "llvm-project-23.1.1/llvm/lib/Target/AMDGPU/VOP1Instructions.td:753"),
    (re.compile(r"^v_cvt_sr_(fp8|bf8)_(f32|f16)$"), (3, 2),
     "llvm-project-23.1.1/llvm/lib/Target/AMDGPU/VOP3Instructions.td:731"),
)


# gfx1250's WMMA / SWMMAC reuse hints (cdna5 manual, VOP3P OPSEL table, lines 3473-3475: OPSEL[2:0] = {RA, 0, 0},
# OPSEL_HI[2:0] = {RB, 0, 0}; the catalog's VOP3P layout holds OPSEL_HI[2] as OPSEL_HI2 [14]): modifier -> (field,
# bit). Those bits are neither op_sel's, op_sel_hi's nor index_key's (gfx1250_asm_wmma_w32.s:33 `v_wmma_f32_16x16x4_f32
# ... matrix_a_reuse` sets [13]; :38 `matrix_b_reuse` sets [14]).
# In the 128-bit VOP3PX2 (v_wmma_scale*) they sit in the load-scale half instead, SCL_OPSEL[13] and SCL_OPSEL_HI[2] [14]
# (cdna5 manual Table 97, lines 6819-6820; "F8F6F4 has reuse bits in LD_SCALE part of VOP3PX2", line 3482): the first
# field of each entry the layout has.
MATRIX_REUSE: dict[str, tuple[tuple[str, int], ...]] = {
    "matrix_a_reuse": (("SCL_OPSEL", 2), ("OPSEL", 2)), "matrix_b_reuse": (("SCL_OPSEL_HI_2", 0), ("OPSEL_HI2", 0))}
MATRIX_REUSE_SOURCE = "amd-isa-manuals/cdna5/README.md:3473"


def reuse_bit(name: str, fields) -> tuple[str, int] | None:
    """(field, bit) of a reuse hint in a layout with these fields (MATRIX_REUSE); None where it has none."""
    return next(((f, at) for f, at in MATRIX_REUSE[name] if f in fields), None)


# gfx1250's WMMA format and scale modifiers, each a value held in pieces of fields (field, bit of the value its low bit
# holds, bits): A / B data formats in OPSEL[2:0] / OPSEL_HI[2:0], OPSEL_HI[2] being OPSEL_HI2 (cdna5 manual lines
# 3723-3729: 0 FP8 .. 4 FP4); in VOP3PX2's load-scale half the scale row selects AscSel / BscSel, OPSEL[0] / OPSEL_HI[0]
# (line 3481) and the scale formats NEG[1:0] / NEG_HI[1:0] (lines 3731-3735: E8M0, E5M3, E4M3). LLVM's names by value
# (gfx1250_asm_wmma_w32.s:1138 `matrix_a_fmt:MATRIX_FMT_BF8 matrix_b_fmt:MATRIX_FMT_FP6 matrix_a_scale:MATRIX_SCALE_ROW1`;
# `matrix_a_scale_fmt:MATRIX_SCALE_FMT_E5M3`); a value 0 is not printed.
MATRIX_FIELD_MODIFIERS: dict[str, tuple[tuple[str, int, int], ...]] = {
    "matrix_a_fmt": (("OPSEL", 0, 3),),
    "matrix_b_fmt": (("OPSEL_HI", 0, 2), ("OPSEL_HI2", 2, 1)),
    "matrix_a_scale": (("SCL_OPSEL", 0, 1),),
    "matrix_b_scale": (("SCL_OPSEL_HI_1_0", 0, 1),),
    "matrix_a_scale_fmt": (("SCL_NEG", 0, 2),),
    "matrix_b_scale_fmt": (("SCL_NEG_HI", 0, 2),),
}
# The load-scale instruction alone (v_wmma_ld_scale_paired_b32 / _scale16_paired_b64: VOP3P) is the VOP3PX2's
# load-scale half by itself, its scale selects and formats in the VOP3P word's OPSEL[0] / OPSEL_HI[0] / NEG[1:0] /
# NEG_HI[1:0], which the 128-bit format names SCL_* (gfx1250_asm_wmma_w32.s:988 `matrix_a_scale:MATRIX_SCALE_ROW1`
# sets bit 11; :1003 matrix_b_scale bit 59; :1023 matrix_a_scale_fmt E5M3 bit 61; :1038 matrix_b_scale_fmt E5M3 bit 8).
LOAD_SCALE_ALONE_FIELDS: dict[str, tuple[tuple[str, int, int], ...]] = {
    "matrix_a_scale": (("OPSEL", 0, 1),), "matrix_b_scale": (("OPSEL_HI", 0, 1),),
    "matrix_a_scale_fmt": (("NEG", 0, 2),), "matrix_b_scale_fmt": (("NEG_HI", 0, 2),),
}


def matrix_pieces(name: str, fields: Mapping[str, object]) -> list[tuple[str, int, int]]:
    """(field, bit of the value, bits) holding a WMMA format / scale modifier in a layout with these fields: the
    MATRIX_FIELD_MODIFIERS pieces it has, else (a VOP3P word: the load-scale alone) LOAD_SCALE_ALONE_FIELDS's."""
    pieces = [p for p in MATRIX_FIELD_MODIFIERS[name] if p[0] in fields]
    return pieces or [p for p in LOAD_SCALE_ALONE_FIELDS.get(name, ()) if p[0] in fields]


_FORMATS = ("MATRIX_FMT_FP8", "MATRIX_FMT_BF8", "MATRIX_FMT_FP6", "MATRIX_FMT_BF6", "MATRIX_FMT_FP4")
_SCALE_FORMATS = ("MATRIX_SCALE_FMT_E8", "MATRIX_SCALE_FMT_E5M3", "MATRIX_SCALE_FMT_E4M3")
MATRIX_MODIFIER_NAMES: dict[str, tuple[str, ...]] = {
    "matrix_a_fmt": _FORMATS, "matrix_b_fmt": _FORMATS,
    "matrix_a_scale": ("MATRIX_SCALE_ROW0", "MATRIX_SCALE_ROW1"), "matrix_b_scale": ("MATRIX_SCALE_ROW0", "MATRIX_SCALE_ROW1"),
    "matrix_a_scale_fmt": _SCALE_FORMATS, "matrix_b_scale_fmt": _SCALE_FORMATS,
}
# VOP3PX2's two instructions per WMMA opcode: SCLOP [19:16] of the load-scale half names the scale size (cdna5 manual
# Table 97, line 6823: 'b0101 V_WMMA_SCALE_F32_16X16X128_F8F6F4; LLVM: gfx1250_asm_wmma_w32.s:1274 encodes
# v_wmma_scale16_f32_16x16x128_f8f6f4 with [19:16] = 'b1010, the opcode of v_wmma_ld_scale16_paired_b64, :1054).
# (mnemonic prefix, SCLOP, source)
VOP3PX2_SCLOP: tuple[tuple[str, int, str], ...] = (
    ("v_wmma_scale16_", 0b1010, "llvm-project-23.1.1/llvm/test/MC/AMDGPU/gfx1250_asm_wmma_w32.s:1274"),
    ("v_wmma_scale_", 0b0101, "amd-isa-manuals/cdna5/README.md:6823"),
)


def byte_sel_bits(base: str, gen: int) -> tuple[int, int] | None:
    """The OPSEL bits (for byte_sel's bit 1, bit 0) of a gfx11+ fp8 conversion's byte select (BYTE_SEL); None."""
    if gen < 11:
        return None
    name = str(base)   # str(): the fast path's traced mnemonic logs the question (re reads the buffer unasked)
    return next((bits for pattern, bits, _ in BYTE_SEL if pattern.match(name)), None)


ATTR_CHANNELS = "xyzw"     # attrN.x .. attrN.w: the ATTR_CHAN field (AMDGPUOperandSyntax.rst "attr")

# Hardware register names of hwreg(..) (s_getreg_b32 / s_setreg_b32: id in bits 5:0, offset 10:6,
# size-1 15:11; docs/AMDGPU/gfx*_hwreg.rst), per register family: code -> (name after HW_REG_, the
# LLVM MC test line under llvm/test/MC that prints it, or the docs page and manual line for a code no
# test shows). A family extends the one it follows (HWREG_BASE); a code with no name prints as a number.
HWREG_NAMES: dict[str, dict[int, tuple[str, str]]] = {
    "gfx9": {
        1: ("MODE", "AMDGPU/gfx7_asm_sopk.s:665"),
        3: ("TRAPSTS", "AMDGPU/sopk.s:289"),
        4: ("HW_ID", "AMDGPU/sopk.s:296"),
        5: ("GPR_ALLOC", "AMDGPU/sopk.s:147"),
        6: ("LDS_ALLOC", "AMDGPU/expressions.s:135"),
        15: ("SH_MEM_BASES", "AMDGPU/sopk-err.s:142"),
        16: ("TBA_LO", "AMDGPU/sopk-err.s:153"),
        17: ("TBA_HI", "AMDGPU/gfx9_asm_sopk.s:536"),
        18: ("TMA_LO", "AMDGPU/sopk-err.s:173"),
        19: ("TMA_HI", "AMDGPU/sopk-err.s:183"),
        2: ("STATUS", "docs/AMDGPU/gfx9_hwreg.rst (HW_REG_STATUS); amd-isa-manuals/vega/README.md:1068 (code 2)"),
        7: ("IB_STS", "docs/AMDGPU/gfx9_hwreg.rst (HW_REG_IB_STS); amd-isa-manuals/vega/README.md:1073 (code 7)"),
    },
    "gfx940": {
        19: ("TMA_HI", "AMDGPU/gfx942_asm_features.s:221"),
        20: ("XCC_ID", "AMDGPU/gfx942_asm_features.s:202"),
        21: ("SQ_PERF_SNAPSHOT_DATA", "AMDGPU/gfx942_asm_features.s:206"),
        22: ("SQ_PERF_SNAPSHOT_DATA1", "AMDGPU/gfx942_asm_features.s:210"),
        23: ("SQ_PERF_SNAPSHOT_PC_LO", "AMDGPU/gfx942_asm_features.s:214"),
        24: ("SQ_PERF_SNAPSHOT_PC_HI", "AMDGPU/gfx942_asm_features.s:218"),
    },
    "gfx10": {
        3: ("TRAPSTS", "AMDGPU/sopk.s:291"),
        5: ("GPR_ALLOC", "AMDGPU/sopk.s:149"),
        6: ("LDS_ALLOC", "AMDGPU/sopk.s:142"),
        15: ("SH_MEM_BASES", "AMDGPU/sopk-err.s:138"),
        16: ("TBA_LO", "AMDGPU/sopk-err.s:146"),
        17: ("TBA_HI", "AMDGPU/gfx10_asm_sop.s:5006"),
        18: ("TMA_LO", "AMDGPU/sopk-err.s:166"),
        19: ("TMA_HI", "AMDGPU/sopk-err.s:176"),
        20: ("FLAT_SCR_LO", "AMDGPU/sopk-err.s:186"),
        21: ("FLAT_SCR_HI", "AMDGPU/sopk-err.s:196"),
        22: ("XNACK_MASK", "AMDGPU/sopk-err.s:206"),
        23: ("HW_ID1", "AMDGPU/sopk.s:258"),
        24: ("HW_ID2", "AMDGPU/sopk.s:264"),
        25: ("POPS_PACKER", "AMDGPU/sopk-err.s:214"),
        1: ("MODE", "docs/AMDGPU/gfx10_hwreg.rst (HW_REG_MODE); amd-isa-manuals/rdna1/README.md:1251 (code 1)"),
        2: ("STATUS", "docs/AMDGPU/gfx10_hwreg.rst (HW_REG_STATUS); amd-isa-manuals/rdna1/README.md:1252 (code 2)"),
        7: ("IB_STS", "docs/AMDGPU/gfx10_hwreg.rst (HW_REG_IB_STS); amd-isa-manuals/rdna1/README.md:1259 (code 7)"),
    },
    "gfx1030": {
        29: ("SHADER_CYCLES", "AMDGPU/gfx1030_new.s:132"),
    },
    "gfx11": {
        1: ("MODE", "Disassembler/AMDGPU/gfx11_dasm_sopk.txt:483"),
        2: ("STATUS", "Disassembler/AMDGPU/gfx11_dasm_sopk.txt:492"),
        3: ("TRAPSTS", "AMDGPU/sopk.s:292"),
        5: ("GPR_ALLOC", "AMDGPU/sopk.s:150"),
        6: ("LDS_ALLOC", "AMDGPU/sopk.s:143"),
        7: ("IB_STS", "Disassembler/AMDGPU/gfx11_dasm_sopk.txt:477"),
        15: ("SH_MEM_BASES", "AMDGPU/sopk-err.s:143"),
        18: ("PERF_SNAPSHOT_PC_LO", "AMDGPU/gfx11_asm_sopk.s:377"),
        19: ("PERF_SNAPSHOT_PC_HI", "AMDGPU/gfx11_asm_sopk.s:374"),
        20: ("FLAT_SCR_LO", "AMDGPU/sopk-err.s:193"),
        21: ("FLAT_SCR_HI", "AMDGPU/sopk-err.s:203"),
        23: ("HW_ID1", "AMDGPU/sopk.s:259"),
        24: ("HW_ID2", "AMDGPU/sopk.s:265"),
        27: ("PERF_SNAPSHOT_DATA", "AMDGPU/gfx11_asm_sopk.s:371"),
    },
    "gfx12": {
        1: ("WAVE_MODE", "AMDGPU/gfx12_asm_sopk.s:197"),
        2: ("WAVE_STATUS", "AMDGPU/gfx12_asm_sopk.s:200"),
        4: ("WAVE_STATE_PRIV", "AMDGPU/gfx12_asm_sopk.s:203"),
        5: ("WAVE_GPR_ALLOC", "AMDGPU/gfx12_asm_sopk.s:206"),
        6: ("WAVE_LDS_ALLOC", "AMDGPU/gfx12_asm_sopk.s:209"),
        7: ("IB_STS", "AMDGPU/gfx12_asm_sopk.s:212"),
        10: ("PERF_SNAPSHOT_DATA", "AMDGPU/gfx12_asm_sopk.s:215"),
        11: ("PERF_SNAPSHOT_PC_LO", "AMDGPU/gfx12_asm_sopk.s:218"),
        12: ("PERF_SNAPSHOT_PC_HI", "AMDGPU/gfx12_asm_sopk.s:221"),
        15: ("PERF_SNAPSHOT_DATA1", "AMDGPU/gfx12_asm_sopk.s:224"),
        16: ("PERF_SNAPSHOT_DATA2", "AMDGPU/gfx12_asm_sopk.s:227"),
        17: ("WAVE_EXCP_FLAG_PRIV", "AMDGPU/gfx12_asm_sopk.s:230"),
        18: ("WAVE_EXCP_FLAG_USER", "AMDGPU/gfx12_asm_sopk.s:233"),
        19: ("WAVE_TRAP_CTRL", "AMDGPU/gfx12_asm_sopk.s:236"),
        20: ("WAVE_SCRATCH_BASE_LO", "AMDGPU/gfx12_asm_sopk.s:239"),
        21: ("WAVE_SCRATCH_BASE_HI", "AMDGPU/gfx12_asm_sopk.s:242"),
        23: ("WAVE_HW_ID1", "AMDGPU/gfx12_asm_sopk.s:245"),
        24: ("WAVE_HW_ID2", "AMDGPU/gfx12_asm_sopk.s:248"),
        26: ("WAVE_SCHED_MODE", "AMDGPU/gfx12_asm_sopk.s:263"),
        29: ("SHADER_CYCLES_LO", "AMDGPU/gfx12_asm_sopk.s:257"),
        30: ("SHADER_CYCLES_HI", "AMDGPU/gfx12_asm_sopk.s:260"),
        31: ("WAVE_DVGPR_ALLOC_LO", "AMDGPU/gfx12_asm_sopk.s:251"),
        32: ("WAVE_DVGPR_ALLOC_HI", "AMDGPU/gfx12_asm_sopk.s:254"),
    },
    "gfx1250": {   # over gfx12 (HWREG_BASE): only the codes gfx1250 adds
        28: ("IB_STS2", "AMDGPU/gfx1250_asm_operands.s:58"),
        33: ("XNACK_STATE_PRIV", "AMDGPU/gfx1250_asm_operands.s:33"),
        34: ("XNACK_MASK", "AMDGPU/gfx1250_asm_operands.s:40"),
    },
}
HWREG_BASE = {"gfx940": "gfx9", "gfx1030": "gfx10", "gfx1250": "gfx12"}
# codes a family does not take from its base: gfx1030 has no XNACK_MASK (gfx1030_hwreg.rst lists none;
# gfx1030_new.s:135 `s_getreg_b32 s2, hwreg(22)`)
HWREG_DROPPED = {"gfx1030": frozenset({22})}


def hwreg_family(target: str) -> str:
    """The HWREG_NAMES family of a gfx target."""
    if target in ("gfx940", "gfx941", "gfx942", "gfx950"):
        return "gfx940"
    for prefix, fam in (("gfx103", "gfx1030"), ("gfx10", "gfx10"), ("gfx11", "gfx11"), ("gfx125", "gfx1250"),
                        ("gfx12", "gfx12")):
        if target.startswith(prefix):
            return fam
    return "gfx9"


@functools.lru_cache(maxsize=64)
def hwreg_names(target: str) -> dict[int, str]:
    """code -> HW_REG_ name for a target (its family over the family it extends); one dict per target,
    shared: read it, never change it (it was rebuilt for every s_getreg / s_setreg printed)."""
    fam = hwreg_family(target)
    out = {code: "HW_REG_" + name for code, (name, _src) in HWREG_NAMES.get(HWREG_BASE.get(fam, ""), {}).items()
           if code not in HWREG_DROPPED.get(fam, ())}
    out.update({code: "HW_REG_" + name for code, (name, _src) in HWREG_NAMES[fam].items()})
    return out


def hwreg_text(value: int, target: str) -> str:
    """LLVM's hwreg(..) spelling of a 16-bit SIMM16: hwreg(NAME) for all 32 bits, else with offset and size."""
    code, offset, size = value & 0x3F, (value >> 6) & 0x1F, ((value >> 11) & 0x1F) + 1
    name = hwreg_names(target).get(code, str(code))
    return f"hwreg({name})" if offset == 0 and size == 32 else f"hwreg({name}, {offset}, {size})"


def hwreg_value(text: str, target: str) -> int | None:
    """SIMM16 of hwreg(NAME|ID[, offset, size]), or None when `text` is not one."""
    t = text.strip()
    if not (t.lower().startswith("hwreg(") and t.endswith(")")):
        return None
    parts = [p.strip() for p in t[6:-1].split(",")]
    if len(parts) not in (1, 3):
        raise ValueError(f"{text}: hwreg takes a register, or a register, an offset and a size")
    names = {name: code for code, name in hwreg_names(target).items()}
    reg = parts[0]
    code = names.get(reg.upper()) if not reg.isdigit() else int(reg)
    if code is None or not 0 <= code <= 63:
        raise ValueError(f"{text}: {reg} is not a hardware register on {target}")
    offset, size = (0, 32) if len(parts) == 1 else (int(parts[1], 0), int(parts[2], 0))
    if not (0 <= offset <= 31 and 1 <= size <= 32):
        raise ValueError(f"{text}: offset is 0..31 and size 1..32")
    return code | (offset << 6) | ((size - 1) << 11)


# Output modifier (OMOD field) spellings, AMDGPUModifierSyntax.rst "omod".
OMOD = {1: "mul:2", 2: "mul:4", 3: "div:2"}


def _specials(gen: int) -> dict[int, Special]:
    out: dict[int, Special] = {}
    for gens, code, lo, pair, src in _SPECIAL_ROWS:
        if gen in gens:
            out[code] = Special(lo, 1, src)
            if pair:
                out[code | 0x1000] = Special(pair, 2, src)
    return out


SPECIALS: dict[int, dict[int, Special]] = {g: _specials(g) for g in (9, 10, 11, 12)}
SPECIAL_CODES: dict[int, dict[str, int]] = {
    g: {s.name: code & 0xFFF for code, s in table.items()} for g, table in SPECIALS.items()}


def sgpr_limit(gen: int) -> int:
    """Highest SGPR number the scalar field can name (vega manual: 0-101; rdna3: 0-105)."""
    return 101 if gen == 9 else 105


def reg_range(prefix: str, first: int, dwords: int) -> str:
    """LLVM register spelling: v5, s[2:3], ttmp[4:7]."""
    if dwords == 1:
        return f"{prefix}{first}"
    return f"{prefix}[{first}:{first + dwords - 1}]"


def float_bits(value: float, bits: int) -> int | None:
    """IEEE bit pattern of `value` at 16, 32 or 64 bits; None when it does not fit that format."""
    fmt = {16: "<e", 32: "<f", 64: "<d"}[bits]
    try:
        return int.from_bytes(struct.pack(fmt, value), "little")
    except (OverflowError, struct.error):
        return None

"""Reader for LLVM's AMDGPU assembler syntax pages (llvm/docs/AMDGPU/*.rst, reStructuredText).

Each `AMDGPUAsmGFX*.rst` page lists, per encoding section (DS, SMEM, VOP3 ...), one row per
instruction inside a `parsed-literal` block whose columns are headed DST0.. SRC0.. MODIFIERS:

    ds_add_u32      :ref:`vaddr<amdgpu_synid_gfx11_vaddr_f20ee4>`,  :ref:`vdata<...>`   :ref:`offset<...>` :ref:`gds<...>`

Every `:ref:` links to an operand page: a section under a `.. _amdgpu_synid_...:` label, one per
file (gfx11_vaddr_f20ee4.rst) or many in one file (gfx12_operands.rst), plus the generic pages
AMDGPUOperandSyntax.rst (register kinds) and AMDGPUModifierSyntax.rst (modifiers). The pages are
parsed with docutils (the reference reStructuredText parser); `:ref:` and `:doc:` are Sphinx roles,
registered here to keep their targets. Rows keep their file:line; pages keep their label's line.

Public API: `read_syntax_docs(docs_dir) -> SyntaxDocs`, `families_for_target(docs, target)`,
`families_for_arch(docs, arch)`, `lookup(docs, families, mnemonic)`; records in `gpuisa.model_syntax`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import ClassVar, TypeVar

import docutils.frontend
import docutils.nodes as nodes
import docutils.parsers.rst
import docutils.utils
from docutils.parsers.rst import Directive, directives, roles

from gpuisa.archs import BY_KEY
from gpuisa.model import Provenance, Skip
from gpuisa.model_syntax import KIND_NAMES, OperandPage, SyntaxDocs, SyntaxFamily, SyntaxInstruction, SyntaxOperand

SOURCE = "llvm-syntax-docs"
R = TypeVar("R")
LABEL_PREFIX = "amdgpu_synid_"
GENERIC_PAGES = ("AMDGPUOperandSyntax.rst", "AMDGPUModifierSyntax.rst")

_ROLE_TEXT = re.compile(r"^(.*?)\s*<([^<>]+)>\s*$", re.S)
_FAMILY_FILE = re.compile(r"^AMDGPUAsm(GFX[0-9a-z]+)\.rst$")
# A gfx target has three or more digits or two and a letter (gfx950, gfx90a); GFX9 / GFX11 alone
# name a generation, not a target.
_TARGET = re.compile(r"\bgfx(\d{3,}[a-c]?|\d{2}[a-c])\b", re.I)
_SIZE = re.compile(r"^(\d+)\s+(dword|dwords|bits)\b")
_MNEMONIC = re.compile(r"^[a-z_][a-z0-9_.]*$")


@dataclass(frozen=True, slots=True)
class UnnamedTarget:
    """A gfx target no syntax page names, served by the page of its LLVM generation."""

    family: str
    reason: str
    source: Provenance


_USAGE = "llvm-project-23.1.1/llvm/docs/AMDGPUUsage.rst"
# Targets of our archs that no AMDGPUAsmGFX*.rst introduction names. LLVM's processor table
# (AMDGPUUsage.rst) places each under a generation heading; that generation's page serves it.
UNNAMED_TARGETS: dict[str, UnnamedTarget] = {
    **{t: UnnamedTarget("GFX11", "processor table lists it under 'GCN GFX11.5 (RDNA 3.5)'; no GFX11.5 syntax page "
                        "exists, the GFX11 page (gfx1100-gfx1103) is the nearest generation",
                        Provenance(SOURCE, _USAGE, 612, "Processors"))
       for t in ("gfx1150", "gfx1151", "gfx1152", "gfx1153")},
    **{t: UnnamedTarget("GFX12", "processor table lists it under 'GCN GFX12 (RDNA 4)'; the GFX12 page names no target",
                        Provenance(SOURCE, _USAGE, 672, "Processors"))
       for t in ("gfx1200", "gfx1201")},
    **{t: UnnamedTarget("GFX12", "processor table lists gfx1250 under 'GCN GFX12 (RDNA 4)' (gfx12-5-generic covers "
                        "gfx1250 and gfx1251); no GFX12.5 syntax page exists, the GFX12 page is the nearest",
                        Provenance(SOURCE, _USAGE, 688, "Processors"))
       for t in ("gfx1250", "gfx1251")},
}


@dataclass(frozen=True, slots=True)
class PageErratum:
    """An operand page that cannot describe the rows linking to it, and the page to read instead."""

    use: str          # label of the page that describes these operands when the row offers no twin
    reason: str
    source: Provenance
    older: str = ""   # the previous generation's page: its row of the same mnemonic links the right page
    twin: str = ""    # else an operand of the same row whose page has the right size and kinds (src1 for src0)


_GFX12_OPERANDS = "llvm-project-23.1.1/llvm/docs/AMDGPU/gfx12_operands.rst"
_GFX950_OPERANDS = "llvm-project-23.1.1/llvm/docs/AMDGPU/gfx950_operands.rst"
_GFX950_PAGE = "llvm-project-23.1.1/llvm/docs/AMDGPU/AMDGPUAsmGFX950.rst"
# Generator slips in the syntax pages, one entry per label, each with the line that shows it.
PAGE_ERRATA: dict[str, PageErratum] = {
    "amdgpu_synid_gfx12_src0_1d4114": PageErratum(
        "amdgpu_synid_gfx12_src0_7987e4",
        "every GFX12 VOP3 row (152, e.g. v_sad_u32) links src0 to a page describing an interpolation "
        "attribute ('attr0.x through attr63.w'); src0's page is read from the GFX11 row of the same "
        "instruction (2 dwords for v_fma_f64 and v_lshl_add_u64), else from the row's own src1, else the "
        "general 1-dword source page",
        Provenance(SOURCE, _GFX12_OPERANDS, 791, "amdgpu_synid_gfx12_src0_1d4114"), older="GFX11", twin="src1"),
    "amdgpu_synid_gfx950_src0_1d4114": PageErratum(
        "amdgpu_synid_gfx950_src0_14b47a",
        "the same slip on the GFX950 page: its 166 VOP3 rows (e.g. v_cvt_pk_bf8_f32) link src0 to the "
        "interpolation-attribute page; src0's page is read from the GFX940 row of the same instruction, "
        "else from the row's own src1 (1, 2 or 16 dwords)",
        Provenance(SOURCE, "llvm-project-23.1.1/llvm/docs/AMDGPU/gfx950_operands.rst", 860,
                   "amdgpu_synid_gfx950_src0_1d4114"), older="GFX940", twin="src1"),
    "amdgpu_synid_gfx12_ssrc0_19fcd2": PageErratum(
        "amdgpu_synid_sendmsg_rtn",
        "GFX12's s_sendmsg_rtn_b32 / _b64 rows link the message to an empty 'ssrc0' section, directly followed by the "
        "section that describes it (sendmsg_rtn, gfx12_operands.rst:1001: an integer or sendmsg(MSG_RTN_...)), as "
        "GFX11's rows link their msg operand to the message page; the message reads that section",
        Provenance(SOURCE, _GFX12_OPERANDS, 996, "amdgpu_synid_gfx12_ssrc0_19fcd2")),
    "amdgpu_synid_gfx12_ioffset": PageErratum(
        "amdgpu_synid_smem_offset24s",
        "GFX12's s_prefetch_* rows link their immediate offset to an 'ioffset' page listing no operand kinds "
        "(gfx12_operands.rst:127, '*Operands:*' empty); LLVM's TableGen gives it the SMEM offset operand "
        "(SMInstructions.td:242 `SMEMOffset:$offset`), the value the smem_offset24s page describes (a signed 24-bit "
        "integer or absolute expression), and the tests write integers there (gfx12_asm_smem.s:1427 "
        "`s_prefetch_inst s[12:13], 0x10, s4, 2`)",
        Provenance(SOURCE, _GFX12_OPERANDS, 127, "amdgpu_synid_gfx12_ioffset")),
    "amdgpu_synid_gfx12_sdata_5c7b50": PageErratum(
        "amdgpu_synid_uimm8",
        "GFX12's s_prefetch_* rows link their length to an 'sdata' page listing no operand kinds (gfx12_operands.rst:240, "
        "'*Operands:*' empty); LLVM's TableGen gives it an 8-bit immediate (SMInstructions.td:242 `i8imm:$sdata`), the "
        "value the uimm8 page describes, and the tests write integers there (gfx12_asm_smem.s:1427 "
        "`s_prefetch_inst s[12:13], 0x10, s4, 2`)",
        Provenance(SOURCE, _GFX12_OPERANDS, 240, "amdgpu_synid_gfx12_sdata_5c7b50")),
}


@dataclass(frozen=True, slots=True)
class OperandEvidence:
    """An operand page whose size or kinds LLVM's MC tests contradict (real assembler lines with
    encodings), and the page whose description the tests follow, chosen by the linking row's section."""

    use: dict[str, str]   # row section -> label of the page the tests agree with
    reason: str
    source: Provenance    # the page the tests contradict (its label line)
    evidence: str         # an LLVM MC test check line (file:line) with the encoding of ...
    example: str          # ... this assembly, which the page refuses
    older: str = ""       # first: the previous generation's row of the same mnemonic names the right page
    operands: tuple[str, ...] = ()   # only these operands of the row (all when empty)
    serving: tuple[str, ...] = ()    # only where the row is borrowed for these families (tables.fallback_rows),
                                     # or serves these family buckets ('GFX11 (rdna3.5)': gfx115x on GFX11's page)
    implicit: bool = False           # the tests leave the operand out: it is implied, not written
    adds: tuple[str, ...] = ()       # kinds the tests add to the page's own (the page stays, widened by these)


_MC = "llvm-project-23.1.1/llvm/test/MC/AMDGPU"
# Evidence-driven operand corrections: where LLVM's assembler tests write operands a page does not
# allow, the operand follows the tests and the page stays cited beside it (check-operands counts the
# examples each entry explains). Only the sections the tests show are corrected.
OPERAND_EVIDENCE: dict[str, OperandEvidence] = {
    "amdgpu_synid_gfx12_sdst_006c40": OperandEvidence(
        {"VOP2": "amdgpu_synid_gfx12_vcc"},
        "the GFX12 VOP2 carry rows (v_add_co_ci_u32, v_sub_co_ci_u32, v_subrev_co_ci_u32) link their carry-out to "
        "a '2 dwords' vcc page; wave32 tests write vcc_lo, as the GFX12 vcc page (vcc_lo if wavefront size is 32) "
        "and the GFX11 rows of the same instructions say",
        Provenance(SOURCE, _GFX12_OPERANDS, 392, "amdgpu_synid_gfx12_sdst_006c40"),
        f"{_MC}/gfx12_asm_vop2.s:8", "v_add_co_ci_u32_e32 v5, vcc_lo, v1, v2, vcc_lo"),
    "amdgpu_synid_gfx12_vdst_006c40": OperandEvidence(
        {"VOPC": "amdgpu_synid_gfx12_vcc"},
        "the GFX12 VOPC rows (e.g. v_cmp_eq_u32) link their VCC destination to a '2 dwords' vdst page; wave32 "
        "tests write vcc_lo, as the GFX12 vcc page (vcc_lo if wavefront size is 32) and the GFX11 rows (vcc) say",
        Provenance(SOURCE, _GFX12_OPERANDS, 1273, "amdgpu_synid_gfx12_vdst_006c40"),
        f"{_MC}/gfx12_asm_vopc.s:1661", "v_cmp_eq_u32_e32 vcc_lo, v1, v2"),
    "amdgpu_synid_gfx12_vcc": OperandEvidence(
        {"VOPD": "amdgpu_synid_gfx12_vcc"},
        "GFX12's VOPDX row of v_dual_cndmask_b32 lists a fourth operand, vcc; the tests write three (the VCC "
        "condition is implied), as the GFX11 VOPD rows of v_dual_cndmask_b32 list them",
        Provenance(SOURCE, "llvm-project-23.1.1/llvm/docs/AMDGPU/AMDGPUAsmGFX12.rst", 1359, "v_dual_cndmask_b32"),
        f"{_MC}/gfx12_asm_vopd.s:19", "v_dual_add_f32 v255, -1, v4 :: v_dual_cndmask_b32 v6, src_scc, v5",
        implicit=True),
    "amdgpu_synid_gfx12_src2_81ba27": OperandEvidence(
        {"VOP3": "amdgpu_synid_gfx11_ssrc_8dd4e0"},
        "GFX12's v_cndmask_b16 row links its lane-mask condition (src2) to a fixed '2 dwords' page; the wave32 tests "
        "write one SGPR (s3), as the GFX11 row's ssrc2 page says (1 dword if wavefront size is 32, otherwise 2)",
        Provenance(SOURCE, _GFX12_OPERANDS, 919, "amdgpu_synid_gfx12_src2_81ba27"),
        f"{_MC}/gfx12_asm_vop3-fake16.s:833", "v_cndmask_b16 v5, s105, s105, s3", older="GFX11"),
    "amdgpu_synid_gfx12_vaddr_f2b449": OperandEvidence(
        {"VBUFFER": "amdgpu_synid_gfx11_vaddr_b73dc0", "VGLOBAL": "amdgpu_synid_gfx11_vaddr_0212e3",
         "VFLAT": "amdgpu_synid_gfx11_vaddr_9f7133"},
        "every GFX12 buffer, flat and global row links vaddr to one '2 dwords, v' page; the tests write `off` "
        "(buffer, no idxen/offen) and a 1-dword offset (global with saddr), as the GFX11 buffer / flat / global "
        "vaddr pages describe",
        Provenance(SOURCE, _GFX12_OPERANDS, 1146, "amdgpu_synid_gfx12_vaddr_f2b449"),
        f"{_MC}/gfx12_asm_vbuffer_mubuf.s:5", "buffer_load_b32 v5, off, s[8:11], s3 offset:8388607",
        older="GFX11"),
    "amdgpu_synid_gfx12_saddr_6c410e": OperandEvidence(
        {"VGLOBAL": "amdgpu_synid_gfx11_saddr_beaa25"},
        "GFX12's global saddr page omits `off` (a 64-bit vaddr and no SGPR base); the tests write it, as the "
        "GFX11 global saddr page lists",
        Provenance(SOURCE, _GFX12_OPERANDS, 200, "amdgpu_synid_gfx12_saddr_6c410e"),
        f"{_MC}/gfx12_asm_vflat.s:1604", "global_load_b32 v1, v[3:4], off", older="GFX11"),
    "amdgpu_synid_gfx12_vaddr_c8b8d4": OperandEvidence(
        {"VSCRATCH": "amdgpu_synid_gfx11_vaddr_6ab80d"},
        "GFX12's scratch vaddr page omits `off` (an SGPR offset alone); the tests write it, as the GFX11 "
        "scratch vaddr page lists",
        Provenance(SOURCE, _GFX12_OPERANDS, 1119, "amdgpu_synid_gfx12_vaddr_c8b8d4"),
        f"{_MC}/gfx12_asm_vflat.s:2087", "scratch_load_b32 v1, off, s0 offset:-64", older="GFX11"),
    "amdgpu_synid_gfx12_saddr_8ad588": OperandEvidence(
        {"VSCRATCH": "amdgpu_synid_gfx11_saddr_8a0af3"},
        "GFX12's scratch saddr page omits `off` (a VGPR offset alone); the tests write it, as the GFX11 "
        "scratch saddr page lists",
        Provenance(SOURCE, _GFX12_OPERANDS, 191, "amdgpu_synid_gfx12_saddr_8ad588"),
        f"{_MC}/gfx12_asm_vflat.s:2096", "scratch_load_b32 v1, v0, off offset:-64", older="GFX11"),
    "amdgpu_synid_gfx12_vdata_69a144": OperandEvidence(
        {"VIMAGE": "amdgpu_synid_gfx11_vdst_eae4c8", "VSAMPLE": "amdgpu_synid_gfx11_vdst_eae4c8"},
        "GFX12's image rows (image_load, image_store, image_sample ...) link vdata to a fixed '4 dwords' page; "
        "the tests size it by dmask, tfe and d16 (image_load v0 ... dmask:0x1), as the GFX11 rows of the same "
        "instructions link their data operand to pages whose size depends on dmask, tfe and d16",
        Provenance(SOURCE, _GFX12_OPERANDS, 1218, "amdgpu_synid_gfx12_vdata_69a144"),
        f"{_MC}/gfx12_asm_vimage.s:658", "image_load v0, v0, s[0:7] dmask:0x1 dim:SQ_RSRC_IMG_1D", older="GFX11"),
    "amdgpu_synid_gfx12_vdata_89680f": OperandEvidence(
        {"VIMAGE": "amdgpu_synid_gfx11_vdata_84fab6"},
        "GFX12's image_atomic_cmpswap row links vdata to a '1 dword' page; the tests write 2 dwords (the compare "
        "value and the data, dmask:0x3), as the GFX11 row's vdata page says (2 data elements for 32-bit-per-pixel "
        "surfaces or 4 for 64-bit)",
        Provenance(SOURCE, _GFX12_OPERANDS, 1174, "amdgpu_synid_gfx12_vdata_89680f"),
        f"{_MC}/gfx12_asm_vimage.s:95", "image_atomic_cmpswap v[0:1], v0, s[0:7] dmask:0x3 dim:SQ_RSRC_IMG_1D",
        older="GFX11"),
    "amdgpu_synid_gfx12_vaddr_d82160": OperandEvidence(
        {"VIMAGE": "amdgpu_synid_gfx11_vaddr_a5639c", "VSAMPLE": "amdgpu_synid_gfx11_vaddr_a5639c"},
        "GFX12's image rows link vaddr to a fixed '4 dwords' page; the tests write 1 to 4 address VGPRs as dim "
        "and a16 require (image_load ... v0 ... dim:SQ_RSRC_IMG_1D), as the GFX11 rows' vaddr page says "
        "(1-12 dwords, by opcode, dim and a16)",
        Provenance(SOURCE, _GFX12_OPERANDS, 1155, "amdgpu_synid_gfx12_vaddr_d82160"),
        f"{_MC}/gfx12_asm_vimage.s:746", "image_load v[0:3], v0, s[0:7] dmask:0xf dim:SQ_RSRC_IMG_1D", older="GFX11"),
    "amdgpu_synid_gfx12_soffset_ab3dc3": OperandEvidence(
        {"SMEM": "amdgpu_synid_gfx12_soffset_ab3dc3"},
        "GFX12's s_load / s_atc_probe soffset page says 'If offset is specified as a 21-bit immediate, it supplies a "
        "signed byte offset' but lists registers only; LLVM writes the immediate there when no soffset register is used "
        "(SMInstructions.td:102 IMM_Offset, asm `$offset`), and the tests do: the page is widened by simm21, as GFX11's "
        "s_load soffset page lists it (gfx11_soffset_73dae7.rst)",
        Provenance(SOURCE, _GFX12_OPERANDS, 711, "amdgpu_synid_gfx12_soffset_ab3dc3"),
        f"{_MC}/gfx12_asm_smem.s:845", "s_load_b32 s5, s[2:3], 0x0", adds=("simm21",)),
    "amdgpu_synid_gfx12_soffset_1764b4": OperandEvidence(
        {"SMEM": "amdgpu_synid_gfx12_soffset_1764b4"},
        "GFX12's s_buffer_load soffset page says 'An unsigned 20-bit offset' but lists registers only; LLVM writes the "
        "immediate there when no soffset register is used (SMInstructions.td:102 IMM_Offset), and the tests do: the page "
        "is widened by uimm20, as GFX11's s_buffer_load soffset page lists it (gfx11_soffset_0f304c.rst)",
        Provenance(SOURCE, _GFX12_OPERANDS, 725, "amdgpu_synid_gfx12_soffset_1764b4"),
        f"{_MC}/gfx12_asm_smem.s:157", "s_buffer_load_b32 s5, s[4:7], 0x0", adds=("uimm20",)),
    "amdgpu_synid_gfx12_ssrc0_1a9ca5": OperandEvidence(
        {"SOP1": "amdgpu_synid_gfx12_ssrc0_1a9ca5"},
        "GFX12's s_barrier_signal / s_barrier_signal_isfirst link the barrier to a page listing m0 only; LLVM also "
        "defines them on an immediate barrier id (SOPInstructions.td:530 S_BARRIER_SIGNAL_IMM, `ins SplitBarrier:$src0`), "
        "which the tests write as an inline constant: the page is widened by iconst",
        Provenance(SOURCE, _GFX12_OPERANDS, 1031, "amdgpu_synid_gfx12_ssrc0_1a9ca5"),
        f"{_MC}/gfx12_asm_sop1.s:715", "s_barrier_signal -1", adds=("iconst",)),
    "amdgpu_synid_gfx908_vsrc_036abe": OperandEvidence(
        {"VOP3P": "amdgpu_synid_gfx908_vsrc_036abe"},
        "GFX908's MFMA rows link srcC (vsrc2) to a page accepting AGPRs only; LLVM's gfx908 tests write integer "
        "and float inline constants there (v_mfma_f32_32x32x1f32 a[0:31], v0, v1, -2.0), as the GFX90a rows' "
        "srcC page lists iconst and fconst (it also lists VGPRs, which gfx908 has not: only the constants are added)",
        Provenance(SOURCE, "llvm-project-23.1.1/llvm/docs/AMDGPU/gfx908_vsrc_036abe.rst", 8,
                   "amdgpu_synid_gfx908_vsrc_036abe"),
        "llvm-project-23.1.1/llvm/test/MC/Disassembler/AMDGPU/gfx908_mai.txt:71",
        "v_mfma_f32_32x32x1f32 a[0:31], v0, v1, -2.0", adds=("iconst", "fconst")),
    **{label: OperandEvidence(
        {"VOP3P": label},
        f"GFX908's MFMA rows link a {size} srcC (vsrc2) to a page accepting AGPRs only; LLVM's gfx908 tests write "
        "inline constants there, as for the 32-dword srcC page above (only the constants are added)",
        Provenance(SOURCE, f"llvm-project-23.1.1/llvm/docs/AMDGPU/{label.removeprefix('amdgpu_synid_')}.rst", 8,
                   label),
        f"llvm-project-23.1.1/llvm/test/MC/Disassembler/AMDGPU/gfx908_mai.txt:{line}", example,
        adds=("iconst", "fconst"))
      for label, size, line, example in (
          ("amdgpu_synid_gfx908_vsrc_2d4632", "16-dword", 119, "v_mfma_f32_16x16x1f32 a[0:15], v0, v1, -2.0"),
          ("amdgpu_synid_gfx908_vsrc_f3d248", "4-dword", 167, "v_mfma_f32_4x4x1f32 a[0:3], v0, v1, -2.0"))},
    "amdgpu_synid_gfx950_addr_c8b8d4": OperandEvidence(
        {"FLAT_SCRATCH": "amdgpu_synid_gfx940_vaddr_6ab80d"},
        "GFX950's scratch rows link addr to a VGPR-only page; the tests (run for gfx942 and gfx950) write `off` "
        "(an SGPR offset alone), as the GFX940 rows of the same instructions link vaddr to a page listing off",
        Provenance(SOURCE, "llvm-project-23.1.1/llvm/docs/AMDGPU/gfx950_operands.rst", 8,
                   "amdgpu_synid_gfx950_addr_c8b8d4"),
        f"{_MC}/flat-scratch-gfx942.s:6", "scratch_load_dword a2, off, off", older="GFX940"),
    "amdgpu_synid_gfx950_saddr_13d69a": OperandEvidence(
        {"FLAT_SCRATCH": "amdgpu_synid_gfx940_saddr_22dbc1"},
        "GFX950's scratch saddr page omits `off` (a VGPR offset alone); the tests write it, as the GFX940 scratch "
        "saddr page lists",
        Provenance(SOURCE, "llvm-project-23.1.1/llvm/docs/AMDGPU/gfx950_operands.rst", 160,
                   "amdgpu_synid_gfx950_saddr_13d69a"),
        f"{_MC}/flat-scratch-gfx942.s:18", "scratch_load_dword a2, v4, off", older="GFX940"),
    "amdgpu_synid_gfx950_vaddr": OperandEvidence(
        {"MUBUF": "amdgpu_synid_gfx940_vaddr_b73dc0"},
        "GFX950's buffer rows link vaddr to a VGPR-only page; the gfx950 tests write `off` (no offen / idxen), as the "
        "GFX940 rows of the same instructions link vaddr to a page of 0, 1 or 2 dwords by offen and idxen",
        Provenance(SOURCE, _GFX950_OPERANDS, 1164, "amdgpu_synid_gfx950_vaddr"),
        f"{_MC}/gfx950_asm_features.s:32", "buffer_atomic_pk_add_bf16 v255, off, s[8:11], s3 offset:4095",
        older="GFX940"),
    "amdgpu_synid_gfx11_vsrc_6802ce": OperandEvidence(
        {"VOP3 DPP": "amdgpu_synid_gfx11_src_852d86"},
        "GFX12 has no VOP3 DPP rows; those borrowed from GFX11 take vsrc1 as a VGPR only, while the GFX12 tests "
        "write SGPRs, special registers and inline constants there (no literal): vsrc1 reads the page of the "
        "same GFX11 row's src2, which lists exactly those kinds. gfx1150-gfx1153 (rdna3.5, served by the GFX11 "
        "page) take them too (gfx1150_asm_features.s:7 'Subtargets allow src1 of VOP3 DPP instructions to be SGPR "
        "or inlinable constant', its check line :11 encodes v_add3_u32_e64_dpp v5, v1, s2, v3); gfx1100-gfx1103 "
        "do not (gfx11_asm_err.s:56 expects an error)",
        Provenance(SOURCE, "llvm-project-23.1.1/llvm/docs/AMDGPU/gfx11_vsrc_6802ce.rst", 8,
                   "amdgpu_synid_gfx11_vsrc_6802ce"),
        f"{_MC}/gfx12_asm_vop3_dpp16.s:524", "v_add3_u32_e64_dpp v5, v1, s2, v3 quad_perm:[3,2,1,0]",
        operands=("vsrc1",), serving=("GFX12", "GFX11 (rdna3.5)")),
}


@dataclass(frozen=True, slots=True)
class RowEvidence:
    """A row no page lists, derived by rule from a row the page does list, where LLVM's MC tests
    assemble the derived form: the rule, the pages it serves, and one test line that shows it."""

    families: tuple[str, ...]   # pages (a chain's first) or family buckets ('GFX12 (cdna5)') the rule serves
    reason: str
    source: Provenance          # a row of the pattern the derivation follows (the shape LLVM's pages give)
    evidence: str               # an LLVM MC test check line (file:line) with the encoding of ...
    example: str                # ... this assembly, whose mnemonic no page lists
    # operand -> what it holds, where the derived row gives it another role than the listed row's page describes
    operands: tuple[tuple[str, str], ...] = ()
    modifiers: tuple[str, ...] = ()   # modifiers the derived row adds to the listed row's


_GFX11_PAGE = "llvm-project-23.1.1/llvm/docs/AMDGPU/AMDGPUAsmGFX11.rst"
_GFX12_PAGE = "llvm-project-23.1.1/llvm/docs/AMDGPU/AMDGPUAsmGFX12.rst"
# Rows derived from the page's own rows. GFX12's page lists no DPP rows; LLVM's GFX12 tests assemble
# DPP16 / DPP8 forms of every 32-bit VOP1 / VOP2 / VOPC / VOP3 instruction, including those renamed
# or new in GFX12 that no other page lists (v_max_num_f16_dpp, v_med3_num_f16_e64_dpp). Their row is
# the instruction's plain row with src0 a VGPR and GFX11's DPP modifiers (codec.tables.dpp_row).
_DASM = "llvm-project-23.1.1/llvm/test/MC/Disassembler/AMDGPU"
# gfx1150's SALU float instructions under the names GFX12 gave them (GFX11's page lists neither, GFX12's
# lists the new names): old mnemonic -> (GFX12 mnemonic, gfx1150 check line, GFX12 check line), the two
# check lines printing the same encoding.
RENAMED_IN_GFX12: dict[str, tuple[str, str, str]] = {
    "s_min_f32": ("s_min_num_f32", f"{_DASM}/gfx1150_dasm_salu_float.txt:2132", f"{_MC}/gfx12_asm_sop2.s:400"),
    "s_max_f32": ("s_max_num_f32", f"{_DASM}/gfx1150_dasm_salu_float.txt:2033", f"{_MC}/gfx12_asm_sop2.s:451"),
    "s_max_f16": ("s_max_num_f16", f"{_DASM}/gfx1150_dasm_salu_float.txt:1985", f"{_MC}/gfx12_asm_sop2.s:969"),
    "s_min_f16": ("s_min_num_f16", f"{_DASM}/gfx1150_dasm_salu_float.txt:2084", f"{_MC}/gfx12_asm_sop2.s:1017"),
}
# gfx1250's names for GFX12's program-counter instructions: new mnemonic -> (GFX12's mnemonic, the gfx1250 check line
# where LLVM assembles the GFX12 spelling and prints the new one with the same encoding).
RENAMED_IN_GFX1250: dict[str, tuple[str, str]] = {
    "s_get_pc_i64": ("s_getpc_b64", f"{_MC}/gfx1250_asm_sop1.s:27"),
    "s_set_pc_i64": ("s_setpc_b64", f"{_MC}/gfx1250_asm_sop1.s:34"),
    "s_swap_pc_i64": ("s_swappc_b64", f"{_MC}/gfx1250_asm_sop1.s:41"),
    "s_rfe_i64": ("s_rfe_b64", f"{_MC}/gfx1250_asm_sop1.s:48"),
    "s_call_i64": ("s_call_b64", f"{_MC}/gfx1250_asm_sopk.s:9"),
}
# gfx1250 instructions no page lists that read one operand and write none, each with the listed row whose source it
# takes (LLVM's TableGen gives the same operand class): new mnemonic -> (listed mnemonic, TableGen line of its class).
# SOPInstructions.td:157-158 SOP1_1_REGIMM64 `(outs), (ins SSrc_b64:$src0)`: s_bcnt1_i32_b64's ssrc0 (SSrc_b64,
# the GFX12 page's ssrc0 of 2 dwords with constants and literals), without its sdst. ROW_EVIDENCE "source only".
SOURCE_ONLY_GFX1250: dict[str, tuple[str, str]] = {
    "s_add_pc_i64": ("s_bcnt1_i32_b64", "llvm-project-23.1.1/llvm/lib/Target/AMDGPU/SOPInstructions.td:157"),
}
# SDWA forms no page lists -> the listed SDWA row whose operand list LLVM's tests write for them
# (ROW_EVIDENCE "sdwa row of an integer vop2").
SDWA_TWINS: dict[str, str] = {"v_pk_fmac_f16_sdwa": "v_add_u16_sdwa"}
_CDNA5 = "amd-isa-manuals/cdna5/README.md"
# gfx1250 instructions no page lists, each with a GFX12-listed instruction of the same shape: the cdna5 manual's
# opcode tables place both in the same encodings (VOP1 and VOP3, VOP3 only, VOP3P), and their operands have the
# same count and register widths (v_tanh_f32 / v_sqrt_f32: a 32-bit result of one 32-bit source; v_add_nc_u64 /
# v_add_f64: 64-bit result of two 64-bit sources). new mnemonic -> (listed mnemonic, manual line of the new one's
# first opcode-table row). Only instructions whose LLVM tests show that shape (ROW_EVIDENCE "same shape").
SAME_SHAPE_GFX1250: dict[str, tuple[str, int]] = {
    "v_tanh_f16": ("v_sqrt_f16", 6220), "v_tanh_f32": ("v_sqrt_f32", 6219),
    "v_cvt_f16_fp8": ("v_cvt_f32_fp8", 6236), "v_cvt_f16_bf8": ("v_cvt_f32_bf8", 6237),
    "v_cvt_sr_fp8_f16": ("v_cvt_sr_fp8_f32", 6696), "v_cvt_sr_bf8_f16": ("v_cvt_sr_bf8_f32", 6697),
    "v_sat_pk4_i4_i8": ("v_sat_pk_u8_i16", 6232), "v_sat_pk4_u4_u8": ("v_sat_pk_u8_i16", 6233),
    "v_add_nc_u64": ("v_add_f64", 6150), "v_sub_nc_u64": ("v_add_f64", 6151), "v_mul_u64": ("v_mul_f64", 6152),
    "v_add_max_i32": ("v_add3_u32", 6545), "v_add_max_u32": ("v_add3_u32", 6546),
    "v_add_min_i32": ("v_add3_u32", 6547), "v_add_min_u32": ("v_add3_u32", 6548), "v_mad_u32": ("v_mad_u32_u24", 6507),
    "v_permlane_bcast_b32": ("v_permlane16_b32", 6561), "v_permlane_up_b32": ("v_permlane16_b32", 6562),
    "v_permlane_down_b32": ("v_permlane16_b32", 6563), "v_permlane_xor_b32": ("v_permlane16_b32", 6564),
    "v_max_u64": ("v_maximum_f64", 6648), "v_min_u64": ("v_maximum_f64", 6647),
    "v_max_i64": ("v_maximum_f64", 6650), "v_min_i64": ("v_maximum_f64", 6649),
    "v_cvt_sr_pk_bf16_f32": ("v_fma_f32", 6691), "v_cvt_sr_pk_f16_f32": ("v_fma_f32", 6693),
    "v_cvt_pk_f16_fp8": ("v_cvt_f32_f16", 6234), "v_cvt_pk_f16_bf8": ("v_cvt_f32_f16", 6235),
    "v_pk_min3_num_f16": ("v_pk_fma_f16", 6764), "v_pk_max3_num_f16": ("v_pk_fma_f16", 6765),
    "v_pk_add_max_i16": ("v_pk_mad_i16", 6783), "v_pk_add_max_u16": ("v_pk_mad_u16", 6784),
    "v_pk_max3_i16": ("v_pk_mad_i16", 6805), "v_pk_max3_u16": ("v_pk_mad_u16", 6806),
    "v_pk_min3_i16": ("v_pk_mad_i16", 6807), "v_pk_min3_u16": ("v_pk_mad_u16", 6808),
    "v_pk_add_min_i16": ("v_pk_mad_i16", 6803), "v_pk_add_min_u16": ("v_pk_mad_u16", 6804),
    "v_fma_mix_f32_bf16": ("v_fma_mix_f32", 6766), "v_fma_mixlo_bf16": ("v_fma_mixlo_f16", 6767),
    "v_fma_mixhi_bf16": ("v_fma_mixhi_f16", 6768), "v_permlane_idx_gen_b32": ("v_bfm_b32", 6646),
    # memory: the same address and data registers as the plain load / store / 64-bit atomic of the table
    "ds_load_tr4_b64": ("ds_load_b64", 7090), "ds_load_tr6_b96": ("ds_load_b96", 7091),
    "ds_load_tr16_b128": ("ds_load_b128", 7092), "ds_load_tr8_b64": ("ds_load_b64", 7093),
    "buffer_atomic_min_num_f64": ("buffer_atomic_min_u64", 7162),
    "buffer_atomic_max_num_f64": ("buffer_atomic_max_u64", 7163),
    "flat_atomic_min_num_f64": ("flat_atomic_min_u64", 7263), "flat_atomic_max_num_f64": ("flat_atomic_max_u64", 7264),
    "flat_load_monitor_b32": ("flat_load_b32", 7266), "flat_load_monitor_b64": ("flat_load_b64", 7267),
    "flat_load_monitor_b128": ("flat_load_b128", 7268),
    "global_load_tr16_b128": ("global_load_b128", 7295), "global_load_tr8_b64": ("global_load_b64", 7296),
    "global_atomic_min_num_f64": ("global_atomic_min_u64", 7299),
    "global_atomic_max_num_f64": ("global_atomic_max_u64", 7300),
    "global_store_async_from_lds_b8": ("global_store_b32", 7306),
    "global_store_async_from_lds_b32": ("global_store_b32", 7307),
    "global_store_async_from_lds_b64": ("global_store_b32", 7308),
    "global_store_async_from_lds_b128": ("global_store_b32", 7309),
    "cluster_load_b32": ("global_load_b32", 7310), "cluster_load_b64": ("global_load_b64", 7311),
    "cluster_load_b128": ("global_load_b128", 7312),
    "global_load_monitor_b32": ("global_load_b32", 7319), "global_load_monitor_b64": ("global_load_b64", 7320),
    "global_load_monitor_b128": ("global_load_b128", 7321),
    "global_load_tr4_b64": ("global_load_b64", 7322), "global_load_tr6_b96": ("global_load_b96", 7323),
    # scalar program control: one 16-bit immediate, as the SOPP waits / priority / sleep rows of the same table
    "s_wait_xcnt": ("s_wait_loadcnt", 6070), "s_wait_asynccnt": ("s_wait_loadcnt", 6078),
    "s_wait_tensorcnt": ("s_wait_loadcnt", 6079), "s_monitor_sleep": ("s_sleep", 6058),
    "s_set_vgpr_msb": ("s_setprio", 6060), "s_setprio_inc_wg": ("s_setprio", 6067),
    # named barriers and the cycle counter (SOP1, SOPP): one scalar source (the barrier: an inline constant or M0:
    # gfx12_asm_sop1.s `s_barrier_init -1`, `s_barrier_join m0`), a destination and a source (gfx1250_asm_sop1.s
    # `s_get_barrier_state s3, m0`), no operand (gfx12_asm_sopp.s `s_barrier_leave`)
    "s_barrier_init": ("s_barrier_signal", 5973), "s_barrier_join": ("s_barrier_signal", 5974),
    "s_wakeup_barrier": ("s_barrier_signal", 5976), "s_get_barrier_state": ("s_mov_b32", 5972),
    "s_barrier_leave": ("s_wakeup", 6069),
    # the returning barrier arrive: a 64-bit result, an LDS address and 64-bit data (gfx1250_asm_ds.s
    # `ds_atomic_barrier_arrive_rtn_b64 v[2:3], v2, v[4:5]`), as the 64-bit returning atomics
    "ds_atomic_barrier_arrive_rtn_b64": ("ds_add_rtn_u64", 7061),
}
_TD = "llvm-project-23.1.1/llvm/lib/Target/AMDGPU"
# gfx1250 / gfx1251 64-bit instructions no page lists whose operands are the 32-bit twin's with every VGPR operand twice
# as wide: new mnemonic -> (listed twin, where the width is stated: LLVM's TableGen definition with its profile's
# types, or the cdna5 manual's description). ROW_EVIDENCE "64-bit twin of the 32-bit row".
WIDE_TWINS: dict[str, tuple[str, str]] = {
    "v_pk_add_f64": ("v_pk_add_f32", f"{_TD}/VOP3PInstructions.td:1468"),
    "v_pk_mul_f64": ("v_pk_mul_f32", f"{_TD}/VOP3PInstructions.td:1467"),
    "v_pk_fma_f64": ("v_pk_fma_f32", f"{_TD}/VOP3PInstructions.td:1466"),
    "v_pk_max_num_f64": ("v_pk_add_f32", f"{_TD}/VOP3PInstructions.td:186"),
    "v_pk_min_num_f64": ("v_pk_add_f32", f"{_TD}/VOP3PInstructions.td:187"),
    "v_pk_add_nc_u64": ("v_pk_add_f32", f"{_TD}/VOP3PInstructions.td:191"),
    "v_pk_sub_nc_u64": ("v_pk_add_f32", f"{_TD}/VOP3PInstructions.td:207"),
    "v_pk_lshl_add_u64": ("v_lshl_add_u64", f"{_TD}/VOP3PInstructions.td:208"),
    "v_fmaak_f64": ("v_fmaak_f32", f"{_TD}/VOP2Instructions.td:1358"),
    "v_fmamk_f64": ("v_fmamk_f32", f"{_TD}/VOP2Instructions.td:1355"),
}
# gfx1250 instructions no page lists, no listed instruction shares their register widths: the operand list (names,
# kinds, modifiers, forms) of a listed instruction of the cdna5 manual's VOP3 table with as many sources, each register
# sized by the types of LLVM's TableGen profile for the new one (VOPProfile<[result, src0, src1, src2]>:
# VOP3_V3I32_I32_I64_V2I32 is a 96-bit result of a 32-bit, a 64-bit and a 64-bit source). ROW_EVIDENCE "twin row sized
# by its tablegen profile".
@dataclass(frozen=True, slots=True)
class ProfileTwin:
    twin: str                # the listed instruction whose operand list it takes
    types: tuple[str, ...]   # the profile's types: result, then sources, as the TableGen line gives them
    profile: str             # TD file:line defining the profile (the types are read there)
    manual: int              # cdna5 manual line of the new instruction's VOP3 opcode-table row


PROFILE_TWINS: dict[str, ProfileTwin] = {
    "v_perm_pk16_b4_u4": ProfileTwin("v_perm_b32", ("v2i32", "i32", "i32", "v2i32"),
                                     f"{_TD}/VOP3Instructions.td:1833", 6514),
    "v_perm_pk16_b6_u4": ProfileTwin("v_perm_b32", ("v3i32", "i32", "i64", "v2i32"),
                                     f"{_TD}/VOP3Instructions.td:1834", 6517),
    "v_perm_pk16_b8_u4": ProfileTwin("v_perm_b32", ("v4i32", "i64", "i64", "v2i32"),
                                     f"{_TD}/VOP3Instructions.td:1835", 6518),
    # VOP_I32_I32_I64_DPP: a 64-bit result of two 32-bit sources and a 64-bit addend, with clamp (and DPP: HasExt64BitDPP)
    "v_mad_nc_u64_u32": ProfileTwin("v_mad_u32_u24", ("i64", "i32", "i32", "i64"), f"{_TD}/VOP3Instructions.td:87", 6628),
    "v_mad_nc_i64_i32": ProfileTwin("v_mad_u32_u24", ("i64", "i32", "i32", "i64"), f"{_TD}/VOP3Instructions.td:87", 6629),
    # VOP3_CVT_PK_F8_F16_Profile = VOP3_Profile<VOP_I16_V2F16>: two fp8 bytes (a 16-bit half, op_sel picks which) of a
    # packed f16 pair; the twin is the VOP1 instruction of a 16-bit integer result of one f16 source
    "v_cvt_pk_fp8_f16": ProfileTwin("v_cvt_i16_f16", ("i16", "v2f16"), f"{_TD}/SIInstrInfo.td:3026", 6694),
    "v_cvt_pk_bf8_f16": ProfileTwin("v_cvt_i16_f16", ("i16", "v2f16"), f"{_TD}/SIInstrInfo.td:3026", 6695),
}
PROFILE_OPERANDS = ("vdst", "src0", "src1", "src2")


@dataclass(frozen=True, slots=True)
class ProfileTypes:
    """The register types of LLVM's TableGen profile for an instruction (destination, then sources), where the
    list is written (`where`: a .td line holding `[i16, i32, ...]`), and the line that binds a template parameter
    the list names (`given`: `VOP3_CVT_SR_F8_ByteSel_Profile<f16>` binds SrcVT)."""

    types: tuple[str, ...]
    where: str
    given: str = ""


# gfx11+ instructions whose 16-bit VGPR operands (v1.l / v1.h in real-true16 syntax: a 16-bit type in the profile
# LLVM's _t16 form is built from) neither a page row nor the mnemonic's types state: a packed conversion writes one
# 16-bit half (v_cvt_pk_fp8_f32 v1.h, v2, v3: gfx1250_asm_vop3.s:657), a conversion from fp8 reads a whole dword
# (v_cvt_f16_fp8_e32 v1.l, v2: gfx1250_asm_vop1.s:620). The PROFILE_TWINS types count too (profile_types).
TRUE16_PROFILES: dict[str, ProfileTypes] = {
    **{f"v_cvt_sr_{t}_f16": ProfileTypes(("i32", "f16", "i32"), f"{_TD}/VOP3Instructions.td:730",
                                         f"{_TD}/VOP3Instructions.td:1858") for t in ("fp8", "bf8")},
    **{f"v_ashr_pk_{t}8_i32": ProfileTypes(("i16", "i32", "i32", "i32"), f"{_TD}/SIInstrInfo.td:3159")
       for t in ("i", "u")},
    **{f"v_cvt_pk_{t}_f32": ProfileTypes(("i16", "f32", "f32"), f"{_TD}/SIInstrInfo.td:3084") for t in ("fp8", "bf8")},
    **{f"v_cvt_f16_{t}": ProfileTypes(("f16", "i32"), f"{_TD}/VOP1Instructions.td:751", f"{_TD}/VOP1Instructions.td:763")
       for t in ("fp8", "bf8")},
    **{f"v_cvt_pk_f16_{t}": ProfileTypes(("v2f16", "i16"), f"{_TD}/VOP1Instructions.td:825") for t in ("fp8", "bf8")},
    **{f"v_cvt_pk_f32_{t}": ProfileTypes(("v2f32", "f16"), f"{_TD}/VOP1Instructions.td:745") for t in ("fp8", "bf8")},
}


def profile_types(mnemonic: str) -> tuple[str, ...]:
    """The profile's register types of a TRUE16_PROFILES or PROFILE_TWINS instruction (destination first); ()."""
    if mnemonic in TRUE16_PROFILES:
        return TRUE16_PROFILES[mnemonic].types
    return PROFILE_TWINS[mnemonic].types if mnemonic in PROFILE_TWINS else ()
_PROFILE_TYPE = re.compile(r"^(?:v(\d+))?[a-z]+(\d+)$")


def profile_bits(mnemonic: str) -> dict[str, int]:
    """Bits of each register operand of a PROFILE_TWINS instruction (any form: _e64, _e64_dpp), by operand name;
    {} for other mnemonics."""
    for suffix in _FORM_SUFFIXES:
        stem = mnemonic.removesuffix(suffix) if suffix else mnemonic
        if stem in PROFILE_TWINS and (not suffix or mnemonic.endswith(suffix)):
            out = {}
            for name, t in zip(PROFILE_OPERANDS, PROFILE_TWINS[stem].types, strict=False):
                m = _PROFILE_TYPE.match(t)
                out[name] = int(m.group(1) or 1) * int(m.group(2))
            return out
    return {}


# gfx1250's asynchronous loads from global memory to LDS: the global load's operand list (vdst, vaddr, saddr and its
# modifiers), its first operand not a destination but the LDS address the instruction reads (cdna5 manual line 4998,
# "VDST: Supplies the LDS address for LOADs"; LLVM's FLATInstructions.td:397 `(ins VGPROp_32:$vdst)`, no outs): one
# VGPR whatever the data size. ROW_EVIDENCE "lds address of an async load".
ASYNC_LDS_LOAD = re.compile(r"^(?:global|cluster)_load_async_to_lds_b(?:8|32|64|128)$")
ASYNC_LDS_TWIN = "global_load_b32"


# gfx1250's WMMA of FP8 / FP6 / FP4 matrices in the formats its modifiers name, with and without block scales (cdna5
# manual 7.12.6, line 3710), and the load-scale half LLVM's tests write alone; no page lists them. Their operands are
# LLVM's TableGen asm string (VOP3PInstructions.td:1786 `$vdst, $src0, $src1, $src2` then `$scale_src0, $scale_src1`,
# `$matrix_a_fmt$matrix_b_fmt`, `$matrix_a_scale$matrix_b_scale$matrix_a_scale_fmt$matrix_b_scale_fmt`, reuse, neg;
# the load-scale's :2088 `$src0, $src1$matrix_a_scale...$matrix_b_reuse`): GFX12's WMMA row sized by the Table 43
# shape (A and B in FP8 by default), the scale sources VGPR, SGPR or inline constant of 32 or 64 bits
# (VCSrc_b32_Lo256 / VCSrc_b64_Lo256, :1750-1751) as GFX950's VOP3PX2 row's scale_src0 / scale_src1 page lists them.
# ROW_EVIDENCE "scaled matrix row".
@dataclass(frozen=True, slots=True)
class ScaledMatrix:
    shape: str         # the Table 43 instruction whose register sizes it takes ("": the load-scale alone, no matrices)
    scale_bits: int    # bits of each scale source (0: none)
    formats: bool      # takes matrix_a_fmt / matrix_b_fmt, which size A and B (MATRIX_FORMAT_BITS)
    manual: int        # cdna5 manual line naming it (Table 43, the VOP3P opcode table, the LD_SCALE field row)


SCALED_MATRIX: dict[str, ScaledMatrix] = {
    "v_wmma_f32_16x16x128_f8f6f4": ScaledMatrix("v_wmma_f32_16x16x128_fp8_fp8", 0, True, 6809),
    "v_wmma_scale_f32_16x16x128_f8f6f4": ScaledMatrix("v_wmma_f32_16x16x128_fp8_fp8", 32, True, 3449),
    "v_wmma_scale16_f32_16x16x128_f8f6f4": ScaledMatrix("v_wmma_f32_16x16x128_fp8_fp8", 64, True, 3450),
    "v_wmma_scale_f32_32x16x128_f4": ScaledMatrix("v_wmma_f32_32x16x128_f4", 32, False, 3451),
    "v_wmma_scale16_f32_32x16x128_f4": ScaledMatrix("v_wmma_f32_32x16x128_f4", 64, False, 3452),
    "v_wmma_ld_scale_paired_b32": ScaledMatrix("", 32, False, 3481),
    "v_wmma_ld_scale16_paired_b64": ScaledMatrix("", 64, False, 3481),
}
SCALED_MATRIX_TD = f"{_TD}/VOP3PInstructions.td"
SCALE_OPERANDS_ROW = "v_mfma_scale_f32_16x16x128_f8f6f4"   # GFX950's VOP3PX2 row: scale_src0, scale_src1
FORMAT_MODIFIERS = ("matrix_a_fmt", "matrix_b_fmt")                        # OPSEL[2:0] / OPSEL_HI[2:0] (line 3723)
SCALE_MODIFIERS = ("matrix_a_scale", "matrix_b_scale", "matrix_a_scale_fmt", "matrix_b_scale_fmt")   # line 3481, 3731
# A / B data formats and their element bits: cdna5 manual lines 3723-3729 (0 FP8 E4M3, 1 BF8 E5M2, 2 FP6, 3 BF6, 4 FP4);
# LLVM spells them MATRIX_FMT_FP8 ... or by code.
MATRIX_FORMAT_BITS: dict[str, int] = {"fp8": 8, "bf8": 8, "fp6": 6, "bf6": 6, "fp4": 4}
MATRIX_FORMAT_OF: dict[str, str] = {"src0": "matrix_a_fmt", "src1": "matrix_b_fmt"}


def scaled_matrix_modifiers(mnemonic: str) -> tuple[str, ...]:
    """The modifiers LLVM's asm string gives a SCALED_MATRIX instruction besides GFX12's WMMA row's (formats, scale
    selects and formats; the load-scale alone: its scale modifiers and reuse)."""
    fix = SCALED_MATRIX[mnemonic]
    if not fix.shape:
        return (*SCALE_MODIFIERS, "matrix_a_reuse", "matrix_b_reuse")
    return (*(FORMAT_MODIFIERS if fix.formats else ()), *(SCALE_MODIFIERS if fix.scale_bits else ()))


def matrix_format_dwords(mnemonic: str, name: str, dwords: int, modifiers: dict[str, str]) -> int | None:
    """Dwords of a SCALED_MATRIX A (src0) or B (src1) operand in the format its matrix_a_fmt / matrix_b_fmt names
    (`dwords`: its FP8 size); None for other operands and instructions, or a format the table does not know."""
    fix = SCALED_MATRIX.get(mnemonic)
    if fix is None or not fix.formats or name not in MATRIX_FORMAT_OF:
        return None
    value = modifiers.get(MATRIX_FORMAT_OF[name], "0").strip().lower().removeprefix("matrix_fmt_")
    bits = MATRIX_FORMAT_BITS.get(value) or (list(MATRIX_FORMAT_BITS.values())[int(value)]
                                              if value.isdigit() and int(value) < len(MATRIX_FORMAT_BITS) else None)
    return dwords * bits // 8 if bits else None


# gfx1250's packed scaled conversions no page lists (v_cvt_scale_pk8_f16_fp8, v_cvt_scalef32_sr_pk8_fp8_bf16 ...): the
# operand list of GFX950's scaled conversion with as many sources (PACKED_TWINS), the result and the packed source
# sized by the element count and types in the mnemonic (cdna5 manual pseudocode: V_CVT_SCALE_PK8_F16_FP8 writes
# D0[127 : 0] from 8 fp8 bytes of S0), and scale_sel (OPSEL[2:0], the scale byte: same pseudocode).
PACKED_CONVERSION = re.compile(r"^v_cvt_scale(?:f32)?_(sr_)?pk(8|16)_([a-z0-9]+)_([a-z0-9]+)$")
PACKED_TWINS: dict[bool, str] = {False: "v_cvt_scalef32_pk32_f32_fp6", True: "v_cvt_scalef32_sr_pk32_fp6_f32"}
CONVERSION_BITS: dict[str, int] = {"f32": 32, "f16": 16, "bf16": 16, "fp8": 8, "bf8": 8, "fp6": 6, "bf6": 6, "fp4": 4}


def packed_conversion_dwords(mnemonic: str) -> dict[str, int]:
    """Register dwords of a packed scaled conversion's result and packed source, by its mnemonic ({} for others)."""
    m = PACKED_CONVERSION.match(mnemonic)
    if m is None or m.group(3) not in CONVERSION_BITS or m.group(4) not in CONVERSION_BITS:
        return {}
    n = int(m.group(2))
    return {"vdst": -(-n * CONVERSION_BITS[m.group(3)] // 32), "src0": -(-n * CONVERSION_BITS[m.group(4)] // 32)}


# gfx1250 WMMA / SWMMAC instructions no page lists -> the GFX12-listed row whose operand list they take (their
# register sizes follow the shape in the mnemonic: cdna5 manual Table 43, line 3405). Only the shapes that
# table lists (MATRIX_TABLE_LINE); the scaled f8f6f4 forms take matrix_a_fmt / matrix_b_fmt sizes and are not covered.
MATRIX_TWINS: dict[str, str] = {"v_wmma": "v_wmma_f32_16x16x16_f16", "v_swmmac": "v_swmmac_f32_16x16x32_f16"}
MATRIX_TABLE_LINE = 3405
# The Table 43 shapes GFX12's page does not have (its rows are 16x16x16, and 16x16x32 / x64 for iu4 and SWMMAC).
_MATRIX_MNEMONIC = re.compile(r"^(v_wmma)_[a-z0-9]+_(?:16x16x4_f(?:32|64)|16x16x32_b?f16|16x16x64_(?:iu8|[bf][fp]8_[bf][fp]8)|"
                              r"16x16x128_[bf][fp]8_[bf][fp]8|32x16x128_f4)$|"
                              r"^(v_swmmac)_[a-z0-9]+_(?:16x16x64_b?f16|16x16x128_(?:iu8|[bf][fp]8_[bf][fp]8))$")
ROW_EVIDENCE: dict[str, RowEvidence] = {
    "dpp from the plain row": RowEvidence(
        ("GFX12",),
        "GFX12's page lists v_max_num_f16 (VOP2) but no DPP row on any page; LLVM's tests assemble "
        "v_max_num_f16_dpp with the operands of the VOP2 row and the DPP16 modifiers of GFX11's DPP rows",
        Provenance(SOURCE, _GFX11_PAGE, 1361, "v_add_f16_dpp"),
        f"{_MC}/gfx12_asm_vop2_dpp16-fake16.s:784",
        "v_max_num_f16_dpp v5, v1, v2 quad_perm:[3,2,1,0] row_mask:0xf bank_mask:0xf"),
    "e64_dpp from the plain row": RowEvidence(
        ("GFX12",),
        "GFX12's page lists v_med3_num_f16 (VOP3) but no VOP3 DPP row on any page; LLVM's tests assemble "
        "v_med3_num_f16_e64_dpp with the operands of the VOP3 row and the DPP modifiers of GFX11's VOP3 DPP rows",
        Provenance(SOURCE, _GFX11_PAGE, 2179, "v_med3_f16_e64_dpp"),
        f"{_MC}/gfx12_asm_vop3_dpp16-fake16.s:3062", "v_med3_num_f16_e64_dpp v5, v1, v2, v3 quad_perm:[3,2,1,0]"),
    "vopd half from the plain row": RowEvidence(
        ("GFX12 (cdna5)",),
        "gfx1250 pairs opcodes the GFX12 VOPDX / VOPDY tables do not list (v_dual_max_i32, and in VOPD3 "
        "v_dual_fma_f32, v_dual_add_f64); LLVM's gfx1250 tests write each half with the operands of the "
        "instruction's own VOP2 / VOP3 row (v_max_i32: vdst, src0, vsrc1), as the listed halves follow theirs",
        Provenance(SOURCE, "llvm-project-23.1.1/llvm/docs/AMDGPU/AMDGPUAsmGFX12.rst", 926, "v_max_i32"),
        f"{_MC}/gfx1250_asm_vopd.s:11960", "v_dual_add_f32 v255, v4, v2 :: v_dual_max_i32 v6, v1, v3"),
    "bf16 twin of the f16 row": RowEvidence(
        ("GFX12 (cdna5)",),
        "gfx1250 adds bf16 forms of the f16 VALU instructions (v_rcp_bf16, v_sqrt_bf16, v_exp_bf16 ...) that no "
        "page lists; LLVM's gfx1250 tests write them with the operands of the f16 instruction's GFX12 row "
        "(v_rcp_f16: vdst, src0), in every encoding the f16 row has",
        Provenance(SOURCE, "llvm-project-23.1.1/llvm/docs/AMDGPU/AMDGPUAsmGFX12.rst", 876, "v_rcp_f16"),
        f"{_MC}/gfx1250_asm_vop1-fake16.s:212", "v_rcp_bf16_e32 v5, v1"),
    "vopd3 x half of a vopdy opcode": RowEvidence(
        ("GFX12 (cdna5)",),
        "the GFX12 page lists v_dual_add_nc_u32 / v_dual_lshlrev_b32 in its VOPDY table only; gfx1250's VOPD3 "
        "encoding takes them as the X half, which LLVM's gfx1250 tests write with the operands of the "
        "instruction's own VOP2 row (v_add_nc_u32: vdst, src0, vsrc1)",
        Provenance(SOURCE, "llvm-project-23.1.1/llvm/docs/AMDGPU/AMDGPUAsmGFX12.rst", 911, "v_add_nc_u32"),
        f"{_MC}/gfx1250_asm_vopd3.s:10974", "v_dual_add_nc_u32 v254, v4, v2 :: v_dual_add_f32 v7, v1, v3"),
    "same shape": RowEvidence(
        ("GFX12 (cdna5)",),
        "gfx1250 adds VALU instructions no page lists (v_tanh_f32, v_add_nc_u64, v_pk_min3_i16 ...); each takes the "
        "GFX12 row of an instruction the cdna5 manual's opcode tables place in the same encodings with the same "
        "operand count and widths (SAME_SHAPE_GFX1250), in every form that row has; LLVM's gfx1250 tests write them so",
        Provenance(SOURCE, _GFX12_PAGE, 891, "v_sqrt_f32"),
        f"{_MC}/gfx1250_asm_vop1.s:35", "v_tanh_f32 v5, v1"),
    "matrix row of another shape": RowEvidence(
        ("GFX12 (cdna5)",),
        "gfx1250 adds WMMA / SWMMAC shapes no page lists (v_wmma_f32_16x16x32_bf16, v_swmmac_f32_16x16x64_f16 ...); "
        "each takes the operand list of GFX12's v_wmma_f32_16x16x16_f16 / v_swmmac_f32_16x16x32_f16 row (vdst, src0, "
        "src1, src2) with registers sized by the matrix shapes the cdna5 manual's Table 43 gives it (MATRIX_TWINS; "
        "codec.tables.matrix_dwords)",
        Provenance(SOURCE, _GFX12_PAGE, 1174, "v_wmma_f32_16x16x16_f16"),
        f"{_MC}/gfx1250_asm_wmma_w32.s:43", "v_wmma_f32_16x16x32_bf16 v[16:23], v[0:7], v[8:15], v[16:23]"),
    "flat row with an sgpr base": RowEvidence(
        ("GFX12 (cdna5)",),
        "gfx1250's FLAT instructions take an SGPR base (SADDR [6:0] of the one FLAT, GLOBAL and SCRATCH format: cdna5 "
        "manual Table 114, line 7220) that GFX12's flat rows do not list; LLVM's gfx1250 tests write flat_* with a "
        "32-bit VGPR offset and an SGPR pair, the operand list of the global row of the same operation",
        Provenance(SOURCE, _GFX12_PAGE, 681, "global_atomic_add_f32"),
        f"{_MC}/gfx1250_asm_vflat.s:3622", "flat_atomic_add_f32 v2, v3, s[2:3] offset:64"),
    "vopd3 sources": RowEvidence(
        ("GFX12 (cdna5)",),
        "gfx1250's VOPD3 encoding negates each half's sources (NEGX / NEGY [43:41] / [46:44]: cdna5 manual Table 102, "
        "line 6912) and lets v_dual_cndmask_b32 select by any SGPR ('supports VCC or an arbitrary SGPR as the "
        "select', line 3177); GFX12's VOPDX / VOPDY rows take neither, and gfx1250's tests write both",
        Provenance(SOURCE, _GFX12_PAGE, 1359, "v_dual_cndmask_b32"),
        f"{_MC}/gfx1250_asm_vopd3.s:18906", "v_dual_cndmask_b32 v255, v4, v2, s96 :: v_dual_add_f32 v7, v1, v3"),
    "64-bit twin of the 32-bit row": RowEvidence(
        ("GFX12 (cdna5)",),
        "gfx1250 / gfx1251 add 64-bit forms no page lists (v_pk_add_f64, v_pk_add_nc_u64, v_fmaak_f64 ...); each takes "
        "its 32-bit twin's row with every VGPR operand twice as wide, the widths LLVM's TableGen profiles give them "
        "(VOP_V2F64_V2F64_V2F64: 128-bit sources and result; WIDE_TWINS), as gfx1250's tests write them",
        Provenance(SOURCE, "llvm-project-23.1.1/llvm/docs/AMDGPU/AMDGPUAsmGFX950.rst", 1403, "v_pk_add_f32"),
        f"{_MC}/gfx1250_asm_vop2.s:595", "v_fmaak_f64 v[6:7], v[4:5], v[8:9], 0x405ec000"),
    "lds address of an async load": RowEvidence(
        ("GFX12 (cdna5)",),
        "gfx1250's global_load_async_to_lds_* / cluster_load_async_to_lds_* (no page lists them) write LDS, not VGPRs: "
        "they take the operand list of GFX12's global_load_b32 (vdst, vaddr, saddr; offset, th, scope) with vdst read, "
        "the one VGPR holding the LDS address (cdna5 manual line 4998 'VDST: Supplies the LDS address for LOADs'; "
        "LLVM's FLATInstructions.td:397 declares it an input, `ins VGPROp_32:$vdst`), as gfx1250's tests write them",
        Provenance(SOURCE, _GFX12_PAGE, 718, "global_load_b32"),
        f"{_MC}/gfx1250_asm_vflat.s:3474", "cluster_load_async_to_lds_b128 v1, v2, s[2:3] th:TH_LOAD_NT_HT "
        "scope:SCOPE_DEV",
        operands=(("vdst", "the LDS address the loaded data is written to: one VGPR the instruction reads (cdna5 "
                           "manual line 4998; FLATInstructions.td:397 `ins VGPROp_32:$vdst`)"),)),
    "scaled matrix row": RowEvidence(
        ("GFX12 (cdna5)",),
        "gfx1250's WMMA of FP8 / FP6 / FP4 matrices (v_wmma_f32_16x16x128_f8f6f4), its block-scaled forms "
        "(v_wmma_scale_f32_16x16x128_f8f6f4, v_wmma_scale16_f32_32x16x128_f4: VOP3PX2) and the load-scale half alone "
        "(v_wmma_ld_scale_paired_b32) are on no page: they take GFX12's WMMA row sized by the cdna5 manual's Table 43 "
        "shape, A and B by the formats matrix_a_fmt / matrix_b_fmt name (OPSEL / OPSEL_HI: FP8, BF8, FP6, BF6, FP4), "
        "and the scale sources and modifiers of LLVM's TableGen asm string (SCALED_MATRIX)",
        Provenance(SOURCE, _GFX12_PAGE, 1174, "v_wmma_f32_16x16x16_f16"),
        f"{_MC}/gfx1250_asm_wmma_w32.s:1273", "v_wmma_scale16_f32_16x16x128_f8f6f4 v[0:7], v[8:23], v[24:35], v[40:47], "
        "v[2:3], v[4:5] matrix_a_fmt:MATRIX_FMT_BF8 matrix_b_fmt:MATRIX_FMT_FP6 matrix_a_scale:MATRIX_SCALE_ROW1 "
        "matrix_b_scale:MATRIX_SCALE_ROW1 neg_lo:[0,0,1] neg_hi:[0,0,1]"),
    "dpp16 of a 64-bit row": RowEvidence(
        ("GFX12 (cdna5)",),
        "gfx1251 takes DPP16 on instructions with 64-bit operands (LLVM's FeatureISAVersion12_51 adds FeatureDPALU_DPP, "
        "AMDGPU.td:2269; getHasExt64BitDPP gives those instructions DPP, SIInstrInfo.td:2625), which GFX12 and gfx1250 "
        "do not (tables.dpp_row derives none); LLVM's gfx1251 tests write them with the plain row's operands at their "
        "64-bit widths and GFX12's DPP16 modifiers (row_share, row_mask, bank_mask, fi), and no DPP8 form",
        Provenance(SOURCE, _GFX12_PAGE, 910, "v_add_f64"),
        f"{_MC}/gfx1251_asm_vop2_dpp16.s:47", "v_add_f64_dpp v[4:5], v[2:3], v[4:5] row_share:1 row_mask:0xf "
        "bank_mask:0xf"),
    "twin row sized by its tablegen profile": RowEvidence(
        ("GFX12 (cdna5)",),
        "gfx1250 adds VOP3 instructions no page lists whose register widths no listed instruction shares "
        "(v_perm_pk16_b6_u4: a 3-dword result of a 1-dword, a 2-dword and a 2-dword source; v_mad_nc_u64_u32; "
        "v_cvt_pk_fp8_f16); each takes the operand list of a listed instruction with as many sources (v_perm_b32: vdst, "
        "src0, src1, src2, and its VOP3 modifiers), each register sized by the types of LLVM's TableGen profile for it "
        "(PROFILE_TWINS), as gfx1250's tests write them",
        Provenance(SOURCE, _GFX12_PAGE, 1085, "v_perm_b32"),
        f"{_MC}/gfx1250_asm_vop3.s:1035", "v_perm_pk16_b6_u4 v[2:4], v4, ttmp[4:5], s[6:7]"),
    "packed conversion sized by its name": RowEvidence(
        ("GFX12 (cdna5)",),
        "gfx1250's packed scaled conversions (v_cvt_scale_pk8_f16_fp8, v_cvt_scalef32_sr_pk8_fp8_bf16 ...) take the "
        "operand list of GFX950's scaled conversion with as many sources, the result and packed source sized by the "
        "element count and types of the mnemonic as the cdna5 manual's pseudocode writes them (D0[127 : 0] from 8 "
        "fp8 bytes of S0), and scale_sel (OPSEL[2 : 0]) (PACKED_TWINS)",
        Provenance(SOURCE, "llvm-project-23.1.1/llvm/docs/AMDGPU/AMDGPUAsmGFX950.rst", 1225, "v_cvt_scalef32_pk32_f32_fp6"),
        f"{_MC}/gfx1250_asm_vop3.s:702", "v_cvt_scale_pk8_f16_fp8 v[10:13], v[20:21], v8", modifiers=("scale_sel",)),
    "gfx1250 name of a gfx12 row": RowEvidence(
        ("GFX12 (cdna5)",),
        "gfx1250 renames GFX12's program-counter instructions (s_getpc_b64 -> s_get_pc_i64, s_call_b64 -> s_call_i64 "
        "...); LLVM's gfx1250 tests assemble the GFX12 spelling and print the new name with the same encoding "
        "(RENAMED_IN_GFX1250): the new name takes the GFX12 row",
        Provenance(SOURCE, _GFX12_PAGE, 121, "s_getpc_b64"),
        f"{_MC}/gfx1250_asm_sop1.s:24", "s_get_pc_i64 s[2:3]"),
    "gfx9 row on a gfx12 target": RowEvidence(
        ("GFX12 (cdna5)",),
        "gfx1250 instructions only the GFX9-family pages list (v_prng_b32, v_bitop3_b32, v_cvt_pk_bf16_f32 from "
        "GFX950) take the GFX12 encodings' source kinds and VOP3 modifiers: sources accept null and a literal (GFX12's "
        "VOP3 source pages list both: v_fma_f32's src1, gfx12_src1_7987e4), VOP3 rows clamp and omod (GFX12 VOP3 "
        "fields CLAMP and OMOD), as gfx1250's tests write them",
        Provenance(SOURCE, _GFX12_PAGE, 1010, "v_fma_f32"),
        f"{_MC}/gfx1250_asm_vop1.s:206", "v_prng_b32_e32 v5, null"),
    "sdwa row of an integer vop2": RowEvidence(
        ("GFX90a", "GFX908", "GFX940", "GFX950"),
        "no page lists v_pk_fmac_f16_sdwa; LLVM's gfx908-gfx950 tests assemble it with a VOP2 SDWA operand list whose "
        "sources take the integer modifier sext (sext(v2) is kept, -v2 is printed as v2), as the row of v_add_u16_sdwa "
        "(vdst, src0:m, src1:m with sext, clamp, dst_sel, dst_unused, src0_sel, src1_sel) lists them (SDWA_TWINS)",
        Provenance(SOURCE, "llvm-project-23.1.1/llvm/docs/AMDGPU/AMDGPUAsmGFX90a.rst", 982, "v_add_u16_sdwa"),
        f"{_MC}/gfx9_asm_vop2_features.s:20", "v_pk_fmac_f16_sdwa v5, v1, sext(v2) dst_sel:DWORD "
        "dst_unused:UNUSED_PAD src0_sel:DWORD src1_sel:DWORD"),
    "gfx12 row of the renamed instruction": RowEvidence(
        ("GFX11 (rdna3.5)",),
        "gfx1150-gfx1153 have SALU float min/max (s_min_f32 ...) that GFX11's page lacks; GFX12's page lists them "
        "renamed (s_min_num_f32), and LLVM's gfx1150 and gfx12 check lines print the same encoding for both names "
        "(RENAMED_IN_GFX12): the old name takes the GFX12 row",
        Provenance(SOURCE, _GFX12_PAGE, 211, "s_min_num_f32"),
        f"{_MC}/gfx1150_asm_salu_float.s:835", "s_min_f32 s5, s1, s2"),
    "vopd3 bitop2 from the bitop3 row": RowEvidence(
        ("GFX12 (cdna5)",),
        "gfx1250's VOPD3 Y opcode 18 is V_DUAL_BITOP2_B32 (cdna5 manual OP3Y table, line 3201), LLVM's VOPD form of "
        "v_bitop3_b32 (VOP3Instructions.td:1653-1655 `VOP3Inst_VOPD <\"v_bitop3_b32\", ..., 0x12, \"v_bitop2_b32\">`) "
        "with two sources and its truth table in VSRCY2's bits (VOPDInstructions.td:89 `Inst{87-80} = ... bitop3`); no "
        "page lists it: it takes v_bitop3_b32's row without src2, bitop3 its only modifier (VOPD_BITOP)",
        Provenance(SOURCE, "llvm-project-23.1.1/llvm/docs/AMDGPU/AMDGPUAsmGFX950.rst", 1194, "v_bitop3_b32"),
        f"{_MC}/gfx1250_asm_vopd3.s:1558", "v_dual_cndmask_b32 v255, v4, v2, vcc_lo :: v_dual_bitop2_b32 v7, v1, v3 "
        "bitop3:1"),
    "source only": RowEvidence(
        ("GFX12 (cdna5)",),
        "gfx1250's s_add_pc_i64 is on no page; LLVM defines it as SOP1_1_REGIMM64 (SOPInstructions.td:157-158: no "
        "result, one SSrc_b64 source), the ssrc0 GFX12's s_bcnt1_i32_b64 row lists: it takes that row without its "
        "sdst (SOURCE_ONLY_GFX1250)",
        Provenance(SOURCE, _GFX12_PAGE, 94, "s_bcnt1_i32_b64"),
        f"{_MC}/gfx1250_asm_sop1.s:16", "s_add_pc_i64 0x64"),
    "load-scale half of the scale mfma row": RowEvidence(
        ("GFX950",),
        "no page lists v_mfma_ld_scale_b32, the first two dwords of GFX950's scale MFMA (VOP3PX2); LLVM's tests "
        "assemble it alone with the scale operands and modifiers of the VOP3PX2 row (scale_src0, scale_src1: "
        "VGPR, SGPR or inline constant, no literal; op_sel, op_sel_hi), as the cdna4 manual's 'Operands of "
        "Load-Scale (first 2 DWORDs of \"SCALE\" ops)' lists SRC0, SRC1 and OP_SEL / OP_SEL_HI (LOAD_SCALE)",
        Provenance(SOURCE, "llvm-project-23.1.1/llvm/docs/AMDGPU/AMDGPUAsmGFX950.rst", 1463,
                   "v_mfma_scale_f32_16x16x128_f8f6f4"),
        f"{_MC}/mai-gfx950.s:174", "v_mfma_ld_scale_b32 v0, 64"),
}
# The load-scale instruction LLVM's tests write alone -> the VOP3PX2 row holding its operands, and the
# operands it keeps (renamed as the tests' check lines print them: scale_src0 is written first, as src0).
# The cdna4 manual states the same operands: amd-isa-manuals/cdna4/README.md:1958-1965.
LOAD_SCALE: dict[str, str] = {"v_mfma_ld_scale_b32": "v_mfma_scale_f32_16x16x128_f8f6f4"}
LOAD_SCALE_OPERANDS: dict[str, str] = {"scale_src0": "src0", "scale_src1": "src1", "op_sel": "op_sel",
                                       "op_sel_hi": "op_sel_hi"}


@dataclass(frozen=True, slots=True)
class ModifierEvidence:
    """Modifiers a page's rows leave out that LLVM's MC tests write (with their encodings): the rows they
    are added to, and the row or test line that shows each."""

    families: tuple[str, ...]   # the pages whose rows lack them
    section: str                # rows of this section (prefix) ...
    mnemonics: str              # ... whose mnemonic matches this regular expression
    modifiers: tuple[str, ...]
    reason: str
    source: Provenance          # the page's row that omits them (or the older row that lists them)
    evidence: str               # an LLVM MC test check line (file:line) with the encoding of ...
    example: str                # ... this assembly
    neg_abs: bool = False       # the rows' sources also take neg / abs (the :m tag the rows leave out) ...
    neg_abs_on: str = "src"     # ... those whose name starts with this (src0, src1 / vsrc0, vsrc1)
    # operand -> type tag the tests size it by (a packed vector: `bf6x32` is 32 six-bit values, 6 dwords), a
    # template over the named groups of `mnemonics` ({src}: the source type the mnemonic names)
    types: tuple[tuple[str, str], ...] = ()
    # the modifier of the row the added ones follow, as llvm-mc prints them (""; after the row's modifiers) ...
    after: str = ""
    before: str = ""   # ... or precede


    def type_tags(self, mnemonic: str) -> dict[str, str]:
        """The type tag of each operand this entry sizes, for one mnemonic it covers."""
        m = re.match(self.mnemonics, mnemonic)
        return {name: tag.format(**m.groupdict()) for name, tag in self.types} if m else {}


MODIFIER_EVIDENCE: dict[str, ModifierEvidence] = {
    "gfx12 tbuffer format": ModifierEvidence(
        ("GFX12",), "VBUFFER", r"^tbuffer_", ("format",),
        "GFX12's tbuffer rows list no format modifier; the tests write format:[BUF_FMT_..] on every one, as the "
        "GFX11 rows of the same instructions list it (ufmt)",
        Provenance(SOURCE, _GFX11_PAGE, 581, "tbuffer_load_format_x"),
        f"{_MC}/gfx12_asm_vbuffer_mtbuf.s:221", "tbuffer_load_format_x v4, off, s[8:11], s3 format:[BUF_FMT_32_SINT] "
        "offset:8388607"),
    "gfx12 vop3p packed modifiers": ModifierEvidence(
        # not the load-scale alone, whose asm string has none (VOP3PInstructions.td:2088 AsmVOP3P ` $src0, $src1`
        # then only matrix_* modifiers)
        ("GFX12",), "VOP3P", r"^v_(pk_|dot|fma_mix|wmma(?!_ld_scale)|swmmac)", ("op_sel", "op_sel_hi", "neg_lo", "neg_hi"),
        "GFX12's VOP3P rows list only clamp; the tests write op_sel, op_sel_hi, neg_lo and neg_hi, as the GFX11 "
        "VOP3P rows of the same instructions list them (v_pk_add_f16)",
        Provenance(SOURCE, _GFX11_PAGE, 2623, "v_pk_add_f16"),
        f"{_MC}/gfx12_asm_vop3p.s:524", "v_pk_add_f16 v5, -1, exec_hi op_sel:[1,1] op_sel_hi:[0,0] neg_lo:[1,0] "
        "neg_hi:[1,0]",
        # printed before clamp (gfx1250_dasm_vop3p.txt:131 `v_pk_add_bf16 ... neg_lo:[1,1] neg_hi:[1,1] clamp`)
        before="clamp"),
    "gfx12 fp8 byte_sel": ModifierEvidence(
        ("GFX12",), "VOP", r"^v_cvt_(sr_)?(f32_)?(fp8|bf8)(_f32)?(_e64)?$", ("byte_sel",),
        "GFX12's fp8 / bf8 conversion rows list no byte_sel (no syntax page documents it); the tests write "
        "byte_sel:N to pick the byte of the packed operand",
        Provenance(SOURCE, _GFX12_PAGE, 998, "v_cvt_sr_fp8_f32"),
        f"{_MC}/gfx12_asm_vop3-fake16.s:1134", "v_cvt_sr_fp8_f32 v1, v2, v3 byte_sel:1"),
    "gfx12 fma_mix neg/abs": ModifierEvidence(
        ("GFX12",), "VOP3P", r"^v_fma_mix", (),
        "GFX12's rows of v_fma_mix_f32 / v_fma_mixlo_f16 / v_fma_mixhi_f16 tag no source :m; the tests write neg and "
        "abs on them, as the GFX11 rows of the same instructions tag src0, src1 and src2 :m",
        Provenance(SOURCE, _GFX11_PAGE, 2620, "v_fma_mix_f32"),
        f"{_MC}/gfx12_asm_vop3p.s:401", "v_fma_mix_f32 v5, -m0, -1, |vcc_lo|", neg_abs=True),
    "gfx12 vinterp neg/abs": ModifierEvidence(
        ("GFX12",), "VINTERP", r"^v_interp_", (),
        "GFX12's VINTERP rows (v_interp_p10_f32 ...) tag no source :m; the gfx1200 tests write neg and abs on them, "
        "as the GFX11 rows of the same instructions tag vparam, vij and vparam0 :m",
        Provenance(SOURCE, _GFX11_PAGE, 1042, "v_interp_p10_f32"),
        f"{_MC}/vinterp.s:21", "v_interp_p10_f32 v0, -v1, v2, v3 wait_exp:0", neg_abs=True),
    "gfx90a packed f32 neg and clamp": ModifierEvidence(
        ("GFX90a", "GFX940"), "VOP3P", r"^v_pk_(fma|mul|add)_f32$", ("neg_lo", "neg_hi", "clamp"),
        "the GFX90a / GFX940 rows of v_pk_fma_f32, v_pk_mul_f32 and v_pk_add_f32 list op_sel and op_sel_hi only; the "
        "gfx90a tests write neg_lo, neg_hi and clamp, as the GFX950 rows of the same instructions list them",
        Provenance(SOURCE, "llvm-project-23.1.1/llvm/docs/AMDGPU/AMDGPUAsmGFX950.rst", 1408, "v_pk_fma_f32"),
        f"{_MC}/gfx90a_asm_features.s:30", "v_pk_fma_f32 v[8:9], v[0:1], s[0:1], v[4:5] neg_lo:[1,1,1]"),
    "gfx906 dot2 op_sel": ModifierEvidence(
        ("GFX906", "GFX908"), "VOP3P", r"^v_dot2_(f32_f16|i32_i16|u32_u16)$", ("op_sel", "op_sel_hi"),
        "the GFX906 / GFX908 rows of v_dot2_f32_f16, v_dot2_i32_i16 and v_dot2_u32_u16 list no op_sel / op_sel_hi; "
        "LLVM's gfx906 / gfx908 tests write them, as the GFX950 rows of the same instructions list them",
        Provenance(SOURCE, "llvm-project-23.1.1/llvm/docs/AMDGPU/AMDGPUAsmGFX950.rst", 1354, "v_dot2_f32_f16"),
        f"{_MC}/dl-insts.s:443", "v_dot2_f32_f16 v0, v1, v2, v3 op_sel:[1,1] op_sel_hi:[1,1]"),
    "gfx950 vop3 op_sel and neg/abs": ModifierEvidence(
        ("GFX950",), "VOP3", r"^v_(cvt_|ashr_pk_|bitop3_|maximum3|minimum3)", ("op_sel",),
        "GFX950's VOP3 rows of the fp8 / scaled conversions list no modifiers and no :m sources; the tests write "
        "op_sel and neg / abs on their sources, as the GFX940 rows of the same instructions (v_cvt_pk_bf8_f32: "
        "src0:m, src1:m, op_sel) list them",
        Provenance(SOURCE, "llvm-project-23.1.1/llvm/docs/AMDGPU/AMDGPUAsmGFX940.rst", 1397, "v_cvt_pk_bf8_f32"),
        f"{_MC}/gfx950_asm_features.s:380", "v_cvt_scalef32_f16_fp8 v1, 11, v3 op_sel:[0,1,1]", neg_abs=True),
    "bitop3 function": ModifierEvidence(
        ("GFX950",), "VOP3", r"^v_bitop3_b(16|32)$", ("bitop3",),
        "GFX950's rows of v_bitop3_b16 / v_bitop3_b32 list no modifier for the 8-bit truth table (no syntax page "
        "documents bitop3); the tests write bitop3:N on both, and gfx1250's tests (where the GFX950 row is borrowed) "
        "write it too (gfx1250_asm_vop3.s:8)",
        Provenance(SOURCE, "llvm-project-23.1.1/llvm/docs/AMDGPU/AMDGPUAsmGFX950.rst", 1194, "v_bitop3_b32"),
        f"{_MC}/gfx950_asm_vop3.s:113", "v_bitop3_b32 v5, v1, v2, s3 bitop3:0xa1"),
    "gfx1011 dot2c dpp neg/abs": ModifierEvidence(
        ("GFX1011",), "DPP16", r"^v_dot2c_f32_f16_dpp$", (),
        "GFX1011's DPP16 row of v_dot2c_f32_f16_dpp tags its sources f16x2 but not :m; the tests write neg and abs "
        "on them, as GFX908's row of the same instruction tags vsrc0 and vsrc1 :m",
        Provenance(SOURCE, "llvm-project-23.1.1/llvm/docs/AMDGPU/AMDGPUAsmGFX908.rst", 64, "v_dot2c_f32_f16_dpp"),
        f"{_MC}/xdl-insts-gfx1011-gfx1012.s:9", "v_dot2c_f32_f16_dpp v5, -v1, v2 quad_perm:[0,1,2,3] row_mask:0x0 "
        "bank_mask:0x0", neg_abs=True, neg_abs_on="vsrc"),
    "gfx10 buffer store dlc": ModifierEvidence(
        ("GFX10", "GFX1030"), "MUBUF", r"^buffer_store_", ("dlc",),
        "GFX10's and GFX1030's buffer_store rows list glc and slc but no dlc, which their loads list; the tests "
        "write dlc on stores and encode it in bit 15 (DLC)",
        Provenance(SOURCE, "llvm-project-23.1.1/llvm/docs/AMDGPU/AMDGPUAsmGFX10.rst", 761, "buffer_store_byte"),
        f"{_MC}/gfx10_asm_mubuf.s:1813", "buffer_store_byte v1, off, s[12:15], s4 offset:4095 dlc"),
    "gfx1250 scale_offset": ModifierEvidence(
        ("GFX12 (cdna5)",), "V", r"^(flat|global|scratch|cluster)_", ("scale_offset",),
        "gfx1250's flat, global and scratch instructions scale the address-offset register by the data size when "
        "SCALE_OFFSET [48] is set (cdna5 manual Table 114, line 7225); GFX12's rows list no modifier for it and "
        "gfx1250's tests write scale_offset",
        Provenance(SOURCE, _GFX12_PAGE, 718, "global_load_b32"),
        f"{_MC}/gfx1250_asm_vflat.s:2858", "global_load_b32 v5, v1, s[2:3] offset:32 scale_offset", after="offset"),
    "gfx1250 smem scale_offset": ModifierEvidence(
        ("GFX12 (cdna5)",), "SMEM", r"^s_(buffer_)?load_", ("scale_offset",),
        "gfx1250's scalar loads scale the offset register by the data size (SMEM SCALE_OFFSET [56]: cdna5 manual "
        "line 6098); GFX12's SMEM rows list no modifier for it and gfx1250's tests write it",
        Provenance(SOURCE, _GFX12_PAGE, 57, "s_load_b32"),
        f"{_MC}/gfx1250_asm_smem.s:75", "s_load_b32 s4, s[2:3], s5 offset:0x20 scale_offset", after="offset"),
    "gfx1250 matrix reuse": ModifierEvidence(
        ("GFX12 (cdna5)",), "VOP3P", r"^v_(wmma|swmmac)_", ("matrix_a_reuse", "matrix_b_reuse"),
        "gfx1250's WMMA / SWMMAC instructions hint that the A or B matrix is used again (OPSEL[2] = RA, OPSEL_HI[2] = "
        "RB: cdna5 manual, VOP3P Instruction Fields, line 3482); GFX12's rows list clamp only and gfx1250's tests "
        "write matrix_a_reuse / matrix_b_reuse",
        Provenance(SOURCE, _GFX12_PAGE, 1174, "v_wmma_f32_16x16x16_f16"),
        f"{_MC}/gfx1250_asm_wmma_w32.s:33", "v_wmma_f32_16x16x4_f32 v[4:11], v[0:1], v[2:3], v[4:11] matrix_a_reuse",
        # printed before neg_lo / neg_hi (VOP3PInstructions.td:1786 AsmVOP3P: ...#MatrixReuseAsm#NegAsm#ClampAsm)
        after="op_sel_hi"),
    "gfx940 buffer_inv / buffer_wbl2 scope": ModifierEvidence(
        ("GFX940",), "MUBUF", r"^buffer_(inv|wbl2)$", ("sc0", "sc1", "nt"),
        "GFX940's rows of buffer_inv and buffer_wbl2 list no modifiers; the tests write sc0 and sc1 on them "
        "(SC0 [14], SC1 [15]), as GFX950's rows of the same instructions list sc0, sc1 and nt",
        Provenance(SOURCE, "llvm-project-23.1.1/llvm/docs/AMDGPU/AMDGPUAsmGFX950.rst", 397, "buffer_inv"),
        f"{_MC}/gfx942_asm_features.s:294", "buffer_inv sc0"),
    "gfx10 scalar atomics and stores dlc": ModifierEvidence(
        ("GFX10",), "SMEM", r"^s_(buffer_)?(atomic|store)_", ("dlc",),
        "GFX10's rows of the scalar atomics and stores (s_atomic_add, s_store_dword ...) list glc but no dlc, which "
        "its scalar loads list (s_load_dword ... glc dlc); the tests write dlc on them and encode it in bit 14 (DLC)",
        Provenance(SOURCE, "llvm-project-23.1.1/llvm/docs/AMDGPU/AMDGPUAsmGFX10.rst", 1015, "s_atomic_add"),
        f"{_MC}/gfx10_asm_smem.s:31", "s_atomic_add s5, s[2:3], 0x64 dlc"),
    "gfx950 permlane swap bound_ctrl and fi": ModifierEvidence(
        ("GFX950",), "VOP", r"^v_permlane(16|32)_swap_b32_e64$", ("bound_ctrl", "fi"),
        "GFX950's rows of v_permlane16_swap_b32 / v_permlane32_swap_b32 list no modifiers; the tests write "
        "bound_ctrl:1 and fi:1 on their VOP3 form (_e64, derived from the VOP1 row) and encode them in bits 12 and 11",
        Provenance(SOURCE, _GFX950_PAGE, 934, "v_permlane16_swap_b32"),
        f"{_MC}/gfx950_asm_features.s:2105", "v_permlane16_swap_b32 v1, v2 bound_ctrl:1"),
    "gfx950 dot2c bf16 dpp neg/abs": ModifierEvidence(
        ("GFX950",), "VOP2", r"^v_dot2c_f32_bf16_dpp$", (),
        "GFX950's DPP row of v_dot2c_f32_bf16_dpp tags no source :m; the tests write neg and abs on both sources, "
        "as the same page's row of v_dot2c_f32_f16_dpp tags vsrc0 and vsrc1 :m",
        Provenance(SOURCE, _GFX950_PAGE, 1031, "v_dot2c_f32_bf16_dpp"),
        f"{_MC}/gfx950_xdlops.s:14", "v_dot2c_f32_bf16_dpp v5, -v1, v2 quad_perm:[0,1,2,3] row_mask:0x0 "
        "bank_mask:0x0", neg_abs=True, neg_abs_on="vsrc"),
    "gfx950 dpp mirror and wave controls": ModifierEvidence(
        ("GFX950",), "VOP", r"^v_\w+_dpp$",
        ("row_mirror", "row_half_mirror", "wave_shl", "wave_rol", "wave_shr", "wave_ror"),
        "GFX950's DPP rows spell dpp_ctrl as quad_perm, row_shl, row_shr, row_ror and row_bcast only; the tests write "
        "row_mirror, row_half_mirror and wave_shl/rol/shr/ror, which the generic dpp_ctrl page lists for GFX9 "
        "(AMDGPUModifierSyntax.rst:1317-1325) and the other GFX9 pages' DPP rows take through dpp_ctrl",
        Provenance(SOURCE, _GFX950_PAGE, 937, "v_prng_b32_dpp"),
        f"{_MC}/gfx950_asm_vop1_dpp16.s:11", "v_prng_b32_dpp v5, v1 row_half_mirror row_mask:0xf bank_mask:0xf"),
    "gfx950 cvt_pk f32 omod": ModifierEvidence(
        ("GFX950",), "VOP3", r"^v_cvt_pk_(f16|bf16)_f32$", ("omod",),
        "GFX950's rows of v_cvt_pk_f16_f32 and v_cvt_pk_bf16_f32 list no output modifier; the tests write mul:2 "
        "and encode it in OMOD (bits 60:59)",
        Provenance(SOURCE, _GFX950_PAGE, 1201, "v_cvt_pk_f16_f32"),
        f"{_MC}/gfx950_asm_features.s:170", "v_cvt_pk_f16_f32 v5, 0.5, m0 mul:2"),
    "gfx950 pk32 conversion source": ModifierEvidence(
        ("GFX950",), "VOP3", r"^v_cvt_scalef32_(sr_)?pk32_[a-z0-9]+_(?P<src>[a-z0-9]+)$", (),
        "GFX950's rows of the 32-value conversions (v_cvt_scalef32_pk32_*, v_cvt_scalef32_sr_pk32_*) link src0 to "
        "the interpolation-attribute page (PAGE_ERRATA), read as the row's 1-dword src1; the cdna4 manual converts "
        "'a packed 32-component' input (README.md:14931, 14941: 32 FP6 values of 6 bits from S0), and the tests write src0 as "
        "32 values of the source type the mnemonic names last: 6 dwords of bf6 / fp6, 16 of bf16 / f16, 32 of f32",
        Provenance(SOURCE, _GFX950_PAGE, 1218, "v_cvt_scalef32_pk32_bf16_bf6"),
        f"{_MC}/gfx950_asm_features.s:794", "v_cvt_scalef32_pk32_bf16_bf6 v[10:25], v[20:25], v8",
        types=(("src0", "{src}x32"),)),
    "gfx950 sr_pk_fp4_f32 source": ModifierEvidence(
        ("GFX950",), "VOP3", r"^v_cvt_scalef32_sr_pk_fp4_(?P<src>f32)$", (),
        "GFX950's row of v_cvt_scalef32_sr_pk_fp4_f32 sizes src0 as its 1-dword src1 (PAGE_ERRATA); the cdna4 manual "
        "converts 'a packed 2-component single-precision float input' (README.md:14594, 14599-14601: S0[31:0] and "
        "S0[63:32]), and the tests write src0 as 2 dwords",
        Provenance(SOURCE, _GFX950_PAGE, 1260, "v_cvt_scalef32_sr_pk_fp4_f32"),
        f"{_MC}/gfx950_asm_features.s:1958", "v_cvt_scalef32_sr_pk_fp4_f32 v0, v[2:3], v4, v5",
        types=(("src0", "{src}x2"),)),
}


@dataclass(frozen=True, slots=True)
class OlderRowEvidence:
    """Rows of a page that LLVM's MC tests contradict where the previous generation's page lists the same
    instruction as the tests write it: that older row serves (its operands and their pages), and the newer
    row stays cited beside it as an erratum."""

    family: str          # the page whose rows are replaced
    older: str           # the page whose row of the same mnemonic serves
    mnemonics: str       # rows of `family` whose mnemonic matches this regular expression
    reason: str
    source: Provenance   # a row of `family` the tests contradict
    evidence: str        # an LLVM MC test check line (file:line) with the encoding of ...
    example: str         # ... this assembly, which the row refuses and the older row parses
    # an instruction new on `family` (no older row of its own) takes the older row of the mnemonic this
    # (pattern, replacement) makes of its own: global_load_lds_dwordx3 -> global_load_lds_dword
    sibling: tuple[str, str] = ()


_GFX942_FEATURES = f"{_MC}/gfx942_asm_features.s"   # RUN lines: -mcpu=gfx942 and -mcpu=gfx950, one check prefix
OLDER_ROWS: dict[str, OlderRowEvidence] = {
    "gfx950 global rows and atomics without return": OlderRowEvidence(
        "GFX950", "GFX940", r"^(flat_atomic_|global_(?!load_lds_))",
        "GFX950's flat and global atomic rows list vdst without :opt, though its page says 'This is an optional "
        "operand. It must be used if and only if glc is specified' (gfx950_operands.rst:1287), its global rows link "
        "addr to a '2 dwords' page and saddr to a page without `off`; the tests (run for gfx942 and gfx950) write "
        "the no-return form (no vdst), a 1-dword offset with an SGPR base (global_atomic_add_f32 v1, v0, v2, s[0:1], "
        ":502) and `off` (global_load_dword v2, v[2:3], off sc0, :7), as the GFX940 rows of the same instructions "
        "list them (vdst :opt; vaddr of 1 or 2 dwords; saddr or off)",
        Provenance(SOURCE, _GFX950_PAGE, 176, "flat_atomic_add_f32"),
        f"{_GFX942_FEATURES}:38", "flat_atomic_add_f32 v[2:3], v1"),
    "gfx950 lds loads write no vdst": OlderRowEvidence(
        "GFX950", "GFX940", r"^(global|scratch)_load_lds_",
        "GFX950's global_load_lds_* / scratch_load_lds_* rows list a vdst; these loads write LDS, and the tests "
        "write only the address operands, as the GFX940 rows of the same instructions list them (vaddr, saddr); the "
        "dwordx3 / dwordx4 forms new on gfx950 take the GFX940 row of the dword form (gfx950_asm_features.s:116 "
        "`global_load_lds_dwordx3 v2, s[4:5] offset:4`)",
        Provenance(SOURCE, _GFX950_PAGE, 273, "global_load_lds_dword"),
        f"{_GFX942_FEATURES}:146", "global_load_lds_dword v2, s[4:5] offset:4", sibling=(r"_dwordx[34]$", "_dword")),
    "gfx950 fp8 conversions: sdwa and dpp rows": OlderRowEvidence(
        "GFX950", "GFX940", r"^v_cvt_(pk_)?f32_(bf8|fp8)_(sdwa|dpp)$",
        "GFX950's SDWA and DPP rows of v_cvt_f32_bf8 / fp8 and v_cvt_pk_f32_bf8 / fp8 list a VOP2-style SDWA row "
        "(src1_sel, no clamp or omod) and no row_newbcast; the tests write clamp, mul:2 and row_newbcast, as the GFX940 "
        "rows of the same instructions list them (clamp omod src0_sel; dpp32_ctrl)",
        Provenance(SOURCE, _GFX950_PAGE, 794, "v_cvt_f32_bf8_sdwa"),
        f"{_GFX942_FEATURES}:595", "v_cvt_f32_bf8_sdwa v1, s3 clamp mul:2 src0_sel:BYTE_1"),
    "gfx950 v_mov_b64 dpp64": OlderRowEvidence(
        "GFX950", "GFX940", r"^v_mov_b64_dpp$",
        "GFX950's DPP row of v_mov_b64 lists the 32-bit DPP controls and no row_newbcast; the tests write "
        "row_newbcast:1, as the GFX940 row lists it (dpp64_ctrl)",
        Provenance(SOURCE, _GFX950_PAGE, 926, "v_mov_b64_dpp"),
        f"{_GFX942_FEATURES}:247", "v_mov_b64_dpp v[2:3], v[4:5] row_newbcast:1 row_mask:0xf bank_mask:0xf"),
    "gfx950 s_load offset and glc": OlderRowEvidence(
        "GFX950", "GFX940", r"^s_load_dword(x\d+)?$",
        "GFX950's s_load_dword rows list sdata, sbase and soffset only; the tests write an immediate offset and glc, "
        "as the GFX940 rows of the same instructions list them (soffset, offset21s, glc)",
        Provenance(SOURCE, _GFX950_PAGE, 515, "s_load_dword"),
        f"{_GFX942_FEATURES}:30", "s_load_dword s2, s[2:3], 0x0 glc"),
}


@dataclass(frozen=True, slots=True)
class OperandRole:
    """An operand page whose rows name the operand by its field (simm16) where LLVM's other pages name what it
    holds (hwreg), the name the codec reads and prints it by (hwreg(..) syntax)."""

    name: str
    reason: str
    source: Provenance   # the page (its label's line)
    evidence: str        # an LLVM MC check line (file:line), run for the page's target, writing ...
    example: str         # ... this assembly


OPERAND_ROLES: dict[str, OperandRole] = {
    "amdgpu_synid_gfx950_simm16_de962b": OperandRole(
        "hwreg",
        "GFX950's s_getreg_b32 / s_setreg_b32 / s_setreg_imm32_b32 rows name the hardware register operand simm16, "
        "on a page giving its bits (register id 5:0, offset 10:6, size 15:11); the GFX940 rows name it hwreg "
        "(AMDGPUAsmGFX940.rst:689) and llvm-mc prints hwreg(..) on gfx950 as on gfx942",
        Provenance(SOURCE, _GFX950_OPERANDS, 552, "simm16"),
        f"{_MC}/gfx942_asm_features.s:202", "s_getreg_b32 s1, hwreg(HW_REG_XCC_ID)"),
}


@dataclass(frozen=True, slots=True)
class PrintOrderEvidence:
    """A page whose rows list modifiers in another order than llvm-mc prints them, where an older page's rows
    list them in the printed order: the codec prints (and the checker reads) the page's modifiers in the order
    of the older page's rows (one order over all of them: each row's modifiers keep their order)."""

    family: str          # the page whose modifier order is replaced
    older: str           # the page whose rows give the printed order
    reason: str
    source: Provenance   # a row of `family` listing its modifiers out of the printed order
    evidence: str        # an LLVM disassembler check line (file:line), run for the page's target, printing ...
    example: str         # ... this text, in the older page's order


_DIS = "llvm-project-23.1.1/llvm/test/MC/Disassembler/AMDGPU"
PRINT_ORDER: dict[str, PrintOrderEvidence] = {
    "GFX950": PrintOrderEvidence(
        "GFX950", "GFX940",
        "GFX950's rows list the buffer modifiers as offset12 offen idxen lds sc0 sc1 nt, the SDWA selectors as "
        "src0_sel src1_sel dst_sel dst_unused and the matrix modifiers as blgp cbsz abid; llvm-mc prints them as "
        "the GFX940 rows list them (idxen offen offset12 sc0 nt sc1 lds; dst_sel dst_unused src0_sel src1_sel; "
        "cbsz abid blgp), on gfx950 as on gfx942",
        Provenance(SOURCE, _GFX950_PAGE, 398, "buffer_load_dword"),
        f"{_DIS}/gfx942_features.txt:36", "buffer_load_dword v5, off, s[8:11], s3 sc0 nt sc1"),
}


def printed_order(docs: SyntaxDocs, family: str) -> dict[str, frozenset[str]] | None:
    """For a PRINT_ORDER page (None for other pages): each modifier -> the modifiers llvm-mc prints before it
    where both appear, as the older page's rows order them (transitively: buffer rows give idxen < offen <
    offset12 < sc0 < nt < sc1 < lds); modifiers no older row orders stay unordered."""
    import itertools

    fix = PRINT_ORDER.get(family)
    older = docs.families.get(fix.older) if fix else None
    if older is None:
        return None
    before: dict[str, set[str]] = {}
    for ins in older.instructions:
        mods = [o.name for o in ins.operands if o.role == "modifier"]
        for a, b in itertools.pairwise(mods):
            before.setdefault(b, set()).add(a)
    changed = True
    while changed:   # transitive closure (a few dozen modifiers)
        changed = False
        for name, earlier in before.items():
            more = set().union(*(before.get(e, set()) for e in earlier)) - earlier - {name}
            if more:
                earlier |= more
                changed = True
    return {name: frozenset(earlier) for name, earlier in before.items()}


def older_row(docs: SyntaxDocs, row: SyntaxInstruction) -> tuple[SyntaxInstruction, str]:
    """(row, OLDER_ROWS entry) for one page row: the older page's row of the same mnemonic where an entry
    covers it, else (row, ""). The one test for the catalog's operands, the codec and the checker."""
    for name, fix in OLDER_ROWS.items():
        if row.family == fix.family and re.match(fix.mnemonics, row.mnemonic):
            older = docs.families.get(fix.older)
            same = older.rows(row.mnemonic) if older else []
            if not same and older and fix.sibling:
                same = [replace(r, mnemonic=row.mnemonic) for r in older.rows(re.sub(*fix.sibling, row.mnemonic))]
            if same:
                return same[0], name
    return row, ""


# An atomic writes vdst only when it returns the pre-op value (th:TH_ATOMIC_RETURN / glc): GFX11's rows tag vdst
# :opt (AMDGPUAsmGFX11.rst:225 flat_atomic_add_f32 vdst:opt), GFX12's rows do not, and LLVM's GFX12 / gfx1250 tests
# write the no-return form with vdst left out (gfx12_asm_vflat.s:17 `flat_atomic_add_f32 v[0:1], v2 offset:-64`).
ATOMIC_RETURN_OPTIONAL = (Provenance(SOURCE, _GFX11_PAGE, 225, "flat_atomic_add_f32"), f"{_MC}/gfx12_asm_vflat.s:17",
                          "flat_atomic_add_f32 v[0:1], v2 offset:-64")


# A buffer load given `lds` writes LDS, not VGPRs, and is written without its VGPR operand: GFX9's row of
# buffer_load_dword tags vdst :opt, "used if and only if lds is omitted" (AMDGPUAsmGFX9.rst:486, gfx9_opt_0d447d.rst:13);
# GFX950's rows list vdata untagged, and gfx950 adds lds to the dwordx3 / dwordx4 loads (mubuf-gfx950.s:13
# `buffer_load_dwordx3 off, s[8:11], s3 lds`, no VGPR written).
LDS_LOAD_OPTIONAL = (Provenance(SOURCE, "llvm-project-23.1.1/llvm/docs/AMDGPU/AMDGPUAsmGFX9.rst", 486, "buffer_load_dword"),
                     f"{_MC}/mubuf-gfx950.s:13", "buffer_load_dwordx3 off, s[8:11], s3 lds")


def lds_load_optional(mnemonic: str, first_role: str) -> bool:
    """Whether a row's first operand is a buffer load's VGPR data, which the `lds` form leaves out
    (LDS_LOAD_OPTIONAL): one answer for the printer and the assembler."""
    return mnemonic.startswith("buffer_load_") and first_role == "dst"


def atomic_return_optional(mnemonic: str, first_operand: str) -> bool:
    """Whether a row's first operand is an atomic's returned value, which the no-return form leaves out
    (ATOMIC_RETURN_OPTIONAL): one answer for the checker and the assembler."""
    return "_atomic" in mnemonic and first_operand == "vdst"


BF16_TWIN = "bf16 twin of the f16 row"
VOPD_BITOP_ROW = "vopd3 bitop2 from the bitop3 row"
# VOPD halves no page lists whose row is another instruction's with its last source dropped: the half -> the
# instruction (ROW_EVIDENCE "vopd3 bitop2 from the bitop3 row")
VOPD_BITOP: dict[str, str] = {"v_dual_bitop2_b32": "v_bitop3_b32"}
RENAMED_ROW = "gfx12 row of the renamed instruction"
SAME_SHAPE = "same shape"
SDWA_TWIN = "sdwa row of an integer vop2"
LOAD_SCALE_ROW = "load-scale half of the scale mfma row"
MATRIX_TWIN = "matrix row of another shape"
FLAT_SADDR = "flat row with an sgpr base"
VOPD3_SOURCES = "vopd3 sources"
GFX9_ROW_ON_GFX12 = "gfx9 row on a gfx12 target"
WIDE_TWIN = "64-bit twin of the 32-bit row"
PACKED_CVT = "packed conversion sized by its name"
PROFILE_TWIN = "twin row sized by its tablegen profile"
ASYNC_LDS = "lds address of an async load"
SOURCE_ONLY = "source only"
SCALED_MATRIX_ROW = "scaled matrix row"
DPP64 = "dpp16 of a 64-bit row"
RENAMED_GFX1250 = "gfx1250 name of a gfx12 row"
_FORM_SUFFIXES = ("_e64_dpp", "_e32", "_e64", "_dpp", "_sdwa", "")


def rule_source(mnemonic: str, serves: Iterable[str]) -> tuple[str, str, str] | None:
    """(ROW_EVIDENCE rule, listed mnemonic, page) whose row a mnemonic no page lists takes, for one of the
    pages / family buckets in `serves`; page "" is the serving pages themselves. One answer for the catalog's
    operands and the checker (the VOPD and DPP rules need the codec's row shapes: codec.operand_check)."""
    serves = set(serves)
    if mnemonic in RENAMED_IN_GFX12 and serves & set(ROW_EVIDENCE[RENAMED_ROW].families):
        return RENAMED_ROW, RENAMED_IN_GFX12[mnemonic][0], "GFX12"
    if mnemonic in RENAMED_IN_GFX1250 and serves & set(ROW_EVIDENCE[RENAMED_GFX1250].families):
        return RENAMED_GFX1250, RENAMED_IN_GFX1250[mnemonic][0], "GFX12"
    if mnemonic in SOURCE_ONLY_GFX1250 and serves & set(ROW_EVIDENCE[SOURCE_ONLY].families):
        return SOURCE_ONLY, SOURCE_ONLY_GFX1250[mnemonic][0], ""
    if mnemonic in SDWA_TWINS and serves & set(ROW_EVIDENCE[SDWA_TWIN].families):
        return SDWA_TWIN, SDWA_TWINS[mnemonic], ""
    if mnemonic in LOAD_SCALE and serves & set(ROW_EVIDENCE[LOAD_SCALE_ROW].families):
        return LOAD_SCALE_ROW, LOAD_SCALE[mnemonic], ""
    if mnemonic in SCALED_MATRIX and serves & set(ROW_EVIDENCE[SCALED_MATRIX_ROW].families):
        return SCALED_MATRIX_ROW, MATRIX_TWINS["v_wmma"], ""
    if ASYNC_LDS_LOAD.match(mnemonic) and serves & set(ROW_EVIDENCE[ASYNC_LDS].families):
        return ASYNC_LDS, ASYNC_LDS_TWIN, ""
    if serves & set(ROW_EVIDENCE[SAME_SHAPE].families):
        for suffix in _FORM_SUFFIXES:   # v_tanh_f32_e64 -> v_sqrt_f32_e64: the same form of the listed one
            stem = mnemonic.removesuffix(suffix) if suffix else mnemonic
            if stem in SAME_SHAPE_GFX1250 and (not suffix or mnemonic.endswith(suffix)):
                return SAME_SHAPE, SAME_SHAPE_GFX1250[stem][0] + suffix, ""
    if serves & set(ROW_EVIDENCE[WIDE_TWIN].families):
        for suffix in _FORM_SUFFIXES:
            stem = mnemonic.removesuffix(suffix) if suffix else mnemonic
            if stem in WIDE_TWINS and (not suffix or mnemonic.endswith(suffix)):
                return WIDE_TWIN, WIDE_TWINS[stem][0] + suffix, ""
    if serves & set(ROW_EVIDENCE[PROFILE_TWIN].families):
        for suffix in _FORM_SUFFIXES:
            stem = mnemonic.removesuffix(suffix) if suffix else mnemonic
            if stem in PROFILE_TWINS and (not suffix or mnemonic.endswith(suffix)):
                return PROFILE_TWIN, PROFILE_TWINS[stem].twin + suffix, ""
    if (m := PACKED_CONVERSION.match(mnemonic.removesuffix("_e64"))) and serves & set(ROW_EVIDENCE[PACKED_CVT].families):
        return PACKED_CVT, PACKED_TWINS[bool(m.group(1))], ""
    if (m := _MATRIX_MNEMONIC.match(mnemonic)) and serves & set(ROW_EVIDENCE[MATRIX_TWIN].families):
        return MATRIX_TWIN, MATRIX_TWINS[m.group(1) or m.group(2)], ""
    if "_bf16" in mnemonic and serves & set(ROW_EVIDENCE[BF16_TWIN].families):
        return BF16_TWIN, mnemonic.replace("_bf16", "_f16"), ""
    return None


def derived_bits(rule: str, mnemonic: str, name: str, role: str, accepts: Iterable[str], bits: int | None,
                 ) -> int | None:
    """Bits a ROW_EVIDENCE rule gives one operand of the row it derives, where the listed row's page sizes another
    shape (`bits`: that page's size): PROFILE_TWIN by LLVM's profile types, WIDE_TWIN twice the 32-bit twin's VGPR
    operands, PACKED_CVT by the mnemonic's element count and types; `bits` unchanged otherwise. One answer for the
    checker's rows and the catalog's operands."""
    if role not in ("dst", "src"):
        return bits
    if rule == PROFILE_TWIN:
        return profile_bits(mnemonic).get(name, bits)
    if rule == WIDE_TWIN:
        return bits * 2 if bits and "v" in accepts else bits
    if rule == PACKED_CVT:
        dwords = packed_conversion_dwords(mnemonic.removesuffix("_e64")).get(name)
        return dwords * 32 if dwords else bits
    return bits


_TYPE_TAG = re.compile(r"^(?:b|f|i|u|bf|fp)(\d+)(?:x(\d+))?$")


def type_tag_bits(tag: str) -> int | None:
    """Bits a type tag names (b64: 64, f16x2: 32, bf6x32: 192); None for a tag naming no width."""
    m = _TYPE_TAG.match(tag)
    return int(m.group(1)) * int(m.group(2) or 1) if m else None


def derived_row(rule: str, row: R, mnemonic: str | None = None) -> R:
    """The row a ROW_EVIDENCE rule makes of the listed row rule_source names (a SyntaxInstruction or the
    codec's Row: both hold mnemonic and named operands): the load-scale rule keeps LOAD_SCALE_OPERANDS, renamed;
    the async LDS loads read their first operand (ASYNC_LDS); the others take the row as it is. Under `mnemonic`
    when given."""
    if rule == LOAD_SCALE_ROW:
        ops = tuple(replace(o, name=LOAD_SCALE_OPERANDS[o.name]) for o in row.operands if o.name in LOAD_SCALE_OPERANDS)
        row = replace(row, operands=ops)
    elif rule == SOURCE_ONLY:   # the listed row's sources, no result
        row = replace(row, operands=tuple(o for o in row.operands if o.role != "dst"))
    elif rule == ASYNC_LDS:   # the LDS address is read (the row's own vdst page sizes it: one VGPR)
        row = replace(row, operands=tuple(replace(o, role="src") if o.name == "vdst" else o for o in row.operands))
    return replace(row, mnemonic=mnemonic) if mnemonic else row


def modifier_entries(family: str, section: str, mnemonic: str, buckets: Iterable[str] = (),
                     ) -> list[tuple[str, ModifierEvidence]]:
    """The MODIFIER_EVIDENCE entries covering one row of `family`'s page, where it serves `buckets` (family
    buckets such as 'GFX12 (cdna5)': gfx1250's modifiers on GFX12's rows): the one test of which rows an entry
    adds to, for the catalog's operands, the checker and the codec."""
    serves = {family, *buckets}
    return [(name, fix) for name, fix in MODIFIER_EVIDENCE.items()
            if serves & set(fix.families) and section.startswith(fix.section) and re.match(fix.mnemonics, mnemonic)]


def evidence_page(docs: SyntaxDocs, label: str, row: SyntaxInstruction | None,
                  ) -> tuple[OperandPage | None, OperandEvidence | None]:
    """The page LLVM's tests agree with for an operand linking to `label` in `row` (OPERAND_EVIDENCE):
    the previous generation's row of the same mnemonic when it names one, else the page for the row's
    section; (None, None) where no entry covers the row."""
    fix = OPERAND_EVIDENCE.get(label)
    if fix is None or row is None or fix.serving:
        return None, None
    section = next((s for s in fix.use if row.section.startswith(s)), None)
    if section is None:
        return None, None
    at, name = next(((n, o.name) for n, o in enumerate(row.operands) if o.label == label), (-1, ""))
    older = docs.families.get(fix.older)
    same = next((i for i in older.instructions if i.mnemonic == row.mnemonic), None) if older else None
    twin = next((o.label for o in same.operands if o.name == name), "") if same else ""
    if same and not twin and 0 <= at < len(same.operands) and same.operands[at].role == row.operands[at].role:
        twin = same.operands[at].label   # renamed in place (GFX11 image_load's vdst is GFX12's vdata)
    page = docs.pages.get(twin) or docs.pages.get(fix.use[section])
    if page is not None and fix.adds:
        page = replace(page, accepts=(*page.accepts, *(k for k in fix.adds if k not in page.accepts)))
    return (page, fix) if page else (None, None)


def operand_page(docs: SyntaxDocs, label: str, row: SyntaxInstruction | None = None,
                 ) -> tuple[OperandPage | None, PageErratum | OperandEvidence | None]:
    """The page describing operands that link to `label`, after OPERAND_EVIDENCE and PAGE_ERRATA (and
    the correction applied): the page the tests agree with; for a generator slip, the page of the
    erratum's twin operand in `row` when it has one, else the erratum's page."""
    page, evidence = evidence_page(docs, label, row)
    if evidence:
        return page, evidence
    fix = PAGE_ERRATA.get(label)
    if fix and row is not None:
        name = next((o.name for o in row.operands if o.label == label), "")
        older = docs.families.get(fix.older)
        same = next((i for i in older.instructions if i.mnemonic == row.mnemonic), None) if older else None
        twins = [o for o in same.operands if o.name == name] if same else []
        at = next((n for n, o in enumerate(row.operands) if o.label == label), -1)
        if same and not twins and 0 <= at < len(same.operands) and same.operands[at].role == row.operands[at].role:
            twins = [same.operands[at]]   # renamed in place (GFX11 v_permlane16_b32's vdata is GFX12's src0)
        twins += [o for o in row.operands if o.name == fix.twin] if fix.twin else []
        for twin in twins:
            if twin.label in docs.pages and twin.label not in PAGE_ERRATA:
                return docs.pages[twin.label], fix
    if fix and fix.use in docs.pages:
        return docs.pages[fix.use], fix
    return docs.pages.get(label), None


def _ref_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    """Sphinx's :ref:`label<target>` / :doc: as a docutils reference that keeps the target."""
    m = _ROLE_TEXT.match(text)
    label, target = (m.group(1), m.group(2)) if m else (text, text)
    return [nodes.reference(rawtext, label, reftarget=target.strip(), role=name)], []


class _Toctree(Directive):
    """Sphinx's toctree (lists the operand files to build): the files are read directly, so it adds nothing."""

    has_content = True
    optional_arguments = 1
    option_spec: ClassVar[dict] = {"hidden": directives.flag}

    def run(self) -> list[nodes.Node]:
        return []


roles.register_local_role("ref", _ref_role)
roles.register_local_role("doc", _ref_role)
directives.register_directive("toctree", _Toctree)


def _parse(path: Path, rel: str, skips: list[Skip]) -> tuple[nodes.document, list[str]] | None:
    """Parse one .rst file; docutils errors become counted skips with file:line, never exceptions."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        skips.append(Skip(rel, None, f"unreadable page: {e}"))
        return None
    settings = docutils.frontend.get_default_settings(docutils.parsers.rst.Parser)
    settings.report_level = 5
    settings.halt_level = 5
    settings.warning_stream = False
    doc = docutils.utils.new_document(str(path), settings)

    def observe(msg: nodes.system_message) -> None:
        if msg["level"] >= 3:  # ERROR and SEVERE: markup docutils could not read
            skips.append(Skip(rel, msg.get("line"), "reStructuredText error", msg.astext()[:200]))

    doc.reporter.attach_observer(observe)
    try:
        docutils.parsers.rst.Parser().parse(text, doc)
    except Exception as e:  # docutils raises on some severe markup; one page must not stop the build
        skips.append(Skip(rel, None, f"reStructuredText parse failed: {type(e).__name__}: {e}"))
        return None
    return doc, text.splitlines()


def _refs(node: nodes.Node) -> list[nodes.reference]:
    return [r for r in node.findall(nodes.reference) if r.get("reftarget")]


def _short(label: str) -> str:
    return label[len(LABEL_PREFIX):] if label.startswith(LABEL_PREFIX) else label


def _read_page_sections(doc: nodes.document, rel: str, pages: dict[str, OperandPage], skips: list[Skip]) -> None:
    """Every `.. _amdgpu_synid_X:` label with the section it precedes becomes an OperandPage."""
    pending: list[nodes.target] = []
    for node in doc.findall(lambda n: isinstance(n, nodes.target | nodes.section)):
        if isinstance(node, nodes.target):
            if any(name.startswith(LABEL_PREFIX) for name in node["names"]) and not node.get("refuri"):
                pending.append(node)
            continue
        for target in pending:
            for label in target["names"]:
                page = _page(label, node, Provenance(SOURCE, rel, target.line, label))
                if label in pages and pages[label].provenance.file != rel:
                    skips.append(Skip(rel, target.line, f"label {label} defined twice",
                                      pages[label].provenance.cite()))
                pages.setdefault(label, page)
        pending = []
    for target in pending:
        skips.append(Skip(rel, target.line, "label with no section after it", ",".join(target["names"])))


def _page(label: str, section: nodes.section, prov: Provenance) -> OperandPage:
    own = [c for c in section.children if not isinstance(c, nodes.section | nodes.system_message)]
    title = next((c.astext() for c in own if isinstance(c, nodes.title)), label)
    description = size_text = ""
    accepts: list[str] = []
    listed = False
    for c in own:
        if not isinstance(c, nodes.paragraph):
            continue
        text = " ".join(c.astext().split())
        if text.startswith("Size:"):
            size_text = text.removeprefix("Size:").strip()
        elif text.startswith("Operands:"):
            listed = True
            accepts = [_short(r["reftarget"]) for r in _refs(c)]
        elif not description:
            description = text
    if not listed:  # value operands (simm32, label, hwreg) and vcc / vcc_lo: kinds named in the text
        seen = [_short(r["reftarget"]) for c in own if not isinstance(c, nodes.title) for r in _refs(c)]
        accepts = [k for k in dict.fromkeys(seen) if k in KIND_NAMES]
    m = _SIZE.match(size_text)
    size_bits = (int(m.group(1)) * (1 if m.group(2) == "bits" else 32)) if m else None
    body = "\n\n".join(_plain(c) for c in own if not isinstance(c, nodes.title))
    return OperandPage(label=label, name=title, description=description, size_text=size_text,
                       size_bits=size_bits, accepts=tuple(accepts), text=body, provenance=prov)


def _plain(node: nodes.Node) -> str:
    """Text of a node without docutils' own messages (which name local file paths)."""
    copy = node.deepcopy()
    for msg in list(copy.findall(nodes.system_message)):
        msg.parent.remove(msg)
    return copy.astext()


def _read_family(path: Path, rel: str, key: str, docs: SyntaxDocs) -> None:
    parsed = _parse(path, rel, docs.skips)
    if parsed is None:
        return
    doc, raw = parsed
    title = next((t.astext() for t in doc.findall(nodes.title)), key)
    intro = next((s for s in doc.findall(nodes.section) if "introduction" in s["names"]), None)
    named: list[str] = []
    base = None
    if intro is not None:
        for p in intro.findall(nodes.paragraph):
            refs = [r["reftarget"] for r in _refs(p) if r.get("role") == "doc"]
            if refs:  # "For a description of other ... instructions see :doc:`...<AMDGPUAsmGFX9>`"
                base = refs[0].removeprefix("AMDGPUAsm")
            else:
                named += [f"gfx{t.lower()}" for t in _TARGET.findall(p.astext())]
    fam = SyntaxFamily(key=key, file=rel, title=title, targets_named=tuple(dict.fromkeys(named)), base=base)
    for block in doc.findall(nodes.literal_block):
        section = block.parent.next_node(nodes.title) if isinstance(block.parent, nodes.section) else None
        fam.instructions += _read_rows(block, section.astext() if section else "", key, rel, raw, docs.skips)
    docs.families[key] = fam


def _read_rows(block: nodes.literal_block, section: str, family: str, rel: str, raw: list[str],
               skips: list[Skip]) -> list[SyntaxInstruction]:
    """Split a parsed-literal table into rows; each :ref: is an operand (or a ':'-joined tag of the previous)."""
    text, spans = "", []
    for child in block.children:
        start = len(text)
        text += child.astext()
        if isinstance(child, nodes.reference) and child.get("reftarget"):
            spans.append((start, len(text), child))
    lines = text.split("\n")
    if not lines or "INSTRUCTION" not in lines[0]:
        return []
    header = [(m.start(), m.group()) for m in re.finditer(r"\S+", lines[0])]
    out: list[SyntaxInstruction] = []
    raw_at = (block.line or 1) - 1
    offset = 0
    for line in lines:
        begin, end = offset, offset + len(line)
        offset = end + 1
        words = line.split()
        if not words or not _MNEMONIC.match(words[0]) or line is lines[0]:
            continue
        mnemonic = words[0]
        while raw_at < len(raw) and raw[raw_at].split()[:1] != [mnemonic]:
            raw_at += 1
        lineno = raw_at + 1 if raw_at < len(raw) else None
        if lineno is None:
            skips.append(Skip(rel, block.line, "row not found in the source text", mnemonic))
            raw_at = (block.line or 1) - 1
        ops: list[SyntaxOperand] = []
        prev_end = None
        for s, e, ref in (sp for sp in spans if begin <= sp[0] < end):
            label = ref["reftarget"]
            if prev_end is not None and text[prev_end:s] == ":" and ops:
                last = ops[-1]
                ops[-1] = SyntaxOperand(last.name, last.role, last.column, last.label,
                                        (*last.tags, ref.astext()), (*last.tag_labels, label))
            else:
                col = s - begin
                column = next((name for at, name in reversed(header) if at <= col), header[0][1])
                role = "modifier" if column == "MODIFIERS" else "dst" if column.startswith("DST") else "src"
                ops.append(SyntaxOperand(ref.astext(), role, column, label))
            prev_end = e
        seen_modifier = False
        for o in ops:
            if o.role == "modifier":
                seen_modifier = True
            elif seen_modifier:
                skips.append(Skip(rel, lineno, "operand after a modifier column", f"{mnemonic} {o.name}"))
        out.append(SyntaxInstruction(family, section, mnemonic, tuple(ops),
                                     Provenance(SOURCE, rel, lineno, f"{family} {section}")))
        if lineno is not None:
            raw_at += 1
    return out


# Parsed pages, per process and on disk (sources.parsed_cache: a parse of the ~900 pages takes 20-40 s of CPU,
# loading the pickle a few): keyed by every page's path, size and mtime and by the package's code, so an edited
# page or reader is read again. The build, check-operands, the codec tables and the tests share one read;
# callers do not change the SyntaxDocs they get.
_MEMO: dict[tuple[str, ...], SyntaxDocs] = {}


def _page_files(docs_dir: Path) -> list[Path]:
    return [*(docs_dir / name for name in GENERIC_PAGES), *sorted((docs_dir / "AMDGPU").glob("*.rst"))]


def read_syntax_docs(docs_dir: Path, rel: str | None = None) -> SyntaxDocs:
    """Read every AMDGPUAsmGFX*.rst page and every labelled operand page under `docs_dir` (llvm/docs).

    `rel` is the folder as provenance spells it (relative to the sources root). A missing or
    malformed page becomes a Skip with file:line; the reader never raises on page content. A read
    is kept for the process and in the parsed-sources cache (a changed page is read again).
    """
    from gpuisa.sources import parsed_cache

    docs_dir = Path(docs_dir)
    rel = rel if rel is not None else str(docs_dir)
    files = _page_files(docs_dir)
    key = (str(docs_dir.resolve()), rel, *(parsed_cache.file_stamp(p) for p in files))
    if key not in _MEMO:
        _MEMO[key] = parsed_cache.parsed("syntax", (str(docs_dir.resolve()), rel), files,
                                         lambda: _read_all(docs_dir, rel))
    return _MEMO[key]


def _read_all(docs_dir: Path, rel: str) -> SyntaxDocs:
    docs = SyntaxDocs(root=rel)
    sub = docs_dir / "AMDGPU"
    if not sub.is_dir():
        docs.skips.append(Skip(f"{rel}/AMDGPU", None, "syntax pages folder missing"))
        return docs
    for path in sorted(sub.glob("*.rst")):
        m = _FAMILY_FILE.match(path.name)
        if m:
            _read_family(path, f"{rel}/AMDGPU/{path.name}", m.group(1), docs)
    page_files = [docs_dir / name for name in GENERIC_PAGES] + sorted(sub.glob("gfx*.rst"))
    for path in page_files:
        prel = str(Path(rel) / path.relative_to(docs_dir))
        if not path.is_file():
            docs.skips.append(Skip(prel, None, "operand page missing"))
            continue
        parsed = _parse(path, prel, docs.skips)
        if parsed:
            _read_page_sections(parsed[0], prel, docs.pages, docs.skips)
    _check_links(docs)
    return docs


def _check_links(docs: SyntaxDocs) -> None:
    """A row linking to no page is counted, not dropped: the operand stays, its kinds unknown."""
    for fam in docs.families.values():
        for ins in fam.instructions:
            for op in ins.operands:
                for label in (op.label, *op.tag_labels):
                    if label not in docs.pages:
                        docs.skips.append(Skip(ins.provenance.file, ins.provenance.line,
                                               "operand links to no page", f"{ins.mnemonic} {op.name} -> {label}"))


def families_for_target(docs: SyntaxDocs, target: str) -> tuple[tuple[str, ...], str]:
    """Pages that describe `target`, most specific first, and why.

    A page whose introduction names the target serves it (an extension page such as GFX906 first,
    then the page it extends); a target no page names falls back to UNNAMED_TARGETS.
    """
    named = [f for f in docs.families.values() if target in f.targets_named]
    named.sort(key=lambda f: f.base is None)
    if named:
        chain = [named[0].key]
        if named[0].base and named[0].base in docs.families:
            chain.append(named[0].base)
        return tuple(chain), f"{named[0].file} names {target}"
    fallback = UNNAMED_TARGETS.get(target)
    if fallback and fallback.family in docs.families:
        return (fallback.family,), f"no page names {target}: {fallback.reason} ({fallback.source.cite()})"
    return (), f"no syntax page serves {target}"


def buckets_for_arch(docs: SyntaxDocs, arch: str) -> tuple[str, ...]:
    """What a ROW_EVIDENCE rule may name to serve an arch: its pages and, for its targets no page names,
    '<page> (<arch>)' ('GFX12 (cdna5)': gfx1250 on GFX12's page), as check-operands buckets them."""
    out = dict.fromkeys(families_for_arch(docs, arch))
    for target in BY_KEY[arch].targets:
        chain = families_for_target(docs, target)[0]
        if chain and target in UNNAMED_TARGETS:
            out[f"{chain[0]} ({arch})"] = None
    return tuple(out)


def families_for_arch(docs: SyntaxDocs, arch: str) -> tuple[str, ...]:
    """Union of the pages serving an arch's targets, most specific first, in target order."""
    out: dict[str, None] = {}
    for target in BY_KEY[arch].targets:
        out.update(dict.fromkeys(families_for_target(docs, target)[0]))
    specific = [f for f in out if docs.families[f].base is not None]
    return tuple(specific + [f for f in out if f not in specific])


def lookup(docs: SyntaxDocs, families: Iterable[str], mnemonic: str) -> list[SyntaxInstruction]:
    """Rows for `mnemonic` (LLVM spelling, lower case) in the first family of `families` that has any."""
    for key in families:
        fam = docs.families.get(key)
        rows = fam.rows(mnemonic) if fam else []
        if rows:
            return rows
    return []

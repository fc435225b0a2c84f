"""Per-target decode and encode tables, built once from the catalog and LLVM's syntax docs.

A target's table groups the catalog's resolved layouts by their fixed bits (mask, value) so a
word finds its layout with one dict lookup per distinct mask, then its instruction by opcode.
Each instruction form carries the LLVM syntax row (ordered operands and modifiers) that the
printer and parser walk. Tables are cached as a pickle keyed by the catalog and docs they came from.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from gpuisa import paths
from gpuisa.archs import TARGET_TO_ARCH
from gpuisa.codec.syntax import VOP3PX2_SCLOP, generation
from gpuisa.errors import GpuisaError, NotFoundError
from gpuisa.sources import layout

TABLES_VERSION = 7

# The row variant of a flat instruction whose SADDR names an SGPR base (gfx1250: sources/llvm_syntax_docs.py
# FLAT_SADDR, the global row of the same operation; gfx1250_asm_vflat.s:3622 `flat_atomic_add_f32 v2, v3, s[2:3]
# offset:64`): chosen by the decoder when SADDR is not the null code, tried by the encoder beside the flat row.
SADDR_VARIANT = "~saddr"
SADDR_VARIANT_ENCODINGS = frozenset({"FLAT", "VFLAT"})

# Encodings printed with LLVM's _e32 suffix when the instruction also has a VOP3 (_e64) form.
E32_ENCODINGS = frozenset({"VOP1", "VOP2", "VOPC"})
VOP3_ENCODINGS = frozenset({"VOP3", "VOP3A", "VOP3B", "VOP3SD"})


@dataclass(frozen=True, slots=True)
class Operand:
    """One operand of a syntax row, resolved against its page: what the printer/parser need."""

    name: str                # vdst, src0, vaddr, offset, clamp ...
    role: str                # dst / src / modifier
    accepts: tuple[str, ...]  # v, s, a, vcc, constant, literal, ... (LLVM kinds)
    dwords: int              # register width (1 when the page gives none)
    size_text: str           # the page's *Size:* sentence
    modifiers: bool          # tagged :m (neg/abs/sext allowed)
    optional: bool
    page: str = ""           # label of the operand's page (value syntax such as hwreg(..) is read there)
    evidence: str = ""       # the row's own page label when OPERAND_EVIDENCE replaced it (tests over the page)
    type_tag: str = ""       # the row's type tag (src2:u32, src0:f16x2), which overrides the mnemonic's types


@dataclass(frozen=True, slots=True)
class Row:
    """An LLVM syntax row: mnemonic as LLVM spells it, operands in order, its docs line."""

    mnemonic: str
    section: str
    operands: tuple[Operand, ...]
    source: str              # file:line of the row


@dataclass(slots=True)
class Form:
    """One instruction in one encoding on one target."""

    name: str                # catalog key (V_SAD_U32)
    base: str                # LLVM mnemonic without encoding suffix (v_sad_u32)
    encoding: str            # VOP3, VOP1, DS ...
    layout: str
    opcode: int
    rows: dict[str, Row] = field(default_factory=dict)   # variant suffix ("", "_e32", "_e64", "_dpp", ...) -> row
    halves: dict[str, frozenset[str]] = field(default_factory=dict)   # variant -> its 16-bit VGPR operands


@dataclass(slots=True)
class Layout:
    """A resolved layout of one arch: field bit ranges, fixed bits of the first dword, op field."""

    name: str
    encoding: str
    width: int                         # bits
    fields: dict[str, tuple[tuple[int, int], ...]]
    fixed: dict[str, int]              # field -> fixed value
    mask: int                          # fixed bits within the first dword
    value: int
    op_bits: tuple[tuple[int, int], ...]
    forms: dict[int, Form] = field(default_factory=dict)   # opcode -> form
    pairs: dict[str, dict[int, Form]] = field(default_factory=dict)   # VOPD: "X" / "Y" -> opcode -> form


@dataclass(slots=True)
class TargetTables:
    target: str
    arch: str
    gen: int
    layouts: dict[str, Layout]
    by_mask: list[tuple[int, dict[int, list[Layout]]]]       # most specific mask first
    by_mnemonic: dict[str, list[tuple[Form, str]]]          # printed mnemonic -> (form, variant)
    families: tuple[str, ...]                                 # syntax families used
    wave64: bool
    pairs: dict[str, dict[str, dict[str, Form]]] = field(default_factory=dict)  # layout -> half -> mnemonic -> form
    pair_layouts: tuple[str, ...] = ()                        # the dual-issue layouts, VOPD before VOPD3


# Which encoding field holds an operand of a syntax row, by the operand's name (first field the
# layout has wins). The names are LLVM's (AMDGPUAsmGFX*.rst rows); the fields the catalog's.
OPERAND_FIELDS: dict[str, tuple[str, ...]] = {
    "vdst": ("VDST", "VDATA"), "sdst": ("SDST", "SDATA", "VDST"), "sdata": ("SDATA",),
    "src0": ("SRC0", "SSRC0"), "src": ("SRC0", "SSRC0"), "vsrc": ("SRC0", "VSRC"), "vsrc0": ("SRC0",),
    "ssrc0": ("SSRC0", "SRC0"), "ssrc": ("SSRC0", "SRC0", "SDST"),
    "src1": ("SRC1", "SSRC1", "VSRC1"), "vsrc1": ("VSRC1", "SRC1"), "ssrc1": ("SSRC1", "SRC1"),
    "src2": ("SRC2", "VSRC2"), "ssrc2": ("SRC2",), "vsrc2": ("SRC2", "VSRC2", "VSRC1"),
    "vaddr": ("ADDR", "VADDR"), "addr": ("ADDR", "VADDR"),
    "vdata": ("DATA", "DATA0", "VDATA", "VSRC", "SRC0"), "vdata0": ("DATA0",), "vdata1": ("DATA1",),
    "data0": ("DATA0",), "data1": ("DATA1",), "data": ("DATA",),
    "saddr": ("SADDR",), "sbase": ("SBASE",), "soffset": ("SOFFSET",),
    "srsrc": ("SRSRC", "RSRC"), "rsrc": ("RSRC", "SRSRC"),
    "ssamp": ("SSAMP", "SAMP"), "simm16": ("SIMM16",), "simm32": (), "imm16": ("SIMM16",),
    # the VOPD rows of GFX12's page name the halves' operands (AMDGPUAsmGFX12.rst VOPDX / VOPDY)
    "vdstx": ("VDST",), "vdsty": ("VDST",), "srcx0": ("SRC0",), "srcy0": ("SRC0",), "vsrcx1": ("VSRC1",),
    "vsrcy1": ("VSRC1",), "vsrcx2": ("VSRC2", "VSRC1"), "vsrcy2": ("VSRC2", "VSRC1"), "srcx2": ("VSRC2",),
    "srcy2": ("VSRC2",),
    # VINTERP rows (AMDGPUAsmGFX11.rst v_interp_p10_f32 vdst, vparam, vij, vparam0)
    "vparam": ("SRC0",), "vij": ("SRC1",), "vparam0": ("SRC2",),
    "label": ("SIMM16",), "hwreg": ("SIMM16",), "msg": ("SIMM16",), "waitcnt": ("SIMM16",), "delay": ("SIMM16",),
    "waitcnt_depctr": ("SIMM16",),
    # the data of ds_gws_init / ds_gws_barrier / ds_gws_sema_br (their rows' vdata, GWS_DATA) sits in ADDR [39:32],
    # not DATA0 as the manuals' DATA suggests: gfx10_asm_ds.s:1663 `ds_gws_barrier v255 gds` is
    # [0x00,0x00,0x76,0xd8,0xff,0x00,0x00,0x00], gfx90a_ldst_acc.s:4498 `ds_gws_barrier a2 gds` [..,0x02,0x00,0x00,0x00]
    "gws_data": ("ADDR",),
    # the scale sources of a scaled matrix instruction: GFX950's SCALE_SRC0/1, the cdna5 manual's SCL_SRC0/1 (Table 97:
    # "First scale input: VGPR, SGPR or inline zero" [40:32], second [49:41])
    "scale_src0": ("SCALE_SRC0", "SCL_SRC0"), "scale_src1": ("SCALE_SRC1", "SCL_SRC1"),
    # s_atc_probe's permission mask sits where other SMEM rows put sdata (smem.s:27 `s_atc_probe 7, s[4:5], s0`
    # is [0xc2,0x01,0x98,0xf4,...]: SDATA [12:6] = 7; gfx10_probe.rst "truncated to 7 bits")
    "probe": ("SDATA",),
    # VOPD3's v_dual_cndmask_b32 selects by VCC or any SGPR, named in the half's VSRC2 (cdna5 manual line 3177;
    # gfx1250_asm_vopd3.s:782 `v_dual_cndmask_b32 v255, v4, v2, vcc_lo :: ...` has VSRCX2 [63:56] = 0x6a, vcc_lo)
    "vopd3_select": ("VSRC2",),
}
# Fields whose value is an SGPR number divided by the register alignment (vega manual, SMEM/MUBUF tables).
SCALED_FIELDS = {"SBASE": 2, "SRSRC": 4, "RSRC": 4, "SSAMP": 4, "SAMP": 4}
SCALED_MAX_WIDTH = 6   # a 9-bit RSRC (gfx12 VBUFFER) holds the SGPR number itself


def scale_of(field: str, lay: Layout) -> int:
    """How many SGPRs one unit of a register field counts (SBASE: pairs, SRSRC: quads)."""
    if field not in SCALED_FIELDS:
        return 1
    width = sum(hi - lo + 1 for hi, lo in lay.fields[field])
    return SCALED_FIELDS[field] if width <= SCALED_MAX_WIDTH else 1
SOURCE_FIELDS = ("SRC0", "SRC1", "SRC2", "SSRC0", "SSRC1", "SCALE_SRC0", "SCALE_SRC1", "SCL_SRC0", "SCL_SRC1")

# The scale sources of a scaled matrix instruction (GFX950's VOP3PX2 row: scale_src0, scale_src1) take no entry in
# op_sel / op_sel_hi / neg_lo / neg_hi, which keep one per matrix source: gfx950_mai.txt:497
# `v_mfma_scale_f32_16x16x128_f8f6f4 v[0:3], v[4:11], v[12:17], v[20:23], v24, v25 op_sel_hi:[1,1,0] blgp:2`
# (OPSEL_HI [60:59] set; no third bit, so llvm-mc prints op_sel_hi even at [0,0,0], mai-gfx950.s:380);
# gfx1250_asm_wmma_w32.s `v_wmma_scale_f32_16x16x128_f8f6f4 ... neg_lo:[0,0,1]`.
SCALE_SOURCES = frozenset({"scale_src0", "scale_src1"})


def select_entries(row: Row) -> int:
    """Entries of a row's op_sel / op_sel_hi / neg_lo / neg_hi arrays: one per source, scale sources aside."""
    return sum(1 for o in row.operands if o.role == "src" and o.name not in SCALE_SOURCES)

# VOPD (rdna3 manual, "VOPD Fields"): one word holds two VALU operations, X and Y. Each half is printed
# and parsed as a layout of its own whose fields carry the names a VOP2 row's operands look for.
# VDSTY holds the Y destination without its LSB, which is the opposite of VDSTX[0]: the half layout
# gets the whole register number in bits 71:64, beyond the word (codec/decoder.py, codec/encoder.py).
VOPD_HALF_FIELDS: dict[str, dict[str, str]] = {
    "X": {"VDST": "VDSTX", "SRC0": "SRCX0", "VSRC1": "VSRCX1"},
    "Y": {"SRC0": "SRCY0", "VSRC1": "VSRCY1"},
}
VOPD_Y_VDST = ((71, 64),)
VOPD_OP_FIELDS = {"X": "OPX", "Y": "OPY"}
# VOPD3 (cdna5 manual, 96 bits): each half has a third VGPR source and NEG bits, and VDSTY is a whole
# VGPR number (gfx1250_asm_vopd3.s `v_dual_add_f32 v255, v4, v2 :: v_dual_add_f32 v7, v1, v3`).
VOPD3_HALF_FIELDS: dict[str, dict[str, str]] = {
    "X": {"VSRC2": "VSRCX2", "NEG": "NEGX"},
    "Y": {"VSRC2": "VSRCY2", "NEG": "NEGY", "VDST": "VDSTY"},
}


def is_vopd3(lay: Layout) -> bool:
    """A dual-issue layout whose VDSTY holds the whole Y destination (VOPD3) rather than all but its LSB."""
    bits = lay.fields.get("VDSTY", ((0, 0),))
    return bits[0][0] - bits[0][1] + 1 >= 8


def vopd_y_vdst(word: int, fields: dict[str, tuple[tuple[int, int], ...]]) -> int:
    """The Y destination VGPR of a VOPD word: VDSTY, then the opposite of VDSTX's LSB."""
    return (get_bits(word, fields["VDSTY"]) << 1) | ((get_bits(word, fields["VDSTX"]) & 1) ^ 1)


def _vopd_halves(lay: Layout) -> dict[str, Layout]:
    """The X and Y half layouts of a VOPD layout (empty when its fields are not the manual's)."""
    f = lay.fields
    needed = {"OPX", "OPY", "VDSTX", "VDSTY"} | {v for m in VOPD_HALF_FIELDS.values() for v in m.values()}
    if not needed <= set(f):
        return {}
    out = {}
    three = is_vopd3(lay)
    for half, names in VOPD_HALF_FIELDS.items():
        fields = {ours: f[theirs] for ours, theirs in names.items()}
        if half == "Y":
            fields["VDST"] = VOPD_Y_VDST
        if three:
            fields.update({ours: f[theirs] for ours, theirs in VOPD3_HALF_FIELDS[half].items() if theirs in f})
        fixed = dict(lay.fixed) if half == "X" else {}
        width = max(VOPD_Y_VDST[0][0] + 1, lay.width)   # VOPD's Y destination sits beyond its 64 bits
        out[half] = Layout(f"{lay.name} {half}", f"{lay.encoding} {half}", width, fields, fixed, 0, 0,
                           f[VOPD_OP_FIELDS[half]])
    for name in lay.fixed:
        out["X"].fields[name] = f[name]
    return out
MAI_LAYOUT = "VOP3P-MAI"
MAI_MODIFIERS = frozenset({"cbsz", "abid", "blgp"})


def is_mai(lay: Layout) -> bool:
    """A matrix layout whose ACC / ACC_CD bits turn register fields into AGPRs (VOP3P-MAI; GFX950's VOP3PX2,
    whose second half is a VOP3P-MAI word)."""
    return "ACC_CD" in lay.fields


def mai_acc(lay: Layout, field: str | None, word: int) -> bool:
    """Whether a VOP3P-MAI operand field names an AGPR: ACC bit 0 for SRC0, bit 1 for SRC1, ACC_CD for
    VDST and SRC2 (cdna2 manual, VOP3P-MAI fields)."""
    f = lay.fields
    if field in ("VDST", "SRC2"):
        return bool(get_bits(word, f["ACC_CD"])) if "ACC_CD" in f else False
    if field in ("SRC0", "SRC1") and "ACC" in f:
        return bool((get_bits(word, f["ACC"]) >> (field == "SRC1")) & 1)
    return False


def format_sized(base: str, op: Operand, formats: dict[str, str]) -> Operand:
    """An MFMA f8f6f4 A / B source at the width its format modifier names (operand_check.F8F6F4_RULE: cbsz for
    src0, blgp for src1; `formats` maps the modifier to its value); any other operand as it is. The one sizing
    rule for the checker, the printer and the parser."""
    if not base.endswith("_f8f6f4"):
        return op
    if base.startswith("v_wmma"):   # gfx1250's WMMA: matrix_a_fmt / matrix_b_fmt (llvm_syntax_docs.SCALED_MATRIX)
        from gpuisa.sources.llvm_syntax_docs import matrix_format_dwords

        n = matrix_format_dwords(base, op.name, op.dwords, formats)
        return replace(op, dwords=n) if n else op
    from gpuisa.codec.operand_check import f8f6f4_dwords

    sizes = f8f6f4_dwords(base, op, formats)
    return replace(op, dwords=next(iter(sizes))) if sizes else op


def field_for(op: Operand, lay: Layout) -> str | None:
    """The layout field an operand of a syntax row is encoded in (None: implicit or a modifier). Remembered per
    layout object: one name can be two layouts (cdna4's VOP3PX2 has SCALE_SRC0, cdna5's SCL_SRC0)."""
    key = (op.name, id(lay.fields), lay.name, lay.width)
    try:
        return _FIELD_FOR[key]
    except KeyError:
        pass
    found = next((c for c in OPERAND_FIELDS.get(op.name, (op.name.upper(),)) if c in lay.fields), None)
    _FIELD_FOR[key] = found
    return found


_FIELD_FOR: dict[tuple[str, int, str, int], str | None] = {}


def get_bits(word: int, bits: tuple[tuple[int, int], ...]) -> int:
    """Value of a field (ranges MSB first) of an instruction held as one int."""
    if len(bits) == 1:    # nearly every field: one range
        hi, lo = bits[0]
        return (word >> lo) & ((1 << (hi - lo + 1)) - 1)
    out = 0
    for hi, lo in bits:
        out = (out << (hi - lo + 1)) | ((word >> lo) & ((1 << (hi - lo + 1)) - 1))
    return out


def put_bits(bits: tuple[tuple[int, int], ...], value: int) -> int:
    """Inverse of get_bits: the field value placed at its ranges."""
    out = 0
    for hi, lo in reversed(bits):
        w = hi - lo + 1
        out |= (value & ((1 << w) - 1)) << lo
        value >>= w
    return out


def _dwords_of(page_size_bits: int | None, size_text: str, tags: tuple[str, ...], wave64: bool) -> int:
    from gpuisa.sources.llvm_syntax_docs import type_tag_bits
    for t in tags:
        bits = type_tag_bits(t)
        if bits:
            return max(1, bits // 32)
    if "wavefront size is 32" in size_text:
        return 2 if wave64 else 1
    if "wavefront size is 64" in size_text:
        return 4 if wave64 else 8
    if page_size_bits:
        return max(1, page_size_bits // 32)
    return 1


def syntax_rows(docs, families: tuple[str, ...], wave64: bool) -> dict[str, Row]:
    """Every syntax row of the families (most specific family wins), keyed by mnemonic; a row OLDER_ROWS
    covers is the older page's row of the same instruction (LLVM's tests write its operands)."""
    from gpuisa.sources.llvm_syntax_docs import older_row, printed_order
    out: dict[str, Row] = {}
    for fam_key in families:
        fam = docs.families.get(fam_key)
        if fam is None:
            continue
        order = printed_order(docs, fam_key)
        for ins in fam.instructions:
            key = ins.mnemonic
            if any(o.name == "dpp8_sel" for o in ins.operands):
                key += "~dpp8"   # the DPP8 row shares its mnemonic with the DPP16 row
            if ins.section == "VOPDY":
                key += "~vopdy"  # the Y half of a VOPD pair shares its mnemonic with the X half
            if key in out:
                continue
            out[key] = row_of(docs, older_row(docs, ins)[0], wave64, fam_key)
            if order:
                out[key] = _in_printed_order(out[key], order)
    return out


def _in_printed_order(row: Row, before: dict[str, frozenset[str]]) -> Row:
    """The row with its modifiers in llvm-mc's printed order (PRINT_ORDER): each after those `before` names for
    it, otherwise in the row's own order."""
    import heapq

    slots = [i for i, o in enumerate(row.operands) if o.role == "modifier"]
    names = [row.operands[i].name for i in slots]
    waits = {k: {j for j, other in enumerate(names) if other in before.get(names[k], ())} for k in range(len(names))}
    ready = [k for k, w in waits.items() if not w]
    heapq.heapify(ready)
    order: list[int] = []
    while ready:
        k = heapq.heappop(ready)
        order.append(k)
        for j, w in waits.items():
            if k in w:
                w.discard(k)
                if not w:
                    heapq.heappush(ready, j)
    if order == list(range(len(names))) or len(order) != len(names):
        return row
    ops = list(row.operands)
    for i, k in zip(slots, order, strict=True):
        ops[i] = row.operands[slots[k]]
    return replace(row, operands=tuple(ops))


def row_of(docs, ins, wave64: bool, fam_key: str = "") -> Row:
    """One syntax row (a SyntaxInstruction) as the codec's Row: each operand resolved against its page."""
    from gpuisa.sources.llvm_syntax_docs import OPERAND_ROLES, OperandEvidence, operand_page
    ops = []
    for o in ins.operands:
        # OPERAND_EVIDENCE / PAGE_ERRATA: the page LLVM's tests follow, the page the row meant
        page, fix = operand_page(docs, o.label, ins)
        accepts = page.accepts if page else ()
        size_text = page.size_text if page else ""
        dwords = _dwords_of(page.size_bits if page else None, size_text, (o.type_override,) if o.type_override else (),
                            wave64)
        name, optional = o.name, o.optional or (isinstance(fix, OperandEvidence) and fix.implicit)
        if o.label in OPERAND_ROLES:   # simm16 holding a hwreg (GFX950): read and printed as hwreg(..)
            name = OPERAND_ROLES[o.label].name
        if o.role == "dst" and accepts and set(accepts) <= {"vcc", "vcc_lo", "exec"}:
            # GFX12's page spells VOPC's implicit destination as `vdst` accepting vcc / exec
            name, optional = ("vcc", False) if "vcc" in accepts else ("exec", True)
        ops.append(Operand(name, o.role, tuple(accepts), dwords, size_text, "m" in o.tags, optional,
                           page.label if page else o.label,
                           o.label if isinstance(fix, OperandEvidence) else "", o.type_override or ""))
    if ins.section.startswith(("VOP3", "VOPC", "VOP1", "VOP2")) and (fam_key or ins.family) == "GFX12":
        ops = _implied_modifiers(ops, ins.section, ins.mnemonic)
    return Row(ins.mnemonic, ins.section, tuple(ops), ins.provenance.cite())


_MODIFIER_SOURCE = "llvm-project-23.1.1/llvm/docs/AMDGPU/AMDGPUAsmGFX11.rst (VOP3 rows: clamp, omod, op_sel, :m sources)"


def _implied_modifiers(ops: list[Operand], section: str, mnemonic: str = "") -> list[Operand]:
    """GFX12's page lists VOP3 rows without modifiers or :m tags; the e64 fields (CLAMP, OMOD, OPSEL,
    NEG, ABS) are spelled as the GFX11 page spells them (_MODIFIER_SOURCE). Only VOP3 sections."""
    if not section.startswith("VOP3") or any(o.role == "modifier" for o in ops):
        return ops
    packed = section.startswith("VOP3P")
    # each operand kept (its OPERAND_EVIDENCE label too), sources taking neg/abs; no type tag (GFX11 e64 row gives it)
    out = [replace(o, modifiers=not packed and (o.role == "src" or o.modifiers), type_tag="") for o in ops]
    # llvm-mc prints op_sel before clamp (gfx12_dasm_vop3.txt:241: v_add_nc_i16 ... op_sel:[0,0,1] clamp)
    mods = ("op_sel", "op_sel_hi", "neg_lo", "neg_hi", "clamp") if packed else ("op_sel", "clamp", "omod")
    return out + [Operand(m, "modifier", (), 1, "", False, True) for m in mods]


def e64_from_e32(row: Row, wave64: bool) -> Row:
    """The VOP3 (_e64) row of a VOP1/VOP2/VOPC instruction whose page lists only its e32 row
    (GFX12): VOPC's VCC destination becomes sdst, vsrc1 becomes src1, VCC as carry-in ssrc2."""
    lanes = 2 if wave64 else 1
    scalar = ("s", "vcc", "ttmp", "null")
    ops: list[Operand] = []
    src_accepts = next((o.accepts for o in row.operands if o.name in ("src0", "src")), ())
    for o in row.operands:
        if o.name == "exec":
            continue
        if o.name == "vcc" and o.role == "dst":
            ops.append(Operand("sdst", "dst", scalar, lanes, "", False, False))
        elif o.name == "vcc":
            ops.append(Operand("ssrc2", "src", scalar, lanes, "", False, False))
        elif o.name == "vsrc1":
            ops.append(Operand("src1", "src", src_accepts or o.accepts, o.dwords, o.size_text, True, False, o.page))
        else:
            ops.append(Operand(o.name, o.role, o.accepts, o.dwords, o.size_text, o.role == "src", o.optional, o.page))
    ops += [Operand(m, "modifier", (), 1, "", False, True) for m in ("clamp", "op_sel", "omod")]
    return Row(row.mnemonic + "_e64", "VOP3 (derived from the e32 row)", tuple(ops), row.source)


# ------------------------------------------------------------------------------ 16-bit VGPRs

# Real-true16 syntax (llvm-mc 22's default on gfx11, `-mattr=+real-true16` on gfx12): a 16-bit VGPR
# operand is printed as the low or high half of a VGPR, v1.l / v1.h (AMDGPUOperandSyntax.rst "v (16-bit)").
# VOP1/VOP2/VOPC (and their DPP forms) hold the half in bit 7 of the register field, so they reach
# v0..v127 (gfx11_asm_vop1.s:2 `v_ceil_f16_e32 v5.l, v1.h` = [0x81,0xb9,0x0a,0x7e]); VOP3 holds the
# whole VGPR number and the half in OPSEL (bit n for source n, bit 3 for the destination:
# gfx11_asm_vop3.s `v_fma_f16 v5.h, ... op_sel:[1,1,1,1]`).
_TYPE16 = re.compile(r"^(?:b|f|i|u|bf)16$")
# The one syntax page that marks 16-bit VGPR operands (`*Size:* 16 bits`, v16): GFX11's. GFX12's page
# gives every VOP operand as 32 bits (AMDGPUAsmGFX12.rst v_sat_pk_u8_i16: vdst_89680f), so gfx12
# targets read the 16-bit facts of an instruction from its GFX11 row when there is one.
SIXTEEN_BIT_PAGE = "GFX11"
_MNEMONIC_TYPES = re.compile(r"_(bf16|f16|f32|f64|[biu]8|[biu]16|[biu]32|[biu]64)(?=_|$)")
VOP_PREFIXES = ("VOP1", "VOP2", "VOPC", "VOP3", "VINTERP")


def sixteen_bit_operands(t: TargetTables, form: Form, variant: str) -> frozenset[str]:
    """Names of the operands of one form's row that are 16-bit VGPR halves in real-true16 syntax
    (computed once per table build: _halves_of)."""
    return form.halves.get(variant, _NONE)


_NONE: frozenset[str] = frozenset()


def _halves_of(half_rows: dict[str, Row], gen: int, form: Form, variant: str) -> frozenset[str]:
    """The 16-bit VGPR operands of one form's row (sixteen_bit_operands).

    In order: the types of LLVM's TableGen profile where a named table gives them (TRUE16_PROFILES); the
    operand's type tag (src1:i16, src2:u32, src0:f16x2); a page accepting only 16-bit
    VGPRs (the e32 rows: `*Size:* 16 bits`, v16); the same operand of the instruction's e32 row (an
    e64 row's pages say 32 bits); else the mnemonic's types, the first for the destination and the
    last for the sources (v_cvt_f32_f16: 32-bit vdst, 16-bit src; v_pack_b32_f16: 16-bit sources).
    Packed (VOP3P) and `_pk_` results are 32 bits."""
    from gpuisa.sources.llvm_syntax_docs import PACKED_CONVERSION, profile_types

    row = form.rows.get(variant)
    out: set[str] = set()
    if PACKED_CONVERSION.match(form.base):
        # gfx1250's packed scaled conversions: every profile types each register a vector or a 32-bit scalar
        # (VOP3Instructions.td:1878-1913, VOP_V8F16_V2I32_I32 ... VOP_V2I32_V8F32_I32_F32; gfx1250_asm_vop3.s:702
        # `v_cvt_scale_pk8_f16_fp8 v[10:13], v[20:21], v8` in real-true16 syntax)
        return _NONE
    if row is not None and form.encoding.startswith(VOP_PREFIXES) and gen >= 11 and \
            not form.base.startswith("v_pk_"):     # packed math: 32-bit registers of two halves
        types = _MNEMONIC_TYPES.findall(form.base)
        e32 = half_rows.get(form.base + "_e32") or half_rows.get(form.base)
        if e32 is not None and not e32.section.startswith(("VOP1", "VOP2", "VOPC")):
            e32 = None
        e64 = half_rows.get(form.base + "_e64") or half_rows.get(form.base)
        profile = profile_types(form.base)   # LLVM's TableGen types where no row states them (TRUE16_PROFILES)
        regs = [o for o in row.operands if o.role in ("dst", "src") and o.name not in ("vcc", "exec")]
        for o in row.operands:
            if o.role not in ("dst", "src") or not ({"v", "v16"} & set(o.accepts) or o.name.startswith("vsrc")):
                continue
            tagged = o.type_tag or (e64 is not None and (t64 := _twin(e64, o)) is not None and t64.type_tag) or ""
            if profile and o in regs and regs.index(o) < len(profile):
                sixteen = bool(_TYPE16.match(profile[regs.index(o)]))
            elif tagged:
                sixteen = bool(_TYPE16.match(tagged))
            elif "v16" in o.accepts and "v" not in o.accepts:
                sixteen = True
            elif e32 is not None and (twin := _twin(e32, o)) is not None:
                sixteen = ("v16" in twin.accepts and "v" not in twin.accepts) or bool(
                    twin.type_tag and _TYPE16.match(twin.type_tag))
            elif not types:
                sixteen = False
            elif o.role == "dst":
                sixteen = bool(_TYPE16.match(types[0])) and "_pk_" not in form.base
            else:
                sixteen = bool(_TYPE16.match(types[-1]))
            if sixteen:
                out.add(o.name)
    return frozenset(out) if out else _NONE




def op_sel_has_dst(row: Row, base: str, variant: str) -> bool:
    """Whether a VOP3 op_sel:[..] ends with the destination's entry (OPSEL bit 3). llvm-mc prints one
    for every row with a destination, the scalar one of v_cmp e64 included, except VOPC DPP
    (gfx11_asm_vop3_from_vopc.s `v_cmp_eq_f16_e64 s5, v1.h, v2.l op_sel:[1,0,0]`;
    gfx11_asm_vop3_dpp16_from_vopc.s `v_cmp_class_f16_e64_dpp null, -|v255.l|, v255.h op_sel:[0,1]`;
    v_cmpx writes EXEC and has none: `v_cmpx_class_f16_e64 v1.h, v2.h op_sel:[1,1]`)."""
    if base.startswith("v_cmp") and "dpp" in variant:
        return False
    return any(o.role == "dst" and o.name != "exec" for o in row.operands)


_TWINS = {"src1": ("vsrc1", "src1"), "src0": ("src0", "src", "vsrc0"), "src": ("src", "src0"),
          "vsrc0": ("src0", "vsrc0", "src"), "vsrc1": ("vsrc1", "src1"), "vsrc": ("src", "src0", "vsrc"),
          "vdst": ("vdst",)}


def _twin(row: Row, op: Operand) -> Operand | None:
    """The operand of an e32 row standing where `op` stands in the e64 / DPP row."""
    for name in _TWINS.get(op.name, (op.name,)):
        for o in row.operands:
            if o.name == name:
                return o
    return None


# ------------------------------------------------------------------------- matrix operand sizes

# gfx12+ WMMA / SWMMAC register tuples follow the matrix shape in the mnemonic: A (src0) is M x K, B
# (src1) K x N, C and D (src2, vdst) M x N elements, spread over the wave's lanes; SWMMAC's A is
# stored compressed (K / 2) and its src2 is the sparsity index. GFX12's page gives one vdst page to
# every WMMA (AMDGPUAsmGFX12.rst v_wmma_f16_16x16x16_f16: vdst_227281, "8 dwords" in wave32) where
# LLVM's tests pack 16-bit results in half of that (gfx12_asm_wmma_w32.s
# `v_wmma_f16_16x16x16_f16 v[8:11], v[0:3], v[4:7], v[8:11]`; gfx12_asm_wmma_w64.s
# `v_wmma_i32_16x16x16_iu8 v[2:5], v0, v1, v[2:5]`; gfx1250_asm_wmma_w32.s
# `v_wmma_f32_32x16x128_f4 v[4:19], v[0:15], v[2:9], v[4:19]`). Mixed or scaled element types
# (f8f6f4, bf16f32) keep their page sizes.
MATRIX_ELEMENT_BITS = {"f64": 64, "f32": 32, "i32": 32, "f16": 16, "bf16": 16, "fp8": 8, "bf8": 8, "iu8": 8,
                       "iu4": 4, "f4": 4}
# Result types naming two element types: the result D's and the accumulator C's (cdna5 manual, Table 43 "WMMA
# Instructions": V_WMMA_BF16F32_16X16X32_BF16 "16x16 C = F32"; gfx1250_asm_wmma_w32.s
# `v_wmma_bf16f32_16x16x32_bf16 v[26:29], v[0:7], v[8:15], v[16:23]`: D 4 dwords of bf16, C 8 of f32).
MIXED_RESULTS = {"bf16f32": ("bf16", "f32")}
_MATRIX = re.compile(r"^v_(s?)wmmac?_([a-z0-9]+)_(\d+)x(\d+)x(\d+)_([a-z0-9]+)(?:_([a-z0-9]+))?$")


def matrix_dwords(base: str, gen: int, wave64: bool) -> dict[str, int]:
    """Register dwords of a gfx12+ WMMA / SWMMAC instruction's matrix operands, by operand name."""
    m = _MATRIX.match(base)
    if gen < 12 or m is None:
        return {}
    sparse, d_type, rows, cols, depth, a_type, b_type = m.groups()
    c_type = d_type
    if d_type in MIXED_RESULTS:   # a result type and an accumulator type (bf16f32: D bf16, C f32)
        d_type, c_type = MIXED_RESULTS[d_type]
    d_bits, a_bits = MATRIX_ELEMENT_BITS.get(d_type), MATRIX_ELEMENT_BITS.get(a_type)
    b_bits, c_bits = MATRIX_ELEMENT_BITS.get(b_type or a_type), MATRIX_ELEMENT_BITS.get(c_type)
    if d_bits is None or a_bits is None or b_bits is None or c_bits is None:
        return {}
    m_, n_, k_ = int(rows), int(cols), int(depth)
    lanes_bits = 32 * (64 if wave64 else 32)
    sizes = {"src0": m_ * (k_ // 2 if sparse else k_) * a_bits, "src1": k_ * n_ * b_bits, "vdst": m_ * n_ * d_bits}
    if sparse:
        # SWMMAC accumulates in vdst (C is D: bf16f32 keeps f32) and src2 holds a 2-bit index per stored A element
        # (cdna5 manual line 3649; gfx1250_asm_wmma_w32.s:648 `v_swmmac_f32_16x16x128_fp8_fp8 ... v[32:33]`)
        sizes["vdst"] = m_ * n_ * c_bits
        sizes["src2"] = m_ * (k_ // 2) * 2
    else:
        sizes["src2"] = m_ * n_ * c_bits
    # a share under one dword still takes a whole VGPR (gfx12_asm_wmma_w64.s: iu4 A in wave64 is v0)
    return {k: -(-v // lanes_bits) for k, v in sizes.items()}


# Modifiers gfx12 WMMA / SWMMAC rows take that GFX12's page does not list (it gives `clamp` only):
# gfx12_asm_wmma_w32.s `v_wmma_f32_16x16x16_f16 ... neg_lo:[1,0,0]` (NEG), `neg_hi:[0,0,1]` (NEG_HI),
# `v_swmmac_f32_16x16x32_f16 ... v20 index_key:1` (OPSEL), printed in this order before clamp.
MATRIX_MODIFIERS = {"wmma": ("neg_lo", "neg_hi"), "swmmac": ("index_key", "neg_lo", "neg_hi")}


def _matrix_row(row: Row, sizes: dict[str, int], kind: str) -> Row:
    ops = [Operand(o.name, o.role, o.accepts, sizes[o.name], o.size_text, o.modifiers, o.optional, o.page,
                   o.evidence, o.type_tag) if o.name in sizes and o.dwords != sizes[o.name] else o
           for o in row.operands]
    if kind == "swmmac":    # index_key is what OPSEL holds there (no op_sel: gfx12_asm_wmma_w32.s:744)
        ops = [o for o in ops if o.name != "op_sel"]
    have = {o.name for o in ops}
    extra = [Operand(m, "modifier", (), 1, "", False, True) for m in MATRIX_MODIFIERS[kind] if m not in have]
    if extra:
        first_mod = next((i for i, o in enumerate(ops) if o.role == "modifier"), len(ops))
        ops[first_mod:first_mod] = extra
    return row if tuple(ops) == row.operands else Row(row.mnemonic, row.section, tuple(ops), row.source)


def _byte_sel_in_place(row: Row) -> Row:
    """The row with byte_sel where llvm-mc prints it: after op_sel, before clamp and omod
    (gfx1250_asm_vop3_from_vop1-fake16.s `v_cvt_f16_bf8_e64 v1, v2 op_sel:[0,1] byte_sel:2`, `v_cvt_f32_fp8_e64 v1,
    v3 byte_sel:1 clamp`), where the rows list it last (GFX940's v_cvt_f32_fp8_e64; MODIFIER_EVIDENCE adds it last)."""
    names = [o.name for o in row.operands]
    if "byte_sel" not in names:
        return row
    ops = [o for o in row.operands if o.name != "byte_sel"]
    at = next((i + 1 for i, o in enumerate(ops) if o.name == "op_sel"), None)
    if at is None:
        at = next((i for i, o in enumerate(ops) if o.name in ("clamp", "omod")), len(ops))
    ops.insert(at, row.operands[names.index("byte_sel")])
    return replace(row, operands=tuple(ops))


def _incomplete(row: Row) -> bool:
    return any(o.role != "modifier" and not o.accepts and o.name != "vcc" for o in row.operands)


def _family_order(key: str) -> tuple[int, str]:
    """GFX12 > GFX11 > GFX1030 > GFX10 > GFX950 > GFX940 > GFX90a > GFX9 ...: generation, then page."""
    digits = key[3:]
    gen = int(digits[:2]) if digits[:2].isdigit() and digits[:2] in ("10", "11", "12") else int(digits[0])
    return gen, digits


DPP16_ROW_MODIFIERS = ("dpp16_ctrl", "row_mask", "bank_mask", "bound_ctrl", "fi")
DPP8_ROW_MODIFIERS = ("dpp8_sel", "fi")


def dpp_row(row: Row, dpp8: bool, vop3: bool) -> Row | None:
    """The DPP16 / DPP8 row of an instruction whose page lists none (GFX12's page has no DPP rows and
    GFX11's lacks GFX12's new instructions): the row's operands, src0 a VGPR, and the DPP modifiers as
    GFX11's page spells them (AMDGPUAsmGFX11.rst v_add_f16_dpp: vdst, vsrc0:m, vsrc1:m dpp16_ctrl
    row_mask bank_mask bound_ctrl fi). None for 64-bit operands, which DPP does not take on gfx11+."""
    regs = [o for o in row.operands if o.role != "modifier"]
    if any(o.dwords != 1 for o in regs if o.name not in ("sdst", "vcc")) or not regs:
        return None
    ops: list[Operand] = []
    for o in row.operands:
        if o.role == "modifier":
            if vop3 and o.name in ("clamp", "op_sel", "omod", "neg_lo", "neg_hi", "op_sel_hi", "byte_sel", "bitop3"):
                ops.append(o)
            continue
        if o.name in ("src0", "src", "vsrc0"):
            ops.append(Operand(o.name, o.role, ("v",), o.dwords, o.size_text, True, o.optional, o.page))
        elif o.role == "src" and o.name not in ("vcc", "ssrc2"):
            # no literal: the DPP dword takes its place (gfx11_src_852d86.rst, GFX11's VOP3 DPP sources)
            accepts = tuple(k for k in o.accepts if k != "literal")
            ops.append(Operand(o.name, o.role, accepts, o.dwords, o.size_text, True, o.optional, o.page))
        else:
            ops.append(o)
    mods = DPP8_ROW_MODIFIERS if dpp8 else DPP16_ROW_MODIFIERS
    ops += [Operand(m, "modifier", (), 1, "", False, True) for m in mods]
    suffix = "_e64_dpp" if vop3 else "_dpp"
    return Row(row.mnemonic.removesuffix("_e64").removesuffix("_e32") + suffix,
               f"{row.section} (DPP row derived from the plain row)", tuple(ops), row.source)


def _variants(base: str, encoding: str, rows: dict[str, Row], promoted: bool, wave64: bool,
              has_vop3: bool = False, derive_dpp: bool = False,
              evidence: Callable[[Row], Row] | None = None) -> dict[str, Row]:
    """Syntax rows of one form: the plain row plus the DPP / SDWA rows of its encoding (`derive_dpp`:
    gfx11+, where every 32-bit VOP1/VOP2/VOPC/VOP3 instruction has DPP16 and DPP8 forms; GFX11's page
    lacks some: gfx11_asm_vop3_dpp8.s `v_cvt_pk_norm_i16_f32_e64_dpp v5, v1, v2 dpp8:[7,6,5,4,3,2,1,0]`)."""
    out = _listed_variants(base, encoding, rows, promoted, wave64, has_vop3)
    if derive_dpp and (encoding in E32_ENCODINGS or encoding in VOP3_ENCODINGS):
        vop3 = encoding in VOP3_ENCODINGS
        plain = out.get("_e64" if vop3 else "_e32", out.get(""))
        if plain is not None:
            plain = evidence(plain) if evidence else plain   # a DPP row keeps the modifiers the tests add (bitop3)
            for key, dpp8 in (("_e64_dpp" if vop3 else "_dpp", False), ("_e64_dpp~dpp8" if vop3 else "_dpp~dpp8", True)):
                if key not in out:
                    r = dpp_row(plain, dpp8, vop3)
                    if r is not None:
                        out[key] = r
    return out


def _listed_variants(base: str, encoding: str, rows: dict[str, Row], promoted: bool, wave64: bool,
                     has_vop3: bool = False) -> dict[str, Row]:
    out: dict[str, Row] = {}
    if encoding in E32_ENCODINGS:
        plain = rows.get(base) or rows.get(base + "_e32")
        if plain:
            # LLVM prints _e32 when the instruction also has a VOP3 form (gfx12_dasm_vop2.txt: v_add_f64_e32)
            out["_e32" if has_vop3 else ""] = plain
        for suffix in ("_dpp", "_sdwa", "_dpp~dpp8"):
            if base + suffix in rows:
                out[suffix] = rows[base + suffix]
    elif encoding in VOP3_ENCODINGS or encoding == "VOP3P":
        if promoted and base + "_e64" in rows:
            out["_e64"] = rows[base + "_e64"]
        elif promoted and base in rows and rows[base].section.startswith(("VOP1", "VOP2", "VOPC")):
            out["_e64"] = e64_from_e32(rows[base], wave64)
        elif base in rows:
            out[""] = rows[base]
        elif base + "_e64" in rows:
            out["_e64"] = rows[base + "_e64"]
        for suffix in ("_e64_dpp", "_dpp"):
            for dpp8 in ("", "~dpp8"):
                r = rows.get(base + suffix + dpp8)
                if r is not None and r.section.startswith("VOP3"):
                    out.setdefault(("_e64_dpp" if suffix == "_e64_dpp" else "_dpp") + dpp8, r)
    else:
        if base in rows:
            out[""] = rows[base]
    return out


def fallback_rows(docs, families: tuple[str, ...], wave64: bool,
                  rows_of: Callable[[str], dict[str, Row]] | None = None) -> dict[str, Row]:
    """Rows of the other pages, for a mnemonic the target's pages lack (gfx1250 has no page of its own;
    GFX12's lacks its DPP rows and newer instructions): a page of the same generation first (GFX10's
    s_atc_probe for gfx1030), then the newest page, whose row links every operand to its page."""
    gens = {_family_order(k)[0] for k in families}
    others = tuple(sorted((k for k in docs.families if k not in families),
                          key=lambda k: (_family_order(k)[0] in gens, _family_order(k)), reverse=True))
    fallback: dict[str, Row] = {}
    for fam in others:
        for mnemonic, row in (rows_of(fam) if rows_of else syntax_rows(docs, (fam,), wave64)).items():
            if mnemonic not in fallback or (_incomplete(fallback[mnemonic]) and not _incomplete(row)):
                fallback[mnemonic] = row
    return {mnemonic: served_row(docs, row, families, wave64) for mnemonic, row in fallback.items()}


def served_row(docs, row: Row, families: tuple[str, ...], wave64: bool) -> Row:
    """A row borrowed from another page, with the OPERAND_EVIDENCE entries that hold where it serves
    `families` (GFX12's VOP3 DPP vsrc1 takes SGPRs and inline constants; GFX11's page says VGPR)."""
    from gpuisa.sources.llvm_syntax_docs import OPERAND_EVIDENCE

    ops = list(row.operands)
    for n, o in enumerate(ops):
        fix = OPERAND_EVIDENCE.get(o.page)
        if fix is None or not set(fix.serving) & set(families) or (fix.operands and o.name not in fix.operands):
            continue
        use = next((label for section, label in fix.use.items() if row.section.startswith(section)), "")
        page = docs.pages.get(use)
        if page is not None:
            ops[n] = Operand(o.name, o.role, page.accepts, _dwords_of(page.size_bits, page.size_text, (), wave64),
                             page.size_text, o.modifiers, o.optional, page.label, o.page)
    return row if ops == list(row.operands) else Row(row.mnemonic, row.section, tuple(ops), row.source)


def build_tables(catalog, docs, target: str, wave64: bool | None = None) -> TargetTables:
    """Tables of one target from an open Catalog and a read SyntaxDocs."""
    from gpuisa.sources.llvm_syntax_docs import SDWA_TWINS, families_for_target, rule_source

    arch = TARGET_TO_ARCH.get(target)
    if arch is None:
        raise NotFoundError("target", target, sorted(t for t in TARGET_TO_ARCH if t.startswith(target[:5]))[:5])
    gen = generation(target)
    w64 = (gen < 10) if wave64 is None else wave64
    families, _why = families_for_target(docs, target)
    rows = syntax_rows(docs, families, w64)
    own = frozenset(rows)     # the target's own pages (other pages' rows only fill gaps)
    matcher = rule_matcher(docs, target, w64, gen)
    serves = tuple(matcher.serves) if matcher is not None else families
    if matcher is not None and set(serves) - set(families):
        # a target its page does not name ('GFX11 (rdna3.5)': gfx1150 on GFX11's page) takes the OPERAND_EVIDENCE
        # entries serving its bucket, as the checker reads its rows (gfx1150_asm_features.s:11, VOP3 DPP src1 s2)
        rows = {k: served_row(docs, r, serves, w64) for k, r in rows.items()}
    for mnemonic in SDWA_TWINS:   # an SDWA form no page lists takes its twin's row (ROW_EVIDENCE, rule_source)
        ruled = rule_source(mnemonic, families)
        if ruled is not None and mnemonic not in rows and ruled[1] in rows:
            twin = rows[ruled[1]]
            rows[mnemonic] = Row(mnemonic, twin.section, twin.operands, twin.source)
    for mnemonic, row in fallback_rows(docs, families, w64).items():
        rows.setdefault(mnemonic, row)
    listed = frozenset(rows)

    def evidence(row: Row) -> Row:   # the modifiers LLVM's tests add to a row (operand_check.MODIFIER_EVIDENCE)
        from gpuisa.codec.operand_check import with_modifier_evidence

        return with_modifier_evidence(row, serves)
    layouts: dict[str, Layout] = {}
    for enc in catalog.layouts(arch).values():
        fields = {f.name: f.bits for f in enc.fields}
        fixed = {f.name: f.value for f in enc.fields if f.value is not None}
        mask = value = 0
        for f in enc.fields:
            if f.value is None:
                continue
            placed = put_bits(f.bits, f.value)
            m = put_bits(f.bits, (1 << f.width) - 1)
            if m >> 32:   # fixed bits beyond the first dword are checked after the match
                continue
            mask |= m
            value |= placed
        width = enc.width
        if enc.name == "MIMG" and "NSA" in fields:
            width = 64   # NSA address dwords follow only when NSA is set (codec/image.py counts them)
        layouts[enc.name] = Layout(enc.name, enc.name, width, fields, fixed, mask, value, fields.get("OP", ()))
    compound = layouts.get("VOP3PX2")
    if compound is not None and "SCLOP" in compound.fields and "OP" in compound.fields:
        # cdna5's VOP3PX2: the load-scale half's SCLOP and the WMMA half's OP name the instruction together
        # (syntax.VOP3PX2_SCLOP): the form's opcode is SCLOP << 8 | OP
        compound.op_bits = compound.fields["SCLOP"] + compound.fields["OP"]
    opcodes = catalog.arch_opcodes(arch)
    names = catalog.arch_spellings(arch)
    promoted_names = {n for n, e, _lay, _op in opcodes if e in E32_ENCODINGS}
    vop3_names = {n for n, e, _lay, _op in opcodes if e in VOP3_ENCODINGS}
    by_mnemonic: dict[str, list[tuple[Form, str]]] = {}
    aliases: dict[str, list[tuple[Form, str]]] = {}
    pairs: dict[str, dict[str, Layout]] = {}     # VOPD layout -> its half layouts
    half_rows = syntax_rows(docs, (SIXTEEN_BIT_PAGE,), w64) if gen >= 11 else {}
    for name, encoding, layout_name, opcode in opcodes:
        lay = layouts.get(layout_name or "")
        if lay is None:
            continue
        spellings = [s.lower() for s in names.get(name, [name])]
        # the first spelling with a row: listed on a page, or (a row no page lists) derived by the checker's
        # ROW_EVIDENCE rules, so the arch's own name wins over an older alias another page lists (the cdna5 manual's
        # BUFFER_ATOMIC_MAX_NUM_F64, LLVM's gfx1250 name, over GFX10's buffer_atomic_fmax_x2: gfx1250_dasm_vbuffer_mubuf.txt)
        base = next((s for s in spellings if any(k in listed for k in (s, s + "_e32", s + "_e64")) or (
            matcher is not None and _add_ruled_rows(matcher, s, encoding, rows, name in promoted_names, half_rows))),
            spellings[0])
        op_field = "OP"
        if encoding in ("VOPD X", "VOPD3 X"):
            op_field = "OPX"
        elif encoding in ("VOPD Y", "VOPD3 Y"):
            op_field = "OPY"
        if lay is compound and len(lay.op_bits) == 2:
            sclop = next((v for prefix, v, _ in VOP3PX2_SCLOP if base.startswith(prefix)), None)
            if sclop is None:
                continue
            opcode |= sclop << 8
        form = Form(name, base, encoding, layout_name, opcode)
        # whether an e32 form is printed with its suffix: the instruction has a VOP3 form in the catalog or
        # on the target's own pages, not merely on another target's page (AMDGPUAsmGFX90a.rst lists
        # v_dot2c_f32_f16_e64; gfx1030 has none: gfx1011_dlops.txt:22 `v_dot2c_f32_f16 v5, v1, v2`)
        form.rows = _variants(base, encoding, rows, name in promoted_names and encoding in VOP3_ENCODINGS, w64,
                              name in vop3_names or base + "_e64" in own, gen >= 11, evidence)
        if encoding in SADDR_VARIANT_ENCODINGS and matcher is not None and "" in form.rows:
            # gfx1250's flat_* with an SGPR base: the global row of the same operation (FLAT_SADDR), printed and
            # parsed when SADDR names a register (decoder._variant)
            sgpr_base = matcher.flat_with_sgpr_base(base)
            if sgpr_base:
                form.rows[SADDR_VARIANT] = sgpr_base[0][1]
        if gen >= 12 and _takes_gfx11_row(encoding, base, form.rows.get(""), half_rows.get(base)):
            form.rows = {"": half_rows[base]}
        else:   # modifiers a page's rows omit and LLVM's tests write (operand_check.MODIFIER_EVIDENCE)
            from gpuisa.codec.operand_check import with_modifier_evidence

            form.rows = {v: with_modifier_evidence(r, serves) for v, r in form.rows.items()}
        form.rows = {v: _byte_sel_in_place(r) for v, r in form.rows.items()}
        if base.startswith("ds_gws_"):   # its data operand is encoded in ADDR (OPERAND_FIELDS gws_data)
            form.rows = {v: replace(r, operands=tuple(replace(o, name="gws_data") if o.name == "vdata" else o
                                                      for o in r.operands)) for v, r in form.rows.items()}
        if sizes := matrix_dwords(base, gen, w64):
            kind = "swmmac" if base.startswith("v_swmmac") else "wmma"
            form.rows = {v: _matrix_row(r, sizes, kind) for v, r in form.rows.items()}
        if op_field != "OP":
            if matcher is not None and base not in listed:   # a half no VOPDX / VOPDY table lists
                _add_ruled_rows(matcher, base, encoding, rows)
            _add_vopd_half(layouts, lay, form, op_field[-1], rows, pairs, matcher)
            continue
        if encoding == "VOP3P" and MAI_LAYOUT in layouts and any(
                o.name in MAI_MODIFIERS for r in form.rows.values() for o in r.operands):
            # the manuals list the matrix instructions in the VOP3P opcode table and give their
            # fields (ACC, ACC_CD, CBSZ, ABID, BLGP) in the VOP3P-MAI table (cdna2 manual, VOP3P-MAI)
            form.layout = MAI_LAYOUT
            lay = layouts[MAI_LAYOUT]
        if opcode in lay.forms:
            continue
        lay.forms[opcode] = form
        for variant in form.rows:
            by_mnemonic.setdefault(base + variant.split("~")[0], []).append((form, variant))
        for other in spellings:   # older names LLVM still assembles (s_andn2_b32 -> s_and_not1_b32)
            if other != base:
                for variant in form.rows:
                    aliases.setdefault(other + variant.split("~")[0], []).append((form, variant))
    groups: dict[int, dict[int, list[Layout]]] = {}
    for lay in layouts.values():
        if lay.mask and (lay.forms or (lay.pairs.get("X") and lay.pairs.get("Y"))):
            groups.setdefault(lay.mask, {}).setdefault(lay.value, []).append(lay)
    by_mask = sorted(groups.items(), key=lambda kv: -bin(kv[0]).count("1"))
    for alias, forms in aliases.items():
        by_mnemonic.setdefault(alias, forms)
    for alias, forms in _matrix_spellings(rows, own, by_mnemonic, target in MATRIX_OLD_SPELLING_TARGETS).items():
        by_mnemonic.setdefault(alias, forms)
    pair_layouts = tuple(sorted((lay.name for lay in layouts.values() if lay.pairs.get("X") and lay.pairs.get("Y")),
                                key=lambda n: is_vopd3(layouts[n])))
    by_pair = {name: {half: {form.base: form for form in layouts[name].pairs[half].values()} for half in ("X", "Y")}
               for name in pair_layouts}
    if gen >= 11:
        for lay in layouts.values():
            for form in lay.forms.values():
                form.halves = {v: h for v in form.rows if (h := _halves_of(half_rows, gen, form, v))}
    _share_rows(layouts)
    return TargetTables(target, arch, gen, layouts, by_mask, by_mnemonic, families, w64, by_pair, pair_layouts)


# LLVM's gfx940 / gfx950 pages list the pre-gfx940 spellings of the renamed matrix instructions as rows of their
# own (AMDGPUAsmGFX940.rst:1615-1616 v_mfma_f32_16x16x4bf16, v_mfma_f32_16x16x4bf16_1k beside :1612
# v_mfma_f32_16x16x4_4b_bf16), and LLVM assembles them as the renamed instruction (mai-gfx942.s:360
# `v_mfma_f32_16x16x4bf16 ... blgp:5` -> v_mfma_f32_16x16x4_4b_bf16). The old spelling is the new one without its
# block count, the underscores after the shape and the `_1k`: a spelling stands for the one instruction of the
# target whose name reads so, with the same operand widths.
# GFX950's page lists only the new spellings of its new matrix instructions, but LLVM defines them under the old
# one (VOP3PInstructions.td:1324 MAIInst<"v_mfma_f32_16x16x32f16"> printed as v_mfma_f32_16x16x32_f16 by
# VOP3P_Real_MFMA_gfx950 at :3110; the sparse ones' aliases, :3161 VOP3P_Real_SMFMAC <0x5a,
# "v_smfmac_f32_16x16x64f16">), and assembles it (mai-gfx950.s:28 `v_mfma_f32_16x16x32f16`, :1136
# `v_smfmac_f32_16x16x64f16`): there the old spelling of a listed matrix instruction is taken as well, where it
# names one instruction.
MATRIX_OLD_SPELLING_TARGETS = frozenset({"gfx950"})
_BLOCKS = re.compile(r"_\d+b_")
_AFTER_SHAPE = re.compile(r"^(v_s?mfmac?_[a-z0-9]+_\d+x\d+x\d+)_?(.*)$")


def _matrix_stem(mnemonic: str) -> str:
    m = _AFTER_SHAPE.match(_BLOCKS.sub("_", mnemonic.removesuffix("_1k")))
    return m.group(1) + m.group(2).replace("_", "") if m else mnemonic


def rule_matcher(docs, target: str, wave64: bool, gen: int):
    """The operand checker's row matcher for a target (codec.operand_check.RowMatcher): the one place the
    ROW_EVIDENCE rules (sources/llvm_syntax_docs.py) turn a listed row into the row of an instruction no page
    lists, shared by the checker and the codec. None for a target no page serves."""
    from gpuisa.codec.operand_check import RowMatcher, family_of

    fam = family_of(docs, target)
    if fam is None:
        return None
    bucket, chain, _why = fam
    return RowMatcher(docs, chain, wave64, gen, bucket=bucket)


def _add_ruled_rows(matcher, base: str, encoding: str, rows: dict[str, Row], promoted: bool = False,
                    half_rows: dict[str, Row] | None = None) -> bool:
    """Add to `rows` the row a ROW_EVIDENCE rule derives for an instruction no page lists, under the key its
    encoding's form is looked up by (tables._listed_variants: the e32 row of a VOP1 / VOP2 / VOPC instruction,
    the e64 row of its VOP3 form, the plain row otherwise); DPP rows are derived from these as for listed rows.
    The twin's GFX11 rows (`half_rows`: 16-bit operands, GFX11's VOP3P modifiers) serve it too. Whether one was
    added."""
    from gpuisa.sources.llvm_syntax_docs import rule_source

    if encoding in E32_ENCODINGS:
        key, ask = base, base + "_e32"
    elif encoding in VOP3_ENCODINGS and promoted:   # the VOP3 form of a VOP1 / VOP2 / VOPC instruction
        key, ask = base + "_e64", base + "_e64"
    else:
        key, ask = base, base
    if key in rows:
        return True
    got = matcher.derived(ask)
    if not got:
        return False
    row = got[0][1]
    if encoding in VOP3_ENCODINGS and not promoted:   # a VOP3-only instruction takes the twin's VOP3 row (its modifiers)
        row = next((r for _, r in got if r.section.startswith("VOP3") and "DPP" not in r.section), row)
    rows[key] = replace(row, mnemonic=key)
    ruled = rule_source(ask, matcher.serves)
    if half_rows is not None and ruled is not None:
        twin = ruled[1].removesuffix(ask.removeprefix(base))
        for suffix in ("", "_e32", "_e64"):
            if twin + suffix in half_rows:
                half_rows.setdefault(base + suffix, half_rows[twin + suffix])
    return True


def _matrix_spellings(rows: dict[str, Row], own: frozenset[str], by_mnemonic: dict[str, list[tuple[Form, str]]],
                      old_of_listed: bool = False) -> dict[str, list[tuple[Form, str]]]:
    """Old matrix spellings a target's own page lists beside the renamed instruction -> that instruction's forms;
    with `old_of_listed` (MATRIX_OLD_SPELLING_TARGETS), the old spelling of each listed one too."""
    by_stem: dict[str, list[tuple[Form, str]]] = {}
    for mnemonic, forms in by_mnemonic.items():
        if mnemonic.startswith(("v_mfma_", "v_smfmac_")):
            by_stem.setdefault(_matrix_stem(mnemonic), []).extend(forms)
    out: dict[str, list[tuple[Form, str]]] = {}
    for mnemonic in own:
        if not mnemonic.startswith(("v_mfma_", "v_smfmac_")) or mnemonic in by_mnemonic:
            continue
        widths = [o.dwords for o in rows[mnemonic].operands if o.role != "modifier"]
        forms = [(f, v) for f, v in by_stem.get(_matrix_stem(mnemonic), [])
                 if [o.dwords for o in f.rows[v].operands if o.role != "modifier"] == widths]
        if len({id(f) for f, _ in forms}) == 1:
            out[mnemonic] = forms
    if old_of_listed:
        for stem, forms in by_stem.items():
            if stem not in by_mnemonic and stem not in out and len({id(f) for f, _ in forms}) == 1 and any(
                    f.base in own for f, _ in forms):
                out[stem] = forms
    return out


def _share_rows(layouts: dict[str, Layout]) -> None:
    """One object per distinct operand and row: forms built apart hold equal rows (gfx1100: 15,529
    operands, 361 distinct), and the cached pickle stores a shared object once, so the tables load
    about four times faster (`gpuisa disasm` start-up, bench/bench_codec.py)."""
    operands: dict[Operand, Operand] = {}
    rows: dict[Row, Row] = {}
    for lay in layouts.values():
        for form in [*lay.forms.values(), *(f for half in lay.pairs.values() for f in half.values())]:
            for variant, row in form.rows.items():
                shared = Row(row.mnemonic, row.section, tuple(operands.setdefault(o, o) for o in row.operands),
                             row.source)
                form.rows[variant] = rows.setdefault(shared, shared)


def _takes_gfx11_row(encoding: str, base: str, row: Row | None, gfx11: Row | None) -> bool:
    """Whether a gfx12 VINTERP / VOP3P form is printed and parsed from GFX11's row: GFX12's rows list
    neither :m sources nor the modifiers these take, which LLVM's gfx12 checks print as GFX11's rows
    list them (vinterp.txt:29 `v_interp_p10_f32 v0, -v1, v2, v3 wait_exp:0`, :108 `op_sel:[1,0,0,0]`;
    gfx12_dasm_vop3p.txt:78 `v_dot2_f32_f16 v5, src_scc, vcc_lo, -1 neg_lo:[1,0,0] neg_hi:[1,0,0]`,
    where AMDGPUAsmGFX12.rst lists v_dot2_f32_f16 with clamp only). Matrix instructions keep their own
    rows (tables.MATRIX_MODIFIERS): gfx12 takes no op_sel on them."""
    if gfx11 is None or row is None or encoding not in ("VINTERP", "VOP3P") or base.startswith(("v_wmma", "v_swmmac")):
        return False
    ops12 = [o for o in row.operands if o.role != "modifier"]
    ops11 = [o for o in gfx11.operands if o.role != "modifier"]
    mods12 = {o.name for o in row.operands if o.role == "modifier"}
    mods11 = {o.name for o in gfx11.operands if o.role == "modifier"}
    # a mix instruction's op_sel / op_sel_hi are GFX11's m_op_sel / m_op_sel_hi (op_sel_hi defaults to 0:
    # AMDGPUModifierSyntax.rst:2074), whatever modifiers the GFX12 row took (gfx1250_asm_vop3p.s:1347
    # `v_fma_mix_f32_bf16 v5, v1, v2, s3` leaves OPSEL_HI clear)
    return len(ops12) == len(ops11) and (mods11 > mods12 or encoding == "VINTERP" or "m_op_sel_hi" in mods11)


def _add_vopd_half(layouts: dict[str, Layout], lay: Layout, form: Form, half: str, rows: dict[str, Row],
                   pairs: dict, matcher=None) -> None:
    """File one VOPD X or Y instruction under its pair layout, walking the half's syntax row (the
    VOPDY section's row for Y, keyed `~vopdy` by syntax_rows). A VOPD3 half takes the row as the checker
    reads VOPD3 (RowMatcher.vopd3_row: sources with neg, v_dual_cndmask_b32's select any SGPR, held in
    VSRC2: OPERAND_FIELDS vopd3_select)."""
    if lay.name not in pairs:
        pairs[lay.name] = _vopd_halves(lay)
        for hl in pairs[lay.name].values():
            layouts[hl.name] = hl
    halves = pairs[lay.name]
    if half not in halves:
        return
    # VOPD3's Y half writes v_dual_cndmask_b32's select as the X half does (gfx1250_asm_vopd3.s:134 `... ::
    # v_dual_cndmask_b32 v7, v1, v3, vcc_lo`): the X row serves both halves there, as the checker tries it
    row = rows.get(form.base + "~vopdy") if half == "Y" and not (is_vopd3(lay) and form.base in rows) else None
    row = row or rows.get(form.base)
    if row is None:
        return
    if is_vopd3(lay) and matcher is not None:
        row = matcher.vopd3_row(row) or row
        row = replace(row, operands=tuple(replace(o, name="vopd3_select") if o.name == "vcc" and o.role == "src"
                                          else o for o in row.operands))
    form.layout = halves[half].name
    form.rows = {"": row}
    lay.pairs.setdefault(half, {}).setdefault(form.opcode, form)


# ------------------------------------------------------------------------------------ caching

_MEMO: dict[tuple[str, str, bool | None], TargetTables] = {}


def docs_dir() -> Path:
    """LLVM's AMDGPU docs folder the syntax rows (and the buffer format names) are read from."""
    return layout.llvm_docs(paths.default_sources())


def _read_docs():
    from gpuisa.sources.llvm_syntax_docs import read_syntax_docs

    d = docs_dir()
    if not d.is_dir():
        raise GpuisaError(f"LLVM's AMDGPU syntax docs are not at {d}; run `gpuisa fetch` or set GPUISA_SOURCES")
    return read_syntax_docs(d, f"{layout.LLVM_TREE}/llvm/docs")


def tables_for(target: str, catalog_path: Path | None = None, wave64: bool | None = None) -> TargetTables:
    """The tables of one gfx target, from memory, the cache folder, or built (and cached)."""
    target = target.strip().lower()
    if target not in TARGET_TO_ARCH:
        raise NotFoundError("target", target, [t for t in TARGET_TO_ARCH if t[:5] == target[:5]][:6])
    cat_path = Path(catalog_path or paths.default_catalog())
    key = (str(cat_path), target, wave64)
    if key in _MEMO:
        return _MEMO[key]
    if not cat_path.is_file():
        from gpuisa.catalog.query import Catalog

        Catalog(cat_path)    # says what is missing and how to build it
    # the stamp names the code that shapes the tables without importing it (a cache hit opens
    # neither the catalog nor the syntax docs reader: CLI start-up time)
    code = Path(__file__).parent
    code_stamp = "|".join(str(p.stat().st_mtime_ns) for p in (
        code / "tables.py", code / "syntax.py", code / "operand_check.py", code.parent / "sources" / "llvm_syntax_docs.py"))
    stamp = f"{TABLES_VERSION}|{code_stamp}|{cat_path.resolve()}|{cat_path.stat().st_mtime_ns}|{docs_dir()}|{target}|{wave64}"
    digest = hashlib.sha256(stamp.encode()).hexdigest()[:20]
    cache = paths.cache_dir() / "codec" / f"{target}-{digest}.pickle"
    tables = None
    if cache.is_file():
        try:
            with open(cache, "rb") as fh:
                tables = pickle.load(fh)
        except Exception:  # a damaged cache file is rebuilt, never trusted
            tables = None
    if tables is None:
        from gpuisa.catalog.query import Catalog

        tables = build_tables(Catalog(cat_path), _shared_docs(), target, wave64)
        cache.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=cache.parent, suffix=".tmp")
        with os.fdopen(fd, "wb") as fh:
            pickle.dump(tables, fh, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, cache)
    _MEMO[key] = tables
    return tables


_DOCS: list = []


def _shared_docs():
    if not _DOCS:
        _DOCS.append(_read_docs())
    return _DOCS[0]

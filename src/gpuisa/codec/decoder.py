"""Bytes -> instructions: find the layout by its fixed bits, the instruction by its opcode, then
print each operand of the instruction's LLVM syntax row from its field.

Invalid words become `Decoded(valid=False)` entries of 4 bytes and decoding resumes after them.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

from gpuisa.codec import formats, image, waitcnt
from gpuisa.codec import operands as ops
from gpuisa.codec.syntax import (
    ALWAYS_PRINTED,
    ATTR_CHANNELS,
    BITOP3_FIELDS,
    BITOP3_VOPD3_FIELD,
    BRANCH_TARGET_PAGES,
    DPP8,
    DPP8FI,
    DPP16,
    LITERAL,
    LITERAL64,
    LITERAL64_ENCODINGS,
    LITERAL64_K,
    LITERAL64_TARGETS,
    MATRIX_FIELD_MODIFIERS,
    MATRIX_MODIFIER_NAMES,
    MATRIX_REUSE,
    MATRIX_SRC2_HI_CLEAR,
    NO_FORM_SUFFIX,
    NULL_CODE,
    OMOD,
    OP_SEL_DPP_BITS,
    OP_SEL_IS_DPP,
    OP_SEL_TIED_SRC2,
    SCOPES,
    SDWA,
    byte_sel_bits,
    export_target,
    hwreg_text,
    is_delay,
    literal64_text,
    matrix_pieces,
    reuse_bit,
    th_text,
)
from gpuisa.codec.tables import (
    E32_ENCODINGS,
    SADDR_VARIANT,
    SOURCE_FIELDS,
    VOP3_ENCODINGS,
    Form,
    Layout,
    Operand,
    Row,
    TargetTables,
    docs_dir,
    field_for,
    format_sized,
    get_bits,
    is_mai,
    is_vopd3,
    mai_acc,
    op_sel_has_dst,
    scale_of,
    select_entries,
    sixteen_bit_operands,
    vopd_y_vdst,
)
from gpuisa.sources.llvm_syntax_docs import lds_load_optional


@dataclass(slots=True)
class Decoded:
    """One decoded instruction (or one invalid dword). Not frozen: one is made per instruction of the
    input, and a frozen dataclass's __init__ (object.__setattr__ per field) cost 1.5 us of a repeat's
    2.5 us (bench/bench_codec.py); treat it as read-only."""

    offset: int
    data: bytes
    text: str
    name: str | None = None          # catalog key, None when invalid
    encoding: str | None = None
    valid: bool = True
    reason: str = ""
    symbol: str = ""                 # code-object symbol the bytes belong to ("" for raw input)

    def to_json(self) -> dict:
        return {"offset": self.offset, "bytes": self.data.hex(" "), "text": self.text, "name": self.name and
                self.name.lower(), "encoding": self.encoding, "valid": self.valid, **({"reason": self.reason}
                                                                                   if self.reason else {})}


_VGPR_TEXT = re.compile(r"^v(\d+)(?:/\*.*\*/)?$")    # one VGPR, maybe with llvm-mc's Lo128 note

MEMO_LIMIT = 1 << 20     # distinct instructions remembered per decoder (bounds memory on huge inputs)


class _Undecodable(Exception):
    pass


# DPP16 modifiers in the order llvm-mc prints them (AMDGPUModifierSyntax.rst, DPP16 modifiers);
# "dpp16_ctrl" is GFX10+'s name of the control, "dpp_ctrl" GFX9's.
DPP16_MODIFIERS = ("dpp_ctrl", "row_mask", "bank_mask", "bound_ctrl", "fi", "dpp16_ctrl")

# Data registers an ACC bit turns into AGPRs (cdna2/cdna3 manuals, DS/MUBUF/FLAT "ACC" field).
ACC_FIELDS = frozenset({"VDST", "DATA", "DATA0", "DATA1", "VDATA"})


# Scratch address modes before gfx11's SVE field (LLVM's FLAT tests): gfx940/950 keep SVE in bit 13
# (flat-scratch-gfx942.s:42); gfx9 reads VADDR only when SADDR is off (0x7F, gfx9_flat.txt:1940);
# gfx10 reads it when SADDR is NULL (0x7D), 0x7F being the no-address ST mode (flat-scratch-st-mode.s:8).
SVE_BIT13_TARGETS = frozenset({"gfx942", "gfx950"})


# Export encodings (printed by _render_export) and their flag modifiers in llvm-mc's order, by field
# (exp-pregfx11.s `exp mrt0, v4, v3, v2, v1 done vm`; exp-gfx10.s; GFX11's `row_en` is the ROW bit).
EXPORT_ENCODINGS = frozenset({"EXP", "EXPORT", "VEXPORT"})
EXPORT_MODIFIERS = (("done", "DONE"), ("compr", "COMPR"), ("vm", "VM"), ("row_en", "ROW"))

# Encodings whose unused modifier bits must be zero (see _Decoder._unused_modifier_bits).
TIGHT_ENCODINGS = frozenset({"VOP3", "VOP3A", "VOP3B", "VOP3SD", "DS"})

# Operands naming the constant K of fmaak / madmk, which always follows the word as a literal dword
# (GFX11's page calls it simm32, GFX12's literal: AMDGPUAsmGFX12.rst v_fmaak_f16).
K_OPERANDS = frozenset({"simm32", "literal"})

# Flat-family encodings whose SADDR may be "off" (NULL / 0x7F: no SGPR base).
GLOBAL_ENCODINGS = frozenset({"GLOBAL", "VGLOBAL", "SCRATCH", "VSCRATCH"})


_IMAGE_MODIFIERS = tuple(Operand(m, "modifier", (), 1, "", False, True) for m in image.MODIFIER_ORDER)


def _lo128(op: Operand, text: str, reg: int, scalar_too: bool) -> str:
    """A 16-bit source of a fake16 encoding reaches v0..v127 only; llvm-mc prints a higher VGPR with
    a note naming the register class (gfx11_dasm_vop1.txt: v129/*Invalid register, operand has
    'VS_32_Lo128' register class*/; VGPR-only sources: 'VGPR_32_Lo128', gfx11_dasm_vop1_dpp16.txt)."""
    if reg <= 127 or op.role != "src" or "v" in op.accepts or "v16" not in op.accepts:
        return text
    cls = "VS_32_Lo128" if scalar_too else "VGPR_32_Lo128"
    return f"{text}/*Invalid register, operand has '{cls}' register class*/"


# Matrix instructions whose A / B operands take VGPRs only: llvm-mc prints another source code with a
# note (gfx12_dasm_wmma_w32.txt:56 `s[0:3]/*Invalid register, operand has 'VReg_128' register class*/`,
# :426 `s0/*Invalid register, operand has 'VGPR_32' register class*/`, :65 `1.0/*Invalid immediate*/`).
MATRIX_PREFIXES = ("v_wmma_", "v_swmmac_")

# SOPP instructions whose 16-bit immediate LLVM's TableGen types i16imm / i32imm (a plain integer) where the others
# take s16imm / u16imm, printed by printU16ImmOperand in hex (AMDGPUInstructions.td:136-139): llvm-mc prints these
# as an integer inline constant, 0..64 in decimal and other values in hex (gfx11_dasm_sopp.txt:156 `s_nop 0`,
# gfx1250_dasm_sopp.txt:29 `s_set_vgpr_msb 10` but :23 `s_set_vgpr_msb 0xff`, :32 `s_setprio_inc_wg 0x64`;
# s16imm: gfx11_asm_sopp.s:417 `s_ttracedata_imm 0x0`). Mnemonic -> its definition's line.
_SOP_TD = "llvm-project-23.1.1/llvm/lib/Target/AMDGPU/SOPInstructions.td"
INTEGER_SIMM16: dict[str, str] = {
    "s_nop": f"{_SOP_TD}:1549", "s_barrier_wait": f"{_SOP_TD}:1655", "s_sethalt": f"{_SOP_TD}:1739",
    "s_setkill": f"{_SOP_TD}:1741", "s_sleep": f"{_SOP_TD}:1749", "s_setprio": f"{_SOP_TD}:1757",
    "s_setprio_inc_wg": f"{_SOP_TD}:1761", "s_trap": f"{_SOP_TD}:1783", "s_incperflevel": f"{_SOP_TD}:1791",
    "s_decperflevel": f"{_SOP_TD}:1794", "s_monitor_sleep": f"{_SOP_TD}:1814", "s_denorm_mode": f"{_SOP_TD}:1846",
    "s_set_vgpr_msb": f"{_SOP_TD}:1924",
}
INTEGER_INLINE_MAX = 64   # the largest integer inline constant (AMDGPUOperandSyntax.rst:642, iconst {0..64})


def printed_mnemonic(form: Form, variant: str, gen: int) -> str:
    """The mnemonic llvm-mc prints for a form in a variant: the base and the variant's suffix, except VOPC DPP on
    gfx11+ (gfx11_dasm_vopc_dpp16.txt) and the instructions syntax.NO_FORM_SUFFIX names, printed bare."""
    if (form.encoding == "VOPC" and variant.startswith("_dpp") and gen >= 11) or (
            form.base in NO_FORM_SUFFIX and variant in ("_e32", "_e64")):
        return form.base
    return form.base + variant.split("~")[0]


def pair_shows(op: Operand) -> bool:
    """Whether a VOPD half prints this operand of its row: v_dual_cndmask_b32 reads VCC without naming
    it (gfx11_asm_vopd.s), and modifiers have no place in a half."""
    return not (op.role == "modifier" or op.name == "vcc" or (op.optional and set(op.accepts) <= {"vcc", "vcc_lo"}))


def _invalid_note(text: str, dwords: int) -> str:
    if text[:1] in "-0123456789.":
        return "/*Invalid immediate*/"
    cls = "VGPR_32" if dwords == 1 else f"VReg_{32 * dwords}"
    return f"/*Invalid register, operand has '{cls}' register class*/"


def _scratch_uses_vaddr(target: str, lay: Layout, word: int) -> bool:
    saddr = get_bits(word, lay.fields["SADDR"]) if "SADDR" in lay.fields else 0x7F
    if target in SVE_BIT13_TARGETS:
        return bool((word >> 13) & 1)
    if target.startswith("gfx10"):
        return saddr == 0x7D
    return saddr == 0x7F


def _cache_kind(mnemonic: str) -> str:
    """Load, store or atomic: which `th:` names apply (AMDGPUModifierSyntax.rst:1115)."""
    if "_atomic_" in mnemonic or mnemonic.startswith("s_atomic"):
        return "atomic"
    if "_store" in mnemonic:
        return "store"
    return "load"


@functools.lru_cache(maxsize=4096)
def _is_float(mnemonic: str) -> bool:
    parts = mnemonic.split("_")
    return any(p.startswith(("f16", "f32", "f64", "bf16")) or p in ("f16", "f32", "f64") for p in parts[1:])


class _Decoder:
    """Decodes one instruction at a position; holds the pieces the printers share."""

    def __init__(self, tables: TargetTables, true16: bool = False, fast: bool = True) -> None:
        self.t = tables
        self.gen = tables.gen
        self.true16 = true16 and tables.gen >= 11      # print 16-bit VGPRs as v1.l / v1.h (real-true16)
        self._img: tuple[int, str] | None = None    # image vdata dwords and vaddr text of the word being printed
        self._base = ""                              # mnemonic of the form being printed
        # decodings already made, by their bytes, and the sizes seen with each first dword: code repeats
        # its instructions, and a repeat costs one dict lookup per size (a list scanned per first dword
        # took a quarter of the time on a 1 MB code object, whose VOP3 words share few first dwords)
        self._memo: dict[bytes, tuple[bytes, str, str, str]] = {}
        self._memo_sizes: dict[bytes, tuple[int, ...]] = {}
        self._high_fixed: dict[str, list] = {}       # layout -> its fixed fields beyond the first dword
        # (first-dword mask, value, bytes) of layouts with fixed bits past the first dword (VOP3PX2): a shorter
        # decoding of such a first dword is not memoized, since its bytes may begin the longer instruction
        self._longer = [(lay.mask, lay.value, lay.width // 8) for _, groups in tables.by_mask for g in groups.values()
                        for lay in g if self._fixes_high(lay)]
        self._image_mods: dict[str, list[Operand]] = {}   # layout -> the image modifiers it has fields for
        self._docs_dir: Path | None = None
        self._k_rows: dict[int, bool] = {}           # id(row) -> whether fmaak / madmk's K literal follows
        self._lit64 = False                          # the word being printed is followed by a 64-bit literal
        self._fast = None                            # codec/fastpath.py: plans per form, pieces by the bits read
        if fast:
            from gpuisa.codec.fastpath import FastRenderer

            self._fast = FastRenderer(self)

    def _may_begin_longer(self, d: Decoded) -> bool:
        w0 = int.from_bytes(d.data[:4], "little")
        return any(w0 & mask == value and n > len(d.data) for mask, value, n in self._longer)

    @staticmethod
    def _fixes_high(lay: Layout) -> bool:
        return any(lay.fields[f][0][0] >= 32 for f in lay.fixed)

    def find(self, data: bytes, pos: int) -> tuple[Layout, Form, int] | None:
        w0 = int.from_bytes(data[pos:pos + 4], "little")
        for mask, groups in self.t.by_mask:
            lays = groups.get(w0 & mask)
            if not lays:
                continue
            for lay in lays:
                n = lay.width // 8
                word = int.from_bytes(data[pos:pos + n], "little")
                if lay.pairs:    # VOPD: both halves' opcodes must name an instruction
                    fx = lay.pairs.get("X", {}).get(get_bits(word, lay.fields["OPX"]))
                    if fx is not None and get_bits(word, lay.fields["OPY"]) in lay.pairs.get("Y", {}):
                        return lay, fx, word
                    continue
                form = lay.forms.get(get_bits(word, lay.op_bits))
                if form is None or not form.rows:
                    continue
                high = self._high_fixed.get(lay.name)
                if high is None:     # fixed bits beyond the first dword, checked after the match
                    high = self._high_fixed[lay.name] = [(lay.fields[f], v) for f, v in lay.fixed.items()
                                                         if lay.fields[f][0][0] >= 32]
                if any(get_bits(word, bits) != v for bits, v in high):
                    continue
                return lay, form, word
        return None

    def decode(self, data: bytes, pos: int, base: int = 0, symbol: str = "") -> Decoded:
        """The instruction at `pos`, reported at offset `base + pos` in `symbol` (a kernel of a code object)."""
        first = data[pos:pos + 4]
        for size in self._memo_sizes.get(first, ()):
            seen = self._memo.get(data[pos:pos + size])
            if seen is not None:
                return Decoded(pos + base, seen[0], seen[1], seen[2], seen[3], True, "", symbol)
        d = self._decode(data, pos)
        if d.valid and len(self._memo) < MEMO_LIMIT and not self._may_begin_longer(d):
            self._memo[d.data] = (d.data, d.text, d.name, d.encoding)
            sizes = self._memo_sizes.get(first, ())
            if len(d.data) not in sizes:
                self._memo_sizes[first] = (*sizes, len(d.data))
        if base or symbol:
            d = Decoded(d.offset + base, d.data, d.text, d.name, d.encoding, d.valid, d.reason, symbol)
        return d

    def _decode(self, data: bytes, pos: int) -> Decoded:
        if len(data) - pos < 4:
            return Decoded(pos, data[pos:], "<invalid>", valid=False, reason="truncated: fewer than 4 bytes left")
        found = self.find(data, pos)
        if found is None:
            return Decoded(pos, data[pos:pos + 4], "<invalid>", valid=False, reason="no instruction has these bits")
        lay, form, _ = found
        n = lay.width // 8
        if len(data) - pos < n:
            return Decoded(pos, data[pos:], "<invalid>", valid=False,
                           reason=f"truncated: {form.base} needs {n} bytes, {len(data) - pos} left")
        try:
            text, size = self.render(lay, form, data, pos)
        except _Undecodable as exc:
            return Decoded(pos, data[pos:pos + 4], "<invalid>", valid=False, reason=str(exc))
        except (KeyError, IndexError, ValueError, TypeError, OverflowError) as exc:   # a gap in the tables
            return Decoded(pos, data[pos:pos + 4], "<invalid>", valid=False,
                           reason=f"cannot print {form.base} on {self.t.target}: internal {type(exc).__name__} {exc}")
        if len(data) - pos < size:
            return Decoded(pos, data[pos:], "<invalid>", valid=False,
                           reason=f"truncated: {form.base} needs {size} bytes, {len(data) - pos} left")
        return Decoded(pos, data[pos:pos + size], text, form.name, form.encoding)

    # ------------------------------------------------------------------ rendering

    def render(self, lay: Layout, form: Form, data: bytes, pos: int) -> tuple[str, int]:
        if self._fast is not None:
            done = self._fast.render(lay, form, data, pos)
            if done is not None:
                return done
        if lay.pairs:
            return self._render_pair(lay, data, pos)
        if form.encoding in EXPORT_ENCODINGS:
            return self._render_export(lay, form, data, pos)
        size = lay.width // 8
        word = int.from_bytes(data[pos:pos + size], "little")
        f = lay.fields
        variant, extra = self._variant(lay, form, word)
        row = form.rows.get(variant)
        if row is None:
            raise _Undecodable(f"{form.base}: no {variant or 'plain'} form on {self.t.target}")
        ext = 0
        if extra:
            if len(data) < pos + size + 4:
                raise _Undecodable(f"truncated: {form.base}{variant} needs {size + 4} bytes")
            ext = int.from_bytes(data[pos + size:pos + size + 4], "little")
            size += 4
        literal = None
        k_row = self._k_rows.get(id(row))
        if k_row is None:   # fmaak / madmk: the constant K follows the word
            k_row = self._k_rows[id(row)] = any(o.name in K_OPERANDS for o in row.operands)
        uses_literal = k_row or any(n in f and get_bits(word, f[n]) == LITERAL for n in SOURCE_FIELDS
                                    if not extra or n != "SRC0")
        self._lit64 = self.t.target in LITERAL64_TARGETS and not extra and (
            (k_row and form.base in LITERAL64_K) or (form.encoding in LITERAL64_ENCODINGS and any(
                n in f and get_bits(word, f[n]) == LITERAL64 for n in SOURCE_FIELDS)))
        if self._lit64:   # 64 bits of constant follow the word (syntax.LITERAL64)
            if len(data) < pos + size + 8:
                raise _Undecodable(f"truncated: {form.base} has a 64-bit literal constant and needs {size + 8} bytes")
            literal = int.from_bytes(data[pos + size:pos + size + 8], "little")
            size += 8
        elif uses_literal:
            if len(data) < pos + size + 4:
                raise _Undecodable(f"truncated: {form.base} has a literal constant and needs {size + 4} bytes")
            literal = int.from_bytes(data[pos + size:pos + size + 4], "little")
            size += 4
        self._img = None
        self._base = form.base
        if form.encoding in image.IMAGE_ENCODINGS:
            self._img, size = self._image(lay, form, data, pos, word)
        mnemonic = printed_mnemonic(form, variant, self.gen)
        is_float = _is_float(mnemonic)
        texts: list[str] = []
        mods: list[str] = []
        src_index = 0
        dpp16 = variant in ("_dpp", "_e64_dpp")
        halves = sixteen_bit_operands(self.t, form, variant)
        bitop3 = any(o.name == "bitop3" for o in row.operands)   # NEG / ABS / OMOD are its truth table
        vop3 = form.encoding in VOP3_ENCODINGS or form.encoding == "VINTERP" or variant.startswith("_e64")
        if halves and self.true16 and vop3 and "OPSEL" in f and not any(o.name == "op_sel" for o in row.operands):
            # real-true16 prints OPSEL of a VOP3 form whose row lists no op_sel (gfx11_asm_vop3_from_vop2.s:
            # v_add_f16_e64 v5.l, v1.h, v2.l op_sel:[1,0,0])
            sel = get_bits(word, f["OPSEL"])
            srcs = sum(1 for o in row.operands if o.role == "src")
            vals = [(sel >> i) & 1 for i in range(srcs)]
            if op_sel_has_dst(row, form.base, variant):
                vals.append((sel >> 3) & 1)
            if any(vals):
                mods.append(f"op_sel:[{','.join(map(str, vals))}]")
        for op in row.operands:
            if op.role == "modifier":
                if (dpp16 and op.name in DPP16_MODIFIERS) or self._img is not None:
                    continue   # printed below in LLVM's order
                m = self._modifier(op, lay, form, word, variant, ext, row)
                if m:
                    mods.append(m)
                continue
            text = self._operand_text(op, lay, word, literal, is_float, variant, ext, op.name in halves, vop3,
                                      bitop3, src_index)
            if op.role == "src":
                src_index += 1
            if text is not None:
                texts.append(text)
        if self._img is not None:
            mods = self._image_modifiers(lay, form, word, row)
            if image.args_of(form.base).bvh:
                mods = [m for m in mods if m == "a16"]   # image.BVH_SET_FIELDS: LLVM prints only a16
        if form.base.startswith("tbuffer_"):
            fmt = self._format(lay, word)
            if fmt:
                mods.insert(0, fmt)    # llvm-mc prints format: first (gfx11_dasm_mtbuf.txt:8)
        if form.encoding == "VBUFFER":  # idxen / offen before offset (gfx1250_dasm_vbuffer_mubuf.txt:38)
            mods.sort(key=lambda m: 0 if m.startswith("format:") else 1 if m in ("idxen", "offen") else 2)
        if dpp16:
            for name in DPP16_MODIFIERS[:5 if self.gen >= 10 else 4]:
                m = self._dpp(name, variant, ext, word, lay)
                if m:
                    mods.append(m)
        if bitop3 and any(m.startswith("bitop3:") for m in mods):
            # llvm-mc prints bitop3 before op_sel (gfx1250_dasm_vop3.txt:6 `v_bitop3_b16 v255, 0xfe0b, vcc_hi, null
            # bitop3:0x67 op_sel:[0,0,0,1]`), though GFX950's row lists op_sel first
            mods.sort(key=lambda m: 0 if m.startswith("bitop3:") else 1 if m.startswith("op_sel:") else 2)
        if form.encoding == "VINTERP" and "clamp" in mods:   # vinterp.txt:124 `v3 clamp op_sel:[1,0,1,0] wait_exp:5`
            mods.remove("clamp")
            mods.insert(0, "clamp")
        if lay.encoding in TIGHT_ENCODINGS and variant in ("", "_e64"):
            self._unused_modifier_bits(lay, word, row)
        out = mnemonic
        if texts:
            out += " " + ", ".join(texts)
        if mods:
            out += " " + " ".join(mods)
        return out, size

    def _operand_text(self, op: Operand, lay: Layout, word: int, literal: int | None, is_float: bool, variant: str,
                      ext: int, half: bool, vop3: bool, bitop3: bool, src_index: int) -> str | None:
        """One operand of a row as printed: its field's text, then the 16-bit half (`half`: a 16-bit VGPR
        operand, tables.sixteen_bit_operands), an MFMA's AGPR, neg / abs (the `src_index`-th source).
        codec/fastpath.py remembers these texts by the bits of `word` and `ext` they read."""
        if self._base.endswith("_f8f6f4") and op.role == "src":   # A / B widths from their formats (format_sized)
            formats = {m: str(get_bits(word, lay.fields[m.upper()])) for m in ("cbsz", "blgp") if m.upper() in lay.fields}
            if self._base.startswith("v_wmma"):
                formats = {m: str(self._matrix_value(m, lay, word)) for m in ("matrix_a_fmt", "matrix_b_fmt")}
            op = format_sized(self._base, op, formats)
        text = self._operand(op, lay, word, literal, is_float, variant, ext)
        if half and text is not None:
            if self.true16:
                text = self._half(text, op, lay, word, vop3, src_index)
            elif not vop3 and op.role == "src" and "/*" not in text and (m := _VGPR_TEXT.match(text)):
                # fake16: a 16-bit source beyond v127 gets llvm-mc's note (_lo128), whatever the page says
                scalar_too = variant in ("", "_e32") and field_for(op, lay) == "SRC0"
                text = _lo128(Operand(op.name, "src", ("v16",), 1, "", False, False), text, int(m.group(1)),
                              scalar_too)
        if is_mai(lay) and text and text[0] == "v" and "a" in op.accepts and \
                mai_acc(lay, field_for(op, lay), word):
            text = "a" + text[1:]
        if op.role == "src" and op.name not in ("vcc",) and op.modifiers and not bitop3:
            text = self._neg_abs(text, lay, word, src_index, variant, ext)
        return text

    def _half(self, text: str, op: Operand, lay: Layout, word: int, vop3: bool, src_index: int) -> str:
        """A 16-bit VGPR in real-true16 syntax (tables.sixteen_bit_operands): VOP3 takes the half from
        OPSEL, VOP1/VOP2/VOPC from bit 7 of the register number."""
        m = _VGPR_TEXT.match(text)
        if m is None:
            return text
        n = int(m.group(1))
        if vop3:
            sel = get_bits(word, lay.fields["OPSEL"]) if "OPSEL" in lay.fields else 0
            hi = (sel >> (3 if op.role == "dst" else src_index)) & 1
        else:
            n, hi = n & 0x7F, n >> 7
        return f"v{n}.{'h' if hi else 'l'}"

    def _docs(self) -> Path:
        """LLVM's docs folder (waitcnt counters, buffer format names), looked up once per decoder."""
        if self._docs_dir is None:
            self._docs_dir = docs_dir()
        return self._docs_dir

    def _render_export(self, lay: Layout, form: Form, data: bytes, pos: int) -> tuple[str, int]:
        """`exp mrt0, v4, v3, off, off done`: the target, four sources (off where EN's bit is clear;
        with COMPR source i reads VSRC[i/2]: exp-pregfx11.s `exp mrtz, off, off, v7, v7 compr`), then
        done, compr, vm, row_en."""
        size = lay.width // 8
        word = int.from_bytes(data[pos:pos + size], "little")
        f = lay.fields

        def bit(name: str) -> int:
            return get_bits(word, f[name]) if name in f else 0

        target = export_target(bit("TARGET"), self.gen)
        if target is None:
            raise _Undecodable(f"export target {bit('TARGET')} names none on {self.t.target}")
        compr = bit("COMPR")
        regs = [f"v{bit(f'VSRC{i // 2 if compr else i}')}" if (bit("EN") >> i) & 1 else "off" for i in range(4)]
        mods = [m for m, field in EXPORT_MODIFIERS if bit(field)]
        return f"{form.base} {target}, {', '.join(regs)}" + "".join(" " + m for m in mods), size

    def _render_pair(self, lay: Layout, data: bytes, pos: int) -> tuple[str, int]:
        """A VOPD word: `X :: Y`, each half printed from its half layout (tables.VOPD_HALF_FIELDS);
        one literal dword follows when either half reads one (SRC0 = 255, or fmaak / fmamk's K)."""
        size = lay.width // 8
        word = int.from_bytes(data[pos:pos + size], "little")
        f = lay.fields
        halves = (("X", lay.pairs["X"][get_bits(word, f["OPX"])]), ("Y", lay.pairs["Y"][get_bits(word, f["OPY"])]))
        wide = word if is_vopd3(lay) else word | (vopd_y_vdst(word, f) << 64)
        literal = None
        if any(get_bits(word, f[n]) == LITERAL for n in ("SRCX0", "SRCY0")) or any(
                o.name in K_OPERANDS for _h, form in halves for o in form.rows[""].operands):
            if len(data) < pos + size + 4:
                raise _Undecodable(f"truncated: {halves[0][1].base} has a literal constant and needs {size + 4} bytes")
            literal = int.from_bytes(data[pos + size:pos + size + 4], "little")
            size += 4
        texts = []
        for _half, form in halves:
            hl = self.t.layouts[form.layout]
            is_float = _is_float(form.base)
            self._img, self._lit64, self._base = None, False, form.base   # not the previous instruction's
            shown = []
            src_index = 0
            row = form.rows[""]
            for op in row.operands:
                if pair_shows(op):
                    text = self._pair_operand_text(op, hl, wide, literal, is_float, src_index)
                    if text is not None:
                        shown.append(text)
                src_index += op.role == "src"
            # a half's only modifier: v_dual_bitop2_b32's truth table (syntax.BITOP3_VOPD3_FIELD)
            mods = [m for op in row.operands if op.name == "bitop3" and (m := self._modifier(op, hl, form, wide, "", 0, row))]
            texts.append(form.base + (" " + ", ".join(shown) if shown else "") + "".join(" " + m for m in mods))
        return " :: ".join(texts), size

    def _pair_operand_text(self, op: Operand, hl: Layout, wide: int, literal: int | None, is_float: bool,
                           src_index: int) -> str | None:
        """One operand of a VOPD half as printed (`src_index`: the sources before it in the row);
        codec/fastpath.py remembers these by the bits of `wide` they read."""
        text = self._operand(op, hl, wide, literal, is_float, "", 0)
        if op.role == "src" and op.modifiers and "NEG" in hl.fields:   # VOPD3 NEGX / NEGY
            text = self._neg_abs(text, hl, wide, src_index, "", 0)
        return text

    def _unused_modifier_bits(self, lay: Layout, word: int, row: Row) -> None:
        """A VOP3 word whose instruction has no such modifier must have its bits clear: LLVM's encodings
        fix them to 0 (VOP3e: Inst{8} = !if(P.HasSrc0Mods, src0_modifiers{1}, 0), likewise clamp and
        omod), so llvm-mc rejects such words (codec fuzzing, VOP3 "llvm-mc invalid, codec decodes").
        OPSEL bits are not checked: llvm-mc 22 decodes v_div_fmas_f32 with them set (fuzzing, gfx1100).
        A DS word must leave the register fields its instruction does not use clear (ds_dec_u32 with a
        VDST: llvm-mc rejects it)."""
        f = lay.fields
        if lay.encoding == "DS":
            used = {field_for(o, lay) for o in row.operands}
            for field in ("VDST", "DATA0", "DATA1", "ADDR"):
                if field in f and field not in used and get_bits(word, f[field]):
                    raise _Undecodable(f"{field} set on an instruction that has no such operand")
            return
        names = {o.name for o in row.operands if o.role == "modifier"}
        if "bitop3" in names:   # NEG, ABS and OMOD hold the truth table (BITOP3_FIELDS)
            return
        srcs = [o for o in row.operands if o.role == "src" and o.name not in ("vcc", "exec")]
        allowed = sum(1 << i for i, o in enumerate(srcs) if o.modifiers)
        for field, ok in (("ABS", allowed), ("NEG", allowed), ("CLAMP", 1 if "clamp" in names else 0),
                          ("OMOD", 3 if "omod" in names else 0)):
            if field in f and get_bits(word, f[field]) & ~ok:
                raise _Undecodable(f"{field} bits set on an instruction without that modifier")
    def _image(self, lay: Layout, form: Form, data: bytes, pos: int, word: int) -> tuple[tuple[int, str] | None, int]:
        """(vdata dwords, vaddr text) of an image instruction and its size in bytes (NSA dwords
        follow a gfx10/gfx11 MIMG word; see codec/image.py)."""
        f = lay.fields
        size = lay.width // 8

        def bit(name: str) -> int:
            return get_bits(word, f[name]) if name in f else 0

        gen = self.gen
        vdata = image.data_dwords(form.base, gen, bit("DMASK"), bool(bit("TFE")), bool(bit("D16")))
        addr = image.address_dwords(form.base, gen, bit("DIM"), bool(bit("A16")))
        sizes = image.nsa_sizes(form.base, addr, gen, form.encoding)
        if form.encoding == "MIMG" and gen >= 10 and bit("NSA"):
            slots = len(sizes)
            extra = bit("NSA") if gen == 10 else (slots + 2) // 4
            if gen == 10 and slots > 1 + 4 * extra:
                raise _Undecodable(f"{form.base}: {addr} addresses do not fit {extra} NSA dword(s)")
            if len(data) < pos + size + 4 * extra:
                raise _Undecodable(f"truncated: {form.base} needs {size + 4 * extra} bytes")
            nsa = int.from_bytes(data[pos + size:pos + size + 4 * extra], "little")
            regs = [bit("VADDR")] + [(nsa >> (8 * i)) & 0xFF for i in range(slots - 1)]
            size += 4 * extra
        elif form.encoding in ("VIMAGE", "VSAMPLE"):
            regs = [bit(f"VADDR{i}") for i in range(len(sizes))]
        else:
            return (vdata, ops.reg_range("v", bit("VADDR"), image.non_nsa_dwords(addr))), size
        texts = [ops.reg_range("v", r, n) for r, n in zip(regs, sizes, strict=True)]
        return (vdata, texts[0] if len(texts) == 1 else "[" + ", ".join(texts) + "]"), size

    def _format(self, lay: Layout, word: int) -> str | None:
        """The `format:` of a typed buffer instruction (codec/formats.py); DFMT is rdna1/2's name of the
        7-bit unified field."""
        f = lay.fields
        field = "FORMAT" if "FORMAT" in f else "DFMT" if "DFMT" in f else None
        if field is None:
            return None
        names = formats.names_for(self._docs(), self.gen)
        nfmt = get_bits(word, f["NFMT"]) if self.gen < 10 and "NFMT" in f else 0
        return formats.print_format(names, self.gen, get_bits(word, f[field]), nfmt)

    def _image_modifiers(self, lay: Layout, form: Form, word: int, row: Row) -> list[str]:
        """An image's modifiers in llvm-mc's order, each one whose field the layout has."""
        out = []
        for op in self.image_modifier_ops(lay):
            m = self._modifier(op, lay, form, word, "", 0, row)
            if m:
                out.append(m)
        return out

    def image_modifier_ops(self, lay: Layout) -> list[Operand]:
        """The image modifiers a layout has fields for, in llvm-mc's order (codec/fastpath.py prints them too)."""
        mods = self._image_mods.get(lay.name)
        if mods is None:
            mods = self._image_mods[lay.name] = [op for op in _IMAGE_MODIFIERS if image.field_of(op.name, lay.fields)]
        return mods

    def _variant(self, lay: Layout, form: Form, word: int) -> tuple[str, bool]:
        """Which syntax row (e32/e64/dpp/sdwa) and whether an extra DPP/SDWA dword follows."""
        enc = form.encoding
        src0 = get_bits(word, lay.fields["SRC0"]) if "SRC0" in lay.fields else None
        if enc in E32_ENCODINGS:
            if src0 == DPP16:
                return "_dpp", True
            if src0 in (DPP8, DPP8FI) and self.gen >= 10:
                return "_dpp~dpp8", True
            if src0 == SDWA and self.gen in (9, 10) and "_sdwa" in form.rows:
                return "_sdwa", True
            return ("_e32" if "_e32" in form.rows else ""), False
        if enc in VOP3_ENCODINGS or enc == "VOP3P":
            if self.gen >= 11 and src0 in (DPP16, DPP8, DPP8FI):
                v = "_e64_dpp" if any(k.startswith("_e64_dpp") for k in form.rows) else "_dpp"
                return v + ("~dpp8" if src0 != DPP16 else ""), True
            return ("_e64" if "_e64" in form.rows else ""), False
        if SADDR_VARIANT in form.rows and get_bits(word, lay.fields["SADDR"]) not in (0x7F, NULL_CODE[self.gen]):
            return SADDR_VARIANT, False   # an SGPR base: the global row of the operation (tables.SADDR_VARIANT)
        return "", False

    def _operand(self, op: Operand, lay: Layout, word: int, literal: int | None, is_float: bool,
                 variant: str, ext: int) -> str | None:
        name = op.name
        gen = self.gen
        if name == "vcc" and op.role == "dst" and "SDST" in lay.fields and lay.encoding in ("VOP3B", "VOP3SD"):
            text = ops.scalar_name(get_bits(word, lay.fields["SDST"]), 2 if self.t.wave64 else 1, self.gen)
            if text is None:
                raise _Undecodable("SDST names no scalar register")
            return text
        if name == "vcc":
            return "vcc" if self.t.wave64 else "vcc_lo"
        if name == "exec" and op.role == "dst":
            return None          # v_cmpx writes EXEC; LLVM prints no destination
        if variant == "_sdwa" and name == "sdst":   # VOPC SDWA: SD bit 15 selects SDST [14:8], else VCC
            if not (ext >> 15) & 1:
                return "vcc" if self.t.wave64 else "vcc_lo"
            text = ops.scalar_name((ext >> 8) & 0x7F, op.dwords, gen)
            if text is None:
                raise _Undecodable("SDWA SDST names no scalar register")
            return text
        fname = field_for(op, lay)
        f = lay.fields
        if name == "attr" and "ATTR" in f and "ATTR_CHAN" in f:   # attr12.y (AMDGPUOperandSyntax.rst "attr")
            return f"attr{get_bits(word, f['ATTR'])}.{ATTR_CHANNELS[get_bits(word, f['ATTR_CHAN'])]}"
        if self._img is not None and name in ("vaddr", "addr"):
            return self._img[1]
        if self._img is not None and fname == "VDATA":
            kind = "a" if "ACC" in f and get_bits(word, f["ACC"]) else "v"
            return ops.reg_range(kind, get_bits(word, f["VDATA"]), self._img[0])
        if op.role == "dst" and fname in ("VDST", "VDATA") and (op.optional or op.name == "vdst") and \
                "_atomic" in self._base:
            # an atomic returns its pre-op value only with GLC (TH bit 0 on gfx12): vdst:opt
            ret = get_bits(word, f["GLC"]) if "GLC" in f else get_bits(word, f["TH"]) & 1 if "TH" in f else \
                get_bits(word, f["SC0"]) if "SC0" in f else 1
            if not ret:
                return None
        elif (op.optional or lds_load_optional(self._base, op.role)) and op.role == "dst" and fname in ("VDST", "VDATA") \
                and "LDS" in f and get_bits(word, f["LDS"]):
            return None     # a load to LDS writes no VGPR (gfx9_asm_mubuf.s: buffer_load_dword off, ... lds)
        if fname in ("VADDR", "ADDR") and ("off" in op.accepts or "OFFEN" in f or "SVE" in f):
            if "OFFEN" in f and "IDXEN" in f and not get_bits(word, f["OFFEN"]) and not get_bits(word, f["IDXEN"]):
                return "off"
            if "SVE" in f and not get_bits(word, f["SVE"]) and (lay.fixed.get("SEG") == 1 or lay.encoding == "VSCRATCH"):
                return "off"
            if "SVE" not in f and lay.fixed.get("SEG") == 1 and not _scratch_uses_vaddr(self.t.target, lay, word):
                return "off"
            if "ADDR64" in f and not get_bits(word, f["ADDR64"]) and "OFFEN" in f and "IDXEN" in f and \
                    not get_bits(word, f["OFFEN"]) and not get_bits(word, f["IDXEN"]):
                return "off"
        if fname == "SADDR" and lay.encoding in GLOBAL_ENCODINGS and get_bits(word, f["SADDR"]) in (
                0x7F, 0x7C if gen >= 11 else 0x7D):
            return "off"    # no SGPR address (gfx12_dasm_global_load_tr.txt:14; the rows list only registers)
        if fname in ("ADDR", "VADDR") and "SADDR" in f and (op.size_text.startswith("1 or 2 dwords") or (
                lay.encoding in ("GLOBAL", "VGLOBAL") and gen >= 12)):
            saddr = get_bits(word, f["SADDR"])
            return ops.reg_range("v", get_bits(word, f[fname]), 2 if saddr in (0x7F, 0x7C if gen >= 11 else 0x7D) else 1)
        if fname == "SOFFSET" and lay.encoding == "SMEM":
            return self._smem(lay, word)[0]
        if fname in ("VADDR",) and "OFFEN" in f and "IDXEN" in f:
            n = get_bits(word, f["OFFEN"]) + get_bits(word, f["IDXEN"])
            return ops.reg_range("v", get_bits(word, f[fname]), max(n, 1))
        if variant in ("_dpp", "_dpp~dpp8", "_sdwa", "_e64_dpp", "_e64_dpp~dpp8") and fname == "SRC0":
            src = ext & 0xFF
            if variant == "_sdwa" and (ext >> 23) & 1:   # SDWA S0 bit: src0 is an SGPR (gfx9+)
                return ops.source_text(src, op.dwords, gen)
            return _lo128(op, ops.reg_range("v", src, op.dwords), src, False)
        if fname is None:
            if name in ("simm32", "literal", "imm32") and literal is not None:
                return literal64_text(literal, True) if self._lit64 else f"0x{literal:x}"
            if name in ("off",):
                return "off"
            return None
        value = get_bits(word, lay.fields[fname])
        value *= scale_of(fname, lay)
        acc = op.accepts
        if fname in ("SIMM16",):
            return self._simm16(op, value)
        if fname in SOURCE_FIELDS and (lay.fields[fname][0][0] - lay.fields[fname][0][1] == 8 or "s" in acc
                                        or "constant" in acc or "literal" in acc or "iconst" in acc):
            if value == LITERAL64 and self._lit64:
                return literal64_text(literal, is_float)
            if value == LITERAL:
                if literal is None:
                    raise _Undecodable("literal constant expected")
                return f"0x{literal:x}"
            text = ops.source_text(value, op.dwords, gen)
            if text is None:
                raise _Undecodable(f"{fname}={value} names no operand on {self.t.target}")
            if value < 256 and self._base.startswith(MATRIX_PREFIXES) and "s" not in op.accepts and (
                    text[:1] not in "-0123456789." or not {"constant", "iconst", "fconst", "literal"} & set(op.accepts)):
                return text + _invalid_note(text, op.dwords)
            return _lo128(op, text, value - 256, True) if value >= 256 else text
        if "v16" in acc and "v" not in acc:
            acc = (*acc, "v")
        if "v" in acc and ("s" not in acc or fname in ("VDST", "VSRC1", "VSRC2", "ADDR", "VADDR", "DATA", "DATA0",
                                                      "DATA1", "VDATA")):
            if fname in SOURCE_FIELDS and value < 256:
                text = ops.source_text(value, op.dwords, gen)
                if text is None:
                    raise _Undecodable(f"{fname}={value} names no operand")
                return text
            acc = fname in ACC_FIELDS or op.name == "gws_data"   # ds_gws data in ADDR (tables.OPERAND_FIELDS)
            kind = "a" if "ACC" in f and acc and not is_mai(lay) and get_bits(word, f["ACC"]) else "v"
            return _lo128(op, ops.reg_range(kind, value & 0xFF, op.dwords), value & 0xFF, False)
        if "s" in acc or "ttmp" in acc or "vcc" in acc or "null" in acc or "off" in acc:
            if "off" in acc and fname == "SADDR" and value in (0x7F, 0x7C if gen >= 11 else 0x7D):
                return "off"
            text = ops.scalar_name(value, op.dwords, gen)
            if text is None:
                text = ops.source_text(value, op.dwords, gen)
            if text is None:
                raise _Undecodable(f"{fname}={value} names no scalar register")
            return text
        if "a" in acc:
            return ops.reg_range("a", value & 0xFF, op.dwords)
        return str(value)

    def _simm16(self, op: Operand, value: int) -> str:
        if op.name == "hwreg":     # always hwreg(..): gfx11_dasm_sopk.txt `s_getreg_b32 s0, hwreg(17, 7, 25)`
            return hwreg_text(value, self.t.target)
        if op.name == "label" or op.page in BRANCH_TARGET_PAGES:
            # llvm-mc prints the raw 16 bits (gfx10_sopp.txt:20 `s_branch 49617` for 0xc1d1)
            return str(value)
        if is_delay(op.name, op.page) and op.page:   # instid0(..) | instskip(..) | instid1(..) (waitcnt.delay_*)
            try:
                return waitcnt.delay_to_text(waitcnt.delay_fields_of(self._docs(), op.page), value)
            except (OSError, ValueError):
                return f"0x{value:x}"
        if op.name in ("simm16", "imm16"):   # llvm-mc prints 16-bit immediates in hex (gfx9_asm_sopk.s:5)
            if self._base in INTEGER_SIMM16 and value <= INTEGER_INLINE_MAX:
                return str(value)
            return f"0x{value:x}"
        if op.name == "waitcnt" and op.page:
            try:
                return waitcnt.to_text(waitcnt.fields_of(self._docs(), op.page), value)
            except (OSError, ValueError):
                return str(value)
        if op.name == "waitcnt_depctr" and op.page:
            try:
                return waitcnt.depctr_to_text(waitcnt.depctr_fields_of(self._docs(), op.page), value)
            except (OSError, ValueError):
                return f"0x{value:x}"
        return str(value)

    def _neg_abs(self, text: str | None, lay: Layout, word: int, idx: int, variant: str, ext: int) -> str | None:
        if text is None:
            return None
        f = lay.fields
        neg = abs_ = 0
        if variant == "_dpp" and "NEG" not in f:
            neg = (ext >> (20 + 2 * idx)) & 1 if idx < 2 else 0
            abs_ = (ext >> (21 + 2 * idx)) & 1 if idx < 2 else 0
        elif variant == "_sdwa":
            neg = (ext >> (20 + 8 * idx)) & 1 if idx < 2 else 0
            abs_ = (ext >> (21 + 8 * idx)) & 1 if idx < 2 else 0
            if idx < 2 and (ext >> (19 + 8 * idx)) & 1:   # SRC0_SEXT / SRC1_SEXT (gfx9_sdwa_features.txt:98)
                text = f"sext({text})"
        elif variant == "_dpp~dpp8" and "NEG" not in f:
            pass
        else:
            if "NEG" in f:
                neg = (get_bits(word, f["NEG"]) >> idx) & 1
            if "ABS" in f:
                abs_ = (get_bits(word, f["ABS"]) >> idx) & 1
            elif "NEG_HI" in f and "_mix" in self._base:   # mix: NEG_HI holds abs (gfx12_dasm_vop3p.txt:396)
                abs_ = (get_bits(word, f["NEG_HI"]) >> idx) & 1
        if abs_:
            text = f"|{text}|"
        if neg:
            imm = not abs_ and not text[:1].isalpha()
            text = f"neg({text})" if imm else f"-{text}"
        return text

    def _modifier(self, op: Operand, lay: Layout, form: Form, word: int, variant: str, ext: int,
                  row: Row) -> str | None:
        f = lay.fields
        name = op.name

        def bit(field: str) -> int:
            return get_bits(word, f[field]) if field in f else 0

        if name in ("op_sel", *OP_SEL_DPP_BITS) and form.base in OP_SEL_IS_DPP and not ext:   # OPSEL: fi, bound_ctrl
            return f"{name}:1" if name != "op_sel" and (bit("OPSEL") >> OP_SEL_DPP_BITS[name]) & 1 else None
        if name in ("dpp16_ctrl", "dpp_ctrl", "row_mask", "bank_mask", "bound_ctrl", "fi", "dpp8_sel"):
            return self._dpp(name, variant, ext, word, lay)
        if name in ("dst_sel", "dst_unused", "src0_sel", "src1_sel"):
            return self._sdwa(name, ext)
        if name == "clamp" and variant == "_sdwa" and "CLAMP" not in f:
            return "clamp" if (ext >> 13) & 1 else None
        if name == "omod" and variant == "_sdwa" and "OMOD" not in f:
            return OMOD.get((ext >> 14) & 3)
        if name in ("clamp",):
            return "clamp" if bit("CLAMP") else None
        if name == "omod":
            return OMOD.get(bit("OMOD"))
        if name == "bitop3":   # the truth table over OMOD, ABS and NEG (BITOP3_FIELDS); llvm-mc prints 0..9 decimal
            v = bit(BITOP3_VOPD3_FIELD) if lay.encoding.startswith("VOPD3") else \
                sum(bit(field) << shift for field, shift in BITOP3_FIELDS)
            return (f"bitop3:{v}" if v < 10 else f"bitop3:0x{v:x}") if v else None
        if name in ALWAYS_PRINTED and ALWAYS_PRINTED[name] in f:
            if name == "wait_vdst" and any(o.name == "wait_va_vdst" for o in row.operands):
                return None
            return f"{name}:{bit(ALWAYS_PRINTED[name])}"
        if name == "clamp" and "CLMP" in f:
            return "clamp" if bit("CLMP") else None
        if name in MATRIX_REUSE:   # gfx1250's reuse hints (syntax.MATRIX_REUSE)
            where = reuse_bit(name, f)
            return name if where and (bit(where[0]) >> where[1]) & 1 else None
        if name in MATRIX_FIELD_MODIFIERS:   # gfx1250's WMMA formats and scales (syntax.MATRIX_FIELD_MODIFIERS)
            v = self._matrix_value(name, lay, word)
            names = MATRIX_MODIFIER_NAMES[name]
            return f"{name}:{names[v] if v < len(names) else v}" if v else None
        if name == "index_key" and "OPSEL" in f:    # SWMMAC: which index of the key VGPR (tables.MATRIX_MODIFIERS)
            v = bit("OPSEL") & ~self._reuse_mask(row, "OPSEL")
            return f"index_key:{v}" if v else None
        if name == "scale_sel" and "OPSEL" in f:
            # gfx1250's packed scaled conversions: the scale byte is OPSEL (PACKED_CONVERSION; gfx1250_asm_vop3.s
            # `v_cvt_scale_pk8_f16_fp8 ... scale_sel:5` sets [14:11] = 5, `scale_sel:8` = 8)
            return f"scale_sel:{bit('OPSEL')}" if bit("OPSEL") else None
        if name == "op_sel" and any(o.name == "scale_sel" for o in row.operands):
            return None   # OPSEL is scale_sel there
        if name in ("cbsz", "abid", "blgp") and name.upper() in f:
            if name.upper() in lay.fixed:   # VOP3PX2's ABID is always 1 (`abid must be 1`): llvm-mc prints none
                return None
            return f"{name}:{bit(name.upper())}" if bit(name.upper()) else None
        if name == "neg" and "NEG" not in f and "BLGP" in f:    # f64 MFMA: BLGP holds neg (mai-gfx942.s:72)
            v = bit("BLGP")
            return f"neg:[{v & 1},{(v >> 1) & 1},{(v >> 2) & 1}]" if v else None
        if name == "unorm" and "UNRM" in f:   # the manuals' field name
            return name if bit("UNRM") else None
        if name == "dmask" and "DMASK" in f:
            return f"dmask:0x{bit('DMASK'):x}" if bit("DMASK") else None
        if name == "dim" and "DIM" in f:
            return "dim:SQ_RSRC_IMG_" + image.DIMS[bit("DIM")][0]
        if name in ("gds", "glc", "slc", "dlc", "tfe", "lds", "idxen", "offen", "nv", "scc", "d16", "a16", "r128",
                    "unorm", "da", "lwe", "sc0", "sc1", "nt", "addr64", "scale_offset"):
            return name if bit(name.upper()) else None
        if name == "offset" and "OFFSET1" in f:
            v = (bit("OFFSET1") << 8) | bit("OFFSET0")
            return f"offset:{v}" if v else None
        if name in ("offset0", "offset1"):
            v = bit(name.upper())
            return f"{name}:{v}" if v else None
        if name.startswith("offset") and form.encoding == "SMEM":
            return self._smem(lay, word)[1]
        if name in ("th", "scope") and "TH" in f:
            scope = bit("SCOPE")
            if name == "scope":
                return f"scope:{SCOPES[scope]}" if scope else None
            text = th_text(bit("TH"), scope, _cache_kind(form.base))
            return f"th:{text}" if text else None
        offset_field = "OFFSET" if "OFFSET" in f else "IOFFSET"
        if name.startswith("offset") and offset_field in f:
            v = bit(offset_field)
            width = sum(hi - lo + 1 for hi, lo in f[offset_field])
            signed = name.endswith("s") or (form.encoding in ("GLOBAL", "SCRATCH", "VGLOBAL", "VSCRATCH", "VFLAT")
                                            and self.gen >= 10) or (form.encoding == "FLAT" and self.gen >= 12)
            signed = signed and form.encoding != "VBUFFER"
            if signed and v >> (width - 1):
                v -= 1 << width
            if form.encoding == "SMEM":
                return f"offset:0x{v:x}" if v or self.gen >= 12 else None
            return f"offset:{v}" if v else None
        if name == "m_op_sel":    # mix instructions' op_sel (AMDGPUModifierSyntax.rst, m_op_sel)
            name = "op_sel"
        if name == "byte_sel" and "OPSEL" in f and (sel := byte_sel_bits(form.base, self.gen)) is not None:
            v = (((bit("OPSEL") >> sel[0]) & 1) << 1) | ((bit("OPSEL") >> sel[1]) & 1)   # syntax.BYTE_SEL
            return f"byte_sel:{v}" if v else None
        if (name == "op_sel" and any(o.name == "matrix_a_fmt" for o in row.operands)) or (
                name == "op_sel_hi" and any(o.name == "matrix_b_fmt" for o in row.operands)):
            return None   # OPSEL / OPSEL_HI hold the A / B formats (syntax.MATRIX_FIELD_MODIFIERS)
        if name == "op_sel" and "OPSEL" in f:
            v = bit("OPSEL")
            if (sel := byte_sel_bits(form.base, self.gen)) is not None:
                v &= ~((1 << sel[0]) | (1 << sel[1]))   # those bits are byte_sel's (syntax.BYTE_SEL)
            v &= ~self._reuse_mask(row, "OPSEL")
            n = select_entries(row) + (sel is None and form.base in OP_SEL_TIED_SRC2)   # gfx11+: byte_sel's bits
            vals = [(v >> i) & 1 for i in range(n)]
            if not form.encoding.startswith("VOP3P") and op_sel_has_dst(row, form.base, variant):
                vals.append((v >> 3) & 1)    # VOP3 OPSEL: one bit per source, bit 3 for the destination
            return f"op_sel:[{','.join(map(str, vals))}]" if any(vals) else None
        if name in ("op_sel_hi", "m_op_sel_hi") and "OPSEL_HI" in f:
            hi = bit("OPSEL_HI") | ((bit("OPSEL_HI2") & ~self._reuse_mask(row, "OPSEL_HI2")) << 2)
            n = select_entries(row)
            vals = [(hi >> i) & 1 for i in range(n)]
            default = 0 if name == "m_op_sel_hi" else 1    # AMDGPUModifierSyntax.rst:2074 / :1917
            defaults = [default] * n
            if n == 3 and self.t.target in MATRIX_SRC2_HI_CLEAR and form.base.startswith(MATRIX_PREFIXES):
                defaults[2] = 0
            return f"op_sel_hi:[{','.join(map(str, vals))}]" if vals != defaults else None
        if name == "m_op_sel":
            name = "op_sel"
        if name in ("neg_lo", "neg_hi"):
            field = "NEG" if name == "neg_lo" else "NEG_HI"
            v = bit(field)
            n = select_entries(row)
            vals = [(v >> i) & 1 for i in range(n)]
            return f"{name}:[{','.join(map(str, vals))}]" if any(vals) else None
        return None


    @staticmethod
    def _reuse_mask(row: Row, field: str) -> int:
        """The bits of `field` a row's reuse hints hold (syntax.MATRIX_REUSE), 0 where it lists none."""
        return sum(1 << at for o in row.operands if o.name in MATRIX_REUSE
                   for f, at in MATRIX_REUSE[o.name][-1:] if f == field)

    @staticmethod
    def _matrix_value(name: str, lay: Layout, word: int) -> int:
        """The value of a WMMA format / scale modifier from its field pieces (syntax.MATRIX_FIELD_MODIFIERS)."""
        return sum(((get_bits(word, lay.fields[f]) & ((1 << n) - 1)) << at)
                   for f, at, n in matrix_pieces(name, lay.fields))

    def _smem(self, lay: Layout, word: int) -> tuple[str | None, str | None]:
        """SMEM soffset operand text and offset modifier text (see SMEM_OFFSET_RULES in syntax.py)."""
        f = lay.fields
        field = "OFFSET" if "OFFSET" in f else "IOFFSET"
        off = get_bits(word, f[field]) if field in f else 0
        width = sum(hi - lo + 1 for hi, lo in f[field]) if field in f else 1
        if off >> (width - 1):
            off -= 1 << width
        off_text = f"0x{off:x}" if off >= 0 else f"-0x{-off:x}"
        if self.gen == 9:
            imm = get_bits(word, f["IMM"]) if "IMM" in f else 1
            soe = get_bits(word, f["SOE"]) if "SOE" in f else 0
            if imm and not soe:
                return off_text, None
            if not imm:
                return ops.scalar_name(off & 0xFF, 1, 9), None
            return ops.scalar_name(get_bits(word, f["SOFFSET"]), 1, 9), f"offset:{off_text}"
        so = get_bits(word, f["SOFFSET"]) if "SOFFSET" in f else NULL_CODE[self.gen]
        if so == NULL_CODE[self.gen]:
            return off_text, None
        return ops.scalar_name(so, 1, self.gen), (f"offset:{off_text}" if off or self.gen >= 12 else None)

    def _dpp(self, name: str, variant: str, ext: int, word: int, lay: Layout) -> str | None:
        if variant.endswith("~dpp8"):
            if name == "dpp8_sel":
                return "dpp8:[" + ",".join(str((ext >> (8 + 3 * i)) & 7) for i in range(8)) + "]"
            if name == "fi":
                src0 = get_bits(word, lay.fields["SRC0"])
                return "fi:1" if src0 == DPP8FI else None
            return None
        ctrl = (ext >> 8) & 0x1FF
        if name in ("dpp16_ctrl", "dpp_ctrl"):
            return _dpp_ctrl(ctrl, self.gen, self.t.target in NEWBCAST_TARGETS)
        if name == "row_mask":
            return f"row_mask:0x{(ext >> 28) & 0xF:x}"
        if name == "bank_mask":
            return f"bank_mask:0x{(ext >> 24) & 0xF:x}"
        if name == "bound_ctrl":
            # llvm-mc prints the set bit as bound_ctrl:1 on gfx9 too (gfx9_vop1_dpp.txt:11)
            return "bound_ctrl:1" if (ext >> 19) & 1 else None
        if name == "fi":
            return "fi:1" if (ext >> 18) & 1 else None
        return None

    def _sdwa(self, name: str, ext: int) -> str | None:
        sel = ("BYTE_0", "BYTE_1", "BYTE_2", "BYTE_3", "WORD_0", "WORD_1", "DWORD")
        unused = ("UNUSED_PAD", "UNUSED_SEXT", "UNUSED_PRESERVE")
        try:
            if name == "dst_sel":
                return f"dst_sel:{sel[(ext >> 8) & 7]}"
            if name == "dst_unused":
                return f"dst_unused:{unused[(ext >> 11) & 3]}"
            if name == "src0_sel":
                return f"src0_sel:{sel[(ext >> 16) & 7]}"
            if name == "src1_sel":
                return f"src1_sel:{sel[(ext >> 24) & 7]}"
        except IndexError:
            raise _Undecodable("SDWA selector out of range") from None
        return None


# gfx90a and gfx940+ read DPP controls 0x150-0x15F as row_newbcast:0..15 (gfx90a-dpp64.txt:5
# `v_ceil_f64_dpp v[0:1], v[2:3] row_newbcast:1`; gfx942_features.txt:297).
NEWBCAST_TARGETS = frozenset({"gfx90a", "gfx940", "gfx941", "gfx942", "gfx950"})


def _dpp_ctrl(ctrl: int, gen: int, newbcast: bool = False) -> str:
    """DPP16 control spelling (AMDGPUModifierSyntax.rst, dpp_ctrl / dpp16_ctrl)."""
    if newbcast and 0x150 <= ctrl <= 0x15F:
        return f"row_newbcast:{ctrl - 0x150}"
    if ctrl <= 0xFF:
        return "quad_perm:[" + ",".join(str((ctrl >> (2 * i)) & 3) for i in range(4)) + "]"
    for lo, spelling in ((0x100, "row_shl"), (0x110, "row_shr"), (0x120, "row_ror")):
        if lo < ctrl <= lo + 0xF:
            return f"{spelling}:{ctrl - lo}"
    fixed = {0x140: "row_mirror", 0x141: "row_half_mirror"}
    if gen < 10:
        fixed.update({0x130: "wave_shl:1", 0x134: "wave_rol:1", 0x138: "wave_shr:1", 0x13C: "wave_ror:1",
                      0x142: "row_bcast:15", 0x143: "row_bcast:31"})
    if ctrl in fixed:
        return fixed[ctrl]
    if gen >= 10 and 0x150 <= ctrl <= 0x15F:
        return f"row_share:{ctrl - 0x150}"
    if gen >= 10 and 0x160 <= ctrl <= 0x16F:
        return f"row_xmask:{ctrl - 0x160}"
    raise _Undecodable(f"DPP control 0x{ctrl:x} is reserved")


def decode_bytes(data: bytes, target: str, catalog=None, base: int = 0, symbol: str = "",
                 true16: bool = False) -> list[Decoded]:
    """Every instruction in `data` (raw little-endian words) for one gfx target; offsets start at `base`."""
    from gpuisa.codec.tables import tables_for

    dec = _Decoder(tables_for(target, catalog), true16=true16)
    out: list[Decoded] = []
    pos = 0
    while pos < len(data):
        d = dec.decode(data, pos, base, symbol)
        out.append(d)
        pos += max(len(d.data), 1)
    return out

"""LLVM-syntax AMDGPU assembly -> bytes, walking the same syntax rows and fields as the decoder.

A mnemonic without an encoding suffix tries its forms in LLVM's order (e32 before e64, DPP /
SDWA when their modifiers are given); the first form whose operands all fit wins. Errors carry
line:column and say why (unknown mnemonic, operand not allowed, literal out of range).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from gpuisa.codec import formats, image, waitcnt
from gpuisa.codec import operands as ops
from gpuisa.codec.decoder import (
    ACC_FIELDS,
    EXPORT_ENCODINGS,
    EXPORT_MODIFIERS,
    GLOBAL_ENCODINGS,
    K_OPERANDS,
    NEWBCAST_TARGETS,
    SVE_BIT13_TARGETS,
    _is_float,
)
from gpuisa.codec.operands import OperandError
from gpuisa.codec.syntax import (
    ALWAYS_PRINTED,
    ATTR_CHANNELS,
    BITOP3_FIELDS,
    BITOP3_VOPD3_FIELD,
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
    NULL_CODE,
    OMOD,
    OP_SEL_DPP_BITS,
    OP_SEL_IS_DPP,
    SCOPES,
    SDWA,
    byte_sel_bits,
    export_code,
    float_bits,
    hwreg_value,
    is_delay,
    matrix_pieces,
    reuse_bit,
    th_code,
)
from gpuisa.codec.tables import (
    E32_ENCODINGS,
    SADDR_VARIANT,
    SOURCE_FIELDS,
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
    op_sel_has_dst,
    put_bits,
    scale_of,
    sixteen_bit_operands,
)
from gpuisa.errors import GpuisaError
from gpuisa.sources.llvm_syntax_docs import PACKED_CONVERSION, atomic_return_optional, lds_load_optional

MAX_LINE = 4096    # longer lines are refused before any parsing (a 10 MB line is one error)


# Fields LLVM fills although the syntax row names no operand for them (prefix, encodings, field,
# value, first generation, the LLVM check line that shows it).
FIELD_DEFAULTS: tuple[tuple[str, tuple[str, ...], str, int, int, str], ...] = (
    ("v_cmpx_", ("VOP3", "VOP3A"), "VDST", 126, 10,
     "llvm-project-23.1.1/llvm/test/MC/AMDGPU/gfx11_asm_vop3_from_vopcx-fake16.s:1446, gfx10_asm_vopcx.s:692 "
     "(VDST = EXEC_LO)"),
    ("v_wmma_scale", ("VOP3PX2",), "CONSTANT", 0x80, 12,
     "llvm-project-23.1.1/llvm/test/MC/AMDGPU/gfx1250_asm_wmma_w32.s:1138 ([58:50] = 0x80, an inline 0 in the load-scale "
     "half's SRC2, where the cdna5 manual's Table 97 prints 'Must be set to 0x100', line 6827)"),
    ("buffer_", ("VBUFFER",), "FORMAT", 1, 12,
     "llvm-project-23.1.1/llvm/test/MC/AMDGPU/gfx12_asm_vbuffer_mubuf.s:8 (untyped buffer ops carry FORMAT 1)"),
)

# An operand page that takes numbers only (gfx10_probe.rst: "an integer_number or an absolute_expression").
INTEGER_KINDS = frozenset({"integer_number", "absolute_expression"})


class AsmError(GpuisaError):
    """An assembly error at line:column."""

    def __init__(self, line: int, column: int, message: str) -> None:
        super().__init__(f"{line}:{column}: {message}")
        self.line, self.column, self.message = line, column, message


@dataclass(frozen=True, slots=True)
class Encoded:
    line: int
    text: str
    data: bytes
    name: str
    encoding: str

    def to_json(self) -> dict:
        return {"line": self.line, "text": self.text, "bytes": self.data.hex(" "), "name": self.name.lower(),
                "encoding": self.encoding}


@dataclass(slots=True)
class _Token:
    text: str
    col: int         # 1-based column in the line


def _top_level(text: str, col: int, is_separator: Callable[[str], bool]) -> list[_Token]:
    """The pieces of `text` between separators outside ()/[] (raw, empty ones kept), each with its column."""
    out: list[_Token] = []
    depth = 0
    start = 0
    for i, ch in enumerate(text):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if depth == 0 and is_separator(ch):
            out.append(_Token(text[start:i], col + start))
            start = i + 1
    out.append(_Token(text[start:], col + start))
    return out


def _split(text: str, start_col: int) -> tuple[list[_Token], list[_Token]]:
    """Operands (comma-separated) and modifiers (space-separated after the last operand)."""
    parts = _top_level(text, start_col, lambda ch: ch == ",")
    operands = []
    for p in parts:
        lead = len(p.text) - len(p.text.lstrip())
        operands.append(_Token(p.text.strip(), p.col + lead))
    last = operands[-1]
    words = _words(last.text, last.col)
    if not words:
        operands.pop()
        return operands, []
    operands[-1] = words[0]
    mods = words[1:]
    if len(operands) == 1 and not operands[0].text:
        operands = []
    return operands, mods


def _words(text: str, col: int) -> list[_Token]:
    # `|v1|` with spaces, `neg( 1 )` and `- v1` are rare; `abs(` spacing is kept together by depth
    return [piece for piece in _top_level(text, col, str.isspace) if piece.text]


class _Attempt(Exception):
    """This form does not take these operands (try the next form); col and message say why."""

    def __init__(self, col: int, message: str) -> None:
        super().__init__(message)
        self.col, self.message = col, message


class _Encoder:
    def __init__(self, tables: TargetTables, true16: bool = False) -> None:
        self.t = tables
        self.gen = tables.gen
        self.true16 = true16   # kept for callers; v1.l / v1.h are parsed on gfx11+ whatever it says
        self._st = _State(0)     # the instruction being built (encode_form sets it)
        self._mnemonic = ""
        self._form: Form | None = None
        self._variant = ""
        self._close: dict[str, list[str]] = {}   # unknown mnemonic -> its "did you mean" names

    # ------------------------------------------------------------------ line level

    def candidates(self, mnemonic: str, mods: list[_Token]) -> list[tuple[Form, str]]:
        by = self.t.by_mnemonic
        mod_names = {m.text.split(":")[0] for m in mods}
        dpp8 = "dpp8" in mod_names
        if mnemonic.removesuffix("_e64") in OP_SEL_IS_DPP:   # bound_ctrl / fi live in VOP3's OPSEL there
            mod_names -= set(OP_SEL_DPP_BITS)
        dpp16 = bool(mod_names & {"quad_perm", "row_shl", "row_shr", "row_ror", "row_mirror", "row_half_mirror",
                                  "row_share", "row_xmask", "row_bcast", "row_newbcast", "wave_shl", "wave_shr", "wave_rol",
                                  "wave_ror", "row_mask", "bank_mask", "bound_ctrl"})
        sdwa = bool(mod_names & {"dst_sel", "dst_unused", "src0_sel", "src1_sel"})
        out: list[tuple[Form, str]] = []

        def add(key: str, want: str | None = None) -> None:
            for form, variant in by.get(key, []):
                if want is not None and not _variant_matches(variant, want):
                    continue
                if (form, variant) not in out:
                    out.append((form, variant))

        if mnemonic.endswith(("_dpp", "_e64_dpp")) or dpp8 or dpp16:
            want = "dpp8" if dpp8 else "dpp16"
            stem = mnemonic
            for suffix in ("_e64_dpp", "_dpp", "_e32", "_e64"):
                if stem.endswith(suffix):
                    stem = stem[: -len(suffix)]
                    break
            if mnemonic.endswith("_e64_dpp") or mnemonic.endswith("_e64"):
                add(stem + "_e64_dpp", want)
            else:
                add(stem + "_dpp", want)
                add(stem + "_e64_dpp", want)
            return out
        if mnemonic.endswith("_sdwa") or sdwa:
            stem = mnemonic.removesuffix("_sdwa")
            add(stem + "_sdwa")
            return out
        add(mnemonic)
        if not mnemonic.endswith(("_e32", "_e64")):
            add(mnemonic + "_e32")
            add(mnemonic + "_e64")
        return [c for c in out if "dpp" not in c[1] and "sdwa" not in c[1]]

    def encode_line(self, text: str, line_no: int) -> Encoded | None:
        if len(text) > MAX_LINE:
            raise AsmError(line_no, MAX_LINE + 1, f"line is {len(text)} characters long; the limit is {MAX_LINE}")
        code = _strip_comment(text)
        if not code.strip():
            return None
        lead = len(code) - len(code.lstrip())
        body = code.strip()
        if body.endswith(":") and re.match(r"^[A-Za-z_.$][\w.$]*:$", body):
            return None    # a label: offsets are not resolved, so only numeric branch targets are taken
        if body.startswith("."):
            raise AsmError(line_no, lead + 1, f"directive {body.split()[0]} is not supported by this assembler")
        if "::" in body:
            return self._encode_pair(body, lead, line_no)
        parts = body.split(None, 1)
        mnemonic = parts[0].lower()
        rest = parts[1] if len(parts) > 1 else ""
        rest_col = lead + 1 + len(body) - len(rest)
        operands, mods = _split(rest, rest_col) if rest else ([], [])
        # format:[..] / dfmt:N / nfmt:N may stand in operand position (gfx11_asm_mtbuf.s:5 "s3, format:[..]")
        moved = [t for t in operands if _FORMAT_OPERAND.match(t.text)]
        if moved:
            operands = [t for t in operands if t not in moved]
            mods = moved + mods
        cands = self.candidates(mnemonic, mods)
        if not cands:
            raise AsmError(line_no, lead + 1, self._unknown(mnemonic))
        best: _Attempt | None = None
        for form, variant in cands:
            try:
                data = self.encode_form(form, variant, operands, mods, mnemonic)
                return Encoded(line_no, body, data, form.name, form.encoding)
            except _Attempt as exc:
                if best is None or exc.col > best.col:
                    best = exc
            except (KeyError, IndexError, ValueError, TypeError, OverflowError) as exc:   # a gap in the tables
                raise AsmError(line_no, lead + 1, f"cannot encode {form.base}{variant.split('~')[0]} on "
                                                  f"{self.t.target}: internal {type(exc).__name__} {exc}") from None
        assert best is not None
        raise AsmError(line_no, best.col, best.message)

    def _encode_pair(self, body: str, lead: int, line_no: int) -> Encoded:
        """`X :: Y`: a VOPD word from its two halves, each encoded on its half layout
        (tables.VOPD_HALF_FIELDS); the halves share one literal dword. VOPD is tried before VOPD3,
        which takes what VOPD cannot (a third source, neg, more operations), as llvm-mc chooses."""
        if not self.t.pair_layouts:
            raise AsmError(line_no, lead + 1, f"{self.t.target} has no VOPD (dual-issue) encoding")
        first: AsmError | None = None
        for name in self.t.pair_layouts:
            try:
                return self._encode_pair_on(name, body, lead, line_no)
            except AsmError as exc:
                first = first or exc
        assert first is not None
        raise first

    def _encode_pair_on(self, name: str, body: str, lead: int, line_no: int) -> Encoded:
        lay = self.t.layouts[name]
        three = is_vopd3(lay)
        pairs = self.t.pairs[name]
        left, right = body.split("::", 1)
        word, literal, names = 0, None, []
        vdst = {}
        for half, text, col in (("X", left, lead + 1), ("Y", right, lead + 3 + len(left))):
            stripped = text.strip()
            col += len(text) - len(text.lstrip())
            parts = stripped.split(None, 1)
            mnemonic = parts[0].lower() if parts else ""
            form = pairs[half].get(mnemonic)
            if form is None:
                other = "X" if half == "Y" else "Y"
                why = f" (it is a VOPD {other} operation only)" if mnemonic in pairs[other] else ""
                raise AsmError(line_no, col, f"{mnemonic!r} is not a {name} {half} operation on {self.t.target}{why}")
            rest = parts[1] if len(parts) > 1 else ""
            operands, mods = _split(rest, col + len(stripped) - len(rest)) if rest else ([], [])
            try:
                self.encode_form(form, "", operands, mods, mnemonic)
            except _Attempt as exc:
                raise AsmError(line_no, exc.col, exc.message) from None
            st = self._st
            if st.literal is not None:
                if literal is not None and literal != st.literal:
                    raise AsmError(line_no, col, "the two halves of a VOPD instruction share one literal constant")
                literal = st.literal
            half_lay = self.t.layouts[form.layout]
            vdst[half] = get_bits(st.word, half_lay.fields["VDST"])
            word |= st.word & ((1 << lay.width) - 1)
            names.append(form.name)
        if not three:
            if (vdst["X"] & 1) == (vdst["Y"] & 1):
                raise AsmError(line_no, lead + 1, "one VOPD destination VGPR must be even and the other odd "
                                                  "(VDSTY's LSB is the opposite of VDSTX[0])")
            word |= put_bits(lay.fields["VDSTY"], vdst["Y"] >> 1)
        data = word.to_bytes(lay.width // 8, "little") + (literal.to_bytes(4, "little") if literal is not None else b"")
        return Encoded(line_no, body, data, names[0], name)

    def _unknown(self, mnemonic: str) -> str:
        import difflib

        # difflib over every mnemonic costs ~60 ms a call; a match at cutoff 0.75 (ratio 2M/T) has a length
        # within 0.6..1/0.6 of the word's, so only those are compared (the same answer), and each is kept
        close = self._close.get(mnemonic)
        if close is None:
            n = len(mnemonic)
            near = [m for m in self.t.by_mnemonic if 0.6 * n <= len(m) <= n / 0.6]
            close = self._close[mnemonic] = difflib.get_close_matches(mnemonic, near, n=3, cutoff=0.75)
        hint = f"; did you mean: {', '.join(close)}?" if close else ""
        return f"unknown mnemonic {mnemonic!r} for {self.t.target}{hint}"

    # ------------------------------------------------------------------ one form

    def encode_form(self, form: Form, variant: str, operands: list[_Token], mods: list[_Token], mnemonic: str) -> bytes:
        lay: Layout = self.t.layouts[form.layout]
        row: Row = form.rows[variant]
        self._mnemonic = form.base
        self._form = form
        self._variant = variant
        f = lay.fields
        word = 0
        for name, value in lay.fixed.items():
            word |= put_bits(f[name], value)
        word |= put_bits(lay.op_bits, form.opcode)
        st = _State(word)
        self._st = st
        if form.encoding in EXPORT_ENCODINGS:
            return self._export(lay, st, operands, mods)
        row_ops = [o for o in row.operands if o.role != "modifier"]
        if not row_ops and operands:   # `buffer_inv sc0`, `buffer_wbl2 sc0 sc1`: an instruction of modifiers only
            operands, mods = [], [w for t in operands for w in _words(t.text, t.col)] + mods
        if ([o.name for o in row_ops] in (["waitcnt"], ["waitcnt_depctr"]) or (
                len(row_ops) == 1 and is_delay(row_ops[0].name, row_ops[0].page))) and (mods or len(operands) > 1):
            # vmcnt(0) lgkmcnt(0), depctr_va_vdst(1), depctr_sa_sdst(0): one operand spelled in terms
            # separated by spaces, `&` or commas (gfx10_waitcnt_depctr.rst)
            operands = [_Token(" ".join(t.text for t in (*operands, *mods)), operands[0].col)]
            mods = []
        if len(operands) != len(row_ops):
            required = [o for o in row_ops if not o.optional]
            if row_ops and atomic_return_optional(form.base, row_ops[0].name) and len(operands) == len(row_ops) - 1:
                required = row_ops[1:]   # an atomic without return has no vdst (ATOMIC_RETURN_OPTIONAL)
            elif row_ops and lds_load_optional(form.base, row_ops[0].role) and len(operands) == len(row_ops) - 1 \
                    and any(t.text.lower() == "lds" for t in mods):
                required = row_ops[1:]   # a load to LDS has no VGPR data (LDS_LOAD_OPTIONAL)
            if len(operands) == len(required):
                row_ops = required
            else:
                col = operands[-1].col if operands else 1
                raise _Attempt(col, f"{form.base}{variant.split('~')[0]} takes {len(row_ops)} operands, "
                                    f"got {len(operands)}")
        is_float = _is_float(form.base)
        extra_kind = None
        if variant.startswith(("_dpp", "_e64_dpp")):
            extra_kind = "dpp8" if variant.endswith("~dpp8") else "dpp16"
        elif variant == "_sdwa":
            extra_kind = "sdwa"
        st.extra_kind = extra_kind
        if extra_kind == "sdwa":   # DWORD selects and UNUSED_PAD (LLVM's defaults), src1_sel only with a src1
            has_src1 = any(o.name == "src1_sel" for o in row.operands)
            # dst_unused defaults to UNUSED_PRESERVE (AMDGPUModifierSyntax.rst:1586); VOPC has no dst_sel:
            # its bits hold SDST (gfx9_asm_vopc.s:77)
            has_dst = any(o.name == "dst_sel" for o in row.operands)
            # a row listing no dst_sel outside VOPC (GFX940's v_cvt_f32_bf8_sdwa) still writes a DWORD, unused
            # bits padded: gfx942_asm_features.s:582 encodes dst_sel 6, dst_unused 0 (byte 5 is 0x06)
            dst = ((6 << 8) | (2 << 11)) if has_dst else 0 if form.encoding == "VOPC" else 6 << 8
            st.ext = dst | (6 << 16) | ((6 << 24) if has_src1 else 0)
        elif extra_kind == "dpp16":
            st.ext = (0xF << 28) | (0xF << 24)          # row_mask:0xf bank_mask:0xf (LLVM's defaults)
        self._defaults(lay, form, st)
        if form.base.endswith("_f8f6f4"):   # A / B widths follow cbsz / blgp (tables.format_sized)
            given = {n.lower(): v for n, _, v in (t.text.partition(":") for t in mods)}
            row_ops = [format_sized(form.base, o, given) for o in row_ops]
        src_index = 0
        for op, tok in zip(row_ops, operands, strict=True):
            half = _HALF.search(tok.text) if self.gen >= 11 else None
            if half is not None:    # real-true16: v1.l / v1.h (tables.sixteen_bit_operands)
                tok = _Token(tok.text[:half.start()] + half.group(1) + tok.text[half.end():], tok.col)
            self._operand(op, tok, lay, form, st, src_index if op.role == "src" else -1, is_float, variant)
            if half is not None:
                self._half(op, tok, lay, form, st, src_index, variant, int(half.group(2)), half.group(3).lower() == "h")
            if op.role == "src":
                src_index += 1
        allowed = {o.name for o in row.operands if o.role == "modifier"}
        if "OPSEL" in f and sixteen_bit_operands(self.t, form, variant) and (
                form.encoding not in E32_ENCODINGS or variant.startswith("_e64")):
            allowed.add("op_sel")   # a VOP3 form on 16-bit VGPRs selects their halves (tables.sixteen_bit_operands)
        if form.encoding in image.IMAGE_ENCODINGS:
            allowed |= {m for m in image.MODIFIER_ORDER if image.field_of(m, f)}
        for m in mods:
            self._modifier(m, allowed, lay, form, st, row)
        if form.encoding == "SMEM":
            self._smem(lay, st, operands[-1] if operands else None, row)
        if st.img_data is not None or st.img_addr is not None:
            self._image(lay, form, st)
        if extra_kind:
            code = DPP16 if extra_kind == "dpp16" else SDWA if extra_kind == "sdwa" else (DPP8FI if st.fi8 else DPP8)
            st.word |= put_bits(f["SRC0"], code)
        size = lay.width // 8
        out = st.word.to_bytes(size, "little")
        if extra_kind:
            out += (st.ext & 0xFFFFFFFF).to_bytes(4, "little")
        out += st.tail
        if st.literal is not None:
            out += st.literal.to_bytes(8 if st.literal64 else 4, "little")
        return out

    def _is_scale(self, op: Operand) -> bool:
        """Whether `op` is the scale source of a packed scaled conversion (its row's last source)."""
        if self._form is None or not PACKED_CONVERSION.match(self._mnemonic):
            return False
        srcs = [o for o in self._form.rows[self._variant].operands if o.role == "src"]
        return bool(srcs) and srcs[-1].name == op.name

    def _half(self, op: Operand, tok: _Token, lay: Layout, form: Form, st: _State, src_index: int, variant: str,
              reg: int, hi: bool) -> None:
        """Place the half of a 16-bit VGPR: OPSEL in VOP3 (bit 3 for the destination), bit 7 of the
        register number in VOP1/VOP2/VOPC, which therefore reach v0..v127 (tables.sixteen_bit_operands)."""
        f = lay.fields
        if form.encoding not in E32_ENCODINGS or variant.startswith("_e64"):
            if hi:
                if "OPSEL" not in f:
                    raise _Attempt(tok.col, f"{lay.name} cannot select the high half of a VGPR")
                st.word |= put_bits(f["OPSEL"], 1 << (3 if op.role == "dst" else src_index))
            return
        if reg > 127:
            raise _Attempt(tok.col, f"v{reg}: a 16-bit operand of this encoding reaches v0..v127 only")
        if not hi:
            return
        fname = field_for(op, lay)
        if st.extra_kind and fname == "SRC0":
            st.ext |= 0x80
        elif fname is not None:
            st.word |= put_bits(f[fname], 0x80)

    def _export(self, lay: Layout, st: _State, operands: list[_Token], mods: list[_Token]) -> bytes:
        """`exp mrt0 v4, v3, off, off done` (the comma after the target is optional: exp-pregfx11.s),
        the inverse of decoder._render_export."""
        f = lay.fields
        toks = list(operands)
        if toks and len(toks[0].text.split()) == 2:
            target, first = toks[0].text.split()
            toks[0:1] = [_Token(target, toks[0].col), _Token(first, toks[0].col + len(target) + 1)]
        if len(toks) != 5:
            raise _Attempt(toks[-1].col if toks else 1, f"an export takes a target and 4 sources, got {len(toks)} operands")
        code = export_code(toks[0].text.lower(), self.gen)
        if code is None:
            raise _Attempt(toks[0].col, f"{toks[0].text!r} is not an export target on {self.t.target}")
        st.word |= put_bits(f["TARGET"], code)
        names = {m.text.lower(): m for m in mods}
        flags = dict(EXPORT_MODIFIERS)
        for name, tok in list(names.items()):
            if name.startswith("no") and flags.get(name[2:]) in f:   # nodone / norow_en: the bit left clear
                del names[name]
                continue
            if name not in flags or flags[name] not in f:
                raise _Attempt(tok.col, f"modifier {tok.text!r} is not allowed on an export here")
            st.word |= put_bits(f[flags[name]], 1)
        compr = "compr" in names
        en = 0
        for i, tok in enumerate(toks[1:]):
            if tok.text.lower() == "off":
                continue
            reg = _reg(tok.text.lower(), tok)
            if reg is None or reg[0] != "v" or reg[2] != 1:
                raise _Attempt(tok.col, "an export source is a VGPR or off")
            en |= 1 << i
            field = f"VSRC{i // 2 if compr else i}"
            if compr and i % 2 and get_bits(st.word, f[field]) != reg[1]:
                raise _Attempt(tok.col, "compressed exports give each pair one VGPR")
            st.word |= put_bits(f[field], reg[1])
        st.word |= put_bits(f["EN"], en)
        return st.word.to_bytes(lay.width // 8, "little")

    def _defaults(self, lay: Layout, form: Form, st: _State) -> None:
        f = lay.fields
        if self.gen >= 10 and form.encoding in ("VOP3", "VOP3SD", "VOP3P", "VOP3A", "VOP3B"):
            # LLVM fills source fields an instruction does not use with inline constant 0 (code 128)
            used = {field_for(o, lay) for o in form.rows[next(iter(form.rows))].operands}
            vopc = form.base.startswith("v_cmpx_")
            for src in ("SRC1", "SRC2"):
                # with DPP only v_cmpx's e64 form keeps the filler (gfx12_asm_vop3cx_dpp16-fake16.s:1350;
                # v_cmp's does not: gfx12_asm_vop3c_dpp16-fake16.s:4521)
                if src in f and src not in used and (not st.extra_kind or vopc):
                    st.word |= put_bits(f[src], 128)
        for prefix, enc_names, field, value, min_gen, _source in FIELD_DEFAULTS:
            if form.base.startswith(prefix) and form.encoding in enc_names and field in f and self.gen >= min_gen:
                st.word |= put_bits(f[field], value)
        if form.encoding == "VOP3P" and not any(o.name in ("m_op_sel_hi", "matrix_b_fmt", "matrix_b_scale")
                                                for r in form.rows.values()
                                                for o in r.operands):
            # op_sel_hi defaults to all ones (AMDGPUModifierSyntax.rst:1917); mix instructions take
            # m_op_sel_hi, whose default is 0 (AMDGPUModifierSyntax.rst:2074)
            if "OPSEL_HI" in f:
                st.word |= put_bits(f["OPSEL_HI"], (1 << sum(h - lo + 1 for h, lo in f["OPSEL_HI"])) - 1)
            if "OPSEL_HI2" in f and not (self.t.target in MATRIX_SRC2_HI_CLEAR and
                                         form.base.startswith(("v_wmma_", "v_swmmac_"))):
                st.word |= put_bits(f["OPSEL_HI2"], 1)
        if form.base.startswith("tbuffer_"):     # the default format (AMDGPUModifierSyntax.rst, format / ufmt)
            field = "FORMAT" if "FORMAT" in f else "DFMT"
            if field in f:
                st.word |= put_bits(f[field], formats.DFMT_DEFAULT if self.gen < 10 else formats.UFMT_DEFAULT)
        if "SADDR" in f and form.encoding in ("FLAT", "VFLAT") and self.gen >= 10 and self._variant != SADDR_VARIANT:
            st.word |= put_bits(f["SADDR"], 0x7C if self.gen >= 11 else 0x7D)

    def _operand(self, op: Operand, tok: _Token, lay: Layout, form: Form, st: _State, src_index: int,
                 is_float: bool, variant: str) -> None:
        text = tok.text
        low = text.lower()
        f = lay.fields
        gen = self.gen
        if op.name == "vcc" and op.role == "dst" and "SDST" in f and lay.encoding in ("VOP3B", "VOP3SD"):
            try:
                code = ops.scalar_code(low, 2 if self.t.wave64 else 1, gen)
            except OperandError as exc:
                raise _Attempt(tok.col, str(exc)) from None
            if code is None:
                raise _Attempt(tok.col, f"{text!r} is not a scalar register for the carry-out")
            st.word |= put_bits(f["SDST"], code)
            return
        if op.name == "vcc":
            want = ("vcc",) if self.t.wave64 else ("vcc_lo", "vcc")
            if low not in want:
                raise _Attempt(tok.col, f"operand must be {want[0]} in this encoding")
            return
        if st.extra_kind == "sdwa" and op.name == "sdst":
            if low in ("vcc", "vcc_lo") and (low == "vcc") == self.t.wave64:
                return
            try:
                code = ops.scalar_code(low, op.dwords, gen)
            except OperandError as exc:
                raise _Attempt(tok.col, str(exc)) from None
            if code is None:
                raise _Attempt(tok.col, f"{text!r} is not a scalar register sdst accepts")
            st.ext |= (code << 8) | (1 << 15)
            return
        if op.name == "exec" and op.role == "dst":
            if low not in ("exec", "exec_lo"):
                raise _Attempt(tok.col, "the destination of v_cmpx is exec")
            return
        fname = field_for(op, lay)
        if op.name == "attr" and "ATTR" in f and "ATTR_CHAN" in f:
            m = _ATTR.match(low)
            if m is None:
                raise _Attempt(tok.col, f"{text!r} is not an attribute (attr0.x .. attr63.w)")
            st.word |= put_bits(f["ATTR"], int(m.group(1))) | put_bits(f["ATTR_CHAN"], ATTR_CHANNELS.index(m.group(2)))
            return
        if form.encoding in image.IMAGE_ENCODINGS and (op.name in ("vaddr", "addr") or fname == "VDATA"):
            self._image_operand(op, tok, lay, fname, st)
            return
        neg = abs_ = False
        if st.extra_kind == "sdwa" and 0 <= src_index < 2 and low.startswith("sext(") and low.endswith(")"):
            low = low[5:-1].strip()              # SRC0_SEXT / SRC1_SEXT bits of the SDWA dword
            st.ext |= 1 << (19 + 8 * src_index)
        if op.modifiers or op.role == "src":
            low, neg, abs_ = _strip_neg_abs(low)
            if (neg or abs_) and not op.modifiers:
                raise _Attempt(tok.col, f"neg/abs modifiers are not allowed on {op.name} here")
        if neg or abs_:
            self._set_neg_abs(lay, st, src_index, neg, abs_, variant, tok)
        if st.extra_kind and fname == "SRC0":
            reg = _reg(low, tok)
            if st.extra_kind == "sdwa" and (reg is None or reg[0] != "v"):
                code = self._source_code(op, low, tok, is_float, allow_literal=False)
                st.ext |= code & 0xFF | (1 << 23)
                return
            if reg is None or reg[0] != "v":
                raise _Attempt(tok.col, f"{op.name} must be a VGPR in the DPP/SDWA form")
            if "v" not in op.accepts and "v16" in op.accepts and reg[1] > 127:
                raise _Attempt(tok.col, f"{low}: a 16-bit operand of this encoding reaches v0..v127 only")
            st.ext |= reg[1] & 0xFF
            return
        if fname is None and op.name in K_OPERANDS and form.base in LITERAL64_K and self.t.target in LITERAL64_TARGETS:
            v = _value64(low, True)   # v_fmaak_f64's K: a float64, 64 bits after the word (gfx1250_asm_vop2.s:595)
            if v is None:
                raise _Attempt(tok.col, f"{text!r} is not a constant")
            self._literal64(v, tok)
            return
        if fname is None and op.name in K_OPERANDS:   # fmaak / madmk: the constant K is the literal dword
            bits, _bf16 = _operand_bits(op, self._mnemonic)
            try:
                v = ops.parse_int(low)
                v = ops.literal_value(low, bits, is_float) if v is None else v & 0xFFFFFFFF
            except OperandError as exc:
                raise _Attempt(tok.col, str(exc)) from None
            if v is None:
                raise _Attempt(tok.col, f"{text!r} is not a constant")
            self._literal(v, tok)
            return
        if fname is None:
            if op.name == "off" and low == "off":
                return
            raise _Attempt(tok.col, f"operand {op.name} has no field in {lay.name}")
        if fname == "SIMM16":
            v = ops.parse_int(low)
            if v is None and op.name == "hwreg":
                try:
                    v = hwreg_value(low, self.t.target)
                except ValueError as exc:
                    raise _Attempt(tok.col, str(exc)) from None
            if v is None and op.name == "waitcnt" and op.page:
                try:
                    v = waitcnt.from_text(waitcnt.fields_of(docs_dir(), op.page), low)
                except (OSError, ValueError) as exc:
                    raise _Attempt(tok.col, str(exc)) from None
            if v is None and is_delay(op.name, op.page) and op.page:
                try:
                    v = waitcnt.delay_from_text(waitcnt.delay_fields_of(docs_dir(), op.page), low)
                except (OSError, ValueError) as exc:
                    raise _Attempt(tok.col, str(exc)) from None
            if v is None and op.name == "waitcnt_depctr" and op.page:
                try:
                    v = waitcnt.depctr_from_text(waitcnt.depctr_fields_of(docs_dir(), op.page), low)
                except (OSError, ValueError) as exc:
                    raise _Attempt(tok.col, str(exc)) from None
            if v is None:
                raise _Attempt(tok.col, f"{op.name} must be an integer here (symbolic forms are not supported yet)")
            if not -0x8000 <= v <= 0xFFFF:
                raise _Attempt(tok.col, f"{text} does not fit in 16 bits")
            st.word |= put_bits(f[fname], v & 0xFFFF)
            return
        if low == "off" and ("off" in op.accepts or (fname in ("VADDR", "ADDR") and ("OFFEN" in f or "SVE" in f))
                             or (fname == "SADDR" and lay.encoding in GLOBAL_ENCODINGS)):
            if fname == "SADDR":
                code = 0x7C if gen >= 11 else 0x7D if gen == 10 else 0x7F
                if lay.fixed.get("SEG") == 1 and gen == 10 and not st.scratch_vaddr:
                    code = 0x7F     # gfx10 scratch with no address at all: ST mode
                st.word |= put_bits(f[fname], code)
            return
        if is_mai(lay) and fname in ("VDST", "SRC0", "SRC1", "SRC2") and "a" in op.accepts and \
                low.startswith("a"):
            reg = _reg(low, tok)
            if reg is not None and reg[0] == "a":   # an AGPR: ACC (A, B) or ACC_CD (C, D) bits (cdna2 VOP3P-MAI)
                if reg[2] != op.dwords:
                    raise _Attempt(tok.col, f"{text} is {reg[2]} dword(s), {op.name} takes {op.dwords}")
                st.word |= put_bits(f[fname], reg[1] + (0 if fname == "VDST" else 256))
                st.word |= put_bits(f["ACC_CD"], 1) if fname in ("VDST", "SRC2") else \
                    put_bits(f["ACC"], 1 << (fname == "SRC1"))
                return
        lit64 = fname in SOURCE_FIELDS and self.t.target in LITERAL64_TARGETS and \
            form.encoding in LITERAL64_ENCODINGS and not st.extra_kind and (fname == "SRC0" or form.encoding[0] == "S")
        if fname in SOURCE_FIELDS and _width(lay, fname) == 9:
            code = self._source_code(op, low, tok, is_float, lit64=lit64)
            st.word |= put_bits(f[fname], code)
            return
        if op.accepts and set(op.accepts) <= INTEGER_KINDS and (v := ops.parse_int(low)) is not None:
            # an integer in a register field: s_atc_probe's mask, "truncated to 7 bits" (gfx10_probe.rst)
            st.word |= put_bits(f[fname], v & ((1 << _width(lay, fname)) - 1))
            return
        reg = _reg(low, tok)
        if reg is not None and reg[0] == "a" and "ACC" in f and (fname in ACC_FIELDS or op.name == "gws_data"):
            if reg[2] != op.dwords:
                raise _Attempt(tok.col, f"{text} is {reg[2]} dword(s), {op.name} takes {op.dwords}")
            st.word |= put_bits(f[fname], reg[1]) | put_bits(f["ACC"], 1)
            return
        if reg is not None and reg[0] == "v":
            _, first, n = reg
            if "v" not in op.accepts and "v16" not in op.accepts:
                raise _Attempt(tok.col, f"{op.name} does not take a VGPR")
            if "v" not in op.accepts and first > 127:
                raise _Attempt(tok.col, f"{text}: a 16-bit operand of this encoding reaches v0..v127 only")
            if fname in ("VADDR", "ADDR") and (op.size_text.startswith(("1 or 2", "0, 1 or 2")) or (
                    ((lay.encoding in ("GLOBAL", "VGLOBAL") and gen >= 12) or "IDXEN" in f) and n in (1, 2))):
                pass
            elif n != op.dwords:
                raise _Attempt(tok.col, f"{text} is {n} dword(s), {op.name} takes {op.dwords}")
            if first > 127 and self._lo128(op):
                raise _Attempt(tok.col, f"{text}: a 16-bit operand of this encoding reaches v0..v127 only")
            st.word |= put_bits(f[fname], first)
            if fname in ("ADDR", "VADDR") and lay.encoding == "VSCRATCH" and "SVE" in f:
                st.word |= put_bits(f["SVE"], 1)   # gfx12 scratch with a VGPR address (gfx12_asm_vflat.s:2060)
            if fname == "ADDR" and lay.fixed.get("SEG") == 1:
                st.scratch_vaddr = True
                if "SVE" in f:
                    st.word |= put_bits(f["SVE"], 1)   # scratch with a VGPR address sets SVE (rdna3 manual, SCRATCH)
                elif self.t.target in SVE_BIT13_TARGETS:
                    st.word |= 1 << 13
            return
        if (fname in ("VDST", "VSRC1", "ADDR", "VADDR", "DATA", "DATA0", "DATA1", "VDATA") and "s" not in op.accepts) or \
                (fname in ("VSRC1", "VSRC2") and op.name != "vopd3_select"):   # 8-bit VGPR fields (VOP2, VOPD3)
            raise _Attempt(tok.col, f"{op.name} must be a VGPR")
        if fname in SOURCE_FIELDS:   # 8-bit scalar source
            code = self._source_code(op, low, tok, is_float, scalar=True, lit64=lit64)
            st.word |= put_bits(f[fname], code)
            return
        try:
            code = ops.scalar_code(low, op.dwords, gen)
        except OperandError as exc:
            raise _Attempt(tok.col, str(exc)) from None
        if code is None:
            if fname == "SOFFSET" and form.encoding == "SMEM" and ops.parse_int(low) is not None:
                st.smem_imm = ops.parse_int(low)
                return
            if fname in ("SOFFSET",):
                c = ops.inline_code(low, 32, False)
                if c is not None:
                    st.word |= put_bits(f[fname], c)
                    return
            raise _Attempt(tok.col, f"{text!r} is not a scalar register {op.name} accepts")
        if fname == "SOFFSET" and form.encoding == "SMEM":
            st.smem_reg = code
            return
        scale = scale_of(fname, lay)
        if code % scale and code < 106:
            raise _Attempt(tok.col, f"{text} must start at a multiple of {scale}")
        st.word |= put_bits(f[fname], code // scale)

    def _lo128(self, op: Operand) -> bool:
        """A 16-bit operand of a VOP1/VOP2/VOPC instruction reaches v0..v127 only; llvm-mc takes the
        VOP3 form for a higher VGPR (gfx11_asm_vop2_fake16_promote.s:5,14: v_add_f16 v255 / v255 -> e64).
        Which operands are 16-bit: tables.sixteen_bit_operands."""
        form = self._form
        return form is not None and self.gen >= 11 and form.encoding in E32_ENCODINGS and \
            op.name in sixteen_bit_operands(self.t, form, self._variant)

    def _image_operand(self, op: Operand, tok: _Token, lay: Layout, fname: str | None, st: _State) -> None:
        """An image's vdata or vaddr: registers noted, sizes checked once dmask/dim/a16 are known."""
        f = lay.fields
        low = tok.text.lower().strip()
        if fname == "VDATA":
            reg = _reg(low, tok)
            if reg is None or reg[0] not in ("v", "a") or (reg[0] == "a" and "ACC" not in f):
                raise _Attempt(tok.col, f"{op.name} must be a VGPR")
            st.word |= put_bits(f["VDATA"], reg[1]) | (put_bits(f["ACC"], 1) if reg[0] == "a" else 0)
            st.img_data = (reg[2], tok)
            return
        items = [x.strip() for x in low[1:-1].split(",")] if low.startswith("[") and low.endswith("]") else [low]
        regs = []
        for x in items:
            reg = _reg(x, tok)
            if reg is None or reg[0] != "v":
                raise _Attempt(tok.col, f"{op.name} must be VGPRs")
            regs.append((reg[1], reg[2]))
        st.img_addr = (regs, low.startswith("["), tok)

    def _image(self, lay: Layout, form: Form, st: _State) -> None:
        """Check vdata / vaddr sizes against dmask, tfe, d16, dim, a16 and place NSA addresses."""
        f = lay.fields

        def bit(name: str) -> int:
            return get_bits(st.word, f[name]) if name in f else 0

        gen = self.gen
        if image.args_of(form.base).bvh:
            for name, value in image.BVH_SET_FIELDS:
                if name in f:
                    st.word |= put_bits(f[name], value)
        if st.img_data is not None:
            want = image.data_dwords(form.base, gen, bit("DMASK"), bool(bit("TFE")), bool(bit("D16")))
            n, tok = st.img_data
            if n != want:
                raise _Attempt(tok.col, f"image data is {n} dword(s); dmask, tfe and d16 give {want}")
        if st.img_addr is None:
            return
        regs, listed, tok = st.img_addr
        addr = image.address_dwords(form.base, gen, bit("DIM"), bool(bit("A16")))
        if gen < 10:     # no dim: any address tuple (gfx9_asm_mimg.s takes v1 .. v[1:4])
            if listed:
                raise _Attempt(tok.col, f"{self.t.target} has no NSA image addresses")
            st.word |= put_bits(f["VADDR"], regs[0][0])
            return
        nsa_form = form.encoding in ("VIMAGE", "VSAMPLE") or (listed and len(regs) > 1)
        if not nsa_form:
            n = regs[0][1]
            want = image.non_nsa_dwords(addr)
            if n != want and not (n == 8 and 5 <= want <= 7):
                raise _Attempt(tok.col, f"image address is {n} dword(s); dim and a16 give {want}")
            st.word |= put_bits(f["VADDR"], regs[0][0])
            return
        sizes = image.nsa_sizes(form.base, addr, gen, form.encoding)
        slots = len(sizes)
        if [n for _r, n in regs] != sizes:
            shown = ", ".join(f"{n}" for n in sizes)
            raise _Attempt(tok.col, f"image address takes {slots} operand(s) of {shown} VGPR(s) (dim and a16 give {addr})")
        if form.encoding in ("VIMAGE", "VSAMPLE"):
            for i, (r, _n) in enumerate(regs):
                st.word |= put_bits(f[f"VADDR{i}"], r)
            return
        extra = (slots + 2) // 4
        st.word |= put_bits(f["VADDR"], regs[0][0]) | put_bits(f["NSA"], extra if gen == 10 else 1)
        tail = sum(r << (8 * i) for i, (r, _n) in enumerate(regs[1:]))
        st.tail = tail.to_bytes(4 * extra, "little")

    def _smem(self, lay: Layout, st: _State, tok: _Token | None, row: Row) -> None:
        """Place SMEM's register / immediate offsets (SMEM rules in codec/syntax.py). An instruction
        without an address leaves SOFFSET clear (gfx10_asm_smem.s:1175 `s_memtime s[100:101]` ends in
        0x00,0x00,0x00,0x00)."""
        f = lay.fields
        field = "OFFSET" if "OFFSET" in f else "IOFFSET"
        imm = st.smem_off if st.smem_imm is None else st.smem_imm
        if st.smem_imm is not None and st.smem_off is not None:
            raise _Attempt(tok.col if tok else 1, "two immediate offsets")
        if imm is not None and field in f:
            w = _width(lay, field)
            if not -(1 << (w - 1)) <= imm < (1 << w):
                raise _Attempt(tok.col if tok else 1, f"offset {imm} does not fit in {w} bits")
            st.word |= put_bits(f[field], imm & ((1 << w) - 1))
        if self.gen == 9:
            if st.smem_reg is not None and imm is None:
                st.word |= put_bits(f[field], st.smem_reg)
            elif st.smem_reg is not None:
                st.word |= put_bits(f["IMM"], 1) | put_bits(f["SOE"], 1) | put_bits(f["SOFFSET"], st.smem_reg)
            elif imm is not None:
                st.word |= put_bits(f["IMM"], 1)
            return
        if "SOFFSET" in f and (st.smem_reg is not None or any(o.name in ("sbase", "soffset") for o in row.operands)):
            st.word |= put_bits(f["SOFFSET"], NULL_CODE[self.gen] if st.smem_reg is None else st.smem_reg)

    def _source_code(self, op: Operand, low: str, tok: _Token, is_float: bool, scalar: bool = False,
                     allow_literal: bool = True, lit64: bool = False) -> int:
        gen = self.gen
        reg = _reg(low, tok)
        if reg is not None and reg[0] == "v":
            if scalar:
                raise _Attempt(tok.col, f"{op.name} does not take a VGPR")
            if reg[1] > 127 and (("v" not in op.accepts and "v16" in op.accepts) or self._lo128(op)):
                raise _Attempt(tok.col, f"{low}: a 16-bit operand of this encoding reaches v0..v127 only")
            if reg[2] != op.dwords:
                raise _Attempt(tok.col, f"{low} is {reg[2]} dword(s), {op.name} takes {op.dwords}")
            return 256 + reg[1]
        if op.accepts and set(op.accepts) <= {"v", "v16"}:
            # a source the row gives VGPRs only, though its field could name more (gfx11_asm_err.s:56: gfx1100
            # refuses v_add3_u32_e64_dpp v5, v1, s2, v3; its page's vsrc1 is a VGPR)
            raise _Attempt(tok.col, f"{op.name} must be a VGPR")
        try:
            code = ops.scalar_code(low, op.dwords, gen)
        except OperandError as exc:
            raise _Attempt(tok.col, str(exc)) from None
        if code is not None:
            return code
        if lit64 and low.startswith("lit64(") and low.endswith(")"):
            value = _value64(low[6:-1].strip(), False)   # lit64(0x7b) is 0x7b (gfx1250_asm_valu_lit64.s:256)
            if value is None:
                raise _Attempt(tok.col, f"{low!r} is not a number")
            return self._literal64(value, tok)
        bits, bf16 = _operand_bits(op, self._mnemonic, self._is_scale(op))
        if lit64 and op.dwords == 2 and ops.inline_code(low, bits, is_float) is None:
            value = _value64(low, is_float)
            # a 32-bit literal stands for a float64's high dword and an integer sign-extended (gfx12_asm_sop1.s:863
            # `s_mov_b64 s[0:1], 0xaf123456` is a 64-bit literal on gfx1250); other values take 64 bits
            if value is not None and not _fits_literal32(value, is_float):
                return self._literal64(value, tok)
        if low.startswith("lit(") and low.endswith(")"):
            inner = low[4:-1]
            value = ops.literal_value(inner, bits, is_float)
            if value is None:
                raise _Attempt(tok.col, f"{low!r} is not a number")
            return self._literal(value, tok)
        c = ops.inline_code(low, 32 if bf16 else bits, is_float)
        if c is not None:
            return c
        if bf16 and (ops.parse_int(low) == 0x3E22 or ops.parse_float(low) == 0.158203125):
            return 248     # 1/(2*pi) as bf16 (the f32 pattern's top half)
        try:
            value = ops.literal_value(low, 32 if bf16 and ops.parse_int(low) is None else bits, is_float)
            if bf16 and value is not None and ops.parse_int(low) is None:
                value = ops.bf16_bits(ops.parse_float(low))   # rounded, not truncated (operands.bf16_bits)
        except OperandError as exc:
            raise _Attempt(tok.col, str(exc)) from None
        if value is None:
            raise _Attempt(tok.col, f"{low!r} is not a register, constant or literal {op.name} accepts")
        if not allow_literal or ("literal" not in op.accepts and "simm32" not in op.accepts and op.accepts):
            raise _Attempt(tok.col, f"literal constants are not allowed for {op.name} here")
        return self._literal(value, tok)

    def _literal64(self, value: int, tok: _Token) -> int:
        st = self._st
        if st.literal is not None and (st.literal != value or not st.literal64):
            raise _Attempt(tok.col, "only one literal constant per instruction")
        st.literal, st.literal64 = value, True
        return LITERAL64

    def _literal(self, value: int, tok: _Token) -> int:
        st = self._st
        if st.literal is not None and st.literal != value:
            raise _Attempt(tok.col, "only one literal constant per instruction")
        st.literal = value
        return LITERAL

    def _set_neg_abs(self, lay: Layout, st: _State, idx: int, neg: bool, abs_: bool, variant: str,
                     tok: _Token) -> None:
        f = lay.fields
        if st.extra_kind == "dpp16" and "NEG" not in f:
            st.ext |= (neg << (20 + 2 * idx)) | (abs_ << (21 + 2 * idx))
            return
        if st.extra_kind == "sdwa":
            st.ext |= (neg << (20 + 8 * idx)) | (abs_ << (21 + 8 * idx))
            return
        if neg:
            if "NEG" not in f:
                raise _Attempt(tok.col, "neg is not allowed in this encoding")
            st.word |= put_bits(f["NEG"], 1 << idx) if idx < 3 else 0
        if abs_:
            field = "ABS" if "ABS" in f else "NEG_HI" if "NEG_HI" in f and "_mix" in self._mnemonic else None
            if field is None:     # mix: NEG_HI holds abs (gfx12_asm_vop3p.s `v_fma_mix_f32 v255, -|src_scc|, ..`)
                raise _Attempt(tok.col, "abs is not allowed in this encoding")
            st.word |= put_bits(f[field], 1 << idx) if idx < 3 else 0

    def _modifier(self, m: _Token, allowed: set[str], lay: Layout, form: Form, st: _State, row: Row) -> None:
        f = lay.fields
        name, _, value = m.text.partition(":")
        name = name.lower()

        def need(mod: str) -> None:
            if not any(a == mod or a.startswith(mod) for a in allowed):
                raise _Attempt(m.col, f"modifier {name} is not allowed on {form.base}")

        def set_field(field: str, v: int) -> None:
            if field not in f:
                raise _Attempt(m.col, f"modifier {name} has no field in {lay.name}")
            w = _width(lay, field)
            if not 0 <= v < (1 << w):
                raise _Attempt(m.col, f"{m.text}: value does not fit in {w} bits")
            st.word |= put_bits(f[field], v)

        def num(text: str) -> int:
            v = ops.parse_int(text)
            if v is None:
                raise _Attempt(m.col, f"{m.text}: {text!r} is not an integer")
            return v

        def arr(text: str) -> list[int]:
            if not (text.startswith("[") and text.endswith("]")):
                raise _Attempt(m.col, f"{m.text}: expected [..]")
            return [num(x) for x in text[1:-1].split(",") if x.strip()]

        if form.base in OP_SEL_IS_DPP and not st.extra_kind and name in OP_SEL_DPP_BITS and "OPSEL" in f:
            need(name)   # VOP3's OPSEL holds them; bound_ctrl:0 sets the bit as well (syntax.OP_SEL_IS_DPP)
            if name == "bound_ctrl" or num(value):
                st.word |= put_bits(f["OPSEL"], 1 << OP_SEL_DPP_BITS[name])
            return
        if st.extra_kind in ("dpp16", "dpp8") and self._dpp_modifier(name, value, m, st, num, arr):
            return
        if st.extra_kind == "sdwa" and self._sdwa_modifier(name, value, m, st):
            return
        if name == "clamp":
            if st.extra_kind == "sdwa" and "CLAMP" not in f:
                st.ext |= 1 << 13
                return
            need("clamp")
            set_field("CLAMP", 1)
        elif name in ("mul", "div"):
            need("omod")
            code = {v: k for k, v in OMOD.items()}.get(m.text.lower())
            if code is None:
                raise _Attempt(m.col, f"{m.text}: output modifier must be mul:2, mul:4 or div:2")
            if st.extra_kind == "sdwa" and "OMOD" not in f:
                st.ext |= code << 14
                return
            set_field("OMOD", code)
        elif name == "offset" and value and form.encoding == "SMEM":
            st.smem_off = num(value)
        elif name == "th" and value and "TH" in f:
            from gpuisa.codec.decoder import _cache_kind

            code = th_code(value, _cache_kind(form.base))
            if code is None:
                raise _Attempt(m.col, f"{m.text}: not a cache policy for this {_cache_kind(form.base)}")
            set_field("TH", code)
        elif name == "scope" and value and "SCOPE" in f:
            if value.upper() not in SCOPES:
                raise _Attempt(m.col, f"{m.text}: scope is one of {', '.join(SCOPES)}")
            set_field("SCOPE", SCOPES.index(value.upper()))
        elif name in ("offset", "offset0", "offset1") and value and "OFFSET" not in f and "IOFFSET" in f:
            v = num(value)
            w = _width(lay, "IOFFSET")
            signed = form.encoding != "VBUFFER"
            lo, hi = (-(1 << (w - 1)), (1 << (w - 1)) - 1) if signed else (0, (1 << w) - 1)
            if not lo <= v <= hi:
                raise _Attempt(m.col, f"{m.text}: offset must be {lo}..{hi}")
            set_field("IOFFSET", v & ((1 << w) - 1))
        elif name in ("offset", "offset0", "offset1") and value:
            v = num(value)
            if name == "offset" and "OFFSET1" in f:
                if not 0 <= v <= 0xFFFF:
                    raise _Attempt(m.col, f"{m.text}: offset must be 0..65535")
                set_field("OFFSET0", v & 0xFF)
                set_field("OFFSET1", v >> 8)
            elif name == "offset":
                if "OFFSET" not in f:
                    raise _Attempt(m.col, f"{lay.name} has no OFFSET field in the catalog")
                w = _width(lay, "OFFSET")
                signed = any(o.name.startswith("offset") and o.name.endswith("s") for o in row.operands) or \
                    (form.encoding in ("GLOBAL", "SCRATCH", "VGLOBAL", "VSCRATCH", "VFLAT") and self.gen >= 10) or \
                    (form.encoding == "FLAT" and self.gen >= 12)
                lo, hi = (-(1 << (w - 1)), (1 << (w - 1)) - 1) if signed else (0, (1 << w) - 1)
                if not lo <= v <= hi:
                    raise _Attempt(m.col, f"{m.text}: offset must be {lo}..{hi}")
                set_field("OFFSET", v & ((1 << w) - 1))
            else:
                set_field(name.upper(), v)
        elif name in ("op_sel", "op_sel_hi", "neg_lo", "neg_hi"):
            if name == "op_sel_hi" and "m_op_sel_hi" in allowed:
                name = "m_op_sel_hi"
            elif name == "op_sel" and "m_op_sel" in allowed:
                name = "m_op_sel"
            need(name)
            name = name.removeprefix("m_")
            vals = arr(value)
            bits = sum(b << i for i, b in enumerate(vals))
            if name == "op_sel":
                sel = byte_sel_bits(form.base, self.gen)
                if sel is not None and sel[0] == 3:
                    # a destination byte select holds OPSEL[3:2]: op_sel's entries are the sources' (src0, src1 and
                    # the tied vdst_in, whose bit is byte_sel's: gfx1250_asm_vop3-fake16.s `op_sel:[1,0,0] byte_sel:1`)
                    if any(vals[2:]):
                        raise _Attempt(m.col, f"{m.text}: OPSEL[3:2] hold byte_sel on {form.base}")
                    bits = sum(b << i for i, b in enumerate(vals[:2]))
                elif not form.encoding.startswith("VOP3P") and vals and op_sel_has_dst(row, form.base, self._variant):
                    # the last entry is the VGPR destination's, OPSEL bit 3 (decoder.py, op_sel)
                    bits = sum(b << i for i, b in enumerate(vals[:-1])) | (vals[-1] << 3)
                set_field("OPSEL", bits)
            elif name == "op_sel_hi":
                # only the sources given change; a 2-source op_sel_hi:[0,0] keeps src2's default 1
                # (gfx9_asm_vop3p.s:821: 0x40 in byte 1)
                given = (1 << len(vals)) - 1
                hi = get_bits(st.word, f["OPSEL_HI"]) | (get_bits(st.word, f["OPSEL_HI2"]) << 2 if "OPSEL_HI2" in f else 0)
                hi = (hi & ~given) | (bits & given)
                st.word &= ~(put_bits(f["OPSEL_HI"], -1) | put_bits(f.get("OPSEL_HI2", ()), -1))
                st.word |= put_bits(f["OPSEL_HI"], hi & 3)
                if "OPSEL_HI2" in f:
                    st.word |= put_bits(f["OPSEL_HI2"], (hi >> 2) & 1)
            else:
                set_field("NEG" if name == "neg_lo" else "NEG_HI", bits)
        elif name == "bitop3" and value:   # the truth table over OMOD, ABS and NEG (BITOP3_FIELDS)
            need("bitop3")
            v = num(value)
            if not 0 <= v <= 0xFF:
                raise _Attempt(m.col, f"{m.text}: the truth table is 8 bits (0..255)")
            if lay.encoding.startswith("VOPD3"):   # the half's third-source field (syntax.BITOP3_VOPD3_FIELD)
                set_field(BITOP3_VOPD3_FIELD, v)
                return
            for field, shift in BITOP3_FIELDS:
                set_field(field, (v >> shift) & ((1 << _width(lay, field)) - 1))
        elif name in ALWAYS_PRINTED and value and ALWAYS_PRINTED[name] in f:
            set_field(ALWAYS_PRINTED[name], num(value))
        elif name == "clamp" and not value and "CLMP" in f:
            set_field("CLMP", 1)
        elif name in MATRIX_REUSE and not value:   # gfx1250's reuse hints (syntax.MATRIX_REUSE)
            need(name)
            where = reuse_bit(name, f)
            if where is None:
                raise _Attempt(m.col, f"modifier {name} has no field in {lay.name}")
            st.word |= put_bits(f[where[0]], 1 << where[1])
        elif name in MATRIX_FIELD_MODIFIERS and value:   # gfx1250's WMMA formats and scales
            need(name)
            names = MATRIX_MODIFIER_NAMES[name]
            v = names.index(value.upper()) if value.upper() in names else num(value)
            pieces = matrix_pieces(name, f)
            if not pieces or not 0 <= v < (1 << sum(n for _, _, n in pieces)):
                raise _Attempt(m.col, f"{m.text}: not a value {lay.name} holds")
            for fld, at, n in pieces:
                st.word &= ~put_bits(f[fld], ((1 << n) - 1))
                st.word |= put_bits(f[fld], (v >> at) & ((1 << n) - 1))
        elif name == "byte_sel" and value and "OPSEL" in f and (sel := byte_sel_bits(form.base, self.gen)) is not None:
            need("byte_sel")
            v = num(value)
            if not 0 <= v <= 3:
                raise _Attempt(m.col, f"{m.text}: byte_sel is 0..3")
            st.word |= put_bits(f["OPSEL"], (((v >> 1) & 1) << sel[0]) | ((v & 1) << sel[1]))   # syntax.BYTE_SEL
        elif name in ("index_key", "scale_sel") and value and "OPSEL" in f:   # the whole OPSEL field (decoder.py)
            need(name)
            set_field("OPSEL", num(value))
        elif name in ("cbsz", "abid", "blgp") and value and name.upper() in f:
            need(name)
            set_field(name.upper(), num(value))
        elif name == "neg" and value and "NEG" not in f and "BLGP" in f:
            need("neg")
            set_field("BLGP", sum(b << i for i, b in enumerate(arr(value))))
        elif name == "format" and value and form.base.startswith("tbuffer_"):
            field = "FORMAT" if "FORMAT" in f else "DFMT"
            try:
                fmt, nfmt = formats.parse_format(formats.names_for(docs_dir(), self.gen), self.gen, value)
            except ValueError as exc:
                raise _Attempt(m.col, f"{m.text}: {exc}") from None
            st.word &= ~put_bits(f[field], -1)
            set_field(field, fmt)
            if self.gen < 10 and "NFMT" in f:
                st.word &= ~put_bits(f["NFMT"], -1)
                set_field("NFMT", nfmt)
        elif name in ("dfmt", "nfmt") and value and form.base.startswith("tbuffer_"):
            names = formats.names_for(docs_dir(), self.gen)
            v = num(value)
            if self.gen < 10:
                field = "DFMT" if name == "dfmt" else "NFMT"
                st.word &= ~put_bits(f[field], -1)
                set_field(field, v)
            else:   # the unified format equivalent to the data / numeric pair (AMDGPUModifierSyntax.rst, ufmt)
                field = "FORMAT" if "FORMAT" in f else "DFMT"
                st.fmt_pair = (v, st.fmt_pair[1]) if name == "dfmt" else (st.fmt_pair[0], v)
                try:
                    code, _ = formats.parse_format(names, self.gen, "[" + ",".join(
                        (names.dfmt[st.fmt_pair[0]], names.nfmt[st.fmt_pair[1]])) + "]")
                except (ValueError, IndexError):
                    raise _Attempt(m.col, f"{m.text}: no unified format for this data/numeric pair") from None
                st.word &= ~put_bits(f[field], -1)
                set_field(field, code)
        elif name == "dmask" and value and "DMASK" in f:
            set_field("DMASK", num(value))
        elif name == "dim" and value and "DIM" in f:
            code = image.DIM_CODES.get(value.upper())
            if code is None:
                raise _Attempt(m.col, f"{m.text}: not a dimension (1D, 2D, 3D, CUBE, 1D_ARRAY, 2D_ARRAY, 2D_MSAA, "
                                      "2D_MSAA_ARRAY)")
            set_field("DIM", code)
        elif name == "unorm" and not value and "UNRM" in f and name in allowed:
            set_field("UNRM", 1)
        elif not value and name.upper() in f and name in allowed:
            set_field(name.upper(), 1)
        elif not value and name.startswith("no") and name[2:] in allowed and name[2:].upper() in f:
            pass   # nosc0, nont, noglc: the bit written as off, its default (gfx942_asm_features.s:11, :27)
        else:
            raise _Attempt(m.col, f"modifier {m.text!r} is not allowed on {form.base} here")

    def _dpp_modifier(self, name, value, m, st, num, arr) -> bool:
        if name == "dpp8":
            sel = arr(value)
            if len(sel) != 8 or any(not 0 <= s <= 7 for s in sel):
                raise _Attempt(m.col, "dpp8 takes eight lane selects 0..7")
            st.ext |= sum(s << (8 + 3 * i) for i, s in enumerate(sel))
            return True
        if name == "fi":
            if num(value):
                if st.extra_kind == "dpp8":
                    st.fi8 = True
                else:
                    st.ext |= 1 << 18
            return True
        if st.extra_kind != "dpp16":
            return False
        ctrl = None
        if name == "quad_perm":
            q = arr(value)
            if len(q) != 4 or any(not 0 <= x <= 3 for x in q):
                raise _Attempt(m.col, "quad_perm takes four lane selects 0..3")
            ctrl = q[0] | q[1] << 2 | q[2] << 4 | q[3] << 6
        elif name in ("row_shl", "row_shr", "row_ror"):
            v = num(value)
            if not 1 <= v <= 15:
                raise _Attempt(m.col, f"{name} takes 1..15")
            ctrl = {"row_shl": 0x100, "row_shr": 0x110, "row_ror": 0x120}[name] + v
        elif name == "row_newbcast" and self.t.target in NEWBCAST_TARGETS:
            v = num(value)
            if not 0 <= v <= 15:
                raise _Attempt(m.col, "row_newbcast takes 0..15")
            ctrl = 0x150 + v
        elif name in ("row_share", "row_xmask") and self.gen >= 10:
            v = num(value)
            if not 0 <= v <= 15:
                raise _Attempt(m.col, f"{name} takes 0..15")
            ctrl = (0x150 if name == "row_share" else 0x160) + v
        elif name == "row_mirror":
            ctrl = 0x140
        elif name == "row_half_mirror":
            ctrl = 0x141
        elif self.gen < 10 and name in ("wave_shl", "wave_rol", "wave_shr", "wave_ror"):
            ctrl = {"wave_shl": 0x130, "wave_rol": 0x134, "wave_shr": 0x138, "wave_ror": 0x13C}[name]
        elif self.gen < 10 and name == "row_bcast":
            ctrl = {15: 0x142, 31: 0x143}.get(num(value))
            if ctrl is None:
                raise _Attempt(m.col, "row_bcast takes 15 or 31")
        elif name in ("row_mask", "bank_mask"):
            v = num(value)
            if not 0 <= v <= 15:
                raise _Attempt(m.col, f"{name} takes 0..15")
            shift = 28 if name == "row_mask" else 24
            st.ext = (st.ext & ~(0xF << shift)) | (v << shift)
            return True
        elif name == "bound_ctrl":
            # gfx11+: the bit as written; before GFX11 bound_ctrl:0 sets it too (AMDGPUModifierSyntax.rst:1523
            # "bound_ctrl:0 has the same meaning as bound_ctrl:1 for older architectures"; gfx10_asm_dpp16.s:73)
            if self.gen < 11 or not value or num(value):
                st.ext |= 1 << 19
            return True
        if ctrl is None:
            return False
        st.ext |= ctrl << 8
        return True

    def _sdwa_modifier(self, name, value, m, st) -> bool:
        sel = {"BYTE_0": 0, "BYTE_1": 1, "BYTE_2": 2, "BYTE_3": 3, "WORD_0": 4, "WORD_1": 5, "DWORD": 6}
        unused = {"UNUSED_PAD": 0, "UNUSED_SEXT": 1, "UNUSED_PRESERVE": 2}
        shifts = {"dst_sel": 8, "src0_sel": 16, "src1_sel": 24}
        if name in shifts:
            v = sel.get(value.upper())
            if v is None:
                raise _Attempt(m.col, f"{name} takes one of {', '.join(sel)}")
            st.ext = (st.ext & ~(7 << shifts[name])) | (v << shifts[name])
            return True
        if name == "dst_unused":
            v = unused.get(value.upper())
            if v is None:
                raise _Attempt(m.col, f"dst_unused takes one of {', '.join(unused)}")
            st.ext = (st.ext & ~(3 << 11)) | (v << 11)
            return True
        return False

class _State:
    """The instruction being built: main word, extra DPP/SDWA dword, literal."""

    def __init__(self, word: int) -> None:
        self.word = word
        self.ext = 0
        self.extra_kind: str | None = None
        self.literal: int | None = None
        self.literal64 = False              # the literal is 64 bits (code 254, syntax.LITERAL64)
        self.fi8 = False
        self.scratch_vaddr = False          # a scratch instruction given a VGPR address
        self.smem_reg: int | None = None    # SMEM soffset register code
        self.smem_imm: int | None = None    # SMEM soffset given as an immediate
        self.smem_off: int | None = None    # SMEM offset:N modifier
        self.img_data: tuple | None = None  # image vdata (dwords, token), checked after the modifiers
        self.img_addr: tuple | None = None  # image vaddr ([(first, dwords)], written as a [..] list, token)
        self.tail = b""                     # NSA address dwords after the instruction word
        self.fmt_pair = (1, 0)              # dfmt:/nfmt: given so far (gfx10+ maps the pair to one format)


_ATTR = re.compile(r"^attr(\d+)\.([xyzw])$")
_HALF = re.compile(r"\b(v(\d+))\.([lh])\b", re.IGNORECASE)    # v1.l / v1.h (real-true16)
_FORMAT_OPERAND = re.compile(r"^\s*(?:format|dfmt|nfmt):", re.IGNORECASE)


def _variant_matches(variant: str, want: str) -> bool:
    is8 = variant.endswith("~dpp8")
    return (want == "dpp8") == is8 and "dpp" in variant


def _width(lay: Layout, field: str) -> int:
    return sum(hi - lo + 1 for hi, lo in lay.fields[field])


_TYPES = re.compile(r"_(bf16|f16|f32|f64|[biu]16|[biu]32|[biu]64)(?=_|$)")


def _value64(text: str, is_float: bool) -> int | None:
    """The 64 bits of a 64-bit literal: an integer as written (two's complement), a float as a float64; an
    integer below 2**32 given to a float64 is its high dword, as a 32-bit literal would be (syntax.LITERAL64)."""
    i = ops.parse_int(text)
    if i is not None:
        if is_float and 0 <= i < (1 << 32):
            return i << 32
        return i & ((1 << 64) - 1) if -(1 << 63) <= i < (1 << 64) else None
    f = ops.parse_float(text)
    return None if f is None else float_bits(f, 64)


def _fits_literal32(value: int, is_float: bool) -> bool:
    """Whether a 32-bit literal gives a 64-bit operand these 64 bits: a float64's high dword (low dword zero), an
    integer sign-extended."""
    if is_float:
        return value & 0xFFFFFFFF == 0
    return value < (1 << 31) or value >= (1 << 64) - (1 << 31)


def _operand_bits(op: Operand, mnemonic: str, scale: bool = False) -> tuple[int, bool]:
    """Bit width of a source's constant and whether it is bf16: from the operand size, else the
    source type LLVM's mnemonic names last (v_cvt_f32_f16 reads f16); a packed conversion's scale is 32 bits
    (`scale`: its profile's last source, F32 / I32: VOP3Instructions.td:1878-1935; gfx1250_asm_vop3.s
    `v_cvt_scalef32_pk8_fp8_bf16 v[10:11], v[20:23], 100.0` has the literal 0x42c80000)."""
    if op.dwords == 2:
        return 64, False
    if scale:
        return 32, False
    if op.type_tag.endswith("x2"):    # a packed pair (v_dot2_f16_f16 src0:f16x2) is one 32-bit value
        return 32, False
    types = _TYPES.findall(mnemonic)
    last = types[-1] if types else "b32"
    if "16 bits" in op.size_text or last.endswith("16"):
        return 16, last == "bf16"
    return 32, False


def _reg(low: str, tok: _Token):
    try:
        return ops.parse_register(low)
    except OperandError as exc:
        raise _Attempt(tok.col, str(exc)) from None


def _strip_neg_abs(text: str) -> tuple[str, bool, bool]:
    neg = abs_ = False
    t = text.strip()
    if t.startswith("neg(") and t.endswith(")"):
        return _strip_neg_abs(t[4:-1])[0], True, _strip_neg_abs(t[4:-1])[2]
    if t.startswith("-") and (t[1:2] == "|" or t[1:2].isalpha() or t[1:5] == "abs("):
        neg, t = True, t[1:].strip()
    if t.startswith("|") and t.endswith("|") and len(t) > 2:
        abs_, t = True, t[1:-1].strip()
    elif t.startswith("abs(") and t.endswith(")"):
        abs_, t = True, t[4:-1].strip()
    return t, neg, abs_


def _strip_comment(line: str) -> str:
    for marker in ("//", ";", "#"):
        i = line.find(marker)
        if i >= 0:
            line = line[:i]
    return line


def encode_text(text: str, target: str, catalog=None) -> list[Encoded]:
    """Assemble LLVM-syntax lines for a gfx target; the first error stops with line:column."""
    from gpuisa.codec.tables import tables_for

    enc = _Encoder(tables_for(target, catalog))
    out: list[Encoded] = []
    # a line's encoding depends on its text alone (the encoder keeps no state between lines), and code
    # repeats its lines: a repeat costs one dict lookup (errors are never remembered: the first one stops)
    seen: dict[str, Encoded | None] = {}
    for no, line in enumerate(text.split("\n"), 1):
        if line in seen:
            e = seen[line]
            if e is not None:
                out.append(Encoded(no, e.text, e.data, e.name, e.encoding))
            continue
        e = seen[line] = enc.encode_line(line, no)
        if e is not None:
            out.append(e)
    return out

"""Operands of an AMD instruction, derived from its pseudocode and its encoding's fields.

The manuals' Markdown edition has no operand tables (AMD's XML does, and is not here), but the
pseudocode names each operand with its type view (`D0.u64`, `S1.u32[2 : 0]`), and the field
table names the register fields. Joining the two gives direction, register class, field width
and data format, each traceable to a manual line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from gpuisa.model import Encoding, Erratum, InstructionDoc
from gpuisa.model_syntax import SyntaxDocs, SyntaxInstruction, SyntaxOperand
from gpuisa.sources.llvm_syntax_docs import (
    MATRIX_TWIN,
    OLDER_ROWS,
    ROW_EVIDENCE,
    SCALED_MATRIX_ROW,
    OperandEvidence,
    buckets_for_arch,
    derived_bits,
    derived_row,
    lookup,
    modifier_entries,
    older_row,
    operand_page,
    rule_source,
    type_tag_bits,
)

_USE = re.compile(r"\b(D0|D|S0|S1|S2|SDATA|VDATA|ADDR|DATA|DATA0|DATA1)(?:\[[^\]]*\])?\.([a-z]+\d*)\b")

FORMATS = {
    "u": ("unsigned", 32), "i": ("signed", 32), "f": ("float", 32), "b": ("bits", 32), "d": ("float", 64),
    "u16": ("unsigned", 16), "i16": ("signed", 16), "f16": ("float", 16), "b16": ("bits", 16), "bf16": ("bfloat", 16),
    "u32": ("unsigned", 32), "i32": ("signed", 32), "f32": ("float", 32), "b32": ("bits", 32),
    "u64": ("unsigned", 64), "i64": ("signed", 64), "f64": ("float", 64), "b64": ("bits", 64),
    "u8": ("unsigned", 8), "i8": ("signed", 8), "b8": ("bits", 8), "u24": ("unsigned", 24), "i24": ("signed", 24),
    "u128": ("unsigned", 128), "b128": ("bits", 128),
}

_FIELDS_FOR = {
    "D0": ("VDST", "SDST"), "D": ("VDST", "SDST"),
    "S0": ("SRC0", "SSRC0", "VSRC0"), "S1": ("SRC1", "VSRC1", "SSRC1"), "S2": ("SRC2",),
}

_CLASS = {
    "VDST": "vector GPR", "SDST": "scalar GPR", "SRC0": "scalar or vector source (SGPR, VGPR, inline constant, literal)",
    "SRC1": "scalar or vector source (SGPR, VGPR, inline constant, literal)",
    "SRC2": "scalar or vector source (SGPR, VGPR, inline constant, literal)",
    "VSRC1": "vector GPR", "VSRC0": "vector GPR", "SSRC0": "scalar source (SGPR, inline constant, literal)",
    "SSRC1": "scalar source (SGPR, inline constant, literal)",
}


def format_text(view: str) -> str:
    kind, bits = FORMATS.get(view, ("", 0))
    if not kind:
        return view
    names = {"unsigned": "unsigned integer", "signed": "signed integer", "float": "IEEE float",
             "bits": "untyped bits", "bfloat": "bfloat"}
    return f"{bits}-bit {names[kind]}"


def derive(pseudocode: str, enc: Encoding | None) -> list[dict]:
    """Operands in field order: {name, field, access, register_class, field_bits, format, view}."""
    views: dict[str, tuple[str, str]] = {}   # symbol -> (view, access)
    for line in pseudocode.splitlines() or [pseudocode]:
        for stmt in re.split(r";", line):
            lhs, eq, rhs = stmt.partition("=")
            assigned = eq and not rhs.startswith("=") and not lhs.rstrip().endswith(("!", "<", ">", "="))
            for m in _USE.finditer(stmt):
                sym, view = m.group(1), m.group(2)
                access = "write" if assigned and m.start() < len(lhs) else "read"
                if view not in FORMATS:
                    continue
                prev = views.get(sym)
                if prev is None:
                    views[sym] = (view, access)
                elif prev[1] != access:
                    views[sym] = (prev[0], "read-write")
    out: list[dict] = []
    fields = {f.name: f for f in enc.fields} if enc else {}
    for sym in ("D0", "D", "S0", "S1", "S2"):
        if sym not in views:
            continue
        view, access = views[sym]
        fname = next((c for c in _FIELDS_FOR.get(sym, ()) if c in fields), None)
        out.append({
            "name": fname or sym, "symbol": sym, "access": access,
            "register_class": _CLASS.get(fname or "", ""), "field_bits": fields[fname].width if fname else None,
            "format": format_text(view), "view": view,
        })
    return out


# ---------------------------------------------------------------- the join with LLVM's syntax pages
#
# LLVM's syntax pages give the operand list (order, role, optional, accepted kinds, size); the
# manual's encoding gives the fields and bit ranges; the manual's pseudocode gives the data format.
# Each attribute of a joined operand names its source in `sources`.

# Syntax operand name -> encoding fields that hold it, first present in the layout wins. A name
# equal to a field (vdst -> VDST, sbase -> SBASE, glc -> GLC) needs no entry. Source of each entry:
# the manuals' field tables next to LLVM's operand pages (e.g. gfx11_vaddr_f20ee4.rst "An offset
# from the start of GDS/LDS memory" is the DS ADDR field).
SYNTAX_FIELDS: dict[str, tuple[tuple[str, ...], ...]] = {
    "vdst": (("VDST",), ("VDATA",)),                        # loads: FLAT/GLOBAL VDST, MUBUF/MIMG VDATA
    "vdata": (("VDATA",), ("DATA",), ("DATA0",), ("VSRC",)),  # stores: MUBUF VDATA, FLAT DATA, DS DATA0, gfx12.5 VSRC
    "vdata0": (("DATA0",),), "vdata1": (("DATA1",),),
    "data0": (("DATA0",),), "data1": (("DATA1",),),
    "vaddr": (("VADDR",), ("ADDR",), ("VADDR0",)),          # MUBUF/MIMG VADDR, DS/FLAT ADDR, VIMAGE VADDR0
    "vaddr0": (("VADDR0",), ("VADDR",)), "addr": (("ADDR",), ("VADDR",)),
    "sdst": (("SDST",), ("SDATA",)), "sdata": (("SDATA",),),
    "srsrc": (("SRSRC",), ("RSRC",)), "rsrc": (("RSRC",), ("SRSRC",)),
    "ssamp": (("SSAMP",), ("SAMP",)), "samp": (("SAMP",), ("SSAMP",)),
    "src0": (("SRC0",), ("SSRC0",)), "src1": (("SRC1",), ("VSRC1",), ("SSRC1",)), "src2": (("SRC2",),),
    "ssrc0": (("SSRC0",),), "ssrc1": (("SSRC1",),), "vsrc": (("VSRC",), ("VSRC0",)),
    "vsrc1": (("VSRC1",), ("SRC1",)),
    "offset": (("OFFSET",), ("IOFFSET",), ("OFFSET1", "OFFSET0")),   # DS offset16 spans OFFSET1:OFFSET0
    # SMEM offsets by width (AMDGPUModifierSyntax.rst smem_offset*): OFFSET, IOFFSET from gfx12
    "offset20u": (("OFFSET",),), "offset21s": (("OFFSET",),), "offset24s": (("IOFFSET",), ("OFFSET",)),
    "pattern": (("OFFSET1", "OFFSET0"),),       # ds_swizzle_b32 offset:swizzle(...) fills the DS offset
    "fmt": (("FORMAT",), ("DFMT", "NFMT")), "ufmt": (("FORMAT",),),
    "m_op_sel": (("OPSEL",),), "m_op_sel_hi": (("OPSEL_HI", "OPSEL_HI2"), ("OPSEL_HI",)),
    "dpp_op_sel": (("OPSEL",),), "high": (("OPSEL",),),   # v_interp_*_f16 high: the op_sel bit of VOP3
    "offset11": (("OFFSET",),), "offset12": (("OFFSET",),), "offset12s": (("OFFSET",),),
    "offset13s": (("OFFSET",),),
    "ioffset": (("IOFFSET",), ("OFFSET",)),
    "soffset": (("SOFFSET",),), "saddr": (("SADDR",),), "sbase": (("SBASE",),),
    "probe": (("SDATA",),),   # s_atc_probe: the probe bits sit in SDATA
    "offset0": (("OFFSET0",),), "offset1": (("OFFSET1",),),
    "scale_sel": (("OPSEL",),),   # the scale byte of a packed scaled conversion: OPSEL[2:0] (cdna5 pseudocode)
    "clamp": (("CLAMP",),), "omod": (("OMOD",),), "op_sel": (("OPSEL",),), "op_sel_hi": (("OPSEL_HI", "OPSEL_HI2"),),
    "neg_lo": (("NEG",),), "neg_hi": (("NEG_HI",),), "unorm": (("UNRM",),), "bound_ctrl": (("BC",),),
    "tgt": (("TARGET",),), "row_en": (("ROW",),), "wait_exp": (("WAITEXP",),), "wait_va_vdst": (("WAIT_VA",),),
    "attr": (("ATTR", "ATTR_CHAN"),), "dst_unused": (("DST_U",),), "format": (("FORMAT",), ("DFMT", "NFMT")),
    "dpp8": (tuple(f"LANE_SEL{i}" for i in range(7, -1, -1)),),
    "quad_perm": (("DPP_CTRL",),), "row_shl": (("DPP_CTRL",),), "dpp_ctrl": (("DPP_CTRL",),),
    "imm16": (("SIMM16",),), "simm16": (("SIMM16",),), "label": (("SIMM16",),), "hwreg": (("SIMM16",),),
    "msg": (("SIMM16",),), "waitcnt": (("SIMM16",),), "delay": (("SIMM16",),), "depctr": (("SIMM16",),),
}

# Syntax operand name -> pseudocode symbols that name it (first present wins). Destinations and
# sources without an entry use D0 / S0 S1 S2 by position. Memory pseudocode names its operands
# ADDR, DATA, DATA2, RETURN_DATA, VDATA, SDATA (rdna3 DS_ADD_U32: "MEM[ADDR].u += DATA.u").
SYNTAX_SYMBOLS: dict[str, tuple[str, ...]] = {
    "vaddr": ("ADDR", "VADDR", "ADDR_BASE"), "addr": ("ADDR", "VADDR"),
    "vdata": ("DATA", "VDATA"), "vdata0": ("DATA",), "vdata1": ("DATA2",), "data0": ("DATA",), "data1": ("DATA2",),
    "sbase": ("SBASE",), "soffset": ("SOFFSET",), "saddr": ("SADDR",), "srsrc": ("SRSRC",),
    "offset": ("OFFSET",), "offset0": ("OFFSET0",), "offset1": ("OFFSET1",),
    "simm16": ("SIMM16",), "imm16": ("SIMM16",), "simm32": ("SIMM32",),
}
_DST_SYMBOLS = ("D0", "D", "RETURN_DATA", "VDATA", "SDATA", "VDST")
_SRC_SYMBOLS = ("S0", "S1", "S2")

# Encoding sections of the syntax pages -> our encoding names (where they differ).
SECTION_ENCODINGS: dict[str, str] = {
    "SMRD": "SMEM", "VDS": "DS", "VEXPORT": "EXP", "VDSDIR": "LDSDIR", "FLAT GLOBAL": "GLOBAL", "FLAT_GLBL": "GLOBAL",
    "FLAT SCRATCH": "SCRATCH", "FLAT_SCRATCH": "SCRATCH", "VINTRP": "VINTRP",
}
# Registers an operand page accepts as its only kind are implied by the opcode, never encoded
# (gfx9_vcc: "v_cmp_eq_f32 vcc, src0, vsrc1" writes VCC in VOPC's 32-bit form).
# gfx10_vcc.rst: "Should be vcc_lo if wavefront size is 32. Should be vcc if wavefront size is 64."
IMPLICIT_KINDS = frozenset({"vcc", "vcc_lo", "exec", "exec_lo", "scc", "m0"})
# Operands the assembler places in the literal dword after the instruction, not in a field
# (gfx9_simm32_be0c1c.rst: "A floating-point_number, an integer_number, or an absolute_expression").
LITERAL_NAMES = frozenset({"literal", "simm32", "imm32", "k"})
# Where an operand's name names no field, it takes the first unused field of its role, in this
# order (v_madmk_f16 "vdst, src0, simm32, vsrc2": vsrc2 is VOP2's VSRC1; v_readlane_b32 sdst is VOP3's VDST).
_DST_ORDER = ("VDST", "SDST", "SDATA", "VDATA")
# SOPK's s_cmpk_* compare the register in the SDST field: last for sources.
_SRC_ORDER = ("SRC0", "SSRC0", "VSRC0", "SRC1", "SSRC1", "VSRC1", "SRC2", "VSRC2", "VSRC3", "SIMM16", "SDST")
_VARIANT_SUFFIX = ("_dpp", "_sdwa", "_dpp8", "_dpp16", "_e64_dpp")
_VIEW_USE = re.compile(r"\b([A-Z][A-Z0-9_]*)(?:\[[^\]]*\])?\.([a-z]+\d*)\b")
_TYPE_SUFFIX = re.compile(r"_([ubfi](?:8|16|24|32|64|128)|bf16|iu8)$")

_REG_CLASS = {"v": "VGPR", "v16": "VGPR", "a": "AGPR", "s": "SGPR", "ttmp": "SGPR", "vcc": "SGPR", "exec": "SGPR",
              "m0": "SGPR", "null": "SGPR", "flat_scratch": "SGPR", "xnack_mask": "SGPR", "trap": "SGPR",
              "scc": "SCC", "vccz": "SGPR", "execz": "SGPR", "lds_direct": "LDS_DIRECT",
              "vcc_lo": "SGPR", "exec_lo": "SGPR",
              "constant": "inline constant", "iconst": "inline constant", "fconst": "inline constant",
              "ival": "inline constant", "literal": "literal", "integer_number": "immediate",
              "floating-point_number": "immediate", "absolute_expression": "immediate", "symbol": "label",
              "off": "off", "uimm8": "immediate", "uimm20": "immediate", "uimm32": "immediate",
              "simm8": "immediate", "simm16": "immediate", "simm21": "immediate"}


@dataclass(frozen=True, slots=True)
class JoinedOperands:
    """Operands of one (instruction, arch) and what the join could not place."""

    operands: list[dict]
    syntax: dict | None                   # {family, section, mnemonic, file, line} of the row used
    errata: list[Erratum]


def pseudocode_views(pseudocode: str) -> dict[str, tuple[str, str]]:
    """Every `SYMBOL.view` in the pseudocode -> (first known view, read / write / read-write)."""
    views: dict[str, tuple[str, str]] = {}
    for line in pseudocode.splitlines():
        for stmt in line.split(";"):
            lhs, eq, rhs = stmt.partition("=")
            assigned = eq and not rhs.startswith("=") and not lhs.rstrip().endswith(("!", "<", ">", "="))
            for m in _VIEW_USE.finditer(stmt):
                sym, view = m.group(1), m.group(2)
                if view not in FORMATS:
                    continue
                access = "write" if assigned and m.start() < len(lhs) else "read"
                prev = views.get(sym)
                if prev is None:
                    views[sym] = (view, access)
                elif prev[1] != access:
                    views[sym] = (prev[0], "read-write")
    return views


def pick_row(rows: list[SyntaxInstruction], encoding: str) -> SyntaxInstruction | None:
    """The row in the instruction's primary encoding: its section, else the plain (non DPP/SDWA) row."""
    def section_encoding(r: SyntaxInstruction) -> str:
        return SECTION_ENCODINGS.get(r.section, r.section)

    plain = [r for r in rows if not r.mnemonic.endswith(_VARIANT_SUFFIX) and " DPP" not in r.section]
    for pool in (plain, rows):
        exact = [r for r in pool if section_encoding(r) == encoding]
        if exact:
            return exact[0]
        family = [r for r in pool if encoding.startswith(section_encoding(r)) or section_encoding(r).startswith(encoding)]
        if family:
            return family[0]
    return plain[0] if plain else (rows[0] if rows else None)


def find_rows(docs: SyntaxDocs, families: tuple[str, ...], names: list[str]) -> list[SyntaxInstruction]:
    """Rows of the first spelling that the arch's pages list: the name, then LLVM's _e32/_e64 forms."""
    for name in names:
        low = name.lower()
        for spelled in (low, f"{low}_e32", f"{low}_e64"):
            rows = lookup(docs, families, spelled)
            if rows:
                return [r for n in (low, f"{low}_e32", f"{low}_e64") for r in lookup(docs, families, n)]
    return []


def join(key: str, arch: str, names: list[str], encoding: Encoding | None, encoding_name: str,
         doc: InstructionDoc | None, docs: SyntaxDocs, families: tuple[str, ...]) -> JoinedOperands | None:
    """Operands of `key` on `arch` from the syntax row, joined to the encoding's fields and the pseudocode.

    None when the arch's syntax pages have no row for any of `names` (the caller falls back to
    the pseudocode-only `derive`).
    """
    rows = find_rows(docs, families, names)
    derived = None   # (ROW_EVIDENCE rule, the listed mnemonic whose row this instruction takes)
    if not rows:     # a row no page lists: the rule's listed row (gfx1250's v_rcp_bf16 takes v_rcp_f16's)
        serves = buckets_for_arch(docs, arch)
        for name in names:
            ruled = rule_source(name.lower(), serves)
            for _ in range(3):   # rules chain: v_tanh_bf16 -> v_tanh_f16 (bf16 twin) -> v_sqrt_f16 (same shape)
                # a matrix twin's page sizes are another shape's (codec.tables.matrix_dwords sizes them for the codec)
                if ruled is None or ruled[0] in (MATRIX_TWIN, SCALED_MATRIX_ROW):
                    break
                rows = find_rows(docs, (ruled[2],) if ruled[2] else families, [ruled[1]]) or \
                    find_rows(docs, _other_pages(docs, families), [ruled[1]])   # a twin only another page lists
                if rows:
                    derived = (ruled[0], ruled[1], name.lower())
                    break
                ruled = rule_source(ruled[1], serves)
            if rows:
                break
    row = pick_row(rows, encoding_name)
    if row is None:
        return None
    if derived:   # the load-scale rule keeps the scale operands of the listed VOP3PX2 row
        row = derived_row(derived[0], row)
    page_row = row
    row, older = older_row(docs, row)   # OLDER_ROWS: the older page's row, which LLVM's tests follow
    fields = {f.name: f for f in encoding.fields} if encoding else {}
    views = pseudocode_views(doc.pseudocode) if doc else {}
    used_symbols: set[str] = set()
    out: list[dict] = []
    errata: list[Erratum] = []
    row_cite = row.provenance.cite()
    if derived:
        rule = ROW_EVIDENCE[derived[0]]
        row_cite += f" (row of {derived[1]}, ROW_EVIDENCE '{derived[0]}': LLVM's tests, e.g. {rule.evidence})"
    added = modifier_entries(row.family, row.section, row.mnemonic,   # MODIFIER_EVIDENCE: LLVM's tests over the row
                             buckets_for_arch(docs, arch))
    if older:
        fix = OLDER_ROWS[older]
        row_cite += f" (instead of {page_row.provenance.cite()}, OLDER_ROWS '{older}': LLVM's tests, e.g. {fix.evidence})"
        errata.append(Erratum(key, arch, "llvm-tests-vs-syntax-page", f"{older}: {fix.reason}; e.g. {fix.example!r} "
                              f"at {fix.evidence}", (page_row.provenance, row.provenance)))
    type_of_name = _TYPE_SUFFIX.search(row.mnemonic.removesuffix("_e32").removesuffix("_e64"))
    dst_i = src_i = 0
    used: set[str] = set()
    dual = "Y" if row.section.endswith("Y") or encoding_name.endswith("Y") else "X"
    for op in row.operands:
        page, page_fix = operand_page(docs, op.label, row)
        accepts = list(page.accepts) if page else []
        literal = op.name in LITERAL_NAMES or (page is not None and page.name in LITERAL_NAMES)
        implicit = bool(accepts) and set(accepts) <= IMPLICIT_KINDS
        field_names = [] if literal or implicit else _fields_for(op, fields, used, dual)
        used.update(field_names)
        placed = [fields[n] for n in field_names]
        sources = {"name": row_cite, "role": row_cite}
        if page:
            sources["kinds"] = sources["size_bits"] = page.provenance.cite()
        # MODIFIER_EVIDENCE types: a packed source the tests size by the mnemonic's type (bf6x32: 192 bits)
        typed = next(((tag, fix) for _, fix in added if (tag := fix.type_tags(row.mnemonic).get(op.name))), None)
        size_bits = page.size_bits if page else None
        description = page.description if page else ""
        resized = False   # a ROW_EVIDENCE rule sized it: the page's size sentence is the twin's
        if typed:
            size_bits = type_tag_bits(typed[0])
            sources["size_bits"] = f"LLVM's tests ({typed[1].evidence}), not " + (page.provenance.cite() if page else row_cite)
        if derived:   # the rule's sizes and roles where the listed row's page describes another shape
            sized = derived_bits(derived[0], derived[2], op.name, op.role, accepts, size_bits)
            if sized != size_bits:
                size_bits, resized = sized, True
                sources["size_bits"] = f"ROW_EVIDENCE '{derived[0]}' (" + (page.provenance.cite() + " is the twin's"
                                                                          if page else row_cite) + ")"
            note = dict(ROW_EVIDENCE[derived[0]].operands).get(op.name)
            if note:
                description = note
                sources["role"] = f"ROW_EVIDENCE '{derived[0]}': {note}"
        if isinstance(page_fix, OperandEvidence):   # LLVM's tests over the page: both cited
            sources["kinds"] = sources["size_bits"] = (f"{page.provenance.cite()} (LLVM's tests, e.g. "
                                                       f"{page_fix.evidence}) instead of {page_fix.source.cite()}")
            errata.append(Erratum(key, arch, "llvm-tests-vs-syntax-page",
                                  f"{op.name}: {page_fix.reason}; e.g. {page_fix.example!r} at {page_fix.evidence}",
                                  (row.provenance, page_fix.source)))
        elif page_fix:
            sources["kinds"] = sources["size_bits"] = f"{page.provenance.cite()} instead of {page_fix.source.cite()}"
            errata.append(Erratum(key, arch, "llvm-syntax-page",
                                  f"{op.name}: {page_fix.reason}", (row.provenance, page_fix.source)))
        if placed and encoding:
            sources["fields"] = encoding.provenance.cite()
        # pseudocode symbol: by name, else by position among destinations / sources
        if op.role == "dst":
            candidates = SYNTAX_SYMBOLS.get(op.name, ()) + (("D1",) if dst_i else _DST_SYMBOLS)
            dst_i += 1
        elif op.role == "src":
            candidates = SYNTAX_SYMBOLS.get(op.name, ()) + (_SRC_SYMBOLS[src_i:src_i + 1] if src_i < 3 else ())
            src_i += 0 if implicit else 1
        else:
            candidates = SYNTAX_SYMBOLS.get(op.name, ())
        symbol = next((s for s in candidates if s in views and s not in used_symbols), "")
        if symbol:
            used_symbols.add(symbol)
        view = views[symbol][0] if symbol else ""
        if view:
            sources["format"] = doc.provenance.cite() if doc else ""
        elif typed:
            view = typed[0]
            sources["format"] = sources["size_bits"]
        elif op.role != "modifier" and (op.type_override or (type_of_name and _is_data(op.name))):
            view = op.type_override or type_of_name.group(1)
            sources["format"] = row_cite + (" (type tag)" if op.type_override else " (type implied by the opcode name)")
        neg_abs = next((fix for _, fix in added if fix.neg_abs and op.role == "src"
                        and op.name.startswith(fix.neg_abs_on) and "m" not in op.tags), None)
        if neg_abs:
            sources["modifiers"] = f"LLVM's tests ({neg_abs.evidence}), not {row_cite}"
        access = {"dst": "write", "src": "read"}.get(op.role, "")
        if "dst" in op.tags:
            access = "read-write"
        encoded = "field" if placed else "literal" if literal else "implicit" if implicit else "none"
        out.append({
            "name": field_names[0] if len(field_names) == 1 else op.name,
            "syntax": op.name, "role": op.role, "optional": op.optional, "tags": list(op.tags),
            "symbol": symbol, "access": access,
            "register_class": _register_class(accepts),
            "kinds": list(page.kinds) if page else [], "accepts": accepts,
            "size_bits": size_bits, "size": page.size_text if page and not typed and not resized else "",
            "description": description,
            "encoded": encoded,
            "field_bits": sum(f.width for f in placed) or None,
            "fields": [{"name": f.name, "bits": [list(b) for b in f.bits]} for f in placed],
            "format": format_text(view) if view else "", "view": view,
            "modifiers": ["abs", "neg"] if "m" in op.tags or neg_abs else [],
            "page": {"label": op.label, "file": page.provenance.file, "line": page.provenance.line} if page else None,
            "sources": sources,
        })
        if encoded == "none" and encoding is not None:
            what = "modifier" if op.role == "modifier" else "operand"
            errata.append(Erratum(key, arch, f"{what}-without-field",
                                  f"LLVM's {row.family} page lists {what} {op.name} of {row.mnemonic}; the {arch} "
                                  f"manual's {encoding.name} layout has no field for it",
                                  (row.provenance, encoding.provenance)))
    listed = {o["syntax"] for o in out}
    # modifiers the tests add (MODIFIER_EVIDENCE) and those a derived row adds (ROW_EVIDENCE: scale_sel)
    extra = [(mod, f"LLVM's tests ({fix.evidence}: {fix.example}), MODIFIER_EVIDENCE '{name}'")
             for name, fix in added for mod in fix.modifiers]
    if derived:
        rule = ROW_EVIDENCE[derived[0]]
        extra += [(mod, f"LLVM's tests ({rule.evidence}: {rule.example}), ROW_EVIDENCE '{derived[0]}'")
                  for mod in rule.modifiers]
    for mod, cite in extra:
        if mod not in listed:
            listed.add(mod)
            field_names = _fields_for(SyntaxOperand(mod, "modifier", "MODIFIERS", ""), fields, used, dual)
            used.update(field_names)
            placed = [fields[n] for n in field_names]
            out.append({
                "name": field_names[0] if len(field_names) == 1 else mod, "syntax": mod, "role": "modifier",
                "optional": True, "tags": [], "symbol": "", "access": "", "register_class": "", "kinds": [],
                "accepts": [], "size_bits": None, "size": "", "description": "", "encoded": "field" if placed else "none",
                "field_bits": sum(f.width for f in placed) or None,
                "fields": [{"name": f.name, "bits": [list(b) for b in f.bits]} for f in placed],
                "format": "", "view": "", "modifiers": [], "page": None,
                "sources": {"name": cite, "role": cite, **({"fields": encoding.provenance.cite()}
                                                             if placed and encoding else {})},
            })
    for name, fix in added:
        if fix.modifiers or fix.neg_abs or fix.types:
            errata.append(Erratum(key, arch, "llvm-tests-vs-syntax-page", f"{name}: {fix.reason}; e.g. "
                                  f"{fix.example!r} at {fix.evidence}", (row.provenance, fix.source)))
    syntax = {"family": row.family, "section": row.section, "mnemonic": row.mnemonic,
              "file": row.provenance.file, "line": row.provenance.line}
    if derived:
        syntax["derived"] = {"rule": derived[0], "from": derived[1], "evidence": ROW_EVIDENCE[derived[0]].evidence}
    return JoinedOperands(out, syntax, errata)


def _other_pages(docs: SyntaxDocs, families: tuple[str, ...]) -> tuple[str, ...]:
    """The pages not serving the arch, newest generation first (GFX12, GFX11, GFX10..., GFX950, GFX940 ...), where a
    ROW_EVIDENCE twin only another page lists is found (GFX950's v_pk_add_f32 for gfx1250's v_pk_add_f64)."""
    def generation(key: str) -> tuple[int, str]:
        digits = key[3:]
        return (int(digits[:2]) if digits[:2] in ("10", "11", "12") else int(digits[:1] or 0)), digits
    return tuple(sorted((k for k in docs.families if k not in families), key=generation, reverse=True))


def _is_data(name: str) -> bool:
    return any(k in name for k in ("dst", "data", "src"))


def _register_class(accepts: list[str]) -> str:
    return ", ".join(dict.fromkeys(_REG_CLASS.get(a, a) for a in accepts))


def _fields_for(op: SyntaxOperand, fields: dict, used: set[str], dual: str) -> list[str]:
    """Fields of the layout that hold a syntax operand: its name (as is, via SYNTAX_FIELDS, without the
    v/s kind prefix), else the first unused field of its role (VOPD: the X or Y half)."""
    name = op.name
    plain = re.sub(r"^[vs](?=src|dst|data)", "", name)
    plain = {"src": "src0", "dst": "dst"}.get(plain, plain)
    for n in dict.fromkeys((name, plain)):
        if n.upper() in fields and n.upper() not in used:
            return [n.upper()]
        for group in SYNTAX_FIELDS.get(n, ()):
            if all(f in fields and f not in used for f in group):
                return list(group)
    if op.role == "modifier":
        return []
    order = _DST_ORDER if op.role == "dst" else _SRC_ORDER
    if any(f.startswith("VDSTX") for f in fields):   # VOPD: VDSTX, SRCX0, VSRCX1 (or the Y half)
        order = tuple(f[:-1] + dual + f[-1] if f[-1].isdigit() else f + dual for f in order)
    return next(([f] for f in order if f in fields and f not in used), [])


@dataclass(slots=True)
class OperandCoverage:
    """How many (instruction, arch) entries got operands, from which source; the rest with the reason."""

    entries: int = 0
    from_syntax: int = 0
    from_pseudocode: int = 0
    per_arch: dict[str, dict[str, int]] = field(default_factory=dict)
    per_encoding: dict[str, dict[str, int]] = field(default_factory=dict)
    uncovered: list[dict] = field(default_factory=list)     # {name, arch, encoding, reason}

    def count(self, arch: str, encoding: str, source: str) -> None:
        self.entries += 1
        for table, k in ((self.per_arch, arch), (self.per_encoding, encoding or "(none)")):
            row = table.setdefault(k, {"entries": 0, "syntax": 0, "pseudocode": 0, "none": 0})
            row["entries"] += 1
            row[source] += 1
        if source == "syntax":
            self.from_syntax += 1
        elif source == "pseudocode":
            self.from_pseudocode += 1

    def as_dict(self) -> dict:
        covered = self.from_syntax + self.from_pseudocode
        return {"entries": self.entries, "covered": covered, "from_syntax": self.from_syntax,
                "from_pseudocode": self.from_pseudocode,
                "percent": round(100.0 * covered / self.entries, 2) if self.entries else 0.0,
                "per_arch": self.per_arch, "per_encoding": self.per_encoding, "uncovered": self.uncovered}


def operands_for(key: str, arch: str, names: list[str], encoding: Encoding | None, encoding_name: str,
                 doc: InstructionDoc | None, docs: SyntaxDocs | None, families: tuple[str, ...],
                 coverage: OperandCoverage) -> tuple[list[dict], dict | None, list[Erratum]]:
    """The operands the catalog stores for one (instruction, arch): the syntax join where LLVM's pages
    list the instruction, else the pseudocode-only derivation; counted in `coverage`."""
    joined = join(key, arch, names, encoding, encoding_name, doc, docs, families) if docs and families else None
    if joined is not None:
        coverage.count(arch, encoding_name, "syntax")
        return joined.operands, joined.syntax, joined.errata
    derived = derive(doc.pseudocode, encoding) if doc else []
    if derived:
        coverage.count(arch, encoding_name, "pseudocode")
        for op in derived:   # the same keys as joined operands, from the pseudocode and the field table
            field_ = encoding.field(op["name"]) if encoding else None
            cite = doc.provenance.cite()
            op.update({"syntax": "", "role": "dst" if op["access"] == "write" else "src", "optional": False,
                       "tags": [], "kinds": [], "accepts": [], "size_bits": FORMATS.get(op["view"], ("", None))[1],
                       "size": "", "description": "", "encoded": "field" if field_ else "none",
                       "fields": [{"name": field_.name, "bits": [list(b) for b in field_.bits]}] if field_ else [],
                       "modifiers": [], "page": None,
                       "sources": {"name": cite, "role": cite, "format": cite, "size_bits": cite,
                                   **({"fields": encoding.provenance.cite()} if field_ and encoding else {})}})
        return derived, None, []
    coverage.count(arch, encoding_name, "none")
    reason = ("no syntax page serves this arch" if not families else
              f"not on LLVM's {'/'.join(families)} syntax page under any of: {', '.join(n.lower() for n in names)}")
    reason += "; the manual gives no pseudocode" if not (doc and doc.pseudocode) else \
        "; the pseudocode names no typed operand"
    coverage.uncovered.append({"name": key.lower(), "arch": arch, "encoding": encoding_name, "reason": reason})
    return [], None, []

"""Merge per-manual AMD records into one identity per instruction across generations.

Pure functions over model records: no SQL here. The build writes what these return.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from gpuisa.archs import newest_first
from gpuisa.model import Encoding, InstructionDoc, ManualData, OpcodeEntry, Provenance
from gpuisa.sources.amd_names import RENAMES

# Preference when one instruction has several encodings in an arch: its native format first,
# VOP3 promotions and extension words after.
_PRIMARY_ORDER = ("SOP", "SMEM", "VOP1", "VOP2", "VOPC", "VOP3P", "VOPD", "VINTERP", "VINTRP", "DS", "VDS",
                  "MUBUF", "MTBUF", "VBUFFER", "MIMG", "VIMAGE", "VSAMPLE", "FLAT", "VFLAT", "GLOBAL",
                  "VGLOBAL", "SCRATCH", "VSCRATCH", "EXP", "VEXPORT", "LDSDIR", "VDSDIR", "VOP3")

GROUPS: tuple[tuple[str, str], ...] = (
    ("SOP", "Scalar ALU"), ("SMEM", "Scalar Memory"), ("VOPD", "Vector ALU (dual issue)"),
    ("VOP", "Vector ALU"), ("VINTERP", "Vector Parameter Interpolation"), ("VINTRP", "Vector Parameter Interpolation"),
    ("LDSDIR", "LDS Direct / Parameter Load"), ("VDSDIR", "LDS Direct / Parameter Load"),
    ("DS", "Data Share (LDS/GDS)"), ("VDS", "Data Share (LDS/GDS)"),
    ("MUBUF", "Vector Memory Buffer"), ("MTBUF", "Vector Memory Buffer"), ("VBUFFER", "Vector Memory Buffer"),
    ("MIMG", "Vector Memory Image"), ("VIMAGE", "Vector Memory Image"), ("VSAMPLE", "Vector Memory Image"),
    ("FLAT", "Flat / Global / Scratch Memory"), ("VFLAT", "Flat / Global / Scratch Memory"),
    ("GLOBAL", "Flat / Global / Scratch Memory"), ("VGLOBAL", "Flat / Global / Scratch Memory"),
    ("SCRATCH", "Flat / Global / Scratch Memory"), ("VSCRATCH", "Flat / Global / Scratch Memory"),
    ("EXP", "Export"), ("VEXPORT", "Export"),
)


def group_of(encoding: str) -> str:
    """Functional group of an encoding family (VOP3 -> Vector ALU)."""
    return next((g for prefix, g in GROUPS if encoding.startswith(prefix)), "Other")


def _primary_rank(encoding: str) -> int:
    return next((i for i, p in enumerate(_PRIMARY_ORDER) if encoding.startswith(p)), len(_PRIMARY_ORDER))


def layout_encoding(arch_encodings: dict[str, Encoding], opcode_encoding: str) -> tuple[Encoding | None, str]:
    """The field layout and opcode field for an opcode-table encoding ('VOPD X' -> VOPD, 'OPX')."""
    if opcode_encoding in arch_encodings:
        return arch_encodings[opcode_encoding], "OP"
    base, _, part = opcode_encoding.partition(" ")
    if base in arch_encodings and part in ("X", "Y"):
        return arch_encodings[base], f"OP{part}"
    return None, "OP"


def identifier(enc: Encoding, opcode: int, op_field: str = "OP", row_fields: dict[str, int] | None = None) -> int | None:
    """The instruction word identifier: fixed bits plus the opcode placed in its field (and the
    fields one instruction fixes for itself, e.g. VOP3PX2's scale opcode)."""
    op = enc.field(op_field)
    if op is None and opcode != 0:
        return None
    value = 0
    for f in enc.fields:
        v = (row_fields or {}).get(f.name, f.value)
        if v is not None:
            value |= place(f.bits, v)
    if op is None:
        return value or None            # a format with a single instruction (EXP): its fixed bits
    if opcode >= (1 << op.width):
        return None
    return value | place(op.bits, opcode)


def place(bits: tuple[tuple[int, int], ...], value: int) -> int:
    """Scatter `value` (MSB first across ranges) into its bit positions."""
    out, remaining = 0, sum(hi - lo + 1 for hi, lo in bits)
    for hi, lo in bits:
        width = hi - lo + 1
        remaining -= width
        out |= ((value >> remaining) & ((1 << width) - 1)) << lo
    return out


@dataclass(slots=True)
class ArchEntry:
    """One instruction in one arch: its name there, encodings with opcodes, and its manual text."""

    arch: str
    manual_name: str
    encodings: list[dict] = field(default_factory=list)   # {encoding, opcode, identifier, op_field, provenance}
    doc: InstructionDoc | None = None


@dataclass(slots=True)
class MergedInstruction:
    key: str                               # canonical (newest) name, upper case
    per_arch: dict[str, ArchEntry] = field(default_factory=dict)
    aliases: dict[str, str] = field(default_factory=dict)   # old name -> evidence of the rename

    def newest(self) -> str:
        return newest_first(list(self.per_arch))[0]


def _follow(name: str, renames: dict[str, tuple[str, str]]) -> str:
    seen = set()
    while name in renames and name not in seen:
        seen.add(name)
        name = renames[name][0]
    return name


def accepted_renames(manuals: list[ManualData], candidates: dict[str, tuple[str, str]]) -> dict[str, tuple[str, str]]:
    """Curated renames plus candidates (e.g. LLVM aliases) that are safe to fold: both names are
    in the manuals, and no manual has both (an alias between two live instructions is not a rename)."""
    archs_of: dict[str, set[str]] = {}
    for data in manuals:
        for name in {e.name for e in data.opcodes} | {d.name for d in data.docs}:
            archs_of.setdefault(name, set()).add(data.arch)
    renames = {old: (new, f"curated: {why}") for old, (new, why) in RENAMES.items()}
    for old, (new, why) in sorted(candidates.items()):
        if old in renames or old not in archs_of or new not in archs_of or archs_of[old] & archs_of[new]:
            continue
        renames[old] = (new, why)
    # a candidate that folds into a name another instruction of the same arch already folds into names two
    # live instructions: cdna2 has V_MFMA_F32_32X32X4BF16 (opcode 108) and V_MFMA_F32_32X32X4BF16_1K (99),
    # and LLVM's gfx942 alias of the old spelling names the _1K instruction's new name (mai-gfx942.s:339)
    for old in [o for o, (_, why) in renames.items() if not why.startswith("curated: ")]:
        key = _follow(old, renames)
        if any(other != old and _follow(other, renames) == key and archs_of[old] & archs_of.get(other, set())
               for other in archs_of):
            del renames[old]
    return renames


def merge(manuals: list[ManualData], candidates: dict[str, tuple[str, str]] | None = None,
          row_fields: dict[tuple[str, str, str], dict[str, int]] | None = None) -> dict[str, MergedInstruction]:
    """One MergedInstruction per identity; renames (curated, or candidates that pass
    accepted_renames) fold old names into the newest one, keeping the evidence per alias.
    `row_fields`: (arch, encoding, name) -> fields that row fixes itself (catalog.resolve)."""
    renames = accepted_renames(manuals, candidates or {})
    merged: dict[str, MergedInstruction] = {}
    for data in manuals:
        by_name: dict[str, list[OpcodeEntry]] = {}
        for e in data.opcodes:
            by_name.setdefault(e.name, []).append(e)
        docs: dict[str, InstructionDoc] = {}
        for d in data.docs:
            # the first doc with pseudocode wins (the instruction's own section; VOP3 repeats of
            # VOP1 text come later), else the first doc
            prev = docs.get(d.name)
            if prev is None or (not prev.pseudocode.strip() and d.pseudocode.strip()):
                docs[d.name] = d
        for name in sorted(set(by_name) | set(docs)):
            key = _follow(name, renames)
            mi = merged.setdefault(key, MergedInstruction(key))
            if name != key:
                mi.aliases[name] = renames[name][1]
            entry = ArchEntry(data.arch, name, doc=docs.get(name))
            for e in sorted(by_name.get(name, []), key=lambda e: (_primary_rank(e.encoding), e.encoding)):
                entry.encodings.append(_encoding_row(data, e.encoding, e.opcode, e.provenance,
                                                     (row_fields or {}).get((data.arch, e.encoding, e.name))))
            if not entry.encodings and entry.doc is not None and entry.doc.opcode is not None:
                enc = _section_encoding(entry.doc.section, data)
                if enc:
                    entry.encodings.append(_encoding_row(data, enc, entry.doc.opcode, entry.doc.provenance))
            mi.per_arch[data.arch] = entry
    return merged


def key_index(merged: dict[str, MergedInstruction]) -> dict[str, str]:
    """Any manual spelling of an instruction (any generation, any alias) -> its catalog key."""
    index: dict[str, str] = {}
    for key, mi in merged.items():
        index[key] = key
        for entry in mi.per_arch.values():
            index.setdefault(entry.manual_name, key)
        for alias in mi.aliases:
            index.setdefault(alias, key)
    return index


def _section_encoding(section: str, data: ManualData) -> str | None:
    first = section.split()[0].upper() if section.split() else ""
    return first if first in data.encodings else None


def _encoding_row(data: ManualData, enc_name: str, opcode: int, prov: Provenance,
                  row_fields: dict[str, int] | None = None) -> dict:
    layout, op_field = layout_encoding(data.encodings, enc_name)
    ident = identifier(layout, opcode, op_field, row_fields) if layout else None
    return {"encoding": enc_name, "opcode": opcode, "identifier": ident, "op_field": op_field,
            "layout": layout.name if layout else None, "provenance": prov}


def layout_diff(a: Encoding | None, b: Encoding | None) -> list[dict]:
    """Field-level differences between two layouts, by canonical field name."""
    if a is None or b is None:
        return [] if a is b else [{"field": "*", "change": "layout unknown in one generation"}]
    fa, fb = {f.name: f for f in a.fields}, {f.name: f for f in b.fields}
    out: list[dict] = []
    for name in sorted(set(fa) | set(fb), key=lambda n: -(fa.get(n) or fb[n]).bits[0][0]):
        x, y = fa.get(name), fb.get(name)
        if x is None:
            out.append({"field": name, "change": "added", "to": _bits_str(y.bits)})
        elif y is None:
            out.append({"field": name, "change": "removed", "from": _bits_str(x.bits)})
        elif x.bits != y.bits:
            out.append({"field": name, "change": "moved", "from": _bits_str(x.bits), "to": _bits_str(y.bits)})
        elif x.value != y.value:
            out.append({"field": name, "change": "fixed value", "from": _fixed_str(x), "to": _fixed_str(y)})
    return out


def _bits_str(bits: tuple[tuple[int, int], ...]) -> str:
    return ",".join(f"{hi}:{lo}" if hi != lo else f"{hi}" for hi, lo in bits)


def _fixed_str(f) -> str | None:
    return None if f.value is None else format(f.value, f"0{f.width}b")


_SENTENCE = re.compile(r"(.+?[.!?])(\s|$)", re.DOTALL)


def summary_of(text: str, limit: int = 160) -> str:
    """First sentence of a description, for lists and search results."""
    text = " ".join(text.split())
    m = _SENTENCE.match(text)
    s = m.group(1) if m else text
    return s if len(s) <= limit else s[: limit - 1].rstrip() + "…"

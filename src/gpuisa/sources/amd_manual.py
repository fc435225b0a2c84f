"""Reader for AMD ISA manuals in their Markdown edition (kuhar/amdgpu-isa-manuals).

Reads, per manual: every microcode format (fields and bit ranges, fixed encoding bits) from the
"Microcode Formats" chapter, every opcode table entry, and every instruction's description,
pseudocode and notes from the "Instructions" chapter. Two layouts exist:

* headed (rdna3+, cdna3+): one heading per instruction (`V_SAD_U32 549`), then prose, an
  "Expression" code block and "Notes";
* table (vega, vega7, rdna1, rdna2, cdna1, cdna2): `Opcode | Name | Description` tables whose
  description cell holds prose and pseudocode inline; rows split at page breaks continue in
  rows with an empty opcode cell.

The manuals are PDF conversions: tables split at page breaks, captions go missing, heading
levels wander. Each such defect the reader repairs is an entry of sources/amd_quirks.py
(MANUAL_QUIRKS, with its reason and the manual lines where it appears), and every place a repair
is applied is recorded in ManualData.repairs. What cannot be recovered is a Skip with its reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from gpuisa.errors import SourceError
from gpuisa.limits import MAX_MANUAL_BYTES
from gpuisa.model import Encoding, Erratum, Field, InstructionDoc, ManualData, OpcodeEntry, Provenance, Repair, Skip
from gpuisa.sources.amd_names import canonical_encoding, canonical_field
from gpuisa.sources.amd_quirks import FUNCTION_SECTION_FORMATS, MANUAL_QUIRKS
from gpuisa.sources.files import read_text
from gpuisa.sources.markdown_blocks import Block, parse_blocks

SOURCE = "amd-manual"

_CHAPTER = re.compile(r"^Chapter\s+(\d+)\.\s*(.+?)\s*$")
_NUMBERED = re.compile(r"^(\d+(?:\.\d+)+)\.?\s+(.+?)\s*$")
_CAPTION = re.compile(r"Table\s+\d+\.\s*\**\s*(.+?)[\s-]+(Fields|Opcodes)\b", re.IGNORECASE)
_ENC_TOKEN = re.compile(r"^[A-Z][A-Z0-9]*(?:-[A-Z]+)?$")
_INSTR_HEADING = re.compile(r"^([A-Z][A-Z0-9_]*[A-Z0-9])\s+(\d+)$")
_INSTR_NAME = re.compile(r"^[A-Z][A-Z0-9_]*[A-Z0-9]$")
_BITS = re.compile(r"\[?\s*(\d+)\s*(?::\s*(\d+))?\s*\]?")
_BINARY = re.compile(r"(?:'b|0b|Must be:?\s*|^)\s*([01][01_ ]*[01])\b")
_HEX = re.compile(r"\b0x([0-9A-Fa-f]+)\b")
_VOP3_RULE = MANUAL_QUIRKS["vop3-promotion-rule"].pattern
_VOP3_RULE_NAMES = MANUAL_QUIRKS["vop3-rule-names-other-encoding"].pattern
_VOP3B_LIST = MANUAL_QUIRKS["vop3b-only-for"].pattern
_TEMPLATE_PLACEHOLDER = MANUAL_QUIRKS["compare-templates"].pattern
_SEG_VALUE = MANUAL_QUIRKS["segment-shares-flat-layout"].pattern
_NAMED_VALUE = MANUAL_QUIRKS["combined-flat-table"].pattern
_EXPORT_SECTION = MANUAL_QUIRKS["export-without-heading"].pattern
_FUNCTION_SECTION = MANUAL_QUIRKS["section-named-by-function"].pattern


@dataclass(slots=True)
class _Ctx:
    """Where the walker is: the current numbered section and the last table caption."""

    section: str = ""
    section_line: int = 0
    caption: tuple[str, str] | None = None   # (encoding, "Fields"|"Opcodes")
    caption_index: int = -10


def read_manual(path: Path, arch: str, rel: str | None = None) -> ManualData:
    """Read one AMD manual. `rel` is the path cited in provenance (relative to the sources root)."""
    rel = rel or str(path)
    text = read_text(path, MAX_MANUAL_BYTES, rel)
    if not text.strip():
        raise SourceError(rel, "manual is empty")
    blocks = parse_blocks(text)
    data = ManualData(arch=arch, file=rel)
    chapters = _chapters(blocks)
    micro = chapters.get("microcode formats")
    instr = chapters.get("instructions")
    if micro is None:
        raise SourceError(rel, "no 'Microcode Formats' chapter found (truncated manual?)")
    if instr is None:
        raise SourceError(rel, "no 'Instructions' chapter found (truncated manual?)")
    _read_microcode(blocks[micro[0]:micro[1]], data)
    sections = _read_instructions(blocks[instr[0]:instr[1]], data)
    _check_template_docs(data)
    _add_section_rows(data, sections)
    _apply_vop3_rules(blocks[instr[0]:instr[1]], data)
    _derive_shared_layouts(data)
    return data


def _chapters(blocks: list[Block]) -> dict[str, tuple[int, int]]:
    """Map lower-case chapter titles to block index ranges [start, end)."""
    starts: list[tuple[int, str]] = []
    for i, b in enumerate(blocks):
        if b.kind == "heading":
            m = _CHAPTER.match(b.text)
            if m:
                starts.append((i, m.group(2).strip().lower()))
    out: dict[str, tuple[int, int]] = {}
    for k, (i, title) in enumerate(starts):
        end = starts[k + 1][0] if k + 1 < len(starts) else len(blocks)
        out.setdefault(title, (i, end))
    return out


def _repair(data: ManualData, quirk: str, line: int | None, detail: str = "") -> None:
    """Record that quirk `quirk` of the AMD quirk table was applied at `line`."""
    if quirk not in MANUAL_QUIRKS:
        raise KeyError(f"{quirk} is not in sources.amd_quirks.MANUAL_QUIRKS")
    data.repairs.append(Repair(quirk, data.file, line, detail))


def _prov(data: ManualData, line: int, section: str = "") -> Provenance:
    return Provenance(SOURCE, data.file, line, section or None)


def _section_encoding(title: str) -> str | None:
    """Encoding named by a microcode section title ('15.3.4. VOP3' -> 'VOP3')."""
    t = title.replace("\\", "").strip()
    if _ENC_TOKEN.match(t.upper()) and t.upper() == t:
        return canonical_encoding(t)
    return None


def _caption(text: str) -> tuple[str, str] | None:
    m = _CAPTION.search(text.replace("\\", ""))
    if not m:
        return None
    name = m.group(1).strip().strip("*").strip()
    return canonical_encoding(name), m.group(2).capitalize()


# ---------------------------------------------------------------- microcode formats chapter


def _read_microcode(blocks: list[Block], data: ManualData) -> None:
    ctx = _Ctx()
    current_enc: str | None = None
    pending_fields: dict[str, list[tuple[Field, int]]] = {}
    first_line: dict[str, int] = {}
    spelling: dict[str, str] = {}
    opcode_tables: dict[str, int] = {}
    for i, b in enumerate(_split_embedded_tables(_unwrap_lazy_tables(blocks, data), data)):
        if b.kind == "heading":
            m = _NUMBERED.match(b.text)
            if m:
                ctx.section, ctx.section_line = m.group(2), b.line
                enc = _section_encoding(m.group(2))
                current_enc = enc
                if enc:
                    spelling.setdefault(enc, m.group(2))
                continue
            # unnumbered heading such as "FLAT" / "GLOBAL" inside a section, or a caption
            cap = _caption(b.text)
            if cap:
                ctx.caption, ctx.caption_index = cap, i
            continue
        if b.kind == "text":
            cap = _caption(b.text)
            if cap:
                ctx.caption, ctx.caption_index = cap, i
            continue
        if b.kind != "table":
            continue
        header = [h.lower() for h in b.header]
        recent_caption = ctx.caption if (ctx.caption and i - ctx.caption_index <= 3) else None
        if recent_caption and recent_caption[1] == "Opcodes" and _is_headerless_opcode_table(b.header):
            # the table's first row (an opcode and a name) was taken for its header
            _repair(data, "opcode-table-without-header", b.line, recent_caption[0])
            b = Block("table", b.line, header=["Opcode #", "Name"] * (len(b.header) // 2),
                      rows=[b.header, *b.rows], row_lines=[b.line, *b.row_lines])
            header = [h.lower() for h in b.header]
        if _is_field_table(header):
            enc = recent_caption[0] if recent_caption and recent_caption[1] == "Fields" else current_enc
            if enc is None:
                data.skips.append(Skip(data.file, b.line, "field table outside any encoding section"))
                continue
            enc = _strip_fields_suffix(enc)
            first_line.setdefault(enc, b.line)
            for f, line in _read_field_rows(b, data):
                pending_fields.setdefault(enc, []).append((f, line))
        elif _is_opcode_table(header):
            enc = recent_caption[0] if recent_caption and recent_caption[1] == "Opcodes" else current_enc
            if enc is None:
                data.skips.append(Skip(data.file, b.line, "opcode table outside any encoding section"))
                continue
            if not (recent_caption and recent_caption[1] == "Opcodes") and enc in opcode_tables:
                _repair(data, "table-split-at-page-break", b.line, f"{enc} continues the table at line {opcode_tables[enc]}")
            opcode_tables.setdefault(enc, b.line)
            _read_opcode_rows(b, enc, data, ctx.section)
    for enc, rows in pending_fields.items():
        fields = _merge_fields(enc, rows, data)
        if not fields:
            continue
        hi = max(h for f in fields for h, _ in f.bits)
        width = 32 * ((hi // 32) + 1)
        data.encodings[enc] = Encoding(
            arch=data.arch, name=enc, width=width, fields=tuple(fields),
            provenance=_prov(data, first_line[enc], spelling.get(enc, enc)), spelling=spelling.get(enc, enc),
        )


def _is_header_row(row: list[str]) -> bool:
    low = [c.lower() for c in row]
    return len(low) >= 2 and (("opcode" in low[0] and "name" in low[1]) or ("field" in low[0] and "bits" in low[1])
                              or (low[0] == "instruction" and "description" in low[1])
                              or ("compare operation" in low[0]))


def _unwrap_lazy_tables(blocks: list[Block], data: ManualData) -> list[Block]:
    """Tables that a list item's paragraph swallowed (no blank line after the list) become blocks again."""
    out: list[Block] = []
    for b in blocks:
        lines = b.text.split("\n") if b.kind == "text" else []
        k = next((k for k, t in enumerate(lines) if t.lstrip().startswith("|") and k > 0), None)
        if k is None or not _caption(lines[k - 1]):
            out.append(b)
            continue
        _repair(data, "table-inside-list-item", b.line + k - 1, lines[k - 1].strip())
        out.append(Block("text", b.line, "\n".join(lines[:k - 1])))
        for inner in parse_blocks("\n".join(lines[k - 1:]) + "\n"):
            out.append(Block(inner.kind, b.line + k - 2 + inner.line, inner.text, inner.level, inner.header,
                             inner.rows, [b.line + k - 2 + ln for ln in inner.row_lines]))
    return out


def _split_embedded_tables(blocks: list[Block], data: ManualData) -> list[Block]:
    """Split tables that swallowed the next table (caption and header rows inside the body).

    Happens where the converter lost the blank line between two tables (vega7's SOP2 field
    table runs into its opcode table); the embedded caption row becomes a text block again.
    """
    out: list[Block] = []
    for b in blocks:
        if b.kind != "table" or not any(_is_header_row(r) for r in b.rows):
            out.append(b)
            continue
        cur = Block("table", b.line, header=b.header)
        for row, line in zip(b.rows, b.row_lines, strict=False):
            if _is_header_row(row):
                _repair(data, "table-swallows-next", line, "header row " + " | ".join(row)[:60])
                out.append(cur)
                cur = Block("table", line, header=row)
            elif set("".join(row)) <= set("-: "):
                continue
            elif _caption(" ".join(row)) and not any(c.strip().isdigit() for c in row):
                _repair(data, "table-swallows-next", line, "caption row " + " ".join(row)[:60])
                out.append(cur)
                out.append(Block("text", line, " ".join(c for c in row if c)))
                cur = Block("table", line, header=[])
            else:
                cur.rows.append(row)
                cur.row_lines.append(line)
        out.append(cur)
    return out


def _strip_fields_suffix(enc: str) -> str:
    return re.sub(r"\s+(INSTRUCTION\s+)?FIELDS$", "", enc)


def _is_field_table(header: list[str]) -> bool:
    return len(header) >= 2 and "field" in header[0] and any("bits" in h for h in header[1:3])


def _is_headerless_opcode_table(header: list[str]) -> bool:
    cells = [c.strip().replace("\\", "") for c in header]
    return len(cells) >= 2 and len(cells) % 2 == 0 and all(
        (c.isdigit() if k % 2 == 0 else bool(_INSTR_NAME.match(c))) for k, c in enumerate(cells) if c)


def _is_opcode_table(header: list[str]) -> bool:
    return len(header) >= 2 and "opcode" in header[0] and "name" in header[1]


def _parse_bits(cell: str) -> tuple[tuple[int, int], ...] | None:
    """'[40:32] 0 - 101 ...' -> ((40, 32),); '[15]' -> ((15, 15),); also '[7:0], [39:32]' lists."""
    cell = cell.strip()
    if not cell or not (cell[0].isdigit() or cell[0] == "["):
        return None
    ranges: list[tuple[int, int]] = []
    for m in re.finditer(r"\[\s*(\d+)\s*(?::\s*(\d+))?\s*\]", cell):
        hi = int(m.group(1))
        lo = int(m.group(2)) if m.group(2) is not None else hi
        ranges.append((max(hi, lo), min(hi, lo)))
    if not ranges:
        m = re.match(r"^(\d+)\s*(?::\s*(\d+))?(?:\s|$)", cell)
        if not m:
            return None
        hi = int(m.group(1))
        lo = int(m.group(2)) if m.group(2) is not None else hi
        ranges.append((max(hi, lo), min(hi, lo)))
    if not cell.startswith("["):
        ranges = ranges[:1]
    # only leading ranges belong to the field; later brackets are operand-value ranges
    first_end = cell.find("]")
    if cell.startswith("[") and first_end != -1:
        rest = cell[first_end + 1:].lstrip()
        if not rest.startswith(","):
            ranges = ranges[:1]
    return tuple(ranges)


def _fixed_value(description: str, width: int) -> int | None:
    """Fixed bits of an ENCODING field: "Must be: 110100", "'b110101", "0x3f"."""
    desc = description.replace("\\", "")
    if width == 1:
        one = re.search(r"(?:'b|Must be:?\s*)([01])\b", desc)
        return int(one.group(1)) if one else None
    m = _BINARY.search(desc)
    if m:
        digits = re.sub(r"[_ ]", "", m.group(1))
        if len(digits) == width:
            return int(digits, 2)
    m = _HEX.search(desc)
    if m:
        value = int(m.group(1), 16)
        if value < (1 << width):
            return value
    return None


def _encoding_digits(description: str) -> str | None:
    m = _BINARY.search(description.replace("\\", ""))
    return re.sub(r"[_ ]", "", m.group(1)) if m else None


def _read_field_rows(b: Block, data: ManualData) -> list[tuple[Field, int]]:
    out: list[tuple[Field, int]] = []
    for row, line in zip(b.rows, b.row_lines, strict=False):
        if len(row) < 2 or not row[0].strip():
            continue
        spelled = row[0].strip().replace("\\", "")
        bits = _parse_bits(row[1])
        if bits is None:
            data.skips.append(Skip(data.file, line, "field row without a bit range", " | ".join(row)[:120]))
            continue
        desc = " ".join(c for c in row[2:] if c).strip()
        name = canonical_field(spelled)
        width = sum(h - lo + 1 for h, lo in bits)
        value = _fixed_value(desc, width) if name == "ENCODING" else None
        if name == "ENCODING" and value is None:
            # some manuals put the fixed bits in the bits column: "[31:26] 110101"
            value = _fixed_value(row[1].split("]", 1)[-1], width)
        if name == "ENCODING" and value is None and len(bits) == 1:
            digits = _encoding_digits(desc)
            if digits and len(digits) > width and bits[0][0] - len(digits) + 1 >= 0:
                # the manual's bit range is narrower than its own fixed value ('b11001100 in
                # [31:26]); the value is what the hardware matches, so the range is widened
                hi = bits[0][0]
                data.skips.append(Skip(data.file, line, f"ENCODING value '{digits}' is wider than bits "
                                       f"[{hi}:{bits[0][1]}]; widened to [{hi}:{hi - len(digits) + 1}]"))
                bits = ((hi, hi - len(digits) + 1),)
                value = int(digits, 2)
                _repair(data, "encoding-value-wider", line, f"{digits} in [{hi}:{bits[0][1]}]")
        out.append((Field(name=name, bits=bits, value=value, spelling=spelled, description=desc), line))
    return out


def _merge_fields(enc: str, rows: list[tuple[Field, int]], data: ManualData) -> list[Field]:
    """Fields of one encoding, in order of bit position (MSB first); duplicates from repeated tables dropped."""
    by_name: dict[str, Field] = {}
    for f, line in rows:
        prev = by_name.get(f.name)
        if prev is None:
            by_name[f.name] = f
        elif prev.bits == f.bits:
            _repair(data, "field-table-repeated", line, f"{enc} {f.name}")
        elif prev.bits != f.bits:
            if f.name == "RESERVED" or f.name.startswith("RSVD"):
                by_name[f"{f.name}@{f.bits[0][0]}"] = f
            else:
                data.skips.append(Skip(data.file, line, f"{enc}: field {f.name} given twice with other bits; "
                                       f"kept {prev.bits}, dropped {f.bits}"))
    return sorted(by_name.values(), key=lambda f: -f.bits[0][0])


def _clean_name(cell: str) -> str:
    return re.sub(r"\s+", "", cell.replace("\\", "").replace("*", ""))


def _read_opcode_rows(b: Block, enc: str, data: ManualData, section: str) -> None:
    header = [h.lower() for h in b.header]
    pairs = [(k, k + 1) for k in range(0, len(header) - 1) if "opcode" in header[k] and "name" in header[k + 1]]
    enc = re.sub(r"\s+OPCODES$", "", enc)
    for row, line in zip(b.rows, b.row_lines, strict=False):
        for oi, ni in pairs:
            if ni >= len(row):
                continue
            op_cell, name_cell = row[oi].strip(), _clean_name(row[ni])
            if not op_cell and not name_cell:
                continue
            if name_cell.upper() in ("RESERVED", "-", "—"):
                continue  # unused opcode slot, not an instruction
            if not op_cell.isdigit() or not _INSTR_NAME.match(name_cell):
                data.skips.append(Skip(data.file, line, f"{enc} opcode table cell not 'number | NAME'",
                                       f"{op_cell} | {name_cell}"[:120]))
                continue
            data.opcodes.append(OpcodeEntry(data.arch, enc, int(op_cell), name_cell, _prov(data, line, section)))


# ---------------------------------------------------------------- instructions chapter


def _read_instructions(blocks: list[Block], data: ManualData) -> dict[str, tuple[int, str]]:
    """Read the instructions chapter into data.docs; return each section's heading line and first
    paragraph, by title (for sections without per-instruction headings, see _add_section_rows)."""
    sections: dict[str, tuple[int, str]] = {}
    section = ""
    compare_ops: Block | None = None
    lost: list[tuple[InstructionDoc, _Segment, int]] = []
    blocks = _split_embedded_tables(blocks, data)
    i, n = 0, len(blocks)
    while i < n:
        b = blocks[i]
        if b.kind == "heading":
            m = _NUMBERED.match(b.text)
            if m:
                section = m.group(2).replace("\\", "")
                nxt = blocks[i + 1] if i + 1 < n else None
                sections.setdefault(section, (b.line, nxt.text.strip() if nxt is not None and nxt.kind == "text" else ""))
                i += 1
                continue
            hm = _INSTR_HEADING.match(_clean_heading(b.text))
            if hm:
                i = _read_headed(blocks, i, hm.group(1), int(hm.group(2)), section, data, lost)
                continue
        elif b.kind == "table" and _is_desc_table(b.header):
            _read_desc_table(b, section, data)
        elif b.kind == "table" and _is_compare_ops(b.header):
            compare_ops = b
        elif b.kind == "table" and _is_compare_template(b.header) and compare_ops is not None:
            _expand_compare_templates(b, compare_ops, section, data)
        i += 1
    _name_lost_headings(data, lost)
    return sections


def _add_section_rows(data: ManualData, sections: dict[str, tuple[int, str]]) -> None:
    """Rows the opcode tables lack: the export instruction (only a section paragraph) and the
    instructions of a section named by function (LDS parameter/direct loads), see amd_quirks."""
    tabled = {e.name for e in data.opcodes}
    for section, (line, text) in sections.items():
        if not _EXPORT_SECTION.match(section):
            continue
        enc = "VEXPORT" if "VEXPORT" in data.encodings else "EXP" if "EXP" in data.encodings else None
        name = "EXPORT" if enc == "VEXPORT" else "EXP"
        if enc is None or name in tabled:
            continue
        prov = _prov(data, line, f"{section}; the format's single opcode (no heading in the manual)")
        data.docs.append(InstructionDoc(data.arch, name, section, 0, text, "", "", "headed", prov))
        data.opcodes.append(OpcodeEntry(data.arch, enc, 0, name, prov))
        _repair(data, "export-without-heading", line, f"{name} in {enc}")
    fmt = next((f for f in FUNCTION_SECTION_FORMATS if f in data.encodings), None)
    for d in list(data.docs):
        if fmt and _FUNCTION_SECTION.match(d.section) and d.opcode is not None and d.name not in tabled:
            data.opcodes.append(OpcodeEntry(data.arch, fmt, d.opcode, d.name, d.provenance))
            tabled.add(d.name)
            _repair(data, "section-named-by-function", sections[d.section][0], f"{d.name} in {fmt}")


def _check_template_docs(data: ManualData) -> None:
    """Keep a doc expanded from a compare template only where it fills a gap the opcode tables confirm.

    The templates cover families some manuals no longer have (V_CMPS*), so an expansion
    counts only if its name is in an opcode table with the same opcode and has no doc of its own.
    """
    table_ops: dict[str, set[int]] = {}
    for e in data.opcodes:
        table_ops.setdefault(e.name, set()).add(e.opcode)
    own = {d.name for d in data.docs if d.style != "template"}
    kept = []
    for d in data.docs:
        if d.style == "template":
            if d.name in own:
                continue
            if d.name not in table_ops:
                continue  # family not in this manual's opcode tables (e.g. V_CMPS_* after GCN3)
            if d.opcode not in table_ops[d.name]:
                data.skips.append(Skip(data.file, d.provenance.line, f"{d.name}: template gives opcode {d.opcode}, "
                                       f"opcode table gives {sorted(table_ops[d.name])}"))
                continue
            d = InstructionDoc(**{**_doc_dict(d), "style": "table"})
        kept.append(d)
    data.docs = kept


def _is_compare_ops(header: list[str]) -> bool:
    h = [c.lower() for c in header]
    return len(h) >= 3 and "compare operation" in h[0] and "offset" in h[1]


def _is_compare_template(header: list[str]) -> bool:
    h = [c.lower() for c in header]
    return len(h) >= 3 and h[0] == "instruction" and "range" in h[2]


def _expand_compare_templates(b: Block, ops: Block, section: str, data: ManualData) -> None:
    """vega7 lists compares as templates (V_CMP_{COMPF}_F16, 0x20 to 0x2F) plus a table of the
    compare operations and their opcode offsets; expand them into one doc per instruction."""
    for row, line in zip(b.rows, b.row_lines, strict=False):
        template, what, hex_range = [*row, "", "", ""][:3]
        template = _clean_name(template)
        m = re.match(r"0x([0-9A-Fa-f]+)", hex_range.strip())
        placeholder = _TEMPLATE_PLACEHOLDER.search(template)
        if not m or not placeholder:
            data.skips.append(Skip(data.file, line, "compare template row not understood", " | ".join(row)[:120]))
            continue
        base = int(m.group(1), 16)
        _repair(data, "compare-templates", line, template)
        for op_row in ops.rows:
            if len(op_row) < 3 or not op_row[1].strip().isdigit():
                continue
            name = template.replace(placeholder.group(0), _clean_name(op_row[0]))
            data.docs.append(InstructionDoc(
                arch=data.arch, name=name, section=section, opcode=base + int(op_row[1]),
                description=f"{what} {op_row[2]}".strip(), pseudocode=op_row[2], notes="", style="template",
                provenance=_prov(data, line, f"{section}; expanded from {template} with {op_row[0]} (line {ops.line})"),
            ))


def _clean_heading(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace("\\", "").replace("*", "")).strip()


@dataclass(slots=True)
class _Segment:
    """Text under one instruction heading; a heading lost in conversion starts a second segment."""

    line: int
    desc: list[str]
    code: list[str]
    notes: list[str]
    prose_since_code: int = 0


def _read_headed(blocks: list[Block], start: int, name: str, opcode: int, section: str, data: ManualData,
                 lost: list[tuple[InstructionDoc, _Segment, int]]) -> int:
    """Read one per-instruction heading and what follows it; return the index after it.

    A prose paragraph followed by a second code block, after this heading already had code, is
    the next instruction whose heading the conversion dropped (rdna3: V_MED3_I32's text sits
    under V_MED3_F32). Such segments go to `lost`, to be named from the opcode table later.
    """
    segs = [_Segment(blocks[start].line, [], [], [])]
    part = "desc"
    i = start + 1
    while i < len(blocks):
        b = blocks[i]
        cur = segs[-1]
        if b.kind == "heading":
            title = _clean_heading(b.text)
            if _INSTR_HEADING.match(title) or _NUMBERED.match(b.text) or _CHAPTER.match(b.text):
                break
            low = title.lower()
            if low in ("expression", "expressions", "pseudocode"):
                part = "code"
            elif low in ("notes", "note"):
                part = "notes"
            else:
                (cur.notes if part == "notes" else cur.desc).append(title)
            i += 1
            continue
        text = _block_text(b)
        if b.kind == "code":
            if cur.code and cur.prose_since_code and cur.notes and "=" in text:
                desc = [cur.notes.pop()]
                while cur.notes and desc[0][:1].islower():   # a description split at a page break
                    desc.insert(0, cur.notes.pop())
                segs.append(_Segment(b.line, desc, [text], []))
                part = "code"
            elif part == "notes":
                cur.notes.append(text)
            else:
                cur.code.append(text)
                cur.prose_since_code = 0
        elif part in ("notes", "code") or cur.code:
            # prose after an expression block (e.g. page-break leftovers) belongs with notes
            cur.notes.append(text)
            cur.prose_since_code += 1
        else:
            cur.desc.append(text)
        i += 1
    first = segs[0]
    doc = _headed_doc(data, name, opcode, section, first, _prov(data, blocks[start].line, section))
    data.docs.append(doc)
    lost.extend((doc, seg, k) for k, seg in enumerate(segs[1:], 1))
    return i


def _headed_doc(data: ManualData, name: str, opcode: int | None, section: str, seg: _Segment,
                prov: Provenance) -> InstructionDoc:
    return InstructionDoc(
        arch=data.arch, name=name, section=section, opcode=opcode,
        description="\n\n".join(t for t in seg.desc if t), pseudocode="\n".join(seg.code).strip(),
        notes="\n\n".join(t for t in seg.notes if t), style="headed", provenance=prov)


_NAME_TYPE = re.compile(r"_([UIFB])(8|16|32|64)(?=_|$)")


def _types_agree(name: str, code: list[str]) -> bool:
    """The pseudocode uses every data type the name carries (V_SEXT_I32_I8: .i32 and .i8), so an
    example or a field table that follows a lost heading is not taken for its pseudocode."""
    wanted = {(k.lower(), w) for k, w in _NAME_TYPE.findall(name)}
    text = "\n".join(code)
    if not wanted:
        return False
    for kind, width in wanted:
        kinds = {"u": "ub", "b": "bu", "i": "i", "f": "f"}[kind]
        typed = any(f".{k}{width}" in text for k in kinds)
        untyped = width == "32" and any(re.search(rf"\.{k}\b", text) for k in kinds)  # older `.u` = 32 bits
        if not (typed or untyped):
            return False
    return True


def _name_lost_headings(data: ManualData, lost: list[tuple[InstructionDoc, _Segment, int]]) -> None:
    """Name each lost-heading segment from the opcode table: the k-th segment after instruction A
    is the instruction with opcode A+k in A's encodings, if that one has no heading of its own.
    Otherwise the text goes back to A's notes, as the manual shows it."""
    documented = {d.name for d in data.docs}
    position = {id(d): i for i, d in enumerate(data.docs)}
    for doc, seg, k in lost:
        encs = {e.encoding for e in data.opcodes if e.name == doc.name and e.opcode == doc.opcode}
        candidates = sorted({e.name for e in data.opcodes
                             if e.encoding in encs and e.opcode == (doc.opcode or 0) + k and e.name not in documented})
        if len(candidates) == 1 and seg.desc and seg.desc[0][:1].isupper() and _types_agree(candidates[0], seg.code):
            name = candidates[0]
            documented.add(name)
            prov = _prov(data, seg.line, f"{doc.section}; heading lost in conversion, named from the opcode table "
                                         f"({sorted(encs)[0]} opcode {(doc.opcode or 0) + k})")
            data.docs.append(_headed_doc(data, name, (doc.opcode or 0) + k, doc.section, seg, prov))
            data.skips.append(Skip(data.file, seg.line, f"recovered {name}: its heading was lost; text followed {doc.name}"))
            _repair(data, "heading-lost", seg.line, f"{name} after {doc.name}")
        else:
            idx = position[id(doc)]
            current = data.docs[idx]
            extra = "\n\n".join([*seg.desc, *seg.code, *seg.notes])
            data.docs[idx] = InstructionDoc(**{**_doc_dict(current), "notes": (current.notes + "\n\n" + extra).strip()})


def _block_text(b: Block) -> str:
    if b.kind == "table":
        lines = [" | ".join(b.header)] if b.header else []
        lines += [" | ".join(r) for r in b.rows]
        return "\n".join(lines)
    return b.text


def _is_desc_table(header: list[str]) -> bool:
    h = [c.lower() for c in header]
    return len(h) >= 3 and "opcode" in h[0] and "name" in h[1] and "description" in h[2]


def _read_desc_table(b: Block, section: str, data: ManualData) -> None:
    """Older manuals: `Opcode | Name | Description` rows, continuation rows have empty opcode."""
    last: InstructionDoc | None = None
    for row, line in zip(b.rows, b.row_lines, strict=False):
        if len(row) < 3:
            continue
        op_cell, name_cell, desc = row[0].strip(), _clean_name(row[1]), row[2].strip()
        if not op_cell and not name_cell:
            if last is not None and desc:
                merged = InstructionDoc(**{**_doc_dict(last), "description": last.description + " " + desc,
                                           "pseudocode": last.pseudocode + " " + desc})
                data.docs[-1] = merged
                last = merged
            continue
        if not op_cell.isdigit() or not _INSTR_NAME.match(name_cell):
            data.skips.append(Skip(data.file, line, "instruction table row not 'number | NAME | text'",
                                   f"{op_cell} | {name_cell}"[:120]))
            last = None
            continue
        last = InstructionDoc(
            arch=data.arch, name=name_cell, section=section, opcode=int(op_cell), description=desc,
            pseudocode=desc, notes="", style="table", provenance=_prov(data, line, section),
        )
        data.docs.append(last)


def _doc_dict(doc: InstructionDoc) -> dict:
    return {k: getattr(doc, k) for k in InstructionDoc.__slots__}


# ---------------------------------------------------------------- VOP3 promotion rules


def _apply_vop3_rules(blocks: list[Block], data: ManualData) -> None:
    """Derive VOP3 opcodes of VOP1/VOP2/VOPC/VINTERP instructions from the manual's stated rule.

    "The VOP3 opcode is: VOP2 opcode + 0x140" sits in the section of the encoding it applies
    to; several manuals name VOP2 in the VOP1 section (a copy error), so the section decides and
    the manual's wording is kept in the provenance. Entries already in an opcode table win.
    """
    section_enc: str | None = None
    vop3b: set[str] = set()
    rules: list[tuple[str, str, int, int, str]] = []
    for b in blocks:
        if b.kind == "heading":
            m = _NUMBERED.match(b.text)
            if m:
                first = m.group(2).replace("\\", "").split()[0].upper()
                section_enc = first if _ENC_TOKEN.match(first) else None
            continue
        if b.kind != "text":
            continue
        text = b.text.replace("\\", "")
        for m in _VOP3B_LIST.finditer(text):
            _repair(data, "vop3b-only-for", b.line, m.group(1))
            vop3b.update(re.findall(r"[VS]_[A-Z0-9_]+", m.group(2)))
        m = _VOP3_RULE.search(text)
        if m and section_enc:
            dst = canonical_encoding(m.group(1))
            if dst not in data.encodings and f"{dst}A" in data.encodings:
                dst = f"{dst}A"  # GCN manuals say "VOP3" for the format they define as VOP3A
                _repair(data, "vop3-means-vop3a", b.line, section_enc)
            rules.append((section_enc, dst, int(m.group(3), 16), b.line, m.group(0)))
    vop3_rows: dict[str, OpcodeEntry] = {}
    for e in data.opcodes:
        if e.encoding.startswith("VOP3") and e.encoding != "VOP3P":
            vop3_rows.setdefault(e.name, e)
    for src_enc, dst_enc, offset, line, wording in rules:
        wording_short = re.sub(r"\s+", " ", wording)[-60:]
        prov = Provenance(SOURCE, data.file, line, f"VOP3 rule: '{wording_short}' applied to {src_enc}")
        named = _VOP3_RULE_NAMES.search(wording)
        _repair(data, "vop3-promotion-rule", line, f"{src_enc} + 0x{offset:x} -> {dst_enc}")
        if named and named.group(1) != src_enc:
            _repair(data, "vop3-rule-names-other-encoding", line, f"{named.group(1)} in {src_enc} section")
            data.errata.append(Erratum("*", data.arch, "vop3-opcode-rule",
                                       f"the {src_enc} section states the rule for '{named.group(1)} opcode'; "
                                       f"gpuisa applies it to {src_enc}", (prov,)))
        for e in [e for e in data.opcodes if e.encoding == src_enc]:
            target = "VOP3B" if (dst_enc == "VOP3A" and e.name in vop3b) else dst_enc
            table_row = vop3_rows.get(e.name)
            if table_row is None:
                data.opcodes.append(OpcodeEntry(data.arch, target, e.opcode + offset, e.name, prov))
            elif table_row.opcode != e.opcode + offset:
                data.errata.append(Erratum(
                    e.name, data.arch, "vop3-opcode-rule",
                    f"{src_enc} opcode {e.opcode} + 0x{offset:x} gives VOP3 opcode {e.opcode + offset}, "
                    f"the {table_row.encoding} opcode table gives {table_row.opcode}",
                    (prov, table_row.provenance)))


# ---------------------------------------------------------------- layouts shared between encodings



def _derive_shared_layouts(data: ManualData) -> None:
    """Give fields to opcode-table encodings that share another format's layout.

    GLOBAL and SCRATCH use the FLAT layout with SEG = 2 / 1 (GCN to RDNA3, stated in the SEG
    field's description); rdna4/cdna5 define one "FLAT, GLOBAL and SCRATCH" table whose ENCODING
    field lists a value per segment. The derived encoding cites the donor table.
    """
    for enc in sorted({e.encoding for e in data.opcodes} - set(data.encodings)):
        stem = enc[1:] if enc.startswith("V") and enc[1:] in ("FLAT", "GLOBAL", "SCRATCH") else enc
        if stem not in ("FLAT", "GLOBAL", "SCRATCH"):
            continue
        donor = next((e for k, e in data.encodings.items() if "FLAT" in k), None)
        if donor is None:
            continue
        fields = []
        for f in donor.fields:
            value = f.value
            if f.name == "SEG":
                seg = {m.group(2).upper(): int(m.group(1)) for m in _SEG_VALUE.finditer(f.description)}
                value = seg.get(stem)
            elif f.name == "ENCODING":
                named = {m.group(1).upper(): int(m.group(2).replace("_", ""), 2)
                         for m in _NAMED_VALUE.finditer(f.description)}
                value = named.get(stem, f.value)
            fields.append(Field(f.name, f.bits, value, f.spelling, f.description))
        prov = Provenance(SOURCE, data.file, donor.provenance.line, f"layout of {donor.spelling} applied to {enc}")
        _repair(data, "segment-shares-flat-layout", donor.provenance.line, f"{enc} from {donor.name}")
        data.encodings[enc] = Encoding(data.arch, enc, donor.width, tuple(fields), prov, donor.spelling)
    combined = [k for k in data.encodings if "," in k or " AND " in k]
    for k in combined:
        _repair(data, "combined-flat-table", data.encodings[k].provenance.line, k)
        del data.encodings[k]

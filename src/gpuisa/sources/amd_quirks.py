"""The AMD manual quirk table: every place where the Markdown manuals cannot be read as printed.

Two kinds of entry, one table each, every entry with its reason and the manual lines where it
appears (`amd-isa-manuals/<arch>/README.md:<line>`):

* MANUAL_QUIRKS: defects of the manuals or of their PDF-to-Markdown conversion that the reader
  (sources/amd_manual.py) repairs with generic code: tables that swallow the next table, tables
  split at page breaks, lost headings, widened ENCODING values, layouts shared by name. The
  reader records each place it applies one (ManualData.repairs); a test checks that the places
  listed here are among them and that no manual applies a quirk this table does not list for it.

Only identifiers are quoted here (names, bit values), never the manuals' prose.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Seen:
    """One place a quirk appears: manual of `arch`, 1-based `line`, and what is there."""

    arch: str
    line: int
    what: str

    def cite(self) -> str:
        return f"amd-isa-manuals/{self.arch}/README.md:{self.line}"


@dataclass(frozen=True, slots=True)
class ManualQuirk:
    """A defect the reader repairs: why it is needed, what the reader does, where it appears.

    `seen` holds the first place per manual that has it; `pattern`, where given, is the text
    pattern the reader recognises it by (so the wording lives here, not in the reader)."""

    id: str
    reason: str
    repair: str
    seen: tuple[Seen, ...]
    pattern: re.Pattern[str] | None = None

    @property
    def archs(self) -> frozenset[str]:
        return frozenset(s.arch for s in self.seen)


_ALL = ("vega", "vega7", "cdna1", "rdna1", "rdna2", "cdna2", "rdna3", "cdna3", "rdna3.5", "rdna4", "cdna4", "cdna5")

_QUIRKS: tuple[ManualQuirk, ...] = (
    ManualQuirk(
        "table-swallows-next",
        "the conversion lost the blank line between two tables, so one table's body holds the next "
        "table's caption and header rows",
        "split the table at each embedded header row; an embedded caption row becomes a text block again",
        (Seen("vega7", 3396, "SOP2 field table runs into the SOP2 opcode table"),
         Seen("rdna4", 5937, "compare-operation table runs into the next one"))),
    ManualQuirk(
        "table-split-at-page-break",
        "an opcode table continued after a page break has no caption of its own",
        "a captionless opcode table belongs to the encoding of its section, like its first part",
        (Seen("cdna1", 5023, "SMEM"), Seen("rdna1", 5380, "VOPC"), Seen("rdna2", 5426, "VOPC"),
         Seen("cdna2", 4910, "SMEM"), Seen("cdna3", 21059, "VOP3A"), Seen("cdna4", 22725, "VOP3A"),
         Seen("cdna5", 6521, "VOP3"))),
    ManualQuirk(
        "field-table-repeated",
        "a field table (or some of its rows) is printed twice",
        "a field given again with the same bits is dropped; with other bits it is kept once and the "
        "other bits are listed as a skip (RESERVED fields at several places are all kept)",
        (Seen("cdna1", 5721, "VOP3P"), Seen("rdna3", 5680, "VINTERP SRC0"), Seen("rdna3.5", 5729, "VINTERP SRC0"))),
    ManualQuirk(
        "encoding-value-wider",
        "the ENCODING row's bit range is narrower than the fixed value it gives",
        "the value is what the hardware matches, so the range is widened to the value's width "
        "(and the widening is listed as a skip)",
        (Seen("cdna2", 5593, "'b110100111 in [31:24]"), Seen("rdna3", 5541, "'b11001100 in [31:26]"),
         Seen("cdna3", 21243, "'b110100111 in [31:24]"), Seen("rdna3.5", 5589, "'b11001100 in [31:26]"),
         Seen("rdna4", 6493, "'b11001101 in [31:26]"), Seen("cdna4", 22948, "'b110100111 in [31:24]"))),
    ManualQuirk(
        "heading-lost",
        "an instruction's heading was dropped in conversion, so its text follows the previous "
        "instruction's (sometimes with its description split at a page break)",
        "a prose paragraph then a second expression block after an instruction that already had one "
        "is the next opcode of the same encoding when that one has no heading and its data types agree",
        (Seen("rdna3", 13515, "V_FMA_MIXHI_F16 after V_FMA_MIXLO_F16"),
         Seen("cdna5", 7861, "S_MUL_HI_U32 after S_MUL_I32"))),
    ManualQuirk(
        "compare-templates",
        "compare instructions are listed as templates (V_CMP_{COMPF}_F16 with an opcode range) plus a "
        "table of compare operations and their opcode offsets",
        "expand each template with each operation; keep an expansion only where the opcode tables list "
        "that name with that opcode and it has no text of its own",
        tuple(Seen(a, line, "V_CMP_{COMP*} template") for a, line in (
            ("vega", 3011), ("vega7", 2331), ("cdna1", 3256), ("rdna1", 3479), ("rdna2", 3510), ("cdna2", 3254),
            ("rdna3", 10582), ("cdna3", 7799), ("rdna3.5", 11218), ("rdna4", 12353), ("cdna4", 8195),
            ("cdna5", 13955))),
        re.compile(r"\{[A-Z]+\}")),
    ManualQuirk(
        "vop3-promotion-rule",
        "the VOP3 opcodes of VOP1/VOP2/VOPC/VINTERP instructions are given by a rule in prose "
        "('VOP2 opcode + 0x100'), not in the VOP3 opcode table",
        "apply the rule of each encoding's section to its opcode table; rows already in a VOP3 opcode "
        "table win, and a disagreement is an erratum",
        tuple(Seen(a, line, what) for a, line, what in (
            ("vega", 2874, "VOP2 + 0x100"), ("vega7", 2193, "VOP2 + 0x100"), ("cdna1", 3084, "VOP2 + 0x100"),
            ("rdna1", 3299, "VOP2 + 0x100"), ("rdna2", 3329, "VOP2 + 0x100"), ("cdna2", 3080, "VOP2 + 0x100"),
            ("rdna3", 9330, "VOP2 + 0x100"), ("cdna3", 6646, "VOP2 + 0x100"),
            ("rdna3.5", 11169, "VOP2 + 0x180 (in the VOP1 section)"),
            ("rdna4", 11050, "VOP2 + 0x100"), ("cdna4", 6987, "VOP2 + 0x100"), ("cdna5", 12200, "VOP2 + 0x100"))),
        re.compile(r"may also be encoded as (VOP3[AB]?)\b.*?opcode is:\s*([A-Z0-9]+) opcode\s*\+\s*0x([0-9A-Fa-f]+)",
                   re.DOTALL)),
    ManualQuirk(
        "vop3-rule-names-other-encoding",
        "the promotion rule in the VOP1 (VOPC, VINTERP) section is worded for 'VOP2 opcode' (a copy error)",
        "the section decides which opcode table the rule applies to; the wording is kept in the provenance "
        "and an erratum says so",
        tuple(Seen(a, line, "VOP2 in the VOP1 section") for a, line in (
            ("vega", 2961), ("vega7", 2276), ("cdna1", 3206), ("rdna1", 3430), ("rdna2", 3460), ("cdna2", 3206),
            ("rdna3", 10538), ("cdna3", 7745), ("rdna3.5", 11169), ("rdna4", 12304), ("cdna4", 8141))),
        re.compile(r"is:\s*([A-Z0-9]+) opcode")),
    ManualQuirk(
        "vop3-means-vop3a",
        "GCN-style manuals say 'VOP3' in the promotion rule for the format they define as VOP3A",
        "a rule naming an encoding the manual does not define goes to that name + 'A' when defined",
        tuple(Seen(a, line, "VOP3 for VOP3A") for a, line in (
            ("vega", 2874), ("vega7", 2193), ("cdna1", 3084), ("rdna1", 3299), ("rdna2", 3329), ("cdna2", 3080),
            ("cdna3", 6646), ("cdna4", 6987)))),
    ManualQuirk(
        "vop3b-only-for",
        "which promoted instructions use VOP3B (VOP3SD) instead of VOP3A is a list in prose",
        "promoted instructions in that list get VOP3B (VOP3SD) rows",
        (Seen("vega7", 2595, "VOP3B"), Seen("rdna1", 3814, "VOP3B"), Seen("rdna3", 13732, "VOP3SD"),
         Seen("cdna3", 10832, "VOP3B"), Seen("cdna4", 11597, "VOP3B")),
        re.compile(r"\b(VOP3B|VOP3SD)\b[^.]*?used only for:?\s*((?:[VS]_[A-Z0-9_]+[\s,]*)+)")),
    ManualQuirk(
        "segment-shares-flat-layout",
        "GLOBAL and SCRATCH (VGLOBAL, VSCRATCH) have opcode tables but no field table: they use the FLAT "
        "layout, told apart by the SEG field (values stated in SEG's description) or by ENCODING",
        "give the segment encodings the FLAT layout with SEG (or ENCODING) fixed to the stated value; the "
        "derived layout cites the FLAT table",
        tuple(Seen(a, line, "FLAT field table") for a, line in (
            ("vega", 5827), ("vega7", 4859), ("cdna1", 6411), ("rdna1", 6026), ("rdna2", 6085), ("cdna2", 6198),
            ("rdna3", 6025), ("cdna3", 21648), ("rdna3.5", 6070), ("rdna4", 6831), ("cdna4", 23357),
            ("cdna5", 7218))),
        re.compile(r"(\d+)\s*=\s*(flat|scratch|global)", re.IGNORECASE)),
    ManualQuirk(
        "combined-flat-table",
        "one field table is titled 'FLAT, GLOBAL and SCRATCH'; its ENCODING row lists one value per segment",
        "each segment encoding takes its own ENCODING value from that row; the combined name is not an "
        "encoding and is dropped",
        (Seen("rdna4", 6831, "FLAT, GLOBAL and SCRATCH"), Seen("cdna5", 7218, "FLAT, GLOBAL and SCRATCH")),
        re.compile(r"(Flat|Global|Scratch)\s*=\s*'b([01_]+)", re.IGNORECASE)),
)

MANUAL_QUIRKS: dict[str, ManualQuirk] = {q.id: q for q in _QUIRKS}
ARCHS: tuple[str, ...] = _ALL

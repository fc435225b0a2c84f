"""The AMD manual quirk table: every place where the Markdown manuals cannot be read as printed.

Two kinds of entry, every entry with its reason and the manual lines where it
appears (`amd-isa-manuals/<arch>/README.md:<line>`):

* MANUAL_QUIRKS: defects of the manuals or of their PDF-to-Markdown conversion that the reader
  (sources/amd_manual.py) repairs with generic code: tables that swallow the next table, tables
  split at page breaks, lost headings, widened ENCODING values, layouts shared by name. The
  reader records each place it applies one (ManualData.repairs); a test checks that the places
  listed here are among them and that no manual applies a quirk this table does not list for it.
* LAYOUT_FIXES and OPCODE_FIXES (together CORRECTIONS): facts where LLVM's encodings contradict
  the manual (OP moved, a fixed ENCODING bit, a 128-bit format, VOP1 -> VOP3A opcodes, rows an
  instruction does not have). The build's resolve stage (catalog/resolve.py) applies each where
  LLVM's encodings agree with it, counts the evidence, and keeps the manual's value as an erratum.

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
            ("rdna3.5", 11169, "VOP2 + 0x180 (in the VOP1 section)"), ("rdna4", 11050, "VOP2 + 0x100"),
            ("cdna4", 6987, "VOP2 + 0x100"), ("cdna5", 12200, "VOP2 + 0x100"))),
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

    ManualQuirk(
        "table-inside-list-item",
        "a field table follows a bulleted list without a blank line, so Markdown reads its caption and "
        "rows as the last list item's text",
        "a paragraph holding a table caption followed by '|' rows is parsed again as caption and table",
        (Seen("vega7", 4273, "VOP3B Fields"),)),
    ManualQuirk(
        "opcode-table-without-header",
        "an opcode table has no 'Opcode | Name' header row, so its first row (an opcode and a name) is "
        "read as the header and the table is not recognised",
        "a captioned Opcodes table whose header cells alternate number and instruction name is read with "
        "that row as data",
        (Seen("rdna3", 5593, "VOPD X"), Seen("rdna3.5", 5640, "VOPD X"), Seen("rdna4", 6406, "VOPD X"))),
    ManualQuirk(
        "export-without-heading",
        "the export instruction has no heading of its own: its section ('EXPORT Instructions') holds only a "
        "paragraph, and the microcode chapter says the format has a single opcode",
        "the section's paragraph becomes the description of EXP (EXPORT where the format is VEXPORT), "
        "with opcode 0 in that format",
        tuple(Seen(a, line, f"{what} Instructions") for a, line, what in (
            ("vega", 3918, "EXPORT"), ("vega7", 3144, "EXPORT"), ("rdna1", 4556, "EXPORT"), ("rdna2", 4604, "EXPORT"),
            ("rdna3", 22276, "EXPORT"), ("rdna3.5", 23200, "EXPORT"), ("rdna4", 25514, "VEXPORT"))),
        re.compile(r"^(V?EXPORT) Instructions$")),
    ManualQuirk(
        "section-named-by-function",
        "the LDS parameter/direct loads sit in a section named for what they do, not for their format "
        "(LDSDIR, VDSDIR), and have no opcode table",
        "instructions of that section get rows in the format the microcode chapter defines for it, with "
        "the opcode of their heading",
        (Seen("rdna3", 19340, "Parameter and Direct Load from LDS"), Seen("rdna3.5", 20153, "Parameter and Direct Load from LDS"),
         Seen("rdna4", 21911, "Parameter and Direct Load from LDS")),
        re.compile(r"^Parameter and Direct Load from LDS Instructions$")),
)

# formats a function-named instruction section (section-named-by-function) may use, in order of preference
FUNCTION_SECTION_FORMATS: tuple[str, ...] = ("LDSDIR", "VDSDIR")

MANUAL_QUIRKS: dict[str, ManualQuirk] = {q.id: q for q in _QUIRKS}
ARCHS: tuple[str, ...] = _ALL


# ---------------------------------------------------------------------------------------------
# Corrections: where LLVM's bytes disagree with the manual, the resolved fact follows LLVM.
#
# Each entry states the corrected fact and why; the build's resolution stage (catalog/resolve.py)
# applies it only where the manual still prints the old value, counts the LLVM MC-test encodings
# that agree with the correction and with the manual, and keeps the manual's value beside the
# resolved one as an erratum with those counts. An arch without tests for the encoding is
# settled by a sibling arch that prints the same manual layout (or stays marked unsettled).


@dataclass(frozen=True, slots=True)
class FieldAt:
    """A field where LLVM puts it: name, bit ranges (MSB first), fixed value if any.

    `asm` names the operand in LLVM's printed assembly whose value the field holds ("offset:",
    "gds"), so the field's position is checked against LLVM's bytes too."""

    name: str
    bits: tuple[tuple[int, int], ...]
    value: int | None = None
    asm: str = ""


@dataclass(frozen=True, slots=True)
class LayoutFix:
    """A correction of an encoding's layout on some archs (fields moved, added, fixed; width)."""

    id: str
    archs: tuple[str, ...]
    encodings: tuple[str, ...]
    reason: str
    seen: tuple[Seen, ...]                       # the manual lines printing what is corrected
    fields: tuple[FieldAt, ...] = ()             # replace the field of that name, or add it
    remove: tuple[str, ...] = ()                 # fields that are not in the real layout
    width: int | None = None                     # bits of the whole instruction, extra dwords included
    row_fields: tuple[tuple[str, str, int], ...] = ()   # (name prefix, field, value): per-instruction fixed bits
    # a format the manual describes only in prose (no field table, no opcode table): the layout is `fields`
    # alone, and its instructions are these (name, opcode, the LLVM TableGen line giving the opcode), each
    # added where LLVM's encodings of it agree
    rows: tuple[tuple[str, int, str], ...] = ()


@dataclass(frozen=True, slots=True)
class OpcodeFix:
    """A correction of opcode rows on some archs.

    kind "promotion-offset": rows of `source` promoted to `target` get opcode = source opcode +
    `offset`, over what the target's opcode table prints; "no-promoted-form": the promotion rule
    does not apply to `names` (they have no VOP3 form); "promotes-to": `names` promoted from
    `source` use the `target` encoding; "llvm-only": instructions the arch's manual does not list and
    LLVM encodes on the arch's targets, named by `pattern` in the opcode tables of the sibling arch
    `source`, added with the sibling's encoding and opcode where LLVM's encodings on the arch agree
    with them (and none disagrees); "llvm-td": the `rows` of instructions no opcode table of the arch lists,
    each with its opcode from LLVM's TableGen, added where LLVM's encodings on the arch agree (and none
    disagrees)."""

    id: str
    archs: tuple[str, ...]
    kind: str
    reason: str
    seen: tuple[Seen, ...] = ()
    source: str = ""
    target: str = ""
    offset: int = 0
    names: tuple[str, ...] = ()
    pattern: str = ""
    # kind "llvm-td": (name, encoding, opcode, the LLVM TableGen line giving the opcode) of instructions the
    # manual gives no row, each added where LLVM's encodings of it on the arch agree and none disagrees
    rows: tuple[tuple[str, str, int, str], ...] = ()


# where the "llvm-td" entries' opcodes are defined (a Real_gfx1250 / Real_gfx12 defm line)
_TD = "llvm-project-23.1.1/llvm/lib/Target/AMDGPU"


LAYOUT_FIXES: tuple[LayoutFix, ...] = (
    LayoutFix(
        "flat-op-21-14", ("rdna4", "cdna5"), ("VFLAT", "VGLOBAL", "VSCRATCH"),
        "the FLAT, GLOBAL and SCRATCH field table prints OP at [20:13] and no offset field; LLVM's "
        "encodings carry the opcode at [21:14] and a 24-bit signed immediate offset at [95:72]",
        (Seen("rdna4", 6834, "OP [20:13]"), Seen("cdna5", 7222, "OP [20:13]")),
        fields=(FieldAt("OP", ((21, 14),)), FieldAt("IOFFSET", ((95, 72),), asm="offset:"))),
    LayoutFix(
        "ds-op-25-18", ("rdna1", "rdna2"), ("DS",),
        "the DS field table prints GDS at [16] and OP at [24:17]; LLVM's encodings carry the opcode "
        "at [25:18] and GDS at [17] (as GCN5 and RDNA3 do)",
        (Seen("rdna1", 5717, "OP [24:17]"), Seen("rdna2", 5772, "OP [24:17]")),
        fields=(FieldAt("OP", ((25, 18),)), FieldAt("GDS", ((17, 17),), asm="gds"))),
    LayoutFix(
        "vop3p-encoding-9-bits", ("vega", "vega7", "cdna1"), ("VOP3P",),
        "the VOP3P field table prints ENCODING [31:24] = 'b11010011 and leaves bit 23 unassigned; "
        "LLVM's encodings have [31:23] = 'b110100111 (0x1A7), as the CDNA2+ manuals print",
        (Seen("vega", 5211, "ENCODING [31:24]"), Seen("vega7", 4305, "ENCODING [31:24]"),
         Seen("cdna1", 5707, "ENCODING [31:24]")),
        fields=(FieldAt("ENCODING", ((31, 23),), 0b110100111),)),
    LayoutFix(
        "sop2-encoding", ("cdna2",), ("SOP2",),
        "the SOP2 field table has no ENCODING row; LLVM's encodings have [31:30] = 'b10 as every other "
        "manual prints",
        (Seen("cdna2", 4500, "OP [29:23], no ENCODING"),),
        fields=(FieldAt("ENCODING", ((31, 30),), 0b10),)),
    LayoutFix(
        "vop2-bit-31", ("rdna2",), ("VOP2",),
        "the VOP2 ENCODING row [31] gives its value only as a bare '0' the reader cannot tell from text; "
        "LLVM's encodings have bit 31 clear",
        (Seen("rdna2", 5186, "ENCODING [31]"),),
        fields=(FieldAt("ENCODING", ((31, 31),), 0),)),
    LayoutFix(
        "vop2-encoding-cdna5", ("cdna5",), ("VOP2",),
        "the VOP2 field table ends with OP [30:25] and has no ENCODING row; LLVM's encodings have bit 31 clear, "
        "as every other manual prints (gfx1250_asm_vop2.s:160 `v_add_nc_u64_e32 v[4:5], v[2:3], v[4:5]` ends "
        "with byte 0x50)",
        (Seen("cdna5", 6135, "OP [30:25], no ENCODING"),),
        fields=(FieldAt("ENCODING", ((31, 31),), 0),)),
    LayoutFix(
        "vop3px2-128-bits", ("cdna5",), ("VOP3PX2",),
        "the VOP3PX2 format is two tables, bits [63:0] (load scale) and [127:64] (WMMA), but the second "
        "table numbers its bits from 0 and the format is read as one 64-bit layout with overlapping "
        "fields; LLVM's encodings are 128 bits: 'b11001100_0011 at [31:20], the scale opcode at [19:16], "
        "the WMMA opcode at [87:80] and 'b11001100 at [95:88]",
        (Seen("cdna5", 6824, "ENCODING [31:20]"),),
        fields=(FieldAt("ENCODING", ((31, 20),), 0b110011000011), FieldAt("SCLOP", ((19, 16),)),
                FieldAt("VDST", ((71, 64),)), FieldAt("NEG_HI", ((74, 72),)), FieldAt("OPSEL", ((77, 75),)),
                FieldAt("OPSEL_HI2", ((78, 78),)), FieldAt("CLAMP", ((79, 79),)), FieldAt("OP", ((87, 80),)),
                FieldAt("ENCODING2", ((95, 88),), 0b11001100), FieldAt("SRC0", ((104, 96),)),
                FieldAt("SRC1", ((113, 105),)), FieldAt("SRC2", ((122, 114),)), FieldAt("OPSEL_HI", ((124, 123),)),
                FieldAt("NEG", ((127, 125),))),
        width=128,
        row_fields=(("V_WMMA_SCALE16_", "SCLOP", 0b1010), ("V_WMMA_SCALE_", "SCLOP", 0b0101))),
    LayoutFix(
        "vop3px2-scale-mfma", ("cdna4",), ("VOP3PX2",),
        "the scaled MFMAs (V_MFMA_SCALE_F32_16X16X128_F8F6F4, _32X32X64_F8F6F4) are described in prose only: a "
        "4-dword instruction that looks like two back-to-back VOP3Ps, the first with 0xD3AC across ENCODING "
        "through OP, the second a VOP3P-MAI word with the MFMA's opcode; the load-scale table then prints "
        "ENCODING as 0xCC35 in [31:16]; no field table, no opcode. LLVM's encodings (VOPInstructions.td:593 "
        "VOP3PXe) have 0xD3AC at [31:16], the scale sources at [40:32] and [49:41] with OP_SEL [12:11] and "
        "OP_SEL_HI [60:59], and the VOP3P-MAI fields 64 bits up with ABID fixed to 1 (`abid must be 1 to use a "
        "scale`); the opcodes are VOP3PInstructions.td's (prose: cdna4/README.md:1952-1956)",
        (Seen("cdna4", 1960, "ENCODING 0xCC35 in bits [31:16] (load-scale table)"),),
        fields=(FieldAt("ENCODING", ((31, 16),), 0xD3AC), FieldAt("OPSEL", ((12, 11),)),
                FieldAt("SCALE_SRC0", ((40, 32),)), FieldAt("SCALE_SRC1", ((49, 41),)), FieldAt("OPSEL_HI", ((60, 59),)),
                FieldAt("VDST", ((71, 64),)), FieldAt("CBSZ", ((74, 72),)),
                FieldAt("ABID", ((78, 75),), 1), FieldAt("ACC_CD", ((79, 79),)), FieldAt("OP", ((86, 80),)),
                FieldAt("ENCODING2", ((95, 87),), 0b110100111), FieldAt("SRC0", ((104, 96),)),
                FieldAt("SRC1", ((113, 105),)), FieldAt("SRC2", ((122, 114),)), FieldAt("ACC", ((124, 123),)),
                FieldAt("BLGP", ((127, 125),))),
        width=128,
        rows=(("V_MFMA_SCALE_F32_16X16X128_F8F6F4", 0x2D,
               "llvm-project-23.1.1/llvm/lib/Target/AMDGPU/VOP3PInstructions.td:3119"),
              ("V_MFMA_SCALE_F32_32X32X64_F8F6F4", 0x2E,
               "llvm-project-23.1.1/llvm/lib/Target/AMDGPU/VOP3PInstructions.td:3121"))),
    LayoutFix(
        "sopk-simm16", ("vega", "vega7", "rdna3"), ("SOPK",),
        "the SOPK field table lists SDST, OP and ENCODING only, though the format's description names its "
        "16-bit immediate; LLVM's encodings carry SIMM16 at [15:0], as the other manuals' tables print",
        (Seen("vega", 4288, "SDST [22:16], no SIMM16 row"), Seen("vega7", 3458, "SDST [22:16], no SIMM16 row"),
         Seen("rdna3", 4827, "SDST [22:16], no SIMM16 row")),
        fields=(FieldAt("SIMM16", ((15, 0),)),)),
    LayoutFix(
        "smem-glc-14", ("rdna3", "rdna3.5"), ("SMEM",),
        "the SMEM field table prints DLC at [14] and GLC at [16]; LLVM's encodings carry GLC at [14] and DLC at "
        "[13] (gfx11_dasm_smem.txt `s_buffer_load_b128 s[20:23], s[4:7], 0x1234 glc dlc` = 0xf4286502), as the "
        "rdna3.5 manual's other cache-policy tables print them",
        (Seen("rdna3", 4977, "GLC [16]"), Seen("rdna3.5", 5032, "GLC [16]")),
        fields=(FieldAt("GLC", ((14, 14),), asm="glc"), FieldAt("DLC", ((13, 13),), asm="dlc"))),
    LayoutFix(
        "mtbuf-offset", ("vega",), ("MTBUF",),
        "the MTBUF field table has no OFFSET row; LLVM's encodings carry the 12-bit unsigned offset at [11:0], "
        "as the vega7 and CDNA manuals print",
        (Seen("vega", 5557, "OFFEN [12] first, no OFFSET row"),),
        fields=(FieldAt("OFFSET", ((11, 0),), asm="offset:"),)),
    LayoutFix(
        "mtbuf-soffset", ("vega7", "cdna2"), ("MTBUF",),
        "the MTBUF field table has no SOFFSET row; LLVM's encodings carry the SGPR offset at [63:56], as the "
        "vega and CDNA3 manuals print",
        (Seen("vega7", 4612, "OFFSET [11:0] .. TFE [55], no SOFFSET row"),
         Seen("cdna2", 5971, "OFFSET [11:0] .. ACC [55], no SOFFSET row")),
        fields=(FieldAt("SOFFSET", ((63, 56),)),)),
)


_CARRY_OUT = ("V_ADD_CO_U32", "V_SUB_CO_U32", "V_SUBREV_CO_U32", "V_ADDC_CO_U32", "V_SUBB_CO_U32", "V_SUBBREV_CO_U32",
              "V_ADD_CO_CI_U32", "V_SUB_CO_CI_U32", "V_SUBREV_CO_CI_U32", "V_DIV_SCALE_F32", "V_DIV_SCALE_F64",
              "V_MAD_U64_U32", "V_MAD_I64_I32")

OPCODE_FIXES: tuple[OpcodeFix, ...] = (
    OpcodeFix(
        "vop1-vop3a-offset-0x140", ("cdna3", "cdna4"), "promotion-offset",
        "the VOP3A opcode table lists VOP1 instructions at VOP1 opcode + 0x180 (the RDNA rule); the manual's "
        "own rule, AMD's XML and LLVM's encodings give VOP1 opcode + 0x140",
        (Seen("cdna3", 7745, "VOP2 opcode + 0x140 (in the VOP1 section)"),
         Seen("cdna4", 8141, "VOP2 opcode + 0x140 (in the VOP1 section)")),
        source="VOP1", target="VOP3A", offset=0x140),
    OpcodeFix(
        "no-vop3-form", ("vega", "vega7", "cdna1", "rdna1", "rdna2", "cdna2", "rdna3", "cdna3", "rdna3.5", "rdna4",
                         "cdna4", "cdna5"), "no-promoted-form",
        "the promotion rule is stated for a whole encoding, but these instructions have no VOP3 (e64) form: "
        "they take an inline literal (fmaak/fmamk, madak/madmk), write two VGPRs or another lane "
        "(swap, permlane64, readfirstlane); LLVM encodes them only in their own encoding",
        names=("V_FMAAK_F32", "V_FMAMK_F32", "V_FMAAK_F16", "V_FMAMK_F16", "V_FMAAK_F64", "V_FMAMK_F64",
               "V_MADAK_F32", "V_MADMK_F32", "V_MADAK_F16", "V_MADMK_F16", "V_SWAP_B32", "V_SWAP_B16",
               "V_SWAPREL_B32", "V_PERMLANE64_B32", "V_READFIRSTLANE_B32")),
    OpcodeFix(
        "no-vop3-form-accumulate", ("vega", "vega7", "rdna1", "rdna2", "rdna3", "rdna3.5", "rdna4", "cdna5"),
        "no-promoted-form",
        "the VOP2 instructions that accumulate into their destination (pk_fmac, dot2acc, dot2c/dot4c/dot8c) have "
        "no VOP3 (e64) form outside CDNA1-CDNA4: llvm-mc 22 rejects v_pk_fmac_f16_e64 and v_dot2c_f32_f16_e64 on "
        "gfx906, gfx1010, gfx1030, gfx1100, gfx1200 and gfx1250 and encodes them on gfx908, gfx90a, gfx942 and "
        "gfx950 (VOP2 opcode + 0x100: v_pk_fmac_f16_e64 is 0xd13c; gfx908-xdl-insts.txt:439 prints "
        "v_pk_fmac_f16_e32, the suffix of an instruction that has an e64 form)",
        names=("V_PK_FMAC_F16", "V_DOT2ACC_F32_F16", "V_DOT2C_F32_F16", "V_DOT2C_I32_I16", "V_DOT4C_I32_I8",
               "V_DOT8C_I32_I4", "V_DOT2C_F32_BF16")),
    OpcodeFix(
        "carry-out-vop3b", ("vega", "vega7", "cdna1", "cdna2", "rdna1", "rdna2"), "promotes-to",
        "instructions with a scalar carry-out (or borrow, or div_scale's VCC) use VOP3B, whose SDST field "
        "[14:8] names it; the manual's list of them is split from its heading into separate paragraphs "
        "(or absent) and spells the GCN names, so the reader filed them as VOP3A",
        (Seen("vega", 3314, "VOP3B list in the next paragraph"), Seen("rdna2", 3854, "VOP3B list split over paragraphs"),
         Seen("rdna1", 3814, "V_ADDC_CO_U32 for V_ADD_CO_CI_U32")),
        source="VOP3A", target="VOP3B", names=_CARRY_OUT),
    OpcodeFix(
        "llvm-only-smem-ds", ("rdna1", "rdna2"), "llvm-only",
        "the RDNA1 and RDNA2 manuals list no scalar stores or atomics (S_STORE_*, S_BUFFER_STORE_*, S_ATOMIC_*, "
        "S_BUFFER_ATOMIC_*, S_DCACHE_DISCARD*) and no DS *_SRC2_* instructions; LLVM encodes them on gfx10 targets with the Vega "
        "manual's opcodes in the arch's own SMEM / DS layouts (gfx10_smem.txt:25 s_atomic_add s5, s[2:3], 0x64: "
        "opcode 130, vega/README.md:2787; gfx10_ds.txt:280 ds_add_src2_f32: opcode 149)",
        source="vega", pattern=r"^(S_(BUFFER_)?(STORE|ATOMIC)_\w+|S_DCACHE_DISCARD(_X2)?|DS_\w+_SRC2_\w+)$"),
    OpcodeFix(
        "llvm-td-load-scale", ("cdna4",), "llvm-td",
        "the load-scale half of the scaled MFMAs is also an instruction of its own, V_MFMA_LD_SCALE_B32, which no "
        "opcode table lists; the manual puts 0xD3AC across ENCODING through OP, which is VOP3P opcode 0x2C, and "
        "LLVM encodes it alone so (mai-gfx950.s:174 `v_mfma_ld_scale_b32 v0, 64` = 0xd3ac4000)",
        (Seen("cdna4", 1956, "0xD3AC across ENCODING through OP"),),
        rows=(("V_MFMA_LD_SCALE_B32", "VOP3P", 0x2C,
               "llvm-project-23.1.1/llvm/lib/Target/AMDGPU/VOP3PInstructions.td:3117"),)),
    OpcodeFix(
        "llvm-td-gfx1250", ("cdna5",), "llvm-td",
        "gfx1250 has instructions no opcode table of the cdna5 manual lists: the WMMA load-scale halves used alone "
        "(v_wmma_ld_scale_paired_b32 / v_wmma_ld_scale16_paired_b64, the first two dwords of a VOP3PX2 scale WMMA), "
        "s_add_pc_i64, s_alloc_vgpr and the tensor_save / tensor_stop global instructions; LLVM's TableGen gives "
        "each its opcode (gfx1250_asm_wmma_w32.s:968 `v_wmma_ld_scale_paired_b32 v1, v2` = 0xcc350000, "
        "gfx1250_asm_sop1.s:8 `s_add_pc_i64 s[2:3]` = 0xbe804b02, gfx1250_asm_vflat.s:3598 `tensor_save s[0:1]`)",
        (Seen("cdna5", 6762, "VOP3P opcodes 53 and 58 absent (54, 57 then 61)"),
         Seen("cdna5", 5967, "SOP1 opcode 75 absent (74 then 76)"), Seen("cdna5", 5975, "SOP1 opcode 83 Reserved"),
         Seen("cdna5", 7317, "VGLOBAL opcodes 110, 111 Reserved")),
        rows=(("V_WMMA_LD_SCALE_PAIRED_B32", "VOP3P", 0x35, f"{_TD}/VOP3PInstructions.td:2764"),
              ("V_WMMA_LD_SCALE16_PAIRED_B64", "VOP3P", 0x3A, f"{_TD}/VOP3PInstructions.td:2765"),
              ("S_ADD_PC_I64", "SOP1", 0x4B, f"{_TD}/SOPInstructions.td:2352"),
              ("S_ALLOC_VGPR", "SOP1", 0x53, f"{_TD}/SOPInstructions.td:2347"),
              ("TENSOR_SAVE", "VGLOBAL", 0x6E, f"{_TD}/FLATInstructions.td:3683"),
              ("TENSOR_STOP", "VGLOBAL", 0x6F, f"{_TD}/FLATInstructions.td:3684"))),
)

CORRECTIONS: dict[str, LayoutFix | OpcodeFix] = {q.id: q for q in (*LAYOUT_FIXES, *OPCODE_FIXES)}

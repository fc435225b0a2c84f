"""Cross-check of LLVM's syntax pages against LLVM's MC tests: does every example's operand list
parse against the operand row its target's page documents?

For each example (a check line llvm-mc printed or decoded; expected-error lines are McNegatives
and never reach here) and each syntax family serving one of its targets, the example's operands
are matched in order against the row's operands (optional ones may be left out) and each token
against the kinds the operand's page accepts (VGPR / SGPR / AGPR ranges of the page's size,
special registers, inline constants, literals, labels, hwreg(..)-style values); its modifiers
must be modifiers the row lists. The operand rows are the codec's (`tables.syntax_rows`): the
same operand model the assembler and disassembler walk. Operand text is split by the assembler's
own splitter and registers / numbers are read by codec.operands.

A mismatch is an erratum naming the example's file:line and the row's .rst file:line; the
vendor quirks the check allows for are in the named tables below, each with its source line.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from gpuisa.archs import TARGET_TO_ARCH
from gpuisa.codec import operands as ops
from gpuisa.codec.conformance import wants_wave64
from gpuisa.codec.encoder import _split, _strip_neg_abs, _Token
from gpuisa.codec.operands import OperandError
from gpuisa.codec.syntax import generation
from gpuisa.codec.tables import (
    E32_ENCODINGS,
    VOP3_ENCODINGS,
    Operand,
    Row,
    _dwords_of,
    _matrix_row,
    dpp_row,
    e64_from_e32,
    fallback_rows,
    matrix_dwords,
    row_of,
    served_row,
    syntax_rows,
)
from gpuisa.model_llvm import McExample
from gpuisa.model_syntax import KIND_NAMES, SyntaxDocs
from gpuisa.sources.llvm_syntax_docs import (
    ASYNC_LDS,
    DPP64,
    FLAT_SADDR,
    GFX9_ROW_ON_GFX12,
    LOAD_SCALE_OPERANDS,
    LOAD_SCALE_ROW,
    MATRIX_TWINS,
    MODIFIER_EVIDENCE,
    OLDER_ROWS,
    OPERAND_EVIDENCE,
    PACKED_CVT,
    PROFILE_TWIN,
    RENAMED_ROW,
    ROW_EVIDENCE,
    SCALE_OPERANDS_ROW,
    SCALED_MATRIX,
    SCALED_MATRIX_ROW,
    SOURCE_ONLY,
    UNNAMED_TARGETS,
    VOPD3_SOURCES,
    VOPD_BITOP,
    VOPD_BITOP_ROW,
    WIDE_TWIN,
    atomic_return_optional,
    derived_bits,
    derived_row,
    families_for_target,
    matrix_format_dwords,
    modifier_entries,
    older_row,
    rule_source,
    scaled_matrix_modifiers,
    type_tag_bits,
)

_USAGE = "llvm-project-23.1.1/llvm/docs/AMDGPUUsage.rst"
_OPERANDS = "llvm-project-23.1.1/llvm/docs/AMDGPUOperandSyntax.rst"
_MODIFIERS = "llvm-project-23.1.1/llvm/docs/AMDGPUModifierSyntax.rst"

# Generations whose page (AMDGPUAsmGFX7.rst, AMDGPUAsmGFX8.rst) names no target and whose targets
# are outside the catalog's archs: LLVM's processor table places them under the generation heading.
GENERATION_PAGES: dict[str, tuple[str, str]] = {
    "7": ("GFX7", f"{_USAGE}:364 (GCN GFX7 (Sea Islands (CI)): gfx700-gfx705)"),
    "8": ("GFX8", f"{_USAGE}:403 (GCN GFX8 (Volcanic Islands (VI)): gfx801-gfx810)"),
}

# Register spellings that are not sN / vN / aN / ttmpN: LLVM kind (the AMDGPUOperandSyntax.rst
# section an operand page links to) and width in dwords (None: any width, e.g. null).
SPECIAL_REGISTERS: dict[str, tuple[str, int | None]] = {
    "vcc": ("vcc", 2), "vcc_lo": ("vcc", 1), "vcc_hi": ("vcc", 1),                # :480-482
    "exec": ("exec", 2), "exec_lo": ("exec", 1), "exec_hi": ("exec", 1),           # :526-528
    "m0": ("m0", 1), "null": ("null", None),                                       # :511, :595
    # the condition bits read as a value of the operand's width (an inline constant code)
    "scc": ("scc", None), "src_scc": ("scc", None), "vccz": ("vccz", None), "src_vccz": ("vccz", None),  # :558-580
    "execz": ("execz", None), "src_execz": ("execz", None),
    "flat_scratch": ("flat_scratch", 2), "flat_scratch_lo": ("flat_scratch", 1),   # :424
    "flat_scratch_hi": ("flat_scratch", 1),
    "xnack_mask": ("xnack_mask", 2), "xnack_mask_lo": ("xnack_mask", 1),           # :451
    "xnack_mask_hi": ("xnack_mask", 1),
    "tba": ("tba", 2), "tba_lo": ("tba", 1), "tba_hi": ("tba", 1),                 # :371
    "tma": ("tma", 2), "tma_lo": ("tma", 1), "tma_hi": ("tma", 1),                 # :398
    "lds_direct": ("lds_direct", 1), "src_lds_direct": ("lds_direct", 1),          # :587
    **{f"{p}{n}": ("ival", None) for n in ("shared_base", "shared_limit", "private_base", "private_limit",
                                            "pops_exiting_wave_id") for p in ("", "src_")},   # :679-695
    "off": ("off", None),                                                          # :776
}

# Kinds a page may list that stand for a group of other kinds (AMDGPUOperandSyntax.rst).
KIND_GROUPS: dict[str, frozenset[str]] = {
    "trap": frozenset({"ttmp", "tba", "tma"}),                    # :285-294
    "constant": frozenset({"iconst", "fconst", "ival"}),          # :606-620
    "vcc_lo": frozenset({"vcc"}),
}

# Pages that list `fconst` where every inline constant is meant: the GFX12 / GFX950 generators link
# integer instructions' sources (s_abs_i32's ssrc0) to fconst and never to iconst or constant.
FCONST_MEANS_CONSTANT: dict[str, str] = {
    "GFX12": "llvm-project-23.1.1/llvm/docs/AMDGPU/gfx12_operands.rst:1062 (s_abs_i32 ssrc0: fconst, literal)",
    "GFX950": "llvm-project-23.1.1/llvm/docs/AMDGPU/gfx950_ssrc0_eecc17.rst (s_abs_i32 ssrc0: fconst, literal)",
    "GFX940": "llvm-project-23.1.1/llvm/docs/AMDGPU/gfx940_ssrc_*.rst (s_abs_i32 ssrc: fconst, literal)",
}

# Immediate kinds and their ranges (AMDGPUOperandSyntax.rst :720-775).
IMMEDIATE_RANGES: dict[str, tuple[int, int]] = {
    "uimm8": (0, 0xFF), "uimm20": (0, 0xFFFFF), "uimm32": (0, 0xFFFFFFFF), "simm8": (-0x80, 0xFF),
    "simm16": (-0x8000, 0xFFFF), "simm21": (-0x100000, 0x0FFFFF),
}
_VALUE_KINDS = frozenset({"integer_number", "absolute_expression", "symbol"})
_ANY_INTEGER = frozenset({"integer_number", "absolute_expression", "literal"})
_EXPRESSION = frozenset({"absolute_expression", "symbol", "literal"})

# Example modifier spellings and the row modifier names that accept them (AMDGPUModifierSyntax.rst):
# a DPP control is documented under dpp_ctrl / dpp16_ctrl / dpp32_ctrl / dpp64_ctrl, mul:/div: under
# omod, the typed-buffer format spellings under format / ufmt; every other modifier by its own name.
_DPP_CONTROLS = ("quad_perm", "row_shl", "row_shr", "row_ror", "row_mirror", "row_half_mirror", "row_share",
                 "row_xmask", "row_bcast", "row_newbcast", "wave_shl", "wave_shr", "wave_rol", "wave_ror")
MODIFIER_NAMES: dict[str, tuple[str, ...]] = {
    **{c: ("dpp_ctrl", "dpp16_ctrl", "dpp32_ctrl", "dpp64_ctrl") for c in _DPP_CONTROLS},
    "dpp8": ("dpp8_sel",), "mul": ("omod",), "div": ("omod",),
    "op_sel": ("op_sel", "m_op_sel", "dpp_op_sel"), "op_sel_hi": ("op_sel_hi", "m_op_sel_hi"),
    # typed-buffer formats: GFX9-era pages call the modifier fmt, later ones format / ufmt
    "format": ("format", "ufmt", "fmt"), "dfmt": ("format", "fmt"), "nfmt": ("format", "fmt"),
    "ufmt": ("ufmt", "format"),
}
_OFFSET_NAME = re.compile(r"^offset(\d+[su]?)?$")
_OFFSET_BITS = re.compile(r"^offset(\d{2})([su]?)$")
_FUNCTION = re.compile(r"\b([a-z_][a-z0-9_]*)\(", re.I)
_NUMBERED = re.compile(r"^(?:mrt\d+|mrtz|null|pos\d+|param\d+|prim|dual_src_blend[01]|attr\d+\.[xyzw]|p10|p20|p0)$")
_MODIFIER_TOKEN = re.compile(r"^(?:format|dfmt|nfmt|ufmt):", re.I)
_VGPR16 = re.compile(r"^v(\d+)\.([lh])$")
_EXPR = re.compile(r"^[\w.$@+\-*/%()<>&|^~!\s]+$")


@dataclass(frozen=True, slots=True)
class Mismatch:
    """One example whose operands do not parse against its family's row: an erratum."""

    family: str
    example: str       # file:line of the check line
    text: str          # the example's assembly
    reason: str        # why the best-matching row refused it
    row: str           # the .rst file:line of that row ("" when no row names the mnemonic)

    @property
    def kind(self) -> str:
        """A class for counting: the reason without the example's own spellings and numbers."""
        text = re.sub(r"^operand \d+ '[^']*': ", "operand: ", self.reason)
        text = re.sub(r"^(no row for|modifier) '?[a-z0-9_]+", lambda m: m.group(1) + " X", text)
        text = re.sub(r"^[a-z0-9_]+ (takes|needs) ", r"row \1 ", text)
        return re.sub(r"'[^']*'", "'..'", re.sub(r"\d+", "N", text))[:90]

    def to_json(self) -> dict:
        return {"family": self.family, "example": self.example, "text": self.text, "reason": self.reason,
                "row": self.row}


@dataclass
class FamilyTally:
    total: int = 0
    statuses: Counter = field(default_factory=Counter)     # PAGE / OTHER_PAGE / TRUE16 / EVIDENCE / MISMATCH
    evidence: Counter = field(default_factory=Counter)     # OPERAND_EVIDENCE label -> examples it explains
    mismatches: list[Mismatch] = field(default_factory=list)

    @property
    def ok(self) -> int:
        return self.total - self.statuses[MISMATCH]

    @property
    def rate(self) -> float:
        return self.ok / self.total if self.total else 0.0


@dataclass
class OperandReport:
    """Per syntax family: examples checked, how each parsed, and every mismatch; examples with no page."""

    families: dict[str, FamilyTally] = field(default_factory=lambda: defaultdict(FamilyTally))
    no_page: Counter = field(default_factory=Counter)      # target -> examples no syntax page serves
    served_by: dict[str, str] = field(default_factory=dict)   # family bucket -> why it serves those targets
    invalid_text: int = 0     # disassembler checks printing `/*Invalid register ...*/`: not valid examples

    def to_json(self, samples: int | None = None) -> dict:
        out = {}
        for fam, t in sorted(self.families.items()):
            kinds = Counter(m.kind for m in t.mismatches)
            listed = t.mismatches if samples is None else t.mismatches[:samples]
            out[fam] = {"ok": t.ok, "total": t.total, "rate": round(t.rate, 5), "parsed": dict(t.statuses),
                        "served_by": self.served_by.get(fam, ""), "operand_evidence": dict(t.evidence),
                        "mismatch_classes": dict(kinds.most_common()),
                        "mismatches": [m.to_json() for m in listed]}
        explained = Counter()
        for t in self.families.values():
            explained.update(t.evidence)
        corrections = {label: {"examples": explained[label], "page": fix.source.cite(), "tests": f"{fix.evidence}: {fix.example}",
                               "reads": fix.use, "reason": fix.reason} for label, fix in OPERAND_EVIDENCE.items()}
        derived = {rule: {"examples": explained[rule], "pattern": fix.source.cite(),
                          "tests": f"{fix.evidence}: {fix.example}", "serves": list(fix.families), "reason": fix.reason}
                   for rule, fix in ROW_EVIDENCE.items()}
        derived.update({name: {"examples": explained[name], "pattern": fix.source.cite(),
                               "tests": f"{fix.evidence}: {fix.example}", "serves": list(fix.families),
                               "reason": fix.reason, "adds": list(fix.modifiers)}
                        for name, fix in MODIFIER_EVIDENCE.items()})
        older = {name: {"examples": explained[name], "page": fix.source.cite(), "older": fix.older,
                        "tests": f"{fix.evidence}: {fix.example}", "reason": fix.reason}
                 for name, fix in OLDER_ROWS.items()}
        return {"families": out, "no_page": dict(self.no_page), "invalid_text": self.invalid_text,
                "older_rows": older,
                "true16_rule": TRUE16_RULE, "image_data_rule": IMAGE_DATA_RULE, "f8f6f4_rule": F8F6F4_RULE,
                "operand_evidence": corrections,
                "derived_rows": derived}


def family_of(docs: SyntaxDocs, target: str) -> tuple[str, tuple[str, ...], str] | None:
    """(bucket, page chain, why) for a target: the page naming it, the nearest generation's page, or
    GENERATION_PAGES; None when no page serves it."""
    chain, why = families_for_target(docs, target)
    if chain:
        if target in UNNAMED_TARGETS:
            return f"{chain[0]} ({TARGET_TO_ARCH.get(target, target)})", chain, why
        return chain[0], chain, why
    digits = target[3:]
    page = GENERATION_PAGES.get(digits[0]) if len(digits) == 3 else None
    if page and page[0] in docs.families:
        return page[0], (page[0],), page[1]
    return None


class _Refusal(Exception):
    def __init__(self, depth: int, message: str) -> None:
        super().__init__(message)
        self.depth, self.message = depth, message


# Statuses of one example against one family: parsed against the page's own row, against the row of
# another page (what the codec does for a mnemonic the page lacks), with the true16 rule, or not.
PAGE, OTHER_PAGE, TRUE16, MISMATCH = "page", "other page", "true16 half", "mismatch"
# Parsed only because an OPERAND_EVIDENCE entry put LLVM's tests over the row's own page (an erratum
# of that page, counted per entry).
EVIDENCE = "test evidence over the page"
# Parsed against a row no page lists, derived by a ROW_EVIDENCE rule from the page's own row (counted
# per rule).
DERIVED = "row derived by rule"

# LLVM's tests in real-true16 mode (-mattr=+real-true16) name 16-bit halves of VGPRs (v1.l, v1.h); the
# pages describe those operands as whole VGPRs (fake16), and the generic page says its 16-bit register
# syntax is incomplete. A vN.l / vN.h is accepted for a 1-dword VGPR operand in a real-true16 example,
# and counted apart.
TRUE16_RULE = f"{_OPERANDS}:126 (v (16-bit): 'This section is incomplete ... still WIP')"


class RowMatcher:
    """Matches one example's text against the rows of one page chain (one wave size)."""

    def __init__(self, docs: SyntaxDocs, chain: tuple[str, ...], wave64: bool, gen: int,
                 rows_of: Callable[[str], dict[str, Row]] | None = None, bucket: str = "") -> None:
        self.docs = docs
        self.chain, self.wave64, self.gen = chain, wave64, gen
        # what a ROW_EVIDENCE rule may name: the chain's page, or the family bucket ('GFX12 (cdna5)')
        self.serves = {chain[0], bucket or chain[0]}
        self.rows_of = rows_of or (lambda fam: syntax_rows(docs, (fam,), wave64))
        self.rows: dict[str, Row] = {}
        own_bucket = bool(bucket) and bucket != chain[0]   # 'GFX11 (rdna3.5)': targets the page does not name
        for fam in chain:   # the most specific page first, as syntax_rows merges a chain
            for key, row in self.rows_of(fam).items():
                if own_bucket:   # OPERAND_EVIDENCE entries serving the bucket (gfx115x's VOP3 DPP src1)
                    row = served_row(docs, row, (bucket,), wave64)
                self.rows.setdefault(key, self._shaped(with_modifier_evidence(row, self.serves)))
        self._fallback: dict[str, Row] | None = None
        self.fconst_all = any(f in FCONST_MEANS_CONSTANT for f in chain)
        self.true16 = False
        self.modifiers: dict[str, str] = {}  # the example's modifiers (name -> value): dmask, d16, tfe
        self.mnemonic = ""                   # the row being matched
        self.vopd_tried: list[Row] = []      # the VOPD rows the example's half was matched against
        self.used: set[str] = set()          # OPERAND_EVIDENCE labels the row being matched relied on
        self.last_evidence: frozenset[str] = frozenset()   # those of the last check() that parsed

    @property
    def fallback(self) -> dict[str, Row]:
        if self._fallback is None:
            # a borrowed row takes the modifiers LLVM's tests add to it, as on its own page
            self._fallback = {k: self._shaped(self.gfx12_use(with_modifier_evidence(r, self.serves)))
                              for k, r in fallback_rows(self.docs, self.chain, self.wave64, self.rows_of).items()}
        return self._fallback

    def gfx12_use(self, row: Row) -> Row:
        """A GFX9-family page's VOP row borrowed for a gfx12-generation bucket (GFX9_ROW_ON_GFX12): sources
        taking SGPRs also take null and a literal, VOP3 rows clamp and omod; the row unchanged elsewhere."""
        page = row.source.rpartition(" (")[2].split(" ")[0]
        section = row.section.split()[0]
        if not page.startswith("GFX9") or section not in ("VOP1", "VOP2", "VOP3", "VOP3P", "VOPC") or \
                not self.serves & set(ROW_EVIDENCE[GFX9_ROW_ON_GFX12].families):
            return row
        ops = [replace(o, accepts=(*o.accepts, *added), evidence=o.evidence or GFX9_ROW_ON_GFX12)
               if o.role == "src" and "s" in o.accepts and
               (added := tuple(k for k in ("null", "literal") if k not in o.accepts)) else o for o in row.operands]
        if section == "VOP3":
            ops += [Operand(m, "modifier", (), 1, "", False, True, "", GFX9_ROW_ON_GFX12)
                    for m in ("clamp", "omod") if not any(o.name == m for o in ops)]
        return replace(row, operands=tuple(ops))

    def promotes(self, row: Row) -> bool:
        """Whether the e64 form derived from a borrowed GFX9-family e32 row holds for the bucket (GFX9_ROW_ON_GFX12:
        gfx1250's VOP1 instructions have VOP3 forms, the cdna5 manual's VOP3 table lists them: V_PRNG_B32 459)."""
        return row.source.rpartition(" (")[2].startswith("GFX9") and \
            bool(self.serves & set(ROW_EVIDENCE[GFX9_ROW_ON_GFX12].families))

    def _shaped(self, row: Row) -> Row:
        """A gfx12+ WMMA / SWMMAC row with the codec's matrix operand sizes and modifiers (tables.matrix_dwords,
        MATRIX_MODIFIERS: GFX12's page gives f16 results 8 dwords where LLVM's tests pack them in 4)."""
        sizes = matrix_dwords(row.mnemonic, self.gen, self.wave64)
        return _matrix_row(row, sizes, "swmmac" if row.mnemonic.startswith("v_swmmac") else "wmma") if sizes else row

    def candidates(self, rows: dict[str, Row], mnemonic: str) -> list[Row]:
        """Rows an LLVM-printed mnemonic may stand for (e32 / e64 / DPP / SDWA variants)."""
        keys = [mnemonic, mnemonic + "~dpp8"]
        stem = mnemonic
        for suffix in ("_e64_dpp", "_e32", "_e64", "_dpp", "_sdwa"):
            if mnemonic.endswith(suffix):
                stem = mnemonic[: -len(suffix)]
                break
        if stem == mnemonic:
            keys += [stem + s for s in ("_e32", "_e64", "_dpp", "_dpp~dpp8", "_sdwa", "_e64_dpp", "_e64_dpp~dpp8")]
        elif mnemonic.endswith("_e32"):
            keys.append(stem)
        elif mnemonic.endswith("_dpp") and not mnemonic.endswith("_e64_dpp"):
            keys += [stem + "_e64_dpp", stem + "_e64_dpp~dpp8"]
        out = [rows[k] for k in dict.fromkeys(keys) if k in rows]
        if stem in rows and rows[stem].section.split()[0] in E32_ENCODINGS and stem + "_e64" not in rows \
                and not mnemonic.endswith(("_e32", "_dpp", "_sdwa")):
            out.append(with_modifier_evidence(e64_from_e32(rows[stem], self.wave64)))
        return out

    def derived(self, mnemonic: str) -> list[tuple[str, Row]]:
        """(ROW_EVIDENCE rule, row) for a DPP form no page lists: the instruction's plain row (its e64 row
        for `_e64_dpp`, derived from the e32 row where the page lists only that) made a DPP16 and a DPP8
        row, as the codec's tables derive them (tables.dpp_row)."""
        if mnemonic.startswith("v_dual_"):
            return self._derived_vopd(mnemonic)
        ruled = rule_source(mnemonic, self.serves)
        if ruled and ruled[0] == SCALED_MATRIX_ROW:
            return [(ruled[0], row) for row in self._scaled_matrix(mnemonic)]
        # another page's row / the page's own VOP3PX2 row / a listed row's sources
        if ruled and ruled[0] in (RENAMED_ROW, LOAD_SCALE_ROW, ASYNC_LDS, SOURCE_ONLY):
            row = (self.fallback if ruled[2] else self.rows).get(ruled[1])
            return [(ruled[0], derived_row(ruled[0], row, mnemonic))] if row else []
        if ruled:   # BF16_TWIN: every row of the f16 instruction (derived DPP rows too)
            # a plain twin's DPP16-only 64-bit rows (DPP64) do not stand for it: its own rows are another page's
            rows = self.candidates(self.rows, ruled[1]) or [r for rule, r in self.derived(ruled[1])
                                                            if rule != DPP64 or ruled[1].endswith(_FORMS)]
            rows = rows or self.candidates(self.fallback, ruled[1])   # a twin only another page lists (GFX950)
            if ruled[0] == PROFILE_TWIN and not mnemonic.endswith(_FORMS):
                # a DPP form spelled with the plain mnemonic: the twin's DPP rows
                rows += [r for form in ("_dpp", "_e64_dpp") for _, r in self.derived(ruled[1] + form)]
            if ruled[0] in (PROFILE_TWIN, WIDE_TWIN, PACKED_CVT):   # the twin's page sizes another shape
                rows = [_resized(r, ruled[0], mnemonic) for r in rows]
            if added := ROW_EVIDENCE[ruled[0]].modifiers:   # PACKED_CVT: the scale byte selected by scale_sel
                rows = [replace(r, operands=(*r.operands, *(Operand(m, "modifier", (), 1, "", False, True, "", ruled[0])
                                                            for m in added))) for r in rows]
            if rows:
                # a matrix row takes the new shape's register sizes (MATRIX_TWINS)
                return [(ruled[0], self._shaped(replace(r, mnemonic=mnemonic))) for r in rows]
        if not mnemonic.endswith(_FORMS):
            # a DPP form spelled with the plain mnemonic (the tests' input `v_minimum_f32 v5, v1, v2 dpp8:[..]`,
            # printed v_minimum_f32_e64_dpp): the rows of both DPP spellings
            return self.derived(mnemonic + "_dpp") + self.derived(mnemonic + "_e64_dpp")
        vop3 = mnemonic.endswith("_e64_dpp")
        rule = "e64_dpp from the plain row" if vop3 else "dpp from the plain row"
        if not mnemonic.endswith("_dpp") or not self.serves & set(ROW_EVIDENCE[rule].families):
            return []
        stem = mnemonic.removesuffix("_e64_dpp" if vop3 else "_dpp")
        out: list[tuple[str, Row]] = []
        for rows in (self.rows, self.fallback):
            plain = None
            if vop3 and stem + "_e64" in rows:
                plain = rows[stem + "_e64"]
            elif stem in rows or stem + "_e32" in rows:
                row = rows.get(stem) or rows[stem + "_e32"]
                encoding = row.section.split()[0]
                if vop3 and encoding in E32_ENCODINGS:
                    plain = e64_from_e32(row, self.wave64)
                elif encoding in (VOP3_ENCODINGS if vop3 else E32_ENCODINGS):
                    plain = row
            if plain is not None:
                out += [(rule, r) for dpp8 in (False, True) if (r := dpp_row(plain, dpp8, vop3)) is not None]
                if not out and self.serves & set(ROW_EVIDENCE[DPP64].families):   # 64-bit operands: DPP16 only
                    out += [(DPP64, r) for r in [dpp64_row(plain, vop3)] if r is not None]
                break
        return out

    def _scaled_matrix(self, mnemonic: str) -> list[Row]:
        """A SCALED_MATRIX instruction's row: GFX12's WMMA row sized as its Table 43 shape (A and B in FP8, resized by
        the example's formats in _sizes), the scale sources of GFX950's VOP3PX2 row at the instruction's width (no
        AGPRs: VCSrc), and LLVM's asm string's modifiers; the load-scale alone takes the scale sources as src0 / src1."""
        fix = SCALED_MATRIX[mnemonic]
        wmma = self.rows.get(MATRIX_TWINS["v_wmma"])
        scale_row = self.rows.get(SCALE_OPERANDS_ROW) or self.fallback.get(SCALE_OPERANDS_ROW)
        if wmma is None or scale_row is None:
            return []
        scales = [replace(o, accepts=tuple(k for k in o.accepts if k != "a"), dwords=fix.scale_bits // 32, modifiers=False)
                  for o in scale_row.operands if o.name in ("scale_src0", "scale_src1")]
        added = [Operand(m, "modifier", (), 1, "", False, True, "", SCALED_MATRIX_ROW)
                 for m in scaled_matrix_modifiers(mnemonic)]
        if not fix.shape:
            ops = [replace(o, name=LOAD_SCALE_OPERANDS[o.name]) for o in scales] + added
            return [Row(mnemonic, "VOP3P (load-scale, derived)", tuple(ops), wmma.source)]
        shaped = self._shaped(replace(wmma, mnemonic=fix.shape))
        regs = [o for o in shaped.operands if o.role != "modifier"]
        mods = [o for o in shaped.operands if o.role == "modifier"]
        return [Row(mnemonic, "VOP3PX2 (derived)" if fix.scale_bits else shaped.section,
                    (*regs, *(scales if fix.scale_bits else ()), *added, *mods), wmma.source)]

    def flat_with_sgpr_base(self, mnemonic: str) -> list[tuple[str, Row]]:
        """gfx1250's flat_* with an SGPR base: the operands of the global row of the same operation (FLAT_SADDR),
        tried besides the flat row the page lists (the global row requires saddr: a flat example without one
        does not parse against it)."""
        if not mnemonic.startswith("flat_") or not self.serves & set(ROW_EVIDENCE[FLAT_SADDR].families):
            return []
        twin = "global_" + mnemonic.removeprefix("flat_")
        rows = self.candidates(self.rows, twin) or self.candidates(self.fallback, twin) or \
            [r for _, r in self.derived(twin)]
        return [(FLAT_SADDR, replace(r, mnemonic=mnemonic)) for r in rows]

    def _derived_vopd(self, mnemonic: str) -> list[tuple[str, Row]]:
        """A VOPD / VOPD3 half no page lists (gfx1250's new opcodes: v_dual_max_i32, v_dual_fma_f32): the
        instruction's own VOP2 / VOP3 row, its register operands in order, sources taking neg (VOPD3)."""
        if mnemonic in VOPD_BITOP and self.serves & set(ROW_EVIDENCE[VOPD_BITOP_ROW].families):
            # the VOPD form of a three-source bitop: its row without the last source, the truth table kept
            row = self.rows.get(VOPD_BITOP[mnemonic]) or self.fallback.get(VOPD_BITOP[mnemonic])
            if row is None:
                return []
            regs = [o for o in row.operands if o.role != "modifier"]
            ops = tuple(replace(o, modifiers=False) for o in regs[:-1]) + tuple(
                o for o in row.operands if o.name == "bitop3")
            return [(VOPD_BITOP_ROW, Row(mnemonic, f"VOPD half (derived from the {row.section} row)", ops, row.source))]
        rule = "vopd3 x half of a vopdy opcode" if mnemonic + "~vopdy" in self.rows else "vopd half from the plain row"
        if not self.serves & set(ROW_EVIDENCE[rule].families):
            return []
        stem = "v_" + mnemonic.removeprefix("v_dual_")
        for rows in (self.rows, self.fallback):
            row = rows.get(stem) or rows.get(stem + "_e32") or rows.get(stem + "_e64")
            if row is not None and row.section.split()[0] in E32_ENCODINGS | VOP3_ENCODINGS:
                ops = tuple(replace(o, modifiers=o.role == "src" and o.name != "vcc")
                            for o in row.operands if o.role != "modifier")
                return [(rule, Row(mnemonic, f"VOPD half (derived from the {row.section} row)", ops, row.source))]
        return []

    def check(self, asm: str, true16: bool = False) -> tuple[str, str, str]:
        """(status, reason, row source): PAGE / OTHER_PAGE / TRUE16 with no reason, or MISMATCH and why
        (from the row that got furthest)."""
        halves = [h.strip() for h in asm.split("::")] if "::" in asm else [asm.strip()]
        status = PAGE
        relied: set[str] = set()
        self.last_evidence = frozenset()
        for n, half in enumerate(halves):
            got = self._check_one(half, vopdy=n == 1, true16=true16)
            if got[0] == MISMATCH:
                return got
            relied |= self.used
            if got[0] != PAGE:
                status = got[0]
        self.last_evidence = frozenset(relied)
        return (EVIDENCE if relied and status == PAGE else status), "", ""

    def vopd3_row(self, row: Row) -> Row | None:
        """A VOPD half as gfx1250's VOPD3 encoding takes it (VOPD3_SOURCES): sources with neg, v_dual_cndmask_b32's
        select any SGPR as well as VCC; None where the rule does not serve the bucket or the row is no VOPD half."""
        if not row.section.startswith("VOPD") or not self.serves & set(ROW_EVIDENCE[VOPD3_SOURCES].families):
            return None
        ops = tuple(replace(o, accepts=(*o.accepts, "s"), optional=False) if o.name == "vcc" and o.role == "src"
                    else replace(o, modifiers=True) if o.role == "src" else o for o in row.operands)
        return replace(row, operands=ops) if ops != row.operands else None

    def _check_one(self, text: str, vopdy: bool, true16: bool) -> tuple[str, str, str]:
        parts = text.split(None, 1)
        mnemonic = parts[0].lower()
        rest = parts[1] if len(parts) > 1 else ""
        tokens, mods = _split(rest, 1) if rest.strip() else ([], [])
        best: tuple[int, str, str] | None = None
        page_best: tuple[int, str, str] | None = None
        listed_any = False   # the page itself lists a row for the form
        dpp = any(m.text.split(":")[0].lower() in (*_DPP_CONTROLS, "dpp8") for m in mods)
        for status in (PAGE, OTHER_PAGE, DERIVED):
            if status == DERIVED:   # no page lists the form: a ROW_EVIDENCE rule derives it
                cands = ([] if listed_any else self.derived(mnemonic)) + self.flat_with_sgpr_base(mnemonic)
                # the VOPD3 form of each VOPD row tried (and refused) above
                cands += [(VOPD3_SOURCES, r3) for r in self.vopd_tried if (r3 := self.vopd3_row(r)) is not None]
            else:
                rows = self.rows if status == PAGE else self.fallback
                # the VOPDY table lists the Y-only opcodes; every VOPDX opcode may be the Y half too
                listed = [rows[k] for k in (mnemonic + "~vopdy", mnemonic) if k in rows] if vopdy \
                    else self.candidates(rows, mnemonic)
                if status == OTHER_PAGE:   # only variants the page has no row for (GFX12 lists no DPP rows)
                    listed = [r for r in listed if r.mnemonic not in self.rows
                              and r.mnemonic + "~dpp8" not in self.rows
                              and (not r.section.endswith("(derived from the e32 row)") or self.promotes(r))]
                cands = [("", r) for r in listed]
                self.vopd_tried = [r for r in listed if r.section.startswith("VOPD")] + \
                    (self.vopd_tried if status == OTHER_PAGE else [])
                # derived only where the page itself lists no row for the form; a row borrowed from
                # another page that refuses it (GFX950's GFX9-style DPP row of v_cvt_f32_fp8) does not stop it
                # a DPP example against plain rows only (v_minimum_f32 ... dpp8:[..]) still needs its DPP row
                listed_any = listed_any or (status == PAGE and any(not dpp or _has_dpp(r) for r in listed))
            for rule in (False, True) if true16 else (False,):
                self.true16 = rule
                for derived_by, row in cands:
                    try:
                        self._match_row(row, tokens, mods)
                        if derived_by:
                            self.used.add(derived_by)
                        if status == PAGE:
                            self.used |= self._older_row_needed(row, tokens, mods)
                        return (TRUE16 if rule else status), "", ""
                    except _Refusal as exc:
                        if best is None or exc.depth > best[0]:
                            best = (exc.depth, exc.message, row.source)
            if status == PAGE:
                page_best, best = best, None
        best = page_best or best
        if best is None:
            return MISMATCH, f"no row for {mnemonic}" + (" (VOPD Y half)" if vopdy else ""), ""
        return MISMATCH, best[1], best[2]

    def _older_row_needed(self, row: Row, tokens: list[_Token], mods: list[_Token]) -> set[str]:
        """{OLDER_ROWS entry} when `row` is the older page's row serving this page (tables.syntax_rows) and the
        page's own row refuses the example; else empty."""
        own = self.docs.families.get(self.chain[0])
        for ins in own.rows(row.mnemonic) if own else []:
            older, entry = older_row(self.docs, ins)
            if entry and older.provenance.cite() == row.source:
                used = set(self.used)
                try:
                    self._match_row(self._shaped(with_modifier_evidence(row_of(self.docs, ins, self.wave64))), tokens, mods)
                    return set()
                except _Refusal:
                    return {entry}
                finally:
                    self.used = used
        return set()

    # ---------------------------------------------------------------- one row

    def _match_row(self, row: Row, tokens: list[_Token], mods: list[_Token]) -> None:
        self.used = set()
        row_ops = [o for o in row.operands if o.role != "modifier"]
        row_mods = [o for o in row.operands if o.role == "modifier"]
        toks = [t.text for t in tokens]
        words = [m.text for m in mods]
        self.modifiers = {w.partition(":")[0].lower(): w.partition(":")[2] for w in words}
        self.mnemonic = row.mnemonic
        # a token with a space before the last one (`exp mrt0 v1, ...`): operands the row separates
        # with a space instead of a comma
        split: list[str] = []
        for t in toks[:-1]:
            split += [w.text for w in _split_words(t)] if " " in t.strip() and "(" not in t else [t]
        toks = split + toks[-1:]
        while toks and _MODIFIER_TOKEN.match(toks[-1]):   # `s3, format:[BUF_FMT_8_UNORM]`: LLVM prints a comma
            words.insert(0, toks.pop())
        if not row_ops and toks:   # `ds_gws_sema_p offset:4 gds`: a row of modifiers only
            toks, words = [], [w.text for t in toks for w in _split_words(t)] + words
        if not row_mods and words and row_ops and (not row_ops[-1].accepts or _VALUE_KINDS & set(row_ops[-1].accepts)):
            # s_waitcnt vmcnt(0) expcnt(0): one value operand written in words, not modifiers
            toks = [*toks[:-1], " ".join([*toks[-1:], *words])] if toks else [" ".join(words)]
            words = []
        try:
            self._match_operands(row, row_ops, toks, 0, 0)
        except _Refusal as first:
            # an atomic without return leaves vdst out (ATOMIC_RETURN_OPTIONAL, as the assembler reads it): GFX12's
            # rows (GFX950's are read as GFX940's, whose vdst is :opt: OLDER_ROWS)
            if not (row_ops and atomic_return_optional(row.mnemonic, row_ops[0].name) and len(toks) < len(row_ops)
                    and row.source.rpartition(" (")[2].startswith("GFX12 ")):
                raise
            try:
                self._match_operands(row, row_ops[1:], toks, 0, 0)
            except _Refusal as second:
                raise (second if second.depth > first.depth else first) from None
        for w in words:
            self._modifier(row, row_mods, w, len(toks))

    def _match_operands(self, row: Row, row_ops: list[Operand], toks: list[str], i: int, j: int) -> None:
        if j == len(toks):
            missing = [o.name for o in row_ops[i:] if not o.optional]
            if missing:
                raise _Refusal(j, f"{row.mnemonic} needs {', '.join(missing)} after {len(toks)} operand(s)")
            # an operand the page requires and the tests leave out (OPERAND_EVIDENCE implicit)
            self.used.update(o.evidence for o in row_ops[i:] if o.evidence and OPERAND_EVIDENCE[o.evidence].implicit)
            return
        if i == len(row_ops):
            raise _Refusal(j, f"{row.mnemonic} takes {len(row_ops)} operand(s), got {len(toks)}")
        op = row_ops[i]
        why = self._operand(op, toks[j])
        err: _Refusal | None = None
        if why is None:
            try:
                self._match_operands(row, row_ops, toks, i + 1, j + 1)
                return
            except _Refusal as exc:
                err = exc
        else:
            err = _Refusal(j, f"operand {j + 1} {toks[j]!r}: {why} ({op.name})")
        if op.optional:
            try:
                self._match_operands(row, row_ops, toks, i + 1, j)
                return
            except _Refusal as exc:
                err = exc if exc.depth > err.depth else err
        raise err

    # ---------------------------------------------------------------- one operand

    def _kinds(self, op: Operand) -> set[str]:
        kinds = set(op.accepts)
        if not kinds and op.name in KIND_NAMES:   # a page titled `literal` / `simm16` that links no kind
            kinds = {op.name}
        for group, members in KIND_GROUPS.items():
            if group in kinds:
                kinds |= members
        if "fconst" in kinds and self.fconst_all:
            kinds |= {"iconst", "ival"}
        return kinds

    def _operand(self, op: Operand, text: str) -> str | None:
        """None when `text` is a value `op`'s page accepts, else why not; notes the OPERAND_EVIDENCE entry
        when only the tests' page (not the row's own) accepts it."""
        why = self._operand_on_page(op, text)
        if why is None and op.evidence and self._operand_on_page(self._as_documented(op), text) is not None:
            self.used.add(op.evidence)
        return why

    def _as_documented(self, op: Operand) -> Operand:
        """The operand as the row's own page (before OPERAND_EVIDENCE) describes it."""
        if op.evidence in MODIFIER_EVIDENCE:   # its page as is: no neg / abs, the page's width
            page = self.docs.pages.get(op.page)
            if op.name in MODIFIER_EVIDENCE[op.evidence].type_tags(self.mnemonic) and page is not None:
                return replace(op, dwords=_dwords_of(page.size_bits, page.size_text, (), self.wave64), type_tag="",
                               evidence="")
            return replace(op, modifiers=False, evidence="")
        if op.evidence == GFX9_ROW_ON_GFX12:   # the GFX9-family page's kinds, without GFX12's null and literal
            page = self.docs.pages.get(op.page)
            return replace(op, accepts=page.accepts if page else tuple(
                k for k in op.accepts if k not in ("null", "literal")), evidence="")
        page = self.docs.pages.get(op.evidence)
        if page is None:
            return replace(op, accepts=(), evidence="")
        return replace(op, accepts=page.accepts, size_text=page.size_text, page=page.label, evidence="",
                       dwords=_dwords_of(page.size_bits, page.size_text, (), self.wave64))

    def _operand_on_page(self, op: Operand, text: str) -> str | None:
        kinds = self._kinds(op)
        low = text.strip().lower()
        core, neg, abs_ = _strip_neg_abs(low)
        if not kinds:   # pages naming no kind (exp's tgt, v_interp's attr / param, 8+ dword bvh addresses)
            if _NUMBERED.match(core) or _register(core) or core.startswith("["):
                return None
            return "not a value its page describes"
        sext = False
        if core.startswith("sext(") and core.endswith(")"):
            core, sext = core[5:-1].strip(), True
        if (neg or abs_ or sext) and not op.modifiers:
            return "neg/abs/sext modifiers not allowed on this operand"
        if core.startswith("[") and core.endswith("]") and "," in core:   # NSA address: [v1, v2, v3]
            regs = [_register(p.strip()) for p in core[1:-1].split(",")]
            if all(r and r[0] == "v" for r in regs) and "v" in kinds:
                return None
            return "not a list of VGPRs"
        reg = _register(core)
        if reg is not None:
            return self._register_ok(op, kinds, reg)
        if core in SPECIAL_REGISTERS:
            kind, dwords = SPECIAL_REGISTERS[core]
            if kind not in kinds:
                return f"{kind} is not among {', '.join(op.accepts) or 'its kinds'}"
            sizes = self._sizes(op)
            if dwords is not None and sizes is not None and dwords not in sizes:
                return f"{core} is {dwords} dword(s), the operand takes {_sizes_text(sizes)}"
            return None
        return self._value_ok(op, kinds, core)

    def _register_ok(self, op: Operand, kinds: set[str], reg: tuple[str, int, int | None]) -> str | None:
        kind, _first, n = reg
        if kind == "v16":
            if "v16" in kinds or ("v" in kinds and "16 bits" in op.size_text):
                return None
            if self.true16 and "v" in kinds and op.dwords == 1:
                return None
            return "a 16-bit VGPR half where the operand takes " + (", ".join(op.accepts) or "none")
        if kind == "v" and "v16" in kinds:
            kinds = kinds | {"v"}
        if kind not in kinds:
            return f"{'an ' if kind == 'a' else 'a '}{kind.upper()} register where the operand takes " \
                   f"{', '.join(op.accepts)}"
        sizes = self._sizes(op)
        if sizes is not None and n not in sizes:
            return f"{n} dword(s), the operand takes {_sizes_text(sizes)}"
        return None

    def _sizes(self, op: Operand) -> set[int] | None:
        """Register widths (dwords) the operand's page allows; None when the page leaves it open. Image
        data sized by the example's dmask / d16 / tfe (IMAGE_DATA_RULE) is the one width they give."""
        page = self.docs.pages.get(op.page)
        widths = image_dwords(op.size_text, page.text if page else "", self.modifiers)
        if widths is None:
            widths = f8f6f4_dwords(self.mnemonic, op, self.modifiers)
        if widths is None and (n := matrix_format_dwords(self.mnemonic, op.name, op.dwords, self.modifiers)):
            widths = {n}
        return widths if widths is not None else allowed_dwords(op, self.wave64)

    def _value_ok(self, op: Operand, kinds: set[str], core: str) -> str | None:
        if core.startswith(("lit(", "lit64(")) and core.endswith(")"):
            return None if "literal" in kinds else "a literal where the page lists none"
        func = _FUNCTION.match(core)
        if func and func.start() == 0:
            page = self.docs.pages.get(op.page)
            names = {f.lower() for f in _FUNCTION.findall(page.text)} if page else set()
            if func.group(1) in names:
                return None
        i = ops.parse_int(core)
        if i is not None:
            return self._integer_ok(op, kinds, i, core)
        f = ops.parse_float(core)
        if f is not None and re.match(r"^-?\d*\.\d*(e[+-]?\d+)?$|^-?\d+e[+-]?\d+$", core):
            if kinds & {"literal", "floating-point_number"}:
                return None
            if kinds & {"fconst", "constant"} and ops.inline_code(core, 32, True) is not None:
                return None
            return f"float {core} is not an inline constant and the page lists no literal"
        if _EXPR.match(core) and kinds & _EXPRESSION:
            return None
        if _EXPR.match(core) and "label" in op.name:
            return None
        if kinds & {"integer_number"} and _EXPR.match(core):
            return None
        return f"{core!r} is none of {', '.join(op.accepts)}"

    def _integer_ok(self, op: Operand, kinds: set[str], i: int, core: str) -> str | None:
        if kinds & _ANY_INTEGER:
            return None
        if kinds & {"constant", "iconst"} and (0 <= i <= 64 or -16 <= i <= -1):
            return None
        if kinds & {"fconst", "constant"} and ops.inline_code(core, 32, True) is not None:
            return None
        for kind, (lo, hi) in IMMEDIATE_RANGES.items():
            if kind in kinds and lo <= i <= hi:
                return None
        return f"integer {core} is none of {', '.join(op.accepts)}"

    # ---------------------------------------------------------------- modifiers

    def _modifier(self, row: Row, row_mods: list[Operand], word: str, depth: int) -> None:
        name, _, value = word.partition(":")
        name = name.lower()
        if "(" in name:
            name = name.split("(")[0]
        allowed = {o.name for o in row_mods}
        if name == "offset" and "pattern" in allowed:   # ds_swizzle_b32: offset:swizzle(..) or offset:N
            return
        if name == "offset" or _OFFSET_NAME.match(name):
            names = [n for n in allowed if _OFFSET_NAME.match(n) and n not in ("offset0", "offset1")] \
                if name == "offset" else [name]
            if not any(n in allowed for n in names):
                raise _Refusal(depth, f"modifier {word!r} is not in the row's modifiers ({', '.join(sorted(allowed))})")
            if value and not value.lower().startswith("swizzle("):
                self._offset_range(row, names, value, word, depth)
            return
        wants = (*MODIFIER_NAMES.get(name, ()), name)   # GFX950 rows list quad_perm, row_shr ... by name
        if self.true16 and name == "op_sel" and row.section.startswith(("VOP3", "VINTERP")):
            return   # how VOP3 reaches a high half (TRUE16_RULE; AMDGPUOperandSyntax.rst:123)
        if name.startswith("no") and name[2:] in allowed:   # noglc, nogds: the bit written as off
            return
        hits = [o for o in row_mods if o.name in wants]
        if not hits:
            raise _Refusal(depth, f"modifier {word!r} is not in the row's modifiers ({', '.join(sorted(allowed)) or 'none'})")
        if all(o.evidence in MODIFIER_EVIDENCE or o.evidence in ROW_EVIDENCE for o in hits):   # only LLVM's tests list it
            self.used.add(hits[0].evidence)

    def _offset_range(self, row: Row, names: list[str], value: str, word: str, depth: int) -> None:
        """offset12 / offset13s / offset20u / offset21s / offset24s: the value fits the width the name says."""
        v = ops.parse_int(value)
        if v is None:
            return   # an expression: its value is the assembler's business
        fits = []
        for n in names:
            m = _OFFSET_BITS.match(n)
            if not m:
                fits.append(True)
                continue
            bits, sign = int(m.group(1)), m.group(2)
            lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if sign == "s" else (0, (1 << bits) - 1)
            fits.append(lo <= v <= hi)
        if not any(fits):
            raise _Refusal(depth, f"{word}: outside the range of {'/'.join(names)}")


_FORMS = ("_dpp", "_e32", "_e64", "_sdwa")   # LLVM's form suffixes (a plain mnemonic has none)


def dpp64_row(row: Row, vop3: bool) -> Row | None:
    """The DPP16 row of an instruction with 64-bit operands (DPP64: gfx1251's DPALU_DPP): the row tables.dpp_row
    derives for 32-bit operands, each register kept at the row's own width; no DPP8 form."""
    widths = {o.name: o.dwords for o in row.operands if o.role != "modifier"}
    if max(widths.values(), default=0) > 2:   # 64-bit operands only (a packed 192-bit source takes no DPP)
        return None
    narrow = replace(row, operands=tuple(replace(o, dwords=1) if o.role != "modifier" else o for o in row.operands))
    got = dpp_row(narrow, False, vop3)
    return None if got is None else replace(got, operands=tuple(
        replace(o, dwords=widths[o.name]) if o.role != "modifier" and o.name in widths else o for o in got.operands))


def _resized(row: Row, rule: str, mnemonic: str) -> Row:
    """The row with each register as wide as the ROW_EVIDENCE rule says (derived_bits: a profile's types, the 64-bit
    twin's doubled VGPRs, a packed conversion's counts)."""
    return replace(row, operands=tuple(
        replace(o, dwords=max(1, (derived_bits(rule, mnemonic, o.name, o.role, o.accepts, o.dwords * 32) or 32) // 32))
        for o in row.operands))


def _has_dpp(row: Row) -> bool:
    return any(o.name in ("dpp_ctrl", "dpp16_ctrl", "dpp32_ctrl", "dpp64_ctrl", "dpp8_sel") for o in row.operands)


def with_modifier_evidence(row: Row, buckets: Iterable[str] = ()) -> Row:
    """The row with the modifiers MODIFIER_EVIDENCE adds for it where it serves `buckets` (its page omits
    them, LLVM's tests write them), each marked with the entry's name."""
    ops = list(row.operands)
    family = row.source.rpartition(" (")[2].split(" ")[0]   # "file:line (GFX950 VOP3)"
    for name, fix in modifier_entries(family, row.section, row.mnemonic, buckets):
        if fix.neg_abs:
            ops = [replace(o, modifiers=True, evidence=name) if o.role == "src" and o.name.startswith(fix.neg_abs_on)
                   and not o.modifiers and not o.evidence else o for o in ops]
        added = [Operand(m, "modifier", (), 1, "", False, True, "", name)
                 for m in fix.modifiers if not any(o.name == m for o in ops)]
        at = next((i + 1 for i, o in enumerate(ops) if fix.after and o.name == fix.after),
                  next((i for i, o in enumerate(ops) if fix.before and o.name == fix.before), len(ops)))
        ops[at:at] = added
        if tags := fix.type_tags(row.mnemonic):   # packed sources sized by the mnemonic's type
            ops = [replace(o, type_tag=tags[o.name], dwords=max(1, (type_tag_bits(tags[o.name]) or 32) // 32),
                           evidence=name) if o.name in tags else o for o in ops]
    return replace(row, operands=tuple(ops)) if ops != list(row.operands) else row


def _split_words(text: str) -> list[_Token]:
    from gpuisa.codec.encoder import _words

    return _words(text, 1)


def _register(text: str) -> tuple[str, int, int] | None:
    """('v'|'s'|'a'|'ttmp'|'v16', first, dwords) for v5, s[2:3], a[0:3], v5.l; else None."""
    m = _VGPR16.match(text)
    if m:
        return "v16", int(m.group(1)), 1
    if text.startswith("[") and text.endswith("]") and "," not in text:   # [v252]: one element NSA
        text = text[1:-1].strip()
    try:
        return ops.parse_register(text)
    except OperandError:
        return None


# Image data whose page sizes it by the instruction's modifiers (gfx11_vdst_eae4c8.rst: "Size: depends on
# dmask, tfe and d16": dmask selects 1 to 4 data elements, d16 packs two to a dword, tfe adds 1 dword;
# gfx11_vdst_5ec176.rst (gather4): "4 data elements by default"; gfx11_vdata_84fab6.rst (atomic cmpswap):
# "dmask may specify 2 data elements for 32-bit-per-pixel surfaces or 4 ..."; gfx8_vdst_4730df.rst: d16
# packs only from GFX8.1, "For GFX8.0 ... There is no packing"). The widths are the ones these give.
IMAGE_DATA_RULE = "llvm-project-23.1.1/llvm/docs/AMDGPU/gfx11_vdst_eae4c8.rst:15-21 (depends on dmask, tfe and d16)"
_DMASK_SIZE = re.compile(r"^depends on dmask\b")
_FOUR_ELEMENTS = re.compile(r"^4 data elements by default")
_ATOMIC_ELEMENTS = re.compile(r"may specify (\d) data elements? for 32-bit-per-pixel surfaces or (\d) data elements?")


def image_dwords(size_text: str, page_text: str, modifiers: dict[str, str]) -> set[int] | None:
    """Dwords an image data operand takes with these modifiers (IMAGE_DATA_RULE); None for other pages or
    a dmask written as an expression."""
    text = size_text.strip()
    tfe = 1 if "tfe" in modifiers else 0
    if _DMASK_SIZE.match(text):
        atomic = _ATOMIC_ELEMENTS.search(" ".join(page_text.split()))
        if atomic:   # the surface format (in the resource, not the instruction) picks one of two sizes
            return {int(atomic.group(1)) + tfe, int(atomic.group(2)) + tfe}
        mask = ops.parse_int(modifiers["dmask"]) if "dmask" in modifiers else 0
        if mask is None:
            return None
        elements = max(1, bin(mask & 0xF).count("1"))
    elif _FOUR_ELEMENTS.match(text):
        elements = 4
    else:
        return None
    widths = {elements}
    if "d16" in modifiers and "d16" in text:
        packed = (elements + 1) // 2
        widths = {elements, packed} if "There is no packing" in page_text else {packed}
    return {w + tfe for w in widths}


# MFMA f8f6f4 sources (v_mfma_f32_16x16x128_f8f6f4, v_mfma_scale_f32_32x32x64_f8f6f4): the pages give A (src0) and
# B (src1) the FP8 size (8 dwords); the cdna4 manual's VOP3P-MAI table says "CBSZ[2:0] defines the matrix A format,
# BLGP[2:0] defines the matrix B format" (0 FP8, 1 BF8, 2 FP6, 3 BF6, 4 FP4), so a 6-bit format takes 6/8 of
# the registers and a 4-bit one half (mai-gfx950.s:630 `v_mfma_f32_16x16x128_f8f6f4 a[0:3], a[4:9], a[12:17], a[20:23]
# cbsz:3 blgp:3`).
F8F6F4_RULE = "amd-isa-manuals/cdna4/README.md:1821 (Matrix Format: CBSZ[2:0] matrix A, BLGP[2:0] matrix B)"
F8F6F4_BITS = {0: 8, 1: 8, 2: 6, 3: 6, 4: 4}      # format code -> bits per element (FP8, BF8, FP6, BF6, FP4)
F8F6F4_FORMAT = {"src0": "cbsz", "src1": "blgp"}   # operand -> the modifier naming its format


def f8f6f4_dwords(mnemonic: str, op: Operand, modifiers: dict[str, str]) -> set[int] | None:
    """Dwords of an MFMA f8f6f4 A / B operand in the format its cbsz / blgp names (F8F6F4_RULE); None for
    other operands, other instructions, and a format given as an expression or outside the table."""
    if not (mnemonic.startswith("v_mfma") and mnemonic.endswith("_f8f6f4")) or op.name not in F8F6F4_FORMAT:
        return None
    code = ops.parse_int(modifiers.get(F8F6F4_FORMAT[op.name]) or "0")
    bits = F8F6F4_BITS.get(code) if code is not None else None
    return {op.dwords * bits // 8} if bits else None


_BY_DEFAULT = re.compile(r"^(\d+) dwords? by default")
_ALTERNATIVES = re.compile(r"^((?:\d+, )*\d+) or (\d+) dwords")
_RANGE = re.compile(r"^(\d+)-(\d+) dwords")
_FIXED = re.compile(r"^(\d+) dwords?\.?$")


def allowed_dwords(op: Operand, wave64: bool) -> set[int] | None:
    """Register widths an operand's page allows: its fixed size, `N dwords by default` (+1 with tfe),
    `1 or 2 dwords`, `1-12 dwords`; None where the size depends on other modifiers (dmask, d16)."""
    text = op.size_text.strip()
    if not text:
        return None
    if _FIXED.match(text) or "wavefront size" in text or text.startswith("16 bits") or \
            text.startswith(("32 bits", "64 bits")):
        return {op.dwords}
    m = _BY_DEFAULT.match(text)
    if m:
        n = int(m.group(1))
        return {n, n + 1} | ({(n + 1) // 2, (n + 1) // 2 + 1} if "d16" in text else set())
    m = _ALTERNATIVES.match(text)
    if m:
        return {int(x) for x in m.group(1).split(", ")} | {int(m.group(2))}
    m = _RANGE.match(text)
    if m:
        return set(range(int(m.group(1)), int(m.group(2)) + 1))
    return None


def _sizes_text(sizes: set[int]) -> str:
    return " or ".join(str(s) for s in sorted(sizes))


# ---------------------------------------------------------------------------------- the corpus

def check_examples(docs: SyntaxDocs, examples: list[McExample]) -> OperandReport:
    """Every example against the rows of each family serving one of its targets."""
    rep = OperandReport()
    matchers: dict[tuple[tuple[str, ...], bool], RowMatcher] = {}
    page_rows: dict[tuple[str, bool], dict[str, Row]] = {}

    def rows_for(wave: bool) -> Callable[[str], dict[str, Row]]:
        def rows_of(fam: str) -> dict[str, Row]:
            if (fam, wave) not in page_rows:
                page_rows[(fam, wave)] = syntax_rows(docs, (fam,), wave)
            return page_rows[(fam, wave)]
        return rows_of

    verdicts: dict[tuple[tuple[str, ...], bool | None, bool, str], tuple[str, str, str, frozenset[str]]] = {}
    buckets: dict[str, tuple[str, tuple[str, ...], str] | None] = {}
    for ex in examples:
        seen: set[str] = set()
        true16 = any("+real-true16" in m for m in ex.mattrs)
        if "/*invalid" in ex.asm.lower():   # the disassembler's text for an operand it rejects
            rep.invalid_text += 1
            continue
        for target in ex.targets:
            if target not in buckets:
                buckets[target] = family_of(docs, target) if target.startswith("gfx") else None
            fam = buckets[target]
            if fam is None:
                rep.no_page[target] += 1
                continue
            bucket, chain, why = fam
            if bucket in seen:
                continue
            seen.add(bucket)
            rep.served_by.setdefault(bucket, why)
            w64 = wants_wave64(ex, target)
            key = (chain, w64, true16, ex.asm)
            if key not in verdicts:
                verdict: tuple[str, str, str, frozenset[str]] = (MISMATCH, "", "", frozenset())
                for wave in (w64,) if w64 is not None else (False, True):
                    m = matchers.get((bucket, wave))
                    if m is None:
                        m = matchers[(bucket, wave)] = RowMatcher(docs, chain, wave, generation(target), rows_for(wave),
                                                                  bucket)
                    got = m.check(ex.asm, true16)
                    if got[0] != MISMATCH or not verdict[1]:
                        verdict = (*got, m.last_evidence if got[0] != MISMATCH else frozenset())
                    if got[0] != MISMATCH:
                        break
                verdicts[key] = verdict
            status, reason, row, relied = verdicts[key]
            tally = rep.families[bucket]
            tally.total += 1
            tally.statuses[status] += 1
            tally.evidence.update(relied)
            if status == MISMATCH:
                tally.mismatches.append(Mismatch(bucket, f"{ex.file}:{ex.line}", ex.asm, reason, row))
    return rep


def known_families(docs: SyntaxDocs) -> list[str]:
    """The family buckets a report can hold: one per page serving a target of the catalog's archs or
    a GENERATION_PAGES generation."""
    targets = [*TARGET_TO_ARCH, "gfx700", "gfx801"]
    return sorted({fam[0] for t in targets if (fam := family_of(docs, t)) is not None})


_DOCS: dict[str, SyntaxDocs] = {}


def read_docs(sources: Path) -> SyntaxDocs:
    """The syntax pages under `sources`, read once per process (a read takes seconds)."""
    from gpuisa.sources import layout
    from gpuisa.sources.llvm_syntax_docs import read_syntax_docs

    key = str(Path(sources).resolve())
    if key not in _DOCS:
        _DOCS[key] = read_syntax_docs(layout.llvm_docs(sources), f"{layout.LLVM_TREE}/llvm/docs")
    return _DOCS[key]


def run(sources: Path, files: list[Path] | None = None, families: list[str] | None = None,
        processes: int | None = None) -> OperandReport:
    """Check the MC examples under `sources` (or only those of `files`) against the syntax pages.

    An unknown family or a file that is not an MC test file is one GpuisaError, raised before the
    corpus is read."""
    from gpuisa.errors import GpuisaError
    from gpuisa.sources.llvm_mc import read_corpus, read_file

    docs = read_docs(sources)
    if not docs.families:
        raise GpuisaError(f"no LLVM AMDGPU syntax pages under {sources}; run `gpuisa fetch` or set GPUISA_SOURCES")
    known = known_families(docs)
    for fam in families or []:
        if fam not in known:
            raise GpuisaError(f"no syntax family {fam!r}; known: {', '.join(known)}")
    if files:
        examples: list[McExample] = []
        for f in files:
            if not Path(f).is_file():
                raise GpuisaError(f"{f}: no such MC test file")
            examples += read_file(Path(f), Path(sources) if Path(f).resolve().is_relative_to(
                Path(sources).resolve()) else None).examples
        return check_examples(docs, examples)
    return check_examples(docs, read_corpus(sources, processes=processes).examples)

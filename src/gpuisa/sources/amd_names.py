"""Normalisation tables for AMD manual spellings, so a generation diff shows real differences only.

Each entry is a spelling seen in a manual (or AMD's XML) mapped to one canonical name; the
manual's own spelling is kept on the record as provenance.
"""

from __future__ import annotations

import re
from functools import lru_cache

# Field names: manual spelling -> canonical. Bit 15 of VOP3 is CLMP (rdna3), CM (cdna5),
# CLAMP (AMD XML); the same field spelled differently must not show up as a layout change.
FIELD_SPELLINGS: dict[str, str] = {
    "CLMP": "CLAMP",
    "CM": "CLAMP",
    "CLAMP": "CLAMP",
    "ENC": "ENCODING",
    "ENCODING": "ENCODING",
    "OPCODE": "OP",
    "OP": "OP",
    "OP_SEL": "OPSEL",
    "OPSEL": "OPSEL",
    "OP_SEL_HI": "OPSEL_HI",
    "OPSEL_HI": "OPSEL_HI",
    "OPSEL_HI2": "OPSEL_HI2",
    "NEG_HI": "NEG_HI",
    "SRC_0": "SRC0",
    "SRC_1": "SRC1",
    "SRC_2": "SRC2",
    "VSRC_1": "VSRC1",
    "IMM": "IMM",
    "SIMM_16": "SIMM16",
    "SIMM16": "SIMM16",
    "SOFFSET_EN": "SOE",
}

# Encoding names: manual heading -> canonical.
ENCODING_SPELLINGS: dict[str, str] = {
    "VOP3-MAI": "VOP3P-MAI",
    "VOP3P MAI": "VOP3P-MAI",
    "VOP3P-MATRIX": "VOP3P-MAI",
    "SMRD": "SMEM",
}

_FIELD_CLEAN = re.compile(r"[^A-Z0-9_]+")


def canonical_field(spelling: str) -> str:
    """Canonical field name for a manual spelling ('Clmp', 'OP_SEL', 'src 0' ...)."""
    key = _FIELD_CLEAN.sub("_", spelling.strip().upper()).strip("_")
    return FIELD_SPELLINGS.get(key, key)


def canonical_encoding(spelling: str) -> str:
    """Canonical encoding name ('VOP3-MAI' -> 'VOP3P-MAI')."""
    key = re.sub(r"\s+", " ", spelling.strip().upper())
    return ENCODING_SPELLINGS.get(key, key)


# Instruction renames between generations: old name -> new name, each with its evidence.
# The manuals do not state renames; these are curated from LLVM's mnemonic aliases and the
# identical descriptions across manuals, and are shown as "curated" on pages.
RENAMES: dict[str, tuple[str, str]] = {
    "V_ADDC_CO_U32": ("V_ADD_CO_CI_U32", "same operation (add with carry-in from VCC) in vega and rdna1 manuals; "
                      "LLVM accepts v_addc_co_u32 as an alias of v_add_co_ci_u32 on gfx10+"),
    "V_SUBB_CO_U32": ("V_SUB_CO_CI_U32", "same operation (subtract with borrow) in vega and rdna1 manuals"),
    "V_SUBBREV_CO_U32": ("V_SUBREV_CO_CI_U32", "same operation (reverse subtract with borrow) in vega and rdna1"),
    "EXP": ("EXPORT", "the single export instruction: format EXP up to rdna3.5, VEXPORT in rdna4; LLVM prints "
            "exp up to gfx11 and export on gfx12"),
}

# Suffixes LLVM adds to a mnemonic to force an encoding (one per mnemonic); the manuals name the
# opcode without them. Longest first, so v_x_e64_dpp loses `_e64_dpp`, not only `_dpp`.
LLVM_SUFFIXES: tuple[str, ...] = ("_E64_DPP", "_E32_DPP", "_DPP16", "_VOP3P", "_DPP8", "_SDWA", "_VOP3", "_DPP",
                                  "_E32", "_E64")


@lru_cache(maxsize=1 << 16)   # a build asks ~1.3M times for a few thousand spellings
def canonical_instruction(name: str) -> str:
    """Manual-style upper-case name from a user or LLVM spelling: v_sad_u32_e64 -> V_SAD_U32.

    The one normaliser of instruction spellings (show, eval, search, the web, LLVM's tests, the codec)."""
    key = name.strip().upper().replace("-", "_")
    for suffix in LLVM_SUFFIXES:
        if key.endswith(suffix) and len(key) > len(suffix):
            return key[: -len(suffix)]
    return key

"""What people type, mapped to what the catalog calls it: one table of search synonyms, one normaliser.

Vendors name the same operation differently (NVIDIA `popc` "Population count", AMD `V_BCNT_U32_B32`
"Count the number of "1" bits"), and users bring names from other ISAs (x86 `pclmulqdq`, RISC-V
`clmul`). Each `Synonym` maps such words to a cross-vendor concept (crossref/concepts.py); the catalog
answers a concept with the instructions whose equivalents belong to it. Every entry says why, and
where the vendors' own words are (file:line in the sources, with the text found there).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_NOT_ALNUM = re.compile(r"[^a-z0-9]+")


def squash(text: str) -> str:
    """Lower case, letters and digits only: 'Carry-less', 'carry less' and 'carryless' are one word."""
    return _NOT_ALNUM.sub("", text.lower())


def name_variants(query: str) -> list[str]:
    """Spellings of a name typed with spaces (`sad u32`, `v sad u32`): joined by `.` (PTX forms) and `_` (AMD)."""
    words = [w for w in re.split(r"\s+", query.strip().lower()) if w]
    if len(words) < 2:
        return []
    return [".".join(words), "_".join(words)]


@dataclass(frozen=True, slots=True)
class Synonym:
    words: tuple[str, ...]      # what people type; compared after squash()
    concept: str                # crossref concept key: its instructions answer the search
    reason: str
    source: tuple[str, int, str]  # (file under the sources root, line, text on that line)


SYNONYMS: tuple[Synonym, ...] = (
    Synonym(("carry-less", "carryless", "carry-less multiply", "clmul", "clmad", "pclmulqdq", "pmull", "gf2 multiply"),
            "carryless-multiply",
            "NVIDIA writes 'carryless' as one word, most texts 'carry-less'; x86 calls it PCLMULQDQ, RISC-V Zbc "
            "and Arm clmul / PMULL",
            ("ptx-isa-9.4/9-instruction-set/9.7.1.5-integer-arithmetic-instructionsclmad.md", 16,
             "Perform carryless multiply and add operation.")),
    Synonym(("popcount", "popcnt", "population count", "bit count", "bcnt", "popc", "count ones", "hamming weight"),
            "popcount",
            "NVIDIA says popc (population count), AMD bcnt (count the '1' bits), x86 popcnt, C++ std::popcount",
            ("amd-isa-manuals/rdna3/README.md", 16626,
             'Count the number of "1" bits in the vector input and store the result into a vector register.')),
    Synonym(("count leading zeros", "leading zeros", "clz", "lzcnt", "ffbh", "find first bit high", "cntlz"),
            "leading-zeros",
            "NVIDIA says clz, AMD V_CLZ_I32_U32 (V_FFBH_U32, 'find first bit high', before RDNA 3), x86 lzcnt",
            ("amd-isa-manuals/rdna3/README.md", 9881,
             'Count the number of leading "0" bits before the first "1" in a vector input')),
    Synonym(("sum of absolute differences", "absolute difference", "abs diff", "absdiff", "sad", "psadbw"),
            "sad",
            "Both vendors say SAD; AMD's pseudocode spells the operation ABSDIFF, x86 psadbw",
            ("ptx-isa-9.4/9-instruction-set/9.7.1.8-integer-arithmetic-instructionssad.md", 16,
             "Sum of absolute differences.")),
    Synonym(("bit reverse", "reverse bits", "brev", "bfrev", "rbit", "bitreverse"),
            "bit-reverse",
            "NVIDIA says brev, AMD bfrev, Arm rbit",
            ("ptx-isa-9.4/9-instruction-set/9.7.1.19-integer-arithmetic-instructionsbrev.md", 16, "Bit reverse.")),
    Synonym(("bit field extract", "bitfield extract", "bfe", "ubfx", "sbfx", "extract bits"),
            "bitfield-extract",
            "NVIDIA and AMD say bfe, Arm ubfx / sbfx",
            ("ptx-isa-9.4/9-instruction-set/9.7.1.20-integer-arithmetic-instructionsbfe.md", 16, "Bit Field Extract.")),
    Synonym(("bit field insert", "bitfield insert", "bfi", "insert bits"),
            "bitfield-insert",
            "NVIDIA and AMD say bfi",
            ("ptx-isa-9.4/9-instruction-set/9.7.1.21-integer-arithmetic-instructionsbfi.md", 16, "Bit Field Insert.")),
    Synonym(("byte permute", "permute bytes", "prmt", "perm", "byte shuffle", "pshufb"),
            "byte-permute",
            "NVIDIA says prmt, AMD perm, x86 pshufb",
            ("ptx-isa-9.4/9-instruction-set/9.7.10.7-data-movement-and-conversion-instructionsprmt.md", 16,
             "Permute bytes from register pair.")),
    Synonym(("dot product", "dp4a", "dot4", "byte dot product", "sdot", "udot"),
            "dot-product",
            "NVIDIA says dp4a, AMD v_dot4, Arm sdot / udot",
            ("ptx-isa-9.4/9-instruction-set/9.7.1.24-integer-arithmetic-instructionsdp4a.md", 16,
             "Four-way byte dot product-accumulate.")),
)

_BY_WORD: dict[str, tuple[str, ...]] = {}
for _s in SYNONYMS:
    for _w in _s.words:
        _BY_WORD[squash(_w)] = (*_BY_WORD.get(squash(_w), ()), _s.concept)


def concepts_for(query: str, titles: dict[str, str]) -> list[str]:
    """Concept keys a query names: through the synonym table, or by a concept's own key or title."""
    word = squash(query)
    if not word:
        return []
    found = list(_BY_WORD.get(word, ()))
    found += [key for key, title in titles.items() if word in (squash(key), squash(title)) and key not in found]
    return found

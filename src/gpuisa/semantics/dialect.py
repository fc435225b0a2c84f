"""The pseudocode dialects the evaluator reads, as named tables: each rule says how the manual
writes something, how it is read, why that is the manual's meaning, and a line where it appears.

OLDER_AMD: the older AMD manuals' "table" notation (vega, vega7, rdna1, rdna2, cdna1, cdna2),
where one opcode-table cell holds C-like code and prose on a single line. The evaluator's
branches that implement a rule use the data named beside it (BARE_OPERANDS, C_CASTS ...) and
cite the rule's key.

PTX_REWRITES: the PTX manual's informal pseudo-C, rewritten in this order into the C subset the
grammar parses (semantics.ptx.prepare_ptx).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Rule:
    written: str       # how the manual writes it: a literal piece of the source line
    read_as: str       # how the evaluator reads it
    reason: str        # why that reading is what the manual means
    source: str        # a manual line where the notation appears (file:line under the sources root)


_VEGA = "amd-isa-manuals/vega/README.md"

OLDER_AMD: dict[str, Rule] = {
    "short-views": Rule(
        "D.d = S0.d * (2 ** S1.i)", ".u .i .f .b are 32-bit views, .d is a 64-bit float",
        "the older manuals name the type without a width; the register is 32 bits unless the opcode is F64",
        f"{_VEGA}:3402"),
    "bare-operands": Rule(
        "D.u64[threadId] = (S0 < S1)", "in V_CMP_LT_F32, bare S0, S1, D ... take the type the opcode's name gives (f32)",
        "the cell gives no view; the opcode's type suffix is the comparison the description means",
        f"{_VEGA}:3091"),
    "exact-operation": Rule(
        "SCC = (S0.u + S1.u >= 0x100000000ULL ? 1 : 0)",
        "one operation is computed at twice its width (at least 64 bits) and cut to the register on store",
        "the carry test compares the exact sum with 2^32 and the high-half product shifts the exact product; "
        "in 32 bits both would be always false / always 0 (S_MUL_HI_U32: `D.u = (S0.u * S1.u) >> 32`, line 2551)",
        f"{_VEGA}:2507"),
    "c-casts": Rule(
        "(float)S0.i", "C casts ((float), (double), (int), (unsigned), (snorm) ...): value conversions to the "
        "named format",
        "they are C casts of values (V_CVT_F32_I32 converts), not reinterpretations of bits", f"{_VEGA}:2885"),
    "thread-id": Rule(
        "VCC[threadId]", "threadId is the lane id (laneId in newer manuals)",
        "the same per-lane bit the newer manuals index with laneId", f"{_VEGA}:2816"),
    "nan-class": Rule(
        "S0.f == NaN", "a class test: isNAN(S0.f); == sNaN is isSignalNAN, == qNaN isQuietNAN; != negates",
        "NaN never compares equal, so read literally the branches could never run", f"{_VEGA}:2826"),
    "unprefixed-calls": Rule(
        "(SAD_U8(S0, S1, 0) << 16) + S2.u", "in V_SAD_HI_U8, SAD_U8(...) runs V_SAD_U8's text on the same architecture",
        "the manual calls another opcode by its name without the V_ prefix", f"{_VEGA}:3348"),
    "old-conversion-names": Rule(
        "flt32_to_flt16(S0.f)", "f32_to_f16 (likewise uint16_to_flt16 -> u16_to_f16, flt16_to_snorm16 -> f16_to_snorm)",
        "older names of the same conversions (flt = float, uint = unsigned)", f"{_VEGA}:2889"),
    "float-power": Rule(
        "D.d = S0.d * (2 ** S1.i)", "2 ** n is a float power of two, exact in float64",
        "ldexp: the power is a scale factor, not an integer that could overflow", f"{_VEGA}:3402"),
    "function-definitions": Rule(
        "ABSDIFF(x, y) := (x > y ? x - y : y - x)", "a local function (lambda) used by the statements after it",
        "the cell defines a helper before using it", f"{_VEGA}:3347"),
    "open-comments": Rule(
        "// UNSIGNED comparison D.u = S2.u;",
        "a // comment ends where a statement can resume; the first reading that parses is kept",
        "a one-line cell has no line ends, so a comment would otherwise swallow the code after it", f"{_VEGA}:3347"),
    "prose-sentences": Rule(
        "Word SAD with accumulation.", "sentences that do not parse as statements are prose, dropped",
        "the cell mixes the pseudocode with its description", f"{_VEGA}:3349"),
    "full-stops-in-comments": Rule(
        "there 's no IEEE special case here like there is for V_MAX_F32. D.f = (S0.f < S1.f ? S0.f : S1.f)",
        "a sentence that does not parse alone is retried joined with the next ones (up to four)",
        "a comment may hold a full stop that is not the end of the statement", f"{_VEGA}:2826"),
    "lowercase-wave32": Rule(
        "for row in 0 : wave32.u1 ? 1 : 3 do", "wave32 is WAVE32, the wave-size state the same block reads above",
        "one block spells it both ways; lower case it would be an undefined name",
        "amd-isa-manuals/rdna4/README.md:19070"),
    "spaced-keywords": Rule(
        "D.f = ldexp(S0.f, 64); end if else if (S1.f == DENORM)",
        "elsif ... endif, as the newer manuals and the grammar spell them",
        "the same keywords written as two words", f"{_VEGA}:3354"),
}

# Data of the rules above, used by the evaluator.
BARE_OPERANDS = frozenset({"S0", "S1", "S2", "S", "D", "D0", "SRC0", "SRC1", "SRC2"})          # bare-operands
C_CASTS: dict[str, tuple[str, int]] = {                                                           # c-casts
    "float": ("f", 32), "double": ("f", 64), "half": ("f", 16),
    "int": ("i", 32), "uint": ("u", 32), "unsigned": ("u", 32), "short": ("i", 16), "ushort": ("u", 16),
}
NORM_CASTS = ("snorm", "unorm")                                                                   # c-casts
LANE_ID_NAMES = ("laneId", "threadId")                                                            # thread-id
NAN_CLASSES: dict[str, str] = {"NaN": "isNAN", "sNaN": "isSignalNAN", "qNaN": "isQuietNAN"}      # nan-class
CALL_PREFIX = "V_"                                                                                # unprefixed-calls
OLD_CONVERSION = re.compile(r"^(flt|int|uint)(\d+)_to_(flt|int|uint|snorm|unorm)(\d*)$")          # old-conversion-names
OLD_CONVERSION_KINDS = {"flt": "f", "int": "i", "uint": "u"}
STATE_ALIASES = {"wave32": "WAVE32"}                                                            # lowercase-wave32
SPACED_KEYWORDS: tuple[tuple[str, str], ...] = ((r"\belse\s+if\b", "elsif"), (r"\bend\s+if\b", "endif"))  # spaced-keywords


# ---------------------------------------------------------------- PTX

_PTX = "ptx-isa-9.4/9-instruction-set"


@dataclass(frozen=True, slots=True)
class Rewrite:
    """One textual rewrite of the PTX pseudo-C: `pattern` (a regex) -> `replace` ({width} is the form's width)."""

    pattern: str
    replace: str | Callable[[re.Match[str]], str]
    rule: Rule


PTX_VARIANT_LINES = Rule(
    "d = t<2n-1..n>;   // for .hi variant", "a line marked `// for .X variant` is kept only for forms with .X",
    "one block describes every variant; the comment says which line belongs to which",
    f"{_PTX}/9.7.1.3-integer-arithmetic-instructionsmul.md:38")

PTX_REWRITES: tuple[Rewrite, ...] = (
    Rewrite(r"//[^\n]*", "", Rule(
        "// extract 32 msbs", "(dropped)", "comments", f"{_PTX}/9.7.9.7-logic-and-shift-instructionsshf.md:36")),
    Rewrite(r"\bbitwidth of type\b", "{width}", Rule(
        "n = bitwidth of type;", "n = 32 (the form's data width)", "prose for the width of the form's type",
        f"{_PTX}/9.7.1.3-integer-arithmetic-instructionsmul.md:36")),
    Rewrite(r"(\w+)<([^<>;\n]+?)\.\.([^<>;\n]+?)>", r"\1[\2:\3]", Rule(
        "t<2n-1..n>", "t[2n-1:n]", "a bit range, high..low", f"{_PTX}/9.7.1.3-integer-arithmetic-instructionsmul.md:38")),
    Rewrite(r"\[([^\[\]\n]+?)\.\.([^\[\]\n]+?)\]", r"[\1:\2]", Rule(
        "tmp[63..0]", "tmp[63:0]", "a bit range, high..low", f"{_PTX}/9.7.1.5-integer-arithmetic-instructionsclmad.md:55")),
    Rewrite(r"(\d)n\b", r"\1*n", Rule(
        "2n-1", "2*n-1", "a coefficient written next to the variable",
        f"{_PTX}/9.7.1.3-integer-arithmetic-instructionsmul.md:38")),
    Rewrite(r"(?<![|\w)])\|(?!\|)([^|\n;]+?)\|(?!\|)", r"abs(\1)", Rule(
        "d = |a|;", "d = abs(a);", "absolute value bars (never ||)",
        f"{_PTX}/9.7.1.11-integer-arithmetic-instructionsabs.md:33")),
    Rewrite(r"\b([a-z]{3,}(?:-[a-z]{3,})+)\b", lambda m: m.group(1).replace("-", "_"), Rule(
        "sum-overflow", "sum_overflow", "hyphenated variable names",
        f"{_PTX}/9.7.1.23-integer-arithmetic-instructionsbmsk.md:45")),
    Rewrite(r"\btype\s*==\s*(\w+)", r".type == .\1", Rule(
        "if (type == u16x2", "if (.type == .u16x2", "the form's .type modifier, dots left out",
        f"{_PTX}/9.7.1.1-integer-arithmetic-instructionsadd.md:44")),
    Rewrite(r"\bshf\.(dir|l|r)\b", r".\1", Rule(
        "switch (shf.dir) {", "switch (.dir) {  (and case shf.l: as case .l:)", "the form's direction modifier",
        f"{_PTX}/9.7.9.7-logic-and-shift-instructionsshf.md:35")),
    Rewrite(r"(?<![.\w])mode\b", ".mode", Rule(
        "if ( mode == .clamp", "if ( .mode == .clamp", "the form's .mode modifier, dot left out",
        f"{_PTX}/9.7.20.1-scalar-video-instructions.md:235")),
    Rewrite(r"\btrue\b", "1", Rule("? true : false", "? 1 : 0", "C booleans",
                                   f"{_PTX}/9.7.1.22-integer-arithmetic-instructionsszext.md:43")),
    Rewrite(r"\bfalse\b", "0", Rule("sign_bit = false;", "sign_bit = 0;", "C booleans",
                                    f"{_PTX}/9.7.1.22-integer-arithmetic-instructionsszext.md:48")),
)

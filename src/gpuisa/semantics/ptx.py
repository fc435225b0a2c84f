"""PTX semantics blocks: find the block of a form, rewrite its informal spellings, evaluate it.

PTX's pseudo-C is evaluated with exact integers: `t = a * b` keeps the whole product so
`t<2n-1..n>` is the high half, as the manual means; a value is cut to its register type only
when it is stored in the destination (or a variable the text sized, like tmp[127:0]).
Operand types come from the form (`sad.s32`: a, b, c, d are .s32); where the manual's prose
gives an operand another type (bfe's b and c are .u32) it is listed in OPERAND_TYPES with the
sentence it comes from.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from lark import Tree

from gpuisa.semantics import fp
from gpuisa.semantics.dialect import PTX_REWRITES
from gpuisa.semantics.errors import EvalError, PseudocodeSyntaxError
from gpuisa.semantics.grammar import parse_text
from gpuisa.semantics.source import Texts
from gpuisa.semantics.types import TV

PTX_GRAMMAR = "ptx_semantics.lark"
EXACT_WIDTH = 192          # wide enough for 64x64-bit products and 128-bit carry-less sums

# Operand types the manual states in prose rather than in the form; (instruction, operand) -> type.
# "#0" / "#1" name the form's first / second type (`set.lt.u32.s16`: d is .u32, a and b .s16).
OPERAND_TYPES: dict[str, dict[str, str]] = {
    # 9.7.1.20 bfe: "Operands b and c are type .u32"
    "bfe": {"b": ".u32", "c": ".u32"},
    # 9.7.1.21 bfi: "Operands c and d are type .u32"
    "bfi": {"c": ".u32", "d": ".u32"},
    # 9.7.9.8/9 shl, shr: "b is always .u32"
    "shl": {"b": ".u32"}, "shr": {"b": ".u32"},
    # 9.7.1.24 dp4a / 9.7.1.25 dp2a: c and d are .s32 if either of .atype/.btype is .s32, else .u32
    "dp4a": {}, "dp2a": {},
    # 9.7.1.15/16 popc, clz: "d is always .u32"; 9.7.1.17 bfind likewise
    "popc": {"d": ".u32"}, "clz": {"d": ".u32"}, "bfind": {"d": ".u32"},
    # 9.7.1.22 szext / 9.7.1.23 bmsk: b is .u32
    "szext": {"b": ".u32"}, "bmsk": {"a": ".u32", "b": ".u32"},
    # 9.7.9.7 shf: "c is .u32"
    "shf": {"c": ".u32"},
    # 9.7.7.2 setp: "Operands a and b have type .type; operands p, q, and c have type .pred"
    "setp": {"p": ".pred", "q": ".pred", "c": ".pred"},
    # 9.7.7.3 selp: "Operand c is a predicate"
    "selp": {"c": ".pred"},
    # 9.7.7.1 set: "Operand d has type .dtype; operands a and b have type .stype; operand c has type .pred"
    "set": {"d": "#0", "a": "#1", "b": "#1", "c": ".pred"},
    # 9.7.7.4 slct: "operand c must match the second instruction type (.s32 or .f32)"
    "slct": {"c": "#1"},
    # 9.7.9.21 cvt: `cvt{.irnd}{.ftz}{.sat}.dtype.atype d, a;` d is .dtype, a is .atype
    "cvt": {"d": "#0", "a": "#1"},
}
# Mixed precision (9.7.5.x): `add{.rnd}{.sat}.cdtype.atype d, a, c;` and `fma ... .cdtype.abtype d, a, b, c;`:
# d and c are the first type, a and b the second.
MIXED_OPERAND_TYPES: dict[str, str] = {"d": "#0", "c": "#0", "a": "#1", "b": "#1"}
MIXED_CHAPTER_NAMES = ("add", "sub", "mul", "fma")

# Comparison operators of set/setp (`t = (a CmpOp b) ? 1 : 0;`), from 9.7.7.2's Integer and Floating Point
# Notes: "lo, ls, hi, and hs ... may be used instead of lt, le, gt, ge"; "If either operand is NaN, the
# result is False" (ordered); "If either operand is NaN, then the result of these comparisons is True"
# (unordered, the -u forms); "num returns True if both operands are numeric values (not NaN), and nan
# returns True if either operand is NaN". A and B stand for the two compared expressions.
CMP_OPS: dict[str, str] = {
    "eq": "(A == B)", "ne": "(A != B && !isNAN(A) && !isNAN(B))", "lt": "(A < B)", "le": "(A <= B)",
    "gt": "(A > B)", "ge": "(A >= B)", "lo": "(A < B)", "ls": "(A <= B)", "hi": "(A > B)", "hs": "(A >= B)",
    "equ": "(A == B || isNAN(A) || isNAN(B))", "neu": "(A != B)", "ltu": "(A < B || isNAN(A) || isNAN(B))",
    "leu": "(A <= B || isNAN(A) || isNAN(B))", "gtu": "(A > B || isNAN(A) || isNAN(B))",
    "geu": "(A >= B || isNAN(A) || isNAN(B))", "num": "(!isNAN(A) && !isNAN(B))", "nan": "(isNAN(A) || isNAN(B))",
}
CMP_OPS_INT = {"ne": "(A != B)"}       # integers have no NaN: ne is plain C !=
# `p = BoolOp(t, c);` (9.7.7.2 Description: "combines the result with another predicate value by applying
# a Boolean operator"); a form without .BoolOp writes t itself.
BOOL_OPS: dict[str, str] = {"and": "(T & C)", "or": "(T | C)", "xor": "(T ^ C)", "": "(T)"}

# Saturation, stated in prose only (the Semantics blocks write `d = a + b;`). 9.7.1.1 add: ".sat limits
# result to MININT..MAXINT (no overflow) for the size and signedness of the operation"; 9.7.1.2 sub and
# 9.7.1.4 mad (".sat ... Applies only to .s32 type in .hi mode") say the same. Read as: the final
# `d = expr;` stores saturate(expr), the exact value clamped to d's type.
SATURATING = ("add", "sub", "mad", "mad24", "cvt")

# Result clamps stated in prose, applied to the final `d = expr;` (or each packed element):
# 9.7.3.3 add: "add.sat.f32 clamps the result to [0.0, 1.0]. NaN results are flushed to +0.0f" (the same sentence
# in sub, mul, fma, mad and the half-precision chapter); 9.7.10.24 cvt: "For floating-point destination types, .sat
# limits the result to the range [0.0, 1.0]. NaN results are flushed to positive zero";
# 9.7.1.13 min: "min.relu.{s8x4, s16x2, s32} clamps the result to 0 if negative" (max likewise); 9.7.4 / cvt
# ".relu clamps the result to 0 if negative. NaN results are converted to canonical NaN".
CLAMPS: dict[str, str] = {".sat": "satf", ".relu": "relu"}

# Directed rounding, stated in prose (9.7.3.3 add: ".rz mantissa LSB rounds towards zero", ".rm ... towards
# negative infinity", ".rp ... towards positive infinity"): the final `d = x * y + z;`, `d = x + y;`, `d = x - y;`,
# `d = x * y;` are read as one correctly rounded operation (ptx_builtins rnd_fma, rnd_add, rnd_mul). Only for
# operands of at most 32 bits (float64 then holds the exact product); f64 forms stay not modelled.
DIRECTED_OPS: tuple[tuple[str, str], ...] = (
    (r"(?m)^(\s*d\s*=\s*)([^;*+]+?)\s*\*\s*([^;*+]+?)\s*\+\s*([^;*+]+?);", r"\1rnd_fma(\2, \3, \4);"),
    (r"(?m)^(\s*d\s*=\s*)([^;*+\-]+?)\s*\+\s*([^;*+\-]+?);", r"\1rnd_add(\2, \3);"),
    (r"(?m)^(\s*d\s*=\s*)([^;*+\-]+?)\s*-\s*([^;*+\-]+?);", r"\1rnd_add(\2, -(\3));"),
    (r"(?m)^(\s*d\s*=\s*)([^;*+\-]+?)\s*\*\s*([^;*+\-]+?);", r"\1rnd_mul(\2, \3);"),
)

# Operands the Description narrows and the Semantics block does not: instruction -> (bits, the sentence).
# 9.7.1.6 mul24 and 9.7.1.7 mad24: "Compute the product of two 24-bit integer values held in 32-bit source
# registers" while the block writes `t = a * b;`. Read as the product of the registers' low 24 bits, as a 24-bit
# value of the form's type (sign-extended from bit 23 for .s32): a and b hold 24-bit values, so that is their value.
NARROW_OPERANDS: dict[str, tuple[int, str]] = {
    "mul24": (24, "ptx-isa-9.4/9-instruction-set/9.7.1.6-integer-arithmetic-instructionsmul24.md Description: "
                  "'Compute the product of two 24-bit integer values held in 32-bit source registers'"),
    "mad24": (24, "ptx-isa-9.4/9-instruction-set/9.7.1.7-integer-arithmetic-instructionsmad24.md Description: "
                  "'Compute the product of two 24-bit integer values held in 32-bit source registers'"),
}

# Blocks that cannot be read as written, replaced by the branch that applies: instruction -> (code, why).
PROSE_BLOCKS: dict[str, tuple[str, str]] = {
    # 9.7.10.24 cvt: the Semantics block's branches are guarded by comments (`if (/* inst type is .f16x2 ... */)`);
    # for scalar .dtype/.atype the final `} else { d = convert(a); }` applies. convert() is ptx_builtins._convert.
    "cvt": ("d = convert(a);", "the final else branch of cvt's block, for scalar types (the others are guarded by "
                               "comments for packed and narrow float types)"),
}

# 9.7.10.25 cvt.pack: the block clamps with `ta = a < MIN(convertType) ? MIN(convertType) : a;` then overwrites ta
# with `ta = a > MAX(convertType) ? MAX(convertType) : a;` (no lower clamp left), and its convertType (.u2 ... .s16)
# is no register type. The Description: "Destination d is an unsigned 32-bit integer. Source operands a and b are
# integers of type .abType and the source operand c is an integer of type .cType"; ".sat modifier limits the
# converted values to MIN(convertType)..MAX(convertedType)"; "the results after conversion are packed into lower
# bits of d"; "If operand c is specified then remaining bits of d are copied from lower bits of c". Read as below
# ({lo}, {hi}: the convertType's range; {size}: its bits; a's value above b's, as the block's td[i] = ta[i - size]).
PACK_BLOCK = ("ta = a < {lo} ? {lo} : (a > {hi} ? {hi} : a);\ntb = b < {lo} ? {lo} : (b > {hi} ? {hi} : b);\n"
              "d = ((ta & {mask}) << {size}) + (tb & {mask}){rest};")   # disjoint fields: + is |
PACK_TYPES = {"d": ("u", 32), "a": ("i", 32), "b": ("i", 32), "c": ("b", 32)}

# Carry, stated in prose only: 9.7.2.1 add.cc "carry-out written to CC.CF"; 9.7.2.2 addc `d = a + b + CC.CF;`
# "if .cc specified, carry-out written to CC.CF"; 9.7.2.3/4 sub.cc/subc "borrow-out written to CC.CF"
# (`d = a - (b + CC.CF);`); 9.7.2.5/6 mad.cc/madc "carry-out from addition is written to CC.CF".
# CC.CF is read as the 1-bit input `cf` and written as the output `cf_out`.
CARRY_NAMES = ("add.cc", "sub.cc", "addc", "subc", "mad.cc", "madc")

# Where a Semantics block, read literally, cannot mean what its Description says. Each fix is
# applied to the text before parsing and reported with every result that used it.
ERRATA: dict[str, tuple[tuple[str, str, str], ...]] = {
    "clz": (("a&mask == 0", "(a&mask) == 0",
             "in C `a&mask == 0` is a & (mask == 0), which ends the loop at once; the description counts "
             "leading zeros"),),
    "prmt": (("tmp[31:24] = ReadByte( mode, ctl[3], tmp64 );",
              "tmp[31:24] = ReadByte( mode, ctl[3], tmp64 );\nd = tmp[31:0];",
              "the block builds tmp but never writes d"),),
    # 9.7.1.22 szext: the Description sign-extends ("the sign bit ... is replicated"); the conditional's ':' is
    # printed as '|', which also reads as an absolute-value bar
    "szext": (("(sign_bit ? mask | 0)", "(sign_bit ? mask : 0)",
               "the conditional `sign_bit ? mask | 0` has '|' for ':' (the sign bit's mask or zero)"),),
}

_TYPE = re.compile(r"^\.([usbf])(8|16|32|64)$")
# Packed types (9.7.1.1 add: "For .u16x2, .s16x2 ... forms input vectors by half word values from source operands";
# 9.7.4 half precision: .f16x2): the register is 32 bits; the Semantics block reads elements as a[0:15] and writes
# d[i]. Read as elem(a, lo, hi) (an element of the element type) and d = setelem(d, i, value) (ptx_builtins).
PACKED = re.compile(r"^\.([usf])(8|16)x(2|4)$")


def type_of(t: str) -> tuple[str, int]:
    """('u', 32) for '.u32'; .b is raw bits (unsigned), .s signed; a .pred is one unsigned bit."""
    if t == ".pred":
        return "u", 1
    m = _TYPE.match(t)
    if not m:
        raise EvalError(f"PTX type {t} is not an integer register type this evaluator models")
    kind = {"u": "u", "s": "i", "b": "b", "f": "f"}[m.group(1)]
    return kind, int(m.group(2))


@dataclass(slots=True)
class PtxSemantics:
    form: str
    name: str
    text: str                      # the Semantics block as the manual gives it
    code: str                      # after prepare_ptx for this form
    operands: list[str]            # destination first
    types: dict[str, tuple[str, int]]
    modifiers: tuple[str, ...]
    classes: dict[str, str] = field(default_factory=dict)   # "mode" -> ".lo"
    cite: str = ""
    errata: tuple[str, ...] = ()   # fixes from ERRATA applied to this block
    outputs: tuple[str, ...] = ()  # written besides the destination (cf_out: the carry, see CARRY_NAMES)
    prose: tuple[str, ...] = ()    # prose rules applied (CMP_OPS, SATURATING, CARRY_NAMES), for the record
    elem: tuple[str, int] | None = None   # packed types: the element kind and width (.s16x2 -> ('i', 16))


def _classes(syntax: str) -> dict[str, set[str]]:
    """`.type = { .b16, .b32 }` -> {'type': {'.b16', '.b32'}}; chained names (`.dtype = .atype = {`) each get
    the set; values written without a dot (`.CmpOp = { eq, ne }`) are modifiers all the same."""
    out: dict[str, set[str]] = {}
    for m in re.finditer(r"((?:\.\w+\s*=\s*)+)\{([^}]*)\}", syntax):
        values = {"." + v.strip().lstrip(".") for v in m.group(2).split(",") if re.fullmatch(r"\.?\w+", v.strip())}
        for name in re.findall(r"\.(\w+)", m.group(1)):
            out.setdefault(name, values)
    return out


def operand_names(operands: str) -> list[str]:
    """The manual's operand names of a form: `p[|q], a, b, {!}c` -> p, a, b, c; `{a, b}` stays one."""
    out = []
    depth, part = 0, ""
    for ch in operands.split(";")[0] + ",":
        if ch in "{[(":
            depth += 1
        elif ch in "}])":
            depth -= 1
        if ch == "," and depth <= 0:
            name = re.sub(r"\[\|?\w*\]|\{!?\}|[\[\]{}!|]", "", part).strip()
            if name:
                out.append(name.split()[0])
            part = ""
        else:
            part += ch
    return out


def _prose_rules(name: str, code: str, rec: Any, chosen: dict[str, str], types: dict[str, tuple[str, int]],
                 width: int) -> tuple[str, list[str], tuple[str, ...], list[str]]:
    """Apply CMP_OPS / BOOL_OPS, SATURATING and CARRY_NAMES; returns (code, extra inputs, outputs, notes)."""
    notes: list[str] = []
    extra: list[str] = []
    outputs: tuple[str, ...] = ()
    if "CmpOp" in code:
        op = chosen.get("CmpOp", "").lstrip(".")
        if not op:
            raise EvalError("the form names no comparison (.CmpOp)", rec.form)
        is_float = any(k == "f" for o, (k, _) in types.items() if o in ("a", "b"))
        expr = (CMP_OPS if is_float else {**CMP_OPS, **CMP_OPS_INT})[op]

        def cmp(m: re.Match[str]) -> str:       # whole words only: isNAN has an A of its own
            return re.sub(r"\bB\b", lambda _: m.group(2), re.sub(r"\bA\b", lambda _: m.group(1), expr))

        code = re.sub(r"\(\s*([\w\[\]]+)\s+CmpOp\s+([\w\[\]]+)\s*\)", cmp, code)
        notes.append(f"CmpOp {op}: {expr}")
    if "BoolOp" in code:
        op = chosen.get("BoolOp", "").lstrip(".")

        def boolop(m: re.Match[str]) -> str:
            return BOOL_OPS[op].replace("T", m.group(1)).replace("C", m.group(2))

        code = re.sub(r"BoolOp\(\s*(!?[\w\[\]]+)\s*,\s*(\w+)\s*\)", boolop, code)
        notes.append(f"BoolOp {op or '(none)'}: {BOOL_OPS[op]}")
    if name in NARROW_OPERANDS:
        bits, cite = NARROW_OPERANDS[name]
        signed = types.get("a", ("u", 0))[0] == "i"
        top = 1 << (bits - 1)

        def narrow(operand: str) -> str:
            field = f"({operand} & {(1 << bits) - 1:#x})"
            return f"(({field} ^ {top:#x}) - {top:#x})" if signed else field

        product = f"{narrow('a')} * {narrow('b')}"
        code, n = re.subn(r"(?m)^(\s*t\s*=\s*)a\s*\*\s*b\s*;", lambda m: f"{m.group(1)}{product};", code)
        if n:
            notes.append(f"operands a, b read as {bits}-bit values ({'sign' if signed else 'zero'}-extended from "
                         f"bit {bits - 1}): {cite}")
    code = re.sub(r"\bisFloat\((\w+)\)", "1" if types.get("d", ("u", 0))[0] == "f" else "0", code)
    code = re.sub(r"\b(\d+)\.0f\b", r"\1", code)
    is_float = types.get("d", ("u", 0))[0] == "f"
    directed = next((m for m in (".rz", ".rm", ".rp") if m in rec.modifiers), "")
    if directed and is_float and name != "cvt" and max(w for _, w in types.values()) <= 32 and "setelem(" not in code:
        for pattern, repl in DIRECTED_OPS:
            code, n = re.subn(pattern, repl, code)
            if n:
                notes.append(f"{directed}: read as one correctly rounded operation (DIRECTED_OPS)")
                break
    for mod, fn in CLAMPS.items():
        if mod in rec.modifiers and (is_float or mod == ".relu") and "setelem(" not in code:
            code, n = re.subn(r"(?m)^(\s*d\s*=\s*)(.+?);", rf"\1{fn}(\2);", code)
            if n:
                notes.append(f"{mod}: d = {fn}(expr) (CLAMPS)")
    if ".sat" in rec.modifiers and name in SATURATING and "setelem(" not in code and not is_float:
        code, n = re.subn(r"(?m)^(\s*d\s*=\s*)(.+?);", r"\1saturate(\2);", code)
        if n:
            notes.append(".sat: d = saturate(expr), the exact value clamped to d's type")
        if n and types.get("d", ("u", 0))[0] == "i":
            # mad.hi.sat.s32 / mad24.hi.sat.s32 add c to the product's high half: 9.7.1.7 mad24 ".sat limits result
            # of 32-bit signed addition", so that half is a signed 32-bit value, not the field's unsigned bits
            top, mask = f"{1 << (width - 1):#x}", f"{(1 << width) - 1:#x}"
            code, k = re.subn(r"(saturate\(.*?)\bt(?:\[[^\]:]+:([^\]]+)\]|<[^>]+?\.\.([^>]+)>)",
                              lambda m: f"{m.group(1)}((((t >> ({m.group(2) or m.group(3)})) & {mask}) ^ {top}) - {top})",
                              code)
            if k:
                notes.append(".sat on .s32: the high half t[..] added as a signed value (9.7.1.7 mad24 '32-bit signed "
                             "addition')")
    if name in CARRY_NAMES:
        if "CC.CF" in code:
            code = code.replace("CC.CF", "cf")
            extra.append("cf")
        if ".cc" in rec.modifiers or name.endswith(".cc"):
            code = _carry_out(code, width)
            outputs = ("cf_out",)
        notes.append("CC.CF read as input cf, carry-out written to cf_out")
    return code, extra, outputs, notes


def _syntax_operands(syntax: str, count: int) -> list[str]:
    """The operand names of the Syntax block's first template with `count` operands (`add{.sat}.s8x4 d, a, b;`),
    for a form whose listed operands are an example's register names (`p, q, r`) the Semantics block never uses."""
    for line in _code_of(syntax).splitlines():
        parts = line.strip().rstrip(";").split(None, 1)
        if len(parts) == 2 and not parts[0].startswith("."):
            names = operand_names(parts[1])
            if len(names) == count:
                return names
    return []


def _carry_out(code: str, width: int) -> str:
    """After `d = x + y [+ cf];` add `cf_out = carry of the unsigned width-bit sum` (borrow for `d = a - ...`).

    Operands are masked to `width` bits (not sliced) so the sum stays exact (slices are width-bit values)."""
    m = re.search(r"(?m)^\s*d\s*=\s*(.+?);", code)
    if m is None:
        return code
    expr = m.group(1)
    mask = f" & {hex((1 << width) - 1)}"
    sub = re.fullmatch(r"\s*(\w+)\s*-\s*\(?\s*(\w+)\s*(?:\+\s*(\w+))?\s*\)?\s*", expr)
    if sub:
        a, b, c = sub.groups()
        rhs = f"(({b}){mask}) + {c}" if c else f"(({b}){mask})"
        line = f"cf_out = ((({a}){mask}) < {rhs}) ? 1 : 0;"
    else:
        terms = [t.strip() for t in expr.split("+")]
        total = " + ".join(t if t == "cf" else f"(({t}){mask})" for t in terms)
        line = f"cf_out = (({total}) >> {width}) & 1;"
    return code[:m.end()] + "\n" + line + code[m.end():]


def _code_of(semantics_md: str) -> str:
    """The fenced code of a Semantics section, prose lines around it dropped."""
    blocks = re.findall(r"```[a-z]*\n(.*?)```", semantics_md, flags=re.S)
    return "\n".join(blocks) if blocks else semantics_md


def prepare_ptx(code: str, modifiers: tuple[str, ...], classes: dict[str, str], width: int) -> str:
    """Rewrite the manual's informal notation into the grammar's C subset for one form."""
    lines = []
    for line in code.splitlines():
        m = re.search(r"//\s*for\s+(\.\w+)(?:\s+variant)?", line)
        if m and m.group(1) not in modifiers:
            continue                    # dialect.PTX_VARIANT_LINES: `d = t<2n-1..n>;   // for .hi variant`
        lines.append(line)
    text = "\n".join(lines)
    for rw in PTX_REWRITES:
        repl = rw.replace.replace("{width}", str(width)) if isinstance(rw.replace, str) else rw.replace
        text = re.sub(rw.pattern, repl, text)
    return text


def ptx_semantics(form: str, texts: Texts, errata: bool = True) -> PtxSemantics:
    """The semantics of one PTX form, prepared for evaluation (with ERRATA fixes unless errata=False)."""
    found = texts.ptx_form_text(form)
    rec = found.form
    code = _code_of(found.semantics)
    if not code.strip():
        raise PseudocodeSyntaxError("the manual gives no Semantics block", form)
    classes_all = _classes(found.syntax)
    chosen: dict[str, str] = {}
    for mod in rec.modifiers:
        for cname, values in classes_all.items():
            if mod in values and cname not in chosen:
                chosen[cname] = mod
                break
    for cname in classes_all:
        chosen.setdefault(cname, "")       # an optional modifier the form leaves out
    if not chosen.get("type") and rec.types:
        chosen["type"] = rec.types[0]
    if found.instruction == "shf":
        chosen["dir"] = next((m for m in rec.modifiers if m in (".l", ".r")), "")
    ops = operand_names(rec.operands)
    def used(names: list[str]) -> int:
        return sum(bool(re.search(rf"\b{re.escape(o)}\b", code)) for o in names)

    template = _syntax_operands(found.syntax, len(ops))
    if template and used(template) > used(ops):
        ops = template             # the form's operands came from an example line (`bfe.b32 d,a,start,len`)
    if found.instruction == "cvt.pack":
        return _cvt_pack(found, rec, code, ops)
    base = rec.types[0] if rec.types else ".b32"
    packed = PACKED.match(base)
    elem: tuple[str, int] | None = None
    if packed:
        elem = ({"u": "u", "s": "i", "f": "f"}[packed.group(1)], int(packed.group(2)))
        base = ".b32"
    btype = type_of(base)
    types = {o: btype for o in ops}
    if found.instruction in ("mul", "mad") and ".wide" in rec.modifiers:
        types[ops[0]] = (btype[0], btype[1] * 2)
        if found.instruction == "mad":
            types[ops[3]] = (btype[0], btype[1] * 2)
    if found.instruction in ("dp4a", "dp2a"):
        signed = any(t.startswith(".s") for t in rec.types)
        for o in ("c", "d"):
            types[o] = ("i" if signed else "u", 32)
        types["a"] = types["b"] = ("b", 32)
    slots = OPERAND_TYPES.get(found.instruction, {})
    if found.instruction in MIXED_CHAPTER_NAMES and len(rec.types) == 2 and rec.types[0] != rec.types[1]:
        slots = MIXED_OPERAND_TYPES
    for o, t in slots.items():
        if o in types:
            if t.startswith("#"):
                t = rec.types[min(int(t[1:]), len(rec.types) - 1)] if rec.types else base
            types[o] = type_of(".b32" if PACKED.match(t) else t)
    applied = []
    fixed = code
    for find, repl, why in ERRATA.get(found.instruction, ()) if errata else ():
        if find in fixed:
            fixed = fixed.replace(find, repl)
            applied.append(f"{find!r} read as {repl.splitlines()[-1]!r}: {why}")
    if found.instruction in PROSE_BLOCKS and len(rec.types) == 2 and all(_TYPE.match(t) for t in rec.types):
        fixed, why = PROSE_BLOCKS[found.instruction]
        applied.append(f"block read as {fixed!r}: {why}")
    if elem is not None:
        fixed = "d = 0;\n" + re.sub(r"\b([abc])\[(\d+)\s*:\s*(\d+)\]", r"elem(\1, \2, \3)", fixed)
        fixed = re.sub(r"(?m)^(\s*)d\[(\w+)\]\s*=\s*(.+?);", r"\1d = setelem(d, \2, \3);", fixed)
        applied.append(f"packed {rec.types[0]}: a[lo:hi] read as elem(a, lo, hi), d[i] = x as d = setelem(d, i, x)")
    fixed, extra, outputs, notes = _prose_rules(found.instruction, fixed, rec, chosen, types, btype[1])
    for o in extra:
        ops.append(o)
        types[o] = ("u", 1)
    for o in outputs:
        types[o] = ("u", 1)
    code_p = prepare_ptx(fixed, rec.modifiers, chosen, btype[1])
    return PtxSemantics(rec.form, found.instruction, code, code_p, ops, types, rec.modifiers, chosen,
                        found.cite, tuple(applied), outputs, tuple(notes), elem)


def _cvt_pack(found: Any, rec: Any, code: str, ops: list[str]) -> PtxSemantics:
    """cvt.pack by PACK_BLOCK (the block's own clamp loses its lower bound; its convertType is no register type)."""
    m = re.fullmatch(r"\.([us])(2|4|8|16)", rec.types[0] if rec.types else "")
    if not m:
        raise EvalError(f"cvt.pack convertType {rec.types[:1]} is none of .u2 .s2 .u4 .s4 .u8 .s8 .u16 .s16", rec.form)
    size = int(m.group(2))
    lo, hi = (-(1 << (size - 1)), (1 << (size - 1)) - 1) if m.group(1) == "s" else (0, (1 << size) - 1)
    rest = f" + (c << {2 * size})" if "c" in ops else ""
    block = PACK_BLOCK.format(lo=lo, hi=hi, mask=f"{(1 << size) - 1:#x}", size=size, rest=rest)
    types = {o: PACK_TYPES[o] for o in ops}
    why = ("block read as PACK_BLOCK: the second `ta = a > MAX ? MAX : a;` overwrites the first clamp, the "
           "Description limits to MIN..MAX")
    return PtxSemantics(rec.form, found.instruction, code, prepare_ptx(block, rec.modifiers, {}, 32), ops, types,
                        rec.modifiers, {}, found.cite, (why,), (), (), None)


@lru_cache(maxsize=1024)
def parse_ptx(code: str, where: str = "") -> Tree:
    return parse_text(code, PTX_GRAMMAR, where)


def bind_inputs(ip: Any, sem: PtxSemantics, inputs: dict[str, Any], dom: Any) -> None:
    """Sources become exact integers (sign-extended for .s types); the destination is declared."""
    dest = sem.operands[0]
    ip.ptx_modifiers = set(sem.modifiers)
    ip.ptx_classes = dict(sem.classes)
    ip.ptx_elem = sem.elem
    for name in sem.operands:
        kind, width = sem.types[name]
        if name == dest:
            ip.declared[name] = (kind if kind != "b" else "u", width)
            if name in inputs:          # bfi's f / accumulating forms read d
                ip.env[name] = TV(kind if kind != "b" else "u", width, dom.from_ints(inputs[name], width))
            continue
        if name not in inputs:
            err = EvalError(f"operand {name} has no value; give it as {name}=VALUE", sem.form)
            err.missing = name  # type: ignore[attr-defined]
            raise err
        raw = inputs[name]
        if kind == "f":
            if dom.symbolic:
                raise EvalError("floating point is not lowered to bit-vectors", sem.form)
            if isinstance(raw, float):
                ip.env[name] = TV("f", width, fp.from_python(raw, "f", width, dom.n))
            else:
                ip.env[name] = TV("f", width, fp.bits_to_float(dom.from_ints(raw, width), "f", width))
            continue
        data = raw if dom.symbolic and not isinstance(raw, int) else dom.from_ints(raw, width)
        if dom.symbolic and hasattr(data, "size") and data.size() != width:
            data = dom.resize(data, data.size(), width, False)
        ext = dom.resize(data, width, EXACT_WIDTH, kind == "i")
        ip.env[name] = TV("i", EXACT_WIDTH, ext)
    for name in sem.outputs:
        kind, width = sem.types[name]
        ip.declared[name] = (kind, width)
    for name in inputs:
        if name not in sem.operands:
            raise EvalError(f"unknown operand {name}; {sem.form} has operands {', '.join(sem.operands)}", sem.form)

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
}

# Where a Semantics block, read literally, cannot mean what its Description says. Each fix is
# applied to the text before parsing and reported with every result that used it.
ERRATA: dict[str, tuple[tuple[str, str, str], ...]] = {
    "clz": (("a&mask == 0", "(a&mask) == 0",
             "in C `a&mask == 0` is a & (mask == 0), which ends the loop at once; the description counts "
             "leading zeros"),),
    "prmt": (("tmp[31:24] = ReadByte( mode, ctl[3], tmp64 );",
              "tmp[31:24] = ReadByte( mode, ctl[3], tmp64 );\nd = tmp[31:0];",
              "the block builds tmp but never writes d"),),
}

_TYPE = re.compile(r"^\.([usbf])(8|16|32|64)$")


def type_of(t: str) -> tuple[str, int]:
    """('u', 32) for '.u32'; .b is raw bits (unsigned), .s signed."""
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


def _classes(syntax: str) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for m in re.finditer(r"\.(\w+)\s*=\s*\{([^}]*)\}", syntax):
        out[m.group(1)] = {v.strip() for v in m.group(2).split(",") if v.strip()}
    return out


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
    ops = [o.strip().strip("[]{}") for o in rec.operands.split(",") if o.strip()]
    base = rec.types[0] if rec.types else ".b32"
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
    for o, t in OPERAND_TYPES.get(found.instruction, {}).items():
        if o in types:
            types[o] = type_of(t)
    applied = []
    fixed = code
    for find, repl, why in ERRATA.get(found.instruction, ()) if errata else ():
        if find in fixed:
            fixed = fixed.replace(find, repl)
            applied.append(f"{find!r} read as {repl.splitlines()[-1]!r}: {why}")
    code_p = prepare_ptx(fixed, rec.modifiers, chosen, btype[1])
    return PtxSemantics(rec.form, found.instruction, code, code_p, ops, types, rec.modifiers, chosen,
                        found.cite, tuple(applied))


@lru_cache(maxsize=1024)
def parse_ptx(code: str, where: str = "") -> Tree:
    return parse_text(code, PTX_GRAMMAR, where)


def bind_inputs(ip: Any, sem: PtxSemantics, inputs: dict[str, Any], dom: Any) -> None:
    """Sources become exact integers (sign-extended for .s types); the destination is declared."""
    dest = sem.operands[0]
    ip.ptx_modifiers = set(sem.modifiers)
    ip.ptx_classes = dict(sem.classes)
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
    for name in inputs:
        if name not in sem.operands:
            raise EvalError(f"unknown operand {name}; {sem.form} has operands {', '.join(sem.operands)}", sem.form)

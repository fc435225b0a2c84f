"""Operands for PTX test lines: turn a syntax line's operand text into concrete registers.

The manual names operands (`d, a, b`, `[addr]`, `{!}c`, `{xdim, ydim, zdim, _}`) but rarely their
register types, so each operand gets an ordered list of candidate renderings (a 32-bit register,
a 64-bit one, a predicate, an immediate, a vector of n registers...). The first choice comes from
the form's data types and the operand's name; ptxas's complaints ("Arguments mismatch", "Vector
expected for argument 2") steer the search through the others (see gpuisa.verify.ptxas).

Every test line is a self-contained `{ .reg ...; instruction; }` block, so thousands can share one
PTX file and ptxas's per-line errors tell them apart.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from gpuisa.sources.ptx_syntax import minimal_operands

CLASSES = ("b32", "b64", "b16", "pred", "b128", "b8")
_PREFIX = {"b8": "%c", "b16": "%h", "b32": "%r", "b64": "%rd", "b128": "%q", "pred": "%p"}
_PRED_NAMES = {"p", "q", "pred", "waitcomplete", "reportpredicate", "scale-d", "enable-input-d",
               "enable_input_d", "pa", "pb", "pd", "pq"}
_IMM = re.compile(r"^(n|imm.*|.*-imm|cp-size|count|txcount|tx_count|ncols|cta_mask|value|"
                  r"\d.*|0x[0-9a-f]+|-\d+)$", re.I)
_NUMBER = re.compile(r"^-?(0x[0-9a-fA-F]+|\d+)[Uu]?$")


@functools.lru_cache(maxsize=1024)
def type_class(t: str) -> str:
    """Register class that holds a value of PTX type `t` (.u8 -> b16, .f16x2 -> b32, .f64 -> b64)."""
    t = t.lstrip(".").lower()
    if t == "pred":
        return "pred"
    m = re.match(r"^[a-z]+?(\d+)(?:x(\d+))?$", t)
    if t.startswith(("e", "ue")) or "m" in t.split("x")[0][1:]:
        mm = re.match(r"^u?e(\d+)m(\d+)(?:x(\d+))?$", t)
        if mm:
            bits = (int(mm.group(1)) + int(mm.group(2)) + (0 if t.startswith("ue") else 1)) * int(mm.group(3) or 1)
            return _bits_class(bits)
    if t == "tf32":
        return "b32"
    if m:
        bits = int(m.group(1)) * int(m.group(2) or 1)
        return _bits_class(bits)
    return "b32"


def _bits_class(bits: int) -> str:
    if bits <= 16:
        return "b16"
    if bits <= 32:
        return "b32"
    if bits <= 64:
        return "b64"
    return "b128"


@dataclass(slots=True)
class Op:
    """A parsed operand: kind is name, lit, sink, vec, mem, pair or raw."""

    kind: str
    text: str = ""
    elems: list[Op] = field(default_factory=list)
    neg: bool = False
    suffix: str = ""
    optional: bool = False
    cls: str = ""                   # register class an example declares for it


def parse_operands(text: str) -> list[Op]:
    """Parse operand text into top-level operands; `{, x}` groups become optional operands."""
    optional_names: list[str] = []
    for grp in re.findall(r"\{\s*,([^{}]*)\}", text):
        optional_names += [g.strip() for g in grp.split(",") if g.strip()]
    full = re.sub(r"\{\s*,([^{}]*)\}", r", \1", text)
    full = re.sub(r"\{\s*\w+\s*,\s*\}", "", full)
    neg_names = set(re.findall(r"\{\s*!\s*\}\s*(\w+)", full))
    full = minimal_operands(full)
    out = []
    for part in _split_top(full):
        part = part.strip()
        if part:
            op = _parse_one(part, neg_names)
            op.optional = part in optional_names
            for e in op.elems if op.kind == "mem" else ():     # [tensorMap{, gAddrToOverride}, coords]
                e.optional = e.text in optional_names
            out.append(op)
    return out


def example_ops(operands: str, decl_types: dict[str, str]) -> list[Op]:
    """Operands of an example instruction, with the classes its declarations give."""
    ops = parse_operands(operands)
    decls = {k: type_class(v) for k, v in decl_types.items()}

    def tag(op: Op) -> None:
        if op.kind == "name":
            op.cls = decls.get(op.text, "")
            if not op.cls:
                stem = re.sub(r"\d+$", "", op.text)
                op.cls = decls.get(stem + "*", "")
        for e in op.elems:
            tag(e)
    for op in ops:
        tag(op)
    return ops


def _split_top(text: str) -> list[str]:
    out, depth, cur = [], 0, []
    for ch in text:
        if ch in "{[(":
            depth += 1
        elif ch in "}])":
            depth -= 1
        if ch == "," and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    out.append("".join(cur))
    return out


def _parse_one(part: str, neg_names: set[str]) -> Op:
    if part == "_":
        return Op("sink", "_")
    if _NUMBER.match(part):
        return Op("lit", part)
    if part.startswith("{") and part.endswith("}"):
        return Op("vec", part, [_parse_one(p.strip(), neg_names) for p in _split_top(part[1:-1]) if p.strip()])
    if part.startswith("[") and part.endswith("]"):
        return Op("mem", part, [_parse_one(p.strip(), neg_names) for p in _split_top(part[1:-1]) if p.strip()])
    if m := re.fullmatch(r"\[([^\[\]]*)\]\.(\w+)", part):        # `[%r1].unified` (9.7.10.8 ld)
        return Op("mem", part, [_parse_one(p.strip(), neg_names) for p in _split_top(m.group(1)) if p.strip()],
                  suffix=m.group(2))
    if part.startswith("(") or "(" in part:
        return Op("raw", part)
    if "|" in part:
        a, _, b = part.partition("|")
        return Op("pair", part, [_parse_one(a.strip(), neg_names), Op("name", b.strip(), neg=True)])
    m = re.match(r"^([A-Za-z_%][\w\-%]*)\s*\.(\w+)$", part)
    if m:
        return Op("name", m.group(1), suffix=m.group(2))
    if re.match(r"^[A-Za-z_%][\w\-%$]*$", part):
        return Op("name", part, neg=part in neg_names)
    return Op("raw", part)


# Opaque handles the test module declares (verify.ptxas._MODULE): texture and surface instructions
# take a named reference as their first address element, the simplest valid operand (txq.width on
# `[tex0]` assembles from PTX ISA 1.5 on sm_10; an indirect handle needs .version 3.1 and sm_20)
HANDLE_FOR = {"tex": "tex", "tld4": "tex", "txq": "tex", "suld": "surf", "sust": "surf", "sured": "surf", "suq": "surf"}
HANDLE_NAME = {"tex": "tex0", "surf": "surf0"}
# coordinate vector length per geometry (PTX ISA 9.4, 9.7.12.3 tex: "3d ... {x, y, z, _}", arrays add an index)
# 9.7.12.3 tex, .grad: "dPdx and dPdy ... are singletons for 1d and a1d textures; are two-element
# vectors for 2d and a2d textures; and are four-element vectors for 3d, cube and acube textures"
GRAD_LENGTHS = {"1d": 1, "a1d": 1, "2d": 2, "a2d": 2, "3d": 4, "cube": 4, "acube": 4}
GEOMETRY_COORDS = {"1d": 1, "2d": 2, "3d": 4, "a1d": 2, "a2d": 4, "cube": 4, "acube": 4, "2dms": 4, "a2dms": 4}

# Instructions whose operands take the form's types by position, not by the generic rule
# (index into the form's types per operand). 9.7.7.4 slct: "slct.dtype.s32 d, a, b, c": d, a, b
# are .dtype and the selector c is the second type (.s32 or .f32).
OPERAND_TYPE_POSITIONS = {"slct": (0, 0, 0, 1)}

# Operands whose register class the manual fixes whatever the form's type ("" keeps the form's type).
# 9.7.1.20 bfe (bfe.md:31): "Operands b and c are type .u32"; 9.7.1.21 bfi (bfi.md:30): "Operands c
# and d are type .u32" (bfe.u64 %rd0, %rd1, %r0, %r1).
OPERAND_CLASSES = {"bfe": ("", "", "b32", "b32"), "bfi": ("", "", "", "b32", "b32")}

# Operands the syntax names abstractly, rendered as the simplest thing ptxas accepts; the test
# module declares `.func gpuisa_f()` (9.7.14.5 call: "call{.uni} func;" with no parameters) and a
# branch target is a label right after the branch in the same block (9.7.14.3 bra: "bra{.uni} tgt;").
FIXED_OPERANDS = {"call": "gpuisa_f", "bra": "@label"}

# Register vectors whose length the manual gives as a function of the form's modifiers.
# 9.7.18.8 tcgen05.ld / .st, Tables 59 and 61: `r` holds (registers per .shape) x (.num repeat)
# 32-bit registers (".16x128b ... .x4" -> 8); Table 60: with .spcompress, `mdata` holds
# ceil(num / 32) and `cdata` num / 2 registers. 9.7.17.5.1 wgmma.mma_async register fragments: the
# accumulator `d` of shape .m64nNk* is "a vector expression containing N/4 number of .f16x2
# registers" for an .f16 dtype, "N/2 number of .f32 registers" (and .s32) otherwise.
TMEM_SHAPE_REGS = {".16x32bx2": 1, ".16x64b": 1, ".32x32b": 1, ".16x128b": 2, ".16x256b": 4}


def fragment_length(name: str, operand: str, modifiers: tuple[str, ...], types: tuple[str, ...] = ()) -> int | None:
    """Registers in a vector operand whose size the tables above fix, None for any other operand."""
    if name.startswith("wgmma.mma_async") and operand == "d" and types:
        shape = next((re.fullmatch(r"\.m64n(\d+)k\d+", m) for m in modifiers if re.fullmatch(r"\.m64n\d+k\d+", m)), None)
        if shape is None:
            return None
        n = int(shape.group(1))
        return n // 4 if types[0] == ".f16" else n // 2
    if name not in ("tcgen05.ld", "tcgen05.st"):
        return None
    num = next((int(m[2:]) for m in modifiers if re.fullmatch(r"\.x\d+", m)), 0)
    shape = next((TMEM_SHAPE_REGS[m] for m in modifiers if m in TMEM_SHAPE_REGS), 0)
    if not num:
        return None
    if operand == "mdata":
        return -(-num // 32)
    if operand == "cdata":
        return num // 2
    if operand == "r" and shape:
        return shape * num
    return None


@dataclass(frozen=True, slots=True)
class Choice:
    """How one operand is rendered: a register class, an immediate, a vector, or an address form."""

    kind: str                 # reg, imm, vec, mem, sink, lit, pair
    cls: str = "b32"
    length: int = 1
    mem: str = "reg64"        # reg64, reg32, smem, gmem
    text: str = ""


_OPTIONAL_FOR = (("cache_policy", "cache_hint"), ("ctamask", "multicast"), ("bytemask", "cp_mask"),
                 ("im2colinfo", ".im2col"), ("ignorebytes", "ignore_oob"), ("scale-factor", "scaled"),
                 ("gaddrtooverride", "global_address"), ("attributeoverrideinfo", "override::global_dim"),
                 ("reportvalue", "phase_type::primary"))


def wanted(op: Op, modifiers: tuple[str, ...]) -> bool:
    """Whether an optional operand goes with one of the form's modifiers (.L2::cache_hint -> cache_policy)."""
    name = op.text.lower()
    mods = "".join(modifiers).lower()
    return any(name.startswith(n) and m in mods for n, m in _OPTIONAL_FOR)


def first_choices(ops: list[Op], types: tuple[str, ...], modifiers: tuple[str, ...], name: str = "") -> list[Choice]:
    """The most likely rendering of each operand, from the form's types and the operand names
    (`name`, the instruction, selects the tables above)."""
    positions = OPERAND_TYPE_POSITIONS.get(name)
    if positions and len(ops) == len(positions) and len(types) > max(positions):
        return [_initial(op, type_class(types[i])) for op, i in zip(ops, positions, strict=True)]
    handle = HANDLE_FOR.get(name)
    if handle:
        out = [Choice("mem", mem=handle, length=len(op.elems)) if op.kind == "mem" else ch
               for op, ch in zip(ops, first_choices(ops, types, modifiers), strict=True)]
        if name in ("tex", "tld4") and types and out and out[0].kind in ("reg", "vec") and out[0].cls != "pred":
            # 9.7.12.3 tex: "tex.geom.v4.dtype.ctype d, [a, c]": d holds .dtype (.f16 in b16 registers)
            out[0] = replace(out[0], cls=type_class(types[0]))
        grad = GRAD_LENGTHS.get(next((m[1:] for m in modifiers if m[1:] in GRAD_LENGTHS), ""), 0)
        for i, op in enumerate(ops):
            if grad and op.kind == "name" and op.text in ("dPdx", "dPdy"):
                out[i] = Choice("vec", cls="b32", length=grad)
        return out
    out = _vector_data(ops, _by_types(ops, types, modifiers), modifiers)
    fixed = OPERAND_CLASSES.get(name)
    if fixed and len(fixed) == len(ops):
        out = [Choice("reg", cls=cls) if cls and op.kind == "name" else ch
               for op, ch, cls in zip(ops, out, fixed, strict=True)]
    for i, op in enumerate(ops):
        n = fragment_length(name, op.text, modifiers, types) if op.kind == "name" else None
        if n:
            out[i] = Choice("vec", cls="b32", length=n)
    return out


def _vector_data(ops: list[Op], out: list[Choice], modifiers: tuple[str, ...]) -> list[Choice]:
    """A `.v2`/`.v4`/`.v8` form moves that many values: its data operand (the first, or the first
    after the address for a store) is a vector of that length, not the scalar the syntax names
    (9.7.13.2 sust: "[a, b], c" where .v4 writes c as {r1, r2, r3, r4}); ptxas 13.5 crashes on
    some scalar ones instead of complaining (`sust.p.3d.v2.b32.trap [surf0, {...}], %r4`)."""
    n = next((int(m[2:]) for m in modifiers if _VECTOR_MODIFIER.fullmatch(m)), 0)
    if not n or not ops:
        return out
    at = 0 if ops[0].kind != "mem" else 1
    if at < len(out) and ops[at].kind == "name" and out[at].kind == "reg" and out[at].cls != "pred":
        out = list(out)
        out[at] = Choice("vec", cls=out[at].cls, length=n)
    return out


_VECTOR_MODIFIER = re.compile(r"\.v[248]")
_MATRIX_SHAPE = re.compile(r"\.m\d+n\d+(k\d+)?")


def _by_types(ops: list[Op], types: tuple[str, ...], modifiers: tuple[str, ...]) -> list[Choice]:
    """The generic rule: operand classes from the form's types, by position or the last type."""
    names = [o for o in ops if o.kind in ("name", "vec", "pair") and not o.optional]
    classes = [type_class(t) for t in types] or ["b32"]
    per_position = len(classes) >= 2 and len(names) == len(classes)
    if any(_MATRIX_SHAPE.fullmatch(m) for m in modifiers):   # matrix fragments pack into b32
        classes = ["b32" if c in ("b8", "b16") else c for c in classes]
    if len(classes) == 2 and len(names) > 2:            # set.dtype.stype d, a, b: d, then the rest
        classes, per_position = [classes[0]] + [classes[1]] * (len(names) - 1), True
    default = classes[-1]
    out: list[Choice] = []
    k = 0
    for i, op in enumerate(ops):
        if op.optional and not wanted(op, modifiers):
            out.append(Choice("absent"))
            continue
        if op.kind in ("name", "vec", "pair"):
            cls = classes[k] if per_position and k < len(classes) else default
            if i == 0 and ".wide" in modifiers and cls in ("b16", "b32"):
                cls = "b32" if cls == "b16" else "b64"
            k += 1
        else:
            cls = default
        if op.kind == "vec" and op.elems and op.elems[0].cls:
            cls = op.elems[0].cls
        elif op.cls:
            cls = op.cls
        out.append(_initial(op, cls))
    return out


def _initial(op: Op, cls: str) -> Choice:
    if op.kind == "sink":
        return Choice("sink")
    if op.kind in ("lit", "raw"):
        return Choice("lit", text=op.text)
    if op.kind == "mem":
        first = op.elems[0].text.lower() if op.elems else ""
        return Choice("mem", mem="reg32" if re.search("tmem|taddr", first) else "reg64", length=len(op.elems))
    if op.kind == "vec":
        return Choice("vec", cls=cls, length=len(op.elems))
    if op.kind == "pair":
        first = op.elems[0].text.lower() if op.elems else ""
        return Choice("pair", cls="pred" if first in _PRED_NAMES else cls)
    low = op.text.lower()
    if op.cls:
        return Choice("reg", cls=op.cls)
    if op.neg or low in _PRED_NAMES:
        return Choice("reg", cls="pred")
    if _IMM.match(low):
        return Choice("imm")
    for pattern, hinted in _NAME_HINT_PATTERNS:
        if pattern.search(low):
            return Choice("imm") if hinted == "imm" else Choice("reg", cls=hinted)
    return Choice("reg", cls=cls)


# operand names the manual uses consistently for one register width (9.7.15.16 mbarrier:
# "Operand reportValue must be of type .b8")
_NAME_HINTS = (("^reportvalue$", "b8"),
               ("sel$", "imm"), ("meta", "b32"), ("^idesc", "b32"), ("desc", "b64"), ("cache_policy|^policy", "b64"),
               ("^ctamask", "b16"), ("tensormap", "b64"), ("^state$", "b64"), ("^(size|membermask|txcount)$", "b32"))
_NAME_HINT_PATTERNS = tuple((re.compile(pattern), hinted) for pattern, hinted in _NAME_HINTS)


def alternatives(op: Op, choice: Choice, lengths: tuple[int, ...] = ()) -> list[Choice]:
    """Other renderings worth trying for one operand, most plausible first (`lengths`: vector
    sizes a matrix shape suggests)."""
    alts: list[Choice] = []
    if choice.kind == "absent":
        return [_initial(op, "b32"), Choice("reg", cls="b64")] if op.kind == "name" else [_initial(op, "b32")]
    if op.optional:
        alts.append(Choice("absent"))
    if op.kind == "name":
        for cls in CLASSES:
            if choice.kind != "reg" or cls != choice.cls:
                alts.append(Choice("reg", cls=cls))
        if choice.kind != "imm":
            alts.append(Choice("imm"))
        for n in dict.fromkeys((2, 4, *lengths)):
            alts.append(Choice("vec", cls=choice.cls if choice.kind == "reg" and choice.cls != "b16" else "b32",
                               length=n))
    elif op.kind == "vec":
        for cls in CLASSES:
            if cls != choice.cls:
                alts.append(Choice("vec", cls=cls, length=choice.length))
        for n in lengths:
            if n != choice.length:
                alts.append(Choice("vec", cls=choice.cls, length=n))
    elif op.kind == "mem":
        for mem in ("reg32", "smem", "gmem", "reg64", "tex", "surf"):
            if mem != choice.mem:
                alts.append(Choice("mem", mem=mem, length=choice.length))
    elif op.kind == "pair":
        for cls in CLASSES:
            if cls != choice.cls:
                alts.append(Choice("pair", cls=cls))
    return alts


def vector_lengths(choice: Choice) -> list[Choice]:
    """The same operand as vectors of other lengths (for "vector size mismatch")."""
    cls = choice.cls if choice.kind in ("reg", "vec") else "b32"
    return [Choice("vec", cls=c, length=n) for n in (1, 2, 4, 8, 16, 32, 64, 128)
            for c in dict.fromkeys((cls, "b32", "b64")) if not (choice.kind == "vec" and n == choice.length
                                                               and c == cls)]


@dataclass(slots=True)
class Rendered:
    """A test line and the registers it uses, per class (for declarations and data flow)."""

    text: str                       # the instruction
    regs: dict[str, int]            # class -> count
    operands: list[list[tuple[str, str]]]  # per operand: [(register, class)], for loads/stores


_POOL = 512
_NAMES = {cls: [f"{prefix}{i}" for i in range(_POOL)] for cls, prefix in _PREFIX.items()}


def render(mnemonic: str, ops: list[Op], choices: list[Choice], guard: str = "") -> Rendered:
    """Render one instruction with fresh registers for the chosen operand classes."""
    counts: dict[str, int] = {}
    used: list[list[tuple[str, str]]] = []

    def reg(cls: str) -> str:
        n = counts.get(cls, 0)
        counts[cls] = n + 1
        return _NAMES[cls][n] if n < _POOL else f"{_PREFIX[cls]}{n}"

    parts: list[str] = []
    for op, ch in zip(ops, choices, strict=True):
        regs: list[tuple[str, str]] = []
        if ch.kind == "absent":
            used.append(regs)
            continue
        if ch.kind == "sink":
            parts.append("_")
        elif ch.kind == "lit":
            parts.append(ch.text)
        elif ch.kind == "imm":
            parts.append("1")
        elif ch.kind == "reg":
            r = reg(ch.cls)
            regs.append((r, ch.cls))
            prefix = "!" if op.neg and ch.cls == "pred" else ""
            parts.append(prefix + r + (f".{_dsel(op.suffix)}" if op.suffix else ""))
        elif ch.kind == "pair":
            a, b = reg(ch.cls), reg("pred")
            regs += [(a, ch.cls), (b, "pred")]
            parts.append(f"{a}|{b}")
        elif ch.kind == "vec" and (op.kind != "vec" or all(e.kind == "name" for e in op.elems)):
            cls = ch.cls
            n = counts.get(cls, 0)
            end = n + ch.length
            names = _NAMES[cls][n:end] if end <= _POOL else [f"{_PREFIX[cls]}{i}" for i in range(n, end)]
            counts[cls] = end
            regs.extend(zip(names, itertools.repeat(cls)))
            parts.append("{" + ", ".join(names) + "}")
        elif ch.kind == "vec":
            elems = []
            for k in range(ch.length):
                src = op.elems[k] if op.kind == "vec" and k < len(op.elems) else None
                if src is not None and src.kind == "sink":
                    elems.append("_")
                elif src is not None and src.kind == "lit":
                    elems.append(src.text)
                else:
                    r = reg(ch.cls)
                    regs.append((r, ch.cls))
                    elems.append(r)
            parts.append("{" + ", ".join(elems) + "}")
        elif ch.kind == "mem":
            parts.append(_render_mem(op, ch, reg, regs, _dims(mnemonic), _coords(mnemonic), (mnemonic,)))
        used.append(regs)
    text = f"{guard}{mnemonic}" + (" " + ", ".join(parts) if parts else "") + ";"
    return Rendered(text, counts, used)


def _dsel(suffix: str) -> str:
    return "b0" if suffix.lower() in ("dsel", "b0") else suffix


@functools.lru_cache(maxsize=4096)
def _coords(mnemonic: str) -> int:
    """Coordinate count of a texture or surface geometry (`.a2d` -> 4), 0 when it names none."""
    m = re.search(r"\.(a?1d|a?2d(?:ms)?|3d|a?cube)\b", mnemonic)
    return GEOMETRY_COORDS.get(m.group(1), 0) if m else 0


@functools.lru_cache(maxsize=4096)
def _dims(mnemonic: str) -> int:
    """Tensor rank of a `.1d` .. `.5d` form (coordinates vectors have that many elements)."""
    m = re.search(r"\.([1-5])d\b", mnemonic)
    return int(m.group(1)) if m else 1


def _render_mem(op: Op, ch: Choice, reg: Callable[[str], str], regs: list[tuple[str, str]], dims: int = 1,
                coords: int = 0, modifiers: tuple[str, ...] = ()) -> str:
    elems = [e for e in op.elems if not e.optional or wanted(e, modifiers)] or [Op("name", "a")]
    first = elems[0]
    out: list[str] = []
    if ch.mem in HANDLE_NAME:                # [tex0] or [tex0, {x, y}]: a named handle and the coordinates
        out.append(HANDLE_NAME[ch.mem])
        if len(elems) > 1:
            vr = [reg("b32") for _ in range(coords or 1)]
            regs.extend((r, "b32") for r in vr)
            out.append("{" + ", ".join(vr) + "}")
        return "[" + ", ".join(out) + "]"
    if ch.mem == "smem":
        out.append("smem")
    elif ch.mem == "gmem":
        out.append("gmem")
    else:
        cls = "b64" if ch.mem == "reg64" else "b32"
        r = reg(cls)
        regs.append((r, cls))
        out.append(r)
    if first.kind == "raw" and "+" in first.text:
        out[0] += "+4"
    for e in elems[1:]:
        if e.kind == "vec":
            vr = []
            for _ in e.elems:
                r = reg("b32")
                regs.append((r, "b32"))
                vr.append(r)
            out.append("{" + ", ".join(vr) + "}")
        elif e.kind == "lit":
            out.append(e.text)
        elif e.kind == "name" and e.text.lower() == "attributeoverrideinfo":
            out += _override_info(modifiers, dims, reg, regs)
        elif e.kind == "name" and "coord" in e.text.lower():
            vr = []
            for _ in range(dims):
                r = reg("b32")
                regs.append((r, "b32"))
                vr.append(r)
            out.append("{" + ", ".join(vr) + "}")
        else:
            low = e.text.lower()
            # the 64-bit gAddrToOverride (asynchronous-copy.md:1339) and offsets; a 32-bit endpoint
            # identifier tensorMapLeId (fabric-operations.md:465)
            wide = ("off" in low or "map" in low or low.startswith("gaddr")) and not low.endswith("leid")
            r = reg("b64" if wide else "b32")
            regs.append((r, "b64" if r.startswith("%rd") else "b32"))
            out.append(r)
    return "[" + ", ".join(out) + "]" + (f".{op.suffix}" if op.suffix else "")


def _override_info(modifiers: tuple[str, ...], dims: int, reg: Callable[[str], str],
                   regs: list[tuple[str, str]]) -> list[str]:
    """The `attributeOverrideInfo` operand, per 9.7.10.28.5.2.2 Tables 34 and 35
    (asynchronous-copy.md:1365-1378): with `.override::global_dim`, tensorSizeToOverride, a vector of
    `.dim` .b16 registers; with `.override::global_dim_stride` also tensorLowerStrideToOverride
    (`.dim - 1` .b32 registers) and tensorUpperStrideToOverride (one .b16 register)."""
    text = "".join(modifiers)

    def vector(cls: str, n: int) -> str:
        names = [reg(cls) for _ in range(n)]
        regs.extend((r, cls) for r in names)
        return "{" + ", ".join(names) + "}"
    if ".override::global_dim_stride" in text:
        upper = reg("b16")
        regs.append((upper, "b16"))
        return [vector("b16", dims), vector("b32", dims - 1), upper]
    if ".override::global_dim" in text:
        return [vector("b16", dims)]
    return []


def declarations(regs: dict[str, int]) -> str:
    """`.reg` lines for the registers a rendered line uses."""
    return " ".join(f".reg .{cls} {_PREFIX[cls]}<{n}>;" for cls, n in sorted(regs.items()) if n)


def fixed_operands(name: str) -> list[Op] | None:
    """The operands FIXED_OPERANDS gives an instruction (one literal), None for the others."""
    return [Op("lit", FIXED_OPERANDS[name])] if name in FIXED_OPERANDS else None


def statement(r: Rendered) -> str:
    """The instruction text; a branch to `@label` gets a label of its own right after it."""
    if "@label" not in r.text:
        return r.text
    label = "L_" + re.sub(r"\W", "_", r.text.split()[0])
    return r.text.replace("@label", label) + f" {label}:"


def block(r: Rendered) -> str:
    """One self-contained test line: `{ .reg ...; instruction }` on a single physical line."""
    return "{ " + declarations(r.regs) + " " + statement(r) + " }"

"""Operands of an AMD instruction, derived from its pseudocode and its encoding's fields.

The manuals' Markdown edition has no operand tables (AMD's XML does, and is not here), but the
pseudocode names each operand with its type view (`D0.u64`, `S1.u32[2 : 0]`), and the field
table names the register fields. Joining the two gives direction, register class, field width
and data format, each traceable to a manual line.
"""

from __future__ import annotations

import re

from gpuisa.model import Encoding

_USE = re.compile(r"\b(D0|D|S0|S1|S2|SDATA|VDATA|ADDR|DATA|DATA0|DATA1)(?:\[[^\]]*\])?\.([a-z]+\d*)\b")

FORMATS = {
    "u": ("unsigned", 32), "i": ("signed", 32), "f": ("float", 32), "b": ("bits", 32), "d": ("float", 64),
    "u16": ("unsigned", 16), "i16": ("signed", 16), "f16": ("float", 16), "b16": ("bits", 16), "bf16": ("bfloat", 16),
    "u32": ("unsigned", 32), "i32": ("signed", 32), "f32": ("float", 32), "b32": ("bits", 32),
    "u64": ("unsigned", 64), "i64": ("signed", 64), "f64": ("float", 64), "b64": ("bits", 64),
    "u8": ("unsigned", 8), "i8": ("signed", 8), "b8": ("bits", 8), "u24": ("unsigned", 24), "i24": ("signed", 24),
    "u128": ("unsigned", 128), "b128": ("bits", 128),
}

_FIELDS_FOR = {
    "D0": ("VDST", "SDST"), "D": ("VDST", "SDST"),
    "S0": ("SRC0", "SSRC0", "VSRC0"), "S1": ("SRC1", "VSRC1", "SSRC1"), "S2": ("SRC2",),
}

_CLASS = {
    "VDST": "vector GPR", "SDST": "scalar GPR", "SRC0": "scalar or vector source (SGPR, VGPR, inline constant, literal)",
    "SRC1": "scalar or vector source (SGPR, VGPR, inline constant, literal)",
    "SRC2": "scalar or vector source (SGPR, VGPR, inline constant, literal)",
    "VSRC1": "vector GPR", "VSRC0": "vector GPR", "SSRC0": "scalar source (SGPR, inline constant, literal)",
    "SSRC1": "scalar source (SGPR, inline constant, literal)",
}


def format_text(view: str) -> str:
    kind, bits = FORMATS.get(view, ("", 0))
    if not kind:
        return view
    names = {"unsigned": "unsigned integer", "signed": "signed integer", "float": "IEEE float",
             "bits": "untyped bits", "bfloat": "bfloat"}
    return f"{bits}-bit {names[kind]}"


def derive(pseudocode: str, enc: Encoding | None) -> list[dict]:
    """Operands in field order: {name, field, access, register_class, field_bits, format, view}."""
    views: dict[str, tuple[str, str]] = {}   # symbol -> (view, access)
    for line in pseudocode.splitlines() or [pseudocode]:
        for stmt in re.split(r";", line):
            lhs, eq, rhs = stmt.partition("=")
            assigned = eq and not rhs.startswith("=") and not lhs.rstrip().endswith(("!", "<", ">", "="))
            for m in _USE.finditer(stmt):
                sym, view = m.group(1), m.group(2)
                access = "write" if assigned and m.start() < len(lhs) else "read"
                if view not in FORMATS:
                    continue
                prev = views.get(sym)
                if prev is None:
                    views[sym] = (view, access)
                elif prev[1] != access:
                    views[sym] = (prev[0], "read-write")
    out: list[dict] = []
    fields = {f.name: f for f in enc.fields} if enc else {}
    for sym in ("D0", "D", "S0", "S1", "S2"):
        if sym not in views:
            continue
        view, access = views[sym]
        fname = next((c for c in _FIELDS_FOR.get(sym, ()) if c in fields), None)
        out.append({
            "name": fname or sym, "symbol": sym, "access": access,
            "register_class": _CLASS.get(fname or "", ""), "field_bits": fields[fname].width if fname else None,
            "format": format_text(view), "view": view,
        })
    return out

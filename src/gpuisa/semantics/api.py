"""Evaluation by name: `eval_amd("v_sad_u32", "rdna3", {"S0": 5, ...}, texts)`, `eval_ptx(form, ..., texts)`.

These look the text up per architecture (or PTX form) in the `Texts` the caller passes (a
catalog, or ManualTexts), check the operand names and that each value fits the width the text
reads it at, and then evaluate. The CLI calls these; `evaluate()` in run.py stays the text-level
entry point.
"""

from __future__ import annotations

import math
import re
from typing import Any

from lark import Tree

from gpuisa.semantics.errors import EvalError
from gpuisa.semantics.interp_regs import REGISTER_FILES, REGISTER_NAME
from gpuisa.semantics.ptx import ptx_semantics
from gpuisa.semantics.run import evaluate, evaluate_ptx, machine_for, operands_read, parse_block
from gpuisa.semantics.source import Texts, amd_semantics, resolver_for
from gpuisa.semantics.types import parse_view

_OPERAND = re.compile(r"^(S\d|D\d?|SRC\d|SIMM16|SIMM32|SCC|VCC|EXEC|M0|K)$")


class DecimalInt(int):
    """An integer the user wrote in decimal: for an operand read only as a float it means the value."""


def parse_value(text: str, where: str) -> int | float:
    """'12', '-3', '0xff', '0b101', '1.5', '-inf', 'nan' -> a number; anything else is an error."""
    t = text.strip().replace("_", "")
    try:
        if re.fullmatch(r"[-+]?\d+", t):
            return DecimalInt(int(t, 10))
        if re.fullmatch(r"[-+]?(0x[0-9a-fA-F]+|0b[01]+|0o[0-7]+)", t, flags=re.I):
            return int(t, 0)
        if re.fullmatch(r"[-+]?(\d+\.\d*|\.\d+|\d+)([eE][-+]?\d+)?|[-+]?(inf|nan)", t, flags=re.I):
            return float(t)
    except ValueError:
        pass
    raise EvalError(f"{where}: {text!r} is not a number (decimal, 0x hex, 0b binary, or a float like 1.5)")


def parse_assignments(pairs: list[str]) -> dict[str, int | float]:
    """['S0=5', 'S1=0x3'] -> {'S0': 5, 'S1': 3}; a malformed pair is an error naming it."""
    out: dict[str, int | float] = {}
    for p in pairs:
        if "=" not in p:
            raise EvalError(f"operand {p!r} needs a value: write NAME=VALUE, e.g. S0=5")
        name, value = p.split("=", 1)
        name = name.strip()
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.]*|[VS]GPR\[\d+\]", name):
            raise EvalError(f"{name!r} is not an operand name")
        if name in out:
            raise EvalError(f"operand {name} given twice")
        out[name] = parse_value(value, name)
    return out


def read_views(tree: Tree) -> dict[str, set[tuple[str, int]]]:
    """Views each operand is read at (S0.u32 -> ('u', 32), S1.f -> ('f', 32))."""
    views: dict[str, set[tuple[str, int]]] = {}
    for node in tree.iter_subtrees():
        if node.data == "view" and isinstance(node.children[0], Tree) and node.children[0].data == "var":
            vt = parse_view(str(node.children[1]))
            if vt:
                views.setdefault(str(node.children[0].children[0]), set()).add(vt)
    return views


def read_widths(tree: Tree) -> dict[str, int]:
    """Register width each operand is read at: its widest view, at least the 32-bit register."""
    return {k: max(32, *(w for _, w in v)) for k, v in read_views(tree).items()}


def _check_range(name: str, value: int | float, width: int, what: str) -> None:
    if isinstance(value, float):
        if not (math.isfinite(value) or width in (16, 32, 64)):
            raise EvalError(f"{name}={value} cannot be held in {width} bits ({what})")
        return
    if not (-(1 << (width - 1)) <= value < (1 << width)):
        raise EvalError(f"{name}={value:#x} does not fit in {width} bits ({what})")


def eval_amd(name: str, arch: str, inputs: dict[str, int | float], texts: Texts) -> dict[str, Any]:
    """Evaluate one AMD instruction on one architecture; returns outputs and where the text is from."""
    sem = amd_semantics(name, arch, texts)
    where = f"{sem.name} ({sem.arch})"
    tree = parse_block(sem.text, sem.style, where)
    reads = set(operands_read(tree))
    machine = machine_for(sem.arch)
    widths = read_widths(tree)
    for k, v in inputs.items():
        register = REGISTER_NAME.match(k) and reads & set(REGISTER_FILES)
        own = (re.fullmatch(r"S\d", k) and f"SRC{k[1:]}" in reads) or (k == "D0" and "VDST" in reads)
        if k not in reads and k not in machine and not register and not own:
            known = sorted(n for n in reads if _OPERAND.match(n) and not n.startswith("D"))
            raise EvalError(f"unknown operand {k} for {where}; it reads {', '.join(known) or 'no operands'}")
        if k in widths:
            _check_range(k, v, widths[k], f"{where} reads {k} as {widths[k]} bits")
    views = read_views(tree)
    inputs = dict(inputs)
    for k, v in inputs.items():
        kinds = {kind for kind, _ in views.get(k, ())}
        if isinstance(v, float) and kinds and not kinds & {"f", "bf"}:
            shown = ", ".join(f"{kind}{w}" for kind, w in sorted(views[k]))
            raise EvalError(f"{k}={v!r} is a float, but {where} reads {k} only as an integer ({shown}); "
                            "give an integer, or the float's bit pattern in hex")
        if isinstance(v, DecimalInt) and kinds and kinds <= {"f", "bf"}:
            inputs[k] = float(v)        # S1=2 for an operand read as .f32 means 2.0
    missing = sorted(n for n in reads if re.fullmatch(r"S\d", n) and n not in inputs)
    if missing:
        raise EvalError(f"{where} reads {', '.join(missing)}; give {' '.join(m + '=VALUE' for m in missing)}")
    out = evaluate(sem.text, inputs, sem.style, where=where, resolver=resolver_for(sem.arch, texts),
                   machine=machine, name=sem.name)
    regs = {k: v for k, v in out.items() if k[:1].isupper()}
    local = {k: v for k, v in out.items() if not k[:1].isupper()}
    return {"name": sem.name, "arch": sem.arch, "style": sem.style, "source": sem.cite,
            "pseudocode": sem.text, "outputs": regs, "locals": local, **({"note": sem.note} if sem.note else {})}


def eval_ptx(form: str, inputs: dict[str, int | float], texts: Texts) -> dict[str, Any]:
    """Evaluate a PTX form's Semantics block with exact integers."""
    sem = ptx_semantics(form, texts)
    for k, v in inputs.items():
        if k not in sem.operands:
            raise EvalError(f"unknown operand {k} for {sem.form}; its operands are {', '.join(sem.operands)}")
        _check_range(k, v, sem.types[k][1], f"{sem.form} operand {k} is {sem.types[k][0]}{sem.types[k][1]}")
    missing = [o for o in sem.operands[1:] if o not in inputs]
    if missing:
        raise EvalError(f"{sem.form} reads {', '.join(missing)}; give {' '.join(m + '=VALUE' for m in missing)}")
    out = evaluate_ptx(sem, inputs)
    return {"name": sem.name, "form": sem.form, "source": sem.cite, "pseudocode": sem.text, "outputs": out,
            "errata": list(sem.errata)}

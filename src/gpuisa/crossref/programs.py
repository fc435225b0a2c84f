"""Straight-line programs of PTX forms or AMD instructions, run from their parsed semantics.

A mapping compares two programs: usually one instruction on each side, or a sequence where one
side has no single equivalent. Every step runs the manual's own pseudocode (AMD per arch, PTX
per form) on the same domain, numpy lanes for testing or z3 bit-vectors for proofs, so the
evidence rests on the parsed texts and never on formulas written here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from gpuisa.errors import GpuisaError
from gpuisa.semantics.builtins import Builtins
from gpuisa.semantics.interp import Interp
from gpuisa.semantics.ptx import ptx_semantics
from gpuisa.semantics.ptx_approx import approx_form, run_approx
from gpuisa.semantics.ptx_cvt import cvt_form, run_cvt
from gpuisa.semantics.ptx_lanes import lane_form, run_lanes
from gpuisa.semantics.run import machine_for, parse_block, run_ptx
from gpuisa.semantics.source import Texts, amd_semantics, resolver_for
from gpuisa.semantics.types import TV

Value = tuple[Any, int]              # (domain data, width in bits)


class Ops:
    """Helpers for operand bindings that work on numpy lanes and z3 alike."""

    def __init__(self, dom: Any, env: dict[str, Value]) -> None:
        self.dom, self.env = dom, env

    def __getitem__(self, name: str) -> Value:
        return self.env[name]

    def const(self, v: int, w: int) -> Value:
        return self.dom.const(v, w), w

    def resize(self, x: Value, w: int, signed: bool = False) -> Value:
        return self.dom.resize(x[0], x[1], w, signed), w

    def field(self, x: Value, lo: int, width: int) -> Value:
        """Bits [lo + width - 1 : lo] of x."""
        sh = self.dom.lshr(x[0], self.dom.const(lo, x[1]), x[1]) if lo else x[0]
        return self.dom.resize(sh, x[1], width, False) if width < x[1] else sh, width

    def place(self, x: Value, lo: int, w: int) -> Value:
        """x zero-extended to w bits and shifted left by lo."""
        v = self.dom.resize(x[0], x[1], w, False)
        return (self.dom.shl(v, self.dom.const(lo, w), w) if lo else v), w

    def bor(self, *xs: Value) -> Value:
        acc, w = xs[0]
        for x in xs[1:]:
            acc = self.dom.bor(acc, x[0], w)
        return acc, w


Arg = str | int | Callable[[Ops], Value]


@dataclass(frozen=True, slots=True)
class Step:
    """`out = op(args)`: op is a PTX form (vendor 'nvidia') or an AMD instruction (vendor 'amd')."""

    vendor: str
    op: str
    args: dict[str, Arg]
    out: str
    result: str = ""                 # which written name is the result: d / D0 (default: destination)


@dataclass(frozen=True, slots=True)
class Program:
    steps: tuple[Step, ...]
    result: str | Callable[[Ops], Value]   # env name of the result, or how a register pair forms it
    width: int                       # bits of the result that are compared
    inputs: dict[str, int] = field(default_factory=dict)   # name -> width (only for the PTX side)

    def text(self) -> list[str]:
        out = []
        for s in self.steps:
            args = ", ".join(f"{k}={v if not callable(v) else '<expr>'}" for k, v in s.args.items())
            out.append(f"{s.out} = {s.op}({args})")
        return out


def arg_value(ops: Ops, a: Arg, width: int) -> Value:
    """A step argument's value: an int is a constant of `width` bits, a name reads the environment."""
    if isinstance(a, int):
        return ops.const(a, width)
    if isinstance(a, str):
        return ops[a]
    return a(ops)


# Interpreter steps of every AMD step run in this process: a measure of evaluation work that, unlike seconds, does not
# depend on the machine's load (crossref.discovery bounds its sequence search with it).
STEPS_RUN = [0]


def run_amd_step(dom: Any, step: Step, arch: str, env: dict[str, Value], texts: Texts) -> Value:
    sem = amd_semantics(step.op, arch, texts)
    tree = parse_block(sem.text, sem.style, f"{step.op} ({arch})")
    ip = Interp(dom, builtins=Builtins(), resolver=resolver_for(arch, texts), where=f"{step.op} ({arch})",
                machine=machine_for(arch))
    ops = Ops(dom, env)
    for name, a in step.args.items():
        data, w = arg_value(ops, a, 32)
        ip.env[name] = TV("b", w, data)
    try:
        ip.run(tree)
    finally:
        STEPS_RUN[0] += ip.steps + ip.called_steps
    out = step.result or next(n for n in ("D0", "D", "SCC") if n in ip.env)
    v = ip.env[out]
    t = ip.out_type.get(out)
    if t is not None:
        v = ip.view(v, *t)
    return ip.bits(v)


def run_ptx_step(dom: Any, step: Step, env: dict[str, Value], texts: Texts, errata: bool = True) -> Value:
    af = approx_form(step.op)
    if af is not None:                  # .approx: the exact value the bound is measured from (semantics.ptx_approx)
        if dom.symbolic:
            raise GpuisaError(f"{step.op}: .approx is tested against its error bound, never proved")
        ops = Ops(dom, env)
        vals = {n: arg_value(ops, a, af.inputs[n])[0] for n, a in step.args.items()}
        return run_approx(af, vals), 64
    cf = cvt_form(step.op)
    lf = lane_form(step.op) if cf is None else None
    model = cf or lf
    if model is not None:               # narrow-format cvt and element-wise float forms: semantics.ptx_cvt / ptx_lanes
        if dom.symbolic:
            raise GpuisaError(f"{step.op}: the float model runs on numpy lanes only (tested, not proved)")
        ops = Ops(dom, env)
        vals = {}
        for name, a in step.args.items():
            data, aw = arg_value(ops, a, model.inputs[name])
            vals[name] = dom.resize(data, aw, model.inputs[name], False) if aw != model.inputs[name] else data
        return (run_cvt(cf, vals) if cf is not None else run_lanes(lf, vals)), model.width
    sem = ptx_semantics(step.op, texts, errata=errata)
    ops = Ops(dom, env)
    inputs = {}
    for name, a in step.args.items():
        w = sem.types[name][1]
        data, aw = arg_value(ops, a, w)
        inputs[name] = dom.resize(data, aw, w, False) if aw != w else data
    ip = run_ptx(sem, inputs, dom, seconds=None)     # evidence: bounded by steps, never by the clock
    dest = step.result or sem.operands[0]
    kind, width = ip.declared.get(dest, sem.types[dest])
    v = ip.view(ip.env[dest], kind, width) if dest in ip.env else ip.zero(kind, width)
    return ip.bits(v)


def run_program(dom: Any, prog: Program, arch: str, inputs: dict[str, Value], texts: Texts,
                errata: bool = True) -> Value:
    """Run every step in order; returns the result's bits, cut to prog.width.

    errata=False runs PTX blocks exactly as printed (no semantics.ptx.ERRATA fixes).
    """
    env = dict(inputs)
    for step in prog.steps:
        if step.vendor == "amd":
            env[step.out] = run_amd_step(dom, step, arch, env, texts)
        else:
            env[step.out] = run_ptx_step(dom, step, env, texts, errata)
    data, w = prog.result(Ops(dom, env)) if callable(prog.result) else env[prog.result]
    if w != prog.width:
        data = dom.resize(data, w, prog.width, False)
    return data, prog.width


def program_errata(prog: Program | None, texts: Texts) -> list[str]:
    """ERRATA fixes the PTX steps of a program rely on."""
    out: list[str] = []
    for s in prog.steps if prog else ():
        if s.vendor == "nvidia":
            out += [e for e in ptx_semantics(s.op, texts).errata if e not in out]
    return out

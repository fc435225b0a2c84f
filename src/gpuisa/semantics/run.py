"""Public entry points: parse a pseudocode block, evaluate it on one lane or a whole wave.

`evaluate(text, {"S0": 5, "S1": 3, "S2": 10}, "headed")` -> {"D0": 12}. Operands are raw
register values (ints, negative ones in two's complement; or floats, converted to the format
of the first view that reads them). Machine state the text reads but the caller did not give
(EXEC, SCC, WAVE_MODE.IEEE, ...) takes MACHINE_DEFAULTS; any other missing operand is an error.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
from lark import Token, Tree

from gpuisa.limits import EVAL_SECONDS
from gpuisa.semantics import lowp, ptx_builtins  # noqa: F401 - register fp8_to_f32 ...; ReadByte ...
from gpuisa.semantics.builtins import M0_ENCODING_KEY, Builtins
from gpuisa.semantics.dialect import STATE_ALIASES
from gpuisa.semantics.domain_np import NumpyDomain
from gpuisa.semantics.errors import EvalError, SemanticsError
from gpuisa.semantics.interp import Interp, Resolver
from gpuisa.semantics.interp_regs import REGISTER_FILES, REGISTER_NAME
from gpuisa.semantics.parse import STYLES, parse_block
from gpuisa.semantics.ptx import EXACT_WIDTH, PtxSemantics, bind_inputs, parse_ptx
from gpuisa.semantics.types import TV, operand_type_of

__all__ = ["STYLES", "evaluate", "evaluate_ptx", "evaluate_wave", "machine_for", "operands_read", "parse_block",
           "run_ptx"]

MACHINE_DEFAULTS: dict[str, int] = {
    "EXEC": (1 << 64) - 1, "EXEC_LO": (1 << 32) - 1, "EXEC_HI": (1 << 32) - 1,
    "VCC": 0, "VCC_LO": 0, "VCC_HI": 0, "SCC": 0, "M0": 0, "PC": 0,
    "WAVE_MODE.IEEE": 1, "IEEE_MODE": 1, "WAVE_MODE.DX10_CLAMP": 0, "WAVE32": 1, "WAVE64": 0,
    "ROUND_MODE": 0, "ROUND_NEAREST_EVEN": 0, "ROUND_TOWARD_ZERO": 3,
}
# SDWA operand-select names the conversion pseudocode compares with (SDWA_SRC0_SEL == BYTE1.b3):
# llvm/lib/Target/AMDGPU/VOPInstructions.td:679-687 (def SDWA, sdwa_sel). Not SDWA-encoded means BYTE0
# (cdna3/README.md:7692), hence SDWA_SRC0_SEL's default.
SDWA_SELECTS: dict[str, int] = {"BYTE0": 0, "BYTE1": 1, "BYTE2": 2, "BYTE3": 3, "WORD0": 4, "WORD1": 5, "DWORD": 6,
                                "SDWA_SRC0_SEL": 0}
GFX11_ON = frozenset({"rdna3", "rdna3.5", "rdna4", "cdna5"})   # gfx11xx, gfx115x, gfx12xx, gfx125x
WAVE64_ONLY = frozenset({"vega", "vega7", "cdna1", "cdna2", "cdna3", "cdna4", "cdna5"})


def machine_for(arch: str | None) -> dict[str, int]:
    """Machine defaults for an architecture (GCN and CDNA run wave64 only)."""
    m = dict(MACHINE_DEFAULTS)
    if arch in WAVE64_ONLY:
        m["WAVE32"], m["WAVE64"] = 0, 1
    m.update(SDWA_SELECTS)
    m.update(lowp.machine_state(arch))
    m[M0_ENCODING_KEY] = 125 if arch in GFX11_ON else 124
    m.update({alias: m[name] for alias, name in STATE_ALIASES.items()})
    return m


@contextmanager
def bounded(ip: Interp, text: str, seconds: float | None = EVAL_SECONDS) -> Iterator[None]:
    """Run `ip` under a time budget (None: its step budget only, so the outcome never depends on the machine's load);
    any failure inside becomes one EvalError naming where and the line.

    Hostile text reaches places no real manual does (a 63-bit float, a value billions of bits wide,
    nesting deeper than Python's stack): whatever breaks, the caller gets the instruction, the line
    and its text, never a bare ValueError or RecursionError.
    """
    ip.deadline = time.monotonic() + seconds if seconds is not None else None
    try:
        with np.errstate(all="ignore"):
            yield
    except SemanticsError:
        raise
    except RecursionError:
        raise EvalError("nested too deeply to evaluate", ip.where, ip.line) from None
    except MemoryError:
        raise EvalError("needs more memory than an evaluation may use", ip.where, ip.line) from None
    except Exception as exc:   # turned into one clean error naming the text
        lines = text.splitlines()
        src = lines[ip.line - 1].strip()[:80] if ip.line and 0 < ip.line <= len(lines) else ""
        raise EvalError(f"cannot evaluate{f' {src!r}' if src else ''}: {type(exc).__name__}: {exc}", ip.where,
                        ip.line) from None


def operands_read(tree: Tree) -> list[str]:
    """Names the text reads (operands, state, helpers), in first-seen order; for input checks."""
    seen: dict[str, None] = {}
    for node in tree.iter_subtrees_topdown():
        if node.data == "var":
            seen.setdefault(str(node.children[0]), None)
        elif node.data == "view" and isinstance(node.children[0], Tree) and node.children[0].data == "var":
            seen.setdefault(f"{node.children[0].children[0]}.{node.children[1]}", None)
    return list(seen)


def _input_tv(dom: NumpyDomain, name: str, value: Any) -> TV:
    if isinstance(value, TV):
        return value
    if isinstance(value, np.ndarray):
        if value.dtype.kind == "f":
            width = value.dtype.itemsize * 8
            return TV("f", width, np.broadcast_to(value, (dom.n,)).copy())
        if value.dtype.kind in "iub":
            width = max(value.dtype.itemsize * 8, 1)
            return TV("b", width, dom.from_ints(value, width))
        raise EvalError(f"operand {name}: unsupported array type {value.dtype}")
    if isinstance(value, bool | np.bool_):
        return TV("b", 32, dom.const(int(value), 32))
    if isinstance(value, int | np.integer):
        v = int(value)
        for width in (32, 64, 128, 256, 512, 1024):
            if -(1 << (width - 1)) <= v < (1 << width):
                return TV("b", width, dom.const(v, width))
        raise EvalError(f"operand {name}={v} does not fit in 1024 bits")
    if isinstance(value, float | np.floating):
        return TV("flit", 0, float(value))
    raise EvalError(f"operand {name}: expected an int or a float, got {type(value).__name__}")


def _output(ip: Interp, name: str, v: Any, lanes: bool) -> Any:
    if not isinstance(v, TV):
        return None
    t = ip.out_type.get(name)
    if t is not None:
        v = ip.view(v, *t)
    if v.kind == "lit":
        return np.full(ip.dom.n, int(v.data), dtype=object) if lanes else int(v.data)
    if v.kind in ("flit", "flit32"):
        return np.full(ip.dom.n, float(v.data)) if lanes else float(v.data)
    if v.kind == "bool":
        arr = np.asarray(v.data, dtype=bool)
        return arr.astype(np.uint64) if lanes else int(arr[0])
    if v.kind in ("f", "bf"):
        return v.data if lanes else float(v.data[0])
    data, w = ip.bits(v)
    if v.kind == "i":
        if lanes:
            return ip.dom.to_int64(data, w) if w <= 64 else ip.dom.signed_ints(data, w)
        x = int(data[0])
        return x - (1 << w) if x >= 1 << (w - 1) else x
    return data if lanes else int(data[0])


def _run(text: str, inputs: dict[str, Any], style: str, lanes: int, *, where: str,
         resolver: Resolver | None, machine: dict[str, int] | None, strict: bool,
         name: str | None) -> tuple[Interp, Tree]:
    tree = parse_block(text, style, where)
    dom = NumpyDomain(lanes)
    mach = dict(MACHINE_DEFAULTS if machine is None else machine)
    lane_ids = np.arange(lanes, dtype=np.uint64) if lanes > 1 else None
    ip = Interp(dom, builtins=Builtins(), resolver=resolver, where=where, machine=mach, lane_ids=lane_ids)
    ip.exact_table = style == "table"
    optype = operand_type_of(name) if name else None
    if optype is not None:
        mach.setdefault("opcode_size_in_bits", optype[1])
        if style == "table":
            ip.operand_type = optype
    reads = set(operands_read(tree))
    for name, value in inputs.items():
        if REGISTER_NAME.match(name):
            if strict and not reads & set(REGISTER_FILES):
                raise EvalError(f"{name}: this pseudocode reads no register file", where)
            ip.give_register(name, value)
            continue
        # VGPR[laneId][SRC0.u32] is S0 and VGPR[laneId][VDST.u32] is D0 (interp_store.own_register)
        own = (name[:1] == "S" and name[1:].isdigit() and f"SRC{name[1:]}" in reads) or (name == "D0" and "VDST" in reads)
        if strict and name not in reads and name not in mach and not own:
            known = sorted(n for n in reads if n[:1].isupper() and n not in mach and n not in ("INF", "NAN", "PI"))
            raise EvalError(f"unknown operand {name}; this pseudocode reads {', '.join(known) or 'no operands'}", where)
        ip.env[name] = _input_tv(dom, name, value)
        mach.pop(name, None)
    with bounded(ip, text):
        ip.run(tree)
    return ip, tree


def _results(ip: Interp, lanes: bool) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in ip.written:
        if name in ip.loop_vars:
            continue
        val = _output(ip, name, ip.env.get(name), lanes)
        if val is not None:
            out[name] = val
    for name, regs in ip.register_results().items():
        out[name] = regs if lanes else int(regs[0])
    return out


def evaluate(pseudocode: str, inputs: dict[str, int | float], style: str = "headed", *,
             where: str = "", resolver: Resolver | None = None, machine: dict[str, int] | None = None,
             strict: bool = True, name: str | None = None) -> dict[str, int | float]:
    """Evaluate on one lane; returns every name the text writes (D0, SCC, VCC, tmp ...).

    `name` (the opcode) lets the older notation's bare operands (S0 < S1 in V_CMP_LT_F32) take
    the type the opcode names.
    """
    ip, _ = _run(pseudocode, inputs, style, 1, where=where, resolver=resolver, machine=machine, strict=strict,
                 name=name)
    return _results(ip, lanes=False)


def evaluate_wave(pseudocode: str, inputs: dict[str, Any], style: str = "headed", *, lanes: int | None = None,
                  where: str = "", resolver: Resolver | None = None, machine: dict[str, int] | None = None,
                  strict: bool = True, name: str | None = None) -> dict[str, np.ndarray]:
    """Evaluate on a wave: each input is a scalar or an array with one value per lane."""
    n = lanes
    for v in inputs.values():
        if isinstance(v, np.ndarray) and v.ndim == 1:
            if n is not None and len(v) != n:
                raise EvalError(f"inputs have {len(v)} lanes, expected {n}", where)
            n = len(v)
    ip, _ = _run(pseudocode, inputs, style, n or 1, where=where, resolver=resolver, machine=machine, strict=strict,
                 name=name)
    return _results(ip, lanes=True)


def token_text(tok: Token | Tree) -> str:
    return str(tok)


def run_ptx(sem: PtxSemantics, inputs: dict[str, Any], dom: Any, lane_ids: Any = None,
            seconds: float | None = EVAL_SECONDS) -> Interp:
    """Run a prepared PTX form (semantics.ptx.PtxSemantics) on a domain; returns the interpreter. `seconds`: the
    time budget (bounded); evidence (crossref.programs) runs with None, bounded by steps alone."""
    tree = parse_ptx(sem.code, sem.form)
    ip = Interp(dom, builtins=Builtins(), where=sem.form, machine={}, lane_ids=lane_ids)
    ip.lit_width = EXACT_WIDTH
    ip.reverse_slices = False
    ip.auto_arrays = True
    ip.fuse_mad = sem.name in ("fma", "mad") and (any(t[0] == "f" for t in sem.types.values())
                                                  or (sem.elem is not None and sem.elem[0] == "f"))
    bind_inputs(ip, sem, inputs, dom)
    with bounded(ip, sem.code, seconds):
        ip.run(tree)
    return ip


def evaluate_ptx(sem: PtxSemantics, inputs: dict[str, Any], *, lanes: int | None = None) -> dict[str, Any]:
    """Evaluate a PTX form's Semantics block: evaluate_ptx(ptx_semantics("clmad.lo.u64", texts), {"a": 3, ...})."""
    form = sem.form
    n = lanes or max((len(v) for v in inputs.values() if isinstance(v, np.ndarray)), default=1)
    vector = lanes is not None or any(isinstance(v, np.ndarray) for v in inputs.values())
    ip = run_ptx(sem, inputs, NumpyDomain(n))
    dest = sem.operands[0]
    if dest not in ip.env:
        raise EvalError(f"the semantics of {form} never writes {dest}", form)
    kind, width = ip.declared[dest]
    ip.out_type[dest] = (kind, width)
    out = {dest: _output(ip, dest, ip.env[dest], lanes=vector)}
    return out

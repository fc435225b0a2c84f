"""Evidence for each mapping: a z3 proof or counterexample over both parsed semantics, or tests.

Integer and bit operations are lowered to bit-vectors by running both manuals' pseudocode on
the z3 domain; a mapping is proved when `ptx != amd` (under its restrictions) is unsat, and
refuted by the model z3 returns otherwise. Carry-less multiply is checked with one query per
output bit. A proof that times out falls back to exhaustive checking over small operand values
plus random differential testing, labelled as such. Floats are differential-tested on special
values and random bit patterns: "tested, not proved".
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from gpuisa.atomic import write_text
from gpuisa.crossref.mappings import EQ, EQR, MAPPINGS, NONE, SEQ, Mapping
from gpuisa.crossref.programs import Ops, Program, program_errata, run_program
from gpuisa.errors import GpuisaError
from gpuisa.semantics.domain_np import NumpyDomain
from gpuisa.semantics.errors import SemanticsError
from gpuisa.semantics.source import Texts, amd_semantics
from gpuisa.semantics.z3_check import check

PROOF_TIMEOUT_MS = 60_000
RANDOM_VECTORS = 1 << 16


@dataclass(slots=True)
class Evidence:
    kind: str            # proved | counterexample | tested | curated
    detail: str
    time_s: float
    counterexample: dict[str, int] | None = None

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["time_s"] = round(self.time_s, 3)
        if d["counterexample"] is None:
            d.pop("counterexample")
        return d


# ------------------------------------------------------------------ z3
def _symbolic(m: Mapping) -> tuple[Any, dict[str, Any]]:
    import z3  # heavy (~0.3 s): loaded only when a proof runs, not for cached evidence

    from gpuisa.semantics.domain_z3 import Z3Domain  # imports z3 at module level, see above

    dom = Z3Domain()
    env = {n: (z3.BitVec(n, w), w) for n, w in m.inputs.items()}
    return dom, env


def _model_values(model: Any, m: Mapping) -> dict[str, int]:
    import z3  # heavy: only when a proof runs

    out = {}
    for n, w in m.inputs.items():
        v = model.eval(z3.BitVec(n, w), model_completion=True)
        out[n] = v.as_long()
    return out


def _concrete(prog: Program, arch: str, values: dict[str, int], m: Mapping, texts: Texts, errata: bool = True) -> int:
    dom = NumpyDomain(1)
    env = {n: (dom.const(v, m.inputs[n]), m.inputs[n]) for n, v in values.items()}
    data, _ = run_program(dom, prog, arch, env, texts, errata)
    return int(data[0])


def prove(m: Mapping, prog_a: Program, prog_b: Program, texts: Texts, use_assume: bool = True,
          errata: bool = True) -> Evidence:
    """z3 over both programs; per-bit queries when m.check == 'bv-bits'."""
    import z3  # heavy: only when a proof runs

    t0 = time.perf_counter()
    dom, env = _symbolic(m)
    dom.assumptions = []
    if use_assume and m.assume is not None:
        dom.assumptions.append(m.assume(Ops(dom, env)))
    try:
        pa, w = run_program(dom, prog_a, m.arch, env, texts, errata)
        pb, _ = run_program(dom, prog_b, m.arch, env, texts, errata)
    except SemanticsError as exc:   # tested instead of proved, saying why; never a failed build
        return _fallback(m, prog_a, prog_b, t0, f"pseudocode does not lower to z3: {exc}", texts)
    lowered = time.perf_counter() - t0
    goals = ([z3.Extract(i, i, pa) != z3.Extract(i, i, pb) for i in range(w)] if m.check == "bv-bits"
             else [pa != pb])
    for g in goals:
        s = _bit_solver() if m.check == "bv-bits" else z3.Solver()
        s.set("timeout", PROOF_TIMEOUT_MS)
        s.add(*dom.assumptions)
        s.add(g)
        r = check(s)
        if r == z3.sat:
            vals = _model_values(s.model(), m)
            ra, rb = (_concrete(prog_a, m.arch, vals, m, texts, errata),
                      _concrete(prog_b, m.arch, vals, m, texts, errata))
            args = ", ".join(f"{k}={v:#x}" for k, v in vals.items())
            return Evidence("counterexample", f"{args}: PTX gives {ra:#x}, AMD gives {rb:#x}",
                            time.perf_counter() - t0, vals)
        if r == z3.unknown:
            return _fallback(m, prog_a, prog_b, t0, f"z3 gave up ({s.reason_unknown()})", texts)
    what = f"{w} per-bit queries" if m.check == "bv-bits" else "one query"
    cond = f" under: {'; '.join(m.restrictions)}" if use_assume and m.assume is not None else ""
    return Evidence("proved", f"z3: ptx == amd for all {sum(m.inputs.values())} input bits ({what}, "
                    f"semantics lowered in {lowered:.2f}s){cond}", time.perf_counter() - t0)


def _bit_solver() -> Any:
    """Bit-blast without z3's word-level simplifier, which stalls on the 64-deep XOR/ite chains of
    a carry-less product (and ignores the timeout while it does)."""
    import z3  # heavy: only when a proof runs

    return z3.Then("propagate-values", "bit-blast", "smt").solver()


# ------------------------------------------------------------------ testing
def _edge_values(w: int) -> list[int]:
    m = (1 << w) - 1
    vals = {0, 1, 2, 3, 4, 5, 7, 8, 15, 16, 31, 32, 33, 63, 64, 255, 256, m, m - 1, 1 << (w - 1), (1 << (w - 1)) - 1}
    return sorted(v & m for v in vals)


def _run_lanes(prog: Program, arch: str, inputs: dict[str, np.ndarray], widths: dict[str, int],
               texts: Texts) -> np.ndarray:
    n = len(next(iter(inputs.values())))
    dom = NumpyDomain(n)
    env = {k: (dom.from_ints(v, widths[k]), widths[k]) for k, v in inputs.items()}
    data, _ = run_program(dom, prog, arch, env, texts)
    return np.asarray(data)


def _mask_assume(m: Mapping, inputs: dict[str, np.ndarray]) -> np.ndarray:
    n = len(next(iter(inputs.values())))
    if m.assume is None:
        return np.ones(n, dtype=bool)
    dom = NumpyDomain(n)
    env = {k: (dom.from_ints(v, m.inputs[k]), m.inputs[k]) for k, v in inputs.items()}
    return np.asarray(m.assume(Ops(dom, env)), dtype=bool)


def _vectors(m: Mapping, rng: np.random.Generator, small_bits: int) -> tuple[dict[str, np.ndarray], int]:
    names = list(m.inputs)
    per = max(1, small_bits // max(1, len(names)))
    grid = np.meshgrid(*[np.arange(1 << per, dtype=np.uint64) for _ in names], indexing="ij")
    exhaustive = {n: g.ravel() for n, g in zip(names, grid, strict=True)}
    edges = np.array(np.meshgrid(*[np.array(_edge_values(m.inputs[n]), dtype=np.uint64) for n in names],
                                 indexing="ij")).reshape(len(names), -1)
    rand = {n: rng.integers(0, 1 << min(m.inputs[n], 63), size=RANDOM_VECTORS, dtype=np.uint64) *
            (np.uint64(2) if m.inputs[n] == 64 else np.uint64(1)) for n in names}
    out = {n: np.concatenate([exhaustive[n], edges[i], rand[n]]) for i, n in enumerate(names)}
    return out, per


def _fallback(m: Mapping, pa: Program, pb: Program, t0: float, why: str, texts: Texts) -> Evidence:
    rng = np.random.default_rng(0)
    vecs, per = _vectors(m, rng, 16)
    keep = _mask_assume(m, vecs)
    vecs = {k: v[keep] for k, v in vecs.items()}
    ra, rb = _run_lanes(pa, m.arch, vecs, m.inputs, texts), _run_lanes(pb, m.arch, vecs, m.inputs, texts)
    bad = np.nonzero(ra != rb)[0]
    if len(bad):
        i = int(bad[0])
        vals = {k: int(v[i]) for k, v in vecs.items()}
        return Evidence("counterexample", f"{why}; testing found {vals}: PTX {int(ra[i]):#x}, AMD {int(rb[i]):#x}",
                        time.perf_counter() - t0, vals)
    return Evidence("tested", f"tested, not proved ({why}): exhaustive over operands < 2^{per}, edge values and "
                    f"{RANDOM_VECTORS} random vectors agree ({len(ra)} cases)", time.perf_counter() - t0)


_F32_SPECIAL = [0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7FA00000,
                0x00000001, 0x80000001, 0x007FFFFF, 0x00800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x3F800000,
                0xBF800000, 0x3F000000, 0x33800000, 0x4B800000]


def test_float(m: Mapping, texts: Texts) -> Evidence:
    """Differential test on special values (NaN, inf, denormals, signed zero) and random patterns."""
    t0 = time.perf_counter()
    rng = np.random.default_rng(1)
    names = list(m.inputs)
    grid = np.array(np.meshgrid(*[np.array(_F32_SPECIAL, dtype=np.uint64) for _ in names], indexing="ij"))
    grid = grid.reshape(len(names), -1)
    rand = rng.integers(0, 1 << 32, size=(len(names), RANDOM_VECTORS), dtype=np.uint64)
    vals = np.concatenate([grid, rand], axis=1)
    vecs = {n: vals[i] for i, n in enumerate(names)}
    ra, rb = (_run_lanes(m.ptx_prog, m.arch, vecs, m.inputs, texts),
              _run_lanes(m.amd_prog, m.arch, vecs, m.inputs, texts))
    fa = ra.astype(np.uint32).view(np.float32)
    fb = rb.astype(np.uint32).view(np.float32)
    both_nan = np.isnan(fa) & np.isnan(fb)
    bad = np.nonzero((ra != rb) & ~both_nan)[0]
    payload = int(np.count_nonzero((ra != rb) & both_nan))
    if len(bad):
        i = int(bad[0])
        case = {n: int(vecs[n][i]) for n in names}
        return Evidence("counterexample", f"{case}: PTX {int(ra[i]):#010x}, AMD {int(rb[i]):#010x}",
                        time.perf_counter() - t0, case)
    note = f"; NaN payloads differ in {payload} cases" if payload else ""
    return Evidence("tested", f"tested, not proved: {grid.shape[1]} special-value combinations (NaN, inf, "
                    f"denormals, signed zero) and {RANDOM_VECTORS} random bit patterns agree bit for bit{note}",
                    time.perf_counter() - t0)


# ------------------------------------------------------------------ per mapping
def check_mapping(m: Mapping, texts: Texts) -> dict[str, Any]:
    """Evidence for one mapping, plus whether it supports the claimed level."""
    t0 = time.perf_counter()
    also: list[dict[str, Any]] = []
    if m.check == "curated":
        ev = Evidence("curated", m.reason, 0.0)
    elif m.check == "float":
        ev = test_float(m, texts)
    else:
        ev = prove(m, m.ptx_prog, m.amd_prog, texts)
        if m.assume is not None and ev.kind == "proved":
            # why the restriction is needed: a counterexample without it
            free = prove(m, m.ptx_prog, m.amd_prog, texts, use_assume=False)
            if free.kind == "counterexample":
                also.append({"without restrictions": free.as_dict()})
    fixes = program_errata(m.ptx_prog, texts)
    if fixes and ev.kind in ("proved", "tested"):
        ev.detail += " (PTX text read with erratum: " + "; ".join(fixes) + ")"
        try:
            literal = prove(m, m.ptx_prog, m.amd_prog, texts, errata=False)
            also.append({"PTX text as printed": literal.as_dict()})
        except Exception as exc:
            also.append({"PTX text as printed": {"kind": "curated", "detail": str(exc), "time_s": 0.0}})
    if m.versus is not None:
        vs = prove(_as_bv(m), m.ptx_prog, m.versus, texts)
        also.append({f"single instruction {m.versus.steps[0].op}": vs.as_dict()})
    consistent = _consistent(m, ev)
    return {"key": m.key, "concept": m.concept, "ptx": m.ptx, "amd": m.amd, "arch": m.arch, "level": m.level,
            "restrictions": list(m.restrictions), "sequence": list(m.sequence), "reason": m.reason,
            "evidence": ev.as_dict(), "also": also, "consistent": consistent,
            "time_s": round(time.perf_counter() - t0, 3)}


def _as_bv(m: Mapping) -> Mapping:
    return replace(m, check="bv", assume=None)


def _consistent(m: Mapping, ev: Evidence) -> bool:
    if m.level in (EQ, EQR, SEQ):
        return ev.kind in ("proved", "tested", "curated")
    if m.level == NONE:
        return ev.kind in ("counterexample", "curated")
    return False


# ------------------------------------------------------------------ all mappings, cached
def _fingerprint(texts: Texts) -> str:
    """Changes when the evaluator's code (discovery.evaluator_files: the modules that decide what a program computes),
    this module's checks, the mapping list or the manual texts they run change; the search and the pages do not."""
    from gpuisa.crossref.discovery import evaluator_files  # the evaluator's import closure

    h = hashlib.sha256()
    for p in [*evaluator_files(), Path(__file__), Path(__file__).with_name("mappings.py")]:
        h.update(p.name.encode())
        h.update(p.read_bytes())
    for m in MAPPINGS:
        for prog in (m.ptx_prog, m.amd_prog, m.versus):
            for step in prog.steps if prog else ():
                h.update(_step_text(step.vendor, step.op, m.arch, texts).encode())
    return h.hexdigest()[:16]


def _step_text(vendor: str, op: str, arch: str, texts: Texts) -> str:
    """The manual text one program step runs (or why there is none), for the fingerprint."""
    try:
        if vendor == "amd":
            return amd_semantics(op, arch, texts).text
        found = texts.ptx_form_text(op)
        return found.syntax + found.semantics
    except GpuisaError as exc:
        return str(exc)


def compute_all_evidence(texts: Texts, cache: Path | None = None, keys: list[str] | None = None,
                         cached_only: bool = False) -> dict[str, Any] | None:
    """Evidence for every mapping (the catalog build stores it); cached on disk by fingerprint.

    Returns {"fingerprint", "seconds", "mappings": [...], "summary": {proved, tested, curated,
    counterexample, inconsistent}}; with cached_only, None instead of computing what the cache lacks
    (a default build computes no new evidence).
    """
    fp = _fingerprint(texts)
    if cache is not None and cache.is_file() and keys is None:
        try:
            data = json.loads(cache.read_text())
            if data.get("fingerprint") == fp:
                data["cached"] = True
                return data
        except (OSError, ValueError):
            pass
    if cached_only:
        return None
    t0 = time.perf_counter()
    results = [check_mapping(m, texts) for m in MAPPINGS if keys is None or m.key in keys]
    summary: dict[str, int] = {"proved": 0, "tested": 0, "curated": 0, "counterexample": 0, "inconsistent": 0}
    for r in results:
        summary[r["evidence"]["kind"]] += 1
        summary["inconsistent"] += 0 if r["consistent"] else 1
    data = {"fingerprint": fp, "seconds": round(time.perf_counter() - t0, 2), "mappings": results,
            "summary": summary, "cached": False}
    if cache is not None and keys is None:
        write_text(cache, json.dumps(data, indent=1))   # unique temp name: concurrent builds share this cache
    return data


LEVEL_ORDER = {EQ: 0, EQR: 1, SEQ: 2, NONE: 3}

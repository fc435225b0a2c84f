"""Discovery: for each PTX form and AMD arch, find the AMD instruction that computes the same thing.

No hand list decides a mapping. Candidates are the arch's SALU/VALU instructions whose name
types include the PTX form's width and whose pseudocode reads as many sources as the form has
inputs (plus one source that can be held at 0). Each candidate, under each operand wiring
(identity, permuted, extra source 0), is run by the numpy evaluator on the same input vectors
(edge values and random patterns): a mismatch refutes it with a concrete counterexample; a
wiring that agrees on every vector is then proved by z3 over all inputs (or refuted by z3's
model, re-checked by numpy). z3 timeouts are recorded as "undecided (timeout N s)", never as a claim.

Results are cached by semantics fingerprints (hash of both pseudocode texts and the code):
an AMD instruction whose pseudocode is unchanged from an arch already proved carries that
proof, and says so ("same pseudocode as cdna3, proved there").
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from gpuisa.crossref.programs import Program, Step, run_program
from gpuisa.errors import GpuisaError
from gpuisa.semantics.domain_np import NumpyDomain
from gpuisa.semantics.ptx import ptx_semantics
from gpuisa.semantics.source import Texts, amd_semantics

CHAPTERS = ("Integer Arithmetic Instructions", "Extended-Precision Integer Arithmetic Instructions",
            "Logic and Shift Instructions", "Comparison and Selection Instructions")
ROSETTA_ARCHS = ("rdna3", "rdna3.5", "rdna4", "cdna3", "cdna4", "cdna5")
Z3_TIMEOUT_S = 10
LANES = 384
EQ, EQR, NONE, UNDECIDED, NOSEM = ("equivalent", "equivalent with restrictions", "none", "undecided",
                                   "no semantics")

_SOURCE = re.compile(r"\bS([0-2])\b")
_WRITES = re.compile(r"^\s*(SCC|VCC(\.\w+)?(\[[^]]*\])?)\s*=", re.M)
_IMPLICIT = re.compile(r"\b(SCC|VCC|VCCZ|EXEC)\b")
_NAME_TYPES = re.compile(r"_([uibf])(\d+)")


@dataclass(frozen=True, slots=True)
class PtxFormRef:
    """A PTX form to map, with the chapter (the manual's 9.7.x subsection) it is listed in."""

    form: str
    chapter: str


def forms_in_chapters(instructions: Iterable[Any], chapters: tuple[str, ...] = CHAPTERS) -> list[PtxFormRef]:
    """The forms of the given chapters, from a PTX manual's instruction records (`PtxInstruction`)."""
    out: list[PtxFormRef] = []
    seen: set[str] = set()
    for ins in instructions:
        if ins.category not in chapters:
            continue
        for f in ins.forms:
            if f.form not in seen:
                seen.add(f.form)
                out.append(PtxFormRef(f.form, ins.category))
    return out


# ------------------------------------------------------------------ input vectors
def _vectors(widths: dict[str, int], seed: int) -> dict[str, np.ndarray]:
    """Edge values for every input (all combinations, capped) then random patterns, LANES in all."""
    rng = np.random.default_rng(seed)
    out = {}
    for i, (name, w) in enumerate(widths.items()):
        m = (1 << w) - 1
        edges = [0, 1, 2, 3, 5, 31, 32, 33, 0xFF, 0x100, 1 << (w - 1), (1 << (w - 1)) - 1, m, m - 1,
                 0xFFFFFF & m, 0x1000000 & m, 0xFFFF & m]
        edges = [e & m for e in edges]
        k = len(edges)
        # rotate the edge list per operand so pairs of edge values meet
        head = [edges[(j // (k ** i if i < 2 else 1) + i) % k] for j in range(k * k)]
        lo = rng.integers(0, 1 << min(w, 32), size=LANES - len(head), dtype=np.uint64)
        hi = rng.integers(0, 1 << max(0, min(w - 32, 32)), size=LANES - len(head), dtype=np.uint64) \
            if w > 32 else np.zeros(LANES - len(head), dtype=np.uint64)
        small = rng.integers(0, 40, size=(LANES - len(head)) // 4, dtype=np.uint64)
        rand = (hi << np.uint64(32)) | lo if w > 32 else lo
        rand[: len(small)] = small
        out[name] = np.concatenate([np.array(head, dtype=np.uint64), rand])
    return out


def _run_np(prog: Program, arch: str, vecs: dict[str, np.ndarray], widths: dict[str, int],
            texts: Texts) -> np.ndarray:
    dom = NumpyDomain(len(next(iter(vecs.values()))))
    env = {k: (dom.from_ints(v, widths[k]), widths[k]) for k, v in vecs.items()}
    data, _ = run_program(dom, prog, arch, env, texts)
    return np.asarray(data, dtype=object)


# ------------------------------------------------------------------ the PTX side
# Forms whose manual Semantics block leaves part of their meaning to prose: comparing that block
# with an AMD instruction would prove the wrong thing, so the row says why instead.
NOT_MODELLED: tuple[tuple[str, str], ...] = (
    (r"\.sat\b", "the Semantics block does not model .sat (saturation is stated in the Description only)"),
    (r"\.cc\b|^(addc|subc|madc)\.",
     "reads or writes the carry flag CC.CF, which the discovery does not wire as an operand"),
    (r"^(mul24|mad24)\.", "the Description states a and b are 24-bit values held in 32-bit registers; the "
                         "Semantics block's `t = a * b` does not model that range"),
)


@dataclass(slots=True)
class PtxSide:
    form: str
    inputs: dict[str, int]       # operand -> width
    width: int                   # destination width
    text: str                    # the semantics code evaluated (for fingerprints)
    prog: Program


def ptx_side(form: str, texts: Texts) -> PtxSide:
    """The form as a one-step program over its inputs; GpuisaError when it has no evaluable semantics."""
    for pattern, why in NOT_MODELLED:
        if re.search(pattern, form):
            raise GpuisaError(f"{form}: {why}")
    sem = ptx_semantics(form, texts)
    dest, *ins = sem.operands
    inputs = {o: sem.types[o][1] for o in ins}
    for o, (kind, _) in sem.types.items():
        if kind == "f":
            raise GpuisaError(f"{form}: operand {o} is a float (not in the integer discovery)")
    width = sem.types[dest][1]
    if max(width, *inputs.values()) > 64:
        raise GpuisaError(f"{form}: operands wider than 64 bits (not in the integer discovery)")
    prog = Program((Step("nvidia", form, {o: o for o in ins}, "r"),), "r", width)
    return PtxSide(form, inputs, width, sem.code, prog)


# ------------------------------------------------------------------ AMD candidates
@dataclass(frozen=True, slots=True)
class AmdInstr:
    name: str
    sources: int                 # how many of S0..S2 the pseudocode reads
    widths: frozenset[int]       # the widths its name's types state
    text: str                    # pseudocode (for fingerprints)


def amd_instructions(arch: str, texts: Texts) -> list[AmdInstr]:
    """SALU/VALU instructions of an arch that have pseudocode, with their source count and name widths."""
    out = []
    for name in sorted({k.lower() for k in texts.instruction_docs(arch)}):
        if not name.startswith(("v_", "s_")) or name.startswith(("v_cmpx", "v_pk_", "v_wmma", "v_mfma", "v_smfmac",
                                                                  "s_cbranch", "s_buffer", "s_load", "s_store")):
            continue
        try:
            sem = amd_semantics(name, arch, texts)
        except GpuisaError:
            continue
        srcs = {int(m.group(1)) for m in _SOURCE.finditer(sem.text)}
        if not srcs or srcs != set(range(max(srcs) + 1)):
            continue
        if _IMPLICIT.search(_WRITES.sub("", sem.text)):
            continue                     # reads a carry or condition (SCC, VCC) the PTX form has no operand for
        widths = frozenset(int(w) for _, w in _NAME_TYPES.findall(name))
        out.append(AmdInstr(name, len(srcs), widths, sem.text))
    return out


def _order(p: PtxSide, a: AmdInstr) -> tuple[int, int, int, int, str]:
    """Candidates in the order a porter wants them: VALU, same width, same signedness, then by name."""
    signed = any(f".s{w}" in p.form for w in (8, 16, 32, 64))
    named_signed = bool(re.search(r"_i\d", a.name))
    return (0 if a.name.startswith("v_") else 1, a.sources - len(p.inputs), 0 if max(a.widths, default=0) == p.width else 1,
            0 if signed == named_signed else 1, a.name)


def _compatible(p: PtxSide, a: AmdInstr) -> bool:
    k = len(p.inputs)
    if a.sources not in (k, k + 1):
        return False
    return p.width in a.widths or max(p.inputs.values()) in a.widths


def _wirings(p: PtxSide, a: AmdInstr) -> list[tuple[dict[str, Any], tuple[str, ...]]]:
    """Operand wirings PTX inputs -> S0..Sn, with the restriction each one states."""
    names = list(p.inputs)
    out = []
    for perm in itertools.permutations(names):
        slots: list[Any] = list(perm)
        notes = [] if list(perm) == names else [
            "operand order: " + ", ".join(f"S{i} = {n}" for i, n in enumerate(perm))]
        if a.sources == len(names) + 1:
            for hole in range(a.sources):
                s = [*slots[:hole], 0, *slots[hole:]]
                out.append(({f"S{i}": v for i, v in enumerate(s)}, (*notes, f"operands: S{hole} = 0")))
        else:
            out.append(({f"S{i}": v for i, v in enumerate(slots)}, tuple(notes)))
    return out


def _width_notes(p: PtxSide, a: AmdInstr) -> tuple[str, ...]:
    w = max(p.inputs.values())
    big = max(a.widths) if a.widths else w
    if big > w:
        return (f"widths: {w}-bit operands zero-extended into {big}-bit registers; the low {p.width} bits "
                "of the result are the PTX result",)
    return ()


# ------------------------------------------------------------------ proof
def _prove(p: PtxSide, amd_prog: Program, arch: str, texts: Texts, timeout_s: int) -> dict[str, Any]:
    import z3  # heavy: only when a proof runs

    from gpuisa.semantics.domain_z3 import Z3Domain  # imports z3 at module level

    t0 = time.perf_counter()
    dom = Z3Domain()
    dom.assumptions = []
    env = {n: (z3.BitVec(n, w), w) for n, w in p.inputs.items()}
    try:
        pa, _ = run_program(dom, p.prog, arch, env, texts)
        pb, _ = run_program(dom, amd_prog, arch, env, texts)
    except Exception as exc:  # any lowering failure leaves the question open, never a claim
        return {"kind": UNDECIDED, "detail": f"undecided (pseudocode does not lower to z3: {exc})"}
    s = z3.Solver()
    s.set("timeout", timeout_s * 1000)
    s.add(*dom.assumptions)
    s.add(pa != pb)
    r = s.check()
    dt = round(time.perf_counter() - t0, 3)
    if r == z3.unsat:
        return {"kind": "proved", "detail": f"z3: equal for all {sum(p.inputs.values())} input bits", "time_s": dt}
    if r == z3.sat:
        model = s.model()
        vals = {n: model.eval(z3.BitVec(n, w), model_completion=True).as_long() for n, w in p.inputs.items()}
        vecs = {n: np.array([v], dtype=np.uint64) for n, v in vals.items()}
        ra = _run_np(p.prog, arch, vecs, p.inputs, texts)[0]
        rb = _run_np(amd_prog, arch, vecs, p.inputs, texts)[0]
        if int(ra) == int(rb):
            return {"kind": UNDECIDED, "detail": f"undecided: z3 model {vals} not confirmed by the numpy evaluator",
                    "time_s": dt}
        return {"kind": "counterexample", "counterexample": vals, "time_s": dt,
                "detail": _cx_text(vals, int(ra), int(rb)) + " (z3 model, re-checked by numpy)"}
    return {"kind": UNDECIDED, "detail": f"undecided (timeout {timeout_s} s)", "time_s": dt}


def _cx_text(vals: dict[str, int], ra: int, rb: int) -> str:
    args = ", ".join(f"{k}={v:#x}" for k, v in vals.items())
    return f"{args}: PTX gives {ra:#x}, AMD gives {rb:#x}"


# ------------------------------------------------------------------ one form on one arch
def _fp(*parts: str) -> str:
    h = hashlib.sha256()
    h.update(_CODE_FP.encode())
    for x in parts:
        h.update(x.encode())
        h.update(b"\0")
    return h.hexdigest()[:20]


def _code_fingerprint() -> str:
    h = hashlib.sha256()
    for folder in (Path(__file__).parent, Path(__file__).parent.parent / "semantics"):
        for f in sorted(folder.glob("*.*")):
            if f.suffix in (".py", ".lark"):
                h.update(f.read_bytes())
    return h.hexdigest()[:16]


_CODE_FP = _code_fingerprint()


def map_form(p: PtxSide, arch: str, amd: list[AmdInstr], texts: Texts, proofs: dict[str, Any],
             timeout_s: int = Z3_TIMEOUT_S, screens: dict[tuple, Any] | None = None) -> dict[str, Any]:
    """The best mapping of one PTX form on one arch, with evidence; `proofs` is the fingerprint cache,
    `screens` memoises candidate outputs on the test vectors (forms with the same operand widths share them)."""
    screens = {} if screens is None else screens
    vecs = _vectors(p.inputs, seed=len(p.inputs) * 1000 + p.width)
    want = _run_np(p.prog, arch, vecs, p.inputs, texts).astype(np.uint64)
    nearest: tuple[int, dict[str, Any]] | None = None
    tried = skipped = 0
    undecided: list[dict[str, Any]] = []
    related: dict[str, dict[str, Any]] = {}   # name-related candidates refuted, best wiring each
    base = p.form.split(".")[0]
    for a in sorted(amd, key=lambda a: _order(p, a)):
        if not _compatible(p, a):
            continue
        for wiring, notes in _wirings(p, a):
            tried += 1
            amd_prog = Program((Step("amd", a.name, wiring, "r"),), "r", p.width)
            memo = (a.name, json.dumps(_wtext(wiring)), tuple(p.inputs.items()), p.width)
            if memo not in screens:
                try:
                    screens[memo] = _run_np(amd_prog, arch, vecs, p.inputs, texts).astype(np.uint64)
                except Exception:  # a candidate whose pseudocode does not run is not a candidate
                    screens[memo] = None
            got = screens[memo]
            if got is None:
                skipped += 1
                continue
            bad = np.nonzero(want != got)[0]
            restrictions = (*notes, *_width_notes(p, a))
            if len(bad):
                i = int(bad[0])
                vals = {n: int(v[i]) for n, v in vecs.items()}
                agree = LANES - len(bad)
                refuted = {"amd": a.name, "wiring": _wtext(wiring), "agree": f"{agree}/{LANES}",
                           "evidence": {"kind": "counterexample", "counterexample": vals,
                                        "detail": _cx_text(vals, int(want[i]), int(got[i])) + " (numpy evaluator)"}}
                if base in a.name.split("_") and agree > related.get(a.name, {}).get("n", -1):
                    related[a.name] = {"n": agree, **refuted}
                if nearest is None or agree > nearest[0]:
                    nearest = (agree, refuted)
                continue
            key = _fp(p.text, a.text, json.dumps(_wtext(wiring)), str(p.inputs), str(p.width))
            cached = proofs.get(key)
            if cached is not None and cached["kind"] != UNDECIDED:
                ev = dict(cached)
                if cached.get("arch") != arch:
                    ev["detail"] = (f"same pseudocode as {cached['arch']}, {cached['kind']} there: "
                                    + cached["detail"])
            else:
                ev = _prove(p, amd_prog, arch, texts, timeout_s) | {"arch": arch}
                proofs[key] = ev
            if ev["kind"] == "proved":
                level = EQR if restrictions else EQ
                return {"level": level, "amd": a.name, "wiring": _wtext(wiring), "restrictions": list(restrictions),
                        "evidence": _public(ev), "candidates": tried, "not_run": skipped, "refuted": _refuted(related)}
            if ev["kind"] == UNDECIDED:
                undecided.append({"amd": a.name, "wiring": _wtext(wiring), "evidence": _public(ev)})
            else:
                nearest = (LANES, {"amd": a.name, "wiring": _wtext(wiring), "agree": f"{LANES}/{LANES}",
                                   "evidence": _public(ev)})
    if undecided:
        return {"level": UNDECIDED, **undecided[0], "restrictions": [], "candidates": tried}
    if nearest is not None:
        return {"level": NONE, "nearest": nearest[1], "restrictions": [], "candidates": tried, "not_run": skipped,
                "refuted": _refuted(related),
                "reason": f"no single {arch} instruction is equal; the nearest candidate is refuted"}
    return {"level": NONE, "restrictions": [], "candidates": 0,
            "reason": f"no {arch} SALU/VALU instruction has compatible operand widths and source count"}


def _refuted(related: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    best = sorted(related.values(), key=lambda r: -r["n"])[:8]
    return [{k: v for k, v in r.items() if k != "n"} for r in best]


def _public(ev: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in ev.items() if k in ("kind", "detail", "counterexample", "time_s", "arch")}


def _wtext(wiring: dict[str, Any]) -> dict[str, str]:
    return {k: str(v) for k, v in wiring.items()}


# ------------------------------------------------------------------ all forms, one arch, cached
def discover_arch(arch: str, forms: list[PtxFormRef], texts: Texts, cache: Path | None = None,
                  timeout_s: int = Z3_TIMEOUT_S) -> dict[str, Any]:
    """One row per PTX form: {form, chapter, level, amd, wiring, restrictions, evidence | nearest, reason}."""
    t0 = time.perf_counter()
    amd = amd_instructions(arch, texts)
    fp = _rows_fingerprint(arch, forms, amd, texts)
    rows_file = cache.with_name(f"{cache.stem}-rows-{arch}.json") if cache is not None else None
    old = _load(rows_file)
    if old.get("fingerprint") == fp:
        return {"arch": arch, "rows": old["rows"], "seconds": round(time.perf_counter() - t0, 2), "cached": True}
    proofs = _load(cache)
    screens: dict[tuple, Any] = {}
    rows = []
    for ref in forms:
        row: dict[str, Any] = {"form": ref.form, "chapter": ref.chapter, "arch": arch}
        try:
            p = ptx_side(ref.form, texts)
            rows.append(row | map_form(p, arch, amd, texts, proofs, timeout_s, screens))
        except Exception as exc:  # the row says why; one form never stops the table
            rows.append(row | {"level": NOSEM, "reason": f"the PTX semantics do not evaluate: {exc}"})
    _save(cache, proofs)
    if rows_file is not None:
        tmp = rows_file.with_suffix(f".{time.time_ns()}.tmp")
        tmp.write_text(json.dumps({"fingerprint": fp, "rows": rows}))
        tmp.replace(rows_file)
    return {"arch": arch, "rows": rows, "seconds": round(time.perf_counter() - t0, 2), "cached": False}


def _rows_fingerprint(arch: str, forms: list[PtxFormRef], amd: list[AmdInstr], texts: Texts) -> str:
    """Changes when the code, a form's manual text or any candidate's pseudocode changes."""
    parts = [arch]
    for ref in forms:
        try:
            found = texts.ptx_form_text(ref.form)
            parts.append(f"{ref.form}|{ref.chapter}|{found.syntax}|{found.semantics}")
        except GpuisaError as exc:
            parts.append(f"{ref.form}|{exc}")
    parts += [f"{a.name}|{a.text}" for a in amd]
    return _fp(*parts)


def _load(cache: Path | None) -> dict[str, Any]:
    if cache is None or not cache.is_file():
        return {}
    try:
        return json.loads(cache.read_text())
    except (OSError, ValueError):
        return {}


def _save(cache: Path | None, proofs: dict[str, Any]) -> None:
    if cache is None:
        return
    cache.parent.mkdir(parents=True, exist_ok=True)
    merged = _load(cache) | proofs
    tmp = cache.with_suffix(f".{time.time_ns()}.tmp")
    tmp.write_text(json.dumps(merged))
    tmp.replace(cache)


def decided(row: dict[str, Any]) -> bool:
    """A row whose level rests on evidence: proved (possibly restricted) or refuted nearest candidate."""
    return row["level"] in (EQ, EQR) or (row["level"] == NONE and "nearest" in row)

"""Discovery: for each PTX form and AMD arch, find the AMD instruction that computes the same thing.

No hand list decides a mapping. Candidates are the arch's SALU/VALU instructions whose name
types include the PTX form's width and whose pseudocode reads as many sources as the form has
inputs (plus one source that can be held at 0). Each candidate, under each operand wiring
(identity, permuted, extra source 0), is run by the numpy evaluator on the same input vectors
(edge values and random patterns): a mismatch refutes it with a concrete counterexample; a
wiring that agrees on every vector is then proved by z3 over all inputs (or refuted by z3's
model, re-checked by numpy). A query past z3's resource limit is recorded as "undecided (limit ...)", never as a
claim; the limits are resource counts, not seconds, so every answer is the same on a busy machine as on a quiet one.

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
import warnings
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from gpuisa.crossref.programs import STEPS_RUN, Ops, Program, Step, arg_value, run_amd_step, run_program
from gpuisa.errors import GpuisaError
from gpuisa.semantics.domain_np import NumpyDomain
from gpuisa.semantics.ptx import ptx_semantics
from gpuisa.semantics.ptx_approx import ApproxForm, approx_differ, approx_form
from gpuisa.semantics.ptx_cvt import CVT_RULES, CvtForm, NotModelled, cvt_form, elements_differ, input_domain
from gpuisa.semantics.ptx_lanes import LANE_RULES, LaneForm, lane_form, lanes_differ
from gpuisa.semantics.source import Texts, amd_semantics, resolver_for
from gpuisa.semantics.z3_check import check

CHAPTERS = ("Integer Arithmetic Instructions", "Extended-Precision Integer Arithmetic Instructions",
            "Logic and Shift Instructions", "Comparison and Selection Instructions",
            "Floating-Point Instructions", "Half Precision Floating-Point Instructions",
            "Mixed Precision Floating-Point Instructions", "Data Movement and Conversion Instructions")
# Of the data-movement chapter only the conversions are arithmetic: their rows carry this chapter name.
CVT_CHAPTER = "cvt"
CVT_HEADS = ("cvt",)
ROSETTA_ARCHS = ("rdna3", "rdna3.5", "rdna4", "cdna3", "cdna4", "cdna5")
# z3's resource units per proof query (deterministic, unlike a timeout: the answer never depends on the machine's load).
# About 5M units per CPU second here; a proof that needs more is "undecided (limit)". Calibrated on the integer forms of
# a 10% sample on cdna3: the largest query z3 answered used 14M units, two stopped at a 10 s timeout under load (~2 CPU s).
Z3_RLIMIT = 30_000_000
LANES = 384
EQ, EQR, SEQ, NONE, UNDECIDED, NOSEM = ("equivalent", "equivalent with restrictions", "needs a sequence", "none",
                                        "undecided", "no semantics")
NOT_COMPUTED = "not computed"

Progress = Callable[[str, int, int], None]       # (stage or arch, done, total)

_SOURCE = re.compile(r"\bS([0-2])\b")
_WRITES = re.compile(r"^\s*(SCC|VCC(\.\w+)?(\[[^]]*\])?)\s*=", re.M)
_IMPLICIT = re.compile(r"\b(SCC|VCC|VCCZ|EXEC)\b")
_NAME_TYPES = re.compile(r"_([uibf])(\d+)")


@dataclass(frozen=True, slots=True)
class PtxFormRef:
    """A PTX form to map, with the chapter (the manual's 9.7.x subsection) it is listed in."""

    form: str
    chapter: str
    always: bool = False   # computed even past the time budget (the hinted forms a cold build must not lose)


def forms_in_chapters(instructions: Iterable[Any], chapters: tuple[str, ...] = CHAPTERS) -> list[PtxFormRef]:
    """The forms of the given chapters, from a PTX manual's instruction records (`PtxInstruction`)."""
    return rosetta_forms([(f.form, ins.category) for ins in instructions for f in ins.forms], chapters)


def rosetta_forms(listed: Iterable[tuple[str, str]], chapters: tuple[str, ...] = CHAPTERS) -> list[PtxFormRef]:
    """The Rosetta's rows from (form, manual chapter) pairs: each form once, in the order given; of the
    data-movement chapter only cvt (its rows say chapter "cvt")."""
    out: list[PtxFormRef] = []
    seen: set[str] = set()
    for form, chapter in listed:
        if chapter not in chapters or form in seen:
            continue
        if chapter == CHAPTERS[-1]:
            if form.split(".")[0] not in CVT_HEADS:
                continue
            chapter = CVT_CHAPTER
        seen.add(form)
        out.append(PtxFormRef(form, chapter))
    return out + [r for r in pair_refs() if r.form not in seen]


def chapter_titles() -> tuple[str, ...]:
    """The Rosetta's chapter names as its rows carry them (the PTX pairs last: they are not manual forms and do not
    count in coverage)."""
    return (*CHAPTERS[:-1], CVT_CHAPTER, PAIRS_CHAPTER)


def pair_refs() -> list[PtxFormRef]:
    return [PtxFormRef(name, PAIRS_CHAPTER) for name in PAIRS]


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
    """The program's result on the vectors. NaN and infinity inputs are the point of the float vectors, so numpy's
    invalid-value and overflow warnings are expected here and silenced."""
    dom = NumpyDomain(len(next(iter(vecs.values()))))
    env = {k: (dom.from_ints(v, widths[k]), widths[k]) for k, v in vecs.items()}
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        data, _ = run_program(dom, prog, arch, env, texts)
    arr = np.asarray(data)
    return arr if arr.dtype == np.uint64 else np.asarray(data, dtype=object)   # object: wider than 64 bits


# ------------------------------------------------------------------ the PTX side
# Forms whose meaning the evaluator does not model: comparing them with an AMD instruction would prove
# the wrong thing, so the row says why instead. Each entry: pattern on the form, reason.
NOT_MODELLED: tuple[tuple[str, str], ...] = (
    (r"\.(rna|rs)\b", ".rna (ties away) and .rs (stochastic) rounding are not modelled by the evaluator"),
    (r"^(?!cvt).*\.(rz|rm|rp)\b.*\.f64\b|^(div|sqrt|rcp|rsqrt)\..*\.(rz|rm|rp)\b",
     "directed rounding of f64 arithmetic and of div/sqrt/rcp is not modelled (ptx_builtins.DIRECTED covers add, "
     "sub, mul and fma of f16/f32 and cvt)"),
    (r"\.approx\b", ".approx results are implementation-defined within a stated error bound: no bit-exact "
                     "equivalence exists to prove"),
    (r"\.(satfinite|oob|NaN|xorsign)\b", "this modifier's clamping/NaN rule is not modelled by the evaluator"),
)
FLOAT_KINDS = ("f",)


@dataclass(slots=True)
class PtxSide:
    form: str
    inputs: dict[str, int]       # operand -> width (1 for predicates and the carry-in cf)
    width: int                   # compared result width (destination, plus 1 for a carry-out)
    text: str                    # the semantics code evaluated (for fingerprints)
    prog: Program
    dest_width: int = 0          # the destination alone
    carry_out: bool = False      # the result's top bit is CC.CF after the operation
    float_kind: str = ""         # "f32" ... when the destination or a source is a float (compared bit-exactly)
    ftz: bool = False            # the form flushes subnormals (compared under the AMD denormal-flush mode)
    kinds: dict[str, str] = field(default_factory=dict)   # operand -> u/i/b/f
    elem: tuple[str, int] | None = None   # packed forms (.u16x2, .f16x2): the element kind and width
    model: CvtForm | LaneForm | ApproxForm | None = None   # run by semantics.ptx_cvt / ptx_lanes (NaN elements compared as NaN)


def _carry_result(width: int) -> Any:
    def join(ops: Any) -> Any:
        return ops.bor(ops.place(ops["r"], 0, width + 1), ops.place(ops.field(ops["cf"], 0, 1), width, width + 1))
    return join


def ptx_side(form: str, texts: Texts) -> PtxSide:
    """The form as a program over its inputs; GpuisaError when it has no evaluable semantics."""
    try:
        cf = cvt_form(form)
        lf = lane_form(form) if cf is None else None
    except NotModelled as exc:
        raise GpuisaError(f"{form}: {exc}") from None
    af = approx_form(form)
    if af is not None:
        return _approx_side(af, texts)
    if cf is not None:
        return _cvt_side(cf, texts)
    if lf is not None:
        return _lane_side(lf, texts)
    for pattern, why in NOT_MODELLED:
        if re.search(pattern, form):
            raise GpuisaError(f"{form}: {why}")
    sem = ptx_semantics(form, texts)
    dest, *ins = sem.operands
    inputs = {o: sem.types[o][1] for o in ins}
    width = sem.types[dest][1]
    if max(width, *inputs.values()) > 64:
        raise GpuisaError(f"{form}: operands wider than 64 bits (not in the discovery)")
    floats = sorted({f"f{w}" for o, (k, w) in sem.types.items() if k in FLOAT_KINDS})
    if sem.elem is not None and sem.elem[0] == "f":
        floats = [f"f{sem.elem[1]}x{32 // sem.elem[1]}"]
    args = {o: o for o in ins}
    steps = [Step("nvidia", form, args, "r")]
    carry = "cf_out" in sem.outputs
    if carry:
        steps.append(Step("nvidia", form, args, "cf", "cf_out"))
        prog = Program(tuple(steps), _carry_result(width), width + 1)
    else:
        prog = Program(tuple(steps), "r", width)
    kinds = {o: k for o, (k, _) in sem.types.items()}
    if sem.elem is not None and sem.elem[0] == "f":
        kinds.update({o: "f" for o, (k, _) in sem.types.items() if k == "b"})   # packed floats, compared per element
    return PtxSide(form, inputs, prog.width, sem.code, prog, width, carry, ",".join(floats), ".ftz" in sem.modifiers,
                   kinds, sem.elem)


def _cvt_side(cf: CvtForm, texts: Texts) -> PtxSide:
    """A cvt of narrow float formats (semantics.ptx_cvt: the manual's prose rules, cited in CVT_RULES)."""
    found = texts.ptx_form_text(cf.form)     # the form must be the manual's (or match its Syntax)
    text = "\n".join([found.syntax, found.semantics, *(f"{r}: {CVT_RULES[r]}" for r in cf.rules)])
    prog = Program((Step("nvidia", cf.form, {n: n for n in cf.inputs}, "r"),), "r", cf.width)
    kinds = {n: "f" if n in ("a", "b") and cf.source in ("f32", "f16", "bf16") else "b" for n in cf.inputs}
    floats = f"{cf.dest}x{cf.dest_elems}" if cf.dest_elems > 1 else cf.dest
    return PtxSide(cf.form, dict(cf.inputs), cf.width, text, prog, cf.width, float_kind=floats,
                   kinds=kinds | {"d": "f"}, model=cf)


def _approx_side(af: ApproxForm, texts: Texts) -> PtxSide:
    """An .approx form: the exact value and the manual's error bound (semantics.ptx_approx.APPROX_BOUNDS)."""
    found = texts.ptx_form_text(af.form)
    text = "\n".join([found.syntax, found.semantics, f"{af.bound.kind} {af.bound.value!r}: {af.bound.cite}"])
    prog = Program((Step("nvidia", af.form, {n: n for n in af.inputs}, "r"),), "r", 64)
    return PtxSide(af.form, dict(af.inputs), af.width, text, prog, af.width, float_kind=af.elem, ftz=False,
                   kinds=dict.fromkeys([*af.inputs, "d"], "f"), model=af)


def _lane_side(lf: LaneForm, texts: Texts) -> PtxSide:
    """Element-wise float forms (bf16, f32x2, mixed precision, min/max): semantics.ptx_lanes, rules in LANE_RULES."""
    found = texts.ptx_form_text(lf.form)
    text = "\n".join([found.syntax, found.semantics, *(f"{r}: {LANE_RULES[r]}" for r in lf.rules)])
    prog = Program((Step("nvidia", lf.form, {n: n for n in lf.inputs}, "r"),), "r", lf.width)
    d = lf.elems["d"]
    floats = f"{d}x{lf.count}" if lf.count > 1 else d if d != "pred" else lf.elems["a"]
    elem = ("f", 16) if lf.count == 2 and d in ("f16", "bf16") and all(
        lf.elems[n] == d for n in lf.inputs) else None
    kinds = dict.fromkeys(lf.inputs, "f") | {"d": "f" if d != "pred" else "u"}
    return PtxSide(lf.form, dict(lf.inputs), lf.width, text, prog, lf.width, float_kind=floats,
                   ftz=False, kinds=kinds, elem=elem, model=lf)


# PTX pairs a kernel writes for one AMD instruction (a hints table: it names pairs to try, the evidence is the
# discovery's). Each: (first form, second form, how the second reads the first's result and the inputs, inputs).
PAIRS: dict[str, tuple[str, str, dict[str, str], dict[str, int]]] = {
    # address arithmetic: shl then add (AMD V_LSHL_ADD_U64 / V_LSHL_ADD_U32 do both)
    "shl.b64 + add.u64": ("shl.b64", "add.u64", {"a": "t", "b": "c"}, {"a": 64, "b": 32, "c": 64}),
    "shl.b32 + add.u32": ("shl.b32", "add.u32", {"a": "t", "b": "c"}, {"a": 32, "b": 32, "c": 32}),
}
PAIRS_CHAPTER = "PTX pairs (fused on AMD)"


def pair_side(name: str, texts: Texts) -> PtxSide:
    """A PAIRS entry as one program: t = first(a, b); d = second(t, c)."""
    first, second, args, inputs = PAIRS[name]
    a = ptx_side(first, texts)
    b = ptx_side(second, texts)
    prog = Program((Step("nvidia", first, {"a": "a", "b": "b"}, "t"), Step("nvidia", second, args, "r")), "r",
                   b.dest_width)
    return PtxSide(name, dict(inputs), b.dest_width, a.text + "\n" + b.text, prog, b.dest_width,
                   kinds=dict.fromkeys(inputs, "b"))


# ------------------------------------------------------------------ AMD candidates
@dataclass(frozen=True, slots=True)
class AmdInstr:
    name: str
    sources: int                 # how many of S0..S2 the pseudocode reads
    widths: frozenset[int]       # the widths its name's types state
    text: str                    # pseudocode (for fingerprints)
    reads: str = ""              # implicit flag it reads (VCC carry-in / condition, SCC), "" if none
    writes: str = ""             # implicit flag it writes (VCC carry-out, SCC)
    floats: bool = False         # its name has a float type (_f32, _f16, _f64)
    slot_widths: tuple[int, ...] = ()   # widest view of each S0..Sn in the pseudocode
    fp: str = ""                 # the pseudocode and the machine state it reads on this arch (evidence keys)
    dest_width: int = 32         # widest D0 the pseudocode writes (a 32-element pack writes D0[1023 : 0])


_COMMENT = re.compile(r"//[^\n]*")
_SLOT_VIEW = re.compile(r"\bS([0-2])\.[uibf](\d+)")
_DEST_VIEW = re.compile(r"\bD0(?:\[(\d+)\s*:\s*\d+\]|\.[uibf](\d+)\b)")


def amd_instructions(arch: str, texts: Texts) -> list[AmdInstr]:
    """SALU/VALU instructions of an arch that have pseudocode, with their source count and name widths. Named as the
    manual names them: a catalog also lists each doc under its LLVM spelling (a second key for the same text), which
    would make the candidate list, and so every fingerprint, differ between `gpuisa rosetta` and the build."""
    out = []
    resolve = resolver_for(arch, texts)
    for name in sorted({d.name.lower() for docs in texts.instruction_docs(arch).values() for d in docs}):
        if not name.startswith(("v_", "s_")) or name.startswith(("v_cmpx", "v_wmma", "v_mfma", "v_smfmac",
                                                                  "s_cbranch", "s_buffer", "s_load", "s_store")):
            continue
        try:
            sem = amd_semantics(name, arch, texts)
        except GpuisaError:
            continue
        code = _COMMENT.sub("", sem.text)
        srcs = {int(m.group(1)) for m in _SOURCE.finditer(code)}
        if not srcs or srcs != set(range(max(srcs) + 1)):
            continue
        written = {m.group(1)[:3] for m in _WRITES.finditer(code)}
        read = {m.group(1)[:3] for m in _IMPLICIT.finditer(_WRITES.sub("", code))}
        if "EXE" in read or len(read) > 1 or len(written) > 1:
            continue                     # reads EXEC, or more than one flag: no PTX operand stands for that
        widths = frozenset(int(w) for _, w in _NAME_TYPES.findall(name))
        slot_widths = tuple(max((int(m.group(2)) for m in _SLOT_VIEW.finditer(code) if int(m.group(1)) == i),
                                default=32) for i in range(len(srcs)))
        dest = max((int(hi) + 1 if hi else int(w) for hi, w in _DEST_VIEW.findall(code)), default=32)
        out.append(AmdInstr(name, len(srcs), widths, sem.text, _flag(read), _flag(written),
                            bool(re.search(r"_(f|bf)\d", name)), slot_widths,
                            _instr_fp(sem.text, arch, _called_texts(sem.text, resolve)), dest))
    return out


_CALL = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)\s*\(")


def _called_texts(text: str, resolve: Callable[[str], Any]) -> list[str]:
    """The pseudocode of every instruction or helper `text` calls on this arch, transitively, as the evaluator
    resolves them (semantics.source.resolver_for): v_min3_f32 reads the same on cdna3 and cdna4, but the
    v_min_f32 it calls does not."""
    seen: set[str] = set()
    todo = [m.group(1) for m in _CALL.finditer(text)]
    out = []
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        found = resolve(name)
        if found is None:       # a builtin or an operator-like word, not a text of the manual
            continue
        out.append(f"{name}:" + "\n".join(line.strip() for line in found[0].splitlines()))   # indentation: no meaning
        todo += [m.group(1) for m in _CALL.finditer(found[0])]
    return sorted(out)


def _instr_fp(text: str, arch: str, called: list[str]) -> str:
    """The pseudocode, the texts it calls (`_called_texts`) and the machine state it reads on this arch
    (run.machine_for: the FP8 flavour for fp8/bf8 helpers, wave size, M0's encoding): identical pseudocode on two
    archs evaluates the same only if what it calls and that state are the same, so all three are part of every
    evidence key and a proof carries to another arch only then."""
    from gpuisa.semantics.run import machine_for  # the interpreter's machine defaults

    machine = machine_for(arch)
    used = {k: v for k, v in machine.items() if k in text}
    if "M0" in text:
        used |= {k: v for k, v in machine.items() if "M0_ENCODING" in k}
    if re.search(r"(?i)(fp8|bf8)", text):
        used |= {k: v for k, v in machine.items() if "FNUZ" in k.upper() or "FP8" in k.upper()}
    calls = "".join(f"\n{c}" for c in called)    # empty for a text that calls nothing: its key stays as it was
    return hashlib.sha256((text + calls + json.dumps(used, sort_keys=True)).encode()).hexdigest()[:20]


def _flag(found: set[str]) -> str:
    return {"VCC": "VCC", "SCC": "SCC"}.get(next(iter(found), ""), "")


def _order(p: PtxSide, a: AmdInstr) -> tuple[int, int, int, int, str]:
    """Candidates in the order a porter wants them: VALU, same width, same signedness, then by name."""
    signed = any(f".s{w}" in p.form for w in (8, 16, 32, 64))
    named_signed = bool(re.search(r"_i\d", a.name))
    return (0 if a.name.startswith("v_") else 1, a.sources - len(p.inputs), 0 if max(a.widths, default=0) == p.width else 1,
            0 if signed == named_signed else 1, a.name)


def _bitwise(a: AmdInstr) -> bool:
    """Moves and selects (_b32, _b64 only): they carry float bits as well as integers."""
    return bool(re.search(r"_b\d", a.name)) and not re.search(r"_[uif]\d", a.name)


def _flags(p: PtxSide) -> list[str]:
    return [n for n, w in p.inputs.items() if w == 1]


def _compatible(p: PtxSide, a: AmdInstr, relaxed: bool = False, carry_less: bool = False) -> bool:
    """Whether a can stand for p: operand kinds, flags, source count and widths; `relaxed` keeps only the source
    count (the fallback that finds a nearest candidate to refute when nothing fits); `carry_less` also admits an
    instruction that writes no carry for a form with a carry-out (the last fallback: refuted where CC.CF is 1)."""
    k = len(p.inputs) - (1 if a.reads and _flags(p) else 0)
    if relaxed:
        return a.sources in (k, k + 1) and not (a.reads and not _flags(p)) and \
            (carry_less or not (p.carry_out and not a.writes))
    if bool(p.float_kind) != a.floats and not ("cvt" in a.name or _bitwise(a)):
        return False
    if p.carry_out and not a.writes:
        return False
    k = len(p.inputs) - (1 if a.reads and _flags(p) else 0)
    if a.reads and not _flags(p):
        return False
    if a.sources not in (k, k + 1):
        return False
    if (p.elem is not None) != a.name.startswith("v_pk_"):
        return False                     # packed forms map to packed instructions (V_PK_*), scalar to scalar
    if p.elem is not None:
        return p.elem[1] in a.widths
    widest = max(w for w in p.inputs.values())
    return p.dest_width in a.widths or widest in a.widths


def _wirings(p: PtxSide, a: AmdInstr) -> list[tuple[dict[str, Any], tuple[str, ...]]]:
    """Operand wirings PTX inputs -> S0..Sn (and a predicate or carry-in -> VCC/SCC), with the restriction
    each one states."""
    out = []
    flag_choices: list[str | None] = _flags(p) if a.reads else [None]
    for flag in flag_choices:
        names = [n for n in p.inputs if n != flag]
        for perm in itertools.permutations(names):
            slots: list[Any] = list(perm)
            notes = [] if list(perm) == names else [
                "operand order: " + ", ".join(f"S{i} = {n}" for i, n in enumerate(perm))]
            extra = {a.reads: flag} if flag else {}
            if flag:
                notes.append(f"{flag} in {a.reads} (bit of this lane)")
            if a.sources == len(names) + 1:
                for hole in range(a.sources):
                    s = [*slots[:hole], 0, *slots[hole:]]
                    out.append(({f"S{i}": v for i, v in enumerate(s)} | extra, (*notes, f"operands: S{hole} = 0")))
            elif a.sources == len(names):
                out.append(({f"S{i}": v for i, v in enumerate(slots)} | extra, tuple(notes)))
    return out


def _amd_program(p: PtxSide, a: AmdInstr, wiring: dict[str, Any]) -> Program:
    if p.carry_out and not a.writes:     # a nearest candidate without a carry: its carry-out reads as 0
        def no_carry(ops: Any) -> Any:
            return ops.place(ops.field(ops["r"], 0, p.dest_width), 0, p.dest_width + 1)
        return Program((Step("amd", a.name, wiring, "r", "D0"),), no_carry, p.width)
    if p.carry_out:
        return Program((Step("amd", a.name, wiring, "r", "D0"), Step("amd", a.name, wiring, "cf", a.writes)),
                       _carry_result(p.dest_width), p.width)
    return Program((Step("amd", a.name, wiring, "r"),), "r", p.width)


def _width_notes(p: PtxSide, a: AmdInstr, wiring: dict[str, Any]) -> tuple[str, ...]:
    """Where a PTX operand is narrower than the AMD view of its slot: the test and proof fill the rest with zeros."""
    notes = []
    for slot, v in sorted(wiring.items()):
        m = re.fullmatch(r"S(\d)", slot)
        if not m or not isinstance(v, str) or v not in p.inputs:
            continue
        i = int(m.group(1))
        view = a.slot_widths[i] if i < len(a.slot_widths) else 32
        if view > p.inputs[v]:
            notes.append(f"widths: {v} ({p.inputs[v]}-bit) in {slot}, read as {view} bits with the upper bits zero")
    if max(a.widths, default=p.dest_width) > p.dest_width and p.dest_width > 1:
        notes.append(f"widths: the low {p.dest_width} bits of D0 are the PTX result")
    if a.name.startswith("s_"):
        notes.append("SALU: operands in SGPRs, so the values must be the same in every lane (wave-uniform)")
    if p.float_kind:
        notes.append(FLOAT_NOTE_FTZ if p.ftz else FLOAT_NOTE)
    if isinstance(p.model, ApproxForm):
        notes.append(p.model.restriction)
    if _domain_note(p):
        notes.append(_domain_note(p))
    return tuple(notes)


def _domain_note(p: PtxSide) -> str:
    dom = input_domain(p.model) if isinstance(p.model, CvtForm) else None
    return dom[0] if dom else ""


DIRECTED_NOTE = (" (AMD runs in its reset MODE here, round to nearest even; a kernel that sets MODE.FP_ROUND to the "
                 "form's direction is not modelled)")
FLOAT_NOTE = ("floats: AMD MODE with denormals enabled and round to nearest even (the reset mode), IEEE mode on; "
              "NaN results compared as NaN (payload and sign not compared)")
FLOAT_NOTE_FTZ = ("floats: AMD MODE with denormals flushed (the PTX form's .ftz), round to nearest even; NaN results "
                  "compared as NaN (payload and sign not compared)")


# ------------------------------------------------------------------ proof
def _prove(p: PtxSide, amd_prog: Program, arch: str, texts: Texts, rlimit: int,
           below: dict[str, int] | None = None) -> dict[str, Any]:
    """z3 over both programs for all inputs (or those with input < bound, `below`); a model is re-checked by numpy."""
    import z3  # heavy: only when a proof runs

    from gpuisa.semantics.domain_z3 import Z3Domain  # imports z3 at module level

    t0 = time.perf_counter()
    dom = Z3Domain()
    env = {n: (z3.BitVec(n, w), w) for n, w in p.inputs.items()}
    try:
        pa, assumptions = _ptx_z3(p, arch, texts, dom, env)
        dom.assumptions = list(assumptions)
        pb, _ = run_program(dom, amd_prog, arch, env, texts)
    except Exception as exc:  # any lowering failure leaves the question open, never a claim
        return {"kind": UNDECIDED, "detail": f"undecided (pseudocode does not lower to z3: {exc})"}
    s = z3.Solver()
    s.set("rlimit", rlimit)
    s.add(*dom.assumptions)
    for n, bound in (below or {}).items():
        s.add(z3.ULT(env[n][0], z3.BitVecVal(bound, p.inputs[n])))
    pa, pb, merged = _merge_mul_operands(pa, pb, s.assertions())
    s.add(pa != pb)
    r = check(s)
    dt = round(time.perf_counter() - t0, 3)
    bits = sum(p.inputs.values())
    how = f"{merged} multiplier operand(s) proved equal first, then one query" if merged else "one query"
    if r == z3.unsat:
        if below:
            scope = " and ".join(f"{n} < {b}" for n, b in below.items())
            return {"kind": "proved", "detail": f"z3: equal for all inputs with {scope} ({how}, restricted)",
                    "time_s": dt}
        return {"kind": "proved", "detail": f"z3: equal for all {bits} input bits ({how}, {dt:.2f} s)",
                "time_s": dt}
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
    return {"kind": UNDECIDED, "detail": f"undecided (limit: z3 stopped at its resource limit of {rlimit:,} units: "
                                         f"{s.reason_unknown()})", "time_s": dt}


MUL_MERGE_TRIES = 16            # operand pairs checked by _merge_mul_operands
MUL_MERGE_RLIMIT = 5_000_000     # z3 resource units per check (about a CPU second)


def _merge_mul_operands(pa: Any, pb: Any, assumptions: Any) -> tuple[Any, Any, int]:
    """Both sides with each AMD-side multiplier operand replaced by a PTX-side one that z3 proves equal to it (under
    the query's assumptions), and how many were replaced. Two multipliers whose operands are written differently
    (mul24's `((a & 0xffffff) ^ 0x800000) - 0x800000` against `32'I(S0.i24)`) are beyond bit-blasting in the
    proof's time limit; with one operand term for both the sides become the same term. Replacing a term by one
    proved equal to it keeps the query's answer, so this only speeds it up."""
    import z3

    def muls(e: Any) -> list[Any]:
        out, seen, todo = [], set(), [e]
        while todo:
            x = todo.pop()
            if x.get_id() in seen:
                continue
            seen.add(x.get_id())
            if z3.is_app_of(x, z3.Z3_OP_BMUL):
                out.append(x)
            todo += x.children()
        return out

    if not z3.is_bv(pa) or not z3.is_bv(pb):
        return pa, pb, 0
    sa, sb = z3.simplify(pa), z3.simplify(pb)
    ptx_args = [c for m in muls(sa) for c in m.children()]
    if not ptx_args:
        return pa, pb, 0
    subs: list[tuple[Any, Any]] = []
    tries = 0
    for m in muls(sb):
        for c in m.children():
            if any(c.eq(x) for x in ptx_args) or any(c.eq(old) for old, _ in subs):
                continue
            for x in ptx_args:
                if x.sort() != c.sort() or tries >= MUL_MERGE_TRIES:
                    continue
                tries += 1
                sv = z3.Solver()
                sv.set("rlimit", MUL_MERGE_RLIMIT)
                sv.add(*assumptions)
                sv.add(x != c)
                if check(sv) == z3.unsat:
                    subs.append((c, x))
                    break
    return (sa, z3.substitute(sb, *subs), len(subs)) if subs else (pa, pb, 0)


# The PTX side lowered to z3 once per form (a loop like clz.b64's takes tens of seconds to unroll; every candidate
# of the form is proved against the same expression). PTX semantics do not depend on the AMD arch.
_PTX_Z3: dict[tuple[str, str, str], tuple[Any, list[Any]] | Exception] = {}


def _ptx_z3(p: PtxSide, arch: str, texts: Texts, dom: Any, env: dict[str, Any]) -> tuple[Any, list[Any]]:
    key = (p.form, p.text, json.dumps(p.inputs))
    hit = _PTX_Z3.get(key)
    if hit is None:
        dom.assumptions = []
        try:
            pa, _ = run_program(dom, p.prog, arch, env, texts)
            hit = (pa, list(dom.assumptions))
        except Exception as exc:  # remembered: the same form fails the same way for every candidate
            hit = exc
        if len(_PTX_Z3) > 256:
            _PTX_Z3.clear()
        _PTX_Z3[key] = hit
    if isinstance(hit, Exception):
        raise hit
    return hit


FLOAT_RANDOM = 1 << 20          # random bit patterns per float test, besides every pair of special values
_FLOAT_SPECIALS = {
    16: [0x0000, 0x8000, 0x0001, 0x8001, 0x03FF, 0x0400, 0x3C00, 0xBC00, 0x3800, 0x7BFF, 0xFBFF, 0x7C00, 0xFC00,
         0x7E00, 0x7C01, 0x4000, 0x3555],
    32: [0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007FFFFF, 0x00800000, 0x3F800000, 0xBF800000,
         0x3F000000, 0x7F7FFFFF, 0xFF7FFFFF, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001, 0x40000000,
         0x3EAAAAAB, 0x4B000000, 0x4B7FFFFF, 0xCF000000, 0x4F800000],
    64: [0, 1 << 63, 1, (1 << 63) | 1, (1 << 52) - 1, 1 << 52, 0x3FF0000000000000, 0xBFF0000000000000,
         0x7FEFFFFFFFFFFFFF, 0x7FF0000000000000, 0xFFF0000000000000, 0x7FF8000000000000, 0x7FF0000000000001,
         0x4330000000000000, 0x43E0000000000000, 0xC3E0000000000000],
}


def _float_vectors(p: PtxSide, n_random: int, seed: int) -> dict[str, np.ndarray]:
    """Every combination of special values (zeros, subnormals, 1, max, inf, NaNs, 2^23 ...) for the float
    inputs, integer edges for the others, then n_random random bit patterns."""
    rng = np.random.default_rng(seed)
    names = list(p.inputs)
    pools = []
    for n in names:
        w = p.inputs[n]
        if p.kinds.get(n) == "f" and p.elem is not None:
            sp = _FLOAT_SPECIALS[p.elem[1]]
            pools.append([lo | (hi << 16) for lo, hi in zip(sp, sp[3:] + sp[:3], strict=True)])
        elif p.kinds.get(n) == "f":
            pools.append(_FLOAT_SPECIALS.get(w, _FLOAT_SPECIALS[32]))
        else:
            m = (1 << w) - 1
            pools.append(sorted({e & m for e in (0, 1, 2, 3, 0xFF, 1 << (w - 1), (1 << (w - 1)) - 1, m, 0xFFFFFF,
                                                   0x1000000, 12345)}))
    combos = list(itertools.islice(itertools.product(*pools), 4096))
    out = {}
    for i, n in enumerate(names):
        w = p.inputs[n]
        head = np.array([c[i] for c in combos], dtype=np.uint64)
        lo = rng.integers(0, 1 << min(w, 32), size=n_random, dtype=np.uint64)
        if w > 32:
            hi = rng.integers(0, 1 << (w - 32), size=n_random, dtype=np.uint64)
            lo = (hi << np.uint64(32)) | lo
        out[n] = np.concatenate([head, lo])
    return _in_domain(p, out)


def _in_domain(p: PtxSide, vecs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Test vectors mapped into the inputs on which the manual states the form's result (ptx_cvt.input_domain; the
    row's restrictions say which)."""
    dom = input_domain(p.model) if isinstance(p.model, CvtForm) else None
    return vecs if dom is None else {n: dom[1](n, v) for n, v in vecs.items()}


def _is_nan(x: np.ndarray, w: int) -> np.ndarray:
    exp, man = {16: (0x7C00, 0x3FF), 32: (0x7F800000, 0x7FFFFF), 64: (0x7FF0000000000000, (1 << 52) - 1)}[w]
    return ((x & np.uint64(exp)) == np.uint64(exp)) & ((x & np.uint64(man)) != 0)


def _lanes(x: np.ndarray, total: int, w: int) -> list[np.ndarray]:
    """The w-bit elements of total-bit values (one element unless the value is packed)."""
    return [(x >> np.uint64(i)) & np.uint64((1 << w) - 1) for i in range(0, total, w)] if total > w else [x]


def _flush(x: np.ndarray, w: int, elem: int = 0) -> np.ndarray:
    """Subnormals to sign-preserving zero (PTX .ftz: "flushes subnormal inputs and results to sign-preserving zero";
    AMD MODE denormals off), per element of a packed value."""
    ew = elem or w
    exp, sign = {16: (0x7C00, 0x8000), 32: (0x7F800000, 0x80000000), 64: (0x7FF0000000000000, 1 << 63)}[ew]
    out = np.zeros_like(x)
    for i, lane in enumerate(_lanes(x, w, ew)):
        sub = (lane & np.uint64(exp)) == 0
        out |= np.where(sub, lane & np.uint64(sign), lane) << np.uint64(i * ew)
    return out


def _screen(p: PtxSide, prog: Program, arch: str, vecs: dict[str, np.ndarray], texts: Texts) -> np.ndarray:
    """The program's result bits on the vectors; floats under .ftz get flushed inputs and results."""
    ew = p.elem[1] if p.elem else 0
    if p.ftz:
        vecs = {n: _flush(v, p.inputs[n], ew) if p.kinds.get(n) == "f" else v for n, v in vecs.items()}
    out = _run_np(prog, arch, vecs, p.inputs, texts)
    out = out.astype(np.uint64) if p.width <= 64 else out      # a 64-bit sum with its carry-out has 65 bits
    if p.ftz and p.kinds.get("d") == "f":
        out = _flush(out, p.dest_width, ew)
    return out


def _screen_wirings(p: PtxSide, a: AmdInstr, wirings: list[dict[str, Any]], arch: str, vecs: dict[str, np.ndarray],
                    texts: Texts) -> list[np.ndarray] | None:
    """_screen of the one-step program _amd_program(p, a, wiring) for each wiring, from one run of `a` over every
    wiring's operands side by side (_run_side_by_side: lanes concatenated; the evaluator computes each lane from that
    lane's operands and lane-uniform machine state only, laneId included). None where that run fails: the caller then
    screens one wiring at a time, as a failing wiring must not take the others with it."""
    flushed = _flushed(p, vecs)
    lanes = len(next(iter(flushed.values())))
    dom = NumpyDomain(lanes)
    ops = Ops(dom, {k: (dom.from_ints(v, p.inputs[k]), p.inputs[k]) for k, v in flushed.items()})
    try:
        variants = [{slot: arg_value(ops, v, 32) for slot, v in w.items()} for w in wirings]
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            results = _run_side_by_side(a.name, variants, lanes, arch, texts)
    except Exception:  # one wiring may not run; _screen tells which
        return None
    return [_as_ptx_result(p, dom, data, w) for data, w in results]


def _as_ptx_result(p: PtxSide, dom: NumpyDomain, data: Any, width: int) -> np.ndarray:
    """An AMD result as the PTX side's destination: resized to its width, uint64 up to 64 bits, flushed
    like the PTX form when it is .ftz with a float destination."""
    if width != p.width:
        data = dom.resize(data, width, p.width, False)
    got = np.asarray(data)
    got = got.astype(np.uint64) if p.width <= 64 else np.asarray(data, dtype=object)
    if p.ftz and p.kinds.get("d") == "f":
        got = _flush(got, p.dest_width, p.elem[1] if p.elem else 0)
    return got


def _mismatch(p: PtxSide, want: np.ndarray, got: np.ndarray) -> np.ndarray:
    """Lanes where the results differ; a NaN float result matches any NaN (payload and sign not compared)."""
    if isinstance(p.model, CvtForm):
        return np.nonzero(elements_differ(p.model, want, got))[0]
    if isinstance(p.model, LaneForm):
        return np.nonzero(lanes_differ(p.model, want, got))[0]
    if isinstance(p.model, ApproxForm):
        return np.nonzero(approx_differ(p.model, want, got))[0]
    if not (p.float_kind and p.kinds.get("d") == "f" and p.dest_width in (16, 32, 64)):
        return np.nonzero(want != got)[0]
    ew = p.elem[1] if p.elem else p.dest_width
    diff = np.zeros(len(want), dtype=bool)
    for a, b in zip(_lanes(want, p.dest_width, ew), _lanes(got, p.dest_width, ew), strict=True):
        diff |= (a != b) & ~(_is_nan(a, ew) & _is_nan(b, ew))
    return np.nonzero(diff)[0]


def _test_float(p: PtxSide, amd_prog: Program, arch: str, texts: Texts, n_random: int = FLOAT_RANDOM
                ) -> dict[str, Any]:
    """Bit-exact test on all special-value combinations plus n_random random patterns (floats have no z3 lowering
    here): "tested", never "proved"."""
    t0 = time.perf_counter()
    vecs = _float_vectors(p, n_random, seed=0x5EED)
    want = _screen(p, p.prog, arch, vecs, texts)
    got = _screen(p, amd_prog, arch, vecs, texts)
    bad = _mismatch(p, want, got)
    dt = round(time.perf_counter() - t0, 3)
    lanes = len(want)
    if len(bad):
        i = int(bad[0])
        vals = {n: int(v[i]) for n, v in vecs.items()}
        return {"kind": "counterexample", "counterexample": vals, "time_s": dt,
                "detail": _cx_text(vals, int(want[i]), int(got[i])) + " (numpy evaluator, float test)"}
    how = "within the PTX form's stated error bound" if isinstance(p.model, ApproxForm) else "bit-exact"
    return {"kind": "tested", "time_s": dt, "lanes": lanes,
            "detail": f"tested {how} on {lanes - n_random} special-value combinations and {n_random} random bit "
                      "patterns (NaN results compared as NaN); not proved"}


def _cx_text(vals: dict[str, int], ra: int, rb: int) -> str:
    args = ", ".join(f"{k}={v:#x}" for k, v in vals.items())
    return f"{args}: PTX gives {ra:#x}, AMD gives {rb:#x}"


# ------------------------------------------------------------------ one form on one arch
def _fp(*parts: str, code: str = "") -> str:
    h = hashlib.sha256()
    h.update((code or _SEARCH_FP).encode())
    for x in parts:
        h.update(x.encode())
        h.update(b"\0")
    return h.hexdigest()[:20]


_IMPORT = re.compile(r"^\s*(?:from gpuisa\.(semantics|crossref)(?:\.(\w+))? import ([\w, ()]+)|"
                     r"import gpuisa\.(semantics|crossref)\.(\w+))", re.M)


def evaluator_files() -> list[Path]:
    """The code that decides what a program computes: crossref.programs and every gpuisa.semantics module it imports,
    directly or not (found by reading the imports), plus the grammars. Evidence is keyed by this code and the two
    semantics texts only, so a change to the search (this module) or to the pages keeps every proof."""
    pkg = Path(__file__).parent.parent
    todo = [pkg / "crossref" / "programs.py"]
    seen: set[Path] = set()
    while todo:
        f = todo.pop()
        if f in seen or not f.is_file():
            continue
        seen.add(f)
        for m in _IMPORT.finditer(f.read_text()):
            folder, mod, names = (m.group(1), m.group(2), m.group(3)) if m.group(1) else (m.group(4), m.group(5), "")
            mods = [mod] if mod else [n.strip() for n in names.strip("()").split(",") if n.strip()]
            todo += [pkg / folder / f"{x}.py" for x in mods] + ([pkg / folder / "__init__.py"] if not mod else [])
    return sorted(seen) + sorted((pkg / "semantics").glob("*.lark"))


def _hash_files(files: list[Path], extra: str = "") -> str:
    h = hashlib.sha256(extra.encode())
    for f in files:
        h.update(f.name.encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


# Proofs and float tests: the evaluator's code and the test method (random patterns, screen lanes).
_EVAL_FP = _hash_files(evaluator_files(), f"float-random={1 << 20};lanes={LANES}")
# Rows: also this module (the candidate order, wirings and sequence shapes decide which mapping a row shows).
_SEARCH_FP = _hash_files([Path(__file__)], _EVAL_FP)
DECIDE_RANDOM = 4096            # float patterns per test in decide_only runs (never cached)
RESTRICT_TRIES = 6              # refuted candidates (best agreement first) tried under an input range
PROVED_KINDS = ("proved", "tested")


def _evidence(p: PtxSide, a: AmdInstr, wiring: dict[str, Any], amd_prog: Program, arch: str, texts: Texts,
              proofs: dict[str, Any], rlimit: int, below: dict[str, int] | None = None,
              float_random: int = FLOAT_RANDOM) -> dict[str, Any]:
    """Proof (integers) or test (floats), cached by the fingerprint of both texts, the wiring and the range."""
    key = _fp(p.text, a.fp, json.dumps(_wtext(wiring)), str(p.inputs), str(p.width), str(p.ftz),
              json.dumps(below or {}), str(p.carry_out), p.float_kind, code=_EVAL_FP)
    cached = proofs.get(key)
    if _reusable(cached, rlimit):
        return _carried(cached, arch)
    if p.float_kind:
        ev = _test_float(p, amd_prog, arch, texts, float_random) | {"arch": arch}
    else:
        ev = _prove(p, amd_prog, arch, texts, rlimit, below) | {"arch": arch, "rlimit": rlimit}
    if float_random == FLOAT_RANDOM or not p.float_kind:
        proofs[key] = ev                # a shortened float test (decide_only) is never cached as evidence
    return ev


def _reusable(cached: dict[str, Any] | None, rlimit: int) -> bool:
    """Whether cached evidence answers the query again: a proof, test or counterexample always (its key holds both
    texts, the wiring and the evaluator's code); an undecided one only under the same z3 resource limit (the limit
    is deterministic, so the same query under it stops the same way; a larger one may decide it). Entries from before
    resource limits (wall-clock timeouts) carry no limit and are recomputed."""
    return cached is not None and (cached["kind"] != UNDECIDED or cached.get("rlimit") == rlimit)


def _carried(cached: dict[str, Any], arch: str) -> dict[str, Any]:
    """Cached evidence as this arch's: where another arch with the same fingerprint produced it, the detail says so."""
    ev = dict(cached)
    if cached.get("arch") != arch:
        ev["detail"] = f"same pseudocode as {cached['arch']}, {cached['kind']} there: " + cached["detail"]
    return ev


def map_form(p: PtxSide, arch: str, amd: list[AmdInstr], texts: Texts, proofs: dict[str, Any],
             rlimit: int = Z3_RLIMIT, screens: dict[tuple, Any] | None = None,
             decide_only: bool = False) -> dict[str, Any]:
    """The best mapping of one PTX form on one arch, with evidence; `proofs` is the fingerprint cache,
    `screens` memoises candidate outputs on the test vectors (forms with the same operand widths share them).

    decide_only: whether the row is decided, fast (coverage figures): the range and sequence searches are skipped
    (they only raise the level of a row that is already decided: a refuted nearest candidate decides it) and float
    tests use DECIDE_RANDOM patterns (a candidate that passes or fails them decides the row either way)."""
    screens = {} if screens is None else screens
    if p.float_kind:
        vecs = _float_vectors(p, LANES, seed=len(p.inputs) * 1000 + p.width)
    else:
        vecs = _in_domain(p, _vectors(p.inputs, seed=len(p.inputs) * 1000 + p.width))
    lanes = len(next(iter(vecs.values())))
    want = _screen(p, p.prog, arch, vecs, texts)
    nearest: tuple[int, dict[str, Any]] | None = None
    tried = skipped = 0
    undecided: list[dict[str, Any]] = []
    related: dict[str, dict[str, Any]] = {}   # name-related candidates refuted, best wiring each
    close: list[tuple[int, AmdInstr, dict[str, Any], tuple[str, ...], np.ndarray]] = []
    ranked: list[tuple[int, AmdInstr, dict[str, Any]]] = []
    base = p.form.split(".")[0]
    shape = (tuple(p.inputs.items()), p.width, p.ftz, p.float_kind, p.carry_out, tuple(p.kinds.get(n, "") for n in p.inputs),
             p.model is not None, _domain_note(p))       # what a candidate's screen depends on besides its wiring
    ordered = sorted(amd, key=lambda a: _order(p, a))
    relaxed = [a for a in ordered if _compatible(p, a, relaxed=True)]
    first = {a.name for a in relaxed}
    relaxed += [a for a in ordered if a.name not in first and _compatible(p, a, relaxed=True, carry_less=True)]
    strict = [a for a in ordered if _compatible(p, a)]
    # the strict pool first; where none of its candidates runs (pseudocode needing state the evaluator lacks),
    # the relaxed one, so the row still gets a nearest candidate to refute
    for pool in ([strict, relaxed[:40]] if strict else [relaxed[:40]]):
        if tried > skipped:
            break
        for a in pool:
            wirings = _wirings(p, a)
            memos = [(a.fp, json.dumps(_wtext(wiring)), shape) for wiring, _ in wirings]
            missing = [k for k, memo in enumerate(memos) if memo not in screens]
            if len(missing) > 1 and not p.carry_out:
                # every operand order of the candidate in one run, lanes side by side (None: one at a time below)
                got_all = _screen_wirings(p, a, [wirings[k][0] for k in missing], arch, vecs, texts)
                for k, got in zip(missing, got_all or (), strict=False):
                    screens[memos[k]] = got
            for (wiring, notes), memo in zip(wirings, memos, strict=True):
                tried += 1
                amd_prog = _amd_program(p, a, wiring)
                if memo not in screens:
                    try:
                        screens[memo] = _screen(p, amd_prog, arch, vecs, texts)
                    except Exception:  # a candidate whose pseudocode does not run is not a candidate
                        screens[memo] = None
                got = screens[memo]
                if got is None:
                    skipped += 1
                    continue
                bad = _mismatch(p, want, got)
                restrictions = (*notes, *_width_notes(p, a, wiring))
                if len(bad):
                    i = int(bad[0])
                    vals = {n: int(v[i]) for n, v in vecs.items()}
                    agree = lanes - len(bad)
                    refuted = {"amd": a.name, "wiring": _wtext(wiring), "agree": f"{agree}/{lanes}",
                               "evidence": {"kind": "counterexample", "counterexample": vals,
                                            "detail": _cx_text(vals, int(want[i]), int(got[i])) + " (numpy evaluator)"}}
                    if base in a.name.split("_") and agree > related.get(a.name, {}).get("n", -1):
                        related[a.name] = {"n": agree, **refuted}
                    if nearest is None or agree > nearest[0]:
                        nearest = (agree, refuted)
                    ranked.append((agree, a, wiring))
                    if not p.float_kind and _range_options(p, vecs, bad):
                        close.append((agree, a, wiring, restrictions, bad))
                    continue
                ev = _evidence(p, a, wiring, amd_prog, arch, texts, proofs, rlimit,
                               float_random=DECIDE_RANDOM if decide_only else FLOAT_RANDOM)
                if ev["kind"] in PROVED_KINDS:
                    level = EQR if restrictions else EQ
                    return {"level": level, "amd": a.name, "wiring": _wtext(wiring), "restrictions": list(restrictions),
                            "evidence": _public(ev), "candidates": tried, "not_run": skipped, "refuted": _refuted(related)}
                if ev["kind"] == UNDECIDED:
                    undecided.append({"amd": a.name, "wiring": _wtext(wiring), "evidence": _public(ev)})
                else:
                    nearest = (lanes, {"amd": a.name, "wiring": _wtext(wiring), "agree": f"{lanes}/{lanes}",
                                       "evidence": _public(ev)})
    best: dict[str, Any] | None = None
    if decide_only:
        close, ranked = [], []
    for _, a, wiring, notes, bad in sorted(close, key=lambda c: -c[0])[:RESTRICT_TRIES]:
        found = _restricted(p, a, wiring, notes, bad, vecs, arch, texts, proofs, rlimit)
        if found is not None and (best is None or found["coverage"] > best["coverage"]):
            best = found
    if best is not None:
        best.pop("coverage")
        return best | {"candidates": tried, "not_run": skipped, "refuted": _refuted(related)}
    seq, searched = _sequence(p, arch, amd, texts, proofs, rlimit, vecs, want, ranked, screens) \
        if not decide_only else (None, "decide_only: sequences not searched")
    if seq is not None:
        return seq | {"candidates": tried, "not_run": skipped, "refuted": _refuted(related),
                      "nearest": nearest[1] if nearest else None}
    if undecided:
        return {"level": UNDECIDED, **undecided[0], "restrictions": [], "candidates": tried}
    if nearest is not None:
        return {"level": NONE, "nearest": nearest[1], "restrictions": [], "candidates": tried, "not_run": skipped,
                "refuted": _refuted(related),
                "reason": f"no single {arch} instruction is equal; the nearest candidate is refuted ({searched})"
                          + (DIRECTED_NOTE if re.search(r"\.(rz|rm|rp)\b", p.form) else "")}
    return {"level": NONE, "restrictions": [], "candidates": 0,
            "reason": f"no {arch} SALU/VALU instruction has compatible operand widths and source count"}


# ------------------------------------------------------------------ sequences (2 instructions)
# Where no single instruction is equal, two shapes are searched and the first whose screen agrees everywhere is
# proved (integers) or tested (floats): a 64-bit add/sub from 32-bit halves through the carry (lo writes VCC, hi
# reads it), and a fix-up (t = X(inputs); d = Y(t, k)) with X one of the best-agreeing refuted candidates and Y a
# one- or two-source instruction of the kinds below, k an input or a constant.
FIXUP_NAMES = re.compile(r"^v_(min|max|med3|and|or|xor|add|sub|cvt|rndne|trunc|floor|ceil|not|bfrev|cndmask|lshl|lshr|ashr)")
FIXUP_FIRSTS = 2                # best-agreeing refuted candidates tried as the first instruction
FIXUP_CONSTANTS = (0, 1)


def _half(name: str, hi: bool) -> Any:
    def half(ops: Any) -> Any:
        return ops.field(ops[name], 32 if hi else 0, 32)
    return half


def _join64(ops: Any) -> Any:
    return ops.bor(ops.place(ops["lo"], 0, 64), ops.place(ops["hi"], 32, 64))


# Per form: the sequence search screens at most this many interpreter steps (programs.STEPS_RUN, memo hits charged
# what they cost when computed), then stops and the row says so. Steps, not seconds: where a search stops never depends
# on the machine's load or on what an earlier form left in the memos.
SEQUENCE_BUDGET_STEPS = 5_000_000      # 4x the largest search of the 2% sample (fma.rm.sat.f32.bf16 on cdna5: 1.2M)
THIRD_TRIES = 3                 # best-agreeing two-instruction sequences extended by a third instruction


def _slot_arg(v: Any) -> Any:
    """A stored wiring value as a program argument: "a.lo" / "a.hi" are the halves of a 64-bit input."""
    if isinstance(v, str) and v.endswith((".lo", ".hi")):
        return _half(v[:-3], v.endswith(".hi"))
    return v


def sequence_program(spec: dict[str, Any], width: int) -> tuple[Program, list[dict[str, Any]], list[str]]:
    """The program a stored sequence spec describes (discovery stores the spec in the row and the Rosetta cell, so
    the evidence can be re-run from the cell), with its steps for `gpuisa port` and its text."""
    shape = spec["shape"]
    if shape == "carry64":
        co, ci, x, y = spec["co"], spec["ci"], spec["x"], spec["y"]
        lo_args = {"S0": _half(x, False), "S1": _half(y, False)}
        hi_args = {"S0": _half(x, True), "S1": _half(y, True), "VCC": "cy"}
        prog = Program((Step("amd", co, lo_args, "lo", "D0"), Step("amd", co, lo_args, "cy", "VCC"),
                        Step("amd", ci, hi_args, "hi", "D0")), _join64, 64)
        steps = [{"amd": co, "wiring": {"S0": f"{x}.lo", "S1": f"{y}.lo"}, "out": "lo"},
                 {"amd": ci, "wiring": {"S0": f"{x}.hi", "S1": f"{y}.hi", "VCC": "vcc"}, "out": "hi"}]
        return prog, steps, [f"{co} lo, {x}.lo, {y}.lo (carry out to VCC)", f"{ci} hi, {x}.hi, {y}.hi, VCC",
                             "d = hi:lo"]
    chain = spec["chain"]            # [(name, {slot: input | int | "t<i>"}), ...]: step i writes t<i>, the last d
    prog_steps, steps, text = [], [], []
    for i, (name, args) in enumerate(chain):
        out = "r" if i == len(chain) - 1 else f"t{i}"
        prog_steps.append(Step("amd", name, {k: _slot_arg(v) for k, v in args.items()}, out))
        steps.append({"amd": name, "wiring": {k: str(v) for k, v in args.items()}, "out": out})
        text.append(f"{name} {'d' if out == 'r' else out}, " + ", ".join(str(v) for v in args.values()))
    return Program(tuple(prog_steps), "r", width), steps, text


def _sequence_specs(p: PtxSide, amd: list[AmdInstr], ranked: list[tuple[int, AmdInstr, dict[str, Any]]]
                    ) -> list[dict[str, Any]]:
    """Every two-instruction sequence shape to screen, in the order tried: a 64-bit add/sub from 32-bit halves
    through the carry, a fix-up after a refuted candidate, and a one-source pre-fix of one of its inputs."""
    out: list[dict[str, Any]] = []
    names = list(p.inputs)
    if p.dest_width == 64 and len(names) == 2 and not p.float_kind and p.elem is None and not p.carry_out:
        cos = [a for a in amd if a.writes == "VCC" and not a.reads and a.sources == 2 and 32 in a.widths
               and a.name.startswith("v_")]
        cis = [a for a in amd if a.reads == "VCC" and a.sources == 2 and 32 in a.widths and a.name.startswith("v_")]
        out += [{"shape": "carry64", "co": co.name, "ci": ci.name, "x": x, "y": y}
                for co in cos for ci in cis for x, y in (names, names[::-1])]
    firsts = [(a, _wtext_raw(w)) for _, a, w in sorted(ranked, key=lambda r: -r[0])[:FIXUP_FIRSTS]]
    for first, wiring in firsts if not p.carry_out else ():
        out += [{"shape": "chain", "chain": [(first.name, wiring), fix]} for fix in _fixups(p, amd, "t0")]
    for first, wiring in firsts if not p.carry_out else ():
        for pre in (a for a in _fixup_seconds(amd) if a.sources == 1 and a.floats == bool(p.float_kind)):
            for slot, x in wiring.items():
                if isinstance(x, str) and x in p.inputs:
                    out.append({"shape": "chain", "chain": [(pre.name, {"S0": x}), (first.name, dict(wiring, **{slot: "t0"}))]})
    return out


def _spec_names(spec: dict[str, Any]) -> list[str]:
    return [spec["co"], spec["ci"]] if spec["shape"] == "carry64" else [n for n, _ in spec["chain"]]


def _wtext_raw(wiring: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in wiring.items()}


def _fixup_seconds(amd: list[AmdInstr]) -> list[AmdInstr]:
    """Instructions tried as a fix-up step: one or two sources, no flags, a result of at most 64 bits (a conversion
    of a 32-element pack writes 1024 bits of which a PTX destination could read one element; evaluating it costs
    more than the rest of the search)."""
    return [a for a in amd if FIXUP_NAMES.match(a.name) and a.sources in (1, 2) and not a.reads and not a.writes
            and a.dest_width <= 64]


def _fixups(p: PtxSide, amd: list[AmdInstr], t: str) -> list[tuple[str, dict[str, Any]]]:
    """(instruction, wiring) of every fix-up Y(t, k): k an input, 0, 1 or the widest input's width."""
    out = []
    names = list(p.inputs)
    for second in _fixup_seconds(amd):
        if second.floats != bool(p.float_kind) and not ("cvt" in second.name or _bitwise(second)):
            continue
        others: list[Any] = [*names, *FIXUP_CONSTANTS, max(p.inputs.values())] if second.sources == 2 else [None]
        for k in others:
            for order in (((t, k), (k, t)) if k is not None else ((t,),)):
                out.append((second.name, {f"S{i}": v for i, v in enumerate(order)}))
    return out


def _sequence(p: PtxSide, arch: str, amd: list[AmdInstr], texts: Texts, proofs: dict[str, Any], rlimit: int,
              vecs: dict[str, np.ndarray], want: np.ndarray, ranked: list[tuple[int, AmdInstr, dict[str, Any]]],
              screens: dict[tuple, Any]) -> tuple[dict[str, Any] | None, str]:
    """The first two-instruction sequence equal on every test vector and then proved (or float-tested); then, where
    cheap, three instructions (the best-agreeing pairs with one more fix-up). Returns (row or None, how the search
    ended). Specs are screened in batches (_agreements) and tried in the order listed, so the answer is the one a
    spec-by-spec search finds."""
    budget = [SEQUENCE_BUDGET_STEPS]
    lanes = len(want)
    near: list[tuple[int, dict[str, Any]]] = []
    specs = _sequence_specs(p, amd, ranked)
    for spec, agree in zip(specs, _agreements(p, specs, arch, amd, texts, vecs, want, budget), strict=True):
        if agree is None:
            return None, f"sequence search stopped at its budget of {SEQUENCE_BUDGET_STEPS:,} interpreter steps (limit)"
        if agree == lanes:
            found, agree = _try_sequence(p, spec, arch, amd, texts, proofs, rlimit, vecs, want)
            if found is not None:
                return found, ""
        if spec["shape"] == "chain" and agree >= lanes * 3 // 4:
            near.append((agree, spec))
    thirds = []
    for _, spec in sorted(near, key=lambda n: -n[0])[:THIRD_TRIES]:
        last = f"t{len(spec['chain']) - 1}"
        chain = [(n, {k: (last if v == "r" else v) for k, v in a.items()}) for n, a in spec["chain"]]
        thirds += [{"shape": "chain", "chain": [*chain, fix]} for fix in _fixups(p, amd, last)]
    for spec, agree in zip(thirds, _agreements(p, thirds, arch, amd, texts, vecs, want, budget), strict=True):
        if agree is None:
            return None, (f"three-instruction search stopped at the sequence budget of {SEQUENCE_BUDGET_STEPS:,} "
                          "interpreter steps (limit)")
        if agree == lanes:
            found, _ = _try_sequence(p, spec, arch, amd, texts, proofs, rlimit, vecs, want)
            if found is not None:
                return found, ""
    return None, f"{len(specs)} two-instruction and {min(len(near), THIRD_TRIES)} three-instruction extensions searched"


# Sequence screens by what decides them (the form, each step's pseudocode fingerprint and wiring): kept for the life
# of the process, so the next arch of a worker's chain screens only sequences with a changed or new instruction.
_SEQ_SCREENS: dict[str, tuple[tuple[int | None, ...], int]] = {}      # memo -> (agreements, steps they cost)
SEQ_SCREENS_MAX = 400_000
_CHARGED = [0]                  # steps of memo hits, charged as if run again (see _cost)


def _cost() -> int:
    """Evaluation work so far in this process, counting a memo hit as the work it saved: the difference around a
    computation is what it costs from scratch, whatever the memos held."""
    return STEPS_RUN[0] + _CHARGED[0]


def _agreements(p: PtxSide, specs: list[dict[str, Any]], arch: str, amd: list[AmdInstr], texts: Texts,
                vecs: dict[str, np.ndarray], want: np.ndarray, budget: list[int]) -> list[int | None]:
    """Lanes on which each sequence spec agrees with the PTX form (0 where its pseudocode does not run, None where
    the search's step budget, `budget[0]`, which each screen draws on, ran out first). Specs that differ in one step
    only run that step once over all their variants side by side (lanes concatenated): the evaluator is vectorised
    over lanes, so a batch costs about one run. A batch is only a screen: every spec it finds equal is screened again
    alone and proved before it is claimed."""
    fps = {a.name: a.fp for a in amd}
    pkey = f"{p.form}|{p.text}|{p.inputs}|{p.width}|{p.ftz}|{p.float_kind}|{p.carry_out}"
    out: list[int | None] = [None] * len(specs)
    groups: dict[str, list[int]] = {}
    for i, spec in enumerate(specs):
        key = f"{len(spec['chain'])}|{spec['chain'][-1][0]}" if spec["shape"] == "chain" else f"single{i}"
        groups.setdefault(key, []).append(i)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for key, idx in sorted(groups.items(), key=lambda g: g[1][0]):
            if budget[0] < 0:
                break
            shape = "single" if key.startswith("single") else key
            sigs = [json.dumps(_sig(specs[i], fps), default=str) for i in idx]
            memo = hashlib.sha1("\0".join([pkey, shape, *sigs]).encode()).hexdigest()
            found = _SEQ_SCREENS.get(memo)
            if found is None:
                c0 = _cost()
                if key.startswith("single"):
                    hit = (_agree_alone(p, specs[idx[0]], arch, vecs, want, texts),)
                else:
                    hit = tuple(_agree_batch(p, [specs[i] for i in idx], arch, vecs, want, texts, fps))
                if len(_SEQ_SCREENS) > SEQ_SCREENS_MAX:
                    _SEQ_SCREENS.clear()
                found = _SEQ_SCREENS[memo] = (hit, _cost() - c0)
            else:
                _CHARGED[0] += found[1]
            hit, cost = found
            budget[0] -= cost
            for i, n in zip(idx, hit, strict=True):
                out[i] = n
    return out


def _sig(spec: dict[str, Any], fps: dict[str, str]) -> list[Any]:
    """A spec with each instruction's pseudocode fingerprint beside its name (what its screen depends on)."""
    return [[n, fps.get(n, "")] for n in _spec_names(spec)] + [spec]


def _agree_alone(p: PtxSide, spec: dict[str, Any], arch: str, vecs: dict[str, np.ndarray], want: np.ndarray,
                 texts: Texts) -> int:
    try:
        got = _screen(p, sequence_program(spec, p.width)[0], arch, vecs, texts)
    except Exception:  # a pairing whose pseudocode does not run is not a candidate
        return 0
    return len(want) - len(_mismatch(p, want, got))


def _flushed(p: PtxSide, vecs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The vectors as _screen gives them to a program (subnormal float inputs flushed under .ftz)."""
    ew = p.elem[1] if p.elem else 0
    return {n: _flush(v, p.inputs[n], ew) if p.ftz and p.kinds.get(n) == "f" else v for n, v in vecs.items()}


# Step outputs on a form's vectors, by the vectors' digest and each step's fingerprint and wiring: forms that share
# their input vectors (add.rn.f32, add.rz.f32, add.sat.f32 ...) and their best candidates share the fix-up runs; only
# the comparison with each form's result is redone. The most recent runs only (forms of a shape are listed together).
_RUNS: OrderedDict[str, tuple[Any, int]] = OrderedDict()     # key -> (result or exception, steps it cost)
RUNS_MAX = 1500


def _run_memo(key: str, run: Callable[[], Any]) -> Any:
    hit = _RUNS.get(key)
    if hit is None:
        c0 = _cost()
        try:
            value = run()
        except Exception as exc:  # remembered: the same step fails the same way on the same vectors
            value = exc
        hit = _RUNS[key] = (value, _cost() - c0)
        if len(_RUNS) > RUNS_MAX:
            _RUNS.popitem(last=False)
    else:
        _RUNS.move_to_end(key)
        _CHARGED[0] += hit[1]
    return hit[0]


def _agree_batch(p: PtxSide, specs: list[dict[str, Any]], arch: str, vecs: dict[str, np.ndarray], want: np.ndarray,
                 texts: Texts, fps: dict[str, str]) -> list[int]:
    """_agree_alone for chains of one length that end in the same instruction: each distinct head (the steps before
    the last) runs once, the last step once over all of them side by side (both kept in _RUNS); a batch that does
    not run falls back to one variant of the last step at a time."""
    lanes = len(want)
    dom = NumpyDomain(lanes)
    flushed = _flushed(p, vecs)
    digest = hashlib.sha1(json.dumps(sorted(p.inputs.items())).encode())
    for n in sorted(flushed):
        digest.update(np.ascontiguousarray(flushed[n], dtype=np.uint64).tobytes())
    vkey = digest.hexdigest()
    base = {k: (dom.from_ints(v, p.inputs[k]), p.inputs[k]) for k, v in flushed.items()}

    def run_head(head: list[Any]) -> dict[str, Any]:
        env = dict(base)
        for j, st in enumerate(head):
            env[f"t{j}"] = run_amd_step(dom, _chain_step(st, f"t{j}"), arch, env, texts)
        return env

    ran, variants, sigs = set(), [], []
    for i, s in enumerate(specs):
        *head, (_, args) = s["chain"]
        hsig = json.dumps([[fps.get(n, ""), n, a] for n, a in head], default=str)
        env = _run_memo(f"{vkey}|head|{hsig}", lambda head=head: run_head(head))
        if isinstance(env, Exception):
            continue
        ran.add(i)
        variants.append({slot: arg_value(Ops(dom, env), _slot_arg(v), 32) for slot, v in args.items()})
        sigs.append(f"{hsig}|{json.dumps(args, default=str)}")
    last = specs[0]["chain"][-1][0]
    results = _run_memo(f"{vkey}|last|{fps.get(last, '')}|{last}|" + "|".join(sigs),
                        lambda: _run_side_by_side(last, variants, lanes, arch, texts))
    if isinstance(results, Exception):
        # one variant at a time (the heads stay memoised): a variant whose last step does not run scores 0
        results = []
        for variant in variants:
            try:
                results += _run_side_by_side(last, [variant], lanes, arch, texts)
            except Exception:  # a pairing whose pseudocode does not run is not a candidate
                results.append(None)
    results = iter(results)
    out = []
    for i in range(len(specs)):
        if i not in ran:
            out.append(0)
            continue
        found = next(results)
        if found is None:
            out.append(0)
            continue
        data, w = found
        out.append(lanes - len(_mismatch(p, want, _as_ptx_result(p, dom, data, w))))
    return out


def _chain_step(step: tuple[str, dict[str, Any]], out: str) -> Step:
    name, args = step
    return Step("amd", name, {k: _slot_arg(v) for k, v in args.items()}, out)


def _run_side_by_side(name: str, variants: list[dict[str, Any]], lanes: int, arch: str, texts: Texts
                      ) -> list[tuple[Any, int]]:
    """One AMD instruction over several operand sets at once: the sets' lanes concatenated (one run per set of slot
    widths), the result cut back into one value per set."""
    out: list[tuple[Any, int] | None] = [None] * len(variants)
    by_width: dict[tuple, list[int]] = {}
    for i, v in enumerate(variants):
        by_width.setdefault(tuple((k, w) for k, (_, w) in sorted(v.items())), []).append(i)
    for shape, idx in by_width.items():
        n = len(idx) * lanes
        dom = NumpyDomain(n)
        env = {f"_{k}": (np.concatenate([variants[i][k][0] for i in idx]), w) for k, w in shape}
        data, w = run_amd_step(dom, Step("amd", name, {k: f"_{k}" for k, _ in shape}, "r"), arch, env, texts)
        data = np.broadcast_to(data, (n,)) if np.ndim(data) == 0 else data
        for j, i in enumerate(idx):
            out[i] = (data[j * lanes:(j + 1) * lanes], w)
    return [o for o in out if o is not None]


def _try_sequence(p: PtxSide, spec: dict[str, Any], arch: str, amd: list[AmdInstr], texts: Texts,
                  proofs: dict[str, Any], rlimit: int, vecs: dict[str, np.ndarray], want: np.ndarray
                  ) -> tuple[dict[str, Any] | None, int]:
    prog, steps, text = sequence_program(spec, p.width)
    try:
        got = _screen(p, prog, arch, vecs, texts)
    except Exception:  # a pairing whose pseudocode does not run is not a candidate
        return None, 0
    bad = _mismatch(p, want, got)
    if len(bad):
        return None, len(want) - len(bad)
    key = _fp(p.text, "seq", json.dumps(text), *(amd_by.fp for amd_by in amd if amd_by.name in
                                               {s["amd"] for s in steps}), str(p.inputs), p.float_kind, code=_EVAL_FP)
    cached = proofs.get(key)
    if _reusable(cached, rlimit):
        ev = _carried(cached, arch)
    else:
        ev = (_test_float(p, prog, arch, texts) if p.float_kind else _prove(p, prog, arch, texts, rlimit)) \
            | {"arch": arch, "rlimit": rlimit}
        proofs[key] = ev
    if ev["kind"] not in PROVED_KINDS:
        return None, len(want)
    notes = ["SALU: operands must be wave-uniform"] if any(s["amd"].startswith("s_") for s in steps) else []
    if p.float_kind:
        notes.append(FLOAT_NOTE_FTZ if p.ftz else FLOAT_NOTE)
    n = len(steps)
    return {"level": SEQ, "sequence": steps, "sequence_text": text, "program": spec, "restrictions": notes,
            "evidence": _public(ev),
            "reason": f"no single {arch} instruction is equal; the {'two' if n == 2 else 'three'}-instruction "
                      "sequence is"}, len(want)


MIN_BOUND = 4                   # a range narrower than 0..3 is not a useful restriction


def _range_options(p: PtxSide, vecs: dict[str, np.ndarray], bad: np.ndarray) -> list[tuple[float, tuple[str, ...], int]]:
    """Input ranges outside which every failing lane lies: one input below a bound, or two inputs below one bound
    (a bit field's pos and len); widest first."""
    options: list[tuple[float, tuple[str, ...], int]] = []
    wide = [n for n, w in p.inputs.items() if w >= 2]
    for n in wide:
        bound = int(vecs[n][bad].min())
        if bound >= MIN_BOUND:
            options.append((bound / (1 << p.inputs[n]), (n,), bound))
    for group in itertools.combinations(wide, 2):
        bound = int(np.max(np.stack([vecs[n][bad] for n in group]), axis=0).min())
        if bound >= MIN_BOUND:
            options.append((bound / (1 << max(p.inputs[n] for n in group)) / 4, group, bound))
    return sorted(options, reverse=True)


def _restricted(p: PtxSide, a: AmdInstr, wiring: dict[str, Any], notes: tuple[str, ...], bad: np.ndarray,
                vecs: dict[str, np.ndarray], arch: str, texts: Texts, proofs: dict[str, Any], rlimit: int
                ) -> dict[str, Any] | None:
    """A refuted candidate that is equal on a range of one input (every failing lane has it >= the bound, e.g. a
    shift count >= 5 or a factor >= 2^24): proved under `input < bound`, with the counterexample at the bound."""
    amd_prog = _amd_program(p, a, wiring)
    for _, group, start in _range_options(p, vecs, bad)[:3]:
        found = _widest_bound(p, a, wiring, amd_prog, arch, texts, proofs, rlimit, group, start)
        if found is None:
            continue
        bound, ev = found
        vals = _counterexample_at(p, amd_prog, arch, texts, vecs, bad, group[-1], bound)
        names = " and ".join(f"{n} < {bound}" for n in group)
        restriction = f"range: {names} ({', '.join(f'{k}={v:#x}' for k, v in vals.items())} is a counterexample)"
        return {"level": EQR, "amd": a.name, "wiring": _wtext(wiring), "restrictions": [restriction, *notes],
                "evidence": _public(ev) | {"counterexample": vals}, "range": dict.fromkeys(group, bound),
                "coverage": bound / (1 << max(p.inputs[n] for n in group)) + (0.5 if a.name.startswith("v_") else 0)}
    return None


RANGE_TRIES = 12                # proofs per range search (a bisection of 0..255 needs 8)


def _widest_bound(p: PtxSide, a: AmdInstr, wiring: dict[str, Any], amd_prog: Program, arch: str, texts: Texts,
                  proofs: dict[str, Any], rlimit: int, group: tuple[str, ...], start: int
                  ) -> tuple[int, dict[str, Any]] | None:
    """The largest bound B <= start (start: the smallest failing test value) with the candidate proved equal for every
    input of the group below B, and that proof; None when no B >= MIN_BOUND is proved. Being proved below B holds for
    every smaller bound too, so the largest one is a single answer: bisection between the largest bound proved and the
    smallest known to fail (a z3 counterexample moves that one down to its own values) finds it whatever models z3
    returns (they differ with what the solver's context has seen before), where following the models alone stopped
    wherever they happened to lead."""
    lo, hi = MIN_BOUND - 1, start + 1          # proved below lo + 1 (lo < MIN_BOUND: nothing yet); fails below hi
    best: tuple[int, dict[str, Any]] | None = None
    bound = start
    for _ in range(RANGE_TRIES):
        ev = _evidence(p, a, wiring, amd_prog, arch, texts, proofs, rlimit, dict.fromkeys(group, bound))
        if ev["kind"] == "proved":
            lo, best = bound, (bound, ev)
        else:
            cx = ev.get("counterexample") or {}
            hi = min(bound, max((cx.get(n, bound) for n in group), default=bound) + 1) if cx else bound
        if hi - lo <= 1:
            return best
        # the first refinement tries just below the counterexample (z3's model is often at the edge), then bisects
        bound = hi - 1 if best is None and bound == start else (lo + hi) // 2
        if bound < MIN_BOUND:
            return best
    return best


def _counterexample_at(p: PtxSide, amd_prog: Program, arch: str, texts: Texts, vecs: dict[str, np.ndarray],
                       bad: np.ndarray, n: str, bound: int) -> dict[str, int]:
    """A failing input with n exactly at the bound (a failing lane with n moved there), else the lowest failing lane."""
    lane = int(bad[np.argmin(vecs[n][bad])])
    vals = {k: int(v[lane]) for k, v in vecs.items()}
    moved = dict(vals, **{n: bound})
    one = {k: np.array([v], dtype=np.uint64) for k, v in moved.items()}
    if int(_screen(p, p.prog, arch, one, texts)[0]) != int(_screen(p, amd_prog, arch, one, texts)[0]):
        return moved
    return vals


def _refuted(related: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    best = sorted(related.values(), key=lambda r: -r["n"])[:8]
    return [{k: v for k, v in r.items() if k != "n"} for r in best]


def _public(ev: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in ev.items() if k in ("kind", "detail", "counterexample", "time_s", "arch", "lanes")}


def _wtext(wiring: dict[str, Any]) -> dict[str, str]:
    return {k: str(v) for k, v in wiring.items()}


# ------------------------------------------------------------------ all forms, one arch, cached
def discover_arch(arch: str, forms: list[PtxFormRef], texts: Texts, cache: Path | None = None,
                  rlimit: int = Z3_RLIMIT, progress: Progress | None = None,
                  budget_s: float | None = None, decide_only: bool = False) -> dict[str, Any]:
    """One row per PTX form: {form, chapter, level, amd, wiring, restrictions, evidence | nearest, reason}.
    decide_only (map_form): only whether each row is decided; its rows are neither cached nor stored.

    Rows are cached per form under a fingerprint of the code, the form's manual text and every
    candidate's pseudocode on this arch: a warm run recomputes only the fingerprints. After `budget_s` seconds
    of computing (counted once the candidates are listed) a form not in the cache gets a NOT_COMPUTED row, which
    is not cached.
    """
    t0 = time.perf_counter()
    plan = _ArchPlan.make(arch, forms, texts, cache)
    deadline = time.time() + budget_s if budget_s is not None else None
    proofs: dict[str, Any] | None = None
    rows, fresh = [], 0
    for i, ref in enumerate(forms):
        if progress is not None:
            progress(arch, i, len(forms))
        hit = plan.cached(i)
        if hit is not None:
            rows.append(hit)
            continue
        if proofs is None:
            proofs = _load(cache)
        row = _cell(ref, arch, plan.amd, texts, proofs, rlimit, deadline, decide_only)
        rows.append(row)
        if not decide_only and row["level"] != NOT_COMPUTED:
            plan.store(i, row)
            fresh += 1
    if fresh:
        _save(cache, proofs or {})
        plan.save()
    if progress is not None:
        progress(arch, len(forms), len(forms))
    return {"arch": arch, "rows": rows, "seconds": round(time.perf_counter() - t0, 2), "cached": not fresh,
            "computed": fresh}


@dataclass(slots=True)
class _ArchPlan:
    """One arch's candidates, its rows cache file and the fingerprint of every form against them."""

    arch: str
    amd: list[AmdInstr]
    amd_fp: str
    fps: list[str]                   # per form, _form_fingerprint
    forms: list[PtxFormRef]
    rows_file: Path | None
    stored: dict[str, Any]

    @classmethod
    def make(cls, arch: str, forms: list[PtxFormRef], texts: Texts, cache: Path | None) -> _ArchPlan:
        amd = amd_instructions(arch, texts)
        amd_fp = _fp(arch, *(f"{a.name}|{a.fp}" for a in amd))
        rows_file = cache.with_name(f"{cache.stem}-rows-{arch}.json") if cache is not None else None
        old = _load(rows_file)
        stored = old.get("rows", {}) if old.get("amd") == amd_fp and isinstance(old.get("rows"), dict) else {}
        fps = [_form_fingerprint(ref, amd_fp, texts) for ref in forms]
        return cls(arch, amd, amd_fp, fps, forms, rows_file, stored)

    def cached(self, i: int) -> dict[str, Any] | None:
        hit = self.stored.get(self.forms[i].form)
        return hit["row"] if hit is not None and hit.get("fp") == self.fps[i] else None

    def store(self, i: int, row: dict[str, Any]) -> None:
        self.stored[self.forms[i].form] = {"fp": self.fps[i], "row": row}

    def save(self) -> None:
        if self.rows_file is None:
            return
        self.rows_file.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.rows_file.with_suffix(f".{time.time_ns()}.tmp")
        tmp.write_text(json.dumps({"amd": self.amd_fp, "rows": self.stored}))
        tmp.replace(self.rows_file)


def _cell(ref: PtxFormRef, arch: str, amd: list[AmdInstr], texts: Texts, proofs: dict[str, Any], rlimit: int,
          deadline: float | None = None, decide_only: bool = False) -> dict[str, Any]:
    """One (form, arch) row computed anew (or NOT_COMPUTED past the deadline unless the form is `always`)."""
    row: dict[str, Any] = {"form": ref.form, "chapter": ref.chapter, "arch": arch}
    if deadline is not None and time.time() > deadline and not ref.always:
        return row | {"level": NOT_COMPUTED, "reason": "not computed within this run's time budget "
                                                       "(`gpuisa rosetta --arch A` computes and caches it)"}
    if len(_SCREENS) > SCREENS_MAX:
        _SCREENS.clear()
    try:
        p = pair_side(ref.form, texts) if ref.form in PAIRS else ptx_side(ref.form, texts)
        row |= map_form(p, arch, amd, texts, proofs, rlimit, _SCREENS, decide_only)
    except Exception as exc:  # the row says why; one form never stops the table
        row |= {"level": NOSEM, "reason": f"the PTX semantics do not evaluate: {exc}"}
    return row


# Candidate outputs on the screen vectors, by the candidate's fingerprint (pseudocode and the machine state it reads),
# wiring and operand shape: kept for the life of the process, so the next arch screens only changed pseudocode.
_SCREENS: dict[tuple, Any] = {}
SCREENS_MAX = 60_000            # about 3 KB each


class _NewProofs(dict):
    """The evidence cache as a worker sees it: what it adds is also kept apart, to be sent to the parent."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.new: dict[str, Any] = {}

    def __setitem__(self, key: str, value: Any) -> None:
        super().__setitem__(key, value)
        self.new[key] = value


# What a worker inherits by fork (discover_all sets it before the pool starts): its texts, the archs' candidates and
# the evidence cache as loaded.
_WORKER: dict[str, Any] = {}


def _worker_init(texts: Texts | Callable[[], Texts]) -> None:
    """A worker's texts: inherited by fork, or opened anew by a factory (a catalog's SQLite connection must not
    cross a fork)."""
    _WORKER["texts"] = texts() if callable(texts) else texts
    _WORKER["proofs"] = _NewProofs(_WORKER.get("loaded", {}))


FORMS_PER_TASK_MAX = 24         # forms a worker takes at once (neighbouring forms share fix-up runs: _RUNS)


def discover_all(archs: Iterable[str], forms: list[PtxFormRef], texts: Texts | Callable[[], Texts],
                 cache: Path | None = None,
                 jobs: int = 2, rlimit: int = Z3_RLIMIT, progress: Progress | None = None,
                 budget_s: float | None = None) -> dict[str, dict[str, Any]]:
    """discover_arch for several archs. The cache is read here: cells it holds cost nothing, and when it holds every
    cell no worker starts. The other cells are computed form by form, each form on all its archs in one worker
    (`jobs` processes; the texts reach them by fork, not by pickling): the archs of one form share screens and
    sequence screens of identical pseudocode, and a proof of an instruction whose pseudocode several archs share is
    made once, on the first of them in `archs`, and carried to the others ("same pseudocode as ..."), whatever the
    number of workers. Only this process writes the cache. progress("rosetta", cells done, cells) as they come.
    With budget_s, a cell not started budget_s seconds after the start is NOT_COMPUTED (unless its form is
    `always`)."""
    archs = list(archs)
    t0 = time.perf_counter()
    deadline = time.time() + budget_s if budget_s is not None else None
    local = texts() if callable(texts) else texts
    plans = {arch: _ArchPlan.make(arch, forms, local, cache) for arch in archs}
    rows: dict[str, list[dict[str, Any] | None]] = {a: [plans[a].cached(i) for i in range(len(forms))] for a in archs}
    if deadline is not None and time.time() > deadline:      # no time to compute: only `always` forms go on
        for a in archs:
            rows[a] = [r if r is not None or forms[i].always else _cell(forms[i], a, [], local, {}, Z3_RLIMIT, deadline)
                       for i, r in enumerate(rows[a])]
    todo = [(i, [a for a in archs if rows[a][i] is None]) for i in range(len(forms))]
    todo = [(i, missing) for i, missing in todo if missing]
    seconds = dict.fromkeys(archs, 0.0)
    fresh = dict.fromkeys(archs, 0)
    total = len(forms) * len(archs)
    done = total - sum(len(m) for _, m in todo)
    if progress is not None:
        progress("rosetta", done, total)
    if todo:
        proofs = _load(cache)
        amd = {a: plans[a].amd for a in archs}
        results: Iterable[list[tuple[int, str, dict[str, Any], float]]]
        if jobs <= 1 or len(todo) <= 1:
            results = _run_inline(todo, forms, amd, local, proofs, rlimit, deadline)
        else:
            results = _run_pool(todo, forms, amd, texts, proofs, jobs, rlimit, deadline)
        last_save = time.perf_counter()
        for batch in results:
            for i, arch, row, dt in batch:
                rows[arch][i] = row
                seconds[arch] += dt
                if row["level"] != NOT_COMPUTED:
                    plans[arch].store(i, row)
                    fresh[arch] += 1
            done += len(batch)
            if progress is not None:
                progress("rosetta", done, total)
            if time.perf_counter() - last_save > SAVE_EVERY_S:
                _save_all(cache, proofs, plans, fresh)
                last_save = time.perf_counter()
        _save_all(cache, proofs, plans, fresh)
    wall = round(time.perf_counter() - t0, 2)
    return {a: {"arch": a, "rows": rows[a], "seconds": round(seconds[a], 2) if fresh[a] else wall,
                "cached": not fresh[a], "computed": fresh[a]} for a in archs}


SAVE_EVERY_S = 60.0             # a long cold run keeps what it has computed so far (an interrupted run resumes)


def _save_all(cache: Path | None, proofs: dict[str, Any], plans: dict[str, _ArchPlan], fresh: dict[str, int]) -> None:
    if any(fresh.values()):
        _save(cache, proofs)
    for arch, plan in plans.items():
        if fresh[arch]:
            plan.save()


def _run_inline(todo: list[tuple[int, list[str]]], forms: list[PtxFormRef], amd: dict[str, list[AmdInstr]],
                texts: Texts, proofs: dict[str, Any], rlimit: int, deadline: float | None
                ) -> Iterable[list[tuple[int, str, dict[str, Any], float]]]:
    """The cells in this process, one form at a time (the evidence added is merged into `proofs`)."""
    work = _NewProofs(proofs)
    for item in todo:
        batch = _forms_task([item], forms, amd, texts, work, rlimit, deadline)
        proofs.update(work.new)
        work.new = {}
        yield batch


def _run_pool(todo: list[tuple[int, list[str]]], forms: list[PtxFormRef], amd: dict[str, list[AmdInstr]],
              texts: Texts | Callable[[], Texts], proofs: dict[str, Any], jobs: int, rlimit: int,
              deadline: float | None) -> Iterable[list[tuple[int, str, dict[str, Any], float]]]:
    """The cells in worker processes, a few neighbouring forms per task, results as they come (the evidence the
    workers add is merged into `proofs`)."""
    from concurrent.futures import FIRST_COMPLETED, wait

    from gpuisa.workers import process_pool  # worker pools only when several archs run

    size = max(1, min(FORMS_PER_TASK_MAX, len(todo) // (jobs * 8)))
    tasks = [todo[k:k + size] for k in range(0, len(todo), size)]
    _WORKER.update(amd=amd, loaded=proofs)
    try:
        with process_pool(min(jobs, len(tasks)), _worker_init, (texts,)) as pool:
            pending = {pool.submit(_worker_forms, task, forms, rlimit, deadline) for task in tasks}
            while pending:
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                for fut in finished:
                    batch, new = fut.result()
                    proofs.update(new)
                    yield batch
    finally:
        _WORKER.clear()


def _worker_forms(task: list[tuple[int, list[str]]], forms: list[PtxFormRef], rlimit: int,
                  deadline: float | None) -> tuple[list[tuple[int, str, dict[str, Any], float]], dict[str, Any]]:
    proofs: _NewProofs = _WORKER["proofs"]
    batch = _forms_task(task, forms, _WORKER["amd"], _WORKER["texts"], proofs, rlimit, deadline)
    new, proofs.new = proofs.new, {}
    return batch, new


def _forms_task(task: list[tuple[int, list[str]]], forms: list[PtxFormRef], amd: dict[str, list[AmdInstr]],
                texts: Texts, proofs: dict[str, Any], rlimit: int, deadline: float | None
                ) -> list[tuple[int, str, dict[str, Any], float]]:
    """Each form of the task on each of its archs, in order: (form index, arch, row, seconds)."""
    out = []
    for i, archs in task:
        for arch in archs:
            t = time.perf_counter()
            row = _cell(forms[i], arch, amd[arch], texts, proofs, rlimit, deadline)
            out.append((i, arch, row, time.perf_counter() - t))
    return out


def _form_fingerprint(ref: PtxFormRef, amd_fp: str, texts: Texts) -> str:
    """Changes when the code, the form's manual text or any candidate's pseudocode changes."""
    parts = []
    for form in PAIRS[ref.form][:2] if ref.form in PAIRS else (ref.form,):
        try:
            found = texts.ptx_form_text(form)
            parts.append(f"{form}|{ref.chapter}|{found.form.operands}|{found.syntax}|{found.semantics}")
        except GpuisaError as exc:
            parts.append(f"{form}|{exc}")
    return _fp(amd_fp, *parts)


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


def in_coverage(row: dict[str, Any]) -> bool:
    """Rows of manual forms (the PTX pairs are extra rows, outside the coverage figures)."""
    return row["chapter"] != PAIRS_CHAPTER


def decided(row: dict[str, Any]) -> bool:
    """A row whose level rests on evidence: proved (possibly restricted) or refuted nearest candidate."""
    return row["level"] in (EQ, EQR, SEQ) or (row["level"] == NONE and "nearest" in row)


# ------------------------------------------------------------------ re-checking stored evidence
def recheck(cell: dict[str, Any], texts: Texts, amd: dict[str, AmdInstr], prove: bool = True,
            random_patterns: int = 4096, rlimit: int = Z3_RLIMIT) -> tuple[bool, str]:
    """Re-run one stored Rosetta cell's evidence from the texts (crossref.stage.rosetta_cell): a proof is proved
    again by z3 (under its range), a float test runs again on fresh random patterns, a counterexample is run
    again by numpy and must still differ. `amd` is amd_instructions() of the cell's arch by name.
    Returns (holds, what was re-run)."""
    arch, kind = cell["arch"], cell["evidence"]
    p = pair_side(cell["form"], texts) if cell["form"] in PAIRS else ptx_side(cell["form"], texts)
    if cell["level"] == SEQ:
        if not cell.get("program"):
            return False, "a sequence cell without its program"
        missing = sorted({s for s in _spec_names(cell["program"]) if s not in amd})
        if missing:
            return False, f"{', '.join(missing)} not on {arch}"
        amd_prog = sequence_program(cell["program"], p.width)[0]
    else:
        name = cell["amd"] or cell.get("nearest", "")
        if name not in amd:
            return False, f"{name} is not a candidate on {arch}"
        wiring = {k: int(v) if v.isdigit() else v for k, v in cell["wiring"].items()}
        amd_prog = _amd_program(p, amd[name], wiring)
    if kind == "counterexample":
        vals = cell["counterexample"]
        one = {n: np.array([vals[n]], dtype=np.uint64) for n in p.inputs}
        want, got = _screen(p, p.prog, arch, one, texts), _screen(p, amd_prog, arch, one, texts)
        return bool(len(_mismatch(p, want, got))), f"counterexample {vals} re-run by numpy"
    if kind == "tested":
        ev = _test_float(p, amd_prog, arch, texts, random_patterns)
        return ev["kind"] == "tested", f"float test re-run: {ev['detail']}"
    if kind == "proved":
        if not prove:
            return True, "proof not re-run (not in the sample)"
        ev = _prove(p, amd_prog, arch, texts, rlimit, cell.get("range") or None)
        return ev["kind"] == "proved", f"proof re-run: {ev['detail']}"
    return False, f"no evidence to re-run ({kind!r})"

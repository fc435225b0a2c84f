"""How much of each manual's VALU and SALU pseudocode parses and evaluates, with every failure listed.

An instruction counts as evaluated when its text runs on a wave of random operand values
(any operand the text reads gets one) without touching something unmodelled. Failures keep
their stage (parse / eval), the reason and the manual line, so the gaps are a list, not a guess.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from gpuisa.semantics import matrix
from gpuisa.semantics.errors import EvalError, SemanticsError
from gpuisa.semantics.interp_regs import REGISTER_NAME
from gpuisa.semantics.ptx import parse_ptx, ptx_semantics
from gpuisa.semantics.run import WAVE64_ONLY, evaluate_ptx, evaluate_wave, machine_for, parse_block
from gpuisa.semantics.source import Texts, prose_substitute, resolver_for

# Something that looks like a statement: how a table-style cell is told apart from pure prose.
_LOOKS_LIKE_CODE = re.compile(r"\b[A-Za-z_]\w*(?:\.\w+)?(?:\[[^\]]*\])?(?:\.\w+)?\s*(?:=(?!=)|\+=|-=|\|=|&=)")


def unit_of(section: str) -> str | None:
    """VALU / SALU / None (memory, export, ...) from a manual section title."""
    s = section.upper()
    if s.startswith("SOP"):
        return "SALU"
    if s.startswith(("VOP", "VINTERP")):
        return "VALU"
    return None


@dataclass(slots=True)
class Failure:
    name: str
    unit: str
    stage: str        # "parse" or "eval"
    reason: str
    cite: str


@dataclass(slots=True)
class UnitCount:
    instructions: int = 0
    with_pseudocode: int = 0
    parsed: int = 0
    evaluated: int = 0
    substituted: int = 0      # prose entries evaluated through semantics.prose (timing only, borrowed)

    @property
    def share(self) -> float:
        """Evaluated share of the instructions that have pseudocode."""
        return self.evaluated / self.with_pseudocode if self.with_pseudocode else 1.0


@dataclass(slots=True)
class ArchCoverage:
    arch: str
    units: dict[str, UnitCount] = field(default_factory=dict)
    failures: list[Failure] = field(default_factory=list)
    seconds: float = 0.0

    def as_dict(self) -> dict:
        return {"arch": self.arch, "seconds": round(self.seconds, 2),
                "units": {u: {"instructions": c.instructions, "with_pseudocode": c.with_pseudocode,
                              "parsed": c.parsed, "evaluated": c.evaluated, "substituted": c.substituted,
                              "share": round(c.share, 4)}
                          for u, c in self.units.items()},
                "failures": [vars_(f) for f in self.failures]}


def vars_(f: Failure) -> dict:
    return {"name": f.name, "unit": f.unit, "stage": f.stage, "reason": f.reason, "cite": f.cite}


# Operands that are fields of the instruction word, so one value for the whole wave (a lane
# never sees another OPSEL than its neighbour), and which of them number registers (small values:
# the register a MOVREL or READLANE addresses). Field names as the pseudocode spells them
# (rdna3/README.md:10045 `addr = DST.u; // Raw value from instruction`; cdna4/README.md:14485 OPSEL[3]).
REGISTER_FIELDS = frozenset({"SRC0", "SRC1", "SRC2", "DST", "VDST", "SDST", "SSRC0", "SSRC1", "VSRC0", "VSRC1",
                             "VSRC2", "VADDR", "VDATA"})
UNIFORM_FIELDS = REGISTER_FIELDS | {"OPSEL", "OPSEL_HI", "SIMM16", "SIMM32", "OFFSET", "OFFSET0", "OFFSET1",
                                    "NEG", "NEG_HI", "ABS", "CLAMP", "OMOD", "CBSZ", "ABID", "BLGP", "WAITEXP",
                                    "ATTR", "ATTRCHAN"}


# Wave state narrower than a register: CSP, the 3-bit branch-stack pointer (vega/README.md:823).
BOUNDED_STATE = {"CSP": 8, "WAVE_MODE.CSP": 8}


def _random_input(name: str, lanes: int, rng: np.random.Generator) -> np.ndarray:
    """Random raw bits for one operand: per lane, or one for the wave where it is an instruction field."""
    field_name = name.split(".")[0]
    bound = BOUNDED_STATE.get(name, BOUNDED_STATE.get(field_name))
    if bound:
        return np.full(lanes, int(rng.integers(0, bound)), dtype=np.uint64)
    if field_name in REGISTER_FIELDS:
        return np.full(lanes, int(rng.integers(0, 96)), dtype=np.uint64)
    if field_name in UNIFORM_FIELDS:
        return np.full(lanes, int(rng.integers(0, 1 << 32)), dtype=np.uint64)
    if REGISTER_NAME.match(name):
        return rng.integers(0, 1 << 32, size=lanes, dtype=np.uint64)
    return rng.integers(0, 1 << 63, size=lanes, dtype=np.uint64) * np.uint64(2) + \
        rng.integers(0, 2, size=lanes, dtype=np.uint64)


def run_random(text: str, style: str, arch: str, lanes: int, rng: np.random.Generator, resolver=None,
               where: str = "", name: str | None = None) -> dict[str, np.ndarray]:
    """Evaluate with random values for every operand the text reads (found by running it)."""
    inputs: dict[str, np.ndarray] = {}
    for _ in range(48):
        try:
            return evaluate_wave(text, inputs, style, lanes=lanes, where=where, resolver=resolver,
                                 machine=machine_for(arch), strict=False, name=name)
        except EvalError as exc:
            missing = getattr(exc, "missing", None)
            if not missing or missing in inputs:
                raise
            inputs[missing] = _random_input(missing, lanes, rng)
    raise EvalError("too many operands", where)


def coverage(arch: str, texts: Texts, lanes: int | None = None, seed: int = 0) -> ArchCoverage:
    """Parse and evaluate every VALU/SALU instruction's pseudocode of one architecture (on a whole wave,
    so a cross-lane read such as V_READLANE_B32's finds its lane)."""
    t0 = time.perf_counter()
    lanes = lanes or (64 if arch in WAVE64_ONLY else 32)
    docs = texts.instruction_docs(arch)
    resolver = resolver_for(arch, texts)
    rng = np.random.default_rng(seed)
    out = ArchCoverage(arch)
    for name, entries in sorted(docs.items()):
        units = {unit_of(d.section) for d in entries} - {None}
        if not units:
            continue
        unit = "VALU" if "VALU" in units else "SALU"
        cnt = out.units.setdefault(unit, UnitCount())
        cnt.instructions += 1
        doc = next((d for d in entries if d.pseudocode.strip() and unit_of(d.section)), None)
        sub = prose_substitute(name, arch, doc, texts)
        if sub is None and (doc is None or (doc.style == "table" and not _LOOKS_LIKE_CODE.search(doc.pseudocode))):
            continue
        cnt.with_pseudocode += 1
        where = f"{name} ({arch})"
        if sub is not None:      # a prose entry: the text that stands in for it (semantics.prose)
            text, style, cite = sub.text, sub.style, sub.cite
            cnt.substituted += 1
        else:
            text, style, cite = doc.pseudocode, doc.style, doc.provenance.cite()
        if matrix.MATRIX_FAMILY.match(name):   # formulas over whole matrices: the matrix model evaluates them
            try:
                matrix.run_random(name, f"{doc.description}\n{doc.pseudocode}", arch, rng)
            except SemanticsError as exc:
                out.failures.append(Failure(name, unit, "eval", exc.reason, doc.provenance.cite()))
                continue
            cnt.parsed += 1
            cnt.evaluated += 1
            continue
        try:
            parse_block(text, style, where)
        except SemanticsError as exc:
            out.failures.append(Failure(name, unit, "parse", exc.reason, cite))
            continue
        cnt.parsed += 1
        try:
            run_random(text, style, arch, lanes, rng, resolver, where, name)
        except SemanticsError as exc:
            out.failures.append(Failure(name, unit, "eval", exc.reason, cite))
            continue
        except (ArithmeticError, ValueError, TypeError, IndexError, KeyError, AttributeError) as exc:
            out.failures.append(Failure(name, unit, "eval", f"internal: {type(exc).__name__}: {exc}", cite))
            continue
        cnt.evaluated += 1
    out.seconds = time.perf_counter() - t0
    return out


@dataclass(slots=True)
class PtxCoverage:
    blocks: int = 0
    parsed: int = 0
    evaluated: int = 0
    substituted: int = 0      # prose entries evaluated through semantics.prose (timing only, borrowed)
    failures: list[Failure] = field(default_factory=list)


def ptx_coverage(texts: Texts, forms: Iterable[str], seed: int = 0) -> PtxCoverage:
    """Each given form's Semantics block (one form per instruction): parsed? evaluated on random operands?"""
    rng = np.random.default_rng(seed)
    out = PtxCoverage()
    for form in forms:
        found = texts.ptx_form_text(form)
        if not found.semantics.strip():
            continue
        out.blocks += 1
        cite = found.cite
        try:
            sem = ptx_semantics(form, texts)
            parse_ptx(sem.code, form)
        except SemanticsError as exc:
            out.failures.append(Failure(form, "PTX", "parse", exc.reason, cite))
            continue
        except Exception as exc:
            out.failures.append(Failure(form, "PTX", "parse", str(exc), cite))
            continue
        out.parsed += 1
        try:
            evaluate_ptx(sem, {o: int(rng.integers(0, 1 << 31)) for o in sem.operands[1:]})
        except Exception as exc:
            out.failures.append(Failure(form, "PTX", "eval", getattr(exc, "reason", str(exc)), cite))
            continue
        out.evaluated += 1
    return out

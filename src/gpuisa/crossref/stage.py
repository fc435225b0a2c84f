"""Build stage: cross-vendor equivalents (PTX <-> AMD) from discovery, with their evidence.

Every row comes from crossref.discovery run on the manual texts this build read: the AMD instruction,
level, restrictions and the z3 proof, float test or counterexample behind it. By default a build computes
nothing new here (MODES): it takes what the fingerprint cache holds, and the other cells say how to compute
them; discovery itself (minutes when cold) runs when asked, e.g. in `serve`'s background pass. The hand-written table
(crossref.mappings) is only a hints table: a hinted sequence appears where discovery found no single
instruction, and only with evidence this stage computed for it (proved or tested), never on the hint's word.

Stored per instruction and vendor: a PTX instruction lists its forms' rows on every arch; an AMD
instruction lists the PTX forms that map to it on each arch (the reverse direction).
Takes texts and the form list, returns rows; the catalog writer stores them. Never reads a catalog or a source.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from gpuisa.crossref.concepts import CONCEPTS, concept_of
from gpuisa.crossref.discovery import (
    EQ,
    EQR,
    NONE,
    NOT_COMPUTED,
    ROSETTA_ARCHS,
    SEQ,
    PtxFormRef,
    decided,
    discover_all,
)
from gpuisa.crossref.mappings import MAPPINGS
from gpuisa.semantics.source import Texts

HINT_KINDS = ("proved", "tested")      # evidence a hinted sequence needs before it is shown


@dataclass(slots=True)
class Equivalents:
    rows: list[tuple[str, str, str]]   # (lower-case name, vendor, mappings JSON)
    summary: dict                      # counts, seconds, cached
    rosetta: list[dict[str, Any]]      # one cell per (form, arch): rosetta_cell()

    def note(self) -> str:
        s = self.summary
        return ("equivalents: {forms} PTX forms on {archs} archs, {decided} decided, {mapped} mapped, "
                "{hinted} hinted sequences, {not_computed} not computed yet ({mode}: {seconds} s{cached})").format(
                    **{**s, "cached": ", cached" if s.get("cached") else ""})


def record(row: dict[str, Any]) -> dict[str, Any]:
    """A discovery row as the catalog's Equivalent document (catalog.documents.Equivalent)."""
    ev = row.get("evidence") or (row.get("nearest") or {}).get("evidence") or {}
    level = row["level"]
    reason = row.get("reason", "")
    if level == NONE and row.get("nearest"):
        reason = f"{reason} (nearest: {row['nearest']['amd']})"
    key = concept_of(row["form"]) or row["form"].split(".")[0]
    concept = CONCEPTS.get(key)
    evidence = {"kind": ev.get("kind", "none"), "detail": ev.get("detail", reason or level),
                "time_s": float(ev.get("time_s", 0.0))}
    if ev.get("counterexample"):
        evidence["counterexample"] = ev["counterexample"]
    return {"key": f"{row['form']}@{row['arch']}", "concept": key, "ptx": row["form"], "amd": row.get("amd", ""),
            "arch": row["arch"], "level": level if level in (EQ, EQR, SEQ, NONE) else NONE,
            "restrictions": list(row.get("restrictions", [])), "sequence": list(row.get("sequence_text", [])),
            "reason": reason if level in (NONE, SEQ) or level not in (EQ, EQR) else "",
            "evidence": evidence, "also": [], "consistent": True,
            "concept_title": concept.title if concept else row.get("chapter", "")}


def _hinted(texts: Texts, cache: Path, rows: dict[str, dict[str, Any]], cached_only: bool = False
            ) -> list[dict[str, Any]] | None:
    """Hinted sequences (crossref.mappings) for forms discovery left without a mapping, with their evidence (None:
    cached_only and the evidence is not in the cache)."""
    from gpuisa.crossref.evidence import compute_all_evidence  # proofs of the hinted programs (cached)

    evidence = compute_all_evidence(texts, cache, cached_only=cached_only)
    if evidence is None:
        return None
    out = []
    for m in evidence.get("mappings", []):
        if m["level"] != SEQ or m["evidence"]["kind"] not in HINT_KINDS or not m.get("consistent", True):
            continue
        form = m["ptx"]
        row = rows.get(f"{form}@{m['arch']}")
        if row is not None and row["level"] in (EQ, EQR) and not row.get("range"):
            continue                   # discovery found a single instruction for every input: no need for the hint
        out.append({k: m[k] for k in ("key", "concept", "ptx", "amd", "arch", "level", "restrictions", "sequence",
                                      "reason", "evidence", "also", "consistent")}
                   | {"concept_title": CONCEPTS[m["concept"]].title if m["concept"] in CONCEPTS else m["concept"],
                      "reason": (m.get("reason") or "") + " (hinted sequence; the evidence is this build's)"})
    return out


def rosetta_cell(row: dict[str, Any]) -> dict[str, Any]:
    """The Rosetta table's cell for one (form, arch): level, AMD instruction, evidence kind and one line."""
    ev = row.get("evidence") or (row.get("nearest") or {}).get("evidence") or {}
    near = row.get("nearest") or {}
    return {"form": row["form"], "chapter": row["chapter"], "arch": row["arch"], "level": row["level"],
            "amd": row.get("amd", ""), "nearest": near.get("amd", ""),
            "wiring": row.get("wiring") or near.get("wiring") or {}, "range": row.get("range", {}),
            "counterexample": ev.get("counterexample"),
            "evidence": ev.get("kind", ""), "detail": (ev.get("detail") or row.get("reason", ""))[:300],
            "restrictions": list(row.get("restrictions", [])),
            "program": row.get("program")}          # a discovered sequence's spec (discovery.sequence_program)


# What a build computes of the Rosetta (`gpuisa build --rosetta MODE`). The build never waits for new discovery
# unless asked: by default it shows what the fingerprint cache holds (deterministic, seconds) and the rest says
# "not computed yet" with the command that computes it; `serve` runs ALL in its background pass.
CACHED = "cached"      # only what the evidence cache holds
HINTED = "hinted"      # also the hinted forms (crossref.mappings) on every arch, and the hinted sequences' evidence
ALL = "all"            # every form on every arch (cold: minutes on two cores; cached after)
MODES = (CACHED, HINTED, ALL)
HOW_TO_COMPUTE = "`gpuisa build --rosetta all` computes the missing cells (minutes once; cached by semantics fingerprint after)"
BEING_COMPUTED = "serve is computing them in the background and shows them when that pass is done"


def compute_equivalents(texts: Texts, cache: Path, forms: list[PtxFormRef], archs: tuple[str, ...] = ROSETTA_ARCHS,
                        jobs: int = 2, progress: Callable[[str, int, int], None] | None = None,
                        mode: str = CACHED, running: bool = False) -> Equivalents:
    """Discovery on every arch as rows per instruction and vendor. `mode` says what is computed anew (MODES); a form
    left out is marked not computed, with how to compute it (`running`: a background pass is computing it now),
    never guessed."""
    if mode not in MODES:
        raise ValueError(f"Rosetta mode {mode!r} is not one of {', '.join(MODES)}")
    t0 = time.perf_counter()
    hinted = list(dict.fromkeys(f.strip() for m in MAPPINGS for f in (m.ptx, *m.ptx.split("+"))))
    rank = {f: i for i, f in enumerate(hinted)}
    # hints steer the order; what is computed depends on the mode, never on the machine's load
    forms = [replace(f, always=mode == HINTED and f.form in rank)
             for f in sorted(forms, key=lambda f: rank.get(f.form, len(rank)))]
    # a zero budget computes nothing that is not `always` (discovery.discover_arch); cache look-ups alone are
    # cheaper in this process than in forked workers
    found = discover_all(archs, forms, texts, cache.with_name("rosetta-proofs.json"), jobs=1 if mode == CACHED else jobs,
                         progress=progress, budget_s=None if mode == ALL else 0.0)
    rows: dict[str, dict[str, Any]] = {}
    untold = BEING_COMPUTED if running else HOW_TO_COMPUTE
    for arch, out in found.items():
        for r in out["rows"]:
            if r["level"] == NOT_COMPUTED:
                r = r | {"reason": f"not computed yet: {untold}"}
            rows[f"{r['form']}@{arch}"] = r
    by_name: dict[tuple[str, str], list[dict[str, Any]]] = {}
    decided_n = mapped = 0
    for r in rows.values():
        rec = record(r)
        decided_n += decided(r)
        if r["level"] in (EQ, EQR, SEQ):
            mapped += 1
            for name in [r["amd"]] if r.get("amd") else sorted({s["amd"] for s in r.get("sequence", [])}):
                by_name.setdefault(("amd", name), []).append(rec)
            by_name.setdefault(("nvidia", r["form"].split(".")[0]), []).append(rec)
    hinted_rows = _hinted(texts, cache, rows, cached_only=mode == CACHED)
    for h in hinted_rows or ():
        by_name.setdefault(("nvidia", h["ptx"].split("+")[0].strip().split(".")[0]), []).append(h)
        if h["amd"]:
            by_name.setdefault(("amd", h["amd"]), []).append(h)
    out_rows = [(name.lower(), vendor, json.dumps(recs, default=str))
                for (vendor, name), recs in sorted(by_name.items()) if name]
    not_computed = sum(1 for r in rows.values() if r["level"] == NOT_COMPUTED)
    summary = {"forms": len(forms), "archs": len(found), "decided": decided_n, "mapped": mapped,
               "hinted": len(hinted_rows or ()), "hinted_pending": hinted_rows is None,
               "not_computed": not_computed, "cells": len(rows), "mode": mode,
               "seconds": round(time.perf_counter() - t0, 1), "cached": all(o["cached"] for o in found.values())}
    return Equivalents(out_rows, summary, [rosetta_cell(r) for r in rows.values()])


def state(summary: dict[str, Any], running: bool = False) -> dict[str, Any]:
    """The catalog's verification entry for the Rosetta (meta 'verification' -> 'rosetta'): complete, partial or,
    while serve's background pass computes the rest, pending; the note says what is missing and how to get it."""
    missing = summary["not_computed"]
    if not missing and not summary["hinted_pending"]:
        return {"state": "complete", "note": f"all {summary['cells']} cells computed"}
    what = (f"{missing} of {summary['cells']} PTX-form x arch cells are not computed yet"
            + (" and the hinted sequences' evidence is not computed" if summary["hinted_pending"] else ""))
    if running:
        return {"state": "pending", "note": f"{what}; {BEING_COMPUTED}"}
    return {"state": "partial", "note": f"{what}; {HOW_TO_COMPUTE}"}

"""Build stage: cross-vendor equivalents (PTX <-> AMD) with their evidence (z3 proofs, differential
tests, curated notes), computed on the manual texts this build read and cached by a fingerprint.

Takes texts, returns rows; the catalog writer stores them. Never reads a catalog or a source file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from gpuisa.crossref import MAPPINGS, compute_all_evidence, mappings_for
from gpuisa.semantics.source import Texts


@dataclass(slots=True)
class Equivalents:
    rows: list[tuple[str, str, str]]   # (lower-case name, vendor, mappings JSON)
    summary: dict                      # evidence counts, seconds, cached

    def note(self) -> str:
        s = self.summary
        return ("equivalents: {mappings} mappings, {proved} proved, {tested} tested, {curated} curated, "
                "{counterexample} refuted ({seconds} s{cached})").format(
                    **{**s, "cached": ", cached" if s.get("cached") else ""})


def compute_equivalents(texts: Texts, cache: Path) -> Equivalents:
    """Mappings per instruction and vendor, with evidence checked on the semantics in `texts`."""
    evidence = compute_all_evidence(texts, cache)
    names = {("amd", m.amd) for m in MAPPINGS if m.amd}
    names |= {("amd", step.op) for m in MAPPINGS if m.amd_prog for step in m.amd_prog.steps if step.vendor == "amd"}
    names |= {("nvidia", f.strip().split(".")[0]) for m in MAPPINGS for f in m.ptx.split("+")}
    rows = []
    for vendor, name in sorted(names):
        found = mappings_for(name, vendor, evidence)
        if found:
            rows.append((name.lower(), vendor, json.dumps(found, default=str)))
    summary = dict(evidence.get("summary", {}))
    summary["seconds"] = evidence.get("seconds")
    summary["cached"] = evidence.get("cached")
    summary["mappings"] = len(evidence.get("mappings", []))
    return Equivalents(rows, summary)

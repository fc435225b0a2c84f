"""Build stage: cross-vendor equivalents (PTX <-> AMD) with their evidence (z3 proofs,
differential tests, curated notes), computed by gpuisa.crossref and cached by its fingerprint."""

from __future__ import annotations

import json
import sqlite3

from gpuisa.model import InstructionDoc, ManualData


def write_equivalents(conn: sqlite3.Connection, manuals: list[ManualData], notes: list[str]) -> dict | None:
    """Store mappings per instruction and vendor; returns the evidence summary (None if skipped).

    The semantics come from `manuals` (what this build read), never from a catalog on disk."""
    try:
        from gpuisa.crossref import MAPPINGS, compute_all_evidence, default_cache, mappings_for
        from gpuisa.semantics.source import docs_from
    except ImportError as exc:   # z3 / lark / numpy missing
        notes.append(f"cross-vendor equivalents skipped: {exc}")
        return None
    docs: dict[str, dict[str, list[InstructionDoc]]] = {}
    for data in manuals:
        by_name = docs.setdefault(data.arch, {})
        for d in data.docs:
            by_name.setdefault(d.name.upper(), []).append(d)
    with docs_from(docs):
        evidence = compute_all_evidence(default_cache())
    names = {("amd", m.amd) for m in MAPPINGS if m.amd}
    names |= {("amd", step.op) for m in MAPPINGS if m.amd_prog for step in m.amd_prog.steps if step.vendor == "amd"}
    names |= {("nvidia", f.strip().split(".")[0]) for m in MAPPINGS for f in m.ptx.split("+")}
    rows = []
    for vendor, name in sorted(names):
        found = mappings_for(name, vendor, evidence)
        if found:
            rows.append((name.lower(), vendor, json.dumps(found, default=str)))
    conn.executemany("INSERT OR REPLACE INTO equivalents(name, vendor, mappings) VALUES (?,?,?)", rows)
    summary = dict(evidence.get("summary", {}))
    summary["seconds"] = evidence.get("seconds")
    summary["cached"] = evidence.get("cached")
    summary["mappings"] = len(evidence.get("mappings", []))
    conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('equivalents', ?)", (json.dumps(summary),))
    return summary

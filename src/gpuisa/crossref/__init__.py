"""Cross-vendor concepts and PTX <-> AMD mappings, each backed by evidence.

    mappings_for("v_sad_u32", "amd")   -> [{concept, level, restrictions, sequence, evidence, ...}]
    mappings_for("sad", "nvidia")      -> every sad.* form's mappings
    compute_all_evidence(cache_path)   -> evidence for all mappings (cached by a code fingerprint)
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gpuisa.crossref.concepts import CONCEPTS, Concept
from gpuisa.crossref.evidence import check_mapping, compute_all_evidence
from gpuisa.crossref.mappings import LEVELS, MAPPINGS, Mapping

__all__ = ["CONCEPTS", "LEVELS", "MAPPINGS", "Concept", "Mapping", "check_mapping", "compute_all_evidence",
           "default_cache", "mappings_for"]


def default_cache() -> Path:
    from gpuisa.paths import cache_dir

    return cache_dir() / "crossref-evidence.json"


def _matches(m: Mapping, name: str, vendor: str) -> bool:
    key = name.strip().lower()
    if vendor.lower() in ("amd", "gcn", "rdna", "cdna"):
        if m.amd == key:
            return True
        prog = m.amd_prog
        return bool(prog and len(prog.steps) == 1 and prog.steps[0].op == key)
    if vendor.lower() in ("nvidia", "ptx"):
        forms = [p.strip() for p in m.ptx.split("+")]
        return any(f == key or f.split(".")[0] == key for f in forms)
    raise ValueError(f"unknown vendor {vendor!r}; use amd or nvidia")


def mappings_for(name: str, vendor: str, evidence: dict[str, Any] | None = None,
                 cache: Path | None = None) -> list[dict[str, Any]]:
    """Mappings that involve an instruction, with their evidence.

    `evidence` is compute_all_evidence()'s result (the catalog stores it); without it the cache
    file is read, and mappings missing from both are checked now.
    """
    chosen = [m for m in MAPPINGS if _matches(m, name, vendor)]
    known: dict[str, dict[str, Any]] = {}
    if evidence is None:
        path = cache or default_cache()
        if path.is_file():
            try:
                evidence = json.loads(path.read_text())
            except (OSError, ValueError):
                evidence = None
    if evidence:
        known = {r["key"]: r for r in evidence.get("mappings", [])}
    out = []
    for m in chosen:
        r = known.get(m.key) or check_mapping(m)
        out.append({k: r[k] for k in ("key", "concept", "ptx", "amd", "arch", "level", "restrictions", "sequence",
                                      "reason", "evidence", "also", "consistent")}
                   | {"concept_title": CONCEPTS[m.concept].title})
    return out

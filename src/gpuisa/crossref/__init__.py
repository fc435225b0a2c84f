"""Cross-vendor concepts and PTX <-> AMD mappings, each backed by evidence.

    evidence = compute_all_evidence(texts, cache_path)   -> evidence for all mappings (cached by a fingerprint
                                                            of the code and the manual texts it runs)
    mappings_for("v_sad_u32", "amd", evidence)   -> [{concept, level, restrictions, sequence, evidence, ...}]
    mappings_for("sad", "nvidia", evidence)      -> every sad.* form's mappings

`texts` (semantics.Texts) is the manual text to run: crossref never opens a source or a catalog.
"""

from __future__ import annotations

from typing import Any

from gpuisa.crossref.concepts import CONCEPTS, Concept
from gpuisa.crossref.evidence import check_mapping, compute_all_evidence
from gpuisa.crossref.mappings import LEVELS, MAPPINGS, Mapping

__all__ = ["CONCEPTS", "LEVELS", "MAPPINGS", "Concept", "Mapping", "check_mapping", "compute_all_evidence",
           "mappings_for"]


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


def mappings_for(name: str, vendor: str, evidence: dict[str, Any]) -> list[dict[str, Any]]:
    """Mappings that involve an instruction, with their evidence (compute_all_evidence()'s result;
    a mapping it does not cover is left out)."""
    chosen = [m for m in MAPPINGS if _matches(m, name, vendor)]
    known = {r["key"]: r for r in evidence.get("mappings", [])}
    out = []
    for m in chosen:
        r = known.get(m.key)
        if r is None:
            continue
        out.append({k: r[k] for k in ("key", "concept", "ptx", "amd", "arch", "level", "restrictions", "sequence",
                                      "reason", "evidence", "also", "consistent")}
                   | {"concept_title": CONCEPTS[m.concept].title})
    return out

"""`gpuisa rosetta --arch A`: every PTX integer, logic/shift and comparison form with the AMD instruction
discovery found for it on that arch, its level and evidence (proofs cached by semantics fingerprint).

crossref (numpy, lark, z3) is imported inside the command so other commands start fast.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from gpuisa import paths
from gpuisa.archs import resolve_arch
from gpuisa.commands.amd import CatalogOpt, open_catalog
from gpuisa.errors import GpuisaError


def coverage(rows: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Per chapter: decided rows (proved, restricted, or nearest candidate refuted) out of all rows."""
    from gpuisa.crossref.discovery import decided

    out: dict[str, dict[str, int]] = {}
    for r in rows:
        c = out.setdefault(r["chapter"], {"decided": 0, "total": 0})
        c["total"] += 1
        c["decided"] += 1 if decided(r) else 0
    return out


def rosetta_table(cat: Any, arch: str, chapter: str = "") -> dict[str, Any]:
    """The Rosetta for one arch from a catalog (its texts and its PTX form list); `chapter` filters
    chapters by a case-insensitive substring ("logic")."""
    from gpuisa.crossref.discovery import CHAPTERS, chapter_titles, discover_arch, rosetta_forms  # heavy

    titles = chapter_titles()
    chosen = {c for c in titles if chapter.lower() in c.lower()}
    if not chosen:
        raise GpuisaError(f"no Rosetta chapter matches {chapter!r}; chapters: {', '.join(titles)}")
    forms = [r for r in rosetta_forms(cat.ptx_forms_in(CHAPTERS)) if r.chapter in chosen]
    out = discover_arch(arch, forms, cat, paths.cache_dir() / "rosetta-proofs.json")
    out["coverage"] = coverage(out["rows"])
    return out


def _evidence_text(r: dict[str, Any]) -> str:
    ev = r.get("evidence") or (r.get("nearest") or {}).get("evidence")
    if ev:
        who = f"vs {r['nearest']['amd']}: " if r.get("nearest") else ""
        return who + ev["detail"]
    return r.get("reason", "")


def register(app: typer.Typer) -> None:
    @app.command("rosetta")
    def rosetta_cmd(
        arch: Annotated[str, typer.Option("--arch", "-a", help="AMD architecture or gfx target (cdna3, gfx942)")],
        chapter: Annotated[str, typer.Option("--chapter", help="only chapters containing this text (logic)")] = "",
        catalog: CatalogOpt = None,
        as_json: Annotated[bool, typer.Option("--json", help="machine-readable output")] = False,
    ) -> None:
        """PTX forms (integer, logic/shift, comparison chapters) mapped to one AMD arch, with level and evidence."""
        key = resolve_arch(arch).key
        out = rosetta_table(open_catalog(catalog), key, chapter)
        if as_json:
            typer.echo(json.dumps(out, indent=1))
            return
        for r in out["rows"]:
            amd = r.get("amd", "")
            extra = "; ".join(r.get("restrictions", []))
            typer.echo(f"{r['form']:<22} {r['level']:<30} {amd:<18} {_evidence_text(r)[:110]}"
                       + (f"  [{extra}]" if extra else ""))
        for chapter, c in out["coverage"].items():
            typer.echo(f"# {chapter}: {c['decided']}/{c['total']} decided")
        typer.echo(f"# {key}: {out['seconds']} s{' (cached)' if out.get('cached') else ''}")

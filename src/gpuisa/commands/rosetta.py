"""`gpuisa rosetta --arch A [--json]`: every PTX form of the Rosetta chapters (integer, extended precision,
logic/shift, comparison, floating point, half and mixed precision, cvt) with the AMD instruction discovery
found for it on that arch, its level and evidence (proofs cached by semantics fingerprint).
`--arch all` runs the six Rosetta archs in parallel worker processes with a progress bar and prints the
decided table per arch and chapter.

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
    """Per chapter: decided rows (proved, restricted, sequence, or nearest candidate refuted) out of all rows of
    manual forms (the PTX pairs are extra rows)."""
    from gpuisa.crossref.discovery import decided, in_coverage

    out: dict[str, dict[str, int]] = {}
    for r in rows:
        if not in_coverage(r):
            continue
        c = out.setdefault(r["chapter"], {"decided": 0, "total": 0})
        c["total"] += 1
        c["decided"] += 1 if decided(r) else 0
    return out


def _forms(cat: Any, chapter: str) -> list[Any]:
    from gpuisa.crossref.discovery import CHAPTERS, chapter_titles, rosetta_forms  # heavy: numpy, lark

    titles = chapter_titles()
    chosen = {c for c in titles if chapter.lower() in c.lower()}
    if not chosen:
        raise GpuisaError(f"no Rosetta chapter matches {chapter!r}; chapters: {', '.join(titles)}")
    return [r for r in rosetta_forms(cat.ptx_forms_in(CHAPTERS)) if r.chapter in chosen]


def rosetta_table(cat: Any, arch: str, chapter: str = "", progress: Any = None) -> dict[str, Any]:
    """The Rosetta for one arch from a catalog (its texts and its PTX form list); `chapter` filters
    chapters by a case-insensitive substring ("logic")."""
    from gpuisa.crossref.discovery import discover_arch

    out = discover_arch(arch, _forms(cat, chapter), cat, paths.cache_dir() / "rosetta-proofs.json",
                        progress=progress)
    out["coverage"] = coverage(out["rows"])
    return out


def rosetta_all(cat: Any, archs: tuple[str, ...], chapter: str = "", jobs: int = 2, progress: Any = None
                ) -> dict[str, dict[str, Any]]:
    """rosetta_table for several archs in parallel worker processes."""
    from gpuisa.catalog.query import Catalog
    from gpuisa.crossref.discovery import discover_all

    path = cat.path
    found = discover_all(archs, _forms(cat, chapter), lambda: Catalog(path), paths.cache_dir() / "rosetta-proofs.json",
                         jobs=jobs, progress=progress)
    for out in found.values():
        out["coverage"] = coverage(out["rows"])
    return found


def _evidence_text(r: dict[str, Any]) -> str:
    ev = r.get("evidence") or (r.get("nearest") or {}).get("evidence")
    if ev:
        who = f"vs {r['nearest']['amd']}: " if r.get("nearest") else ""
        return who + ev["detail"]
    return r.get("reason", "")


def _with_progress(fn: Any) -> Any:
    """Run fn(update) under a rich progress bar on stderr."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=Console(stderr=True), transient=True) as bar:
        tasks: dict[str, Any] = {}

        def update(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = bar.add_task(f"rosetta {stage}", total=total)
            bar.update(tasks[stage], completed=done, total=total)

        return fn(update)


def register(app: typer.Typer) -> None:
    @app.command("rosetta")
    def rosetta_cmd(
        arch: Annotated[str, typer.Option("--arch", "-a", help="AMD architecture or gfx target (cdna3, gfx942), "
                                                                "or `all` for the six Rosetta archs")],
        chapter: Annotated[str, typer.Option("--chapter", help="only chapters containing this text (logic)")] = "",
        jobs: Annotated[int, typer.Option("--jobs", help="worker processes for --arch all", min=1, max=64)] = 2,
        catalog: CatalogOpt = None,
        as_json: Annotated[bool, typer.Option("--json", help="machine-readable output")] = False,
    ) -> None:
        """PTX forms mapped to AMD archs, one row per form with level and evidence (discovered, cached)."""
        from gpuisa.crossref.discovery import ROSETTA_ARCHS

        cat = open_catalog(catalog)
        if arch.strip().lower() == "all":
            found = _with_progress(lambda up: rosetta_all(cat, ROSETTA_ARCHS, chapter, jobs, up))
            if as_json:
                typer.echo(json.dumps({"archs": found}, indent=1))
                return
            chapters = list(dict.fromkeys(c for o in found.values() for c in o["coverage"]))
            typer.echo(f"{'chapter':<52}" + "".join(f"{a:>14}" for a in found))
            for ch in chapters:
                cells = []
                for o in found.values():
                    c = o["coverage"].get(ch, {"decided": 0, "total": 0})
                    pct = 100 * c["decided"] / c["total"] if c["total"] else 0
                    cells.append(f"{c['decided']:>4}/{c['total']:<4}{pct:4.0f}%")
                typer.echo(f"{ch:<52}" + "".join(f"{x:>14}" for x in cells))
            for a, o in found.items():
                dec = sum(c["decided"] for c in o["coverage"].values())
                tot = sum(c["total"] for c in o["coverage"].values())
                typer.echo(f"# {a}: {dec}/{tot} decided ({100 * dec / max(tot, 1):.1f}%), {o['seconds']} s"
                           + (" (cached)" if o.get("cached") else ""))
            return
        key = resolve_arch(arch).key
        out = _with_progress(lambda up: rosetta_table(cat, key, chapter, up)) if not as_json else \
            rosetta_table(cat, key, chapter)
        if as_json:
            typer.echo(json.dumps(out, indent=1))
            return
        for r in out["rows"]:
            amd = r.get("amd", "")
            extra = "; ".join(r.get("restrictions", []))
            typer.echo(f"{r['form']:<22} {r['level']:<30} {amd:<18} {_evidence_text(r)[:110]}"
                       + (f"  [{extra}]" if extra else ""))
        for ch, c in out["coverage"].items():
            typer.echo(f"# {ch}: {c['decided']}/{c['total']} decided")
        typer.echo(f"# {key}: {out['seconds']} s{' (cached)' if out.get('cached') else ''}")

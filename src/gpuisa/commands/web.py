"""Web commands: `serve` (the README's main command) and `site` (static export).

fastapi, uvicorn and jinja2 are imported inside the functions so other commands start fast.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from gpuisa import paths
from gpuisa.commands.amd import CatalogOpt, SourcesOpt
from gpuisa.commands.render import build_with_progress, console


def register(app: typer.Typer) -> None:
    app.command("serve")(serve)
    app.command("site")(site)


def _ensure_catalog(catalog: Path | None, sources: Path | None) -> Path:
    """The catalog path, building it from the sources first when it does not exist yet."""
    path = catalog or paths.default_catalog()
    if not path.is_file():
        console.print(f"No catalog at {path}; building it from the sources first.")
        build_with_progress(sources or paths.default_sources(), path, jobs=2)
        console.print("Built without tool verification; `gpuisa build --verify` adds llvm-mc and ptxas verdicts (cached).")
    return path


def serve(host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
          port: Annotated[int, typer.Option(help="TCP port.", min=1, max=65535)] = 8000,
          catalog: CatalogOpt = None, sources: SourcesOpt = None,
          cache: Annotated[int, typer.Option(help="Rendered pages kept in memory.", min=0)] = 4096) -> None:
    """Serve the web reference and JSON API (builds the catalog first when there is none)."""
    path = _ensure_catalog(catalog, sources)
    import uvicorn  # heavy: only for `serve`

    from gpuisa.web.app import create_app  # heavy: fastapi and jinja2

    app = create_app(path, cache_size=cache)
    import gc

    gc.collect()
    gc.freeze()  # the catalog indexes live for the whole run: keep them out of every later GC pass (shorter pauses)
    print(f"gpuisa: serving {path} at http://{host}:{port}/ (API: /api/, OpenAPI: /openapi.json); Ctrl-C stops")
    uvicorn.run(app, host=host, port=port, access_log=False, log_level="warning", server_header=False)


def site(out: Annotated[Path, typer.Option("--out", help="Folder to write the static site into.")],
         catalog: CatalogOpt = None, sources: SourcesOpt = None,
         jobs: Annotated[int, typer.Option(help="Worker processes for instruction pages.", min=1)] = 2) -> None:
    """Export every page as static HTML with relative links (works from file:// or any static server)."""
    path = _ensure_catalog(catalog, sources)
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from gpuisa.web.export import export_site  # heavy: jinja2

    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console) as progress:
        tasks: dict[str, int] = {}

        def update(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = progress.add_task(stage, total=total)
            progress.update(tasks[stage], completed=done, total=total)

        report = export_site(path, out, jobs, update)
    for skip in report.skipped:
        console.print(f"  skipped {skip}")
    console.print(f"{report.pages} files, {report.bytes / 1e6:.1f} MB in {report.out} ({report.seconds:.1f} s); "
                  f"open {Path(report.out) / 'index.html'}")

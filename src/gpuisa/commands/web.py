"""Web commands: `serve` (the README's main command) and `site` (static export).

fastapi, uvicorn and jinja2 are imported inside the functions so other commands start fast.
`serve` answers at once from an unverified catalog when it has to build one, verifies with the
real tools in a background process, and then swaps the served app to the verified catalog; a last
background pass computes the Rosetta cells the evidence cache lacks and swaps again.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path
from typing import Annotated, Any

import typer

from gpuisa import paths
from gpuisa.commands.amd import CatalogOpt, SourcesOpt
from gpuisa.commands.checks import output_dir, output_file
from gpuisa.errors import GpuisaError


def register(app: typer.Typer) -> None:
    app.command("serve")(serve)
    app.command("site")(site)


def _ensure_catalog(catalog: Path | None, sources: Path | None, pending: bool = False) -> Path:
    """The catalog path, building it from the sources first when it does not exist yet (without
    tool verification: fast; `pending` marks it as one that a verified build will replace, and leaves
    the cross-vendor equivalents, the slowest stage on a cold cache, to that build)."""
    path = catalog or paths.default_catalog()
    if not path.is_file():
        from gpuisa.commands.render import build_with_progress, console

        output_file(path, "catalog")
        console.print(f"No catalog at {path}; building it from the sources first (verification follows).")
        build_with_progress(sources or paths.default_sources(), path, jobs=2, verify=False, pending=pending,
                            equivalents=not pending)
    return path


def verification_state(path: Path) -> dict[str, dict]:
    """The catalog's record of its tool verification (meta 'verification'), {} for an older catalog."""
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
            row = conn.execute("SELECT value FROM meta WHERE key='verification'").fetchone()
    except sqlite3.Error:
        return {}
    return json.loads(row[0]) if row else {}


class SwappableApp:
    """ASGI app that forwards to the current app; `swap` replaces it in one assignment, so each
    request is answered wholly by the old catalog or wholly by the new one."""

    def __init__(self, app: Any) -> None:
        self.current = app

    def swap(self, app: Any) -> None:
        self.current = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        await self.current(scope, receive, send)


def _background_build(args: list[str], log: Path, nice: int = 0) -> int:
    """One `gpuisa build` in another process (the server keeps its CPU time for answers), its output in `log`;
    it gets SIGTERM when serve dies (otherwise a serve stopped by SIGTERM or kill leaves it running)."""
    from gpuisa.workers import terminate_with_parent  # multiprocessing: imported where a build starts

    def start() -> None:
        terminate_with_parent()
        if nice:
            os.nice(nice)

    cmd = [sys.executable, "-m", "gpuisa", "build", *args]
    with open(log, "a") as out:
        return subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                              preexec_fn=start).returncode


def _rosetta_pending(path: Path) -> bool:
    """Whether the catalog says a serve's background pass computes its missing Rosetta cells (a plain build's
    catalog says how to compute them instead: serve then starts no discovery of its own)."""
    return verification_state(path).get("rosetta", {}).get("state") == "pending"


def _verify_in_background(path: Path, sources: Path, served: SwappableApp, cache_size: int,
                          origin: str = "", verify: bool = True) -> threading.Thread:
    """serve's background passes, each a build that replaces `path` atomically and is then swapped in: first the
    verified catalog (llvm-mc, ptxas; the Rosetta cells the evidence cache holds), then, when cells are missing, the
    Rosetta discovery (`build --rosetta all`, at low priority: the first time it takes minutes). Their log goes
    beside the catalog. verify=False: the catalog is verified already and its Rosetta pending (a serve stopped
    during that pass): only the discovery pass runs."""
    from gpuisa.commands.render import console
    from gpuisa.web.app import create_app

    log = path.with_name(path.name + ".verify.log")
    common = ["--sources", str(sources), "--catalog", str(path)]

    def run() -> None:
        log.write_text("")
        if verify:
            rc = _background_build(["--verify", *common, "--rosetta-running"], log)
            if rc != 0:
                console.print(f"gpuisa: background verification failed (exit {rc}); still serving the unverified "
                              f"catalog; see {log}")
                return
            served.swap(create_app(path, cache_size=cache_size, origin=origin))
            console.print(f"gpuisa: verification done; now serving the verified catalog ({log})")
        if not _rosetta_pending(path):
            return
        console.print("gpuisa: computing the PTX -> AMD Rosetta cells not yet cached in the background")
        rc = _background_build(["--verify", *common, "--rosetta", "all"], log, nice=10)   # verdicts cached by now
        if rc != 0:
            console.print(f"gpuisa: background Rosetta discovery failed (exit {rc}); see {log}")
            return
        served.swap(create_app(path, cache_size=cache_size, origin=origin))
        console.print(f"gpuisa: Rosetta discovery done; now serving every computed cell ({log})")

    thread = threading.Thread(target=run, name="gpuisa-verify", daemon=True)
    thread.start()
    return thread


def serve(host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
          port: Annotated[int, typer.Option(help="TCP port.", min=1, max=65535)] = 8000,
          catalog: CatalogOpt = None, sources: SourcesOpt = None,
          cache: Annotated[int, typer.Option(help="Rendered pages kept in memory.", min=0)] = 4096,
          verify: Annotated[bool, typer.Option("--verify/--no-verify", help="Verify with llvm-mc and ptxas in the "
                                               "background when the catalog is not yet verified.")] = True,
          origin: Annotated[str, typer.Option(
              help="scheme://host[:port] that redirects name (default: none, redirects are relative paths; "
                   "the request's Host header is never used).")] = "") -> None:
    """Serve the web reference and JSON API (builds the catalog first when there is none; verifies in the background)."""
    if origin and not re.fullmatch(r"https?://[A-Za-z0-9.\-\[\]:]+(:\d{1,5})?/?", origin):
        raise GpuisaError(f"--origin {origin!r} is not scheme://host[:port]")
    path = _ensure_catalog(catalog, sources, pending=verify)
    import uvicorn  # heavy: only for `serve`

    from gpuisa.web.app import create_app  # heavy: fastapi and jinja2

    app = SwappableApp(create_app(path, cache_size=cache, origin=origin))
    state = verification_state(path)
    if verify and any(t.get("state") == "pending" for tool, t in state.items() if tool != "rosetta"):
        print("gpuisa: verifying with llvm-mc and ptxas in the background; pages say so until the verified "
              "catalog replaces this one")
        _verify_in_background(path, sources or paths.default_sources(), app, cache, origin)
    elif verify and _rosetta_pending(path):    # a serve stopped before its discovery pass ended: resume it
        _verify_in_background(path, sources or paths.default_sources(), app, cache, origin, verify=False)
    import gc

    gc.collect()
    gc.freeze()  # the catalog indexes live for the whole run: keep them out of every later GC pass (shorter pauses)
    print(f"gpuisa: serving {path} at http://{host}:{port}/ (API: /api/, OpenAPI: /openapi.json); Ctrl-C stops")
    # uvicorn.Server, not uvicorn.run: run() swallows the Ctrl-C that Server re-raises after a graceful
    # shutdown, and the CLI must report it (exit 130) so `gpuisa serve && next` does not go on.
    config = uvicorn.Config(app, host=host, port=port, access_log=False, log_level="warning", server_header=False)
    uvicorn.Server(config).run()


def site(out: Annotated[Path, typer.Option("--out", help="Folder to write the static site into.")],
         catalog: CatalogOpt = None, sources: SourcesOpt = None,
         jobs: Annotated[int, typer.Option(help="Worker processes for instruction pages.", min=1)] = 2) -> None:
    """Export every page as static HTML with relative links (works from file:// or any static server)."""
    output_dir(out, "output folder")
    path = _ensure_catalog(catalog, sources)
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from gpuisa.commands.render import console
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

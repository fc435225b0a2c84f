"""`gpuisa fetch`: download the vendor sources (LLVM tests, AMD manuals and XML, PTX docs)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def register(app: typer.Typer) -> None:
    app.command("fetch")(fetch)


def fetch(
    dest: Annotated[Path | None, typer.Option(
        "--dest", help="Sources folder to fill (default: ~/.local/share/gpuisa/sources).")] = None,
    mirror: Annotated[str, typer.Option(
        "--mirror", help="Base URL serving the archives by file name and a SHA256SUMS file.")] = "",
    only: Annotated[list[str] | None, typer.Option(
        "--only", help="Fetch only this source (repeatable); see --list.")] = None,
    list_only: Annotated[bool, typer.Option("--list", help="List the sources and exit.")] = False,
    keep: Annotated[bool, typer.Option("--keep-archives", help="Keep downloaded archives.")] = False,
    retries: Annotated[int, typer.Option(help="Attempts per download (each resumes the last).")] = 5,
) -> None:
    """Download the upstream sources gpuisa reads, resumably and checksum-verified."""
    from gpuisa import fetch as fetching
    from gpuisa.paths import data_home

    items = fetching.manifest_by_name(only)
    if list_only:
        for item in items:
            where = item.url or "(mirror only)"
            typer.echo(f"{item.name:18} -> {item.dest:22} {where}\n{'':22}{item.note}")
        return
    target = dest or data_home() / "sources"
    results = _run_with_progress(fetching, target, items, mirror, keep, retries, only or [])
    for res in results:
        line = f"{res.name:18} {res.status:8}"
        if res.sha256:
            line += f" sha256 {res.sha256[:16]}… {'verified' if res.verified else 'recorded (unverified)'}"
        if res.message:
            line += f"  {res.message}"
        typer.echo(line)
    typer.echo(f"sources in {target}" + ("" if dest is None else f"; use --sources {target} or GPUISA_SOURCES"))


def _run_with_progress(fetching, target: Path, items, mirror: str, keep: bool, retries: int,
                       required: list[str]):
    """fetch_sources with a rich progress bar per download (on stderr, so stdout stays plain)."""
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        DownloadColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
        TransferSpeedColumn,
    )

    columns = (TextColumn("{task.description:18}"), BarColumn(), DownloadColumn(),
               TransferSpeedColumn(), TimeRemainingColumn())
    with Progress(*columns, console=Console(stderr=True), transient=False) as bar:
        tasks: dict[str, int] = {}

        def report(name: str, done: int, total: int | None) -> None:
            if name not in tasks:
                tasks[name] = bar.add_task(name, total=total)
            bar.update(tasks[name], completed=done, total=total)

        return fetching.fetch_sources(target, items, mirror=mirror, progress=report, retries=retries,
                                      keep_archives=keep, required=required)

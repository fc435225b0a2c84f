"""`gpuisa lsp`: the language server for AMDGPU assembly and PTX, over stdio."""

from __future__ import annotations

from typing import Annotated

import typer

from gpuisa.commands.amd import CatalogOpt, open_catalog


def register(app: typer.Typer) -> None:
    app.command("lsp")(lsp_cmd)


def lsp_cmd(catalog: CatalogOpt = None,
            target: Annotated[str | None, typer.Option(
                "--target", help="Target for files that name none (gfx942, sm_80); clients may set it too.")] = None,
            pages: Annotated[str | None, typer.Option(
                "--pages", help="Base URL of `gpuisa serve` for the page links in hovers.")] = None,
            no_tools: Annotated[bool, typer.Option(
                "--no-tools", help="No llvm-mc / ptxas diagnostics, only the catalog's.")] = False) -> None:
    """Language server (stdio): hover, completion, signature help, diagnostics, labels, kernels."""
    import logging
    import sys

    from gpuisa.lsp.facts import Facts
    from gpuisa.lsp.server import Settings, make_server

    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="gpuisa lsp: %(message)s")
    # Requests are answered on the event loop while diagnostics and hover warming run on threads:
    # a shorter GIL switch interval (default 5 ms) keeps a request from waiting behind them.
    sys.setswitchinterval(0.0005)
    settings = Settings(target=target.lower() if target else None, tool_diagnostics=not no_tools)
    if pages:
        settings.pages = pages
    facts = Facts(open_catalog(catalog), settings.pages)
    make_server(facts, settings).start_io()

"""`gpuisa mcp`: the MCP server for assistants, over stdio."""

from __future__ import annotations

import typer

from gpuisa.commands.amd import CatalogOpt, open_catalog


def register(app: typer.Typer) -> None:
    app.command("mcp")(mcp_cmd)


def mcp_cmd(catalog: CatalogOpt = None) -> None:
    """MCP server (stdio): tools lookup, search, diff, eval, decode, encode, equivalents; pages as resources."""
    from gpuisa.mcp.server import make_server

    make_server(open_catalog(catalog)).run("stdio")

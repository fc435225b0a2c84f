"""Catalog commands: build, archs, show, search, diff."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from gpuisa import paths
from gpuisa.commands.checks import output_file

if TYPE_CHECKING:
    from gpuisa.catalog.query import Catalog

SourcesOpt = Annotated[Path | None, typer.Option(
    "--sources", help="Vendor sources folder (default: $GPUISA_SOURCES or ../shared/sources).")]
CatalogOpt = Annotated[Path | None, typer.Option(
    "--catalog", help="Catalog file (default: $GPUISA_CATALOG or ~/.local/share/gpuisa/catalog.sqlite).")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print the documented JSON document.")]


def open_catalog(path: Path | None) -> Catalog:
    from gpuisa.catalog.query import Catalog  # loads the documents (pydantic): only commands that read a catalog pay

    return Catalog(path or paths.default_catalog())


VERIFY_TOOLS = ("llvm-mc", "ptxas")   # what `build --verify-with` can name
ROSETTA_MODES = ("cached", "hinted", "all")   # crossref.stage.MODES (not imported: it loads numpy, lark and z3)


def register(app: typer.Typer) -> None:
    app.command("build")(build)
    app.command("archs")(archs)
    app.command("show")(show)
    app.command("search")(search)
    app.command("diff")(diff)


def build(sources: SourcesOpt = None, catalog: CatalogOpt = None,
          jobs: Annotated[int, typer.Option(help="Worker processes for reading sources.", min=1, max=64)] = 2,
          verify: Annotated[bool, typer.Option("--verify/--no-verify",
                                               help="Check with the real tools (newest llvm-mc and ptxas found; cached).")]
          = True,
          accept_drop: Annotated[bool, typer.Option(
              "--accept-drop", help="Write the catalog even when it holds much less than the sources or the "
                                    "previous catalog (a damaged manual otherwise fails the build).")] = False,
          rosetta: Annotated[str, typer.Option(
              "--rosetta", metavar="cached|hinted|all",
              help="What the PTX -> AMD Rosetta computes anew: cached (default: what the evidence cache holds, "
                   "the other cells say 'not computed yet'), hinted (also the hinted forms, every arch), all (every "
                   "form: minutes on a cold cache, cached after; serve runs it in the background).")] = "cached",
          force: Annotated[bool, typer.Option(
              "--force", help="Rebuild even when the catalog was built from the same sources, code, options, tools "
                              "and Rosetta cache (otherwise such a build does nothing).")] = False,
          rosetta_running: Annotated[bool, typer.Option(
              "--rosetta-running", hidden=True, help="serve: a background pass computes the cells left out")] = False,
          verify_with: Annotated[list[str] | None, typer.Option(
              "--verify-with", metavar="TOOL", help="Verify with this tool only (llvm-mc or ptxas; repeat for both; "
                                                   "default: both). The other's verdicts say it was not run.")]
          = None) -> None:
    """Build the catalog from the vendor sources (atomic: a failed build keeps the old catalog)."""
    tools = tuple(dict.fromkeys(verify_with or VERIFY_TOOLS))
    unknown = [t for t in tools if t not in VERIFY_TOOLS]
    if unknown:
        raise typer.BadParameter(f"{unknown[0]!r} is not one of {', '.join(VERIFY_TOOLS)}", param_hint="'--verify-with'")
    if verify_with and not verify:
        raise typer.BadParameter("--verify-with names tools to verify with; --no-verify runs none",
                                 param_hint="'--verify-with'")
    if rosetta not in ROSETTA_MODES:
        raise typer.BadParameter(f"{rosetta!r} is not one of {', '.join(ROSETTA_MODES)}", param_hint="'--rosetta'")
    target = output_file(catalog or paths.default_catalog(), "catalog")
    from gpuisa.commands.render import build_with_progress

    build_with_progress(sources or paths.default_sources(), target, jobs, verify, accept_drop=accept_drop,
                        rosetta=rosetta, rosetta_running=rosetta_running, tools=tools, force=force)


def archs(catalog: CatalogOpt = None, as_json: JsonOpt = False) -> None:
    """List architectures with their gfx targets and manual coverage."""
    rows = open_catalog(catalog).archs()
    if as_json:
        print(json.dumps(rows, indent=2))
        return
    from gpuisa.commands.render import print_archs

    print_archs(rows)


def show(name: Annotated[str, typer.Argument(help="Instruction, e.g. v_sad_u32, V_SAD_U32_e64, clmad")],
         arch: Annotated[str | None, typer.Option("--arch", help="Architecture or gfx target (default: newest).")] = None,
         catalog: CatalogOpt = None, as_json: JsonOpt = False) -> None:
    """Show everything the catalog holds about one instruction."""
    doc = open_catalog(catalog).show(name, arch)
    if as_json:
        print(json.dumps(doc.as_json(), indent=2, ensure_ascii=False))
        return
    from gpuisa.commands.render import print_instruction

    print_instruction(doc)


def search(text: Annotated[str, typer.Argument(help="Name or words to find")],
           arch: Annotated[str | None, typer.Option("--arch")] = None,
           limit: Annotated[int, typer.Option("--limit", help="At most this many results (1-500).")] = 20,
           catalog: CatalogOpt = None, as_json: JsonOpt = False) -> None:
    """Search instruction names and descriptions (exact names first)."""
    rows = open_catalog(catalog).search(text, arch, limit)
    if as_json:
        print(json.dumps([r.as_json() for r in rows], indent=2, ensure_ascii=False))
        return
    for r in rows:
        print(f"{r.name:<32} {r.vendor:<6} {' '.join(r.archs[:4]):<28} {(r.summary or '')[:90]}")
    if not rows:
        print("no matches")


def diff(name: Annotated[str | None, typer.Argument(help="One instruction (optional)")] = None,
         from_: Annotated[str, typer.Option("--from", help="Older architecture")] = "rdna3",
         to: Annotated[str, typer.Option("--to", help="Newer architecture")] = "rdna4",
         catalog: CatalogOpt = None, as_json: JsonOpt = False) -> None:
    """Differences between two generations: whole ISA, or one instruction."""
    result = open_catalog(catalog).diff(from_, to, name)
    if as_json:
        print(json.dumps(result.as_json(), indent=2))
        return
    from gpuisa.commands.render import print_diff

    print_diff(result)

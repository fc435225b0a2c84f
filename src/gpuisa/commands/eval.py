"""`gpuisa eval`: run an instruction's manual pseudocode (as the catalog stores it) on operand values.

semantics (lark, numpy) is imported inside the command so other commands start fast.
"""

from __future__ import annotations

import json
import math
from typing import Annotated

import typer

from gpuisa.archs import ARCHS, resolve_arch
from gpuisa.commands.amd import CatalogOpt, open_catalog
from gpuisa.errors import GpuisaError


def _fmt(value: object) -> str:
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, int):
        if value >= 0:
            return f"{value} ({value:#x})"
        width = -(-((-value - 1).bit_length() + 1) // 32) * 32   # two's complement, whole 32-bit registers
        return f"{value} ({value & ((1 << width) - 1):#x})"
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        return repr(value)
    return str(value)


def register(app: typer.Typer) -> None:
    @app.command("eval")
    def eval_cmd(
        name: Annotated[str | None, typer.Argument(help="AMD instruction (v_sad_u32, s_add_i32) or PTX form "
                                                         "(clmad.lo.u64)")] = None,
        operands: Annotated[list[str] | None, typer.Argument(help="NAME=VALUE pairs: S0=5 S1=0x3 (AMD), a=3 (PTX)")]
        = None,
        arch: Annotated[str | None, typer.Option("--arch", "-a", help="AMD architecture (rdna3, gfx1100 ...)")] = None,
        vendor: Annotated[str | None, typer.Option("--vendor", help="amd or nvidia (default: what the name is)")]
        = None,
        form: Annotated[str | None, typer.Option("--form", "-f", help="PTX form, e.g. clmad.lo.u64")] = None,
        catalog: CatalogOpt = None,
        as_json: Annotated[bool, typer.Option("--json", help="machine-readable output")] = False,
        lanes: Annotated[bool, typer.Option("--lanes", help="matrix instructions: show the register view")] = False,
        coverage: Annotated[bool, typer.Option("--coverage", help="per arch: share of VALU/SALU pseudocode that "
                                                                  "parses and evaluates (--arch for one)")] = False,
        mma_table: Annotated[bool, typer.Option("--mma-table", help="PTX mma/wmma/wgmma products and their AMD "
                                                                    "counterparts per arch, with evidence")] = False,
    ) -> None:
        """Evaluate the manual's pseudocode: gpuisa eval v_sad_u32 --arch rdna3 S0=5 S1=3 S2=10.

        Names resolve as in `gpuisa show` (LLVM suffixes, old names, PTX forms); the text comes from the catalog."""
        from gpuisa.commands.eval_matrix import eval_matrix, is_matrix_name
        from gpuisa.semantics.api import eval_amd, eval_ptx, parse_assignments  # heavy: lark and numpy

        if coverage:
            _coverage(open_catalog(catalog), [resolve_arch(arch).key] if arch else [a.key for a in ARCHS], as_json)
            return
        if mma_table:
            _mma_table(open_catalog(catalog), name, as_json)
            return
        if name is None:
            raise GpuisaError("give an instruction name (gpuisa eval v_sad_u32 --arch rdna3 S0=5 ...) or --coverage")

        if is_matrix_name(name):   # MFMA/WMMA: whole matrices from files (A=a.npy), not register values
            cat = open_catalog(catalog)
            result = eval_matrix(name, resolve_arch(arch or "cdna3").key, list(operands or []), cat, lanes=lanes)
            if as_json:
                typer.echo(json.dumps(result, indent=2))
                return
            typer.echo(f"{result['name']} on {result['arch']} ({result['source']})")
            for k, v in result["shape"].items():
                typer.echo(f"  {k}: {v}")
            for p in result["manual_disagrees"]:
                typer.echo(f"  manual: {p}")
            for op, grid in (result.get("lanes") or {"D": result["D"]}).items():
                typer.echo(f"{op}:" + (" (register x lane)" if lanes else ""))
                for i, row in enumerate(grid):
                    typer.echo(f"  {('v' + str(i)) if lanes else ''} " + " ".join(str(x) for x in row))
            return
        inputs = parse_assignments(list(operands or []))
        cat = open_catalog(catalog)
        vend = (vendor or "").lower()
        if vend not in ("", "amd", "nvidia", "ptx"):
            raise GpuisaError(f"unknown vendor {vendor!r}; use amd or nvidia")
        if form or vend in ("nvidia", "ptx") or (not vend and cat.resolve_name(name).vendor == "nvidia"):
            f = form or name
            if not f.lower().startswith(name.lower().split(".")[0]):
                raise GpuisaError(f"form {f!r} is not a form of {name!r}")
            result = eval_ptx(f, inputs, cat)
            header = f"{result['form']} (PTX, {result['source']})"
        else:
            key = cat.resolve_name(name)
            if key.vendor != "amd":
                raise GpuisaError(f"{name} is a PTX instruction; give a form (--form) or --vendor nvidia")
            arch = arch or _newest_with_pseudocode(key.key, cat)
            result = eval_amd(key.key, arch, inputs, cat)
            header = f"{result['name']} on {result['arch']} ({result['source']})"
        if as_json:
            typer.echo(json.dumps({**result, "outputs": {k: (v if not isinstance(v, float) or math.isfinite(v)
                                                              else str(v)) for k, v in result["outputs"].items()}},
                                  indent=2))
            return
        typer.echo(header)
        for k, v in result["outputs"].items():
            typer.echo(f"  {k} = {_fmt(v)}")


def _newest_with_pseudocode(key: str, texts) -> str:
    """The newest architecture whose manual gives pseudocode for `key`."""
    from gpuisa.semantics.source import amd_semantics  # heavy: the semantics package loads lark and numpy

    for a in sorted(ARCHS, key=lambda a: -a.order):
        try:
            amd_semantics(key, a.key, texts)
            return a.key
        except GpuisaError:
            continue
    raise GpuisaError(f"no architecture's manual gives pseudocode for {key.lower()}; try --arch")


def _coverage(texts, archs: list[str], as_json: bool) -> None:
    """`gpuisa eval --coverage`: {"cdna4": {"VALU": 97.4, "SALU": 98.1}, ...}; --json adds every failure."""
    from gpuisa.semantics.coverage import coverage, vars_

    report = {}
    for a in archs:
        cov = coverage(a, texts)
        report[a] = {u: round(100 * c.share, 1) for u, c in sorted(cov.units.items(), reverse=True)}
        report[a]["failures"] = [vars_(f) for f in cov.failures]
    if as_json:
        typer.echo(json.dumps(report, indent=2))
        return
    for a, r in report.items():
        typer.echo(f"{a:8} VALU {r.get('VALU', 0):5.1f}%  SALU {r.get('SALU', 0):5.1f}%  ({len(r['failures'])} failures; "
                   "--json lists them with reason and manual line)")


def _mma_table(cat, only: str | None, as_json: bool) -> None:
    """`gpuisa eval --mma-table [FORM] [--json]`: each PTX matrix product and its AMD counterparts, evaluated."""
    import numpy as np

    from gpuisa.semantics import matrix, mma_table  # heavy: numpy

    forms = []
    for name in mma_table.PTX_MATRIX_INSTRUCTIONS:
        doc = cat.show_ptx(name)
        forms += [f.form for f in doc.forms] if doc is not None else []
    if only:
        forms = [f for f in forms if f == only or f.startswith(only)]
        if not forms:
            raise GpuisaError(f"{only}: no PTX mma/wmma.mma/wgmma.mma_async form starts with it")
    names = {a: [n for n in cat.instruction_docs(a) if matrix.MATRIX_FAMILY.match(n)] for a in mma_table.AMD_ARCHS}
    rows = mma_table.table(forms, names, np.random.default_rng(0))
    if as_json:
        typer.echo(json.dumps(rows, indent=2))
        return
    for r in rows:
        typer.echo(f"{r['family']} {r['ptx']}  ({len(r['forms'])} forms)")
        for c in r["counterparts"]:
            what = (f"{c['instruction']} x{c['count']} ({c['level']})" if c["level"] != "none" else f"none: {c['reason']}")
            typer.echo(f"  {c['arch']:6} {what}" + (f"; {'; '.join(c['restrictions'])}" if c["restrictions"] else ""))

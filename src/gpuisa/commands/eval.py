"""`gpuisa eval`: run an instruction's manual pseudocode on operand values.

Heavy imports (lark, numpy) happen inside the command so other commands start fast.
"""

from __future__ import annotations

import json
import math
from typing import Annotated

import typer


def _fmt(value: object) -> str:
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, int):
        return f"{value} ({value & ((1 << max(value.bit_length() + 1, 32)) - 1):#x})" if value < 0 else f"{value} ({value:#x})"
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        return repr(value)
    return str(value)


def register(app: typer.Typer) -> None:
    @app.command("eval")
    def eval_cmd(
        name: Annotated[str, typer.Argument(help="AMD instruction (v_sad_u32) or PTX instruction (clmad)")],
        operands: Annotated[list[str] | None, typer.Argument(help="NAME=VALUE pairs: S0=5 S1=0x3 (AMD), a=3 (PTX)")]
        = None,
        arch: Annotated[str | None, typer.Option("--arch", "-a", help="AMD architecture (rdna3, gfx1100 ...)")] = None,
        vendor: Annotated[str, typer.Option("--vendor", help="amd or nvidia")] = "amd",
        form: Annotated[str | None, typer.Option("--form", "-f", help="PTX form, e.g. clmad.lo.u64")] = None,
        as_json: Annotated[bool, typer.Option("--json", help="machine-readable output")] = False,
    ) -> None:
        """Evaluate the manual's pseudocode: gpuisa eval v_sad_u32 --arch rdna3 S0=5 S1=3 S2=10."""
        from gpuisa.errors import GpuisaError
        from gpuisa.semantics.api import eval_amd, eval_ptx, parse_assignments

        inputs = parse_assignments(list(operands or []))
        vend = "nvidia" if form else vendor.lower()
        if vend in ("nvidia", "ptx"):
            f = form or name
            if not f.lower().startswith(name.lower().split(".")[0]):
                raise GpuisaError(f"form {f!r} is not a form of {name!r}")
            result = eval_ptx(f, inputs)
            header = f"{result['form']} (PTX, {result['source']})"
        elif vend == "amd":
            if not arch:
                from gpuisa.archs import ARCHS
                from gpuisa.semantics.source import amd_semantics

                arch = next((a.key for a in sorted(ARCHS, key=lambda a: -a.order)
                             if _has(amd_semantics, name, a.key)), None)
                if arch is None:
                    raise GpuisaError(f"no architecture's manual gives pseudocode for {name!r}; try --arch")
            result = eval_amd(name, arch, inputs)
            header = f"{result['name']} on {result['arch']} ({result['source']})"
        else:
            raise GpuisaError(f"unknown vendor {vendor!r}; use amd or nvidia")
        if as_json:
            typer.echo(json.dumps({**result, "outputs": {k: (v if not isinstance(v, float) or math.isfinite(v)
                                                              else str(v)) for k, v in result["outputs"].items()}},
                                  indent=2))
            return
        typer.echo(header)
        for k, v in result["outputs"].items():
            typer.echo(f"  {k} = {_fmt(v)}")


def _has(lookup, name: str, arch: str) -> bool:
    from gpuisa.errors import GpuisaError

    try:
        lookup(name, arch)
        return True
    except GpuisaError:
        return False

"""The `gpuisa` command line. Each command group lives in gpuisa/commands/<name>.py and exposes
`register(app)`; they are discovered here so command modules never edit a shared file.

Command modules import heavy dependencies (lark, z3, fastapi, numpy) inside their functions,
so `gpuisa show` starts fast.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys

import typer

from gpuisa import commands
from gpuisa.errors import GpuisaError

app = typer.Typer(
    name="gpuisa",
    help="Cross-vendor GPU instruction-set reference: AMD GCN/RDNA/CDNA and NVIDIA PTX.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _register_commands() -> None:
    for mod in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"gpuisa.commands.{mod.name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(app)


_register_commands()


def main() -> None:
    """Entry point: run the app, turning GpuisaError into one clear line and exit status 2."""
    try:
        app(standalone_mode=False)
    except GpuisaError as exc:
        print(f"gpuisa: error: {exc}", file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:
        print("gpuisa: interrupted", file=sys.stderr)
        sys.exit(130)
    except SystemExit:
        raise
    except Exception as exc:  # click usage errors arrive here in non-standalone mode
        import click

        if isinstance(exc, click.exceptions.ClickException):
            exc.show()
            sys.exit(exc.exit_code)
        if isinstance(exc, click.exceptions.Abort):
            sys.exit(1)
        raise

"""The `gpuisa` command line. Each command group lives in gpuisa/commands/<name>.py and exposes
`register(app)`; they are discovered here so command modules never edit a shared file.

Command modules import heavy dependencies (lark, z3, fastapi, numpy) inside their functions,
so `gpuisa show` starts fast.

Errors: `main` runs the click command itself (not typer's own runner, whose handling of usage
errors, Ctrl-C and exit codes changed between typer releases) and turns every way a run can fail
into one line on stderr: `gpuisa: error: ...` with exit 2 for bad input (usage errors included),
`gpuisa: interrupted` with 130 on Ctrl-C, `gpuisa: terminated` with 143 on SIGTERM.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import signal
import sys
from collections.abc import Sequence

import typer

from gpuisa import commands
from gpuisa.errors import GpuisaError
from gpuisa.limits import MAX_ARGUMENT_CHARS
from gpuisa.stopping import Terminated, forget_stops, on_sigterm

app = typer.Typer(
    name="gpuisa",
    help="Cross-vendor GPU instruction-set reference: AMD GCN/RDNA/CDNA and NVIDIA PTX.",
    no_args_is_help=False,
    add_completion=False,
    pretty_exceptions_enable=False,
)

EXIT_USAGE = 2
EXIT_INTERNAL = 70        # sysexits EX_SOFTWARE: a bug in gpuisa, not the user's input
EXIT_INTERRUPTED = 130    # 128 + SIGINT, what shells report for Ctrl-C
EXIT_TERMINATED = 143     # 128 + SIGTERM
EXIT_BROKEN_PIPE = 141    # 128 + SIGPIPE (`gpuisa search x | head -1`)

# click's exception classes, found through typer's public BadParameter: typer < 0.22 re-exports click's,
# later releases ship their own copy of click (typer._click), so naming either module directly breaks the other.
_CLICK_BASE = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException")
_USAGE_ERROR = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "UsageError")


# Modules of commands/ that hold no command group, only what the command modules import where they
# need it: discovering them would load rich (render) on every command, `gpuisa disasm` included.
HELPER_MODULES = frozenset({"checks", "render"})


def _register_commands() -> None:
    for mod in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        if mod.name in HELPER_MODULES:
            continue
        module = importlib.import_module(f"gpuisa.commands.{mod.name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(app)


_register_commands()


def check_arguments(args: Sequence[str]) -> None:
    """Refuse arguments that are not UTF-8 or are longer than any real one, before any work."""
    for i, arg in enumerate(args, 1):
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError:  # undecodable bytes arrive as surrogate escapes
            shown = arg.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")[:60]
            raise GpuisaError(f"argument {i} ('{shown}') is not valid UTF-8") from None
        if len(arg) > MAX_ARGUMENT_CHARS:
            raise GpuisaError(f"argument {i} is {len(arg)} characters long; at most {MAX_ARGUMENT_CHARS} are accepted")
        if "\x00" in arg:
            raise GpuisaError(f"argument {i} holds a NUL character")


def _usage_line(exc: Exception) -> str:
    """A click usage error as one line: the command, the message, where to read more."""
    ctx = getattr(exc, "ctx", None)
    command = ctx.command_path if ctx is not None else "gpuisa"
    message = " ".join(part.strip() for part in exc.format_message().splitlines() if part.strip())
    where = "" if command == "gpuisa" else f"{command}: "
    return f"{where}{message} (see `{command} --help`)"


def _fail(message: str, code: int) -> None:
    print(message.replace("\n", " "), file=sys.stderr, flush=True)
    sys.exit(code)


def run(args: list[str]) -> int:
    """Parse and run one command line; exceptions propagate to `main`. Returns the exit status."""
    command = typer.main.get_command(app)
    if not args:
        print(command.get_help(command.make_context("gpuisa", [], resilient_parsing=True)))
        raise GpuisaError("no command given; choose one of the commands above")
    try:
        with command.make_context("gpuisa", args) as ctx:
            command.invoke(ctx)
    except typer.Exit as exc:
        return int(getattr(exc, "exit_code", 0) or 0)
    return 0


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point: every failure becomes one line on stderr and a documented exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    previous = signal.getsignal(signal.SIGTERM)
    if previous is signal.SIG_DFL:
        signal.signal(signal.SIGTERM, on_sigterm)
    try:
        _main(args)
    finally:   # a caller running main() in-process (tests, embedding) gets its own handler back
        if previous is signal.SIG_DFL:
            signal.signal(signal.SIGTERM, previous)
        forget_stops()


def _main(args: list[str]) -> None:
    try:
        check_arguments(args)
        code = run(args)
        sys.stdout.flush()
    except GpuisaError as exc:
        _fail(f"gpuisa: error: {exc}", EXIT_USAGE)
    except _USAGE_ERROR as exc:
        _fail(f"gpuisa: error: {_usage_line(exc)}", EXIT_USAGE)
    except _CLICK_BASE as exc:  # FileError and the like: bad input too
        _fail(f"gpuisa: error: {' '.join(exc.format_message().split())}", EXIT_USAGE)
    except (KeyboardInterrupt, typer.Abort):
        _fail("gpuisa: interrupted", EXIT_INTERRUPTED)
    except Terminated:
        _fail("gpuisa: terminated", EXIT_TERMINATED)
    except BrokenPipeError:
        # the reader went away: say nothing more on stdout, and do not let the interpreter complain at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(EXIT_BROKEN_PIPE)
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        _fail(f"gpuisa: error: {where}{exc.strerror or exc}", EXIT_USAGE)
    except (MemoryError, RecursionError) as exc:
        _fail(f"gpuisa: error: out of {'memory' if isinstance(exc, MemoryError) else 'stack'} on this input", EXIT_USAGE)
    except Exception as exc:
        if os.environ.get("GPUISA_DEBUG"):
            raise
        _fail(f"gpuisa: internal error: {type(exc).__name__}: {exc} (a bug; GPUISA_DEBUG=1 shows the traceback)",
              EXIT_INTERNAL)
    sys.exit(code)

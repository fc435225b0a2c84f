"""A command stopped by SIGTERM, even where the exception its handler raised was lost.

`on_sigterm` (the CLI's handler) remembers the stop and raises Terminated, so `finally` blocks (temp files, worker
pools) run. CPython drops an exception raised while it runs an at-fork hook (logging's `_releaseLock` after every
fork of a pool worker), a `__del__` or a weakref callback, printing only "Exception ignored in ..."; a build stopped
that way went on as if never stopped (1 in 4 SIGTERMs 3 s into `gpuisa build`). `raise_if_stopped` raises it again:
the worker pools call it after each submit (where they fork), the build before each stage.

Light on purpose: the CLI imports it at start.
"""

from __future__ import annotations


class Terminated(BaseException):
    """SIGTERM, raised in the main thread so `finally` blocks (temp files, worker pools) run."""


_STOPS: list[int] = []   # signals on_sigterm received that the command has not yet finished with


def on_sigterm(signum: int, frame: object) -> None:
    """The SIGTERM handler of a command: remember the stop, then raise it (where it may be dropped)."""
    _STOPS.append(signum)
    raise Terminated()


def raise_if_stopped() -> None:
    """Raise Terminated when a SIGTERM arrived, whether or not its first exception survived."""
    if _STOPS:
        raise Terminated()


def forget_stops() -> None:
    """For a caller that runs several commands in one process: the next one starts unstopped."""
    _STOPS.clear()

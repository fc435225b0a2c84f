"""Worker process pools that never outlive the command that started them.

`process_pool(n)` is a ProcessPoolExecutor whose workers
  - die with their parent: Linux's PR_SET_PDEATHSIG sends them SIGKILL when the parent dies,
    even by kill -9 (no orphans holding the caller's pipes open);
  - ignore Ctrl-C: the terminal sends SIGINT to the whole process group, and the parent alone
    decides (it stops the pool and exits 130), so workers print no KeyboardInterrupt tracebacks;
  - are killed at once when the `with` block ends by an exception (Ctrl-C, SIGTERM, an error in
    another worker), instead of being waited for until their current task ends.
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import os
import signal
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from typing import Any

PR_SET_PDEATHSIG = 1   # linux/prctl.h


def signal_when_parent_dies(sig: int) -> bool:
    """Ask Linux to send `sig` to this process when its parent (strictly: the parent's thread that
    started it) ends; False where that cannot be asked (not Linux). Runs in the child, e.g. as preexec_fn."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_PDEATHSIG, sig) == 0
    except (OSError, AttributeError):
        return False


def terminate_with_parent() -> None:
    """preexec_fn for a long child command (serve's background build): SIGTERM when the parent dies,
    so the child cleans up its temporary files and stops instead of running on as an orphan."""
    signal_when_parent_dies(signal.SIGTERM)


def _die_with_parent(parent: int) -> None:
    if not signal_when_parent_dies(signal.SIGKILL):   # not Linux: the parent's own cleanup still kills the pool
        return
    if multiprocessing.get_start_method() == "fork" and os.getppid() != parent:
        os._exit(1)   # the parent died before the death signal was armed


def _start_worker(parent: int, initializer: Callable[..., Any] | None, initargs: tuple) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _die_with_parent(parent)
    if initializer is not None:
        initializer(*initargs)


@contextlib.contextmanager
def process_pool(workers: int, initializer: Callable[..., Any] | None = None,
                 initargs: tuple = ()) -> Iterator[ProcessPoolExecutor]:
    """A ProcessPoolExecutor for one `with` block (see the module doc for what it guarantees)."""
    pool = ProcessPoolExecutor(max_workers=workers, initializer=_start_worker,
                               initargs=(os.getpid(), initializer, initargs))
    try:
        yield pool
    except BaseException:
        kill(pool)
        raise
    pool.shutdown(wait=True)


def kill(pool: ProcessPoolExecutor) -> None:
    """Stop a pool now: kill its workers, drop queued work, and let its manager thread end.

    The join matters: a manager thread still running at interpreter exit races with
    concurrent.futures' own exit hook, which then writes to a closed pipe ("Exception ignored ...
    Bad file descriptor"). With the workers dead the join returns at once.
    """
    # ProcessPoolExecutor has no public handle on its processes; _processes is the {pid: Process}
    # map that shutdown() itself joins.
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        with contextlib.suppress(Exception):
            process.kill()
    pool.shutdown(wait=True, cancel_futures=True)

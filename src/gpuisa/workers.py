"""Worker process pools that never outlive the command that started them.

`process_pool(n)` is a ProcessPoolExecutor whose workers
  - die with their parent: Linux's PR_SET_PDEATHSIG sends them SIGKILL when the parent dies,
    even by kill -9 (no orphans holding the caller's pipes open);
  - ignore Ctrl-C: the terminal sends SIGINT to the whole process group, and the parent alone
    decides (it stops the pool and exits 130), so workers print no KeyboardInterrupt tracebacks;
  - are killed at once when the `with` block ends by an exception (Ctrl-C, SIGTERM, an error in
    another worker), instead of being waited for until their current task ends.

A pool checks for a SIGTERM whose exception was dropped (gpuisa.stopping) after each submit, where it may fork.
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import os
import signal
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any

from gpuisa.stopping import raise_if_stopped

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


_NICE = [0]   # niceness the workers of pools started from now on add to their own (lower_new_pools)


def lower_new_pools(nice: int) -> None:
    """Run the workers of pools started from now on at `nice` more than this process (0: as this process): a build
    whose critical path runs in a pool started earlier (the PTX verification) lets it have the CPU first, while the
    work that has time to spare (reading the AMD manuals, the LLVM tests, the syntax pages) takes what is left."""
    _NICE[0] = nice


def _start_worker(parent: int, initializer: Callable[..., Any] | None, initargs: tuple, nice: int = 0) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if nice:
        with contextlib.suppress(OSError):
            os.nice(nice)
    _die_with_parent(parent)
    if initializer is not None:
        initializer(*initargs)


class _Pool(ProcessPoolExecutor):
    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future:
        future = super().submit(fn, *args, **kwargs)
        raise_if_stopped()     # a submit may fork the workers, and a SIGTERM during the fork's hooks is dropped
        return future


@contextlib.contextmanager
def process_pool(workers: int, initializer: Callable[..., Any] | None = None,
                 initargs: tuple = ()) -> Iterator[ProcessPoolExecutor]:
    """A ProcessPoolExecutor for one `with` block (see the module doc for what it guarantees)."""
    pool = _Pool(max_workers=workers, initializer=_start_worker,
                 initargs=(os.getpid(), initializer, initargs, _NICE[0]))
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
    Bad file descriptor"), or keeps the process from exiting at all. With the workers dead the join
    returns at once, except when a worker died while sending its result: see _finish_torn_result.
    """
    # ProcessPoolExecutor has no public handle on its processes, manager thread or result queue;
    # these are the attributes shutdown() itself uses (it clears them, so they are taken first).
    manager = getattr(pool, "_executor_manager_thread", None)
    results = getattr(pool, "_result_queue", None)
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        with contextlib.suppress(Exception):
            _kill_with_children(process.pid)
    pool.shutdown(wait=False, cancel_futures=True)
    if manager is None:
        return
    manager.join(timeout=1.0)
    if manager.is_alive() and results is not None:
        _finish_torn_result(results, manager)
    if results is not None and not manager.is_alive():   # what shutdown(wait=True) closed: its pipe's descriptors
        results.close()


def _kill_with_children(pid: int) -> None:
    """SIGKILL a worker and the tools it is running (the PTX verification's ptxas runs would otherwise go on,
    orphaned, until their file is done). The worker is stopped first, so it starts no child while they are listed."""
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGSTOP)
    for child in _children(pid):
        with contextlib.suppress(OSError):
            os.kill(child, signal.SIGKILL)
    os.kill(pid, signal.SIGKILL)


def _children(pid: int) -> list[int]:
    """Child processes of `pid`, from each process's /proc/N/stat (Linux; none found elsewhere)."""
    out: list[int] = []
    try:
        names = os.listdir("/proc")
    except OSError:
        return out
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2:].split()   # after "pid (command name)": state, ppid, ...
        if len(fields) > 1 and int(fields[1]) == pid:
            out.append(int(name))
    return out


TORN_RESULT_LIMIT = 1 << 32   # bytes written at most to complete a torn result (a result is one pickle, < 4 GiB)
TORN_RESULT_SECONDS = 10.0    # how long kill() waits for the completed message to be read


def _finish_torn_result(results: Any, manager: threading.Thread) -> None:
    """A worker killed while writing a large result (the syntax pages' parse is tens of MB) leaves the manager
    thread blocked forever reading the rest of that message: the parent holds the pipe's write end too, so no
    end-of-file comes. Completing the message with zero bytes makes the read return; the pickle then fails to
    load, and the manager treats the pool as broken and ends (found by a SIGTERM 3 s into `gpuisa build`,
    which hung in this join; serve's stopped background builds hung the same way).

    The zeros are written by a daemon thread with blocking writes, so that this thread waits without holding the
    GIL and the manager reads at full speed; a manager blocked elsewhere never reads, and the daemon thread then
    stays blocked without keeping the process from exiting."""
    fd = os.dup(results._writer.fileno())   # its own descriptor: kill() may close the queue's while it writes

    def fill() -> None:
        chunk = bytes(1 << 20)
        written = 0
        try:
            while manager.is_alive() and written < TORN_RESULT_LIMIT:
                written += os.write(fd, chunk)
        except OSError:   # no reader left (the queue was closed): nothing to complete
            pass
        finally:
            os.close(fd)

    threading.Thread(target=fill, name="gpuisa-torn-result", daemon=True).start()
    manager.join(timeout=TORN_RESULT_SECONDS)

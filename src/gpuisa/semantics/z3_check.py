"""One way to run a z3 check that leaves Ctrl-C to Python.

While z3 solves it installs its own SIGINT handler and answers `unknown` ("interrupted from
keyboard") instead of letting Python raise KeyboardInterrupt. A build interrupted during a proof
therefore went on, and stored that `unknown` as an undecided mapping. `check` turns z3's answer
back into KeyboardInterrupt; where Python ignores SIGINT (pool workers, background jobs) or cannot
receive it (threads other than the main one), z3 is told not to take the signal at all.
"""

from __future__ import annotations

import signal
import threading
from typing import Any

INTERRUPTED = "interrupted from keyboard"   # z3's reason_unknown() after its own SIGINT handler ran


def _python_takes_ctrl_c() -> bool:
    return (threading.current_thread() is threading.main_thread()
            and signal.getsignal(signal.SIGINT) is signal.default_int_handler)


def check(solver: Any) -> Any:
    """`solver.check()`, except that a Ctrl-C during it raises KeyboardInterrupt as everywhere else."""
    import z3  # heavy: only when a proof runs

    if not _python_takes_ctrl_c():
        solver.set("ctrl_c", False)
    result = solver.check()
    if result == z3.unknown and solver.reason_unknown() == INTERRUPTED:
        raise KeyboardInterrupt
    return result

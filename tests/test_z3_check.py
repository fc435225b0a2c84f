"""Ctrl-C during a z3 proof stops the program, as it does everywhere else.

z3 installs its own SIGINT handler while it solves and answers `unknown` instead; the first test
proves that premise on the installed z3, the others that `z3_check.check` gives the signal back to
Python, and leaves it ignored where the process ignores it (pool workers, background jobs).
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time

PROGRAM = r"""
import signal, sys, z3
from gpuisa.semantics.z3_check import check
if sys.argv[2] == "ignore":
    signal.signal(signal.SIGINT, signal.SIG_IGN)
x, y = z3.BitVecs("x y", 256)
s = z3.Solver()
s.set("timeout", int(sys.argv[3]))
# factoring a product of two 128-bit primes: far beyond the few seconds these tests wait
p, q = 340282366920938463463374607431768211297, 340282366920938463463374607431768211283
s.add(x * y == p * q, z3.ULT(x, 2**128), z3.ULT(y, 2**128), x > 1, y > 1)
print("solving", flush=True)
try:
    r = s.check() if sys.argv[1] == "raw" else check(s)
    print("answer", r, s.reason_unknown() if r == z3.unknown else "", flush=True)
except KeyboardInterrupt:
    print("KeyboardInterrupt", flush=True)
"""


def ctrl_c_while_solving(how: str, handler: str, timeout_ms: int) -> list[str]:
    """Run PROGRAM with SIGINT at its default (as a terminal's foreground job has it), send Ctrl-C once it solves."""
    proc = subprocess.Popen([sys.executable, "-c", PROGRAM, how, handler, str(timeout_ms)],
                            stdout=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "solving"
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=120)
    return out.split("\n")[0].split()


def test_premise_z3_swallows_ctrl_c_and_answers_unknown():
    assert ctrl_c_while_solving("raw", "default", 60_000) == ["answer", "unknown", "interrupted", "from", "keyboard"]


def test_check_turns_z3s_interruption_into_keyboard_interrupt():
    assert ctrl_c_while_solving("check", "default", 60_000) == ["KeyboardInterrupt"]


def test_where_python_ignores_ctrl_c_the_proof_runs_on():
    assert ctrl_c_while_solving("check", "ignore", 3_000) == ["answer", "unknown", "timeout"]

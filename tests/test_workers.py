"""workers.kill must return even when a worker dies while sending a large result (a SIGTERM 3 s into
`gpuisa build` hung there: the manager thread waited forever for the rest of the syntax pages' result)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent("""
    import os, sys, time
    from gpuisa.workers import kill, process_pool

    def large(n):
        return bytes(n)

    with process_pool(1) as pool:
        future = pool.submit(large, 256 << 20)
        # hold the GIL so that the manager thread reads the result slowly, then kill while it is mid-transfer
        manager = pool._executor_manager_thread
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not future.done():
            x = sum(range(20000))
            if pool._result_queue._reader.poll(0):   # the first bytes of the result have arrived
                break
        torn = not future.done()
        kill(pool)
        print("torn" if torn else "whole", "manager alive:", manager.is_alive(), flush=True)
        os._exit(0)
""")


def test_kill_returns_when_a_worker_dies_mid_result():
    """Premise: the kill happens while the 256 MB result is being transferred (else the test proves nothing);
    then kill() must return and leave no manager thread running."""
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    if not done.stdout.startswith("torn"):
        pytest.skip(f"the result arrived whole before the kill; nothing torn to test ({done.stdout.strip()})")
    assert done.stdout.strip() == "torn manager alive: False", done.stdout

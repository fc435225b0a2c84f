"""workers.kill must return even when a worker dies while sending a large result (a SIGTERM 3 s into
`gpuisa build` hung there: the manager thread waited forever for the rest of the syntax pages' result)."""

from __future__ import annotations

import os
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


# A SIGTERM delivered while CPython runs an at-fork hook: the handler's exception is printed as "Exception ignored"
# and dropped (it happened 1 in 4 times to a SIGTERM 3 s into `gpuisa build`, which then went on as if never stopped).
SIGTERM_IN_FORK_HOOK = textwrap.dedent("""
    import os, signal
    sent = []
    def sigterm_once():
        if not sent:
            sent.append(1)
            os.kill(os.getpid(), signal.SIGTERM)   # its handler runs in this hook, where its exception is lost
    os.register_at_fork(after_in_parent=sigterm_once)
""")


def test_a_sigterm_dropped_in_an_at_fork_hook_still_stops_the_pool():
    script = SIGTERM_IN_FORK_HOOK + textwrap.dedent("""
        from gpuisa.stopping import Terminated, on_sigterm
        from gpuisa.workers import process_pool
        signal.signal(signal.SIGTERM, on_sigterm)
        try:
            with process_pool(1) as pool:
                pool.submit(int, "1").result()
            print("went on", flush=True)
        except Terminated:
            print("stopped", flush=True)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert "Exception ignored" in done.stderr and "Terminated" in done.stderr, done.stderr   # premise: it was dropped
    assert done.stdout.strip() == "stopped", (done.stdout, done.stderr)


def test_a_build_whose_sigterm_was_dropped_in_an_at_fork_hook_exits_143(tmp_path):
    """The whole command: `gpuisa build` forks its manual readers; the SIGTERM sent during the first fork's hooks
    loses its exception, and the build must still stop with 143 and keep no catalog."""
    from tests.browser.webfixtures import write_fixture_sources

    sources = write_fixture_sources(tmp_path / "sources")
    catalog = tmp_path / "catalog.sqlite"
    script = SIGTERM_IN_FORK_HOOK + textwrap.dedent(f"""
        from gpuisa.cli import main
        main(["build", "--no-verify", "--force", "--jobs", "2", "--sources", {str(sources)!r},
              "--catalog", {str(catalog)!r}])
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "GPUISA_CACHE": str(tmp_path / "cache")})
    assert "Exception ignored" in done.stderr, done.stderr       # premise: the handler's exception was dropped
    assert done.returncode == 143, done.stderr
    assert done.stderr.strip().splitlines()[-1] == "gpuisa: terminated"
    assert not catalog.exists()

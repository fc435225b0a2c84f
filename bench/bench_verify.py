"""Verified build and `serve` start: what the README's commands cost with the tools installed.

Measures, with a fresh tool cache (cold) and again with it filled (warm):
  - the default `gpuisa build` (llvm-mc + ptxas verification), against the same build with
    --no-verify as the peer (ratio: what verification adds);
  - `gpuisa serve` on a machine with no catalog: seconds from start to its first HTTP 200
    (it answers from an unverified catalog while verification runs in the background) and to
    the verified catalog replacing it.
Each build's CPU time (its own and its tools', from the OS's child accounting) is printed beside its wall
time: on a shared machine the wall time says as much about the neighbours as about the build.
`--profile-warm FILE` runs the warm build under cProfile and writes FILE (read it with pstats).
Run: python bench/bench_verify.py [--sources DIR] [--skip-serve]. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from gpuisa import paths


def timed_build(sources: Path, catalog: Path, cache: Path, *extra: str, profile: Path | None = None
                ) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the build and the tools it ran)."""
    env = dict(os.environ, GPUISA_CACHE=str(cache))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    prefix = ["-m", "cProfile", "-o", str(profile)] if profile else []
    subprocess.run([sys.executable, *prefix, "-m", "gpuisa", "build", "--sources", str(sources), "--catalog",
                    str(catalog), *extra], check=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve_start(sources: Path, folder: Path, cache: Path, limit: float = 1800,
                first_only: bool = False) -> tuple[float, float | None]:
    """(seconds to the first 200, seconds until the catalog says verified) for a serve with no catalog
    (`first_only`: stop at the first 200, the verified time is then None)."""
    catalog = folder / "serve.sqlite"
    port = free_port()
    env = dict(os.environ, GPUISA_CACHE=str(cache))
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "gpuisa", "serve", "--sources", str(sources), "--catalog",
                             str(catalog), "--port", str(port)], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    first = verified = None
    try:
        while time.perf_counter() - t0 < limit and verified is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/archs", timeout=5) as r:
                    if r.status == 200 and first is None:
                        first = time.perf_counter() - t0
            except OSError:
                pass
            if first is not None and first_only:
                break
            if first is not None:
                from gpuisa.commands.web import verification_state

                states = {v.get("state") for v in verification_state(catalog).values()}
                if states and "pending" not in states:
                    verified = time.perf_counter() - t0
            time.sleep(0.5)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    return first or float("nan"), verified


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sources", type=Path, default=paths.default_sources())
    ap.add_argument("--skip-serve", action="store_true")
    ap.add_argument("--serve-first-only", action="store_true",
                    help="time serve to its first answer only, not to its verified catalog")
    ap.add_argument("--profile-warm", type=Path, default=None, help="cProfile the warm build into this file")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        cache = folder / "cache"
        plain, plain_cpu = timed_build(args.sources, folder / "plain.sqlite", folder / "cache-plain", "--no-verify")
        cold, cold_cpu = timed_build(args.sources, folder / "cold.sqlite", cache)
        warm, warm_cpu = timed_build(args.sources, folder / "warm.sqlite", cache, profile=args.profile_warm)
        print(f"build --no-verify (peer): {plain:.1f} s (CPU {plain_cpu:.1f} s)")
        print(f"build (verified), cold tool cache: {cold:.1f} s, CPU {cold_cpu:.1f} s ({cold / plain:.2f}x the peer)")
        print(f"build (verified), warm tool cache: {warm:.1f} s, CPU {warm_cpu:.1f} s ({warm / plain:.2f}x the peer)")
        if not args.skip_serve:
            first, verified = serve_start(args.sources, folder, folder / "cache-serve",
                                          first_only=args.serve_first_only)
            print(f"serve with no catalog, cold cache: first answer after {first:.1f} s; verified catalog served "
                  f"after {verified:.1f} s" if verified else f"serve: first answer after {first:.1f} s; "
                  "verification not finished within the limit")
        print(json.dumps({"cpus": os.cpu_count(), "load": os.getloadavg()}))


if __name__ == "__main__":
    main()

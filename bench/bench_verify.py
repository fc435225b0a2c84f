"""Verified build and `serve` start: what the README's commands cost with the tools installed.

Measures, with a fresh tool cache (cold) and again with it filled (warm):
  - the default `gpuisa build` (llvm-mc + ptxas verification), against the same build with
    --no-verify as the peer (ratio: what verification adds);
  - `gpuisa serve` on a machine with no catalog: seconds from start to its first HTTP 200
    (it answers from an unverified catalog while verification runs in the background) and to
    the verified catalog replacing it.
Each build's CPU time (its own and its tools', from the OS's child accounting) is printed beside its wall
time: on a shared machine the wall time says as much about the neighbours as about the build.
`--serve-only` is a new user's first `gpuisa serve` (fresh HOME and cache): its first page, what that page
says is pending, the swap to the verified catalog (seen on the page), the background build's stage times,
then a warm build on the caches it left.
`--profile-warm FILE` runs the warm build under cProfile and writes FILE (read it with pstats).
Run: python bench/bench_verify.py [--sources DIR] [--skip-serve | --serve-only]. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import re
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
                first_only: bool = False) -> tuple[float, float | None, str]:
    """(seconds to the first 200, seconds until the served page no longer says verification is pending,
    what the first page said) for a serve with no catalog and a fresh HOME (`first_only`: stop at the
    first 200, the verified time is then None)."""
    catalog = folder / "serve.sqlite"
    port = free_port()
    home = folder / "serve-home"
    home.mkdir(exist_ok=True)
    env = dict(os.environ, GPUISA_CACHE=str(cache), HOME=str(home), XDG_DATA_HOME=str(home / "share"))
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "gpuisa", "serve", "--sources", str(sources), "--catalog",
                             str(catalog), "--port", str(port)], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    first = verified = None
    said = ""
    try:
        while time.perf_counter() - t0 < limit and verified is None:
            try:     # the served page itself, so the swap is seen as a user sees it
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/amd/cdna3/v_sad_u32", timeout=30) as r:
                    page = r.read().decode()
                if first is None:
                    first = time.perf_counter() - t0
                    said = "; ".join(re.findall(r'class="verification-note"[^>]*>([^<]*)', page))
                if first_only:
                    break
                if "verification-note" not in page:
                    verified = time.perf_counter() - t0
            except OSError:
                pass
            time.sleep(1)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    return first or float("nan"), verified, said


def stage_line(log: Path) -> str:
    """The stage times the background build printed (wall / CPU per stage)."""
    try:
        text = " ".join(log.read_text(errors="replace").split())
    except OSError:
        return ""
    m = re.search(r"stages \(wall / CPU s[^:]*\): (.*?)(?= \d+ instructions, catalog)", text)
    return m.group(1) if m else ""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sources", type=Path, default=paths.default_sources())
    ap.add_argument("--skip-serve", action="store_true")
    ap.add_argument("--serve-only", action="store_true",
                    help="only serve from a fresh HOME (first answer, swap to the verified catalog), then a warm build")
    ap.add_argument("--serve-first-only", action="store_true",
                    help="time serve to its first answer only, not to its verified catalog")
    ap.add_argument("--profile-warm", type=Path, default=None, help="cProfile the warm build into this file")
    args = ap.parse_args()
    print(json.dumps({"cpus": os.cpu_count(), "load at start": os.getloadavg()}))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        cache = folder / "cache"
        if not args.serve_only:
            plain, plain_cpu = timed_build(args.sources, folder / "plain.sqlite", folder / "cache-plain", "--no-verify")
            cold, cold_cpu = timed_build(args.sources, folder / "cold.sqlite", cache)
            warm, warm_cpu = timed_build(args.sources, folder / "warm.sqlite", cache, profile=args.profile_warm)
            print(f"build --no-verify (peer): {plain:.1f} s (CPU {plain_cpu:.1f} s)")
            print(f"build (verified), cold tool cache: {cold:.1f} s, CPU {cold_cpu:.1f} s ({cold / plain:.2f}x the peer)")
            print(f"build (verified), warm tool cache: {warm:.1f} s, CPU {warm_cpu:.1f} s ({warm / plain:.2f}x the peer)")
        if not args.skip_serve:
            serve_cache = folder / "cache-serve"
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            first, verified, said = serve_start(args.sources, folder, serve_cache, first_only=args.serve_first_only)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            print(f"serve with no catalog, fresh HOME and cache: first answer after {first:.1f} s; it said: {said}")
            print(f"  verified catalog served after {verified:.1f} s (serve and its builds: CPU {cpu:.1f} s)"
                  if verified else "  verification not finished within the limit")
            print(f"  background build stages (wall/CPU s): {stage_line(folder / 'serve.sqlite.verify.log')}")
            print(json.dumps({"load after serve": os.getloadavg()}))
            if args.serve_only and verified:
                warm, warm_cpu = timed_build(args.sources, folder / "warm.sqlite", serve_cache,
                                             profile=args.profile_warm)
                print(f"build (verified) after that, warm caches: {warm:.1f} s, CPU {warm_cpu:.1f} s")
        print(json.dumps({"cpus": os.cpu_count(), "load": os.getloadavg()}))


if __name__ == "__main__":
    main()

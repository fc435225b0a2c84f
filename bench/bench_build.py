"""Catalog speed: full build (wall, peak RSS), `gpuisa show` cold start, `search` latency.

Run: python bench/bench_build.py [--sources DIR]. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from gpuisa import paths
from gpuisa.build import build
from gpuisa.catalog import merge
from gpuisa.catalog.query import Catalog
from gpuisa.sources.read import read_amd_manuals


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sources", type=Path, default=paths.default_sources())
    ap.add_argument("--runs", type=int, default=10)
    args = ap.parse_args()
    t0 = time.perf_counter()
    manuals = read_amd_manuals(args.sources, jobs=2)
    merge.merge(manuals)
    print(f"twelve AMD manuals read and merged: {time.perf_counter() - t0:.2f} s wall")
    del manuals
    with tempfile.TemporaryDirectory() as tmp:
        target = Path(tmp) / "catalog.sqlite"
        t0 = time.perf_counter()
        report = build(args.sources, target, None, jobs=2, verify=False)
        wall = time.perf_counter() - t0
        self_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        child_rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        print(f"full build (manuals, LLVM tests, PTX manual, equivalents; no --verify): {wall:.2f} s wall, "
              f"{report.instructions} AMD instructions, "
              f"peak RSS {self_rss:.0f} MiB (main) / {child_rss:.0f} MiB (largest worker), "
              f"catalog {target.stat().st_size / 2**20:.1f} MiB")

        cold = []
        for _ in range(args.runs):
            t = time.perf_counter()
            subprocess.run([sys.executable, "-m", "gpuisa", "show", "v_sad_u32", "--catalog", str(target)],
                           check=True, capture_output=True)
            cold.append(time.perf_counter() - t)
        base = []
        for _ in range(args.runs):
            t = time.perf_counter()
            subprocess.run([sys.executable, "-c", "pass"], check=True)
            base.append(time.perf_counter() - t)
        c, b = statistics.median(cold), statistics.median(base)
        print(f"show cold start: median {c * 1000:.0f} ms (bare python start {b * 1000:.0f} ms, ratio {c / b:.1f}x)")

        cat = Catalog(target)
        queries = ["v_sad_u32", "sad", "absolute difference", "v_mov", "carry", "s_load", "fma f32", "buffer_load",
                   "clamp", "v_lshl_add_u64"]
        lat = []
        for _ in range(20):
            for q in queries:
                t = time.perf_counter()
                cat.search(q, limit=20)
                lat.append(time.perf_counter() - t)
        lat.sort()
        print(f"search: median {statistics.median(lat) * 1000:.2f} ms, p95 {lat[int(len(lat) * 0.95)] * 1000:.2f} ms "
              f"over {len(lat)} queries")
        t = time.perf_counter()
        for _ in range(200):
            cat.show("v_sad_u32")
        print(f"show (warm, in-process): {(time.perf_counter() - t) / 200 * 1000:.2f} ms per page document")


if __name__ == "__main__":
    main()

"""Benchmark: verifying the PTX ISA 9.4 manual with ptxas, cold (empty cache) and warm (cached).

Usage: python bench/bench_ptx_verify.py [--sections 9.7.1.5,9.7.1.8] [--no-sass] [--workers N]

Prints the forms, the share ptxas verified, the number of ptxas and cuobjdump runs, and the cold
and warm wall times; the warm run should run no tool at all (ratio cold/warm is the cache's worth).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from gpuisa.paths import default_sources
from gpuisa.sources.ptx_docs import read_manual
from gpuisa.verify.ptx_tools import find_tools
from gpuisa.verify.ptxas import SASS_TARGETS, verify_manual


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sources", type=Path, default=default_sources())
    ap.add_argument("--sections", default="", help="comma-separated section numbers (default: all)")
    ap.add_argument("--no-sass", action="store_true", help="skip the cuobjdump stage")
    ap.add_argument("--workers", type=int, default=None)
    args = ap.parse_args()
    tools = find_tools()
    if tools.ptxas is None:
        print("ptxas not found: pip install nvidia-cuda-nvcc==13.5.37 (or set $GPUISA_PTXAS)")
        return 1
    t0 = time.perf_counter()
    manual = read_manual(args.sources / "ptx-isa-9.4")
    read_s = time.perf_counter() - t0
    sections = [s for s in args.sections.split(",") if s] or None
    sass = () if args.no_sass else SASS_TARGETS
    with tempfile.TemporaryDirectory(prefix="gpuisa-bench-") as tmp:
        cache = Path(tmp)
        t0 = time.perf_counter()
        cold = verify_manual(manual, sections=sections, cache=cache, sass_targets=sass, workers=args.workers)
        cold_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        warm = verify_manual(manual, sections=sections, cache=cache, sass_targets=sass, workers=args.workers)
        warm_s = time.perf_counter() - t0
    docs = [v for v in cold.verdicts.values() if v.documented]
    ok = sum(v.status == "verified" for v in docs)
    print(f"tool            {cold.tool}")
    print(f"read manual     {read_s:8.2f} s  ({len(manual.instructions)} sections)")
    print(f"forms           {len(docs)} documented, {ok} verified ({100 * ok / max(1, len(docs)):.1f}%), "
          f"{len(cold.undocumented_forms)} undocumented accepted, {len(cold.errata)} errata")
    print(f"cold            {cold_s:8.2f} s  ptxas runs {cold.ptxas_calls}, cuobjdump runs {cold.cuobjdump_calls}")
    print(f"warm (cached)   {warm_s:8.2f} s  ptxas runs {warm.ptxas_calls}, cache hits {warm.cache_hits}")
    print(f"cold / warm     {cold_s / max(warm_s, 1e-9):8.1f} x")
    return 0


if __name__ == "__main__":
    sys.exit(main())

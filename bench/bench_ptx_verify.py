"""Benchmark: verifying the PTX ISA 9.4 manual with ptxas, cold (empty cache) and warm (cached).

Usage: python bench/bench_ptx_verify.py [--sections 9.7.1.5,9.7.1.8] [--no-sass] [--workers N]

Prints the forms, the share ptxas verified, the number of ptxas and cuobjdump runs, and the cold
and warm wall times; the warm run should run no tool at all (ratio cold/warm is the cache's worth),
and a run over another form list (one section fewer), which ptxas's answers kept per line serve.
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path

from gpuisa.paths import default_sources
from gpuisa.sources.ptx_docs import read_manual
from gpuisa.verify.ptx_tools import find_tools
from gpuisa.verify.ptxas import SASS_TARGETS, verify_manual


def _cpu() -> float:
    """CPU seconds of this process and the tools it ran (the machine's load does not count)."""
    own, tools = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + tools.ru_utime + tools.ru_stime


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
        t0, cpu0 = time.perf_counter(), _cpu()
        cold = verify_manual(manual, sections=sections, cache=cache, sass_targets=sass, workers=args.workers)
        cold_s, cold_cpu = time.perf_counter() - t0, _cpu() - cpu0
        t0 = time.perf_counter()
        warm = verify_manual(manual, sections=sections, cache=cache, sass_targets=sass, workers=args.workers)
        warm_s = time.perf_counter() - t0
        # another form list (the last section left out): a new whole result, the same lines per line
        kept = sections or [i.section for i in manual.instructions]
        t0 = time.perf_counter()
        changed = verify_manual(manual, sections=kept[:-1] or kept, cache=cache, sass_targets=sass,
                                workers=args.workers)
        changed_s = time.perf_counter() - t0
    docs = [v for v in cold.verdicts.values() if v.documented]
    ok = sum(v.status == "verified" for v in docs)
    print(f"tool            {cold.tool}")
    print(f"read manual     {read_s:8.2f} s  ({len(manual.instructions)} sections)")
    print(f"forms           {len(docs)} documented, {ok} verified ({100 * ok / max(1, len(docs)):.1f}%), "
          f"{len(cold.undocumented_forms)} undocumented accepted, {len(cold.errata)} errata")
    print(f"cold            {cold_s:8.2f} s  ({cold_cpu:.0f} CPU s)  ptxas runs {cold.ptxas_calls}, "
          f"cuobjdump runs {cold.cuobjdump_calls}")
    print(f"warm (cached)   {warm_s:8.2f} s  ptxas runs {warm.ptxas_calls}, cache hits {warm.cache_hits}")
    print(f"forms changed   {changed_s:8.2f} s  ptxas runs {changed.ptxas_calls} (answers kept per line)")
    print(f"cold / warm     {cold_s / max(warm_s, 1e-9):8.1f} x")
    print(f"cold / changed  {cold_s / max(changed_s, 1e-9):8.1f} x")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""LLVM evidence layer speed: reading the whole MC test corpus, and verifying lines with llvm-mc.

Run: python bench/bench_llvm_corpus.py [--sources DIR] [--lines N] [--processes P]
Prints figures; asserts nothing.

- corpus: wall time and peak RSS (resource.getrusage) of llvm_mc.read_corpus, examples and
  negatives, examples per target, skip counts by reason;
- llvm-mc: N distinct example lines of one target assembled through gpuisa.verify.llvm_mc.assemble
  with an empty cache (cold) and again (warm), against running llvm-mc directly on the same input
  (the peer: one process, no parsing, no cache).
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from gpuisa import paths
from gpuisa.sources import llvm_mc
from gpuisa.sources.layout import LLVM_TREE


def peak_rss_mb() -> float:
    """Peak resident set of this process and of finished children (worker processes), in MiB."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return own / 1024, kids / 1024


def bench_corpus(sources: Path, processes: int | None) -> llvm_mc.McCorpus:
    t0 = time.perf_counter()
    corpus = llvm_mc.read_corpus(sources, processes=processes)
    wall = time.perf_counter() - t0
    own, kids = peak_rss_mb()
    by_dir = Counter(e.direction for e in corpus.examples)
    print(f"corpus: {corpus.files} files read in {wall:.2f} s "
          f"(processes={processes or 'auto'}), peak RSS {own:.0f} MiB (+ workers {kids:.0f} MiB)")
    print(f"  examples {len(corpus.examples)} (asm {by_dir['asm']}, disasm {by_dir['disasm']}), "
          f"negatives {len(corpus.negatives)} "
          f"(not supported: {sum(n.not_supported for n in corpus.negatives)})")
    print(f"  check lines {corpus.check_lines}, with encodings {corpus.encoding_lines}, "
          f"encoding lines skipped {corpus.encoding_skips.total()} "
          f"({100 * corpus.encoding_skips.total() / max(corpus.encoding_lines, 1):.3f} %)")
    print("examples per target:")
    for target, n in sorted(corpus.examples_per_target().items(), key=lambda kv: -kv[1]):
        print(f"  {target:16} {n:8d}")
    print("skips by reason:")
    print("\n".join("  " + line for line in llvm_mc.skip_report(corpus).splitlines()[1:]))
    return corpus


def bench_llvm_mc(corpus: llvm_mc.McCorpus, target: str, n: int, repeat: int = 5) -> None:
    from gpuisa.verify import llvm_mc as verify

    try:
        tool = verify.find_llvm_mc()
    except verify.LlvmMcMissing as exc:
        print(f"llvm-mc: verification skipped: {exc}")
        return
    lines = list(dict.fromkeys(e.asm for e in corpus.examples
                               if target in e.targets and e.direction == "asm" and "\n" not in e.asm))[:n]
    cold_t, warm_t, direct_t = [], [], []
    for _ in range(repeat):                      # best of `repeat`: the machine may be shared
        with tempfile.TemporaryDirectory() as tmp:
            cache = verify.McCache(Path(tmp) / "bench.sqlite")
            t0 = time.perf_counter()
            cold = verify.assemble(lines, target, tool=tool, cache=cache)
            t1 = time.perf_counter()
            warm = verify.assemble(lines, target, tool=tool, cache=cache)
            t2 = time.perf_counter()
            cache.close()
        t3 = time.perf_counter()
        subprocess.run(verify.mc_command(tool, target), input="\n".join(lines) + "\n",
                       capture_output=True, text=True, check=False)
        direct_t.append(time.perf_counter() - t3)
        cold_t.append(t1 - t0)
        warm_t.append(t2 - t1)
    cold_s, warm_s, direct = min(cold_t), min(warm_t), min(direct_t)
    ok = sum(r.ok for r in cold)
    assert cold == warm
    print(f"llvm-mc ({tool.label}, {target}): {len(lines)} lines, {ok} assembled, best of {repeat}")
    print(f"  direct llvm-mc   {direct * 1000:8.1f} ms")
    print(f"  gpuisa cold      {cold_s * 1000:8.1f} ms  ({cold_s / direct:.2f}x direct)")
    print(f"  gpuisa warm      {warm_s * 1000:8.1f} ms  ({warm_s / direct:.2f}x direct, "
          f"{cold_s / max(warm_s, 1e-9):.1f}x faster than cold)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sources", type=Path, default=paths.default_sources())
    ap.add_argument("--processes", type=int, default=None, help="reader processes (default: CPUs)")
    ap.add_argument("--lines", type=int, default=5000, help="lines to verify with llvm-mc")
    ap.add_argument("--target", default="gfx1100")
    args = ap.parse_args()
    if not (args.sources / LLVM_TREE).is_dir():
        sys.exit(f"no {LLVM_TREE} under {args.sources}; run `gpuisa fetch` or pass --sources")
    corpus = bench_corpus(args.sources, args.processes)
    bench_llvm_mc(corpus, args.target, args.lines)


if __name__ == "__main__":
    main()

"""Cold and warm Rosetta discovery on every Rosetta arch (issue 13: cold <= 20 min on 2 cores, warm <= 10 s), on a
stratified sample of the forms (the same share of each chapter), read from the manuals (no catalog). The cold run
starts from an empty cache with the build's workers (crossref.discovery.discover_all, `--jobs` processes);
its CPU (this process and the workers) scaled by forms / sampled forms estimates a full cold run. The peer is the
same script run against another checkout (`--peer-src`: the code before a change), on the same sample.

    python bench/bench_rosetta_all.py [--fraction 0.02] [--jobs 2] [--peer-src ../old/src] [--json]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SOURCES = Path(__file__).resolve().parents[2] / "shared" / "sources"


def _cpu() -> float:
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def measure(sources: Path, fraction: float, jobs: int, rows_out: Path | None = None) -> dict[str, object]:
    from gpuisa.crossref.discovery import ROSETTA_ARCHS, decided, discover_all, forms_in_chapters, in_coverage
    from gpuisa.sources.read import ManualTexts, read_ptx_manual

    ptx = read_ptx_manual(sources)
    texts = ManualTexts(sources=sources, ptx=ptx)
    for arch in ROSETTA_ARCHS:            # the manuals read before the clock starts (a build has read them)
        texts.instruction_docs(arch)
    by: dict[str, list] = {}
    for ref in forms_in_chapters(ptx.instructions):
        by.setdefault(ref.chapter, []).append(ref)
    rng = random.Random(13)
    forms = [f for refs in by.values() for f in rng.sample(refs, max(1, math.ceil(len(refs) * fraction)))]
    total = sum(len(v) for v in by.values())
    cache = Path(tempfile.mkdtemp(prefix="rosetta-all-")) / "rosetta-proofs.json"
    load = os.getloadavg()[0]
    t0, c0 = time.perf_counter(), _cpu()
    cold = discover_all(ROSETTA_ARCHS, forms, texts, cache, jobs=jobs)
    cold_wall, cold_cpu = time.perf_counter() - t0, _cpu() - c0
    t0 = time.perf_counter()
    warm = discover_all(ROSETTA_ARCHS, forms, texts, cache, jobs=jobs)
    warm_wall = time.perf_counter() - t0
    rows = [r for o in cold.values() for r in o["rows"] if in_coverage(r)]
    if rows_out is not None:          # the cold rows by form@arch, to compare two checkouts' answers
        rows_out.write_text(json.dumps({f"{r['form']}@{r['arch']}": r for o in cold.values() for r in o["rows"]},
                                       default=str, indent=0))
    return {"archs": list(ROSETTA_ARCHS), "jobs": jobs, "forms": len(forms), "forms_total": total,
            "load_at_start": round(load, 1), "load_at_end": round(os.getloadavg()[0], 1),
            "cold_wall_s": round(cold_wall, 1), "cold_cpu_s": round(cold_cpu, 1),
            "cold_cpu_s_all_forms_estimate": round(cold_cpu * total / len(forms)),
            "cold_wall_s_all_forms_on_jobs_cores_estimate": round(cold_cpu * total / len(forms) / jobs),
            "warm_wall_s": round(warm_wall, 2), "warm_all_cached": all(o["cached"] for o in warm.values()),
            "warm_wall_s_all_forms_estimate": round(warm_wall * total / len(forms), 1),
            "decided": sum(decided(r) for r in rows), "rows": len(rows),
            "cold_s_by_arch": {a: o["seconds"] for a, o in cold.items()}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sources", type=Path, default=SOURCES)
    ap.add_argument("--fraction", type=float, default=0.02, help="share of each chapter's forms (1: all)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--peer-src", type=Path, default=None, help="another checkout's src/ run on the same sample")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--rows-out", type=Path, default=None, help="write the cold rows (JSON, by form@arch) here; "
                                                               "the peer's go to the same name with .peer before it")
    args = ap.parse_args()
    out = {"this": measure(args.sources, args.fraction, args.jobs, args.rows_out)}
    if args.peer_src is not None:
        env = dict(os.environ, PYTHONPATH=str(args.peer_src.resolve()))
        cmd = [sys.executable, __file__, "--sources", str(args.sources), "--fraction", str(args.fraction),
               "--jobs", str(args.jobs), "--json"]
        if args.rows_out is not None:
            cmd += ["--rows-out", str(args.rows_out.with_suffix(".peer" + args.rows_out.suffix))]
        out["peer"] = json.loads(subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout)["this"]
        out["cold_cpu_ratio_this_vs_peer"] = round(out["this"]["cold_cpu_s"] / max(out["peer"]["cold_cpu_s"], 1e-9), 2)
    print(json.dumps(out, indent=1) if args.json else "\n".join(f"{k}: {v}" for k, v in out.items()))


if __name__ == "__main__":
    main()

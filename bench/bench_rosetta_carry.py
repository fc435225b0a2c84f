"""What carrying evidence across archs saves: the Rosetta discovery of a sample of forms on one arch from an empty
cache (the peer), then on the next arch of its family in the same worker (screen memo and proofs carried by
pseudocode fingerprint), then warm (fingerprints only). Reads the manuals directly (no catalog).

    python bench/bench_rosetta_carry.py [--sample N] [--chain cdna3,cdna4] [--decide-only] [--json]
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from pathlib import Path

SOURCES = Path(__file__).resolve().parents[2] / "shared" / "sources"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sources", type=Path, default=SOURCES)
    ap.add_argument("--sample", type=int, default=8, help="forms per chapter (0: every form)")
    ap.add_argument("--chain", default="cdna3,cdna4", help="archs in the order one worker runs them")
    ap.add_argument("--decide-only", action="store_true", help="only whether each row is decided (coverage runs)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()

    from gpuisa.crossref.discovery import decided, discover_arch, forms_in_chapters, in_coverage
    from gpuisa.sources.read import ManualTexts, read_ptx_manual

    ptx = read_ptx_manual(args.sources)
    texts = ManualTexts(sources=args.sources, ptx=ptx)
    by: dict[str, list] = {}
    for ref in forms_in_chapters(ptx.instructions):
        by.setdefault(ref.chapter, []).append(ref)
    rng = random.Random(13)
    forms = [f for refs in by.values() for f in (rng.sample(refs, min(args.sample, len(refs))) if args.sample else refs)]
    cache = Path(tempfile.mkdtemp(prefix="rosetta-carry-")) / "rosetta-proofs.json"
    out: dict[str, object] = {"forms": len(forms), "decide_only": args.decide_only}
    for arch in args.chain.split(","):
        t0, c0 = time.perf_counter(), time.process_time()
        found = discover_arch(arch, forms, texts, cache, decide_only=args.decide_only)
        rows = [r for r in found["rows"] if in_coverage(r)]
        out[arch] = {"wall_s": round(time.perf_counter() - t0, 1), "cpu_s": round(time.process_time() - c0, 1),
                     "decided": sum(decided(r) for r in rows), "rows": len(rows)}
    first, *rest = args.chain.split(",")
    for arch in rest:
        out[f"{arch}_vs_{first}_cpu"] = round(out[arch]["cpu_s"] / max(out[first]["cpu_s"], 1e-9), 2)
    if not args.decide_only:
        t0 = time.perf_counter()
        for arch in args.chain.split(","):
            discover_arch(arch, forms, texts, cache)
        out["warm_s"] = round(time.perf_counter() - t0, 2)
    print(json.dumps(out, indent=1) if args.json else "\n".join(f"{k}: {v}" for k, v in out.items()))


if __name__ == "__main__":
    main()

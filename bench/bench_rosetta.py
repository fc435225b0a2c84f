"""Speed of the Rosetta: cold discovery of every Rosetta arch (an empty cache), warm discovery (fingerprints
only), and `gpuisa port` of a 1,000-line PTX body, warm. The peer for port is reading the same text with the
language server's PTX reader alone (lsp.asm_text.read): the ratio is what mapping costs on top of parsing.

Targets (issue 13): cold <= 20 min on 2 cores, warm <= 10 s, port of 1,000 lines <= 2 s warm.

    python bench/bench_rosetta.py --catalog CAT [--jobs 2] [--cache DIR] [--skip-cold] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

KERNEL = Path(__file__).resolve().parents[1] / "tests" / "data" / "port_kernel.ptx"


def _body(lines: int) -> str:
    """The test kernel's instruction lines repeated to `lines` lines."""
    code = [ln for ln in KERNEL.read_text().splitlines() if ln.strip().endswith(";") and not ln.strip().startswith(".")]
    return "\n".join(code[i % len(code)] for i in range(lines)) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--catalog", type=Path, required=True)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--cache", type=Path, default=None, help="cache folder (default: a fresh temporary one)")
    ap.add_argument("--skip-cold", action="store_true", help="only the warm runs (the cache must be warm)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    os.environ["GPUISA_CACHE"] = str(args.cache or tempfile.mkdtemp(prefix="rosetta-bench-"))

    from gpuisa.catalog.query import Catalog
    from gpuisa.commands.port import port_text
    from gpuisa.commands.rosetta import rosetta_all
    from gpuisa.crossref.discovery import ROSETTA_ARCHS
    from gpuisa.lsp.asm_text import read

    cat = Catalog(args.catalog)
    out: dict[str, object] = {"archs": list(ROSETTA_ARCHS), "jobs": args.jobs}
    if not args.skip_cold:
        t0 = time.perf_counter()
        found = rosetta_all(cat, ROSETTA_ARCHS, jobs=args.jobs)
        out["cold_s"] = round(time.perf_counter() - t0, 1)
        out["coverage"] = {a: o["coverage"] for a, o in found.items()}
    t0 = time.perf_counter()
    found = rosetta_all(cat, ROSETTA_ARCHS, jobs=args.jobs)
    out["warm_s"] = round(time.perf_counter() - t0, 2)
    out["warm_all_cached"] = all(o["cached"] for o in found.values())
    body = _body(1000)
    port_text(cat, body, "cdna3")                       # warm the rows of the body's forms
    t0 = time.perf_counter()
    ported = port_text(cat, body, "cdna3")
    port_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    read("bench.ptx", body, "ptx")
    peer_s = time.perf_counter() - t0
    out["port_1000_lines_s"] = round(port_s, 3)
    out["port_vs_reader_ratio"] = round(port_s / max(peer_s, 1e-9), 1)
    out["port_lines"] = len(ported["lines"])
    if args.json:
        print(json.dumps(out, indent=1))
        return
    for k, v in out.items():
        if k != "coverage":
            print(f"{k}: {v}")
    for a, cov in (out.get("coverage") or {}).items():
        dec = sum(c["decided"] for c in cov.values())
        tot = sum(c["total"] for c in cov.values())
        print(f"{a}: {dec}/{tot} decided")


if __name__ == "__main__":
    main()

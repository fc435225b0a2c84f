"""Speed of the semantics layer: lane-ops/s on a 1M-lane wave against numpy doing the same
arithmetic directly (the ratio is the interpreter's overhead), and proof time per mapping.

    python bench/bench_semantics.py [--lanes N] [--no-proofs] [--json]
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable

import numpy as np

from gpuisa.paths import default_sources
from gpuisa.semantics.run import evaluate_wave, machine_for
from gpuisa.semantics.source import amd_semantics, resolver_for
from gpuisa.sources.read import ManualTexts

TEXTS = ManualTexts(sources=default_sources())   # the manuals' text, each read on first use

M32 = np.uint64(0xFFFFFFFF)


def _np_sad(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    return (np.where(a > b, a - b, b - a) + c) & M32


def _np_lshl_add_cdna5(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    s = b & np.uint64(7)
    s = np.where(s > 4, np.uint64(0), s)
    return (a << s) + c


def _np_bfe(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    return (a >> (b & np.uint64(31))) & ((np.uint64(1) << (c & np.uint64(31))) - np.uint64(1))


def _np_med3(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    return np.maximum(np.minimum(a, b), np.minimum(np.maximum(a, b), c))


def _np_fma(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    # numpy has no fma; float64 product + sum is the closest direct peer (it can double-round)
    x, y, z = (v.astype(np.uint32).view(np.float32).astype(np.float64) for v in (a, b, c))
    return (x * y + z).astype(np.float32)


CASES: list[tuple[str, str, Callable[..., np.ndarray], int]] = [
    ("v_sad_u32", "rdna3", _np_sad, 32),
    ("v_lshl_add_u64", "cdna5", _np_lshl_add_cdna5, 64),
    ("v_bfe_u32", "rdna3", _np_bfe, 32),
    ("v_med3_u32", "rdna3", _np_med3, 32),
    ("v_fma_f32", "rdna3", _np_fma, 32),
]


def _best(fn: Callable[[], object], reps: int) -> float:
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def bench_lanes(lanes: int, reps: int = 3) -> list[dict]:
    rng = np.random.default_rng(0)
    rows = []
    for name, arch, peer, width in CASES:
        sem = amd_semantics(name, arch, TEXTS)
        hi = 1 << min(width, 63)
        a, b, c = (rng.integers(0, hi, lanes, dtype=np.uint64) for _ in range(3))
        if name == "v_fma_f32":
            a, b, c = (rng.integers(0, 1 << 32, lanes, dtype=np.uint64) for _ in range(3))
        resolver, machine = resolver_for(arch, TEXTS), machine_for(arch)

        def run(sem=sem, a=a, b=b, c=c, resolver=resolver, machine=machine, name=name) -> object:
            return evaluate_wave(sem.text, {"S0": a, "S1": b, "S2": c}, sem.style, resolver=resolver,
                                 machine=machine, name=name)

        with np.errstate(all="ignore"):
            t_eval = _best(run, reps)
            t_np = _best(lambda peer=peer, a=a, b=b, c=c: peer(a, b, c), reps)
        rows.append({"instruction": name, "arch": arch, "lanes": lanes,
                     "lane_ops_per_s": round(lanes / t_eval), "numpy_lane_ops_per_s": round(lanes / t_np),
                     "ratio_vs_numpy": round(t_eval / t_np, 1), "eval_s": round(t_eval, 4), "numpy_s": round(t_np, 5)})
    return rows


def bench_proofs() -> dict:
    from gpuisa.crossref import compute_all_evidence

    data = compute_all_evidence(TEXTS, cache=None)
    return {"seconds": data["seconds"], "summary": data["summary"],
            "per_mapping": [{"key": r["key"], "kind": r["evidence"]["kind"], "time_s": r["evidence"]["time_s"]}
                            for r in data["mappings"]]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--lanes", type=int, default=1 << 20)
    ap.add_argument("--no-proofs", action="store_true")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    out: dict = {"lanes": bench_lanes(args.lanes)}
    if not args.no_proofs:
        out["proofs"] = bench_proofs()
    if args.json:
        print(json.dumps(out, indent=1))
        return
    print(f"{'instruction':<16}{'arch':<7}{'lane-ops/s':>14}{'numpy':>14}{'ratio':>8}")
    for r in out["lanes"]:
        print(f"{r['instruction']:<16}{r['arch']:<7}{r['lane_ops_per_s']:>14,}{r['numpy_lane_ops_per_s']:>14,}"
              f"{r['ratio_vs_numpy']:>8}")
    if "proofs" in out:
        p = out["proofs"]
        print(f"\nevidence for all mappings: {p['seconds']} s  {p['summary']}")
        for r in p["per_mapping"]:
            print(f"  {r['key']:<48}{r['kind']:<15}{r['time_s']:>8.2f} s")


if __name__ == "__main__":
    main()

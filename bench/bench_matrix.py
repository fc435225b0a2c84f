"""A 32x32x8 MFMA (v_mfma_f32_32x32x8_f16, cdna3) on 10,000 random matrix triples, batched, against
numpy's own float32 matmul on the same data: triples per second and the ratio (ours / numpy).

Ours rounds A and B to f16, multiplies in float64 and rounds once to f32 (semantics/matrix.py says why);
the peer is np.matmul(A32, B32) + C in float32 on the same f16 values. Also the register round trip
(matrices -> lanes -> matrices) per triple.

    python bench/bench_matrix.py [--triples 10000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from gpuisa.semantics import matrix as mx


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--triples", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    shape = mx.parse_name("v_mfma_f32_32x32x8_f16")
    rng = np.random.default_rng(0)
    n = args.triples
    a = rng.standard_normal((n, 32, 8)).astype(np.float16)
    b = rng.standard_normal((n, 8, 32)).astype(np.float16)
    c = rng.standard_normal((n, 32, 32)).astype(np.float32)
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    ours = best(lambda: mx.multiply(shape, a, b, c, arch="cdna3"), args.repeat)
    peer = best(lambda: np.matmul(a32, b32) + c, args.repeat)
    d = mx.multiply(shape, a, b, c, arch="cdna3")[:, 0]
    worst = float((np.abs(d.astype(np.float64) - (np.matmul(a32, b32) + c)) /
                   np.maximum(mx.accumulation_bound(shape, a, b, c), 1e-300)).max())
    raw = mx.encode_elements(a[:, None], "f16")
    lanes = best(lambda: [mx.from_registers(shape, "A", mx.to_registers(shape, "A", r, 16), 16)
                          for r in raw[:1000]], 1) * n / 1000
    print(f"v_mfma_f32_32x32x8_f16 x {n} triples: ours {ours * 1e3:.1f} ms ({n / ours:,.0f}/s), "
          f"numpy float32 matmul {peer * 1e3:.1f} ms ({n / peer:,.0f}/s), ratio {ours / peer:.2f}x")
    print(f"largest |ours - float32 matmul| / stated bound: {worst:.3f} (<= 1 means within the bound)")
    print(f"A register round trip, one triple at a time: {lanes * 1e3:.0f} ms for {n} ({n / lanes:,.0f}/s)")


if __name__ == "__main__":
    main()

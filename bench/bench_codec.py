"""Codec speed against llvm-mc 22 on the same input, and a long differential fuzzing run.

Run: python bench/bench_codec.py [--target gfx1100] [--words 100000] [--lines 100000] [--fuzz 1000000]
Prints ratios (llvm-mc time / codec time: >= 1.0 means the codec is faster) of wall-clock time and of
CPU time (user + system of the child process: on a loaded machine the wall ratio mostly measures the
load), with the load average at the start; asserts nothing.

- decode: the bytes of N corpus examples of one target, as one raw file. Codec: `gpuisa disasm
  --file` end to end (process start, tables from the cache, printing). Peer: `llvm-mc
  --disassemble` on the same bytes written as 0x.. text.
- encode: N corpus assembler lines of one target. Codec: `gpuisa asm --file`. Peer:
  `llvm-mc -show-encoding` on the same file.
- code object: a 1 MB .text built by llvm-mc -filetype=obj from corpus lines, decoded by `gpuisa disasm --file`.
- fuzz: N random instructions from the resolved encodings decoded by both (gpuisa.codec.fuzz), in
  chunks; mismatch classes with one case each go to bench/results/codec_fuzz_<target>.json.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from gpuisa import paths
from gpuisa.sources import llvm_mc

LLVM_MC = os.environ.get("GPUISA_LLVM_MC", "/usr/lib/llvm-22/bin/llvm-mc")
LLVM_OBJDUMP = str(Path(LLVM_MC).with_name("llvm-objdump"))
RESULTS = Path(__file__).resolve().parent / "results"


@dataclass(frozen=True)
class Timing:
    wall: float    # seconds
    cpu: float     # user + system seconds of the child

    def __str__(self) -> str:
        return f"{self.wall:.2f}s (cpu {self.cpu:.2f}s)"

    def ratio(self, ours: Timing) -> str:
        """This (the peer's) time over ours, wall and CPU."""
        return f"{self.wall / ours.wall:.2f} (cpu {self.cpu / max(ours.cpu, 1e-9):.2f})"


def timed(cmd: list[str], stdin: str | None = None) -> tuple[Timing, subprocess.CompletedProcess]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, input=stdin, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return Timing(wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime), proc


def corpus_examples(sources: Path, target: str) -> list:
    corpus = llvm_mc.read_corpus(sources)
    return [ex for ex in corpus.examples if target in ex.targets and ex.bytes
            and not any("+wavefrontsize64" in m for m in ex.mattrs)]


def bench_decode(examples: list, target: str, words: int, tmp: Path) -> None:
    data = bytearray()
    i = 0
    while len(data) < words * 4:
        data += examples[i % len(examples)].bytes
        i += 1
    raw = tmp / "code.bin"
    raw.write_bytes(bytes(data))
    text = "\n".join(" ".join(f"0x{b:02x}" for b in data[j:j + 16]) for j in range(0, len(data), 16)) + "\n"
    t_llvm, p = timed([LLVM_MC, "--disassemble", "-triple=amdgcn", f"-mcpu={target}"], text)
    t_ours, q = timed([sys.executable, "-m", "gpuisa", "disasm", "--target", target, "--file", str(raw)])
    n_llvm = sum(1 for ln in p.stdout.splitlines() if ln.startswith("\t"))
    n_ours = q.stdout.count("\n")
    print(f"decode {len(data) // 4} words ({target}): llvm-mc {t_llvm} ({n_llvm} instructions), "
          f"codec {t_ours} ({n_ours} lines, exit {q.returncode}); ratio llvm/codec {t_llvm.ratio(t_ours)} "
          f"(target >= 1.0)")
    # the same bytes decoded in this process (tables loaded): the decoder's own share of the time above
    from gpuisa.codec.decoder import decode_bytes
    from gpuisa.codec.tables import tables_for

    t0 = time.perf_counter()
    tables = tables_for(target)
    t1 = time.perf_counter()
    decoded = decode_bytes(bytes(data), target)
    t2 = time.perf_counter()
    print(f"  in process: tables {t1 - t0:.2f}s, decoding {len(decoded)} instructions "
          f"({len({d.data for d in decoded})} distinct) {t2 - t1:.2f}s; "
          f"start-up (interpreter, imports, output) {max(t_ours.wall - (t2 - t0), 0):.2f}s")
    bench_fast_path(tables, bytes(data))


def bench_fast_path(tables, data: bytes) -> None:
    """CPU seconds of decoding with and without codec/fastpath.py, and how many distinct instructions
    the fast path printed, declined (by encoding), and how many printer runs it made. The corpus this process
    holds is frozen out of the garbage collector first: its full collections walked that heap and charged
    the decoder that allocates more (the fast path) for it, which `gpuisa disasm` never holds."""
    import gc

    from gpuisa.codec.decoder import _Decoder

    gc.collect()
    gc.freeze()
    for fast in (False, True):
        dec = _Decoder(tables, fast=fast)
        tally = _FastTally(dec._fast) if fast else None
        c0, pos = time.process_time(), 0
        while pos < len(data):
            pos += max(len(dec.decode(data, pos).data), 1)
        cpu = time.process_time() - c0
        if tally is None:
            print(f"  general decoder alone: cpu {cpu:.2f}s")
        else:
            print(f"  with the fast path: cpu {cpu:.2f}s; it printed {tally.printed} distinct instructions and "
                  f"declined {sum(tally.declined.values())} ("
                  f"{', '.join(f'{k} {v}' for k, v in tally.declined.most_common(6))}); {dec._fast.misses} printer runs")
    gc.unfreeze()


class _FastTally:
    """Counts what a decoder's fast path prints and declines (wraps its render)."""

    def __init__(self, fast) -> None:
        from collections import Counter

        self.printed, self.declined, self._render = 0, Counter(), fast.render
        fast.render = self.render

    def render(self, lay, form, data, pos):
        got = self._render(lay, form, data, pos)
        if got is None:
            self.declined[form.encoding] += 1
        else:
            self.printed += 1
        return got


def bench_encode(examples: list, target: str, lines: int, tmp: Path) -> None:
    from gpuisa.codec.encoder import AsmError, _Encoder
    from gpuisa.codec.tables import tables_for

    # both assemblers get the same lines: those the codec encodes (`gpuisa asm` stops at its first error)
    enc = _Encoder(tables_for(target))
    src = []
    for ex in examples:
        if ex.direction == "asm" and ex.input:
            try:
                enc.encode_line(ex.input, 1)
            except AsmError:
                continue
            src.append(ex.input)
    ok_lines = []
    i = 0
    while len(ok_lines) < lines and src:
        ok_lines.append(src[i % len(src)])
        i += 1
    f = tmp / "code.s"
    f.write_text("\n".join(ok_lines) + "\n")
    t_llvm, _ = timed([LLVM_MC, "-triple=amdgcn", f"-mcpu={target}", "-show-encoding", str(f)])
    t_ours, q = timed([sys.executable, "-m", "gpuisa", "asm", "--target", target, "--file", str(f)])
    status = "ok" if q.returncode == 0 else f"stopped: {q.stderr.strip()[:120]}"
    print(f"encode {len(ok_lines)} lines ({target}; {len(set(ok_lines))} distinct, from {len(src)} corpus lines the "
          f"codec encodes): llvm-mc {t_llvm}, codec {t_ours} ({status}); "
          f"ratio llvm/codec {t_llvm.ratio(t_ours)} (target >= 0.5)")


def bench_code_object(examples: list, target: str, tmp: Path) -> None:
    src = [ex.asm for ex in examples if ex.direction == "asm"][:20000]
    probe = tmp / "probe.s"
    probe.write_text("\n".join(src) + "\n")
    p = subprocess.run([LLVM_MC, "-triple=amdgcn-amd-amdhsa", f"-mcpu={target}", str(probe), "-filetype=null"],
                       capture_output=True, text=True)
    bad = {int(ln.split(":")[1]) for ln in p.stderr.splitlines() if ln.startswith(str(probe)) and ": error:" in ln}
    good = [s for n, s in enumerate(src, 1) if n not in bad]
    body, size = [], 0
    while size < 1 << 20:
        for s in good:
            body.append("  " + s)
            size += 8
            if size >= 1 << 20:
                break
    asm = tmp / "big.s"
    asm.write_text(".text\n.globl k\n.type k,@function\nk:\n" + "\n".join(body) + "\n.size k, .-k\n")
    obj = tmp / "big.o"
    subprocess.run([LLVM_MC, "-triple=amdgcn-amd-amdhsa", f"-mcpu={target}", "-filetype=obj", str(asm), "-o", str(obj)],
                   check=True, capture_output=True)
    t_ours, q = timed([sys.executable, "-m", "gpuisa", "disasm", "--target", target, "--file", str(obj)])
    t_llvm, _ = timed([LLVM_OBJDUMP, "-d", f"--mcpu={target}", str(obj)])
    print(f"code object {obj.stat().st_size / 1e6:.2f} MB ({target}): codec {t_ours}, {q.stdout.count(chr(10))} lines "
          f"(target < 2 s), exit {q.returncode}; llvm-objdump -d {t_llvm}")
    from gpuisa.codec.api import decode_file

    t0 = time.perf_counter()
    n = len(decode_file(obj, target))
    print(f"  in process: {n} instructions decoded in {time.perf_counter() - t0:.2f}s")


def bench_fuzz(target: str, count: int) -> None:
    from gpuisa.codec.fuzz import fuzz
    from gpuisa.verify.llvm_mc import find_llvm_mc

    mc = find_llvm_mc()
    total = {"words": 0, "compared": 0, "agree": 0, "crashes": 0}
    classes: dict[tuple[str, str], dict] = {}
    chunk = 50000
    t0 = time.perf_counter()
    for seed in range(max(1, count // chunk)):
        r = fuzz(target, min(chunk, count), mc.path, f"llvm-mc {mc.version}", seed=seed)
        j = r.to_json()
        for k in total:
            total[k] += j[k]
        for c in j["classes"]:
            key = (c["family"], c["kind"])
            classes.setdefault(key, {"family": c["family"], "kind": c["kind"], "count": 0, "case": c["case"]})
            classes[key]["count"] += c["count"]
    rate = 1 - total["agree"] / total["compared"] if total["compared"] else 0
    print(f"fuzz {target}: {total['words']} words, {total['compared']} instructions compared, {total['agree']} agree, "
          f"mismatch rate {rate:.1%}, crashes {total['crashes']}, {len(classes)} mismatch classes "
          f"({time.perf_counter() - t0:.0f}s)")
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / f"codec_fuzz_{target}.json"
    out.write_text(json.dumps({"target": target, "tool": f"llvm-mc {mc.version}", **total,
                               "classes": sorted(classes.values(), key=lambda c: -c["count"])}, indent=1))
    print(f"  classes and one case each: {out}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--target", default="gfx1100")
    ap.add_argument("--sources", type=Path, default=None)
    ap.add_argument("--words", type=int, default=100_000)
    ap.add_argument("--lines", type=int, default=100_000)
    ap.add_argument("--fuzz", type=int, default=0, help="random instructions for the fuzzing run (0: skip)")
    args = ap.parse_args()
    sources = args.sources or paths.default_sources()
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")
    examples = corpus_examples(sources, args.target)
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        # one warm-up so the per-target tables are cached, as they are for a user after the first run
        subprocess.run([sys.executable, "-m", "gpuisa", "disasm", "--target", args.target, "00", "00", "80", "bf"],
                       capture_output=True)
        bench_decode(examples, args.target, args.words, tmp)
        bench_encode(examples, args.target, args.lines, tmp)
        bench_code_object(examples, args.target, tmp)
    if args.fuzz:
        bench_fuzz(args.target, args.fuzz)


if __name__ == "__main__":
    main()

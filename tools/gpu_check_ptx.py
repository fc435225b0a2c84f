"""Run integer PTX forms on an NVIDIA GPU and compare with gpuisa's evaluator; JSON evidence out.

Each form gets a one-instruction kernel, JIT-compiled by the CUDA driver (ctypes on libcuda, no
other dependency) and run over edge and random operands; the same operands go through
gpuisa.semantics.evaluate_ptx on numpy lanes. Needs a GPU only to run; `--emit DIR` writes the
kernels without one (check them with ptxas).

    python tools/gpu_check_ptx.py [--n 65536] [--forms sad.u32,clmad.lo.u64] [--out result.json]
"""

from __future__ import annotations

import argparse
import ctypes
import functools
import json
import sys
import time
from pathlib import Path

import numpy as np

FORMS = ["sad.u32", "sad.s32", "sad.u64", "clmad.lo.u64", "clmad.hi.u64", "bfe.u32", "bfe.s32", "bfe.u64",
         "bfi.b32", "prmt.b32", "popc.b32", "popc.b64", "brev.b32", "clz.b32", "mul.hi.u32", "mul.hi.s32",
         "mul.wide.u32", "mad.lo.u32", "min.s32", "max.u32", "dp4a.u32.u32", "dp4a.s32.s32"]
VERSION = {"clmad": ("9.3", 80)}            # PTX ISA version and minimum sm the manual gives
EDGES = [0, 1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 33, 63, 64, 0x7F, 0x80, 0xFF, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF,
         0x8000000000000000, 0xFFFFFFFFFFFFFFFF]


def kernel(form: str, operands: list[str], types: dict[str, tuple[str, int]], sm: int) -> str:
    """PTX for d = form(a, b, ...): operands come in and go out as u64 arrays, one per operand."""
    ver, min_sm = VERSION.get(form.split(".")[0], ("7.8", 50))
    params = ", ".join(f".param .u64 p_{o}" for o in operands) + ", .param .u32 n"
    body = [f".version {ver}", f".target sm_{max(sm, min_sm)}", ".address_size 64",
            f".visible .entry k({params}) {{",
            "  .reg .u32 %x, %nx, %cx, %i, %n; .reg .u64 %off, %p, %w; .reg .pred %q;",
            "  mov.u32 %x, %tid.x; mov.u32 %nx, %ntid.x; mov.u32 %cx, %ctaid.x;",
            "  mad.lo.u32 %i, %cx, %nx, %x; ld.param.u32 %n, [n]; setp.ge.u32 %q, %i, %n; @%q bra DONE;",
            "  mul.wide.u32 %off, %i, 8;"]
    for o in operands:
        w = types[o][1]
        body.append(f"  .reg .b{w} r_{o};")
        if o == operands[0]:
            continue
        body.append(f"  ld.param.u64 %p, [p_{o}]; add.u64 %p, %p, %off; ld.global.u64 %w, [%p];")
        body.append(f"  mov.b64 r_{o}, %w;" if w == 64 else f"  cvt.u{w}.u64 r_{o}, %w;")
    d = operands[0]
    body.append(f"  {form} r_{d}, {', '.join('r_' + o for o in operands[1:])};")
    wd = types[d][1]
    body.append(f"  mov.b64 %w, r_{d};" if wd == 64 else f"  cvt.u64.u{wd} %w, r_{d};")
    body.append(f"  ld.param.u64 %p, [p_{d}]; add.u64 %p, %p, %off; st.global.u64 [%p], %w;")
    body += ["DONE:", "  ret;", "}"]
    return "\n".join(body) + "\n"


@functools.lru_cache(maxsize=1)
def _texts():
    """The manuals under the default sources root, read on first use."""
    from gpuisa.paths import default_sources
    from gpuisa.sources.read import ManualTexts

    return ManualTexts(sources=default_sources())


def semantics_of(form: str):
    """The form's prepared semantics, from the PTX manual."""
    from gpuisa.semantics.ptx import ptx_semantics

    return ptx_semantics(form, _texts())


def inputs_for(operands: list[str], types: dict[str, tuple[str, int]], n: int, rng: np.random.Generator) -> dict:
    out = {}
    srcs = operands[1:]
    for k, o in enumerate(srcs):
        w = types[o][1]
        mask = np.uint64((1 << w) - 1)
        edge = np.array(EDGES, dtype=np.uint64) & mask
        grid = np.tile(np.repeat(edge, len(edge) ** k), max(1, n // len(edge) ** (k + 1)))[: n // 2]
        rand = rng.integers(0, 1 << 63, n - len(grid), dtype=np.uint64) * np.uint64(2) + \
            rng.integers(0, 2, n - len(grid), dtype=np.uint64)
        out[o] = np.concatenate([grid, rand]) & mask
    return out


class Cuda:
    """The dozen driver calls needed, through ctypes."""

    def __init__(self) -> None:
        self.lib = ctypes.CDLL("libcuda.so.1")
        self._ok(self.lib.cuInit(0), "cuInit")
        dev = ctypes.c_int()
        self._ok(self.lib.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
        major, minor = ctypes.c_int(), ctypes.c_int()
        self.lib.cuDeviceGetAttribute(ctypes.byref(major), 75, dev)
        self.lib.cuDeviceGetAttribute(ctypes.byref(minor), 76, dev)
        self.sm = major.value * 10 + minor.value
        self.ctx = ctypes.c_void_p()
        self._ok(self.lib.cuCtxCreate_v2(ctypes.byref(self.ctx), 0, dev), "cuCtxCreate")

    def _ok(self, rc: int, what: str) -> None:
        if rc != 0:
            raise RuntimeError(f"{what} failed with CUDA error {rc}")

    def run(self, ptx: str, arrays: list[np.ndarray], n: int) -> np.ndarray:
        mod, fn = ctypes.c_void_p(), ctypes.c_void_p()
        log = ctypes.create_string_buffer(8192)
        opts = (ctypes.c_int * 2)(5, 6)           # CU_JIT_ERROR_LOG_BUFFER, ..._SIZE_BYTES
        vals = (ctypes.c_void_p * 2)(ctypes.cast(log, ctypes.c_void_p), ctypes.c_void_p(8192))
        rc = self.lib.cuModuleLoadDataEx(ctypes.byref(mod), ptx.encode() + b"\0", 2, opts, vals)
        if rc != 0:
            raise RuntimeError(f"JIT failed ({rc}): {log.value.decode(errors='replace').strip()}")
        self._ok(self.lib.cuModuleGetFunction(ctypes.byref(fn), mod, b"k"), "cuModuleGetFunction")
        ptrs = []
        for a in arrays:
            p = ctypes.c_uint64()
            self._ok(self.lib.cuMemAlloc_v2(ctypes.byref(p), a.nbytes), "cuMemAlloc")
            self._ok(self.lib.cuMemcpyHtoD_v2(p, a.ctypes.data_as(ctypes.c_void_p), a.nbytes), "cuMemcpyHtoD")
            ptrs.append(p)
        count = ctypes.c_uint32(n)
        args = (ctypes.c_void_p * (len(ptrs) + 1))(*[ctypes.cast(ctypes.byref(p), ctypes.c_void_p) for p in ptrs],
                                                   ctypes.cast(ctypes.byref(count), ctypes.c_void_p))
        block = 256
        self._ok(self.lib.cuLaunchKernel(fn, (n + block - 1) // block, 1, 1, block, 1, 1, 0, None, args, None),
                 "cuLaunchKernel")
        self._ok(self.lib.cuCtxSynchronize(), "cuCtxSynchronize")
        out = np.empty(n, dtype=np.uint64)
        self._ok(self.lib.cuMemcpyDtoH_v2(out.ctypes.data_as(ctypes.c_void_p), ptrs[0], out.nbytes), "cuMemcpyDtoH")
        for p in ptrs:
            self.lib.cuMemFree_v2(p)
        self.lib.cuModuleUnload(mod)
        return out


def check(form: str, n: int, cuda: Cuda | None, emit: Path | None, rng: np.random.Generator) -> dict:
    from gpuisa.semantics.run import evaluate_ptx

    sem = semantics_of(form)
    operands, types = sem.operands, sem.types
    ptx = kernel(form, operands, types, cuda.sm if cuda else 80)
    if emit is not None:
        emit.mkdir(parents=True, exist_ok=True)
        (emit / f"{form}.ptx").write_text(ptx)
    if cuda is None:
        return {"form": form, "status": "emitted"}
    ins = inputs_for(operands, types, n, rng)
    t0 = time.perf_counter()
    try:
        gpu = cuda.run(ptx, [np.zeros(n, dtype=np.uint64)] + [ins[o] for o in operands[1:]], n)
    except RuntimeError as exc:
        return {"form": form, "status": "gpu-failed", "message": str(exc)}
    t_gpu = time.perf_counter() - t0
    t0 = time.perf_counter()
    ref = evaluate_ptx(sem, {o: ins[o] for o in operands[1:]}, lanes=n)[operands[0]]
    t_ref = time.perf_counter() - t0
    wd = types[operands[0]][1]
    mask = (1 << wd) - 1
    ref_u = np.array([int(x) & mask for x in ref], dtype=np.uint64)
    bad = np.nonzero(ref_u != (gpu & np.uint64(mask)))[0]
    first = None
    if len(bad):
        i = int(bad[0])
        first = {**{o: int(ins[o][i]) for o in operands[1:]}, "gpu": int(gpu[i]), "evaluator": int(ref_u[i])}
    return {"form": form, "status": "agree" if not len(bad) else "disagree", "cases": n,
            "mismatches": len(bad), "first_mismatch": first, "gpu_s": round(t_gpu, 3),
            "evaluator_s": round(t_ref, 3)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=1 << 16, help="cases per form")
    ap.add_argument("--forms", default=",".join(FORMS))
    ap.add_argument("--out", type=Path, help="write the JSON evidence here (default: stdout)")
    ap.add_argument("--emit", type=Path, help="write each kernel's PTX here")
    ap.add_argument("--no-gpu", action="store_true", help="only emit kernels")
    args = ap.parse_args()
    cuda = None
    if not args.no_gpu:
        try:
            cuda = Cuda()
        except (OSError, RuntimeError) as exc:
            print(f"gpu_check_ptx: no usable GPU ({exc}); use --no-gpu --emit DIR to only write kernels",
                  file=sys.stderr)
            return 2
    rng = np.random.default_rng(0)
    results = [check(f.strip(), args.n, cuda, args.emit, rng) for f in args.forms.split(",") if f.strip()]
    doc = {"kind": "gpu-differential", "sm": cuda.sm if cuda else None, "results": results,
           "agree": sum(r["status"] == "agree" for r in results),
           "disagree": sum(r["status"] == "disagree" for r in results)}
    text = json.dumps(doc, indent=1)
    if args.out:
        args.out.write_text(text)
    else:
        print(text)
    return 1 if doc["disagree"] else 0


if __name__ == "__main__":
    sys.exit(main())

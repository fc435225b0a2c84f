"""`gpuisa eval v_mfma_f32_32x32x8_f16 --arch cdna3 A=a.npy B=b.npy C=c.npy`: matrix instructions on
whole matrices read from .npy or JSON files; `--lanes` prints the register view (which lane and
register holds each element) instead of D.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gpuisa.errors import GpuisaError

OPERANDS = ("A", "B", "C")
OPTIONAL = ("scale_a", "scale_b", "CBSZ", "BLGP")


def is_matrix_name(name: str) -> bool:
    from gpuisa.semantics.matrix import is_matrix_name as matrix_name  # heavy: numpy

    return matrix_name(name)


def load_matrix(text: str, what: str) -> Any:
    """A .npy file or a JSON file (nested lists) -> numpy array; any problem is one error naming it."""
    import numpy as np

    path = Path(text)
    if not path.is_file():
        raise GpuisaError(f"{what}={text}: no such file (give a .npy or .json file of the matrix)")
    try:
        if path.suffix == ".npy":
            arr = np.load(path, allow_pickle=False)
        else:
            arr = np.asarray(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, json.JSONDecodeError) as e:
        raise GpuisaError(f"{what}={text}: not a readable .npy or JSON matrix ({e})") from None
    if arr.dtype.kind not in "biuf" or arr.ndim < 2:
        raise GpuisaError(f"{what}={text}: a matrix of numbers is needed (got {arr.dtype}, {arr.ndim} dims)")
    return arr


def eval_matrix(name: str, arch: str, pairs: list[str], texts: Any, *, lanes: bool) -> dict[str, Any]:
    """Evaluate on the files the pairs name; returns {"D": ..., "shape": ..., "source": ...} or the register view."""
    import numpy as np

    from gpuisa.semantics import matrix as mx

    shape = mx.parse_name(name)
    all_docs = texts.instruction_docs(arch)
    docs = all_docs.get(shape.name.upper())
    if not docs and shape.scaled:
        # V_MFMA_SCALE_* is a load-scale dword pair in front of the unscaled op, whose record the manual
        # gives (cdna4/README.md:1956)
        docs = all_docs.get(shape.name.upper().replace("_SCALE_", "_"))
    if not docs:
        raise GpuisaError(f"{shape.name} is not an instruction of {arch}")
    doc = docs[0]
    problems = mx.check_against_manual(shape, f"{doc.description}\n{doc.pseudocode}")
    given: dict[str, str] = {}
    for p in pairs:
        if "=" not in p:
            raise GpuisaError(f"operand {p!r} needs a file: write A=a.npy")
        k, v = p.split("=", 1)
        if k not in OPERANDS + OPTIONAL:
            raise GpuisaError(f"unknown operand {k} for {shape.name}; it takes A, B, C"
                              + (", scale_a, scale_b, CBSZ, BLGP" if shape.scaled else ""))
        given[k] = v
    missing = [k for k in OPERANDS if k not in given]
    if missing:
        raise GpuisaError(f"{shape.name} needs {', '.join(missing)}; give {' '.join(m + '=FILE.npy' for m in missing)}")
    mats = {k: load_matrix(given[k], k) for k in OPERANDS}
    codes = {}
    for k in ("CBSZ", "BLGP"):
        if k in given:
            if not given[k].isdigit() or int(given[k]) not in mx.F8F6F4_CODES:
                raise GpuisaError(f"{k}={given[k]}: a format code 0-4 is needed (0 FP8, 1 BF8, 2 FP6, 3 BF6, 4 FP4)")
            codes[k] = int(given[k])
    scales = {k: load_matrix(given[k], k).astype(np.int64) for k in ("scale_a", "scale_b") if k in given}
    d = mx.multiply(shape, mats["A"], mats["B"], mats["C"], arch=arch, a_code=codes.get("CBSZ"),
                    b_code=codes.get("BLGP"), **scales)
    fa, _ = mx.element_format(shape.a, arch, codes.get("CBSZ"))
    fb, _ = mx.element_format(shape.b, arch, codes.get("BLGP"))
    out: dict[str, Any] = {"name": shape.name, "arch": arch, "source": doc.provenance.cite(),
                           "shape": {"M": shape.m, "N": shape.n, "K": shape.k, "blocks": shape.blocks,
                                     "A": fa, "B": fb, "C/D": shape.out, "wave": shape.wave},
                           "manual_disagrees": problems}
    d2 = d[0] if shape.blocks == 1 and d.ndim == 3 else d
    if not lanes:
        out["D"] = d2.astype(np.float64).tolist() if d2.dtype.kind == "f" else d2.tolist()
        return out
    return {**out, "lanes": register_view(shape, arch, mats, d, scales, codes)}


_REG_FORMATS = {"f32": ("f32", 32), "i32": ("i32", 32), "f16": ("f16", 16), "bf16": ("bf16", 16)}


def register_view(shape: Any, arch: str, mats: dict[str, Any], d: Any, scales: dict[str, Any],
                  codes: dict[str, int]) -> dict[str, list[list[str]]]:
    """Registers x lanes (hex words) of A, B, C, D, and of the sparse index codes and scales, by the arch's layout."""
    import numpy as np

    from gpuisa.semantics import matrix as mx

    if not mx.layout_known(shape, arch):
        why = mx.RDNA4_SPARSE_NOTE if shape.family == "swmmac" else f"no source here gives the {arch} layout as text"
        raise GpuisaError(f"--lanes: the register layout of {shape.name} on {arch} is not modelled ({why})")
    if shape.c_type not in _REG_FORMATS or shape.out not in _REG_FORMATS:
        raise GpuisaError(f"--lanes: {shape.out} C/D registers are not modelled")
    fa, bits_a = mx.element_format(shape.a, arch, codes.get("CBSZ"))
    fb, bits_b = mx.element_format(shape.b, arch, codes.get("BLGP"))

    def blocked(arr: Any) -> Any:
        arr = np.asarray(arr)
        return arr.reshape(shape.blocks, *arr.shape[-2:])

    a = blocked(mats["A"])
    inputs = []
    if shape.sparse:       # the registers hold the packed nonzeros and their 2-bit positions
        a, index = mx.compress(a)
        inputs.append(("index", index.reshape(*a.shape), "i8", 2))
    inputs += [("A", a, fa, bits_a), ("B", blocked(mats["B"]), fb, bits_b),
               ("C", blocked(mats["C"]), *_REG_FORMATS[shape.c_type]), ("D", blocked(d), *_REG_FORMATS[shape.out])]
    views = {}
    for op, arr, fmt, bits in inputs:
        raw = np.asarray(arr, dtype=np.uint64) if op == "index" else mx.encode_elements(arr, fmt)
        views[op] = [[f"{int(w):#010x}" for w in row] for row in mx.to_registers(shape, op, raw, bits, arch=arch)]
    for k, sc in scales.items():   # (M x K/block) and (K/block x N) as given -> (row or column, K block), OPSEL 0
        per_row = sc if k == "scale_a" else sc.T
        raw = per_row.reshape(1, *per_row.shape)
        views[k] = [[f"{int(w):#010x}" for w in row] for row in mx.to_registers(shape, k, raw, 8, arch=arch)]
    return views

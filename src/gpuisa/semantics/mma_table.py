"""PTX matrix forms (mma, mma.sp, wmma.mma, wgmma.mma_async) and the AMD matrix instructions that compute
the same product on each architecture: directly, as a tiling of several instructions (K steps chained
through C), or padded with zeros; or none, with the reason. Evidence is an evaluation on random matrices.

The PTX side's shape and types come from the form name (`mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32`
is D f32, A f16, B f16, C f32: ptx-isa-9.4 9.7.16.5 'mma' syntax `.dtype.atype.btype.ctype`); the AMD side's
from semantics.matrix. Neither manual fixes the order in which a float product is accumulated, so float
rows agree within a bound (Higham eq. 3.5, as matrix.accumulation_bound, with one more rounding per chained
K step), integer rows exactly. Block-scaled PTX forms (kind::mxf*) are listed as not decided here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from gpuisa.semantics import lowp
from gpuisa.semantics import matrix as mx
from gpuisa.semantics.errors import EvalError

_SHAPE = re.compile(r"\.m(\d+)n(\d+)k(\d+)\b")
_PTX_TYPES = {"f16", "bf16", "tf32", "f32", "f64", "s8", "u8", "s4", "u4", "e4m3", "e5m2", "e2m3", "e3m2", "e2m1",
              "b1", "s32"}
# PTX element type -> the matrix model's element format (the OCP FP8/6/4 formats: PTX e4m3 has no Inf, an
# overflow is NaN: ptx-isa-9.4/9-instruction-set/9.7.6.1-alternate-floating-point-instructionsadd.md:85)
_FORMAT = {"f16": "f16", "bf16": "bf16", "tf32": "f32", "f32": "f32", "f64": "f64", "e4m3": "fp8_ocp",
           "e5m2": "bf8_ocp", "e2m3": "fp6", "e3m2": "bf6", "e2m1": "fp4"}
# AMD input type words (matrix._INPUT keys) each PTX element type can be given to, and the restriction
_AMD_INPUTS: dict[str, list[tuple[str, str]]] = {
    "f16": [("f16", "")], "bf16": [("bf16", "")], "f64": [("f64", "")], "f32": [("f32", "")],
    "tf32": [("f32", "inputs rounded to TF32 first (cvt.rna.tf32.f32); the f32 products of TF32 values are exact")],
    "s8": [("i8", ""), ("iu8", "NEG bit set: signed (rdna4/README.md:3193)")],
    "u8": [("iu8", "NEG bit clear: unsigned (rdna4/README.md:3193)")],
    "s4": [("iu4", "NEG bit set: signed")], "u4": [("iu4", "NEG bit clear: unsigned")],
    "e4m3": [("fp8", ""), ("f8f6f4", "CBSZ/BLGP = 0 (FP8)")], "e5m2": [("bf8", ""), ("f8f6f4", "CBSZ/BLGP = 1 (BF8)")],
    "e2m3": [("f8f6f4", "CBSZ/BLGP = 2 (FP6)")], "e3m2": [("f8f6f4", "CBSZ/BLGP = 3 (BF6)")],
    "e2m1": [("f8f6f4", "CBSZ/BLGP = 4 (FP4)"), ("f4", "")],
}
_F8F6F4_CODE = {"e4m3": 0, "e5m2": 1, "e2m3": 2, "e3m2": 3, "e2m1": 4}


@dataclass(frozen=True, slots=True)
class PtxMma:
    """What a PTX matrix form name says: D (M x N) = A (M x K) x B (K x N) + C, types, sparsity."""

    family: str       # mma, mma.sp, wmma.mma, wgmma.mma_async, wgmma.mma_async.sp
    m: int
    n: int
    k: int
    d: str
    a: str
    b: str
    c: str
    sparse: bool
    scaled: bool      # kind::mxf8f6f4 / mxf4 / mxf4nvf4 .block_scale
    satfinite: bool

    @property
    def key(self) -> str:
        sp = ".sp" if self.sparse else ""
        return f"m{self.m}n{self.n}k{self.k}{sp} D.{self.d} = A.{self.a} x B.{self.b} + C.{self.c}"


def parse_ptx(form: str) -> PtxMma:
    """mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 -> PtxMma(16, 8, 16, d=f32, a=f16, b=f16, c=f32)."""
    s = _SHAPE.search(form)
    if not s or not form.startswith(("mma.", "wmma.mma.", "wgmma.mma_async.")):
        raise EvalError(f"{form}: not a PTX mma / wmma.mma / wgmma.mma_async form with an mMnNkK shape")
    family = form.split(".sync")[0]
    types = [t for t in form[s.end():].split(".") if t in _PTX_TYPES]
    if len(types) == 4:
        d, a, b, c = types
    elif len(types) == 3:          # wgmma: .dtype.atype.btype, C is D (9.7.17.5)
        d, a, b = types
        c = d
    elif len(types) == 2:          # wmma f16 forms: .dtype.ctype, A and B f16 (9.7.16.4)
        d, c = types
        a = b = "f16"
    else:
        raise EvalError(f"{form}: cannot read the D, A, B, C types from the name")
    return PtxMma(family, int(s.group(1)), int(s.group(2)), int(s.group(3)), d, a, b, c, ".sp" in family,
                  "block_scale" in form, "satfinite" in form)


@dataclass(slots=True)
class Counterpart:
    """One arch's answer for one PTX product."""

    arch: str
    level: str                    # equivalent / tiling / padded / none
    instruction: str = ""
    count: int = 0                # AMD instructions per PTX instruction
    restrictions: list[str] = field(default_factory=list)
    reason: str = ""              # why none
    evidence: str = ""            # filled by check()

    def as_dict(self) -> dict:
        return {"arch": self.arch, "level": self.level, "instruction": self.instruction, "count": self.count,
                "restrictions": self.restrictions, "reason": self.reason, "evidence": self.evidence}


def _acc_ok(ptx: PtxMma, shape: mx.MatrixShape) -> str | None:
    """'' when AMD's C/D types hold PTX's exactly, a restriction text when close enough, None when not."""
    amd = {"i32": "s32"}
    if ptx.d != amd.get(shape.out, shape.out):
        return None
    if ptx.c == amd.get(shape.c_type, shape.c_type):
        return ""
    if (ptx.c, shape.c_type) in (("f16", "f32"), ("bf16", "f32")):
        return f"C converted {ptx.c} -> f32 first (exact)"
    return None


def counterparts(ptx: PtxMma, names_by_arch: dict[str, list[str]]) -> list[Counterpart]:
    """For each arch: the AMD instruction that needs the fewest instructions (then the least padding)."""
    out = []
    for arch, names in names_by_arch.items():
        out.append(_best(ptx, arch, names))
    return out


def _best(ptx: PtxMma, arch: str, names: list[str]) -> Counterpart:
    if ptx.scaled:
        return Counterpart(arch, "none", reason="not decided here: block-scaled PTX forms (scale_vec layouts) "
                                                 "are not matched to AMD's scaled MFMA/WMMA yet")
    if "b1" in (ptx.a, ptx.b):
        return Counterpart(arch, "none", reason="AMD matrix instructions take no 1-bit inputs (no B1 type in any "
                                                 "MFMA/WMMA name)")
    flavour = lowp.FP8_FLAVOUR.get(arch, ("ocp", ""))[0]
    if flavour == "fnuz" and {ptx.a, ptx.b} & {"e4m3", "e5m2"}:
        return Counterpart(arch, "none", reason=f"{arch}'s FP8/BF8 are the FNUZ formats (bias 8/16, one NaN, no "
                                                 "-0: cdna3/README.md:1828-1829); PTX e4m3/e5m2 are the OCP ones")
    best: tuple | None = None
    for name in names:
        try:
            shape = mx.parse_name(name)
        except EvalError:
            continue
        if shape.blocks != 1 or shape.scaled or shape.sparse != ptx.sparse:
            continue
        notes = []
        for ptype, amd_t in ((ptx.a, shape.a), (ptx.b, shape.b)):
            match = next((r for t, r in _AMD_INPUTS.get(ptype, []) if t == amd_t), None)
            if match is None:
                break
            if match:
                notes.append(match)
        else:
            acc = _acc_ok(ptx, shape)
            if acc is None:
                continue
            if acc:
                notes.append(acc)
            if ptx.satfinite:
                notes.append(".satfinite clamps the i32 result; the AMD manuals describe no clamp, so only "
                             "results that do not overflow agree")
            tiles = [-(-dim // amd) for dim, amd in ((ptx.m, shape.m), (ptx.n, shape.n), (ptx.k, shape.k))]
            count = tiles[0] * tiles[1] * tiles[2]
            waste = count * shape.m * shape.n * shape.k - ptx.m * ptx.n * ptx.k
            cand = (count, waste, name.lower(), sorted(set(notes)))
            if best is None or cand[:2] < best[:2]:
                best = cand
    if best is None:
        return Counterpart(arch, "none", reason=f"no {arch} matrix instruction takes A.{ptx.a} x B.{ptx.b} "
                                                 f"with C.{ptx.c} / D.{ptx.d}{' (sparse)' if ptx.sparse else ''}")
    count, waste, name, notes = best
    level = "equivalent" if count == 1 and waste == 0 else "tiling" if waste == 0 else "padded"
    return Counterpart(arch, level, name, count, notes)


PTX_MATRIX_INSTRUCTIONS = ("mma", "mma.sp", "wmma.mma", "wgmma.mma_async", "wgmma.mma_async.sp")
AMD_ARCHS = ("cdna3", "cdna4", "cdna5", "rdna3", "rdna4")


# ------------------------------------------------------------------ evidence


def _random(ptype: str, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    if ptype in ("s8", "u8", "s4", "u4"):
        bits = 8 if ptype.endswith("8") else 4
        lo, hi = (-(1 << (bits - 1)), 1 << (bits - 1)) if ptype[0] == "s" else (0, 1 << bits)
        return rng.integers(lo, hi, size=shape)
    x = rng.standard_normal(shape)
    if ptype == "tf32":
        bits = x.astype(np.float32).view(np.uint32)
        return ((bits + np.uint32(0x1000)) & np.uint32(0xFFFFE000)).view(np.float32).astype(np.float64)
    return mx.quantize(x, _FORMAT[ptype])


def check(ptx: PtxMma, cp: Counterpart, rng: np.random.Generator, trials: int = 3) -> Counterpart:
    """Evaluate the counterpart on random PTX-shaped matrices against the PTX product (float64 exact, rounded
    once to D): integer rows equal exactly, float rows within the stated bound. Fills cp.evidence."""
    if cp.level == "none":
        return cp
    shape = mx.parse_name(cp.instruction)
    worst = 0.0
    for _ in range(trials):
        a = _random(ptx.a, (ptx.m, ptx.k), rng)
        b = _random(ptx.b, (ptx.k, ptx.n), rng)
        c = _random(ptx.c, (ptx.m, ptx.n), rng) if ptx.c not in ("s32",) else rng.integers(-1 << 20, 1 << 20,
                                                                                            (ptx.m, ptx.n))
        if ptx.sparse:
            groups = a.reshape(ptx.m, -1, mx.SPARSE_GROUP)
            keep = np.argsort(rng.random(groups.shape), axis=-1) < mx.SPARSE_KEPT
            a = np.where(keep, groups, 0).reshape(ptx.m, ptx.k)
        got = tiled(shape, cp.arch, a, b, c, ptx)
        if ptx.d == "s32":
            want = (a.astype(np.int64) @ b.astype(np.int64) + c.astype(np.int64))
            want = ((want + (1 << 31)) % (1 << 32)) - (1 << 31)
            if not np.array_equal(got.astype(np.int64), want):
                raise EvalError(f"{cp.instruction} on {cp.arch} differs from {ptx.key}")
            continue
        exact = a.astype(np.float64) @ b.astype(np.float64) + c.astype(np.float64)
        steps = -(-ptx.k // shape.k)
        n = ptx.k + steps
        u = {"f32": 2.0 ** -24, "f16": 2.0 ** -11, "bf16": 2.0 ** -8, "f64": 2.0 ** -53}[ptx.d]
        gamma = n * u / (1 - n * u)
        mag = np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64)) + np.abs(c.astype(np.float64))
        bound = gamma * mag + u * np.abs(exact)
        err = np.abs(got.astype(np.float64) - exact)
        if not (err <= bound).all():
            raise EvalError(f"{cp.instruction} on {cp.arch} differs from {ptx.key} beyond the bound")
        worst = max(worst, float((err / np.maximum(bound, 1e-300)).max()))
    cp.evidence = (f"equal on {trials} random {ptx.m}x{ptx.k} x {ptx.k}x{ptx.n} products"
                   if ptx.d == "s32" else
                   f"within the accumulation bound on {trials} random products (worst {worst:.2f} of it)")
    return cp


def tiled(shape: mx.MatrixShape, arch: str, a: np.ndarray, b: np.ndarray, c: np.ndarray, ptx: PtxMma) -> np.ndarray:
    """D = A @ B + C by AMD instructions of `shape` over zero-padded tiles, K steps chained through C."""
    mp, np_, kp = (-(-d // t) * t for d, t in ((ptx.m, shape.m), (ptx.n, shape.n), (ptx.k, shape.k)))
    A = np.zeros((mp, kp))
    A[:ptx.m, :ptx.k] = a
    B = np.zeros((kp, np_))
    B[:ptx.k, :ptx.n] = b
    D = np.zeros((mp, np_), dtype=np.int64 if shape.out == "i32" else np.float64)
    D[:ptx.m, :ptx.n] = c
    codes = {"a_code": _F8F6F4_CODE.get(ptx.a), "b_code": _F8F6F4_CODE.get(ptx.b)} if shape.a == "f8f6f4" else {}
    for i in range(0, mp, shape.m):
        for j in range(0, np_, shape.n):
            acc = D[i:i + shape.m, j:j + shape.n]
            for kk in range(0, kp, shape.k):
                acc = mx.multiply(shape, A[i:i + shape.m, kk:kk + shape.k], B[kk:kk + shape.k, j:j + shape.n], acc,
                                  arch=arch, **codes)[0]
                acc = acc.astype(np.int64) if shape.out == "i32" else acc.astype(np.float64)
            D[i:i + shape.m, j:j + shape.n] = acc
    return D[:ptx.m, :ptx.n]


def table(forms: list[str], names_by_arch: dict[str, list[str]], rng: np.random.Generator | None = None) -> list[dict]:
    """One row per distinct PTX product among `forms` (layouts and rounding modifiers folded), with each arch's
    counterpart; with `rng`, each counterpart is also evaluated (evidence)."""
    rows: dict[str, dict] = {}
    for form in forms:
        try:
            p = parse_ptx(form)
        except EvalError:
            continue
        row = rows.setdefault(p.key, {"ptx": p.key, "family": p.family, "forms": [], "ptx_parsed": p})
        row["forms"].append(form)
    out = []
    for _, row in sorted(rows.items()):
        p = row.pop("ptx_parsed")
        cps = counterparts(p, names_by_arch)
        if rng is not None:
            cps = [check(p, cp, rng, trials=1) for cp in cps]
        out.append({**row, "counterparts": [cp.as_dict() for cp in cps]})
    return out


# ------------------------------------------------------------------ PTX fragments (which thread holds which element)

_MMA_MD = "ptx-isa-9.4/9-instruction-set/9.7.16.5-matrix-multiply-accumulate-operation-usingmmainstruction.md"


def fragment_layout(ptx: PtxMma, operand: str) -> np.ndarray:
    """For every element (row, col) of A, B or C/D of mma.m16n8k16 with 16-bit A/B: (lane, fragment index i),
    from the manual's formulas (groupID = %laneid >> 2, threadID_in_group = %laneid % 4): A at
    9.7.16.5.8 line 956, B line 1012, C/D line 1092 of the file named in _MMA_MD."""
    if (ptx.family, ptx.m, ptx.n, ptx.k) != ("mma", 16, 8, 16) or ptx.a not in ("f16", "bf16"):
        raise EvalError(f"{ptx.key}: fragment layouts are modelled for mma.m16n8k16 with f16/bf16 A and B only")
    lanes = np.arange(32)
    group, tid = lanes >> 2, lanes % 4
    count = {"A": 8, "B": 4, "C": 4, "D": 4}[operand]
    rows, cols = {"A": (16, 16), "B": (16, 8), "C": (16, 8), "D": (16, 8)}[operand]
    out = np.full((rows, cols, 2), -1)
    for i in range(count):
        if operand == "A":
            r = group + (8 if i in (2, 3, 6, 7) else 0)
            c = tid * 2 + (i & 1) + (8 if i >= 4 else 0)
        elif operand == "B":
            r = tid * 2 + (i & 1) + (8 if i >= 2 else 0)
            c = group
        else:
            r = group + (8 if i >= 2 else 0)
            c = tid * 2 + (i & 1)
        out[r, c, 0] = lanes
        out[r, c, 1] = i
    return out


def to_fragments(ptx: PtxMma, operand: str, matrix: np.ndarray) -> np.ndarray:
    """Matrix -> fragments (32 lanes x elements per thread)."""
    lay = fragment_layout(ptx, operand)
    frags = np.zeros((32, int(lay[..., 1].max()) + 1), dtype=np.asarray(matrix).dtype)
    frags[lay[..., 0], lay[..., 1]] = matrix
    return frags


def from_fragments(ptx: PtxMma, operand: str, frags: np.ndarray) -> np.ndarray:
    """Fragments (32 lanes x elements per thread) -> matrix."""
    lay = fragment_layout(ptx, operand)
    return np.asarray(frags)[lay[..., 0], lay[..., 1]]

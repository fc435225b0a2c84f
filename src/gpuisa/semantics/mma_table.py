"""PTX matrix forms (mma, mma.sp, wmma.mma, wgmma.mma_async) and the AMD matrix instructions that compute
the same product on each architecture: directly, as a tiling of several instructions (K steps chained
through C), or padded with zeros; or none, with the reason. Evidence is an evaluation on random matrices.

The PTX side's shape and types come from the form name (`mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32`
is D f32, A f16, B f16, C f32: ptx-isa-9.4 9.7.16.5 'mma' syntax `.dtype.atype.btype.ctype`); the AMD side's
from semantics.matrix. Neither manual fixes the order in which a float product is accumulated, so float
rows agree within a bound (Higham eq. 3.5, as matrix.accumulation_bound, with one more rounding per chained
K step), integer rows exactly. Block-scaled PTX forms (kind::mxf*) are matched to AMD's scaled instructions
when the scale format and block size allow (SCALED_ARCHS).
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
    scale_type: str = ""      # .stype of a block-scaled form: ue8m0 or ue4m3
    scale_block: int = 0      # K values per scale: K / scale_vec (9.7.16.3 Table 44: scale_A is M x 1, 2 or 4)

    @property
    def key(self) -> str:
        sp = ".sp" if self.sparse else ""
        scales = f", {self.scale_type} scales per {self.scale_block} K" if self.scaled else ""
        return f"m{self.m}n{self.n}k{self.k}{sp} D.{self.d} = A.{self.a} x B.{self.b} + C.{self.c}{scales}"


# .scale_vec_size when a block-scaled form names none: 2X for kind::mxf4, 1X for kind::mxf8f6f4, and mxf4nvf4 must
# name one (ptx-isa-9.4 9.7.16.5 line 1727)
_DEFAULT_SCALE_VEC = {"mxf4": 2, "mxf8f6f4": 1}
# PTX .stype -> matrix.SCALE_FORMATS key (.ue8m0 is E8M0: an exponent alone, 9.7.16.2 line 25)
_PTX_SCALE_TYPES = {"ue8m0": "e8m0", "ue4m3": "ue4m3"}


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
    m, n, k = int(s.group(1)), int(s.group(2)), int(s.group(3))
    if "block_scale" not in form:
        return PtxMma(family, m, n, k, d, a, b, c, ".sp" in family, False, "satfinite" in form)
    kind = re.search(r"\.kind::(\w+)", form)
    vec = re.search(r"\.scale_vec::(\d)X", form)
    stype = _PTX_SCALE_TYPES.get(form.rsplit(".", 1)[-1], "")
    size = int(vec.group(1)) if vec else _DEFAULT_SCALE_VEC.get(kind.group(1) if kind else "", 0)
    if not size or stype not in mx.SCALE_FORMATS:
        raise EvalError(f"{form}: cannot read the scale vector size and .stype of a block-scaled form")
    return PtxMma(family, m, n, k, d, a, b, c, ".sp" in family, True, "satfinite" in form, stype, k // size)


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


# Block-scale formats each arch's scaled matrix instructions read (matrix.SCALE_FORMATS keys), with the line.
# The scale block size (32, or 16 for V_WMMA_SCALE16_*) comes from the instruction name (matrix.parse_name).
ARCH_SCALE_FORMATS: dict[str, tuple[frozenset[str], str]] = {
    "cdna4": (frozenset({"e8m0"}), "cdna4/README.md:1942-1944 (block size 32; the scale is an 8-bit exponent, bias 127)"),
    "cdna5": (frozenset({"e8m0", "ue4m3"}), "cdna5/README.md:3716 (E8M0, E5M3 or E4M3 per block of 32 or 16 K), "
                                            ":3752-3762 (E4M3 scales only with F4 A and B)"),
}
_SCALE_CODE = {"e8m0": 0, "ue4m3": 2}      # NEG[1:0] / NEG_HI[1:0] of the scale DWORDs (cdna5/README.md:3731-3736)
_ONE = {"e8m0": 127, "ue4m3": 0x38}        # the code of scale 1.0: 2^0; E4M3 0.0111.000


# Scaled forms a manual gives no record of their own: cdna4's V_MFMA_SCALE_* are a load-scale DWORD pair in front of
# the unscaled V_MFMA_*_F8F6F4 opcode, named in the block-scale section (cdna4/README.md:1950-1952).
MFMA_SCALE_PREFIX = {"cdna4": "cdna4/README.md:1952"}


def scaled_names(arch: str, names: list[str]) -> list[str]:
    """The arch's block-scaled matrix instruction names: the manual's own plus MFMA_SCALE_PREFIX's."""
    out = [n.lower() for n in names if mx.is_matrix_name(n)]
    if arch in MFMA_SCALE_PREFIX:
        out += [n.replace("v_mfma_", "v_mfma_scale_", 1) for n in out if n.startswith("v_mfma_f32_")
                and n.endswith("_f8f6f4")]
    return [n for n in out if mx.parse_name(n).scaled]


def _best_scaled(ptx: PtxMma, arch: str, names: list[str]) -> Counterpart:
    """A block-scaled PTX product (D = (A * scale_A) x (B * scale_B) + C, 9.7.16.3) on an AMD scaled instruction:
    same element types, a scale format the arch reads, and PTX's scale block a whole number of AMD's (each PTX
    scale is then repeated over its AMD blocks; padded K takes scale 1.0)."""
    scaled = [sh for sh in (mx.parse_name(n) for n in scaled_names(arch, names)) if sh.scaled]
    if not scaled:
        return Counterpart(arch, "none", reason=f"{arch} has no block-scaled matrix instruction (no V_MFMA_SCALE_* or "
                           "V_WMMA_SCALE_* in its manual): an unscaled product cannot apply a per-block "
                           "scale_A x scale_B inside the K sum")
    if ptx.sparse:
        return Counterpart(arch, "none", reason="AMD's block-scaled matrix instructions take no 2:4-sparse A "
                           "(cdna5/README.md:3712; cdna4 has V_MFMA_SCALE only, no scaled SMFMAC)")
    formats, where = ARCH_SCALE_FORMATS.get(arch, (frozenset({"e8m0"}), ""))
    if ptx.scale_type not in formats:
        return Counterpart(arch, "none", reason=f"{arch}'s matrix block scales are {', '.join(sorted(formats))} "
                           f"only ({where}); PTX .{ptx.scale_type} scales are not powers of two")
    if ptx.scale_type == "ue4m3" and (ptx.a, ptx.b) != ("e2m1", "e2m1"):
        return Counterpart(arch, "none", reason=f"E4M3 scales need F4 A and B ({where})")
    best: tuple | None = None
    blocks = sorted({sh.scale_block for sh in scaled})
    for sh in scaled:
        if ptx.scale_block % sh.scale_block:
            continue
        notes = []
        for ptype, amd_t, operand in ((ptx.a, sh.a, "A"), (ptx.b, sh.b, "B")):
            match = next((r for t, r in _AMD_INPUTS.get(ptype, []) if t == amd_t), None)
            if match is None:
                break
            if match and sh.family == "wmma":
                match = match.replace("CBSZ/BLGP", "OPSEL" if operand == "A" else "OPSEL_HI")
            if match:
                notes.append(match)
        else:
            if _acc_ok(ptx, sh) is None:
                continue
            repeat = ptx.scale_block // sh.scale_block
            if repeat > 1:
                notes.append(f"each PTX scale repeated over {repeat} AMD scale blocks of {sh.scale_block} K")
            if ptx.scale_type != "e8m0":
                notes.append(f"scale format {ptx.scale_type.upper()} (NEG/NEG_HI = {_SCALE_CODE[ptx.scale_type]}: "
                             "cdna5/README.md:3731-3736)")
            tiles = [-(-dim // amd) for dim, amd in ((ptx.m, sh.m), (ptx.n, sh.n), (ptx.k, sh.k))]
            count = tiles[0] * tiles[1] * tiles[2]
            waste = count * sh.m * sh.n * sh.k - ptx.m * ptx.n * ptx.k
            if waste:
                notes.append("padded K blocks take scale 1.0")
            cand = (count, waste, repeat, sh.name, sorted(set(notes)))
            if best is None or cand[:3] < best[:3]:
                best = cand
    if best is None:
        return Counterpart(arch, "none", reason=f"PTX scales every {ptx.scale_block} K values; {arch}'s scaled "
                           f"instructions scale blocks of {' or '.join(map(str, blocks))} K"
                           + (f" ({where})" if where else "") + f" or take no A.{ptx.a} x B.{ptx.b}")
    count, waste, _, name, notes = best
    level = "equivalent" if count == 1 and waste == 0 else "tiling" if waste == 0 else "padded"
    return Counterpart(arch, level, name, count, notes)


def _best(ptx: PtxMma, arch: str, names: list[str]) -> Counterpart:
    if ptx.scaled:
        return _best_scaled(ptx, arch, names)
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
        scales = None
        if ptx.scaled:
            scales = (random_scales(ptx.scale_type, (ptx.m, ptx.k // ptx.scale_block), rng),
                      random_scales(ptx.scale_type, (ptx.k // ptx.scale_block, ptx.n), rng))
        got = tiled(shape, cp.arch, a, b, c, ptx, scales)
        if scales is not None:     # the product PTX defines: D = (A * scale_A) x (B * scale_B) + C (9.7.16.3)
            a = a * scale_values(ptx, scales[0], axis=1)
            b = b * scale_values(ptx, scales[1], axis=0)
        if ptx.d == "s32":
            want = (a.astype(np.int64) @ b.astype(np.int64) + c.astype(np.int64))
            want = ((want + (1 << 31)) % (1 << 32)) - (1 << 31)
            if not np.array_equal(got.astype(np.int64), want):
                raise EvalError(f"{cp.instruction} on {cp.arch} differs from {ptx.key}")
            continue
        exact = a.astype(np.float64) @ b.astype(np.float64) + c.astype(np.float64)
        steps = -(-ptx.k // shape.k)
        # scaled: AMD applies the scales after each block's dot product (cdna5/README.md:3718), one more rounding
        # per scale block when the scale is not a power of two
        n = ptx.k + steps + (ptx.k // shape.scale_block if ptx.scaled else 0)
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
    if ptx.scaled:
        cp.evidence += f", with random {ptx.scale_type.upper()} scales per {ptx.scale_block} K"
    return cp


def random_scales(stype: str, shape: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
    """Scale codes for 2^-4 .. 2^4 (E8M0) or 1/16 .. 14 with mantissas (UE4M3): no product over/underflows."""
    if stype == "e8m0":
        return rng.integers(123, 132, size=shape)
    return rng.integers(0x18, 0x58, size=shape)


def scale_values(ptx: PtxMma, codes: np.ndarray, axis: int) -> np.ndarray:
    """PTX scale codes (M x K/block or K/block x N) -> the factor of every element (M x K or K x N)."""
    return np.repeat(mx.scale_factors(codes, codes.shape, "scale", ptx.scale_type), ptx.scale_block, axis=axis)


def tiled(shape: mx.MatrixShape, arch: str, a: np.ndarray, b: np.ndarray, c: np.ndarray, ptx: PtxMma,
          scales: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """D = A @ B + C by AMD instructions of `shape` over zero-padded tiles, K steps chained through C.

    A block-scaled product takes A and B unscaled and `scales` (PTX's scale_A M x K/block, scale_B K/block x N
    codes): each AMD scale block gets the code of the PTX block that holds it, padded K the code of 1.0."""
    mp, np_, kp = (-(-d // t) * t for d, t in ((ptx.m, shape.m), (ptx.n, shape.n), (ptx.k, shape.k)))
    A = np.zeros((mp, kp))
    A[:ptx.m, :ptx.k] = a
    B = np.zeros((kp, np_))
    B[:ptx.k, :ptx.n] = b
    D = np.zeros((mp, np_), dtype=np.int64 if shape.out == "i32" else np.float64)
    D[:ptx.m, :ptx.n] = c
    codes: dict = {"a_code": _F8F6F4_CODE.get(ptx.a), "b_code": _F8F6F4_CODE.get(ptx.b)} if shape.a == "f8f6f4" else {}
    if shape.scaled:
        one = _ONE[ptx.scale_type]
        SA = np.full((mp, kp), one)
        SA[:ptx.m, :ptx.k] = np.repeat(scales[0], ptx.scale_block, axis=1) if scales is not None else one
        SB = np.full((kp, np_), one)
        SB[:ptx.k, :ptx.n] = np.repeat(scales[1], ptx.scale_block, axis=0) if scales is not None else one
        codes["scale_formats"] = (ptx.scale_type, ptx.scale_type)
    blk = shape.scale_block
    for i in range(0, mp, shape.m):
        for j in range(0, np_, shape.n):
            acc = D[i:i + shape.m, j:j + shape.n]
            for kk in range(0, kp, shape.k):
                if shape.scaled:
                    codes["scale_a"] = SA[i:i + shape.m, kk:kk + shape.k:blk]
                    codes["scale_b"] = SB[kk:kk + shape.k:blk, j:j + shape.n]
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

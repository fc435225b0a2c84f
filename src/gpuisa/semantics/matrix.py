"""Matrix instructions (MFMA, WMMA): shape and types from the name, D = A @ B + C on whole
(batched) matrices with numpy, and the register layout: which lane and register hold each element.

Accumulation order. The manuals do not give the order in which a pass adds its products
("This instruction performs 8 passes", cdna3/README.md:10312), so results are computed exactly
enough to be order-free: products and sums in float64 (an f16 or bf16 product is exact there and
K <= 128 terms lose at most K*2^-53 relative), then rounded once to the output type. Hardware
that rounds after each of the K additions in float32 can differ from that by at most
ACCUMULATION_BOUND: gamma_(K+1) * (sum_k |a_ik b_kj| + |c_ij|), gamma_n = n*u/(1-n*u), u = 2^-24
(Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., eq. 3.5: recursive summation).

Layouts. CDNA (wave64): A holds rows of each block with the row index fastest across lanes, then
further K values in further lanes, and the lane's own K values packed low bits first
(cdna3/README.md:1552-1554 lane l holds A[l/32, l%32, 0]; :1591 lanes 32-63 hold the second
column of A; :1615 two 16-bit values per register, the second in bits 31:16); B the same with
columns. C/D are 4 x N tiles: D[b,i,j] is in lane j + 32*((i/4) % 2) of register 16b + 4(i/8) + i%4
(cdna3/README.md:1579-1583), generalised to N columns and blocks as 4x4x4_16B shows (:1636-1642).
RDNA3 WMMA (wave32): lane l < 16 holds row l of A (column l of B) with its 16 K values packed two
per register, lanes 16-31 repeat lanes 0-15 (rdna3/README.md:2611); C/D: D[i,j] in lane j + 16*(i%2)
of register i/2 (the layout diagrams at rdna3/README.md:2625-2629 are images; the text of the
GPUOpen note they cite, rdna3/README.md:2586, is not in the sources).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from gpuisa.semantics import lowp
from gpuisa.semantics.errors import EvalError

_NAME = re.compile(r"^v_(?P<fam>mfma|wmma|smfmac|swmmac)(?P<scale>_scale(?P<sblock>16)?)?_"
                   r"(?P<out>f32|f64|i32|f16|bf16f32|bf16)_"
                   r"(?P<m>\d+)x(?P<n>\d+)x(?P<k>\d+)(?:_(?P<b>\d+)b)?_?(?P<ins>[a-z0-9_]+?)(?:_1k)?$")

# Input type words in names -> (element format key, bits). fp8/bf8 take the arch's flavour.
# IU8 / IU4 inputs are signed or unsigned by the NEG bits (rdna3/README.md:2389: NEG[1:0] = signed(1)/unsigned(0)):
# an IU matrix holds either range, the NEG bit the caller sets says which.
_INPUT = {"f16": ("f16", 16), "bf16": ("bf16", 16), "f32": ("f32", 32), "xf32": ("f32", 32), "f64": ("f64", 64),
          "i8": ("i8", 8), "iu8": ("iu8", 8), "iu4": ("iu4", 4), "fp8": ("fp8", 8), "bf8": ("bf8", 8),
          "f4": ("fp4", 4)}
# CBSZ / BLGP codes of the F8F6F4 forms (cdna4/README.md:10557): format and bits per element.
F8F6F4_CODES = {0: ("fp8", 8), 1: ("bf8", 8), 2: ("fp6", 6), 3: ("bf6", 6), 4: ("fp4", 4)}
SCALE_BLOCK = 32   # one E8M0 scale per 32 K values (cdna4/README.md:1942); V_WMMA_SCALE16_*: 16 (cdna5/README.md:18027)
# 2:4 structured sparsity of SMFMAC/SWMMAC A: two of every four K values are zero, their positions given as
# index pairs with index0 < index1 (cdna4/README.md:2079, :2116)
SPARSE_GROUP, SPARSE_KEPT = 4, 2


@dataclass(frozen=True, slots=True)
class MatrixShape:
    """What an MFMA/WMMA name says: D (M x N, per block) = A (M x K) @ B (K x N) + C, types."""

    name: str
    family: str          # mfma or wmma
    m: int
    n: int
    k: int
    blocks: int
    out: str             # f32, f64, i32, f16, bf16
    a: str               # element format of A (f16, bf16, fp8, i8, f8f6f4 ...)
    b: str
    scaled: bool
    sparse: bool = False          # SMFMAC / SWMMAC: A is 2:4 structured-sparse, C is D
    c: str = ""                   # C's type where it differs from D's (V_WMMA_BF16F32_*: C f32, D bf16)
    scale_block: int = SCALE_BLOCK

    @property
    def wave(self) -> int:
        return 64 if self.family in ("mfma", "smfmac") else 32

    @property
    def c_type(self) -> str:
        return self.c or self.out


# Every matrix family a manual names; the ones _NAME does not read (sparse SMFMAC/SWMMAC) are reported as such.
MATRIX_FAMILY = re.compile(r"^V_(MFMA|WMMA|SMFMAC|SWMMAC)_", re.I)


def run_random(name: str, text: str, arch: str, rng: np.random.Generator, batch: int = 2) -> np.ndarray:
    """Evaluate a matrix instruction on random matrices after checking its name against the manual's formula.

    This is how coverage evaluates the manuals' `D = A (32x8) * B (8x32) + C (32x32)` blocks, which
    are formulas over whole matrices rather than per-lane pseudocode. A type in the formula that
    disagrees with the name and with the description's own sentence is an erratum (see errata()),
    not a failure."""
    if not is_matrix_name(name):
        raise EvalError(f"{name.lower()}: not modelled (no MxNxK shape in the name)")
    shape = parse_name(name)
    problems = [p for p in check_against_manual(shape, text) if p not in errata(shape, text)]
    if problems:
        raise EvalError(f"{shape.name}: " + "; ".join(problems))
    a, b, c = random_operands(shape, rng, batch)
    return multiply(shape, a, b, c, arch=arch)


def random_operands(shape: MatrixShape, rng: np.random.Generator, batch: int = 1) -> tuple[np.ndarray, ...]:
    """Random A, B, C (batch x blocks x ...) in the instruction's ranges; a sparse A keeps two of each four K."""
    lead = (batch, shape.blocks)
    if shape.out == "i32":
        lim = 8 if shape.a == "iu4" else 128
        a = rng.integers(-lim, lim, size=(*lead, shape.m, shape.k))
        b = rng.integers(-lim, lim, size=(*lead, shape.k, shape.n))
        c = rng.integers(-(1 << 20), 1 << 20, size=(*lead, shape.m, shape.n))
    else:
        a = rng.standard_normal((*lead, shape.m, shape.k))
        b = rng.standard_normal((*lead, shape.k, shape.n))
        c = rng.standard_normal((*lead, shape.m, shape.n))
    if shape.sparse:
        groups = a.reshape(*a.shape[:-1], shape.k // SPARSE_GROUP, SPARSE_GROUP)
        keep = np.argsort(rng.random(groups.shape), axis=-1) < SPARSE_KEPT
        a = np.where(keep, groups, 0).reshape(a.shape)
    return a, b, c


def is_matrix_name(name: str) -> bool:
    """True for the MFMA/WMMA names parse_name reads."""
    return bool(_NAME.match(name.strip().lower()))


@lru_cache(maxsize=1024)
def parse_name(name: str) -> MatrixShape:
    """v_mfma_f32_32x32x8_f16 -> MatrixShape(m=32, n=32, k=8, blocks=1, out=f32, a=b=f16)."""
    m = _NAME.match(name.strip().lower())
    if not m:
        raise EvalError(f"{name} is not an MFMA/WMMA name this model reads (v_mfma_<out>_<M>x<N>x<K>[_<B>b]_<in>)")
    ins = m.group("ins")
    if ins == "f8f6f4":
        a = b = "f8f6f4"
    elif "_" in ins:
        a, b = ins.split("_", 1)
    else:
        a = b = ins
    for t in (a, b):
        if t not in _INPUT and t != "f8f6f4":
            raise EvalError(f"{name}: input type {t} is not modelled")
    out, c = m.group("out"), ""
    if out == "bf16f32":      # D bf16, C f32 (cdna5/README.md:17301 'Matrix C is single-precision ... D is BF16')
        out, c = "bf16", "f32"
    fam = m.group("fam")
    mm, kk = int(m.group("m")), int(m.group("k"))
    blocks = int(m.group("b") or 1)
    if fam == "mfma" and m.start("ins") == m.end("k"):
        # the cdna1/cdna2 spelling (V_MFMA_F32_16X16X1F32) names no block count: the description gives it
        # ("4 Blocks, 8 pass, srcA/srcB one archVgpr", cdna2/README.md:3583); it is the lanes' A values over M x K
        # (the K_L rule, cdna4/README.md:1733), A being one VGPR, or two for F16, BF16_1K and F64
        per_lane = {"f32": 1, "f16": 4, "i8": 4, "bf16": 4 if name.lower().endswith("_1k") else 2, "f64": 1}[a]
        # (at least one: LLVM's gfx940 spellings of one-block instructions, v_mfma_i32_16x16x32i8, hold more values)
        blocks = max(1, 64 * per_lane // (mm * kk))
    return MatrixShape(name.lower(), fam, mm, int(m.group("n")), kk, blocks, out, a, b, bool(m.group("scale")),
                       fam in ("smfmac", "swmmac"), c, 16 if m.group("sblock") else SCALE_BLOCK)


_FORMULA = re.compile(r"D = A \((?:sparse )?(\d+)x(\d+)\) \* B \((\d+)x(\d+)\) \+ [CD] \((\d+)x(\d+)\)")
# RDNA WMMA pseudocode: eval "D0.f32(16x16) = S0.f16(16x16) * S1.f16(16x16) + S2.f32(16x16)"; SWMMAC:
# "... * S1.f16(32x16, index set from S2) + D0.f32(16x16)" with S0 the packed (M x K/2) nonzeros
_EVAL_FORMULA = re.compile(r"D0\.(\w+)\((\d+)x(\d+)\) = S0\.(\w+)\((\d+)x(\d+)\) \* S1\.(\w+)\((\d+)x(\d+)[^)]*\) "
                           r"\+ (?:S2|D0)\.(\w+)\((\d+)x(\d+)\)")
# The description's sentence, where a manual's formula line was lost in conversion (cdna4/README.md:11527):
# "Multiply the 16x64 sparse matrix in the first input by the 64x16 matrix in the second input and
# accumulate the result into the 16x16 matrix"
_PROSE = re.compile(r"Multiply the (\d+)x(\d+) (?:sparse )?matri(?:x|ces) in the first input by the (\d+)x(\d+) "
                    r"matri(?:x|ces) in the second input and (?:accumulate the result into|add) the (\d+)x(\d+)")


def check_against_manual(shape: MatrixShape, text: str) -> list[str]:
    """Disagreements between the name and the manual's formula: `D = A (MxK) * B (KxN) + C (MxN)` (CDNA
    descriptions) or `D0.f32(MxN) = S0.f16(MxK) * S1.f16(KxN) + S2.f32(MxN)` (RDNA pseudocode, types too)."""
    want = (shape.m, shape.k, shape.k, shape.n, shape.m, shape.n)
    problems = []
    f = _FORMULA.search(text)
    if f and tuple(map(int, f.groups())) != want:
        problems.append(f"manual says {f.group(0)}, the name says {shape.m}x{shape.k} * {shape.k}x{shape.n}")
    e = _EVAL_FORMULA.search(text)
    if e:
        g = e.groups()
        dims = (int(g[4]), int(g[5]), int(g[7]), int(g[8]), int(g[1]), int(g[2]))
        a_k = shape.k // 2 if shape.sparse else shape.k          # SWMMAC's S0 is the packed nonzeros
        if dims != (shape.m, a_k, *want[2:]):
            problems.append(f"manual says {e.group(0)}, the name says {shape.m}x{shape.k} * {shape.k}x{shape.n}")
        types = (g[0], g[3], g[6], g[9])
        name_a = {"iu8": "iu8", "iu4": "iu4", "f4": "fp4"}.get(shape.a, shape.a)
        name_b = {"iu8": "iu8", "iu4": "iu4", "f4": "fp4"}.get(shape.b, shape.b)
        if types[:3] != (shape.out, name_a, name_b) and shape.a != "f8f6f4":
            problems.append(f"manual types D0.{g[0]} S0.{g[3]} S1.{g[6]}, the name says {shape.out} {shape.a} {shape.b}")
        if types[3] != shape.c_type and shape.c_type != "i32":
            problems.append(f"manual types C as {g[9]}, the name says {shape.c_type}")
    p = None if (f or e) else _PROSE.search(text)
    if p and tuple(map(int, p.groups())) != want:
        problems.append(f"manual says {p.group(0)!r}, the name says {shape.m}x{shape.k} * {shape.k}x{shape.n}")
    if not (f or e or p):
        problems.append("the manual text has no D = A * B + C formula")
    return problems


def errata(shape: MatrixShape, text: str) -> list[str]:
    """check_against_manual problems that are the formula's slips, not the instruction's: input types that
    disagree with the name. The name is the opcode table's and LLVM's (evidence), so it wins and the formula
    is shown beside it (cdna5/README.md:17441: V_WMMA_F32_16X16X64_FP8_BF8 reads `S1.fp8`)."""
    return [p for p in check_against_manual(shape, text) if p.startswith("manual types")]


def element_format(t: str, arch: str, code: int | None = None) -> tuple[str, int]:
    """(format key, bits) of an input type on an arch: fp8 -> fp8_fnuz on cdna3, fp8_ocp elsewhere."""
    if t == "f8f6f4":
        fmt, bits = F8F6F4_CODES[code or 0]
    else:
        fmt, bits = _INPUT[t]
    if fmt in ("fp8", "bf8"):
        fmt = lowp.fp8_format(fmt, lowp.FP8_FLAVOUR.get(arch, ("ocp", ""))[0] == "fnuz").name
    return fmt, bits


def quantize(x: np.ndarray, fmt: str) -> np.ndarray:
    """Values -> the nearest values of the element format (round to nearest even), as float64/int64."""
    x = np.asarray(x)
    if fmt in ("i8", "iu8", "iu4"):
        lim = 8 if fmt == "iu4" else 128
        xi = np.asarray(x, dtype=np.int64)
        signed_ok = ((xi >= -lim) & (xi < lim)).all()
        unsigned_ok = fmt != "i8" and ((xi >= 0) & (xi < 2 * lim)).all()
        if not (signed_ok or unsigned_ok) or not np.array_equal(xi, x):
            extra = f" (signed) or [0, {2 * lim - 1}] (unsigned, NEG bit clear)" if fmt != "i8" else ""
            raise EvalError(f"an {fmt} matrix holds integers in [{-lim}, {lim - 1}]{extra}")
        return xi
    if fmt == "f16":
        return x.astype(np.float16).astype(np.float64)
    if fmt in ("f32", "f64"):
        return x.astype(np.float32 if fmt == "f32" else np.float64).astype(np.float64)
    return x.astype(np.float32).astype(lowp.FORMATS[fmt].dtype).astype(np.float64)


def _blocked(x: np.ndarray, blocks: int, rows: int, cols: int, what: str) -> np.ndarray:
    x = np.asarray(x)
    if blocks == 1 and x.shape[-2:] == (rows, cols) and (x.ndim == 2 or x.shape[-3:-2] != (1,)):
        x = x[..., None, :, :]
    if x.shape[-3:] != (blocks, rows, cols):
        want = f"{rows}x{cols}" if blocks == 1 else f"{blocks}x{rows}x{cols}"
        raise EvalError(f"{what} must be {want} (got {'x'.join(map(str, x.shape))})")
    return x


def multiply(shape: MatrixShape, a: np.ndarray, b: np.ndarray, c: np.ndarray, *, arch: str,
             a_code: int | None = None, b_code: int | None = None,
             scale_a: np.ndarray | None = None, scale_b: np.ndarray | None = None,
             scale_formats: tuple[str, str] = ("e8m0", "e8m0")) -> np.ndarray:
    """D = A @ B + C per block, batched over leading axes; inputs rounded to the instruction's types.

    scale_a (M x K/32) and scale_b (K/32 x N) are E8M0 codes: each multiplies its 32 K values by
    2^(code-127) (cdna4/README.md:1944); scale_formats names another SCALE_FORMATS code per matrix
    (cdna5's E4M3 scales: cdna5/README.md:3731-3736)."""
    fa, _ = element_format(shape.a, arch, a_code)
    fb, _ = element_format(shape.b, arch, b_code)
    A = quantize(_blocked(a, shape.blocks, shape.m, shape.k, "A"), fa)
    B = quantize(_blocked(b, shape.blocks, shape.k, shape.n, "B"), fb)
    C = _blocked(c, shape.blocks, shape.m, shape.n, "C")
    if shape.sparse:
        check_sparse(A)
    if shape.scaled:
        blk = shape.scale_block
        sa = scale_factors(scale_a, (shape.m, shape.k // blk), "scale_a", scale_formats[0])
        sb = scale_factors(scale_b, (shape.k // blk, shape.n), "scale_b", scale_formats[1])
        A = A * np.repeat(sa, blk, axis=-1)[..., None, :, :]
        B = B * np.repeat(sb, blk, axis=-2)[..., None, :, :]
    if shape.out == "i32":
        d = np.matmul(A.astype(np.int64), B.astype(np.int64)) + np.asarray(C, dtype=np.int64)
        d = ((d + (1 << 31)) % (1 << 32)) - (1 << 31)
        return d.astype(np.int32)
    with np.errstate(over="ignore", invalid="ignore"):
        d = np.matmul(A, B) + quantize(C, "f32" if shape.c_type == "f32" else shape.c_type)
    out = {"f32": np.float32, "f64": np.float64, "f16": np.float16}.get(shape.out)
    if out is None:
        return d.astype(np.float32).astype(lowp.FORMATS["bf16"].dtype)
    return d.astype(out)


def check_sparse(a: np.ndarray) -> None:
    """A sparse A (logical M x K) has at most two nonzeros in each group of four K values."""
    groups = np.asarray(a).reshape(*np.shape(a)[:-1], -1, SPARSE_GROUP)
    if ((groups != 0).sum(axis=-1) > SPARSE_KEPT).any():
        raise EvalError("a sparse A has at most 2 nonzero values in each group of 4 along K "
                        "(2:4 structured sparsity)")


def compress(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Logical 2:4-sparse A (... x M x K) -> (values ... x M x K/2, index pairs ... x M x K/4 x 2), index0 < index1.

    The registers hold the values and the 2-bit index pairs (cdna4/README.md:2079); a group with fewer than
    two nonzeros keeps zeros at the lowest free positions."""
    check_sparse(a)
    groups = np.asarray(a).reshape(*np.shape(a)[:-1], -1, SPARSE_GROUP)
    order = np.argsort(np.where(groups != 0, 0, 1) * SPARSE_GROUP + np.arange(SPARSE_GROUP), axis=-1, kind="stable")
    idx = np.sort(order[..., :SPARSE_KEPT], axis=-1)
    vals = np.take_along_axis(groups, idx, axis=-1)
    return vals.reshape(*np.shape(a)[:-1], -1), idx


def expand(values: np.ndarray, index: np.ndarray, k: int) -> np.ndarray:
    """(values ... x M x K/2, index pairs ... x M x K/4 x 2) -> logical A (... x M x K)."""
    idx = np.asarray(index)
    if (idx[..., 0] >= idx[..., 1]).any() or (idx < 0).any() or (idx >= SPARSE_GROUP).any():
        raise EvalError("sparse index pairs need index0 < index1, both in 0-3 (cdna4/README.md:2116)")
    vals = np.asarray(values).reshape(*idx.shape)
    out = np.zeros((*idx.shape[:-1], SPARSE_GROUP), dtype=vals.dtype)
    np.put_along_axis(out, idx, vals, axis=-1)
    return out.reshape(*idx.shape[:-2], k)


# Block-scale formats: name -> (largest code, the format whose value a code has). E8M0: 2^(code-127), 0xFF NaN
# (cdna4/README.md:1944). E4M3 scales are unsigned: 7 bits, bias 7, 111_1111 NaN, max 1.75 * 2^8 (the cdna5 scale
# table, cdna5/README.md:3738-3750), i.e. the OCP E4M3 value of a code with the sign bit clear; PTX's .ue4m3
# (ptx-isa-9.4 9.7.16.2 line 26) is read the same way.
SCALE_FORMATS = {"e8m0": (255, "e8m0"), "ue4m3": (127, "fp8_ocp")}


def scale_factors(s: np.ndarray | None, want: tuple[int, int], what: str, fmt: str = "e8m0") -> np.ndarray:
    """Scale codes (want-shaped, SCALE_FORMATS[fmt]) -> their factors; None -> all 1."""
    if s is None:
        return np.ones(want)
    s = np.asarray(s)
    top, value_format = SCALE_FORMATS[fmt]
    if s.shape[-2:] != want or not np.issubdtype(s.dtype, np.integer) or ((s < 0) | (s > top)).any():
        raise EvalError(f"{what} must be {want[0]}x{want[1]} {fmt.upper()} codes (integers 0-{top})")
    return lowp.decode(s, lowp.FORMATS[value_format]).astype(np.float64)


def accumulation_bound(shape: MatrixShape, a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Per-element bound on |hardware - multiply()| for float32 output (module docstring)."""
    u = 2.0 ** -24
    n = shape.k + 1
    gamma = n * u / (1 - n * u)
    mag = np.matmul(np.abs(np.asarray(a, dtype=np.float64)), np.abs(np.asarray(b, dtype=np.float64)))
    return gamma * (mag + np.abs(np.asarray(c, dtype=np.float64))) + u * np.abs(np.asarray(c, dtype=np.float64))


# ------------------------------------------------------------------ register layouts


@dataclass(frozen=True, slots=True)
class KSplit:
    """A wave32 WMMA/SWMMAC A or B layout as the bits of K (most significant first) that pick the lane half
    (lanes 16-31), the register and the element's position in it; K past one span goes to the next registers, and
    rows (columns of B) 16-31 to the registers after all K. `regs` is how many registers one span fills where
    elements run across register boundaries (cdna5 6-bit: 32 values in 6 VGPRs), else 2^len(reg)."""

    half: tuple[int, ...]
    reg: tuple[int, ...]
    pos: tuple[int, ...]
    source: str
    regs: int = 0

    @property
    def span(self) -> int:
        return 1 << (len(self.half) + len(self.reg) + len(self.pos))

    @property
    def span_regs(self) -> int:
        return self.regs or (1 << len(self.reg))


# RDNA4 wave32 WMMA (rdna4/README.md:3216-3292): per element bit width, from the field table at :3231
# ("{ row[2], col[3:0] } { row[3], row[1] } row[0]" for 16-bit B: K[2] lane half, {K[3], K[1]} register, K[0]
# position); A is B with M for N; K past 16 (32 for 4-bit) goes to "the next consecutive group of VGPRs" (:3341).
RDNA4_AB = {16: KSplit((2,), (3, 1), (0,), "rdna4/README.md:3231"),
            8: KSplit((3,), (2,), (1, 0), "rdna4/README.md:3231"),
            4: KSplit((4,), (3,), (2, 1, 0), "rdna4/README.md:3231 (4-bit A 16x32: {col[4], row[3:0]} col[3] col[2:0])")}
# the 4-bit 16x16 (K=16) row of the same table: "{ row[3], col[3:0] } 0 row[2:0]", one VGPR (Table 43, :3260:
# "A=B=1 from first subv only"; LLVM: v_wmma_i32_16x16x16_iu4 v[2:9], v0, v1, v[2:9] in gfx12_asm_wmma_w32.s:329)
RDNA4_AB_4BIT_K16 = KSplit((3,), (), (2, 1, 0), "rdna4/README.md:3231 (4-bit B 16x16: { row[3], col[3:0] } 0 row[2:0])")
# cdna5 dense WMMA, 7.12.2 "Matrix Element Storage in VGPRs" (A tables; B is A with N for M, cdna5/README.md:3561).
CDNA5_WMMA_AB = {
    32: KSplit((1,), (0,), (), "cdna5/README.md:3587-3593 (32-bit A 16x4: K=0,1 in lanes 0-15, K=2,3 in 16-31)"),
    16: KSplit((3,), (2, 1), (0,), "cdna5/README.md:3595-3604 (16-bit A 16x32: K=0..7 lanes 0-15, 8..15 lanes 16-31, "
                                   "K=16-31 in VGPRs 4-7)"),
    8: KSplit((3,), (4, 2), (1, 0), "cdna5/README.md:3606-3617 (8-bit A 16x64: K=0-3 V0, 4-7 V1, 8-11 V0 lanes 16-31, "
                                    "16-19 V2; 'A 16x128 8-bit matrix is just two 16x64 matrices', :3617)"),
    4: KSplit((5,), (4, 3), (2, 1, 0), "cdna5/README.md:3619-3630 (4-bit A 16x128: K=0-31 lanes 0-15 V0-3, 32-63 "
                                       "lanes 16-31, K+64 in V4-7; 32x128: M=16..31 in the second set, :3630)"),
}
# cdna5 F8F6F4 / F4 forms, 7.12.6.1 "Matrix Data Layout" of the block-scale section (cdna5/README.md:3778-3821),
# which the dense section points to for them (:3632). Its 8-bit table is not the dense one (K=16..19 sit in V0 of
# lanes 16-31 here, in V2 of lanes 0-15 there): the two tables disagree and each instruction kind follows its own.
CDNA5_F8F6F4_AB = {
    8: KSplit((4,), (3, 2), (1, 0), "cdna5/README.md:3784-3799 (8-bit: K=0..15 lanes 0-15 V0-3, 16..31 lanes 16-31, "
                                    "K+32 in V4-7)"),
    6: KSplit((5,), (), (4, 3, 2, 1, 0), "cdna5/README.md:3801-3811 ({V5..V0} = {K=31..K=0} in lane 0; K=32..63 "
                                         "lanes 16-31; K+64 in V6-11)", regs=6),
    4: KSplit((5,), (4, 3), (2, 1, 0), "cdna5/README.md:3813-3821 (4-bit: K=0..31 lanes 0-15 V0-3, K+64 in V4-7)"),
}
# cdna5 SWMMAC, 7.12.4-5: B as written (cdna5/README.md:3657-3666 16-bit: 'Vn: lanes0-15 hold K=0 and K=1; lanes 16-31
# hold K=16, K=17', K=32.. in Vn+8; :3694-3702 8-bit: Vn K=0..3 / 16..19, Vn+4 K=32..35, Vn+8.. K=64..127). The
# packed A (M x K/2) takes the same split of its packed K: for 16-bit the index pseudocode says so (:3676-3681:
# lane = col[5]*16 + row, code of packed K at bit 2*(packed K % 16), "bits[5:4] to V1[15:0]", :3672); for 8-bit
# the manual gives only the index bits of V0-V3 (:3706), so A as B there is an inference (page note says so).
CDNA5_SWMMAC_AB = {
    16: KSplit((4,), (3, 2, 1), (0,), "cdna5/README.md:3657-3681"),
    8: KSplit((4,), (3, 2), (1, 0), "cdna5/README.md:3694-3706"),
}
RDNA4_ARCHS = ("rdna4",)
RDNA3_ARCHS = ("rdna3", "rdna3.5")
SMFMAC_ARCHS = ("cdna3", "cdna4")


def _k_field(k: np.ndarray, positions: tuple[int, ...]) -> np.ndarray:
    out = np.zeros_like(k)
    for p in positions:
        out = (out << 1) | ((k >> p) & 1)
    return out


def _ksplit(shape: MatrixShape, arch: str | None, bits: int) -> KSplit | None:
    """The K split of a wave32 A/B on this arch; None where A/B follow another rule (MFMA, RDNA3's copies)."""
    if arch == "cdna5" and shape.family in ("wmma", "swmmac"):
        table = (CDNA5_SWMMAC_AB if shape.sparse else
                 CDNA5_F8F6F4_AB if shape.a == "f8f6f4" or shape.scaled else CDNA5_WMMA_AB)
    elif arch in RDNA4_ARCHS and shape.family == "wmma":
        if bits == 4 and shape.k == 16:
            return RDNA4_AB_4BIT_K16
        table = RDNA4_AB
    else:
        return None
    if bits not in table:
        raise EvalError(f"{shape.name}: {bits}-bit {arch} inputs have no layout table")
    return table[bits]


def layout_known(shape: MatrixShape, arch: str) -> bool:
    """Whether layout() describes this instruction on this arch: every MFMA; SMFMAC on cdna3/cdna4 (their sparse
    tables); WMMA on RDNA3 (inferred, see layout_note), RDNA4 and cdna5; SWMMAC on cdna5 (see sparse_note for rdna4)."""
    if shape.family == "mfma":
        return True
    if shape.family == "smfmac":
        return arch in SMFMAC_ARCHS
    if shape.family == "swmmac":
        return arch == "cdna5"
    return arch in (*RDNA3_ARCHS, *RDNA4_ARCHS, "cdna5")


# Why RDNA4 SWMMAC has no layout here: its index pseudocode (rdna4/README.md:3351-3352: idxLane = the A lane,
# idxFirstBit = col[3:2]*4) needs each lane to hold 8 consecutive packed K of 16-bit A, while the field table's 16-bit
# row (:3231, K[2] picks the lane half) gives lane 0 K=0-3 and 8-11: the two cannot both hold, and no third source
# here decides.
RDNA4_SPARSE_NOTE = ("rdna4's SWMMAC index pseudocode (rdna4/README.md:3351-3352) and its 16-bit field table (:3231) "
                     "contradict each other on which packed K values a lane holds; no other source here decides")


def _smfmac_ab(shape: MatrixShape, operand: str, bits: int, mn: np.ndarray, k: np.ndarray) -> tuple[np.ndarray, ...]:
    """cdna3/cdna4 SMFMAC A (packed M x K/2) and B: each lane group of M (N) lanes takes a chunk of K that fills 4
    VGPRs of B (8 16-bit or 16 8-bit values: Tables 34/36, cdna4/README.md:2142-2191, 7.5.1.3 :2211-2290); K past one
    chunk per lane group goes to the next 4 VGPRs (B[64][16] v4 k=32-33, :2215-2223). A's chunk is half B's: the packed
    values of the same K, in 2 VGPRs (cdna3's forms, :2102) or 4 (cdna4's doubled K)."""
    size = shape.m if operand == "A" else shape.n
    groups = shape.wave // size
    chunk = (128 // bits) // (2 if operand == "A" else 1)
    lane = mn + size * ((k // chunk) % groups)
    slot = k % chunk + chunk * (k // (chunk * groups))
    return lane, (slot * bits) // 32, (slot * bits) % 32


def layout(shape: MatrixShape, operand: str, bits: int, opsel: int = 0, arch: str | None = None) -> np.ndarray:
    """For every element (block, row, col) of `operand`: (lane, register, bit offset); an element of a width that
    does not divide 32 may run on into the next register (cdna5 6-bit). Operands: A (M x K; a sparse form's packed
    M x K/2), B, C, D; index (sparse forms: the 2-bit code of each packed A element, M x K/2; opsel picks the CDNA
    index set, ABID); scale_a, scale_b of scaled forms as (row, K block) and (column, K block). `arch` picks the
    arch's layout (without it: CDNA MFMA rules, RDNA3 WMMA)."""
    ks = _ksplit(shape, arch, bits) if operand in ("A", "B") else None
    if operand in ("A", "B"):
        rows, cols = (shape.m, shape.k) if operand == "A" else (shape.k, shape.n)
        if shape.sparse and operand == "A":
            cols //= 2
        bi, ri, ci = np.meshgrid(np.arange(shape.blocks), np.arange(rows), np.arange(cols), indexing="ij")
        mn, k = (ri, ci) if operand == "A" else (ci, ri)      # the M (or N) index and the K index
        if ks is not None:
            flat = _k_field(k, ks.reg) * 32 + _k_field(k, ks.pos) * bits
            k_all = cols if operand == "A" else rows
            per_rows = -(-k_all // ks.span) * ks.span_regs             # registers of 16 rows (columns)
            lane = mn % 16 + 16 * _k_field(k, ks.half)
            reg = flat // 32 + ks.span_regs * (k // ks.span) + per_rows * (mn // 16)
            return np.stack([lane, reg, flat % 32], axis=-1)
        if shape.family == "smfmac":
            lane, reg, bit = _smfmac_ab(shape, operand, bits, mn, k)
            return np.stack([lane, reg, bit], axis=-1)
        if 32 % bits and shape.family != "mfma":
            raise EvalError(f"{shape.name}: packing {bits}-bit elements across register boundaries is not modelled")
        # MFMA 6-bit items are dense in 6 registers read as one 192-bit register, "item 4 in bits 35-30"
        # (cdna4/README.md:1727): the item's bit offset below runs on into the next register
        if shape.family == "wmma":
            lane, slot = mn, k
        else:
            size = shape.m if operand == "A" else shape.n
            per_lane = size * shape.k * shape.blocks // shape.wave
            lane = mn + size * bi + size * shape.blocks * (k // per_lane)
            slot = k % per_lane
        reg, bit = (slot * bits) // 32, (slot * bits) % 32
    elif operand in ("C", "D"):
        bi, ri, ci = np.meshgrid(np.arange(shape.blocks), np.arange(shape.m), np.arange(shape.n), indexing="ij")
        bit = np.zeros_like(ri)
        if arch in (*RDNA4_ARCHS, "cdna5") and shape.family in ("wmma", "swmmac") and bits in (16, 32):
            # rdna4/README.md:3292 VGPR[(row / 8) * 16 + col][row % 8], 16-bit :3294 two rows per VGPR;
            # cdna5/README.md:3563-3585, rows 16-31 of a 32x16 D in VGPRs 8-15 (:3573)
            lane = ((ri // 8) % 2) * 16 + ci
            per = 8 if bits == 32 else 4
            reg = (ri % 8) // (32 // bits) + per * (ri // 16)
            bit = 16 * (ri % 2) if bits == 16 else bit
        elif bits != 32:
            raise EvalError(f"{shape.name}: {bits}-bit C/D registers are not modelled")
        elif shape.family == "wmma":
            lane, reg = ci + 16 * (ri % 2), ri // 2
        else:
            tiles = shape.wave // shape.n                     # 4 x N tiles side by side in one register group
            t = bi * (shape.m // 4) + ri // 4
            lane, reg = ci + shape.n * (t % tiles), 4 * (t // tiles) + ri % 4
    elif operand == "index" and shape.sparse:
        return _index_layout(shape, arch, opsel)
    elif operand in ("scale_a", "scale_b") and shape.scaled:
        size, blocks_k = (shape.m if operand == "scale_a" else shape.n), shape.k // shape.scale_block
        _, ri, ci = np.meshgrid(np.arange(1), np.arange(size), np.arange(blocks_k), indexing="ij")
        if arch == "cdna5":
            # cdna5/README.md:3845-3890: one byte per (row, K block), 4 K blocks per VGPR (16 values per scale: two
            # VGPRs); 16-row matrices in lanes 0-15, or 16-31 with SCL_OPSEL[0] (:3839); 32-row F4 in lanes 0-31
            lane = ri + (16 * (opsel & 1) if size == 16 else 0)
            reg, bit = ci // 4, 8 * (ci % 4)
        else:
            # 64 E8M0 bytes, one per lane, in the byte OPSEL picks (cdna4/README.md:1964, :1967); which lane holds
            # which (row, K block) is drawn, not written, in the manual: here the lane that holds those 32
            # A (B) values, the CDNA input rule above (an assumption, stated)
            lane, reg, bit = ri + size * ci, np.zeros_like(ri), np.full_like(ri, 8 * opsel)
    else:
        raise EvalError(f"no matrix operand {operand} for {shape.name}")
    return np.stack([lane, reg, bit], axis=-1)


def _index_layout(shape: MatrixShape, arch: str | None, opsel: int) -> np.ndarray:
    """Where the 2-bit code of each packed A element sits: in the element's own lane, codes in the order of the
    lane's packed values (register, then position), 2 bits each.

    cdna3/cdna4 (Tables 35, 37 and 7.5.1.3, cdna4/README.md:2158-2169, :2193-2207, :2236-2262, :2291-2322): one VGPR,
    `Vn[1:0]` for V0[15:0] (V0[7:0] for 8-bit) onwards; a lane's codes make one set and ABID (opsel here) picks the
    set (:2106, :2110). cdna5 (:3670-3681, :3706): 16 codes per index VGPR, the lane's values past 16 in the next
    VGPR (8-bit: 32 values, the LLVM operand v[32:33] of v_swmmac_*_16x16x128_* in gfx1250_asm_wmma_w32.s)."""
    bits = element_format(shape.a, arch or "")[1]
    a = layout(shape, "A", bits, arch=arch)
    ordinal = (a[..., 1] * 32 + a[..., 2]) // bits
    per_lane = int(ordinal.max()) + 1
    if arch in SMFMAC_ARCHS:
        sets = 32 // (2 * per_lane)
        if not 0 <= opsel < max(sets, 1):
            raise EvalError(f"{shape.name}: index set {opsel} (ABID) does not exist; one VGPR holds {sets}")
        flat = 2 * ordinal + 2 * per_lane * opsel
    else:
        flat = 2 * ordinal
    return np.stack([a[..., 0], flat // 32, flat % 32], axis=-1)


def to_registers(shape: MatrixShape, operand: str, raw: np.ndarray, bits: int, opsel: int = 0,
                 arch: str | None = None) -> np.ndarray:
    """Raw element encodings (blocks x rows x cols) -> registers (regs x lanes) of uint32.

    RDNA3 WMMA A/B lanes 16-31 repeat lanes 0-15 (rdna3/README.md:2611)."""
    lay = layout(shape, operand, bits, opsel, arch)
    raw = np.asarray(raw, dtype=np.uint64).reshape(lay.shape[:-1])
    reg, lane, bit = lay[..., 1].ravel(), lay[..., 0].ravel(), lay[..., 2].ravel().astype(np.uint64)
    nregs = int((lay[..., 1] * 32 + lay[..., 2] + bits - 1).max()) // 32 + 1
    regs = np.zeros((nregs + 1, shape.wave), dtype=np.uint64)
    word = (raw.ravel() & np.uint64((1 << bits) - 1)) << bit          # at most 63 bits: low and next register
    np.bitwise_or.at(regs, (reg, lane), word & np.uint64(0xFFFFFFFF))
    if 32 % bits:                                                     # only widths that can run into the next one
        np.bitwise_or.at(regs, (reg + 1, lane), word >> np.uint64(32))
    regs = regs[:nregs]
    if shape.family == "wmma" and operand in ("A", "B") and arch not in (*RDNA4_ARCHS, "cdna5"):
        regs[:, 16:32] = regs[:, 0:16]
    return regs.astype(np.uint32)


def from_registers(shape: MatrixShape, operand: str, regs: np.ndarray, bits: int, opsel: int = 0,
                   arch: str | None = None) -> np.ndarray:
    """Registers (regs x lanes) -> raw element encodings (blocks x rows x cols)."""
    lay = layout(shape, operand, bits, opsel, arch)
    r = np.asarray(regs, dtype=np.uint64)
    words = r[lay[..., 1], lay[..., 0]]
    if 32 % bits:                   # 6-bit items may continue in the next register
        r = np.concatenate([r, np.zeros((1, r.shape[1]), dtype=np.uint64)])
        words = words | (r[lay[..., 1] + 1, lay[..., 0]] << np.uint64(32))
    return (words >> lay[..., 2].astype(np.uint64)) & np.uint64((1 << bits) - 1)


def encode_elements(x: np.ndarray, fmt: str) -> np.ndarray:
    """Element values -> raw encodings (uint64) of the format (f16, bf16, f32, i8, fp8_ocp ...)."""
    x = np.asarray(x)
    if fmt == "f16":
        return x.astype(np.float16).view(np.uint16).astype(np.uint64)
    if fmt == "f32":
        return x.astype(np.float32).view(np.uint32).astype(np.uint64)
    if fmt == "i32":
        return x.astype(np.int64).astype(np.int32).view(np.uint32).astype(np.uint64)
    if fmt in ("i8", "iu8", "iu4"):
        return x.astype(np.int64).astype(np.uint8).astype(np.uint64) & np.uint64(0xF if fmt == "iu4" else 0xFF)
    f = lowp.FORMATS[fmt]
    if f.bits < 8:
        return x.astype(np.float32).astype(f.dtype).view(np.uint8).astype(np.uint64) & np.uint64((1 << f.bits) - 1)
    return lowp.encode(x.astype(np.float32), f)


def decode_elements(raw: np.ndarray, fmt: str) -> np.ndarray:
    raw = np.asarray(raw, dtype=np.uint64)
    if fmt == "f16":
        return raw.astype(np.uint16).view(np.float16).astype(np.float64)
    if fmt == "f32":
        return raw.astype(np.uint32).view(np.float32).astype(np.float64)
    if fmt == "i8":
        return raw.astype(np.uint8).view(np.int8).astype(np.int64)
    if fmt == "i32":
        return raw.astype(np.uint32).view(np.int32).astype(np.int64)
    if fmt in ("iu8", "iu4"):      # signed, as the NEG bit set says (rdna3/README.md:2389)
        bits = 8 if fmt == "iu8" else 4
        r = raw.astype(np.int64)
        return np.where(r >= 1 << (bits - 1), r - (1 << bits), r)
    return lowp.decode(raw, lowp.FORMATS[fmt]).astype(np.float64)


def run_registers(shape: MatrixShape, arch: str, regs: dict[str, np.ndarray], *, a_code: int | None = None,
                  b_code: int | None = None, opsel: int = 0) -> np.ndarray:
    """The instruction on its per-lane register view: registers of A, B, C (index for sparse forms; scale_a,
    scale_b for scaled ones, E8M0) -> the registers of D. A sparse A is expanded from its packed values and 2-bit
    codes (SMFMAC: codes of set `opsel`, ABID) as the manuals' expansion pseudocode does (cdna5/README.md:3673-3688)."""
    fa, bits_a = element_format(shape.a, arch, a_code)
    fb, bits_b = element_format(shape.b, arch, b_code)
    c_fmt = {"f32": "f32", "i32": "i32", "f16": "f16", "bf16": "bf16"}[shape.c_type]
    d_fmt = {"f32": "f32", "i32": "i32", "f16": "f16", "bf16": "bf16", "f64": "f64"}[shape.out]
    if "f64" in (c_fmt, d_fmt) or shape.a == "f64":
        raise EvalError(f"{shape.name}: 64-bit registers are not modelled")
    c_bits, d_bits = (32 if c_fmt in ("f32", "i32") else 16), (32 if d_fmt in ("f32", "i32") else 16)
    a = decode_elements(from_registers(shape, "A", regs["A"], bits_a, arch=arch), fa)
    if shape.sparse:
        codes = from_registers(shape, "index", regs["index"], 2, opsel, arch).astype(np.int64)
        a = expand(a.reshape(*a.shape[:-1], -1, SPARSE_KEPT), codes.reshape(*codes.shape[:-1], -1, SPARSE_KEPT),
                   shape.k)
    b = decode_elements(from_registers(shape, "B", regs["B"], bits_b, arch=arch), fb)
    c = decode_elements(from_registers(shape, "C", regs["C"], c_bits, arch=arch), c_fmt)
    scales = {}
    for k in ("scale_a", "scale_b"):
        if shape.scaled and k in regs:
            raw = from_registers(shape, k, regs[k], 8, opsel, arch)[0].astype(np.int64)
            scales[k] = raw if k == "scale_a" else raw.T
    d = multiply(shape, a, b, c, arch=arch, a_code=a_code, b_code=b_code, **scales)
    return to_registers(shape, "D", encode_elements(d, d_fmt), d_bits, arch=arch)


# ------------------------------------------------------------------ the instruction page's matrix section


def page_view(name: str, arch: str) -> dict | None:
    """Shape, types and the register layout of A, B and C/D as grids (register x lane -> element), for the
    instruction page; None for a name that is not a matrix instruction. Where the layout is not modelled,
    `layout_note` says why and `layouts` is empty."""
    if not is_matrix_name(name):
        return None
    shape = parse_name(name)
    fa, bits_a = element_format(shape.a, arch)
    fb, bits_b = element_format(shape.b, arch)
    view: dict = {"shape": {"M": shape.m, "N": shape.n, "K": shape.k, "blocks": shape.blocks, "wave": shape.wave},
                  "types": {"A": fa if shape.a != "f8f6f4" else "f8f6f4 (FP8, BF8, FP6, BF6 or FP4 by CBSZ/BLGP)",
                            "B": fb if shape.b != "f8f6f4" else "f8f6f4", "C": shape.c_type, "D": shape.out},
                  "sparse": shape.sparse, "scaled": shape.scaled, "scale_block": shape.scale_block,
                  "layouts": [], "layout_note": ""}
    if not layout_known(shape, arch):
        view["layout_note"] = "The register layout is not modelled: " + (
            RDNA4_SPARSE_NOTE + "." if shape.family == "swmmac" and arch in RDNA4_ARCHS else
            f"no source in the manuals read here gives the {arch} {shape.family.upper()} layout as text.")
        return view
    d_bits = {"f32": 32, "i32": 32, "f64": 64}.get(shape.out, 16)
    ops = [("A", bits_a), ("B", bits_b), ("D", d_bits)] + ([("index", 2)] if shape.sparse else [])
    grids, missing = [], []
    for op, bits in ops:          # draw what is modelled; say what is not (f64 and RDNA3 16-bit C/D)
        try:
            grids.append(_grid(shape, op, bits, arch))
        except EvalError as exc:
            missing.append(exc.reason)
    if not grids:
        view["layout_note"] = "The register layout is not modelled: " + "; ".join(missing)
        return view
    view["layouts"] = grids
    view["layout_note"] = layout_note(shape, arch) + "".join(f" Not drawn: {m}." for m in missing)
    return view


def layout_note(shape: MatrixShape, arch: str) -> str:
    """Where the layout layout() gives for this instruction comes from, in a sentence with its source lines."""
    if shape.family == "mfma":
        return ("From the cdna3 manual's layout rules and example tables (cdna3/README.md:1552-1642), "
                "generalised to every shape and block count.")
    if shape.family == "smfmac":
        return ("B as the sparse tables print it (cdna4/README.md:2142-2191, :2211-2290); the packed A holds the "
                "nonzeros of the same K as B's lanes, in 2 VGPRs (cdna3's forms, :2102) or 4 (cdna4's doubled K); "
                "index codes from Tables 35/37 and 7.5.1.3 (:2158-2169, :2193-2207, :2236-2322), ABID picks the set; "
                "C/D as MFMA (cdna3/README.md:1579-1583).")
    if arch == "cdna5" and shape.family == "swmmac":
        return ("From the cdna5 manual's sparse sections (cdna5/README.md:3645-3706): B as written, the 16-bit "
                "packed A and its index codes from the expansion pseudocode (:3673-3688); the 8-bit packed A is "
                "read as B (the manual gives only its index bits, :3706: an inference); C/D from :3563-3585.")
    if arch == "cdna5":
        which = ("block-scale section's data and scale tables (cdna5/README.md:3778-3890)"
                 if shape.a == "f8f6f4" or shape.scaled else "7.12.2 tables (cdna5/README.md:3549-3630)")
        return f"From the cdna5 manual's {which}; C/D from :3563-3585."
    if arch in RDNA4_ARCHS:
        return ("From the rdna4 manual's matrix storage section (rdna4/README.md:3216-3292; its field "
                "table is garbled in conversion, A is read as B with M and K swapped as the text says).")
    return RDNA3_NOTE


# Why the RDNA3 WMMA layout stays inferred: its only statement of the layout is a diagram (an image,
# rdna3/README.md:2625-2629; the text of the GPUOpen note it cites, :2586, is not in the sources). What text and
# tools do fix: lanes 0-15 copied into 16-31 for A and B (:2611); A column-major, B, C and D row-major (:2625);
# operand widths in LLVM (gfx11_asm_wmma.s: v_wmma_f32_16x16x16_f16 v[16:23], v[0:7], v[8:15], wave32 -- 8 VGPRs
# of A: one lane holds a whole 16-value K row; 8 of D: 8 of a column's 16 values per lane). The split of D's rows
# between the lane halves (row parity here) is the one fact only the image gives.
RDNA3_NOTE = ("Inferred in part: the WMMA layout is given as a diagram (an image, rdna3/README.md:2625-2629). Text and "
              "LLVM fix the rest: A/B lanes 16-31 repeat lanes 0-15 (:2611), A column-major and C/D row-major (:2625), "
              "8 VGPRs of A, B and f32 D per lane (LLVM gfx11_asm_wmma.s); which D rows go to lanes 16-31 (odd rows "
              "here) only the image shows.")


def _grid(shape: MatrixShape, operand: str, bits: int, arch: str) -> dict:
    lay = layout(shape, operand, bits, arch=arch)
    blocks, rows, cols = lay.shape[:3]
    cells: dict[tuple[int, int], dict[int, str]] = {}
    for b in range(blocks):
        for i in range(rows):
            for j in range(cols):
                lane, reg, bit = (int(v) for v in lay[b, i, j])
                label = f"{operand}[{i},{j}]" if blocks == 1 else f"{operand}[{b},{i},{j}]"
                cells.setdefault((reg, bit), {})[lane] = label
    lanes = shape.wave
    out_rows = [{"register": _bits_label(reg, bit, bits), "cells": [row.get(lane, "") for lane in range(lanes)]}
                for (reg, bit), row in sorted(cells.items())]
    kp = shape.k // 2 if shape.sparse else shape.k
    size = {"A": f"{shape.m}x{kp}" + (" packed" if shape.sparse else ""), "B": f"{shape.k}x{shape.n}",
            "D": f"{shape.m}x{shape.n}", "index": f"{shape.m}x{kp}, a 2-bit code per packed A value"}[operand]
    return {"operand": "C/D" if operand == "D" else operand, "size": size, "lanes": list(range(lanes)),
            "rows": out_rows}


def _bits_label(reg: int, bit: int, bits: int) -> str:
    """v3, v3[15:0], or v4[31:30]+v5[3:0] for an element that runs into the next register."""
    if bits == 32:
        return f"v{reg}"
    if bit + bits <= 32:
        return f"v{reg}[{bit + bits - 1}:{bit}]"
    return f"v{reg}[31:{bit}]+v{reg + 1}[{bit + bits - 33}:0]"

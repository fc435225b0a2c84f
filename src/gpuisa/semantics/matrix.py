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
    return MatrixShape(name.lower(), fam, int(m.group("m")), int(m.group("n")), int(m.group("k")),
                       int(m.group("b") or 1), out, a, b, bool(m.group("scale")), fam in ("smfmac", "swmmac"), c,
                       16 if m.group("sblock") else SCALE_BLOCK)


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


# RDNA4 wave32 WMMA (rdna4/README.md:3216-3292): A and B are laid out alike with M (N) and K swapped: per element
# bit width, which bits of K pick the lane half (lanes 16-31), the register and the position in it, from the
# table at :3231 ("{ row[2], col[3:0] } { row[3], row[1] } row[0]" for 16-bit B: K[2] lane half, {K[3], K[1]}
# register, K[0] position); K past 16 (32 for 4-bit) goes to "the next consecutive group of VGPRs" (:3341).
# C/D (32-bit): matrix[row][col] -> VGPR[(row / 8) * 16 + col][row % 8] (:3292).
RDNA4_AB_K_BITS = {16: ((2,), (3, 1), (0,)), 8: ((3,), (2,), (1, 0)), 4: ((4,), (3,), (2, 1, 0))}
RDNA4_ARCHS = ("rdna4",)


def _k_field(k: np.ndarray, positions: tuple[int, ...]) -> np.ndarray:
    out = np.zeros_like(k)
    for p in positions:
        out = (out << 1) | ((k >> p) & 1)
    return out


def layout_known(shape: MatrixShape, arch: str) -> bool:
    """Whether layout() describes this instruction on this arch (module docstring: CDNA MFMA, RDNA3 WMMA;
    RDNA4 WMMA from its manual's storage section)."""
    if shape.sparse:
        return False
    return shape.family == "mfma" or arch in ("rdna3", "rdna3.5", *RDNA4_ARCHS)


def layout(shape: MatrixShape, operand: str, bits: int, opsel: int = 0, arch: str | None = None) -> np.ndarray:
    """For every element (block, row, col) of `operand` (A, B, C, D; scale_a, scale_b of scaled forms as
    (row, K block) and (column, K block)): (lane, register, bit offset). `arch` picks RDNA4's WMMA layout
    (otherwise a WMMA is laid out as on RDNA3)."""
    rdna4 = shape.family == "wmma" and arch in RDNA4_ARCHS
    if operand in ("A", "B"):
        rows, cols = (shape.m, shape.k) if operand == "A" else (shape.k, shape.n)
        bi, ri, ci = np.meshgrid(np.arange(shape.blocks), np.arange(rows), np.arange(cols), indexing="ij")
        mn, k = (ri, ci) if operand == "A" else (ci, ri)      # the M (or N) index and the K index
        size = shape.m if operand == "A" else shape.n
        if rdna4:
            if bits not in RDNA4_AB_K_BITS:
                raise EvalError(f"{shape.name}: {bits}-bit RDNA4 WMMA inputs are not modelled")
            half_b, reg_b, pos_b = RDNA4_AB_K_BITS[bits]
            span = 1 << (len(half_b) + len(reg_b) + len(pos_b))          # K values one register group holds
            lane = mn + 16 * _k_field(k, half_b)
            reg = _k_field(k, reg_b) + (1 << len(reg_b)) * (k // span)
            bit = _k_field(k, pos_b) * bits
            return np.stack([lane, reg, bit], axis=-1)
        if shape.family == "wmma":
            lane, slot = mn, k
        else:
            per_lane = size * shape.k * shape.blocks // shape.wave
            lane = mn + size * bi + size * shape.blocks * (k // per_lane)
            slot = k % per_lane
        reg, bit = (slot * bits) // 32, (slot * bits) % 32
    elif operand in ("C", "D"):
        bi, ri, ci = np.meshgrid(np.arange(shape.blocks), np.arange(shape.m), np.arange(shape.n), indexing="ij")
        if rdna4:
            lane, reg = (ri // 8) * 16 + ci, ri % 8
        elif shape.family == "wmma":
            lane, reg = ci + 16 * (ri % 2), ri // 2
        else:
            tiles = shape.wave // shape.n                     # 4 x N tiles side by side in one register group
            t = bi * (shape.m // 4) + ri // 4
            lane, reg = ci + shape.n * (t % tiles), 4 * (t // tiles) + ri % 4
        bit = np.zeros_like(reg)
        if bits != 32:
            raise EvalError(f"{shape.name}: {bits}-bit C/D registers are not modelled")
    elif operand in ("scale_a", "scale_b") and shape.scaled:
        # 64 E8M0 bytes, one per lane, in the byte OPSEL picks (cdna4/README.md:1964, :1967); which lane holds
        # which (row, K block) is drawn, not written, in the manual: here the lane that holds those 32
        # A (B) values, the CDNA input rule above (an assumption, stated)
        size, blocks_k = (shape.m if operand == "scale_a" else shape.n), shape.k // SCALE_BLOCK
        _, ri, ci = np.meshgrid(np.arange(1), np.arange(size), np.arange(blocks_k), indexing="ij")
        lane, reg, bit = ri + size * ci, np.zeros_like(ri), np.full_like(ri, 8 * opsel)
    else:
        raise EvalError(f"no matrix operand {operand} for {shape.name}")
    if 32 % bits and operand in ("A", "B"):
        raise EvalError(f"{shape.name}: packing {bits}-bit elements across register boundaries is not modelled")
    return np.stack([lane, reg, bit], axis=-1)


def to_registers(shape: MatrixShape, operand: str, raw: np.ndarray, bits: int, opsel: int = 0,
                 arch: str | None = None) -> np.ndarray:
    """Raw element encodings (blocks x rows x cols) -> registers (regs x lanes) of uint32.

    RDNA3 WMMA A/B lanes 16-31 repeat lanes 0-15 (rdna3/README.md:2611)."""
    lay = layout(shape, operand, bits, opsel, arch)
    raw = np.asarray(raw, dtype=np.uint64).reshape(lay.shape[:-1])
    nregs = int(lay[..., 1].max()) + 1
    regs = np.zeros((nregs, shape.wave), dtype=np.uint64)
    mask = np.uint64((1 << bits) - 1)
    np.bitwise_or.at(regs, (lay[..., 1].ravel(), lay[..., 0].ravel()),
                     (raw.ravel() & mask) << lay[..., 2].ravel().astype(np.uint64))
    if shape.family == "wmma" and operand in ("A", "B") and arch not in RDNA4_ARCHS:
        regs[:, 16:32] = regs[:, 0:16]
    return regs.astype(np.uint32)


def from_registers(shape: MatrixShape, operand: str, regs: np.ndarray, bits: int, opsel: int = 0,
                   arch: str | None = None) -> np.ndarray:
    """Registers (regs x lanes) -> raw element encodings (blocks x rows x cols)."""
    lay = layout(shape, operand, bits, opsel, arch)
    words = np.asarray(regs, dtype=np.uint64)[lay[..., 1], lay[..., 0]]
    return (words >> lay[..., 2].astype(np.uint64)) & np.uint64((1 << bits) - 1)


def encode_elements(x: np.ndarray, fmt: str) -> np.ndarray:
    """Element values -> raw encodings (uint64) of the format (f16, bf16, f32, i8, fp8_ocp ...)."""
    x = np.asarray(x)
    if fmt == "f16":
        return x.astype(np.float16).view(np.uint16).astype(np.uint64)
    if fmt == "f32":
        return x.astype(np.float32).view(np.uint32).astype(np.uint64)
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
    return lowp.decode(raw, lowp.FORMATS[fmt]).astype(np.float64)


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
        view["layout_note"] = ("The register layout is not modelled: " +
                               ("the sparse index registers' layout has no source here." if shape.sparse else
                                f"no source in the manuals read here gives the {arch} WMMA layout as text."))
        return view
    try:
        grids = [_grid(shape, op, bits, arch) for op, bits in (("A", bits_a), ("B", bits_b), ("D", 32))]
    except EvalError as exc:
        view["layout_note"] = f"The register layout is not modelled: {exc.reason}"
        return view
    view["layouts"] = grids
    view["layout_note"] = ("From the rdna4 manual's matrix storage section (rdna4/README.md:3216-3292; its field "
                           "table is garbled in conversion, A is read as B with M and K swapped as the text says)."
                           if shape.family == "wmma" and arch in RDNA4_ARCHS else
                           "Inferred, not read from a source: the WMMA layout's diagrams are images "
                           "(rdna3/README.md:2625-2629); lanes 16-31 repeat lanes 0-15 for A and B (:2611)."
                           if shape.family == "wmma" else
                           "From the cdna3 manual's layout rules and example tables (cdna3/README.md:1552-1642), "
                           "generalised to every shape and block count.")
    return view


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
    out_rows = [{"register": f"v{reg}" + (f"[{bit + bits - 1}:{bit}]" if bits < 32 else ""),
                 "cells": [row.get(lane, "") for lane in range(lanes)]}
                for (reg, bit), row in sorted(cells.items())]
    size = {"A": (shape.m, shape.k), "B": (shape.k, shape.n), "D": (shape.m, shape.n)}[operand]
    return {"operand": "C/D" if operand == "D" else operand, "size": f"{size[0]}x{size[1]}", "lanes": list(range(lanes)),
            "rows": out_rows}

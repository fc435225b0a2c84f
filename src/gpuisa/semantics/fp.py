"""IEEE floating point on numpy lanes: formats, bit casts, exact conversions and fused multiply-add.

numpy rounds each float16/32/64 operation to nearest-even in the operand format, which is the
manuals' default; what numpy lacks is fma and bfloat16, added here without double rounding:
a result is first rounded to odd in float64, then to the narrow format (exact when float64
has at least two more bits than the target, Boldo & Melquiond). float64 fma is done exactly on
Python integers per lane.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

U64 = np.uint64
DTYPES = {16: np.float16, 32: np.float32, 64: np.float64}
UINTS = {16: np.uint16, 32: np.uint32, 64: np.uint64}
# (exponent bits, mantissa bits) per format
LAYOUT = {("f", 16): (5, 10), ("f", 32): (8, 23), ("f", 64): (11, 52), ("bf", 16): (8, 7)}


def storage_dtype(kind: str, width: int) -> type:
    """numpy dtype that holds a value of this float format (bf16 lives in float32)."""
    return np.float32 if kind == "bf" else DTYPES[width]


def bits_to_float(bits: np.ndarray, kind: str, width: int) -> np.ndarray:
    """Reinterpret the low `width` bits of uint64 lanes as a float format."""
    if kind == "bf":
        return (bits.astype(np.uint32) << np.uint32(16)).view(np.float32)
    return bits.astype(UINTS[width]).view(DTYPES[width])


def float_to_bits(x: np.ndarray, kind: str, width: int) -> np.ndarray:
    """Bit pattern of float lanes as uint64."""
    if kind == "bf":
        return (round_to_bf16(x).view(np.uint32) >> np.uint32(16)).astype(U64)
    return np.ascontiguousarray(x, dtype=DTYPES[width]).view(UINTS[width]).astype(U64)


def round_to_odd_f64(exact_hi: np.ndarray, err: np.ndarray) -> np.ndarray:
    """Given s = RN(x) and the error x - s, return x rounded to odd in float64."""
    bits = exact_hi.view(np.int64)
    even = (bits & 1) == 0
    inexact = err != 0
    with np.errstate(all="ignore"):
        toward = np.nextafter(exact_hi, np.where(err > 0, np.inf, -np.inf))
    fix = inexact & even & np.isfinite(exact_hi)
    return np.where(fix, toward, exact_hi)


def to_odd_f32(x64: np.ndarray) -> np.ndarray:
    """float64 -> float32 rounded to odd, so a later round to bf16 is a single rounding."""
    with np.errstate(all="ignore"):
        f = x64.astype(np.float32)
        back = f.astype(np.float64)
        inexact = (back != x64) & np.isfinite(x64) & np.isfinite(f)
        bits = f.view(np.int32)
        even = (bits & 1) == 0
        toward = np.nextafter(f, np.where(x64 > back, np.float32(np.inf), np.float32(-np.inf)))
    return np.where(inexact & even, toward, f)


def round_to_bf16(x: np.ndarray) -> np.ndarray:
    """Round float32 lanes to the bfloat16 grid, nearest-even; NaNs stay NaN (quieted)."""
    x = np.asarray(x, dtype=np.float32)
    b = x.view(np.uint32).astype(np.uint64)
    rounded = (b + np.uint64(0x7FFF) + ((b >> np.uint64(16)) & np.uint64(1))) & np.uint64(0xFFFF0000)
    nan = np.isnan(x)
    rounded = np.where(nan, (b | np.uint64(0x00400000)) & np.uint64(0xFFFF0000), rounded)
    return rounded.astype(np.uint32).view(np.float32)


def convert(x: np.ndarray, src: tuple[str, int], dst: tuple[str, int]) -> np.ndarray:
    """Value conversion between float formats, rounding to nearest-even once."""
    if src == dst:
        return x
    with np.errstate(all="ignore"):
        if dst[0] == "bf":
            x64 = np.asarray(x, dtype=np.float64)
            return round_to_bf16(to_odd_f32(x64))
        return np.asarray(x, dtype=np.float64 if src[0] == "bf" else x.dtype).astype(DTYPES[dst[1]])


def from_python(value: float, kind: str, width: int, n: int) -> np.ndarray:
    """Lanes holding a Python float converted (rounded once) to a format."""
    arr = np.full(n, value, dtype=np.float64)
    return convert(arr, ("f", 64), (kind, width))


def int_to_float(ints: np.ndarray, signed_values: np.ndarray | None, kind: str, width: int) -> np.ndarray:
    """Integer lanes -> float format, correctly rounded. Lanes are int64/uint64 arrays, or object arrays of Python
    ints (any width). Values that fit 64 bits are split into two halves that float64 holds exactly and summed with
    TwoSum (the float64 sum is the correctly rounded value, the error term exact), all lanes at once; wider ones
    go through Python's exact integers lane by lane."""
    vals = np.asarray(signed_values if signed_values is not None else ints)
    parts = _halves64(vals)
    if parts is None:
        return _int_to_float_exact(vals, kind, width)
    hi, lo = parts
    with np.errstate(all="ignore"):
        s = hi + lo
        bb = s - hi
        err = (hi - (s - bb)) + (lo - bb)        # TwoSum: hi + lo == s + err exactly
    if width == 64 and kind == "f":
        return s
    return convert(round_to_odd_f64(s, err), ("f", 64), (kind, width))


def _halves64(vals: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """(high * 2^32, low) as float64 lanes, both exact, for integers in [-2^63, 2^64); None for wider values."""
    if vals.dtype == object:
        if vals.size == 0:
            return None
        low, high = vals.min(), vals.max()
        if not (isinstance(low, int) and isinstance(high, int)):
            return None
        if low >= 0 and high < 1 << 64:
            vals = vals.astype(np.uint64)
        elif low >= -(1 << 63) and high < 1 << 63:
            vals = vals.astype(np.int64)
        else:
            return None
    if vals.dtype.kind == "u":
        u = vals.astype(np.uint64)
        return (u >> U64(32)).astype(np.float64) * 4294967296.0, (u & U64(0xFFFFFFFF)).astype(np.float64)
    if vals.dtype.kind == "i":
        i = vals.astype(np.int64)
        return (i >> np.int64(32)).astype(np.float64) * 4294967296.0, (i & np.int64(0xFFFFFFFF)).astype(np.float64)
    return None


def _int_to_float_exact(vals: np.ndarray, kind: str, width: int) -> np.ndarray:
    """int_to_float on Python integers of any width, lane by lane."""
    ints = [int(v) for v in vals]
    out64 = np.array([float(Fraction(v)) if abs(v) < (1 << 1000) else float("inf") for v in ints], dtype=np.float64)
    if width == 64 and kind == "f":
        return out64
    # float(int) rounds once to float64; re-round from the exact integer to stay single-rounded
    exact = np.array([Fraction(v) - Fraction(f) if np.isfinite(f) else 0 for v, f in zip(ints, out64, strict=True)])
    err = np.array([float(e) for e in exact], dtype=np.float64)
    odd = round_to_odd_f64(out64, err)
    return convert(odd, ("f", 64), (kind, width))


def float_to_int(x: np.ndarray, signed: bool, width: int) -> np.ndarray | list[int]:
    """Truncate toward zero and saturate to the integer range; NaN gives 0 (AMD's rule). Lanes as int64 (signed) or
    uint64 (unsigned) for widths up to 64, Python ints beyond."""
    lo, hi = (-(1 << (width - 1)), (1 << (width - 1)) - 1) if signed else (0, (1 << width) - 1)
    v = np.asarray(x, dtype=np.float64)
    if width > 64:
        return [0 if np.isnan(t) else hi if t == np.inf else lo if t == -np.inf else max(lo, min(hi, int(t)))
                for t in v]
    with np.errstate(all="ignore"):
        t = np.trunc(v)
        nan = np.isnan(t)
        over = ~nan & (t >= float(hi + 1))           # hi + 1 is a power of two: exact in float64
        under = ~nan & (t < float(lo))
        inside = np.where(nan | over | under, 0.0, t)
    dtype = np.int64 if signed else np.uint64
    out = inside.astype(dtype)
    out = np.where(over, dtype(hi), out)
    return np.where(under, dtype(lo), out).astype(dtype)


def _fma_exact64(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """float64 a*b+c rounded once: exact on Python integers per lane (a float is n / 2^k; int / int true division is
    correctly rounded, ties to even)."""
    with np.errstate(all="ignore"):
        prod = a * b
        naive = prod + c
    out = naive.copy()
    # lanes where a*b is exact in float64 (zero factor, or significands of at most 53 bits together and a normal
    # product): a*b+c rounds once, as numpy computes it; the others (and non-finite ones, which numpy gets right) below
    exact = (a == 0) | (b == 0) | ((_significant_bits(a) + _significant_bits(b) <= 53) & np.isfinite(prod)
                                   & (np.abs(prod) > 2.0 ** -1022))
    slow = np.nonzero(np.isfinite(a) & np.isfinite(b) & np.isfinite(c) & ~exact)[0]
    for i, x, y, z in zip(slow.tolist(), a[slow].tolist(), b[slow].tolist(), c[slow].tolist(), strict=True):
        nx, dx = x.as_integer_ratio()
        ny, dy = y.as_integer_ratio()
        nz, dz = z.as_integer_ratio()
        dp = dx * dy                             # powers of two: the larger is a multiple of the smaller
        den = max(dp, dz)
        num = nx * ny * (den // dp) + nz * (den // dz)
        if num == 0:
            # IEEE: exact zero sum takes +0 unless both addends are -0
            prod_neg = math.copysign(1.0, x) * math.copysign(1.0, y) < 0
            out[i] = -0.0 if (prod_neg and math.copysign(1.0, z) < 0) else 0.0
            continue
        try:
            out[i] = num / den
        except OverflowError:
            out[i] = math.inf if num > 0 else -math.inf
    return out


def _significant_bits(x: np.ndarray) -> np.ndarray:
    """Bits from the highest to the lowest set bit of each float64's integer significand (0 for zero)."""
    bits = x.view(np.uint64)
    man = bits & U64((1 << 52) - 1)
    sig = np.where((bits >> U64(52)) & U64(0x7FF) != 0, man | U64(1 << 52), man)
    low = sig & (~sig + U64(1))                                     # lowest set bit
    top = np.frexp(sig.astype(np.float64))[1]                       # bit length (sig < 2^53: exact in float64)
    return np.where(sig == 0, 0, top - np.bitwise_count(low - U64(1)).astype(np.int64))


def fma(a: np.ndarray, b: np.ndarray, c: np.ndarray, kind: str, width: int) -> np.ndarray:
    """Fused a*b+c rounded once to the operands' format."""
    if kind == "f" and width == 64:
        return _fma_exact64(np.asarray(a, np.float64), np.asarray(b, np.float64), np.asarray(c, np.float64))
    with np.errstate(all="ignore"):
        a64, b64, c64 = (np.asarray(v, dtype=np.float64) for v in (a, b, c))
        p = a64 * b64  # exact: 2 * 24 bits < 53
        s = p + c64
        bb = s - p
        err = (p - (s - bb)) + (c64 - bb)  # TwoSum error term
        err = np.where(np.isfinite(s), err, 0.0)
        odd = round_to_odd_f64(s, err)
        # keep IEEE signed-zero rules of the exact sum
        odd = np.where((s == 0) & (err == 0), p + c64, odd)
    return convert(odd, ("f", 64), (kind, width))


def frac_bits(kind: str, width: int) -> int:
    return LAYOUT[(kind, width)][1]


def exp_bits(kind: str, width: int) -> int:
    return LAYOUT[(kind, width)][0]


def is_signaling(bits: np.ndarray, kind: str, width: int) -> np.ndarray:
    """NaN with the quiet bit (top mantissa bit) clear."""
    e, m = LAYOUT[(kind, width)]
    exp = (bits >> U64(m)) & U64((1 << e) - 1)
    mant = bits & U64((1 << m) - 1)
    quiet = (bits >> U64(m - 1)) & U64(1)
    return (exp == U64((1 << e) - 1)) & (mant != 0) & (quiet == 0)


def quiet_bits(bits: np.ndarray, kind: str, width: int) -> np.ndarray:
    """Set the quiet bit of NaN lanes."""
    _, m = LAYOUT[(kind, width)]
    return bits | U64(1 << (m - 1))

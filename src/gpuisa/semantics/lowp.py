"""Low-precision float formats (FP8/BF8 in OCP and FNUZ flavours, FP6, BF6, FP4, BF16, E8M0) and
the pseudocode helpers that convert them (fp8_to_f32, f32_to_bf8 ...).

The number formats themselves come from ml_dtypes; this module says which flavour each
architecture's manual defines (FP8_FLAVOUR) and where a manual's rule differs from ml_dtypes'
default cast (RULES). Both tables cite the manual line. The helpers read the flavour from the
machine state `machine_state(arch)` adds, so `gpuisa eval v_cvt_pk_fp8_f32 --arch cdna3` runs
the manual's own pseudocode with the FNUZ formats and cdna4 the OCP ones.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import ml_dtypes
import numpy as np
from lark import Tree

from gpuisa.semantics import fp
from gpuisa.semantics.builtins import builtin, builtin_family
from gpuisa.semantics.types import TV


@dataclass(frozen=True, slots=True)
class Format:
    """One small float format: the ml_dtypes type that holds it and its width in bits."""

    name: str
    dtype: Any
    bits: int

    @property
    def max(self) -> float:
        return float(ml_dtypes.finfo(self.dtype).max)


FORMATS: dict[str, Format] = {f.name: f for f in (
    Format("fp8_ocp", ml_dtypes.float8_e4m3fn, 8),      # E4M3, bias 7, no Inf, NaN S.1111.111, max 448
    Format("bf8_ocp", ml_dtypes.float8_e5m2, 8),        # E5M2, bias 15, IEEE-like Inf/NaN, max 57344
    Format("fp8_fnuz", ml_dtypes.float8_e4m3fnuz, 8),   # E4M3, bias 8, one NaN 0x80, no -0, max 240
    Format("bf8_fnuz", ml_dtypes.float8_e5m2fnuz, 8),   # E5M2, bias 16, one NaN 0x80, no -0, max 57344
    Format("fp6", ml_dtypes.float6_e2m3fn, 6),          # E2M3, bias 1, no Inf/NaN, max 7.5
    Format("bf6", ml_dtypes.float6_e3m2fn, 6),          # E3M2, bias 3, no Inf/NaN, max 28
    Format("fp4", ml_dtypes.float4_e2m1fn, 4),          # E2M1, bias 1, no Inf/NaN, max 6
    Format("bf16", ml_dtypes.bfloat16, 16),
    Format("e8m0", ml_dtypes.float8_e8m0fnu, 8),        # scale: 2^(e-127), 0xFF NaN
)}

# Which FP8/BF8 flavour an architecture's manual defines: (flavour, manual line that says so).
FP8_FLAVOUR: dict[str, tuple[str, str]] = {
    "cdna3": ("fnuz", "amd-isa-manuals/cdna3/README.md:1828-1829 (Table 30: FP8 E4M3 bias 8, NaN 0x80, max 240; "
                      "BF8 E5M2 bias 16, Inf and NaN both 0x80)"),
    "cdna4": ("ocp", "amd-isa-manuals/cdna4/README.md:1983-1984 (Table 30: FP8 E4M3 bias 7, NaN 0x7F/0xFF, max 448; "
                     "BF8 E5M2 bias 15, Inf 0x7C/0xFC)"),
    "rdna4": ("ocp", "amd-isa-manuals/rdna4/README.md:2769-2770 (FP8 ExpBias = 7; BF8 ExpBias = 15)"),
    "cdna5": ("ocp", "amd-isa-manuals/cdna5/README.md:2861-2864 (FP8 E4M3 bias 7; BF8 E5M2 bias 15)"),
}

# Where the manuals' conversion rules differ from ml_dtypes' default cast (round to nearest
# even, overflow to Inf where the format has one, else NaN). Each rule: what it does, the line.
RULES: dict[str, tuple[str, str]] = {
    "fp16-ovfl-saturates": (
        "With MODE.FP16_OVFL=1, +-Inf and values beyond the format's max convert to +-max (NaN stays NaN); "
        "ml_dtypes has no saturating cast, so the input is clamped to [-max, max] first.",
        "amd-isa-manuals/cdna3/README.md:1876-1879; cdna4/README.md:2057-2059; rdna4/README.md:2817-2820"),
    "overflow-after-rounding": (
        "'Greater than max FP8 magnitude' is read after rounding (IEEE 754 overflow): a value below max plus "
        "half an ulp rounds to max, as ml_dtypes does; the manual does not say which.",
        "amd-isa-manuals/cdna3/README.md:1879"),
    "sr-truncates": (
        "Stochastic-rounding converts (V_CVT_SR_*) add the random bits in the pseudocode and then truncate: "
        "the final f32_to_fp8/f32_to_bf8 rounds toward zero, although the block sets ROUND_NEAREST_EVEN.",
        "amd-isa-manuals/cdna3/README.md:1855 ('add a random value ... and then truncate'); rdna4/README.md:2792"),
    "scale-is-exponent-bias": (
        "A scaled conversion's E8M0 scale (bias 127) is added to the exponent of each F4/F6/F8 value: from "
        "F4/F6/F8 the value is multiplied by 2^(scale-127), to F4/F6/F8 it is divided by it before rounding; "
        "scale 0xFF (E8M0 NaN) gives NaN.",
        "amd-isa-manuals/cdna4/README.md:1465 ('add an 8-bit exponent bias (E8M0, bias of 127) to each F4/F6/F8 "
        "value'); cdna4/README.md:2035"),
    "f6-f4-saturate": (
        "To FP6/BF6/FP4 a value beyond the format's range after rounding becomes +-max (sign kept) and FP16_OVFL "
        "does not apply; ml_dtypes' float6/float4 casts do the same, so no change is needed (tested).",
        "amd-isa-manuals/cdna4/README.md:2034 ('Conversion to F4/F6 does not support FP16_OVFL'), :2038"),
    "f6-f4-nan": (
        "NaN has no FP6/BF6/FP4 encoding (Table 30: N/A) and the manual does not say what a NaN converts to; "
        "the result is ml_dtypes' (-0: the sign bit alone), an undocumented choice.",
        "amd-isa-manuals/cdna4/README.md:1985-1987"),
    "sr-random-bits": (
        "The _sr_ conversions add the top d bits of the 32-bit random value below the kept mantissa (d = source "
        "mantissa bits - result mantissa bits, as V_CVT_SR_FP8_F32 adds S1[31:12] to the 23-bit mantissa for "
        "E4M3's 3) and then truncate toward zero; the manual gives no pseudocode for these helpers.",
        "amd-isa-manuals/cdna3/README.md:14029 (m = ... + S1[31 : 12].u32); cdna4/README.md:2019"),
}

# Machine state the helpers read (names start with '_' so no pseudocode can name them).
FNUZ_KEY = "_FP8_FNUZ"
OVFL_KEY = "MODE.FP16_OVFL"
TRUNCATE_KEY = "_FP8_TRUNCATE"


def machine_state(arch: str | None) -> dict[str, int]:
    """The FP8 flavour of `arch` and MODE.FP16_OVFL's reset value (0), for run.machine_for."""
    flavour = FP8_FLAVOUR.get(arch or "", ("ocp", ""))[0]
    return {FNUZ_KEY: int(flavour == "fnuz"), OVFL_KEY: 0, TRUNCATE_KEY: 0}


def fp8_format(kind: str, fnuz: bool) -> Format:
    """'fp8' or 'bf8' in the flavour the architecture uses."""
    return FORMATS[f"{kind}_{'fnuz' if fnuz else 'ocp'}"]


def decode(bits: np.ndarray, fmt: Format) -> np.ndarray:
    """Raw encodings (the low `fmt.bits` bits of each integer) -> float32 values."""
    mask = (1 << fmt.bits) - 1
    raw = (np.asarray(bits).astype(np.uint64) & np.uint64(mask)).astype(np.uint16 if fmt.bits == 16 else np.uint8)
    return raw.view(fmt.dtype).astype(np.float32)


def encode(x: np.ndarray, fmt: Format, *, saturate: bool = False, truncate: bool = False) -> np.ndarray:
    """float32 values -> raw encodings (uint64), rounding to nearest even (or toward zero).

    saturate: rule fp16-ovfl-saturates; truncate: rule sr-truncates."""
    x = np.asarray(x, dtype=np.float32)
    if saturate:
        x = np.where(np.isnan(x), x, np.clip(x, -fmt.max, fmt.max)).astype(np.float32)
    if truncate:
        x = _toward_zero(x, fmt)
    uint = np.uint16 if fmt.bits == 16 else np.uint8
    return x.astype(fmt.dtype).view(uint).astype(np.uint64)


def _toward_zero(x: np.ndarray, fmt: Format) -> np.ndarray:
    """The representable value of `fmt` nearest `x` toward zero (kept as float32; exact there)."""
    with np.errstate(all="ignore"):
        raw = x.astype(fmt.dtype).view(np.uint8)
        r = raw.view(fmt.dtype).astype(np.float32)                 # nearest even
        away = np.isfinite(r) & (np.abs(r) > np.abs(x))             # rounded away from zero: one code back
        back = (raw.astype(np.int32) - 1).astype(np.uint8).view(fmt.dtype).astype(np.float32)
        out = np.where(away, back, r)
        big = np.isfinite(x) & ~np.isfinite(r)                      # beyond max: toward zero is max
        return np.where(big, np.copysign(np.float32(fmt.max), x), out).astype(np.float32)


# ------------------------------------------------------------------ pseudocode helpers


def _flags(ip: Any) -> tuple[bool, bool, bool]:
    m = ip.machine
    return bool(m.get(FNUZ_KEY, 0)), bool(m.get(OVFL_KEY, 0)), bool(m.get(TRUNCATE_KEY, 0))


def _one(ip: Any, args: list[TV], node: Tree, name: str) -> TV:
    if len(args) != 1:
        raise ip.fail(f"{name}() takes 1 argument, got {len(args)}", node)
    return args[0]


def _to_f32(kind: str):
    def helper(ip: Any, args: list[TV], node: Tree) -> TV:
        v = _one(ip, args, node, f"{kind}_to_f32")
        ip.need_numpy(node)
        data, _ = ip.bits(ip.as_int(v, node))
        fnuz, _, _ = _flags(ip)
        return TV("f", 32, decode(np.asarray(data), fp8_format(kind, fnuz)))
    return helper


def _from_f32(kind: str):
    def helper(ip: Any, args: list[TV], node: Tree) -> TV:
        v = _one(ip, args, node, f"f32_to_{kind}")
        ip.need_numpy(node)
        x = ip.to_float(v, "f", 32, node) if (v.kind, v.width) != ("f", 32) else v.data
        fnuz, saturate, truncate = _flags(ip)
        raw = encode(np.asarray(x, dtype=np.float32), fp8_format(kind, fnuz), saturate=saturate, truncate=truncate)
        return TV("b", 8, ip.dom.from_ints(np.atleast_1d(raw).astype(np.uint64), 8))
    return helper


builtin("fp8_to_f32")(_to_f32("fp8"))
builtin("bf8_to_f32")(_to_f32("bf8"))
builtin("f32_to_fp8")(_from_f32("fp8"))
builtin("f32_to_bf8")(_from_f32("bf8"))

# Opcodes whose final conversion truncates (rule sr-truncates); run.machine_for's caller sets TRUNCATE_KEY.
SR_OPCODES = frozenset({"v_cvt_sr_fp8_f32", "v_cvt_sr_bf8_f32"})


# ------------------------------------------------------------------ the wider family: any of these to any,
# with stochastic rounding (_sr) and an E8M0 scale (_scale): f32_to_fp6_sr_scale(x, random, scale) ...

_SMALL_BITS = {"fp8": 8, "bf8": 8, "fp6": 6, "bf6": 6, "fp4": 4}
_WIDE = {"f32": ("f", 32, 23), "f16": ("f", 16, 10), "bf16": ("bf", 16, 7)}
_NAME = r"f32|f16|bf16|fp8|bf8|fp6|bf6|fp4"


def small_format(kind: str, fnuz: bool) -> Format:
    """fp8/bf8 in the architecture's flavour; fp6, bf6, fp4 as they are."""
    return fp8_format(kind, fnuz) if kind in ("fp8", "bf8") else FORMATS[kind]


def scale_factor(codes: np.ndarray) -> np.ndarray:
    """E8M0 codes -> 2^(code-127) as float64 (code 255: NaN). Rule scale-is-exponent-bias."""
    c = np.asarray(codes).astype(np.int64) & 0xFF
    return np.where(c == 255, np.nan, np.ldexp(1.0, (c - 127).astype(np.int64)))


def _mantissa_bits(fmt: Format) -> int:
    return int(ml_dtypes.finfo(fmt.dtype).nmant)


def stochastic(y: np.ndarray, random: np.ndarray, src_mant: int, dtype: Any, limit: float) -> np.ndarray:
    """Rule sr-random-bits: |y| plus (top d random bits) of a result ulp, truncated toward zero; float64 out."""
    info = ml_dtypes.finfo(dtype)
    nmant, minexp = int(info.nmant), int(info.minexp)
    d = max(src_mant - nmant, 0)
    frac = (np.asarray(random, dtype=np.uint64) >> np.uint64(32 - d)).astype(np.float64) / float(1 << d) if d else 0.0
    ay = np.abs(y)
    with np.errstate(all="ignore"):
        e = np.maximum(np.floor(np.log2(np.where(ay > 0, ay, 1.0))), minexp)
        s = ay + frac * np.ldexp(1.0, (e - nmant).astype(np.int64))
        e2 = np.maximum(np.floor(np.log2(np.where(s > 0, s, 1.0))), minexp)
        u2 = np.ldexp(1.0, (e2 - nmant).astype(np.int64))
        t = np.floor(s / u2) * u2
    t = np.where(np.isfinite(ay), np.minimum(t, limit), ay)
    return np.copysign(np.where(np.isnan(y), np.nan, t), y)


def _family(m: Any):
    src, dst, sr, scaled = m.group(1), m.group(2), bool(m.group(3)), bool(m.group(4))
    nargs = 1 + sr + scaled
    name = m.group(0)

    def helper(ip: Any, args: list[TV], node: Tree) -> TV:
        if len(args) != nargs:
            raise ip.fail(f"{name}() takes {nargs} argument(s), got {len(args)}", node)
        ip.need_numpy(node)
        with np.errstate(all="ignore"):
            return convert(ip, args, node)

    def convert(ip: Any, args: list[TV], node: Tree) -> TV:
        fnuz, saturate, _ = _flags(ip)
        n = ip.dom.n
        factor = np.ones(n)
        if scaled:
            sdata, _ = ip.bits(ip.as_int(args[-1], node))
            factor = np.broadcast_to(scale_factor(np.asarray(sdata)), (n,))
        v = args[0]
        if src in _SMALL_BITS:
            data, _ = ip.bits(ip.as_int(v, node))
            x = decode(np.asarray(data), small_format(src, fnuz)).astype(np.float64)
            src_mant = _mantissa_bits(small_format(src, fnuz))
        else:
            kind, width, src_mant = _WIDE[src]
            x = np.asarray(v.data, dtype=np.float64) if v.kind in ("f", "bf") else \
                np.asarray(ip.to_float(v, kind, width, node), dtype=np.float64)
        x = np.broadcast_to(x, (n,))
        with np.errstate(all="ignore"):
            y = x * factor if src in _SMALL_BITS else x / factor
        if dst in _WIDE:
            kind, width, _ = _WIDE[dst]
            if sr:
                rdata, _ = ip.bits(ip.as_int(args[1], node))
                dtype = ml_dtypes.bfloat16 if kind == "bf" else np.float16 if width == 16 else np.float32
                y = stochastic(y, np.asarray(rdata), src_mant, dtype, np.inf)
            return TV(kind, width, fp.convert(np.asarray(y, dtype=np.float64), ("f", 64), (kind, width)))
        fmt = small_format(dst, fnuz)
        sat = saturate or dst not in ("fp8", "bf8")          # rule f6-f4-saturate
        if sr:
            rdata, _ = ip.bits(ip.as_int(args[1], node))
            y = stochastic(y, np.asarray(rdata), src_mant, fmt.dtype, fmt.max if sat else np.inf)
        with np.errstate(all="ignore"):
            y32 = np.asarray(y, dtype=np.float64).astype(np.float32)
        raw = encode(y32, fmt, saturate=sat)
        return TV("b", fmt.bits, ip.dom.from_ints(np.atleast_1d(raw).astype(np.uint64), fmt.bits))

    return helper


builtin_family(rf"^({_NAME})_to_({_NAME})(_sr|_SR)?(_scale)?$")(_family)


@builtin("float32", "float16")
def _from_fields(ip: Any, args: list[TV], node: Tree) -> TV:
    """float32(sign, exponent, mantissa): the float with those fields (V_CVT_SR_FP8_F32, cdna3/README.md:14030)."""
    name = str(node.children[0])
    width, mant = (32, 23) if name == "float32" else (16, 10)
    if len(args) != 3:
        raise ip.fail(f"{name}() takes 3 arguments, got {len(args)}", node)
    ebits = width - 1 - mant
    s, e, m = (ip.bits(ip.as_int(a, node))[0] for a in args)
    d = ip.dom
    s = d.resize(s, ip.bits(ip.as_int(args[0], node))[1], width, False)
    e = d.resize(e, ip.bits(ip.as_int(args[1], node))[1], width, False)
    m = d.resize(m, ip.bits(ip.as_int(args[2], node))[1], width, False)
    bits = d.bor(d.shl(d.band(s, d.const(1, width), width), d.const(width - 1, width), width),
                 d.bor(d.shl(d.band(e, d.const((1 << ebits) - 1, width), width), d.const(mant, width), width),
                       d.band(m, d.const((1 << mant) - 1, width), width), width), width)
    ip.need_numpy(node)
    return TV("f", width, fp.bits_to_float(bits, "f", width))

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

from gpuisa.semantics.builtins import builtin
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
        return TV("b", 8, ip.dom.from_ints([int(t) for t in np.atleast_1d(raw)], 8))
    return helper


builtin("fp8_to_f32")(_to_f32("fp8"))
builtin("bf8_to_f32")(_to_f32("bf8"))
builtin("f32_to_fp8")(_from_f32("fp8"))
builtin("f32_to_bf8")(_from_f32("bf8"))

# Opcodes whose final conversion truncates (rule sr-truncates); run.machine_for's caller sets TRUNCATE_KEY.
SR_OPCODES = frozenset({"v_cvt_sr_fp8_f32", "v_cvt_sr_bf8_f32"})

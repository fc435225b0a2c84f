"""Helper functions the manuals' pseudocode calls (isNAN, fma, signext, f32_to_i32, v_max_u32 ...).

Each takes the interpreter, evaluated arguments and the call node, and returns a typed value.
Decisions the manuals leave open are stated next to the helper and listed in NOTES, so pages
can show them: float->int conversions truncate toward zero, saturate and map NaN to 0;
denormals are kept (IEEE); sin/cos/log/exp are float64 libm rounded once to the format
(hardware is approximate, so these are tested, never proved).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
from lark import Tree

from gpuisa.semantics import fp
from gpuisa.semantics.dialect import NORM_CASTS, OLD_CONVERSION, OLD_CONVERSION_KINDS
from gpuisa.semantics.types import TV

REGISTRY: dict[str, Callable[[Any, list[TV], Tree], TV]] = {}

NOTES = (
    "Float to integer conversions truncate toward zero, saturate to the range and give 0 for NaN.",
    "Denormals are kept (IEEE); the MODE register's flush-to-zero settings are not modelled.",
    "Transcendentals (sin, cos, log2, exp2, rcp, rsq) are computed in float64 and rounded once; "
    "hardware is approximate, so results are tested, never proved.",
    "A condition that differs between lanes runs both branches under lane masks (SIMT).",
    "Writes to a lane's bit of a shared mask (D0.u64[laneId]) are kept per lane, not ORed across the wave.",
    "S_SETREG may write every bit of a hardware register: the manuals call HwRegWriteMask / writeableBitMask "
    "without listing the masks (cdna3/README.md:3635, rdna3/README.md:6810).",
)


def builtin(*names: str) -> Callable[[Callable[..., TV]], Callable[..., TV]]:
    def deco(fn: Callable[..., TV]) -> Callable[..., TV]:
        for n in names:
            REGISTRY[n] = fn
        return fn

    return deco


def _arity(ip: Any, args: list[TV], n: int, node: Tree, name: str) -> None:
    if len(args) != n:
        raise ip.fail(f"{name}() takes {n} argument(s), got {len(args)}", node)


def _float_arg(ip: Any, v: TV, node: Tree) -> TV:
    if v.kind in ("f", "bf"):
        return v
    if v.kind in ("flit", "flit32"):
        w = 32 if v.kind == "flit32" else 64
        return TV("f", w, ip.to_float(v, "f", w, node))
    raise ip.fail("a float argument is needed", node)


def _bool(ip: Any, data: Any) -> TV:
    return TV("bool", 1, data)


# ------------------------------------------------------------------ integer helpers (any domain)
@builtin("signext")
def _signext(ip: Any, args: list[TV], node: Tree) -> TV:
    _arity(ip, args, 1, node, "signext")
    v = ip.as_int(args[0], node)
    if v.kind == "lit":
        return v
    data, w = ip.bits(v)
    return TV("i", w, data)


@builtin("signext_from_bit", "signextFromBit")
def _signext_from_bit(ip: Any, args: list[TV], node: Tree) -> TV:
    """signext_from_bit(value, width): sign-extend the low `width` bits (width may vary per lane)."""
    _arity(ip, args, 2, node, "signext_from_bit")
    v = ip.as_int(args[0], node)
    data, w = ip.bits(v)
    width = ip.as_int(args[1], node)
    c = ip._maybe_int(width)
    if c is not None:
        if c <= 0:
            return TV("i", w, ip.dom.const(0, w))
        c = min(c, w)
        return TV("i", w, ip.dom.resize(ip.dom.resize(data, w, c, False), c, w, True))
    # per-lane width: shift the field to the top, then arithmetic-shift it back
    d = ip.dom
    cw = ip.sized(width, "u", w)
    wconst = d.const(w, w)
    big = d.ule(wconst, cw, w)
    cw = d.select(big, wconst, cw)
    up = d.sub(wconst, cw, w)
    val = d.ashr(d.shl(data, up, w), up, w)
    zero = d.eq(cw, d.const(0, w), w)
    return TV("i", w, d.select(zero, d.const(0, w), val))


@builtin("TwosComplement")
def _twos(ip: Any, args: list[TV], node: Tree) -> TV:
    """Older manuals' TwosComplement(x): the value as a signed integer."""
    _arity(ip, args, 1, node, "TwosComplement")
    v = ip.as_int(args[0], node)
    if v.kind == "lit":
        return v
    data, w = ip.bits(v)
    return TV("i", w, data)


@builtin("abs", "Abs", "ABS")
def _abs(ip: Any, args: list[TV], node: Tree) -> TV:
    _arity(ip, args, 1, node, "abs")
    v = args[0]
    if v.kind in ("f", "bf"):
        return TV(v.kind, v.width, np.abs(v.data))
    if v.kind in ("flit", "flit32"):
        return TV(v.kind, 0, abs(float(v.data)))
    v = ip.as_int(v, node)
    if v.kind == "lit":
        return TV("lit", 0, abs(int(v.data)))
    data, w = ip.bits(v)
    if v.kind != "i":
        return v
    neg = ip.dom.slt(data, ip.dom.const(0, w), w)
    return TV("i", w, ip.dom.select(neg, ip.dom.neg(data, w), data))


@builtin("bitCount", "bitcount", "countbits", "popcount")
def _bitcount(ip: Any, args: list[TV], node: Tree) -> TV:
    _arity(ip, args, 1, node, "bitCount")
    data, w = ip.bits(ip.as_int(args[0], node))
    cnt = ip.dom.popcount(data, w)
    if ip.dom.symbolic:
        return TV("u", w, cnt)
    return TV("u", 32, ip.dom.resize(cnt, 64, 32, False) if w > 32 else cnt)


@builtin("isEven")
def _is_even(ip: Any, args: list[TV], node: Tree) -> TV:
    v = args[0]
    if v.kind in ("f", "bf", "flit", "flit32"):
        x = _float_arg(ip, v, node).data.astype(np.float64)
        with np.errstate(all="ignore"):
            return _bool(ip, np.isfinite(x) & (np.fmod(x, 2.0) == 0))
    data, w = ip.bits(ip.as_int(v, node))
    return _bool(ip, ip.dom.eq(ip.dom.band(data, ip.dom.const(1, w), w), ip.dom.const(0, w), w))


@builtin("MIN", "min")
def _min(ip: Any, args: list[TV], node: Tree) -> TV:
    _arity(ip, args, 2, node, "min")
    lt = ip.compare_vals("<", args[0], args[1], node)
    a, b = ip.unify_for_select(args[0], args[1], node)
    return ip.merge(lt.data, a, b)


@builtin("MAX", "max")
def _max(ip: Any, args: list[TV], node: Tree) -> TV:
    _arity(ip, args, 2, node, "max")
    gt = ip.compare_vals(">", args[0], args[1], node)
    a, b = ip.unify_for_select(args[0], args[1], node)
    return ip.merge(gt.data, a, b)


# ------------------------------------------------------------------ float classification
def _class_bits(ip: Any, v: TV, node: Tree) -> tuple[Any, str, int]:
    v = _float_arg(ip, v, node)
    return fp.float_to_bits(v.data, v.kind, v.width), v.kind, v.width


@builtin("isNAN", "isNaN", "isNan", "IsNaN")
def _isnan(ip: Any, args: list[TV], node: Tree) -> TV:
    ip.need_numpy(node)
    return _bool(ip, np.isnan(_float_arg(ip, args[0], node).data))


@builtin("isINF", "isInf")
def _isinf(ip: Any, args: list[TV], node: Tree) -> TV:
    ip.need_numpy(node)
    return _bool(ip, np.isinf(_float_arg(ip, args[0], node).data))


@builtin("isSignalNAN", "isSignalNaN")
def _is_snan(ip: Any, args: list[TV], node: Tree) -> TV:
    ip.need_numpy(node)
    v = args[0]
    if v.kind in ("f",) and v.width == 64 and getattr(v, "_from", None):
        pass
    bits, kind, width = _class_bits(ip, v, node)
    return _bool(ip, fp.is_signaling(bits, kind, width))


@builtin("isQuietNAN", "isQuietNaN")
def _is_qnan(ip: Any, args: list[TV], node: Tree) -> TV:
    ip.need_numpy(node)
    bits, kind, width = _class_bits(ip, args[0], node)
    x = _float_arg(ip, args[0], node).data
    return _bool(ip, np.isnan(x) & ~fp.is_signaling(bits, kind, width))


@builtin("cvtToQuietNAN", "Quiet")
def _quiet(ip: Any, args: list[TV], node: Tree) -> TV:
    ip.need_numpy(node)
    v = _float_arg(ip, args[0], node)
    bits = fp.float_to_bits(v.data, v.kind, v.width)
    q = np.where(np.isnan(v.data), fp.quiet_bits(bits, v.kind, v.width), bits)
    return TV(v.kind, v.width, fp.bits_to_float(q, v.kind, v.width))


@builtin("sign")
def _sign(ip: Any, args: list[TV], node: Tree) -> TV:
    v = args[0]
    if v.kind in ("f", "bf", "flit", "flit32"):
        ip.need_numpy(node)
        x = _float_arg(ip, v, node).data
        return TV("u", 1, np.signbit(x).astype(np.uint64))
    data, w = ip.bits(ip.as_int(v, node))
    return TV("u", 1, ip.dom.resize(ip.dom.lshr(data, ip.dom.const(w - 1, w), w), w, 1, False))


@builtin("exponent", "Exponent")
def _exponent(ip: Any, args: list[TV], node: Tree) -> TV:
    """The biased exponent field, as a signed 32-bit value (the manuals subtract the bias)."""
    ip.need_numpy(node)
    bits, kind, width = _class_bits(ip, args[0], node)
    e, m = fp.LAYOUT[(kind, width)]
    return TV("i", 32, (bits >> np.uint64(m)) & np.uint64((1 << e) - 1))


@builtin("mantissa", "Mantissa")
def _mantissa(ip: Any, args: list[TV], node: Tree) -> TV:
    """frexp mantissa: the value scaled into [0.5, 1) with its sign (V_FREXP_MANT)."""
    ip.need_numpy(node)
    v = _float_arg(ip, args[0], node)
    with np.errstate(all="ignore"):
        m, _ = np.frexp(v.data.astype(np.float64))
    m = np.where(np.isfinite(v.data), m, v.data.astype(np.float64))
    return TV(v.kind, v.width, fp.convert(m, ("f", 64), (v.kind, v.width)))


# ------------------------------------------------------------------ float arithmetic
def _unary_float(fn: Callable[[np.ndarray], np.ndarray], exact: bool = True) -> Callable[..., TV]:
    def run(ip: Any, args: list[TV], node: Tree) -> TV:
        ip.need_numpy(node)
        _arity(ip, args, 1, node, "function")
        v = _float_arg(ip, args[0], node)
        with np.errstate(all="ignore"):
            if exact and v.kind == "f":
                return TV(v.kind, v.width, fn(v.data))
            r = fn(v.data.astype(np.float64))
        return TV(v.kind, v.width, fp.convert(r, ("f", 64), (v.kind, v.width)))

    return run


REGISTRY["trunc"] = _unary_float(np.trunc)
REGISTRY["floor"] = _unary_float(np.floor)
REGISTRY["ceil"] = _unary_float(np.ceil)
REGISTRY["rint"] = REGISTRY["roundEven"] = _unary_float(np.rint)
REGISTRY["fract"] = _unary_float(lambda x: np.minimum(x - np.floor(x), np.nextafter(np.ones_like(x), 0)))
REGISTRY["sqrt"] = _unary_float(np.sqrt)
REGISTRY["log2"] = _unary_float(np.log2, exact=False)
REGISTRY["exp2"] = _unary_float(np.exp2, exact=False)
REGISTRY["sin"] = _unary_float(np.sin, exact=False)
REGISTRY["cos"] = _unary_float(np.cos, exact=False)
REGISTRY["tanh"] = _unary_float(np.tanh, exact=False)


@builtin("pow")
def _pow(ip: Any, args: list[TV], node: Tree) -> TV:
    _arity(ip, args, 2, node, "pow")
    return ip.binary("**", args[0], args[1], node)


@builtin("fma")
def _fma(ip: Any, args: list[TV], node: Tree) -> TV:
    _arity(ip, args, 3, node, "fma")
    ip.need_numpy(node)
    fmts = [(a.kind, a.width) for a in args if a.kind in ("f", "bf")]
    kind, width = max(fmts, key=lambda t: t[1]) if fmts else ("f", 64)
    x, y, z = (ip.to_float(a, kind, width, node) for a in args)
    return TV(kind, width, fp.fma(x, y, z, kind, width))


@builtin("ldexp")
def _ldexp(ip: Any, args: list[TV], node: Tree) -> TV:
    _arity(ip, args, 2, node, "ldexp")
    ip.need_numpy(node)
    v = _float_arg(ip, args[0], node)
    n = ip.as_int(args[1], node)
    if n.kind == "lit":
        e = np.full(ip.dom.n, int(n.data), dtype=np.int64)
    else:
        data, w = ip.bits(n)
        e = ip.dom.to_int64(data, w) if n.kind == "i" else data.astype(np.int64)
    e = np.clip(e, -2200, 2200)
    with np.errstate(all="ignore"):
        if v.width == 64:
            r = np.ldexp(v.data.astype(np.float64), e)
            # exact unless the result is subnormal; np.ldexp rounds that case correctly too
            return TV(v.kind, 64, r)
        r = np.ldexp(v.data.astype(np.float64), e)  # exact in float64 for 16/32-bit inputs
    return TV(v.kind, v.width, fp.convert(r, ("f", 64), (v.kind, v.width)))


# ------------------------------------------------------------------ conversions X_to_Y
_CVT = re.compile(r"^(f16|f32|f64|bf16|[iu](?:4|8|16|24|32|64))_to_(f16|f32|f64|bf16|[iu](?:4|8|16|24|32|64)|snorm|unorm)$")


def _fmt(name: str) -> tuple[str, int]:
    if name == "bf16":
        return ("bf", 16)
    return (name[0], int(name[1:]))


def _convert(ip: Any, name: str, args: list[TV], node: Tree) -> TV:
    m = _CVT.match(name)
    assert m
    src, dst = _fmt(m.group(1)), m.group(2)
    _arity(ip, args, 1, node, name)
    v = args[0]
    if src[0] in ("f", "bf"):
        ip.need_numpy(node)
        x = ip.to_float(v, *src, node) if v.kind not in ("f", "bf") or (v.kind, v.width) != src else v.data
        if dst in ("snorm", "unorm"):
            scale = 32767.0 if dst == "snorm" else 65535.0
            lo = -1.0 if dst == "snorm" else 0.0
            with np.errstate(all="ignore"):
                c = np.clip(np.nan_to_num(x.astype(np.float64), nan=0.0), lo, 1.0) * scale
                r = np.rint(c).astype(np.int64)
            return TV("i" if dst == "snorm" else "u", 16, ip.dom.from_ints(r, 16))
        d = _fmt(dst)
        if d[0] in ("f", "bf"):
            return TV(d[0], d[1], fp.convert(x, src, d))
        ints = fp.float_to_int(x, d[0] == "i", d[1])
        return TV(d[0], d[1], ip.dom.from_ints(ints, d[1]))
    d = _fmt(dst) if dst not in ("snorm", "unorm") else None
    if d is None:
        raise ip.fail(f"{name}() is not modelled", node)
    iv = ip.as_int(v, node)
    if iv.kind != "lit":
        data, w = ip.bits(iv)
        data = ip.dom.resize(data, w, src[1], False)
        iv = TV(src[0], src[1], data)
    if d[0] in ("f", "bf"):
        return TV(d[0], d[1], ip.to_float(iv, d[0], d[1], node))
    if d[1] < src[1] and name in ("i32_to_i16", "u32_to_u16"):
        # narrowing conversions saturate (V_CVT_PK_I16_I32 / V_CVT_PK_U16_U32: "clamp")
        lo, hi = (-(1 << (d[1] - 1)), (1 << (d[1] - 1)) - 1) if d[0] == "i" else (0, (1 << d[1]) - 1)
        lo_t, hi_t = TV("lit", 0, lo), TV("lit", 0, hi)
        x = ip.merge(ip.compare_vals("<", iv, lo_t, node).data, lo_t, iv)
        x = ip.merge(ip.compare_vals(">", x, hi_t, node).data, hi_t, x)
        return TV(d[0], d[1], ip.sized(x, d[0], d[1]))
    return TV(d[0], d[1], ip.sized(iv, d[0], d[1]))




@builtin("writeableBitMask", "HwRegWriteMask")
def _hwreg_write_mask(ip: Any, args: list[TV], node: Tree) -> TV:
    """Which bits of a hardware register S_SETREG may write: the manuals name this helper but list no
    per-register masks, so every bit is writable here (an upper bound; see NOTES)."""
    _arity(ip, args, 2, node, "HwRegWriteMask")
    return TV("u", 32, ip.dom.const(0xFFFFFFFF, 32))


@builtin("IsM0")
def _is_m0(ip: Any, args: list[TV], node: Tree) -> TV:
    """IsM0(SRC0.u32): the operand field names M0, whose encoding is 124 before gfx11 and 125 from gfx11 on
    (llvm/lib/Target/AMDGPU/SIRegisterInfo.td:210-211, M0_gfxpre11 / M0_gfx11plus)."""
    _arity(ip, args, 1, node, "IsM0")
    return ip.compare_vals("==", ip.as_int(args[0], node), TV("lit", 0, ip.machine.get(M0_ENCODING_KEY, 124)), node)


M0_ENCODING_KEY = "_M0_ENCODING"
# Wave state the barrier pseudocode asks about by calling a function: read as a state value the caller
# gives (InWorkgroup=1), like EXEC or SCC (rdna4/README.md:8815 `if !InWorkgroup() then`).
STATE_QUERIES = ("InWorkgroup", "InCluster")


def _state_query(ip: Any, args: list[TV], node: Tree) -> TV:
    name = str(node.children[0])
    _arity(ip, args, 0, node, name)
    return ip.lookup(name, node)


for _q in STATE_QUERIES:
    REGISTRY[_q] = _state_query


@builtin("nop", "v_nop", "s_nop")
def _nop(ip: Any, args: list[TV], node: Tree) -> TV:
    """No architectural effect (S_NOP's wait states are timing, not state)."""
    return TV("lit", 0, 0)


@builtin("s_ff1_i32_b32", "s_ff1_i32_b64", "s_ctz_i32_b32", "s_ctz_i32_b64")
def _ff1(ip: Any, args: list[TV], node: Tree) -> TV:
    """Index of the lowest set bit, -1 when none (S_FF1_I32_B32 / S_CTZ_I32_B32)."""
    _arity(ip, args, 1, node, "s_ff1_i32")
    data, w = ip.bits(ip.as_int(args[0], node))
    d = ip.dom
    out = d.const(-1, 32)
    for i in reversed(range(w)):
        bit = d.nonzero(d.band(d.lshr(data, d.const(i, w), w), d.const(1, w), w), w)
        out = d.select(bit, d.const(i, 32), out)
    return TV("i", 32, out)


_MINMAX3 = re.compile(r"^v_(min|max|minimum|maximum|min_num|max_num)3_(.+)$")
_VCVT = re.compile(r"^v_cvt_([iu]\d+|f16|f32|f64)_([iu]\d+|f16|f32|f64)$")


def _compose3(ip: Any, m: re.Match[str], args: list[TV], node: Tree) -> TV:
    """v_max3_f32(a, b, c) = v_max_f32(v_max_f32(a, b), c), as the manuals define the integer ones."""
    two = f"v_{m.group(1)}_{m.group(2)}"
    call = Tree("call", [two, None])
    fn = ip.resolver(two) if ip.resolver else None
    if fn is None and lookup(two) is None:
        raise ip.fail(f"helper function {m.group(0)}() is not modelled", node)

    def run(x: TV, y: TV) -> TV:
        if fn is not None:
            return ip.call_instruction(two, fn, [x, y], node)
        return lookup(two)(ip, [x, y], call)  # type: ignore[misc]

    _arity(ip, args, 3, node, m.group(0))
    return run(run(args[0], args[1]), args[2])


# Families of helpers other modules define by a name pattern (lowp: f32_to_fp6_sr_scale ...):
# (pattern, factory taking the match and returning the helper).
FAMILIES: list[tuple[re.Pattern[str], Callable[[re.Match[str]], Callable[[Any, list[TV], Tree], TV]]]] = []


def builtin_family(pattern: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def deco(factory: Callable[..., Any]) -> Callable[..., Any]:
        FAMILIES.append((re.compile(pattern), factory))
        return factory

    return deco


def lookup(name: str) -> Callable[..., TV] | None:
    """A helper by name, including the generic X_to_Y conversions and v_min/v_max families."""
    fn = REGISTRY.get(name)
    if fn is not None:
        return fn
    for pattern, factory in FAMILIES:
        fm = pattern.match(name)
        if fm:
            return factory(fm)
    old = OLD_CONVERSION.match(name)
    if old:  # dialect rule old-conversion-names: flt32_to_flt16, uint16_to_flt16, flt16_to_snorm16
        src = f"{OLD_CONVERSION_KINDS[old.group(1)]}{old.group(2)}"
        dst = old.group(3) if old.group(3) in NORM_CASTS else f"{OLD_CONVERSION_KINDS[old.group(3)]}{old.group(4)}"
        name = f"{src}_to_{dst}"
    if _CVT.match(name):
        return lambda ip, args, node: _convert(ip, name, args, node)
    m = _MINMAX.match(name)
    if m:
        return lambda ip, args, node: _minmax(ip, m, args, node)
    m3 = _MINMAX3.match(name)
    if m3:
        return lambda ip, args, node: _compose3(ip, m3, args, node)
    cv = _VCVT.match(name)
    if cv:  # v_cvt_i16_f32(x): the conversion X_to_Y spelled as an opcode
        return lookup(f"{cv.group(2)}_to_{cv.group(1)}")
    return None


# Integer v_min/v_max/v_med3 families: used when no manual text is at hand to resolve them
_MINMAX = re.compile(r"^v_(min|max|min3|max3|med3)_([iu])(16|32|64)$")


def _minmax(ip: Any, m: re.Match[str], args: list[TV], node: Tree) -> TV:
    op, kind, width = m.group(1), m.group(2), int(m.group(3))
    vals = [TV(kind, width, ip.sized(ip.view(a, kind, width) if a.kind != "lit" else a, kind, width)) for a in args]

    def pick(a: TV, b: TV, want_max: bool) -> TV:
        c = ip.compare_vals(">" if want_max else "<", a, b, node)
        return ip.merge(c.data, a, b)

    if op in ("min", "max"):
        return pick(vals[0], vals[1], op == "max")
    if op in ("min3", "max3"):
        return pick(pick(vals[0], vals[1], op == "max3"), vals[2], op == "max3")
    lo = pick(vals[0], vals[1], False)
    hi = pick(vals[0], vals[1], True)
    return pick(lo, pick(hi, vals[2], False), True)


class Builtins(dict):
    """Mapping view over REGISTRY plus the generated families, for the interpreter."""

    def get(self, key: str, default: Any = None) -> Any:  # type: ignore[override]
        fn = lookup(key)
        return fn if fn is not None else default

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and lookup(key) is not None

    def __getitem__(self, key: str) -> Any:
        fn = lookup(key)
        if fn is None:
            raise KeyError(key)
        return fn

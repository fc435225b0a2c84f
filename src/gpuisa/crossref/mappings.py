"""PTX form <-> AMD instruction mappings, each with the level it claims and how that is checked.

Levels: "equivalent", "equivalent with restrictions" (the restrictions say which types,
widths, operand ranges, rounding or flags), "needs a sequence" (the sequence is given and
checked as a whole), "none". The claim is data; crossref.evidence proves or refutes it from
the parsed semantics of both manuals and flags any claim its evidence does not support.
Operands: PTX names (a, b, c) are the free inputs; the AMD side reads them as S0, S1, S2.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from gpuisa.crossref.programs import Ops, Program, Step

EQ, EQR, SEQ, NONE = "equivalent", "equivalent with restrictions", "needs a sequence", "none"
LEVELS = (EQ, EQR, SEQ, NONE)

Assume = Callable[[Ops], Any]          # precondition over the inputs (z3 Bool or numpy bool lanes)


@dataclass(frozen=True, slots=True)
class Mapping:
    key: str
    concept: str
    ptx: str                           # PTX form, or a sequence written in PTX
    amd: str                           # AMD instruction, or "" when there is none / a sequence
    arch: str
    level: str
    check: str                         # "bv" (z3), "bv-bits" (z3, one query per output bit), "float", "curated"
    ptx_prog: Program | None = None
    amd_prog: Program | None = None
    inputs: dict[str, int] = field(default_factory=dict)
    restrictions: tuple[str, ...] = ()
    assume: Assume | None = None
    sequence: tuple[str, ...] = ()
    reason: str = ""                   # why this level (e.g. why no single instruction)
    versus: Program | None = None      # nearest single instruction, refuted by a counterexample


def one(vendor: str, op: str, args: dict[str, Any], width: int, result: str = "") -> Program:
    return Program((Step(vendor, op, args, "r", result),), "r", width)


def ptx1(form: str, ops: tuple[str, ...], width: int) -> Program:
    return one("nvidia", form, {o: o for o in ops}, width)


def amd1(name: str, args: dict[str, Any], width: int, result: str = "") -> Program:
    return one("amd", name, args, width, result)


def _u(ops: Ops, name: str, w: int) -> Any:
    return ops.resize(ops[name], w)


def _lt(limit: int, *names: str) -> Assume:
    def f(ops: Ops) -> Any:
        conds = [ops.dom.ult(ops[n][0], ops.dom.const(limit, ops[n][1]), ops[n][1]) for n in names]
        out = conds[0]
        for c in conds[1:]:
            out = ops.dom.land(out, c)
        return out
    return f


def _prmt_selector(ops: Ops) -> Any:
    """PTX prmt nibble selectors (c[15:0]) re-encoded as V_PERM_B32 byte selectors."""
    c = ops["c"]
    parts = [ops.place(ops.field(c, 4 * i, 3), 8 * i, 32) for i in range(4)]
    return ops.bor(*parts)


def _prmt_plain(ops: Ops) -> Any:
    """Selectors without sign replication (bit 3 of each nibble clear)."""
    d = ops.dom
    c, w = ops["c"]
    return d.eq(d.band(c, d.const(0x8888, w), w), d.const(0, w), w)


def clmad_sequence(arch: str) -> Program:
    """Carry-less a*b (low 64 bits) ^ c from 32-bit AMD ALU instructions, one bit of a at a time."""
    steps: list[Step] = [
        Step("amd", "v_xor_b32", {"S0": lambda o: o.field(o["c"], 0, 32), "S1": 0}, "acc_lo"),
        Step("amd", "v_xor_b32", {"S0": lambda o: o.field(o["c"], 32, 32), "S1": 0}, "acc_hi"),
    ]
    sub = "v_sub_nc_u32" if arch.startswith("rdna") or arch == "cdna5" else "v_sub_u32"
    for i in range(64):
        half = (lambda o: o.field(o["a"], 0, 32)) if i < 32 else (lambda o: o.field(o["a"], 32, 32))
        steps += [
            Step("amd", "v_bfe_u32", {"S0": half, "S1": i % 32, "S2": 1}, "bit"),
            Step("amd", sub, {"S0": 0, "S1": "bit"}, "mask"),
            Step("amd", "v_lshlrev_b64", {"S0": i, "S1": "b"}, "sh"),
            Step("amd", "v_and_b32", {"S0": lambda o: o.field(o["sh"], 0, 32), "S1": "mask"}, "p_lo"),
            Step("amd", "v_and_b32", {"S0": lambda o: o.field(o["sh"], 32, 32), "S1": "mask"}, "p_hi"),
            Step("amd", "v_xor_b32", {"S0": "acc_lo", "S1": "p_lo"}, "acc_lo"),
            Step("amd", "v_xor_b32", {"S0": "acc_hi", "S1": "p_hi"}, "acc_hi"),
        ]
    # the result is the register pair {acc_hi, acc_lo}: no instruction, just how 64 bits are held
    return Program(tuple(steps), lambda o: o.bor(o.place(o["acc_hi"], 32, 64), o.resize(o["acc_lo"], 64)), 64)


def _sad_s32_sequence(arch: str) -> Program:
    return Program((
        Step("amd", "v_max_i32", {"S0": "a", "S1": "b"}, "hi"),
        Step("amd", "v_min_i32", {"S0": "a", "S1": "b"}, "lo"),
        Step("amd", "v_sub_nc_u32", {"S0": "hi", "S1": "lo"}, "diff"),
        Step("amd", "v_add_nc_u32", {"S0": "diff", "S1": "c"}, "r"),
    ), "r", 32)


def _bfi_sequence() -> Program:
    return Program((
        Step("amd", "v_lshlrev_b32", {"S0": "d", "S1": 1}, "t1"),
        Step("amd", "v_sub_nc_u32", {"S0": "t1", "S1": 1}, "ones"),
        Step("amd", "v_lshlrev_b32", {"S0": "c", "S1": "ones"}, "mask"),
        Step("amd", "v_lshlrev_b32", {"S0": "c", "S1": "a"}, "ins"),
        Step("amd", "v_bfi_b32", {"S0": "mask", "S1": "ins", "S2": "b"}, "r"),
    ), "r", 32)


def _shl_add_ptx(bits: int) -> Program:
    return Program((
        Step("nvidia", f"shl.b{bits}", {"a": "a", "b": "b"}, "t"),
        Step("nvidia", f"add.u{bits}", {"a": "t", "b": "c"}, "r"),
    ), "r", bits)


def _madlo_sequence() -> Program:
    return Program((
        Step("amd", "v_mul_lo_u32", {"S0": "a", "S1": "b"}, "t"),
        Step("amd", "v_add_nc_u32", {"S0": "t", "S1": "c"}, "r"),
    ), "r", 32)


ABC32 = {"a": 32, "b": 32, "c": 32}
AB32 = {"a": 32, "b": 32}
S012 = {"S0": "a", "S1": "b", "S2": "c"}
S01 = {"S0": "a", "S1": "b"}


def _build() -> list[Mapping]:
    m: list[Mapping] = []

    def add(**kw: Any) -> None:
        key = f"{kw['ptx']}~{kw.get('amd') or 'seq'}@{kw['arch']}"
        m.append(Mapping(key=key, **kw))

    # ---- sum of absolute differences
    for arch in ("rdna3", "cdna3"):
        add(concept="sad", ptx="sad.u32", amd="v_sad_u32", arch=arch, level=EQ, check="bv",
            ptx_prog=ptx1("sad.u32", ("a", "b", "c"), 32), amd_prog=amd1("v_sad_u32", S012, 32), inputs=ABC32)
    add(concept="sad", ptx="sad.u16", amd="v_sad_u32", arch="rdna3", level=EQR, check="bv",
        ptx_prog=ptx1("sad.u16", ("a", "b", "c"), 16), inputs={"a": 16, "b": 16, "c": 16},
        amd_prog=amd1("v_sad_u32", {k: (lambda o, n=v: o.resize(o[n], 32)) for k, v in S012.items()}, 16),
        restrictions=("widths: 16-bit operands zero-extended into 32-bit registers; the low 16 bits of D0 are the result",))
    add(concept="sad", ptx="sad.s32", amd="", arch="rdna3", level=SEQ, check="bv",
        ptx_prog=ptx1("sad.s32", ("a", "b", "c"), 32), amd_prog=_sad_s32_sequence("rdna3"), inputs=ABC32,
        sequence=("v_max_i32 hi, a, b", "v_min_i32 lo, a, b", "v_sub_nc_u32 t, hi, lo", "v_add_nc_u32 d, t, c"),
        reason="rdna3 has only unsigned SAD (V_SAD_U32 compares unsigned; no V_SAD_I32)",
        versus=amd1("v_sad_u32", S012, 32))
    add(concept="sad", ptx="sad.u64", amd="", arch="rdna3", level=SEQ, check="curated",
        ptx_prog=ptx1("sad.u64", ("a", "b", "c"), 64), inputs={"a": 64, "b": 64, "c": 64},
        sequence=("v_cmp_gt_u64 vcc, a, b", "v_cndmask_b32 x2 (hi = max, lo = min per half)",
                  "v_sub_co_u32 / v_sub_co_ci_u32 t, hi, lo", "v_add_co_u32 / v_add_co_ci_u32 d, t, c"),
        reason="rdna3 has no 64-bit SAD; V_SAD_U32 works on 32 bits",
        versus=amd1("v_sad_u32", {k: (lambda o, n=v: o.field(o[n], 0, 32)) for k, v in S012.items()}, 64))

    # ---- shift and add (per arch: cdna5 treats shift counts > 4 as 0, cdna4 uses S1[2:0])
    for arch in ("cdna4", "cdna5"):
        add(concept="shift-add", ptx="shl.b64 + add.u64", amd="v_lshl_add_u64", arch=arch, level=SEQ, check="bv",
            ptx_prog=_shl_add_ptx(64), inputs={"a": 64, "b": 32, "c": 64},
            amd_prog=amd1("v_lshl_add_u64", S012, 64), assume=_lt(5, "b"),
            restrictions=("operand range: shift count 0..4 (the manual: higher counts are unsupported)",),
            sequence=("shl.b64 t, a, b", "add.u64 d, t, c"),
            reason="PTX has no fused shift-add; the AMD instruction is one op for counts 0..4")
    add(concept="shift-add", ptx="shl.b32 + add.u32", amd="v_lshl_add_u32", arch="rdna3", level=SEQ, check="bv",
        ptx_prog=_shl_add_ptx(32), inputs=ABC32, amd_prog=amd1("v_lshl_add_u32", S012, 32), assume=_lt(32, "b"),
        restrictions=("operand range: shift count < 32 (V_LSHL_ADD_U32 uses S1[4:0])",),
        sequence=("shl.b32 t, a, b", "add.u32 d, t, c"), reason="PTX has no fused shift-add")

    # ---- bit fields
    add(concept="bitfield-extract", ptx="bfe.u32", amd="v_bfe_u32", arch="rdna3", level=EQR, check="bv",
        ptx_prog=ptx1("bfe.u32", ("a", "b", "c"), 32), amd_prog=amd1("v_bfe_u32", S012, 32), inputs=ABC32,
        assume=_lt(32, "b", "c"),
        restrictions=("operand range: pos and len < 32 (AMD reads 5-bit fields; PTX takes 8-bit pos/len, len 32 = whole word)",))
    add(concept="bitfield-extract", ptx="bfe.s32", amd="v_bfe_i32", arch="rdna3", level=EQR, check="bv",
        ptx_prog=ptx1("bfe.s32", ("a", "b", "c"), 32), amd_prog=amd1("v_bfe_i32", S012, 32), inputs=ABC32,
        assume=_lt(32, "b", "c"), restrictions=("operand range: pos and len < 32",))
    add(concept="bitfield-insert", ptx="bfi.b32", amd="", arch="rdna3", level=SEQ, check="bv",
        ptx_prog=ptx1("bfi.b32", ("a", "b", "c", "d"), 32), amd_prog=_bfi_sequence(),
        inputs={"a": 32, "b": 32, "c": 32, "d": 32}, assume=_lt(32, "c", "d"),
        sequence=("v_lshlrev_b32 t, len, 1", "v_sub_nc_u32 ones, t, 1", "v_lshlrev_b32 mask, pos, ones",
                  "v_lshlrev_b32 ins, pos, a", "v_bfi_b32 f, mask, ins, b"),
        restrictions=("operand range: pos and len < 32",),
        reason="V_BFI_B32 is a bitwise select by mask; the mask must be built from pos/len first")

    # ---- bit counting
    add(concept="popcount", ptx="popc.b32", amd="v_bcnt_u32_b32", arch="rdna3", level=EQR, check="bv",
        ptx_prog=ptx1("popc.b32", ("a",), 32), inputs={"a": 32},
        amd_prog=amd1("v_bcnt_u32_b32", {"S0": "a", "S1": 0}, 32),
        restrictions=("operands: S1 = 0 (V_BCNT_U32_B32 adds the count to S1)",))
    add(concept="bit-reverse", ptx="brev.b32", amd="v_bfrev_b32", arch="rdna3", level=EQ, check="bv",
        ptx_prog=ptx1("brev.b32", ("a",), 32), amd_prog=amd1("v_bfrev_b32", {"S0": "a"}, 32), inputs={"a": 32})
    add(concept="leading-zeros", ptx="clz.b32", amd="v_clz_i32_u32", arch="rdna3", level=EQR, check="bv",
        ptx_prog=ptx1("clz.b32", ("a",), 32), amd_prog=amd1("v_clz_i32_u32", {"S0": "a"}, 32), inputs={"a": 32},
        assume=lambda o: o.dom.lnot(o.dom.eq(o["a"][0], o.dom.const(0, 32), 32)),
        restrictions=("operand range: a != 0 (for 0 PTX gives 32, V_CLZ_I32_U32 gives -1)",))

    # ---- min / max
    for form, amd in (("min.u32", "v_min_u32"), ("min.s32", "v_min_i32"), ("max.u32", "v_max_u32"),
                      ("max.s32", "v_max_i32")):
        add(concept="min-max", ptx=form, amd=amd, arch="rdna3", level=EQ, check="bv",
            ptx_prog=ptx1(form, ("a", "b"), 32), amd_prog=amd1(amd, S01, 32), inputs=AB32)

    # ---- multiply high / wide / multiply-add
    for form, amd in (("mul.hi.u32", "v_mul_hi_u32"), ("mul.hi.s32", "v_mul_hi_i32"), ("mul.lo.u32", "v_mul_lo_u32")):
        add(concept="multiply-high", ptx=form, amd=amd, arch="rdna3", level=EQ, check="bv",
            ptx_prog=ptx1(form, ("a", "b"), 32), amd_prog=amd1(amd, S01, 32), inputs=AB32)
    add(concept="multiply-high", ptx="mul.wide.u32", amd="v_mad_u64_u32", arch="rdna3", level=EQR, check="bv",
        ptx_prog=ptx1("mul.wide.u32", ("a", "b"), 64), inputs=AB32,
        amd_prog=amd1("v_mad_u64_u32", {"S0": "a", "S1": "b", "S2": 0}, 64, result="D0"),
        restrictions=("operands: S2 = 0 (V_MAD_U64_U32 adds a 64-bit S2 and also writes a carry to D1)",))
    add(concept="multiply-add", ptx="mad.lo.u32", amd="", arch="rdna3", level=SEQ, check="bv",
        ptx_prog=ptx1("mad.lo.u32", ("a", "b", "c"), 32), amd_prog=_madlo_sequence(), inputs=ABC32,
        sequence=("v_mul_lo_u32 t, a, b", "v_add_nc_u32 d, t, c"),
        reason="rdna3 has no 32x32+32 low multiply-add (V_MAD_U32_U24 takes 24-bit factors)")

    # ---- carry-less multiply: no AMD opcode; a 450-instruction sequence, proved bit by bit
    add(concept="carryless-multiply", ptx="clmad.lo.u64", amd="", arch="rdna3", level=SEQ, check="bv-bits",
        ptx_prog=ptx1("clmad.lo.u64", ("a", "b", "c"), 64), amd_prog=clmad_sequence("rdna3"),
        inputs={"a": 64, "b": 64, "c": 64},
        sequence=("for i in 0..63: v_bfe_u32 bit, a.half, i%32, 1; v_sub_nc_u32 m, 0, bit; "
                  "v_lshlrev_b64 t, i, b; v_and_b32 x2 t&m; v_xor_b32 x2 acc ^= t", "then acc ^= c"),
        reason="no AMD architecture in the manuals has a carry-less multiply instruction")

    # ---- byte permute
    add(concept="byte-permute", ptx="prmt.b32", amd="v_perm_b32", arch="rdna3", level=EQR, check="bv",
        ptx_prog=ptx1("prmt.b32", ("a", "b", "c"), 32), inputs=ABC32,
        amd_prog=amd1("v_perm_b32", {"S0": "b", "S1": "a", "S2": _prmt_selector}, 32), assume=_prmt_plain,
        restrictions=("operands: S0 = b, S1 = a (AMD concatenates {S0, S1})",
                      "operand encoding: PTX nibble selectors become V_PERM_B32 byte selectors",
                      "operand range: no sign replication (bit 3 of each PTX selector nibble clear)"))

    # ---- dot product
    add(concept="dot-product", ptx="dp4a.u32.u32", amd="v_dot4_u32_u8", arch="rdna3", level=EQ, check="bv",
        ptx_prog=ptx1("dp4a.u32.u32", ("a", "b", "c"), 32), amd_prog=amd1("v_dot4_u32_u8", S012, 32),
        inputs=ABC32)

    # ---- float arithmetic (tested, never proved)
    for form, amd, ops in (("fma.rn.f32", "v_fma_f32", ("a", "b", "c")), ("add.rn.f32", "v_add_f32", ("a", "b")),
                           ("mul.rn.f32", "v_mul_f32", ("a", "b"))):
        add(concept="float-arith", ptx=form, amd=amd, arch="rdna3", level=EQ, check="float",
            ptx_prog=ptx1(form, ops, 32), amd_prog=amd1(amd, {f"S{i}": o for i, o in enumerate(ops)}, 32),
            inputs={o: 32 for o in ops},
            restrictions=())

    # ---- conversions: the PTX cvt semantics block is prose, so only curated
    add(concept="conversion", ptx="cvt.rn.f32.s32", amd="v_cvt_f32_i32", arch="rdna3", level=EQ, check="curated",
        reason="PTX's cvt Semantics block is prose (/* inst type ... */), so no parsed comparison is possible; "
               "both round to nearest even")
    return m


MAPPINGS: list[Mapping] = _build()

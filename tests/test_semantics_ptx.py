"""PTX Semantics blocks evaluated with exact integers (ptx-isa-9.4, chapter 9.7).

  9.7.1.8  sad:   d = c + ((a<b) ? b-a : a-b);
  9.7.1.3  mul:   t = a * b; ... d = t<2n-1..n>;   // for .hi variant
  9.7.1.20 bfe:   msb = ...; pos = b & 0xff; len = c & 0xff; ... sbit = a[min(pos+len-1,msb)]
"""

from __future__ import annotations

import pytest

from gpuisa.semantics import evaluate_ptx
from gpuisa.semantics.api import eval_ptx
from gpuisa.semantics.errors import EvalError
from gpuisa.semantics.ptx import ERRATA, prepare_ptx, ptx_semantics
from tests.conftest import TEXTS

M32 = (1 << 32) - 1


@pytest.mark.parametrize(("form", "args", "want"), [
    ("sad.u32", {"a": 5, "b": 3, "c": 10}, 12),
    ("sad.s32", {"a": -5, "b": 3, "c": 10}, 18),
    ("sad.u32", {"a": 0, "b": M32, "c": 1}, 0),            # |0 - 0xffffffff| + 1 wraps
    ("mul.hi.u32", {"a": M32, "b": M32}, 0xFFFFFFFE),
    ("mul.lo.u32", {"a": M32, "b": M32}, 1),
    ("mul.wide.s32", {"a": -3, "b": 5}, -15),
    ("bfe.u32", {"a": 0xF0, "b": 4, "c": 4}, 0xF),
    ("bfe.s32", {"a": 0xF0, "b": 4, "c": 4}, -1),
    ("bfe.u32", {"a": 0xF0, "b": 4, "c": 0}, 0),
    ("bfi.b32", {"a": 0xF, "b": 0, "c": 4, "d": 4}, 0xF0),
    ("popc.b64", {"a": 0xFF00000000000001}, 9),
    ("brev.b32", {"a": 1}, 0x80000000),
    ("min.s32", {"a": -1, "b": 1}, -1),
    ("max.u32", {"a": M32, "b": 1}, M32),
    ("clmad.lo.u64", {"a": 3, "b": 3, "c": 0}, 5),
    ("clmad.hi.u64", {"a": 1 << 63, "b": 2, "c": 0}, 1),
    ("dp4a.u32.u32", {"a": 0x01020304, "b": 0x01010101, "c": 10}, 20),
    ("prmt.b32", {"a": 0x44332211, "b": 0x88776655, "c": 0x7654}, 0x88776655),
    # 9.7.10.7: "msb=1 means replicate the sign": selector 8 = byte 0 (0x11, sign 0) -> 0x00
    ("prmt.b32", {"a": 0x44332211, "b": 0x88776655, "c": 0x0008}, 0x11111100),
    # selector 0xF = byte 7 (0x88, sign 1) -> 0xFF
    ("prmt.b32", {"a": 0x44332211, "b": 0x88776655, "c": 0x000F}, 0x111111FF),
])
def test_forms(form: str, args: dict, want: int) -> None:
    got = evaluate_ptx(ptx_semantics(form, TEXTS), args)
    dest = next(iter(got))
    assert got[dest] == want, f"{form} {args}"


def test_mode_lines_select_the_form() -> None:
    hi = ptx_semantics("mul.hi.u32", TEXTS).code
    lo = ptx_semantics("mul.lo.u32", TEXTS).code
    assert "t[2*n-1:n]" in hi.replace(" ", "") and "t[n-1:0]" not in hi.replace(" ", "")
    assert "t[n-1:0]" in lo.replace(" ", "")


def test_prepare_rewrites() -> None:
    code = prepare_ptx("d = |a|;\nd = t<47..16>;   // for .hi variant\nd = t<31..0>; // for .lo variant",
                       (".lo", ".u32"), {}, 32)
    assert "abs(a)" in code and "t[31:0]" in code and "47" not in code


def test_errata_are_reported() -> None:
    sem = ptx_semantics("clz.b32", TEXTS)
    assert sem.errata and "a&mask == 0" in sem.errata[0]
    assert evaluate_ptx(ptx_semantics("clz.b32", TEXTS), {"a": 0x00010000})["d"] == 15
    literal = ptx_semantics("clz.b32", TEXTS, errata=False)
    assert "a&mask == 0" in literal.code
    assert set(ERRATA) >= {"clz", "prmt"}
    assert eval_ptx("prmt.b32", {"a": 1, "b": 2, "c": 0x3210}, TEXTS)["errata"]


def test_fma_rounds_once() -> None:
    a = 1 + 2**-12
    assert evaluate_ptx(ptx_semantics("fma.rn.f32", TEXTS), {"a": a, "b": a, "c": -1.0})["d"] == 2**-11 + 2**-24


def test_bad_operands() -> None:
    with pytest.raises(EvalError, match="unknown operand z"):
        eval_ptx("sad.u32", {"a": 1, "b": 2, "c": 3, "z": 1}, TEXTS)
    with pytest.raises(EvalError, match="reads c"):
        eval_ptx("sad.u32", {"a": 1, "b": 2}, TEXTS)
    with pytest.raises(EvalError, match="does not fit in 16 bits"):
        eval_ptx("sad.u16", {"a": 1 << 16, "b": 2, "c": 3}, TEXTS)

"""Hostile pseudocode: every case ends in one SemanticsError naming the text's origin and line, quickly.

The cases are the issue's (a slice to bit 4e9 that hung, `63'F(...)` that raised a bare ValueError,
RecursionErrors, a MemoryError) and their neighbours; real manual text stays far inside every bound
(see test_real_text_is_inside_the_bounds).
"""

from __future__ import annotations

import time

import pytest

from gpuisa.limits import EVAL_MAX_BITS, EVAL_MAX_TEXT, EVAL_SECONDS
from gpuisa.semantics.errors import SemanticsError
from gpuisa.semantics.run import evaluate

HOSTILE = [
    ("slice to bit 4e9", "D0.u = S0.u[31 : S1.u]", {"S0": 5, "S1": 4_000_000_000}, "bit range [31 : 4000000000]"),
    ("reversed slice from 4e9", "D0.u = S0.u[S1.u : 0]", {"S0": 5, "S1": 4_000_000_000}, "bit range"),
    ("63-bit float cast", "D0.f = 63'F(S0.f)", {"S0": 1.0}, "63-bit float"),
    ("63-bit float literal", "D0.u = 63'F(1.0)", {}, "63-bit float"),
    ("17-bit float literal", "D0.u = 17'1.0F", {}, "17-bit float"),
    ("zero-width cast", "D0.u = 0'U(1)", {}, "0-bit"),
    ("huge cast", "D0.u = 100000000'U(S0.u)", {"S0": 1}, "outside 1..4096"),
    ("width with 23 digits", "D0.u = 99999999999999999999999'U(1)", {}, "outside 1..4096"),
    ("literal width with 23 digits", "D0.u = 99999999999999999999999'1U", {}, "is too long"),
    ("deep unary nesting", "D0.u = " + "-" * 3000 + "S0.u", {"S0": 1}, "nested too deeply"),
    ("recursive lambda", "f = lambda(x) (f(x));\nD0.u = f(S0.u)", {"S0": 1}, "nested more than"),
    ("huge array", "declare a : 32'U[100000000];\nD0.u = 1", {}, "array a of 100000000 elements"),
    ("huge declared width", "declare t : 9999999'U;\nD0.u = 1", {}, "outside 1..4096"),
    ("text over the bound", "D0.u = S0.u" + " + S0.u" * 20000, {"S0": 1}, f"at most {EVAL_MAX_TEXT}"),
    ("float declared 63 bits", "declare t : 63'F;\nD0.u = 1", {}, "63-bit float"),
]


@pytest.mark.parametrize(("text", "inputs", "fragment"), [c[1:] for c in HOSTILE], ids=[c[0] for c in HOSTILE])
def test_hostile_text_is_one_clean_error(text, inputs, fragment):
    start = time.monotonic()
    with pytest.raises(SemanticsError) as exc:
        evaluate(text, inputs, where="V_HOSTILE (test)")
    assert time.monotonic() - start < EVAL_SECONDS + 5
    assert fragment in str(exc.value), str(exc.value)
    assert str(exc.value).startswith("V_HOSTILE (test)")


def test_a_long_loop_stops_at_its_budget():
    text = "for i in 0 : 4000 do\n  for j in 0 : 4000 do\n    D0.u = D0.u + 1\n  endfor\nendfor"
    start = time.monotonic()
    with pytest.raises(SemanticsError, match=r"budget|steps"):
        evaluate(text, {"D0": 0}, where="V_LOOP (test)", strict=False)
    assert time.monotonic() - start < EVAL_SECONDS + 10


def test_an_error_names_the_line_and_its_text():
    with pytest.raises(SemanticsError) as exc:
        evaluate("tmp = S0.u;\nD0.f = 63'F(S0.f)", {"S0": 1.0}, where="V_X (test)")
    assert exc.value.line == 2 and "V_X (test) line 2" in str(exc.value)


def test_real_text_is_inside_the_bounds(catalog):
    longest, = catalog.conn.execute("SELECT max(length(semantics)) FROM instr_arch").fetchone()
    assert longest * 4 < EVAL_MAX_TEXT
    widths = [int(w) for (s,) in catalog.conn.execute("SELECT semantics FROM instr_arch WHERE semantics LIKE '%''%'")
              for w in __import__("re").findall(r"\b(\d+)'[UIFB]", s)]
    assert max(widths) < EVAL_MAX_BITS


def test_cli_eval_of_a_float_for_an_integer_operand(catalog_path, capsys, monkeypatch):
    """`eval v_sad_u32 S0=1.5` used to bit-cast 1.5 silently; the manual reads S0 as .u32 only."""
    from gpuisa.cli import main

    monkeypatch.setenv("GPUISA_CATALOG", str(catalog_path))
    with pytest.raises(SystemExit) as exc:
        main(["eval", "v_sad_u32", "--arch", "rdna3", "S0=1.5", "S1=1", "S2=1"])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and "S0=1.5 is a float" in err and "u32" in err


def test_cli_eval_prints_minus_two_to_the_31(catalog_path, capsys, monkeypatch):
    """V_MOV_B32 of 0x80000000 read as i32 is -2^31, one 32-bit register: 0x80000000, not 0x180000000."""
    from gpuisa.commands.eval import _fmt

    assert _fmt(-(1 << 31)) == "-2147483648 (0x80000000)"
    assert _fmt(-1) == "-1 (0xffffffff)"
    assert _fmt(-(1 << 31) - 1) == "-2147483649 (0xffffffff7fffffff)"

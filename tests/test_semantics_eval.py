"""Evaluation facts from the manuals, the CLI, and clear errors for bad input.

Facts under test are the manuals' pseudocode, quoted with file:line:
  rdna3/README.md:15680  V_SAD_U32   D0.u = ABSDIFF(S0.u, S1.u) + S2.u
  cdna5/README.md:22486  V_LSHL_ADD_U64  shift = S1[2 : 0].u32 > 4U ? 3'0U : S1[2 : 0].u3;
                                         D0.u64 = (S0.u64 << shift.u32) + S2.u64
  cdna4/README.md:14401  V_LSHL_ADD_U64  D0.u64 = (S0.u64 << S1.u32[2 : 0].u32) + S2.u64
  ptx 9.7.1.5 clmad: tmp ^= b << i for each set bit i of a; .lo keeps tmp[63..0]; d ^= c
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from gpuisa.errors import GpuisaError, NotFoundError
from gpuisa.semantics import evaluate, evaluate_wave
from gpuisa.semantics.api import eval_amd, eval_ptx, parse_assignments
from gpuisa.semantics.errors import EvalError, PseudocodeSyntaxError, UnsupportedError
from tests.conftest import MANUALS, TEXTS, manual_line

M32 = (1 << 32) - 1


def manual_text(arch: str) -> str:
    return (MANUALS / arch / "README.md").read_text(encoding="utf-8")


def test_v_sad_u32_rdna3() -> None:
    assert eval_amd("v_sad_u32", "rdna3", {"S0": 5, "S1": 3, "S2": 10}, TEXTS)["outputs"]["D0"] == 12
    # |3 - 5| + 0xffffffff wraps to 1 in 32 bits
    assert eval_amd("v_sad_u32", "rdna3", {"S0": 3, "S1": 5, "S2": M32}, TEXTS)["outputs"]["D0"] == 1
    # unsigned comparison: |0 - 0xffffffff| = 0xffffffff
    assert eval_amd("v_sad_u32", "rdna3", {"S0": 0, "S1": M32, "S2": 0}, TEXTS)["outputs"]["D0"] == M32


def test_v_lshl_add_u64_is_per_arch() -> None:
    assert eval_amd("v_lshl_add_u64", "cdna5", {"S0": 3, "S1": 5, "S2": 4}, TEXTS)["outputs"]["D0"] == 7
    assert eval_amd("v_lshl_add_u64", "cdna4", {"S0": 3, "S1": 5, "S2": 4}, TEXTS)["outputs"]["D0"] == 100
    # within 0..4 both agree: (3 << 4) + 4
    for arch in ("cdna4", "cdna5"):
        assert eval_amd("v_lshl_add_u64", arch, {"S0": 3, "S1": 4, "S2": 4}, TEXTS)["outputs"]["D0"] == 52


def test_clmad_lo() -> None:
    assert eval_ptx("clmad.lo.u64", {"a": 3, "b": 3, "c": 0}, TEXTS)["outputs"]["d"] == 5
    # x^63 * x = x^64: the low half is empty, the high half holds bit 0
    assert eval_ptx("clmad.lo.u64", {"a": 1 << 63, "b": 2, "c": 0}, TEXTS)["outputs"]["d"] == 0
    assert eval_ptx("clmad.hi.u64", {"a": 1 << 63, "b": 2, "c": 0}, TEXTS)["outputs"]["d"] == 1
    assert eval_ptx("clmad.lo.u64", {"a": 3, "b": 3, "c": 1}, TEXTS)["outputs"]["d"] == 4


def test_text_api_and_table_notation() -> None:
    text = "ABSDIFF = lambda(x, y) (\n    x > y ? x - y : y - x);\nD0.u = ABSDIFF(S0.u, S1.u) + S2.u"
    assert evaluate(text, {"S0": 5, "S1": 3, "S2": 10}, "headed")["D0"] == 12
    # vega/cdna1/cdna2/rdna1/rdna2 opcode-table cell, prose mixed in (vega/README.md V_SAD_U32 row)
    cell = ("ABSDIFF(x, y) := (x > y ? x - y : y - x) // UNSIGNED comparison D.u = ABSDIFF(S0.u, S1.u) + S2.u. "
            "Dword SAD with accumulation.")
    assert evaluate(cell, {"S0": 5, "S1": 3, "S2": 10}, "table")["D"] == 12


def test_wave_matches_single_lane() -> None:
    rng = np.random.default_rng(0)
    a, b, c = (rng.integers(0, 1 << 32, 256, dtype=np.uint64) for _ in range(3))
    text = "ABSDIFF = lambda(x, y) (x > y ? x - y : y - x);\nD0.u = ABSDIFF(S0.u, S1.u) + S2.u"
    wave = evaluate_wave(text, {"S0": a, "S1": b, "S2": c})["D0"]
    for i in range(0, 256, 37):
        one = evaluate(text, {"S0": int(a[i]), "S1": int(b[i]), "S2": int(c[i])})["D0"]
        assert int(wave[i]) == one == (abs(int(a[i]) - int(b[i])) + int(c[i])) & M32


def test_lane_divergent_branches_merge() -> None:
    # rdna3/README.md:9879 V_CLZ_I32_U32: a loop with break, different per lane
    text = ("D0.i = -1;\nfor i in 0 : 31 do\n  if S0.u[31 - i] == 1'1U then\n    D0.i = i;\n    break\n"
            "  endif\nendfor")
    vals = np.array([0, 1, 0x80000000, 0x00010000], dtype=np.uint64)
    out = evaluate_wave(text, {"S0": vals})["D0"]
    assert list(out) == [-1, 31, 0, 15]


def test_float_fma_is_single_rounding() -> None:
    # rdna3/README.md:15506 V_FMA_F32: D0.f = fma(S0.f, S1.f, S2.f)
    a = 1 + 2**-12                      # exact in float32
    out = eval_amd("v_fma_f32", "rdna3", {"S0": a, "S1": a, "S2": -1.0}, TEXTS)["outputs"]["D0"]
    assert out == 2**-11 + 2**-24       # a*a - 1 exactly; a separate multiply would round it to 2**-11
    assert float(np.float32(np.float32(a) * np.float32(a)) - np.float32(1.0)) == 2**-11


# ------------------------------------------------------------------ bad input
def test_unknown_instruction_suggests() -> None:
    with pytest.raises(NotFoundError, match="v_sad_u32"):
        eval_amd("v_sadd_u32", "rdna3", {"S0": 1}, TEXTS)


def test_unknown_operand_named() -> None:
    with pytest.raises(EvalError, match=r"unknown operand S9.*S0, S1, S2"):
        eval_amd("v_sad_u32", "rdna3", {"S0": 1, "S1": 2, "S2": 3, "S9": 4}, TEXTS)


def test_missing_operand_named() -> None:
    with pytest.raises(EvalError, match="reads S2"):
        eval_amd("v_sad_u32", "rdna3", {"S0": 1, "S1": 2}, TEXTS)


def test_out_of_range_value() -> None:
    with pytest.raises(EvalError, match="does not fit in 32 bits"):
        eval_amd("v_sad_u32", "rdna3", {"S0": 1 << 33, "S1": 2, "S2": 3}, TEXTS)
    with pytest.raises(EvalError, match="does not fit in 64 bits"):
        eval_ptx("clmad.lo.u64", {"a": 1 << 64, "b": 1, "c": 0}, TEXTS)


def test_bad_values_and_pairs() -> None:
    with pytest.raises(EvalError, match="not a number"):
        parse_assignments(["S0=zz"])
    with pytest.raises(EvalError, match="NAME=VALUE"):
        parse_assignments(["S0"])
    assert parse_assignments(["S0=0x10", "S1=-3", "S2=1.5"]) == {"S0": 16, "S1": -3, "S2": 1.5}


def test_unsupported_pseudocode_named() -> None:
    with pytest.raises(PseudocodeSyntaxError, match="line 2"):
        evaluate("D0.u = S0.u;\nD0.u = = 3", {"S0": 1})
    with pytest.raises(UnsupportedError, match="frobnicate"):
        evaluate("D0.u = frobnicate(S0.u)", {"S0": 1})
    with pytest.raises(UnsupportedError, match="MEM"):
        evaluate("MEM[S0.u].b32 = 1", {"S0": 1})
    with pytest.raises(EvalError, match="S1 has no value"):
        evaluate("D0.u = S0.u + S1.u", {"S0": 1}, strict=False)
    with pytest.raises(GpuisaError, match="style"):
        evaluate("D0.u = 1", {}, "fancy")


# ------------------------------------------------------------------ CLI
def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-c", "from gpuisa.cli import main; main()", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)


def test_cli_eval(catalog_path) -> None:
    cat = ("--catalog", str(catalog_path))
    r = _cli("eval", "v_sad_u32", "--arch", "rdna3", "S0=5", "S1=3", "S2=10", *cat)
    assert r.returncode == 0, r.stderr
    assert "D0 = 12 " in r.stdout
    r = _cli("eval", "v_lshl_add_u64", "--arch", "cdna5", "S0=3", "S1=5", "S2=4", *cat)
    assert "D0 = 7 " in r.stdout
    r = _cli("eval", "clmad", "--form", "clmad.lo.u64", "a=3", "b=3", "c=0", *cat)
    assert r.returncode == 0, r.stderr
    assert "d = 5 " in r.stdout
    r = _cli("eval", "clmad.lo.u64", "a=3", "b=3", "c=0", *cat)   # a PTX form resolves as in `show`
    assert r.returncode == 0 and "d = 5 " in r.stdout, r.stderr


def test_eval_and_show_resolve_names_alike(catalog_path, catalog) -> None:
    """rdna4 renamed S_ADD_I32 to S_ADD_CO_I32: rdna4/README.md:6991 heads `S_ADD_CO_I32` with
    `tmp = S0.i32 + S1.i32` (6996), and LLVM's gfx12_asm_sop2_alias.s:4-5 assembles s_add_i32 as s_add_co_i32."""
    assert manual_line("rdna4", 6991) == "#### **S\\_ADD\\_CO\\_I32 2**"
    assert manual_line("rdna4", 6996) == "tmp = S0.i32 + S1.i32;"
    assert "S_ADD_I32" not in manual_text("rdna4")
    assert catalog.show("s_add_i32", "rdna4").name == "s_add_co_i32"
    cat = ("--catalog", str(catalog_path))
    r = _cli("eval", "s_add_i32", "--arch", "rdna4", "S0=1", "S1=2", *cat)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("s_add_co_i32 on rdna4") and "D0 = 3 " in r.stdout
    for spelling in ("v_sad_u32_e64", "V_SAD_U32_e64", "v_sad_u32_dpp8"):   # LLVM encoding suffixes
        assert catalog.show(spelling, "rdna3").name == "v_sad_u32"
        r = _cli("eval", spelling, "--arch", "rdna3", "S0=5", "S1=3", "S2=10", *cat)
        assert r.returncode == 0 and "D0 = 12 " in r.stdout, (spelling, r.stderr)


def test_eval_without_catalog_says_so_like_show(tmp_path) -> None:
    missing = str(tmp_path / "none.sqlite")
    shown = _cli("show", "v_sad_u32", "--catalog", missing)
    r = _cli("eval", "v_sad_u32", "--arch", "rdna3", "S0=5", "S1=3", "S2=10", "--catalog", missing)
    assert r.returncode == shown.returncode == 2
    assert r.stderr == shown.stderr and len(r.stderr.strip().splitlines()) == 1 and "gpuisa build" in r.stderr


def test_cli_errors_are_one_line(catalog_path) -> None:
    r = _cli("eval", "v_sad_u32", "--arch", "rdna3", "S0=5", "S1=3", "S7=1", "--catalog", str(catalog_path))
    assert r.returncode == 2
    assert r.stderr.startswith("gpuisa: error: unknown operand S7") and "Traceback" not in r.stderr
    r = _cli("eval", "v_sad_u32", "--arch", "rdna9", "S0=1", "--catalog", str(catalog_path))
    assert r.returncode == 2 and "architecture" in r.stderr

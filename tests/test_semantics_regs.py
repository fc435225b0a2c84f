"""Register-file indexing (VGPR[lane][addr], SGPR[addr]): the manuals' MOVREL examples, READLANE and
WRITELANE, run from each manual's own pseudocode."""

from __future__ import annotations

import re

import numpy as np
import pytest

from gpuisa.semantics.errors import EvalError
from gpuisa.semantics.run import evaluate, evaluate_wave, machine_for
from gpuisa.semantics.source import amd_semantics
from tests.conftest import TEXTS, manual_line

# rdna3/README.md: "Example: The following instruction sequence performs the move v15 <= v7:" and, two lines
# further, the sequence "s_mov_b32 m0, 10 v_movreld_b32 v5, v7".
EXAMPLES = [7688, 7718, 7751, 10058, 10075, 10093, 10113]
_MOVE = re.compile(r"performs the move ([sv])(\d+) <= [sv](\d+)")
_SEQ = re.compile(r"s\\_mov\\_b32 m0, (.+?) ([sv]\\_movrel[\w\\]+) [sv](\d+), [sv](\d+)")


@pytest.mark.parametrize("line", EXAMPLES)
def test_movrel_examples_from_the_manual(line: str) -> None:
    move, seq = _MOVE.search(manual_line("rdna3", line)), _SEQ.search(manual_line("rdna3", line + 2))
    assert move and seq, "premise: the manual states the example"
    file = "SGPR" if move.group(1) == "s" else "VGPR"
    to, frm = int(move.group(2)), int(move.group(3))
    m0 = eval(seq.group(1), {})                      # "10" or "((20 << 16) | 10)": a constant expression
    name = seq.group(2).replace("\\", "").upper()
    dst, src = int(seq.group(3)), int(seq.group(4))
    sem = amd_semantics(name, "rdna3", TEXTS)
    inputs = {"M0": m0, "DST": dst, "SRC0": src, f"{file}[{frm}]": 0x1234, "S0": 0x1234}
    out = evaluate(sem.text, inputs, sem.style, machine=machine_for("rdna3"), name=sem.name, strict=False)
    written = out.get(f"{file}[{to}]", out.get("D0") if to == dst else None)
    assert written == 0x1234


def test_readlane_reads_another_lane() -> None:
    sem = amd_semantics("V_READLANE_B32", "rdna3", TEXTS)
    assert "D0.b = VGPR[lane][SRC0.u]" in sem.text
    out = evaluate_wave(sem.text, {"SRC0": 3, "S1": 37, "VGPR[3]": np.arange(32) * 10}, sem.style,
                        machine=machine_for("rdna3"))
    assert (out["D0"] == 50).all()                     # wave32: lane = S1[4:0] = 5


def test_writelane_writes_one_lane_only() -> None:
    sem = amd_semantics("V_WRITELANE_B32", "cdna3", TEXTS)
    out = evaluate_wave(sem.text, {"VDST": 3, "S1": 2, "S0": 55, "VGPR[3]": np.arange(64)}, sem.style,
                        machine=machine_for("cdna3"))
    want = np.arange(64)
    want[2] = 55
    assert out["VGPR[3]"].tolist() == want.tolist()


def test_unknown_register_is_named() -> None:
    sem = amd_semantics("V_MOVRELS_B32", "rdna3", TEXTS)
    with pytest.raises(EvalError, match=r"register VGPR\[17\] has no value; give it as VGPR\[17\]=VALUE"):
        evaluate(sem.text, {"SRC0": 7, "M0": 10}, sem.style, machine=machine_for("rdna3"))


def test_eval_api_takes_registers_by_name() -> None:
    """`gpuisa eval v_movrels_b32 --arch rdna3 SRC0=7 M0=10 VGPR[17]=5` -> D0 = 5 (the v5 <= v17 example,
    rdna3/README.md:10075)."""
    from gpuisa.semantics.api import eval_amd, parse_assignments

    assert "v5 <= v17" in manual_line("rdna3", 10075)
    out = eval_amd("v_movrels_b32", "rdna3", parse_assignments(["SRC0=7", "M0=10", "VGPR[17]=5"]), TEXTS)
    assert out["outputs"] == {"D0": 5}
    assert eval_amd("v_movreld_b32", "rdna3", parse_assignments(["DST=5", "M0=10", "S0=9"]),
                    TEXTS)["outputs"] == {"VGPR[15]": 9}

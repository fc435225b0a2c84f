"""How the ptxas verifier spends its runs: a line it already asked about is not asked again.

The facts are ptxas's own answers (13.0 and 13.5 alike): `add.u32` assembles at the tool's highest
.version on sm_100a, and `add.u32.u32` draws an error on its line (no manual value is compared here).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuisa.verify.ptx_tools import Runner, find_tools
from gpuisa.verify.ptxas import _Engine

TOOLS = find_tools()
pytestmark = [pytest.mark.tools, pytest.mark.skipif(TOOLS.ptxas is None, reason="ptxas not installed "
                                                    "(pip install nvidia-cuda-nvcc==13.5.37)")]

GOOD = "{ .reg .b32 %r<3>; add.u32 %r0, %r1, %r2; }"
BAD = "{ .reg .b32 %r<3>; add.u32.u32 %r0, %r1, %r2; }"
TOP = TOOLS.max_ptx or "9.0"           # the highest .version this ptxas takes (9.5 for 13.5, 9.0 for 13.0)


def test_a_line_is_asked_once_per_setting(tmp_path: Path):
    runner = Runner(TOOLS, tmp_path, use_cache=False)
    engine = _Engine(runner, 1, None)
    first, _ = engine.check([GOOD, BAD], TOP, "sm_100a", "t")
    assert first[0] == [] and first[1]             # ptxas: no message for add.u32, an error for add.u32.u32
    calls = runner.ptxas_calls
    again, _ = engine.check([BAD, GOOD, GOOD], TOP, "sm_100a", "t")
    assert runner.ptxas_calls == calls             # answered from what ptxas said before
    assert again == [first[1], [], []]
    engine.check([GOOD], TOP, "sm_90a", "t")     # another target is another question
    assert runner.ptxas_calls == calls + 1


def test_answers_are_kept_per_line_for_the_next_run(tmp_path: Path):
    first_runner = Runner(TOOLS, tmp_path)
    first, _ = _Engine(first_runner, 1, None).check([GOOD, BAD], TOP, "sm_100a", "t")
    assert first_runner.ptxas_calls == 1
    runner = Runner(TOOLS, tmp_path)               # another run, in a file of other lines: no ptxas at all
    again, _ = _Engine(runner, 1, None).check([BAD, GOOD], TOP, "sm_100a", "t")
    assert runner.ptxas_calls == 0 and again == [first[1], []]
    other, _ = _Engine(runner, 1, None).check([GOOD], TOP, "sm_100a", "t", parse_only=False)
    assert runner.ptxas_calls == 1 and other == [[]]      # code generation is another question

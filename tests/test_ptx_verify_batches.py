"""How the ptxas verifier spends its runs: a line it already asked about is not asked again.

The facts are ptxas's own answers (13.0 and 13.5 alike): `add.u32` assembles at the tool's highest
.version on sm_100a, and `add.u32.u32` draws an error on its line (no manual value is compared here).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuisa.verify.ptx_tools import Run, Runner, find_tools
from gpuisa.verify.ptxas import _Engine, _sass_file, _test_file, parse_sass

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


SYNTAX = "{ .reg .b32 %r<3>; add.u32 %r0, , %r2; }"     # ptxas: "Parsing error near ',': syntax error"


def test_a_run_of_syntax_errors_costs_few_rounds_and_each_line_gets_its_own_answer(tmp_path: Path):
    """ptxas stops reading a file at its first syntax error, so every such line needs a run of its own, and a form's
    candidate rows bring them in runs (up to ~1,000 in a row): the rest of the file is asked again in pieces, not
    re-read once per error. Each line's answer is still what ptxas says of it alone."""
    lines = [GOOD] * 30 + [SYNTAX] * 40 + [GOOD] * 30 + [BAD] + [SYNTAX] * 3 + [GOOD] * 10
    runner = Runner(TOOLS, tmp_path, use_cache=False)
    premise = runner.compile(_test_file(lines, TOP, "sm_100a", True)[0], "compute_100a")
    assert len(premise.fatal_lines) == 1 and "syntax error" in " ".join(premise.messages[premise.fatal_lines[0]])
    rounds: list[int] = []
    engine = _Engine(runner, 2, lambda stage, done, total: rounds.append(done) if done == total else None)
    got, _ = engine.check(lines, TOP, "sm_100a", "t")
    alone = {line: _Engine(runner, 1, None).check([line], TOP, "sm_100a", "t")[0][0] for line in set(lines)}
    assert got == [alone[line] for line in lines]
    assert alone[SYNTAX] and alone[BAD] and alone[GOOD] == []
    assert len(rounds) < 15              # one round per error was 44


# ---------------------------------------------------------------- SASS: many kernels per ptxas/cuobjdump run

def _kernel(*body: str, regs: str = ".reg .b32 %r<3>;") -> str:
    return "\n".join([".visible .entry k(.param .u64 pin, .param .u64 pout)", "{", ".reg .b64 %in, %out;", regs,
                      "ld.param.u64 %in, [pin]; ld.param.u64 %out, [pout];", *body, "ret;", "}"])


ADD = _kernel("ld.global.u32 %r1, [%in]; ld.global.u32 %r2, [%in+4];", "add.u32 %r0, %r1, %r2;",
              "st.global.u32 [%out], %r0;")
MUL = _kernel("ld.global.u32 %r1, [%in]; ld.global.u32 %r2, [%in+4];", "mul.lo.u32 %r0, %r1, %r2;",
              "st.global.u32 [%out], %r0;")
# PTX ISA 6.4 made shfl without .sync unavailable on sm_70 and later (ptxas: "Instruction 'shfl' without '.sync'
# is not supported on .target sm_70 and higher from PTX ISA version 6.4")
OLD_SHFL = _kernel("ld.global.u32 %r1, [%in];", "shfl.up.b32 %r0, %r1, 1, 0;", "st.global.u32 [%out], %r0;")
# ptxas 13.5.37 dies on an 8-byte vector of bytes loaded from a generic address from sm_90 on
# ("ptxas fatal : (C7907) Internal compiler error.", no line named)
V8 = _kernel(*(f"ld.global.b16 %h{i}, [%in+{2 * i}];" for i in range(8)), "ld.global.b64 %rd0, [%in+16];",
             "ld.v8.u8 {%h0, %h1, %h2, %h3, %h4, %h5, %h6, %h7}, [%rd0];",
             *(f"st.global.b16 [%out+{2 * i}], %h{i};" for i in range(8)), regs=".reg .b16 %h<8>; .reg .b64 %rd<1>;")
needs_cuobjdump = pytest.mark.skipif(TOOLS.cuobjdump is None, reason="cuobjdump not installed (pip install "
                                     "nvidia-cuda-cuobjdump==13.5.37 nvidia-cuda-nvdisasm==13.5.37)")


def _alone(runner: Runner, kernel: str, target: str) -> tuple[list[str], Run]:
    """The kernel's opcodes when it is the only one in its file, and ptxas's run."""
    run = runner.compile(_sass_file(target, [kernel], TOP), target, sass=True, keep=False)
    return parse_sass(run.sass).get("k", []), run


@needs_cuobjdump
def test_kernels_lowered_together_as_alone_and_a_refused_one_costs_only_itself(tmp_path: Path):
    runner = Runner(TOOLS, tmp_path)
    refused = _alone(runner, OLD_SHFL, "sm_80")[1]
    assert any("without '.sync'" in m for ms in refused.messages.values() for m in ms)     # the premise
    engine = _Engine(runner, 2, None)
    calls = runner.ptxas_calls
    got = engine.lower({"sm_80": [ADD, OLD_SHFL, MUL]}, TOP)
    assert runner.ptxas_calls - calls == 3          # the bare header, the file, the file without the refused one
    assert got[("sm_80", OLD_SHFL)] is None
    for kernel in (ADD, MUL):
        assert list(got[("sm_80", kernel)] or ()) == _alone(runner, kernel, "sm_80")[0] != []
    engine.lines.close()
    again = Runner(TOOLS, tmp_path)                 # each kernel's answer is kept: a new list lowers only new ones
    assert _Engine(again, 2, None).lower({"sm_80": [MUL, OLD_SHFL, ADD]}, TOP) == got
    assert again.ptxas_calls == 0


@needs_cuobjdump
def test_a_kernel_that_kills_ptxas_is_found_and_the_others_keep_their_sass(tmp_path: Path):
    runner = Runner(TOOLS, tmp_path, use_cache=False)
    _, run = _alone(runner, V8, "sm_90")
    if run.rc == 0 or run.messages:
        pytest.skip(f"{TOOLS.label} compiles ld.v8.u8 on sm_90 or names its line; the case needs one that dies")
    others = [_kernel("ld.global.u32 %r1, [%in];", f"add.u32 %r0, %r1, {n};", "st.global.u32 [%out], %r0;")
              for n in range(1, 200)]
    got = _Engine(runner, 2, None).lower({"sm_90": [*others[:100], V8, *others[100:]]}, TOP)
    assert got[("sm_90", V8)] is None
    assert all(got[("sm_90", k)] for k in others)


TEX = _kernel(*(f"ld.global.b32 %r{i}, [%in+{4 * i}];" for i in range(16)),
              "tex.grad.3d.v4.s32.f32 {%r0, %r1, %r2, %r3}, [tex0, {%r4, %r5, %r6, %r7}], {%r8, %r9, %r10, %r11}, "
              "{%r12, %r13, %r14, %r15};", *(f"st.global.b32 [%out+{4 * i}], %r{i};" for i in range(16)),
              regs=".reg .b32 %r<16>;")
TXQ = _kernel("txq.width.b32 %r0, [tex0];", "st.global.u32 [%out], %r0;")


@needs_cuobjdump
def test_an_absolute_call_is_lowered_as_in_a_file_of_its_own(tmp_path: Path):
    runner = Runner(TOOLS, tmp_path, use_cache=False)
    alone = _alone(runner, TEX, "sm_100")[0]
    both = _sass_file("sm_100", [TEX, TXQ.replace(".entry k(", ".entry q(")], TOP)
    beside_txq = parse_sass(runner.compile(both, "sm_100", sass=True, keep=False).sass).get("k", [])
    if not any(op.startswith("CALL.ABS") for op in alone) or alone == beside_txq:
        pytest.skip(f"{TOOLS.label} sets up the call of tex.grad on sm_100 the same beside a txq kernel")
    got = _Engine(runner, 2, None).lower({"sm_100": [TEX, TXQ]}, TOP)
    assert list(got[("sm_100", TEX)] or ()) == alone

"""Combinations the PTX Syntax spells but the manual's prose forbids (sources/ptx_restrictions).

Every rule is first checked against its own manual line (the words it cites are on that line of
../shared/sources/ptx-isa-9.4/); then the reader must leave the combinations out of the forms and
count them, and ptxas 13.5 must refuse the first one ("Mismatch between instruction type and
comparison qualifier" for setp.lt.b16).
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest

from gpuisa.catalog.ptx_store import ptx_show, write_ptx
from gpuisa.paths import default_sources
from gpuisa.sources import ptx_restrictions as pr
from gpuisa.sources.ptx_docs import read_manual
from gpuisa.sources.ptx_syntax import split_form
from gpuisa.verify.ptx_tools import find_tools
from gpuisa.verify.ptxas import verify_manual

PTX94 = default_sources() / "ptx-isa-9.4"
TOOLS = find_tools()
pytestmark = pytest.mark.skipif(not (PTX94 / "9-instruction-set").is_dir(), reason="PTX ISA 9.4 sources not found")


@pytest.fixture(scope="module")
def manual():
    return read_manual(PTX94)


def _lines(file: str, line: int, span: int) -> str:
    """The cited lines as read (HTML table cells without their tags)."""
    text = (PTX94 / file).read_text(encoding="utf-8").split("\n")
    return re.sub(r"<[^>]+>", "", "\n".join(text[line - 1:line - 1 + span]))


@pytest.mark.parametrize("rule", [*pr.PROSE_RESTRICTIONS, *pr.MISSING_SETS],
                         ids=lambda r: getattr(r, "key", getattr(r, "placeholder", "?")))
def test_each_rule_is_stated_on_its_line(rule):
    said = _lines(rule.file, rule.line, rule.span)
    for words in rule.words:
        assert words in said, (rule.cite, words)


def test_rules_take_combinations_out_and_leave_none_in(manual):
    used = {e.rule for i in manual.instructions for e in i.excluded}
    assert used == {r.key for r in pr.PROSE_RESTRICTIONS}          # every rule excludes something
    for ins in manual.instructions:
        rules = pr.for_instruction(ins.names, ins.section)
        forbid = pr.forbidder(rules, lambda f, ins=ins: split_form(f, ins.names))
        listed = [f.form for f in ins.forms if f.origin == "syntax"]
        assert not [f for f in listed if forbid(f)], ins.section
        for e in ins.excluded:
            assert e.count > 0 and e.samples and all(forbid(s) for s in e.samples)
            assert e.cite.startswith("ptx-isa-9.4/9-instruction-set/")


def test_comparisons_follow_the_tables_of_operators(manual):
    # 9.3.1.1-...comparisons.md:14: "ordering comparisons are not defined for bit-size types"; the unsigned
    # comparisons are eq, ne, lo, ls, hi, hs
    (setp,) = [i for i in manual.instructions if i.section == "9.7.7.2"]
    forms = {f.form for f in setp.forms}
    assert "setp.lt.b16" not in forms and "setp.lo.s32" not in forms and "setp.equ.u32" not in forms
    assert {"setp.eq.b16", "setp.lt.u16", "setp.lo.u16", "setp.equ.f32"} <= forms   # each alternative still met
    counted = {e.rule: e for e in setp.excluded}
    assert counted["compare-bit-size-order"].whole and counted["compare-bit-size-order"].count > 0


def test_the_undefined_type_of_fma_oob_is_read_from_its_note(manual):
    # 9.7.4.4-...fma.md:27 "fma.rnd.oob.{relu}.type": no set defines .type; line 76 names the types
    assert "fma.rnd.oob.{relu}.type" in _lines("9-instruction-set/9.7.4.4-half-precision-floating-point-instructionsfma.md",
                                               27, 1)
    (fma,) = [i for i in manual.instructions if i.section == "9.7.4.4"]
    forms = {f.form for f in fma.forms}
    assert not [f for f in forms if f.endswith(".type")]
    # the examples (lines 101-131) use .oob with and without .relu on all four types
    assert {"fma.rn.oob.f16", "fma.rn.oob.relu.f16", "fma.rn.oob.bf16x2", "fma.rn.oob.relu.bf16x2"} <= forms
    assert any("read as {.f16, .f16x2, .bf16, .bf16x2}" in x for x in fma.syntax_issues)


def test_the_page_counts_and_cites_what_was_left_out(manual, tmp_path: Path):
    conn = sqlite3.connect(tmp_path / "c.sqlite")
    write_ptx(conn, manual, None)
    doc = ptx_show(conn, "setp")
    excluded = [e for e in doc.errata if e.kind == "excluded"]
    bits = next(e for e in excluded if "9.3.1.1-integer-and-bit-size-comparisons.md:14" in (e.documented or ""))
    assert "combinations the Syntax generates are excluded by" in bits.message
    assert bits.verified.startswith("not asked")       # no ptxas here
    # the form asked for by name is no form: its page names the line that forbids it
    form = ptx_show(conn, "setp.lt.b16").forms[0]
    assert not form.in_manual and form.origin.startswith(
        "excluded by ptx-isa-9.4/9-instruction-set/9.3.1.1-integer-and-bit-size-comparisons.md:14")


@pytest.mark.tools
@pytest.mark.skipif(TOOLS.ptxas is None, reason="ptxas not installed (pip install nvidia-cuda-nvcc==13.5.37)")
def test_ptxas_refuses_the_excluded_combinations(manual, tmp_path: Path):
    result = verify_manual(manual, sections=["9.7.7.2", "9.7.13.3"], cache=tmp_path, sass_targets=())
    answers = {rule: answer for (sec, rule), answer in result.exclusions.items()}
    # ptxas 13.5: "Mismatch between instruction type and comparison qualifier" (setp.lt.b16, setp.lo.s16, ...)
    for rule in ("compare-bit-size-order", "compare-unsigned-ops", "compare-float-ops"):
        assert answers[rule] == ("agrees", "Mismatch between instruction type and comparison qualifier"), rule
    # "Incorrect type '.b64' for operation '.add' in instruction 'sured.p'"
    assert answers["sured-p-b64"][0] == "agrees" and "Incorrect type '.b64'" in answers["sured-p-b64"][1]
    # the forms left are verified, and no excluded combination became a form or an undocumented one
    setp = [v for v in result.verdicts.values() if v.section == "9.7.7.2"]
    assert setp and all(v.status == "verified" for v in setp if v.documented)
    assert ("9.7.7.2", "setp.lt.b16") not in result.verdicts
    conn = sqlite3.connect(tmp_path / "c.sqlite")
    write_ptx(conn, manual, result)
    bits = next(e for e in ptx_show(conn, "setp").errata if e.kind == "excluded" and ":14" in (e.documented or ""))
    assert bits.verified.startswith("ptxas agrees: Mismatch between instruction type")


def test_the_covering_sample_picks_allowed_combinations():
    # a toy Syntax block in the manual's own notation; the rule: `.lo` only with an unsigned type
    from gpuisa.sources.ptx_syntax import expand

    block = [(1, "setp.CmpOp.type  p, a, b;"), (2, ".CmpOp = { eq, lo, hi };"),
             (3, ".type = { .b16, .s16, .u16 };")]
    forbid = lambda form: "unsigned" if form.split(".")[1] in ("lo", "hi") and form.split(".")[2] != "u16" else None  # noqa: E731
    exp = expand([block], ("setp",), cap=4, forbid=forbid)          # 9 combinations: above the cap, sampled
    forms = [f for f, _ in exp.forms]
    assert exp.capped and not [f for f in forms if forbid(f)]
    assert {"setp.lo.u16", "setp.hi.u16", "setp.eq.s16"} <= set(forms)   # every alternative met in an allowed row
    assert exp.excluded["unsigned"].count == 4 and exp.excluded["unsigned"].whole   # lo/hi with .b16/.s16


@pytest.mark.tools
@pytest.mark.skipif(TOOLS.ptxas is None, reason="ptxas not installed (pip install nvidia-cuda-nvcc==13.5.37)")
def test_a_form_needing_32_bit_code_is_not_rejected(manual, tmp_path: Path):
    # ptxas 13.5 parses cvta.global.u32 but stops code generation: "32-Bit compilation is no longer supported"
    result = verify_manual(manual, sections=["9.7.10.23"], cache=tmp_path, sass_targets=())
    v = result.verdicts[("9.7.10.23", "cvta.global.u32")]
    assert v.status == "unverified" and "32-Bit compilation is no longer supported" in v.message
    assert result.verdicts[("9.7.10.23", "cvta.global.u64")].status == "verified"
    assert not [e for e in result.errata if e.form == "cvta.global.u32"]

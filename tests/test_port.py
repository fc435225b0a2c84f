"""`gpuisa port`: every PTX line of a kernel mapped to an AMD instruction or explained; bad lines name line:column.

The kernel (tests/data/port_kernel.ptx) was written for this test: integer, float, compare, select and
cvt statements between loads, a guarded branch and a store.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpuisa.cli import app
from gpuisa.crossref.port import operand_names, split_operands
from gpuisa.crossref.ptx_forms import matches_template, syntax_sets
from tests.conftest import SOURCES

KERNEL = Path(__file__).parent / "data" / "port_kernel.ptx"
SETP = SOURCES / "ptx-isa-9.4/9-instruction-set/9.7.7.2-comparison-and-selection-instructionssetp.md"


def test_written_setp_matches_the_manual_template():
    # premise: the manual writes setp as a template over sets (9.7.7.2 Syntax), with .s32 in .type
    text = SETP.read_text()
    assert "setp.CmpOp{.ftz}.type         p[|q], a, b;" in text
    sets = syntax_sets(text)
    assert ".lt" in sets["CmpOp"] and ".s32" in sets["type"]
    assert matches_template((".lt", ".s32"), "setp.CmpOp{.ftz}.type p[|q], a, b;", "setp", text)
    assert matches_template((".lt", ".ftz", ".f32"), "setp.CmpOp{.ftz}.type p[|q], a, b;", "setp", text)
    assert not matches_template((".lt", ".s8"), "setp.CmpOp{.ftz}.type p[|q], a, b;", "setp", text)
    assert operand_names("p[|q], a, b, {!}c;") == ["p", "a", "b", "c"]


def test_operands_keep_brackets_whole():
    assert split_operands("%r1, [%rd1+4], {%r2, %r3}", 10) == [("%r1", 10), ("[%rd1+4]", 15), ("{%r2, %r3}", 25)]


def _port(catalog_path, arch, *args):
    res = CliRunner().invoke(app, ["port", *args, "--arch", arch, "--catalog", str(catalog_path), "--json"])
    assert res.exit_code == 0, res.output
    return json.loads(res.output)


@pytest.mark.slow
@pytest.mark.parametrize("arch", ["gfx942", "gfx1100"])
def test_kernel_every_line_mapped_or_explained(catalog_path, tmp_path, monkeypatch, arch):
    monkeypatch.setenv("GPUISA_CACHE", str(tmp_path))
    out = _port(catalog_path, arch, "--file", str(KERNEL))
    lines = out["lines"]
    # every statement of the file is there: 41 statements (count the `;`-terminated instruction lines)
    code = [ln.split("//")[0].strip() for ln in KERNEL.read_text().splitlines()]
    statements = [ln for ln in code if ln.endswith(";") and not ln.startswith(".")]
    assert len(lines) == len(statements)
    for e in lines:
        assert e["level"] != "error", e
        assert e.get("amd") or e.get("sequence") or e.get("reason"), e
        assert e.get("evidence") or e.get("reason"), e
    by = {e["ptx"].split()[0]: e for e in lines}
    # the known answer: sad.u32 is V_SAD_U32 (proved), with the PTX registers in its slots
    assert by["sad.u32"]["amd"].startswith("v_sad_u32 %r23, %r22, %r21, %r20")
    assert by["sad.u32"]["evidence"].startswith(("z3: equal", "same pseudocode"))
    # loads, moves and branches are outside the Rosetta's chapters and say which chapter they are in
    assert "Data Movement" in by["ld.param.u64"]["reason"]
    assert "Control Flow" in by["@%p1"]["reason"]            # `@%p1 bra DONE;` (guarded)
    # mapped or explained: at least the integer and compare lines map
    mapped = [e for e in lines if e.get("amd") or e.get("sequence")]
    assert len(mapped) >= 25


def test_bad_lines_name_line_and_column(catalog_path, tmp_path, monkeypatch):
    monkeypatch.setenv("GPUISA_CACHE", str(tmp_path))
    text = "add.s32 %r1, %r2;\nfrobnicate.u32 %r1, %r2;\nadd.s32 v1, %r2, %r3;\n)))\n"
    out = _port(catalog_path, "cdna3", text)
    errs = {e["line"]: e["errors"][0] for e in out["lines"]}
    assert errs[1].startswith("1:9: add.s32 takes 3 operands (d, a, b), got 2")
    assert errs[2].startswith("2:1: unknown PTX instruction 'frobnicate.u32'")
    assert errs[3].startswith("3:9: register name 'v1' is an AMD register")
    assert errs[4].startswith("4:1: not a PTX statement")


def test_port_needs_an_arch_and_one_input(catalog_path):
    res = CliRunner().invoke(app, ["port", "add.s32 %r1, %r2, %r3;", "--catalog", str(catalog_path)])
    assert res.exception is not None and "--arch" in str(res.exception)
    res = CliRunner().invoke(app, ["port", "--arch", "cdna3", "--catalog", str(catalog_path)])
    assert res.exception is not None and "either PTX text or --file" in str(res.exception)

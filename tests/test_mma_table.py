"""PTX matrix products and their AMD counterparts (semantics.mma_table): the must-show row
mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 on cdna3 and rdna3 with evidence, and a decided row
(counterpart or reason) for every mma / mma.sp / wmma.mma / wgmma.mma_async product the PTX manual lists."""

from __future__ import annotations

import numpy as np
import pytest

from gpuisa.semantics import matrix as mx
from gpuisa.semantics import mma_table as mt
from gpuisa.sources.read import read_ptx_manual
from tests.conftest import SOURCES, TEXTS

MMA_MD = "ptx-isa-9.4/9-instruction-set/9.7.16.5-matrix-multiply-accumulate-operation-usingmmainstruction.md"


def _names() -> dict[str, list[str]]:
    return {a: [n for n in TEXTS.instruction_docs(a) if mx.MATRIX_FAMILY.match(n)] for a in mt.AMD_ARCHS}


def test_m16n8k16_f16_f32_has_counterparts_on_cdna3_and_rdna3() -> None:
    text = (SOURCES / MMA_MD).read_text(encoding="utf-8")
    assert ".m16n8k16" in text and ".f16" in text and ".f32" in text
    p = mt.parse_ptx("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32")
    assert (p.m, p.n, p.k, p.d, p.a, p.b, p.c) == (16, 8, 16, "f32", "f16", "f16", "f32")
    rng = np.random.default_rng(14)
    found = {cp.arch: mt.check(p, cp, rng) for cp in mt.counterparts(p, _names())}
    assert found["cdna3"].instruction == "v_mfma_f32_16x16x16_f16" and found["cdna3"].level == "padded"
    assert found["rdna3"].instruction == "v_wmma_f32_16x16x16_f16" and found["rdna3"].count == 1
    assert all("within the accumulation bound" in found[a].evidence for a in ("cdna3", "rdna3"))


def test_fp8_on_cdna3_is_none_with_the_format_reason() -> None:
    p = mt.parse_ptx("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32")
    cps = {cp.arch: cp for cp in mt.counterparts(p, _names())}
    assert cps["cdna3"].level == "none" and "FNUZ" in cps["cdna3"].reason
    assert cps["cdna4"].level != "none"


def test_integer_tiling_is_bit_exact() -> None:
    p = mt.parse_ptx("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32")
    rng = np.random.default_rng(3)
    for cp in mt.counterparts(p, _names()):
        if cp.level != "none":
            assert mt.check(p, cp, rng).evidence.startswith("equal on")


@pytest.mark.slow
def test_every_ptx_matrix_product_has_a_decided_row() -> None:
    manual = read_ptx_manual(SOURCES)
    forms = [f.form for i in manual.instructions if i.name in mt.PTX_MATRIX_INSTRUCTIONS for f in i.forms]
    assert len(forms) > 500
    rows = mt.table(forms, _names(), np.random.default_rng(0))
    # every form is in one row, but the manual's own typo `.m8n84` (a shape with no k; an erratum of the PTX catalog)
    unread = [f for f in forms if ".m8n84." in f]
    assert unread and ".m8n84" in (SOURCES / MMA_MD).read_text(encoding="utf-8")
    assert sum(len(r["forms"]) for r in rows) == len(forms) - len(unread)
    for r in rows:
        for c in r["counterparts"]:
            assert (c["level"] == "none") == bool(c["reason"]), r["ptx"]
            assert c["level"] == "none" or c["evidence"], r["ptx"]
    decided = [c for r in rows for c in r["counterparts"] if not c["reason"].startswith("not decided")]
    assert len(decided) >= 0.6 * sum(len(r["counterparts"]) for r in rows)


def test_cli_mma_table(catalog_path) -> None:
    import json
    import subprocess
    import sys

    cmd = [sys.executable, "-c", "from gpuisa.cli import main; main()", "eval", "--mma-table",
           "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", "--json", "--catalog", str(catalog_path)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=False)
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)
    assert [row["ptx"] for row in rows] == ["m16n8k16 D.f32 = A.f16 x B.f16 + C.f32"]
    by_arch = {c["arch"]: c for c in rows[0]["counterparts"]}
    assert by_arch["rdna3"]["instruction"] == "v_wmma_f32_16x16x16_f16" and by_arch["rdna3"]["evidence"]
    r = subprocess.run([*cmd[:4], "--mma-table", "mma.nope", "--catalog", str(catalog_path)], capture_output=True,
                       text=True, timeout=300, check=False)
    assert r.returncode == 2 and r.stderr.startswith("gpuisa: error:")

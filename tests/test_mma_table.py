"""PTX matrix products and their AMD counterparts (semantics.mma_table): the must-show row
mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 on cdna3 and rdna3 with evidence, and a decided row
(counterpart or reason) for every mma / mma.sp / wmma.mma / wgmma.mma_async product the PTX manual lists."""

from __future__ import annotations

import numpy as np
import pytest

from gpuisa.semantics import matrix as mx
from gpuisa.semantics import mma_table as mt
from gpuisa.semantics import ptx_fragments as pf
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
    assert not [r["ptx"] for r in rows for c in r["counterparts"] if c["reason"].startswith("not decided")]
    scaled = [c for r in rows if "scales per" in r["ptx"] for c in r["counterparts"]]
    assert scaled and {c["arch"] for c in scaled if c["level"] != "none"} == {"cdna4", "cdna5"}


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


def _formula_lines() -> list[str]:
    return (SOURCES / MMA_MD).read_text(encoding="utf-8").splitlines()


def _layout(op: str) -> np.ndarray:
    return pf.layout((SOURCES / MMA_MD).read_text(encoding="utf-8"), 16, 8, 16, "f16", "f32", op)


def test_m16n8k16_fragments_follow_the_manual_formulas() -> None:
    """9.7.16.5.8: A row = groupID for a0, a1, a4, a5 else groupID + 8, col = tid*2 + (i & 1) (+8 for i >= 4);
    B row = tid*2 + (i & 1) (+8 for i >= 2), col = groupID; C/D row = groupID (+8 for i >= 2), col = tid*2 + (i & 1)."""
    lines = _formula_lines()
    assert "groupID            for ai where  0 <= i < 2 || 4 <= i < 6" in lines[955]
    assert "(threadID_in_group * 2) + (i & 0x1)           for bi where i <  2" in lines[1011]
    assert lines[1014].strip() == "col = groupID"
    assert "groupID                               for ci where i <  2" in lines[1091]
    for op, per_thread in (("A", 8), ("B", 4), ("D", 4)):
        lay = _layout(op)[0]
        assert (lay >= 0).all()
        pairs = {tuple(x) for x in lay.reshape(-1, 2)}
        assert len(pairs) == lay.shape[0] * lay.shape[1] == 32 * per_thread     # each element held once
    a = _layout("A")[0]
    assert tuple(a[8, 9]) == (4 * 0 + 0, 7)      # row 8 = groupID 0 + 8, col 9 = 0*2 + 1 + 8 -> lane 0, a7
    assert tuple(_layout("B")[0, 3, 5]) == (5 * 4 + 1, 1)   # row 3 = tid 1 * 2 + 1, col 5 = groupID


def test_mma_through_fragments_equals_the_amd_counterpart() -> None:
    """matrices -> PTX fragments -> matrices -> D = A @ B + C -> fragments, and the rdna3 WMMA counterpart
    padded to 16x16 gives the same D within the bound."""
    p = mt.parse_ptx("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32")
    rng = np.random.default_rng(5)
    a = rng.standard_normal((16, 16)).astype(np.float16)
    b = rng.standard_normal((16, 8)).astype(np.float16)
    c = rng.standard_normal((16, 8)).astype(np.float32)
    la, lb, lc = _layout("A"), _layout("B"), _layout("C")
    fa, fb, fc = pf.to_fragments(la, a), pf.to_fragments(lb, b), pf.to_fragments(lc, c)
    assert fa.shape == (32, 8) and fb.shape == (32, 4) and fc.shape == (32, 4)
    a2, b2, c2 = pf.from_fragments(la, fa), pf.from_fragments(lb, fb), pf.from_fragments(lc, fc)
    assert (a2 == a).all() and (b2 == b).all() and (c2 == c).all()
    wmma = mx.parse_name("v_wmma_f32_16x16x16_f16")
    d = mt.tiled(wmma, "rdna3", a2.astype(np.float64), b2.astype(np.float64), c2.astype(np.float64), p)
    exact = a.astype(np.float64) @ b.astype(np.float64) + c
    assert (np.abs(d - exact) <= mx.accumulation_bound(wmma, a, b, c)[:, :8] + 1e-30).all()
    assert (pf.from_fragments(lc, pf.to_fragments(lc, d)) == d).all()

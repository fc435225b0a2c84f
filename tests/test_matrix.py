"""MFMA/WMMA semantics: every register-layout cell the cdna3 manual's MFMA examples print, the shape
against each manual's D = A (MxK) * B (KxN) + C line, D = A @ B + C within the stated accumulation
bound, and the lane-layout round trip (hypothesis)."""

from __future__ import annotations

import json
import re

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpuisa.semantics import lowp
from gpuisa.semantics import matrix as mx
from tests.conftest import MANUALS, TEXTS, manual_line

_SECTION = re.compile(r"^#+ \*\*7\.1\.3\.\d+\. (V\\_MFMA\\_\S+)\*\*")
_CELL = re.compile(r"([ABD])\[(\d+),(\d+),(\d+)\]")
_REG = re.compile(r"Register (\d+)(?:\[(\d+):(\d+)\])?")


def manual_layout_cells() -> list[tuple[str, str, int, tuple[int, int, int], tuple[int, int, int], int]]:
    """(instruction, operand, line, (b, i, j), (lane, reg, bit), bits) for every cell of the cdna3 MFMA example tables."""
    lines = (MANUALS / "cdna3" / "README.md").read_text(encoding="utf-8").splitlines()
    out = []
    name, lanes = None, None
    for no, line in enumerate(lines[1540:1645], 1541):
        if m := _SECTION.match(line):
            name = m.group(1).replace("\\", "").lower()
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) > 1 and cells[1].startswith("Lane"):
            lanes = [int(c.split()[1]) for c in cells[1:]]
            continue
        r = _REG.fullmatch(cells[0]) if cells else None
        if not (name and lanes and r):
            continue
        reg, bit = int(r.group(1)), int(r.group(3) or 0)
        for lane, cell in zip(lanes, cells[1:], strict=True):
            c = _CELL.fullmatch(cell)
            if c:
                bits = 16 if "f16" in name and c.group(1) != "D" else 32
                out.append((name, c.group(1), no, tuple(map(int, c.group(2, 3, 4))), (lane, reg, bit), bits))
    return out


def test_every_manual_layout_cell() -> None:
    cells = manual_layout_cells()
    names = {c[0] for c in cells}
    assert names == {"v_mfma_f32_32x32x1_2b_f32", "v_mfma_f32_32x32x2_f32", "v_mfma_f32_4x4x4_16b_f16"}
    assert len(cells) > 60
    for name, operand, line, (b, i, j), want, bits in cells:
        shape = mx.parse_name(name)
        got = tuple(int(v) for v in mx.layout(shape, operand, bits)[b, i, j])
        assert got == want, f"cdna3/README.md:{line}: {operand}[{b},{i},{j}] of {name}"


def test_manual_formula_for_32x32_output() -> None:
    assert "l = j + 32 * ((i/4) % 2)" in manual_line("cdna3", 1579)
    assert "r = 16b + 4(i / 8) + (i % 4)" in manual_line("cdna3", 1583)
    shape = mx.parse_name("v_mfma_f32_32x32x1_2b_f32")
    lay = mx.layout(shape, "D", 32)
    b, i, j = np.meshgrid(np.arange(2), np.arange(32), np.arange(32), indexing="ij")
    assert (lay[..., 0] == j + 32 * ((i // 4) % 2)).all()
    assert (lay[..., 1] == 16 * b + 4 * (i // 8) + i % 4).all()


@pytest.mark.parametrize(("arch", "name"), [("cdna3", "v_mfma_f32_32x32x8_f16"), ("rdna3", "v_wmma_f32_16x16x16_f16"),
                                            ("cdna4", "v_mfma_f32_16x16x128_f8f6f4"),
                                            ("cdna3", "v_mfma_f32_16x16x32_bf8_fp8"),
                                            ("cdna3", "v_mfma_i32_32x32x16_i8")])
def test_shape_agrees_with_the_manual(arch: str, name: str) -> None:
    doc = TEXTS.instruction_docs(arch)[name.upper()][0]
    problems = mx.check_against_manual(mx.parse_name(name), f"{doc.description}\n{doc.pseudocode}")
    assert problems == []
    # a wrong name is caught
    wrong = mx.parse_name(name.replace("_16x16x", "_16x16x2").replace("_32x32x", "_32x32x2"))
    assert mx.check_against_manual(wrong, f"{doc.description}\n{doc.pseudocode}") != []


def _layout_premise() -> None:
    assert "lanes 0-15 data are replicated into lanes 16-31" in manual_line("rdna3", 2611)
    assert "second of those values in the upper bits (16—31)" in manual_line("cdna3", 1615)


@pytest.mark.parametrize(("arch", "name", "fmt"), [("cdna3", "v_mfma_f32_32x32x8_f16", "f16"),
                                                   ("rdna3", "v_wmma_f32_16x16x16_f16", "f16"),
                                                   ("cdna4", "v_mfma_scale_f32_16x16x128_f8f6f4", "fp8_ocp")])
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_lane_layout_round_trip(arch: str, name: str, fmt: str, seed: int) -> None:
    """matrices -> registers -> matrices is the identity for A, B and C/D; no two elements share bits."""
    _layout_premise()
    shape = mx.parse_name(name)
    rng = np.random.default_rng(seed)
    bits = lowp.FORMATS[fmt].bits if fmt in lowp.FORMATS else 16
    for op, (r, c), b in (("A", (shape.m, shape.k), bits), ("B", (shape.k, shape.n), bits), ("D", (shape.m, shape.n), 32)):
        raw = rng.integers(0, 1 << b, size=(shape.blocks, r, c), dtype=np.uint64)
        regs = mx.to_registers(shape, op, raw, b)
        assert regs.shape[1] == shape.wave
        assert (mx.from_registers(shape, op, regs, b) == raw).all()
        lay = mx.layout(shape, op, b).reshape(-1, 3)
        assert len({tuple(x) for x in lay}) == len(lay)          # one place per element
    if shape.scaled:   # E8M0 scales: one byte per lane, in the byte OPSEL picks (cdna4/README.md:1964, :1967)
        assert "one-quarter of one VGPR across 64 lanes" in manual_line("cdna4", 1967)
        opsel = int(rng.integers(0, 4))
        for op, size in (("scale_a", shape.m), ("scale_b", shape.n)):
            raw = rng.integers(0, 256, size=(1, size, shape.k // 32), dtype=np.uint64)
            regs = mx.to_registers(shape, op, raw, 8, opsel)
            assert regs.shape == (1, 64)
            assert (mx.from_registers(shape, op, regs, 8, opsel) == raw).all()
            assert (regs & np.uint32(~(0xFF << (8 * opsel)) & 0xFFFFFFFF) == 0).all()


def _bound_check(shape: mx.MatrixShape, a: np.ndarray, b: np.ndarray, c: np.ndarray, d: np.ndarray) -> float:
    ref = np.matmul(a.astype(np.float32).astype(np.float64), b.astype(np.float32).astype(np.float64)) + c
    err = np.abs(d.astype(np.float64) - ref)
    bound = mx.accumulation_bound(shape, a, b, c)
    assert (err <= bound).all()
    return float((err / np.maximum(bound, 1e-300)).max())


def test_mfma_32x32x8_f16_equals_float32_matmul_within_bound() -> None:
    shape = mx.parse_name("v_mfma_f32_32x32x8_f16")
    rng = np.random.default_rng(14)
    a = rng.standard_normal((500, 32, 8)).astype(np.float16)
    b = rng.standard_normal((500, 8, 32)).astype(np.float16)
    c = rng.standard_normal((500, 32, 32)).astype(np.float32)
    d = mx.multiply(shape, a, b, c, arch="cdna3")[:, 0]
    assert d.dtype == np.float32 and d.shape == (500, 32, 32)
    _bound_check(shape, a, b, c, d)


def test_wmma_16x16x16_f16_equals_float32_matmul_within_bound() -> None:
    shape = mx.parse_name("v_wmma_f32_16x16x16_f16")
    rng = np.random.default_rng(15)
    a = rng.standard_normal((200, 16, 16)).astype(np.float16)
    b = rng.standard_normal((200, 16, 16)).astype(np.float16)
    c = rng.standard_normal((200, 16, 16)).astype(np.float32)
    _bound_check(shape, a, b, c, mx.multiply(shape, a, b, c, arch="rdna3")[:, 0])


def test_scaled_mfma_applies_e8m0_per_32_k_values() -> None:
    """Each 32 K values of a row of A (column of B) is multiplied by 2^(scale-127) (cdna4/README.md:1942-1944)."""
    assert "block size is 32" in manual_line("cdna4", 1942) and "bias 127" in manual_line("cdna4", 1944)
    shape = mx.parse_name("v_mfma_scale_f32_16x16x128_f8f6f4")
    rng = np.random.default_rng(16)
    fp8 = ml_dtypes.float8_e4m3fn
    a = rng.standard_normal((16, 128)).astype(fp8).astype(np.float32)
    b = rng.standard_normal((128, 16)).astype(fp8).astype(np.float32)
    c = rng.standard_normal((16, 16)).astype(np.float32)
    sa = rng.integers(120, 134, size=(16, 4))
    sb = rng.integers(120, 134, size=(4, 16))
    d = mx.multiply(shape, a, b, c, arch="cdna4", scale_a=sa, scale_b=sb)[0]
    a_s = a * np.exp2(np.repeat(sa - 127, 32, axis=1))
    b_s = b * np.exp2(np.repeat(sb - 127, 32, axis=0))
    _bound_check(shape, a_s, b_s, c, d)
    unscaled = mx.multiply(shape, a, b, c, arch="cdna4")[0]
    assert not np.allclose(d, unscaled)


def test_six_bit_mfma_items_pack_densely_across_registers() -> None:
    """cdna4/README.md:1727: six registers read as one 192-bit register, 'item 4 in bits 35-30'."""
    assert "item 4 in bits 35-30" in manual_line("cdna4", 1727)
    shape = mx.parse_name("v_mfma_scale_f32_16x16x128_f8f6f4")
    lay = mx.layout(shape, "A", 6)[0]
    assert tuple(int(v) for v in lay[0, 4]) == (0, 0, 24) and tuple(int(v) for v in lay[0, 5]) == (0, 0, 30)
    assert int((lay[..., 1] * 32 + lay[..., 2] + 5).max()) // 32 + 1 == 6
    raw = np.random.default_rng(6).integers(0, 64, size=(1, 16, 128), dtype=np.uint64)
    regs = mx.to_registers(shape, "A", raw, 6)
    assert regs.shape == (6, 64) and (int(regs[0, 0]) >> 30) | ((int(regs[1, 0]) & 0xF) << 2) == int(raw[0, 0, 5])
    assert (mx.from_registers(shape, "A", regs, 6) == raw).all()


def test_fp8_matrix_inputs_take_the_arch_flavour() -> None:
    """The same bits are different numbers on cdna3 (FNUZ) and cdna4 (OCP): element_format says which."""
    assert mx.element_format("fp8", "cdna3") == ("fp8_fnuz", 8)
    assert mx.element_format("fp8", "cdna4") == ("fp8_ocp", 8)
    assert mx.element_format("f8f6f4", "cdna4", 4) == ("fp4", 4)


def test_bad_matrix_shape_is_one_clear_error() -> None:
    from gpuisa.semantics.errors import EvalError

    shape = mx.parse_name("v_mfma_f32_32x32x8_f16")
    with pytest.raises(EvalError, match="A must be 32x8"):
        mx.multiply(shape, np.zeros((8, 32)), np.zeros((8, 32)), np.zeros((32, 32)), arch="cdna3")


def test_eval_matrix_reads_npy_and_json(tmp_path) -> None:
    """The command's evaluator on files: D from .npy/.json inputs, and the register view of the same data."""
    from gpuisa.commands.eval_matrix import eval_matrix

    rng = np.random.default_rng(17)
    a, b = rng.standard_normal((32, 8)).astype(np.float16), rng.standard_normal((8, 32)).astype(np.float16)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)
    (tmp_path / "c.json").write_text(json.dumps(np.ones((32, 32)).tolist()))
    pairs = [f"A={tmp_path / 'a.npy'}", f"B={tmp_path / 'b.npy'}", f"C={tmp_path / 'c.json'}"]
    out = eval_matrix("v_mfma_f32_32x32x8_f16", "cdna3", pairs, TEXTS, lanes=False)
    assert out["manual_disagrees"] == [] and out["source"].startswith("amd-isa-manuals/cdna3/README.md:")
    d = np.array(out["D"])
    shape = mx.parse_name("v_mfma_f32_32x32x8_f16")
    _bound_check(shape, a, b, np.ones((32, 32)), d)
    view = eval_matrix("v_mfma_f32_32x32x8_f16", "cdna3", pairs, TEXTS, lanes=True)["lanes"]
    assert [len(view[k]) for k in "ABCD"] == [2, 2, 16, 16] and all(len(r) == 64 for r in view["D"])
    # D[0,4,0] sits in lane 32 of register 0 (cdna3/README.md:1579-1583)
    assert np.float32(d[4, 0]).view(np.uint32) == int(view["D"][0][32], 16)


def test_eval_matrix_bad_input_is_one_error(tmp_path) -> None:
    from gpuisa.commands.eval_matrix import eval_matrix
    from gpuisa.errors import GpuisaError

    (tmp_path / "bad.json").write_text("{not json")
    for pairs, msg in ((["A=/nonexistent.npy", "B=x", "C=y"], "no such file"),
                       ([f"A={tmp_path / 'bad.json'}", "B=x", "C=y"], "not a readable"),
                       (["A=x"], "needs B, C"), (["Q=1"], "unknown operand Q")):
        with pytest.raises(GpuisaError, match=msg):
            eval_matrix("v_mfma_f32_32x32x8_f16", "cdna3", pairs, TEXTS, lanes=False)
    with pytest.raises(GpuisaError, match="not an instruction of rdna3"):
        eval_matrix("v_mfma_f32_32x32x8_f16", "rdna3", [], TEXTS, lanes=False)


def test_cli_eval_matrix(catalog_path, tmp_path) -> None:
    import subprocess
    import sys

    np.save(tmp_path / "a.npy", np.eye(16, dtype=np.float16))
    np.save(tmp_path / "b.npy", np.arange(256, dtype=np.float16).reshape(16, 16))
    np.save(tmp_path / "c.npy", np.zeros((16, 16), np.float32))
    cmd = [sys.executable, "-c", "from gpuisa.cli import main; main()", "eval", "v_wmma_f32_16x16x16_f16", "--arch",
           "rdna3", f"A={tmp_path / 'a.npy'}", f"B={tmp_path / 'b.npy'}", f"C={tmp_path / 'c.npy'}", "--json",
           "--catalog", str(catalog_path)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["D"] == np.arange(256).reshape(16, 16).tolist()    # I @ B + 0 = B
    r = subprocess.run([*cmd[:-3], "--lanes", "--catalog", str(catalog_path)], capture_output=True, text=True,
                       timeout=120, check=False)
    assert r.returncode == 0 and "v7" in r.stdout and "lane" in r.stdout
    r = subprocess.run([*cmd[:5], "v_wmma_f32_16x16x16_f16", "--arch", "rdna3", "A=/nope.npy", "B=x", "C=y",
                        "--catalog", str(catalog_path)], capture_output=True, text=True, timeout=120, check=False)
    assert r.returncode == 2 and r.stderr.startswith("gpuisa: error:") and "Traceback" not in r.stderr


def test_coverage_evaluates_the_manuals_matrix_formulas() -> None:
    """cdna3's MFMA and SMFMAC blocks (`D = A (32x8) * B (8x32) + C (32x32)`) all evaluate through the matrix
    model; a formula that disagrees with the name is a failure naming both."""
    from gpuisa.semantics.coverage import coverage
    from gpuisa.semantics.errors import EvalError

    assert "D = A (32x8) * B (8x32) + C (32x32)" in manual_line("cdna3", 10304)
    cov = coverage("cdna3", TEXTS)
    assert [f for f in cov.failures if mx.MATRIX_FAMILY.match(f.name)] == []
    with pytest.raises(EvalError, match="manual says"):
        mx.run_random("v_mfma_f32_32x32x16_f16", "D = A (32x8) * B (8x32) + C (32x32)", "cdna3",
                      np.random.default_rng(0))


def test_eval_matrix_scaled_form_with_scales(tmp_path) -> None:
    """v_mfma_scale_f32_16x16x128_f8f6f4: the manual's record is the unscaled op's (cdna4/README.md:1956);
    scale_a = 128 doubles A (2^(128-127)), scale_b = 127 leaves B; the register view shows both scales."""
    from gpuisa.commands.eval_matrix import eval_matrix

    assert "V\\_MFMA\\_SCALE\\_F32\\_16X16X128\\_F8F6F4" in manual_line("cdna4", 1956)
    rng = np.random.default_rng(18)
    a = rng.standard_normal((16, 128)).astype(ml_dtypes.float8_e4m3fn).astype(np.float32)
    b = rng.standard_normal((128, 16)).astype(ml_dtypes.float8_e4m3fn).astype(np.float32)
    for k, v in {"a": a, "b": b, "c": np.zeros((16, 16), np.float32), "sa": np.full((16, 4), 128),
                 "sb": np.full((4, 16), 127)}.items():
        np.save(tmp_path / f"{k}.npy", v)
    pairs = [f"{k}={tmp_path / f}" for k, f in (("A", "a.npy"), ("B", "b.npy"), ("C", "c.npy"),
                                                ("scale_a", "sa.npy"), ("scale_b", "sb.npy"))]
    out = eval_matrix("v_mfma_scale_f32_16x16x128_f8f6f4", "cdna4", pairs, TEXTS, lanes=False)
    shape = mx.parse_name("v_mfma_scale_f32_16x16x128_f8f6f4")
    _bound_check(shape, 2 * a, b, np.zeros((16, 16)), np.array(out["D"]))
    view = eval_matrix("v_mfma_scale_f32_16x16x128_f8f6f4", "cdna4", pairs, TEXTS, lanes=True)["lanes"]
    assert view["scale_a"] == [["0x00000080"] * 64] and view["scale_b"] == [["0x0000007f"] * 64]


def test_cli_eval_coverage(catalog_path) -> None:
    import subprocess
    import sys

    cmd = [sys.executable, "-c", "from gpuisa.cli import main; main()", "eval", "--coverage", "--arch", "cdna3",
           "--catalog", str(catalog_path)]
    r = subprocess.run([*cmd, "--json"], capture_output=True, text=True, timeout=300, check=False)
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    assert set(report) == {"cdna3"} and 0 < report["cdna3"]["VALU"] <= 100 and 0 < report["cdna3"]["SALU"] <= 100
    assert all(re.fullmatch(r"amd-isa-manuals/cdna3/README\.md:\d+ .*", f["cite"]) and f["reason"]
               for f in report["cdna3"]["failures"])
    assert not any(f["name"].startswith("V_MFMA_") for f in report["cdna3"]["failures"])
    text = subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=False).stdout
    assert text.startswith("cdna3") and "VALU" in text and "SALU" in text

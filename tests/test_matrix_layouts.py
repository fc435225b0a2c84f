"""Register layouts of cdna5 WMMA/SWMMAC and of CDNA SMFMAC, and the sparse index registers: every row of the
manuals' layout tables read back from layout(), the register counts against LLVM's assembler tests, and the
instruction evaluated on its register view (matrices -> registers -> instruction -> registers -> matrix) equal
to numpy's product."""

from __future__ import annotations

import re

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpuisa.semantics import matrix as mx
from tests.conftest import SOURCES, TEXTS, manual_line

MC = SOURCES / "llvm-project-23.1.1" / "llvm" / "test" / "MC" / "AMDGPU"


# ------------------------------------------------------------------ reading the manuals' tables


def _values(cell: str, what: str = "K") -> list[int]:
    """'K=0 in [7:0], K=1 in [15:8]...' / 'K=8-11' / 'K=16..19' / 'K=8, 9' / 'K=0 in [3:0], …, K=7' -> the values."""
    r = re.search(rf"{what}=(\d+)\s*(?:-|\.\.)\s*(\d+)", cell)
    if r:
        return list(range(int(r.group(1)), int(r.group(2)) + 1))
    nums = [int(x) for x in re.findall(rf"{what}=(\d+)", cell)] + [int(x) for x in re.findall(r",\s*(\d+)\b(?!\])", cell)]
    if "…" in cell:
        return list(range(min(nums), max(nums) + 1))
    return sorted(set(nums))


def _table_rows(arch: str, first: int, last: int, what: str = "K") -> list[tuple[int, list[int], list[int]]]:
    """(first register, values of lanes 0-15, values of lanes 16-31) for each register row of a cdna5 A or C/D table;
    'K=(Above +N)' rows repeat the rows above shifted by N."""
    out: list[tuple[int, list[int], list[int]]] = []
    for no in range(first, last + 1):
        cells = [c.strip() for c in manual_line(arch, no).strip().strip("|").split("|")]
        label = re.fullmatch(r"V?(\d+)(?:\s*(?:-|\.\.)\s*V?(\d+))?", cells[0])
        holding = [c for c in cells[1:] if f"{what}=" in c]
        if not label or len(holding) != 2:
            continue
        reg = int(label.group(1))
        above = re.search(r"Above \+(\d+)", holding[0])
        if above:
            shift = int(above.group(1))
            lo = [v + shift for row in out for v in row[1]]
            hi = [v + shift for row in out for v in row[2]]
            out.append((reg, lo, hi))
        else:
            out.append((reg, _values(holding[0], what), _values(holding[1], what)))
    return out


def _check_a_table(name: str, operand: str, bits: int, rows: list, arch: str = "cdna5", row_offset: int = 0) -> int:
    """Each row's values fill its registers in order, low bits first, `bits` each (cdna5/README.md:3559: the
    'Verilog-style' bit ranges); lanes 0-15 hold M (N) = 0..15, lanes 16-31 the same rows. Returns cells checked."""
    shape = mx.parse_name(name)
    lay = mx.layout(shape, operand, bits, arch=arch)[0]
    checked = 0
    for reg, lo, hi in rows:
        for half, ks in ((0, lo), (1, hi)):
            for i, k in enumerate(ks):
                flat = reg * 32 + i * bits
                for mn in range(16):
                    at = lay[mn + row_offset, k] if operand == "A" else lay[k, mn + row_offset]
                    assert tuple(int(v) for v in at) == (mn + 16 * half, flat // 32, flat % 32), (name, reg, k, mn)
                    checked += 1
    return checked


def test_cdna5_dense_a_tables() -> None:
    """7.12.2's A tables (cdna5/README.md:3587-3630), and B as A with N for M (:3561)."""
    assert 'substitute "M" for "N"' in manual_line("cdna5", 3561)
    assert "K=0 in [15:0], K=1 in [31:16]" in manual_line("cdna5", 3600)
    assert "two 16x64 matrices in consecutive VGPRs" in manual_line("cdna5", 3617)
    cases = [("v_wmma_f32_16x16x4_f32", 32, 3592, 3593), ("v_wmma_f32_16x16x32_f16", 16, 3600, 3604),
             ("v_wmma_f32_16x16x64_fp8_fp8", 8, 3611, 3615), ("v_wmma_i32_16x16x64_iu8", 8, 3611, 3615),
             ("v_wmma_f32_32x16x128_f4", 4, 3624, 3628)]
    total = 0
    for name, bits, first, last in cases:
        rows = _table_rows("cdna5", first, last)
        assert len(rows) >= 2, (name, first)
        for op in ("A", "B"):
            total += _check_a_table(name, op, bits, rows)
    # "A 16x128 8-bit matrix is just two 16x64 matrices in consecutive VGPRs" (:3617)
    rows = _table_rows("cdna5", 3611, 3615)
    total += _check_a_table("v_wmma_f32_16x16x128_fp8_fp8", "A", 8,
                            rows + [(r + 8, [k + 64 for k in lo], [k + 64 for k in hi]) for r, lo, hi in rows])
    # "A 32x128 matrix is just two 16x128 matrices ..., with M=16..31 in the second set of VGPRs" (:3630)
    assert "M=16..31 in the second set of VGPRs" in manual_line("cdna5", 3630)
    rows = _table_rows("cdna5", 3624, 3628)
    total += _check_a_table("v_wmma_f32_32x16x128_f4", "A", 4, [(r + 8, lo, hi) for r, lo, hi in rows], row_offset=16)
    assert total > 5000


def test_cdna5_block_scale_a_tables() -> None:
    """7.12.6.1 (cdna5/README.md:3778-3821): 8-bit, 6-bit ({V5..V0} = {K=31..K=0}, :3805) and 4-bit data of the
    F8F6F4 and F4 forms."""
    assert "B-matrix layout is identical" in manual_line("cdna5", 3782)
    assert "{V5, V4, V3, V2, V1, V0} = { K=31, K=30" in manual_line("cdna5", 3805)
    total = 0
    for name, code, bits, first, last in (("v_wmma_scale_f32_16x16x128_f8f6f4", 0, 8, 3791, 3799),
                                          ("v_wmma_scale_f32_16x16x128_f8f6f4", 2, 6, 3810, 3811),
                                          ("v_wmma_f32_16x16x128_f8f6f4", 3, 6, 3810, 3811),
                                          ("v_wmma_scale16_f32_16x16x128_f8f6f4", 4, 4, 3820, 3821),
                                          ("v_wmma_scale_f32_32x16x128_f4", 4, 4, 3820, 3821)):
        rows = _table_rows("cdna5", first, last)
        assert len(rows) >= 2
        if rows[0][0] == 0 and len(rows[0][1]) > 32 // bits:      # 'V0..V5 | K=0..31': one row over several VGPRs
            pass
        assert mx.element_format("f8f6f4", "cdna5", code)[1] == bits or name.endswith("_f4")
        for op in ("A", "B"):
            total += _check_a_table(name, op, bits, rows)
    assert total > 3000


def test_cdna5_dense_and_block_scale_8_bit_tables_disagree() -> None:
    """The two 8-bit tables put different K in V0 of lanes 16-31 (K=8-11 in 7.12.2, :3611; K=16..19 in 7.12.6.1,
    :3791): the F8F6F4 forms follow the block-scale section, which the dense section points them to (:3632)."""
    assert "K=8-11" in manual_line("cdna5", 3611) and "K=16..19" in manual_line("cdna5", 3791)
    assert "See next section" in manual_line("cdna5", 3632)
    dense = mx.layout(mx.parse_name("v_wmma_f32_16x16x128_fp8_fp8"), "A", 8, arch="cdna5")[0]
    scaled = mx.layout(mx.parse_name("v_wmma_scale_f32_16x16x128_f8f6f4"), "A", 8, arch="cdna5")[0]
    assert tuple(dense[0, 8]) == (16, 0, 0) and tuple(scaled[0, 16]) == (16, 0, 0)
    assert not np.array_equal(dense, scaled)


def test_cdna5_c_d_tables() -> None:
    """32-bit C/D (cdna5/README.md:3563-3573: VGPR r holds M=r in lanes 0-15 and M=r+8 in 16-31, N = lane % 16; a
    32x16 D has M=16..31 in VGPRs 8..15) and 16-bit C/D (:3577-3585: M, M+1 in [15:0], [31:16])."""
    assert "M=16..31 in VGPRs 8..15" in manual_line("cdna5", 3573)
    rows32 = _table_rows("cdna5", 3567, 3572, "M")
    rows16 = _table_rows("cdna5", 3581, 3585, "M")
    assert [r[0] for r in rows32] == [0, 1, 2, 7] and [r[0] for r in rows16] == [0, 1, 2, 3]
    for name, bits, rows, extra in (("v_wmma_f32_16x16x32_f16", 32, rows32, []),
                                    ("v_wmma_f32_32x16x128_f4", 32, rows32,
                                     [(r + 8, [m + 16 for m in lo], [m + 16 for m in hi]) for r, lo, hi in rows32]),
                                    ("v_wmma_f16_16x16x32_f16", 16, rows16, []),
                                    ("v_swmmac_bf16_16x16x64_bf16", 16, rows16, [])):
        lay = mx.layout(mx.parse_name(name), "D", bits, arch="cdna5")[0]
        for reg, lo, hi in rows + extra:
            for half, ms in ((0, lo), (1, hi)):
                for i, m in enumerate(ms):
                    for n in range(16):
                        assert tuple(int(v) for v in lay[m, n]) == (n + 16 * half, reg, i * bits), (name, m, n)


def _sparse_b_rows(first: int, last: int) -> list[tuple[int, list[int], list[int]]]:
    """'Vn+8: lanes0-15 hold K=32 and K=33; lanes 16-31 hold K=48, K=49' / 'Vn: lanes0-15 hold K=0..3; ...'."""
    out = []
    for no in range(first, last + 1):
        m = re.search(r"Vn(?:\+(\d+))?: lanes ?0-15 hold (.*?); lanes 16-31 hold (.*)$", manual_line("cdna5", no))
        if m:
            out.append((int(m.group(1) or 0), _values(m.group(2)), _values(m.group(3))))
    return out


def test_cdna5_swmmac_b_and_packed_a() -> None:
    """7.12.4-5 B as written (cdna5/README.md:3657-3666, :3694-3702); the 16-bit packed A from the index pseudocode
    (:3676-3677: lane = col[5]*16 + row over the expanded K, so packed K 0..15 in lanes 0-15)."""
    rows16, rows8 = _sparse_b_rows(3657, 3666), _sparse_b_rows(3694, 3702)
    assert [r[0] for r in rows16] == [0, 1, 7, 8, 15] and [r[0] for r in rows8] == [0, 3, 4, 7]
    assert "Vn+8 - Vn+15 have the same pattern but for K=64..127" in manual_line("cdna5", 3701)
    n = _check_a_table("v_swmmac_f32_16x16x64_f16", "B", 16, rows16)
    rows8 += [(r + 8, [k + 64 for k in lo], [k + 64 for k in hi]) for r, lo, hi in rows8]
    n += _check_a_table("v_swmmac_f32_16x16x128_fp8_fp8", "B", 8, rows8)
    assert n > 1000
    assert "lane = col[5]*16 + row" in manual_line("cdna5", 3677)
    a = mx.layout(mx.parse_name("v_swmmac_f32_16x16x64_f16"), "A", 16, arch="cdna5")[0]
    for row in range(16):
        for kp in range(32):
            col = 2 * kp                       # an expanded column of the packed value's group
            assert int(a[row, kp, 0]) == ((col >> 5) & 1) * 16 + row


def test_cdna5_sparse_index_bits() -> None:
    """16-bit (cdna5/README.md:3676-3679): the codes of the group at expanded col sit in lane col[5]*16 + row, bits
    col[4:2]*4 (+0 idx0, +2 idx1); 8-bit (:3706): 'bits[1:0] apply to V0[7:0]; bits[3:2] apply to V0[15:8], etc up
    to bits[31:30] apply to V3[31:24]', the second index VGPR for V4-V7 (LLVM's 2-VGPR index operand)."""
    assert "idxFirstBit = (col[4:2]*4)" in manual_line("cdna5", 3676)
    assert "bits[31:30] apply to V3[31:24]" in manual_line("cdna5", 3706)
    shape = mx.parse_name("v_swmmac_f32_16x16x64_f16")
    idx = mx.layout(shape, "index", 2, arch="cdna5")[0]
    for row in range(16):
        for col in range(0, 64, 4):
            first = ((col >> 2) & 7) * 4
            lane = ((col >> 5) & 1) * 16 + row
            assert tuple(int(v) for v in idx[row, col // 2]) == (lane, 0, first)
            assert tuple(int(v) for v in idx[row, col // 2 + 1]) == (lane, 0, first + 2)
    shape = mx.parse_name("v_swmmac_i32_16x16x128_iu8")
    a = mx.layout(shape, "A", 8, arch="cdna5").reshape(-1, 3)
    idx = mx.layout(shape, "index", 2, arch="cdna5").reshape(-1, 3)
    for (lane, reg, bit), (ilane, ireg, ibit) in zip(a, idx, strict=True):
        assert ilane == lane and (ireg, ibit) == divmod(2 * (4 * reg + bit // 8), 32)


# ------------------------------------------------------------------ CDNA SMFMAC


def _cdna_b_rows(first: int, last: int) -> list[tuple[int, list[list[int]]]]:
    """'| v0 | k=0,1 | k=8,9 | k=16,17 | k=24,25 |' -> (register, K values of each 16-lane column)."""
    out = []
    for no in range(first, last + 1):
        cells = [c.strip() for c in manual_line("cdna4", no).strip().strip("|").split("|")]
        r = re.fullmatch(r"v(\d+)", cells[0])
        if r and all("k=" in c for c in cells[1:]):
            groups = []
            for c in cells[1:]:
                nums = [int(x) for x in re.findall(r"\d+", c)]
                groups.append(list(range(min(nums), max(nums) + 1)))
            out.append((int(r.group(1)), groups))
    return out


@pytest.mark.parametrize(("name", "bits", "first", "last"), [
    ("v_smfmac_f32_16x16x32_f16", 16, 2146, 2149), ("v_smfmac_f32_32x32x16_bf16", 16, 2151, 2154),
    ("v_smfmac_i32_16x16x64_i8", 8, 2181, 2184), ("v_smfmac_f32_32x32x32_fp8_bf8", 8, 2186, 2189),
    ("v_smfmac_f32_16x16x64_f16", 16, 2216, 2223), ("v_smfmac_f32_32x32x32_bf16", 16, 2227, 2234),
    ("v_smfmac_i32_16x16x128_i8", 8, 2271, 2278), ("v_smfmac_f32_32x32x64_bf8_fp8", 8, 2282, 2289)])
def test_cdna_smfmac_b_tables(name: str, bits: int, first: int, last: int) -> None:
    """Tables 34/36 and 7.5.1.3 (cdna4/README.md:2142-2290): column c of a table is lanes 16c..16c+15 (N = lane % N),
    register v holds its K values low bits first."""
    rows = _cdna_b_rows(first, last)
    assert len(rows) in (4, 8), (first, last)
    shape = mx.parse_name(name)
    lay = mx.layout(shape, "B", bits, arch="cdna4")[0]
    for reg, groups in rows:
        assert len(groups) == 4
        for c, ks in enumerate(groups):
            assert len(ks) == 32 // bits, (reg, ks)
            for i, k in enumerate(ks):
                for lane in range(16 * c, 16 * c + 16):
                    assert tuple(int(v) for v in lay[k, lane % shape.n]) == (lane, reg, i * bits), (name, k, lane)


def _cdna_index_rows() -> list[tuple[int, int, int, int, int]]:
    """(line, code low bit, set, A register, A low bit) of Tables 35, 37 and the two 7.5.1.3 index tables."""
    out = []
    for no in range(2158, 2323):
        line = manual_line("cdna4", no)
        m = re.match(r"^\|\s*(?:Vn)?\[(\d+):(\d+)\]\s*\|\s*[Ss]et(\d),? V(\d)\[(\d+):(\d+)\]", line)
        if m:
            hi, _lo, s, reg, _ahi, alo = map(int, m.groups())
            out.append((no, hi - 1, s, reg, alo))       # two-bit codes: low bit = high - 1 ('Vn[19:19]' at :2201)
    return out


@pytest.mark.parametrize(("name", "first", "last"), [("v_smfmac_f32_16x16x32_f16", 2158, 2170),
                                                     ("v_smfmac_i32_16x16x64_i8", 2193, 2207),
                                                     ("v_smfmac_f32_16x16x64_f16", 2236, 2262),
                                                     ("v_smfmac_i32_16x16x128_i8", 2291, 2322)])
def test_cdna_smfmac_index_tables(name: str, first: int, last: int) -> None:
    """Each printed row 'Vn[29:28] | set3, V1[15:0]': the code of the packed A value in V1[15:0] of a lane, set 3
    (ABID), sits in that lane's index VGPR at bits 29:28."""
    assert "index 0 < index 1" in manual_line("cdna4", 2116)
    rows = [r for r in _cdna_index_rows() if first <= r[0] <= last]
    assert len(rows) >= 8
    shape = mx.parse_name(name)
    bits = 16 if "f16" in name else 8
    a = mx.layout(shape, "A", bits, arch="cdna4").reshape(-1, 3)
    for no, code_bit, s, reg, abit in rows:
        idx = mx.layout(shape, "index", 2, opsel=s, arch="cdna4").reshape(-1, 3)
        hits = [(int(la), int(i[1]), int(i[2])) for (la, r, b), i in zip(a, idx, strict=True) if r == reg and b == abit]
        assert hits and all(h[1:] == (0, code_bit) and h[0] == la for h, la in
                            zip(hits, [x[0] for x in a if x[1] == reg and x[2] == abit], strict=True)), no


def test_smfmac_index_sets_are_checked() -> None:
    from gpuisa.semantics.errors import EvalError

    assert "one of four 8-bit sets" in manual_line("cdna4", 2106)
    shape = mx.parse_name("v_smfmac_f32_16x16x32_f16")
    assert int(mx.layout(shape, "index", 2, opsel=3, arch="cdna3")[..., 2].max()) == 30
    with pytest.raises(EvalError, match="index set 4"):
        mx.layout(shape, "index", 2, opsel=4, arch="cdna3")


# ------------------------------------------------------------------ register counts against LLVM


_REGISTER = r"([^,\s]+)"
_OPERANDS = re.compile(rf"^(v_(?:wmma|swmmac|smfmac|mfma)\w*) {_REGISTER}, {_REGISTER}, {_REGISTER}, {_REGISTER}"
                       rf"(?:, {_REGISTER}, {_REGISTER})?")


def _width(reg: str) -> int:
    r = re.fullmatch(r"[va]\[(\d+):(\d+)\]", reg)
    return int(r.group(2)) - int(r.group(1)) + 1 if r else 1


_FMT = {"FP8": 0, "BF8": 1, "FP6": 2, "BF6": 3, "FP4": 4}


def _llvm_forms(path: str) -> set[tuple]:
    """Every distinct (mnemonic, A format code, B format code, D, A, B, C/index, scale A, scale B) of the asm lines;
    format codes from matrix_a_fmt / matrix_b_fmt (MATRIX_FMT_FP8 = 0 .. FP4 = 4, the CBSZ/BLGP codes), scale
    operands only where they are VGPRs."""
    out = set()
    text = (MC / path).read_text(encoding="utf-8")
    w32 = "// W32: " in text            # gfx11_asm_wmma.s checks wave32 and wave64 forms of the same lines
    for line in text.splitlines():
        if w32:
            line = line[len("// W32: "):] if line.startswith("// W32: ") else ""
        m = _OPERANDS.match(line.strip())
        if not m or not all(x[0] in "va" for x in m.groups()[1:5]):
            continue
        fa = re.search(r"matrix_a_fmt:MATRIX_FMT_(\w+)", line)
        fb = re.search(r"matrix_b_fmt:MATRIX_FMT_(\w+)", line)
        if "f8f6f4" in m.group(1) and "mfma" in m.group(1):      # cdna4: CBSZ / BLGP give the formats
            ca, cb = re.search(r"cbsz:(\d)", line), re.search(r"blgp:(\d)", line)
            fa = re.match(r"(\w+)", list(_FMT)[int(ca.group(1))]) if ca else None
            fb = re.match(r"(\w+)", list(_FMT)[int(cb.group(1))]) if cb else None
        scales = m.groups()[5:] if all(x and x[0] in "va" for x in m.groups()[5:]) else (None, None)
        out.add((m.group(1), _FMT[fa.group(1)] if fa else 0, _FMT[fb.group(1)] if fb else 0,
                 *m.groups()[1:5], *scales))
    return out


@pytest.mark.parametrize(("path", "arch"), [("gfx1250_asm_wmma_w32.s", "cdna5"), ("mai-gfx942.s", "cdna3"),
                                            ("mai-gfx90a.s", "cdna2"),
                                            ("mai-gfx950.s", "cdna4"), ("gfx11_asm_wmma.s", "rdna3"),
                                            ("gfx12_asm_wmma_w32.s", "rdna4")])
def test_register_counts_match_llvm(path: str, arch: str) -> None:
    """The registers each operand takes in layout() are the widths LLVM's assembler tests give them
    (e.g. 'v_swmmac_f32_16x16x128_fp8_fp8 v[24:31], v[0:7], v[8:23], v[32:33]': a 2-VGPR index;
    'v_wmma_f32_16x16x128_f8f6f4 v[0:7], v[8:19], ... matrix_a_fmt:MATRIX_FMT_FP6': 12 VGPRs of 6-bit A)."""
    checked = 0
    for name, code_a, code_b, d, a, b, c, sa, sb in sorted(_llvm_forms(path), key=str):
        if arch != "cdna2" and re.search(r"_\d+x\d+x\d+[a-z]", name):
            continue      # LLVM's gfx940+ aliases in the old spelling (v_mfma_f32_32x32x4bf16) name renamed instructions
        if not mx.is_matrix_name(name) or not mx.layout_known(mx.parse_name(name), arch):
            continue
        shape = mx.parse_name(name)
        if shape.out == "f64" or shape.a == "f64":
            continue
        # a sparse form's VDST is C and D at once, sized for C (cdna5/README.md:17420-17422: the f32 C of
        # V_SWMMAC_BF16F32_* is encoded, the BF16 D needs half)
        widths = {"C" if shape.sparse else "D": _width(d), "A": _width(a), "B": _width(b)}
        if shape.sparse:
            widths["index"] = _width(c)
        elif shape.family != "mfma" or shape.c_type == shape.out:
            widths["C"] = _width(c)
        if sa and sb:
            widths.update(scale_a=_width(sa), scale_b=_width(sb))
        for op, want in widths.items():
            if op in ("C", "D"):
                t = shape.c_type if op == "C" else shape.out
                bits = 32 if t in ("f32", "i32") else 16
            elif op == "index":
                bits = 2
            elif op.startswith("scale"):
                bits = 8
            else:
                bits = mx.element_format(shape.a if op == "A" else shape.b, arch, code_a if op == "A" else code_b)[1]
            if shape.family == "wmma" and arch == "rdna3" and op in ("C", "D") and bits == 16:
                continue          # RDNA3 16-bit C/D (one value per VGPR, OPSEL half) is not modelled
            lay = mx.layout(shape, op, bits, arch=arch)
            got = int((lay[..., 1] * 32 + lay[..., 2] + bits - 1).max()) // 32 + 1
            assert got == want, f"{path}: {name} {op} (formats {code_a}, {code_b}) takes {want} VGPRs in LLVM, {got} here"
            checked += 1
    assert checked >= {"cdna5": 150, "cdna3": 30, "cdna2": 30, "cdna4": 40, "rdna3": 10, "rdna4": 20}[arch]


# ------------------------------------------------------------------ evaluated on the register view


def _names(arch: str, family: tuple[str, ...]) -> list[str]:
    return sorted(n.lower() for n in TEXTS.instruction_docs(arch) if n.lower().startswith(family)
                  and mx.is_matrix_name(n.lower()))


CDNA5 = [("cdna5", n) for n in _names("cdna5", ("v_wmma", "v_swmmac"))]
SMFMAC = [(a, n) for a in ("cdna3", "cdna4") for n in _names(a, ("v_smfmac",))]
_NP = {"f16": np.float16, "bf16": ml_dtypes.bfloat16, "f32": np.float32, "fp8_ocp": ml_dtypes.float8_e4m3fn,
       "bf8_ocp": ml_dtypes.float8_e5m2, "fp8_fnuz": ml_dtypes.float8_e4m3fnuz, "bf8_fnuz": ml_dtypes.float8_e5m2fnuz,
       "fp6": ml_dtypes.float6_e2m3fn, "bf6": ml_dtypes.float6_e3m2fn, "fp4": ml_dtypes.float4_e2m1fn}
_REG = {"f32": ("f32", 32), "i32": ("i32", 32), "f16": ("f16", 16), "bf16": ("bf16", 16)}


def _register_round_trip(arch: str, name: str, seed: int, code: int | None = None) -> None:
    shape = mx.parse_name(name)
    rng = np.random.default_rng(seed)
    fa, bits_a = mx.element_format(shape.a, arch, code)
    fb, bits_b = mx.element_format(shape.b, arch, code)
    a, b, c = (x[0] for x in mx.random_operands(shape, rng, 1))
    if shape.out == "i32":          # signed IU8 / I8 in range
        a, b = np.clip(a, -128, 127), np.clip(b, -128, 127)
        a_np, b_np = a.astype(np.int64), b.astype(np.int64)
    else:
        a_np = a.astype(np.float32).astype(_NP[fa]).astype(np.float64)
        b_np = b.astype(np.float32).astype(_NP[fb]).astype(np.float64)
    c_fmt, c_bits = _REG[shape.c_type]
    c_np = c.astype(np.int64) if c_fmt == "i32" else c.astype(np.float32).astype(_NP[c_fmt]).astype(np.float64)
    regs = {"B": mx.to_registers(shape, "B", mx.encode_elements(b_np, fb), bits_b, arch=arch),
            "C": mx.to_registers(shape, "C", mx.encode_elements(c_np, c_fmt), c_bits, arch=arch)}
    if shape.sparse:
        vals, index = mx.compress(a_np)
        regs["A"] = mx.to_registers(shape, "A", mx.encode_elements(vals, fa), bits_a, arch=arch)
        regs["index"] = mx.to_registers(shape, "index", index.reshape(vals.shape).astype(np.uint64), 2, arch=arch)
    else:
        regs["A"] = mx.to_registers(shape, "A", mx.encode_elements(a_np, fa), bits_a, arch=arch)
    for op in ("A", "B", "C"):      # every register bit a layout uses belongs to one element
        assert regs[op].shape[1] == shape.wave
    d_regs = mx.run_registers(shape, arch, regs, a_code=code, b_code=code)
    d_fmt, d_bits = _REG[shape.out]
    d = mx.decode_elements(mx.from_registers(shape, "D", d_regs, d_bits, arch=arch), d_fmt)
    # numpy's own product of the same matrices, rounded once to D's type
    want = np.matmul(a_np, b_np) + c_np
    if shape.out == "i32":
        assert np.array_equal(d, ((want + 2**31) % 2**32) - 2**31)
    else:
        assert np.array_equal(d, want.astype(np.float32).astype(_NP[d_fmt]).astype(np.float64))
    # and back: the D registers read as a matrix and written again are the same registers
    assert np.array_equal(mx.to_registers(shape, "D", mx.encode_elements(d, d_fmt), d_bits, arch=arch), d_regs)


@pytest.mark.parametrize(("arch", "name"), CDNA5 + SMFMAC)
def test_register_view_equals_numpy(arch: str, name: str) -> None:
    """Every cdna5 WMMA/SWMMAC and cdna3/cdna4 SMFMAC: matrices -> registers -> instruction -> registers ->
    matrix equals numpy's A @ B + C."""
    _register_round_trip(arch, name, 14)


def test_the_lists_cover_the_manuals_tables() -> None:
    assert len(CDNA5) >= 40 and {"v_swmmac_i32_16x16x128_iu8", "v_wmma_scale16_f32_32x16x128_f4"} <= {n for _, n in CDNA5}
    assert len(SMFMAC) >= 20


@pytest.mark.parametrize("code", [0, 1, 2, 3, 4])
@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_f8f6f4_register_view_per_format(code: int, seed: int) -> None:
    """Each CBSZ/BLGP format (cdna5/README.md:3733-3738: 0 FP8 .. 4 FP4) through its block-scale layout."""
    _register_round_trip("cdna5", "v_wmma_f32_16x16x128_f8f6f4", seed, code)


def test_cdna5_scale_registers() -> None:
    """7.12.6.2 (cdna5/README.md:3845-3890): 32 values per scale, 16 rows: lane M (16+M with SCL_OPSEL[0], :3839),
    byte K/32; 16 per scale: v0 bytes for K blocks 0-3, v1 for 4-7; F4 32x128: M=16..31 in lanes 16-31."""
    assert "M=0, K=32..63" in manual_line("cdna5", 3852) and "M=16..31, K=0..31" in manual_line("cdna5", 3876)
    assert "v1[7:0]   | scale k = 64..79" in manual_line("cdna5", 3867)
    s32 = mx.layout(mx.parse_name("v_wmma_scale_f32_16x16x128_f8f6f4"), "scale_a", 8, opsel=1, arch="cdna5")[0]
    assert tuple(s32[5, 1]) == (21, 0, 8)
    s16 = mx.layout(mx.parse_name("v_wmma_scale16_f32_32x16x128_f4"), "scale_a", 8, arch="cdna5")[0]
    assert tuple(s16[20, 4]) == (20, 1, 0) and tuple(s16[3, 7]) == (3, 1, 24)
    shape = mx.parse_name("v_wmma_scale16_f32_16x16x128_f8f6f4")
    rng = np.random.default_rng(3)
    codes = rng.integers(120, 135, size=(1, 16, 8), dtype=np.uint64)
    for op in ("scale_a", "scale_b"):
        regs = mx.to_registers(shape, op, codes, 8, opsel=1, arch="cdna5")
        assert regs.shape == (2, 32) and not regs[:, :16].any()
        assert np.array_equal(mx.from_registers(shape, op, regs, 8, opsel=1, arch="cdna5"), codes)


def test_scaled_register_view_applies_the_scales() -> None:
    shape = mx.parse_name("v_wmma_scale_f32_16x16x128_f8f6f4")
    rng = np.random.default_rng(9)
    a = rng.standard_normal((16, 128)).astype(ml_dtypes.float8_e4m3fn).astype(np.float64)
    b = rng.standard_normal((128, 16)).astype(ml_dtypes.float8_e4m3fn).astype(np.float64)
    sa = rng.integers(125, 130, size=(16, 4))
    sb = rng.integers(125, 130, size=(4, 16))
    regs = {"A": mx.to_registers(shape, "A", mx.encode_elements(a, "fp8_ocp"), 8, arch="cdna5"),
            "B": mx.to_registers(shape, "B", mx.encode_elements(b, "fp8_ocp"), 8, arch="cdna5"),
            "C": np.zeros((8, 32), dtype=np.uint32),
            "scale_a": mx.to_registers(shape, "scale_a", sa[None].astype(np.uint64), 8, arch="cdna5"),
            "scale_b": mx.to_registers(shape, "scale_b", sb.T[None].astype(np.uint64), 8, arch="cdna5")}
    d = mx.decode_elements(mx.from_registers(shape, "D", mx.run_registers(shape, "cdna5", regs), 32, arch="cdna5"), "f32")
    want = np.matmul(a * np.repeat(2.0 ** (sa - 127), 32, axis=1), b * np.repeat(2.0 ** (sb - 127), 32, axis=0))
    assert np.array_equal(d[0], want.astype(np.float32))


# ------------------------------------------------------------------ what stays unmodelled, and why


def test_rdna4_swmmac_layout_is_refused_with_the_contradiction() -> None:
    """rdna4's index pseudocode (rdna4/README.md:3351-3352) indexes a lane's codes by col[3:2]: one lane's packed
    values must be 8 consecutive K. The 16-bit field row (:3231, K[2] picks the lane half) gives lane 0 K=0-3 and
    8-11, whose groups collide under col[3:2]: the two statements cannot both hold."""
    assert "idxFirstBit = isWave64 ? (col[2:2]*4) : (col[3:2]*4)" in manual_line("rdna4", 3352)
    assert "{ row[2], col[3:0] } { row[3], row[1] } row[0]" in manual_line("rdna4", 3231)
    lay = mx.layout(mx.parse_name("v_wmma_f32_16x16x16_f16"), "A", 16, arch="rdna4")[0]
    lane0 = sorted(int(k) for k in range(16) if lay[0, k, 0] == 0)
    slots = [((2 * k) >> 2) & 3 for k in lane0]            # col[3:2] of each packed value's expanded group
    assert lane0 == [0, 1, 2, 3, 8, 9, 10, 11] and len(set(slots)) < len(slots) // 2 + 1
    shape = mx.parse_name("v_swmmac_f32_16x16x32_f16")
    assert not mx.layout_known(shape, "rdna4")
    view = mx.page_view("V_SWMMAC_F32_16X16X32_F16", "rdna4")
    assert view["layouts"] == [] and "3351" in view["layout_note"]


def test_rdna3_layout_evidence() -> None:
    """RDNA3 stays inferred in one point (the D row split, an image only: rdna3/README.md:2625-2629); the rest is
    text (:2611 lanes 16-31 repeat 0-15, :2625 'A matrix is column-major') and LLVM's operand widths (checked in
    test_register_counts_match_llvm)."""
    assert "lanes 0-15 data are replicated into lanes 16-31" in manual_line("rdna3", 2611)
    assert "A matrix is column-major while the others are in row-major order" in manual_line("rdna3", 2625)
    assert manual_line("rdna3", 2627).startswith("![]")
    note = mx.page_view("V_WMMA_F32_16X16X16_F16", "rdna3")["layout_note"]
    assert "Inferred in part" in note and "2625" in note


def test_eval_lanes_uses_the_cdna5_and_sparse_layouts(tmp_path) -> None:
    """`gpuisa eval ... --lanes` on a cdna5 SWMMAC: the packed A, its index VGPR and a 16-bit D, each read back to the
    matrices given; on an rdna4 SWMMAC one clear error naming the contradiction."""
    from gpuisa.commands.eval_matrix import eval_matrix
    from gpuisa.errors import GpuisaError

    shape = mx.parse_name("v_swmmac_f16_16x16x64_f16")
    rng = np.random.default_rng(5)
    a, b, c = (x[0, 0] for x in mx.random_operands(shape, rng, 1))
    for k, v in (("a", a.astype(np.float16)), ("b", b.astype(np.float16)), ("c", c.astype(np.float16))):
        np.save(tmp_path / f"{k}.npy", v)
    pairs = [f"{k.upper()}={tmp_path / (k + '.npy')}" for k in "abc"]
    out = eval_matrix(shape.name, "cdna5", pairs, TEXTS, lanes=True)
    view = {k: np.array([[int(w, 16) for w in row] for row in v], dtype=np.uint32) for k, v in out["lanes"].items()}
    assert [len(view[k]) for k in ("A", "index", "B", "C", "D")] == [8, 1, 16, 4, 4]
    packed = mx.decode_elements(mx.from_registers(shape, "A", view["A"], 16, arch="cdna5"), "f16")[0]
    codes = mx.from_registers(shape, "index", view["index"], 2, arch="cdna5")[0].astype(np.int64)
    assert np.array_equal(mx.expand(packed.reshape(16, 16, 2), codes.reshape(16, 16, 2), 64),
                          a.astype(np.float16).astype(np.float64))
    d = mx.decode_elements(mx.from_registers(shape, "D", view["D"], 16, arch="cdna5"), "f16")[0]
    assert np.array_equal(d, np.array(eval_matrix(shape.name, "cdna5", pairs, TEXTS, lanes=False)["D"]))
    small = mx.parse_name("v_swmmac_f16_16x16x32_f16")
    for k, v in zip("abc", (x[0, 0] for x in mx.random_operands(small, rng, 1)), strict=True):
        np.save(tmp_path / f"{k}4.npy", v.astype(np.float16))
    with pytest.raises(GpuisaError, match="rdna4's SWMMAC index pseudocode"):
        eval_matrix(small.name, "rdna4", [f"{k.upper()}={tmp_path / (k + '4.npy')}" for k in "abc"], TEXTS, lanes=True)


def _tiled_via_registers(shape: mx.MatrixShape, arch: str, a: np.ndarray, b: np.ndarray, c: np.ndarray,
                         codes: dict) -> np.ndarray:
    """mma_table.tiled's tiling, each AMD step run on its register view (to_registers -> run_registers ->
    from_registers) instead of on matrices."""
    mp, np_, kp = (-(-d // t) * t for d, t in ((a.shape[0], shape.m), (b.shape[1], shape.n), (a.shape[1], shape.k)))
    A, B = np.zeros((mp, kp)), np.zeros((kp, np_))
    A[:a.shape[0], :a.shape[1]], B[:b.shape[0], :b.shape[1]] = a, b
    D = np.zeros((mp, np_))
    D[:c.shape[0], :c.shape[1]] = c
    fa, ba = mx.element_format(shape.a, arch, codes.get("a_code"))
    fb, bb = mx.element_format(shape.b, arch, codes.get("b_code"))
    cf, cb = _REG[shape.c_type]
    df, db = _REG[shape.out]
    for i in range(0, mp, shape.m):
        for j in range(0, np_, shape.n):
            acc = D[i:i + shape.m, j:j + shape.n]
            for kk in range(0, kp, shape.k):
                ta, tb = A[i:i + shape.m, kk:kk + shape.k], B[kk:kk + shape.k, j:j + shape.n]
                regs = {"B": mx.to_registers(shape, "B", mx.encode_elements(tb, fb), bb, arch=arch),
                        "C": mx.to_registers(shape, "C", mx.encode_elements(acc, cf), cb, arch=arch)}
                if shape.sparse:
                    vals, index = mx.compress(ta)
                    regs["A"] = mx.to_registers(shape, "A", mx.encode_elements(vals, fa), ba, arch=arch)
                    regs["index"] = mx.to_registers(shape, "index", index.reshape(vals.shape).astype(np.uint64), 2,
                                                    arch=arch)
                else:
                    regs["A"] = mx.to_registers(shape, "A", mx.encode_elements(ta, fa), ba, arch=arch)
                d_regs = mx.run_registers(shape, arch, regs, a_code=codes.get("a_code"), b_code=codes.get("b_code"))
                acc = mx.decode_elements(mx.from_registers(shape, "D", d_regs, db, arch=arch), df)[0]
            D[i:i + shape.m, j:j + shape.n] = acc
    return D[:a.shape[0], :b.shape[1]]


@pytest.mark.parametrize("form", ["mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
                                  "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32",
                                  "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32",
                                  "mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"])
def test_mma_table_rows_hold_through_both_register_views(form: str) -> None:
    """A PTX row's counterparts, fragment to fragment: PTX A, B, C fragments (9.7.16.5 / 9.7.16.6 formulas) ->
    AMD registers by each arch's layout -> the AMD instructions -> AMD D registers -> PTX D fragments, equal to the
    fragments of the table's own (matrix-level) result on every arch whose layout is modelled."""
    from gpuisa.semantics import mma_table as mt
    from gpuisa.semantics import ptx_fragments as pf

    dense = (SOURCES / pf.MMA_MD).read_text(encoding="utf-8")
    sparse = (SOURCES / pf.SPARSE_MD).read_text(encoding="utf-8")
    p = mt.parse_ptx(form)
    names = {a: [n for n in TEXTS.instruction_docs(a) if mx.MATRIX_FAMILY.match(n)] for a in mt.AMD_ARCHS}
    rng = np.random.default_rng(21)
    a = mt._random(p.a, (p.m, p.k), rng)
    if p.sparse:
        groups = a.reshape(p.m, -1, 4)
        a = np.where(np.argsort(rng.random(groups.shape), axis=-1) < 2, groups, 0).reshape(p.m, p.k)
    b = mt._random(p.b, (p.k, p.n), rng)
    c = rng.integers(-1000, 1000, (p.m, p.n)) if p.c == "s32" else mt._random(p.c, (p.m, p.n), rng)
    lay = {op: (pf.sparse_layout(sparse, dense, p.m, p.n, p.k, p.a, p.c, op) if p.sparse else
                pf.layout(dense, p.m, p.n, p.k, p.a, p.c, op)) for op in "ABC"}
    # the PTX side holds fragments; the matrices the AMD side gets are read back from them
    if p.sparse:        # packed nonzeros in the A fragments, their positions beside them (the metadata)
        vals, index = mx.compress(a)
        a = mx.expand(pf.from_fragments(lay["A"], pf.to_fragments(lay["A"], vals)).reshape(vals.shape), index, p.k)
    else:
        a = pf.from_fragments(lay["A"], pf.to_fragments(lay["A"], a)).reshape(p.m, p.k)
    b_m = pf.from_fragments(lay["B"], pf.to_fragments(lay["B"], b)).reshape(p.k, p.n)
    c_m = pf.from_fragments(lay["C"], pf.to_fragments(lay["C"], c)).reshape(p.m, p.n)
    checked = []
    for cp in mt.counterparts(p, names):
        shape = mx.parse_name(cp.instruction) if cp.level != "none" else None
        if shape is None or not mx.layout_known(shape, cp.arch) or shape.out not in _REG:
            continue
        codes = ({"a_code": mt._F8F6F4_CODE.get(p.a), "b_code": mt._F8F6F4_CODE.get(p.b)}
                 if shape.a == "f8f6f4" else {})
        want = mt.tiled(shape, cp.arch, a, b_m, c_m, p)
        got = _tiled_via_registers(shape, cp.arch, a, b_m, c_m, codes)
        assert np.array_equal(pf.to_fragments(lay["C"], got), pf.to_fragments(lay["C"], want)), cp
        checked.append(cp.arch)
    assert len(checked) >= (2 if p.sparse else 3), checked

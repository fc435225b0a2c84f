"""Every encoding row of the catalog builds a word llvm-mc 22 decodes as that instruction.

For each (arch, encoding, instruction) row, the word is the row's identifier (resolved layout's
fixed bits and resolved opcode; operand fields zero, or one of them set to a null/exec value when
llvm-mc rejects zeros) at the layout's width. Counted over the rows whose instruction llvm-mc
knows on that arch (it assembles one of LLVM's test lines for it on one of the arch's targets).
Skips without llvm-mc 22."""

from __future__ import annotations

from collections import Counter

import pytest

from gpuisa.archs import ARCHS
from gpuisa.verify.encoding_rows import Row, check_rows, llvm_knows
from gpuisa.verify.llvm_mc import available

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not available(), reason="llvm-mc 22 not installed")]

TARGET = 99.5


def catalog_rows(catalog) -> list[Row]:
    rows = []
    for r in catalog.opcode_rows():
        layout = catalog.encoding(r["arch"], r["layout"]) if r["layout"] else None
        word = (None if r["identifier"] is None or not r["width"]
                else r["identifier"].to_bytes(r["width"] // 8, "little"))
        free = tuple((f.name, f.bits) for f in layout.fields if f.value is None and f.name != r["op_field"]) if layout else ()
        rows.append(Row(r["arch"], r["name"], r["encoding"], word, free))
    return rows


def test_rows_decode_as_their_instruction(catalog):
    rows = catalog_rows(catalog)
    assert len(rows) > 15000

    def same(mnemonic: str, key: str) -> bool:
        return catalog.key_of(mnemonic) == key

    report = check_rows(rows, same)
    tested = catalog.llvm_supported()
    examples: dict[tuple[str, str], list[str]] = {}
    for r in report.results:
        if not r.ok and (r.row.name, r.row.arch) not in tested:
            examples.setdefault((r.row.arch, r.row.name), [e["asm"] for e in catalog.examples(r.row.name, r.row.arch)[:2]])
    assembled = llvm_knows({k: v for k, v in examples.items() if v}, same)

    decoded = {id(r.row) for r in report.results if r.ok}

    def known(row: Row) -> bool:
        return id(row) in decoded or (row.name, row.arch) in tested or (row.arch, row.name) in assembled

    lines, bad = [], Counter()
    for a in ARCHS:
        ok, n = report.rate(a.key, lambda r: known(r))
        lines.append(f"{a.key}: {ok}/{n}")
    ok, n = report.rate(None, lambda r: known(r))
    failures = [r for r in report.results if not r.ok and known(r.row)]
    for r in failures:
        bad[(r.row.arch, r.row.encoding)] += 1
    print("rows decoded as their instruction:", ", ".join(lines), f"all {ok}/{n}")
    print("failures by (arch, encoding):", bad.most_common())
    assert n > 10000
    assert 100 * ok / n >= TARGET, (f"{ok}/{n} = {100 * ok / n:.2f}%", bad.most_common(12),
                                    [(r.row.arch, r.row.name, r.printed) for r in failures[:20]])


def test_llvm_mc_settles_layouts_without_tests(sources):
    """Without LLVM's tests every vega7 layout is unsettled; llvm-mc 22 then settles those whose every
    row decodes as its instruction (MTBUF has no gfx906 test at all, its rows decode)."""
    from gpuisa.catalog.resolve import resolve, settle_with_llvm_mc
    from gpuisa.sources.read import read_amd_manual

    res = resolve([read_amd_manual(sources, "vega7")], None)
    assert all(how.startswith(("unsettled", "not checked")) for how in res.settled.values())
    assert settle_with_llvm_mc(res) >= 5
    assert res.settled[("vega7", "MTBUF")].startswith("llvm-mc 22")
    assert res.settled[("vega7", "VOP3P")].startswith("unsettled")   # the manual's 8-bit ENCODING: rows do not decode

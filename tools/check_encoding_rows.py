"""Report how many catalog encoding rows build a word llvm-mc 22 decodes as the row's instruction.

    python tools/check_encoding_rows.py CATALOG [--failures N]

Per arch: rows decoded as their instruction / rows whose instruction llvm-mc knows on the arch
(LLVM's tests support it there, or llvm-mc assembles one of its test lines on one of the arch's
targets), then the failures grouped by (arch, encoding). The same measure as
tests/test_encoding_rows_llvm.py.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter, defaultdict
from pathlib import Path

from gpuisa.archs import ARCHS
from gpuisa.catalog.query import Catalog
from gpuisa.verify.encoding_rows import Row, check_rows, llvm_knows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("catalog", type=Path)
    ap.add_argument("--failures", type=int, default=3, help="examples shown per (arch, encoding)")
    ap.add_argument("--arch", action="append", help="only these archs")
    args = ap.parse_args(argv)
    cat = Catalog(args.catalog)
    rows = []
    for r in cat.opcode_rows():
        if args.arch and r["arch"] not in args.arch:
            continue
        layout = cat.encoding(r["arch"], r["layout"]) if r["layout"] else None
        word = None if r["identifier"] is None or not r["width"] else r["identifier"].to_bytes(r["width"] // 8, "little")
        free = tuple((f.name, f.bits) for f in layout.fields if f.value is None and f.name != r["op_field"]) if layout else ()
        rows.append(Row(r["arch"], r["name"], r["encoding"], word, free))
    tested = cat.llvm_supported()

    def same(mnemonic: str, key: str) -> bool:
        return cat.key_of(mnemonic) == key

    report = check_rows(rows, same)
    # llvm-mc knows a row's instruction on the arch: LLVM's tests support it there, a row word decodes
    # as it, or llvm-mc assembles one of LLVM's test lines for it on one of the arch's targets
    ask = {(r.row.arch, r.row.name): [e["asm"] for e in cat.examples(r.row.name, r.row.arch)[:2]]
           for r in report.results if not r.ok and (r.row.name, r.row.arch) not in tested}
    assembled = llvm_knows({k: v for k, v in ask.items() if v}, same)
    known = tested | {(r.row.name, r.row.arch) for r in report.results if r.ok} | {(n, a) for a, n in assembled}
    print(f"{report.tool}: rows decoded as their instruction (rows whose instruction LLVM knows on the arch)")
    for a in ARCHS:
        ok, n = report.rate(a.key, lambda r: (r.name, r.arch) in known)
        ok_all, n_all = report.rate(a.key)
        if n_all:
            print(f"  {a.key:8} {ok:5}/{n:5} = {100 * ok / max(n, 1):5.1f}%   (all rows {ok_all}/{n_all} = "
                  f"{100 * ok_all / n_all:5.1f}%)")
    ok, n = report.rate(None, lambda r: (r.name, r.arch) in known)
    ok_all, n_all = report.rate()
    print(f"  {'all':8} {ok:5}/{n:5} = {100 * ok / max(n, 1):5.1f}%   (all rows {ok_all}/{n_all} = {100 * ok_all / n_all:5.1f}%)")
    groups: dict[tuple[str, str], list] = defaultdict(list)
    for r in report.results:
        if not r.ok and (r.row.name, r.row.arch) in known:
            groups[(r.row.arch, r.row.encoding)].append(r)
    print("failures (known rows) by arch, encoding:")
    for (arch, enc), items in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        print(f"  {arch} {enc}: {len(items)}")
        for r in items[: args.failures]:
            word = r.row.word.hex() if r.row.word else None
            print(f"      {r.row.name.lower():32} {word} -> {r.printed}")
    counts = Counter(r.printed is None for r in report.results if not r.ok)
    print(f"not decoded at all: {counts[True]}, decoded as another instruction: {counts[False]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Audit a verified catalog's "not supported" verdicts against llvm-mc: how many does it contradict?

For every (instruction, target) the catalog calls "not supported", every spelling of the identity
(aliases, renames) is assembled on that target with up to --per examples each from LLVM's MC tests
(closest targets first). A verdict is contradicted when any of them assembles to the same identity.
Contradictions whose verdict came from LLVM 23's own tests (evidence llvm-test) while llvm-mc 22
assembles are listed apart: they are LLVM 22-vs-23 differences, not errors of the catalog.

    python bench/audit_verdicts.py --catalog CAT [--sources DIR] [--per 8]
"""

from __future__ import annotations

import argparse
import sqlite3
import time
from collections import defaultdict
from pathlib import Path

from gpuisa.paths import default_sources
from gpuisa.sources.llvm_mc import examples_by_mnemonic, mnemonics
from gpuisa.sources.read import read_llvm_tests
from gpuisa.verify.llvm_mc import assemble, find_llvm_mc, pick_for_target


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--catalog", type=Path, required=True)
    ap.add_argument("--sources", type=Path, default=None)
    ap.add_argument("--per", type=int, default=8, help="examples tried per spelling")
    args = ap.parse_args()
    t0 = time.perf_counter()
    tool = find_llvm_mc()
    conn = sqlite3.connect(f"file:{args.catalog}?mode=ro", uri=True)
    spellings: dict[str, set[str]] = defaultdict(set)
    for key in (r[0] for r in conn.execute("SELECT name FROM instructions")):
        spellings[key].add(key)
    for alias, key in conn.execute("SELECT alias, name FROM aliases"):
        spellings[key].add(alias)
    for key, manual_name in conn.execute("SELECT name, manual_name FROM instr_arch"):
        spellings[key].add(manual_name)
    identity = {s: k for k, ss in spellings.items() for s in ss}
    rows = conn.execute("SELECT name, target, evidence, detail FROM targets WHERE verdict='not supported'").fetchall()
    corpus = read_llvm_tests(args.sources or default_sources(), 2, None)
    by_name = examples_by_mnemonic(corpus.examples)
    jobs: dict[str, list[tuple[tuple, str]]] = defaultdict(list)
    for r in rows:
        key, target = r[0], r[1]
        for s in spellings[key]:
            for ex in pick_for_target(by_name.get(s, []), target, args.per):
                jobs[target].append((r, ex.asm))
    contradicted: dict[tuple, str] = {}
    for target, items in jobs.items():
        results = assemble([asm for _, asm in items], target, tool=tool)
        for (r, _), res in zip(items, results, strict=True):
            if res.ok and any(identity.get(m) == r[0] for m in mnemonics(res.asm)):
                contradicted.setdefault(r, res.asm)
    by_tests = {r: a for r, a in contradicted.items() if r[2] == "llvm-test"}
    by_tool = {r: a for r, a in contradicted.items() if r[2] != "llvm-test"}
    print(f"{len(rows)} 'not supported' verdicts; {sum(len(v) for v in jobs.values())} lines tried with {tool.label}")
    print(f"contradicted by {tool.label}: {len(by_tool)} (verdicts from llvm-mc itself)")
    for r, asm in sorted(by_tool.items())[:40]:
        print(f"  {r[0]} {r[1]}: catalog says not supported ({r[3][:80]}); {asm!r} assembles")
    print(f"LLVM 23 tests say not supported, {tool.label} assembles (22-vs-23 differences): {len(by_tests)}")
    for r, asm in sorted(by_tests.items()):
        print(f"  {r[0]} {r[1]}: {r[3][:90]} | llvm-mc 22: {asm!r}")
    print(f"{time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()

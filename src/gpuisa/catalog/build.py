"""Build the catalog: read every source, merge, derive, and write one SQLite file atomically.

The file is written under a temporary name beside the target and renamed into place only when
complete, so a failed build leaves the previous catalog intact.
"""

from __future__ import annotations

import json
import os
import sqlite3
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

from gpuisa import __version__
from gpuisa.archs import ARCHS, newest_first
from gpuisa.catalog import merge as m
from gpuisa.catalog.operands import derive as derive_operands
from gpuisa.catalog.ptx_store import SCHEMA as PTX_SCHEMA
from gpuisa.catalog.ptx_store import write_ptx
from gpuisa.catalog.schema import SCHEMA, SCHEMA_VERSION
from gpuisa.errors import SourceError
from gpuisa.model import ManualData, Provenance
from gpuisa.sources.amd_manual import read_manual

Progress = Callable[[str, int, int], None]   # (stage, done, total)

MANUALS_DIR = "amd-isa-manuals"


@dataclass(slots=True)
class ArchCoverage:
    arch: str
    table_entries: int                 # distinct instruction names in the manual's opcode tables
    in_catalog: int                    # of those, how many are in the catalog (encoding + opcode)
    documented: int                    # of those, how many have text from the instructions chapter
    missing: list[dict] = field(default_factory=list)   # {name, reason}
    skips: int = 0

    @property
    def percent(self) -> float:
        return 100.0 * self.in_catalog / self.table_entries if self.table_entries else 0.0


@dataclass(slots=True)
class BuildReport:
    coverage: list[ArchCoverage]
    instructions: int
    seconds: float
    path: str
    llvm: object | None = None          # llvm_stage.LlvmReport when the LLVM tests were read
    notes: list[str] = field(default_factory=list)


def _read_one(args: tuple[str, str, str]) -> ManualData:
    path, arch, rel = args
    return read_manual(Path(path), arch, rel)


def read_manuals(sources: Path, progress: Progress | None = None, jobs: int = 2) -> list[ManualData]:
    """Read all twelve manuals (in parallel when jobs > 1); missing ones raise SourceError."""
    if not sources.is_dir():
        raise SourceError(str(sources), "sources folder not found (use --sources DIR or `gpuisa fetch`)")
    tasks = []
    for arch in ARCHS:
        rel = f"{MANUALS_DIR}/{arch.key}/README.md"
        path = sources / rel
        if not path.is_file():
            raise SourceError(str(path), f"manual for {arch.key} not found")
        tasks.append((str(path), arch.key, rel))
    out: list[ManualData] = []
    if jobs > 1:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            for data in pool.map(_read_one, tasks):
                out.append(data)
                if progress:
                    progress("manuals", len(out), len(tasks))
    else:
        for t in tasks:
            out.append(_read_one(t))
            if progress:
                progress("manuals", len(out), len(tasks))
    return out


def build(sources: Path, target: Path, progress: Progress | None = None, jobs: int = 2,
          verify: bool = False, equivalents: bool = True) -> BuildReport:
    """Build the catalog at `target` from `sources`; atomic replace at the end.

    verify: also assemble representative examples with llvm-mc on targets the tests do not cover
    (cached by llvm-mc version; skipped with a note when llvm-mc is not installed).
    """
    t0 = time.perf_counter()
    manuals = read_manuals(sources, progress, jobs)
    notes: list[str] = []
    corpus = _read_llvm(sources, progress, jobs, notes)
    candidates = {}
    if corpus is not None:
        from gpuisa.catalog.llvm_stage import llvm_aliases

        candidates = llvm_aliases(corpus)
    merged = m.merge(manuals, candidates)
    coverage = [_coverage(d, merged) for d in manuals]
    ptx_manual = _read_ptx(sources, notes)
    ptx_verification = _verify_ptx(ptx_manual, progress, jobs, notes) if (verify and ptx_manual is not None) else None
    verdicts, tool_label = _verify_llvm(corpus, progress, notes) if (verify and corpus is not None) else ([], "")
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=".catalog-", suffix=".tmp", dir=target.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    llvm_report = None
    try:
        conn = sqlite3.connect(tmp)
        conn.executescript(SCHEMA)
        conn.executescript(PTX_SCHEMA)
        _write(conn, manuals, merged, coverage, sources)
        if ptx_manual is not None:
            write_ptx(conn, ptx_manual, ptx_verification)
        if corpus is not None:
            from gpuisa.catalog.llvm_stage import write_llvm

            llvm_report = write_llvm(conn, corpus, manuals, merged, verdicts, tool_label)
        if equivalents:
            from gpuisa.catalog.crossref_stage import write_equivalents

            if progress:
                progress("cross-vendor equivalents", 0, 1)
            summary = write_equivalents(conn, manuals, notes)
            if progress:
                progress("cross-vendor equivalents", 1, 1)
            if summary:
                notes.append("equivalents: {mappings} mappings, {proved} proved, {tested} tested, {curated} curated, "
                             "{counterexample} refuted ({seconds} s{cached})".format(
                                 **{**summary, "cached": ", cached" if summary.get("cached") else ""}))
        conn.execute("INSERT INTO search_fts(search_fts) VALUES ('optimize')")
        conn.commit()
        conn.execute("PRAGMA journal_mode=DELETE")
        conn.close()
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return BuildReport(coverage, len(merged), time.perf_counter() - t0, str(target), llvm_report, notes)


LLVM_TESTS = "llvm-project-23.1.1/llvm/test/MC/AMDGPU"
PTX_EDITION, PTX_OLDER = "ptx-isa-9.4", "ptx-isa-9.1"


def _read_ptx(sources: Path, notes: list[str]):
    """The PTX ISA manual (9.4, with 9.1 to mark what is new), or None with a note."""
    if not (sources / PTX_EDITION).is_dir():
        notes.append(f"PTX ISA manual not found under {sources / PTX_EDITION}: no PTX instructions")
        return None
    from gpuisa.sources.ptx_docs import read_manual as read_ptx_manual

    older = sources / PTX_OLDER
    return read_ptx_manual(sources / PTX_EDITION, older if older.is_dir() else None)


def _verify_ptx(manual, progress: Progress | None, jobs: int, notes: list[str]):
    """Forms checked with ptxas (minimum version and target) and lowered to SASS with cuobjdump (cached)."""
    from gpuisa.verify.ptxas import verify_manual

    verification = verify_manual(manual, progress=progress, workers=jobs)
    if verification.skipped_reason:
        notes.append(f"PTX verification: {verification.skipped_reason}")
    return verification


def _read_llvm(sources: Path, progress: Progress | None, jobs: int, notes: list[str]):
    """LLVM's MC test corpus, or None (with a note) when the sources do not include it."""
    if not (sources / LLVM_TESTS).is_dir():
        notes.append(f"LLVM MC tests not found under {sources / LLVM_TESTS}: no examples or target support")
        return None
    from gpuisa.sources.llvm_mc import read_corpus

    if progress:
        progress("LLVM MC tests", 0, 1)
    corpus = read_corpus(sources, processes=jobs)
    if progress:
        progress("LLVM MC tests", 1, 1)
    return corpus


def _verify_llvm(corpus, progress: Progress | None, notes: list[str]):
    """Support verdicts from llvm-mc for (instruction, target) pairs the tests leave open."""
    from gpuisa.catalog.llvm_stage import ALL_TARGETS
    from gpuisa.sources.llvm_mc import examples_by_mnemonic
    from gpuisa.verify.llvm_mc import LlvmMcMissing, find_llvm_mc, verify_support

    try:
        tool = find_llvm_mc()
    except LlvmMcMissing as exc:
        notes.append(f"verification with llvm-mc skipped: {exc}")
        return [], ""
    by_name = examples_by_mnemonic(corpus.examples)
    negatives: dict[str, list] = {}
    from gpuisa.sources.llvm_mc import mnemonics

    for neg in corpus.negatives:
        for name in mnemonics(neg.input):
            negatives.setdefault(name, []).append(neg)
    if progress:
        progress("llvm-mc verification", 0, 1)
    verdicts = verify_support(by_name, ALL_TARGETS, negatives=negatives, tool=tool, per_name=2)
    if progress:
        progress("llvm-mc verification", 1, 1)
    return verdicts, tool.label


def _coverage(data: ManualData, merged: dict[str, m.MergedInstruction]) -> ArchCoverage:
    """Opcode-table entries (parsed + unparseable rows) vs those in the catalog, and how many have text."""
    table_names = {e.name for e in data.opcodes if not (e.provenance.section or "").startswith("VOP3 rule")}
    bad_rows = [s for s in data.skips if "opcode table" in s.reason]
    index = m.key_index(merged)
    in_catalog = {n for n in table_names if n in index and data.arch in merged[index[n]].per_arch}
    documented = {d.name for d in data.docs if d.description or d.pseudocode}
    missing = [{"name": s.text, "reason": f"line {s.line}: {s.reason}"} for s in bad_rows]
    missing += [{"name": n, "reason": "in an opcode table, but the instructions chapter has no entry (no description)"}
                for n in sorted(table_names - documented)]
    return ArchCoverage(data.arch, len(table_names) + len(bad_rows), len(in_catalog),
                        len(table_names & documented), missing, len(data.skips))


def _j(obj) -> str:
    return json.dumps(obj, separators=(",", ":"), default=_default)


def _default(o):
    if isinstance(o, Provenance):
        return {k: v for k, v in asdict(o).items() if v is not None}
    raise TypeError(type(o))


def _write(conn: sqlite3.Connection, manuals: list[ManualData], merged: dict[str, m.MergedInstruction],
           coverage: list[ArchCoverage], sources: Path) -> None:
    meta = {"schema_version": str(SCHEMA_VERSION), "gpuisa_version": __version__,
            "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "sources": str(sources)}
    conn.executemany("INSERT INTO meta(key, value) VALUES (?, ?)", meta.items())
    by_arch = {d.arch: d for d in manuals}
    cov = {c.arch: c for c in coverage}
    index = m.key_index(merged)
    for a in ARCHS:
        d = by_arch[a.key]
        c = cov[a.key]
        conn.execute(
            "INSERT INTO archs(key, display, family, targets, ord, manual, coverage) VALUES (?,?,?,?,?,?,?)",
            (a.key, a.display, a.family, _j(list(a.targets)), a.order, d.file,
             _j({"table_entries": c.table_entries, "in_catalog": c.in_catalog, "documented": c.documented,
                 "percent": round(c.percent, 2), "missing": c.missing, "skips": c.skips,
                 "errata": len(d.errata)})),
        )
        for enc in d.encodings.values():
            conn.execute(
                "INSERT INTO encodings(arch, name, width, fields, provenance) VALUES (?,?,?,?,?)",
                (a.key, enc.name, enc.width,
                 _j([{"name": f.name, "bits": [list(b) for b in f.bits], "value": f.value,
                      "spelling": f.spelling, "description": f.description} for f in enc.fields]),
                 _j(enc.provenance)),
            )
        conn.executemany(
            "INSERT INTO skips(arch, file, line, reason, text) VALUES (?,?,?,?,?)",
            [(a.key, s.file, s.line, s.reason, s.text) for s in d.skips],
        )
        conn.executemany(
            "INSERT INTO errata(name, arch, kind, detail, sources) VALUES (?,?,?,?,?)",
            [(e.name if e.name == "*" else index.get(e.name, e.name), e.arch, e.kind, e.detail, _j(list(e.sources)))
             for e in d.errata],
        )
    for key, mi in merged.items():
        archs = newest_first(list(mi.per_arch))
        newest = mi.per_arch[archs[0]]
        doc_src = next((mi.per_arch[a].doc for a in archs if mi.per_arch[a].doc and mi.per_arch[a].doc.style == "headed"),
                       None) or next((mi.per_arch[a].doc for a in archs if mi.per_arch[a].doc), None)
        summary = m.summary_of(doc_src.description) if doc_src else ""
        primary = newest.encodings[0]["encoding"] if newest.encodings else ""
        group = m.group_of(primary)
        conn.execute(
            "INSERT INTO instructions(name, vendor, grp, summary, archs, aliases) VALUES (?,?,?,?,?,?)",
            (key, "amd", group, summary, _j(archs), _j(sorted(mi.aliases))),
        )
        conn.executemany("INSERT OR IGNORE INTO aliases(alias, name, evidence) VALUES (?, ?, ?)",
                         [(a, key, why) for a, why in sorted(mi.aliases.items())])
        for arch, entry in mi.per_arch.items():
            doc = entry.doc
            enc0 = by_arch[arch].encodings.get(entry.encodings[0]["layout"] or "") if entry.encodings else None
            operands = derive_operands(doc.pseudocode, enc0) if doc else []
            conn.execute(
                "INSERT INTO instr_arch(name, arch, manual_name, section, description, semantics, notes, style,"
                " operands, provenance) VALUES (?,?,?,?,?,?,?,?,?,?)",
                (key, arch, entry.manual_name, doc.section if doc else "", doc.description if doc else "",
                 doc.pseudocode if doc else "", doc.notes if doc else "", doc.style if doc else "",
                 _j(operands), _j(doc.provenance) if doc else None),
            )
            for rank, e in enumerate(entry.encodings):
                conn.execute(
                    "INSERT INTO instr_enc(name, arch, encoding, layout, op_field, opcode, identifier, rank, provenance)"
                    " VALUES (?,?,?,?,?,?,?,?,?)",
                    (key, arch, e["encoding"], e["layout"], e["op_field"], e["opcode"],
                     None if e["identifier"] is None else str(e["identifier"]), rank, _j(e["provenance"])),
                )
        body = " ".join(filter(None, [doc_src.description if doc_src else "", " ".join(sorted(mi.aliases))]))
        conn.execute("INSERT INTO search_fts(name, vendor, arch, summary, body) VALUES (?,?,?,?,?)",
                     (key.lower(), "amd", " ".join(archs), summary, body))

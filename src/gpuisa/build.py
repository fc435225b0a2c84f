"""The catalog build as one ordered list of stages; read STAGES top to bottom to follow a build.

Each stage takes the build's state (`Build`), reads what earlier stages left there and adds its
own result; none of them opens anything but the sources root it was given and, at the end, the
target file. The work itself lives in the layers below: readers in `sources.read`, tools in
`verify`, merging and writing in `catalog`, evidence for equivalents in `crossref.stage`.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import multiprocessing
import os
import shutil
import sqlite3
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpuisa.catalog import merge, sanity
from gpuisa.catalog.llvm_stage import ALL_TARGETS, LlvmReport, llvm_aliases, write_llvm
from gpuisa.catalog.ptx_store import write_ptx
from gpuisa.catalog.resolve import Resolution, settle_with_llvm_mc, write_resolution
from gpuisa.catalog.resolve import resolve as resolve_encodings
from gpuisa.catalog.schema import SCHEMA
from gpuisa.catalog.write import (
    ArchCoverage,
    arch_coverage,
    new_catalog,
    remove_stale_temps,
    write_amd,
    write_equivalents,
)
from gpuisa.crossref.discovery import rosetta_forms
from gpuisa.crossref.stage import CACHED, Equivalents, compute_equivalents
from gpuisa.crossref.stage import state as rosetta_state
from gpuisa.model import ManualData
from gpuisa.model_llvm import McCorpus, TargetVerdict
from gpuisa.model_ptx import PtxManual, PtxVerification
from gpuisa.model_syntax import SyntaxDocs
from gpuisa.paths import cache_dir
from gpuisa.sources import layout, parsed_cache
from gpuisa.sources.llvm_mc import examples_by_mnemonic, mnemonics, test_files
from gpuisa.sources.read import ManualTexts, read_amd_manuals, read_llvm_syntax_docs, read_llvm_tests, read_ptx_manual
from gpuisa.stopping import raise_if_stopped
from gpuisa.verify.llvm_mc import INSTALL_HINT, LlvmMcMissing, find_llvm_mc, verify_support
from gpuisa.verify.ptx_tools import WHEELS_HINT, find_tools
from gpuisa.verify.ptxas import verify_manual
from gpuisa.workers import lower_new_pools, process_pool

Progress = Callable[[str, int, int], None]   # (stage, done, total)


@dataclass(slots=True)
class BuildReport:
    coverage: list[ArchCoverage]
    instructions: int
    seconds: float
    path: str
    llvm: LlvmReport | None = None      # when the LLVM tests were read
    notes: list[str] = field(default_factory=list)
    stages: list[StageTime] = field(default_factory=list)
    up_to_date: str = ""                # when set: the catalog was built from these same inputs at this time


@dataclass(frozen=True, slots=True)
class StageTime:
    """One stage's cost: wall seconds, and CPU seconds of this process, its workers and the tools they ran
    (on a shared machine the CPU time says what the stage costs, the wall time also what the neighbours do)."""

    stage: str
    wall_s: float
    cpu_s: float


def _cpu_seconds() -> float:
    """CPU seconds of this process and its finished children (worker pools, llvm-mc, ptxas)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


@dataclass(slots=True)
class Build:
    """What one build was asked to do, and what each stage has produced so far."""

    sources: Path
    target: Path
    progress: Progress | None = None
    jobs: int = 2
    verify: bool = True
    equivalents: bool = True
    pending: bool = False               # not verified now, a background build will (serve's first start)
    tools: tuple[str, ...] = ("llvm-mc", "ptxas")   # which tools verify (tests that need one ask for it alone)
    verification: dict[str, dict] = field(default_factory=dict)   # per tool: state, tool, note, install
    accept_drop: bool = False             # write even when coverage dropped sharply (sanity stage)
    notes: list[str] = field(default_factory=list)
    started: float = field(default_factory=time.perf_counter)
    manuals: list[ManualData] = field(default_factory=list)
    corpus: McCorpus | None = None
    syntax: SyntaxDocs | None = None
    ptx: PtxManual | None = None
    ptx_verification: PtxVerification | None = None
    llvm_verdicts: list[TargetVerdict] = field(default_factory=list)
    llvm_tool: str = ""
    merged: dict[str, merge.MergedInstruction] = field(default_factory=dict)
    coverage: list[ArchCoverage] = field(default_factory=list)
    mappings: Equivalents | None = None
    rosetta: str = CACHED                 # what the Rosetta stage computes anew (crossref.stage.MODES)
    rosetta_running: bool = False         # a background pass (serve) is computing the cells this build leaves out
    force: bool = False                   # rebuild even when the catalog was built from the same inputs
    inputs: str = ""                      # inputs_key() at the start
    up_to_date: str = ""                  # the catalog's built_at, when its inputs are these: nothing to do
    docs: dict[str, Future] = field(default_factory=dict)   # docs readers running in their own processes
    exits: contextlib.ExitStack = field(default_factory=contextlib.ExitStack)   # pools that outlive one stage
    resolution: Resolution | None = None
    llvm_report: LlvmReport | None = None
    ptx_aside: Future | None = None       # the PTX verification running in the PTX reader's process (_PtxOutcome)
    ptx_notes_at: int = -1                # where its notes go in `notes` (where an inline verification puts them)
    timings: list[StageTime] = field(default_factory=list)   # parts a stage reports beside its own time

    def step(self, what: str, done: int, total: int = 1) -> None:
        if self.progress:
            self.progress(what, done, total)


# ---------------------------------------------------------------- the stages, in order

def clear_leftovers(b: Build) -> None:
    """Temporary catalogs that killed builds left beside the target (their process is gone)."""
    for path in remove_stale_temps(b.target.parent):
        b.notes.append(f"removed {path.name}, left by a build that was stopped")


def check_inputs(b: Build) -> None:
    """Nothing to do when the catalog at the target was built from exactly these inputs (inputs_key: sources, code,
    options, tools, the Rosetta evidence cache); when the cache folder keeps a catalog built from them (another
    target, an earlier run), it is copied into place. Either takes seconds instead of reading, resolving and writing
    everything again to the same result; --force builds anew."""
    b.inputs = inputs_key(b)
    if b.force:
        return
    built = _built_from(b.target)
    if built.get("inputs") == b.inputs:
        b.up_to_date = built.get("built_at", "?")
        return
    kept = _kept_catalog(b.inputs)
    built = _built_from(kept) if parsed_cache.enabled() else {}
    if built.get("inputs") == b.inputs:
        with contextlib.suppress(OSError):
            os.utime(kept)                   # pruning keeps what is used
        b.target.parent.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(prefix=f".catalog-{os.getpid()}-", suffix=".tmp", dir=b.target.parent)
        os.close(fd)
        try:
            shutil.copyfile(kept, name)
            os.replace(name, b.target)
        finally:
            Path(name).unlink(missing_ok=True)
        b.up_to_date = f"{built.get('built_at', '?')}, copied from the cache ({kept.parent})"


KEEP_CATALOGS = 2   # catalogs kept in the cache folder by their inputs (each is some 150 MB)


def _kept_catalog(inputs: str) -> Path:
    return cache_dir() / "catalogs" / f"{inputs[:32]}.sqlite"


def _built_from(path: Path) -> dict[str, str]:
    """A catalog's 'inputs' and 'built_at' ({} when there is none or it cannot be read)."""
    if not path.is_file():
        return {}
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
            return dict(conn.execute("SELECT key, value FROM meta WHERE key IN ('inputs', 'built_at')"))
    except sqlite3.Error:
        return {}


def _keep(b: Build) -> None:
    """A copy of the catalog just written, under its inputs, for the next build from the same inputs."""
    if not parsed_cache.enabled() or _built_from(b.target).get("inputs") != b.inputs:
        return
    kept = _kept_catalog(b.inputs)
    with contextlib.suppress(OSError):   # a full or read-only cache folder costs the speed-up, not the build
        kept.parent.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(prefix=".keep-", suffix=".tmp", dir=kept.parent)
        os.close(fd)
        try:
            shutil.copyfile(b.target, name)
            os.replace(name, kept)
        finally:
            Path(name).unlink(missing_ok=True)
        for old in sorted(kept.parent.glob("*.sqlite"), key=lambda p: p.stat().st_mtime, reverse=True)[KEEP_CATALOGS:]:
            old.unlink(missing_ok=True)


def read_manuals(b: Build) -> None:
    """The twelve AMD ISA manuals (required: a missing one stops the build)."""
    b.manuals = read_amd_manuals(b.sources, b.jobs, b.progress)


def check_manuals(b: Build) -> None:
    """Stop at once when a manual gave much less than its own opcode tables list (a damaged file): the user
    hears of it in seconds, not after minutes of reading the other sources. The comparison with the
    previous catalog needs the merged records and follows later (check_coverage)."""
    if b.accept_drop:
        return                      # check_coverage notes the accepted drop once
    counts = {}
    for d in b.manuals:
        c = arch_coverage(d, merge.merge([d], {}))
        counts[d.arch] = sanity.Counts(d.file, c.table_entries, c.in_catalog, c.documented)
    sanity.check(counts, {}, accept_drop=False)


def _docs_readers(b: Build) -> dict[str, Callable[[Path], object]]:
    docs: dict[str, Callable[[Path], object]] = {}
    if (layout.llvm_docs(b.sources) / "AMDGPU").is_dir():
        docs["syntax"] = read_llvm_syntax_docs
    else:
        b.notes.append(f"LLVM syntax pages not found under {layout.llvm_docs(b.sources)}/AMDGPU: "
                       "operands from the pseudocode only")
    if layout.has_ptx_manual(b.sources):
        docs["ptx"] = read_ptx_manual
    else:
        b.notes.append(f"PTX ISA manual not found under {layout.ptx_manual(b.sources)}: no PTX instructions")
    return docs


def start_docs(b: Build) -> None:
    """LLVM's syntax pages (every instruction's operands, per syntax family) and the PTX ISA manual (with the older
    edition, to mark what is new) are needed only from verification on: with jobs > 1 each is read in a process of
    its own from the start, while the manuals and the LLVM tests are read and resolved, so on a cold cache their
    parsers share the cores with the rest instead of taking turns (collect_docs takes their results).

    The PTX reader's process then goes on to verify the manual with ptxas (most of a cold build's work, and half of
    it a serial search in Python between ptxas runs): from the first seconds on it fills whatever the rest of the
    build leaves idle, and the build takes its result only when it writes the PTX tables (write)."""
    docs = _docs_readers(b)
    if b.jobs > 1 and docs:
        for what, read in sorted(docs.items(), key=lambda item: item[0] != "ptx"):   # the PTX side first
            if what == "ptx" and b.verify and "ptxas" in b.tools:
                relay = _ProgressRelay(b.progress)
                pool = b.exits.enter_context(process_pool(1, _aside_init, (relay.queue,)))
                b.exits.callback(relay.stop)
                b.docs[what] = pool.submit(_read_ptx_and_verify_aside, b.sources, b.jobs)
                b.ptx_aside = pool.submit(_ptx_verified_aside)   # the same (only) worker: after the reading
                lower_new_pools(BESIDE_PTX_NICE)   # the build's other pools wait for it anyway: it goes first
                b.exits.callback(lower_new_pools, 0)
            else:
                b.docs[what] = b.exits.enter_context(process_pool(1)).submit(read, b.sources)
    else:
        b.docs = {what: _done(read(b.sources)) for what, read in docs.items()}


BESIDE_PTX_NICE = 5   # niceness of the build's own worker pools while the PTX verification runs beside them


def _done(value: object) -> Future:
    f: Future = Future()
    f.set_result(value)
    return f


def read_tests(b: Build) -> None:
    """LLVM's AMDGPU MC tests: examples, per-target support, bytes to check the manuals against."""
    if layout.has_llvm_tests(b.sources):
        b.corpus = read_llvm_tests(b.sources, b.jobs, b.progress)
    else:
        b.notes.append(f"LLVM MC tests not found under {layout.llvm_mc_tests(b.sources)}: "
                       "no examples or target support")


def collect_docs(b: Build) -> None:
    """The syntax pages and the PTX manual that start_docs began reading."""
    b.syntax = b.docs["syntax"].result() if "syntax" in b.docs else None   # type: ignore[assignment]
    b.ptx = b.docs["ptx"].result() if "ptx" in b.docs else None            # type: ignore[assignment]
    b.docs = {}


def verify(b: Build) -> None:
    """By default: llvm-mc verdicts for targets the tests leave open, ptxas/cuobjdump for PTX forms
    (each tool the newest installed; a missing one is noted with how to install it)."""
    if not b.verify:
        state = "pending" if b.pending else "not run"
        note = ("verification runs in the background; this catalog is replaced when it is done" if b.pending
                else "built with --no-verify")
        b.verification = {t: {"state": state, "note": note} for t in ("llvm-mc", "ptxas")}
        return
    for tool in ("llvm-mc", "ptxas"):
        if tool not in b.tools:
            b.verification[tool] = {"state": "not run", "note": f"this build verified with {', '.join(b.tools)} only"}
    # llvm-mc in a second thread beside ptxas: both are mostly tool processes, and the PTX operand search
    # leaves a core idle while it works in Python
    side = _LlvmThread(b) if b.corpus is not None and "llvm-mc" in b.tools else None
    if b.ptx is not None and "ptxas" in b.tools:
        if b.ptx_aside is None:
            _take_ptx(b, _check_ptx(b.ptx, b.jobs, b.progress))
        else:                                # running beside the build since start_docs: taken in write
            b.ptx_notes_at = len(b.notes)
            b.verification["ptxas"] = {}     # its place among the tools' entries
    if side is not None:
        b.llvm_verdicts, b.llvm_tool = side.result()


def resolve(b: Build) -> None:
    """Resolve layouts and opcodes against LLVM's bytes (the corrections of sources/amd_quirks.py, each
    with its evidence), then merge the manuals into one record per instruction (LLVM's renames as
    aliases); count coverage."""
    aliases = llvm_aliases(b.corpus) if b.corpus is not None else {}
    b.step("resolve encodings", 0)
    b.resolution = resolve_encodings(b.manuals, b.corpus, aliases)
    b.manuals = b.resolution.manuals
    if b.verify:
        try:
            settle_with_llvm_mc(b.resolution, find_llvm_mc())
        except LlvmMcMissing as exc:
            b.notes.append(f"layouts without LLVM tests not checked with llvm-mc: {exc}")
    b.step("resolve encodings", 1)
    b.merged = merge.merge(b.manuals, aliases, b.resolution.row_fields)
    b.coverage = [arch_coverage(d, b.merged) for d in b.manuals]


def check_coverage(b: Build) -> None:
    """Fail (keeping the old catalog) when much less was read than the sources or the old catalog hold."""
    counts = {c.arch: sanity.Counts(d.file, c.table_entries, c.in_catalog, c.documented)
              for c, d in zip(b.coverage, b.manuals, strict=True)}
    if b.ptx is not None:
        counts["ptx"] = sanity.Counts(str(layout.ptx_manual(b.sources)), ptx_sections=b.ptx.sections_total,
                                      ptx_instructions=len(b.ptx.instructions))
    b.notes.extend(sanity.check(counts, sanity.previous_counts(b.target), b.accept_drop))


def cross_vendor(b: Build) -> None:
    """PTX <-> AMD equivalents with their evidence, on the semantics this build read. By default only what the
    fingerprint cache holds (no new discovery on the build's path: crossref.stage.MODES); the catalog records which
    cells are missing and how to compute them, or that serve's background pass is computing them."""
    if not b.equivalents:
        if b.pending:   # serve's first start: the background passes fill them in
            b.verification["rosetta"] = {"state": "pending", "note": "the PTX -> AMD Rosetta comes with the verified "
                                         "catalog; serve's background pass computes the cells not yet cached"}
        return
    if b.ptx is None:
        b.notes.append("cross-vendor equivalents skipped: no PTX ISA manual in the sources")
        return
    b.step("cross-vendor equivalents", 0)
    b.mappings = compute_equivalents(ManualTexts(b.manuals, b.ptx), cache_dir() / "crossref-evidence.json",
                                     rosetta_forms([(f.form, i.category) for i in b.ptx.instructions for f in i.forms]),
                                     jobs=b.jobs, progress=b.progress, mode=b.rosetta, running=b.rosetta_running)
    b.verification["rosetta"] = rosetta_state(b.mappings.summary, b.rosetta_running)
    b.step("cross-vendor equivalents", 1)
    b.notes.append(b.mappings.note())


def write(b: Build) -> None:
    """One SQLite file, written beside the target and renamed into place when complete. With jobs > 1 the LLVM
    tables (the most work: choosing each target's examples) are written by a forked process into a file of their
    own while this one writes the rest, then copied in (SQLite copies rows in C)."""
    with contextlib.ExitStack() as side:
        llvm: tuple[Future, Path] | None = None
        if b.corpus is not None and b.jobs > 1:   # forked before the catalog's connection opens: none crosses a fork
            pool = side.enter_context(process_pool(1, _keep_build, (b,)))    # the build reaches it by fork
            b.target.parent.mkdir(parents=True, exist_ok=True)
            fd, name = tempfile.mkstemp(prefix=f".catalog-{os.getpid()}-llvm-", suffix=".tmp", dir=b.target.parent)
            os.close(fd)
            side.callback(Path(name).unlink, missing_ok=True)
            llvm = (pool.submit(_write_llvm_file, name), Path(name))
        with new_catalog(b.target) as conn:
            _write_catalog(b, conn, llvm)
    _keep(b)


def _write_catalog(b: Build, conn: sqlite3.Connection, llvm: tuple[Future, Path] | None) -> None:
    write_amd(conn, b.manuals, b.merged, b.coverage, b.sources, b.syntax)
    if b.resolution is not None:
        write_resolution(conn, b.resolution, merge.key_index(b.merged))
    if b.ptx_aside is not None:
        wall, cpu = time.perf_counter(), _cpu_seconds()
        outcome: _PtxOutcome = b.ptx_aside.result()
        b.timings += [StageTime("write: waiting for ptxas", time.perf_counter() - wall, _cpu_seconds() - cpu),
                      StageTime("ptxas (beside the build)", outcome.wall_s, outcome.cpu_s)]
        _take_ptx(b, outcome, b.ptx_notes_at)
        b.ptx_aside = None
    conn.execute("INSERT INTO meta(key, value) VALUES ('verification', ?)", (json.dumps(b.verification),))
    if b.ptx is not None:
        write_ptx(conn, b.ptx, b.ptx_verification)
    if llvm is not None:
        b.llvm_report = llvm[0].result()
        _copy_tables(conn, llvm[1], LLVM_TABLES)
    elif b.corpus is not None:
        b.llvm_report = write_llvm(conn, b.corpus, b.manuals, b.merged, b.llvm_verdicts, b.llvm_tool)
    if b.mappings is not None:
        write_equivalents(conn, b.mappings.rows, b.mappings.summary, b.mappings.rosetta)
    if _repeatable(b) and inputs_key(b) == b.inputs:   # unchanged while it ran (its own Rosetta cells change it)
        conn.execute("INSERT INTO meta(key, value) VALUES ('inputs', ?)", (b.inputs,))


LLVM_TABLES = ("llvm_examples", "llvm_counts", "targets", "agreement", "errata")   # what write_llvm fills
_FORKED: list[Build] = []


def _keep_build(b: Build) -> None:
    _FORKED[:] = [b]


def _write_llvm_file(path: str) -> LlvmReport:
    """In the forked writer: the LLVM tables into their own SQLite file."""
    b = _FORKED[0]
    assert b.corpus is not None
    conn = sqlite3.connect(path)
    try:
        conn.executescript(SCHEMA)
        report = write_llvm(conn, b.corpus, b.manuals, b.merged, b.llvm_verdicts, b.llvm_tool)
        conn.commit()
    finally:
        conn.close()
    return report


def _copy_tables(conn: sqlite3.Connection, path: Path, tables: tuple[str, ...]) -> None:
    conn.commit()
    conn.execute("ATTACH DATABASE ? AS side", (str(path),))
    for table in tables:
        conn.execute(f"INSERT INTO main.{table} SELECT * FROM side.{table}")
    conn.commit()
    conn.execute("DETACH DATABASE side")


STAGES: tuple[Callable[[Build], None], ...] = (
    clear_leftovers,
    check_inputs,
    start_docs,
    read_manuals,
    check_manuals,
    read_tests,
    resolve,
    collect_docs,
    verify,
    check_coverage,
    cross_vendor,
    write,
)


def build(sources: Path, target: Path, progress: Progress | None = None, jobs: int = 2,
          verify: bool = True, equivalents: bool = True, pending: bool = False,
          tools: tuple[str, ...] = ("llvm-mc", "ptxas"), accept_drop: bool = False,
          rosetta: str = CACHED, rosetta_running: bool = False, force: bool = False) -> BuildReport:
    """Build the catalog at `target` from the sources root `sources`; atomic replace at the end.

    verify: check with the real tools (llvm-mc, ptxas; cached by tool version; skipped with a note
    naming the missing tool and how to install it). pending: an unverified build that a verified
    one will replace (the catalog says so, pages show it). rosetta: what the cross-vendor stage computes anew
    (crossref.stage.MODES; default none: the cache's cells); rosetta_running: serve's background pass computes the rest.
    A catalog built from the same inputs (inputs_key) is left as it is unless `force`.
    """
    b = Build(Path(sources), Path(target), progress, jobs, verify, equivalents, pending=pending, tools=tools,
              accept_drop=accept_drop, rosetta=rosetta, rosetta_running=rosetta_running, force=force)
    stages = []
    with b.exits:
        for stage in STAGES:
            raise_if_stopped()          # a SIGTERM whose exception CPython dropped (workers module doc)
            wall, cpu = time.perf_counter(), _cpu_seconds()
            stage(b)
            stages.append(StageTime(stage.__name__, time.perf_counter() - wall, _cpu_seconds() - cpu))
            stages += b.timings
            b.timings = []
            if b.up_to_date:
                break
        raise_if_stopped()
    return BuildReport(b.coverage, len(b.merged), time.perf_counter() - b.started, str(b.target), b.llvm_report,
                       b.notes, stages, b.up_to_date)


# ---------------------------------------------------------------- what a catalog is made from

ROSETTA_CACHE_FILES = ("crossref-evidence.json", "rosetta-proofs.json", "rosetta-proofs-rows-*.json")


def _stamp(path: Path) -> str:
    try:
        st = path.resolve().stat()
    except OSError:
        return f"{path}:missing"
    return f"{path.resolve()}:{st.st_size}:{st.st_mtime_ns}"


def inputs_key(b: Build) -> str:
    """Digest of everything a build's catalog follows from: every file under the sources root (path, size,
    modification time), the package's code, the options, the verifying tools (path, version, binary stamp; or why
    one is missing) and the Rosetta evidence cache's files. The llvm-mc and ptxas result caches are not inputs: a
    kept result is what the same tool says again (a tool failure is never kept, and a build with one stores no key)."""
    h = hashlib.sha256(parsed_cache.code_digest().encode())
    h.update(json.dumps([str(b.sources.resolve()), b.verify, list(b.tools), b.pending, b.equivalents, b.accept_drop,
                         b.rosetta, b.rosetta_running]).encode())
    for folder, dirs, files in sorted(os.walk(b.sources, followlinks=True)):
        dirs.sort()
        for name in sorted(files):
            h.update(_stamp(Path(folder) / name).encode())
    if b.verify and "llvm-mc" in b.tools:
        try:
            tool = find_llvm_mc()
            h.update(f"{tool.label}|{_stamp(Path(tool.path))}".encode())
        except LlvmMcMissing as exc:
            h.update(f"llvm-mc missing: {exc}".encode())
    if b.verify and "ptxas" in b.tools:
        tools = find_tools()
        h.update(f"{tools.label}|{tools.max_ptx}|{tools.ptxas}|{tools.cuobjdump}".encode())
        h.update("|".join(_stamp(Path(str(t))) for t in (tools.ptxas, tools.cuobjdump) if t).encode())
    if b.equivalents:
        for pattern in ROSETTA_CACHE_FILES:
            for path in sorted(cache_dir().glob(pattern)) or [cache_dir() / pattern]:
                h.update(_stamp(path).encode())
    return h.hexdigest()


def _repeatable(b: Build) -> bool:
    """Whether the same inputs give this catalog again: not when a tool failed (hung, crashed) this time."""
    if any(v.verdict == "tool failed" for v in b.llvm_verdicts):
        return False
    return not (b.ptx_verification is not None
                and any(v.status == "tool failed" for v in b.ptx_verification.verdicts.values()))


# ---------------------------------------------------------------- helpers of the verify stage

@dataclass(slots=True)
class _PtxOutcome:
    """A PTX verification with what the build reports of it, and what it cost (wall and CPU seconds, its tools')."""

    verification: PtxVerification
    notes: list[str]
    entry: dict
    wall_s: float = 0.0
    cpu_s: float = 0.0


def _check_ptx(manual: PtxManual, workers: int, progress: Progress | None) -> _PtxOutcome:
    """Forms checked with ptxas (minimum version and target) and lowered to SASS with cuobjdump (cached)."""
    wall, cpu = time.perf_counter(), _cpu_seconds()
    tools = find_tools()
    notes = [f"tools: {n}" for n in tools.notes]
    verification = verify_manual(manual, tools=tools, progress=progress, workers=workers)
    if verification.skipped_reason:
        notes.append(f"PTX verification: {verification.skipped_reason}")
        entry = {"state": "missing", "note": verification.skipped_reason, "install": WHEELS_HINT}
    else:
        counts = Counter(v.status for v in verification.verdicts.values() if v.documented)
        entry = {"state": "verified", "tool": tools.label, "max_ptx": tools.max_ptx, "counts": dict(counts)}
        if counts.get("beyond"):
            entry["note"] = (f"{counts['beyond']} forms are newer than {tools.label} (PTX ISA up to "
                             f"{tools.max_ptx}): not judged; {WHEELS_HINT} for a newer ptxas")
    return _PtxOutcome(verification, notes, entry, time.perf_counter() - wall, _cpu_seconds() - cpu)


def _take_ptx(b: Build, outcome: _PtxOutcome, notes_at: int = -1) -> None:
    b.ptx_verification = outcome.verification
    b.verification["ptxas"] = outcome.entry
    at = len(b.notes) if notes_at < 0 else notes_at
    b.notes[at:at] = outcome.notes


# In the PTX reader's process (start_docs): the manual is returned at once, its verification goes on in a thread of
# that process, and the pool's next job (the same single worker) hands over the outcome.
_ASIDE: dict[str, Any] = {}


def _aside_init(queue: Any) -> None:
    _ASIDE["progress"] = queue


def _read_ptx_and_verify_aside(sources: Path, workers: int) -> PtxManual:
    manual = read_ptx_manual(sources)
    queue = _ASIDE.get("progress")

    def progress(stage: str, done: int, total: int) -> None:
        queue.put((stage, done, total))

    def run() -> None:
        try:
            _ASIDE["outcome"] = _check_ptx(manual, workers, progress if queue is not None else None)
        except BaseException as exc:      # handed over by _ptx_verified_aside
            _ASIDE["error"] = exc

    thread = _ASIDE["thread"] = threading.Thread(target=run, name="gpuisa-ptxas-verify", daemon=True)
    thread.start()
    return manual


def _ptx_verified_aside() -> _PtxOutcome:
    _ASIDE["thread"].join()
    if "error" in _ASIDE:
        raise _ASIDE["error"]
    return _ASIDE["outcome"]


class _ProgressRelay:
    """Progress reported by another process (a queue its workers inherit), passed on to the build's callback by a
    daemon thread until stop()."""

    def __init__(self, progress: Progress | None) -> None:
        self.queue: Any = multiprocessing.SimpleQueue() if progress is not None else None
        if progress is not None:
            self.thread = threading.Thread(target=self._run, args=(progress,), name="gpuisa-progress", daemon=True)
            self.thread.start()

    def _run(self, progress: Progress) -> None:
        while (item := self.queue.get()) is not None:
            progress(*item)

    def stop(self) -> None:
        if self.queue is not None:
            self.queue.put(None)


class _LlvmThread:
    """`_verify_llvm` in a daemon thread (a Ctrl-C in the main thread does not wait for it). Its notes and
    verification entry are added when its result is taken, after ptxas's: the report reads the same
    whichever finished first."""

    def __init__(self, b: Build) -> None:
        self.b = b
        self.notes: list[str] = []
        self.entry: dict = {}
        self.out: tuple[list[TargetVerdict], str] = ([], "")
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, name="gpuisa-llvm-mc-verify", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            assert self.b.corpus is not None
            self.out = _verify_llvm(self.b, self.b.corpus, self.notes, self.entry)
        except BaseException as exc:      # handed to the main thread by result()
            self.error = exc

    def result(self) -> tuple[list[TargetVerdict], str]:
        self.thread.join()
        if self.error is not None:
            raise self.error
        self.b.notes.extend(self.notes)
        self.b.verification["llvm-mc"] = self.entry
        return self.out


def _verify_llvm(b: Build, corpus: McCorpus, notes: list[str], entry: dict) -> tuple[list[TargetVerdict], str]:
    """Support verdicts from llvm-mc for (instruction, target) pairs the tests leave open (what to note and
    the verification entry go to `notes` and `entry`)."""
    try:
        tool = find_llvm_mc()
    except LlvmMcMissing as exc:
        notes.append(f"verification with llvm-mc skipped: {exc}")
        entry.update({"state": "missing", "note": str(exc), "install": INSTALL_HINT})
        return [], ""
    entry.update({"state": "verified", "tool": tool.label})
    negatives: dict[str, list] = {}
    for neg in corpus.negatives:
        for name in mnemonics(neg.input):
            negatives.setdefault(name, []).append(neg)
    b.step("llvm-mc verification", 0)
    # the verdicts follow from the tests, the tool and this code: kept whole, a warm build asks nothing (even the
    # per-line cache costs ~9 CPU s of choosing examples and looking them up); a tool failure is never kept
    verdicts = parsed_cache.parsed(
        "llvm-mc-verdicts", (tool.version, *ALL_TARGETS, "per_name=2"), [*test_files(b.sources), Path(tool.path)],
        lambda: verify_support(examples_by_mnemonic(corpus.examples), ALL_TARGETS, negatives=negatives, tool=tool,
                               per_name=2, workers=b.jobs),
        keep=lambda found: not any(v.verdict == "tool failed" for v in found))
    b.step("llvm-mc verification", 1)
    return verdicts, tool.label

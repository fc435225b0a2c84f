"""Verify the PTX manual's forms with ptxas: does each form assemble, from which PTX ISA version,
on which targets, and which SASS opcodes does it lower to (cuobjdump).

Why it is cheap: ptxas reports every bad line of a file ("line 812; error: Feature 'clmad.lo'
requires PTX ISA .version 9.3 or later"), so thousands of forms share one file, each in its own
`{ .reg ...; instr; }` block. The stages:

1. operands: find registers ptxas accepts for each form (at .version 9.5, .target sm_100a),
   steering by its complaints ("Vector expected for argument 0", "Arguments mismatch");
2. probe: one file at `.version 1.0` / `.target sm_10` makes ptxas name both minimums
   ("requires PTX ISA .version X", "requires .target sm_XX") for most forms;
3. ladder: forms that are only "not supported on .target" are tried on each target in turn;
4. confirm: each form is assembled at exactly its found minimum (real code generation);
5. undocumented: sibling types the manual does not list (`clmad.lo.s64`) go through 1-4 too;
6. SASS: per target (sm_80, sm_90, sm_100, sm_120, or their a/f variants where only those
   accept the form) a kernel loads the operands, runs the form and stores them; the opcodes it has
   beyond a baseline kernel without the form are the form's lowering.

All runs are cached (gpuisa.verify.ptx_tools.Runner) and spread over the CPU cores.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
import os
import re
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

from gpuisa.model_ptx import PtxErratum, PtxForm, PtxInstruction, PtxManual, PtxVerdict, PtxVerification
from gpuisa.sources.ptx_syntax import example_statements, is_state_space, is_type, split_form
from gpuisa.verify import ptx_operands as po
from gpuisa.verify.ptx_tools import LineCache, Run, Runner, Tools, find_tools

Progress = Callable[[str, int, int], None]

VERSIONS = ("1.0", "1.1", "1.2", "1.3", "1.4", "1.5", "2.0", "2.1", "2.2", "2.3", "3.0", "3.1", "3.2", "4.0",
            "4.1", "4.2", "4.3", "5.0", "6.0", "6.1", "6.2", "6.3", "6.4", "6.5", "7.0", "7.1", "7.2", "7.3",
            "7.4", "7.5", "7.6", "7.7", "7.8", "8.0", "8.1", "8.2", "8.3", "8.4", "8.5", "8.6", "8.7", "8.8",
            "9.0", "9.1", "9.2", "9.3", "9.4", "9.5")
GENERIC = tuple(f"sm_{n}" for n in (10, 11, 12, 13, 20, 21, 30, 32, 35, 37, 50, 52, 53, 60, 61, 62, 70, 72,
                                     75, 80, 86, 87, 88, 89, 90, 100, 103, 107, 110, 120, 121))
SPECIAL = ("sm_90a", "sm_100a", "sm_100f", "sm_103a", "sm_103f", "sm_107a", "sm_107f", "sm_110a",
           "sm_110f", "sm_120a", "sm_120f", "sm_121a", "sm_121f")
SASS_TARGETS = ("sm_80", "sm_90", "sm_100", "sm_120")
MAX_VERSION = VERSIONS[-1]      # the newest PTX ISA this table knows; a tool's own maximum bounds each run
SOLVE_TARGET = "sm_100a"
ALT_SOLVE_TARGETS = ("sm_100a", "sm_90a", "sm_120a", "sm_107a", "sm_103a", "sm_110a", "sm_121a")
LINES_PER_FILE = 2500
MAX_CANDIDATES = 200          # rows tried per operand shape and search round
KERNELS_PER_FILE = 1000       # SASS kernels per ptxas/cuobjdump run (see _Engine.lower)
SMALL_PROBE = 64              # fewer kernels than this are compiled without cuobjdump first (_Engine.lower)
# slices of each search round's candidate rows, asked in turn (ptxas's own fix first, then its nearest
# neighbours): a form solved by an early slice is not rendered or asked with the later ones
WAVES = ((0, 1), (1, 12), (12, 80), (80, None))

_REQUIREMENT = re.compile(r"requires PTX ISA|requires \.target|not supported on \.target|cannot be compiled "
                          r"for architecture|texmode|requires \.target sm_|not supported on target")
# complaints about the operands we built (worth another try); any other complaint that is not a
# version or target requirement is ptxas's verdict on the form itself
_OPERAND = re.compile(r"Arguments mismatch|[Vv]ector expected|vector size mismatch|Vector of size|address operand|"
                      r"Unknown symbol|Illegal vector size|Argument \d+ of instruction|Vector operand is not allowed|"
                      r"Operand vector size|Unexpected number of arguments|Illegal operand|expected to be|"
                      r"State space incorrect|coordinates require|Parsing error|syntax error|Label expected|"
                      r"[Ee]xpected .*(operand|register|vector|label|address)|Too (many|few)|[Mm]issing operand|"
                      r"ptxas stopped before this line|Undefined|not declared|Illegal use of|register expected")
_NEEDS_VERSION = re.compile(r"requires PTX ISA \.version (\d+\.\d+)")
_NEEDS_TARGET = re.compile(r"requires \.target (sm_\d+[af]?)")
_UNSUPPORTED = re.compile(r"not supported on \.target|cannot be compiled for architecture")
_VECTOR_ARG = re.compile(r"Vector expected for argument (\d+)")
# ptxas 13 compiles no 32-bit code: a form that needs it (cvta.u32) parses at .version 9.5 and fails at code generation
_NO_32BIT = ("32-Bit compilation is no longer supported", "32-Bit ABI (--machine 32 or 32-Bit addressing) is not supported")
_SASS_OP = re.compile(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P[T\d]+\s+)?([A-Z][A-Z0-9_.]*)")
_FUNCTION = re.compile(r"Function\s*:\s*(\S+)")
_IGNORED_SASS = {"NOP", "EXIT", "BRA", "RET.ABS.NODEC", "RET.REL.NODEC"}
_MODULE_CALL = "CALL.ABS"        # a call whose setup depends on the other kernels of the file (_Engine.lower)


def crash_message(failed: str) -> str:
    """A crash pinned on one test line: ptxas dies on this form with these operands (a tool bug;
    other operands may pass), not on every file."""
    return f"tool failed: {failed} on this line"




def _chunks(items: list[int], size: int) -> list[list[int]]:
    return [items[i:i + size] for i in range(0, len(items), size)]


def _even_chunks(items: list[str], size: int) -> list[list[str]]:
    """`items` in as few runs of at most `size` as fit, of equal length (no small last file)."""
    n = -(-len(items) // size)
    return [items[i * len(items) // n:(i + 1) * len(items) // n] for i in range(n)]


def _after_fatal(rest: list[int], before: int) -> list[list[int]]:
    """The lines after the one where ptxas gave up parsing (a syntax error), to check again: in pieces of
    `before` (the lines the file held before it; at least 1), as many again, then doubling. Such errors come in
    runs (a form's candidate rows share their shape: 1,000 in a row), and each piece answers at least its first
    line, so a run of n costs about n / log2(len(rest)) rounds, not n rounds re-reading the whole rest; a lone
    error deep in a file leaves the rest in one or two pieces."""
    out: list[list[int]] = []
    size = max(1, before)
    i = 0
    while i < len(rest):
        out.append(rest[i:i + size])
        i += size
        if len(out) >= 2:
            size *= 2
    return out


def _vkey(v: str) -> tuple[int, int]:
    a, _, b = v.partition(".")
    return int(a), int(b or 0)


@functools.lru_cache(maxsize=1024)
def _tnum(t: str) -> int:
    return int(re.sub(r"\D", "", t.split("_", 1)[1]))


def _arch(target: str, parse_only: bool) -> str:
    n = _tnum(target)
    suffix = target[-1] if target[-1] in "af" else ""
    if n < 75:
        return "compute_75" if parse_only else "sm_75"
    return (f"compute_{n}{suffix}" if parse_only else f"sm_{n}{suffix}")


# ---------------------------------------------------------------- cases

@dataclass(slots=True)
class _Case:
    """One form under test, with the operand rendering found for it."""

    key: tuple[str, str]
    form: PtxForm
    instr: PtxInstruction
    ops: list[po.Op]
    choices: list[po.Choice]
    documented: bool = True
    line: str = ""
    rendered: po.Rendered | None = None
    state: str = "solving"          # solving, typed, rejected
    message: str = ""
    feature_version: str = "1.0"
    min_target: str | None = None
    unsupported: bool = False
    accepted: tuple[str, ...] = ()
    version: str | None = None
    sm: tuple[str, ...] = ()
    confirmed: bool = False
    sass: dict[str, tuple[str, ...]] = field(default_factory=dict)
    variants: list[tuple[list[po.Op], list[po.Choice]]] = field(default_factory=list)
    first_message: str = ""         # what ptxas said at the main solve target
    excluded: str = ""              # a combination the manual's prose forbids: the rule (only asked, never a form)
    parent: tuple[str, str] | None = None   # an undocumented sibling: the documented form whose operands it takes
    solved_at: tuple[str, str] | None = None  # (version, target) where its operands drew no complaint


def _operand_text(form: PtxForm, instr: PtxInstruction) -> str:
    """Operands to use: the form's own syntax line, else a syntax line of the same name."""
    if form.origin == "syntax" or not instr.forms:
        return form.operands
    for f in instr.forms:
        if f.origin == "syntax" and f.name == form.name:
            return f.operands
    return form.operands


def _make_case(instr: PtxInstruction, form: PtxForm, documented: bool = True) -> _Case:
    fixed = po.fixed_operands(form.name)
    ops = fixed or _syntax_ops(_operand_text(form, instr))
    case = _Case((instr.section, form.form), form, instr, ops,
                 po.first_choices(ops, form.types, form.modifiers, form.name), documented)
    case.variants = [(ops, case.choices), *([] if fixed else _example_variants(instr, form))]
    return case


# An instruction's forms share their syntax line and examples: each operand text is parsed once (~15,000 forms read
# the same few hundred texts; parsing them for every form cost ~4 CPU s). The parsed operands are never changed.
@functools.lru_cache(maxsize=8192)
def _syntax_ops(text: str) -> list[po.Op]:
    return po.parse_operands(text)


@functools.lru_cache(maxsize=65536)
def _split_example(mnemonic: str, names: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
    return split_form(mnemonic, names)


@functools.lru_cache(maxsize=16384)
def _example_ops(operands: str, code: str) -> list[po.Op]:
    return po.example_ops(operands, _statements(code)[0])


@functools.lru_cache(maxsize=65536)
def _example_choices(operands: str, code: str, types: tuple[str, ...], modifiers: tuple[str, ...],
                     name: str) -> tuple[po.Choice, ...]:
    return tuple(po.first_choices(_example_ops(operands, code), types, modifiers, name))


@functools.lru_cache(maxsize=8192)
def _statements(code: str) -> tuple[dict[str, str], tuple[tuple[str, str], ...]]:
    """example_statements of one example block, parsed once (every form of an instruction reads all its
    examples: 20,000 parses of the same blocks cost ~8 CPU s); the declarations are only read."""
    decls, stmts = example_statements(code)
    return decls, tuple(stmts)


def _example_variants(instr: PtxInstruction, form: PtxForm) -> list[tuple[list[po.Op], list[po.Choice]]]:
    """Operand shapes from the manual's examples of the same instruction, closest forms first."""
    scored: list[tuple[int, int, str, str]] = []
    mods = set(form.modifiers)
    for n, code in enumerate(instr.examples):
        _, stmts = _statements(code)
        for mnemonic, operands in stmts:
            name, emods = _split_example(mnemonic, instr.names)
            if name != form.name or not operands:
                continue
            score = len(mods & set(emods)) * 2 - len(set(emods) - mods) + (100 if mnemonic == form.form else 0)
            scored.append((score, -n, operands, code))
    scored.sort(key=lambda x: (x[0], x[1]), reverse=True)
    out: list[tuple[list[po.Op], list[po.Choice]]] = []
    seen: set[str] = set()
    for _, _, operands, code in scored:
        if operands in seen:
            continue
        seen.add(operands)
        if re.search(r"[\w%]\s+[\w%{\[]", re.sub(r"\s*[+-]\s*", "+", operands)):
            continue                            # a manual typo (`ishrdany sptr`): no usable shape
        out.append((_example_ops(operands, code),
                    list(_example_choices(operands, code, form.types, form.modifiers, form.name))))
        if len(out) == 2:
            break
    return out


# ---------------------------------------------------------------- files

_MODULE = [".global .align 16 .b8 gmem[4096];", ".global .texref tex0;", ".global .surfref surf0;",
           ".func gpuisa_f() { ret; }",
           ".const .align 16 .b8 cmem[256];"]


def _header(version: str, handles: bool = False) -> list[str]:
    """Module-scope lines valid at `version` (.address_size from 2.3, opaque types from 1.5), so a
    file at an old version fails only for its test lines. `handles`: declare the texture and
    surface references even before 1.5 (a parse-only check then still reads each line's own
    requirements, "Feature 'txq' requires PTX ISA .version 1.5", instead of "Unknown symbol")."""
    v = _vkey(version)
    head = [".address_size 64"] if v >= (2, 3) else []
    head += [m for m in _MODULE if v >= (1, 5) or handles or "ref " not in m]
    return head


def _test_file(lines: list[str], version: str, target: str, handles: bool = False) -> tuple[str, int]:
    head = [f".version {version}", f".target {target}", *_header(version, handles),
            ".visible .entry k()", "{", ".shared .align 16 .b8 smem[4096];"]
    return "\n".join(head + lines + ["ret;", "}", ""]), len(head)


def tool_versions(tools: Tools) -> tuple[str, ...]:
    """PTX ISA versions this ptxas can judge: the known ones up to its own maximum (its answer to
    `.version 99.9`), plus that maximum when it is newer than this table."""
    top = tools.max_ptx or MAX_VERSION
    out = [v for v in VERSIONS if _vkey(v) <= _vkey(top)]
    return tuple(out if top in out else [*out, top])


def tool_targets(tools: Tools) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(generic, arch/family-specific) .target values this ptxas can compile: the known ones whose
    -arch it lists in --help, plus any newer sm_N it lists that this table lacks."""
    listed = {a for a in tools.archs if a.startswith("sm_")}

    def ok(t: str) -> bool:
        return tools.knows_arch(_arch(t, False)) and tools.knows_arch(_arch(t, True))

    generic = {t for t in GENERIC if ok(t)} | {t for t in listed if t[-1].isdigit()}
    special = {t for t in SPECIAL if ok(t)} | {t for t in listed if t[-1] in "af"}
    return tuple(sorted(generic, key=_tnum)), tuple(sorted(special, key=lambda t: (_tnum(t), t)))


class _Engine:
    """Runs batches of test lines through ptxas, concurrently and with the runner's cache, within
    what this ptxas knows (its highest PTX ISA version and its targets)."""

    def __init__(self, runner: Runner, workers: int, progress: Progress | None) -> None:
        self.runner = runner
        self.workers = max(1, workers)
        self.progress = progress
        self._target_versions: dict[str, str] = {}
        self._broken: dict[tuple[str, str, bool, bool], bool] = {}
        # what ptxas said about each line it checked, per (line, version, target, parse-only): operand rounds
        # try a row again, later stages ask about the same line; and the errors of the files' own header
        self._answers: dict[bytes, tuple[str, ...]] = {}
        self._headers: dict[tuple[str, str, bool], list[str]] = {}
        self.lines = LineCache(runner.cache) if runner.use_cache else None      # the same, kept across runs
        self.versions = tool_versions(runner.tools)
        self.max_version = self.versions[-1]
        self.generic, self.special = tool_targets(runner.tools)
        self._pool: ThreadPoolExecutor | None = None
        # rows rendered, per (form, operand list): the searches at other targets ask many of the same rows again
        # (294,000 renderings of 126,000 rows); each entry keeps its operand list alive, so its id stays its own
        self._rendered: dict[tuple[str, int, tuple[po.Choice, ...]], tuple[list[po.Op], po.Rendered | None]] = {}

    def render(self, form: str, ops: list[po.Op], row: tuple[po.Choice, ...]) -> po.Rendered | None:
        """po.render of a candidate row, None where the row does not fit the operands."""
        key = (form, id(ops), row)
        known = self._rendered.get(key)
        if known is None:
            try:
                known = ops, po.render(form, ops, list(row))
            except (IndexError, ValueError):
                known = ops, None
            self._rendered[key] = known
        return known[1]

    def close(self) -> None:
        self._rendered.clear()
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None
        if self.lines is not None:
            self.lines.close()

    def _map(self, jobs: list[tuple[str, str, bool]], stage: str) -> list[Run]:
        out: list[Run | None] = [None] * len(jobs)

        def one(i: int) -> tuple[int, Run]:
            text, arch, sass = jobs[i]
            return i, self.runner.compile(text, arch, sass, keep=self.lines is None)

        # the longest files first (their length is what they cost): a wave of unequal files then ends with short
        # ones on every core, not with one long file running alone
        order = sorted(range(len(jobs)), key=lambda i: -len(jobs[i][0]))
        if self._pool is None:      # one pool for the whole run (a new one per batch started ~2,500 threads)
            self._pool = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="gpuisa-ptxas")
        for done, (i, run) in enumerate(self._pool.map(one, order), 1):
            out[i] = run
            if self.progress:
                self.progress(stage, done, len(jobs))
        return [r for r in out if r is not None]

    def check(self, lines: list[str], version: str, target: str, stage: str,
              parse_only: bool = True) -> tuple[list[list[str]], list[str]]:
        """Messages per line (empty: accepted), and errors outside the lines (header).

        A syntax error stops ptxas's parse, leaving the lines after it unchecked: those are
        checked again in a file of their own until every line has its answer.
        """
        per_line: list[list[str] | None] = [None] * len(lines)
        setting = (version, target, parse_only)
        mode = self._mode("check", version, target, parse_only)
        keys = [LineCache.key(mode, line) for line in lines]
        known = self._recall(keys, mode, setting)
        header: list[str] = list(self._headers.get(setting, ()))
        todo: list[int] = []
        for k, key in enumerate(keys):       # a line's messages do not depend on the lines around it
            if key in known:
                per_line[k] = list(known[key])
            else:
                todo.append(k)
        chunks = _chunks(todo, LINES_PER_FILE)
        while chunks:
            jobs = [(_test_file([lines[k] for k in chunk], version, target, True)[0], _arch(target, parse_only),
                     False) for chunk in chunks]
            runs = self._map(jobs, stage)
            _, offset = _test_file([], version, target, True)
            again: list[list[int]] = []
            split: list[list[int]] = []
            for chunk, run in zip(chunks, runs, strict=True):
                if run.failed and "crashed" in run.failed and not self.broken(version, target, parse_only, True):
                    if len(chunk) > 1:          # ptxas dies on some line: halve until it is one line
                        split += [chunk[:len(chunk) // 2], chunk[len(chunk) // 2:]]
                    else:
                        per_line[chunk[0]] = [crash_message(run.failed)]
                    continue
                if run.failed:
                    for k in chunk:
                        per_line[k] = [f"tool failed: {run.failed}"]
                    continue
                fatal_at = min((ln for ln in run.fatal_lines if offset < ln <= offset + len(chunk)), default=None)
                stopped = [h for ln in run.fatal_lines if not offset < ln <= offset + len(chunk)
                           for h in run.messages.get(ln, [])]
                rest: list[int] = []
                for pos, k in enumerate(chunk):
                    ln = offset + 1 + pos
                    if stopped:
                        per_line[k] = ["ptxas stopped before this line: " + stopped[0]]
                    elif fatal_at is not None and ln > fatal_at:
                        rest.append(k)
                    else:
                        per_line[k] = run.messages.get(ln, [])
                if fatal_at is not None and rest:
                    again += _after_fatal(rest, fatal_at - offset - 1)
                for ln, msgs in run.messages.items():
                    if not offset < ln <= offset + len(chunk):
                        header.extend(msgs)
                header.extend(run.header_errors)
                if run.rc != 0 and not any(run.messages.values()) and not run.header_errors:
                    header.append("ptxas failed without a message")
            chunks = split + again                 # halves of a crashed file stay apart
        header = list(dict.fromkeys(header))
        if todo:
            self._headers[setting] = header
            self._remember([(keys[k], per_line[k]) for k in todo], (LineCache.key(mode, ""), header))
        return [m or [] for m in per_line], header

    def _mode(self, stage: str, version: str, target: str, parse_only: bool) -> str:
        """What a line's answer depends on besides itself: the check, the arch and the file's header."""
        return f"{stage}\0{_arch(target, parse_only)}\0{_test_file([], version, target, stage == 'check')[0]}"

    def _recall(self, keys: list[bytes], mode: str,
                setting: tuple[str, str, bool] | None = None) -> dict[bytes, tuple[str, ...]]:
        """Answers known for these lines, in memory or on disk (with the errors of their file's header,
        which are stored with them)."""
        known = {k: self._answers[k] for k in keys if k in self._answers}
        missing = [k for k in dict.fromkeys(keys) if k not in known]
        if missing and self.lines is not None:
            header_key = LineCache.key(mode, "")
            stored = self.lines.get_many([*missing, header_key])
            header = stored.pop(header_key, None)
            if stored and header is not None:
                self._answers.update(stored)
                known.update(stored)
                if setting is not None:
                    self._headers[setting] = list(dict.fromkeys([*self._headers.get(setting, ()), *header]))
        return known

    def _remember(self, answers: list[tuple[bytes, list[str] | None]], header: tuple[bytes, list[str]]) -> None:
        """Keep final answers (not "ptxas stopped before this line", not a tool failure of a whole file)."""
        rows = [(k, tuple(got)) for k, got in answers if got is not None and not any(
            m.startswith(("ptxas stopped before", "tool failed: ", "not proven")) and not m.endswith(" on this line")
            for m in got)]
        self._answers.update(rows)
        if self.lines is not None and rows:
            self.lines.put_many([*rows, (header[0], tuple(header[1]))])

    def prove(self, lines: list[str], version: str, target: str, stage: str) -> list[list[str]]:
        """Assemble (with code generation) until every line is either in a file ptxas accepts
        (exit status 0: proven, empty list) or has messages of its own. ptxas sometimes leaves a
        bad line unreported in a large file, so a missing message alone proves nothing."""
        result: list[list[str] | None] = [None] * len(lines)
        mode = self._mode("prove", version, target, False)
        keys = [LineCache.key(mode, line) for line in lines]
        known = self._recall(keys, mode)
        for k, key in enumerate(keys):
            if key in known:
                result[k] = list(known[key])
        asked = [k for k in range(len(lines)) if result[k] is None]
        todo = [asked] if asked else []
        while todo:
            groups = [g[i:i + 400] for g in todo for i in range(0, len(g), 400)]
            jobs = [(_test_file([lines[k] for k in g], version, target)[0], _arch(target, False), False)
                    for g in groups]
            runs = self._map(jobs, stage)
            _, offset = _test_file([], version, target)
            todo = []
            for g, run in zip(groups, runs, strict=True):
                if run.failed and "crashed" in run.failed and not self.broken(version, target, False, False):
                    if len(g) > 1:              # ptxas dies on some line: halve until it is one line
                        todo += [g[:len(g) // 2], g[len(g) // 2:]]
                    else:
                        result[g[0]] = [crash_message(run.failed)]
                    continue
                if run.failed:
                    for k in g:
                        result[k] = [f"tool failed: {run.failed}"]
                    continue
                if run.rc == 0:
                    for k in g:
                        result[k] = []
                    continue
                rest = []
                for pos, k in enumerate(g):
                    msgs = run.messages.get(offset + 1 + pos, [])
                    if msgs:
                        result[k] = msgs
                    else:
                        rest.append(k)
                if len(rest) == len(g):                 # nothing pinned on a line: split and retry
                    if len(g) == 1:
                        result[g[0]] = [*(run.header_errors or []), *(
                            m for ln, ms in run.messages.items() for m in ms)] or ["ptxas failed without a message"]
                    else:
                        todo += [g[:len(g) // 2], g[len(g) // 2:]]
                elif rest:
                    todo.append(rest)
        if asked:
            self._remember([(keys[k], result[k]) for k in asked], (LineCache.key(mode, ""), []))
        return [r if r is not None else ["not proven"] for r in result]

    def lower(self, kernels: dict[str, list[str]], version: str, stage: str = "sass"
              ) -> dict[tuple[str, str], tuple[str, ...] | None]:
        """SASS opcodes of each kernel (named `k`) per .target, None where ptxas refuses or dies on it.

        Each cuobjdump call costs ~0.3 CPU s before it reads a byte (it starts nvdisasm per cubin), and
        ptxas ~1.5 ms per kernel, so a target's kernels go in a few large files. A kernel's SASS does not
        depend on the kernels beside it (except absolute calls, below), so each is kept on its own (keyed by
        target, file header and text): a changed form list lowers only its new kernels.

        ptxas refuses a bad kernel while parsing, so such a file fails cheaply: the kernels its messages point
        at are dropped and the rest assembled again. A file that fails with no line named (ptxas 13.5's
        internal compiler error on `ld.v8.u8` from sm_90 on) is halved until the kernel causing it stands
        alone; halves under SMALL_PROBE kernels are only compiled (no cuobjdump) and their good kernels
        lowered together afterwards. The targets go in order of their number, and a kernel that failed on an
        earlier one is tried apart from the others (the same forms fail on sm_90, sm_100 and sm_120). A
        timeout, or cuobjdump failing, gives up that file's kernels without keeping anything.
        """
        out: dict[tuple[str, str], tuple[str, ...] | None] = {}
        modes = {t: f"sass\0{_arch(t, False)}\0{_sass_file(t, [], version)}" for t in kernels}
        suspects: set[str] = set()                  # kernels ptxas refused or died on, on an earlier target
        fresh: dict[str, list[str]] = {}            # kernels lowered by this call (not from the cache)
        for number in sorted({_tnum(t) for t in kernels}):
            work: list[tuple[str, list[str], str]] = []
            for t in sorted(t for t in kernels if _tnum(t) == number):
                bodies = kernels[t]
                keys = [LineCache.key(modes[t], k) for k in bodies]
                known = self.lines.get_many(keys) if self.lines is not None else {}
                todo = []
                for body, key in zip(bodies, keys, strict=True):
                    if key in known:
                        ops = known[key]
                        out[(t, body)] = None if ops[:1] == ("!",) else ops
                    else:
                        todo.append(body)
                if todo and self.runner.compile(_sass_file(t, [], version), _arch(t, False)).rc != 0:
                    out.update({(t, body): None for body in todo})     # ptxas takes no file for this target
                    continue
                fresh[t] = todo
                risky = [k for k in todo if k in suspects]
                work += [(t, chunk, "sass") for chunk in _even_chunks([k for k in todo if k not in suspects],
                                                                      KERNELS_PER_FILE)]
                work += [(t, chunk, "probe") for chunk in _even_chunks(risky, SMALL_PROBE)]
            suspects |= self._lower_files(work, version, modes, out, stage)
        # an absolute call (a texture or tensor-copy form's driver routine) is set up differently when another
        # kernel of the file queries a texture (txq): such kernels are lowered again in a file of their own kind
        calls = [(t, [k for k in bodies if any(op.startswith(_MODULE_CALL) for op in out.get((t, k)) or ())], "final")
                 for t, bodies in sorted(fresh.items())]
        self._lower_files([job for job in calls if job[1]], version, modes, out, f"{stage} (calls)")
        return out

    def _lower_files(self, work: list[tuple[str, list[str], str]], version: str, modes: dict[str, str],
                     out: dict[tuple[str, str], tuple[str, ...] | None], stage: str) -> set[str]:
        """Run (target, kernels, how) files until every kernel has its answer in `out`; the kernels ptxas
        refused or died on. how: "sass" (with cuobjdump), "probe" (compiled only; the good kernels are lowered
        together at the end), "final" (that last run: with cuobjdump, its halves too)."""
        refused: set[str] = set()
        kept: list[tuple[bytes, tuple[str, ...]]] = []      # answers for the disk cache (a failure: "!", why)
        clean: dict[str, list[str]] = {}                    # compiled without SASS, to lower together

        def settle(t: str, body: str, ops: tuple[str, ...] | None, keep: tuple[str, ...] | None) -> None:
            out[(t, body)] = ops
            if keep is not None:
                kept.append((LineCache.key(modes[t], body), keep))
            if keep is not None and ops is None:
                refused.add(body)

        attempt = 0
        while work or clean:
            if not work:
                work = [(t, chunk, "final") for t, bodies in sorted(clean.items())
                        for chunk in _even_chunks(bodies, KERNELS_PER_FILE)]
                clean = {}
            texts, spans = [], []
            for t, chunk, how in work:
                named = [k.replace(".entry k(", f".entry k{i}(", 1) for i, k in enumerate(chunk)]
                lines = [k.count("\n") + 1 for k in named]
                starts = list(itertools.accumulate([1 + _sass_file(t, [], version).count("\n"), *lines[:-1]]))
                spans.append([(lo, lo + n - 1) for lo, n in zip(starts, lines, strict=True)])
                texts.append((_sass_file(t, named, version), _arch(t, False), how != "probe"))
            runs = self._map(texts, stage if attempt == 0 else f"{stage} (retry {attempt})")
            attempt += 1
            again: list[tuple[str, list[str], str]] = []
            for (t, chunk, how), run, span in zip(work, runs, spans, strict=True):
                if run.rc == 0 and not run.failed and how == "probe":
                    clean.setdefault(t, []).extend(chunk)
                    continue
                if run.rc == 0 and not run.failed:
                    funcs = parse_sass(run.sass) if run.sass else {}
                    for i, body in enumerate(chunk):      # no listing (cuobjdump failed): nothing kept
                        ops = funcs.get(f"k{i}")
                        settle(t, body, None if ops is None else tuple(ops), None if ops is None else tuple(ops))
                    continue
                if run.failed and "crashed" not in run.failed:    # a hang or a silent exit: not the kernels' fault
                    for body in chunk:
                        settle(t, body, None, None)
                    continue
                bad = {i for i, (lo, hi) in enumerate(span) if any(lo <= ln <= hi for ln in run.messages)}
                if bad:
                    for i in sorted(bad):
                        msgs = [m for ln in range(span[i][0], span[i][1] + 1) for m in run.messages.get(ln, [])]
                        settle(t, chunk[i], None, ("!", *msgs))
                    rest = [k for i, k in enumerate(chunk) if i not in bad]
                    if rest:
                        again.append((t, rest, how))
                elif len(chunk) > 1:
                    half = len(chunk) // 2
                    small = how == "probe" or (how == "sass" and half < SMALL_PROBE)
                    again += [(t, part, "probe" if small else how) for part in (chunk[:half], chunk[half:])]
                else:                                  # this kernel alone kills ptxas (internal error, crash)
                    settle(t, chunk[0], None, ("!", run.failed or "; ".join(run.header_errors) or "failed"))
            if self.lines is not None and kept:
                self.lines.put_many(kept)
            kept.clear()
            work = again
        return refused

    def broken(self, version: str, target: str, parse_only: bool, handles: bool) -> bool:
        """Whether ptxas fails on a file with no test lines: then it fails on everything, and a
        crash says nothing about any one line (otherwise a crash is pinned on the line causing it)."""
        key = (version, target, parse_only, handles)
        if key not in self._broken:
            text, _ = _test_file([], version, target, handles)
            self._broken[key] = bool(self.runner.compile(text, _arch(target, parse_only)).failed)
        return self._broken[key]

    def target_version(self, target: str, documented: dict[str, str]) -> str:
        """Lowest .version whose header ptxas accepts with `.target target`."""
        if target in self._target_versions:
            return self._target_versions[target]
        start = documented.get(target.rstrip("+"), "1.0")
        idx = self.versions.index(start) if start in self.versions else 0
        found = self.max_version
        for v in self.versions[idx:]:
            text, _ = _test_file([], v, target)
            run = self.runner.compile(text, _arch(target, True))
            if not any("does not support .target" in m or "Unsupported .target" in m
                       for msgs in run.messages.values() for m in msgs) and not any(
                    "Unsupported .target" in h for h in run.header_errors):
                found = v
                break
        self._target_versions[target] = found
        return found


# ---------------------------------------------------------------- stage 1: operands

def _wrong_target(msgs: list[str]) -> bool:
    """ptxas skips or garbles operand checks on a target without the instruction, or calls one of
    its modifiers illegal "for arch 'sm_90a'": search elsewhere."""
    return any("for arch" in m for m in msgs) or (any(_UNSUPPORTED.search(m) for m in msgs) and any(
        not _REQUIREMENT.search(m) and "for arch" not in m for m in msgs))


def _classify(msgs: list[str]) -> str:
    """ok (only requirement messages), definitive (the form itself is wrong), operands."""
    if all(_REQUIREMENT.search(m) for m in msgs):
        return "ok"
    if any(_is_definitive(m) for m in msgs):
        return "definitive"
    return "operands"


# ptxas's words about the form's own types (texture geometry vs coordinate type): the form is wrong,
# whatever the operands; matched before _OPERAND, whose "coordinates require" they also contain
_FORM_WRONG = re.compile(r"Floating-point coordinates required|Integer coordinates require \.s32|"
                         r"Incorrect type '.*' for operation|Illegal modifier 'Multi-sample geometry'")


@functools.lru_cache(maxsize=65536)
def _is_definitive(msg: str) -> bool:
    if _FORM_WRONG.search(msg):
        return True
    return (not msg.startswith("tool failed") and not _REQUIREMENT.search(msg) and not _OPERAND.search(msg)
            and "for arch" not in msg)


_VECTOR_SIZE = re.compile(r"Vector of size (\d+) is expected for argument (\d+)")
_EXPECTED_VALUE = re.compile(r"Argument (\d+) of instruction .*expected to be (-?\w+)")


def _badness(msgs: list[str]) -> int:
    """How far a line is from acceptable: vague complaints weigh more than precise ones."""
    score = 0
    for m in msgs:
        if _REQUIREMENT.search(m):
            continue
        score += 1 if "size" in m.lower() else 2 if "expected" in m.lower() else 3
    return score


def _guided(base: list[po.Choice], msgs: list[str]) -> tuple[list[po.Choice], list[int]]:
    """Apply the fixes ptxas spells out; return the row and the arguments that want a vector."""
    row = list(base)
    want_vec: set[int] = set()
    for m in msgs:
        if (x := _VECTOR_SIZE.search(m)) and int(x.group(2)) < len(row):
            i = int(x.group(2))
            cls = row[i].cls if row[i].kind in ("reg", "vec") else "b32"
            row[i] = po.Choice("vec", cls=cls, length=int(x.group(1)))
        elif (x := _VECTOR_ARG.search(m)) and int(x.group(1)) < len(row):
            want_vec.add(int(x.group(1)))
        elif "Result vector expected" in m and row:
            want_vec.add(0)
        elif (x := _EXPECTED_VALUE.search(m)) and int(x.group(1)) < len(row):
            row[int(x.group(1))] = po.Choice("lit", text=x.group(2))
        elif "as address operand" in m:
            row = [po.Choice("mem", mem="reg32", length=c.length) if c.kind == "mem" else c for c in row]
    if any("vector size mismatch" in m.lower() for m in msgs):
        want_vec |= {i for i, c in enumerate(row) if c.kind == "vec"}
    return row, sorted(i for i in want_vec if row[i].kind != "vec" or not _VECTOR_SIZE.search(" ".join(msgs)))


def _shape_lengths(modifiers: tuple[str, ...]) -> list[int]:
    """Fragment sizes a matrix shape suggests (.m64n160k16 -> 40, 80, ...), plus powers of two."""
    out = [16, 32, 64, 128]
    for m in modifiers:
        x = re.fullmatch(r"\.m(\d+)n(\d+)(?:k(\d+))?", m)
        if x:
            mm, nn, kk = int(x.group(1)), int(x.group(2)), int(x.group(3) or 1)
            for prod in (mm * nn, mm * kk, nn * kk):
                for div in (128, 256, 64, 32, 512):
                    if prod % div == 0 and 1 <= prod // div <= 256:
                        out.append(prod // div)
    return list(dict.fromkeys(out))


def _candidates(case: _Case, ops: list[po.Op], base: list[po.Choice], msgs: list[str],
                round_no: int) -> Iterator[list[po.Choice]]:
    """Rows to try next: ptxas's own hints first, then vector shapes, then one or two changes (lazily:
    a form solved by the first few is never given the rest)."""
    fixed, vec_args = _guided(base, msgs)
    shape = tuple(n for n in _shape_lengths(case.form.modifiers)[4:] if n > 4)
    if not vec_args and shape and round_no == 1:       # matrix fragments: try every register operand as a vector
        vec_args = [i for i, (op, ch) in enumerate(zip(ops, fixed, strict=True))
                    if op.kind in ("name", "vec") and ch.kind in ("reg", "vec") and ch.cls != "pred"][:4]
    classes = ["b32"] + [c for c in ("b64", "b16") if c in {po.type_class(t) for t in case.form.types}]
    vectors: Iterable[list[po.Choice]] = ()
    if vec_args:
        vectors = itertools.islice(_vector_rows(case, fixed, vec_args, classes), 3 * MAX_CANDIDATES - 1)
    singles: list[tuple[int, po.Choice]] = [
        (i, alt) for i, (op, ch) in enumerate(zip(ops, fixed, strict=True))
        for alt in po.alternatives(op, ch, shape if i == 0 else ())]
    changes = itertools.islice(_change_rows(fixed, singles, round_no), MAX_CANDIDATES - (0 if vec_args else 1))
    return itertools.chain([fixed], vectors, changes)


def _vector_rows(case: _Case, fixed: list[po.Choice], vec_args: list[int],
                 classes: list[str]) -> Iterable[list[po.Choice]]:
    """Rows giving the vector arguments small lengths, then the matrix shape's fragment sizes (lazily: the
    caller takes only the first few hundred)."""
    small = (1, 2, 4, 8) if len(vec_args) > 2 else (1, 2, 4, 8, 16)
    for cls in classes:
        for lengths in itertools.product(small, repeat=len(vec_args)):
            row = list(fixed)
            for a, n in zip(vec_args, lengths, strict=True):
                row[a] = po.Choice("vec", cls=cls, length=n)
            yield row
        for n in _shape_lengths(case.form.modifiers):
            for rest in (1, 2, 4):
                row = list(fixed)
                row[vec_args[0]] = po.Choice("vec", cls=cls, length=n)
                for a in vec_args[1:]:
                    row[a] = po.Choice("vec", cls=cls, length=rest)
                yield row


def _change_rows(fixed: list[po.Choice], singles: list[tuple[int, po.Choice]],
                 round_no: int) -> Iterable[list[po.Choice]]:
    """Rows changing one operand, then every register to one class, then (from round 2) two operands."""
    for i, alt in singles:
        row = list(fixed)
        row[i] = alt
        yield row
    for cls in po.CLASSES:
        yield [po.Choice("reg", cls=cls) if c.kind == "reg" else c for c in fixed]
    if round_no >= 2 and len(singles) <= 60:
        for (i, a), (j, b) in itertools.combinations(singles, 2):
            if i != j:
                row = list(fixed)
                row[i], row[j] = a, b
                yield row


def _group_key(c: _Case, vi: int) -> tuple:
    """Forms that share an operand search: same section, operand shape, types and matrix shape
    (`wmma.mma...row.col...` and `...col.row...` need the same registers)."""
    ops = (c.variants or [(c.ops, c.choices)])[vi][0]
    return (c.key[0], vi, tuple((o.kind, o.text, len(o.elems)) for o in ops), c.form.types,
            _shape_modifiers(c.form.modifiers))


@functools.lru_cache(maxsize=16384)
def _shape_modifiers(modifiers: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(m for m in modifiers if _SHAPE_MODIFIER.fullmatch(m))


_SHAPE_MODIFIER = re.compile(r"\.m\d+n\d+(k\d+)?|\.v\d+|\.x\d+|\.num")


def _documented_target(c: _Case, engine: _Engine) -> tuple[str, str]:
    """Where to search operands first: the arch-specific variant of the documented minimum target
    (ptxas checks operands fully only where the instruction exists), else sm_100a."""
    for t in c.form.documented_sm:
        m = re.match(r"sm_(\d+)", t)
        if m and int(m.group(1)) >= 90:
            n = int(m.group(1))
            arch = f"sm_{n}a"
            if arch in engine.special:
                return engine.max_version, arch
    return engine.max_version, SOLVE_TARGET if SOLVE_TARGET in engine.special else engine.generic[-1]


def _solve(cases: list[_Case], engine: _Engine, at: Callable[[_Case], tuple[str, str]] | None = None,
           parse_only: bool = True) -> None:
    """Find, for each case, operand registers that draw no operand complaint from ptxas
    (`parse_only=False`: with code generation, where ptxas may crash on operands it parsed).

    A greedy search per operand shape (the syntax line's, and those of the closest examples):
    each round tries candidates built on that shape's best row so far (fewest, most precise
    complaints), so the fixes ptxas asks for accumulate across rounds.
    """
    if at is None:
        def at(c: _Case) -> tuple[str, str]:
            return _documented_target(c, engine)
    where: dict[tuple[str, str], tuple[str, str]] = {}     # at(c), asked once per case (for each of its rows)
    pending = [c for c in cases if c.state == "solving"]
    Best = tuple[int, list[po.Choice], list[str]]
    best: dict[tuple[tuple[str, str], int], Best] = {}
    last_improved: set[tuple[tuple[str, str], int]] = set()
    solutions: dict[tuple, list[list[po.Choice]]] = {}
    tried_solutions: set[tuple[tuple[str, str], int]] = set()
    searched: dict[tuple[tuple[str, str], int], int] = {}
    asked: dict[tuple[tuple[str, str], int], set] = {}   # rows and lines tried per case and operand shape: an answer
    for round_no in range(8):                                 # does not change, so a row is tried once
        if not pending:
            return
        plans: list[tuple[_Case, int, list[po.Op], Iterator[list[po.Choice]]]] = []
        leaders: dict[tuple, _Case] = {}
        for c in pending:
            variants = c.variants or [(c.ops, c.choices)]
            for vi, (ops, first) in enumerate(variants):
                group = _group_key(c, vi)
                sol = solutions.get(group, [])
                mine = (c.key, vi)
                if round_no == 0:
                    rows = iter([first])
                elif sol and mine not in tried_solutions:
                    rows = iter(sol[:4])                 # a sibling form's answer first
                    tried_solutions.add(mine)
                elif mine in best and (searched.get(mine, 0) < 2 or mine in last_improved) and (
                        best[mine][0] <= min(best[(c.key, k)][0] for k in range(len(variants)) if (c.key, k) in best)):
                    if not sol and leaders.setdefault(group, c) is not c:
                        continue                          # siblings wait for the leader's answer
                    searched[mine] = searched.get(mine, 0) + 1
                    _, row, msgs = best[mine]
                    rows = _candidates(c, ops, row, msgs, searched[mine])
                else:
                    continue
                plans.append((c, vi, ops, rows))
        solved: set[tuple[str, str]] = set()
        improved: set[tuple[tuple[str, str], int]] = set()
        for lo, hi in WAVES:                     # the likeliest rows first: a form solved early skips the rest
            batches: dict[tuple[str, str], list[tuple[_Case, int, list[po.Choice], po.Rendered]]] = {}
            for c, vi, ops, rows in plans:
                if c.key in solved:
                    continue
                seen = asked.setdefault((c.key, vi), set())
                for row in itertools.islice(rows, None if hi is None else hi - lo):
                    row_key = tuple(row)
                    if row_key in seen:
                        continue
                    seen.add(row_key)
                    r = engine.render(c.form.form, ops, row_key)
                    if r is None or r.text in seen:
                        continue
                    seen.add(r.text)
                    setting = where.get(c.key) or where.setdefault(c.key, at(c))
                    batches.setdefault(setting, []).append((c, vi, row, r))
            for (version, target), batch in sorted(batches.items()):
                msgs, _ = engine.check([po.block(r) for _, _, _, r in batch], version, target,
                                       f"operands {round_no + 1}", parse_only)
                for (c, vi, row, r), m in zip(batch, msgs, strict=True):
                    if c.key in solved:
                        continue
                    if _classify(m) == "ok":
                        c.choices, c.rendered, c.line, c.state = row, r, po.block(r), "typed"
                        c.solved_at = (version, target)
                        c.ops = (c.variants or [(c.ops, c.choices)])[vi][0]
                        solved.add(c.key)
                        solutions.setdefault(_group_key(c, vi), []).append(row)
                        continue
                    score = _badness(m)
                    if (c.key, vi) not in best or score < best[(c.key, vi)][0]:
                        best[(c.key, vi)] = (score, row, m)
                        improved.add((c.key, vi))
        still: list[_Case] = []
        for c in pending:
            if c.key in solved:
                continue
            tried = [best[(c.key, vi)] for vi in range(len(c.variants or [0])) if (c.key, vi) in best]
            if round_no == 0 and tried:
                definitive = [b for b in tried if _classify(b[2]) == "definitive"]
                m = (definitive or [min(tried, key=lambda b: b[0])])[0][2]
                c.message = "; ".join(dict.fromkeys(m))
                c.first_message = c.first_message or c.message
                if all(_classify(b[2]) == "definitive" or _wrong_target(b[2]) for b in tried) or not c.ops:
                    c.state = "rejected"              # settled here, or left to another solve target
                    continue
            still.append(c)
        pending = still
        last_improved = improved
    for c in pending:
        c.state = "rejected"
        c.message = c.message or "no operand registers found that ptxas accepts"


# ---------------------------------------------------------------- stages 2-4: minimums

def _probe(cases: list[_Case], engine: _Engine) -> None:
    """Two files, at .version 1.0 and 9.5, both .target sm_10: ptxas names the minimums it knows
    (at 1.0 some instructions stop at the version complaint, so targets are read at 9.5)."""
    typed = [c for c in cases if c.state == "typed"]
    low, header = engine.check([c.line for c in typed], VERSIONS[0], GENERIC[0], "probe")
    # the module's texture/surface references: "Feature 'opaque type' requires PTX ISA .version 1.5"
    handles = max((v for m in header if "opaque" in m for v in _NEEDS_VERSION.findall(m)), key=_vkey, default=None)
    high, _ = engine.check([c.line for c in typed], engine.max_version, GENERIC[0], "probe")
    for c, m, h in zip(typed, low, high, strict=True):
        versions = [v for x in m for v in _NEEDS_VERSION.findall(x)]
        targets = [t for x in m + h for t in _NEEDS_TARGET.findall(x)]
        if handles and re.search(r"\b(tex0|surf0)\b", c.line):
            versions.append(handles)           # a line naming them needs what their declaration needs
        c.feature_version = max(versions, key=_vkey) if versions else VERSIONS[0]
        c.min_target = max(targets, key=_tnum) if targets else None
        c.unsupported = any(_UNSUPPORTED.search(x) for x in m + h) or any(
            not _REQUIREMENT.search(x) for x in h)


def _target_ok(msgs: list[str]) -> bool:
    """Nothing but operand complaints, which are settled at confirm (ptxas checks operands fully
    only on targets that support the instruction)."""
    return not any(_REQUIREMENT.search(m) or "for arch" in m or _is_definitive(m) for m in msgs)


def _ladder(cases: list[_Case], engine: _Engine) -> None:
    """Forms ptxas only calls "not supported on .target": try each target in turn."""
    todo = [c for c in cases if c.state == "typed" and c.unsupported]
    accepted: dict[tuple[str, str], list[str]] = {c.key: [] for c in todo}
    open_generic = list(todo)
    for target in engine.generic:
        live = [c for c in open_generic if c.min_target is None or _tnum(target) >= _tnum(c.min_target)]
        if not live:
            continue
        msgs, _ = engine.check([c.line for c in live], engine.max_version, target, f"ladder {target}")
        for c, m in zip(live, msgs, strict=True):
            if _target_ok(m):
                accepted[c.key].append(target)
                open_generic.remove(c)
    for target in engine.special:
        live = [c for c in open_generic if c.min_target is None or _tnum(target) >= _tnum(c.min_target)]
        if not live:
            continue
        msgs, _ = engine.check([c.line for c in live], engine.max_version, target, f"ladder {target}")
        for c, m in zip(live, msgs, strict=True):
            if _target_ok(m):
                accepted[c.key].append(target)
    for c in todo:
        c.accepted = tuple(accepted[c.key])
        if not c.accepted:
            c.state = "rejected"
            c.message = c.message or "not accepted on any target"


def minimal_targets(accepted: Iterable[str]) -> tuple[str, ...]:
    """The lowest generic target, else the arch/family targets not implied by a lower family target."""
    acc = list(accepted)
    generic = [t for t in acc if t[-1].isdigit()]
    if generic:
        return (min(generic, key=_tnum),)
    fam = [t for t in acc if t.endswith("f")]
    keep: list[str] = []
    for t in sorted(fam, key=_tnum):
        if not any(_tnum(k) // 10 == _tnum(t) // 10 and _tnum(k) <= _tnum(t) for k in keep):
            keep.append(t)
    for t in sorted((t for t in acc if t.endswith("a")), key=_tnum):
        if not any(_tnum(k) // 10 == _tnum(t) // 10 and _tnum(k) <= _tnum(t) for k in keep):
            keep.append(t)
    return tuple(keep)


def _kernel_class(c: _Case) -> str:
    """Forms that cannot share a kernel: ptxas refuses a function mixing .cta_group::1 and ::2."""
    return next((m for m in c.form.modifiers if m.startswith(".cta_group::")), "")


def _feature_versions(cases: list[_Case], engine: _Engine) -> None:
    """At .version 1.0 on each form's own minimum target, ptxas names the version every feature
    of the form needs (on sm_10 it may stop at the target complaint and name none)."""
    groups: dict[str, list[_Case]] = {}
    for c in cases:
        if c.state == "typed":
            c.sm = minimal_targets(c.accepted) if c.unsupported else (c.min_target or GENERIC[0],)
            if c.sm:
                groups.setdefault(c.sm[0], []).append(c)
    for target, group in sorted(groups.items()):
        msgs, _ = engine.check([c.line for c in group], VERSIONS[0], target, f"versions {target}")
        for c, m in zip(group, msgs, strict=True):
            found = [v for x in m for v in _NEEDS_VERSION.findall(x)]
            if found:
                c.feature_version = max([*found, c.feature_version], key=_vkey)


def _confirm(cases: list[_Case], engine: _Engine, documented: dict[str, str]) -> None:
    """Assemble each form at exactly its found minimum, with code generation.

    What ptxas says at the minimum refines it: a higher version or target it names is taken, a
    form it calls unsupported goes up the target ladder, and operand complaints (ptxas checks
    operands fully only on targets that support the instruction) send the form back to the
    operand search at that target.
    """
    for attempt in range(6):
        groups: dict[tuple[str, str], list[_Case]] = {}
        for c in cases:
            if c.confirmed or c.state != "typed" or not c.sm:
                continue
            target = c.sm[0]
            tv = engine.target_version(target, documented)
            c.version = max(c.feature_version, tv, key=_vkey)
            groups.setdefault((c.version, target, _kernel_class(c)), []).append(c)
        if not groups:
            return
        resolve: list[_Case] = []
        crash_keys: set[tuple[str, str]] = set()
        relad: list[_Case] = []
        for (v, target, _), group in sorted(groups.items()):
            msgs = engine.prove([c.line for c in group], v, target, f"confirm {target}")
            fatal: list[str] = []
            for c, m in zip(group, msgs, strict=True):
                if not m and not fatal:
                    c.confirmed = True
                    continue
                last = attempt == 5
                bump = [x for y in m for x in _NEEDS_VERSION.findall(y)]
                need_t = [x for y in m for x in _NEEDS_TARGET.findall(y)]
                if not last and bump and max(bump, key=_vkey) != v:
                    c.feature_version = max([*bump, c.feature_version], key=_vkey)
                elif not last and need_t and _tnum(max(need_t, key=_tnum)) > _tnum(target):
                    c.sm = (max(need_t, key=_tnum),)
                elif not last and any(_UNSUPPORTED.search(y) for y in m) and target in engine.generic and (
                        engine.generic.index(target) + 1 < len(engine.generic)):
                    c.unsupported = True              # the parse-only ladder was too kind: climb on
                    c.min_target = engine.generic[engine.generic.index(target) + 1]
                    relad.append(c)
                elif not last and c.unsupported and any(_UNSUPPORTED.search(y) for y in m) and len(c.sm) > 1:
                    c.sm = c.sm[1:]
                elif not last and not c.unsupported and _classify(m) == "definitive":
                    c.unsupported = True
                    relad.append(c)
                elif not last and _classify(m) == "operands" and attempt < 4:
                    c.state = "solving"
                    c.variants = [(c.ops, c.choices)] + [v for v in c.variants if v[0] is not c.ops]
                    resolve.append(c)
                    if any("crashed" in y for y in m):
                        crash_keys.add(c.key)
                else:
                    c.state = "rejected"
                    c.message = f"accepted at .version {engine.max_version} but not at its minimum: " + "; ".join(
                        dict.fromkeys(m + fatal))
        if relad:
            _ladder(relad, engine)
            for c in relad:
                if c.state == "typed":
                    c.sm = minimal_targets(c.accepted)
        if resolve:
            settings = {c.key: (c.version or engine.max_version, c.sm[0]) for c in resolve}
            crashed = [c for c in resolve if c.key in crash_keys]   # seen only with code generation
            _solve([c for c in resolve if c.key not in crash_keys], engine, at=lambda c, s=settings: s[c.key])
            _solve(crashed, engine, at=lambda c, s=settings: s[c.key], parse_only=False)


# ---------------------------------------------------------------- combinations the prose forbids

def _exclusion_cases(instrs: list[PtxInstruction], cases: list[_Case]) -> list[tuple[str, _Case]]:
    """(rule, case) for each prose rule that took combinations out of an instruction's forms: its first
    sample, with the operands of the syntax line that spelled it (ptxas should refuse it). New cases are
    appended to `cases`; a sample that is also an undocumented sibling is asked through that case."""
    by_key = {c.key: c for c in cases}
    out: list[tuple[str, _Case]] = []
    for i in instrs:
        for e in i.excluded:
            if not e.samples:
                continue
            case = by_key.get((i.section, e.samples[0]))
            if case is None:
                name, mods = split_form(e.samples[0], i.names)
                form = PtxForm(form=e.samples[0], name=name, modifiers=mods,
                               types=tuple(m for m in mods if is_type(m)),
                               state_spaces=tuple(m for m in mods if is_state_space(m)), operands=e.operands,
                               template=e.template, documented_version=None, documented_sm=(), line=e.line,
                               origin="excluded")
                case = by_key[(i.section, form.form)] = _make_case(i, form, documented=False)
                cases.append(case)
            if case.documented:
                continue                    # the manual lists it after all (an example): a form, not asked
            case.excluded = case.excluded or e.rule
            out.append((e.rule, case))
    return out


def _exclusion_answer(c: _Case) -> tuple[str, str]:
    """("agrees", ptxas's refusal) / ("accepts", the line it took) / ("unsettled", why)."""
    if c.state == "typed":
        return "accepts", f"ptxas accepts `{c.line.strip('{} ')}`"
    if c.state == "rejected" and _failure(c.message) == "rejected":
        return "agrees", c.message
    return "unsettled", c.message or "not asked"


# ---------------------------------------------------------------- stage 5: undocumented siblings

_SIBLINGS = {"u": ("s", "b"), "s": ("u", "b"), "b": ("u", "s")}


def _sibling_forms(instr: PtxInstruction) -> list[tuple[PtxForm, PtxForm]]:
    """(documented form, sibling): forms that swap one integer type for its signed/unsigned/bit
    sibling, absent from the manual."""
    known = {f.form.lower() for f in instr.forms}
    out: list[tuple[PtxForm, PtxForm]] = []
    for f in instr.forms:
        if f.origin != "syntax":
            continue
        for i, m in enumerate(f.modifiers):
            mm = re.fullmatch(r"\.([usb])(8|16|32|64)", m)
            if not mm:
                continue
            for sib in _SIBLINGS[mm.group(1)]:
                mods = list(f.modifiers)
                mods[i] = f".{sib}{mm.group(2)}"
                form = f.name + "".join(mods)
                if form.lower() in known:
                    continue
                known.add(form.lower())
                out.append((f, replace(f, form=form, modifiers=tuple(mods),
                                       types=tuple(x for x in mods if x in f.types or x == mods[i]),
                                       documented_version=None, documented_sm=(), origin="ptxas")))
    return out


def _follow(followers: list[_Case], by_key: dict[tuple[str, str], _Case], engine: _Engine) -> None:
    """Ask about each sibling once, with its documented form's operands where that form found them:
    a sibling type has the same register class (.s32 for .u32), so other operands would not make
    ptxas take it; a sibling it refuses so is not a form, and needs no operand search of its own."""
    batches: dict[tuple[str, str], list[tuple[_Case, po.Rendered]]] = {}
    for c in followers:
        parent = by_key.get(c.parent) if c.parent else None
        if parent is None or parent.rendered is None or parent.solved_at is None:
            c.state, c.message = "rejected", "its documented form found no operands ptxas accepts"
            continue
        c.ops, c.choices, c.variants = parent.ops, parent.choices, [(parent.ops, parent.choices)]
        try:
            batches.setdefault(parent.solved_at, []).append((c, po.render(c.form.form, c.ops, c.choices)))
        except (IndexError, ValueError):
            c.state, c.message = "rejected", "its documented form's operands do not fit it"
    for (version, target), batch in sorted(batches.items()):
        msgs, _ = engine.check([po.block(r) for _, r in batch], version, target, "siblings")
        for (c, r), m in zip(batch, msgs, strict=True):
            if _classify(m) == "ok":
                c.rendered, c.line, c.state, c.solved_at = r, po.block(r), "typed", (version, target)
            else:
                c.state, c.message = "rejected", "; ".join(dict.fromkeys(m))


# ---------------------------------------------------------------- stage 6: SASS

def _sass_target(c: _Case, base: str) -> str | None:
    """The target string under which to lower a form for one SASS column (sm_90 -> sm_90a)."""
    n = _tnum(base)
    if not c.unsupported:
        lowest = _tnum(c.sm[0]) if c.sm else 10
        return base if n >= lowest else None
    for t in c.accepted:
        if t[-1].isdigit() and _tnum(t) <= n:
            return base
    for suffix in ("a", "f"):
        t = f"{base}{suffix}"
        if t in c.accepted or any(a.endswith("f") and _tnum(a) // 10 == n // 10 and _tnum(a) <= n
                                  for a in c.accepted if suffix == "f"):
            return t
    return None


def _kernel(name: str, r: po.Rendered, with_instr: bool) -> str:
    regs = [reg for per in r.operands for reg in per]
    body = [f".visible .entry {name}(.param .u64 pin, .param .u64 pout)", "{",
            ".reg .b64 %in, %out; .reg .b32 %tmp; .reg .pred %ptmp;",
            "ld.param.u64 %in, [pin]; ld.param.u64 %out, [pout];", po.declarations(r.regs)]
    off = 0
    for reg, cls in regs:
        if cls == "pred":
            body.append(f"ld.global.u32 %tmp, [%in+{off}]; setp.ne.u32 {reg}, %tmp, 0;")
        else:
            body.append(f"ld.global.{cls} {reg}, [%in+{off}];")
        off += 16
    if with_instr:
        body.append(po.statement(r))
    off = 0
    for reg, cls in regs:
        if cls == "pred":
            body.append(f"selp.u32 %tmp, 1, 0, {reg}; st.global.u32 [%out+{off}], %tmp;")
        else:
            body.append(f"st.global.{cls} [%out+{off}], {reg};")
        off += 16
    body += ["ret;", "}"]
    return "\n".join(body)


def _sass_file(target: str, kernels: list[str], version: str = MAX_VERSION) -> str:
    head = [f".version {version}", f".target {target}", ".address_size 64", *_MODULE,
            ".shared .align 16 .b8 smem[4096];"]
    return "\n".join(head + kernels + [""])


def parse_sass(listing: str) -> dict[str, list[str]]:
    """Opcodes per function of a `cuobjdump -sass` listing (megabytes per file: one regex per line)."""
    out: dict[str, list[str]] = {}
    ops: list[str] | None = None
    for line in listing.splitlines():
        if "Function" in line:
            m = _FUNCTION.search(line)
            if m:
                ops = out[m.group(1)] = []
                continue
        if ops is None:
            continue
        m = _SASS_OP.search(line)
        if m and m.group(1) not in _IGNORED_SASS:
            ops.append(m.group(1))
    return out


def sass_delta(form_ops: list[str], base_ops: list[str]) -> tuple[str, ...]:
    """Opcodes the form kernel has beyond the baseline, in the form kernel's order, deduplicated."""
    extra = Counter(form_ops) - Counter(base_ops)
    out: list[str] = []
    for op in form_ops:
        if extra.get(op, 0) > 0 and op not in out:
            out.append(op)
    return tuple(out)


def _sass(cases: list[_Case], engine: _Engine, targets: tuple[str, ...]) -> None:
    """Lower every confirmed form for each SASS column and keep the opcodes it adds beyond its baseline
    (the same kernel without the form)."""
    wanted: dict[str, list[tuple[_Case, str, str]]] = {}      # target string -> (case, form kernel, baseline)
    for c in cases:
        if not c.confirmed or c.rendered is None:
            continue
        for base in targets:
            t = _sass_target(c, base)
            if t:
                wanted.setdefault(t, []).append((c, _kernel("k", c.rendered, True), _kernel("k", c.rendered, False)))
    kernels = {t: list(dict.fromkeys(k for _, f, b in items for k in (f, b))) for t, items in wanted.items()}
    lowered = engine.lower(kernels, engine.max_version)
    for t, items in wanted.items():
        for c, f, b in items:
            form_ops, base_ops = lowered.get((t, f)), lowered.get((t, b))
            if form_ops is not None and base_ops is not None:
                c.sass[t] = sass_delta(list(form_ops), list(base_ops))


# ---------------------------------------------------------------- errata

def _norm_targets(ts: Iterable[str]) -> set[str]:
    return {t.rstrip("+") for t in ts}


def targets_agree(documented: tuple[str, ...], verified: tuple[str, ...]) -> bool:
    """Whether documented targets ("sm_80+", "all", "sm_100f+") match the verified minimum."""
    if not documented or not verified:
        return True
    if "all" in documented:
        return verified[0][-1].isdigit() and _tnum(verified[0]) <= 20
    doc = _norm_targets(documented)
    ver = set(verified)
    if all(t[-1].isdigit() for t in ver) and any(t[-1].isdigit() for t in doc):
        return min(_tnum(t) for t in doc if t[-1].isdigit()) == _tnum(min(ver, key=_tnum))
    return doc == ver or (bool(doc & ver) and min(_tnum(t) for t in doc) == min(_tnum(t) for t in ver))


def _failure(message: str) -> str:
    """rejected: ptxas refuses the form itself; unverified: no operands were found that it takes, or it
    parses the form but can no longer compile the 32-bit code it needs (a tool limit, not a verdict)."""
    if "tool failed" in message:
        return "tool failed"
    if message.startswith("accepted at") and any(x in message for x in _NO_32BIT):
        return "unverified"
    parts = [m.strip() for m in message.split(":", 1)[-1].split(";")] if message.startswith("accepted at") else [
        m.strip() for m in message.split(";")]
    return "rejected" if any(_is_definitive(m) for m in parts) or message == "not accepted on any target" else (
        "unverified")


def _errata(cases: list[_Case]) -> list[PtxErratum]:
    out: list[PtxErratum] = []
    for c in cases:
        f = c.form
        if not c.documented:
            if c.confirmed:
                out.append(PtxErratum(f.name, f.form, c.key[0], "undocumented-form", "not listed",
                                      f"accepted from PTX ISA {c.version} on {', '.join(c.sm)}",
                                      "ptxas accepts a form the manual's syntax does not list"))
            continue
        if c.state == "rejected" and _failure(c.message) == "rejected":
            out.append(PtxErratum(f.name, f.form, c.key[0], "rejected",
                                  f"PTX ISA {f.documented_version or '?'} {', '.join(f.documented_sm)}".strip(),
                                  "not accepted by ptxas", c.message))
            continue
        if not c.confirmed:
            continue
        if f.documented_version and _vkey(f.documented_version) != _vkey(c.feature_version):
            out.append(PtxErratum(f.name, f.form, c.key[0], "version", f.documented_version,
                                  c.feature_version, "introduced-in version differs from ptxas"))
        if f.documented_sm and not targets_agree(f.documented_sm, c.sm):
            out.append(PtxErratum(f.name, f.form, c.key[0], "target", ", ".join(f.documented_sm),
                                  ", ".join(c.sm), "minimum target differs from ptxas"))
    return out


# ---------------------------------------------------------------- forms newer than the tool

def beyond_message(tools: Tools, engine_max: str) -> str:
    """How a form newer than the tool is described: it is not judged, never "rejected"."""
    return f"beyond ptxas {tools.release} (max PTX {engine_max})"


def _beyond(cases: list[_Case], engine: _Engine) -> None:
    """Forms the manual dates after this ptxas's highest PTX ISA version, or documents only for
    arch-specific targets it does not list, are set aside unjudged ("beyond ptxas 13.0 (max PTX 9.0)")."""
    known = set(engine.generic) | set(engine.special)
    newer_names: set[tuple[str, str]] = set()
    for c in cases:
        f = c.form
        if not c.documented:
            continue
        newer = f.documented_version is not None and _vkey(f.documented_version) > _vkey(engine.max_version)
        special = [t.rstrip("+") for t in f.documented_sm if re.fullmatch(r"sm_\d+[af]\+?", t)]
        unknown_targets = bool(special) and len(special) == len(f.documented_sm) and not (set(special) & known)
        if newer or unknown_targets:
            c.state = "beyond"
            c.message = beyond_message(engine.runner.tools, engine.max_version) + (
                "" if newer else f"; it lists none of {', '.join(special)}")
            newer_names.add((c.key[0], f.name))
    for c in cases:                   # undocumented siblings of such forms are not tried either
        if not c.documented and (c.key[0], c.form.name) in newer_names:
            c.state, c.message = "beyond", beyond_message(engine.runner.tools, engine.max_version)


# ---------------------------------------------------------------- entry point

def verify_manual(manual: PtxManual, *, tools: Tools | None = None, progress: Progress | None = None,
                  workers: int | None = None, sections: Iterable[str] | None = None,
                  sass_targets: tuple[str, ...] = SASS_TARGETS, undocumented: bool = True,
                  cache: Path | None = None, use_cache: bool = True) -> PtxVerification:
    """Verify every form of `manual` (or of the given section numbers) with ptxas and cuobjdump."""
    start = time.perf_counter()
    tools = tools or find_tools()
    result = PtxVerification(tool=tools.label)
    if tools.ptxas is None:
        result.skipped_reason = ("ptxas not found (pip install nvidia-cuda-nvcc==13.5.37, or set "
                                 "$GPUISA_PTXAS): verification skipped, documented facts kept")
        return result
    runner = Runner(tools, cache, use_cache)
    engine = _Engine(runner, workers or os.cpu_count() or 2, progress)
    wanted = set(sections) if sections is not None else None
    instrs = [i for i in manual.instructions if wanted is None or i.section in wanted]
    key = _result_key(tools, instrs, sass_targets if tools.cuobjdump else (), undocumented)
    stored = runner.cache / "results" / f"{key}.json"
    if use_cache and stored.is_file():
        try:
            cached = _load_result(json.loads(stored.read_text()))
        except (OSError, ValueError, KeyError, TypeError):
            cached = None
        if cached is not None:
            cached.cache_hits, cached.seconds = 1, time.perf_counter() - start
            if progress:
                progress("ptxas (cached)", 1, 1)
            return cached
    cases = [_make_case(i, f) for i in instrs for f in i.forms]
    if undocumented:
        for i in instrs:
            for parent, f in _sibling_forms(i):
                cases.append(_make_case(i, f, documented=False))
                cases[-1].parent = (i.section, parent.form)
    asked = _exclusion_cases(instrs, cases)
    _beyond(cases, engine)
    followers = [c for c in cases if c.parent and not c.excluded and c.state == "solving"]
    for c in followers:
        c.state = "following"                 # asked after their documented forms, with those operands
    _solve(cases, engine)
    for target in (t for t in ALT_SOLVE_TARGETS if t in engine.special):
        retry = [c for c in cases if c.state == "rejected" and _documented_target(c, engine)[1] != target and (
            _classify(c.message.split("; ")) == "definitive" or _wrong_target(c.message.split("; ")))]
        for c in retry:
            c.state = "solving"
        _solve(retry, engine, at=lambda c, t=target: (engine.max_version, t))
        for c in retry:
            if c.state == "rejected" and c.first_message:
                c.message = c.first_message
    _follow(followers, {c.key: c for c in cases if c.documented}, engine)
    for rule, c in asked:                 # asked once at the solve targets; they are no forms to date
        result.exclusions[(c.key[0], rule)] = _exclusion_answer(c)
    for _, c in asked:
        c.state = "asked"
    _probe(cases, engine)
    _ladder(cases, engine)
    _feature_versions(cases, engine)
    _confirm(cases, engine, manual.target_versions)
    if tools.cuobjdump is not None and sass_targets:
        _sass(cases, engine, tuple(t for t in sass_targets if t in engine.generic))
    for c in cases:
        if not c.documented and not c.confirmed:
            continue                      # a sibling ptxas rejects is simply not a form
        status = "verified" if c.confirmed else "beyond" if c.state == "beyond" else _failure(c.message)
        msg = c.message if status != "verified" else ""
        result.verdicts[c.key] = PtxVerdict(
            form=c.form.form, name=c.form.name, section=c.key[0], status=status,
            ptx_version=c.version if c.confirmed else None,
            feature_version=c.feature_version if c.confirmed else None,
            sm=c.sm if c.confirmed else (), message=msg, ptx_line=c.rendered.text if c.rendered else "",
            sass=tuple(sorted(c.sass.items())), documented=c.documented, tool=tools.label)
    engine.close()
    result.errata = _errata(cases)
    result.undocumented_forms = [c.form for c in cases if not c.documented and c.confirmed]
    result.ptxas_calls = runner.ptxas_calls
    result.cuobjdump_calls = runner.cuobjdump_calls
    result.cache_hits = runner.cache_hits
    result.seconds = time.perf_counter() - start
    if use_cache and not any(v.status == "tool failed" and not v.message.endswith(" on this line")
                             for v in result.verdicts.values()):   # a crash on one line happens again
        stored.parent.mkdir(parents=True, exist_ok=True)
        tmp = stored.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(_dump_result(result)))
        os.replace(tmp, stored)
    return result


# ---------------------------------------------------------------- whole-result cache

VERIFIER_VERSION = "7"         # bump when the stages change what they conclude


def _result_key(tools: Tools, instrs: list[PtxInstruction], sass: tuple[str, ...], undocumented: bool) -> str:
    """Same tool, same verifier, same forms and examples: the same result (the warm run)."""
    h = hashlib.sha256(f"{tools.version}\0{VERIFIER_VERSION}\0{sass}\0{undocumented}".encode())
    for i in instrs:
        h.update(f"\0{i.section}\0{i.names}\0{i.examples}".encode())
        for f in i.forms:
            h.update(f"\0{f.form}\0{f.operands}\0{f.template}\0{f.documented_version}\0{f.documented_sm}"
                     f"\0{f.origin}\0{f.types}\0{f.modifiers}".encode())
        for e in i.excluded:
            h.update(f"\0{e.rule}\0{e.samples[:1]}\0{e.operands}".encode())
    return h.hexdigest()


def _fields(record: object) -> dict:
    """A flat record's fields (strings, numbers and tuples of them) as a dict: what asdict gives it, without
    asdict's deep copy (~2 CPU s over 15,000 verdicts)."""
    return {f.name: getattr(record, f.name) for f in fields(record)}   # type: ignore[arg-type]


def _dump_result(r: PtxVerification) -> dict:
    return {"tool": r.tool, "verdicts": [_fields(v) for v in r.verdicts.values()],
            "errata": [_fields(e) for e in r.errata], "undocumented": [_fields(f) for f in r.undocumented_forms],
            "skipped_reason": r.skipped_reason, "ptxas_calls": r.ptxas_calls, "cuobjdump_calls": r.cuobjdump_calls,
            "exclusions": [[sec, rule, *answer] for (sec, rule), answer in r.exclusions.items()]}


def _load_result(d: dict) -> PtxVerification:
    r = PtxVerification(tool=d["tool"], skipped_reason=d["skipped_reason"])
    for v in d["verdicts"]:
        v = dict(v, sm=tuple(v["sm"]), sass=tuple((t, tuple(ops)) for t, ops in v["sass"]))
        verdict = PtxVerdict(**v)
        r.verdicts[(verdict.section, verdict.form)] = verdict
    r.errata = [PtxErratum(**e) for e in d["errata"]]
    r.undocumented_forms = [PtxForm(**{k: tuple(x) if isinstance(x, list) else x for k, x in f.items()})
                            for f in d["undocumented"]]
    r.exclusions = {(sec, rule): (verdict, message) for sec, rule, verdict, message in d["exclusions"]}
    return r

"""Check assembly against the real llvm-mc: many lines per target in one process, results cached.

Why: the MC tests say what LLVM 23 does on the targets each test names; llvm-mc answers for any
target it knows, so a simple example of an instruction can be tried on the targets no test covers.
Starting llvm-mc costs ~20 ms, so lines are batched into one run per (target, -mattr); a label
before each line (`gpuisa_N:`) ties llvm-mc's output back to its input, and errors are tied back
by their `<stdin>:LINE:COL` position. Results are cached in SQLite under gpuisa.paths.cache_dir(),
keyed by llvm-mc version + target + mattr + line; each batch is written in one transaction.
"""

from __future__ import annotations

import hashlib
import os
import re
import sqlite3
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

from gpuisa.archs import BY_KEY, TARGET_TO_ARCH
from gpuisa.errors import GpuisaError
from gpuisa.model_llvm import INSTRUCTION_LEVEL, McExample, McNegative, McResult, TargetVerdict
from gpuisa.paths import cache_dir
from gpuisa.sources.llvm_mc import mnemonic, mnemonics, normalize_mattr
from gpuisa.verify import discover

MIN_MAJOR = 22          # older llvm-mc silently ignores unknown processors (prints a warning only)
INSTALL_HINT = "install it with `apt-get install llvm-22` or set GPUISA_LLVM_MC to an llvm-mc >= 22"

_LABEL = re.compile(r"^gpuisa_(\d+):$")
_DIAG = re.compile(r"^<stdin>:(\d+):(\d+): (error|warning): (.*)$")
CALL_TIMEOUT = 120.0         # seconds per llvm-mc run, plus 1 s per 100 lines ($GPUISA_TOOL_TIMEOUT)
RETRY_EXAMPLES = 6           # more examples tried where the first ones drew only operand complaints


class LlvmMcMissing(GpuisaError):
    """No usable llvm-mc: the caller reports "verification skipped" with this message."""


class LlvmMcFailed(GpuisaError):
    """llvm-mc ran but could not answer (unknown target or feature, crash, timeout)."""


@dataclass(frozen=True, slots=True)
class LlvmMc:
    """A located llvm-mc binary and its version."""

    path: str
    version: str            # "22.1.8"

    @property
    def major(self) -> int:
        return int(self.version.split(".")[0])

    @property
    def label(self) -> str:
        return f"llvm-mc {self.version}"

    def knows(self, target: str) -> bool:
        """Whether this llvm-mc lists `target` in `-mcpu=help` (True when it lists nothing: let it answer)."""
        cpus = discover.llvm_mc_cpus(self.path)
        return not cpus or target in cpus


# --------------------------------------------------------------------------------------------
# locating the tool


def find_llvm_mc(explicit: str | None = None) -> LlvmMc:
    """The llvm-mc to use: `explicit`, else $GPUISA_LLVM_MC, else the newest of every copy found
    (PATH, llvm-mc-N names, /usr/lib/llvm-*/bin, ROCm, Homebrew; see verify.discover).

    Raises LlvmMcMissing (one line, naming what was found and the install hint) when the chosen
    one is older than 22: older ones silently ignore processors they do not know.
    """
    if explicit:
        version, problem = discover.version_of("llvm-mc", explicit) if os.path.isfile(explicit) else ((), "no such file")
        chosen = discover.Candidate("llvm-mc", explicit, "argument", version, problem)
        found = discover.Survey("llvm-mc", chosen if chosen.usable else None, (chosen,))
    else:
        found = discover.survey("llvm-mc")
    tool = found.chosen
    if tool is None:
        where = "; ".join(f"{c.path}: {c.problem}" for c in found.candidates)
        raise LlvmMcMissing(f"no usable llvm-mc {MIN_MAJOR} or newer" + (f" ({where})" if where else " found")
                            + f"; {INSTALL_HINT}")
    if tool.version[0] < MIN_MAJOR:
        raise LlvmMcMissing(f"llvm-mc {tool.version_text} at {tool.path} is the newest found, older than {MIN_MAJOR}"
                            f" (older ones ignore processors they do not know); {INSTALL_HINT}")
    return LlvmMc(tool.path, tool.version_text)


def available() -> bool:
    """Whether a usable llvm-mc exists (for test skips and "verification skipped" notes)."""
    try:
        find_llvm_mc()
    except LlvmMcMissing:
        return False
    return True


# --------------------------------------------------------------------------------------------
# the cache


class McCache:
    """llvm-mc results in SQLite, keyed by a hash of (llvm-mc version, target, mattr, line).

    A damaged or unwritable cache is dropped and the call goes on uncached: caching must never
    turn a verification into an error.
    """

    def __init__(self, path: Path | None = None) -> None:
        if path is None:
            path = cache_dir() / "llvm-mc.sqlite"
        self.path = Path(path)
        self._db: sqlite3.Connection | None = None

    def _conn(self) -> sqlite3.Connection | None:
        if self._db is None:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                db = sqlite3.connect(self.path, timeout=30)
                db.execute("CREATE TABLE IF NOT EXISTS results (key BLOB PRIMARY KEY, ok INTEGER,"
                           " asm TEXT, bytes BLOB, message TEXT) WITHOUT ROWID")
                self._db = db
            except (sqlite3.Error, OSError):
                return None
        return self._db

    @staticmethod
    def key(version: str, target: str, mattr: str, line: str) -> bytes:
        return hashlib.blake2b(f"{version}\0{target}\0{mattr}\0{line}".encode(), digest_size=16).digest()

    def get_many(self, keys: Sequence[bytes]) -> dict[bytes, tuple[bool, str, bytes, str]]:
        db = self._conn()
        out: dict[bytes, tuple[bool, str, bytes, str]] = {}
        if db is None:
            return out
        try:
            for i in range(0, len(keys), 500):
                chunk = keys[i:i + 500]
                marks = ",".join("?" * len(chunk))
                for key, ok, asm, data, msg in db.execute(
                        f"SELECT key, ok, asm, bytes, message FROM results WHERE key IN ({marks})", chunk):
                    out[key] = (bool(ok), asm, data, msg)
        except sqlite3.Error:
            self._db = None
        return out

    def put_many(self, rows: Iterable[tuple[bytes, bool, str, bytes, str]]) -> None:
        db = self._conn()
        if db is None:
            return
        try:
            with db:                                   # one transaction: all or nothing
                db.executemany("INSERT OR REPLACE INTO results VALUES (?, ?, ?, ?, ?)", rows)
        except sqlite3.Error:
            self._db = None

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None


_DEFAULT_CACHE: McCache | None = None


def default_cache() -> McCache:
    global _DEFAULT_CACHE
    if _DEFAULT_CACHE is None:
        _DEFAULT_CACHE = McCache()
    return _DEFAULT_CACHE


# --------------------------------------------------------------------------------------------
# assembling


def mc_command(tool: LlvmMc, target: str, mattr: str = "", disassemble: bool = False) -> list[str]:
    """The llvm-mc command line for one target (the bench runs it directly for comparison)."""
    cmd = [tool.path, "-triple=amdgcn", f"-mcpu={target}", "-show-encoding"]
    if mattr:
        cmd.append(f"-mattr={mattr}")
    if disassemble:
        cmd.append("-disassemble")
    return cmd


def batch_input(lines: Sequence[str]) -> str:
    """Input for one llvm-mc run: a label before each line so output can be tied back to it."""
    return "".join(f"gpuisa_{i}:\n{line}\n" for i, line in enumerate(lines))


def _parse_encoding(text: str) -> bytes | None:
    """Bytes of `[0x05,0x00]`; None when fixup placeholders (A, B) stand for symbol-dependent bytes."""
    tokens = [tok.strip().lower() for tok in text.strip().removeprefix("[").removesuffix("]").split(",")]
    if not all(tok.startswith("0x") for tok in tokens):
        return None
    try:
        return bytes(int(tok, 16) for tok in tokens)
    except ValueError:
        return None


def _parse_output(stdout: str, n: int) -> dict[int, tuple[str, bytes | None]]:
    """index -> (printed asm, bytes; None when a fixup leaves bytes open) from -show-encoding output."""
    out: dict[int, tuple[str, bytes | None]] = {}
    current = -1
    for raw in stdout.splitlines():
        text = raw.strip()
        m = _LABEL.match(text)
        if m:
            current = int(m.group(1))
            continue
        if current < 0 or current >= n or not text or text.startswith((";", ".")):
            continue
        asm, _, enc = text.partition("; encoding:")
        data = _parse_encoding(enc) if enc else b""
        prev_asm, prev_bytes = out.get(current, ("", b""))
        asm = " ".join(asm.split())
        joined = None if data is None or prev_bytes is None else prev_bytes + data
        out[current] = ((prev_asm + "\n" + asm) if prev_asm else asm, joined)
    return out


def _parse_errors(stderr: str, n: int) -> tuple[dict[int, str], list[str]]:
    """index -> first error message; plus stderr lines not tied to any input line."""
    errors: dict[int, str] = {}
    other: list[str] = []
    for raw in stderr.splitlines():
        m = _DIAG.match(raw)
        if m:
            line_no, _col, severity, msg = m.groups()
            idx = (int(line_no) - 2) // 2
            if severity == "error" and 0 <= idx < n:
                errors.setdefault(idx, msg.strip())
        elif "is not a recognized" in raw or "LLVM ERROR" in raw or "Stack dump" in raw:
            other.append(raw.strip())
    return errors, other


def _timeout(lines: int) -> float:
    return float(os.environ.get("GPUISA_TOOL_TIMEOUT", "") or CALL_TIMEOUT) + lines / 100


def _run(tool: LlvmMc, target: str, mattr: str, lines: Sequence[str]) -> list[McResult]:
    """One llvm-mc process over `lines`; a crash re-runs what follows the line it died on.

    Raises LlvmMcFailed when the tool hangs (per-call timeout) or answers with nothing that can
    be tied to the input (garbage): the caller's verdict is then "tool failed", never a support fact."""
    results: dict[int, McResult] = {}
    start = 0
    while start < len(lines):
        chunk = lines[start:]
        try:
            proc = subprocess.run(mc_command(tool, target, mattr), input=batch_input(chunk), errors="replace",
                                  capture_output=True, text=True, timeout=_timeout(len(chunk)))
        except subprocess.TimeoutExpired as exc:
            raise LlvmMcFailed(f"{tool.label} timed out after {_timeout(len(chunk)):g} s on {len(chunk)} lines"
                               f" for {target}") from exc
        except OSError as exc:
            raise LlvmMcMissing(f"cannot run {tool.path}: {exc.strerror}; {INSTALL_HINT}") from exc
        outputs = _parse_output(proc.stdout, len(chunk))
        errors, other = _parse_errors(proc.stderr, len(chunk))
        unknown = [o for o in other if "is not a recognized" in o]
        if unknown:
            raise LlvmMcFailed(f"{tool.label}: {unknown[0]}")
        crashed = proc.returncode not in (0, 1)
        if not crashed and not outputs and not errors:
            said = next((x.strip() for x in (proc.stdout + proc.stderr).splitlines() if x.strip()), "nothing")
            raise LlvmMcFailed(f"{tool.label} answered {len(chunk)} lines for {target} with no result tied to"
                               f" them (exit {proc.returncode}: {said[:80]})")
        last = max([*outputs, *errors], default=-1)
        for i in range(len(chunk)):
            if i in errors:
                results[start + i] = McResult(chunk[i], target, mattr, False, message=errors[i], tool=tool.label)
            elif i in outputs and not (crashed and i == last + 1):
                asm, data = outputs[i]
                note = "" if data is not None else "encoding depends on a symbol (fixup)"
                results[start + i] = McResult(chunk[i], target, mattr, True, asm, data or b"", note, tool.label)
            elif not crashed or i <= last:
                results[start + i] = McResult(chunk[i], target, mattr, False,
                                              message="no output (not an instruction?)", tool=tool.label)
        if not crashed:
            break
        dead = start + last + 1
        results[dead] = McResult(lines[dead], target, mattr, False,
                                 message=f"llvm-mc crashed (exit {proc.returncode})", tool=tool.label)
        start = dead + 1
    return [results[i] for i in range(len(lines))]


def assemble(lines: Sequence[str], target: str, mattr: str = "", *, tool: LlvmMc | None = None,
             cache: McCache | bool | None = True) -> list[McResult]:
    """Assemble each line on `target` with llvm-mc; one result per line, in order.

    Lines already in the cache are not re-run; the rest go to llvm-mc in one process. `cache`:
    True for the default cache, False for none, or a McCache. Raises LlvmMcMissing when no
    llvm-mc is installed and LlvmMcFailed when it does not know the target or a feature.
    """
    got = assemble_each([(lines, target, mattr)], tool=tool, cache=cache, workers=1)[0]
    if isinstance(got, LlvmMcFailed):
        raise got
    return got


def assemble_each(jobs: Sequence[tuple[Sequence[str], str, str]], *, tool: LlvmMc | None = None,
                  cache: McCache | bool | None = True, workers: int = 2) -> list[list[McResult] | LlvmMcFailed]:
    """`assemble` for several (lines, target, mattr) jobs, their llvm-mc runs `workers` at a time (one
    process per job: the runs are the work, so two cores halve the wall time). Per job its results in
    order, or the LlvmMcFailed that job's run raised. The cache is read and written by the calling
    thread only (one SQLite connection)."""
    tool = tool or find_llvm_mc()
    store = default_cache() if cache is True else (cache or None)
    planned = []
    for lines, target, mattr in jobs:
        for line in lines:
            if "\n" in line or "\r" in line:
                raise ValueError(f"one instruction per line expected, got {line!r}")
        mattr = normalize_mattr([mattr]) if mattr else ""
        keys = [McCache.key(tool.version, target, mattr, line) for line in lines]
        known = store.get_many(keys) if store else {}
        todo = sorted({line for line, key in zip(lines, keys, strict=True) if key not in known})
        planned.append((lines, target, mattr, keys, known, todo))

    def run(job: tuple) -> list[McResult] | LlvmMcFailed:
        _, target, mattr, _, _, todo = job
        try:
            return _run(tool, target, mattr, todo) if todo else []
        except LlvmMcFailed as exc:
            return exc

    if workers > 1 and sum(bool(job[-1]) for job in planned) > 1:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            ran = list(pool.map(run, planned))
    else:
        ran = [run(job) for job in planned]
    out: list[list[McResult] | LlvmMcFailed] = []
    for (lines, target, mattr, keys, known, _), got in zip(planned, ran, strict=True):
        if isinstance(got, LlvmMcFailed):
            out.append(got)
            continue
        fresh = {r.line: r for r in got}
        if store and fresh:
            store.put_many((McCache.key(tool.version, target, mattr, r.line), r.ok, r.asm, r.bytes, r.message)
                           for r in fresh.values())
        results = []
        for line, key in zip(lines, keys, strict=True):
            if line in fresh:
                results.append(fresh[line])
            else:
                ok, asm, data, msg = known[key]
                results.append(McResult(line, target, mattr, ok, asm, data, msg, tool.label))
        out.append(results)
    return out


# --------------------------------------------------------------------------------------------
# support on targets without test evidence

_MODIFIER = re.compile(r"[:|]|\b(?:neg|abs|sext|clamp|glc|slc|dlc|nv|lds|tfe|offen|idxen|mul|div|row_|"
                       r"quad_perm|op_sel|byte_sel|index_key|matrix_|scale_|dpp|fi|bound_ctrl)\w*")


_RANGE = re.compile(r"\[\d+:\d+\]")
_PLAIN_REGISTER = re.compile(r"^[vsa](?:\d+|\[\d+:\d+\])(?:\.[lh])?$")


@lru_cache(maxsize=1 << 18)   # ranking sorts the same lines once per instruction and arch
def simplicity(asm: str) -> tuple[int, int, int, int, int]:
    """Sort key, lower is simpler: forced-encoding suffix, modifiers, operands that are not plain
    v/s/a registers (constants, special registers), operand count, length."""
    word, _, rest = asm.partition(" ")
    forced = mnemonic(word).lower() != word.lower()
    operands = [o.strip() for o in rest.split(",") if o.strip()]
    bare = _RANGE.sub("", rest)
    modifiers = len(_MODIFIER.findall(bare)) + bare.count("0x") + bare.count("-") + bare.count("[")
    special = sum(not _PLAIN_REGISTER.match(o) for o in operands)
    return (int(forced), modifiers, special, len(operands), len(asm))


def pick_representatives(examples: Sequence[McExample], n: int = 3) -> list[McExample]:
    """The `n` simplest distinct examples (asm tests first), from as many targets as possible.

    e.g. for V_SAD_U32 this picks `v_sad_u32 v5, v1, v2, s3` over DPP, clamp or literal forms.
    """
    ranked = sorted(examples, key=lambda e: (e.direction != "asm", *simplicity(e.asm), e.file, e.line or 0))
    chosen: list[McExample] = []
    seen_asm: set[str] = set()
    seen_targets: set[str] = set()
    for pass_no in (0, 1):            # first distinct targets, then anything distinct
        for ex in ranked:
            if len(chosen) >= n:
                return chosen
            if ex.asm in seen_asm or "\n" in ex.asm or (pass_no == 0 and seen_targets.issuperset(ex.targets)):
                continue
            chosen.append(ex)
            seen_asm.add(ex.asm)
            seen_targets.update(ex.targets)
    return chosen


def evidenced_targets(name: str, examples: Iterable[McExample],
                      negatives: Iterable[McNegative] = ()) -> set[str]:
    """Targets on which the tests themselves say something about instruction `name`."""
    found = {t for ex in examples if name in mnemonics(ex.asm) for t in ex.targets}
    found |= {t for neg in negatives if neg.not_supported and name in mnemonics(neg.input) for t in neg.targets}
    return found


CANDIDATES = 64     # the simplest examples of a spelling among which each target's are chosen

Prepared = list[tuple[McExample, frozenset[str], frozenset[str], frozenset[str]]]


def prepare(examples: Sequence[McExample]) -> Prepared:
    """The CANDIDATES simplest distinct one-line examples, each with its targets, archs and families
    (computed once per spelling, not once per target)."""
    ranked = sorted((e for e in examples if "\n" not in e.asm),
                    key=lambda e: (e.direction != "asm", *simplicity(e.asm), e.file, e.line or 0))
    out: Prepared = []
    seen: set[str] = set()
    for ex in ranked:
        if ex.asm in seen:
            continue
        seen.add(ex.asm)
        archs = frozenset(a for a in (TARGET_TO_ARCH.get(t) for t in ex.targets) if a)
        out.append((ex, frozenset(ex.targets), archs, frozenset(BY_KEY[a].family for a in archs)))
        if len(out) >= CANDIDATES:
            break
    return out


def variant(asm: str) -> bool:
    """A DPP, SDWA or forced-encoding line (`v_add_f32_e64_dpp`): not the plain form a page leads with."""
    word = asm.split(None, 1)[0] if asm.strip() else ""
    return mnemonic(word).lower() != word.lower() or "dpp" in asm or "sdwa" in asm


def pick_for_target(examples: Sequence[McExample] | Prepared, target: str, n: int,
                    skip: Iterable[str] = ()) -> list[McExample]:
    """The `n` simplest examples to try on `target`: from that target first, then its architecture,
    then its family, then any (a gfx90a line is likelier to suit gfx908 than an RDNA4 one)."""
    prepared = examples if examples and isinstance(examples[0], tuple) else prepare(examples)  # type: ignore[arg-type]
    arch = TARGET_TO_ARCH.get(target)
    family = BY_KEY[arch].family if arch else None
    done = set(skip)
    buckets: list[list[McExample]] = [[], [], [], []]
    for ex, targets, archs, families in prepared:         # already simplest first
        if ex.asm in done:
            continue
        rank = 0 if target in targets else 1 if arch in archs else 2 if family in families else 3
        if len(buckets[rank]) < n:
            buckets[rank].append(ex)
    return [ex for b in buckets for ex in b][:n]


def verify_support(by_name: Mapping[str, Sequence[McExample]], targets: Iterable[str], *,
                   negatives: Mapping[str, Sequence[McNegative]] | None = None, per_name: int = 3,
                   tool: LlvmMc | None = None, cache: McCache | bool | None = True,
                   skip_evidenced: bool = True, retry: int = RETRY_EXAMPLES, workers: int = 2) -> list[TargetVerdict]:
    """Verdict per (spelling, target) by assembling representative examples with llvm-mc.

    by_name: manual-style spelling -> its examples on any target (see llvm_mc.examples_by_mnemonic);
    every spelling is tried, so the catalog can call an instruction supported where any of its
    spellings assembles. Targets the tests already cover for a spelling are skipped unless
    skip_evidenced is False. One llvm-mc run per target covers every spelling. Verdicts:
    "supported" (assembled to the same mnemonic); "not supported" only from an instruction-level
    message ("instruction not supported on this GPU"); "beyond" when this llvm-mc does not know
    the target or the mnemonic at all ("invalid instruction": older than the tests); "tool failed"
    when it hung, crashed or answered garbage; otherwise, after `retry` more examples closest to
    the target, "inconclusive" with the operand complaint (never "not supported"). The runs of the
    targets go `workers` at a time.
    """
    tool = tool or find_llvm_mc()
    targets = list(dict.fromkeys(targets))
    verdicts: list[TargetVerdict] = []
    todo: dict[str, list[tuple[str, McExample]]] = {t: [] for t in targets}
    prepared = {name: prepare(exs) for name, exs in by_name.items()}
    for name, exs in by_name.items():
        covered = evidenced_targets(name, exs, (negatives or {}).get(name, ())) if skip_evidenced else set()
        plain = next((ex for ex, *_ in prepared[name] if not variant(ex.asm)), None)
        for target in targets:
            if target in covered:
                # tested, but only as DPP/SDWA/forced lines: a plain line llvm-mc assembles there can lead the page
                own = [ex for ex, tgts, *_ in prepared[name] if target in tgts]
                if plain is not None and own and all(variant(ex.asm) for ex in own) and tool.knows(target):
                    todo[target].append((name, plain))
                continue
            if not tool.knows(target):
                verdicts.append(TargetVerdict(name, target, "beyond", "", tool=tool.label,
                                              message=f"beyond {tool.label} (it knows no {target})"))
                continue
            todo[target] += [(name, ex) for ex in pick_for_target(prepared[name], target, per_name)]
    open_: dict[tuple[str, str], list[tuple[McExample, McResult]]] = {}
    first = _try_all(todo, tool, cache, workers)
    for target in todo:
        for name, tried in first.get(target, {}).items():
            verdict = _decide(name, target, tried, tool)
            if verdict is None:
                open_[(name, target)] = tried
            else:
                verdicts.append(verdict)
    again: dict[str, list[tuple[str, McExample]]] = {}
    for (name, target), tried in open_.items():
        more = pick_for_target(prepared[name], target, retry, skip=(ex.asm for ex, _ in tried))
        again.setdefault(target, []).extend((name, ex) for ex in more)
    retried = _try_all(again, tool, cache, workers)
    still: dict[tuple[str, str], list[tuple[McExample, McResult]]] = {}
    for (name, target), tried in open_.items():
        tried = tried + retried.get(target, {}).get(name, [])
        verdict = _decide(name, target, tried, tool)
        if verdict is None:
            still[(name, target)] = tried
        else:
            verdicts.append(verdict)
    # only operand complaints: the same lines with operands adapted to this target (repaired())
    adapted: dict[str, list[tuple[str, McExample]]] = {}
    for (name, target), tried in still.items():
        seen = {ex.asm for ex, _ in tried}
        for ex, _ in tried:
            for line, how in repaired(ex.asm, target):
                if line not in seen:
                    seen.add(line)
                    adapted.setdefault(target, []).append((name, _adapted(ex, line, how)))
    rerun = _try_all(adapted, tool, cache, workers)
    for (name, target), tried in still.items():
        fixed = rerun.get(target, {}).get(name, [])
        verdict = _decide(name, target, [(ex, res) for ex, res in fixed if res.ok], tool)
        if verdict is not None and verdict.verdict == "supported":
            ex = next(ex for ex, res in fixed if res.ok and ex.asm == verdict.line)
            verdicts.append(replace(verdict, message=ex.input))
        else:
            verdicts.append(_operand_note(name, target, tried))
    return verdicts


# Operand adaptations tried where every example of a spelling drew only operand complaints on a
# target: the tests' lines carry operands of the target they were written for. Each entry: what it
# changes, why, and the LLVM source that shows the adapted form. llvm-mc judges every result.
REPAIRS: tuple[tuple[str, str], ...] = (
    ("even-aligned register pairs", "gfx90a and later need 64-bit VGPR tuples to start at an even register "
     "(misaligned-vgpr-tuples-err.s:97 'vgpr tuples must be 64 bit aligned')"),
    ("VGPRs for AGPRs", "AGPR loads and stores exist from gfx90a on (gfx90a_ldst_acc.s:4491 NOT-GFX90A: "
     "'agpr loads and stores not supported on this GPU')"),
    ("vcc_lo for vcc", "wave32 targets (gfx10+) name the condition register vcc_lo (gfx10_asm_vopc.s:74 "
     "v_cmp_f_f32 vcc_lo, v1, v2)"),
    ("vcc for vcc_lo", "wave64 targets (gfx9, CDNA) write the whole vcc"),
    ("the plain encoding", "DPP, SDWA and forced-encoding suffixes and their modifiers removed (the plain "
     "e32/e64 form a page leads with)"),
    ("dim:SQ_RSRC_IMG_1D", "gfx10+ MIMG takes a dim operand (gfx10_asm_mimg.s:3 image_load v[0:3], v0, s[0:7] "
     "dmask:0xf dim:SQ_RSRC_IMG_1D unorm)"),
)

_VARIANT_MODIFIERS = re.compile(r"\s+(?:dpp8:\[[^\]]*\]|quad_perm:\[[^\]]*\]|row_\w+(?::\S+)?|wave_\w+(?::\S+)?|"
                                r"bank_mask:\S+|row_mask:\S+|bound_ctrl:\S+|fi:\S+|dst_sel:\S+|dst_unused:\S+|"
                                r"src0_sel:\S+|src1_sel:\S+)")


def repaired(asm: str, target: str) -> list[tuple[str, str]]:
    """The line with each REPAIRS adaptation that changes it, then with all of them together."""
    head, _, ops = asm.partition(" ")
    wave32 = target.startswith("gfx1")
    out: list[tuple[str, str]] = []

    def align(m: re.Match) -> str:
        lo, hi = int(m.group(2)), int(m.group(3))
        return m.group(0) if lo % 2 == 0 or hi == lo else f"{m.group(1)}[{lo - 1}:{hi - 1}]"

    plain_head = re.sub(r"_(e32|e64|dpp|sdwa)$", "", head)
    steps = {
        "even-aligned register pairs": lambda h, o: (h, re.sub(r"\b([va])\[(\d+):(\d+)\]", align, o)),
        "VGPRs for AGPRs": lambda h, o: (h, re.sub(r"\ba(\d+)\b", r"v\1", re.sub(r"\ba\[", "v[", o))),
        "vcc_lo for vcc": lambda h, o: (h, re.sub(r"\bvcc\b", "vcc_lo", o) if wave32 else o),
        "vcc for vcc_lo": lambda h, o: (h, o if wave32 else re.sub(r"\bvcc_lo\b", "vcc", o)),
        "the plain encoding": lambda h, o: (plain_head, _VARIANT_MODIFIERS.sub("", o)),
        "dim:SQ_RSRC_IMG_1D": lambda h, o: (h, o + " dim:SQ_RSRC_IMG_1D" if wave32 and h.startswith("image_")
                                             and "dim:" not in o else o),
    }
    all_h, all_o, used = head, ops, []
    for how, _ in REPAIRS:
        h, o = steps[how](head, ops)
        if (h, o) != (head, ops):
            out.append((f"{h} {o}".strip(), how))
            all_h, all_o = steps[how](all_h, all_o)
            used.append(how)
    if len(used) > 1:
        out.append((f"{all_h} {all_o}".strip(), ", ".join(used)))
    return out


def _adapted(ex: McExample, line: str, how: str) -> McExample:
    """An example whose operands were adapted: `input` says from which test line and how."""
    return replace(ex, asm=line, input=f"adapted from {ex.provenance.file}:{ex.provenance.line} ({how})")


def _try_all(todo: Mapping[str, list[tuple[str, McExample]]], tool: LlvmMc, cache: McCache | bool | None,
             workers: int) -> dict[str, dict[str, list[tuple[McExample, McResult]]]]:
    """Assemble every (spelling, example) of each target, one llvm-mc run per target (`workers` at a
    time); per target, the results per spelling."""
    targets = [t for t, pairs in todo.items() if pairs]
    runs = assemble_each([([ex.asm for _, ex in todo[t]], t, "") for t in targets], tool=tool, cache=cache,
                         workers=workers)
    out: dict[str, dict[str, list[tuple[McExample, McResult]]]] = {}
    for target, results in zip(targets, runs, strict=True):
        pairs = todo[target]
        if isinstance(results, LlvmMcFailed):
            results = [McResult(ex.asm, target, "", False, message=f"tool failed: {results}", tool=tool.label)
                       for _, ex in pairs]
        grouped = out.setdefault(target, {})
        for (name, ex), res in zip(pairs, results, strict=True):
            grouped.setdefault(name, []).append((ex, res))
    return out


def instruction_level(message: str) -> bool:
    """llvm-mc's messages about the mnemonic itself, not its operands (see model_llvm.INSTRUCTION_LEVEL)."""
    return bool(INSTRUCTION_LEVEL.match(message))


def _decide(name: str, target: str, tried: list[tuple[McExample, McResult]], tool: LlvmMc) -> TargetVerdict | None:
    """The verdict these tries settle, or None when they drew only operand complaints (try more)."""
    for ex, res in tried:
        if res.ok and name in mnemonics(res.asm):
            return TargetVerdict(name, target, "supported", ex.asm, res.asm, res.bytes,
                                 example=ex.provenance, tool=res.tool, mattr=res.mattr)
    for ex, res in tried:
        if not res.ok and res.message.startswith("instruction not supported"):
            return TargetVerdict(name, target, "not supported", ex.asm, message=res.message,
                                 example=ex.provenance, tool=res.tool)
    for ex, res in tried:
        if not res.ok and res.message.startswith("invalid instruction"):
            # the mnemonic is in LLVM's own tests, but this llvm-mc knows it on no target: too old to judge
            return TargetVerdict(name, target, "beyond", ex.asm, message=f"beyond {tool.label} ({res.message})",
                                 example=ex.provenance, tool=res.tool)
    for ex, res in tried:
        if res.ok:                        # assembles, printed under another name (an alias or rename)
            return TargetVerdict(name, target, "inconclusive", ex.asm, res.asm, res.bytes,
                                 f"assembles as {res.asm.split(' ', 1)[0]}", example=ex.provenance, tool=res.tool,
                                 mattr=res.mattr)
    if tried and all(res.message.startswith("tool failed") or "crashed" in res.message for _, res in tried):
        ex, res = tried[0]
        return TargetVerdict(name, target, "tool failed", ex.asm, message=res.message.removeprefix("tool failed: "),
                             example=ex.provenance, tool=tool.label)
    return None


def _operand_note(name: str, target: str, tried: list[tuple[McExample, McResult]]) -> TargetVerdict:
    """No example assembled and none was refused as an instruction: only operand complaints."""
    ex, res = next(((e, r) for e, r in tried if r.message and not r.message.startswith("tool failed")), tried[0])
    return TargetVerdict(name, target, "inconclusive", ex.asm,
                         message=f"operands: {res.message} ({len(tried)} examples tried, none refused as an instruction)",
                         example=ex.provenance, tool=res.tool)

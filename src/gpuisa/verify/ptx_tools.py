"""ptxas and cuobjdump: where they are, how to run them, and a cache of what they said.

The tools come from pip (`nvidia-cuda-nvcc`, `nvidia-cuda-cuobjdump`, `nvidia-cuda-nvdisasm`,
all 13.5.37) inside site-packages/nvidia/cu13/bin; $GPUISA_PTXAS and $GPUISA_CUOBJDUMP override.
Every run is cached under gpuisa.paths.cache_dir()/ptxas, keyed by the tool version, the
arguments and the PTX text, so a second verification of the same manual runs no tool at all.
What ptxas said about each test line is also kept on its own (LineCache, keyed by the line, the
file header it sat under and the check mode), so a changed form list re-asks only its new lines.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
import subprocess
import tempfile
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from gpuisa.paths import cache_dir
from gpuisa.verify import discover

_LOG = re.compile(r"^ptxas[^,]*, line (\d+); (error|warning|fatal)\s*:\s*(.*)$")


@dataclass(frozen=True, slots=True)
class Tools:
    """The external tools chosen (newest of each), with what ptxas says it can do; missing ones are None."""

    ptxas: Path | None
    cuobjdump: Path | None
    version: str                         # "13.5.37"
    max_ptx: str = ""                    # "9.5": the highest .version this ptxas accepts (its own answer)
    archs: tuple[str, ...] = ()          # -arch values it lists ("sm_75", ..., "compute_121f"); () unknown
    notes: tuple[str, ...] = ()          # what discovery found (versions, other copies, unusable ones)

    @property
    def label(self) -> str:
        return f"ptxas {self.version}" if self.ptxas else ""

    @property
    def release(self) -> str:
        """"13.0" of "13.0.88": how users name a CUDA release."""
        return ".".join(self.version.split(".")[:2])

    def knows_arch(self, arch: str) -> bool:
        """Whether -arch `arch` is one this ptxas lists (True when it lists none: let it answer)."""
        return not self.archs or arch in self.archs


WHEELS_HINT = "pip install nvidia-cuda-nvcc==13.5.37 nvidia-cuda-cuobjdump==13.5.37 nvidia-cuda-nvdisasm==13.5.37"


def find_tools() -> Tools:
    """The newest ptxas and cuobjdump ($GPUISA_PTXAS / $GPUISA_CUOBJDUMP override; pip wheels, PATH,
    $CUDA_HOME, /usr/local/cuda*), with ptxas's highest PTX ISA version and targets from its answers."""
    ptxas = discover.survey("ptxas")
    cuobjdump = discover.survey("cuobjdump")
    notes = [discover.describe(ptxas), discover.describe(cuobjdump)]
    if ptxas.chosen is None:
        return Tools(None, Path(cuobjdump.chosen.path) if cuobjdump.chosen else None, "", notes=tuple(notes))
    path = ptxas.chosen.path
    max_ptx = discover.ptxas_max_ptx(path) or ""
    if not any(c.origin == "pip wheel" for c in ptxas.candidates):
        notes.append(f"no ptxas from the nvidia pip wheels ({WHEELS_HINT})")
    return Tools(Path(path), Path(cuobjdump.chosen.path) if cuobjdump.chosen else None, ptxas.chosen.version_text,
                 max_ptx, discover.ptxas_archs(path), tuple(notes))


@dataclass(frozen=True, slots=True)
class Run:
    """One ptxas run: exit status, per-line messages, and the SASS text when asked for."""

    rc: int
    messages: dict[int, list[str]]   # PTX line -> error messages (warnings dropped)
    header_errors: list[str]         # errors on lines outside any test line, and fatal ones
    sass: str = ""
    fatal_lines: tuple[int, ...] = ()  # lines where ptxas gave up parsing (nothing after is checked)
    failed: str = ""                 # the tool itself failed: "timed out after 120 s", "crashed (signal 11)"


class Runner:
    """Runs ptxas (and cuobjdump on its output) with a disk cache; thread-safe call counters."""

    def __init__(self, tools: Tools, cache: Path | None = None, use_cache: bool = True,
                 timeout: float | None = None) -> None:
        self.tools = tools
        self.timeout = timeout or float(os.environ.get("GPUISA_TOOL_TIMEOUT", "") or CALL_TIMEOUT)
        self.cache = (cache or cache_dir()) / "ptxas" / (tools.version or "none")
        self.use_cache = use_cache
        self.ptxas_calls = 0
        self.cuobjdump_calls = 0
        self.cache_hits = 0
        self._lock = threading.Lock()

    def _key(self, text: str, arch: str, sass: bool) -> Path:
        h = hashlib.sha256(f"{self.tools.version}\0{arch}\0{int(sass)}\0{text}".encode()).hexdigest()
        return self.cache / h[:2] / f"{h}.json"

    def compile(self, text: str, arch: str, sass: bool = False, keep: bool = True) -> Run:
        """Assemble PTX `text` for `arch` (sm_XX, or compute_XX for a parse-only check); `keep`: cache
        the run as a whole (False where the caller keeps its answers per line)."""
        path = self._key(text, arch, sass)
        keep = keep and self.use_cache
        if keep and path.is_file():
            try:
                data = json.loads(path.read_text())
                with self._lock:
                    self.cache_hits += 1
                return _decode(data)
            except (OSError, ValueError, KeyError):
                pass
        data = self._run(text, arch, sass)
        if keep and not data.get("failed"):       # a hang or crash may not happen again
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
            tmp.write_text(json.dumps(data))
            os.replace(tmp, path)
        return _decode(data)

    def _run(self, text: str, arch: str, sass: bool) -> dict:
        assert self.tools.ptxas is not None
        with tempfile.TemporaryDirectory(prefix="gpuisa-ptx-") as tmp:
            src = Path(tmp) / "t.ptx"
            src.write_text(text)
            out = Path(tmp) / "t.cubin"
            cmd = [str(self.tools.ptxas), "-arch", arch, str(src), "-o", str(out) if sass else os.devnull]
            try:
                proc = subprocess.run(cmd, capture_output=True, text=True, timeout=self.timeout, errors="replace")
            except subprocess.TimeoutExpired:
                return {"rc": -1, "log": "", "sass": "", "failed": f"{self.tools.label} timed out after {self.timeout:g} s"}
            with self._lock:
                self.ptxas_calls += 1
            log = proc.stderr + proc.stdout
            failed = _failure_of(proc.returncode, log, self.tools.label)
            if failed:
                return {"rc": proc.returncode, "log": log, "sass": "", "failed": failed}
            listing = ""
            if sass and proc.returncode == 0 and self.tools.cuobjdump and out.is_file():
                env = dict(os.environ)
                env["PATH"] = f"{self.tools.cuobjdump.parent}{os.pathsep}{env.get('PATH', '')}"
                try:
                    dump = subprocess.run([str(self.tools.cuobjdump), "-sass", str(out)], capture_output=True,
                                          text=True, timeout=self.timeout, env=env, errors="replace")
                    listing = dump.stdout if dump.returncode == 0 else ""
                    if dump.returncode != 0:
                        log += "\ncuobjdump: " + dump.stderr.strip()
                except subprocess.SubprocessError as exc:
                    log += f"\ncuobjdump: {exc}"
                with self._lock:
                    self.cuobjdump_calls += 1
            return {"rc": proc.returncode, "log": log, "sass": listing}


CALL_TIMEOUT = 120.0        # seconds per ptxas run ($GPUISA_TOOL_TIMEOUT); a hang becomes "tool failed"


def _failure_of(rc: int, log: str, label: str) -> str:
    """Why a ptxas run says nothing about its input: killed by a signal, or an error exit with no
    diagnostic it would print ("ptxas t.ptx, line N; error : ..." or "ptxas fatal : ...")."""
    if rc < 0:
        return f"{label} crashed (signal {-rc})"
    if rc != 0 and not any(_LOG.match(x.strip()) or x.startswith("ptxas") for x in log.splitlines()):
        first = next((x.strip() for x in log.splitlines() if x.strip()), "no output")
        return f"{label} exited {rc} without a diagnostic ({first[:80]})"
    return ""


def _decode(data: dict) -> Run:
    messages: dict[int, list[str]] = {}
    header: list[str] = []
    fatal: list[int] = []
    for raw in str(data.get("log", "")).splitlines():
        m = _LOG.match(raw.strip())
        if m:
            if m.group(2) == "warning":
                continue
            if m.group(2) == "fatal":
                fatal.append(int(m.group(1)))
            messages.setdefault(int(m.group(1)), []).append(m.group(3).strip())
        elif ("fatal" in raw and "aborted due to errors" not in raw) or raw.startswith("cuobjdump"):
            header.append(raw.strip())
    return Run(int(data.get("rc", -1)), messages, header, str(data.get("sass", "")), tuple(fatal),
               str(data.get("failed", "")))


class LineCache:
    """ptxas's answer per test line, in SQLite under the tool version's cache folder.

    A line's messages do not depend on the lines around it (each is a self-contained block), so
    the key is (check mode and arch, the file header the line sat under, the line): a new form
    list asks ptxas only about lines it never saw. Answers repeat ("Arguments mismatch for
    instruction 'mma'" for thousands of lines), so each distinct answer is stored once. A damaged
    or unwritable cache is dropped and the verification goes on uncached.
    """

    def __init__(self, folder: Path) -> None:
        self.path = folder / "lines.sqlite"
        self._db: sqlite3.Connection | None = None
        self._failed = False
        self._ids: dict[tuple[str, ...], int] = {}   # answer -> its row in `answers`

    def _conn(self) -> sqlite3.Connection | None:
        if self._db is None and not self._failed:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                db = sqlite3.connect(self.path, timeout=60)
                db.execute("PRAGMA journal_mode=WAL")
                db.execute("PRAGMA synchronous=NORMAL")   # a cache: no fsync per commit (hundreds per build)
                db.execute("CREATE TABLE IF NOT EXISTS answers (id INTEGER PRIMARY KEY, messages TEXT UNIQUE)")
                db.execute("CREATE TABLE IF NOT EXISTS lines (key BLOB PRIMARY KEY, answer INTEGER) WITHOUT ROWID")
                self._db = db
            except (sqlite3.Error, OSError):
                self._failed = True
        return self._db

    @staticmethod
    def key(setting: str, line: str) -> bytes:
        return hashlib.blake2b(f"{setting}\0{line}".encode(), digest_size=12).digest()

    def get_many(self, keys: Sequence[bytes]) -> dict[bytes, tuple[str, ...]]:
        db = self._conn()
        out: dict[bytes, tuple[str, ...]] = {}
        if db is None:
            return out
        try:
            texts: dict[int, tuple[str, ...]] = {}
            for i in range(0, len(keys), 900):
                chunk = keys[i:i + 900]
                marks = ",".join("?" * len(chunk))
                for key, answer in db.execute(f"SELECT key, answer FROM lines WHERE key IN ({marks})", chunk):
                    if answer not in texts:
                        row = db.execute("SELECT messages FROM answers WHERE id = ?", (answer,)).fetchone()
                        texts[answer] = tuple(json.loads(row[0])) if row else ()
                    out[key] = texts[answer]
        except (sqlite3.Error, ValueError, TypeError):
            self._drop()
        return out

    def put_many(self, rows: Iterable[tuple[bytes, tuple[str, ...]]]) -> None:
        db = self._conn()
        if db is None:
            return
        try:
            with db:                                   # one transaction: all or nothing
                out: list[tuple[bytes, int]] = []
                for key, msgs in rows:
                    answer = self._ids.get(msgs)
                    if answer is None:
                        text = json.dumps(list(msgs))
                        db.execute("INSERT OR IGNORE INTO answers (messages) VALUES (?)", (text,))
                        answer = self._ids[msgs] = db.execute("SELECT id FROM answers WHERE messages = ?",
                                                              (text,)).fetchone()[0]
                    out.append((key, answer))
                db.executemany("INSERT OR REPLACE INTO lines VALUES (?, ?)", out)
        except sqlite3.Error:
            self._drop()

    def _drop(self) -> None:
        if self._db is not None:
            self._db.close()
        self._db, self._failed = None, True

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

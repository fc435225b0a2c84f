"""ptxas and cuobjdump: where they are, how to run them, and a cache of what they said.

The tools come from pip (`nvidia-cuda-nvcc`, `nvidia-cuda-cuobjdump`, `nvidia-cuda-nvdisasm`,
all 13.5.37) inside site-packages/nvidia/cu13/bin; $GPUISA_PTXAS and $GPUISA_CUOBJDUMP override.
Every run is cached under gpuisa.paths.cache_dir()/ptxas, keyed by the tool version, the
arguments and the PTX text, so a second verification of the same manual runs no tool at all.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from gpuisa.paths import cache_dir

_LOG = re.compile(r"^ptxas[^,]*, line (\d+); (error|warning|fatal)\s*:\s*(.*)$")


def _site_bins() -> list[Path]:
    try:
        import nvidia  # type: ignore[import-not-found]
    except ImportError:
        return []
    out: list[Path] = []
    for base in getattr(nvidia, "__path__", []):
        for sub in ("cu13/bin", "cuda_nvcc/bin", "cuda_cuobjdump/bin", "cu12/bin"):
            p = Path(base) / sub
            if p.is_dir():
                out.append(p)
    return out


def _find(tool: str, env: str) -> Path | None:
    override = os.environ.get(env)
    if override:
        p = Path(override)
        return p if p.is_file() else None
    for d in _site_bins():
        if (d / tool).is_file():
            return d / tool
    found = shutil.which(tool)
    return Path(found) if found else None


@dataclass(frozen=True, slots=True)
class Tools:
    """The external tools found, with ptxas's version ("13.5.37"); missing ones are None."""

    ptxas: Path | None
    cuobjdump: Path | None
    version: str

    @property
    def label(self) -> str:
        return f"ptxas {self.version}" if self.ptxas else ""


def find_tools() -> Tools:
    """Locate ptxas and cuobjdump ($GPUISA_PTXAS / $GPUISA_CUOBJDUMP, pip wheels, PATH)."""
    ptxas = _find("ptxas", "GPUISA_PTXAS")
    cuobjdump = _find("cuobjdump", "GPUISA_CUOBJDUMP")
    version = ""
    if ptxas:
        try:
            out = subprocess.run([str(ptxas), "--version"], capture_output=True, text=True, timeout=30).stdout
        except (OSError, subprocess.SubprocessError):
            return Tools(None, cuobjdump, "")
        m = re.search(r"V(\d+\.\d+\.\d+)", out)
        version = m.group(1) if m else out.strip().splitlines()[-1] if out.strip() else "unknown"
    return Tools(ptxas, cuobjdump, version)


@dataclass(frozen=True, slots=True)
class Run:
    """One ptxas run: exit status, per-line messages, and the SASS text when asked for."""

    rc: int
    messages: dict[int, list[str]]   # PTX line -> error messages (warnings dropped)
    header_errors: list[str]         # errors on lines outside any test line, and fatal ones
    sass: str = ""
    fatal_lines: tuple[int, ...] = ()  # lines where ptxas gave up parsing (nothing after is checked)


class Runner:
    """Runs ptxas (and cuobjdump on its output) with a disk cache; thread-safe call counters."""

    def __init__(self, tools: Tools, cache: Path | None = None, use_cache: bool = True) -> None:
        self.tools = tools
        self.cache = (cache or cache_dir()) / "ptxas" / (tools.version or "none")
        self.use_cache = use_cache
        self.ptxas_calls = 0
        self.cuobjdump_calls = 0
        self.cache_hits = 0
        self._lock = threading.Lock()

    def _key(self, text: str, arch: str, sass: bool) -> Path:
        h = hashlib.sha256(f"{self.tools.version}\0{arch}\0{int(sass)}\0{text}".encode()).hexdigest()
        return self.cache / h[:2] / f"{h}.json"

    def compile(self, text: str, arch: str, sass: bool = False, header_lines: int = 0) -> Run:
        """Assemble PTX `text` for `arch` (sm_XX, or compute_XX for a parse-only check)."""
        path = self._key(text, arch, sass)
        if self.use_cache and path.is_file():
            try:
                data = json.loads(path.read_text())
                with self._lock:
                    self.cache_hits += 1
                return _decode(data)
            except (OSError, ValueError, KeyError):
                pass
        data = self._run(text, arch, sass)
        if self.use_cache:
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
                proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
            except subprocess.TimeoutExpired:
                return {"rc": -1, "log": "ptxas fatal   : timed out", "sass": ""}
            with self._lock:
                self.ptxas_calls += 1
            log = proc.stderr + proc.stdout
            listing = ""
            if sass and proc.returncode == 0 and self.tools.cuobjdump and out.is_file():
                env = dict(os.environ)
                env["PATH"] = f"{self.tools.cuobjdump.parent}{os.pathsep}{env.get('PATH', '')}"
                try:
                    dump = subprocess.run([str(self.tools.cuobjdump), "-sass", str(out)], capture_output=True,
                                          text=True, timeout=600, env=env)
                    listing = dump.stdout if dump.returncode == 0 else ""
                    if dump.returncode != 0:
                        log += "\ncuobjdump: " + dump.stderr.strip()
                except subprocess.SubprocessError as exc:
                    log += f"\ncuobjdump: {exc}"
                with self._lock:
                    self.cuobjdump_calls += 1
            return {"rc": proc.returncode, "log": log, "sass": listing}


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
    return Run(int(data.get("rc", -1)), messages, header, str(data.get("sass", "")), tuple(fatal))

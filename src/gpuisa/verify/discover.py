"""Find every installed copy of an external tool, ask each what it is, and pick the newest.

Why: real machines hold several. CUDA 13.0's ptxas (PTX ISA up to 9.0) is first on PATH while a
pip wheel brings ptxas 13.5 (PTX 9.5); `llvm-mc` on PATH is LLVM 14 while /usr/lib/llvm-22 has 22.
The first one found is often the oldest, and a tool too old for a feature must not judge it, so
every candidate is asked for its version (and ptxas for its highest PTX ISA version and targets,
from its own answers), and the newest wins. An explicit override ($GPUISA_PTXAS, ...) is used as
given. Every question has a timeout: a tool that hangs, crashes or prints garbage is listed as
unusable with the reason, never chosen.
"""

from __future__ import annotations

import contextlib
import glob
import os
import re
import subprocess
import tempfile
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

ASK_TIMEOUT = 20.0          # seconds for `--version` and the other questions

# where each tool may live, besides $PATH (in order of preference among equal versions)
ENV_OVERRIDE = {"ptxas": "GPUISA_PTXAS", "cuobjdump": "GPUISA_CUOBJDUMP", "llvm-mc": "GPUISA_LLVM_MC"}
WHEEL_SUBDIRS = ("cu13/bin", "cu12/bin", "cuda_nvcc/bin", "cuda_cuobjdump/bin", "cuda_nvdisasm/bin")
CUDA_HOMES = ("CUDA_HOME", "CUDA_PATH")
CUDA_GLOBS = ("/usr/local/cuda/bin", "/usr/local/cuda-*/bin", "/opt/cuda/bin")
LLVM_GLOBS = ("/usr/lib/llvm-*/bin", "/usr/local/opt/llvm/bin", "/opt/homebrew/opt/llvm/bin", "/opt/rocm/llvm/bin",
              "/opt/rocm-*/llvm/bin")

_NVIDIA_VERSION = re.compile(r"\bV(\d+)\.(\d+)\.(\d+)")
_LLVM_VERSION = re.compile(r"LLVM version (\d+)\.(\d+)\.(\d+)")
_PTX_MAX = re.compile(r"current version is '(\d+)\.(\d+)'")
_ALLOWED = re.compile(r"Allowed values for this option:(.*?)(?:\n\s*\n|\n--|\Z)", re.S)


@dataclass(frozen=True, slots=True)
class Candidate:
    """One copy of a tool: where it is, how it was found, and what it said about itself."""

    tool: str                       # "ptxas"
    path: str
    origin: str                     # "$GPUISA_PTXAS", "pip wheel", "PATH", "$CUDA_HOME", "/usr/lib/llvm-*"
    version: tuple[int, ...] = ()   # (13, 5, 37); () when it gave none
    problem: str = ""               # why it cannot be used ("timed out", "prints no version")

    @property
    def version_text(self) -> str:
        return ".".join(map(str, self.version))

    @property
    def usable(self) -> bool:
        return bool(self.version) and not self.problem


@dataclass(frozen=True, slots=True)
class Survey:
    """Every candidate of one tool, newest usable first, and the one chosen (None: none usable)."""

    tool: str
    chosen: Candidate | None
    candidates: tuple[Candidate, ...] = field(default=())

    def others(self) -> list[Candidate]:
        return [c for c in self.candidates if c is not self.chosen]


def _ask(cmd: list[str], stdin: str | None = None) -> tuple[int | None, str]:
    """Exit status and stdout+stderr of one question; (None, reason) when the tool hangs or cannot run."""
    try:
        proc = subprocess.run(cmd, input=stdin, capture_output=True, text=True, timeout=ASK_TIMEOUT,
                              errors="replace")
    except subprocess.TimeoutExpired:
        return None, f"timed out after {ASK_TIMEOUT:g} s"
    except OSError as exc:
        return None, f"cannot run: {exc.strerror or exc}"
    return proc.returncode, proc.stdout + proc.stderr


def _wheel_dirs() -> list[Path]:
    """bin folders of the nvidia-* pip wheels importable here (nvidia-cuda-nvcc puts ptxas in cu13/bin)."""
    try:
        import nvidia  # type: ignore[import-not-found]
    except ImportError:
        return []
    return [Path(base) / sub for base in getattr(nvidia, "__path__", []) for sub in WHEEL_SUBDIRS
            if (Path(base) / sub).is_dir()]


def _places(tool: str) -> list[tuple[Path, str]]:
    """Folders to look in, with how each was found (deduplicated later by the file's real path)."""
    out: list[tuple[Path, str]] = []
    if tool in ("ptxas", "cuobjdump"):
        out += [(d, "pip wheel") for d in _wheel_dirs()]
    out += [(Path(d), "PATH") for d in os.environ.get("PATH", "").split(os.pathsep) if d]
    if tool in ("ptxas", "cuobjdump"):
        out += [(Path(os.environ[v]) / "bin", f"${v}") for v in CUDA_HOMES if os.environ.get(v)]
        out += [(Path(d), d.replace("*", "N")) for g in CUDA_GLOBS for d in sorted(glob.glob(g))]
    else:
        out += [(Path(d), d) for g in LLVM_GLOBS for d in sorted(glob.glob(g))]
    return out


def _names(tool: str, folder: Path) -> list[Path]:
    """The tool's file names in `folder`: llvm-mc also as llvm-mc-22 (Debian's versioned names)."""
    names = [folder / tool]
    if tool == "llvm-mc" and folder.is_dir():
        with contextlib.suppress(OSError):
            names += sorted(folder / n for n in os.listdir(folder) if re.fullmatch(r"llvm-mc-\d+", n))
    return [p for p in names if p.is_file() and os.access(p, os.X_OK)]


def version_of(tool: str, path: str) -> tuple[tuple[int, ...], str]:
    """(version, problem) from `TOOL --version`."""
    rc, out = _ask([path, "--version"])
    if rc is None:
        return (), out
    m = (_LLVM_VERSION if tool == "llvm-mc" else _NVIDIA_VERSION).search(out)
    if not m:
        return (), f"prints no version (exit {rc})" if rc else "prints no version"
    return tuple(int(x) for x in m.groups()), ""


_SURVEYS: dict[tuple, Survey] = {}


def survey(tool: str) -> Survey:
    """Every copy of `tool`, each asked for its version; the override if set, else the newest usable.
    Remembered per process for the same environment (PATH, overrides, search places)."""
    key = (tool, *(os.environ.get(v, "") for v in ("PATH", ENV_OVERRIDE[tool], *CUDA_HOMES)), CUDA_GLOBS, LLVM_GLOBS)
    if key not in _SURVEYS:
        _SURVEYS[key] = _survey(tool)
    return _SURVEYS[key]


def _survey(tool: str) -> Survey:
    override = os.environ.get(ENV_OVERRIDE[tool])
    if override:
        version, problem = version_of(tool, override) if os.path.isfile(override) else ((), "no such file")
        cand = Candidate(tool, override, f"${ENV_OVERRIDE[tool]}", version, problem)
        return Survey(tool, cand if cand.usable else None, (cand,))
    seen: set[str] = set()
    found: list[Candidate] = []
    for folder, origin in _places(tool):
        for path in _names(tool, folder):
            real = os.path.realpath(path)
            if real in seen:
                continue
            seen.add(real)
            version, problem = version_of(tool, str(path))
            found.append(Candidate(tool, str(path), origin, version, problem))
    usable = sorted((c for c in found if c.usable), key=lambda c: c.version, reverse=True)   # stable: place order
    ordered = tuple(usable + [c for c in found if not c.usable])
    return Survey(tool, usable[0] if usable else None, ordered)


# ---------------------------------------------------------------- what a tool says it can do


@cache
def ptxas_max_ptx(path: str) -> str | None:
    """The highest PTX ISA version this ptxas accepts, from its own answer to `.version 99.9`:
    "Unsupported .version 99.9; current version is '9.0'" (None when it says nothing usable)."""
    with tempfile.TemporaryDirectory(prefix="gpuisa-ask-") as tmp:
        src = Path(tmp) / "v.ptx"
        src.write_text(".version 99.9\n.target sm_80\n")
        rc, out = _ask([path, "-arch", "sm_80", str(src), "-o", os.devnull])
    m = _PTX_MAX.search(out) if rc is not None else None
    return f"{m.group(1)}.{m.group(2)}" if m else None


@cache
def ptxas_archs(path: str) -> tuple[str, ...]:
    """The -arch values this ptxas lists in `--help` ("Allowed values for this option" of --gpu-name):
    sm_75 .. sm_121f, compute_*; () when it lists none."""
    rc, out = _ask([path, "--help"])
    if rc is None:
        return ()
    start = out.find("--gpu-name")
    m = _ALLOWED.search(out, start if start >= 0 else 0)
    return tuple(re.findall(r"'([a-z_]+\d+[af]?)'", m.group(1))) if m else ()


@cache
def llvm_mc_cpus(path: str) -> tuple[str, ...]:
    """The gfx processors this llvm-mc knows (`-mcpu=help`); () when it lists none."""
    rc, out = _ask([path, "-triple=amdgcn", "-mcpu=help"], stdin="")
    if rc is None:
        return ()
    return tuple(dict.fromkeys(re.findall(r"^\s+(gfx\w+)\s+-", out, re.M)))


def describe(s: Survey) -> str:
    """One line for build notes: what was chosen, and what else was found and why it was not."""
    if s.chosen is None:
        found = "; ".join(f"{c.path}: {c.problem or 'unusable'}" for c in s.candidates)
        return f"{s.tool}: none usable" + (f" ({found})" if found else " (none found)")
    c = s.chosen
    text = f"{s.tool} {c.version_text} ({c.path}, from {c.origin})"
    rest = [f"{o.version_text or '?'} at {o.path}" + (f" ({o.problem})" if o.problem else "") for o in s.others()]
    return text + (f"; also found {', '.join(rest)}" if rest else "")

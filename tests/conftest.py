"""Shared fixtures: the vendor sources and one catalog built per test session."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SOURCES = Path(os.environ.get("GPUISA_SOURCES", REPO.parent / "shared" / "sources")).resolve()
MANUALS = SOURCES / "amd-isa-manuals"

# Every test reads the same sources, and none reads a catalog the user happens to have built:
# code that looks for the default catalog finds none and reads the sources instead.
os.environ["GPUISA_SOURCES"] = str(SOURCES)
os.environ["GPUISA_CATALOG"] = str(Path(tempfile.gettempdir()) / f"gpuisa-tests-{os.getpid()}" / "no-catalog.sqlite")


def _manual_texts():
    from gpuisa.sources.read import ManualTexts

    return ManualTexts(sources=SOURCES)


# The manuals' own text for semantics tests (each manual read on first use): the facts they check
# are manual lines, so they evaluate what the manual says, not what a catalog build made of it.
TEXTS = _manual_texts()


def manual_line(arch: str, line: int) -> str:
    """One line of a manual, so a test can show the fact it asserts is really in the source."""
    with open(MANUALS / arch / "README.md", encoding="utf-8") as fh:
        for i, text in enumerate(fh, 1):
            if i == line:
                return text.rstrip("\n")
    raise AssertionError(f"{arch} manual has no line {line}")


@pytest.fixture(scope="session")
def sources() -> Path:
    if not MANUALS.is_dir():
        pytest.skip(f"vendor sources not found at {SOURCES} (set GPUISA_SOURCES)")
    return SOURCES


# Request budget for apps in tests that check what pages and the API say, not how fast: a 503 from the 5 s
# production budget under a loaded CI machine is not their subject (the budget has its own tests: test_web_budgets).
CONTENT_REQUEST_SECONDS = 120


# ---------------------------------------------------------------- the session catalog, built in the background
# A full build takes minutes: it starts in its own process as soon as collection shows a test needs it, the tests
# that do not need it run meanwhile (they are ordered first), and with pytest-xdist all workers share the one
# build through a lock (the controller makes the folder; the first worker to need the catalog starts the build).
_SESSION_DIR_ENV = "GPUISA_TEST_SESSION_DIR"
_BUILD_TIMEOUT_S = 2400


def _needs_catalog(item: pytest.Item) -> bool:
    return "catalog_path" in getattr(item, "fixturenames", ())


def pytest_configure(config: pytest.Config) -> None:
    if not hasattr(config, "workerinput") and _SESSION_DIR_ENV not in os.environ:
        os.environ[_SESSION_DIR_ENV] = tempfile.mkdtemp(prefix="gpuisa-session-")
        config._gpuisa_session_owner = True  # type: ignore[attr-defined]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    needing = [i for i in items if _needs_catalog(i)]
    items[:] = [i for i in items if not _needs_catalog(i)] + needing   # stable: the same order in every worker
    if needing and MANUALS.is_dir():
        _start_session_build()


def pytest_unconfigure(config: pytest.Config) -> None:
    if getattr(config, "_gpuisa_session_owner", False):
        folder = Path(os.environ.pop(_SESSION_DIR_ENV))
        pid = folder / "build.pid"
        if pid.exists() and not (folder / "build.rc").exists():   # the session ended before the build did
            import signal

            with contextlib.suppress(ProcessLookupError, ValueError):
                os.killpg(int(pid.read_text()), signal.SIGKILL)
        shutil.rmtree(folder, ignore_errors=True)


def _session_dir() -> Path:
    folder = os.environ.get(_SESSION_DIR_ENV)
    if folder is None:   # conftest imported outside a pytest session's configure step
        folder = os.environ[_SESSION_DIR_ENV] = tempfile.mkdtemp(prefix="gpuisa-session-")
    return Path(folder)


# The session catalog is built the way a user on a new machine builds it, and the test that `build --sources DIR`
# reads DIR and nothing else (tests/test_build_sources.py) checks this same build instead of paying for another:
# the CLI in a clean process (an empty HOME, no GPUISA_*, XDG_* or PYTHONPATH from the caller), from a copy of the
# package and a working folder that have no ../shared/sources beside them, with the sources given through links
# in a folder of another name. The tool and proof caches are not sources: it keeps the caller's GPUISA_CACHE.
# It verifies with llvm-mc when llvm-mc 22 is installed (tests/test_verdicts.py reads its verdicts; llvm-mc reads
# no sources) and never with ptxas (a cold whole-manual ptxas run takes many minutes: tests/test_ptx_verify.py).
SESSION_SOURCES = ("given", "my-sources")   # under the session folder
SESSION_PACKAGE = ("pkg", "src")
SESSION_HOME, SESSION_WORK = "home", "work"


def _session_build_command(folder: Path) -> tuple[list[str], dict[str, str], Path]:
    import sys

    from gpuisa.paths import cache_dir
    from gpuisa.sources.layout import AMD_MANUALS, LLVM_TREE, PTX_EDITION, PTX_OLDER

    given = folder.joinpath(*SESSION_SOURCES)
    given.mkdir(parents=True)
    for name in (AMD_MANUALS, LLVM_TREE, PTX_EDITION, PTX_OLDER):
        if (SOURCES / name).is_dir():
            (given / name).symlink_to(SOURCES / name, target_is_directory=True)
    pkg = folder.joinpath(*SESSION_PACKAGE)
    shutil.copytree(REPO / "src" / "gpuisa", pkg / "gpuisa", ignore=shutil.ignore_patterns("__pycache__"))
    home, work = folder / SESSION_HOME, folder / SESSION_WORK
    home.mkdir()
    work.mkdir()
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("GPUISA_", "XDG_")) and k not in ("HOME", "PYTHONPATH")}
    env.update(HOME=str(home), PYTHONPATH=str(pkg), COLUMNS="400", GPUISA_CACHE=str(cache_dir()))
    from gpuisa.verify import llvm_mc

    verify = ["--verify-with", "llvm-mc"] if llvm_mc.available() else ["--no-verify"]
    # the hinted Rosetta forms are computed (tests read their cells: sad.u32 = v_sad_u32 proved, the hinted
    # sequences); the others stay "not computed yet", as in a user's default build (`--rosetta all` takes minutes).
    # --force: built, not copied from a catalog the cache folder keeps (tests read what the build printed)
    cmd = [sys.executable, "-m", "gpuisa", "build", "--sources", str(given), "--catalog",
           str(folder / "catalog.sqlite"), *verify, "--jobs", "2", "--rosetta", "hinted", "--force"]
    return cmd, env, work


def _start_session_build() -> None:
    """Start the full build (verified with llvm-mc only) once per session (whichever process gets the lock first)."""
    import fcntl
    import shlex
    import subprocess

    folder = _session_dir()
    with open(folder / "build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (folder / "build.pid").exists():
            return
        cmd, env, work = _session_build_command(folder)
        # stdout (the build's notes) and stderr apart: tests read the notes, a failure shows the log's tail
        line = (f'{shlex.join(cmd)} > "{folder / "build.out"}" 2> "{folder / "build.log"}"; '
                f'echo $? > "{folder / "build.rc.tmp"}"; mv "{folder / "build.rc.tmp"}" "{folder / "build.rc"}"')
        proc = subprocess.Popen(["/bin/sh", "-c", line], start_new_session=True, stdin=subprocess.DEVNULL,
                                cwd=work, env=env)
        (folder / "build.pid").write_text(str(proc.pid))


def _wait_for_session_build() -> Path:
    import time

    _start_session_build()   # a test run without collection hooks (e.g. a direct fixture request)
    folder = _session_dir()
    deadline = time.monotonic() + _BUILD_TIMEOUT_S
    while not (folder / "build.rc").exists():
        if time.monotonic() > deadline:
            pytest.fail(f"the session catalog build did not finish in {_BUILD_TIMEOUT_S} s; log: {folder / 'build.log'}")
        time.sleep(0.5)
    rc = (folder / "build.rc").read_text().strip()
    if rc != "0":
        log = ((folder / "build.out").read_text(errors="replace")[-1500:] + "\n"
               + (folder / "build.log").read_text(errors="replace")[-3000:])
        pytest.fail(f"the session catalog build failed (exit {rc}):\n{log}", pytrace=False)
    return folder / "catalog.sqlite"


@pytest.fixture(scope="session")
def catalog_path(sources: Path) -> Path:
    return _wait_for_session_build()


@pytest.fixture(scope="session")
def session_build(catalog_path: Path) -> Path:
    """The folder of the session catalog's build: its sources, package copy, HOME, working folder, stdout."""
    return catalog_path.parent


@pytest.fixture(scope="session")
def catalog(catalog_path: Path):
    from gpuisa.catalog.query import Catalog

    return Catalog(catalog_path)

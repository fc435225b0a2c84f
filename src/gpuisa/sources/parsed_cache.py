"""Parsed sources kept on disk, so a rebuild parses a manual or the syntax pages again only when they changed.

Why: the vendor sources are fixed releases, yet every build, every `serve` restart and every test process
parsed them again (the twelve manuals, LLVM's syntax pages and the PTX manual: about a minute of a build on
two cores). An entry's key holds the reader, its arguments, every file it reads (real path, size,
modification time) and a digest of this package's code, so an edited file or an edited reader is a miss,
never a stale hit. A damaged or unreadable entry is a miss too (parsed again and rewritten); entries are
written atomically, so concurrent builds and test workers share them safely. The cache lives in the
user's own cache folder (`paths.cache_dir()`, next to the tool results); GPUISA_PARSE_CACHE=0 turns it off.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import os
import pickle
import tempfile
from collections.abc import Callable, Iterable
from functools import lru_cache
from pathlib import Path
from typing import TypeVar

from gpuisa.paths import cache_dir

T = TypeVar("T")

KEEP_PER_KIND = 6          # entries kept per reader (older code versions and source releases are removed)
_PACKAGE = Path(__file__).resolve().parents[1]


@lru_cache(maxsize=1)
def code_digest() -> str:
    """Digest of every module of the package: a reader's output depends on more than its own file."""
    h = hashlib.sha256()
    for path in sorted(_PACKAGE.rglob("*.py")):
        h.update(str(path.relative_to(_PACKAGE)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def file_stamp(path: Path) -> str:
    """A file's real path, size and modification time (missing files included): what a key holds."""
    try:
        st = path.stat()
    except OSError:
        return f"{path}:missing"
    return f"{path.resolve()}:{st.st_size}:{st.st_mtime_ns}"


def enabled() -> bool:
    return os.environ.get("GPUISA_PARSE_CACHE", "1") != "0"


def parsed(kind: str, args: tuple[str, ...], files: Iterable[Path], parse: Callable[[], T],
           keep: Callable[[T], bool] | None = None) -> T:
    """`parse()`, or what it returned last time for the same reader, arguments, files and code (`keep`: whether
    a fresh value may be stored; a result that holds a tool's hang or crash is not, it may not happen again)."""
    if not enabled():
        return parse()
    h = hashlib.sha256("\0".join((kind, code_digest(), *args)).encode())
    for path in sorted(files):
        h.update(file_stamp(path).encode())
    folder = cache_dir() / "parsed"
    entry = folder / f"{kind}-{h.hexdigest()[:32]}.pickle"
    found = _load(entry)
    if found is not None:
        with contextlib.suppress(OSError):
            os.utime(entry)                # pruning keeps what is used
        return found
    value = parse()
    if keep is not None and not keep(value):
        return value
    with contextlib.suppress(OSError):     # a read-only or full cache folder costs the speed-up, not the build
        _store(entry, value)
        _prune(folder, kind)
    return value


def _load(entry: Path):
    try:
        with open(entry, "rb") as fh:
            data = fh.read()
    except OSError:
        return None
    was = gc.isenabled()
    gc.disable()                           # loading creates many objects and no cycles: ~10x faster this way
    try:
        return pickle.loads(data)
    except Exception:                      # a truncated or foreign entry is a miss
        return None
    finally:
        if was:
            gc.enable()


def _store(entry: Path, value: object) -> None:
    entry.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{entry.name}.", suffix=".tmp", dir=entry.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            pickle.dump(value, out, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, entry)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _prune(folder: Path, kind: str) -> None:
    entries = sorted(folder.glob(f"{kind}-*.pickle"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in entries[KEEP_PER_KIND:]:
        old.unlink(missing_ok=True)

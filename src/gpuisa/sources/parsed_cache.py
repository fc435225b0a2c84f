"""Parsed sources kept on disk, so a rebuild parses a manual or the syntax pages again only when they changed.

Why: the vendor sources are fixed releases, yet every build, every `serve` restart and every test process
parsed them again (the twelve manuals, LLVM's syntax pages and the PTX manual: about a minute of a build on
two cores). An entry's key holds the reader, its arguments, every file it reads (real path, size, modification
time) and a digest of the code the reader runs (`code_digest_for`: the parse function's own code and the
import closure of every gpuisa module it calls, read from the modules' import statements), so an edited file
or an edited reader is a miss, never a stale hit, while an edit elsewhere in the package keeps the entry. A
damaged or unreadable entry is a miss too (parsed again and rewritten); entries are written atomically, so
concurrent builds and test workers share them safely. The cache lives in the user's own cache folder
(`paths.cache_dir()`, next to the tool results); GPUISA_PARSE_CACHE=0 turns it off.
"""

from __future__ import annotations

import ast
import contextlib
import gc
import hashlib
import os
import pickle
import tempfile
import types
from collections.abc import Callable, Iterable
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar

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


def _module_file(module: str, package: Path) -> Path:
    path = package.parent.joinpath(*module.split("."))
    return path.with_suffix(".py") if path.with_suffix(".py").is_file() else path / "__init__.py"


def _imports(path: Path, top_level_only: bool) -> set[str]:
    """The gpuisa modules a file imports (`from gpuisa.x import y` names gpuisa.x and, when it is one, gpuisa.x.y);
    inside functions too unless top_level_only (a parent package's __init__ runs only its top level on import)."""
    tree = ast.parse(path.read_bytes())
    found: set[str] = set()
    for node in tree.body if top_level_only else ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.split(".")[0] == "gpuisa"}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").split(".")[0] == "gpuisa":
            found.add(node.module or "")
            found |= {f"{node.module}.{a.name}" for a in node.names}
    return found


def module_closure(roots: Iterable[str], package: Path | None = None) -> list[Path]:
    """The files of the gpuisa modules `roots` import, directly or not, with their parent packages: the code a
    reader in those modules can run (imports are read, not executed; a name that is no module is skipped)."""
    package = package or _PACKAGE
    full: dict[str, Path] = {}
    top_only: dict[str, Path] = {}
    todo = [(r, False) for r in roots]
    while todo:
        module, top = todo.pop()
        if module in full or (top and module in top_only):
            continue
        path = _module_file(module, package)
        if not path.is_file():
            continue
        (top_only if top else full)[module] = path
        parts = module.split(".")
        todo += [(".".join(parts[:i]), True) for i in range(1, len(parts))]
        todo += [(m, False) for m in _imports(path, top)]
    return sorted({*full.values(), *top_only.values()})


def _code_text(code: types.CodeType) -> list[str]:
    """A code object's instructions, names and constants (nested functions included), without line numbers."""
    out = [code.co_code.hex(), " ".join(code.co_names)]
    for const in code.co_consts:
        out += _code_text(const) if isinstance(const, types.CodeType) else [repr(const)]
    return out


def _names(code: types.CodeType) -> set[str]:
    found = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            found |= _names(const)
    return found


def code_digest_for(parse: Callable[..., Any]) -> str:
    """Digest of the code `parse` runs: its own code and that of the function it is defined in (a lambda's), the
    simple constants they read, and the import closure of every gpuisa module whose functions, classes or module
    objects they name (not the defining module's: the build's would be the whole package). Anything that is not
    a plain function, or names no gpuisa code, falls back to the whole package (code_digest)."""
    if not isinstance(parse, types.FunctionType):
        return code_digest()
    codes = [parse.__code__]
    outer = parse.__code__.co_qualname.split(".<locals>.")[0]
    if outer != parse.__code__.co_qualname and isinstance(parse.__globals__.get(outer), types.FunctionType):
        codes.append(parse.__globals__[outer].__code__)
    roots: set[str] = set()
    h = hashlib.sha256()
    for code in codes:
        h.update("\0".join(_code_text(code)).encode())
        for name in sorted(_names(code)):
            obj = parse.__globals__.get(name)
            if isinstance(obj, types.ModuleType):
                roots.add(obj.__name__)
            elif isinstance(obj, (str, int, float, tuple, frozenset)):
                h.update(f"{name}={obj!r}".encode())
            elif isinstance(getattr(obj, "__module__", None), str):
                roots.add(obj.__module__)
    roots = {r for r in roots if r.split(".")[0] == "gpuisa"}
    if not roots:
        return code_digest()            # it calls no gpuisa code we can follow: be safe
    h.update(_closure_digest(frozenset(roots)).encode())
    return h.hexdigest()


@lru_cache(maxsize=64)
def _closure_digest(roots: frozenset[str]) -> str:
    h = hashlib.sha256()
    for path in module_closure(roots):
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
    h = hashlib.sha256("\0".join((kind, code_digest_for(parse), *args)).encode())
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

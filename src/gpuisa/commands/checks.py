"""Checks of output locations, run before a command starts long work (a build takes minutes).

Each check really creates (and removes) a probe file where the output will go, so a path under
a regular file, on a read-only filesystem or in a folder the user cannot write fails at once with
one line naming the path, instead of after the build.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from gpuisa.errors import GpuisaError


def _probe(folder: Path, what: str, path: Path) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=".gpuisa-probe-", dir=folder)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise GpuisaError(f"cannot write the {what} {path}: {exc.strerror or exc}") from None


def output_file(path: Path, what: str) -> Path:
    """A file the command will write (replacing it atomically): not a folder, and its folder writable."""
    path = Path(path)
    if path.is_dir():
        raise GpuisaError(f"the {what} {path} is a folder; give a file name")
    if path.exists() and not path.is_file():
        raise GpuisaError(f"the {what} {path} exists and is not a regular file")
    _probe(path.parent, what, path)
    return path


def output_dir(path: Path, what: str) -> Path:
    """A folder the command will fill: not an existing file, and writable (created when missing)."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise GpuisaError(f"the {what} {path} exists and is not a folder")
    _probe(path, what, path)
    return path

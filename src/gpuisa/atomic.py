"""Writing a file so that readers see the old or the new content, never a mixture or half a file.

The content goes to a uniquely named temporary file in the same folder (so concurrent writers,
threads or processes, never share one) and is renamed over the target, which POSIX makes atomic.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_text(path: Path, text: str) -> None:
    """Replace `path` with `text` (UTF-8) atomically; the folder is created when missing."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise

"""Reading vendor text files with a size bound: a damaged or hostile source cannot exhaust memory.

At most `limit + 1` bytes are ever read (also from a file whose size the filesystem misreports);
a larger file is a SourceError naming it, before any parsing. Newlines are read as Python's text
mode reads them (\\r\\n and \\r become \\n), so line numbers match the ones an editor shows.
"""

from __future__ import annotations

from pathlib import Path

from gpuisa.errors import SourceError


def read_text(path: Path, limit: int, rel: str | None = None) -> str:
    """The UTF-8 text of `path` (at most `limit` bytes); `rel` is the name used in errors."""
    where = rel or str(path)
    try:
        with open(path, "rb") as fh:
            data = fh.read(limit + 1)
    except FileNotFoundError:
        raise SourceError(where, "not found") from None
    except OSError as exc:
        raise SourceError(where, f"cannot read: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise SourceError(where, f"larger than {limit >> 20} MB, the limit for one source file "
                                 "(the real ones are far smaller); refused")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SourceError(where, f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    return text.replace("\r\n", "\n").replace("\r", "\n")

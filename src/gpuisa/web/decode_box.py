"""The decode box's server side: a target's codec tables prepared off the request path.

The codec builds a target's tables on first use (seconds to tens of seconds, then cached on disk per
catalog). A web request must not wait for that inside its 5 s budget, nor hold a worker thread while
it happens: a request for a target without tables starts the build on one background thread and is
told "preparing" (503 with Retry-After) until the tables are there; later requests decode in
milliseconds. One build runs at a time (two cores are shared with everything else), and the thread is
a daemon: stopping the server never waits for a build (the codec writes its cache file atomically).
"""

from __future__ import annotations

import threading
from pathlib import Path

from gpuisa.codec import api as codec
from gpuisa.errors import GpuisaError

TableKey = tuple[str, int, str]       # catalog file, its mtime (a rebuilt catalog has new tables), target


class DecoderTables:
    """Which (catalog file version, target) pairs have their codec tables ready, and the one build under way."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._ready: set[TableKey] = set()
        self._building: TableKey | None = None
        self._failed: dict[TableKey, GpuisaError] = {}

    def ready(self, catalog_path: Path, target: str) -> bool:
        """True when decoding for `target` is fast now; otherwise starts the build if none runs, and says False.
        A build that failed raises its error here once; the next request tries again."""
        key = (str(catalog_path), catalog_path.stat().st_mtime_ns, target)
        with self._lock:
            if key in self._ready:
                return True
            failed = self._failed.pop(key, None)
            if failed is None and self._building is None:
                self._building = key
                threading.Thread(target=self._build, args=(key, catalog_path), daemon=True,
                                 name=f"gpuisa-codec-tables-{target}").start()
        if failed is not None:
            raise failed
        return False

    def _build(self, key: TableKey, catalog_path: Path) -> None:
        try:
            codec.decode(b"\0\0\0\0", key[2], catalog_path)     # one dword builds (or loads) every table
        except GpuisaError as exc:
            with self._lock:
                self._failed[key] = exc
        except Exception as exc:  # a codec bug must end "preparing" with an answer, not loop forever
            with self._lock:
                self._failed[key] = GpuisaError(f"the decoder for {key[2]} could not be prepared: {exc!r}")
        else:
            with self._lock:
                self._ready.add(key)
        finally:
            with self._lock:
                self._building = None

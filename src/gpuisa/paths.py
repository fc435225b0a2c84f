"""Where the sources and the catalog live; one place so CLI, web and tests agree."""

from __future__ import annotations

import os
from pathlib import Path


def data_home() -> Path:
    """Per-user data folder (XDG), used for the default catalog and fetched sources."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "gpuisa"


def default_catalog() -> Path:
    """The catalog file: $GPUISA_CATALOG, else the per-user data folder."""
    env = os.environ.get("GPUISA_CATALOG")
    return Path(env) if env else data_home() / "catalog.sqlite"


def default_sources() -> Path:
    """The vendor sources: $GPUISA_SOURCES, else ../shared/sources next to the checkout, else fetched ones."""
    env = os.environ.get("GPUISA_SOURCES")
    if env:
        return Path(env)
    checkout = Path(__file__).resolve().parents[2]
    for candidate in (Path.cwd() / ".." / "shared" / "sources", checkout / ".." / "shared" / "sources"):
        if candidate.is_dir():
            return candidate.resolve()
    return data_home() / "sources"


def cache_dir() -> Path:
    """Cache for results of external tools (llvm-mc, ptxas; keyed by tool version inside) and parsed sources."""
    env = os.environ.get("GPUISA_CACHE")
    return Path(env) if env else data_home() / "cache"

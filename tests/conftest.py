"""Shared fixtures: the vendor sources and one catalog built per test session."""

from __future__ import annotations

import os
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


@pytest.fixture(scope="session")
def catalog_path(sources: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    from gpuisa.build import build

    path = tmp_path_factory.mktemp("catalog") / "catalog.sqlite"
    build(sources, path, None, jobs=2, verify=False)
    return path


@pytest.fixture(scope="session")
def catalog(catalog_path: Path):
    from gpuisa.catalog.query import Catalog

    return Catalog(catalog_path)

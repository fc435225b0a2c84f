"""The one-way layers of DESIGN.md, enforced by import-linter's contracts in pyproject.toml.

The first test runs the contracts on this checkout; the second proves they can fail: a copy of
the package with one deliberately wrong import (a reader importing the catalog, semantics
opening the catalog) must be reported, naming the offending import.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _lint(src: Path, config: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(src), "COLUMNS": "200", "NO_COLOR": "1"}
    code = "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())"
    return subprocess.run([sys.executable, "-c", code, "--no-cache", "--config", str(config)], cwd=src.parent,
                          capture_output=True, text=True, env=env, timeout=300, check=False)


def test_contracts_are_kept() -> None:
    r = _lint(REPO / "src", REPO / "pyproject.toml")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "4 kept, 0 broken" in r.stdout


@pytest.mark.parametrize(("module", "bad_import", "reported"), [
    ("gpuisa/sources/bad_reader.py", "from gpuisa.catalog import query", "gpuisa.sources.bad_reader -> gpuisa.catalog.query"),
    pytest.param("gpuisa/semantics/bad_lookup.py", "from gpuisa.catalog.query import Catalog",
                 "gpuisa.semantics.bad_lookup -> gpuisa.catalog.query", marks=pytest.mark.slow),
    pytest.param("gpuisa/web/bad_page.py", "from gpuisa.catalog import write",
                 "gpuisa.web.bad_page -> gpuisa.catalog.write", marks=pytest.mark.slow),
])
def test_a_bad_import_is_reported(tmp_path: Path, module: str, bad_import: str, reported: str) -> None:
    src = tmp_path / "src"
    shutil.copytree(REPO / "src" / "gpuisa", src / "gpuisa", ignore=shutil.ignore_patterns("__pycache__"))
    config = tmp_path / "pyproject.toml"
    shutil.copy(REPO / "pyproject.toml", config)
    (src / module).write_text(f'"""A module that breaks a layer on purpose."""\n\n{bad_import}\n')
    r = _lint(src, config)
    assert r.returncode != 0
    assert "BROKEN" in r.stdout and reported in r.stdout, r.stdout

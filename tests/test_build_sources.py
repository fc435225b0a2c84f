"""`gpuisa build --sources DIR` reads DIR and nothing else (issue 16 item 3): every stage, the
cross-vendor equivalents included, gets the sources root it was given.

The build runs in a clean process: an empty HOME, no GPUISA_* or XDG variables, a working folder
and a copy of the package that have no ../shared/sources beside them. A stage that looked at a
default location would find nothing there and the build would fail or leave a "not found" note.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from gpuisa.paths import cache_dir
from gpuisa.sources.layout import AMD_MANUALS, LLVM_TREE, PTX_EDITION, PTX_OLDER
from tests.conftest import SOURCES

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_build_reads_only_the_given_sources(tmp_path: Path, sources: Path, catalog_path: Path) -> None:
    given = tmp_path / "elsewhere" / "my-sources"
    given.mkdir(parents=True)
    for name in (AMD_MANUALS, LLVM_TREE, PTX_EDITION, PTX_OLDER):
        if (SOURCES / name).is_dir():
            (given / name).symlink_to(SOURCES / name, target_is_directory=True)
    pkg = tmp_path / "pkg" / "src"
    shutil.copytree(REPO / "src" / "gpuisa", pkg / "gpuisa", ignore=shutil.ignore_patterns("__pycache__"))
    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir()
    work.mkdir()
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("GPUISA_", "XDG_")) and k not in ("HOME", "PYTHONPATH")}
    # The tool and proof caches are not sources: the session catalog's build (catalog_path) has filled them, so
    # this build spends seconds, not minutes, in discovery; --rosetta-budget bounds what it computes anew.
    env.update(HOME=str(home), PYTHONPATH=str(pkg), COLUMNS="400", GPUISA_CACHE=str(cache_dir()))
    for candidate in (work.parent / "shared" / "sources", pkg.parent.parent / "shared" / "sources"):
        assert not candidate.exists()      # no default location to fall back on
    target = tmp_path / "out" / "catalog.sqlite"
    # --no-verify: the tools read no sources, and a cold ptxas run would take many minutes
    r = subprocess.run([sys.executable, "-m", "gpuisa", "build", "--sources", str(given), "--catalog", str(target),
                        "--no-verify", "--rosetta-budget", "10"],
                       cwd=work, env=env, capture_output=True, text=True, timeout=1800, check=False)
    assert r.returncode == 0, r.stderr[-2000:]
    notes = [line for line in r.stdout.splitlines() if line.startswith("note:")]
    assert any(n.startswith("note: equivalents:") for n in notes), r.stdout[-2000:]
    assert not [n for n in notes if "not found" in n or "skipped" in n], notes
    conn = sqlite3.connect(target)
    assert conn.execute("SELECT value FROM meta WHERE key='sources'").fetchone()[0] == str(given)
    assert conn.execute("SELECT count(*) FROM ptx_instructions").fetchone()[0] > 100
    assert conn.execute("SELECT count(*) FROM llvm_examples").fetchone()[0] > 1000
    rows = dict(conn.execute("SELECT name || '/' || vendor, mappings FROM equivalents"))
    assert "v_sad_u32/amd" in rows and "sad/nvidia" in rows and '"proved"' in rows["v_sad_u32/amd"]
    assert not list(home.rglob("sources"))   # nothing was fetched or looked up under HOME

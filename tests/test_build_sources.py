"""`gpuisa build --sources DIR` reads DIR and nothing else (issue 16 item 3): every stage, the
cross-vendor equivalents included, gets the sources root it was given.

The build runs in a clean process: an empty HOME, no GPUISA_* or XDG variables, a working folder
and a copy of the package that have no ../shared/sources beside them. A stage that looked at a
default location would find nothing there and the build would fail or leave a "not found" note.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from gpuisa.sources.layout import AMD_MANUALS, LLVM_TREE, PTX_EDITION, PTX_OLDER
from tests.conftest import SESSION_HOME, SESSION_PACKAGE, SESSION_SOURCES, SESSION_WORK

REPO = Path(__file__).resolve().parents[1]


def test_build_reads_only_the_given_sources(session_build: Path, catalog_path: Path) -> None:
    # The session catalog is this build (tests/conftest.py: the CLI in a clean process, from a copy of the package,
    # the sources linked under a folder of another name, verified with llvm-mc at most: the tools read no sources).
    given = session_build.joinpath(*SESSION_SOURCES)
    pkg = session_build.joinpath(*SESSION_PACKAGE)
    home, work = session_build / SESSION_HOME, session_build / SESSION_WORK
    assert {p.name for p in given.iterdir()} <= {AMD_MANUALS, LLVM_TREE, PTX_EDITION, PTX_OLDER}
    assert all(p.is_symlink() for p in given.iterdir()) and (pkg / "gpuisa" / "__init__.py").is_file()
    assert pkg.resolve() != (REPO / "src").resolve()
    for candidate in (work.parent / "shared" / "sources", pkg.parent.parent / "shared" / "sources"):
        assert not candidate.exists()      # no default location to fall back on
    notes = [line for line in (session_build / "build.out").read_text().splitlines() if line.startswith("note:")]
    assert any(n.startswith("note: equivalents:") for n in notes), notes
    assert not [n for n in notes if "not found" in n or "skipped" in n], notes
    conn = sqlite3.connect(catalog_path)
    assert conn.execute("SELECT value FROM meta WHERE key='sources'").fetchone()[0] == str(given)
    assert conn.execute("SELECT count(*) FROM ptx_instructions").fetchone()[0] > 100
    assert conn.execute("SELECT count(*) FROM llvm_examples").fetchone()[0] > 1000
    rows = dict(conn.execute("SELECT name || '/' || vendor, mappings FROM equivalents"))
    assert "v_sad_u32/amd" in rows and "sad/nvidia" in rows and '"proved"' in rows["v_sad_u32/amd"]
    assert not list(home.rglob("sources"))   # nothing was fetched or looked up under HOME

"""A build whose inputs are those the catalog was made from does nothing (build.inputs_key), or copies the catalog
the cache folder keeps for them; any changed input (a source file, the code, an option, a tool, the Rosetta
evidence cache) rebuilds, and so does --force."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gpuisa import build as gb
from gpuisa.sources import parsed_cache
from tests.browser.webfixtures import write_fixture_sources


@pytest.fixture
def built(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    monkeypatch.setenv("GPUISA_CACHE", str(tmp_path / "cache"))
    sources = write_fixture_sources(tmp_path / "sources")
    target = tmp_path / "catalog.sqlite"
    first = gb.build(sources, target, None, jobs=1, verify=False)
    assert not first.up_to_date and target.is_file()
    return sources, target


def _again(sources: Path, target: Path, **options) -> bool:
    """Build again; whether it found the catalog up to date: left as it was, or copied from the cache folder."""
    before = target.stat().st_mtime_ns, target.stat().st_ino
    report = gb.build(sources, target, None, jobs=1, verify=False, **options)
    in_place = (target.stat().st_mtime_ns, target.stat().st_ino) == before
    assert in_place == (bool(report.up_to_date) and "copied" not in report.up_to_date)
    return bool(report.up_to_date)


def test_same_inputs_do_nothing_and_a_changed_source_rebuilds(built):
    sources, target = built
    assert _again(sources, target)
    manual = sources / "amd-isa-manuals" / "rdna3" / "README.md"
    manual.write_text(manual.read_text() + "\n")
    assert not _again(sources, target)
    assert _again(sources, target)
    (sources / "amd-isa-manuals" / "notes.txt").write_text("a new file under the sources root")
    assert not _again(sources, target)


def test_options_code_and_force_rebuild(built, monkeypatch: pytest.MonkeyPatch):
    sources, target = built
    assert not _again(sources, target, accept_drop=True)           # another option
    assert _again(sources, target)                                 # and back: the kept catalog of the first build
    assert not _again(sources, target, force=True)
    monkeypatch.setattr(parsed_cache, "code_digest", lambda: "an edited gpuisa")
    assert not _again(sources, target)


def test_a_changed_rosetta_cache_rebuilds(built):
    sources, target = built
    rows = Path(os.environ["GPUISA_CACHE"]) / "rosetta-proofs-rows-rdna3.json"
    rows.parent.mkdir(parents=True, exist_ok=True)
    rows.write_text("{}")                                          # discovery (gpuisa rosetta) cached new cells
    assert not _again(sources, target)
    assert _again(sources, target)


def test_a_build_with_a_tool_failure_stores_no_key(built, monkeypatch: pytest.MonkeyPatch):
    sources, target = built
    with monkeypatch.context() as m:
        m.setattr(gb, "_repeatable", lambda b: False)      # e.g. llvm-mc hung on one line: ask it again next time
        assert not _again(sources, target, force=True)
        assert "inputs" not in gb._built_from(target)             # nor kept in the cache folder under them
    report = gb.build(sources, target, None, jobs=1, verify=False)   # the first build's catalog is the one kept
    assert "copied from the cache" in report.up_to_date


def _rows(path: Path) -> dict[str, list]:
    import sqlite3

    with sqlite3.connect(path) as conn:
        tables = [t for (t,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")
                  if not t.startswith("search_fts_")]
        return {t: conn.execute(f"SELECT * FROM {t}").fetchall() for t in tables}


def test_another_target_gets_the_kept_catalog_unless_caches_are_off(built, monkeypatch: pytest.MonkeyPatch):
    sources, target = built
    other = target.with_name("other.sqlite")
    report = gb.build(sources, other, None, jobs=1, verify=False)
    assert "copied from the cache" in report.up_to_date
    assert _rows(other) == _rows(target)                         # the same catalog, meta (built_at, inputs) included
    assert gb.build(sources, other, None, jobs=1, verify=False).up_to_date   # and now up to date in place
    monkeypatch.setenv("GPUISA_PARSE_CACHE", "0")
    assert not gb.build(sources, target.with_name("third.sqlite"), None, jobs=1, verify=False).up_to_date

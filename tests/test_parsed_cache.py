"""The parsed-sources cache (sources/parsed_cache.py): a hit only for the same files, reader and code."""

from __future__ import annotations

import os
import pickle
from pathlib import Path

import pytest

from gpuisa.sources import parsed_cache
from gpuisa.sources.read import read_amd_manual
from tests.conftest import MANUALS


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GPUISA_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("GPUISA_PARSE_CACHE", raising=False)
    return tmp_path / "cache" / "parsed"


def counting(value):
    calls = []

    def parse():
        calls.append(1)
        return value
    return parse, calls


def test_same_file_and_code_is_a_hit_and_any_change_is_a_miss(cache: Path, tmp_path: Path, monkeypatch):
    src = tmp_path / "README.md"
    src.write_text("one")
    parse, calls = counting({"x": 1})
    assert parsed_cache.parsed("t", ("a",), [src], parse) == {"x": 1} and len(calls) == 1
    assert parsed_cache.parsed("t", ("a",), [src], parse) == {"x": 1} and len(calls) == 1       # hit
    assert len(list(cache.glob("t-*.pickle"))) == 1
    parsed_cache.parsed("t", ("b",), [src], parse)                                               # other arguments
    assert len(calls) == 2
    src.write_text("one, edited")                                                                # the file changed
    parsed_cache.parsed("t", ("a",), [src], parse)
    assert len(calls) == 3
    monkeypatch.setattr(parsed_cache, "code_digest", lambda: "another version of the readers")
    parsed_cache.parsed("t", ("a",), [src], parse)                                               # the code changed
    assert len(calls) == 4
    monkeypatch.setenv("GPUISA_PARSE_CACHE", "0")
    parsed_cache.parsed("t", ("a",), [src], parse)                                               # turned off
    assert len(calls) == 5


def test_a_value_keep_refuses_is_returned_but_not_stored(cache: Path, tmp_path: Path):
    # the llvm-mc verdicts are kept this way, except a run where the tool hung or crashed
    src = tmp_path / "README.md"
    src.write_text("one")
    parse, calls = counting(["tool failed"])

    def ok(found: list[str]) -> bool:
        return "tool failed" not in found

    assert parsed_cache.parsed("t", (), [src], parse, keep=ok) == ["tool failed"]
    assert parsed_cache.parsed("t", (), [src], parse, keep=ok) == ["tool failed"] and len(calls) == 2
    assert not list(cache.glob("t-*.pickle"))
    parse, calls = counting(["supported"])
    parsed_cache.parsed("t", (), [src], parse, keep=ok)
    assert parsed_cache.parsed("t", (), [src], parse, keep=ok) == ["supported"] and len(calls) == 1


def test_a_damaged_entry_is_parsed_again_and_rewritten(cache: Path, tmp_path: Path):
    src = tmp_path / "README.md"
    src.write_text("one")
    parse, calls = counting([1, 2, 3])
    parsed_cache.parsed("t", (), [src], parse)
    (entry,) = cache.glob("t-*.pickle")
    entry.write_bytes(entry.read_bytes()[:10])               # cut short, as a full disk or a kill would leave it
    assert parsed_cache.parsed("t", (), [src], parse) == [1, 2, 3] and len(calls) == 2
    assert pickle.loads(entry.read_bytes()) == [1, 2, 3]
    assert [p.name for p in cache.iterdir()] == [entry.name]  # no temporary file left behind


def test_an_unwritable_cache_folder_costs_the_speed_up_not_the_result(tmp_path: Path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("GPUISA_CACHE", str(blocker))
    src = tmp_path / "README.md"
    src.write_text("one")
    parse, calls = counting("value")
    assert parsed_cache.parsed("t", (), [src], parse) == "value"
    assert parsed_cache.parsed("t", (), [src], parse) == "value" and len(calls) == 2


def test_old_entries_are_pruned(cache: Path, tmp_path: Path):
    src = tmp_path / "README.md"
    for i in range(parsed_cache.KEEP_PER_KIND + 3):
        src.write_text(f"release {i}")
        os.utime(src, ns=(i * 10**9, i * 10**9))
        parsed_cache.parsed("t", (), [src], lambda i=i: i)
    assert len(list(cache.glob("t-*.pickle"))) == parsed_cache.KEEP_PER_KIND


@pytest.mark.skipif(not MANUALS.is_dir(), reason="no vendor sources")
def test_a_cached_manual_equals_a_fresh_parse_through_another_root(cache: Path, tmp_path: Path, monkeypatch):
    # the same file reached through a folder of links (as `build --sources` with links gives it): one entry,
    # and the records hold no path of the root they were read through
    root = tmp_path / "linked"
    (root / "amd-isa-manuals").mkdir(parents=True)
    (root / "amd-isa-manuals" / "rdna3").symlink_to(MANUALS / "rdna3", target_is_directory=True)
    first = read_amd_manual(root, "rdna3")
    assert len(list(cache.glob("manual-rdna3-*.pickle"))) == 1
    again = read_amd_manual(MANUALS.parent, "rdna3")
    assert len(list(cache.glob("manual-rdna3-*.pickle"))) == 1         # a hit
    monkeypatch.setenv("GPUISA_PARSE_CACHE", "0")
    fresh = read_amd_manual(MANUALS.parent, "rdna3")
    assert again == fresh == first
    assert str(tmp_path).encode() not in pickle.dumps(first)


def _package(root: Path) -> Path:
    """A small package named gpuisa: a reader module (function-local import of a helper), an unrelated module, and
    an __init__ whose function-local import (the codec's lazy entry points in the real one) is not the reader's."""
    pkg = root / "gpuisa"
    (pkg / "sources").mkdir(parents=True)
    (pkg / "__init__.py").write_text("def decode():\n    from gpuisa.big import thing\n    return thing\n")
    (pkg / "sources" / "__init__.py").write_text("")
    (pkg / "sources" / "reader.py").write_text("def read(x):\n    from gpuisa.sources.helper import h\n    return h(x)\n")
    (pkg / "sources" / "helper.py").write_text("def h(x):\n    return x\n")
    (pkg / "big.py").write_text("thing = 1\n")
    return pkg


def test_an_entry_is_keyed_by_the_code_its_reader_runs(tmp_path: Path, monkeypatch):
    pkg = _package(tmp_path)
    assert [p.relative_to(pkg).as_posix() for p in parsed_cache.module_closure(["gpuisa.sources.reader"], pkg)] == [
        "__init__.py", "sources/__init__.py", "sources/helper.py", "sources/reader.py"]
    monkeypatch.setattr(parsed_cache, "_PACKAGE", pkg)
    reader = {"__name__": "gpuisa.sources.reader"}
    exec(compile((pkg / "sources" / "reader.py").read_text(), "reader.py", "exec"), reader)
    user = {"__name__": "tests.reader_user", "read": reader["read"]}
    exec("parse = lambda: read(1)", user)           # a lambda calling the reader through a global, as read.py's do

    def digest() -> str:
        parsed_cache._closure_digest.cache_clear()
        return parsed_cache.code_digest_for(user["parse"])

    first = digest()
    (pkg / "big.py").write_text("thing = 2\n")                                 # code the reader never runs
    assert digest() == first
    (pkg / "sources" / "helper.py").write_text("def h(x):\n    return -x\n")   # code it runs
    assert digest() != first
    parsed_cache._closure_digest.cache_clear()


def test_the_real_readers_are_keyed_by_their_own_modules():
    manual = {p.relative_to(parsed_cache._PACKAGE).as_posix()
              for p in parsed_cache.module_closure(["gpuisa.sources.amd_manual"])}
    assert {"sources/amd_manual.py", "__init__.py", "sources/__init__.py"} <= manual
    assert not {p for p in manual if p.startswith(("web/", "codec/", "crossref/", "catalog/", "verify/"))}

"""Bad input: missing, empty or truncated sources give one clear message and never damage a catalog."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gpuisa.archs import ARCHS
from gpuisa.build import build
from gpuisa.errors import SourceError
from tests.conftest import MANUALS


def _gpuisa(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gpuisa", *args], capture_output=True, text=True, env=env, timeout=120)


def _copy_sources(tmp: Path) -> Path:
    root = tmp / "sources"
    for a in ARCHS:
        dest = root / "amd-isa-manuals" / a.key
        dest.mkdir(parents=True)
        shutil.copy(MANUALS / a.key / "README.md", dest / "README.md")
    return root


def test_missing_sources_folder(tmp_path, sources):
    result = _gpuisa("build", "--sources", str(tmp_path / "nope"), "--catalog", str(tmp_path / "c.sqlite"))
    assert result.returncode == 2
    assert "sources folder not found" in result.stderr and "nope" in result.stderr
    assert "Traceback" not in result.stderr


def test_empty_and_truncated_manual_keep_previous_catalog(tmp_path, sources, catalog_path):
    src = _copy_sources(tmp_path)
    target = tmp_path / "catalog.sqlite"
    shutil.copy(catalog_path, target)
    before = target.read_bytes()

    manual = src / "amd-isa-manuals" / "rdna3" / "README.md"
    text = manual.read_text(encoding="utf-8")
    manual.write_text(text[: len(text) // 4], encoding="utf-8")   # cut before the Instructions chapter
    with pytest.raises(SourceError, match=r"rdna3/README.md.*'Microcode Formats'|rdna3/README.md.*'Instructions'"):
        build(src, target, None, jobs=1)
    assert target.read_bytes() == before
    assert not list(tmp_path.glob(".catalog-*"))   # no half-written temp file left

    manual.write_text("", encoding="utf-8")
    result = _gpuisa("build", "--sources", str(src), "--catalog", str(target))
    assert result.returncode == 2 and "rdna3/README.md: manual is empty" in result.stderr
    assert "Traceback" not in result.stderr
    assert target.read_bytes() == before


def test_unknown_instruction_suggests(catalog_path):
    result = _gpuisa("show", "v_sad_u3", "--catalog", str(catalog_path))
    assert result.returncode == 2
    assert "unknown instruction 'v_sad_u3'" in result.stderr and "v_sad_u32" in result.stderr


def test_missing_catalog_message(tmp_path):
    result = _gpuisa("show", "v_sad_u32", "--catalog", str(tmp_path / "none.sqlite"))
    assert result.returncode == 2 and "run `gpuisa build` first" in result.stderr


def test_not_a_catalog(tmp_path):
    bogus = tmp_path / "bogus.sqlite"
    bogus.write_bytes(b"not sqlite at all" * 100)
    result = _gpuisa("show", "v_sad_u32", "--catalog", str(bogus))
    assert result.returncode == 2 and "not a gpuisa catalog" in result.stderr

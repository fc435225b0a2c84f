"""Hostile vendor files: YAML alias bombs, oversized manuals and sections are refused quickly,
with bounded memory, naming the file; the real sources pass the same bounds."""

from __future__ import annotations

import resource
import time
from pathlib import Path

import pytest

from gpuisa.errors import SourceError
from gpuisa.limits import MAX_FRONT_MATTER_BYTES, MAX_MANUAL_BYTES, MAX_PTX_SECTION_BYTES
from gpuisa.sources.amd_manual import read_manual as read_amd
from gpuisa.sources.ptx_docs import read_manual as read_ptx
from tests.conftest import MANUALS, SOURCES


def alias_bomb(levels: int = 12) -> str:
    """The 'billion laughs' shape: each level lists the previous one ten times (10**levels leaves)."""
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, levels):
        lines.append(f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 10) + "]")
    return "\n".join(lines)


def ptx_section(front: str) -> str:
    return f"---\n{front}\n---\n\n#### 9.7.1.1. Integer Arithmetic Instructions: `foo`\n\nSyntax\n\n```ptx\nfoo.u32 d, a;\n```\n"


def max_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def test_yaml_alias_bomb_is_refused_without_expanding(tmp_path: Path):
    bomb = alias_bomb()
    assert len(bomb) < 2048        # about 1 KB of text, like the issue's
    ch9 = tmp_path / "ptx-isa-0.1" / "9-instruction-set"
    ch9.mkdir(parents=True)
    (ch9 / "9.7.1.1-foo.md").write_text(ptx_section('title: "9.7.1.1. Integer"\nsection: "9.7.1.1"\n' + bomb))
    rss, start = max_rss_mb(), time.monotonic()
    manual = read_ptx(tmp_path / "ptx-isa-0.1")
    assert time.monotonic() - start < 30 and max_rss_mb() - rss < 200
    skip = next(s for s in manual.skips if "9.7.1.1-foo.md" in s.file)
    assert "alias" in skip.reason and skip.line == 1
    assert manual.find("foo")      # the section itself is still read; only the front matter is dropped


def test_a_single_alias_is_refused_too(tmp_path: Path):
    ch9 = tmp_path / "ptx-isa-0.1" / "9-instruction-set"
    ch9.mkdir(parents=True)
    (ch9 / "9.7.1.1-foo.md").write_text(ptx_section('title: &t "9.7.1.1. Integer"\nsection: *t'))
    manual = read_ptx(tmp_path / "ptx-isa-0.1")
    assert any("alias *t refused" in s.reason for s in manual.skips)


def test_oversized_front_matter_is_ignored(tmp_path: Path):
    ch9 = tmp_path / "ptx-isa-0.1" / "9-instruction-set"
    ch9.mkdir(parents=True)
    (ch9 / "9.7.1.1-foo.md").write_text(ptx_section("title: " + "x" * (MAX_FRONT_MATTER_BYTES + 10)))
    manual = read_ptx(tmp_path / "ptx-isa-0.1")
    assert any("front matter of" in s.reason for s in manual.skips)


def test_oversized_ptx_section_is_a_skip_naming_it(tmp_path: Path):
    ch9 = tmp_path / "ptx-isa-0.1" / "9-instruction-set"
    ch9.mkdir(parents=True)
    big = ch9 / "9.7.1.1-foo.md"
    with open(big, "w") as fh:
        fh.write(ptx_section('title: "x"'))
        fh.truncate(MAX_PTX_SECTION_BYTES + 1)       # sparse: no real disk or memory used
    manual = read_ptx(tmp_path / "ptx-isa-0.1")
    assert any("9.7.1.1-foo.md" in s.file and "limit for one source file" in s.reason for s in manual.skips)


def test_a_200_mb_manual_is_refused_at_once(tmp_path: Path):
    """The issue's 200 MB manual took 152 s and 7.4 GB; now it is refused before parsing, reading 16 MB at most."""
    manual = tmp_path / "README.md"
    with open(manual, "w") as fh:
        fh.write("# Microcode Formats\n")
        fh.truncate(200 << 20)
    rss, start = max_rss_mb(), time.monotonic()
    with pytest.raises(SourceError, match="limit for one source file") as exc:
        read_amd(manual, "rdna3", "amd-isa-manuals/rdna3/README.md")
    assert exc.value.path == "amd-isa-manuals/rdna3/README.md"
    assert time.monotonic() - start < 10 and max_rss_mb() - rss < 2 * (MAX_MANUAL_BYTES >> 20) + 50


def test_the_real_sources_are_within_the_bounds():
    if not MANUALS.is_dir():
        pytest.skip(f"vendor sources not found at {SOURCES}")
    biggest = max(p.stat().st_size for p in MANUALS.glob("*/README.md"))
    assert biggest * 4 < MAX_MANUAL_BYTES
    sections = [p.stat().st_size for p in (SOURCES / "ptx-isa-9.4").rglob("*.md")]
    assert max(sections) * 4 < MAX_PTX_SECTION_BYTES

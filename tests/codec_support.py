"""Helpers shared by the codec tests: LLVM check lines (the premise of each test) and the CLI."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from gpuisa.paths import default_sources
from gpuisa.sources.layout import llvm_tree

MC = llvm_tree(default_sources()) / "llvm" / "test" / "MC"


def llvm_check(rel: str, line: int) -> tuple[str, bytes]:
    """(asm, bytes) of one `// PREFIX: asm ; encoding: [..]` check line of an LLVM MC test."""
    text = (MC / rel).read_text().splitlines()[line - 1]
    m = re.match(r"^\s*(?://|#)\s*[\w-]+:\s*(.*?)\s*;\s*encoding:\s*\[(.*)\]", text)
    assert m, f"{rel}:{line} is not a check line with an encoding: {text!r}"
    return m.group(1), bytes(int(b, 16) for b in m.group(2).split(","))


def run_cli(*args: str, env_catalog: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, GPUISA_CATALOG=str(env_catalog))
    return subprocess.run([sys.executable, "-m", "gpuisa", *args], capture_output=True, text=True, env=env, timeout=600)


def use_catalog(catalog_path: Path):
    """Point the default catalog (what gpuisa.decode / encode open) at the session's catalog."""
    import pytest

    mp = pytest.MonkeyPatch()
    mp.setenv("GPUISA_CATALOG", str(catalog_path))
    return mp

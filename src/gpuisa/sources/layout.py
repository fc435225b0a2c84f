"""Where each vendor source lives under a sources root: the only module that knows the folder names.

Paths only; `sources.read` opens them (one reader signature). Everything takes the sources root
it was given; the default root (`gpuisa.paths.default_sources`) is chosen by the commands alone.
"""

from __future__ import annotations

from pathlib import Path

AMD_MANUALS = "amd-isa-manuals"                  # <arch>/README.md, one per architecture
LLVM_TREE = "llvm-project-23.1.1"                # LLVM release tree (tests, docs, TableGen)
LLVM_MC_TESTS = ("llvm/test/MC/AMDGPU", "llvm/test/MC/Disassembler/AMDGPU")   # inside LLVM_TREE
PTX_EDITION = "ptx-isa-9.4"                      # the PTX ISA manual the catalog describes
PTX_OLDER = "ptx-isa-9.1"                        # an older edition, to mark forms new since it
PTX_SOURCE = "ptx-isa"                           # the provenance label of records read from it


def amd_manual_rel(arch: str) -> str:
    """The manual of one architecture, relative to the sources root (as cited on pages)."""
    return f"{AMD_MANUALS}/{arch}/README.md"


def amd_manual(sources: Path, arch: str) -> Path:
    return Path(sources) / amd_manual_rel(arch)


def llvm_tree(sources: Path) -> Path:
    """The LLVM tree inside a sources root (the LLVM tree itself is accepted too)."""
    root = Path(sources)
    return root / LLVM_TREE if (root / LLVM_TREE).is_dir() else root


def llvm_mc_tests(sources: Path) -> Path:
    """LLVM's assembler tests folder (the disassembler tests sit beside it, see LLVM_MC_TESTS)."""
    return llvm_tree(sources) / LLVM_MC_TESTS[0]


def ptx_manual(sources: Path) -> Path:
    return Path(sources) / PTX_EDITION


def has_llvm_tests(sources: Path) -> bool:
    return llvm_mc_tests(sources).is_dir()


def has_ptx_manual(sources: Path) -> bool:
    return ptx_manual(sources).is_dir()


LLVM_DOCS = "llvm/docs"                          # inside LLVM_TREE: AMDGPUUsage.rst, AMDGPU/*.rst syntax pages


def llvm_docs(sources: Path) -> Path:
    """LLVM's AMDGPU documentation pages (AMDGPUUsage.rst, per-gfx syntax and operand pages)."""
    return llvm_tree(sources) / LLVM_DOCS


def llvm_docs_rel() -> str:
    """The docs folder as provenance cites it (relative to the sources root)."""
    return f"{LLVM_TREE}/{LLVM_DOCS}"

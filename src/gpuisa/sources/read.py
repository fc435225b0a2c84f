"""One reader signature for every vendor source: `read_X(sources, jobs=..., progress=...) -> records`.

Each reader takes the sources root it was given (never a default location), finds its files with
`sources.layout`, and returns records; a missing source is a SourceError naming the path.
The build's stage list calls these; tests and benches may too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from gpuisa.archs import ARCHS
from gpuisa.errors import NotFoundError, SourceError
from gpuisa.model import InstructionDoc, ManualData
from gpuisa.model_llvm import McCorpus
from gpuisa.model_ptx import PtxFormText, PtxManual
from gpuisa.model_syntax import SyntaxDocs
from gpuisa.sources import amd_manual, llvm_mc, llvm_syntax_docs, parsed_cache, ptx_docs
from gpuisa.sources.layout import PTX_OLDER, amd_manual_rel, llvm_docs, llvm_docs_rel, ptx_manual
from gpuisa.sources.layout import amd_manual as amd_manual_path
from gpuisa.workers import process_pool

Progress = Callable[[str, int, int], None]   # (what, done, total)


def _read_amd_one(args: tuple[str, str, str]) -> ManualData:
    path, arch, rel = args
    return parsed_cache.parsed(f"manual-{arch}", (arch, rel), [Path(path)],
                               lambda: amd_manual.read_manual(Path(path), arch, rel))


def read_amd_manual(sources: Path, arch: str) -> ManualData:
    """One architecture's AMD ISA manual."""
    path = amd_manual_path(sources, arch)
    if not path.is_file():
        raise SourceError(str(path), f"manual for {arch} not found")
    return _read_amd_one((str(path), arch, amd_manual_rel(arch)))


def read_amd_manuals(sources: Path, jobs: int = 2, progress: Progress | None = None) -> list[ManualData]:
    """Every architecture's AMD ISA manual (in parallel when jobs > 1); a missing one is a SourceError."""
    root = Path(sources)
    if not root.is_dir():
        raise SourceError(str(root), "sources folder not found (use --sources DIR or `gpuisa fetch`)")
    tasks = []
    for arch in ARCHS:
        path = amd_manual_path(root, arch.key)
        if not path.is_file():
            raise SourceError(str(path), f"manual for {arch.key} not found")
        tasks.append((str(path), arch.key, amd_manual_rel(arch.key)))
    out: list[ManualData] = []
    if jobs > 1:
        with process_pool(jobs) as pool:
            for data in pool.map(_read_amd_one, tasks):
                out.append(data)
                if progress:
                    progress("manuals", len(out), len(tasks))
    else:
        for t in tasks:
            out.append(_read_amd_one(t))
            if progress:
                progress("manuals", len(out), len(tasks))
    return out


def read_llvm_tests(sources: Path, jobs: int = 2, progress: Progress | None = None) -> McCorpus:
    """LLVM's AMDGPU MC test corpus (assembler and disassembler checks)."""
    if progress:
        progress("LLVM MC tests", 0, 1)
    corpus = llvm_mc.read_corpus(Path(sources), processes=jobs)
    if progress:
        progress("LLVM MC tests", 1, 1)
    return corpus


def read_ptx_manual(sources: Path, jobs: int = 1, progress: Progress | None = None) -> PtxManual:
    """The PTX ISA manual (PTX_EDITION), with forms new since PTX_OLDER marked when that edition is there."""
    root = ptx_manual(sources)
    if not root.is_dir():
        raise SourceError(str(root), "no PTX ISA manual; run `gpuisa fetch` or pass --sources")
    older = Path(sources) / PTX_OLDER
    older_root = older if older.is_dir() else None
    files = [p for folder in (root, older_root) if folder is not None for p in folder.rglob("*") if p.is_file()]
    return parsed_cache.parsed("ptx", (str(root), str(older_root)), files,          # the manual records its root
                               lambda: ptx_docs.read_manual(root, older_root))


def read_llvm_syntax_docs(sources: Path, jobs: int = 1, progress: Progress | None = None) -> SyntaxDocs:
    """LLVM's AMDGPU assembler syntax pages (operands and modifiers per instruction and gfx family)."""
    return llvm_syntax_docs.read_syntax_docs(llvm_docs(sources), llvm_docs_rel())   # cached by the reader itself


class ManualTexts:
    """The manuals' text as `semantics.Texts`: pseudocode by (arch, name), PTX Semantics by form.

    Over records a build has read (`ManualTexts(manuals, ptx)`), or reading a sources root on
    demand, one manual at a time (`ManualTexts(sources=root)`: tests, benches and tools).
    """

    def __init__(self, manuals: Iterable[ManualData] = (), ptx: PtxManual | None = None,
                 sources: Path | None = None) -> None:
        self._amd: dict[str, dict[str, list[InstructionDoc]]] = {}
        for data in manuals:
            self._add(data)
        self._ptx = ptx
        self._sources = Path(sources) if sources is not None else None

    def _add(self, data: ManualData) -> dict[str, list[InstructionDoc]]:
        by_name = self._amd.setdefault(data.arch, {})
        for d in data.docs:
            by_name.setdefault(d.name.upper(), []).append(d)
        return by_name

    def instruction_docs(self, arch: str) -> dict[str, list[InstructionDoc]]:
        """Every instruction doc of one architecture, by upper-case manual name."""
        if arch not in self._amd:
            if self._sources is None:
                raise SourceError(arch, f"the {arch} manual was not read")
            self._add(read_amd_manual(self._sources, arch))
        return self._amd[arch]

    def ptx_form_text(self, form: str) -> PtxFormText:
        """The first form of that spelling in manual order, with its instruction's Syntax and Semantics."""
        if self._ptx is None:
            if self._sources is None:
                raise SourceError("ptx", "the PTX ISA manual was not read")
            self._ptx = read_ptx_manual(self._sources)
        want = form.strip().lower()
        for ins in self._ptx.instructions:
            for f in ins.forms:
                if f.form.lower() == want:
                    return PtxFormText(f, ins.name, ins.syntax, ins.semantics, ins.provenance.cite())
        head = want.split(".")[0]
        names = sorted({f.form for i in self._ptx.instructions for f in i.forms if f.form.split(".")[0].lower() == head})
        raise NotFoundError("PTX form", form, names[:8])

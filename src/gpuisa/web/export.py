"""Static export: every page as a file with relative links, for file:// or any static server.

Instruction pages are rendered in worker processes (each opens the catalog read-only); search in
the export runs in the browser over `static/search-index.js`, a script rather than JSON so that it
also loads from file://, where fetch() is refused.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from gpuisa.catalog.documents import AmdDocument
from gpuisa.catalog.query import Catalog
from gpuisa.errors import GpuisaError
from gpuisa.web.site import STATIC, Links, Site, safe_segment, slug
from gpuisa.workers import process_pool

Progress = Callable[[str, int, int], None]


@dataclass(slots=True)
class ExportReport:
    out: str
    pages: int = 0
    bytes: int = 0
    seconds: float = 0.0
    skipped: list[str] = field(default_factory=list)   # names that cannot be file names, with why


class _Writer:
    """Writes pages under `out`, refusing any path that would leave it."""

    def __init__(self, out: Path) -> None:
        self.out = out.resolve()
        self.pages = 0
        self.bytes = 0

    def write(self, rel: str, text: str) -> None:
        path = (self.out / rel).resolve()
        if not path.is_relative_to(self.out):
            raise GpuisaError(f"refusing to write {rel!r} outside {self.out}")
        path.parent.mkdir(parents=True, exist_ok=True)
        data = text.encode("utf-8")
        path.write_bytes(data)
        self.pages += 1
        self.bytes += len(data)


_worker: tuple[Site, _Writer] | None = None


def _init_worker(catalog_path: str, out: str) -> None:
    global _worker
    _worker = (Site(Catalog(Path(catalog_path))), _Writer(Path(out)))


def _render_names(names: list[str]) -> tuple[int, int, list[list[str]], list[str]]:
    """Write every page of `names` (newest plus one per arch); return counts, index rows, skips."""
    assert _worker is not None
    site, writer = _worker
    before_pages, before_bytes = writer.pages, writer.bytes
    index: list[list[str]] = []
    skipped: list[str] = []
    for name in names:
        try:
            doc = site.catalog.show(name)
        except GpuisaError as exc:
            skipped.append(f"{name!r}: {exc}")
            continue
        lname = doc.name
        if not safe_segment(lname):
            skipped.append(f"{lname!r}: not usable as a file name")
            continue
        vendor = doc.vendor
        archs = doc.archs if isinstance(doc, AmdDocument) else []
        index.append([lname, vendor, " ".join(archs), doc.summary or ""])
        if vendor == "nvidia":
            writer.write(f"ptx/{lname}.html", site.instruction(doc, Links.for_depth(1)))
            continue
        writer.write(f"amd/{lname}.html", site.instruction(doc, Links.for_depth(1)))
        for arch in archs:
            per_arch = doc if arch == doc.arch else site.catalog.show(name, arch)
            writer.write(f"amd/{arch}/{lname}.html", site.instruction(per_arch, Links.for_depth(2)))
    return writer.pages - before_pages, writer.bytes - before_bytes, index, skipped


def export_site(catalog_path: Path, out: Path, jobs: int | None = None, progress: Progress | None = None) -> ExportReport:
    """Write the whole site under `out` (created if needed; existing files are overwritten)."""
    t0 = time.perf_counter()
    out.mkdir(parents=True, exist_ok=True)
    catalog = Catalog(catalog_path)
    site = Site(catalog)
    writer = _Writer(out)
    report = ExportReport(str(out.resolve()))

    for asset in sorted(STATIC.iterdir()):
        if asset.is_file() and asset.suffix in (".css", ".js"):
            writer.write(f"static/{asset.name}", asset.read_text(encoding="utf-8"))
    writer.write("index.html", site.home(Links.for_depth(0)))
    writer.write("search.html", site.search_page(Links.for_depth(0)))
    writer.write("404.html", site.error_page(Links.for_depth(0), 404, "no such page in this export"))
    writer.write("diff/index.html", site.diff_index(Links.for_depth(1)))
    writer.write("rosetta.html", site.rosetta_page(Links.for_depth(0)))
    for chapter in catalog.rosetta()["chapters"]:   # the overview links each chapter's page
        writer.write(f"rosetta/{slug(chapter)}.html", site.rosetta_page(Links.for_depth(1), chapter))
    for label in catalog.operand_labels():   # operand and operand-kind pages the operand tables link to
        if safe_segment(label):
            writer.write(f"operand/{label}.html", site.operand_page(catalog.operand_page(label).as_json(), Links.for_depth(1)))
    writer.write("ptx/index.html", site.ptx_index(Links.for_depth(1)))
    keys = site.arch_keys
    for key in keys:
        writer.write(f"arch/{key}.html", site.arch_page(key, Links.for_depth(1)))
    pairs = [(a, b) for a in keys for b in keys if a != b]
    for i, (a, b) in enumerate(pairs, 1):
        writer.write(f"diff/{a}/{b}.html", site.diff_page(catalog.diff(a, b), Links.for_depth(2)))
        if progress:
            progress("diff pages", i, len(pairs))

    names = catalog.names()
    known = {n.lower() for n in names}
    names += [n for n in site.ptx_names() if n not in known]  # PTX pages, unless names() already lists them
    jobs = max(1, jobs or min(8, os.cpu_count() or 1))
    chunk = 64
    batches = [names[i:i + chunk] for i in range(0, len(names), chunk)]
    index: list[list[str]] = []
    done = 0
    if jobs == 1:
        _init_worker(str(catalog_path), str(out))
        results = map(_render_names, batches)
        for pages, size, rows, skipped in results:
            writer.pages += pages
            writer.bytes += size
            index.extend(rows)
            report.skipped.extend(skipped)
            done += len(rows) + len(skipped)
            if progress:
                progress("instruction pages", done, len(names))
    else:
        with process_pool(jobs, initializer=_init_worker, initargs=(str(catalog_path), str(out))) as pool:
            for pages, size, rows, skipped in pool.map(_render_names, batches):
                writer.pages += pages
                writer.bytes += size
                index.extend(rows)
                report.skipped.extend(skipped)
                done += len(rows) + len(skipped)
                if progress:
                    progress("instruction pages", done, len(names))
    index.sort(key=lambda r: r[0])
    payload = json.dumps(index, ensure_ascii=True, separators=(",", ":")).replace("</", "<\\/")
    writer.write("static/search-index.js", f"window.GPUISA_INDEX={payload};\n")
    report.pages, report.bytes = writer.pages, writer.bytes
    report.seconds = time.perf_counter() - t0
    return report

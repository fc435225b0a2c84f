"""Write the catalog file: the AMD tables, the cross-vendor equivalents, and the atomic file swap.

The file is written under a temporary name beside the target and renamed into place only when
complete, so a failed build leaves the previous catalog intact. The stage list (gpuisa.build)
decides what goes in; the PTX tables are written by ptx_store, the LLVM tables by llvm_stage.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, fields
from pathlib import Path

from gpuisa import __version__
from gpuisa.archs import ARCHS, newest_first
from gpuisa.catalog import merge as m
from gpuisa.catalog.operands import OperandCoverage, operands_for
from gpuisa.catalog.ptx_store import SCHEMA as PTX_SCHEMA
from gpuisa.catalog.schema import SCHEMA, SCHEMA_VERSION
from gpuisa.model import ManualData, Provenance
from gpuisa.model_syntax import SyntaxDocs
from gpuisa.sources.llvm_syntax_docs import families_for_arch


@dataclass(slots=True)
class ArchCoverage:
    arch: str
    table_entries: int                 # distinct instruction names in the manual's opcode tables
    in_catalog: int                    # of those, how many are in the catalog (encoding + opcode)
    documented: int                    # of those, how many have text from the instructions chapter
    missing: list[dict] = field(default_factory=list)   # {name, reason}
    skips: int = 0

    @property
    def percent(self) -> float:
        return 100.0 * self.in_catalog / self.table_entries if self.table_entries else 0.0


_TEMP = re.compile(r"\.catalog-(\d+)-[^/]*\.tmp(-journal|-wal|-shm)?")
_OLD_TEMP = re.compile(r"\.catalog-[^/]*\.tmp(-journal|-wal|-shm)?")   # names before the writer's pid was in them
OLD_TEMP_AGE = 3600.0


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:   # someone else's live process
        return True
    return True


def remove_stale_temps(folder: Path) -> list[Path]:
    """Remove temporary catalogs that a killed build left in `folder` (their writer's pid is gone).

    Each build names its temporary file after its own pid, so a build running at the same time
    keeps its file; files named the older way are removed once an hour old.
    """
    removed = []
    if not folder.is_dir():
        return removed
    now = time.time()
    for entry in folder.iterdir():
        match = _TEMP.fullmatch(entry.name)
        stale = (not _alive(int(match.group(1)))) if match else (
            _OLD_TEMP.fullmatch(entry.name) is not None and now - entry.stat().st_mtime > OLD_TEMP_AGE)
        if stale and entry.is_file():
            entry.unlink(missing_ok=True)
            removed.append(entry)
    return removed


@contextmanager
def new_catalog(target: Path) -> Iterator[sqlite3.Connection]:
    """A connection to a fresh catalog with the schema; renamed onto `target` when the block ends
    without error, removed otherwise (the previous catalog stays as it was). The temporary file's
    name holds this process's pid, so the next build can tell a killed build's leftovers."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".catalog-{os.getpid()}-", suffix=".tmp", dir=target.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        conn = sqlite3.connect(tmp)
        conn.executescript(SCHEMA)
        conn.executescript(PTX_SCHEMA)
        yield conn
        conn.execute("INSERT INTO search_fts(search_fts) VALUES ('optimize')")
        conn.commit()
        conn.execute("PRAGMA journal_mode=DELETE")
        conn.close()
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_equivalents(conn: sqlite3.Connection, rows: list[tuple[str, str, str]], summary: dict,
                      rosetta: list[dict] | None = None) -> None:
    """Mappings per (name, vendor) as JSON, the evidence summary in meta, and the Rosetta table (one cell per
    PTX form and arch) in meta 'rosetta'."""
    conn.executemany("INSERT OR REPLACE INTO equivalents(name, vendor, mappings) VALUES (?,?,?)", rows)
    conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('equivalents', ?)", (json.dumps(summary),))
    if rosetta is not None:
        conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('rosetta', ?)", (json.dumps(rosetta),))


def arch_coverage(data: ManualData, merged: dict[str, m.MergedInstruction]) -> ArchCoverage:
    """Opcode-table entries (parsed + unparseable rows) vs those in the catalog, and how many have text."""
    table_names = {e.name for e in data.opcodes if not (e.provenance.section or "").startswith("VOP3 rule")}
    bad_rows = [s for s in data.skips if "opcode table" in s.reason]
    index = m.key_index(merged)
    in_catalog = {n for n in table_names if n in index and data.arch in merged[index[n]].per_arch}
    documented = {d.name for d in data.docs if d.description or d.pseudocode}
    missing = [{"name": s.text, "reason": f"line {s.line}: {s.reason}"} for s in bad_rows]
    missing += [{"name": n, "reason": "in an opcode table, but the instructions chapter has no entry (no description)"}
                for n in sorted(table_names - documented)]
    return ArchCoverage(data.arch, len(table_names) + len(bad_rows), len(in_catalog),
                        len(table_names & documented), missing, len(data.skips))


def _j(obj) -> str:
    return json.dumps(obj, separators=(",", ":"), default=_default)


_PROVENANCE_FIELDS = tuple(f.name for f in fields(Provenance))


def _default(o):
    if isinstance(o, Provenance):   # its fields are plain values: no deep copy (dataclasses.asdict) needed
        return {k: v for k in _PROVENANCE_FIELDS if (v := getattr(o, k)) is not None}
    raise TypeError(type(o))


def write_amd(conn: sqlite3.Connection, manuals: list[ManualData], merged: dict[str, m.MergedInstruction],
           coverage: list[ArchCoverage], sources: Path, syntax: SyntaxDocs | None = None) -> OperandCoverage:
    """The AMD tables; returns how many (instruction, arch) entries got operands and from where."""
    meta = {"schema_version": str(SCHEMA_VERSION), "gpuisa_version": __version__,
            "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "sources": str(sources)}
    conn.executemany("INSERT INTO meta(key, value) VALUES (?, ?)", meta.items())
    by_arch = {d.arch: d for d in manuals}
    cov = {c.arch: c for c in coverage}
    index = m.key_index(merged)
    families = {a.key: families_for_arch(syntax, a.key) if syntax else () for a in ARCHS}
    op_cov = OperandCoverage()
    for a in ARCHS:
        d = by_arch[a.key]
        c = cov[a.key]
        conn.execute(
            "INSERT INTO archs(key, display, family, targets, ord, manual, coverage) VALUES (?,?,?,?,?,?,?)",
            (a.key, a.display, a.family, _j(list(a.targets)), a.order, d.file,
             _j({"table_entries": c.table_entries, "in_catalog": c.in_catalog, "documented": c.documented,
                 "percent": round(c.percent, 2), "missing": c.missing, "skips": c.skips,
                 "errata": len(d.errata)})),
        )
        for enc in d.encodings.values():
            conn.execute(
                "INSERT INTO encodings(arch, name, width, fields, provenance) VALUES (?,?,?,?,?)",
                (a.key, enc.name, enc.width,
                 _j([{"name": f.name, "bits": [list(b) for b in f.bits], "value": f.value,
                      "spelling": f.spelling, "description": f.description} for f in enc.fields]),
                 _j(enc.provenance)),
            )
        conn.executemany(
            "INSERT INTO skips(arch, file, line, reason, text) VALUES (?,?,?,?,?)",
            [(a.key, s.file, s.line, s.reason, s.text) for s in d.skips],
        )
        conn.executemany(
            "INSERT INTO errata(name, arch, kind, detail, sources) VALUES (?,?,?,?,?)",
            [(e.name if e.name == "*" else index.get(e.name, e.name), e.arch, e.kind, e.detail, _j(list(e.sources)))
             for e in d.errata],
        )
    for key, mi in merged.items():
        archs = newest_first(list(mi.per_arch))
        newest = mi.per_arch[archs[0]]
        doc_src = next((mi.per_arch[a].doc for a in archs if mi.per_arch[a].doc and mi.per_arch[a].doc.style == "headed"),
                       None) or next((mi.per_arch[a].doc for a in archs if mi.per_arch[a].doc), None)
        summary = m.summary_of(doc_src.description) if doc_src else ""
        primary = newest.encodings[0]["encoding"] if newest.encodings else ""
        group = m.group_of(primary)
        conn.execute(
            "INSERT INTO instructions(name, vendor, grp, summary, archs, aliases) VALUES (?,?,?,?,?,?)",
            (key, "amd", group, summary, _j(archs), _j(sorted(mi.aliases))),
        )
        conn.executemany("INSERT OR IGNORE INTO aliases(alias, name, evidence) VALUES (?, ?, ?)",
                         [(a, key, why) for a, why in sorted(mi.aliases.items())])
        for arch, entry in mi.per_arch.items():
            doc = entry.doc
            enc0 = by_arch[arch].encodings.get(entry.encodings[0]["layout"] or "") if entry.encodings else None
            names = [entry.manual_name, key, *mi.aliases]
            enc_name = entry.encodings[0]["encoding"] if entry.encodings else ""
            operands, row, op_errata = operands_for(key, arch, names, enc0, enc_name, doc, syntax,
                                                    families[arch], op_cov)
            if row is not None:
                conn.execute("INSERT INTO syntax_rows(name, arch, family, section, mnemonic, file, line, served_by)"
                             " VALUES (?,?,?,?,?,?,?,?)",
                             (key, arch, row["family"], row["section"], row["mnemonic"], row["file"], row["line"],
                              "/".join(families[arch])))
            conn.executemany("INSERT INTO errata(name, arch, kind, detail, sources) VALUES (?,?,?,?,?)",
                             [(key, e.arch, e.kind, e.detail, _j(list(e.sources))) for e in op_errata])
            conn.execute(
                "INSERT INTO instr_arch(name, arch, manual_name, section, description, semantics, notes, style,"
                " operands, provenance) VALUES (?,?,?,?,?,?,?,?,?,?)",
                (key, arch, entry.manual_name, doc.section if doc else "", doc.description if doc else "",
                 doc.pseudocode if doc else "", doc.notes if doc else "", doc.style if doc else "",
                 _j(operands), _j(doc.provenance) if doc else None),
            )
            for rank, e in enumerate(entry.encodings):
                conn.execute(
                    "INSERT INTO instr_enc(name, arch, encoding, layout, op_field, opcode, identifier, rank, provenance)"
                    " VALUES (?,?,?,?,?,?,?,?,?)",
                    (key, arch, e["encoding"], e["layout"], e["op_field"], e["opcode"],
                     None if e["identifier"] is None else str(e["identifier"]), rank, _j(e["provenance"])),
                )
        body = " ".join(filter(None, [doc_src.description if doc_src else "", " ".join(sorted(mi.aliases))]))
        conn.execute("INSERT INTO search_fts(name, vendor, arch, summary, body) VALUES (?,?,?,?,?)",
                     (key.lower(), "amd", " ".join(archs), summary, body))
    if syntax is not None:
        conn.executemany(
            "INSERT INTO operand_pages(label, name, description, size, size_bits, accepts, kinds, text, file, line)"
            " VALUES (?,?,?,?,?,?,?,?,?,?)",
            [(p.label, p.name, p.description, p.size_text, p.size_bits, _j(list(p.accepts)), _j(list(p.kinds)),
              p.text, p.provenance.file, p.provenance.line) for p in syntax.pages.values()])
        conn.executemany("INSERT INTO skips(arch, file, line, reason, text) VALUES (?,?,?,?,?)",
                         [(None, s.file, s.line, s.reason, s.text) for s in syntax.skips])
    conn.execute("INSERT INTO meta(key, value) VALUES (?, ?)", ("operand_coverage", _j(op_cov.as_dict())))
    return op_cov

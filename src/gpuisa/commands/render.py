"""Terminal rendering for the CLI (rich). Only presentation: data comes from Catalog documents."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

if TYPE_CHECKING:   # the documents module loads pydantic (about 1 s): imported where a command prints one
    from gpuisa.catalog.documents import ArchDiff, EncodingDoc, Equivalent, InstructionDiff, InstructionDocument, PtxDocument

console = Console(highlight=False)


def build_with_progress(sources: Path, target: Path, jobs: int, verify: bool = True, pending: bool = False,
                        accept_drop: bool = False, equivalents: bool = True,
                        rosetta: str = "cached", rosetta_running: bool = False,
                        tools: tuple[str, ...] = ("llvm-mc", "ptxas"), force: bool = False) -> None:
    from gpuisa.build import build  # heavy: the build loads numpy, lark and z3 (equivalents)

    # finished steps leave the live table (the stage times printed at the end sum them up): a verified build
    # has over a hundred steps, and redrawing all of them ten times a second cost more CPU than llvm-mc did
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console, transient=False, refresh_per_second=4) as progress:
        tasks: dict[str, int] = {}

        def update(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = progress.add_task(f"reading {stage}", total=total)
            progress.update(tasks[stage], completed=done, total=total, visible=done < total)

        report = build(sources, target, update, jobs, verify, equivalents=equivalents, pending=pending,
                       accept_drop=accept_drop, tools=tools, rosetta=rosetta, rosetta_running=rosetta_running,
                       force=force)
    if report.up_to_date:
        console.print(f"catalog {report.path} is up to date (built {report.up_to_date}) from the same sources, code, "
                      f"options, tools and Rosetta cache; nothing rebuilt ({report.seconds:.1f} s; --force rebuilds)")
        return
    table = Table(title="Coverage: instruction entries in each manual's opcode tables found in the catalog")
    for col in ("arch", "table entries", "in catalog", "%", "with manual text", "skipped items"):
        table.add_column(col, justify="right" if col != "arch" else "left")
    for c in report.coverage:
        table.add_row(c.arch, str(c.table_entries), str(c.in_catalog), f"{c.percent:.2f}", str(c.documented),
                      str(c.skips))
    console.print(table)
    for c in report.coverage:
        for miss in c.missing[:20]:
            console.print(f"  {c.arch}: {miss['name']}: {miss['reason']}")
        if len(c.missing) > 20:
            console.print(f"  {c.arch}: … and {len(c.missing) - 20} more (gpuisa archs --json lists all)")
    if report.llvm is not None:
        print_llvm_report(report.llvm)
    for note in report.notes:
        console.print(f"note: {note}")
    console.print("stages (wall / CPU s, CPU with workers and tools): "
                  + ", ".join(f"{t.stage} {t.wall_s:.1f}/{t.cpu_s:.1f}" for t in report.stages if t.wall_s >= 0.05))
    console.print(f"{report.instructions} instructions, catalog {report.path}, {report.seconds:.1f} s")


def print_llvm_report(r) -> None:
    skipped = r.skipped_encoding_lines
    console.print(f"LLVM MC tests: {r.examples} examples ({r.matched} matched to a catalog instruction), "
                  f"{skipped} of {r.encoding_lines} encoding lines skipped "
                  f"({100 * skipped / max(r.encoding_lines, 1):.3f}%), {r.errata} manual-vs-LLVM errata")
    console.print("  examples per target: " + ", ".join(f"{t} {n}" for t, n in sorted(r.per_target.items())))
    console.print("  target verdicts: " + ", ".join(f"{k} {v}" for k, v in r.verdicts.most_common())
                  + (f" ({r.verified_with_llvm_mc} from {r.llvm_mc})" if r.llvm_mc else ""))
    table = Table(title="Manual vs LLVM: encoding identifiers that agree with the bytes in LLVM's tests")
    for col in ("arch", "encoding", "instructions checked", "agree", "%", "examples checked", "%"):
        table.add_column(col)
    for (arch, enc), (checked, agree, ex_checked, ex_agree) in sorted(r.agreement.items()):
        table.add_row(arch, enc, str(checked), str(agree), f"{100 * agree / max(checked, 1):.1f}", str(ex_checked),
                      f"{100 * ex_agree / max(ex_checked, 1):.1f}")
    console.print(table)


def print_archs(rows: list[dict]) -> None:
    table = Table()
    for col in ("arch", "name", "family", "gfx targets", "instructions", "coverage %"):
        table.add_column(col)
    for r in rows:
        table.add_row(r["key"], r["display"], r["family"], " ".join(r["targets"]), str(r["instructions"]),
                      f"{r['coverage']['percent']:.2f}")
    console.print(table)


def bit_diagram(enc: EncodingDoc) -> Table:
    """Fields MSB first, fixed bits shown as binary, the opcode shown in its field."""
    table = Table(show_header=False, box=None, padding=(0, 1))
    names, ranges = [], []
    for f in enc.fields:
        bits = ",".join(f"{hi}:{lo}" if hi != lo else str(hi) for hi, lo in f.bits)
        width = sum(hi - lo + 1 for hi, lo in f.bits)
        if f.value is not None:
            label = format(f.value, f"0{width}b")
        elif f.name == enc.op_field and enc.opcode is not None:
            label = f"{f.name}={format(enc.opcode, f'0{width}b')}"
        else:
            label = f.name
        names.append(label)
        ranges.append(bits)
    for _ in names:
        table.add_column()
    table.add_row(*[Text(n, style="bold") for n in names])
    table.add_row(*ranges)
    return table


def print_instruction(doc: InstructionDocument) -> None:
    from gpuisa.catalog.documents import PtxDocument

    if isinstance(doc, PtxDocument):
        print_ptx(doc)
        return
    console.print(Text(f"{doc.name}", style="bold") + Text(f"  AMD native ISA · {doc.arch_display}"
                                                           f" · {doc.group} · {doc.category}"))
    if doc.summary:
        console.print(doc.summary)
    for enc in doc.encodings:
        console.rule(f"{enc.encoding} · {enc.width} bits · opcode {enc.opcode} · identifier {enc.identifier}")
        if enc.fields:
            console.print(bit_diagram(enc))
    if doc.operands or doc.syntax:
        syn = doc.syntax
        console.rule("Operands" + (f" · LLVM {syn.family} {syn.section}: {syn.file}:{syn.line}" if syn else ""))
        table = Table(box=None, pad_edge=False, show_header=True, header_style="bold")
        for column in ("operand", "role", "field", "bits", "accepts", "size", "format"):
            table.add_column(column)
        for op in doc.operands:
            bits = " ".join(f"[{hi}:{lo}]" if hi != lo else f"[{hi}]" for f in op.fields for hi, lo in f.bits)
            field = "/".join(f.name for f in op.fields) or op.encoded
            role = op.role + (" (optional)" if op.optional and op.role != "modifier" else "")
            table.add_row(op.syntax or op.name, f"{role} {op.access}".strip(), field, bits,
                          op.register_class, str(op.size_bits or ""), op.format)
        console.print(table)
    console.rule("Generations")
    for g in doc.generations:
        if g.same:
            what = "same"
        else:
            parts = []
            if not g.same_opcode:
                parts.append(f"{g.encoding} opcode {g.opcode}")
            if not g.same_layout:
                parts.append("fields: " + ", ".join(f"{d.field} {d.change}" for d in g.differs))
            what = "; ".join(parts)
        console.print(f"  {g.arch:<8} {what}")
    for title, text in (("Description", doc.description), ("Semantics", doc.semantics), ("Notes", doc.notes)):
        if text:
            console.rule(title)
            console.print(Text(text))
    if doc.examples or doc.examples_note:
        console.rule("Examples (LLVM MC tests)")
        if doc.examples_note:
            console.print(Text(f"  {doc.examples_note}"))
        for ex in doc.examples[:6]:
            src = ex.source
            console.print(Text(f"  {ex.asm:<48} {ex.bytes:<36} {' '.join(ex.targets[:4])}  "
                               f"{(src.file or '').rsplit('/', 1)[-1]}:{src.line}"))
    if doc.targets:
        console.rule("GFX target support")
        by_verdict: dict[str, list[str]] = {}
        for t, v in doc.targets.items():
            by_verdict.setdefault(v.verdict, []).append(t)
        for verdict, ts in by_verdict.items():
            console.print(f"  {verdict}: {' '.join(ts)}")
    if doc.equivalents:
        console.rule("Cross-vendor equivalents")
        console.print(equivalents_table(doc.equivalents, doc.arch_display))
    if doc.errata:
        console.rule("Errata (sources disagree)")
        for e in doc.errata:
            console.print(f"  {e.arch or ''} {e.kind}: {e.detail}")
    console.rule("Sources")
    for s in doc.sources:
        where = f"{s.file}:{s.line}" if s.line else s.file
        console.print(f"  {s.what}: {where}")


def print_ptx(doc: PtxDocument) -> None:
    """A PTX page: forms with documented vs verified version and target, SASS per target."""
    console.print(Text(doc.name, style="bold") + Text(f"  NVIDIA PTX (virtual ISA) · {doc.category}"))
    if doc.summary:
        console.print(doc.summary)
    if doc.syntax:
        console.rule("Syntax")
        console.print(Text(doc.syntax))
    console.rule("Forms (documented / verified with ptxas)")
    for f in doc.forms[:60]:
        d, v = f.documented, f.verified
        verified = (f"PTX {v.ptx_version or '?'} {_sm(v.sm)}" if v and v.status in ("verified", "accepted")
                    else v.status if v else "not verified")
        console.print(Text(f"  {f.form:<36} doc: PTX {(d.ptx_version if d else None) or '?'} {_sm(d.sm if d else []):<10} "
                           f"ptxas: {verified}"))
        for target, ops in f.sass.items():
            console.print(Text(f"      SASS {target}: {' '.join(ops)}"))
    if len(doc.forms) > 60:
        console.print(f"  … {len(doc.forms) - 60} more forms (--json lists all)")
    for title, text in (("Description", doc.description), ("Semantics", doc.semantics), ("Notes", doc.notes)):
        if text:
            console.rule(title)
            console.print(Text(text))
    if doc.examples:
        console.rule("Examples")
        console.print(Text("\n".join(doc.examples)))
    if doc.equivalents:
        console.rule("AMD equivalents")
        console.print(equivalents_table(doc.equivalents, None))
    if doc.errata:
        console.rule("Errata (sources disagree)")
        for e in doc.errata:
            console.print(Text(f"  {e.form or e.name}: {e.kind}: documented {e.documented}, "
                               f"verified {e.verified} {e.message or ''}"))
    console.rule("Sources")
    for s in doc.sources:
        console.print(f"  {s.file}:{s.line} (section {s.section})")


def _sm(value: list[str]) -> str:
    return ",".join(value) if value else "?"


_SCOPE_WORDS = {"checked here": "checked on this arch", "same pseudocode": "holds: same pseudocode as {arch}",
                "differs": "not claimed: pseudocode differs from {arch}"}


def equivalents_table(equivalents: list[Equivalent], page_arch: str | None) -> Table:
    """Cross-vendor mappings in words: level, the other side, restrictions, where checked and the evidence."""
    table = Table(show_lines=True, expand=False)
    for col in ("concept", "PTX", "AMD", "level", "checked on", "evidence"):
        table.add_column(col, overflow="fold")
    if page_arch:
        table.add_column(f"on {page_arch}", overflow="fold")
    for e in equivalents:
        amd = e.amd or "\n".join(e.sequence) or "none"
        level = e.level if e.level != "none" else "no equivalent"
        if e.restrictions:
            level += "\nwhen: " + "; ".join(e.restrictions)
        row = [e.concept_title, e.ptx, amd, level, e.arch, e.evidence.in_words()]
        if page_arch:
            scope = e.on_this_arch
            row.append(_SCOPE_WORDS[scope.status].format(arch=scope.arch) if scope else "")
        table.add_row(*row)
    return table


def print_diff(result: InstructionDiff | ArchDiff) -> None:
    from gpuisa.catalog.documents import InstructionDiff

    if isinstance(result, InstructionDiff):
        console.print(f"{result.name}: {result.from_} -> {result.to}: {result.status}")
        for arch, encs in ((result.from_, result.from_encodings), (result.to, result.to_encodings)):
            listed = ", ".join(f"{e.encoding} opcode {e.opcode} ({e.identifier or 'no identifier'})" for e in encs)
            console.print(f"  {arch}: {listed or 'not in this manual'}")
        for d in result.differs:
            console.print(f"  field {d.field}: {d.change} {d.from_ or ''} -> {d.to or ''}")
        return
    c = result.counts
    console.print(f"{result.from_} -> {result.to}: {c.added} added, {c.removed} removed, "
                  f"{c.renamed} renamed, {c.reencoded} re-encoded, {c.common} in both")
    for title, names in (("added", result.added), ("removed", result.removed)):
        if names:
            console.rule(title)
            console.print(" ".join(names))
    if result.renamed:
        console.rule("renamed")
        for r in result.renamed:
            console.print(f"  {r.from_} -> {r.to}")
    if result.reencoded:
        console.rule("re-encoded")
        for r in result.reencoded:
            f, t = r.from_, r.to
            extra = f" fields: {', '.join(r.fields_changed)}" if r.fields_changed else ""
            console.print(f"  {r.name:<32} {f.encoding} {f.opcode} -> {t.encoding} {t.opcode}{extra}")

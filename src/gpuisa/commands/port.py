"""`gpuisa port (TEXT | --file F.ptx) --arch A`: each PTX instruction line with the AMD instruction or
sequence discovery found for it on that arch, the PTX operands in the AMD operand slots, level and
evidence; lines with no mapping say why, malformed lines name line:column.

Statements come from the language server's PTX reader (lsp.asm_text: comments, labels, guards,
several statements per line); the mapping is crossref.port over the Rosetta rows of that arch.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Annotated, Any

import typer

from gpuisa import paths
from gpuisa.archs import resolve_arch
from gpuisa.commands.amd import CatalogOpt, open_catalog
from gpuisa.errors import GpuisaError
from gpuisa.limits import MAX_ARGUMENT_CHARS

MAX_PORT_BYTES = 8 << 20          # a PTX file bigger than this is not one kernel's source
_GUARD = re.compile(r"@!?%?[\w$]+\s*$")
_CODE = re.compile(r"//.*$")
_NOT_STATEMENT = re.compile(r"^\s*(?:\.|[{}]|[$%\w]+\s*:(?!:)\s*$|$)")


def port_text(cat: Any, text: str, arch: str) -> dict[str, Any]:
    """{"arch", "lines": [...]} for PTX text; never raises on the text itself."""
    from gpuisa.crossref.discovery import (  # heavy: numpy, lark
        CHAPTERS,
        EQ,
        EQR,
        PAIRS_CHAPTER,
        PtxFormRef,
        discover_arch,
        rosetta_forms,
    )
    from gpuisa.crossref.port import ERROR, Statement, fusable_pairs, port_pair, port_statement
    from gpuisa.crossref.ptx_forms import WrittenForms
    from gpuisa.lsp.asm_text import read

    listed = [(r.form, r.chapter) for r in rosetta_forms(cat.ptx_forms_in(CHAPTERS))]
    forms = WrittenForms(cat, listed)
    chapters = {e.name.split(".")[0]: c.category for c in cat.ptx_index() for e in c.entries}
    doc = read("port.ptx", text, "ptx")
    lines = text.splitlines()
    statements: list[Statement] = []
    for ins in doc.instructions:
        src = lines[ins.span.line]
        head = src[:ins.span.start]
        guard = _GUARD.search(head)
        begin = guard.start() if guard else ins.span.start
        end = ins.operands_start + len(ins.operands)
        statements.append(Statement(ins.span.line + 1, src[begin:end], ins.mnemonic, ins.span.start,
                                    ins.operands, ins.operands_start, guard.group(0).strip() if guard else ""))
    wanted: dict[str, str] = {}
    for st in statements:
        try:
            found, chapter = forms.resolve(st.mnemonic)
            wanted.setdefault(found.form.form, chapter)
        except GpuisaError:
            continue
    pairs = fusable_pairs(statements, forms)
    for name in set(pairs.values()):
        wanted[name] = PAIRS_CHAPTER
    rows = discover_arch(arch, [PtxFormRef(f, c) for f, c in wanted.items()], forms,
                         paths.cache_dir() / "rosetta-proofs.json")["rows"]
    by_form = {r["form"]: r for r in rows}
    out: list[dict[str, Any]] = []
    fused_second: dict[int, dict[str, Any]] = {}
    for i, st in enumerate(statements):
        if i in fused_second:
            out.append(fused_second.pop(i))
            continue
        pair = by_form.get(pairs.get(i, ""))
        if pair is not None and pair["level"] in (EQ, EQR):
            first, second = port_pair(st, statements[i + 1], pair)
            out.append(first)
            fused_second[i + 1] = second
            continue
        out.append(port_statement(st, forms, lambda form, _c: by_form[form], lambda head: chapters.get(head)))
    seen = {st.line for st in statements}
    in_block = False
    for no, src in enumerate(lines, 1):
        code = src
        if in_block or "/*" in code:
            code, in_block = _drop_block_comments(code, in_block)
        code = _CODE.sub("", code)
        if no in seen or _NOT_STATEMENT.match(code):
            continue
        col = len(code) - len(code.lstrip()) + 1
        out.append({"line": no, "ptx": src.strip(), "level": ERROR,
                    "errors": [f"{no}:{col}: not a PTX statement (expected [label:] [@pred] opcode operands;)"]})
    out.sort(key=lambda e: e["line"])
    return {"arch": arch, "lines": out}


def _drop_block_comments(code: str, in_block: bool) -> tuple[str, bool]:
    kept = []
    i = 0
    while i < len(code):
        if in_block:
            j = code.find("*/", i)
            if j < 0:
                return "".join(kept), True
            i, in_block = j + 2, False
        elif code.startswith("/*", i):
            in_block, i = True, i + 2
        else:
            kept.append(code[i])
            i += 1
    return "".join(kept), in_block


def _listing(out: dict[str, Any]) -> list[str]:
    rows = []
    for e in out["lines"]:
        amd = e.get("amd") or "; ".join(e.get("sequence", [])) or ""
        why = e.get("evidence") or e.get("reason") or "; ".join(e.get("errors", []))
        rows.append(f"{e['line']:>5}  {e['ptx'][:44]:<44} | {amd[:46]:<46} {e['level']:<28} {why[:120]}")
        for r in e.get("restrictions", []):
            rows.append(f"{'':>5}  {'':<44} |   restriction: {r}")
    return rows


def register(app: typer.Typer) -> None:
    @app.command("port")
    def port_cmd(
        text: Annotated[str | None, typer.Argument(help="PTX statements (or give --file)")] = None,
        arch: Annotated[str, typer.Option("--arch", "-a", help="AMD architecture or gfx target (cdna3, gfx942)")] = "",
        file: Annotated[Path | None, typer.Option("--file", "-f", help="PTX file to port")] = None,
        catalog: CatalogOpt = None,
        as_json: Annotated[bool, typer.Option("--json", help="one entry per line: line, ptx, level, amd | "
                                                            "sequence, evidence | reason | errors")] = False,
    ) -> None:
        """Port PTX to an AMD arch, line by line: the AMD instruction, level and evidence, or why not."""
        if not arch:
            raise GpuisaError("give the target with --arch (an arch such as cdna3 or a gfx target such as gfx942)")
        if (text is None) == (file is None):
            raise GpuisaError("give either PTX text or --file F.ptx, not both or neither")
        if file is not None:
            try:
                if file.stat().st_size > MAX_PORT_BYTES:
                    raise GpuisaError(f"{file}: larger than {MAX_PORT_BYTES >> 20} MiB")
                src = file.read_text(encoding="utf-8", errors="replace")
            except OSError as exc:
                raise GpuisaError(f"cannot read {file}: {exc.strerror or exc}") from None
        else:
            src = text or ""
            if len(src) > MAX_ARGUMENT_CHARS:
                raise GpuisaError(f"PTX text longer than {MAX_ARGUMENT_CHARS} characters; use --file")
        key = resolve_arch(arch).key
        out = port_text(open_catalog(catalog), src, key)
        if as_json:
            typer.echo(json.dumps(out, indent=1))
            return
        for line in _listing(out):
            typer.echo(line)
        bad = sum(1 for e in out["lines"] if e["level"] == "error")
        typer.echo(f"# {key}: {len(out['lines'])} statements, {bad} with errors")

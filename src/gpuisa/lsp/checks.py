"""Diagnostics for one document: the catalog's verdicts per line, and the real assembler's errors.

`catalog_findings` needs only the catalog (instructions not supported on the file's target, PTX
forms that need a newer sm or PTX ISA); `tool_findings` runs llvm-mc or ptxas on the whole text
as an asyncio subprocess, so the server can cancel it (and kill the tool) when the user types.
Findings carry Python string columns; the server converts them to the client's units.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import tempfile
from dataclasses import dataclass, field

from gpuisa.archs import TARGET_TO_ARCH
from gpuisa.lsp.asm_text import AMD, PTX, Document, Span, is_listing
from gpuisa.lsp.facts import Facts, arch_of_target, is_ptx_target
from gpuisa.verify import llvm_mc
from gpuisa.verify.ptx_tools import find_tools

ERROR, WARNING, INFORMATION, HINT = 1, 2, 3, 4

_MC_DIAG = re.compile(r"^<stdin>:(\d+):(\d+): (error|warning|note): (.*)$")
_PTXAS_DIAG = re.compile(r"^ptxas[^,]*, line (\d+); (error|warning|fatal)\s*:\s*(.*)$")
_PTXAS_TOO_OLD = re.compile(r"Unsupported \.version (\d+\.\d+); current version is '(\d+\.\d+)'")
TOOL_TIMEOUT_S = 30.0


@dataclass(frozen=True, slots=True)
class Finding:
    span: Span
    severity: int
    message: str
    source: str             # "gpuisa" or the tool and its version ("llvm-mc 22.1.8")
    code: str = ""


def effective_target(doc: Document, setting: str | None) -> tuple[str | None, str | None]:
    """(target, PTX version) for a document: what the file names, else the client's setting."""
    version = doc.target.ptx_version if doc.target else None
    if doc.target is not None and doc.target.target:
        return doc.target.target, version
    return ((setting or "").lower() or None), version


def catalog_findings(doc: Document, facts: Facts, setting: str | None) -> list[Finding]:
    """Per-line findings from the catalog alone (fast: one catalog lookup per distinct mnemonic)."""
    target, version = effective_target(doc, setting)
    out: list[Finding] = []
    if target and not _known_target(doc.dialect, target):
        span = doc.target.span if doc.target is not None and doc.target.span else Span(0, 0, 0)
        known = "gfx targets such as " + ", ".join(sorted(TARGET_TO_ARCH)[:4]) + " ..." if doc.dialect == AMD \
            else "sm_XX targets such as sm_80, sm_90a"
        out.append(Finding(span, WARNING, f"unknown target {target!r} ({_where(doc, setting)}); gpuisa knows {known}",
                           "gpuisa", "unknown-target"))
        target = None
    for line in doc.skipped_lines:
        out.append(Finding(Span(line, 0, 0), INFORMATION, "line longer than 4096 characters: not checked",
                           "gpuisa", "line-too-long"))
    if doc.dialect == AMD:
        if target:
            out += _amd(doc, facts, target)
    else:
        if target or version:
            out += _ptx(doc, facts, target, version)
    return out


def _where(doc: Document, setting: str | None) -> str:
    if doc.target is not None and doc.target.target:
        return f"from {doc.target.how}"
    return "from the client's settings"


def _known_target(dialect: str, target: str) -> bool:
    return arch_of_target(target) is not None if dialect == AMD else is_ptx_target(target)


def _amd(doc: Document, facts: Facts, target: str) -> list[Finding]:
    out = []
    arch = arch_of_target(target)
    seen: dict[str, tuple[int, str] | None] = {}
    for ins in doc.instructions:
        low = ins.mnemonic.lower()
        if low not in seen:
            seen[low] = _amd_verdict(facts, low, target, arch)
        found = seen[low]
        if found is not None:
            severity, message = found
            out.append(Finding(ins.span, severity, message, "gpuisa", "target-support"))
    return out


def _amd_verdict(facts: Facts, mnemonic: str, target: str, arch: str | None) -> tuple[int, str] | None:
    key = facts.amd_key(mnemonic)
    if key is None:
        return None
    v = facts.verdict(key, target)
    if v is not None and v.verdict == "not supported":
        return ERROR, f"{mnemonic} is not supported on {target}: {v.evidence}"
    return None


def _ptx(doc: Document, facts: Facts, target: str | None, version: str | None) -> list[Finding]:
    """A requirement ptxas verified is an error; one only the manual's notes state is a warning (the
    notes are sometimes scoped too widely), and it is dropped when ptxas assembles the file (`settle`)."""
    out = []
    seen: dict[str, tuple[str, bool] | None] = {}
    for ins in doc.instructions:
        low = ins.mnemonic.lower()
        if low not in seen:
            seen[low] = facts.ptx_unmet(low, target, version)
        unmet = seen[low]
        if unmet:
            message, verified = unmet
            out.append(Finding(ins.span, ERROR if verified else WARNING, message, "gpuisa",
                               "target-support" if verified else DOCUMENTED))
    return out


DOCUMENTED = "documented-requirement"


def settle(found: list[Finding], run: ToolRun) -> list[Finding]:
    """Evidence wins: when the assembler took the whole file, the manual-only warnings it contradicts go."""
    if not run.clean:
        return found
    return [f for f in found if f.code != DOCUMENTED]


# ------------------------------------------------------------------------------ real tools


@dataclass(frozen=True, slots=True)
class Tool:
    """An assembler found on this machine: its path and the label that names it in findings."""

    path: str
    label: str


def find_llvm_mc() -> Tool | None:
    try:
        tool = llvm_mc.find_llvm_mc()
    except llvm_mc.LlvmMcMissing:
        return None
    return Tool(tool.path, tool.label)


def find_ptxas() -> Tool | None:
    tools = find_tools()
    return Tool(str(tools.ptxas), tools.label) if tools.ptxas else None


@dataclass(slots=True)
class ToolRun:
    """One run of the real assembler on a document version: what it said and who said it."""

    label: str              # "llvm-mc 22.1.8" / "ptxas 13.5.37"
    target: str
    clean: bool             # exit status 0: the tool assembled the whole document
    findings: list[Finding]
    by_line: dict[int, list[str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for f in self.findings:
            self.by_line.setdefault(f.span.line, []).append(f.message)

    def verdict_for_line(self, line: int) -> str:
        """What the tool said about one line, for the hover."""
        said = self.by_line.get(line)
        if said:
            return f"**{self.label}** (-arch/-mcpu {self.target}) on this line: " + "; ".join(said)
        if self.clean:
            return f"**verified** by {self.label}: assembles this file for {self.target} without error"
        if self.label.startswith("llvm-mc"):     # llvm-mc reports every bad line and goes on
            return f"**verified** by {self.label}: accepts this line for {self.target}"
        return ""


async def tool_findings(doc: Document, text: str, setting: str | None, llvm_mc: Tool | None,
                        ptxas: Tool | None) -> ToolRun | None:
    """Run the assembler on the whole text; its messages mapped to line and column.

    Cancelling the awaiting task kills the tool. None when no tool or no target applies."""
    target, _ = effective_target(doc, setting)
    if not target:
        return None
    if doc.dialect == AMD:
        if llvm_mc is None or arch_of_target(target) is None or is_listing(doc):
            return None
        cmd = [llvm_mc.path, "-triple=amdgcn", f"-mcpu={target}", "-filetype=null"]
        rc, out = await _run(cmd, text.encode("utf-8", "replace"))
        return ToolRun(llvm_mc.label, target, rc == 0, _mc_findings(doc, out, llvm_mc.label))
    if doc.dialect == PTX and ptxas is not None and is_ptx_target(target):
        with tempfile.TemporaryDirectory(prefix="gpuisa-lsp-") as tmp:
            src = os.path.join(tmp, "doc.ptx")
            with open(src, "w", encoding="utf-8", errors="replace") as fh:
                fh.write(text)
            rc, out = await _run([ptxas.path, "-arch", target, src, "-o", os.devnull], None)
        return ToolRun(ptxas.label, target, rc == 0, _ptxas_findings(doc, out, ptxas.label))
    return None


async def _run(cmd: list[str], stdin: bytes | None) -> tuple[int, str]:
    proc = await asyncio.create_subprocess_exec(
        *cmd, stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    try:
        out, _ = await asyncio.wait_for(proc.communicate(stdin), TOOL_TIMEOUT_S)
    except (TimeoutError, asyncio.CancelledError):
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        with contextlib.suppress(Exception):
            await proc.wait()
        raise
    return proc.returncode or 0, out.decode("utf-8", "replace")


def _mc_findings(doc: Document, output: str, label: str) -> list[Finding]:
    out = []
    for raw in output.splitlines():
        m = _MC_DIAG.match(raw)
        if not m or m.group(3) == "note":
            continue
        line, col = int(m.group(1)) - 1, int(m.group(2)) - 1
        if not 0 <= line < len(doc.lines):
            continue
        end = _token_end(doc.lines[line], col)
        severity = ERROR if m.group(3) == "error" else WARNING
        out.append(Finding(Span(line, col, end), severity, m.group(4).strip(), label, "assembler"))
    return out


def _token_end(text: str, col: int) -> int:
    col = max(0, min(col, len(text)))
    end = col
    while end < len(text) and not text[end].isspace() and text[end] != ",":
        end += 1
    return max(end, min(col + 1, len(text)))


def _ptxas_findings(doc: Document, output: str, label: str) -> list[Finding]:
    out = []
    for raw in output.splitlines():
        too_old = _PTXAS_TOO_OLD.search(raw)
        if too_old:
            # A tool older than the file's PTX ISA cannot judge it: say so, reject nothing.
            span = doc.target.span if doc.target and doc.target.span else Span(0, 0, 0)
            out.append(Finding(span, INFORMATION, f"{label} reads PTX ISA up to {too_old.group(2)}; "
                               f"this file is .version {too_old.group(1)}: not checked", label, "tool-too-old"))
            return out
        m = _PTXAS_DIAG.match(raw.strip())
        if not m or m.group(2) == "warning":
            continue
        line = int(m.group(1)) - 1
        if not 0 <= line < len(doc.lines):
            continue
        ins = doc.by_line.get(line)
        if ins:
            span = ins[0].span
        else:
            text = doc.lines[line]
            start = len(text) - len(text.lstrip())
            span = Span(line, start, len(text.rstrip()))
        out.append(Finding(span, ERROR, m.group(3).strip(), label, "assembler"))
    return out

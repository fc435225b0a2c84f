"""`gpuisa lsp`: a language server (pygls, stdio) for AMDGPU assembly and PTX.

Hover, completion, signature help, diagnostics, go to definition, references and document
symbols. Facts come from the catalog (through lsp.facts); parsing from lsp.asm_text; diagnostics
from lsp.checks. Diagnostics run in one task per document: debounced, and cancelled (killing
llvm-mc or ptxas) when the document changes again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass, field
from typing import Any

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.workspace import TextDocument
from pygls.workspace.position_codec import ServerTextPosition, ServerTextRange

from gpuisa.lsp import asm_text, checks
from gpuisa.lsp.asm_text import AMD, Document, Span
from gpuisa.lsp.facts import DEFAULT_PAGES, Facts

log = logging.getLogger("gpuisa.lsp")

DEBOUNCE_S = 0.25
COMPLETION_LIMIT = 200
AMD_LANGUAGES = ("asm", "s", "amdgpu", "amdgcn", "gas")


class RequestFailed(JsonRpcException):
    """LSP's RequestFailed (-32803): the request was valid but cannot be answered (document not open)."""

    CODE = -32803
    MESSAGE = "Request failed"


@dataclass
class Settings:
    """What the client may set (initializationOptions or workspace/didChangeConfiguration `gpuisa`)."""

    target: str | None = None           # default target for files that name none (gfx942, sm_80)
    pages: str = DEFAULT_PAGES          # base URL of `gpuisa serve` for the page links
    tool_diagnostics: bool = True       # run llvm-mc / ptxas when installed
    debounce_ms: int = int(DEBOUNCE_S * 1000)

    def update(self, data: Any) -> None:
        if not isinstance(data, dict):
            return
        data = data.get("gpuisa", data) if isinstance(data.get("gpuisa"), dict) else data
        if isinstance(data.get("target"), str):
            self.target = data["target"].strip().lower() or None
        if isinstance(data.get("pages"), str):
            self.pages = data["pages"]
        if isinstance(data.get("toolDiagnostics"), bool):
            self.tool_diagnostics = data["toolDiagnostics"]
        if isinstance(data.get("debounceMs"), int) and 0 <= data["debounceMs"] <= 10_000:
            self.debounce_ms = data["debounceMs"]


@dataclass
class _Open:
    version: int
    parsed: Document | None = None
    parsed_version: int = -1
    task: asyncio.Task | None = None
    published: list[lsp.Diagnostic] = field(default_factory=list)
    tool: checks.ToolRun | None = None          # the assembler's last word on this version
    tool_version: int = -1


class GpuisaLanguageServer(LanguageServer):
    def __init__(self, facts: Facts, settings: Settings | None = None) -> None:
        super().__init__("gpuisa", "0.1.0", text_document_sync_kind=lsp.TextDocumentSyncKind.Incremental)
        self.facts = facts
        self.settings = settings or Settings()
        self.open: dict[str, _Open] = {}
        self.llvm_mc: checks.Tool | None = None
        self.ptxas: checks.Tool | None = None
        self.tools_found = False

    # ------------------------------------------------------------------ documents

    def text_document(self, uri: str) -> TextDocument:
        """The open document; an LSP error (never a crash) for a document the client has closed."""
        if uri not in self.open:
            self.log(lsp.MessageType.Warning, f"request for a document that is not open: {uri}")
            raise RequestFailed(f"document not open: {uri}")
        return self.workspace.get_text_document(uri)

    def parsed(self, uri: str) -> tuple[TextDocument, Document]:
        state = self.open.get(uri)
        td = self.text_document(uri)
        assert state is not None
        if state.parsed is None or state.parsed_version != state.version:
            state.parsed = asm_text.read(uri, td.source, td.language_id)
            state.parsed_version = state.version
        return td, state.parsed

    def recent(self, uri: str) -> tuple[TextDocument, Document]:
        """The document and its last parse, even if a few keystrokes old (for what only needs the target)."""
        state = self.open.get(uri)
        if state is None or state.parsed is None:
            return self.parsed(uri)
        return self.text_document(uri), state.parsed

    def log(self, level: lsp.MessageType, message: str) -> None:
        log.info(message)
        with contextlib.suppress(Exception):
            self.window_log_message(lsp.LogMessageParams(type=level, message=message))

    # ------------------------------------------------------------------ diagnostics

    def schedule(self, uri: str) -> None:
        state = self.open.get(uri)
        if state is None:
            return
        if state.task is not None and not state.task.done():
            state.task.cancel()
        state.task = asyncio.get_event_loop().create_task(self._diagnose(uri, state.version))

    async def _diagnose(self, uri: str, version: int) -> None:
        try:
            await asyncio.sleep(self.settings.debounce_ms / 1000)
            if uri not in self.open or self.open[uri].version != version:
                return
            td, doc = self.parsed(uri)
            found = await asyncio.get_running_loop().run_in_executor(
                self.thread_pool, checks.catalog_findings, doc, self.facts, self.settings.target)
            for f in found:
                if f.code in ("unknown-target", "line-too-long"):
                    self.log(lsp.MessageType.Warning, f"{uri}:{f.span.line + 1}: {f.message}")
            self._publish(uri, version, td, doc, found)
            if not self.settings.tool_diagnostics:
                return
            if not self.tools_found:
                self.tools_found = True
                self.llvm_mc, self.ptxas = await asyncio.get_running_loop().run_in_executor(
                    self.thread_pool, lambda: (checks.find_llvm_mc(), checks.find_ptxas()))
            run = await checks.tool_findings(doc, td.source, self.settings.target, self.llvm_mc, self.ptxas)
            state = self.open.get(uri)
            if run is not None and state is not None and state.version == version:
                state.tool, state.tool_version = run, version
                self._publish(uri, version, td, doc, checks.settle(found, run) + run.findings)
        except asyncio.CancelledError:
            raise
        except RequestFailed:
            return
        except Exception as exc:  # a bug must not take the server down: say so in the client's log
            log.exception("diagnostics failed for %s", uri)
            self.log(lsp.MessageType.Error, f"gpuisa: diagnostics failed for {uri}: {exc!r}")

    def _publish(self, uri: str, version: int, td: TextDocument, doc: Document, found: list[checks.Finding]) -> None:
        diags = [lsp.Diagnostic(range=self.client_range(td, doc, f.span), message=f.message,
                                severity=lsp.DiagnosticSeverity(f.severity), source=f.source, code=f.code or None)
                 for f in found]
        self.open[uri].published = diags
        self.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=diags, version=version))

    # ------------------------------------------------------------------ positions

    def client_range(self, td: TextDocument, doc: Document, span: Span) -> lsp.Range:
        """A span in Python string columns as a range in the client's units (UTF-16 by default)."""
        line_text = doc.lines[span.line] if span.line < len(doc.lines) else ""
        if line_text.isascii():
            return lsp.Range(lsp.Position(span.line, span.start), lsp.Position(span.line, span.end))
        return td.range_to_client_units(ServerTextRange(ServerTextPosition(span.line, span.start),
                                                        ServerTextPosition(span.line, span.end)))

    def server_column(self, td: TextDocument, doc: Document, pos: lsp.Position) -> int:
        if pos.line >= len(doc.lines):
            return pos.character
        if doc.lines[pos.line].isascii():
            return pos.character
        return td.position_from_client_units(pos).character


def make_server(facts: Facts, settings: Settings | None = None) -> GpuisaLanguageServer:
    server = GpuisaLanguageServer(facts, settings)
    _register(server)
    return server


def _register(ls: GpuisaLanguageServer) -> None:
    @ls.feature(lsp.INITIALIZE)
    def initialize(ls: GpuisaLanguageServer, params: lsp.InitializeParams) -> None:
        ls.settings.update(params.initialization_options)
        ls.facts.pages = ls.settings.pages.rstrip("/")

    @ls.feature(lsp.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def did_change_configuration(ls: GpuisaLanguageServer, params: lsp.DidChangeConfigurationParams) -> None:
        ls.settings.update(params.settings)
        ls.facts.pages = ls.settings.pages.rstrip("/")
        for uri in list(ls.open):
            ls.schedule(uri)

    @ls.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: GpuisaLanguageServer, params: lsp.DidOpenTextDocumentParams) -> None:
        uri = params.text_document.uri
        ls.open[uri] = _Open(params.text_document.version)
        ls.schedule(uri)
        ls.thread_pool.submit(_prefetch, ls, uri)

    @ls.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: GpuisaLanguageServer, params: lsp.DidChangeTextDocumentParams) -> None:
        state = ls.open.get(params.text_document.uri)
        if state is None:
            ls.log(lsp.MessageType.Warning, f"change to a document that is not open: {params.text_document.uri}")
            return
        state.version = params.text_document.version
        ls.schedule(params.text_document.uri)

    @ls.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: GpuisaLanguageServer, params: lsp.DidCloseTextDocumentParams) -> None:
        state = ls.open.pop(params.text_document.uri, None)
        if state is not None and state.task is not None:
            state.task.cancel()
        ls.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[]))

    @ls.feature(lsp.TEXT_DOCUMENT_HOVER)
    def hover(ls: GpuisaLanguageServer, params: lsp.HoverParams) -> lsp.Hover | None:
        td, doc = ls.parsed(params.text_document.uri)
        col = ls.server_column(td, doc, params.position)
        ins = doc.instruction_at(params.position.line, col)
        if ins is None:
            return None
        target, version = checks.effective_target(doc, ls.settings.target)
        if doc.dialect == AMD:
            text = ls.facts.hover_amd(ins.mnemonic, target)
        else:
            text = ls.facts.hover_ptx(ins.mnemonic, target, version)
        if text is None:
            return None
        state = ls.open[params.text_document.uri]
        if state.tool is not None and state.tool_version == state.version:
            said = state.tool.verdict_for_line(ins.span.line)
            if said:
                text = f"{said}\n\n{text}"
        return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=text),
                         range=ls.client_range(td, doc, ins.span))

    @ls.feature(lsp.TEXT_DOCUMENT_COMPLETION, lsp.CompletionOptions(trigger_characters=["."]))
    def completion(ls: GpuisaLanguageServer, params: lsp.CompletionParams) -> lsp.CompletionList:
        # typing changes the document on every key: read the one line, and the target from the last parse
        td, doc = ls.recent(params.text_document.uri)
        lines = td.lines
        line = lines[params.position.line].rstrip("\r\n") if params.position.line < len(lines) else ""
        if line.isascii():
            col = min(params.position.character, len(line))
        else:
            col = min(td.position_from_client_units(params.position).character, len(line))
        start = col
        while start > 0 and (line[start - 1].isalnum() or line[start - 1] in "_.:"):
            start -= 1
        prefix = line[start:col].lower()
        before = line[:start].strip()
        if before and not before.endswith((":", "{", ";")) and not before.startswith("@"):
            return lsp.CompletionList(is_incomplete=False, items=[])  # operands, not a mnemonic
        target, _ = checks.effective_target(doc, ls.settings.target)
        pool = ls.facts.amd_completions(target) if doc.dialect == AMD else ls.facts.ptx_completions(prefix)
        matches = [(n, s) for n, s in pool if n.startswith(prefix)]
        items = [lsp.CompletionItem(label=n, kind=lsp.CompletionItemKind.Keyword, detail=s or None)
                 for n, s in matches[:COMPLETION_LIMIT]]
        return lsp.CompletionList(is_incomplete=len(matches) > COMPLETION_LIMIT, items=items)

    @ls.feature(lsp.TEXT_DOCUMENT_SIGNATURE_HELP, lsp.SignatureHelpOptions(trigger_characters=[" ", ","]))
    def signature_help(ls: GpuisaLanguageServer, params: lsp.SignatureHelpParams) -> lsp.SignatureHelp | None:
        td, doc = ls.parsed(params.text_document.uri)
        col = ls.server_column(td, doc, params.position)
        ins = doc.instruction_around(params.position.line, col)
        if ins is None or col <= ins.span.end:
            return None
        target, _ = checks.effective_target(doc, ls.settings.target)
        sig = ls.facts.amd_signature(ins.mnemonic, target) if doc.dialect == AMD else ls.facts.ptx_signature(ins.mnemonic)
        if sig is None:
            return None
        label, params_, text = sig
        line = doc.lines[params.position.line]
        active = line[ins.span.end:col].count(",")
        info = lsp.SignatureInformation(
            label=label, documentation=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=text),
            parameters=[lsp.ParameterInformation(label=p, documentation=d or None) for p, d in params_])
        return lsp.SignatureHelp(signatures=[info], active_signature=0,
                                 active_parameter=min(active, max(len(params_) - 1, 0)))

    @ls.feature(lsp.TEXT_DOCUMENT_DEFINITION)
    def definition(ls: GpuisaLanguageServer, params: lsp.DefinitionParams) -> lsp.Location | None:
        td, doc = ls.parsed(params.text_document.uri)
        name = _label_at(ls, td, doc, params.position)
        if name is None or name not in doc.labels:
            return None
        return lsp.Location(uri=params.text_document.uri, range=ls.client_range(td, doc, doc.labels[name].span))

    @ls.feature(lsp.TEXT_DOCUMENT_REFERENCES)
    def references(ls: GpuisaLanguageServer, params: lsp.ReferenceParams) -> list[lsp.Location]:
        td, doc = ls.parsed(params.text_document.uri)
        name = _label_at(ls, td, doc, params.position)
        if name is None or name not in doc.labels:
            return []
        spans = [u.span for u in doc.label_uses if u.name == name]
        if params.context.include_declaration:
            spans.insert(0, doc.labels[name].span)
        return [lsp.Location(uri=params.text_document.uri, range=ls.client_range(td, doc, s)) for s in spans]

    @ls.feature(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    def document_symbols(ls: GpuisaLanguageServer, params: lsp.DocumentSymbolParams) -> list[lsp.DocumentSymbol]:
        td, doc = ls.parsed(params.text_document.uri)
        out = []
        for k in doc.kernels:
            end_text = doc.lines[k.end_line] if k.end_line < len(doc.lines) else ""
            whole = ls.client_range(td, doc, Span(k.span.line, 0, 0))
            whole.end = ls.client_range(td, doc, Span(k.end_line, len(end_text), len(end_text))).end
            children = [lsp.DocumentSymbol(name=lab.name, kind=lsp.SymbolKind.Key,
                                           range=ls.client_range(td, doc, lab.span),
                                           selection_range=ls.client_range(td, doc, lab.span))
                        for lab in doc.labels.values()
                        if k.span.line < lab.span.line <= k.end_line and lab.name != k.name]
            out.append(lsp.DocumentSymbol(
                name=k.name, kind=lsp.SymbolKind.Function, detail=k.kind, range=whole,
                selection_range=ls.client_range(td, doc, k.span), children=children or None))
        return out


def _label_at(ls: GpuisaLanguageServer, td: TextDocument, doc: Document, pos: lsp.Position) -> str | None:
    if pos.line >= len(doc.lines):
        return None
    found = asm_text.word_at(doc.lines[pos.line], ls.server_column(td, doc, pos))
    return found[0] if found else None


def _prefetch(ls: GpuisaLanguageServer, uri: str) -> None:
    """Warm the hover cache for the document's mnemonics, so the first hovers answer from memory."""
    try:
        if uri not in ls.open:
            return
        td = ls.workspace.get_text_document(uri)
        doc = asm_text.read(uri, td.source, td.language_id)
        target, version = checks.effective_target(doc, ls.settings.target)
        for mnemonic in {i.mnemonic.lower() for i in doc.instructions}:
            if uri not in ls.open:
                return
            if doc.dialect == AMD:
                ls.facts.hover_amd(mnemonic, target)
            else:
                ls.facts.hover_ptx(mnemonic, target, version)
    except Exception:  # warming is best-effort; the request path computes what is missing
        log.exception("prefetch failed for %s", uri)

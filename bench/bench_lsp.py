"""`gpuisa lsp` on a 10,000-line file, driven by a real LSP client over stdio.

Input: the first 10,000 instruction lines of LLVM's gfx11 MC tests (gfx11_asm_*.s), as one gfx1100
file. Measures hover and completion latency (p50/p99, cold pass then warm), the time from an edit
to the catalog's diagnostics and to llvm-mc's diagnostics for the whole file, and the server's RSS.
The peer for diagnostics is llvm-mc itself on the same file (`llvm-mc -filetype=null`): the ratio
says what the server adds on top of the assembler. Targets from issue 15: hover p99 < 20 ms,
completion p99 < 50 ms, whole-file diagnostics < 1 s after an edit, server memory < 300 MB.

    python bench/bench_lsp.py [--catalog PATH] [--lines 10000] [--hovers 1000]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

from lsprotocol import types as lsp
from pygls.lsp.client import LanguageClient

from gpuisa import paths

REPO = Path(__file__).resolve().parents[1]


def corpus_lines(n: int) -> list[str]:
    mc = paths.default_sources() / "llvm-project-23.1.1" / "llvm" / "test" / "MC" / "AMDGPU"
    out: list[str] = []
    for f in sorted(mc.glob("gfx11_asm_*.s")):
        for line in f.read_text().splitlines():
            if line and not line.startswith(("//", ";", ".", " ")) and "error" not in line:
                out.append(line)
                if len(out) >= n:
                    return out
    return out


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, round(p / 100 * (len(values) - 1)))]


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


async def timed(coro) -> tuple[float, object]:
    t0 = time.perf_counter()
    result = await coro
    return (time.perf_counter() - t0) * 1000, result


class BenchClient(LanguageClient):
    """pygls's client, keeping the latest diagnostics and their document version per URI."""

    def __init__(self) -> None:
        super().__init__("gpuisa-bench", "1")
        self.diagnostics: dict[str, list[lsp.Diagnostic]] = {}
        self.versions: dict[str, int | None] = {}

        @self.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_diagnostics(params: lsp.PublishDiagnosticsParams) -> None:
            self.diagnostics[params.uri] = list(params.diagnostics)
            self.versions[params.uri] = params.version

        @self.feature(lsp.WINDOW_LOG_MESSAGE)
        def on_log(params: lsp.LogMessageParams) -> None:
            pass


async def wait_diagnostics(client: BenchClient, uri: str, version: int, source_prefix: str | None,
                           t0: float, timeout: float = 120) -> float:
    while True:
        got = client.diagnostics.get(uri)
        if (got is not None and client.versions.get(uri) == version
                and (source_prefix is None or any((d.source or "").startswith(source_prefix) for d in got))):
            return (time.perf_counter() - t0) * 1000
        if time.perf_counter() - t0 > timeout:
            raise TimeoutError(f"no diagnostics for version {version}")
        await asyncio.sleep(0.002)


async def run(args: argparse.Namespace) -> None:
    lines = corpus_lines(args.lines)
    text = "// gpuisa: target=gfx1100\n" + "\n".join(lines) + "\n"
    n_lines = text.count("\n")
    uri = "file:///tmp/gpuisa-bench/bench.s"
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO / "src") + os.pathsep + env.get("PYTHONPATH", "")
    client = BenchClient()
    t_start = time.perf_counter()
    await client.start_io(sys.executable, "-m", "gpuisa", "lsp", "--catalog", str(args.catalog), env=env)
    await client.initialize_async(lsp.InitializeParams(capabilities=lsp.ClientCapabilities(), process_id=os.getpid()))
    client.initialized(lsp.InitializedParams())
    startup = (time.perf_counter() - t_start) * 1000
    pid = client._server.pid  # type: ignore[attr-defined]

    t0 = time.perf_counter()
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        text_document=lsp.TextDocumentItem(uri=uri, language_id="asm", version=1, text=text)))
    open_catalog = await wait_diagnostics(client, uri, 1, None, t0)
    open_tool = await wait_diagnostics(client, uri, 1, "llvm-mc", t0)

    rng = random.Random(15)
    body = text.splitlines()
    spots = [(i, 2) for i in rng.sample(range(1, len(body)), min(args.hovers, len(body) - 1))]

    async def hover_pass() -> list[float]:
        times = []
        for line, col in spots:
            ms, _ = await timed(client.text_document_hover_async(lsp.HoverParams(
                text_document=lsp.TextDocumentIdentifier(uri=uri), position=lsp.Position(line, col))))
            times.append(ms)
        return times

    cold = await hover_pass()
    warm = await hover_pass()

    prefixes = ["v_", "s_", "v_add", "v_cmp", "v_mad", "buffer_", "ds_", "global_", "v_pk_", "s_c"]
    comp: list[float] = []
    for i in range(args.hovers // 5):
        p = prefixes[i % len(prefixes)]
        edit_line = len(body)  # completion on a fresh last line
        v = 2 + i
        client.text_document_did_change(lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=v),
            content_changes=[lsp.TextDocumentContentChangePartial(
                range=lsp.Range(lsp.Position(edit_line, 0), lsp.Position(edit_line, 200)), text=p)]))
        ms, _ = await timed(client.text_document_completion_async(lsp.CompletionParams(
            text_document=lsp.TextDocumentIdentifier(uri=uri), position=lsp.Position(edit_line, len(p)))))
        comp.append(ms)

    # an edit in the middle of the file, then the time until each kind of diagnostics for it arrives
    edits_catalog, edits_tool = [], []
    version = 10_000
    for k in range(5):
        version += 1
        mid = len(body) // 2 + k
        t0 = time.perf_counter()
        client.text_document_did_change(lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[lsp.TextDocumentContentChangePartial(
                range=lsp.Range(lsp.Position(mid, 0), lsp.Position(mid, 0)),
                text="v_lshl_add_u64 v[10:11], v[2:3], v2, v[6:7]\n")]))
        edits_catalog.append(await wait_diagnostics(client, uri, version, None, t0))
        edits_tool.append(await wait_diagnostics(client, uri, version, "llvm-mc", t0))
    rss = rss_mb(pid)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()

    from gpuisa.lsp.checks import find_llvm_mc

    tool = find_llvm_mc()
    peer = float("nan")
    if tool:
        runs = []
        for _ in range(3):
            t0 = time.perf_counter()
            subprocess.run([tool.path, "-triple=amdgcn", "-mcpu=gfx1100", "-filetype=null"], input=text.encode(),
                           capture_output=True)
            runs.append((time.perf_counter() - t0) * 1000)
        peer = statistics.median(runs)

    print(f"input: {n_lines} lines of gfx11 MC tests (gfx1100); {len(spots)} hovers, {len(comp)} completions")
    print(f"server start + initialize: {startup:.0f} ms")
    print(f"open: catalog diagnostics {open_catalog:.0f} ms, with llvm-mc's {open_tool:.0f} ms")
    print(f"hover cold  p50 {pct(cold, 50):.1f} ms  p99 {pct(cold, 99):.1f} ms  (target p99 < 20 ms)")
    print(f"hover warm  p50 {pct(warm, 50):.1f} ms  p99 {pct(warm, 99):.1f} ms")
    print(f"completion  p50 {pct(comp, 50):.1f} ms  p99 {pct(comp, 99):.1f} ms  (target p99 < 50 ms)")
    print(f"edit -> catalog diagnostics  median {statistics.median(edits_catalog):.0f} ms  max {max(edits_catalog):.0f} ms "
          "(target < 1000 ms)")
    print(f"edit -> llvm-mc diagnostics  median {statistics.median(edits_tool):.0f} ms  max {max(edits_tool):.0f} ms")
    print(f"peer: llvm-mc -filetype=null on the same file {peer:.0f} ms; "
          f"edit->llvm-mc diagnostics / llvm-mc alone = {statistics.median(edits_tool) / peer:.2f}x")
    print(f"server RSS {rss:.0f} MB (target < 300 MB)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--catalog", type=Path, default=paths.default_catalog())
    ap.add_argument("--lines", type=int, default=10_000)
    ap.add_argument("--hovers", type=int, default=1000)
    args = ap.parse_args()
    if not args.catalog.is_file():
        sys.exit(f"bench_lsp: no catalog at {args.catalog}; run `gpuisa build` or pass --catalog")
    asyncio.run(run(args))


if __name__ == "__main__":
    main()

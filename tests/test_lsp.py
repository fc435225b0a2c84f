"""`gpuisa lsp` end to end with a real LSP client (pytest-lsp) over stdio.

Documents are files of LLVM's MC test corpus and a PTX kernel assembled from the PTX manual's own
examples; every fact asserted is read from a source line first (the manual's opcode table, an
LLVM CHECK line, the PTX manual's Target ISA Notes).
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.conftest import REPO, SOURCES, manual_line
from tests.loop_thread import loop, on_loop

MC = SOURCES / "llvm-project-23.1.1" / "llvm" / "test" / "MC" / "AMDGPU"
PTX_MANUAL = SOURCES / "ptx-isa-9.4" / "9-instruction-set"
CLMAD_MD = PTX_MANUAL / "9.7.1.5-integer-arithmetic-instructionsclmad.md"
BRA_MD = PTX_MANUAL / "9.7.14.3-control-flow-instructionsbra.md"

def sources_manual(arch: str) -> str:
    return (SOURCES / "amd-isa-manuals" / arch / "README.md").read_text(encoding="utf-8")


def source_line(path: Path, line: int) -> str:
    with open(path, encoding="utf-8") as fh:
        return next(text for i, text in enumerate(fh, 1) if i == line).rstrip("\n")


def server_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO / "src") + os.pathsep + env.get("PYTHONPATH", "")
    return env


async def start(catalog_path: Path, options: dict | None = None, *extra: str) -> LanguageClient:
    config = ClientServerConfig(
        server_command=[sys.executable, "-m", "gpuisa", "lsp", "--catalog", str(catalog_path), *extra],
        server_env=server_env())
    client = await config.start()
    await client.initialize_session(lsp.InitializeParams(
        capabilities=lsp.ClientCapabilities(), initialization_options=options or {}))
    return client


async def _stop(c: LanguageClient) -> None:
    await c.shutdown_session()
    await c.stop()


@pytest.fixture(scope="module")
def client(catalog_path: Path):
    """The server with catalog diagnostics only (tool diagnostics have their own tests below)."""
    c = loop().run(start(catalog_path, {"toolDiagnostics": False, "debounceMs": 0}))
    yield c
    loop().run(_stop(c))


_version = 0


def open_doc(client: LanguageClient, uri: str, text: str, language: str = "asm") -> None:
    global _version
    _version += 1
    client.diagnostics.pop(uri, None)
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        text_document=lsp.TextDocumentItem(uri=uri, language_id=language, version=_version, text=text)))


async def diagnostics(client: LanguageClient, uri: str, timeout: float = 60) -> list[lsp.Diagnostic]:
    """The first diagnostics published for uri (catalog diagnostics come in one publish)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while uri not in client.diagnostics:
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"no diagnostics for {uri}")
        await asyncio.sleep(0.05)
    return list(client.diagnostics[uri])


async def hover(client: LanguageClient, uri: str, line: int, col: int) -> str:
    h = await client.text_document_hover_async(lsp.HoverParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), position=lsp.Position(line, col)))
    assert h is not None
    return h.contents.value


def ptx_kernel(target: str) -> str:
    """A kernel around the manual's examples: clmad (clmad.md:74-80) and bra (bra.md:52-53)."""
    clmad = [source_line(CLMAD_MD, n) for n in range(74, 81)]
    bra = [source_line(BRA_MD, n) for n in (52, 53)]
    return "\n".join([
        "//", ".version 9.3", f".target {target}", ".address_size 64", "",
        ".visible .entry clmad_examples()", "{", "  .reg .pred q;",
        *("  " + t for t in clmad),
        "L23:", *("  " + t for t in bra), "L_exit:", "  ret;", "}", ""])


# ------------------------------------------------------------------ AMD: a file of LLVM's MC corpus


@on_loop
async def test_hover_v_sad_u32_in_a_gfx1100_file(client):
    path = MC / "gfx11_asm_vop3.s"
    text = path.read_text()
    # the file's RUN line assembles for gfx1100; its CHECK line gives V_SAD_U32's bytes there
    assert "-mcpu=gfx1100" in source_line(path, 2)
    assert source_line(path, 5939) == "v_sad_u32 v5, v1, v2, s3"
    assert "encoding: [0x05,0x00,0x25,0xd6,0x01,0x05,0x0e,0x00]" in source_line(path, 5940)
    # the RDNA 3 manual's VOP3 opcode table: 549 is V_SAD_U32
    assert "| 549      | V_SAD_U32" in manual_line("rdna3", 5421)
    uri = path.as_uri()
    open_doc(client, uri, text)
    value = await hover(client, uri, 5938, 3)
    assert "opcode 549" in value
    # bytes d6 25 00 05 (little-endian dword 0xD6250005) minus the VDST field (v5): 0xD6250000
    assert "0xD6250000" in value
    assert "supported on gfx1100" in value and "not supported on gfx1100" not in value
    assert "/amd/rdna3/v_sad_u32" in value             # the link to the page


@on_loop
async def test_hover_v_sad_u32_in_a_gfx90a_file(client):
    # CDNA 2's VOP3 table lists V_SAD_U32 as opcode 476
    assert "| 476      | V_SAD_U32" in manual_line("cdna2", 5449)
    line = source_line(MC / "gfx11_asm_vop3.s", 5939)
    uri = "file:///tmp/gpuisa-lsp-tests/gfx90a.s"
    open_doc(client, uri, f'.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"\n{line}\n')
    value = await hover(client, uri, 1, 2)
    assert "opcode 476" in value and "AMD CDNA 2" in value
    assert "opcode 549" not in value


@on_loop
async def test_v_lshl_add_u64_not_supported_on_gfx1100(client):
    path = MC / "gfx11_unsupported.s"
    assert "-mcpu=gfx1100" in source_line(path, 2)
    assert source_line(path, 1517) == "v_lshl_add_u64 v[10:11], v[2:3], v2, v[6:7]"
    assert "instruction not supported on this GPU (gfx1100): v_lshl_add_u64" in source_line(path, 1518)
    uri = path.as_uri()
    open_doc(client, uri, path.read_text())
    diags = [d for d in await diagnostics(client, uri) if d.range.start.line == 1516]
    assert len(diags) == 1
    d = diags[0]
    assert d.severity == lsp.DiagnosticSeverity.Error
    assert "not supported on gfx1100" in d.message
    assert "gfx11_unsupported.s:1518" in d.message           # the evidence, file and line
    assert (d.range.start.character, d.range.end.character) == (0, len("v_lshl_add_u64"))


@on_loop
async def test_v_lshl_add_u64_fine_on_gfx942(client):
    path = MC / "gfx942_asm_features.s"
    assert "-mcpu=gfx942" in source_line(path, 1)
    assert "GFX942: v_lshl_add_u64 v[2:3], s[4:5], v7, v[8:9] ; encoding:" in source_line(path, 263)
    uri = path.as_uri()
    text = path.read_text()
    open_doc(client, uri, text)
    lines = [i for i, t in enumerate(text.splitlines()) if t.startswith("v_lshl_add_u64")]
    assert 263 in lines
    diags = await diagnostics(client, uri)
    assert not [d for d in diags if d.range.start.line in lines]
    value = await hover(client, uri, 263, 4)
    assert "supported on gfx942" in value and "not supported" not in value


@on_loop
async def test_completion_offers_only_the_targets_mnemonics(client):
    uri = "file:///tmp/gpuisa-lsp-tests/complete.s"
    open_doc(client, uri, "// gpuisa: target=gfx1100\nv_lshl_a\n")
    result = await client.text_document_completion_async(lsp.CompletionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), position=lsp.Position(1, 8)))
    labels = {i.label for i in result.items}
    # V_LSHL_ADD_U32 is in the RDNA 3 manual's VOP3 opcode table; V_LSHL_ADD_U64 is nowhere in that manual,
    # and LLVM's gfx11_unsupported.s:1518 refutes it on gfx1100
    assert "| 582      | V_LSHL_ADD_U32" in manual_line("rdna3", 5435)
    assert "V_LSHL_ADD_U64" not in (sources_manual("rdna3"))
    assert "v_lshl_add_u32" in labels
    assert "v_lshl_add_u64" not in labels
    open_doc(client, uri.replace("complete", "complete942"), "// gpuisa: target=gfx942\nv_lshl_a\n")
    result = await client.text_document_completion_async(lsp.CompletionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri.replace("complete", "complete942")),
        position=lsp.Position(1, 8)))
    assert "v_lshl_add_u64" in {i.label for i in result.items}


@on_loop
async def test_signature_help_names_the_operands(client):
    uri = "file:///tmp/gpuisa-lsp-tests/sig.s"
    open_doc(client, uri, "// gpuisa: target=gfx1100\nv_sad_u32 v5, v1, \n")
    sig = await client.text_document_signature_help_async(lsp.SignatureHelpParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), position=lsp.Position(1, 18)))
    assert sig is not None
    info = sig.signatures[0]
    # the RDNA 3 manual's VOP3 field table names the fields VDST, SRC0, SRC1, SRC2
    assert manual_line("rdna3", 1963).startswith("| SRC0  | 9 ")
    assert manual_line("rdna3", 1967).startswith("| VDST  | 8 ")
    assert [p.label for p in info.parameters] == ["vdst", "src0", "src1", "src2"]
    assert sig.active_parameter == 2


@on_loop
async def test_labels_and_kernels(client):
    path = MC / "hsa-gfx12-v4.s"
    text = path.read_text()
    assert source_line(path, 51) == '.amdgcn_target "amdgcn-amd-amdhsa--gfx1200"'
    uri = path.as_uri()
    open_doc(client, uri, text)
    symbols = await client.text_document_document_symbol_async(lsp.DocumentSymbolParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri)))
    names = [s.name for s in symbols]
    # the file defines four kernels with .amdhsa_kernel (and a label of the same name each)
    assert names == ["minimal", "complete", "special_sgpr", "disabled_user_sgpr"]
    lines = text.splitlines()
    assert lines[symbols[0].selection_range.start.line].startswith("minimal:")


@on_loop
async def test_branch_label_definition_and_references(client):
    uri = "file:///tmp/gpuisa-lsp-tests/loop.s"
    text = "// gpuisa: target=gfx942\nloop:\n  s_nop 0\n  s_cbranch_scc1 loop\n  s_branch loop\n"
    open_doc(client, uri, text)
    loc = await client.text_document_definition_async(lsp.DefinitionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), position=lsp.Position(3, 18)))
    assert loc.range.start == lsp.Position(1, 0)
    refs = await client.text_document_references_async(lsp.ReferenceParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), position=lsp.Position(1, 1),
        context=lsp.ReferenceContext(include_declaration=False)))
    assert sorted(r.range.start.line for r in refs) == [3, 4]


@on_loop
async def test_target_from_the_clients_settings(client):
    uri = "file:///tmp/gpuisa-lsp-tests/no-target.s"
    line = source_line(MC / "gfx11_unsupported.s", 1517)          # v_lshl_add_u64 ... (refuted on gfx1100)
    open_doc(client, uri, f"{line}\n")
    assert not await diagnostics(client, uri)                      # no target named: nothing to refute
    assert "supported on" not in await hover(client, uri, 0, 3)
    client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(
        settings={"gpuisa": {"target": "gfx1100"}}))

    async def refuted():
        return [d for d in client.diagnostics.get(uri, []) if "not supported on gfx1100" in d.message]

    deadline = asyncio.get_running_loop().time() + 60
    while not await refuted():
        assert asyncio.get_running_loop().time() < deadline, "settings did not apply"
        await asyncio.sleep(0.05)
    assert "not supported on gfx1100" in await hover(client, uri, 0, 3)
    client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(settings={"gpuisa": {"target": ""}}))


# ------------------------------------------------------------------ PTX: a kernel of the manual's examples


@on_loop
async def test_ptx_clmad_on_sm_80(client):
    # "Introduced in PTX ISA version 9.3." / "Requires `sm_80` or higher."
    assert source_line(CLMAD_MD, 65) == "Introduced in PTX ISA version 9.3."
    assert source_line(CLMAD_MD, 69) == "Requires `sm_80` or higher."
    uri = "file:///tmp/gpuisa-lsp-tests/clmad80.ptx"
    text = ptx_kernel("sm_80")
    open_doc(client, uri, text, "ptx")
    line = next(i for i, t in enumerate(text.splitlines()) if "clmad.lo.u64" in t and "//" not in t)
    value = await hover(client, uri, line, text.splitlines()[line].index("clmad") + 2)
    assert "clmad.lo.u64" in value
    assert ".target sm_80 / .version 9.3:** usable" in value
    assert not [d for d in await diagnostics(client, uri) if "clmad" in d.message]
    symbols = await client.text_document_document_symbol_async(lsp.DocumentSymbolParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri)))
    assert [s.name for s in symbols] == ["clmad_examples"]
    bra = next(i for i, t in enumerate(text.splitlines()) if "bra.uni" in t)
    loc = await client.text_document_definition_async(lsp.DefinitionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri),
        position=lsp.Position(bra, text.splitlines()[bra].index("L_exit") + 1)))
    assert text.splitlines()[loc.range.start.line] == "L_exit:"


@on_loop
async def test_ptx_clmad_on_sm_75_needs_sm_80(client):
    uri = "file:///tmp/gpuisa-lsp-tests/clmad75.ptx"
    text = ptx_kernel("sm_75")
    open_doc(client, uri, text, "ptx")
    diags = [d for d in await diagnostics(client, uri) if d.message.startswith("clmad")]
    lines = text.splitlines()
    assert {lines[d.range.start.line].strip().split()[0] for d in diags} == {"clmad.lo.u64", "clmad.hi.u64"}
    assert all("needs sm_80 or higher" in d.message and "sm_75" in d.message for d in diags)


# ------------------------------------------------------------------ bad input


@on_loop
async def test_bad_input_never_crashes(client):
    garbage = bytes(range(256)).decode("latin-1") * 40 + "\x00\ufffd\U0001f600"
    uri = "file:///tmp/gpuisa-lsp-tests/garbage.s"
    open_doc(client, uri, garbage)
    await diagnostics(client, uri)
    await client.text_document_hover_async(lsp.HoverParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), position=lsp.Position(0, 5)))
    long_uri = "file:///tmp/gpuisa-lsp-tests/long.s"
    open_doc(client, long_uri, "// gpuisa: target=gfx1100\nv_sad_u32 " + "v1, " * 250_000 + "\n")
    diags = await diagnostics(client, long_uri)
    assert any(d.code == "line-too-long" for d in diags)
    assert any("long.s:2: line longer than 4096 characters" in m.message for m in client.log_messages)
    await client.text_document_hover_async(lsp.HoverParams(
        text_document=lsp.TextDocumentIdentifier(uri=long_uri), position=lsp.Position(1, 500_000)))
    unknown = "file:///tmp/gpuisa-lsp-tests/unknown.s"
    open_doc(client, unknown, "// gpuisa: target=gfx9999\nv_sad_u32 v5, v1, v2, s3\n")
    diags = await diagnostics(client, unknown)
    assert [d.code for d in diags] == ["unknown-target"]
    assert diags[0].range.start.line == 0
    value = await hover(client, unknown, 1, 3)             # still answers, with the newest arch
    assert "v_sad_u32" in value
    closed = "file:///tmp/gpuisa-lsp-tests/never-opened.s"
    with pytest.raises(Exception, match="document not open"):
        await client.text_document_hover_async(lsp.HoverParams(
            text_document=lsp.TextDocumentIdentifier(uri=closed), position=lsp.Position(0, 0)))
    client.text_document_did_close(lsp.DidCloseTextDocumentParams(text_document=lsp.TextDocumentIdentifier(uri=uri)))
    with pytest.raises(Exception, match="document not open"):
        await client.text_document_completion_async(lsp.CompletionParams(
            text_document=lsp.TextDocumentIdentifier(uri=uri), position=lsp.Position(0, 0)))
    # and the server is still there
    assert "v_sad_u32" in await hover(client, unknown, 1, 3)


# ------------------------------------------------------------------ the real assemblers (where installed)


def _llvm_mc_label() -> str | None:
    from gpuisa.lsp.checks import find_llvm_mc

    tool = find_llvm_mc()
    return tool.label if tool else None


def _ptxas_label() -> str | None:
    from gpuisa.lsp.checks import find_ptxas

    tool = find_ptxas()
    return tool.label if tool else None


@pytest.fixture(scope="module")
def tool_client(catalog_path: Path):
    c = loop().run(start(catalog_path, {"debounceMs": 50}))
    yield c
    loop().run(_stop(c))


async def until(check, timeout: float = 90):
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        value = await check()
        if value:
            return value
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("timed out waiting for the server")
        await asyncio.sleep(0.1)


@pytest.mark.tools
@on_loop
async def test_llvm_mc_errors_at_line_and_column(tool_client):
    label = _llvm_mc_label()
    if label is None:
        pytest.skip("llvm-mc 22 not installed (apt-get install llvm-22)")
    path = MC / "gfx11_unsupported.s"
    # CHECK: :[[@LINE-1]]:1: error: instruction not supported on this GPU (gfx1100): v_lshl_add_u64
    check = source_line(path, 1518)
    assert ":[[@LINE-1]]:1: error: instruction not supported on this GPU (gfx1100): v_lshl_add_u64" in check
    uri = path.as_uri()
    open_doc(tool_client, uri, path.read_text())

    async def from_llvm_mc():
        return [d for d in tool_client.diagnostics.get(uri, []) if d.source == label and d.range.start.line == 1516]

    [d] = await until(from_llvm_mc)
    assert d.range.start.character == 0                 # column 1 in LLVM's 1-based count
    # llvm-mc 22 prints the message without the "(gfx1100): name" suffix that LLVM 23's tests check
    assert d.message.startswith("instruction not supported on this GPU")
    # a line llvm-mc accepts says so in the hover, naming the tool and its version
    ok = MC / "gfx11_asm_vop3.s"
    ok_uri = ok.as_uri()
    open_doc(tool_client, ok_uri, ok.read_text())

    async def verified():
        value = await hover(tool_client, ok_uri, 5938, 3)
        return value if label in value else None

    assert f"verified** by {label}: accepts this line for gfx1100" in await until(verified)


@pytest.mark.tools
@on_loop
async def test_ptxas_on_the_manuals_kernel(tool_client):
    label = _ptxas_label()
    if label is None:
        pytest.skip("ptxas not installed (pip install nvidia-cuda-nvcc==13.5.37)")
    uri80 = "file:///tmp/gpuisa-lsp-tests/tools80.ptx"
    text = ptx_kernel("sm_80")
    open_doc(tool_client, uri80, text, "ptx")
    lines = text.splitlines()
    line = next(i for i, t in enumerate(lines) if t.strip().startswith("clmad.lo.u64"))

    async def verified():
        value = await hover(tool_client, uri80, line, lines[line].index("clmad") + 1)
        return value if label in value else None

    assert f"verified** by {label}: assembles this file for sm_80 without error" in await until(verified)
    # ptxas 13.5: "Feature 'clmad.lo' requires .target sm_80 or higher" (tests/test_ptx_verify.py)
    uri75 = "file:///tmp/gpuisa-lsp-tests/tools75.ptx"
    open_doc(tool_client, uri75, ptx_kernel("sm_75"), "ptx")

    async def from_ptxas():
        return [d for d in tool_client.diagnostics.get(uri75, []) if d.source == label and d.range.start.line == line]

    found = await until(from_ptxas)
    assert any("requires .target sm_80" in d.message for d in found)


@pytest.mark.tools
@on_loop
async def test_an_edit_cancels_the_previous_check(tool_client):
    """Diagnostics follow the latest text: a check of an older version never lands after an edit."""
    label = _llvm_mc_label()
    if label is None:
        pytest.skip("llvm-mc 22 not installed (apt-get install llvm-22)")
    uri = "file:///tmp/gpuisa-lsp-tests/edits.s"
    good = "// gpuisa: target=gfx1100\nv_sad_u32 v5, v1, v2, s3\n"
    open_doc(tool_client, uri, good)
    bad_line = "v_lshl_add_u64 v[10:11], v[2:3], v2, v[6:7]\n"
    for version, text in enumerate([good + bad_line, good + "s_nop 0\n" * 3 + bad_line], start=1000):
        tool_client.text_document_did_change(lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=text)]))

    async def settled():
        found = [d for d in tool_client.diagnostics.get(uri, []) if d.source == label]
        return found or None

    found = await until(settled)
    assert {d.range.start.line for d in found} == {5}


@on_loop
async def test_ptx_completion_of_names_and_forms(client):
    # clmad.md:21-23: `clmad.mode.u64 d, a, b, c;` with `.mode = { .hi, .lo };`
    assert source_line(CLMAD_MD, 21) == "clmad.mode.u64 d, a, b, c;"
    assert source_line(CLMAD_MD, 23) == ".mode = { .hi, .lo };"
    uri = "file:///tmp/gpuisa-lsp-tests/complete.ptx"
    open_doc(client, uri, ".version 9.3\n.target sm_80\n  clm\n  clmad.\n  clmad.lo.u64 Rd, Ra, \n", "ptx")
    first = await client.text_document_completion_async(lsp.CompletionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), position=lsp.Position(2, 5)))
    assert "clmad" in {i.label for i in first.items}
    forms = await client.text_document_completion_async(lsp.CompletionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), position=lsp.Position(3, 8)))
    assert {"clmad.lo.u64", "clmad.hi.u64"} <= {i.label for i in forms.items}
    sig = await client.text_document_signature_help_async(lsp.SignatureHelpParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), position=lsp.Position(4, 23)))
    assert [p.label for p in sig.signatures[0].parameters] == ["d", "a", "b", "c"]
    assert sig.active_parameter == 2

"""`gpuisa mcp` through the MCP SDK's own client, over stdio, as an assistant would start it.

Facts asserted are read from their sources first (the CDNA 5 manual's opcode line, the PTX
manual's example); the lookup tool must return exactly what `gpuisa show --json` prints.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

from tests.conftest import REPO, SOURCES, manual_line
from tests.loop_thread import on_loop

CLMAD_MD = SOURCES / "ptx-isa-9.4" / "9-instruction-set" / "9.7.1.5-integer-arithmetic-instructionsclmad.md"


def _env() -> dict[str, str]:
    return {"PYTHONPATH": str(REPO / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""),
            **{k: os.environ[k] for k in ("GPUISA_SOURCES", "GPUISA_CACHE") if k in os.environ}}


@contextlib.asynccontextmanager
async def connect(catalog_path: Path) -> AsyncIterator[Client]:
    params = StdioServerParameters(command=sys.executable, args=["-m", "gpuisa", "mcp", "--catalog", str(catalog_path)],
                                   env=_env())
    async with Client(params) as client:
        yield client


def gpuisa_json(*args: str) -> object:
    out = subprocess.run([sys.executable, "-m", "gpuisa", *args, "--json"], capture_output=True, text=True,
                         env={**os.environ, **_env()}, timeout=120, check=True)
    return json.loads(out.stdout)


@on_loop
async def test_tools_have_typed_schemas(catalog_path):
    async with connect(catalog_path) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert set(tools) == {"lookup", "search", "diff", "eval", "decode", "encode", "equivalents"}
        for t in tools.values():
            assert t.input_schema["type"] == "object" and t.input_schema["properties"]
            assert t.output_schema is not None and t.output_schema["type"] == "object"
        assert tools["diff"].input_schema["required"] == ["from", "to"]
        assert tools["lookup"].input_schema["required"] == ["name"]
        lookup_out = tools["lookup"].output_schema
        assert {"name", "vendor", "isa", "summary", "sources"} <= set(lookup_out["required"])


@on_loop
async def test_lookup_is_gpuisa_show_json(catalog_path):
    # CDNA 5's VOP3 opcode table: V_SAD_U32 549
    assert "V\\_SAD\\_U32 549" in manual_line("cdna5", 21868)
    shown = gpuisa_json("show", "v_sad_u32", "--arch", "cdna5", "--catalog", str(catalog_path))
    async with connect(catalog_path) as client:
        result = await client.call_tool("lookup", {"name": "v_sad_u32", "arch": "cdna5"})
        assert not result.is_error
        assert result.structured_content == shown
        assert result.structured_content["encodings"][0]["opcode"] == 549
        ptx = await client.call_tool("lookup", {"name": "clmad.lo.u64"})
        assert ptx.structured_content == gpuisa_json("show", "clmad.lo.u64", "--catalog", str(catalog_path))


@on_loop
async def test_search_diff_equivalents_eval(catalog_path):
    async with connect(catalog_path) as client:
        hits = (await client.call_tool("search", {"text": "v_sad_u32"})).structured_content["result"]
        assert hits[0]["name"] == "v_sad_u32" and hits[0]["match"] == "name"
        # RDNA 3 and CDNA 5 both list V_SAD_U32 as VOP3 opcode 549
        assert "| 549      | V_SAD_U32" in manual_line("rdna3", 5421)
        d = (await client.call_tool("diff", {"from": "rdna3", "to": "cdna5", "name": "v_sad_u32"})).structured_content
        assert d["from"] == "rdna3" and d["to"] == "cdna5"
        assert d["from_encodings"][0]["opcode"] == d["to_encodings"][0]["opcode"] == 549
        # CDNA 3 lists it as 476: the whole-ISA diff to RDNA 3 shows it re-encoded
        assert "| 476      | V_SAD_U32" in manual_line("cdna3", 21121)
        whole = (await client.call_tool("diff", {"from": "cdna3", "to": "rdna3"})).structured_content
        assert "v_sad_u32" in {r["name"] for r in whole["reencoded"]}
        eq = (await client.call_tool("equivalents", {"name": "v_sad_u32", "arch": "rdna3"})).structured_content["result"]
        assert any(m["ptx"] == "sad.u32" and m["level"] == "equivalent" for m in eq)
        # the RDNA 3 manual's pseudocode for V_SAD_U32: D0.u = ABSDIFF(S0.u, S1.u) + S2.u
        r = await client.call_tool("eval", {"name": "v_sad_u32", "arch": "rdna3", "inputs": {"S0": 5, "S1": "3", "S2": 10}})
        assert not r.is_error and r.structured_content["outputs"] == {"D0": 12}
        assert r.structured_content["source"].startswith("amd-isa-manuals/rdna3/README.md:")
        # clmad.md:60: d ^= c after the carryless product; 3 (x) 3 = 0b101
        assert "d ^= c;" in CLMAD_MD.read_text()
        r = await client.call_tool("eval", {"name": "clmad.lo.u64", "inputs": {"a": 3, "b": 3, "c": 0}})
        assert r.structured_content["outputs"] == {"d": 5}


@on_loop
async def test_errors_are_tool_errors_and_the_server_stays_up(catalog_path):
    async with connect(catalog_path) as client:
        r = await client.call_tool("lookup", {"name": "v_no_such_instruction"})
        assert r.is_error and "unknown instruction" in r.content[0].text
        r = await client.call_tool("lookup", {"name": "v_sad_u32", "arch": "gfx9999"})
        assert r.is_error and "gfx9999" in r.content[0].text
        r = await client.call_tool("search", {"text": "   "})
        assert r.is_error
        r = await client.call_tool("diff", {"from": "rdna3"})          # missing argument: schema says so
        assert r.is_error
        r = await client.call_tool("eval", {"name": "v_sad_u32", "arch": "rdna3", "inputs": {"S9": "zz"}})
        assert r.is_error
        r = await client.call_tool("decode", {"hex": "zz", "target": "gfx1100"})
        assert r.is_error
        with pytest.raises(MCPError):
            await client.read_resource("gpuisa://ptx/no_such_thing")
        assert not (await client.call_tool("lookup", {"name": "v_sad_u32"})).is_error


@on_loop
async def test_pages_are_resources(catalog_path):
    async with connect(catalog_path) as client:
        templates = {t.uri_template for t in (await client.list_resource_templates()).resource_templates}
        assert {"gpuisa://amd/{arch}/{name}", "gpuisa://ptx/{name}"} <= templates
        page = await client.read_resource("gpuisa://amd/rdna3/v_sad_u32")
        doc = json.loads(page.contents[0].text)
        assert doc["arch"] == "rdna3" and doc["encodings"][0]["opcode"] == 549
        ptx = json.loads((await client.read_resource("gpuisa://ptx/clmad")).contents[0].text)
        assert {f["form"] for f in ptx["forms"]} >= {"clmad.lo.u64", "clmad.hi.u64"}


@on_loop
async def test_decode_and_encode_v_sad_u32_for_gfx1100(catalog_path):
    """gfx11_asm_vop3.s:5940: v_sad_u32 v5, v1, v2, s3 ; encoding: [0x05,0x00,0x25,0xd6,0x01,0x05,0x0e,0x00]."""
    mc = SOURCES / "llvm-project-23.1.1" / "llvm" / "test" / "MC" / "AMDGPU" / "gfx11_asm_vop3.s"
    check = mc.read_text().splitlines()[5939]
    assert "v_sad_u32 v5, v1, v2, s3" in check and "[0x05,0x00,0x25,0xd6,0x01,0x05,0x0e,0x00]" in check
    async with connect(catalog_path) as client:
        r = await client.call_tool("decode", {"hex": "05 00 25 d6 01 05 0e 00", "target": "gfx1100"})
        assert not r.is_error, r.content
        [ins] = r.structured_content["instructions"]
        assert ins["text"] == "v_sad_u32 v5, v1, v2, s3" and ins["name"] == "v_sad_u32" and ins["valid"]
        r = await client.call_tool("encode", {"text": "v_sad_u32 v5, v1, v2, s3", "target": "gfx1100"})
        assert not r.is_error, r.content
        [enc] = r.structured_content["instructions"]
        assert enc["bytes"] == "05 00 25 d6 01 05 0e 00"
        r = await client.call_tool("encode", {"text": "v_sad_u32 v5, v1", "target": "gfx1100"})
        assert r.is_error and "1:" in r.content[0].text          # the codec's line:column
        r = await client.call_tool("decode", {"hex": "05 00 25 d6", "target": "gfx9999"})
        assert r.is_error and "gfx9999" in r.content[0].text

"""Operands in the catalog: LLVM's syntax rows joined to the manuals' fields and pseudocode (issue 17).

Each test first reads the source line it relies on (the .rst row, the operand page, the seed page).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from gpuisa.sources.llvm_syntax_docs import MODIFIER_EVIDENCE, PAGE_ERRATA, ROW_EVIDENCE
from tests.conftest import CONTENT_REQUEST_SECONDS, SOURCES

SEEDS = Path(__file__).resolve().parents[1].parent / "shared" / "seeds"


def rst_line(sources: Path, rel: str, line: int) -> str:
    return (sources / rel).read_text(encoding="utf-8").splitlines()[line - 1]


def row_refs(line: str) -> list[str]:
    return re.findall(r":ref:`([^<`]+)<", line)


def enc_field(doc: dict, name: str) -> list[list[int]]:
    enc = doc["encodings"][0]
    return next(f["bits"] for f in enc["fields"] if f["name"] == name)


def test_ds_add_u32_on_rdna3(catalog, sources):
    doc = catalog.show("ds_add_u32", "rdna3").as_json()
    syn = doc["syntax"]
    line = rst_line(sources, syn["file"], syn["line"])
    assert line.split()[0] == "ds_add_u32" and row_refs(line) == ["vaddr", "vdata", "offset", "gds"]
    assert syn["family"] == "GFX11" and syn["section"] == "DS"
    ops = {op["syntax"]: op for op in doc["operands"]}
    assert list(ops) == ["vaddr", "vdata", "offset", "gds"]
    vaddr = ops["vaddr"]
    page = (sources / vaddr["page"]["file"]).read_text().splitlines()
    assert "An offset from the start of GDS/LDS memory." in page and "*Size:* 1 dword." in page
    assert vaddr["kinds"] == ["VGPR"] and vaddr["size_bits"] == 32 and vaddr["access"] == "read"
    assert vaddr["description"] == "An offset from the start of GDS/LDS memory."
    # each operand with its field bits, as the rdna3 manual's DS layout gives them
    assert [f["name"] for f in vaddr["fields"]] == ["ADDR"] and vaddr["fields"][0]["bits"] == enc_field(doc, "ADDR")
    assert [f["name"] for f in ops["vdata"]["fields"]] == ["DATA0"]
    assert [f["name"] for f in ops["offset"]["fields"]] == ["OFFSET1", "OFFSET0"]
    assert ops["offset"]["field_bits"] == 16 and ops["offset"]["optional"]
    assert ops["gds"]["fields"][0]["bits"] == enc_field(doc, "GDS") and ops["gds"]["role"] == "modifier"
    # vdata's data format from the pseudocode ("MEM[ADDR].u += DATA.u")
    assert "DATA.u" in doc["semantics"] and ops["vdata"]["symbol"] == "DATA"
    assert ops["vdata"]["format"] == "32-bit unsigned integer"
    assert ops["vdata"]["sources"]["format"].startswith("amd-isa-manuals/rdna3/README.md:")
    assert vaddr["sources"]["name"] == f"{syn['file']}:{syn['line']} (GFX11 DS)"


def test_s_load_b32_on_rdna3(catalog, sources):
    doc = catalog.show("s_load_b32", "rdna3").as_json()
    syn = doc["syntax"]
    line = rst_line(sources, syn["file"], syn["line"])
    assert row_refs(line) == ["sdst", "sbase", "soffset", "offset21s", "glc", "dlc"]
    assert [op["syntax"] for op in doc["operands"]] == ["sdst", "sbase", "soffset", "offset21s", "glc", "dlc"]
    by = {op["syntax"]: op for op in doc["operands"]}
    assert by["sdst"]["role"] == "dst" and by["sdst"]["access"] == "write"
    assert [f["name"] for f in by["sdst"]["fields"]] == ["SDATA"]
    assert by["sbase"]["size_bits"] == 64 and "SGPR" in by["sbase"]["kinds"]
    assert all(by[m]["role"] == "modifier" for m in ("offset21s", "glc", "dlc"))
    assert by["offset21s"]["fields"][0]["bits"] == enc_field(doc, "OFFSET")


def test_v_sad_u32_on_cdna5_is_still_the_seeds(catalog, sources):
    """The seed page: VDST written, SRC0-2 read, unsigned 32-bit (FMT_NUM_U32); the manual's pseudocode says so."""
    seed = next((p for p in SEEDS.glob("*.txt") if p.read_text().startswith("v_sad_u32 ")), None)
    if seed is not None:   # the seeds sit beside the sources in this project's workspace
        text = seed.read_text()
        assert "VDST\n    Written." in text and "Unsigned 32-bit integral data. (OPR_VGPR, FMT_NUM_U32)" in text
        for src in ("SRC0", "SRC1", "SRC2"):
            assert f"{src}\n    Read. All operands." in text
    doc = catalog.show("v_sad_u32", "cdna5").as_json()
    assert "D0.u32 = tmp" in doc["semantics"] and "tmp = S2.u32" in doc["semantics"]
    assert "S0[31 : 0].u32" in doc["semantics"] and "S1[31 : 0].u32" in doc["semantics"]
    ops = {op["name"]: op for op in doc["operands"]}
    assert list(ops) == ["VDST", "SRC0", "SRC1", "SRC2"]
    assert ops["VDST"]["access"] == "write" and all(ops[s]["access"] == "read" for s in ("SRC0", "SRC1", "SRC2"))
    assert {op["format"] for op in ops.values()} == {"32-bit unsigned integer"}
    # cdna5 (gfx1250) has no page of its own: GFX12's serves it, and its VOP3 src0 link is a doc slip
    assert doc["syntax"]["family"] == "GFX12"
    slip = PAGE_ERRATA["amdgpu_synid_gfx12_src0_1d4114"].source
    assert "attr0.x through attr63.w" in "\n".join(
        (sources / slip.file).read_text().splitlines()[slip.line - 1:slip.line + 5])
    assert "SGPR" in ops["SRC0"]["kinds"] and "instead of" in ops["SRC0"]["sources"]["kinds"]
    assert any(e["kind"] == "llvm-syntax-page" and e["arch"] == "cdna5" for e in doc["errata"])


def test_catalog_operands_follow_the_checkers_rule_tables(catalog, sources):
    """One operand model: the rows ROW_EVIDENCE derives and the modifiers MODIFIER_EVIDENCE adds for the
    checker are the catalog's too, cited to LLVM's test line. gfx1250's v_rcp_bf16 is on no page and takes
    v_rcp_f16's GFX12 row; GFX12's tbuffer rows lack `format`, which the tests write (FORMAT field)."""
    twin = ROW_EVIDENCE["bf16 twin of the f16 row"]
    pages = sources / "llvm-project-23.1.1/llvm/docs/AMDGPU"
    assert not any("v_rcp_bf16 " in p.read_text() for p in pages.glob("AMDGPUAsm*.rst"))
    file, line = twin.evidence.rsplit(":", 1)
    assert "v_rcp_bf16_e32 v5, v1" in rst_line(sources, file, int(line)) and "encoding:" in rst_line(
        sources, file, int(line))
    doc = catalog.show("v_rcp_bf16", "cdna5").as_json()
    assert doc["syntax"]["mnemonic"] == "v_rcp_f16" and rst_line(
        sources, doc["syntax"]["file"], doc["syntax"]["line"]).split()[0] == "v_rcp_f16"
    assert [op["syntax"] for op in doc["operands"]] == ["vdst", "src0"]
    assert all(twin.evidence in op["sources"]["name"] for op in doc["operands"])
    fmt = MODIFIER_EVIDENCE["gfx12 tbuffer format"]
    doc = catalog.show("tbuffer_load_format_x", "rdna4").as_json()
    assert "format" not in row_refs(rst_line(sources, doc["syntax"]["file"], doc["syntax"]["line"]))
    (op,) = [op for op in doc["operands"] if op["syntax"] == "format"]
    assert op["role"] == "modifier" and [f["name"] for f in op["fields"]] == ["FORMAT"]
    assert fmt.evidence in op["sources"]["name"]
    assert any(e["kind"] == "llvm-tests-vs-syntax-page" and "format" in e["detail"] for e in doc["errata"])


def test_catalog_sizes_and_roles_of_derived_rows(catalog, sources):
    """Rows derived from a twin of another shape carry the rule's sizes and roles, not the twin page's: gfx1250's
    v_perm_pk16_b6_u4 is sized by LLVM's profile VOP3_V3I32_I32_I64_V2I32 (96-bit result, 32/64/64-bit sources);
    global_load_async_to_lds_b32 reads its first operand, the LDS address (cdna5 manual: 'VDST: Supplies the LDS
    address for LOADs'), where global_load_b32's row writes vdst."""
    from gpuisa.sources.llvm_syntax_docs import PROFILE_TWINS

    fix = PROFILE_TWINS["v_perm_pk16_b6_u4"]
    file, line = fix.profile.rsplit(":", 1)
    assert "VOPProfile<[v3i32, i32, i64, v2i32]>" in rst_line(sources, file, int(line))
    doc = catalog.show("v_perm_pk16_b6_u4", "cdna5").as_json()
    assert doc["syntax"]["mnemonic"] == "v_perm_b32"
    sizes = {op["syntax"]: op["size_bits"] for op in doc["operands"] if op["role"] != "modifier"}
    assert sizes == {"vdst": 96, "src0": 32, "src1": 64, "src2": 64}, sizes
    assert all("twin row sized by its tablegen profile" in op["sources"]["size_bits"] for op in doc["operands"]
               if op["syntax"] in ("vdst", "src1", "src2"))
    assert "Supplies the LDS address for LOADs" in rst_line(sources, "amd-isa-manuals/cdna5/README.md", 4998)
    doc = catalog.show("global_load_async_to_lds_b32", "cdna5").as_json()
    first = doc["operands"][0]
    assert (first["syntax"], first["role"], first["access"], first["size_bits"]) == ("vdst", "src", "read", 32)
    assert "LDS address" in first["description"] and [f["name"] for f in first["fields"]] == ["VDST"]
    assert catalog.show("global_load_b32", "cdna5").as_json()["operands"][0]["access"] == "write"
    # a packed scaled conversion takes GFX950's row (no gfx12 page lists a twin), sized by its mnemonic: 8 f16 results
    # (128 bits) of 8 fp8 sources (64 bits), and the scale byte selected by scale_sel (PACKED_CONVERSION)
    doc = catalog.show("v_cvt_scale_pk8_f16_fp8", "cdna5").as_json()
    assert doc["syntax"]["family"] == "GFX950"
    sizes = {op["syntax"]: op["size_bits"] for op in doc["operands"] if op["role"] != "modifier"}
    assert (sizes["vdst"], sizes["src0"]) == (128, 64), sizes
    assert any(op["syntax"] == "scale_sel" and "ROW_EVIDENCE" in op["sources"]["name"] for op in doc["operands"])


def test_operand_coverage_at_least_99_percent(catalog):
    cov = catalog.operand_coverage()
    assert cov["entries"] == sum(v["entries"] for v in cov["per_arch"].values())
    assert cov["covered"] / cov["entries"] >= 0.99
    assert len(cov["uncovered"]) == cov["entries"] - cov["covered"]
    assert all(u["reason"] for u in cov["uncovered"])
    # the memory families the issue names are covered on rdna3
    for name in ("ds_add_u32", "buffer_load_b32", "s_load_b32", "global_load_b32"):
        assert catalog.show(name, "rdna3").operands, name


def test_page_contradicting_the_encoding_is_an_erratum(catalog, sources):
    """GFX950's page lists gds for ds_add_u32; the cdna4 manual's DS layout has no GDS field."""
    doc = catalog.show("ds_add_u32", "cdna4").as_json()
    line = rst_line(sources, doc["syntax"]["file"], doc["syntax"]["line"])
    assert "gds" in row_refs(line)
    assert "GDS" not in {f["name"] for f in doc["encodings"][0]["fields"]}
    gds = next(op for op in doc["operands"] if op["syntax"] == "gds")
    assert gds["encoded"] == "none" and gds["fields"] == []
    assert any(e["kind"] == "modifier-without-field" and "gds" in e["detail"] for e in doc["errata"])


def test_operand_kind_pages(catalog, sources):
    page = catalog.operand_page("amdgpu_synid_gfx11_vaddr_f20ee4").as_json()
    assert page["name"] == "vaddr" and page["size_bits"] == 32
    assert rst_line(sources, page["source"]["file"], page["source"]["line"]) == ".. _amdgpu_synid_gfx11_vaddr_f20ee4:"
    v = catalog.operand_page(page["accepts"][0]["label"]).as_json()
    assert v["name"].startswith("v") and "Vector registers." in v["text"]


def test_show_json_has_operands_and_syntax(catalog_path):
    out = subprocess.run([sys.executable, "-m", "gpuisa", "show", "buffer_load_b32", "--arch", "rdna3", "--json",
                          "--catalog", str(catalog_path)], capture_output=True, text=True, check=True)
    doc = json.loads(out.stdout)
    assert doc["syntax"]["family"] == "GFX11"
    assert row_refs(rst_line(SOURCES, doc["syntax"]["file"], doc["syntax"]["line"]))[:4] == \
        ["vdst", "vaddr", "srsrc", "soffset"]
    assert [op["syntax"] for op in doc["operands"]][:4] == ["vdst", "vaddr", "srsrc", "soffset"]
    assert [f["name"] for f in doc["operands"][0]["fields"]] == ["VDATA"]   # MUBUF loads return data in VDATA


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_operand_kinds_link_to_their_pages(catalog_path, sources):
    from fastapi.testclient import TestClient

    from gpuisa.web.app import create_app

    client = TestClient(create_app(catalog_path, request_seconds=CONTENT_REQUEST_SECONDS))
    html = client.get("/amd/rdna3/ds_add_u32").text
    assert 'href="/operand/amdgpu_synid_v"' in html and 'href="/operand/amdgpu_synid_gfx11_vaddr_f20ee4"' in html
    page = client.get("/operand/amdgpu_synid_gfx11_vaddr_f20ee4")
    assert page.status_code == 200 and "An offset from the start of GDS/LDS memory." in page.text
    kind = client.get("/api/operand/amdgpu_synid_v").json()
    assert kind["source"]["file"].endswith("AMDGPUOperandSyntax.rst")
    assert rst_line(sources, kind["source"]["file"], kind["source"]["line"]) == ".. _amdgpu_synid_v:"
    assert client.get("/api/operand/amdgpu_synid_nothing_here").status_code == 404

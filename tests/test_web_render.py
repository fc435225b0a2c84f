"""Rendering details, on documents the catalog really produces: split fields in the bit diagram, the
LLVM examples and target verdicts, the PTX page of clmad, absent sections, static links.

Every fact is read from the source first (an LLVM MC test line, the PTX ISA clmad section), then
found on the page.
"""

from __future__ import annotations

import re

import pytest

from tests.conftest import CONTENT_REQUEST_SECONDS, SOURCES, manual_line

MC = "llvm-project-23.1.1/llvm/test/MC/AMDGPU"
CLMAD = "ptx-isa-9.4/9-instruction-set/9.7.1.5-integer-arithmetic-instructionsclmad.md"


def source_line(rel: str, line: int) -> str:
    with open(SOURCES / rel, encoding="utf-8") as fh:
        for i, text in enumerate(fh, 1):
            if i == line:
                return text.rstrip("\n")
    raise AssertionError(f"{rel} has no line {line}")


def section(html: str, sid: str) -> str:
    found = re.search(rf'<section id="{sid}">(.*?)</section>', html, re.S)
    assert found, f"no section {sid}"
    return found.group(1)


@pytest.fixture(scope="module")
def site(catalog):
    from gpuisa.web.site import Site

    return Site(catalog)


def test_split_opcode_field_is_drawn_in_both_places(catalog):
    from gpuisa.web.site import bit_diagram

    # vega:5709 "OP | [0],[24:18] | ... combine bits zero and 18-24 to form opcode"; vega:5746 "32 | IMAGE_SAMPLE"
    assert "[0],[24:18]" in manual_line("vega", 5709)
    assert "| 32       | IMAGE_SAMPLE" in manual_line("vega", 5746)
    enc = catalog.show("image_sample", "vega").encodings[0]
    cells = [c for row in bit_diagram(enc)["rows"] for c in row["cells"]]
    op = {c["bits"]: c["value"] for c in cells if c["name"] == "OP"}
    assert set(op) == {"24:18", "0"}
    assert op["0"] + op["24:18"] == format(32, "08b")  # bit 0 is the opcode's most significant bit
    assert sum(c["span"] for c in cells) == 64


def test_examples_and_targets_from_llvm_lines(site, catalog):
    """The headline example and the gfx1250 verdict of v_lshl_add_u64 (cdna5), each as its LLVM line says."""
    from gpuisa.web.site import Links

    doc = catalog.show("v_lshl_add_u64", "cdna5")
    head = doc.examples[0]
    check = source_line(head.source.file, head.source.line)
    # e.g. gfx1250_asm_vop3-fake16.s:107 "// GFX1250: v_lshl_add_u64 v[2:3], s[4:5], v7, v[8:9] ; encoding: [0x02,...]"
    assert head.asm in check
    listed = re.search(r"encoding: \[([^\]]*)\]", check).group(1)
    assert head.bytes == " ".join(b.removeprefix("0x").lower() for b in listed.split(","))
    html = site.instruction(doc, Links())
    examples = section(html, "examples")
    assert f"<code>{head.asm}</code>" in examples and head.bytes in examples
    assert f"{head.source.file.rsplit('/', 1)[-1]}:{head.source.line}" in examples
    gfx1250 = doc.targets["gfx1250"]
    assert gfx1250.verdict == "supported" and "v_lshl_add_u64" in source_line(gfx1250.file, gfx1250.line)
    row = re.search(r'<tr data-target="gfx1250"[^>]*>(.*?)</tr>', section(html, "targets"), re.S).group(1)
    assert "supported" in row and f"{gfx1250.file}:{gfx1250.line}" in row


def test_absent_sections_say_so(site, catalog):
    """A document without examples, target evidence or equivalents renders without those sections."""
    from gpuisa.web.site import Links

    doc = catalog.show("v_lshl_add_u64", "cdna5").model_copy(update={"examples": [], "targets": {}, "equivalents": []})
    bare = site.instruction(doc, Links())
    assert 'id="examples"' not in bare and 'id="equivalents"' not in bare
    assert "Per-target support has not been verified" in bare


def test_ptx_page_from_the_manual_section(site, catalog):
    """The clmad page: forms with the version and target the manual states, semantics, notes, source link."""
    from gpuisa.catalog.documents import PtxSource
    from gpuisa.web.site import Links

    text = (SOURCES / CLMAD).read_text(encoding="utf-8")
    assert "clmad.mode.u64 d, a, b, c;" in text and ".mode = { .hi, .lo };" in text
    assert "Introduced in PTX ISA version 9.3." in text and "Requires `sm_80` or higher." in text
    url = re.search(r"^url: (\S+)$", text, re.M).group(1)
    line = next(i for i, t in enumerate(text.splitlines(), 1) if t.startswith("clmad.mode.u64"))
    doc = catalog.show("clmad")
    html = site.instruction(doc, Links())
    forms_html = section(html, "forms")
    for m in ("lo", "hi"):
        row = re.search(rf'<tr data-form="clmad.{m}.u64">(.*?)</tr>', forms_html, re.S).group(1)
        assert "PTX 9.3" in row and "sm_80" in row and f"{CLMAD}:{line}" in row
    assert "d ^= c;" in section(html, "semantics")
    assert f'href="{url}"' in html and "Introduced in PTX ISA version 9.3." in html
    hostile = doc.model_copy(update={"sources": [PtxSource(file=CLMAD, line=1, section="9.7.1.5",
                                                           url="javascript:alert(1)", edition="9.4")]})
    page = site.instruction(hostile, Links()).split("<main", 1)[1]
    assert "javascript:" not in re.sub(r"<code>[^<]*</code>", "", page)


def test_a_ptx_page_builds_its_document_once(catalog_path, monkeypatch):
    from fastapi.testclient import TestClient

    from gpuisa.catalog import ptx_store, query
    from gpuisa.web.app import create_app

    calls: list[str] = []
    real = ptx_store.ptx_show

    def counting(conn, name, form=None):
        calls.append(name)
        return real(conn, name, form)

    monkeypatch.setattr(query, "ptx_show", counting)      # the query layer's reference to the builder
    client = TestClient(create_app(catalog_path, request_seconds=CONTENT_REQUEST_SECONDS))
    for url in ("/ptx/clmad", "/ptx/sad"):
        calls.clear()
        assert client.get(url).status_code == 200
        assert len(calls) == 1, (url, calls)


def test_static_links_are_relative(site, catalog):
    from gpuisa.web.site import Links

    html = site.instruction(catalog.show("v_sad_u32", "rdna3"), Links.for_depth(2))
    assert 'href="../../amd/vega/v_sad_u32.html"' in html
    assert 'href="../../static/style.css"' in html
    assert not re.search(r'(?:href|src)="/', html)
    assert "/api/instruction" not in html


@pytest.mark.parametrize("name", ["v_sad_u32", "s_mov_b32", "image_sample", "ds_add_u32", "v_mov_b32"])
def test_every_arch_page_of_some_instructions_renders(site, catalog, name):
    from gpuisa.web.site import Links

    for arch in catalog.show(name).archs:
        html = site.instruction(catalog.show(name, arch), Links())
        assert f'data-arch="{arch}" class="current"' in html

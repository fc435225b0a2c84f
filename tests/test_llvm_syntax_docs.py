"""The reader of LLVM's AMDGPU syntax pages: rows, operand pages, families, bad input.

Each test first reads the .rst line it relies on, then checks the reader says the same.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gpuisa.sources.llvm_syntax_docs import (
    UNNAMED_TARGETS,
    families_for_arch,
    families_for_target,
    lookup,
    read_syntax_docs,
)

DOCS_REL = "llvm-project-23.1.1/llvm/docs"


@pytest.fixture(scope="module")
def docs(sources: Path):
    return read_syntax_docs(sources / DOCS_REL, DOCS_REL)


def doc_line(sources: Path, rel: str, line: int) -> str:
    return (sources / rel).read_text(encoding="utf-8").splitlines()[line - 1]


def refs_in(line: str) -> list[str]:
    """Link texts of a row, in order, as written: :ref:`vaddr<...>` -> vaddr."""
    return re.findall(r":ref:`([^<`]+)<", line)


def test_ds_add_u32_row_on_gfx11(docs, sources):
    (row,) = lookup(docs, ["GFX11"], "ds_add_u32")
    text = doc_line(sources, row.provenance.file, row.provenance.line)
    assert text.split()[0] == "ds_add_u32"
    assert refs_in(text) == ["vaddr", "vdata", "offset", "gds"]
    assert [o.name for o in row.operands] == ["vaddr", "vdata", "offset", "gds"]
    # the table's header line puts vaddr, vdata under SRC0/SRC1 and offset gds under MODIFIERS
    assert [o.role for o in row.operands] == ["src", "src", "modifier", "modifier"]
    assert row.section == "DS" and row.family == "GFX11"
    vaddr = docs.page(row.operands[0].label)
    page_text = (sources / vaddr.provenance.file).read_text().splitlines()
    assert "An offset from the start of GDS/LDS memory." in page_text
    assert "*Size:* 1 dword." in page_text
    assert "*Operands:* :ref:`v<amdgpu_synid_v>`" in page_text
    assert vaddr.size_bits == 32 and vaddr.accepts == ("v",) and vaddr.kinds == ("VGPR",)
    assert vaddr.description == "An offset from the start of GDS/LDS memory."


def test_s_load_b32_row_on_gfx11(docs, sources):
    (row,) = lookup(docs, ["GFX11"], "s_load_b32")
    text = doc_line(sources, row.provenance.file, row.provenance.line)
    assert refs_in(text) == ["sdst", "sbase", "soffset", "offset21s", "glc", "dlc"]
    assert [o.name for o in row.operands] == ["sdst", "sbase", "soffset", "offset21s", "glc", "dlc"]
    assert [o.role for o in row.dsts] == ["dst"] and [o.name for o in row.modifiers] == ["offset21s", "glc", "dlc"]
    assert all(o.optional for o in row.modifiers) and not any(o.optional for o in row.dsts)
    sbase = docs.page(row.operands[1].label)
    assert "*Size:* 2 dwords." in (sources / sbase.provenance.file).read_text()
    assert sbase.size_bits == 64 and "s" in sbase.accepts


def test_type_tag_and_optional_tag(docs, sources):
    (row,) = lookup(docs, ["GFX11"], "ds_load_2addr_b32")
    text = doc_line(sources, row.provenance.file, row.provenance.line)
    assert ":ref:`vdst<" in text and "::ref:`b64<" in text
    vdst = row.operands[0]
    assert vdst.name == "vdst" and vdst.tags == ("b64",) and vdst.type_override == "b64"
    opt_rows = [i for i in docs.families["GFX11"].instructions if any("opt" in o.tags for o in i.operands)]
    assert opt_rows
    row = opt_rows[0]
    assert "::ref:`opt<" in doc_line(sources, row.provenance.file, row.provenance.line)
    assert any(o.optional and o.role != "modifier" for o in row.operands)


def test_every_row_links_to_a_page_and_sits_on_its_line(docs, sources):
    assert not [s for s in docs.skips if s.reason == "operand links to no page"]
    assert not [s for s in docs.skips if s.reason == "row not found in the source text"]
    files: dict[str, list[str]] = {}
    rows = 0
    for fam in docs.families.values():
        for ins in fam.instructions:
            lines = files.setdefault(ins.provenance.file,
                                     (sources / ins.provenance.file).read_text(encoding="utf-8").splitlines())
            text = lines[ins.provenance.line - 1]
            assert text.split()[0] == ins.mnemonic
            assert refs_in(text) == [n for o in ins.operands for n in (o.name, *o.tags)]
            rows += 1
    # every row of every page: one instruction per 4-space-indented line (the toctree's file names, gfx*_..., aside)
    expected = sum(1 for f in files.values() for line in f
                   if re.match(r"^    [a-z_][a-z0-9_.]*(\s|$)", line) and not re.match(r"^    gfx\d", line))
    assert rows == expected


def test_family_of_each_target(docs, sources):
    fams, why = families_for_target(docs, "gfx906")
    assert fams == ("GFX906", "GFX9")
    intro = (sources / DOCS_REL / "AMDGPU/AMDGPUAsmGFX906.rst").read_text()
    assert "*instructions specific to gfx906*" in intro and "<AMDGPUAsmGFX9>" in intro
    assert "gfx906" in why
    assert families_for_target(docs, "gfx1100")[0] == ("GFX11",)
    assert "gfx1100, gfx1101, gfx1102 and gfx1103" in (sources / DOCS_REL / "AMDGPU/AMDGPUAsmGFX11.rst").read_text()
    # gfx1250 (cdna5) is named by no page: the processor table places it under GFX12
    usage = UNNAMED_TARGETS["gfx1250"].source
    assert "gfx1250" in doc_line(sources, usage.file, usage.line)
    assert "**GCN GFX12 (RDNA 4)**" in doc_line(sources, usage.file, 672)
    assert not any("**GCN" in doc_line(sources, usage.file, n) for n in range(673, usage.line))
    fams, why = families_for_target(docs, "gfx1250")
    assert fams == ("GFX12",) and "no page names gfx1250" in why
    assert families_for_arch(docs, "vega") == ("GFX900", "GFX904", "GFX9")
    assert families_for_target(docs, "gfx9999") == ((), "no syntax page serves gfx9999")


def test_bad_pages_become_counted_skips(tmp_path):
    assert read_syntax_docs(tmp_path, "docs").skips[0].reason == "syntax pages folder missing"
    sub = tmp_path / "AMDGPU"
    sub.mkdir()
    (sub / "AMDGPUAsmGFX99.rst").write_text(
        "Intro\n=====\n\nDS\n--\n\n.. parsed-literal::\n\n"
        "    **INSTRUCTION**  **SRC0**\n"
        "    ds_nop_x         :ref:`vaddr<amdgpu_synid_gfx99_nowhere>`\n\n"
        ".. bogus-directive::\n\n   x\n", encoding="utf-8")
    (sub / "gfx99_bad.rst").write_bytes(b"\xff\xfe not utf-8")
    (sub / "gfx99_dangling.rst").write_text(".. _amdgpu_synid_gfx99_dangling:\n", encoding="utf-8")
    docs = read_syntax_docs(tmp_path, "docs")
    reasons = {(s.reason, s.file, s.line) for s in docs.skips}
    assert ("operand links to no page", "docs/AMDGPU/AMDGPUAsmGFX99.rst", 10) in reasons
    assert ("reStructuredText error", "docs/AMDGPU/AMDGPUAsmGFX99.rst", 12) in reasons
    assert any(r == "label with no section after it" and f.endswith("gfx99_dangling.rst") for r, f, _ in reasons)
    assert any(r.startswith("unreadable page") and f.endswith("gfx99_bad.rst") for r, f, _ in reasons)
    assert any(r == "operand page missing" and f.endswith("AMDGPUOperandSyntax.rst") for r, f, _ in reasons)
    (row,) = docs.families["GFX99"].instructions
    assert row.operands[0].name == "vaddr" and row.provenance.line == 10


def test_every_accepted_kind_has_a_page_and_texts_hold_no_parser_messages(docs, sources):
    """Operand tables link each kind to its page (AMDGPUOperandSyntax.rst: `.. _amdgpu_synid_v:` ...)."""
    generic = (sources / DOCS_REL / "AMDGPUOperandSyntax.rst").read_text().splitlines()
    assert ".. _amdgpu_synid_v:" in generic and ".. _amdgpu_synid_constant:" in generic
    kinds = {a for p in docs.pages.values() for a in p.accepts}
    assert {"v", "s", "a", "constant", "literal"} <= kinds
    assert all(f"amdgpu_synid_{k}" in docs.pages for k in kinds)
    assert not [p.label for p in docs.pages.values() if "(INFO/1)" in p.text or str(sources) in p.text]


def test_a_read_is_kept_until_a_page_changes(tmp_path, monkeypatch):
    """Parsed pages are kept per process and in the parsed-sources cache; a changed page or a damaged cache
    file is read again from the pages."""
    from gpuisa.sources import llvm_syntax_docs as reader

    monkeypatch.setenv("GPUISA_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("GPUISA_PARSE_CACHE", "1")
    sub = tmp_path / "docs" / "AMDGPU"
    sub.mkdir(parents=True)
    page = sub / "AMDGPUAsmGFX99.rst"
    table = "Intro\n=====\n\nDS\n--\n\n.. parsed-literal::\n\n    **INSTRUCTION**  **SRC0**\n"
    page.write_text(table + "    ds_nop_x\n", encoding="utf-8")
    first = read_syntax_docs(tmp_path / "docs", "docs")
    assert read_syntax_docs(tmp_path / "docs", "docs") is first
    (cached,) = (tmp_path / "cache" / "parsed").glob("syntax-*.pickle")
    monkeypatch.setattr(reader, "_MEMO", {})
    again = read_syntax_docs(tmp_path / "docs", "docs")
    assert again is not first and again == first
    cached.write_bytes(b"not a pickle")
    monkeypatch.setattr(reader, "_MEMO", {})
    assert read_syntax_docs(tmp_path / "docs", "docs") == first
    page.write_text(table + "    ds_nop_x\n    ds_nop_y\n", encoding="utf-8")
    changed = read_syntax_docs(tmp_path / "docs", "docs")
    assert [i.mnemonic for i in changed.families["GFX99"].instructions] == ["ds_nop_x", "ds_nop_y"]

"""Rendering details: split fields in the bit diagram, and the sections other parts of the catalog
add later (examples, targets, equivalents, PTX forms) rendered when present, absent otherwise.

The added sections are fed with facts read from the sources here (LLVM MC test lines, the PTX ISA
clmad section), in the shapes the catalog documents use, so the page can be checked before the
catalog serves them.
"""

from __future__ import annotations

import re

import pytest

from tests.conftest import SOURCES, manual_line

MC = "llvm-project-23.1.1/llvm/test/MC/AMDGPU"
CLMAD = "ptx-isa-9.4/9-instruction-set/9.7.1.5-integer-arithmetic-instructionsclmad.md"


def source_line(rel: str, line: int) -> str:
    with open(SOURCES / rel, encoding="utf-8") as fh:
        for i, text in enumerate(fh, 1):
            if i == line:
                return text.rstrip("\n")
    raise AssertionError(f"{rel} has no line {line}")


@pytest.fixture(scope="module")
def site(catalog):
    from gpuisa.web.site import Site

    return Site(catalog)


def test_split_opcode_field_is_drawn_in_both_places(catalog):
    from gpuisa.web.site import bit_diagram

    # vega:5709 "OP | [0],[24:18] | ... combine bits zero and 18-24 to form opcode"; vega:5746 "32 | IMAGE_SAMPLE"
    assert "[0],[24:18]" in manual_line("vega", 5709)
    assert "| 32       | IMAGE_SAMPLE" in manual_line("vega", 5746)
    enc = catalog.show("image_sample", "vega")["encodings"][0]
    cells = [c for row in bit_diagram(enc)["rows"] for c in row["cells"]]
    op = {c["bits"]: c["value"] for c in cells if c["name"] == "OP"}
    assert set(op) == {"24:18", "0"}
    assert op["0"] + op["24:18"] == format(32, "08b")  # bit 0 is the opcode's most significant bit
    assert sum(c["span"] for c in cells) == 64


LATER_KEYS = ("examples", "targets", "equivalents")


def test_later_sections_are_absent_or_rendered_in_any_shape(site, catalog):
    """Without examples/targets/equivalents the page says so; unexpected shapes degrade to text."""
    from gpuisa.web.site import Links

    check = source_line(f"{MC}/gfx1250_asm_vop3-fake16.s", 110)
    assert check.startswith("// GFX1250: v_lshl_add_u64 v[2:3], v[4:5], 0, 1")
    assert "[0x02,0x00,0x52,0xd6,0x04,0x01,0x05,0x02]" in check
    doc = {k: v for k, v in catalog.show("v_lshl_add_u64", "cdna5").items() if k not in LATER_KEYS}
    bare = site.instruction(doc, Links())
    assert 'id="examples"' not in bare and 'id="equivalents"' not in bare
    assert "Per-target support has not been verified" in bare
    doc["examples"] = ["v_lshl_add_u64 v[2:3], v[4:5], 0, 1",
                       {"text": "v_lshl_add_u64 v[2:3], v[4:5], 0, 1", "encoding": [2, 0, 0x52, 0xD6, 4, 1, 5, 2],
                        "provenance": {"file": f"{MC}/gfx1250_asm_vop3-fake16.s", "line": 110}}]
    doc["targets"] = [{"target": "gfx1250", "support": "yes"}]
    doc["equivalents"] = [{"concept": "shift-add", "level": "needs a sequence", "ptx": "shl.b64 + add.u64"}]
    html = site.instruction(doc, Links())
    examples = re.search(r'<section id="examples">(.*?)</section>', html, re.S).group(1)
    assert '<pre class="code"><code>v_lshl_add_u64 v[2:3], v[4:5], 0, 1' in examples
    assert "0x02 0x00 0x52 0xd6" in examples and "gfx1250_asm_vop3-fake16.s:110" in examples
    targets = re.search(r'<section id="targets">(.*?)</section>', html, re.S).group(1)
    assert "<td>gfx1250</td>" in targets and "<td>yes</td>" in targets
    assert "needs a sequence" in re.search(r'id="equivalents">(.*?)</table>', html, re.S).group(1)


def test_ptx_page_from_the_manual_section(site):
    """A PTX document in the PTX store's shape, filled from the clmad section of the PTX ISA 9.4 manual."""
    from gpuisa.web.site import Links

    text = (SOURCES / CLMAD).read_text(encoding="utf-8")
    assert "clmad.mode.u64 d, a, b, c;" in text and ".mode = { .hi, .lo };" in text
    assert "Introduced in PTX ISA version 9.3." in text and "Requires `sm_80` or higher." in text
    semantics = text.split("Semantics\n\n```ptx\n", 1)[1].split("```", 1)[0]
    url = re.search(r"^url: (\S+)$", text, re.M).group(1)
    line = next(i for i, t in enumerate(text.splitlines(), 1) if t.startswith("clmad.mode.u64"))
    forms = [{"form": f"clmad.{m}.u64", "section": "9.7.1.5", "types": [".u64"], "modifiers": [f".{m}", ".u64"],
              "state_spaces": [], "operands": "d, a, b, c", "origin": "syntax", "in_manual": True,
              "documented": {"ptx_version": "9.3", "sm": ["sm_80"]}, "verified": None, "sass": {},
              "source": {"file": CLMAD, "line": line}} for m in ("lo", "hi")]
    doc = {"name": "clmad", "vendor": "nvidia", "isa": "ptx", "category": "Integer Arithmetic Instructions",
           "summary": "Perform carryless multiply and add operation.", "syntax": "clmad.mode.u64 d, a, b, c;",
           "forms": forms, "description": "Performs a carryless multiplication of a and b.", "semantics": semantics,
           "notes": "", "ptx_isa_notes": [{"kind": "ptx", "text": "Introduced in PTX ISA version 9.3.", "subjects": [],
                                           "version": "9.3", "targets": [], "line": 0}],
           "target_isa_notes": [{"kind": "target", "text": "Requires sm_80 or higher.", "subjects": [],
                                 "version": None, "targets": ["sm_80"], "line": 0}],
           "examples": ["clmad.lo.u64 Rd, Ra, Rb, Rc;"], "errata": [], "releases": [],
           "sources": [{"file": CLMAD, "line": 1, "section": "9.7.1.5", "url": url, "edition": "9.4"}],
           "sections": [{"section": "9.7.1.5", "name": "clmad", "names": ["clmad"]}], "forms_capped": False,
           "verification": {"tool": "", "skipped": "ptxas not installed"}}
    html = site.instruction(doc, Links())
    forms_html = re.search(r'<section id="forms">(.*?)</section>', html, re.S).group(1)
    for m in ("lo", "hi"):
        row = re.search(rf'<tr data-form="clmad.{m}.u64">(.*?)</tr>', forms_html, re.S).group(1)
        assert "PTX 9.3" in row and "sm_80" in row and f"{CLMAD}:{line}" in row
    assert "Verification skipped: ptxas not installed." in forms_html
    assert "d ^= c;" in html and 'id="sass"' not in html
    assert f'href="{url}"' in html and "Introduced in PTX ISA version 9.3." in html
    doc["sources"] = [{"file": CLMAD, "url": "javascript:alert(1)"}]
    assert "javascript:" not in re.sub(r"<code>[^<]*</code>", "", site.instruction(doc, Links()).split("<main", 1)[1])


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

    for arch in catalog.show(name)["archs"]:
        html = site.instruction(catalog.show(name, arch), Links())
        assert f'data-arch="{arch}" class="current"' in html


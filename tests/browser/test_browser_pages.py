"""The web reference in a real browser (chromium): pages, diagram to scale, keyboard search,
generation links, diffs, the static export from file://, and inert vendor markup.

Facts come from the manuals; each is checked against the manual line that states it.
"""

from __future__ import annotations

import pytest

from tests.browser.webfixtures import IMG, SCRIPT
from tests.conftest import SOURCES, manual_line

pytestmark = pytest.mark.browser

CDNA5_VOP3 = [("NEG", "63:61"), ("OMOD", "60:59"), ("SRC2", "58:50"), ("SRC1", "49:41"), ("SRC0", "40:32"),
              ("ENCODING", "31:26"), ("OP", "25:16"), ("CLAMP", "15"), ("OPSEL", "14:11"), ("ABS", "10:8"),
              ("VDST", "7:0")]
SECTIONS = {"encoding": "Encoding", "generations": "Generations", "operands": "Operands", "targets": "Target support",
            "description": "Description", "semantics": "Semantics", "related": "Related", "sources": "Sources"}


def _nbits(bits: str) -> int:
    hi, _, lo = bits.partition(":")
    return int(hi) - int(lo or hi) + 1


def test_v_sad_u32_cdna5_page(page, server):
    # cdna5:21868 heading "V_SAD_U32 549"; Table 91 (cdna5:6393-6408): VDST [7:0] ... NEG [63:61], ENCODING 'b110101
    assert "V\\_SAD\\_U32 549" in manual_line("cdna5", 21868)
    assert "| VDST       | [7:0]" in manual_line("cdna5", 6395)
    assert "| NEG        | [63:61]" in manual_line("cdna5", 6408)
    assert "'b110101" in manual_line("cdna5", 6403)
    p = page.page
    p.goto(f"{server}/amd/cdna5/v_sad_u32")
    assert p.locator("h1").inner_text() == "v_sad_u32"
    for sid, title in SECTIONS.items():
        heading = p.locator(f"section#{sid} h2")
        assert heading.is_visible() and heading.inner_text().startswith(title), sid
    assert p.locator("[data-fact=format]").inner_text() == "VOP3"
    assert p.locator("[data-fact=width]").inner_text() == "64 bits"
    assert p.locator("[data-fact=opcode]").inner_text().startswith("549")
    assert p.locator("[data-fact=identifier]").inner_text() == "0xD6250000"
    cells = p.locator("figure.bits[data-encoding=VOP3]").first.locator(".bitcell")
    measured = cells.evaluate_all(
        "els => els.map(e => [e.dataset.field, e.dataset.bits, e.getBoundingClientRect().width, e.innerText])")
    assert [(f, b) for f, b, _, _ in measured] == CDNA5_VOP3
    # to scale: the width per bit is the same for every cell (within a pixel of border per cell)
    per_bit = [w / _nbits(b) for _, b, w, _ in measured]
    assert max(per_bit) - min(per_bit) < 1.5, per_bit
    text = {f: t for f, _, _, t in measured}
    assert "110101" in text["ENCODING"] and format(549, "010b") in text["OP"]
    assert "x > y ? x - y : y - x);" in manual_line("cdna5", 21876)
    assert "x > y ? x - y : y - x);" in p.locator("#semantics pre").inner_text()
    assert "amd-isa-manuals/cdna5/README.md:21868" in p.locator("#sources").inner_text()
    page.shot("v_sad_u32-cdna5")


def test_follow_a_generation_link(page, server):
    # rdna2:5503 "| 349 | V_SAD_U32" in the VOP3A opcode table
    assert "| 349      | V_SAD_U32" in manual_line("rdna2", 5503)
    p = page.page
    p.goto(f"{server}/amd/v_sad_u32")
    p.locator("tr[data-arch=rdna2] a").click()
    p.wait_for_url("**/amd/rdna2/v_sad_u32")
    assert p.locator("[data-fact=format]").inner_text() == "VOP3A"
    assert p.locator("[data-fact=opcode]").inner_text().startswith("349")
    assert p.locator(".archsel a.current").inner_text() == "rdna2"
    # and back with the generation selector
    p.locator(".archsel a[data-arch=cdna5]").click()
    p.wait_for_url("**/amd/cdna5/v_sad_u32")
    assert p.locator("[data-fact=opcode]").inner_text().startswith("549")
    page.shot("v_sad_u32-rdna2-then-cdna5")


def test_v_lshl_add_u64_page_and_selector(page, server):
    assert "V\\_LSHL\\_ADD\\_U64 594" in manual_line("cdna5", 22486)
    assert "V\\_LSHL\\_ADD\\_U64 520" in manual_line("cdna4", 14401)
    assert "unsupported shift counts as a shift of zero" in manual_line("cdna5", 22500)
    p = page.page
    p.goto(f"{server}/amd/v_lshl_add_u64")
    assert p.locator("[data-fact=opcode]").inner_text().startswith("594")
    assert p.locator("[data-fact=identifier]").inner_text() == "0xD6520000"
    assert p.locator(".archsel a").all_inner_texts() == ["cdna5", "cdna4", "cdna3"]
    assert "unsupported shift counts as a shift of zero" in p.locator("#notes").inner_text()
    page.shot("v_lshl_add_u64-cdna5")
    p.locator(".archsel a[data-arch=cdna4]").click()
    p.wait_for_url("**/amd/cdna4/v_lshl_add_u64")
    assert p.locator("[data-fact=opcode]").inner_text().startswith("520")
    assert p.locator("table.gens tr.current").get_attribute("data-arch") == "cdna4"
    if p.locator("table.targets").count():  # LLVM evidence in the catalog: CDNA 4's target (gfx950) first
        assert p.locator("table.targets tr.current").first.get_attribute("data-target") == "gfx950"


def test_search_box_by_keyboard(page, server):
    p = page.page
    p.goto(server + "/")
    p.keyboard.press("/")  # focuses the search box
    assert p.evaluate("document.activeElement.id") == "q"
    p.keyboard.type("v_sad_u3", delay=40)
    # Under load the answer for an earlier prefix ("v_sad_u") can be on screen when typing ends; wait for
    # the suggestions that answer the whole text (the list names the text it answers).
    option = p.locator('#q-results[data-query="v_sad_u3"]:not([aria-busy]) li[role=option]').first
    option.wait_for()
    assert option.locator(".sname").inner_text() == "v_sad_u32"
    p.keyboard.press("ArrowDown")
    assert option.get_attribute("aria-selected") == "true"
    page.shot("search-suggestions")
    p.keyboard.press("Enter")
    p.wait_for_url("**/amd/v_sad_u32")
    assert p.locator("h1").inner_text() == "v_sad_u32"
    # A suggestion chosen for an older text is dropped as soon as the text changes: Enter then searches for
    # what is typed instead of opening the page chosen for the prefix.
    p.locator("#q").fill("")
    p.locator("#q").type("v_sad_u", delay=20)
    p.locator('#q-results[data-query="v_sad_u"]:not([aria-busy]) li[role=option]').first.wait_for()
    p.keyboard.press("ArrowDown")
    p.keyboard.type("8")
    assert p.locator("#q-results li[aria-selected=true]").count() == 0
    p.keyboard.press("Enter")
    p.wait_for_url("**/search?q=v_sad_u8")
    # Enter without choosing a suggestion submits the form: the results page, exact names first
    p.locator("#q").fill("")
    p.locator("#q").type("V_SAD_U32", delay=20)
    p.locator('#q-results[data-query="V_SAD_U32"]:not([aria-busy]) li[role=option]').first.wait_for()
    p.keyboard.press("Escape")  # closes the suggestions, keeps the text
    assert p.locator("#q-results").is_hidden() and p.locator("#q").input_value() == "V_SAD_U32"
    p.keyboard.press("Enter")
    p.wait_for_url("**/search?q=V_SAD_U32")
    first = p.locator("ol.results li").first
    assert first.get_attribute("data-match") == "name" and first.locator("code").inner_text() == "v_sad_u32"
    page.shot("search-results")


def test_diff_page(page, server):
    # rdna4:6673 lists 80 BUFFER_ATOMIC_COND_SUB_U32 in its VBUFFER opcodes; rdna3 has no such instruction
    assert "BUFFER_ATOMIC_COND_SUB_U32" in manual_line("rdna4", 6673)
    p = page.page
    p.goto(f"{server}/")
    p.locator("a", has_text="rdna3 → rdna3.5").click()
    p.wait_for_url("**/diff/rdna3/rdna3.5")
    p.goto(f"{server}/diff/rdna3/rdna4")
    assert p.locator("h1").inner_text() == "AMD RDNA 3 → AMD RDNA 4"
    for sid in ("added", "removed", "renamed", "reencoded"):
        assert p.locator(f"section#{sid} h2").is_visible()
    row = p.locator("#reencoded tr", has=p.locator("a[href='/amd/rdna4/buffer_atomic_add_f32']"))
    assert "MUBUF 86" in row.inner_text() and "VBUFFER 86" in row.inner_text()
    page.shot("diff-rdna3-rdna4", full_page=False)
    p.locator("#added a[href='/amd/rdna4/buffer_atomic_cond_sub_u32']").click()
    p.wait_for_url("**/amd/rdna4/buffer_atomic_cond_sub_u32")
    assert p.locator("[data-fact=opcode]").inner_text().startswith("80")
    assert p.locator(".archsel a.current").inner_text() == "rdna4"


def test_unknown_instruction_suggests(page, server):
    p = page.page
    response = p.goto(f"{server}/amd/v_sad_u33")
    assert response is not None and response.status == 404
    page.shot("not-found")
    p.locator("a", has_text="v_sad_u32").first.click()
    p.wait_for_url("**/amd/v_sad_u32")


def test_clmad_ptx_page(page, server, catalog):
    from gpuisa.errors import NotFoundError

    try:
        doc = catalog.show("clmad")
    except NotFoundError:
        pytest.skip("the catalog has no PTX instructions yet (show('clmad') raises NotFoundError)")
    source = SOURCES / "ptx-isa-9.4" / "9-instruction-set"
    text = (source / "9.7.1.5-integer-arithmetic-instructionsclmad.md").read_text(encoding="utf-8")
    assert "Introduced in PTX ISA version 9.3." in text and "Requires `sm_80` or higher." in text
    p = page.page
    p.goto(f"{server}/ptx/clmad")
    assert p.locator("h1").inner_text() == "clmad"
    body = p.locator("main").inner_text()
    assert "Performs a carryless multiplication of" in body
    assert "d ^= c;" in p.locator("#semantics").inner_text()
    assert "sm_80" in body and "9.3" in body
    if doc.forms:
        forms = p.locator("#forms").inner_text()
        assert "clmad.lo.u64" in forms and "clmad.hi.u64" in forms
    if any(f.sass for f in doc.forms):
        assert p.locator("#sass table").is_visible()
    page.shot("clmad-ptx")


def test_vendor_markup_stays_text_in_the_browser(page, hostile_server):
    p = page.page
    p.goto(f"{hostile_server}/amd/v_evil_u32")
    description = p.locator("#description").inner_text()
    assert SCRIPT in description and IMG in description
    assert SCRIPT in p.locator("#semantics pre").inner_text()
    assert p.locator("img").count() == 0 and p.locator("main script").count() == 0
    page.shot("hostile-instruction-page")
    p.locator("#q").type("v_evil", delay=30)
    p.locator("#q-results li[role=option]").first.wait_for()
    assert SCRIPT in p.locator("#q-results").inner_text()
    p.goto(f"{hostile_server}/search?q=alert")
    assert SCRIPT in p.locator("ol.results").inner_text()
    p.wait_for_timeout(300)
    assert page.dialogs == []
    page.shot("hostile-search-results")


def test_static_export_from_file_urls(page, hostile_export):
    p = page.page
    p.goto((hostile_export / "index.html").as_uri())
    assert p.locator(".bitrow").count() == 0 and p.evaluate("getComputedStyle(document.body).margin") == "0px"
    p.locator("table.archs a", has_text="AMD RDNA 3.5").click()
    p.wait_for_url("**/arch/rdna3.5.html")
    p.locator("a", has_text="v_evil_u32").first.click()
    p.wait_for_url("**/amd/rdna3.5/v_evil_u32.html")
    assert p.evaluate("getComputedStyle(document.querySelector('.bitrow')).display") == "grid"
    assert SCRIPT in p.locator("#description").inner_text()
    p.locator("tr[data-arch=vega] a").click()
    p.wait_for_url("**/amd/vega/v_evil_u32.html")
    # search runs in the page over static/search-index.js (no server)
    p.locator("#q").type("v_pla", delay=30)
    p.locator("#q-results li[role=option]").first.wait_for()
    p.keyboard.press("ArrowDown")
    p.keyboard.press("Enter")
    p.wait_for_url("**/amd/v_plain_u32.html")
    p.locator("#q").type("alert", delay=20)
    p.locator("#q-results li[role=option]").first.wait_for()
    p.keyboard.press("Enter")
    p.wait_for_url("**/search.html?q=alert")
    p.locator("ol.results li").first.wait_for()
    assert p.locator("ol.results li code").all_inner_texts() == ["v_evil_u32"]
    assert page.dialogs == []
    page.shot("static-export-search")

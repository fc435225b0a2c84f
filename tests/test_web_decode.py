"""The web decode box (/decode, /api/decode) and the decode link on each example, over the real catalog.

Facts come from LLVM's MC tests: gfx11_dasm_vop3.txt:7273 decodes 05 00 25 d6 01 05 0e 00 as
`v_sad_u32 v5, v1, v2, s3`; the rdna3 manual's VOP3 layout puts VDST at [7:0] and SRC0 at [40:32].
"""

from __future__ import annotations

import time
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.conftest import CONTENT_REQUEST_SECONDS, SOURCES

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx`")

GFX11_VOP3 = SOURCES / "llvm-project-23.1.1/llvm/test/MC/Disassembler/AMDGPU/gfx11_dasm_vop3.txt"
SAD = "05 00 25 d6 01 05 0e 00"


class Cells(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.cells: list[dict[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if "bitcell" in a.get("class", "").split():
            self.cells.append(a)


@pytest.fixture(scope="module")
def client(catalog_path: Path):
    from fastapi.testclient import TestClient

    from gpuisa.web.app import create_app

    return TestClient(create_app(catalog_path, request_seconds=CONTENT_REQUEST_SECONDS))


def _until_ready(client, url: str, seconds: float = 300.0):
    """The first request of a target answers 503 "preparing" while its tables are built; then 200."""
    deadline = time.monotonic() + seconds
    while True:
        r = client.get(url)
        if r.status_code != 503 or time.monotonic() > deadline:
            return r
        assert "preparing the decoder" in r.text.lower() and r.headers["retry-after"]
        assert "no-store" in r.headers.get("cache-control", "") or url.startswith("/api/")
        time.sleep(1)


def test_decode_box_reads_the_fields_off_the_word(client):
    assert "# GFX11: v_sad_u32 v5, v1, v2, s3" in GFX11_VOP3.read_text().splitlines()[7272]
    assert "0x05,0x00,0x25,0xd6,0x01,0x05,0x0e,0x00" in GFX11_VOP3.read_text().splitlines()[7272]
    r = _until_ready(client, f"/decode?target=gfx1100&hex={SAD}")
    assert r.status_code == 200, r.text[:500]
    assert "v_sad_u32 v5, v1, v2, s3" in r.text
    assert 'href="/amd/rdna3/v_sad_u32"' in r.text
    p = Cells()
    p.feed(r.text)
    fields = {c["data-field"]: c for c in p.cells}
    assert fields["VDST"]["title"].endswith("= 5")                    # v5
    assert fields["SRC0"]["title"].endswith("= 257")                  # v1 is operand code 256 + 1
    assert fields["SRC2"]["title"].endswith("= 3")                    # s3


def test_decode_api_and_bad_input(client):
    r = _until_ready(client, f"/api/decode?target=gfx1100&hex={SAD.replace(' ', '')}")
    assert r.status_code == 200
    assert r.json()[0]["text"] == "v_sad_u32 v5, v1, v2, s3" and r.json()[0]["name"] == "v_sad_u32"
    bad = client.get("/api/decode?target=gfx1100&hex=zz")
    assert bad.status_code == 400 and "hex" in bad.json()["error"]
    page = client.get("/decode?target=gfx1100&hex=zz")                  # the page says it in words
    assert page.status_code == 400 and "not hexadecimal" in page.text
    assert client.get("/api/decode?target=gfx1&hex=00").status_code == 400
    page = client.get("/decode?target=gfx9999&hex=00")
    assert page.status_code == 400 and "unknown gfx target" in page.text
    assert client.get("/decode").status_code == 200


def test_each_example_links_to_its_decoding(client):
    page = client.get("/amd/rdna3/v_sad_u32").text
    assert "/decode?target=gfx11" in page and "decode</a>" in page

"""Helpers shared by the web tests: a tiny hostile source tree, and a live server on a free port.

The fixture manual is the smallest AMD manual the reader accepts (a "Microcode Formats" chapter
with a field and an opcode table, an "Instructions" chapter with one `#### NAME opcode` heading),
written once per arch folder, with markup in its description, pseudocode and notes. Entities in
the Markdown decode to the raw characters, so the catalog holds `<script>` etc. as vendor text.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from gpuisa.archs import ARCHS
from tests.conftest import CONTENT_REQUEST_SECONDS

SCRIPT = "<script>alert(1)</script>"
IMG = '"><img src=x onerror=alert(1)>'
EVIL = "V_EVIL_U32"

_MANUAL = """# Chapter 1. Microcode Formats

## 1.1. VOP3

Table 1. VOP3 Fields

| Field Name | Bits    | Format or Description |
|------------|---------|-----------------------|
| VDST       | [7:0]   | Destination VGPR      |
| OP         | [25:16] | Opcode.               |
| ENCODING   | [31:26] | 'b110101              |
| SRC0       | [40:32] | First source          |
| SRC1       | [49:41] | Second source         |

Table 2. VOP3 Opcodes

| Opcode # | Name       |
|----------|------------|
| 549      | V_EVIL_U32 |
| 550      | V_PLAIN_U32 |

# Chapter 2. Instructions

## 2.1. VOP3 Instructions

#### V_EVIL_U32 549

Adds two values &lt;script&gt;alert(1)&lt;/script&gt; and "&gt;&lt;img src=x onerror=alert(1)&gt; as text.

A second paragraph.

#### Expression

```text
D0.u32 = S0.u32 + S1.u32; // <script>alert(1)</script> "><img src=x onerror=alert(1)>
```

#### Notes

Note with &lt;script&gt;alert(1)&lt;/script&gt; inside.

#### V_PLAIN_U32 550

Subtracts two values.

#### Expression

```text
D0.u32 = S0.u32 - S1.u32
```
"""


def write_fixture_sources(root: Path) -> Path:
    """A sources tree with the hostile manual in all twelve arch folders; returns `root`."""
    for arch in ARCHS:
        folder = root / "amd-isa-manuals" / arch.key
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "README.md").write_text(_MANUAL, encoding="utf-8")
    return root


def build_fixture_catalog(folder: Path) -> Path:
    """Write the hostile sources under `folder` and build a catalog from them (about a second)."""
    from gpuisa.build import build

    sources = write_fixture_sources(folder / "sources")
    catalog = folder / "fixture.sqlite"
    build(sources, catalog, None, jobs=1, verify=False)
    return catalog


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def live_server(catalog: Path) -> Iterator[str]:
    """Run the app under uvicorn in a thread on a free 127.0.0.1 port; yield its base URL."""
    import uvicorn

    from gpuisa.web.app import create_app

    port = free_port()
    app = create_app(catalog, request_seconds=CONTENT_REQUEST_SECONDS)
    config = uvicorn.Config(app, host="127.0.0.1", port=port, access_log=False, log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)

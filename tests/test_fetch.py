"""`gpuisa fetch` against a local mirror (no internet here): resume, checksums, atomic unpacking.

The mirror is built on the fly in tmp_path from a few files of ../shared/sources, packed the way
upstream packs them (a top folder per archive), and served by http.server with Range support.
"""

from __future__ import annotations

import hashlib
import io
import tarfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from typer.testing import CliRunner

from gpuisa import fetch
from gpuisa.paths import default_sources

SOURCES = default_sources()
pytestmark = pytest.mark.skipif(not (SOURCES / "llvm-project-23.1.1").is_dir(),
                                reason=f"vendor sources not found under {SOURCES}")

# (item name, top folder in the archive, {path in archive: path under SOURCES})
SUBSET = {
    "llvm": ("llvm-project-23.1.1.src", {
        "llvm/test/MC/AMDGPU/dl-insts.s": "llvm-project-23.1.1/llvm/test/MC/AMDGPU/dl-insts.s",
        "llvm/test/MC/Disassembler/AMDGPU/gfx12_dasm_wmma_w32.txt":
            "llvm-project-23.1.1/llvm/test/MC/Disassembler/AMDGPU/gfx12_dasm_wmma_w32.txt",
        "llvm/docs/AMDGPUOperandSyntax.rst": "llvm-project-23.1.1/llvm/docs/AMDGPUOperandSyntax.rst",
    }),
    "amd-manuals": ("amdgpu-isa-manuals-x", {
        "README.md": "amd-isa-manuals/README.md",
        "CONVERTING.md": "amd-isa-manuals/CONVERTING.md",
    }),
    "amd-mr-isa-schema": ("isa_spec_manager-x", {
        "README.md": "amd-mr-isa-schema/README.md",
        "documentation/spec_documentation.md": "amd-mr-isa-schema/documentation/spec_documentation.md",
    }),
    "ptx-9.4": ("ptx-isa-markdown-x", {
        "README.md": "ptx-isa-9.4/README-upstream.md",
        "cuda_skill/references/ptx-docs/INDEX.md": "ptx-isa-9.4/INDEX.md",
    }),
    "ptx-9.1": ("ptx-isa-9.1", {"INDEX.md": "ptx-isa-9.1/INDEX.md"}),
}
NOT_KEPT = "llvm/README.txt"     # in the LLVM archive but outside the kept paths


def make_archive(item: fetch.FetchItem, top: str, files: dict[str, str]) -> bytes:
    buf = io.BytesIO()
    mode = "w:xz" if item.filename.endswith(".xz") else "w:gz"
    with tarfile.open(fileobj=buf, mode=mode) as tar:
        members = {f"{top}/{inside}": (SOURCES / src).read_bytes() for inside, src in files.items()}
        if item.name == "llvm":
            members[f"{top}/{NOT_KEPT}"] = b"not kept\n"
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


class Mirror:
    """Files served over HTTP with Range support, plus fault injection and a request log."""

    def __init__(self, files: dict[str, bytes]) -> None:
        self.files = files
        self.requests: list[tuple[str, str]] = []          # (path, Range header or "")
        self.drop_first: dict[str, int] = {}               # name -> requests to cut in half
        self.ignore_range = False
        mirror = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                name = self.path.lstrip("/")
                rng = self.headers.get("Range", "")
                mirror.requests.append((name, rng))
                data = mirror.files.get(name)
                if data is None:
                    self.send_error(404)
                    return
                start = int(rng.removeprefix("bytes=").split("-")[0]) if rng and not mirror.ignore_range else 0
                if start >= len(data) and start:
                    self.send_response(416)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                body = data[start:]
                self.send_response(206 if start else 200)
                if start:
                    self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if mirror.drop_first.get(name, 0) > 0:
                    mirror.drop_first[name] -= 1
                    self.wfile.write(body[: len(body) // 2])
                    self.wfile.flush()
                    self.close_connection = True           # drop the connection midway
                    return
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def sums(files: dict[str, bytes]) -> bytes:
    return "".join(f"{hashlib.sha256(d).hexdigest()}  {n}\n" for n, d in files.items()).encode()


@pytest.fixture(scope="module")
def archives() -> dict[str, bytes]:
    items = {i.name: i for i in fetch.MANIFEST}
    return {items[name].filename: make_archive(items[name], top, files) for name, (top, files) in SUBSET.items()}


@pytest.fixture
def mirror(archives):
    files = dict(archives)
    files[fetch.CHECKSUMS] = sums(archives)
    m = Mirror(files)
    yield m
    m.close()


def items(*names: str) -> list[fetch.FetchItem]:
    return fetch.manifest_by_name(names)


def test_fetch_everything_from_a_mirror(tmp_path, mirror):
    dest = tmp_path / "sources"
    results = {r.name: r for r in fetch.fetch_sources(dest, mirror=mirror.url, backoff=0)}
    for name, (_top, files) in SUBSET.items():
        assert results[name].status == "fetched" and results[name].verified, name
        for src in files.values():
            assert (dest / src).read_bytes() == (SOURCES / src).read_bytes(), src
    # the XML zip is optional and this mirror lacks it: a failed result, not an error
    assert results["amd-mr-isa-xml"].status == "failed" and "404" in results["amd-mr-isa-xml"].message
    assert not (dest / "llvm-project-23.1.1" / NOT_KEPT).exists()
    assert (dest / "amd-isa-manuals/SOURCE_COMMIT").read_text().strip() == fetch.AMD_MANUALS_COMMIT
    assert (dest / "llvm-project-23.1.1" / fetch.STATE_FILE).is_file()
    assert not list((dest / ".downloads").iterdir())                  # archives removed after unpacking
    assert not [p for p in dest.iterdir() if p.name.startswith((".tmp-", ".old-"))]


def test_fetched_tree_reads_like_the_shared_one(tmp_path, mirror):
    from gpuisa.sources import llvm_mc

    dest = tmp_path / "sources"
    fetch.fetch_sources(dest, items("llvm"), mirror=mirror.url, backoff=0)
    corpus = llvm_mc.read_corpus(dest, processes=1)
    assert corpus.files == 2 and corpus.examples and corpus.negatives


def test_checksum_mismatch_leaves_nothing(tmp_path, archives):
    files = dict(archives)
    bad = {n: b"tampered" for n in archives}
    files[fetch.CHECKSUMS] = sums(bad)
    m = Mirror(files)
    try:
        dest = tmp_path / "sources"
        with pytest.raises(fetch.FetchError, match=r"checksum mismatch .*the download was removed"):
            fetch.fetch_sources(dest, items("amd-manuals"), mirror=m.url, backoff=0)
        assert not (dest / "amd-isa-manuals").exists()
        assert not list((dest / ".downloads").iterdir())
    finally:
        m.close()


def test_interrupted_download_resumes_with_range(tmp_path, mirror):
    name = fetch.manifest_by_name(["llvm"])[0].filename
    mirror.drop_first[name] = 1
    dest = tmp_path / "sources"
    (result,) = fetch.fetch_sources(dest, items("llvm"), mirror=mirror.url, backoff=0)
    assert result.status == "fetched" and result.verified and result.attempts == 2
    ranges = [rng for path, rng in mirror.requests if path == name]
    assert ranges[0] == "" and ranges[1].startswith("bytes=") and ranges[1] != "bytes=0-"
    assert (dest / SUBSET["llvm"][1]["llvm/test/MC/AMDGPU/dl-insts.s"]).is_file()


def test_resume_across_runs(tmp_path, mirror):
    name = fetch.manifest_by_name(["amd-manuals"])[0].filename
    mirror.drop_first[name] = 1
    dest = tmp_path / "sources"
    with pytest.raises(fetch.FetchError, match="run the command again to resume"):
        fetch.fetch_sources(dest, items("amd-manuals"), mirror=mirror.url, retries=1, backoff=0)
    part = dest / ".downloads" / (name + ".part")
    have = part.stat().st_size
    assert 0 < have < len(mirror.files[name])
    (result,) = fetch.fetch_sources(dest, items("amd-manuals"), mirror=mirror.url, backoff=0)
    assert result.status == "fetched" and result.verified
    assert (name, f"bytes={have}-") in mirror.requests
    assert not part.exists()


def test_server_ignoring_range_restarts_cleanly(tmp_path, mirror):
    name = fetch.manifest_by_name(["ptx-9.4"])[0].filename
    mirror.drop_first[name] = 1
    mirror.ignore_range = True
    (result,) = fetch.fetch_sources(tmp_path / "s", items("ptx-9.4"), mirror=mirror.url, backoff=0)
    assert result.verified
    assert (tmp_path / "s/ptx-isa-9.4/INDEX.md").read_bytes() == (SOURCES / "ptx-isa-9.4/INDEX.md").read_bytes()


def test_refetch_replaces_the_tree(tmp_path, mirror):
    dest = tmp_path / "sources"
    fetch.fetch_sources(dest, items("amd-mr-isa-schema"), mirror=mirror.url, backoff=0)
    stray = dest / "amd-mr-isa-schema" / "stale.md"
    stray.write_text("left over")
    fetch.fetch_sources(dest, items("amd-mr-isa-schema"), mirror=mirror.url, backoff=0)
    assert not stray.exists() and (dest / "amd-mr-isa-schema/README.md").is_file()


def test_member_paths():
    ptx = fetch.manifest_by_name(["ptx-9.4"])[0]
    assert fetch.member_path(ptx, "top/cuda_skill/references/ptx-docs/INDEX.md") == "INDEX.md"
    assert fetch.member_path(ptx, "top/README.md") == "README-upstream.md"
    assert fetch.member_path(ptx, "top/cuda_skill/references/cuda-runtime-docs/INDEX.md") is None
    llvm = fetch.manifest_by_name(["llvm"])[0]
    assert fetch.member_path(llvm, "x/llvm/docs/AMDGPUUsage.rst") == "llvm/docs/AMDGPUUsage.rst"
    assert fetch.member_path(llvm, "x/llvm/lib/Target/X86/X86.td") is None
    assert fetch.member_path(llvm, "x/../../etc/passwd") is None


def test_unknown_source_name():
    with pytest.raises(fetch.FetchError, match="known: llvm"):
        fetch.manifest_by_name(["nope"])


def test_cli_fetch(tmp_path, mirror):
    from gpuisa.cli import app

    dest = tmp_path / "cli"
    out = CliRunner().invoke(app, ["fetch", "--dest", str(dest), "--mirror", mirror.url, "--only", "ptx-9.1"])
    assert out.exit_code == 0, out.output
    assert "ptx-9.1" in out.output and "verified" in out.output
    assert (dest / "ptx-isa-9.1/INDEX.md").is_file()
    listing = CliRunner().invoke(app, ["fetch", "--list"])
    assert listing.exit_code == 0 and "amd-manuals" in listing.output


def test_cli_error_is_one_line(tmp_path, mirror, capsys, monkeypatch):
    import sys

    from gpuisa import cli

    mirror.files[fetch.CHECKSUMS] = sums({n: b"x" for n in mirror.files if n != fetch.CHECKSUMS})
    monkeypatch.setattr(sys, "argv", ["gpuisa", "fetch", "--dest", str(tmp_path / "d"), "--mirror", mirror.url,
                                      "--only", "ptx-9.1"])
    with pytest.raises(SystemExit) as exit_info:
        cli.main()
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "gpuisa: error: ptx-9.1: checksum mismatch" in err and "Traceback" not in err

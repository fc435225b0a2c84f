"""`gpuisa fetch` against hostile mirrors: damaged archives, bombs, unreadable checksum files.

Each case starts from a good fetch, then serves a bad archive; the good tree must stay byte for byte
(nothing replaced, nothing left beside it) and the error must name the source and why.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import random
import tarfile
import zipfile
from pathlib import Path

import pytest

from gpuisa import fetch
from gpuisa.limits import MAX_EXTRACTED_FILE_BYTES
from tests.test_fetch import SOURCES, SUBSET, Mirror, make_archive, sums

pytestmark = pytest.mark.skipif(not (SOURCES / "amd-isa-manuals").is_dir(), reason=f"vendor sources not found under {SOURCES}")

ITEM = fetch.manifest_by_name(["amd-manuals"])[0]     # a .tar.gz with a top folder


def tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def leftovers(dest: Path) -> list[str]:
    return [p.name for p in dest.iterdir() if p.name.startswith((".tmp-", ".old-"))]


def good_archive() -> bytes:
    top, files = SUBSET["amd-manuals"]
    # more members than the SUBSET, so damage in the middle leaves a readable prefix (the 79 of 228)
    files = {**files, **{f"extra/{i:03}.md": "amd-isa-manuals/README.md" for i in range(60)}}
    return make_archive(ITEM, top, files)


def fetched(tmp_path: Path, archive: bytes, sums_text: bytes | None = None) -> tuple[Mirror, Path]:
    files = {ITEM.filename: archive, fetch.CHECKSUMS: sums({ITEM.filename: archive}) if sums_text is None else sums_text}
    return Mirror(files), tmp_path / "sources"


@pytest.fixture
def good_tree(tmp_path):
    archive = good_archive()
    m, dest = fetched(tmp_path, archive)
    try:
        (result,) = fetch.fetch_sources(dest, [ITEM], mirror=m.url, backoff=0)
        assert result.status == "fetched" and result.verified
    finally:
        m.close()
    before = tree(dest / ITEM.dest)
    assert len(before) > 60
    return dest, before


def refetch_fails(dest: Path, files: dict[str, bytes], match: str, **kw) -> None:
    m = Mirror(files)
    try:
        with pytest.raises(fetch.FetchError, match=match):
            fetch.fetch_sources(dest, [ITEM], mirror=m.url, backoff=0, **kw)
    finally:
        m.close()


def flip_bytes(data: bytes, count: int, seed: int) -> bytes:
    rng = random.Random(seed)
    raw = bytearray(data)
    for pos in rng.sample(range(64, len(raw) - 16), count):
        raw[pos] ^= 0xFF
    return bytes(raw)


@pytest.mark.parametrize("seed", range(4))
def test_flipped_bytes_with_a_matching_checksum_are_refused(good_tree, seed):
    """The issue's case: 2,000 flipped bytes, and a SHA256SUMS made from the damaged file."""
    dest, before = good_tree
    damaged = flip_bytes(good_archive(), 2000, seed)
    refetch_fails(dest, {ITEM.filename: damaged, fetch.CHECKSUMS: sums({ITEM.filename: damaged})},
                  r"amd-manuals: .* (is damaged|nothing was replaced)")
    assert tree(dest / ITEM.dest) == before and not leftovers(dest)


def test_damage_past_the_first_member_is_refused(good_tree):
    """Garbage where a later tar header should be: tarfile alone would stop there and call it the end."""
    dest, before = good_tree
    raw = bytearray(gzip.decompress(good_archive()))
    middle = len(raw) // 2 // 512 * 512
    raw[middle:middle + 512] = bytes(range(256)) * 2
    damaged = gzip.compress(bytes(raw))
    refetch_fails(dest, {ITEM.filename: damaged, fetch.CHECKSUMS: sums({ITEM.filename: damaged})}, "is damaged")
    assert tree(dest / ITEM.dest) == before and not leftovers(dest)


def test_truncated_archive_is_refused(good_tree):
    dest, before = good_tree
    cut = good_archive()[: len(good_archive()) * 9 // 10]
    refetch_fails(dest, {ITEM.filename: cut, fetch.CHECKSUMS: sums({ITEM.filename: cut})}, "amd-manuals")
    assert tree(dest / ITEM.dest) == before and not leftovers(dest)


def gzip_of_zeros_tar(size: int) -> bytes:
    """A .tar.gz holding one file of `size` zero bytes, built from repeated gzip members (no big buffer)."""
    top = "amdgpu-isa-manuals-x"
    header = tarfile.TarInfo(f"{top}/README.md")
    header.size = size
    block = gzip.compress(b"\0" * (1 << 20), compresslevel=9)
    out = io.BytesIO()
    out.write(gzip.compress(header.tobuf(format=tarfile.PAX_FORMAT)))
    for _ in range(size >> 20):
        out.write(block)
    out.write(gzip.compress(b"\0" * 1024))
    return out.getvalue()


def test_a_one_gib_file_of_zeros_is_refused(good_tree):
    dest, before = good_tree
    bomb = gzip_of_zeros_tar(1 << 30)
    assert len(bomb) < 2 << 20            # about a megabyte on the wire
    assert MAX_EXTRACTED_FILE_BYTES < (1 << 30)
    refetch_fails(dest, {ITEM.filename: bomb, fetch.CHECKSUMS: sums({ITEM.filename: bomb})},
                  r"README.md is 1073741824 bytes, over the .* limit per file")
    assert tree(dest / ITEM.dest) == before and not leftovers(dest)


def test_total_size_is_bounded(good_tree):
    dest, before = good_tree
    refetch_fails(dest, {ITEM.filename: good_archive(), fetch.CHECKSUMS: sums({ITEM.filename: good_archive()})},
                  "unpacks to more than 100000 bytes", max_total_bytes=100_000)
    assert tree(dest / ITEM.dest) == before


def test_zip_bomb_is_refused(tmp_path):
    item = fetch.manifest_by_name(["amd-mr-isa-xml"])[0]
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("isa.xml", b"<isa/>")
        with zf.open("zeros.xml", "w", force_zip64=True) as member:
            for _ in range(64):
                member.write(b"\0" * (1 << 20))
    bomb = buf.getvalue()
    m = Mirror({item.filename: bomb, fetch.CHECKSUMS: sums({item.filename: bomb})})
    try:
        with pytest.raises(fetch.FetchError, match=r"zeros\.xml is 67108864 bytes"):
            fetch.fetch_sources(tmp_path / "s", [item], mirror=m.url, backoff=0, required=[item.name],
                                max_file_bytes=1 << 20)
    finally:
        m.close()
    assert not (tmp_path / "s" / item.dest).exists()


@pytest.mark.parametrize("text", [
    b"this is not a checksum file\n",
    b"<html><body>404 Not Found</body></html>\n",
    b"deadbeef  amdgpu-isa-manuals.tar.gz\n",
    b"\n\n",
    ("0" * 64 + "  a\n" + "1" * 64 + "  a\n").encode(),
])
def test_unparseable_checksum_file_is_refused(good_tree, text):
    dest, before = good_tree
    refetch_fails(dest, {ITEM.filename: good_archive(), fetch.CHECKSUMS: text}, "SHA256SUMS")
    assert tree(dest / ITEM.dest) == before


def test_checksum_file_without_the_archive_is_refused(good_tree):
    dest, before = good_tree
    other = hashlib.sha256(b"x").hexdigest()
    refetch_fails(dest, {ITEM.filename: good_archive(), fetch.CHECKSUMS: f"{other}  other.tar.gz\n".encode()},
                  "does not list")
    assert tree(dest / ITEM.dest) == before


def test_a_swap_cut_between_its_renames_is_completed(good_tree):
    """Killed after moving the old tree aside and before moving the new one in: the next run puts it back."""
    dest, before = good_tree
    (dest / ITEM.dest).rename(dest / f".old-{ITEM.name}")
    fetch.recover(dest / ITEM.dest, dest / f".old-{ITEM.name}")
    assert tree(dest / ITEM.dest) == before and not leftovers(dest)

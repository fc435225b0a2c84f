"""Download the vendor sources gpuisa reads (the repository holds none of them).

Each source is one archive (or file) described by a FetchItem: where upstream publishes it, which
members to keep and under which folder of the sources root. Downloads resume with HTTP Range
after a dropped connection (and across runs: the `.part` file stays), are checked against a
SHA-256, and land atomically: archives are renamed into place only once verified, and extracted
folders replace the old ones by rename, so an interrupted fetch never leaves a half-written tree.

Before anything is replaced an archive is read in full: every member, the compressed stream to its
end (so gzip's CRC and xz's check are tested) and the tar's end-of-archive blocks; a damaged
archive whose checksum happens to match a careless SHA256SUMS is still refused. Extraction is
bounded per file and in total (gpuisa.limits), against archive bombs. A fetch interrupted between
the two renames of the swap (old tree aside, new tree in) is completed at the next run.

Checksums: upstream does not publish SHA-256 sums for these archives (GitHub's generated archives
and gpuopen's "latest" zip are not even stable), so the manifest cannot pin them offline. A
mirror (`--mirror URL`) serves the archives by file name next to a `SHA256SUMS` file
(`<hex>  <filename>` lines) and those sums are enforced. Without a mirror the computed sum is
recorded in `<dest>/.gpuisa-fetch.json` and shown (trust on first use).
"""

from __future__ import annotations

import hashlib
import json
import lzma
import os
import re
import shutil
import tarfile
import time
import zipfile
import zlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from gpuisa.atomic import write_text
from gpuisa.errors import GpuisaError
from gpuisa.limits import MAX_ARCHIVE_MEMBERS, MAX_EXTRACTED_FILE_BYTES, MAX_EXTRACTED_TOTAL_BYTES

if TYPE_CHECKING:
    import httpx

LLVM_TAG = "llvmorg-23.1.1"
AMD_MANUALS_COMMIT = "4ca6ba42c7d1e0ec0dcf2758399117be2b84dc04"   # amd-isa-manuals/SOURCE_COMMIT
PTX_94_COMMIT = "c95987baf69e78ad75d32d392c2d6560c76026ef"        # ptx-isa-9.4/SOURCE.txt
ISA_SPEC_COMMIT = "1c6fcc8072c7a94ceedb734cf06fd8a08487c4b3"      # amd-mr-isa-schema/SOURCE
STATE_FILE = ".gpuisa-fetch.json"
CHECKSUMS = "SHA256SUMS"


class FetchError(GpuisaError):
    """A source could not be downloaded, verified or unpacked; the message names which and why."""


class ChecksumError(FetchError):
    """A download did not match its checksum: always an error, even for an optional source."""


@dataclass(frozen=True, slots=True)
class FetchItem:
    """One upstream source: an archive and the part of it gpuisa keeps."""

    name: str                                  # short key: "llvm", "amd-manuals", ...
    filename: str                              # archive name, also its name on a mirror
    url: str                                   # upstream URL; "" when only a mirror can serve it
    dest: str                                  # folder under the sources root
    kind: str = "tar"                          # "tar" (any compression), "zip" or "file"
    strip: int = 1                             # leading path components dropped from members
    include: tuple[str, ...] = ()              # member prefixes kept (after strip); () keeps all
    rename: tuple[tuple[str, str], ...] = ()   # (prefix, replacement) applied after strip
    sha256: str = ""                           # pinned checksum; "" -> the mirror's SHA256SUMS
    optional: bool = False                     # a failure is a warning, not an error
    extra: tuple[tuple[str, str], ...] = ()    # (file, text) written into dest, e.g. SOURCE_COMMIT
    note: str = ""


_PTX_DOCS = "cuda_skill/references/ptx-docs/"

MANIFEST: tuple[FetchItem, ...] = (
    FetchItem(
        "llvm", f"llvm-project-{LLVM_TAG.removeprefix('llvmorg-')}.src.tar.xz",
        f"https://github.com/llvm/llvm-project/releases/download/{LLVM_TAG}/"
        f"llvm-project-{LLVM_TAG.removeprefix('llvmorg-')}.src.tar.xz",
        "llvm-project-23.1.1",
        include=("llvm/test/MC/AMDGPU/", "llvm/test/MC/Disassembler/AMDGPU/", "llvm/docs/AMDGPU",
                 "llvm/lib/Target/AMDGPU/"),
        note="LLVM release source; only the AMDGPU MC tests, docs and TableGen files are kept",
    ),
    FetchItem(
        "amd-manuals", f"amdgpu-isa-manuals-{AMD_MANUALS_COMMIT}.tar.gz",
        f"https://github.com/kuhar/amdgpu-isa-manuals/archive/{AMD_MANUALS_COMMIT}.tar.gz",
        "amd-isa-manuals", extra=(("SOURCE_COMMIT", AMD_MANUALS_COMMIT + "\n"),),
        note="AMD ISA manuals converted to Markdown",
    ),
    FetchItem(
        "amd-mr-isa-schema", f"isa_spec_manager-{ISA_SPEC_COMMIT}.tar.gz",
        f"https://github.com/GPUOpen-Tools/isa_spec_manager/archive/{ISA_SPEC_COMMIT}.tar.gz",
        "amd-mr-isa-schema",
        include=("LICENSE", "NOTICES.txt", "README.md", "RELEASE_NOTES.md", "documentation/"),
        extra=(("SOURCE", f"github:GPUOpen-Tools/isa_spec_manager@{ISA_SPEC_COMMIT}\n"),),
        note="documentation of AMD's machine-readable ISA XML",
    ),
    FetchItem(
        "amd-mr-isa-xml", "machine-readable-isa.zip",
        "https://gpuopen.com/download/machine-readable-isa/latest/", "amd-mr-isa-xml",
        kind="zip", strip=0, optional=True,
        note="AMD machine-readable ISA XML; a moving 'latest' archive, so its checksum cannot be pinned",
    ),
    FetchItem(
        "ptx-9.4", f"ptx-isa-markdown-{PTX_94_COMMIT}.tar.gz",
        f"https://github.com/MonaHuo/ptx-isa-markdown/archive/{PTX_94_COMMIT}.tar.gz",
        "ptx-isa-9.4",
        include=("README.md", f"{_PTX_DOCS}INDEX.md", f"{_PTX_DOCS}9-instruction-set/",
                 f"{_PTX_DOCS}13-release-notes/"),
        rename=(("README.md", "README-upstream.md"), (_PTX_DOCS, "")),
        extra=(("SOURCE.txt", f"Source: GitHub repository MonaHuo/ptx-isa-markdown\nCommit: {PTX_94_COMMIT}\n"),),
        note="NVIDIA PTX ISA 9.4 documentation converted to Markdown",
    ),
    FetchItem(
        "ptx-9.1", "ptx-isa-9.1.tar.gz", "", "ptx-isa-9.1", optional=True,
        note="PTX ISA 9.1 Markdown conversion; no public upstream recorded, served by a mirror only",
    ),
)


def manifest_by_name(names: Iterable[str] | None = None) -> list[FetchItem]:
    """Manifest entries, all or the named ones (unknown names are an error listing the known ones)."""
    if not names:
        return list(MANIFEST)
    known = {item.name: item for item in MANIFEST}
    wanted = list(names)
    missing = [n for n in wanted if n not in known]
    if missing:
        raise FetchError(f"unknown source {missing[0]!r}; known: {', '.join(known)}")
    return [known[n] for n in wanted]


# --------------------------------------------------------------------------------------------
# downloading

Progress = Callable[[str, int, int | None], None]      # (item name, bytes so far, total or None)


@dataclass(slots=True)
class FetchResult:
    """What happened to one item."""

    name: str
    status: str                  # "fetched", "skipped", "failed"
    dest: str = ""
    sha256: str = ""
    verified: bool = False       # checked against a pinned or mirror checksum
    message: str = ""
    attempts: int = 0


@dataclass(slots=True)
class Fetcher:
    """Downloads manifest items into a sources root, from upstream or a mirror."""

    dest: Path
    mirror: str = ""
    retries: int = 5
    timeout: float = 60.0
    progress: Progress | None = None
    keep_archives: bool = False
    backoff: float = 0.5
    max_file_bytes: int = MAX_EXTRACTED_FILE_BYTES
    max_total_bytes: int = MAX_EXTRACTED_TOTAL_BYTES
    _sums: dict[str, str] | None = field(default=None, repr=False)

    # -- checksums -----------------------------------------------------------------------------
    def mirror_sums(self, client: httpx.Client) -> dict[str, str]:
        """The mirror's SHA256SUMS as {filename: hex}; {} without a mirror or file."""
        if self._sums is None:
            sums: dict[str, str] = {}
            if self.mirror:
                url = self.mirror.rstrip("/") + "/" + CHECKSUMS
                resp = client.get(url)
                if resp.status_code == 200:
                    sums = parse_sums(resp.text, url)   # raises for every item while the file is unreadable
            self._sums = sums
        return self._sums

    def source_url(self, item: FetchItem) -> str:
        return self.mirror.rstrip("/") + "/" + item.filename if self.mirror else item.url

    # -- one item ------------------------------------------------------------------------------
    def fetch(self, item: FetchItem, client: httpx.Client) -> FetchResult:
        url = self.source_url(item)
        if not url:
            return FetchResult(item.name, "skipped", message="no public upstream; fetch it with --mirror")
        sums = self.mirror_sums(client)
        expected = item.sha256 or sums.get(item.filename, "")
        if item.sha256 and self.mirror and self.mirror_sums(client).get(item.filename, item.sha256) != item.sha256:
            raise FetchError(f"{item.name}: the mirror's checksum differs from the pinned one")
        downloads = self.dest / ".downloads"
        downloads.mkdir(parents=True, exist_ok=True)
        archive = downloads / item.filename
        attempts = 0
        if not (archive.exists() and expected and sha256_file(archive) == expected):
            attempts = self.download(item.name, url, archive, expected, client)
        digest = sha256_file(archive)
        if sums and not expected:   # the mirror publishes sums, but not for this file: refuse, do not trust it
            archive.unlink(missing_ok=True)
            raise ChecksumError(f"{item.name}: the mirror's {CHECKSUMS} does not list {item.filename}")
        self.unpack(item, archive)
        state = {"item": asdict(item), "url": url, "sha256": digest, "verified": bool(expected),
                 "fetched": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        write_text(self.dest / item.dest / STATE_FILE, json.dumps(state, indent=2) + "\n")
        if not self.keep_archives:
            archive.unlink(missing_ok=True)
        return FetchResult(item.name, "fetched", str(self.dest / item.dest), digest, bool(expected),
                           "" if expected else "no published checksum: recorded for later runs", attempts)

    def download(self, name: str, url: str, target: Path, expected: str, client: httpx.Client) -> int:
        """Fetch `url` into `target` via `target.part`, resuming with Range; returns attempts used."""
        import httpx

        part = target.with_name(target.name + ".part")
        last_error = ""
        for attempt in range(1, self.retries + 1):
            try:
                if self._get_into(name, url, part, client):
                    break
                last_error = "connection closed before the end of the file"
            except httpx.HTTPError as exc:
                last_error = f"{type(exc).__name__}: {exc}"
            if attempt < self.retries:
                time.sleep(self.backoff * attempt)
        else:
            raise FetchError(f"{name}: download from {url} failed after {self.retries} attempts "
                             f"({last_error}); run the command again to resume")
        digest = sha256_file(part)
        if expected and digest != expected:
            part.unlink(missing_ok=True)
            raise ChecksumError(f"{name}: checksum mismatch for {url}: expected {expected}, got {digest}; "
                             "the download was removed")
        os.replace(part, target)
        return attempt

    def _get_into(self, name: str, url: str, part: Path, client: httpx.Client) -> bool:
        """One GET (ranged if `part` has bytes); True when the body arrived complete."""
        offset = part.stat().st_size if part.exists() else 0
        headers = {"Accept-Encoding": "identity"}           # Range offsets count raw bytes
        if offset:
            headers["Range"] = f"bytes={offset}-"
        with client.stream("GET", url, headers=headers) as resp:
            if resp.status_code == 416 and offset:          # nothing left to send: part is whole
                return True
            if resp.status_code not in (200, 206):
                raise FetchError(f"{name}: {url} answered HTTP {resp.status_code}")
            if resp.status_code == 200:
                offset = 0                                   # server ignored Range: start over
            length = resp.headers.get("content-length")
            total = offset + int(length) if length is not None else None
            done = offset
            with open(part, "ab" if offset else "wb") as out:
                for chunk in resp.iter_raw():                # as it arrives: a drop keeps what came
                    out.write(chunk)
                    done += len(chunk)
                    if self.progress:
                        self.progress(name, done, total)
            return total is None or done >= total

    # -- unpacking -----------------------------------------------------------------------------
    def unpack(self, item: FetchItem, archive: Path) -> None:
        """Read the whole archive into a temporary folder (bounded), then swap it in by rename."""
        final = self.dest / item.dest
        tmp = self.dest / f".tmp-{item.name}"
        old = self.dest / f".old-{item.name}"
        recover(final, old)
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        budget = Budget(item.name, archive.name, self.max_file_bytes, self.max_total_bytes)
        try:
            if item.kind == "file":
                budget.add(archive.name, archive.stat().st_size)
                shutil.copyfile(archive, tmp / item.filename)
            elif item.kind == "zip":
                _extract_zip(item, archive, tmp, budget)
            else:
                _extract_tar(item, archive, tmp, budget)
            for rel, text in item.extra:
                (tmp / rel).write_text(text, encoding="utf-8")
        except FetchError:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        except (tarfile.TarError, zipfile.BadZipFile, EOFError, OSError, zlib.error, lzma.LZMAError) as exc:
            shutil.rmtree(tmp, ignore_errors=True)
            raise FetchError(f"{item.name}: {archive.name} is damaged ({exc or type(exc).__name__}); "
                             "nothing was replaced") from exc
        shutil.rmtree(old, ignore_errors=True)
        if final.exists():
            os.replace(final, old)
        os.replace(tmp, final)
        shutil.rmtree(old, ignore_errors=True)


def recover(final: Path, old: Path) -> None:
    """Finish a swap that an earlier run left half done: the old tree aside and no new one in place."""
    if old.is_dir() and not final.exists():
        os.replace(old, final)


@dataclass(slots=True)
class Budget:
    """Bounds on what one archive may extract: per file and in total (archive bombs), and members."""

    item: str
    archive: str
    max_file: int
    max_total: int
    total: int = 0
    members: int = 0

    def add(self, name: str, size: int) -> None:
        self.members += 1
        if self.members > MAX_ARCHIVE_MEMBERS:
            raise FetchError(f"{self.item}: {self.archive} has more than {MAX_ARCHIVE_MEMBERS} members; refused")
        if size > self.max_file:
            raise FetchError(f"{self.item}: {self.archive}: member {name} is {size} bytes, over the "
                             f"{self.max_file}-byte limit per file; refused, nothing was replaced")
        self.total += size
        if self.total > self.max_total:
            raise FetchError(f"{self.item}: {self.archive} unpacks to more than {self.max_total} bytes; "
                             "refused, nothing was replaced")


def member_path(item: FetchItem, name: str) -> str | None:
    """Where archive member `name` goes inside item.dest, or None if it is not kept."""
    parts = [p for p in name.replace("\\", "/").split("/") if p not in ("", ".")]
    if len(parts) <= item.strip or ".." in parts:
        return None
    rel = "/".join(parts[item.strip:])
    if item.include and not any(rel == inc.rstrip("/") or rel.startswith(inc) for inc in item.include):
        return None
    for prefix, repl in item.rename:
        if rel == prefix or (prefix.endswith("/") and rel.startswith(prefix)):
            rel = repl + rel[len(prefix):]
            break
    return rel or None


def _extract_tar(item: FetchItem, archive: Path, tmp: Path, budget: Budget) -> None:
    """Extract the kept members while reading every member, then check the archive really ended.

    tarfile stops quietly at the first header it cannot read after the first member (a damaged
    archive looks like a short one), and gzip checks its CRC only at the end of the stream: so the
    rest of the stream after the last member is read too and must be the end-of-archive zero blocks.
    """
    with tarfile.open(archive, "r:*") as tar:
        kept = 0
        for member in tar:
            rel = member_path(item, member.name)
            if rel is None or not (member.isfile() or member.isdir()):
                continue
            if member.isfile():
                budget.add(rel, member.size)
            member.name = rel
            tar.extract(member, tmp, filter="data")
            kept += 1
        _check_tar_end(item, archive, tar)
        if not kept:
            raise FetchError(f"{item.name}: {archive.name} holds none of {', '.join(item.include) or 'its files'}")


def _check_tar_end(item: FetchItem, archive: Path, tar: tarfile.TarFile) -> None:
    stream = tar.fileobj
    assert stream is not None
    stream.seek(tar.offset)
    while chunk := stream.read(1 << 20):
        if chunk.count(0) != len(chunk):
            raise FetchError(f"{item.name}: {archive.name} is damaged: unreadable data after the member at byte "
                             f"{tar.offset} of the unpacked stream; nothing was replaced")


def _extract_zip(item: FetchItem, archive: Path, tmp: Path, budget: Budget) -> None:
    """Every member is read (zipfile checks each CRC); declared sizes are bounded before reading."""
    with zipfile.ZipFile(archive) as zf:
        kept = 0
        for info in zf.infolist():
            rel = member_path(item, info.filename)
            if info.is_dir():
                continue
            budget.add(info.filename, info.file_size)
            with zf.open(info) as src:
                if rel is None:
                    while src.read(1 << 20):
                        pass
                    continue
                target = tmp / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                with open(target, "wb") as out:
                    shutil.copyfileobj(src, out)
            kept += 1
        if not kept:
            raise FetchError(f"{item.name}: {archive.name} holds no files to keep")


# --------------------------------------------------------------------------------------------
# helpers


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


_SUM_LINE = re.compile(r"([0-9a-fA-F]{64}) [ *]?(\S.*)")


def parse_sums(text: str, where: str = CHECKSUMS) -> dict[str, str]:
    """`sha256sum` output (`<hex>  <name>` or `<hex> *<name>`) as {name: hex}.

    Blank lines and `#` comments are allowed; any other line that is not a checksum line makes the
    whole file refused (a mirror whose sums cannot be read must not pass as a mirror without sums).
    """
    out: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        match = _SUM_LINE.fullmatch(stripped)
        if match is None:
            raise ChecksumError(f"{where} line {number} is not `<sha256>  <file>`: {stripped[:80]!r}")
        name = match.group(2).strip()
        if out.get(name, match.group(1).lower()) != match.group(1).lower():
            raise ChecksumError(f"{where} line {number} gives a second, different checksum for {name}")
        out[name] = match.group(1).lower()
    if not out:
        raise ChecksumError(f"{where} lists no checksums")
    return out




def fetch_sources(dest: Path, items: Sequence[FetchItem] | None = None, *, mirror: str = "",
                  progress: Progress | None = None, retries: int = 5, timeout: float = 60.0,
                  keep_archives: bool = False, backoff: float = 0.5,
                  required: Iterable[str] = (), max_file_bytes: int = MAX_EXTRACTED_FILE_BYTES,
                  max_total_bytes: int = MAX_EXTRACTED_TOTAL_BYTES) -> list[FetchResult]:
    """Fetch every item (default: the whole MANIFEST) into `dest`.

    An optional item that cannot be fetched becomes a "failed" result, unless it is named in
    `required` or its checksum did not match; any other failure lets the remaining items be tried
    and then raises one FetchError naming every failure.
    """
    import httpx

    fetcher = Fetcher(Path(dest), mirror, retries, timeout, progress, keep_archives, backoff,
                      max_file_bytes, max_total_bytes)
    must = set(required)
    results: list[FetchResult] = []
    errors: list[str] = []
    with httpx.Client(follow_redirects=True, timeout=timeout) as client:
        for item in items if items is not None else MANIFEST:
            try:
                results.append(fetcher.fetch(item, client))
            except (FetchError, httpx.HTTPError, OSError) as exc:
                message = str(exc) if isinstance(exc, FetchError) else f"{item.name}: {exc}"
                results.append(FetchResult(item.name, "failed", message=message))
                if not item.optional or item.name in must or isinstance(exc, ChecksumError):
                    errors.append(message)
    if errors:
        raise FetchError("; ".join(errors))
    return results

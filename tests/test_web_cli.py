"""`gpuisa serve` and `gpuisa site`: registered, build a missing catalog first, write the export."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.browser.webfixtures import build_fixture_catalog, write_fixture_sources


@pytest.fixture(scope="module")
def fixture_catalog(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_fixture_catalog(tmp_path_factory.mktemp("cli"))


def test_commands_are_registered():
    from gpuisa.cli import app

    result = CliRunner().invoke(app, ["--help"])
    assert result.exit_code == 0
    assert "serve" in result.output and "site" in result.output


def test_serve_builds_a_missing_catalog_then_serves(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    import uvicorn

    from gpuisa.cli import app
    from gpuisa.commands import web
    from gpuisa.web.app import CachedApp

    calls: list[uvicorn.Config] = []
    background: list[tuple] = []

    class Server:   # records what `gpuisa serve` would run instead of listening
        def __init__(self, config: uvicorn.Config) -> None:
            calls.append(config)

        def run(self) -> None:
            pass

    monkeypatch.setattr(uvicorn, "Server", Server)
    monkeypatch.setattr(web, "_verify_in_background", lambda *a: background.append(a))
    sources = write_fixture_sources(tmp_path / "sources")
    catalog = tmp_path / "new" / "catalog.sqlite"
    result = CliRunner().invoke(app, ["serve", "--catalog", str(catalog), "--sources", str(sources), "--port", "8123"])
    assert result.exit_code == 0, result.output
    assert catalog.is_file()
    (config,) = calls
    served = config.app
    assert isinstance(served, web.SwappableApp) and isinstance(served.current, CachedApp)
    assert config.port == 8123 and config.host == "127.0.0.1" and config.access_log is False
    # served at once from the unverified catalog, which says verification is pending; verified in the background
    assert {t: s["state"] for t, s in web.verification_state(catalog).items()} == {
        "llvm-mc": "pending", "ptxas": "pending", "rosetta": "pending"}   # the slow stages, all in the background
    (path, _, app_, _, _), = background
    assert path == catalog and app_ is served


@pytest.mark.parametrize("verified_rc", [0, 1])
def test_background_passes_verify_then_compute_the_rosetta(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           verified_rc: int):
    """First the verified catalog (its Rosetta cells say a background pass computes them), swapped in; then, when
    cells are missing, `build --rosetta all` at low priority, swapped in again. A failed verification stops there."""
    import gpuisa.web.app
    from gpuisa.commands import web

    runs: list[tuple[list[str], int]] = []

    def background_build(args: list[str], log: Path, nice: int = 0) -> int:
        runs.append((args, nice))
        return verified_rc if len(runs) == 1 else 0

    monkeypatch.setattr(web, "_background_build", background_build)
    monkeypatch.setattr(web, "_rosetta_pending", lambda path: True)
    monkeypatch.setattr(gpuisa.web.app, "create_app", lambda path, **kw: f"app {len(runs)}")
    served = web.SwappableApp("first")
    catalog = tmp_path / "catalog.sqlite"
    web._verify_in_background(catalog, tmp_path / "sources", served, 16).join(timeout=60)
    common = ["--sources", str(tmp_path / "sources"), "--catalog", str(catalog)]
    if verified_rc:
        assert runs == [(["--verify", *common, "--rosetta-running"], 0)] and served.current == "first"
        return
    assert runs == [(["--verify", *common, "--rosetta-running"], 0), (["--verify", *common, "--rosetta", "all"], 10)]
    assert served.current == "app 2"


def test_serve_no_verify_starts_no_background_work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    import uvicorn

    from gpuisa.cli import app
    from gpuisa.commands import web

    background: list[tuple] = []
    monkeypatch.setattr(uvicorn.Server, "run", lambda self: None)
    monkeypatch.setattr(web, "_verify_in_background", lambda *a: background.append(a))
    sources = write_fixture_sources(tmp_path / "sources")
    catalog = tmp_path / "catalog.sqlite"
    result = CliRunner().invoke(app, ["serve", "--no-verify", "--catalog", str(catalog), "--sources", str(sources)])
    assert result.exit_code == 0, result.output
    assert not background and web.verification_state(catalog)["ptxas"]["state"] == "not run"


def test_swap_answers_each_request_from_one_app():
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    from gpuisa.commands.web import SwappableApp

    def run(coro) -> None:
        """asyncio.run on a thread of its own: the browser tests leave a running loop on the main thread."""
        with ThreadPoolExecutor(1) as pool:
            pool.submit(asyncio.run, coro).result()

    seen: list[str] = []

    def app(tag: str):
        async def call(scope, receive, send):
            seen.append(tag)
        return call

    served = SwappableApp(app("unverified"))
    run(served({"type": "http"}, None, None))
    served.swap(app("verified"))
    run(served({"type": "http"}, None, None))
    assert seen == ["unverified", "verified"]


def test_serve_reports_missing_sources(tmp_path: Path):
    from gpuisa.cli import app
    from gpuisa.errors import SourceError

    result = CliRunner().invoke(app, ["serve", "--catalog", str(tmp_path / "c.sqlite"), "--sources",
                                      str(tmp_path / "nowhere")])
    assert result.exit_code != 0
    assert isinstance(result.exception, SourceError)


def test_site_writes_every_page(fixture_catalog: Path, tmp_path: Path):
    from gpuisa.cli import app

    out = tmp_path / "export"
    result = CliRunner().invoke(app, ["site", "--out", str(out), "--catalog", str(fixture_catalog), "--jobs", "2"])
    assert result.exit_code == 0, result.output
    for rel in ("index.html", "search.html", "404.html", "diff/index.html", "arch/rdna3.5.html", "diff/vega/cdna5.html",
                "amd/v_plain_u32.html", "amd/rdna3.5/v_plain_u32.html", "static/style.css", "static/app.js",
                "static/search-index.js"):
        assert (out / rel).is_file(), rel
    page = (out / "amd" / "rdna3.5" / "v_plain_u32.html").read_text(encoding="utf-8")
    assert 'href="../../static/style.css"' in page
    assert 'href="../../amd/vega/v_plain_u32.html"' in page


PARENT = r"""
import subprocess, sys, threading
from gpuisa.workers import terminate_with_parent
def run():   # as serve starts its background build: from a thread, with terminate_with_parent
    subprocess.run([sys.executable, "-c", "import time; print('child up', flush=True); time.sleep(120)"],
                   preexec_fn=terminate_with_parent)
threading.Thread(target=run, daemon=True).start()
threading.Event().wait()
"""


def test_serves_background_build_ends_when_serve_is_killed():
    """serve's background build is started with terminate_with_parent: killed serve, no build left running."""
    import inspect
    import os
    import signal
    import subprocess
    import sys
    import time

    from gpuisa.commands import web

    started = inspect.getsource(web._background_build)
    assert "preexec_fn=start" in started and "terminate_with_parent()" in started
    parent = subprocess.Popen([sys.executable, "-c", PARENT], stdout=subprocess.PIPE, text=True, start_new_session=True)
    assert parent.stdout is not None and parent.stdout.readline().strip() == "child up"
    children = subprocess.run(["pgrep", "-P", str(parent.pid)], capture_output=True, text=True).stdout.split()
    assert len(children) == 1
    os.kill(parent.pid, signal.SIGKILL)
    parent.wait(timeout=30)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and subprocess.run(["kill", "-0", children[0]], capture_output=True).returncode == 0:
        time.sleep(0.1)
    alive = subprocess.run(["kill", "-0", children[0]], capture_output=True).returncode == 0
    if alive:
        os.killpg(parent.pid, signal.SIGKILL)
    assert not alive, "the child ran on after its parent was killed"


@pytest.mark.parametrize(("rosetta", "resumed"), [("partial", False), ("pending", True), ("complete", False)])
def test_serve_resumes_only_its_own_rosetta_pass(fixture_catalog: Path, monkeypatch: pytest.MonkeyPatch,
                                                 rosetta: str, resumed: bool):
    """A plain build's catalog says how to compute the missing cells: serve starts no discovery for it. A catalog
    left by a serve stopped during its discovery pass says the pass is running: the next serve resumes it."""
    import uvicorn

    from gpuisa.cli import app
    from gpuisa.commands import web

    background: list[tuple] = []
    monkeypatch.setattr(uvicorn.Server, "run", lambda self: None)
    monkeypatch.setattr(web, "_verify_in_background", lambda *a, **kw: background.append(kw))
    monkeypatch.setattr(web, "verification_state", lambda path: {"llvm-mc": {"state": "verified"},
                                                                 "rosetta": {"state": rosetta}})
    result = CliRunner().invoke(app, ["serve", "--catalog", str(fixture_catalog)])
    assert result.exit_code == 0, result.output
    assert background == ([{"verify": False}] if resumed else [])

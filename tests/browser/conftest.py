"""Browser fixtures: Debian's chromium driven by Playwright, a live server per catalog, screenshots.

Skips (with the reason) when /usr/bin/chromium or the playwright package is missing; never
downloads a browser. Screenshots go to artifacts/screenshots/ in the repository root.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.browser.webfixtures import build_fixture_catalog, live_server

REPO = Path(__file__).resolve().parents[2]
SHOTS = REPO / "artifacts" / "screenshots"
CHROMIUM = Path(os.environ.get("GPUISA_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "browser: drives a real browser (chromium via Playwright)")


def pytest_terminal_summary(terminalreporter) -> None:
    if SHOTS.is_dir() and any(SHOTS.glob("*.png")):
        terminalreporter.write_line(f"browser screenshots: {SHOTS}")


@pytest.fixture(scope="session")
def browser():
    if not CHROMIUM.is_file():
        pytest.skip(f"chromium not found at {CHROMIUM} (apt-get install -y chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("playwright for Python is not installed (pip install playwright; no `playwright install`)")
    SHOTS.mkdir(parents=True, exist_ok=True)
    pw = sync_playwright().start()
    try:
        b = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
    except Exception as exc:  # a broken chromium install: skip rather than error every test
        pw.stop()
        pytest.skip(f"chromium at {CHROMIUM} did not start: {exc}")
    yield b
    b.close()
    pw.stop()


class Page:
    """A browser page that records dialogs and script errors, with a screenshot helper."""

    def __init__(self, page) -> None:
        self.page = page
        self.dialogs: list[str] = []
        self.errors: list[str] = []
        page.on("dialog", self._dialog)
        page.on("pageerror", lambda e: self.errors.append(str(e)))

    def _dialog(self, dialog) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def shot(self, name: str, full_page: bool = True) -> Path:
        path = SHOTS / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=full_page)
        return path


@pytest.fixture
def page(browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    p = Page(context.new_page())
    p.page.set_default_timeout(10_000)
    yield p
    context.close()
    assert not p.errors, f"script errors on the page: {p.errors}"


@pytest.fixture(scope="session")
def server(browser, catalog_path: Path) -> Iterator[str]:
    with live_server(catalog_path) as url:
        yield url


@pytest.fixture(scope="session")
def hostile_catalog(browser, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_fixture_catalog(tmp_path_factory.mktemp("hostile-browser"))


@pytest.fixture(scope="session")
def hostile_server(hostile_catalog: Path) -> Iterator[str]:
    with live_server(hostile_catalog) as url:
        yield url


@pytest.fixture(scope="session")
def hostile_export(hostile_catalog: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    from gpuisa.web.export import export_site

    out = tmp_path_factory.mktemp("hostile-site")
    export_site(hostile_catalog, out, jobs=1)
    return out

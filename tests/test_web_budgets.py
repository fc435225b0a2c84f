"""The web app under hostile clients: budgets (400/503), cache keys, redirects, a rebuilt catalog."""

from __future__ import annotations

import asyncio
import os
import shutil
import time
from pathlib import Path

import pytest

from gpuisa.limits import MAX_QUERY_TERMS
from tests.loop_thread import loop  # the browser tests keep a loop running on the main thread

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx`")


@pytest.fixture(scope="module")
def app(catalog_path: Path):
    from gpuisa.web.app import create_app

    return create_app(catalog_path)


@pytest.fixture(scope="module")
def client(app):
    from fastapi.testclient import TestClient

    with TestClient(app, follow_redirects=False) as c:
        yield c


def test_too_many_search_words_is_a_400_before_any_work(client):
    words = "+".join(["a"] * (MAX_QUERY_TERMS + 1))
    for url in (f"/api/search?q={words}", f"/search?q={words}"):
        r = client.get(url)
        assert r.status_code == 400 and f"at most {MAX_QUERY_TERMS}" in r.text


def test_unknown_parameters_do_not_bypass_the_cache(app, client):
    first = client.get("/api/search?q=sad&limit=3&junk=1")
    misses = app.misses
    for i in range(20):
        again = client.get(f"/api/search?junk={i}&limit=3&q=sad&other={i}")
        assert again.content == first.content
    assert app.misses == misses


def test_trailing_slash_redirect_ignores_the_host_header(client):
    r = client.get("/amd/v_sad_u32/", headers={"host": "evil.example"})
    assert r.status_code == 308 and r.headers["location"] == "/amd/v_sad_u32"
    r = client.get("http://testserver//evil.example/")
    assert r.headers["location"] == "/evil.example"          # never scheme-relative (//evil.example)


def test_redirects_use_the_configured_origin(catalog_path: Path):
    from fastapi.testclient import TestClient

    from gpuisa.web.app import create_app

    with TestClient(create_app(catalog_path, origin="https://isa.example.org"), follow_redirects=False) as c:
        slash = c.get("/arch/rdna3/", headers={"host": "evil.example"})
        assert slash.headers["location"] == "https://isa.example.org/arch/rdna3"
        canonical = c.get("/amd/V_SAD_U32_e64", headers={"host": "evil.example"})
        assert canonical.status_code == 301 and canonical.headers["location"].startswith("https://isa.example.org/amd/")


def test_a_full_pool_answers_503_with_retry_after(catalog_path: Path):
    """One worker, no queue: while it is busy, the next uncached request is refused at once."""
    from gpuisa.errors import BudgetError
    from gpuisa.web.app import WorkerPool

    pool = WorkerPool(workers=1, queue=0, seconds=5.0)

    async def scenario() -> tuple[object, BaseException | None]:
        slow = asyncio.ensure_future(pool.run(time.sleep, 0.5))
        await asyncio.sleep(0.05)
        try:
            await pool.run(lambda: "second")
        except BudgetError as exc:
            refused = exc
        else:
            refused = None
        return await slow, refused

    _, refused = loop().run(scenario())
    assert isinstance(refused, BudgetError) and refused.busy and "busy" in str(refused)
    pool.close()


def test_a_slow_request_gets_503_within_its_budget():
    from gpuisa.errors import BudgetError
    from gpuisa.web.app import WorkerPool

    pool = WorkerPool(workers=1, queue=1, seconds=0.2)
    start = time.monotonic()
    with pytest.raises(BudgetError, match="budget"):
        loop().run(pool.run(time.sleep, 2.0))
    assert time.monotonic() - start < 1.5
    pool.close()


def test_busy_budget_errors_are_503_on_the_wire(catalog_path: Path):
    """A full pool (every worker and queue place taken) answers 503 with Retry-After, not cached; cached pages still 200."""
    from fastapi.testclient import TestClient

    from gpuisa.web.app import create_app

    app = create_app(catalog_path, workers=1, queue=0)
    pool = app.app.state.pool
    with TestClient(app) as c:
        assert c.get("/amd/rdna3/v_sad_u32").status_code == 200          # now cached
        pool.inflight = pool.limit                                         # as if every worker were busy
        busy = c.get("/api/search?q=carry")
        page = c.get("/search?q=carry")
        cached = c.get("/amd/rdna3/v_sad_u32")
        pool.inflight = 0
        again = c.get("/api/search?q=carry")
    assert busy.status_code == 503 and busy.headers["retry-after"] and "busy" in busy.json()["error"]
    assert page.status_code == 503 and "busy" in page.text
    assert cached.status_code == 200 and again.status_code == 200


def test_a_rebuilt_catalog_is_reopened(catalog_path: Path, tmp_path: Path):
    """`gpuisa build` renames a new file over the old: the running app notices and serves the new one."""
    import sqlite3

    from fastapi.testclient import TestClient

    from gpuisa.web.app import ServedCatalog, create_app

    served_path = tmp_path / "catalog.sqlite"
    shutil.copy(catalog_path, served_path)
    app = create_app(served_path)
    with TestClient(app) as c:
        assert c.get("/api/archs").status_code == 200
        new = tmp_path / "new.sqlite"
        shutil.copy(catalog_path, new)
        with sqlite3.connect(new) as conn:
            conn.execute("UPDATE archs SET display='Rebuilt RDNA 3' WHERE key='rdna3'")
        os.replace(new, served_path)
        time.sleep(ServedCatalog.CHECK_EVERY + 0.1)
        archs = {a["key"]: a["display"] for a in c.get("/api/archs").json()}
        assert archs["rdna3"] == "Rebuilt RDNA 3"
        os.remove(served_path)                      # removed, not replaced: keep serving what is open
        time.sleep(ServedCatalog.CHECK_EVERY + 0.1)
        assert c.get("/amd/rdna3/v_sad_u32").status_code == 200

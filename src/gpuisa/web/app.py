"""The HTTP app: HTML pages and the JSON API over one catalog opened read-only.

Every GET response (pages, API answers, error pages) is cached in memory in a bounded LRU keyed
by path and the query parameters the routes know (unknown parameters cannot bypass it); a repeated
request is answered on the event loop without routing or rendering. Everything else (catalog
queries, rendering) runs in a small pool of worker threads, each with its own read-only SQLite
connection, under a per-request time budget: the event loop never runs a search, so one client's
expensive request cannot stall the cached pages of others. Over budget a request gets a 400 (too
large: gpuisa.limits) or a 503 with Retry-After (too slow, or too many waiting).

A rebuild replaces the catalog file (atomic rename): the app notices the new file (inode, size or
mtime) within a second, reopens it in every thread and empties the response cache.

Redirects name the app's configured origin (or are relative), never the request's Host header.
Path parameters never reach the filesystem: static assets are read into memory at start and
served from a fixed table.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import sqlite3
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import parse_qsl

from fastapi import FastAPI, Query, Request
from fastapi import Path as PathParam
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.gzip import GZipMiddleware
from fastapi.openapi.utils import get_openapi
from fastapi.responses import HTMLResponse, Response
from fastapi.routing import APIRoute
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException

from gpuisa import __version__
from gpuisa.archs import ARCHS, BY_KEY, TARGET_TO_ARCH, resolve_arch
from gpuisa.catalog.documents import AmdDocument, ArchDiff, InstructionDiff, OperandPageDocument, PtxDocument, SearchHit
from gpuisa.catalog.query import Catalog
from gpuisa.codec.api import decode, parse_hex
from gpuisa.errors import BudgetError, CatalogError, GpuisaError, NotFoundError
from gpuisa.limits import (
    MAX_NAME_CHARS,
    MAX_QUERY_CHARS,
    WEB_DECODE_DIAGRAMS,
    WEB_DECODE_MAX_HEX,
    WEB_QUEUE,
    WEB_REQUEST_SECONDS,
    WEB_WORKERS,
)
from gpuisa.web.decode_box import DecoderTables
from gpuisa.web.site import SAFE_SEGMENT, STATIC, Links, Site

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict]]
Send = Callable[[dict], Awaitable[None]]

SECURITY_HEADERS = [
    (b"content-security-policy", b"default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                                 b"object-src 'none'; base-uri 'none'; frame-ancestors 'none'"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"x-frame-options", b"DENY"),
]
_CACHEABLE = {200, 301, 308, 400, 404}
_MEDIA = {".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".png": "image/png"}
# Swagger UI's own files, from the fastapi-offline package (no CDN): /docs works offline.
DOCS_ASSETS = Path(importlib.util.find_spec("fastapi_offline").origin).parent / "static"  # type: ignore[arg-type,union-attr]
NAME_PATTERN = SAFE_SEGMENT.pattern
MAX_QUERY = MAX_QUERY_CHARS
RETRY_AFTER = "2"

# Module level: FastAPI resolves these annotations by name (the module uses postponed annotations).
Name = Annotated[str, PathParam(pattern=NAME_PATTERN, max_length=MAX_NAME_CHARS, description="Instruction, any spelling")]
ArchPath = Annotated[str, PathParam(pattern=NAME_PATTERN, max_length=32, description="Architecture or gfx target")]
# The schema lists the canonical spellings; the server also takes any case, `rdna-3.5` etc. (archs.resolve_arch).
ARCH_NAMES = ["", *(a.key for a in ARCHS), *sorted(TARGET_TO_ARCH)]
ArchQuery = Annotated[str | None, Query(max_length=32, description="Architecture or gfx target",
                                        json_schema_extra={"enum": ARCH_NAMES})]
OptName = Annotated[str | None, Query(max_length=MAX_NAME_CHARS, pattern=NAME_PATTERN, description="One instruction")]
SearchText = Annotated[str, Query(min_length=1, max_length=MAX_QUERY, description="Name or words")]
PageQuery = Annotated[str, Query(max_length=MAX_QUERY)]
RosettaChapter = Annotated[str, Query(max_length=64, description="Only chapters containing this text (`logic`, `cvt`)")]
RosettaLevel = Annotated[str, Query(max_length=40, description="Only forms with this level on some shown arch "
                                                               "(`equivalent`, `none` ...)")]
RosettaPage = Annotated[int, Query(ge=1, le=1000, description="Page of the matching rows (150 to a page)")]
Limit = Annotated[int, Query(ge=1, le=500)]
HexPage = Annotated[str, Query(max_length=WEB_DECODE_MAX_HEX)]
TargetPage = Annotated[str, Query(max_length=32)]
# What parse_hex takes: tokens of 1-2 digits or whole bytes, optionally 0x, separated by spaces, commas, brackets.
_HEX_TOKEN = r"(?:0[xX])?(?:[0-9A-Fa-f]{1,2}|(?:[0-9A-Fa-f]{2})+)"
HexQuery = Annotated[str, Query(min_length=1, max_length=WEB_DECODE_MAX_HEX, description="Instruction bytes in hex",
                                pattern=rf"^[\s,\[\]]*{_HEX_TOKEN}(?:[\s,\[\]]+{_HEX_TOKEN})*[\s,\[\]]*$")]
TargetQuery = Annotated[str, Query(max_length=32, description="gfx target",
                                   json_schema_extra={"enum": sorted(TARGET_TO_ARCH)})]


CacheKey = tuple[str, tuple[tuple[str, str], ...], bool]   # path, known parameters, gzip accepted


class CachedApp:
    """ASGI wrapper: LRU cache of complete GET responses, trailing-slash redirects, security headers.

    `params`: the query parameter names some route reads; the cache key keeps only those (sorted by
    name, repeats in order), so `?q=x&junk=1` and `?junk=2&q=x` are one entry. `refresh()` is called
    per request and returns True when the catalog changed (the cache is then emptied).
    """

    def __init__(self, app: Callable, maxsize: int = 4096, max_bytes: int = 256 << 20,
                 params: frozenset[str] = frozenset(), origin: str = "",
                 refresh: Callable[[], bool] | None = None) -> None:
        self.app = app
        self.maxsize = maxsize
        self.max_bytes = max_bytes
        self.params = params
        self.origin = origin.rstrip("/")
        self.refresh = refresh
        self.bytes = 0
        self.cache: OrderedDict[CacheKey, tuple[int, list[tuple[bytes, bytes]], bytes]] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def key(self, path: str, query_string: bytes, gzip: bool = False) -> CacheKey:
        pairs = parse_qsl(query_string.decode("latin-1"), keep_blank_values=True)
        return path, tuple(sorted(((k, v) for k, v in pairs if k in self.params), key=lambda kv: kv[0])), gzip

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self.refresh is not None and self.refresh():
            self.cache.clear()
            self.bytes = 0
        path = scope["path"]
        if len(path) > 1 and path.endswith("/"):
            await self._redirect_without_slash(path, scope.get("query_string", b""), send)
            return
        if scope["method"] not in ("GET", "HEAD"):
            await self.app(scope, receive, self._with_headers(send))
            return
        gzip = any(k == b"accept-encoding" and b"gzip" in v for k, v in scope.get("headers", ()))
        key = self.key(path, scope.get("query_string", b""), gzip)
        hit = self.cache.get(key)
        if hit is not None:
            self.hits += 1
            self.cache.move_to_end(key)
            status, headers, body = hit
            await send({"type": "http.response.start", "status": status, "headers": headers})
            await send({"type": "http.response.body", "body": b"" if scope["method"] == "HEAD" else body})
            return
        self.misses += 1
        head = scope["method"] == "HEAD"
        start: dict = {}
        chunks: list[bytes] = []

        async def capture(message: dict) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *SECURITY_HEADERS]}
                start.update(message)
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))
                if not message.get("more_body", False) and start.get("status") in _CACHEABLE:
                    self._store(key, start["status"], list(start["headers"]), b"".join(chunks))
                if head:
                    message = {**message, "body": b""}
            await send(message)

        # HEAD is answered as the GET it stands for (same headers, no body), and fills the cache.
        await self.app({**scope, "method": "GET"} if head else scope, receive, capture)

    async def _redirect_without_slash(self, path: str, query: bytes, send: Send) -> None:
        """`/amd/x/` -> `/amd/x`, under the configured origin: the Host header never reaches Location.

        Leading slashes collapse to one, so `//evil.example/` cannot become a scheme-relative URL.
        """
        target = "/" + path.strip("/")
        location = (self.origin + quote_path(target)).encode("latin-1")
        if query:
            location += b"?" + query
        headers = [(b"location", location), (b"content-length", b"0"), *SECURITY_HEADERS]
        await send({"type": "http.response.start", "status": 308, "headers": headers})
        await send({"type": "http.response.body", "body": b""})

    def _store(self, key: CacheKey, status: int, headers: list[tuple[bytes, bytes]], body: bytes) -> None:
        """Keep a response; evict the least recently used beyond `maxsize` entries or `max_bytes`."""
        old = self.cache.pop(key, None)
        if old is not None:
            self.bytes -= len(old[2])
        self.cache[key] = (status, headers, body)
        self.bytes += len(body)
        while self.cache and (len(self.cache) > self.maxsize or self.bytes > self.max_bytes):
            _, evicted = self.cache.popitem(last=False)
            self.bytes -= len(evicted[2])

    @staticmethod
    def _with_headers(send: Send) -> Send:
        async def wrapped(message: dict) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *SECURITY_HEADERS]}
            await send(message)
        return wrapped


def _html(body: str, status: int = 200) -> HTMLResponse:
    return HTMLResponse(body, status_code=status, headers={"cache-control": "public, max-age=300"})


def _json(data: Any, status: int = 200) -> Response:
    body = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()
    return Response(body, status_code=status, media_type="application/json",
                    headers={"cache-control": "public, max-age=300"})


def _error_json(status: int, message: str, **extra: Any) -> Response:
    return _json({"error": message, "status": status, **extra}, status)


def quote_path(path: str) -> str:
    from urllib.parse import quote

    return quote(path, safe="/%:@!$&'()*+,;=-._~")


class ServedCatalog:
    """The catalog file being served, reopened when a rebuild replaces it.

    Each thread (the event loop, every worker) keeps its own read-only connection and Site: SQLite
    connections are not shared between threads. `refresh()` stats the file at most once a second;
    a new file (inode, size or mtime) that opens cleanly becomes current, and every thread reopens it
    on its next request. A removed or unreadable file is reported once on stderr and the copy already
    open goes on being served.
    """

    CHECK_EVERY = 1.0

    def __init__(self, path: Path) -> None:
        self.path = path
        self.generation = 0
        self.signature = self._stat()
        self._checked = time.monotonic()
        self._local = threading.local()
        self._warned: object = None
        self.get()   # open now: a missing or damaged catalog fails at start, not on the first request

    def _stat(self) -> tuple[int, int, int, int] | None:
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns

    def refresh(self) -> bool:
        """True when the file was replaced since the last check (then the caller drops cached answers)."""
        now = time.monotonic()
        if now - self._checked < self.CHECK_EVERY:
            return False
        self._checked = now
        sig = self._stat()
        if sig == self.signature:
            return False
        if sig is None:
            self._warn(sig, f"gpuisa: the catalog {self.path} was removed; serving the copy opened before")
            return False
        try:
            Catalog(self.path).conn.close()
        except (CatalogError, sqlite3.DatabaseError) as exc:
            self._warn(sig, f"gpuisa: not switching to the new {self.path}: {exc}")
            return False
        self.signature = sig
        self.generation += 1
        print(f"gpuisa: {self.path} was rebuilt; serving the new catalog", file=sys.stderr, flush=True)
        return True

    def _warn(self, sig: object, message: str) -> None:
        if self._warned != sig:
            self._warned = sig
            print(message, file=sys.stderr, flush=True)

    def get(self) -> tuple[Catalog, Site]:
        """This thread's (Catalog, Site) for the current generation."""
        local = self._local
        if getattr(local, "generation", None) != self.generation:
            catalog = Catalog(self.path)
            local.pair, local.generation = (catalog, Site(catalog)), self.generation
        return local.pair


class WorkerPool:
    """A bounded pool of worker threads with admission control and a per-request deadline.

    At most `workers` requests run and `queue` wait; one more is refused at once (503). A request
    that waited past its deadline is not started; one that runs past it is answered 503 while its
    thread finishes (SQLite work inside stops at the catalog's own time budget).
    """

    def __init__(self, workers: int = WEB_WORKERS, queue: int = WEB_QUEUE, seconds: float = WEB_REQUEST_SECONDS) -> None:
        self.executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="gpuisa-web")
        self.limit = workers + queue
        self.seconds = seconds
        self.inflight = 0
        self.refused = 0

    async def run(self, fn: Callable[..., Any], *args: Any) -> Any:
        if self.inflight >= self.limit:
            self.refused += 1
            raise BudgetError(f"server busy: {self.inflight} requests in progress; try again shortly", busy=True)
        self.inflight += 1
        deadline = time.monotonic() + self.seconds
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(self.executor, self._call, deadline, fn, args)
        future.add_done_callback(self._done)
        try:
            return await asyncio.wait_for(asyncio.shield(future), self.seconds)
        except TimeoutError:
            raise BudgetError(f"this request took longer than its {self.seconds:g} s budget", busy=True) from None

    def _done(self, _future: asyncio.Future) -> None:
        self.inflight -= 1

    @staticmethod
    def _call(deadline: float, fn: Callable[..., Any], args: tuple) -> Any:
        if time.monotonic() > deadline:
            raise BudgetError("server busy: this request waited past its budget; try again shortly", busy=True)
        return fn(*args)

    def close(self) -> None:
        self.executor.shutdown(wait=False, cancel_futures=True)


def _arch_param(arch: str | None) -> str | None:
    """A query-string arch: '' means none; unknown raises GpuisaError (a 400, not a 404)."""
    if arch is None or not arch.strip():
        return None
    try:
        return resolve_arch(arch).key
    except NotFoundError as exc:
        raise GpuisaError(str(exc)) from None


class ApiError(BaseModel):
    """The body of every API error (400, 404, 500, 503): one message naming what and where."""

    error: str
    status: int
    suggestions: list[str] = []
    archs: list[str] = []


def _openapi_400_not_422(app: FastAPI) -> Callable[[], dict[str, Any]]:
    """The server answers a bad parameter with 400 and an ApiError body, never 422: the schema says so."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = get_openapi(title=app.title, version=app.version, description=app.description, routes=app.routes)
            for ops in schema.get("paths", {}).values():
                for op in ops.values():
                    responses = op.get("responses", {})
                    if responses.pop("422", None) is not None and "400" not in responses:
                        responses["400"] = {"description": "Bad parameter",
                                            "content": {"application/json": {"schema": {
                                                "$ref": "#/components/schemas/ApiError"}}}}
            for name in ("HTTPValidationError", "ValidationError"):
                schema.get("components", {}).get("schemas", {}).pop(name, None)
            app.openapi_schema = schema
        return app.openapi_schema

    return openapi


def create_app(catalog_path: Path, cache_size: int = 4096, origin: str = "", workers: int = WEB_WORKERS,
               queue: int = WEB_QUEUE, request_seconds: float = WEB_REQUEST_SECONDS) -> CachedApp:
    """The ASGI app for one catalog file (opened read-only; a missing file raises CatalogError).

    origin: scheme://host[:port] that redirects name (default: none, redirects are relative paths).
    """
    served = ServedCatalog(catalog_path)
    pool = WorkerPool(workers, queue, request_seconds)
    links = Links()
    assets = {p.name: (p.read_bytes(), _MEDIA.get(p.suffix, "application/octet-stream"))
              for p in STATIC.iterdir() if p.is_file() and p.suffix in _MEDIA}
    origin = origin.rstrip("/")

    app = FastAPI(title="gpuisa", version=__version__, docs_url=None, redoc_url=None, redirect_slashes=False,
                  description="Cross-vendor GPU instruction-set reference. The JSON documents are those of "
                              "`gpuisa show --json`, `search --json`, `diff --json`.")
    app.openapi = _openapi_400_not_422(app)  # type: ignore[method-assign]
    # Pages and API answers are compressed for clients that ask (CachedApp keeps both encodings apart).
    app.add_middleware(GZipMiddleware, minimum_size=1000)
    docs_assets = {p.name: (p.read_bytes(), _MEDIA.get(p.suffix, "application/octet-stream"))
                   for p in DOCS_ASSETS.iterdir() if p.name in ("swagger-ui.css", "swagger-ui-bundle.js")}
    app.state.served = served
    app.state.pool = pool
    app.state.catalog, app.state.site = served.get()

    def redirect(path: str) -> Response:
        """A 301 to one of the app's own pages, under the configured origin (never the Host header)."""
        return Response(status_code=301, headers={"location": origin + quote_path(path),
                                                  "cache-control": "public, max-age=300"})

    def site() -> Site:
        return served.get()[1]

    async def work(fn: Callable[..., Response], *args: Any) -> Response:
        """Run one uncached request's catalog work and rendering in the worker pool."""
        return await pool.run(fn, *args)

    def is_api(request: Request) -> bool:
        return request.url.path.startswith("/api/")

    def error(request: Request, status: int, message: str, headers: dict[str, str] | None = None) -> Response:
        response = (_error_json(status, message) if is_api(request)
                    else _html(site().error_page(links, status, message), status))
        response.headers.update(headers or {})
        return response

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> Response:
        parts = []
        for err in exc.errors():
            where = ".".join(str(x) for x in err.get("loc", ()) if x not in ("query", "path"))
            parts.append(f"{where}: {err.get('msg', 'invalid')}" if where else str(err.get("msg", "invalid")))
        return error(request, 400, "bad request parameter: " + "; ".join(parts))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        message = "no such page" if exc.status_code == 404 else str(exc.detail)
        if is_api(request):
            response = _error_json(exc.status_code, message)
        else:
            response = error(request, exc.status_code, f"{message}: {request.url.path}")
        response.headers.update(exc.headers or {})   # 405 keeps its Allow header (RFC 9110)
        return response

    @app.exception_handler(NotFoundError)
    async def not_found(request: Request, exc: NotFoundError) -> Response:
        if is_api(request):
            return _error_json(404, str(exc), suggestions=exc.suggestions)
        return _html(site().not_found(links, exc), 404)

    @app.exception_handler(BudgetError)
    async def over_budget(request: Request, exc: BudgetError) -> Response:
        if exc.busy:   # not cached (503 is not cacheable): the same request may well succeed later
            return error(request, 503, str(exc), {"retry-after": RETRY_AFTER, "cache-control": "no-store"})
        return error(request, 400, str(exc))

    @app.exception_handler(sqlite3.DatabaseError)
    async def catalog_error(request: Request, exc: sqlite3.DatabaseError) -> Response:
        return error(request, 500, f"the catalog {catalog_path} cannot answer this ({exc}); it may be from another "
                                   "gpuisa version: rebuild it with `gpuisa build`")

    @app.exception_handler(GpuisaError)
    async def gpuisa_error(request: Request, exc: GpuisaError) -> Response:
        return error(request, 400, str(exc))

    # ------------------------------------------------------------------ pages

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    async def home() -> Response:
        return await work(lambda: _html(site().home(links)))

    @app.get("/docs", response_class=HTMLResponse, include_in_schema=False)
    async def api_docs() -> Response:
        return _html(site().render("api_docs.html", links, title="JSON API"))

    @app.get("/docs-assets/{asset}", include_in_schema=False)
    async def api_docs_asset(asset: str) -> Response:
        if asset not in docs_assets:
            return _html(site().error_page(links, 404, f"no such file: {asset}"), 404)
        body, media = docs_assets[asset]
        return Response(body, media_type=media, headers={"cache-control": "public, max-age=86400"})

    @app.get("/static/{asset}", include_in_schema=False)
    async def static(asset: str) -> Response:
        if asset not in assets:
            return _html(site().error_page(links, 404, f"no such file: {asset}"), 404)
        body, media = assets[asset]
        return Response(body, media_type=media, headers={"cache-control": "public, max-age=3600"})

    @app.get("/arch/{arch}", response_class=HTMLResponse, include_in_schema=False)
    async def arch_page(arch: ArchPath) -> Response:
        key = resolve_arch(arch).key
        if key != arch:
            return redirect(links.arch(key))
        return await work(lambda: _html(site().arch_page(key, links)))

    def instruction_page(name: str, arch: str | None, vendor: str) -> Response:
        catalog, pages = served.get()
        arch_key = resolve_arch(arch).key if arch else None
        key = catalog.resolve(name)
        try:
            doc = catalog.show(key, arch_key) if arch_key and key.lower() in pages.amd_names else catalog.show(key)
        except NotFoundError:
            raise
        except GpuisaError:
            newest = catalog.show(key)
            msg = f"{newest.name} is not in the {BY_KEY[arch_key].display} manual; it is in: {', '.join(newest.archs)}"
            sugg = [(f"{newest.name} ({a})", links.instr(newest.name, a)) for a in newest.archs]
            return _html(pages.error_page(links, 404, msg, sugg), 404)
        canonical = links.instr(doc.name, arch_key if doc.vendor == "amd" else None, doc.vendor)
        requested = links.instr(name, arch, vendor)
        if canonical != requested:
            return redirect(canonical)
        return _html(pages.instruction(doc, links))

    @app.get("/amd/{name}", response_class=HTMLResponse, include_in_schema=False)
    async def amd_newest(name: Name) -> Response:
        return await work(instruction_page, name, None, "amd")

    @app.get("/amd/{arch}/{name}", response_class=HTMLResponse, include_in_schema=False)
    async def amd_in_arch(arch: ArchPath, name: Name) -> Response:
        return await work(instruction_page, name, arch, "amd")

    @app.get("/operand/{label}", response_class=HTMLResponse, include_in_schema=False)
    async def operand_page(label: Name) -> Response:
        return await work(lambda: _html(site().operand_page(catalog().operand_page(label).as_json(), links)))

    @app.get("/ptx/{name}", response_class=HTMLResponse, include_in_schema=False)
    async def ptx_page(name: Name) -> Response:
        return await work(instruction_page, name, None, "nvidia")

    @app.get("/ptx", response_class=HTMLResponse, include_in_schema=False)
    async def ptx_index() -> Response:
        return await work(lambda: _html(site().ptx_index(links)))

    def search_results(q: str, arch_key: str | None) -> Response:
        catalog, pages = served.get()
        try:
            results = catalog.search(q, arch_key, 100)
        except BudgetError as exc:
            if exc.busy:
                raise
            return _html(pages.search_page(links, q, arch_key or "", None, str(exc)), 400)
        return _html(pages.search_page(links, q, arch_key or "", results))

    @app.get("/search", response_class=HTMLResponse, include_in_schema=False)
    async def search_page(q: PageQuery = "", arch: ArchQuery = None) -> Response:
        try:
            arch_key = _arch_param(arch)
        except GpuisaError as exc:
            return _html(site().search_page(links, q, "", None, str(exc)), 400)
        if not q.strip():
            return _html(site().search_page(links, q, arch_key or ""))
        return await work(search_results, q, arch_key)

    @app.get("/rosetta", response_class=HTMLResponse, include_in_schema=False)
    async def rosetta_page(chapter: RosettaChapter = "", level: RosettaLevel = "", page: RosettaPage = 1) -> Response:
        return await work(lambda: _html(site().rosetta_page(links, chapter, level, page)))

    @app.get("/diff", response_class=HTMLResponse, include_in_schema=False)
    async def diff_index(a: ArchQuery = None, b: ArchQuery = None) -> Response:
        if a and b:
            return redirect(links.diff(resolve_arch(a).key, resolve_arch(b).key))
        return _html(site().diff_index(links))

    @app.get("/diff/{a}/{b}", response_class=HTMLResponse, include_in_schema=False)
    async def diff_page(a: ArchPath, b: ArchPath,
                        name: OptName = None) -> Response:
        ak, bk = resolve_arch(a).key, resolve_arch(b).key
        if (ak, bk) != (a, b):
            return redirect(links.diff(ak, bk) + (f"?name={name}" if name else ""))
        return await work(lambda: _html(site().diff_page(served.get()[0].diff(ak, bk, name), links)))

    # ------------------------------------------------------------------ JSON API

    def catalog() -> Catalog:
        return served.get()[0]

    @app.get("/api/archs", tags=["api"], summary="Architectures with gfx targets, counts and manual coverage",
             response_model=list[dict[str, Any]])
    async def api_archs() -> Response:
        return await work(lambda: _json(catalog().archs()))

    def instruction_json(name: str, arch_key: str | None) -> Response:
        cat = catalog()
        key = cat.resolve(name)
        try:
            return _json(cat.show(key, arch_key).as_json())
        except NotFoundError:
            raise
        except GpuisaError as exc:
            newest = cat.show(key)
            return _error_json(404, str(exc), archs=newest.archs if isinstance(newest, AmdDocument) else [])

    @app.get("/api/instruction/{name}", tags=["api"],
             summary="One instruction's page document (the `gpuisa show --json` contract)",
             response_model=AmdDocument | PtxDocument,
             responses={400: {"model": ApiError, "description": "Bad parameter or unknown architecture"},
                        404: {"model": ApiError, "description": "Unknown instruction, or not in that architecture"}})
    async def api_instruction(name: Name, arch: ArchQuery = None) -> Response:
        return await work(instruction_json, name, _arch_param(arch))

    @app.get("/api/operand/{label}", tags=["api"],
             summary="One operand or operand-kind page of LLVM's AMDGPU syntax docs (`amdgpu_synid_v`)",
             response_model=OperandPageDocument,
             responses={400: {"model": ApiError, "description": "Bad parameter"},
                        404: {"model": ApiError, "description": "Unknown operand page"}})
    async def api_operand(label: Name) -> Response:
        return await work(lambda: _json(catalog().operand_page(label).as_json()))

    @app.get("/api/search", tags=["api"], summary="Search names and descriptions, exact names first (`gpuisa search --json`)",
             response_model=list[SearchHit],
             responses={400: {"model": ApiError, "description": "Bad parameter, text too long or too many words"},
                        503: {"model": ApiError, "description": "Over the time budget, or the server is busy (Retry-After)"}})
    async def api_search(q: SearchText, arch: ArchQuery = None, limit: Limit = 20) -> Response:
        arch_key = _arch_param(arch)
        if not q.strip():   # only whitespace (Python's, which includes \x1c-\x1f): valid per the schema, finds nothing
            return _json([])
        return await work(lambda: _json([hit.as_json() for hit in catalog().search(q, arch_key, limit)]))

    @app.get("/api/arch/{arch}", tags=["api"], summary="One architecture and its instructions by functional group",
             response_model=dict[str, Any],
             responses={400: {"model": ApiError, "description": "Bad parameter"},
                        404: {"model": ApiError, "description": "Unknown architecture"}})
    async def api_arch(arch: ArchPath) -> Response:
        key = resolve_arch(arch).key

        def answer() -> Response:
            cat = catalog()
            info = next(a for a in cat.archs() if a["key"] == key)
            return _json({**info, "groups": cat.arch_instructions(key)})
        return await work(answer)

    @app.get("/api/diff/{a}/{b}", tags=["api"], response_model=InstructionDiff | ArchDiff,
             responses={400: {"model": ApiError, "description": "Bad parameter"},
                        404: {"model": ApiError, "description": "Unknown architecture or instruction"}},
             summary="Generation diff: whole ISA, or one instruction with ?name= (`gpuisa diff --json`)")
    async def api_diff(a: ArchPath, b: ArchPath,
                       name: OptName = None) -> Response:
        return await work(lambda: _json(catalog().diff(a, b, name).as_json()))

    # ------------------------------------------------------------------ decode box

    tables = DecoderTables()
    app.state.decoder_tables = tables

    def decode_input(target: str, hex_text: str) -> tuple[str, bytes]:
        """(target, bytes) of a decode request; GpuisaError (a 400) naming what is wrong."""
        target = target.strip().lower()
        if target not in TARGET_TO_ARCH:
            raise GpuisaError(f"unknown gfx target {target!r}: pick one of the list (gfx900 ... gfx1250)")
        data = parse_hex([hex_text])
        if not data:
            raise GpuisaError("no bytes to decode: paste hex such as 05 00 25 d6 01 05 0e 00")
        return target, data

    def require_tables(target: str) -> None:
        """Return when the target's codec tables are ready; else a BudgetError (503 + Retry-After, not cached)."""
        if tables.ready(served.path, target):
            return
        raise BudgetError(f"preparing the decoder for {target} (first use: its tables are being built); "
                          f"try again in a few seconds", busy=True)

    @app.get("/decode", response_class=HTMLResponse, include_in_schema=False)
    async def decode_page(target: TargetPage = "", hex: HexPage = "") -> Response:
        if not hex.strip():
            return _html(site().decode_page(links, target.strip().lower()))
        try:
            tgt, data = decode_input(target, hex)
        except GpuisaError as exc:
            return _html(site().decode_page(links, target, hex, error=str(exc)), 400)
        if not tables.ready(served.path, tgt):
            return Response(site().decode_page(links, tgt, hex, preparing=True), status_code=503,
                            media_type="text/html", headers={"retry-after": "3", "cache-control": "no-store"})

        def answer() -> Response:
            pages = served.get()[1]
            rows = pages.decoded_rows(decode(data, tgt, served.path), tgt, links, WEB_DECODE_DIAGRAMS)
            return _html(pages.decode_page(links, tgt, hex, rows))
        return await work(answer)

    @app.get("/api/decode", tags=["api"], summary="Disassemble bytes for a gfx target (`gpuisa disasm --json`)",
             response_model=list[dict[str, Any]],
             responses={400: {"model": ApiError, "description": "Bad hex, unknown target or empty input"},
                        503: {"model": ApiError, "description": "The target's decoder is being prepared (Retry-After)"}})
    async def api_decode(target: TargetQuery, hex: HexQuery) -> Response:
        tgt, data = decode_input(target, hex)
        require_tables(tgt)
        return await work(lambda: _json([d.to_json() for d in decode(data, tgt, served.path)]))

    @app.get("/api/rosetta", tags=["api"], response_model=dict[str, Any],
             responses={400: {"model": ApiError, "description": "Bad parameter or unknown architecture"}},
             summary="The Rosetta: PTX forms by chapter with the AMD mapping, level and evidence per arch "
                     "(`gpuisa rosetta --json` computes one arch)")
    async def api_rosetta(arch: ArchQuery = None, chapter: RosettaChapter = "", level: RosettaLevel = "") -> Response:
        arch_key = _arch_param(arch)
        return await work(lambda: _json(catalog().rosetta(arch_key, chapter, level)))

    def refresh() -> bool:
        if served.refresh():
            app.state.catalog, app.state.site = served.get()
            return True
        return False

    known = frozenset(p.alias for r in app.routes if isinstance(r, APIRoute) for p in r.dependant.query_params)
    return CachedApp(app, cache_size, params=known, origin=origin, refresh=refresh)

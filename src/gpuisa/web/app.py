"""The HTTP app: HTML pages and the JSON API over one catalog opened read-only.

The catalog cannot change while it is served, so every GET response (pages, API answers, error
pages) is cached in memory by URL in a bounded LRU; a repeated request is answered without routing
or rendering. Handlers are `async def` so all catalog access stays on the event-loop thread (one
SQLite connection, no locking). Path parameters never reach the filesystem: static assets are
read into memory at start and served from a fixed table.
"""

from __future__ import annotations

import importlib.util
import json
import sqlite3
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Annotated, Any

from fastapi import FastAPI, Query, Request
from fastapi import Path as PathParam
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.gzip import GZipMiddleware
from fastapi.openapi.utils import get_openapi
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException

from gpuisa import __version__
from gpuisa.archs import ARCHS, BY_KEY, TARGET_TO_ARCH, resolve_arch
from gpuisa.catalog.documents import AmdDocument, ArchDiff, InstructionDiff, PtxDocument, SearchHit
from gpuisa.catalog.query import Catalog
from gpuisa.errors import GpuisaError, NotFoundError
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
MAX_QUERY = 200

# Module level: FastAPI resolves these annotations by name (the module uses postponed annotations).
Name = Annotated[str, PathParam(pattern=NAME_PATTERN, max_length=128, description="Instruction, any spelling")]
ArchPath = Annotated[str, PathParam(pattern=NAME_PATTERN, max_length=32, description="Architecture or gfx target")]
# The schema lists the canonical spellings; the server also takes any case, `rdna-3.5` etc. (archs.resolve_arch).
ARCH_NAMES = ["", *(a.key for a in ARCHS), *sorted(TARGET_TO_ARCH)]
ArchQuery = Annotated[str | None, Query(max_length=32, description="Architecture or gfx target",
                                        json_schema_extra={"enum": ARCH_NAMES})]
OptName = Annotated[str | None, Query(max_length=128, pattern=NAME_PATTERN, description="One instruction")]
SearchText = Annotated[str, Query(min_length=1, max_length=MAX_QUERY, description="Name or words")]
PageQuery = Annotated[str, Query(max_length=MAX_QUERY)]
Limit = Annotated[int, Query(ge=1, le=500)]


class CachedApp:
    """ASGI wrapper: LRU cache of complete GET responses keyed by path and query, plus security headers."""

    def __init__(self, app: Callable, maxsize: int = 4096, max_bytes: int = 256 << 20) -> None:
        self.app = app
        self.maxsize = maxsize
        self.max_bytes = max_bytes
        self.bytes = 0
        self.cache: OrderedDict[tuple[str, bytes, bool], tuple[int, list[tuple[bytes, bytes]], bytes]] = OrderedDict()
        self.hits = 0
        self.misses = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in ("GET", "HEAD"):
            await self.app(scope, receive, self._with_headers(send))
            return
        gzip = any(k == b"accept-encoding" and b"gzip" in v for k, v in scope.get("headers", ()))
        key = (scope["path"], scope.get("query_string", b""), gzip)
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

    def _store(self, key: tuple[str, bytes, bool], status: int, headers: list[tuple[bytes, bytes]], body: bytes) -> None:
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


def _arch_param(arch: str | None) -> str | None:
    """A query-string arch: '' means none; unknown raises GpuisaError (a 400, not a 404)."""
    if arch is None or not arch.strip():
        return None
    try:
        return resolve_arch(arch).key
    except NotFoundError as exc:
        raise GpuisaError(str(exc)) from None


class ApiError(BaseModel):
    """The body of every API error (400, 404, 500): one message naming what and where."""

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


def create_app(catalog_path: Path, cache_size: int = 4096) -> CachedApp:
    """The ASGI app for one catalog file (opened read-only; a missing file raises CatalogError)."""
    catalog = Catalog(catalog_path)
    site = Site(catalog)
    links = Links()
    assets = {p.name: (p.read_bytes(), _MEDIA.get(p.suffix, "application/octet-stream"))
              for p in STATIC.iterdir() if p.is_file() and p.suffix in _MEDIA}

    app = FastAPI(title="gpuisa", version=__version__, docs_url=None, redoc_url=None,
                  description="Cross-vendor GPU instruction-set reference. The JSON documents are those of "
                              "`gpuisa show --json`, `search --json`, `diff --json`.")
    app.openapi = _openapi_400_not_422(app)  # type: ignore[method-assign]
    # Pages and API answers are compressed for clients that ask (CachedApp keeps both encodings apart).
    app.add_middleware(GZipMiddleware, minimum_size=1000)
    docs_assets = {p.name: (p.read_bytes(), _MEDIA.get(p.suffix, "application/octet-stream"))
                   for p in DOCS_ASSETS.iterdir() if p.name in ("swagger-ui.css", "swagger-ui-bundle.js")}
    app.state.catalog = catalog
    app.state.site = site

    def is_api(request: Request) -> bool:
        return request.url.path.startswith("/api/")

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> Response:
        parts = []
        for err in exc.errors():
            where = ".".join(str(x) for x in err.get("loc", ()) if x not in ("query", "path"))
            parts.append(f"{where}: {err.get('msg', 'invalid')}" if where else str(err.get("msg", "invalid")))
        message = "bad request parameter: " + "; ".join(parts)
        if is_api(request):
            return _error_json(400, message)
        return _html(site.error_page(links, 400, message), 400)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        message = "no such page" if exc.status_code == 404 else str(exc.detail)
        if is_api(request):
            response = _error_json(exc.status_code, message)
        else:
            response = _html(site.error_page(links, exc.status_code, f"{message}: {request.url.path}"), exc.status_code)
        response.headers.update(exc.headers or {})   # 405 keeps its Allow header (RFC 9110)
        return response

    @app.exception_handler(NotFoundError)
    async def not_found(request: Request, exc: NotFoundError) -> Response:
        if is_api(request):
            return _error_json(404, str(exc), suggestions=exc.suggestions)
        return _html(site.not_found(links, exc), 404)

    @app.exception_handler(sqlite3.DatabaseError)
    async def catalog_error(request: Request, exc: sqlite3.DatabaseError) -> Response:
        message = (f"the catalog {catalog_path} cannot answer this ({exc}); it may be from another gpuisa version: "
                   "rebuild it with `gpuisa build`")
        if is_api(request):
            return _error_json(500, message)
        return _html(site.error_page(links, 500, message), 500)

    @app.exception_handler(GpuisaError)
    async def gpuisa_error(request: Request, exc: GpuisaError) -> Response:
        if is_api(request):
            return _error_json(400, str(exc))
        return _html(site.error_page(links, 400, str(exc)), 400)

    # ------------------------------------------------------------------ pages

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    async def home() -> Response:
        return _html(site.home(links))

    @app.get("/docs", response_class=HTMLResponse, include_in_schema=False)
    async def api_docs() -> Response:
        return _html(site.render("api_docs.html", links, title="JSON API"))

    @app.get("/docs-assets/{asset}", include_in_schema=False)
    async def api_docs_asset(asset: str) -> Response:
        if asset not in docs_assets:
            return _html(site.error_page(links, 404, f"no such file: {asset}"), 404)
        body, media = docs_assets[asset]
        return Response(body, media_type=media, headers={"cache-control": "public, max-age=86400"})

    @app.get("/static/{asset}", include_in_schema=False)
    async def static(asset: str) -> Response:
        if asset not in assets:
            return _html(site.error_page(links, 404, f"no such file: {asset}"), 404)
        body, media = assets[asset]
        return Response(body, media_type=media, headers={"cache-control": "public, max-age=3600"})

    @app.get("/arch/{arch}", response_class=HTMLResponse, include_in_schema=False)
    async def arch_page(arch: ArchPath) -> Response:
        key = resolve_arch(arch).key
        if key != arch:
            return RedirectResponse(links.arch(key), status_code=301)
        return _html(site.arch_page(key, links))

    async def instruction_page(name: str, arch: str | None, vendor: str) -> Response:
        arch_key = resolve_arch(arch).key if arch else None
        key = catalog.resolve(name)
        try:
            doc = catalog.show(key, arch_key) if arch_key and key.lower() in site.amd_names else catalog.show(key)
        except NotFoundError:
            raise
        except GpuisaError:
            newest = catalog.show(key)
            msg = f"{newest.name} is not in the {BY_KEY[arch_key].display} manual; it is in: {', '.join(newest.archs)}"
            sugg = [(f"{newest.name} ({a})", links.instr(newest.name, a)) for a in newest.archs]
            return _html(site.error_page(links, 404, msg, sugg), 404)
        canonical = links.instr(doc.name, arch_key if doc.vendor == "amd" else None, doc.vendor)
        requested = links.instr(name, arch, vendor)
        if canonical != requested:
            return RedirectResponse(canonical, status_code=301)
        return _html(site.instruction(doc, links))

    @app.get("/amd/{name}", response_class=HTMLResponse, include_in_schema=False)
    async def amd_newest(name: Name) -> Response:
        return await instruction_page(name, None, "amd")

    @app.get("/amd/{arch}/{name}", response_class=HTMLResponse, include_in_schema=False)
    async def amd_in_arch(arch: ArchPath, name: Name) -> Response:
        return await instruction_page(name, arch, "amd")

    @app.get("/ptx/{name}", response_class=HTMLResponse, include_in_schema=False)
    async def ptx_page(name: Name) -> Response:
        return await instruction_page(name, None, "nvidia")

    @app.get("/ptx", response_class=HTMLResponse, include_in_schema=False)
    async def ptx_index() -> Response:
        return _html(site.ptx_index(links))

    @app.get("/search", response_class=HTMLResponse, include_in_schema=False)
    async def search_page(q: PageQuery = "", arch: ArchQuery = None) -> Response:
        try:
            arch_key = _arch_param(arch)
        except GpuisaError as exc:
            return _html(site.search_page(links, q, "", None, str(exc)), 400)
        if not q.strip():
            return _html(site.search_page(links, q, arch_key or ""))
        results = catalog.search(q, arch_key, 100)
        return _html(site.search_page(links, q, arch_key or "", results))

    @app.get("/diff", response_class=HTMLResponse, include_in_schema=False)
    async def diff_index(a: ArchQuery = None, b: ArchQuery = None) -> Response:
        if a and b:
            return RedirectResponse(links.diff(resolve_arch(a).key, resolve_arch(b).key), status_code=301)
        return _html(site.diff_index(links))

    @app.get("/diff/{a}/{b}", response_class=HTMLResponse, include_in_schema=False)
    async def diff_page(a: ArchPath, b: ArchPath,
                        name: OptName = None) -> Response:
        ak, bk = resolve_arch(a).key, resolve_arch(b).key
        if (ak, bk) != (a, b):
            target = links.diff(ak, bk) + (f"?name={name}" if name else "")
            return RedirectResponse(target, status_code=301)
        return _html(site.diff_page(catalog.diff(ak, bk, name), links))

    # ------------------------------------------------------------------ JSON API

    @app.get("/api/archs", tags=["api"], summary="Architectures with gfx targets, counts and manual coverage",
             response_model=list[dict[str, Any]])
    async def api_archs() -> Response:
        return _json(catalog.archs())

    @app.get("/api/instruction/{name}", tags=["api"],
             summary="One instruction's page document (the `gpuisa show --json` contract)",
             response_model=AmdDocument | PtxDocument,
             responses={400: {"model": ApiError, "description": "Bad parameter or unknown architecture"},
                        404: {"model": ApiError, "description": "Unknown instruction, or not in that architecture"}})
    async def api_instruction(name: Name, arch: ArchQuery = None) -> Response:
        arch_key = _arch_param(arch)
        key = catalog.resolve(name)
        try:
            return _json(catalog.show(key, arch_key).as_json())
        except NotFoundError:
            raise
        except GpuisaError as exc:
            newest = catalog.show(key)
            return _error_json(404, str(exc), archs=newest.archs if isinstance(newest, AmdDocument) else [])

    @app.get("/api/search", tags=["api"], summary="Search names and descriptions, exact names first (`gpuisa search --json`)",
             response_model=list[SearchHit], responses={400: {"model": ApiError, "description": "Bad parameter"}})
    async def api_search(q: SearchText, arch: ArchQuery = None, limit: Limit = 20) -> Response:
        return _json([hit.as_json() for hit in catalog.search(q, _arch_param(arch), limit)])

    @app.get("/api/arch/{arch}", tags=["api"], summary="One architecture and its instructions by functional group",
             response_model=dict[str, Any],
             responses={400: {"model": ApiError, "description": "Bad parameter"},
                        404: {"model": ApiError, "description": "Unknown architecture"}})
    async def api_arch(arch: ArchPath) -> Response:
        key = resolve_arch(arch).key
        info = next(a for a in catalog.archs() if a["key"] == key)
        return _json({**info, "groups": catalog.arch_instructions(key)})

    @app.get("/api/diff/{a}/{b}", tags=["api"], response_model=InstructionDiff | ArchDiff,
             responses={400: {"model": ApiError, "description": "Bad parameter"},
                        404: {"model": ApiError, "description": "Unknown architecture or instruction"}},
             summary="Generation diff: whole ISA, or one instruction with ?name= (`gpuisa diff --json`)")
    async def api_diff(a: ArchPath, b: ArchPath,
                       name: OptName = None) -> Response:
        return _json(catalog.diff(a, b, name).as_json())

    return CachedApp(app, cache_size)

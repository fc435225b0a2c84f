"""`gpuisa mcp`: the catalog as an MCP server (the official MCP Python SDK, stdio).

Tools lookup / search / diff / eval / decode / encode / equivalents answer from the catalog's
query API, the semantics evaluator and the codec, each with typed input and output schemas;
instruction pages are resources (`gpuisa://amd/{arch}/{name}`, `gpuisa://ptx/{name}`). Bad input
(an unknown name, arch or target, undecodable bytes) comes back as a tool error naming what and
where, never as a crash of the server.
"""

from __future__ import annotations

import inspect
import json
import math
import threading
from collections.abc import Callable
from typing import Annotated, Any

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ResourceNotFoundError, ToolError
from pydantic import BaseModel, ConfigDict, Field

from gpuisa.archs import resolve_arch
from gpuisa.catalog.query import Catalog
from gpuisa.codec import api as codec_api
from gpuisa.errors import GpuisaError

INSTRUCTIONS = (
    "gpuisa: exact facts about GPU instructions of AMD's native ISAs (Vega, RDNA 1-4, CDNA 1-5) and NVIDIA PTX, "
    "each with its source. Names accept LLVM spellings (v_sad_u32_e64) and PTX forms (clmad.lo.u64); "
    "arch accepts an architecture (rdna3) or a gfx target (gfx1100).")


# ------------------------------------------------------------------------------ typed inputs

Name = Annotated[str, Field(min_length=1, max_length=256,
                            description="instruction: v_sad_u32, V_SAD_U32_e64 (LLVM), clmad, clmad.lo.u64 (PTX form)")]
Arch = Annotated[str | None, Field(max_length=64, description="architecture (rdna3, cdna5) or gfx target (gfx1100)")]
Target = Annotated[str, Field(min_length=1, max_length=64, description="gfx target, e.g. gfx1100, gfx942")]


# ------------------------------------------------------------------------------ typed outputs


class InstructionDocument(BaseModel):
    """The `gpuisa show --json` document (README: schema); AMD and PTX documents share these keys."""

    model_config = ConfigDict(extra="allow")

    name: str
    vendor: str = Field(description='"amd" or "nvidia"')
    isa: str = Field(description='"native" (AMD) or "ptx"')
    category: str | None
    summary: str | None
    description: str | None
    semantics: str | None
    errata: list[dict[str, Any]]
    equivalents: list[dict[str, Any]] = Field(description="cross-vendor mappings with level and evidence")
    sources: list[dict[str, Any]]


class SearchHit(BaseModel):
    name: str
    vendor: str
    archs: list[str]
    summary: str | None
    match: str = Field(description="name / prefix / name contains / text")


class Encoding(BaseModel):
    encoding: str | None
    opcode: int | None
    identifier: str | None


class DiffResult(BaseModel):
    """One instruction's diff (name set) or the whole-ISA diff (added / removed / renamed / reencoded)."""

    model_config = ConfigDict(populate_by_name=True)

    from_: str = Field(alias="from")
    to: str
    name: str | None = None
    status: str | None = Field(None, description="one instruction: added / removed / changed / same")
    from_encodings: list[Encoding] | None = None
    to_encodings: list[Encoding] | None = None
    differs: list[dict[str, Any]] | None = None
    added: list[str] | None = None
    removed: list[str] | None = None
    renamed: list[dict[str, Any]] | None = None
    reencoded: list[dict[str, Any]] | None = None
    counts: dict[str, int] | None = None


class EvalResult(BaseModel):
    name: str
    arch: str | None = Field(None, description="AMD: the architecture whose pseudocode ran")
    form: str | None = Field(None, description="PTX: the form whose Semantics block ran")
    source: str = Field(description="where the pseudocode is from (manual file:line)")
    pseudocode: str
    outputs: dict[str, int | float | str] = Field(description="registers written; NaN/inf as strings")


class DecodedInstruction(BaseModel):
    offset: int
    bytes: str
    text: str = Field(description="LLVM assembler syntax")
    name: str | None = Field(description="catalog name, null when the bytes are invalid")
    encoding: str | None
    valid: bool
    reason: str | None = None


class DecodeResult(BaseModel):
    target: str
    instructions: list[DecodedInstruction]


class EncodedInstruction(BaseModel):
    model_config = ConfigDict(extra="allow")

    text: str
    bytes: str


class EncodeResult(BaseModel):
    target: str
    instructions: list[EncodedInstruction]


class Equivalent(BaseModel):
    model_config = ConfigDict(extra="allow")

    ptx: str
    amd: str
    arch: str
    level: str = Field(description="equivalent / equivalent with restrictions / needs a sequence / none")
    restrictions: list[str]
    sequence: list[str]
    evidence: dict[str, Any] = Field(description="kind (proved / tested / curated) and detail")


# ------------------------------------------------------------------------------ the server


class _Tools:
    """The tool bodies, over one catalog (one lock: sqlite connections are not shared across threads)."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self.lock = threading.Lock()

    def ask(self, fn: Callable[..., Any], *args: Any) -> Any:
        try:
            with self.lock:
                return fn(*args)
        except GpuisaError as exc:
            raise ToolError(str(exc)) from None

    def lookup(self, name: Name, arch: Arch = None) -> InstructionDocument:
        """Everything the catalog holds about one instruction: the same document as `gpuisa show NAME --json`.

        name: v_sad_u32, V_SAD_U32_e64, clmad, clmad.lo.u64; arch: rdna3, cdna5, gfx1100 (AMD only; default newest)."""
        return InstructionDocument.model_validate(self.ask(self.catalog.show, name, arch).as_json())

    def search(self, text: Annotated[str, Field(min_length=1, max_length=1000)], arch: Arch = None,
               limit: Annotated[int, Field(ge=1, le=500)] = 20) -> list[SearchHit]:
        """Find instructions by name or description: exact names first, then prefixes, then full text."""
        return [SearchHit.model_validate(r.as_json()) for r in self.ask(self.catalog.search, text, arch, limit)]

    def diff(self, from_: str, to: Annotated[str, Field(max_length=64, description="architecture or gfx target")],
             name: Annotated[str | None, Field(max_length=256, description="one instruction; none: the whole ISA")]
             = None) -> DiffResult:
        """Differences between two architectures: one instruction's encodings, or the whole ISA."""
        return DiffResult.model_validate(self.ask(self.catalog.diff, from_, to, name).as_json())

    def equivalents(self, name: Name, arch: Arch = None) -> list[Equivalent]:
        """Cross-vendor equivalents (PTX <-> AMD) with their level and evidence; arch narrows AMD mappings."""
        def find() -> list:
            found = self.catalog.resolve_name(name)
            mappings = self.catalog.equivalents(found.key.lower(), found.vendor)
            if found.vendor == "nvidia" and found.form and not mappings:
                mappings = self.catalog.equivalents(found.form, "nvidia")
            if arch:

                want = resolve_arch(arch).key
                mappings = [m for m in mappings if m.arch == want]
            return mappings
        return [Equivalent.model_validate(m.as_json()) for m in self.ask(find)]

    def eval(self, name: Name,
             inputs: Annotated[dict[str, int | float | str], Field(
                 max_length=16, description='operand values: {"S0": 5, "S1": "0x3"} (AMD), {"a": 3} (PTX)')],
             arch: Arch = None) -> EvalResult:
        """Run an instruction's pseudocode: AMD (S0, S1, ... on an arch) or a PTX form (a, b, c ...)."""
        # semantics loads its grammars (~1.3 s); only eval needs them, so the server starts without
        from gpuisa.semantics.api import eval_amd, eval_ptx, parse_value

        def run() -> dict:
            values = {k: parse_value(v, k) if isinstance(v, str) else v for k, v in inputs.items()}
            if self.catalog.show_ptx(name) is not None and not self._is_amd(name):
                return eval_ptx(name, values, self.catalog)
            chosen = arch or self.catalog.show(name).arch
            return eval_amd(self.catalog.resolve(name), chosen, values, self.catalog)

        result = self.ask(run)
        outputs = {k: (v if not isinstance(v, float) or math.isfinite(v) else str(v)) for k, v in result["outputs"].items()}
        return EvalResult(name=str(result["name"]).lower(), arch=result.get("arch"), form=result.get("form"),
                          source=str(result["source"]), pseudocode=result["pseudocode"], outputs=outputs)

    def _is_amd(self, name: str) -> bool:
        return self.catalog.key_of(name) is not None

    def decode(self, hex: Annotated[str, Field(min_length=1, max_length=1_000_000, description="bytes `05 00 25 d6` "
                                              "or little-endian dwords `D6250005`")],
               target: Target) -> DecodeResult:
        """Decode AMD machine code for a gfx target: hex bytes (`05 00 25 d6 ...`) or dwords (`D6250005`)."""
        api = _codec("decode")
        data = self.ask(api.parse_hex, [hex])
        found = self.ask(api.decode, data, target, self.catalog.path)
        return DecodeResult(target=target, instructions=[DecodedInstruction.model_validate(_jsonable(d)) for d in found])

    def encode(self, text: Annotated[str, Field(min_length=1, max_length=1_000_000,
                                                description="LLVM syntax, one instruction per line")],
               target: Target) -> EncodeResult:
        """Assemble AMD instructions (LLVM syntax, one per line) for a gfx target into bytes."""
        api = _codec("encode")
        found = self.ask(api.encode, text, target, self.catalog.path)
        return EncodeResult(target=target, instructions=[EncodedInstruction.model_validate(_jsonable(e)) for e in found])


def _codec(what: str) -> Any:
    """The codec's API module (a seam the tests can replace to see a missing codec reported as a tool error)."""
    if not hasattr(codec_api, what):
        raise ToolError(f"codec not available: this gpuisa.codec has no {what}()")
    return codec_api


def _jsonable(item: Any) -> dict:
    if isinstance(item, dict):
        return item
    to_json = getattr(item, "to_json", None)
    if callable(to_json):
        return to_json()
    raise ToolError(f"the codec returned {type(item).__name__}, which this server cannot describe")


def _with_from(fn: Callable[..., Any]) -> Callable[..., Any]:
    """diff's first argument is called `from` on the wire, a Python keyword: take it as **kwargs."""
    sig = inspect.signature(fn, eval_str=True)
    params = [p.replace(annotation=Annotated[str, Field(alias="from", max_length=64, description="architecture or gfx target")])
              if p.name == "from_" else p for p in sig.parameters.values()]

    def diff(**kwargs: Any) -> DiffResult:
        if "from" in kwargs:
            kwargs["from_"] = kwargs.pop("from")
        return fn(**kwargs)

    diff.__signature__ = sig.replace(parameters=params)  # type: ignore[attr-defined]
    diff.__doc__ = fn.__doc__
    return diff


def make_server(catalog: Catalog) -> MCPServer:
    tools = _Tools(catalog)
    server = MCPServer("gpuisa", instructions=INSTRUCTIONS, version="0.1.0")
    for fn in (tools.lookup, tools.search, tools.equivalents, tools.eval, tools.decode, tools.encode):
        server.add_tool(fn, name=fn.__name__, description=fn.__doc__, structured_output=True)
    server.add_tool(_with_from(tools.diff), name="diff", description=tools.diff.__doc__, structured_output=True)

    def page(fn: Callable[..., Any], *args: Any) -> str:
        try:
            with tools.lock:
                doc = fn(*args)
        except GpuisaError as exc:
            raise ResourceNotFoundError(str(exc)) from None
        if doc is None:
            raise ResourceNotFoundError(f"no PTX instruction {args[0]!r}")
        return json.dumps(doc.as_json() if hasattr(doc, "as_json") else doc, ensure_ascii=False)

    @server.resource("gpuisa://amd/{arch}/{name}", mime_type="application/json",
                     description="An AMD instruction's page document on one architecture (as `gpuisa show --json`)")
    def amd_page(arch: str, name: str) -> str:
        return page(catalog.show, name, arch)

    @server.resource("gpuisa://amd/{name}", mime_type="application/json",
                     description="An AMD instruction's page document on the newest architecture that has it")
    def amd_newest(name: str) -> str:
        return page(catalog.show, name, None)

    @server.resource("gpuisa://ptx/{name}", mime_type="application/json",
                     description="A PTX instruction's (or form's) page document")
    def ptx_page(name: str) -> str:
        return page(catalog.show_ptx, name)

    @server.resource("gpuisa://archs", mime_type="application/json",
                     description="Architectures, their gfx targets and manual coverage")
    def archs() -> str:
        return page(catalog.archs)

    return server

"""The README's JSON contract (schema version 4) against the typed documents of catalog/documents.py.

Every key the README lists exists in the type, with the nested keys it spells out in `{...}`; every key
the type serialises is listed (keys are only ever added, so a new key needs its README line). Then the
documents the catalog really produces serialise to exactly those keys.
"""

from __future__ import annotations

import re
import typing
from pathlib import Path

import pytest
from pydantic import BaseModel

from gpuisa.catalog import documents as d
from gpuisa.catalog.schema import SCHEMA_VERSION

README = Path(__file__).resolve().parents[1] / "README.md"


def _tables() -> dict[str, dict[str, str]]:
    """README contract tables by the line that introduces them: {key: meaning} (a row can name several keys)."""
    text = README.read_text(encoding="utf-8")
    head = re.search(r"^## `gpuisa show --json` contract \(schema version (\d+)\)$", text, re.M)
    assert head, "README has no show --json contract section"
    assert int(head.group(1)) == SCHEMA_VERSION
    section = text[head.end():].split("\n## ", 1)[0]
    tables: dict[str, dict[str, str]] = {}
    intro = ""
    current: dict[str, str] | None = None
    for line in section.splitlines():
        if line.startswith("| key |"):
            current = tables.setdefault(intro, {})
        elif line.startswith("|---"):
            continue
        elif line.startswith("| `") and current is not None:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            for key in re.findall(r"`(\w+)`", cells[0]):
                current[key] = " | ".join(cells[1:])
        elif line.strip():
            current = None
            intro = line
    return tables


def _table(starts: str) -> dict[str, str]:
    found = [t for intro, t in _tables().items() if intro.startswith(starts)]
    assert len(found) == 1, f"README: one table introduced by {starts!r}, found {len(found)}"
    return found[0]


_TOKEN = re.compile(r"\{|\}|\[|\]|,|:|[^{}\[\],:]+")


def _record(text: str) -> dict[str, dict | None]:
    """`{a, b: {c}, d: [{e}]}` -> {"a": None, "b": {"c": None}, "d": {"e": None}} (nested records only)."""
    tokens = [t.strip() for t in _TOKEN.findall(text) if t.strip()]
    pos = 0

    def record() -> dict[str, dict | None]:
        nonlocal pos
        assert tokens[pos] == "{"
        pos += 1
        out: dict[str, dict | None] = {}
        while tokens[pos] != "}":
            key = tokens[pos]
            pos += 1
            nested = None
            if tokens[pos] == ":":
                pos += 1
                nested = value()
            out[key] = nested
            if tokens[pos] == ",":
                pos += 1
        pos += 1
        return out

    def value() -> dict | None:
        nonlocal pos
        nested = None
        depth = 0
        while depth or tokens[pos] not in (",", "}"):
            if tokens[pos] == "{":
                nested = record()
                continue
            depth += {"[": 1, "]": -1}.get(tokens[pos], 0)
            pos += 1
        return nested

    return record()


def _fields(model: type[BaseModel]) -> dict[str, typing.Any]:
    """JSON key -> annotation of a model."""
    hints = typing.get_type_hints(model)
    return {(f.alias or name): hints[name] for name, f in model.model_fields.items()}


def _model_in(annotation: typing.Any) -> type[BaseModel] | None:
    """The record type inside list[M], dict[str, M], M | None, list[dict[str, M]]."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in typing.get_args(annotation):
        found = _model_in(arg)
        if found is not None:
            return found
    return None


def _check(model: type[BaseModel], spelled: dict[str, dict | None], where: str) -> None:
    fields = _fields(model)
    for key, nested in spelled.items():
        assert key in fields, f"{where}: README names {key!r}, {model.__name__} has no such key"
        if nested:
            inner = _model_in(fields[key])
            assert inner is not None, f"{where}.{key}: README spells a record, the type holds none"
            _check(inner, nested, f"{where}.{key}")
            assert set(_fields(inner)) == set(nested), (f"{where}.{key}: README lists {sorted(nested)}, "
                                                        f"{inner.__name__} serialises {sorted(_fields(inner))}")


@pytest.mark.parametrize(("intro", "model"), [
    ("Stable: keys are only ever added. An AMD instruction document", d.AmdDocument),
    ("A PTX document", d.PtxDocument),
    ("`equivalents` (in both kinds of document)", d.Equivalent),
])
def test_readme_contract_matches_the_types(intro, model):
    table = _table(intro)
    assert set(table) == set(_fields(model)), (f"README lists {sorted(set(table) - set(_fields(model)))} that "
                                               f"{model.__name__} lacks; {model.__name__} serialises "
                                               f"{sorted(set(_fields(model)) - set(table))} the README omits")
    for key, meaning in table.items():
        for braces in re.findall(r"`(\{.*?\})`", meaning):
            _check(model, {key: _record(braces)}, model.__name__)


def test_the_checker_notices_a_missing_key():
    """The premise: a README record that names a key the type lacks fails the check."""
    with pytest.raises(AssertionError, match="no such key"):
        _check(d.Example, {"source": {"file": None, "colour": None}}, "Example")
    with pytest.raises(AssertionError, match="README lists"):
        _check(d.AmdDocument, {"examples": {"asm": None}}, "AmdDocument")


def test_catalog_documents_serialise_to_the_documented_keys(catalog):
    amd = catalog.show("v_sad_u32", "cdna5").as_json()
    assert set(amd) == set(_table("Stable: keys are only ever added."))
    ptx = catalog.show("clmad").as_json()
    assert set(ptx) == set(_table("A PTX document"))
    equivalents = catalog.show("sad").as_json()["equivalents"]
    assert equivalents and all(set(e) == set(_table("`equivalents`")) for e in equivalents)

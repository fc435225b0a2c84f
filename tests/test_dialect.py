"""The pseudocode dialect tables: every rule's notation is really on the manual line it cites,
and the evaluator reads it the way the rule says (facts from the cited lines)."""

from __future__ import annotations

import pytest

from gpuisa.semantics import evaluate
from gpuisa.semantics.dialect import OLDER_AMD, PTX_REWRITES, PTX_VARIANT_LINES, Rule
from gpuisa.semantics.ptx import prepare_ptx
from tests.conftest import SOURCES

RULES: list[tuple[str, Rule]] = [*OLDER_AMD.items(), *((f"ptx {r.pattern}", r.rule) for r in PTX_REWRITES),
                                 ("ptx variant lines", PTX_VARIANT_LINES)]


def _line(cite: str) -> str:
    path, line = cite.rsplit(":", 1)
    return (SOURCES / path).read_text(encoding="utf-8").split("\n")[int(line) - 1]


@pytest.mark.parametrize(("key", "rule"), RULES, ids=[k for k, _ in RULES])
def test_rule_cites_a_line_that_shows_it(key: str, rule: Rule) -> None:
    assert rule.reason and rule.read_as
    assert rule.written in _line(rule.source), f"{key}: {rule.written!r} is not on {rule.source}"


def test_older_rules_as_read() -> None:
    # vega/README.md:2507 S_ADD_U32: the carry test needs the exact sum (exact-operation)
    cell = "D.u = S0.u + S1.u; SCC = (S0.u + S1.u >= 0x100000000ULL ? 1 : 0)."
    assert OLDER_AMD["exact-operation"].written in cell
    out = evaluate(cell, {"S0": 0xFFFFFFFF, "S1": 1}, "table")
    assert out["D"] == 0 and out["SCC"] == 1
    # vega/README.md:3091 V_CMP_LT_F32: bare operands compare as f32 (bare-operands): -1.0 < 1.0
    out = evaluate("D.u64[threadId] = (S0 < S1).", {"S0": 0xBF800000, "S1": 0x3F800000}, "table", name="V_CMP_LT_F32")
    assert out["D"] & 1 == 1
    # vega/README.md:2885 V_CVT_F32_I32: (float) converts the value (c-casts)
    assert evaluate("D.f = (float)S0.i. 0.5ULP accuracy.", {"S0": -3}, "table")["D"] == -3.0


def test_ptx_rewrites_in_order() -> None:
    # ptx mul 9.7.1.3:36-38: "n = bitwidth of type; ... d = t<2n-1..n>;   // for .hi variant"
    code = "n = bitwidth of type;\nt = a * b;\nd = t<2n-1..n>;   // for .hi variant\nd = t<n-1..0>;   // for .lo variant"
    hi = prepare_ptx(code, (".hi", ".u32"), {}, 32).replace(" ", "")
    assert "n=32;" in hi and "d=t[2*n-1:n];" in hi and "t[n-1:0]" not in hi

"""Parse one instruction's AMD pseudocode (either notation) into a tree; cached by text.

Its own module so the interpreter (which parses the texts of instructions it calls) and the
entry points in run.py both use it without importing each other.
"""

from __future__ import annotations

from functools import lru_cache

from lark import Tree

from gpuisa.limits import EVAL_MAX_TEXT
from gpuisa.semantics.errors import EvalError, PseudocodeSyntaxError
from gpuisa.semantics.extract import AMD_GRAMMAR, prepare
from gpuisa.semantics.grammar import parse_text

STYLES = ("headed", "table")


@lru_cache(maxsize=4096)
def _parse_cached(code: str, where: str) -> Tree:
    try:
        return parse_text(code, AMD_GRAMMAR, where)
    except RecursionError:
        raise PseudocodeSyntaxError("expressions nested too deeply to parse", where) from None


def parse_block(text: str, style: str = "headed", where: str = "") -> Tree:
    """Parse one instruction's pseudocode (either notation) into a tree."""
    if style not in STYLES:
        raise EvalError(f"unknown pseudocode style {style!r}; use one of {', '.join(STYLES)}", where)
    if len(text) > EVAL_MAX_TEXT:
        raise EvalError(f"pseudocode of {len(text)} characters; at most {EVAL_MAX_TEXT} are evaluated", where)
    ext = prepare(text, style)
    if not ext.code.strip():
        raise PseudocodeSyntaxError("no pseudocode statements found", where)
    return _parse_cached(ext.code, where)

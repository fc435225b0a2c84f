"""Load the lark grammars once and parse pseudocode into trees, with clear syntax errors."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

from lark import Lark, Tree
from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedInput

from gpuisa.semantics.errors import PseudocodeSyntaxError


@lru_cache(maxsize=4)
def parser(grammar: str) -> Lark:
    """A cached LALR parser for a grammar file in this package (amd_pseudocode.lark, ptx_semantics.lark)."""
    text = resources.files("gpuisa.semantics").joinpath(grammar).read_text(encoding="utf-8")
    return Lark(text, parser="lalr", lexer="contextual", propagate_positions=True, maybe_placeholders=True)


def parse_text(text: str, grammar: str, where: str = "") -> Tree:
    """Parse a block; a failure names the line, the column and the text there."""
    try:
        return parser(grammar).parse(text)
    except UnexpectedInput as exc:
        line = getattr(exc, "line", None) or None
        col = getattr(exc, "column", None)
        lines = text.splitlines()
        src = lines[line - 1].strip() if line and 0 < line <= len(lines) else ""
        if isinstance(exc, UnexpectedCharacters):
            what = f"unexpected character {text[exc.pos_in_stream]!r}"
        else:
            tok = getattr(exc, "token", None)
            what = f"unexpected {str(tok)!r}" if tok is not None and str(tok) else "unexpected end of text"
        at = f" (column {col}: {src[:60]!r})" if col and src else ""
        raise PseudocodeSyntaxError(what + at, where, line) from None
    except LarkError as exc:  # pragma: no cover - grammar-level failures
        raise PseudocodeSyntaxError(str(exc).splitlines()[0], where) from None

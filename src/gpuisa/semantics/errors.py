"""Errors of the semantics layer; all are GpuisaError so the CLI shows one line, no traceback."""

from __future__ import annotations

from gpuisa.errors import GpuisaError


class SemanticsError(GpuisaError):
    """Base: something about a pseudocode block, named with where it came from."""

    def __init__(self, message: str, where: str = "", line: int | None = None) -> None:
        loc = where
        if line:
            loc = f"{where} line {line}" if where else f"line {line}"
        super().__init__(f"{loc}: {message}" if loc else message)
        self.reason, self.where, self.line = message, where, line


class PseudocodeSyntaxError(SemanticsError):
    """The block does not parse with the grammar."""


class UnsupportedError(SemanticsError):
    """The block parses but uses something the evaluator does not model (memory, a helper, ...)."""


class EvalError(SemanticsError):
    """Bad input to an evaluation: a missing or unknown operand, a value out of range."""

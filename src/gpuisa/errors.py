"""User-facing errors: one message naming what and where, shown without a traceback."""


class GpuisaError(Exception):
    """A problem with the user's input or environment; the CLI prints it and exits non-zero."""


class SourceError(GpuisaError):
    """A vendor source file is missing, empty, truncated or malformed."""

    def __init__(self, path: str, message: str, line: int | None = None) -> None:
        where = f"{path}:{line}" if line else path
        super().__init__(f"{where}: {message}")
        self.path, self.line, self.message = path, line, message

    def __reduce__(self):  # picklable across the build's worker processes
        return (SourceError, (self.path, self.message, self.line))


class NotFoundError(GpuisaError):
    """An unknown instruction, architecture or target, with close suggestions."""

    def __init__(self, what: str, name: str, suggestions: list[str] | None = None) -> None:
        msg = f"unknown {what} {name!r}"
        if suggestions:
            msg += "; did you mean: " + ", ".join(suggestions) + "?"
        super().__init__(msg)
        self.what, self.name, self.suggestions = what, name, suggestions or []

    def __reduce__(self):
        return (NotFoundError, (self.what, self.name, self.suggestions))


class CatalogError(GpuisaError):
    """The catalog is missing, of another schema version, or damaged."""


class BudgetError(GpuisaError):
    """A request or input over one of gpuisa's size or time budgets (gpuisa.limits).

    `busy` is True when the work was stopped for time (the web answers 503: try again later or
    narrow it), False when the input itself is too large (400).
    """

    def __init__(self, message: str, busy: bool = False) -> None:
        super().__init__(message)
        self.busy = busy

    def __reduce__(self):
        return (BudgetError, (str(self), self.busy))

"""An asyncio loop on its own thread for the tests that drive `gpuisa lsp` / `gpuisa mcp` clients.

The browser tests keep Playwright's loop running on the main thread for the whole session, so
tests that need a loop of their own run their coroutines here instead of on pytest-asyncio's.
"""

from __future__ import annotations

import asyncio
import functools
import threading
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

T = TypeVar("T")


class LoopThread:
    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="test-loop", daemon=True)
        self.thread.start()

    def run(self, coro: Awaitable[T], timeout: float = 600) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)  # type: ignore[arg-type]


_LOOP: LoopThread | None = None


def loop() -> LoopThread:
    global _LOOP
    if _LOOP is None:
        _LOOP = LoopThread()
    return _LOOP


def on_loop(fn: Callable[..., Awaitable[Any]]) -> Callable[..., Any]:
    """Run an `async def` test on the shared loop thread (pytest sees a plain function)."""
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return loop().run(fn(*args, **kwargs))
    return wrapper

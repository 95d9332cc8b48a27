"""Server-sent events: a blocking iterator (a search as it happens) consumed from a worker thread one item
at a time, so the event loop never blocks; when the client goes away the iterator is closed, which closes
the LLM's stream upstream too."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from typing import Any, TypeVar

import anyio.to_thread

T = TypeVar("T")
_END = object()


def sse(event: str, data: Any) -> bytes:
    """One event; `data` as one line of JSON (json.dumps escapes newlines)."""
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n".encode()


async def in_thread(items: Iterator[T]) -> AsyncIterator[T]:
    """`items` without blocking the loop. Cancellation (a client that disconnected) waits for the current
    step to end, then closes the iterator in this task, never while a thread is still running it."""
    try:
        while True:
            item = await anyio.to_thread.run_sync(next, items, _END)
            if item is _END:
                return
            yield item  # type: ignore[misc]
    finally:
        close = getattr(items, "close", None)
        if close is not None:
            close()

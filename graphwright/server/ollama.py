"""Ollama's API over the graph, for Open WebUI and other Ollama clients: `GET /api/version`, `GET /api/tags`
(each search mode a model, "graphwright-local:latest") and `POST /api/chat` (the whole `messages` list: the
last user message searched with the turns before it; NDJSON lines when `stream`, Ollama's default)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from graphwright.errors import GraphwrightError
from graphwright.models import AnswerDelta, SearchResult
from graphwright.search.options import SearchOptions
from graphwright.search.registry import mode_names
from graphwright.server.chat import search_args, sources
from graphwright.server.schemas import ChatMessage, ChatRequest

if TYPE_CHECKING:
    from graphwright.server.callers import Caller
    from graphwright.server.state import Server

# The Ollama API version we answer as: clients check it before they use /api/chat.
OLLAMA_VERSION = "0.6.0"
_TAG = ":latest"


class OllamaChatRequest(BaseModel):
    model_config = ConfigDict(extra="allow")  # options, keep_alive, format...: accepted and ignored

    model: str = "graphwright"
    messages: list[ChatMessage] = Field(min_length=1, max_length=200)
    stream: bool = True

    def as_chat(self) -> ChatRequest:
        return ChatRequest(model=self.model.removesuffix(_TAG), messages=self.messages, stream=self.stream)


def tags() -> dict[str, Any]:
    import hashlib

    names = ["graphwright", *(f"graphwright-{m}" for m in mode_names())]
    return {
        "models": [
            {
                "name": name + _TAG,
                "model": name + _TAG,
                "modified_at": "2026-01-01T00:00:00Z",
                "size": 0,
                "digest": hashlib.sha256(name.encode()).hexdigest(),
                "details": {
                    "format": "graphwright",
                    "family": "graphwright",
                    "families": ["graphwright"],
                    "parameter_size": "",
                    "quantization_level": "",
                },
            }
            for name in names
        ]
    }


def _now() -> str:
    return datetime.now(timezone.utc).isoformat().replace("+00:00", "Z")


def _done(model: str, started: float, content: str = "") -> dict[str, Any]:
    return {
        "model": model,
        "created_at": _now(),
        "message": {"role": "assistant", "content": content},
        "done": True,
        "done_reason": "stop",
        "total_duration": int((time.perf_counter() - started) * 1e9),
        "prompt_eval_count": 0,
        "eval_count": 0,
    }


def chat(server: Server, body: OllamaChatRequest, caller: Caller) -> dict[str, Any]:
    started = time.perf_counter()
    question, options = search_args(body.as_chat())
    result = server.search(question, SearchOptions.of(None, **options), caller=caller)
    return _done(body.model, started, result.answer + sources(result))


def chat_lines(server: Server, body: OllamaChatRequest, caller: Caller) -> Iterator[bytes]:
    """NDJSON: a line a piece of the answer, its sources, then the `done` line; an error after the first
    line is an `{"error": ...}` line, as Ollama sends one."""
    started = time.perf_counter()
    question, options = search_args(body.as_chat())
    events = server.search_stream(question, SearchOptions.of(None, **options), caller=caller)

    def line(data: dict[str, Any]) -> bytes:
        return (json.dumps(data, ensure_ascii=False) + "\n").encode()

    def piece(text: str) -> bytes:
        return line(
            {
                "model": body.model,
                "created_at": _now(),
                "message": {"role": "assistant", "content": text},
                "done": False,
            }
        )

    yield piece("")
    try:
        for event in events:
            if isinstance(event, SearchResult):
                yield piece(sources(event))
            elif isinstance(event, AnswerDelta):
                yield piece(event.text)
    except GraphwrightError as exc:
        yield line({"error": str(exc)})
        return
    finally:
        events.close()  # type: ignore[attr-defined]
    yield line(_done(body.model, started))

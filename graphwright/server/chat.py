"""OpenAI's chat completions API over the graph, so chat front-ends (Open WebUI, LibreChat, the `openai`
SDK) can point at `graphwright serve`: the last user message is searched, with the turns before it as its
conversation (a follow-up is searched with what it refers to); the answer lists its sources."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from graphwright.errors import GraphwrightError, InvalidRequestError
from graphwright.models import MAX_TURN_CHARS, AnswerDelta, ChatTurn, SearchResult
from graphwright.search.options import SearchOptions
from graphwright.search.registry import mode_names
from graphwright.server.errors import error_body, status_of
from graphwright.server.schemas import ChatCitations, ChatRequest, check_question

if TYPE_CHECKING:
    from graphwright.server.callers import Caller
    from graphwright.server.state import Server


def mode_of(model: str) -> str:
    """ "graphwright" is hybrid search; "graphwright-local" is local search, and so on."""
    name = model.strip().lower()
    if name in ("graphwright", ""):
        return "hybrid"
    mode = name.removeprefix("graphwright-")
    if mode not in mode_names():
        raise InvalidRequestError(
            f"unknown model {model!r}: use graphwright or graphwright-<mode> ({', '.join(mode_names())})"
        )
    return mode


# Roles of OpenAI's chat API. Instructions and tool traffic are not the conversation a follow-up refers to.
_CONVERSATION_ROLES = ("user", "assistant")
_OTHER_ROLES = ("system", "developer", "tool", "function")


def question_of(body: ChatRequest) -> str:
    """The last user message; a role OpenAI's API does not have is refused first, wherever it is."""
    for number, message in enumerate(body.messages):
        if message.role not in (*_CONVERSATION_ROLES, *_OTHER_ROLES):
            raise InvalidRequestError(
                f"`messages[{number}].role` is {message.role!r}: use one of "
                + ", ".join(_CONVERSATION_ROLES + _OTHER_ROLES)
            )
    for message in reversed(body.messages):
        if message.role == "user" and message.text().strip():
            return check_question(message.text().strip(), "the last user message")
    raise InvalidRequestError("no user message with text in `messages`")


def history_of(body: ChatRequest) -> list[ChatTurn]:
    """The user and assistant turns before the last user message: the conversation the question follows.
    Empty turns (an assistant's tool call) are skipped. Call after `question_of`, which checks the roles."""
    last = max(i for i, m in enumerate(body.messages) if m.role == "user" and m.text().strip())
    return [
        ChatTurn(role=m.role, content=m.text().strip()[:MAX_TURN_CHARS])
        for m in body.messages[:last]
        if m.role in _CONVERSATION_ROLES and m.text().strip()
    ]


def search_args(body: ChatRequest) -> tuple[str, dict[str, Any]]:
    """The question and the search options of a chat request: its mode (from `model`) and its history."""
    question = question_of(body)
    return question, {"mode": mode_of(body.model), "history": history_of(body)}


def sources(result: SearchResult) -> str:
    """The citations as a list under the answer: what a chat window can show of the evidence."""
    lines = [
        f"[{i}] {c.label or c.id} ({c.id})"
        for i, c in enumerate([c for c in result.citations if c.kind in ("chunk", "community")], start=1)
    ]
    return "\n\nSources:\n" + "\n".join(lines) if lines else ""


def _extras(server: Server, result: SearchResult, workspace: str) -> dict[str, Any]:
    served = server.served(result, workspace)
    return ChatCitations(mode=result.mode, citations=result.citations, browser_url=served.browser_url).model_dump()


def chat_completion(server: Server, body: ChatRequest, caller: Caller) -> dict[str, Any]:
    question, options = search_args(body)
    result = server.search(question, SearchOptions.of(None, **options), caller=caller)
    prompt, completion = result.token_usage.get("prompt_tokens", 0), result.token_usage.get("completion_tokens", 0)
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.model,
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": result.answer + sources(result)},
            }
        ],
        "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion},
        "graphwright": _extras(server, result, caller.workspace),
    }


def chat_stream(server: Server, body: ChatRequest, caller: Caller) -> Iterator[bytes]:
    """chat.completion.chunk events: the answer's pieces as they come, then the sources, then [DONE]."""
    question, options = search_args(body)
    events = server.search_stream(question, SearchOptions.of(None, **options), caller=caller)
    ident, created = f"chatcmpl-{uuid.uuid4().hex}", int(time.time())

    def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> bytes:
        data = {
            "id": ident,
            "object": "chat.completion.chunk",
            "created": created,
            "model": body.model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            **extra,
        }
        return f"data: {json.dumps(data, ensure_ascii=False)}\n\n".encode()

    yield chunk({"role": "assistant", "content": ""})
    try:
        for event in events:
            if isinstance(event, SearchResult):
                yield chunk({"content": sources(event)}, "stop", graphwright=_extras(server, event, caller.workspace))
            elif isinstance(event, AnswerDelta):
                yield chunk({"content": event.text})
    except GraphwrightError as exc:
        yield f"data: {json.dumps(error_body(status_of(exc), str(exc)), ensure_ascii=False)}\n\n".encode()
    finally:
        events.close()  # type: ignore[attr-defined]
    yield b"data: [DONE]\n\n"

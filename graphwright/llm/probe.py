"""Facts about a new endpoint, probed once with a few tiny requests and remembered (`endpoint.py`), so a user
with a local server sets nothing by hand:

- **Whether its chat template keeps a system message.** One short user turn is asked twice for one token,
  with and without a system message; a server that keeps it counts the system message's tokens in the
  prompt, one whose template drops it (llama-cpp-python's `--chat_format gemma`) counts the same prompt both
  times. Then system prompts are folded into the user turn.
- **Whether it writes more than one reply at once.** A second request is sent while the first is being
  written. A server that serves one at a time drops the first (llama-cpp-python's) or holds the second
  until the first is done (llama.cpp's with one slot, Ollama's default); either way its width is 1, and
  no process of this user ever sends it two requests at once (`slots.py`).
- **Its context window**, where it says (llama.cpp's `/props`).

A probe that cannot tell (no usage counted, an error) learns nothing, and the settings stand."""

from __future__ import annotations

import json
import logging
import threading
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from graphwright.errors import LLMError

log = logging.getLogger(__name__)

Create = Callable[..., Any]  # LLMClient._create: (kwargs, stream=False) -> openai's response or stream

_SYSTEM = (
    "You are a careful assistant for a library catalogue. Answer in one short sentence, in plain English, "
    "without lists, headings or quotations, and say so when you do not know."
)
_HELLO = [{"role": "user", "content": "Hello"}]
_LONG = "Count from one to two hundred in words, separated by commas."
_QUEUED_FACTOR, _QUEUED_SLACK = 3.0, 0.5  # as pacing.py judges a queued call
_FIRST_TOKEN_WAIT = 120.0


def system_role(create: Create) -> Literal["system", "user"] | None:
    """ "system" when the endpoint counts a system message's tokens, "user" when it does not; None: unknown."""
    counts = []
    for messages in ([{"role": "system", "content": _SYSTEM}, *_HELLO], _HELLO):
        response = create({"messages": messages, "max_tokens": 1, "temperature": 0.0})
        usage = getattr(response, "usage", None)
        counts.append(int(getattr(usage, "prompt_tokens", 0) or 0))
    with_system, without = counts
    if not with_system or not without:
        return None
    # The system message is ~35 tokens in any tokenizer; a kept one adds at least half of that.
    return "system" if with_system - without >= 15 else "user"


@dataclass
class _Stream:
    sent: float = 0.0
    first: float | None = None  # when its first token came
    ended: float | None = None
    finish: str | None = None
    error: str = ""
    tokens: int = 0


@dataclass(frozen=True)
class Sample:
    """The first probe reply's clock, a first measure of the endpoint's speed (`endpoint.Speed`)."""

    prompt_tokens: int
    first_token: float
    completion_tokens: int
    completion_seconds: float


def _read(create: Create, text: str, cap: int, out: _Stream) -> None:
    out.sent = time.monotonic()
    try:
        stream = create(
            {"messages": [{"role": "user", "content": text}], "max_tokens": cap, "temperature": 0.0}, stream=True
        )
        try:
            for chunk in stream:
                for choice in chunk.choices or []:
                    if choice.delta and choice.delta.content:
                        out.tokens += 1
                        if out.first is None:
                            out.first = time.monotonic()
                    if choice.finish_reason:
                        out.finish = choice.finish_reason
        finally:
            stream.close()
    except (LLMError, OSError) as exc:
        out.error = str(exc)
    except Exception as exc:  # noqa: BLE001 (the HTTP library's, by version): the server dropped it
        out.error = f"{exc.__class__.__name__}: {exc}"
    out.ended = time.monotonic()


def width(create: Create) -> tuple[int | None, Sample | None]:
    """1 when the endpoint writes one reply at a time; None when it wrote two at once or could not tell. With
    it, the first reply's clock when it was not disturbed by the second (a width of more than one)."""
    first = _Stream()
    reader = threading.Thread(target=_read, args=(create, _LONG, 96, first), daemon=True)
    reader.start()
    deadline = time.monotonic() + _FIRST_TOKEN_WAIT
    while first.first is None and first.ended is None and time.monotonic() < deadline:
        time.sleep(0.02)
    if first.first is None or first.ended is not None:  # no reply, or over before a second could join
        reader.join(_FIRST_TOKEN_WAIT)
        return None, _sample(first)
    second = _Stream()
    _read(create, "Say yes.", 4, second)
    reader.join(_FIRST_TOKEN_WAIT)
    if first.ended is None:
        return None, None
    if second.error and not first.finish:
        return None, None  # both failed: the endpoint is in trouble, not narrow
    if first.finish is None or first.error:
        return 1, None  # the first reply was dropped when the second came
    if second.first is None:
        return None, None
    alone = first.first - first.sent
    waited = second.first - second.sent
    if second.first >= first.ended - 0.05 and waited > _QUEUED_FACTOR * alone + _QUEUED_SLACK:
        return 1, _sample(first)  # the second waited for the first to end: the first ran alone
    return None, None


def speed(create: Create) -> Sample | None:
    """One reply written alone, timed: a first measure of the endpoint's reading and writing speed."""
    alone = _Stream()
    _read(create, _LONG, 48, alone)
    return _sample(alone)


def _sample(stream: _Stream) -> Sample | None:
    if stream.first is None or stream.ended is None or stream.tokens < 8 or stream.error:
        return None
    prompt = 16  # the one-line request, with the template's own tokens
    return Sample(prompt, stream.first - stream.sent, stream.tokens - 1, stream.ended - stream.first)


def context_window(base_url: str | None, timeout: float = 5.0) -> int | None:
    """The context window a llama.cpp server reports at `/props`; None from any other endpoint."""
    if not base_url:
        return None
    root = base_url.rstrip("/").removesuffix("/v1")
    try:
        with urllib.request.urlopen(f"{root}/props", timeout=timeout) as response:
            props = json.loads(response.read(1_000_000))
    except (OSError, ValueError):
        return None
    settings = props.get("default_generation_settings") if isinstance(props, dict) else None
    n_ctx = settings.get("n_ctx") if isinstance(settings, dict) else None
    return n_ctx if isinstance(n_ctx, int) and n_ctx > 0 else None

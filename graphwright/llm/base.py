"""What the rest of graphwright needs of an LLM, as a small protocol: `GraphRAG(llm=...)` takes anything
that has these methods (the OpenAI-compatible client, a test double, another SDK behind an adapter)."""

from __future__ import annotations

import inspect
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from graphwright.errors import LLMError

if TYPE_CHECKING:
    from graphwright.config import Settings

Message = dict[str, Any]
JSONSchema = dict[str, Any]  # {"name": ..., "schema": {...}}: what a structured reply must look like


@dataclass(frozen=True)
class Usage:
    """Token use of some LLM calls. Each call returns its own; callers add them up (`+`), so no counter is
    shared between searches running at once."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.calls + other.calls,
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.cached + other.cached,
        )

    def as_dict(self) -> dict[str, int]:
        return {
            "llm_calls": self.calls,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
        }

    def report(self, price_input: float | None, price_output: float | None) -> dict[str, float]:
        out = {
            "calls": float(self.calls),
            "cached": float(self.cached),
            "prompt_tokens": float(self.prompt_tokens),
            "completion_tokens": float(self.completion_tokens),
        }
        if price_input is not None or price_output is not None:
            out["cost"] = (self.prompt_tokens * (price_input or 0) + self.completion_tokens * (price_output or 0)) / 1e6
        return out


@dataclass
class ChatResult:
    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached: bool = False
    finish_reason: str | None = None  # "length": the reply stopped at its task's token cap
    max_tokens: int | None = None  # the cap it was asked under

    @property
    def capped(self) -> bool:
        """The reply was cut: at its token cap, or where it started repeating itself."""
        return self.finish_reason in ("length", "repetition")

    def cut_note(self) -> str:
        """Why a reply may be unusable, for an error message: where it was cut."""
        if self.finish_reason == "repetition":
            return " (the reply was stopped where it began repeating itself)"
        return f" (the reply stopped at the {self.max_tokens}-token cap)" if self.capped and self.max_tokens else ""

    @property
    def usage(self) -> Usage:
        if self.cached:
            return Usage(cached=1)
        return Usage(1, self.prompt_tokens, self.completion_tokens)


@dataclass(frozen=True)
class Tool:
    """A tool a model may call, in no provider's shape: a backend turns it into its API's form."""

    name: str
    description: str
    parameters: dict[str, Any]  # the arguments' JSON Schema (an object schema)


@dataclass
class ToolCall:
    id: str
    name: str
    arguments: dict[str, Any]
    error: str | None = None  # set when the model's arguments were not a JSON object


@dataclass
class ToolTurn:
    """One assistant turn of a tool-calling conversation: text, tool calls, the message to keep, its usage."""

    content: str
    tool_calls: list[ToolCall]
    message: Message
    usage: Usage = field(default_factory=Usage)


@dataclass(frozen=True)
class ChatDelta:
    """A piece of a streamed answer: text as it arrives; the last piece carries the call's usage."""

    text: str = ""
    usage: Usage | None = None


@runtime_checkable
class StreamingLLM(Protocol):
    """An LLM that can also stream an answer as it is generated (the server's token events). Optional:
    an LLM without it is streamed as one piece."""

    def chat_stream(self, messages: list[Message], temperature: float | None = None) -> Iterator[ChatDelta]: ...


@runtime_checkable
class LLM(Protocol):
    """A chat model. `chat` may answer from a cache (`use_cache`); `forget` drops a cached answer the
    caller could not use. `task` names what the call is for (`llm.tasks`: its token cap); `schema`, a JSON
    schema the reply must follow, asks for structured output where the endpoint has it (the prompt asks for
    the same JSON, so an LLM without it still answers). Tool calling (the agent) and streaming are
    capabilities of their own."""

    @property
    def model(self) -> str: ...

    def chat(
        self,
        messages: list[Message],
        temperature: float | None = None,
        use_cache: bool = True,
        *,
        task: str = "answer",
        schema: JSONSchema | None = None,
    ) -> ChatResult: ...

    def forget(self, messages: list[Message], temperature: float | None = None) -> None: ...


@runtime_checkable
class ToolCallingLLM(LLM, Protocol):
    """An LLM that can also call tools. `chat_tools` runs one turn with the given tools; the turn's `message`
    and `tool_result`'s messages are in the backend's own form, kept in the conversation as they are. Modes
    that need it (`needs_tools`, the agent) are refused clearly for an LLM without it."""

    def chat_tools(self, messages: list[Message], tools: Sequence[Tool]) -> ToolTurn: ...

    def tool_result(self, call: ToolCall, output: str) -> Message:
        """The message that gives the model a tool call's output."""
        ...


@runtime_checkable
class RemembersEndpoint(Protocol):
    """An LLM that keeps what is learned about its endpoint across runs (ours: llm/endpoint.py), so a caller
    that measured something (gleaning does not pay here) need not measure it again."""

    def recall(self, fact: str) -> Any:
        """What was learned under `fact` (None: nothing)."""
        ...

    def remember(self, **facts: Any) -> None: ...


class LLMBackend(Protocol):
    """What `llm/registry.py: LLM_BACKENDS` registers: built from the settings, and able to say, before it is built,
    whether the settings configure it (no endpoint or key set: graphwright runs offline)."""

    def __call__(self, settings: Settings) -> LLM: ...

    def configured(self, settings: Settings) -> bool: ...


def _accepts_keyword(function: Callable[..., Any], name: str) -> bool:
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):  # a builtin or C callable: assume the current protocol
        return True
    return any(p.name == name or p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters)


class MeteredLLM:
    """An LLM that adds up the usage of the calls made through it: one per search (or per ingest), so
    concurrent searches never share a counter."""

    def __init__(self, llm: LLM) -> None:
        self.inner = llm
        self.usage = Usage()
        self._lock = threading.Lock()  # extraction calls from several threads
        # An LLM written before `task` and `schema` existed still works: it is asked without them.
        self._takes_task = _accepts_keyword(llm.chat, "task")

    def _add(self, usage: Usage) -> None:
        with self._lock:
            self.usage += usage

    @property
    def model(self) -> str:
        return self.inner.model

    def chat(
        self,
        messages: list[Message],
        temperature: float | None = None,
        use_cache: bool = True,
        *,
        task: str = "answer",
        schema: JSONSchema | None = None,
    ) -> ChatResult:
        try:
            if self._takes_task:
                result = self.inner.chat(messages, temperature, use_cache, task=task, schema=schema)
            else:
                result = self.inner.chat(messages, temperature, use_cache)
        except LLMError as exc:  # an empty or refused answer was still paid for
            if isinstance(exc.usage, Usage):
                self._add(exc.usage)
            raise
        self._add(result.usage)
        return result

    def _tool_caller(self) -> ToolCallingLLM:
        if not isinstance(self.inner, ToolCallingLLM):  # the engine refuses such modes before this
            raise TypeError(f"{type(self.inner).__name__} cannot call tools")
        return self.inner

    def chat_tools(self, messages: list[Message], tools: Sequence[Tool]) -> ToolTurn:
        turn = self._tool_caller().chat_tools(messages, tools)
        self._add(turn.usage)
        return turn

    def tool_result(self, call: ToolCall, output: str) -> Message:
        return self._tool_caller().tool_result(call, output)

    def forget(self, messages: list[Message], temperature: float | None = None) -> None:
        self.inner.forget(messages, temperature)

    def recall(self, fact: str) -> Any:
        return self.inner.recall(fact) if isinstance(self.inner, RemembersEndpoint) else None

    def remember(self, **facts: Any) -> None:
        if isinstance(self.inner, RemembersEndpoint):
            self.inner.remember(**facts)

    def chat_stream(self, messages: list[Message], temperature: float | None = None) -> Iterator[ChatDelta]:
        """The answer as it is generated (never cached); in one piece when the inner LLM cannot stream."""
        if not isinstance(self.inner, StreamingLLM):
            result = self.chat(messages, temperature, use_cache=False)
            yield ChatDelta(text=result.text)
            return
        for delta in self.inner.chat_stream(messages, temperature):
            if delta.usage is not None:
                self._add(delta.usage)
            yield delta

"""The one OpenAI-compatible client (OpenAI, Azure, Ollama, vLLM, llama.cpp, ...). Nothing else imports
`openai`. Retries with exponential backoff on 429, 5xx and timeouts are the client's own (max_retries)."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from graphwright.config import Settings
from graphwright.errors import (  # re-exported: they used to live here
    LLMEmptyAnswerError,
    LLMError,
    LLMNotConfiguredError,
)
from graphwright.llm.base import ChatDelta, ChatResult, Message, Tool, ToolCall, ToolTurn, Usage
from graphwright.llm.cache import ResponseCache

log = logging.getLogger(__name__)

_THINK_RE = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)


@dataclass
class LLMClient:
    """The OpenAI-compatible implementation of the `LLM` protocol. Usage comes back with each call."""

    settings: Settings
    cache: ResponseCache | None = None

    def __post_init__(self) -> None:
        if self.cache is None and self.settings.llm_cache:
            self.cache = ResponseCache(self.settings.home / "cache" / "llm")
        if not self.settings.llm_configured:
            raise LLMNotConfiguredError("no LLM configured: set OPENAI_API_KEY and/or OPENAI_BASE_URL")
        from openai import OpenAI

        key = self.settings.openai_api_key.get_secret_value() if self.settings.openai_api_key else "not-needed"
        self._client = OpenAI(
            api_key=key,
            base_url=self.settings.openai_base_url,
            timeout=self.settings.llm_timeout,
            max_retries=self.settings.llm_max_retries,
        )

    def forget(self, messages: list[Message], temperature: float | None = None) -> None:
        """Drop a cached answer the caller found unusable, so the next run asks again."""
        if self.cache is not None:
            temp = self.settings.llm_temperature if temperature is None else temperature
            self.cache.forget(ResponseCache.key(self.settings.llm_model, messages, temp))

    @property
    def model(self) -> str:
        return self.settings.llm_model

    def chat(self, messages: list[Message], temperature: float | None = None, use_cache: bool = True) -> ChatResult:
        temp = self.settings.llm_temperature if temperature is None else temperature
        cache = self.cache if use_cache else None
        key = ResponseCache.key(self.settings.llm_model, messages, temp)
        if cache is not None:
            cached = cache.get(key)
            if cached is not None:
                cached.cached = True
                return cached
        response = self._create(messages=messages, temperature=temp)
        refusal = getattr(response.choices[0].message, "refusal", None) if response.choices else None
        if refusal:  # said plainly, and never cached: the next run asks again
            raise LLMError(f"LLM refused: {refusal[:200]}")
        if not response.choices or response.choices[0].message.content is None:
            raise LLMEmptyAnswerError("LLM returned an empty answer")
        # Reasoning models (DeepSeek-R1, Qwen3 ...) wrap their thinking in tags; keep only the answer.
        text = _THINK_RE.sub("", response.choices[0].message.content).strip()
        if not text:
            raise LLMEmptyAnswerError("LLM returned an empty answer")
        usage = _usage(response)
        result = ChatResult(text=text, prompt_tokens=usage.prompt_tokens, completion_tokens=usage.completion_tokens)
        if cache is not None:
            cache.put(key, result)
        return result

    def chat_stream(self, messages: list[Message], temperature: float | None = None) -> Iterator[ChatDelta]:
        """The answer as the endpoint generates it, never cached; the last delta carries the usage (when the
        endpoint reports it). Reasoning tags are dropped as they pass."""
        import openai

        temp = self.settings.llm_temperature if temperature is None else temperature
        stream = self._create(messages=messages, temperature=temp, stream=True, stream_options={"include_usage": True})
        thinking, usage, sent = False, Usage(1), False
        try:
            for chunk in stream:
                if chunk.usage is not None:
                    usage = _usage(chunk)
                for choice in chunk.choices or []:
                    piece = (choice.delta.content or "") if choice.delta else ""
                    text, thinking = _drop_thinking(piece, thinking)
                    if text:
                        sent = True
                        yield ChatDelta(text=text)
        except openai.APIError as exc:  # the connection failed after the first bytes
            raise LLMError(f"LLM stream broke off: {exc.__class__.__name__}") from exc
        finally:
            stream.close()  # a client that went away stops the generation upstream too
        if not sent:
            raise LLMEmptyAnswerError("LLM returned an empty answer")
        yield ChatDelta(usage=usage)

    def _create(self, **kwargs: Any) -> Any:  # openai's ChatCompletion
        import openai

        try:
            log.debug("LLM call: %d messages to %s", len(kwargs.get("messages", [])), self.settings.llm_model)
            response = self._client.chat.completions.create(model=self.settings.llm_model, **kwargs)
        except openai.APIStatusError as exc:
            log.warning("LLM endpoint answered HTTP %s after retries", exc.status_code)
            raise LLMError(f"LLM endpoint answered HTTP {exc.status_code} after retries: {exc.message}") from exc
        except openai.APIConnectionError as exc:  # includes timeouts
            log.warning("LLM endpoint unreachable after retries: %s", exc.__class__.__name__)
            raise LLMError(f"LLM endpoint unreachable after retries: {exc}") from exc
        return response

    def chat_tools(self, messages: list[Message], tools: Sequence[Tool]) -> ToolTurn:
        """One turn with OpenAI tool calling; never cached (each turn depends on live tool results)."""
        schemas = [
            {"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}
            for t in tools
        ]
        response = self._create(messages=messages, tools=schemas, temperature=self.settings.llm_temperature)
        if not response.choices:
            raise LLMError("LLM returned no choices")
        message = response.choices[0].message
        calls = []
        for call in message.tool_calls or []:
            try:
                arguments = json.loads(call.function.arguments or "{}")
                error = None if isinstance(arguments, dict) else "arguments are not a JSON object"
            except json.JSONDecodeError as exc:
                arguments, error = {}, f"arguments are not valid JSON: {exc.msg}"
            calls.append(
                ToolCall(id=call.id, name=call.function.name, arguments=arguments if not error else {}, error=error)
            )
        content = _THINK_RE.sub("", message.content or "").strip()
        kept: dict[str, Any] = {"role": "assistant", "content": message.content or ""}
        if message.tool_calls:
            kept["tool_calls"] = [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.function.name, "arguments": c.function.arguments},
                }
                for c in message.tool_calls
            ]
        return ToolTurn(content=content, tool_calls=calls, message=kept, usage=_usage(response))

    def tool_result(self, call: ToolCall, output: str) -> Message:
        return {"role": "tool", "tool_call_id": call.id, "content": output}


def _drop_thinking(piece: str, thinking: bool) -> tuple[str, bool]:
    """The visible part of a streamed piece, and whether a <think> block is still open after it."""
    out: list[str] = []
    while piece:
        if thinking:
            end = piece.lower().find("</think>")
            if end < 0:
                return "".join(out), True
            piece, thinking = piece[end + len("</think>") :], False
        else:
            start = piece.lower().find("<think>")
            if start < 0:
                out.append(piece)
                break
            out.append(piece[:start])
            piece, thinking = piece[start + len("<think>") :], True
    return "".join(out), thinking


def _usage(response: Any) -> Usage:  # openai's ChatCompletion
    """One call's tokens, as the endpoint reported them (zero when it did not)."""
    usage = response.usage
    return Usage(1, (usage.prompt_tokens or 0) if usage else 0, (usage.completion_tokens or 0) if usage else 0)

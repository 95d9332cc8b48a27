"""The one OpenAI-compatible client (OpenAI, Azure, Ollama, vLLM, llama.cpp, ...). Nothing else imports
`openai`. Retries with exponential backoff on 429, 5xx and timeouts are the client's own (max_retries)."""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from graphwright.config import Settings

_THINK_RE = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)


class LLMError(RuntimeError):
    """The LLM endpoint failed after retries, or answered with nothing usable."""


class LLMNotConfiguredError(LLMError):
    pass


@dataclass
class Usage:
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(self, prompt: int, completion: int) -> None:
        with self._lock:
            self.calls += 1
            self.prompt_tokens += prompt
            self.completion_tokens += completion

    def hit(self) -> None:
        with self._lock:
            self.cached += 1

    def as_dict(self) -> dict[str, int]:
        return {"llm_calls": self.calls, "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens}

    def report(self, price_input: float | None, price_output: float | None) -> dict[str, float]:
        out = {"calls": float(self.calls), "cached": float(self.cached),
               "prompt_tokens": float(self.prompt_tokens), "completion_tokens": float(self.completion_tokens)}
        if price_input is not None or price_output is not None:
            out["cost"] = (self.prompt_tokens * (price_input or 0) + self.completion_tokens * (price_output or 0)) / 1e6
        return out


class ResponseCache:
    """Answers on disk keyed by model, messages and temperature: re-indexing unchanged text is free."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    @staticmethod
    def key(model: str, messages: list[dict[str, str]], temperature: float) -> str:
        payload = json.dumps({"m": model, "t": temperature, "msgs": messages}, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()

    def get(self, key: str) -> ChatResult | None:
        try:
            data = json.loads(self._path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return ChatResult(text=data["text"], prompt_tokens=data.get("prompt_tokens", 0),
                          completion_tokens=data.get("completion_tokens", 0))

    def forget(self, key: str) -> None:
        self._path(key).unlink(missing_ok=True)

    def put(self, key: str, result: ChatResult) -> None:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
        tmp.write_text(json.dumps({"text": result.text, "prompt_tokens": result.prompt_tokens,
                                   "completion_tokens": result.completion_tokens}), encoding="utf-8")
        tmp.replace(path)  # atomic: a killed run never leaves half an answer behind


@dataclass
class ChatResult:
    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0


@dataclass
class ToolCall:
    id: str
    name: str
    arguments: dict[str, Any]
    error: str | None = None  # set when the model's arguments were not a JSON object


@dataclass
class ToolTurn:
    """One assistant turn of a tool-calling conversation: text, tool calls, and the message to keep."""

    content: str
    tool_calls: list[ToolCall]
    message: dict[str, Any]


@dataclass
class LLMClient:
    settings: Settings
    usage: Usage = field(default_factory=Usage)
    cache: ResponseCache | None = None

    def __post_init__(self) -> None:
        if self.cache is None and self.settings.llm_cache:
            self.cache = ResponseCache(self.settings.home / "cache" / "llm")
        if not self.settings.llm_configured:
            raise LLMNotConfiguredError("no LLM configured: set OPENAI_API_KEY and/or OPENAI_BASE_URL")
        from openai import OpenAI

        key = self.settings.openai_api_key.get_secret_value() if self.settings.openai_api_key else "not-needed"
        self._client = OpenAI(api_key=key, base_url=self.settings.openai_base_url,
                              timeout=self.settings.llm_timeout, max_retries=self.settings.llm_max_retries)

    def forget(self, messages: list[dict[str, str]], temperature: float | None = None) -> None:
        """Drop a cached answer the caller found unusable, so the next run asks again."""
        if self.cache is not None:
            temp = self.settings.llm_temperature if temperature is None else temperature
            self.cache.forget(ResponseCache.key(self.settings.llm_model, messages, temp))

    @property
    def model(self) -> str:
        return self.settings.llm_model

    def chat(self, messages: list[dict[str, str]], temperature: float | None = None,
             use_cache: bool = True) -> ChatResult:
        temp = self.settings.llm_temperature if temperature is None else temperature
        key = ResponseCache.key(self.settings.llm_model, messages, temp) if self.cache and use_cache else None
        if key is not None:
            cached = self.cache.get(key)
            if cached is not None:
                self.usage.hit()
                return cached
        response = self._create(messages=messages, temperature=temp)
        refusal = getattr(response.choices[0].message, "refusal", None) if response.choices else None
        if refusal:  # said plainly, and never cached: the next run asks again
            raise LLMError(f"LLM refused: {refusal[:200]}")
        if not response.choices or response.choices[0].message.content is None:
            raise LLMError("LLM returned an empty answer")
        # Reasoning models (DeepSeek-R1, Qwen3 ...) wrap their thinking in tags; keep only the answer.
        text = _THINK_RE.sub("", response.choices[0].message.content).strip()
        if not text:
            raise LLMError("LLM returned an empty answer")
        usage = response.usage
        result = ChatResult(text=text, prompt_tokens=(usage.prompt_tokens or 0) if usage else 0,
                            completion_tokens=(usage.completion_tokens or 0) if usage else 0)
        if key is not None:
            self.cache.put(key, result)
        return result

    def _create(self, **kwargs: Any) -> Any:  # noqa: ANN401 - openai's ChatCompletion
        import openai

        try:
            response = self._client.chat.completions.create(model=self.settings.llm_model, **kwargs)
        except openai.APIStatusError as exc:
            raise LLMError(f"LLM endpoint answered HTTP {exc.status_code} after retries: {exc.message}") from exc
        except openai.APIConnectionError as exc:  # includes timeouts
            raise LLMError(f"LLM endpoint unreachable after retries: {exc}") from exc
        if response.usage is not None:
            self.usage.add(response.usage.prompt_tokens or 0, response.usage.completion_tokens or 0)
        else:
            self.usage.add(0, 0)
        return response

    def chat_tools(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ToolTurn:
        """One turn with OpenAI tool calling; never cached (each turn depends on live tool results)."""
        response = self._create(messages=messages, tools=tools, temperature=self.settings.llm_temperature)
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
            calls.append(ToolCall(id=call.id, name=call.function.name, arguments=arguments if not error else {},
                                  error=error))
        content = _THINK_RE.sub("", message.content or "").strip()
        kept: dict[str, Any] = {"role": "assistant", "content": message.content or ""}
        if message.tool_calls:
            kept["tool_calls"] = [{"id": c.id, "type": "function",
                                   "function": {"name": c.function.name, "arguments": c.function.arguments}}
                                  for c in message.tool_calls]
        return ToolTurn(content=content, tool_calls=calls, message=kept)

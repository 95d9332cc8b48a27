"""The one OpenAI-compatible client (OpenAI, Azure, Ollama, vLLM, llama.cpp, ...). Nothing else imports
`openai`. Retries with exponential backoff on 429, 5xx and timeouts are the client's own (max_retries)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

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

    def as_dict(self) -> dict[str, int]:
        return {"llm_calls": self.calls, "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens}


@dataclass
class ChatResult:
    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0


@dataclass
class LLMClient:
    settings: Settings
    usage: Usage = field(default_factory=Usage)

    def __post_init__(self) -> None:
        if not self.settings.llm_configured:
            raise LLMNotConfiguredError("no LLM configured: set OPENAI_API_KEY and/or OPENAI_BASE_URL")
        from openai import OpenAI

        key = self.settings.openai_api_key.get_secret_value() if self.settings.openai_api_key else "not-needed"
        self._client = OpenAI(api_key=key, base_url=self.settings.openai_base_url,
                              timeout=self.settings.llm_timeout, max_retries=self.settings.llm_max_retries)

    @property
    def model(self) -> str:
        return self.settings.llm_model

    def chat(self, messages: list[dict[str, str]], temperature: float | None = None) -> ChatResult:
        import openai

        try:
            response = self._client.chat.completions.create(
                model=self.settings.llm_model, messages=messages,
                temperature=self.settings.llm_temperature if temperature is None else temperature,
            )
        except openai.APIStatusError as exc:
            raise LLMError(f"LLM endpoint answered HTTP {exc.status_code} after retries: {exc.message}") from exc
        except openai.APIConnectionError as exc:  # includes timeouts
            raise LLMError(f"LLM endpoint unreachable after retries: {exc}") from exc
        self.usage.calls += 1
        prompt = completion = 0
        if response.usage is not None:
            prompt = response.usage.prompt_tokens or 0
            completion = response.usage.completion_tokens or 0
            self.usage.prompt_tokens += prompt
            self.usage.completion_tokens += completion
        if not response.choices or response.choices[0].message.content is None:
            raise LLMError("LLM returned an empty answer")
        # Reasoning models (DeepSeek-R1, Qwen3 ...) wrap their thinking in tags; keep only the answer.
        text = _THINK_RE.sub("", response.choices[0].message.content).strip()
        if not text:
            raise LLMError("LLM returned an empty answer")
        return ChatResult(text=text, prompt_tokens=prompt, completion_tokens=completion)

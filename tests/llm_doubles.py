"""An in-process LLM for unit tests: the `LLM` protocol with a `reply` to fill in (tool calling, where a test
needs it, is the subclass's)."""

from __future__ import annotations

from typing import Any

from graphwright.llm import ChatResult


class ReplyingLLM:
    model = "m"

    def reply(self, messages: list[dict[str, Any]]) -> ChatResult:
        raise NotImplementedError

    def chat(
        self,
        messages: list[dict[str, Any]],
        temperature: float | None = None,
        use_cache: bool = True,
        *,
        task: str = "answer",
        schema: dict[str, Any] | None = None,
    ) -> ChatResult:
        return self.reply(messages)

    def forget(self, messages: list[dict[str, Any]], temperature: float | None = None) -> None:
        pass

"""Contexts sized to the endpoint's window once it is known, and left alone otherwise."""

from __future__ import annotations

from typing import Any

from graphwright.config import Settings
from graphwright.llm import MeteredLLM
from graphwright.search.window import fitted
from tests.llm_doubles import ReplyingLLM


class _Knowing(ReplyingLLM):
    def __init__(self, window: int | None) -> None:
        self.window = window

    def recall(self, fact: str) -> Any:
        return self.window if fact == "context" else None

    def remember(self, **facts: Any) -> None:
        pass


def test_a_4096_token_window_shrinks_the_answer_context_to_leave_the_reply_room() -> None:
    settings = Settings(_env_file=None)
    small = fitted(settings, MeteredLLM(_Knowing(4096)))
    # (4096 - 700 reply - 400 frame) / 1.3 words per token; the map batches fit as they are
    assert (
        small.search.context_tokens == 2304 and small.search.global_batch_tokens == settings.search.global_batch_tokens
    )
    tiny = fitted(settings, _Knowing(2048))
    assert tiny.search.context_tokens == 729 and tiny.search.global_batch_tokens == 960


def test_an_unknown_or_roomy_window_changes_nothing() -> None:
    settings = Settings(_env_file=None)
    assert fitted(settings, _Knowing(None)) is settings
    assert fitted(settings, _Knowing(128_000)) is settings
    assert fitted(settings, None) is settings

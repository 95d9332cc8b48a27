"""Contexts that fit the model's window: an endpoint that told its context window (llama.cpp's `/props`, or a
refusal naming it, remembered by the client) gets answer and map prompts sized to leave its reply room, so
a 4,096-token local server needs no GRAPHWRIGHT_CONTEXT_TOKENS set by hand."""

from __future__ import annotations

from graphwright.config import Settings
from graphwright.llm.base import LLM, RemembersEndpoint
from graphwright.llm.tasks import max_tokens

# Contexts are counted in words (text/tokens.count_tokens); a subword tokenizer makes about this many tokens
# of each, and the instructions, question and chat markers around a context take about _FRAME tokens.
_TOKENS_PER_WORD = 1.3
_FRAME = 400


def fitted(settings: Settings, llm: LLM | None) -> Settings:
    """`settings` with context_tokens and global_batch_tokens lowered to fit the endpoint's window, if known."""
    window = llm.recall("context") if isinstance(llm, RemembersEndpoint) else None
    if not isinstance(window, int) or window <= 0:
        return settings
    caps = settings.llm.max_tokens
    limits = {
        "context_tokens": (window - max_tokens("answer", caps) - _FRAME) / _TOKENS_PER_WORD,
        "global_batch_tokens": (window - max_tokens("global_map", caps) - _FRAME) / _TOKENS_PER_WORD,
    }
    update = {
        name: max(200, int(room)) for name, room in limits.items() if int(room) < int(getattr(settings.search, name))
    }
    return settings.updated(**update) if update else settings

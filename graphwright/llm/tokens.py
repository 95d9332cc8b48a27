"""Prompt token counts without the model's tokenizer (none is shipped for an endpoint's model): for a cost
estimate before a run, and for a streamed reply whose endpoint reports no usage (llama.cpp's server sends
none). Each chat message costs its text plus its role markers."""

from __future__ import annotations

from collections.abc import Iterable

from graphwright.llm.base import Message
from graphwright.text.tokens import estimate_subword_tokens

_MESSAGE_OVERHEAD = 4  # <start_of_turn>role\n ... <end_of_turn>\n and the like
_REPLY_OVERHEAD = 3  # the assistant's opening markers


def estimate_prompt(messages: Iterable[Message]) -> int:
    """The prompt tokens of a chat request: each message's text plus its markers."""
    total = _REPLY_OVERHEAD
    for message in messages:
        content = message.get("content") or ""
        if not isinstance(content, str):  # parts (text and images): count the text
            content = " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
        total += _MESSAGE_OVERHEAD + estimate_subword_tokens(content)
    return total

"""A RAPTOR cluster summarized by the LLM: bounded (a budget of calls per build, each member text and the whole
prompt cut to a size, the reply capped by its task), structured (`{"summary": ...}`), and checked: a reply
that is not that, is empty, or only repeats the instructions is a failure, and the caller keeps the extractive
summary it made first. Calls run `concurrency` at a time, as report writing does."""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor

from graphwright.errors import JSONRepairError, LLMError
from graphwright.llm import LLM
from graphwright.llm.json_repair import parse_json_object
from graphwright.llm.prompts import render
from graphwright.text.tokens import count_tokens

log = logging.getLogger(__name__)

_MEMBER_CHARS = 1200  # of one passage or child summary
_PROMPT_TOKENS = 2500  # of all members together
_SUMMARY_CHARS = 1500
SCHEMA = {
    "name": "raptor_summary",
    "schema": {"type": "object", "properties": {"summary": {"type": "string"}}, "required": ["summary"]},
}


class ClusterSummarizer:
    def __init__(self, llm: LLM, budget: int, concurrency: int = 1) -> None:
        self.llm = llm
        self.budget = budget  # LLM summaries one build may ask for; the rest are extractive
        self.concurrency = max(1, concurrency)
        self.failed = 0

    def summaries(self, members: dict[str, list[str]]) -> dict[str, str]:
        """Node id -> the LLM's summary of its members' texts, for the nodes it answered usably."""
        ids = list(members)
        with ThreadPoolExecutor(max_workers=self.concurrency) as pool:
            replies = list(pool.map(lambda i: self._one(members[i]), ids))
        self.failed += sum(r is None for r in replies)
        return {i: r for i, r in zip(ids, replies, strict=True) if r}

    def _one(self, texts: list[str]) -> str | None:
        parts: list[str] = []
        used = 0
        for text in texts:
            part = " ".join(text.split())[:_MEMBER_CHARS]
            cost = count_tokens(part)
            if parts and used + cost > _PROMPT_TOKENS:
                break
            parts.append(f"- {part}")
            used += cost
        instructions = render("raptor_summary")
        messages = [
            {"role": "system", "content": instructions},
            {"role": "user", "content": "Passages:\n" + "\n".join(parts)},
        ]
        try:
            reply = self.llm.chat(messages, task="raptor_summary", schema=SCHEMA).text
            summary = " ".join(str(parse_json_object(reply).get("summary") or "").split())
        except (LLMError, JSONRepairError) as exc:
            log.info("a RAPTOR summary by the LLM failed (%s); the extractive one is kept", exc)
            return None
        if len(summary) < 20 or summary[:60] in " ".join(instructions.split()):
            return None  # empty, or the instructions read back
        return summary[:_SUMMARY_CHARS]

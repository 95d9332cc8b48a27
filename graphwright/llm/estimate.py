"""A run's LLM cost before it runs: the prompts it would send, counted (`tokens.py`), the ones the answer
cache already holds set apart, and each reply's length taken from this endpoint's past replies of that task
when there are enough, else from a typical size (`tasks.TYPICAL_TOKENS`); the estimate says which."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from graphwright.llm.base import Message
from graphwright.llm.tasks import TYPICAL_TOKENS
from graphwright.llm.tokens import estimate_prompt
from graphwright.models import CostEstimate, StageCost

if TYPE_CHECKING:
    from graphwright.llm.client import LLMClient

_LEARNED_AFTER = 3  # replies of a task measured before their mean replaces the typical size


def expected_completion(llm: LLMClient, task: str) -> tuple[float, str]:
    stats = llm.memory.traits.tasks.get(task)
    if stats is not None and stats.calls >= _LEARNED_AFTER:
        return stats.mean, f"mean of {stats.calls} past replies"
    return float(TYPICAL_TOKENS[task]), "typical size (no replies measured yet)"


def learned_rate(llm: LLMClient, task: str, per: str) -> float | None:
    """How many `task` calls this endpoint's past runs made per `per` call (None: not measured)."""
    tasks = llm.memory.traits.tasks
    base = tasks.get(per)
    if base is None or base.calls < _LEARNED_AFTER:
        return None
    return (tasks[task].calls if task in tasks else 0) / base.calls


def seconds(llm: LLMClient, prompt_tokens: float, completion_tokens: float) -> float | None:
    """How long calls of these sizes take at this endpoint's measured speed, as many at once as it serves."""
    alone = llm.memory.traits.speed.seconds(prompt_tokens, completion_tokens)
    if alone is None:
        return None
    at_once = min(llm.settings.llm.concurrency, llm.memory.traits.width or llm.settings.llm.concurrency)
    return alone / max(1, at_once)


def stage(llm: LLMClient, name: str, task: str, prompts: Sequence[list[Message]]) -> StageCost:
    """The cost of sending `prompts` for `task`, the cached ones apart."""
    fresh = [p for p in prompts if not llm.is_cached(p)]
    completion, basis = expected_completion(llm, task)
    prompt_tokens = sum(estimate_prompt(llm.roles(p)) for p in fresh)
    return StageCost(
        stage=name,
        task=task,
        calls=len(fresh),
        cached=len(prompts) - len(fresh),
        prompt_tokens=prompt_tokens,
        completion_tokens=round(completion * len(fresh)),
        basis=basis,
        seconds=seconds(llm, prompt_tokens, completion * len(fresh)),
    )


def follow_on(
    llm: LLMClient, name: str, task: str, after: StageCost, rate: float, extra_prompt: int, basis: str
) -> StageCost:
    """Calls that follow `after`'s (`rate` per call): each re-sends its prompt and reply plus `extra_prompt`."""
    calls = round(after.calls * rate)
    completion, reply_basis = expected_completion(llm, task)
    per_prompt = (after.prompt_tokens + after.completion_tokens) / after.calls + extra_prompt if after.calls else 0
    return StageCost(
        stage=name,
        task=task,
        calls=calls,
        prompt_tokens=round(per_prompt * calls),
        completion_tokens=round(completion * calls),
        basis=f"{basis}; replies: {reply_basis}",
        seconds=seconds(llm, per_prompt * calls, completion * calls),
    )


def priced(estimate: CostEstimate, price_input: float | None, price_output: float | None) -> CostEstimate:
    if price_input is not None or price_output is not None:
        estimate.cost = (
            estimate.prompt_tokens * (price_input or 0) + estimate.completion_tokens * (price_output or 0)
        ) / 1e6
    return estimate

"""A cluster's summary without an LLM: the opening sentences of its most central members (those closest to
the cluster's mean vector), without repeats, within a token budget. Labelled extractive wherever it is shown:
it says what the cluster's passages say, in their words, and claims nothing they do not."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from graphwright.text.sentences import split_sentences
from graphwright.text.tokens import count_tokens

SUMMARY_TOKENS = 120
_SENTENCES_PER_MEMBER = 2


def central_order(vectors: Any) -> list[int]:
    """Members' positions, the closest to the cluster's mean direction first."""
    import numpy as np

    matrix = np.asarray(vectors, dtype=np.float32)
    centre = matrix.mean(axis=0)
    norm = float(np.linalg.norm(centre)) or 1.0
    scores = matrix @ (centre / norm)
    return [int(i) for i in np.argsort(-scores, kind="stable")]


def summarize(texts: Sequence[str], vectors: Any, budget: int = SUMMARY_TOKENS) -> str:
    """The first sentences of the most central members, each new sentence once, until `budget` tokens."""
    chosen: list[str] = []
    seen: set[str] = set()
    used = 0
    for index in central_order(vectors):
        flat = " ".join(texts[index].split())
        for sentence in split_sentences(flat)[:_SENTENCES_PER_MEMBER]:
            key = sentence.casefold()
            n = count_tokens(sentence)
            if key in seen or (chosen and used + n > budget):
                continue
            seen.add(key)
            chosen.append(sentence if n <= budget else _cut(sentence, budget))
            used += min(n, budget)
        if used >= budget:
            break
    return " ".join(chosen)


def _cut(sentence: str, budget: int) -> str:
    words: list[str] = []
    for word in sentence.split():
        if count_tokens(" ".join([*words, word])) > budget:
            break
        words.append(word)
    return " ".join(words) + " …"

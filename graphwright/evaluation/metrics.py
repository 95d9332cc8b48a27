"""Retrieval and answer metrics, as the multi-hop retrieval literature (HippoRAG) and SQuAD define them."""

from __future__ import annotations

import re
import string
from collections import Counter

_ARTICLES = re.compile(r"\b(a|an|the)\b")


def recall_at_k(ranked: list[str], gold: set[str], k: int) -> float:
    """|gold in the top k| / |gold|: the share of gold passages retrieved."""
    return len(gold & set(ranked[:k])) / len(gold) if gold else 0.0


def all_found_at_k(ranked: list[str], gold: set[str], k: int) -> float:
    """1 when every gold passage is in the top k, else 0: all-evidence recall ("perfect retrieval"), the
    measure of fast-graphrag's published 2WikiMultiHopQA table. A multi-hop answer needs all of them."""
    return float(bool(gold) and gold <= set(ranked[:k]))


def reciprocal_rank(ranked: list[str], gold: set[str]) -> float:
    for rank, item in enumerate(ranked, start=1):
        if item in gold:
            return 1.0 / rank
    return 0.0


def keyword_recall(texts: list[str], keywords: list[str]) -> float:
    """Share of expected keywords that appear (case-insensitive) in the retrieved text."""
    if not keywords:
        return 0.0
    blob = " ".join(texts).casefold()
    return sum(1 for k in keywords if k.casefold() in blob) / len(keywords)


def normalize_answer(text: str) -> str:
    text = "".join(ch for ch in text.lower() if ch not in set(string.punctuation))
    return " ".join(_ARTICLES.sub(" ", text).split())


def exact_match(prediction: str, gold: str) -> float:
    return float(normalize_answer(prediction) == normalize_answer(gold))


def token_f1(prediction: str, gold: str) -> float:
    pred, truth = normalize_answer(prediction).split(), normalize_answer(gold).split()
    common = Counter(pred) & Counter(truth)
    overlap = sum(common.values())
    if not pred or not truth or not overlap:
        return float(pred == truth)
    precision, recall = overlap / len(pred), overlap / len(truth)
    return 2 * precision * recall / (precision + recall)


def percentile(values: list[float], share: float) -> float:
    """Nearest-rank percentile of `values` (0 for none)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * (len(ordered) - 1))))]

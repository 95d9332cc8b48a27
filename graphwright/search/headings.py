"""Passages under the heading a question names first: "... shown in the cash flow statement" finds the passages
of the page headed "Consolidated Statement of Cash Flows", not only those whose own words match.

Why: a long document's passages of figures (a statement's rows, a price table) share little wording with a
question, while their heading (a Word or HTML section, a PDF page's heading: documents/document_profile.py)
says what they are. Each passage's heading is scored against the question by BM25 over the headings of the
same documents, so words every heading carries (the company's name, the years) weigh almost nothing and the
words that tell sections apart weigh most; the score joins the mode's own, each over its best, at equal
weight (measured on FinanceBench's shared half: the gold page in the top 5 for 45.0% of questions without it,
58.3-60.0% with weights 0.25 to 1; the equal weight is taken, not the best of them). Passages without headings
(records, plain text) are left in the mode's order."""

from __future__ import annotations

import math
import re
from collections import Counter

from graphwright.graph_store.contracts import GraphStore
from graphwright.models import RetrievedChunk
from graphwright.text.stopwords import STOPWORDS
from graphwright.text.tokens import singular

HEADING_WEIGHT = 1.0
_WORD = re.compile(r"[^\W\d_]{3,}")


def _words(text: str) -> set[str]:
    """Content words, a plural's -s dropped (a heading's "Flows" is the question's "flow")."""
    words = (w.casefold() for w in _WORD.findall(text))
    return {singular(w) or w for w in words if w not in STOPWORDS}


def has_headings(chunks: list[RetrievedChunk]) -> bool:
    return any(c.section for c in chunks)


def heading_scores(question: str, chunks: list[RetrievedChunk], headings: list[tuple[str, str]]) -> list[float]:
    """Each chunk's heading's BM25-style match of the question's words, idf over `headings` (its documents')."""
    asked = _words(question)
    sections = {(doc, section): _words(section) for doc, section in headings}
    n = len(sections) or 1
    df = Counter(w for words in sections.values() for w in words)

    def idf(word: str) -> float:
        return math.log(1 + (n - df[word] + 0.5) / (df[word] + 0.5))

    return [sum(idf(w) for w in asked & _words(c.section or "")) for c in chunks]


def by_headings(store: GraphStore, question: str, chunks: list[RetrievedChunk]) -> list[RetrievedChunk]:
    """The chunks reordered by their own score over the best plus the heading's match over the best."""
    if not has_headings(chunks):
        return chunks
    documents = list(dict.fromkeys(c.document_id for c in chunks))
    matched = heading_scores(question, chunks, store.retrieval.document_sections(documents))
    best_match = max(matched, default=0.0)
    best_score = max((c.score for c in chunks), default=0.0)
    if best_match <= 0 or best_score <= 0:
        return chunks

    def joined(index: int) -> float:
        return max(chunks[index].score, 0.0) / best_score + HEADING_WEIGHT * matched[index] / best_match

    order = sorted(range(len(chunks)), key=lambda i: (-joined(i), i))
    return [
        chunks[i].model_copy(update={"rank": rank, "scores": {**chunks[i].scores, "heading": matched[i]}})
        for rank, i in enumerate(order, start=1)
    ]

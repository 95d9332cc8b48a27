"""Keyword search as a question's language reads it, built on the store's plain reads (`fulltext_search` over
the text or the segmented terms, `term_counts`, `corpus_languages`): which index a question goes to, how an
English question reaches Chinese passages in their own terms, and how rankings from two indexes are put on
one scale. Policy, so it lives here, and every store gets it the same way."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import cast

from graphwright.graph_store.contracts import RetrievalRole
from graphwright.graph_store.rows import ScoredChunkRow
from graphwright.models import MetadataFilter
from graphwright.text.languages import LANGUAGES, detect, language
from graphwright.text.languages.base import Alternatives, Language, Translating
from graphwright.text.lucene import MAX_QUERY_TOKENS, alternatives_query, term_clause, to_lucene


def keyword_search(
    retrieval: RetrievalRole,
    question: str,
    k: int,
    filters: list[MetadataFilter] | None = None,
    *,
    asked: Language | None = None,
) -> list[ScoredChunkRow]:
    """BM25 for a question as its language reads it: a question in a language written without spaces
    (Chinese) matches the segmented terms of chunks in that language, word for word; any other the
    chunks' text. A graph written before chunks had terms (nothing found there) is read the old way.
    Where the corpus also holds a segmented language that can translate the question's (an English
    question, Chinese passages), those passages are ranked by the question said in their language's terms
    instead (`translated_search`), the others by the text index. Two indexes' BM25 scores do not compare
    (a one-page index gives every term a low weight), so each ranking is put on one scale by its best
    passage's share of the question's words it matches: a Chinese page that shares one product name with an
    English question ranks by that one word, not at the top of its own ranking."""
    asked = asked or detect(question)
    if asked.segmented:
        terms = to_lucene(asked.query_terms(question))
        rows = retrieval.fulltext_search(terms, k, filters, terms=True) if terms else []
        if rows:
            return rows
    lucene = to_lucene(question)
    rows = retrieval.fulltext_search(lucene, k, filters) if lucene else []
    rankings: list[tuple[list[ScoredChunkRow], Coverage]] = []
    for code in sorted(retrieval.corpus_languages() - {asked.code}):
        found, words = _translated(retrieval, question, code, k, filters, asked)
        if found:
            rankings.append((found, partial(translated_coverage, words)))
    if not rankings:
        return rows
    translated = {r["language"] for ranking, _ in rankings for r in ranking}
    content = [w.casefold() for w in asked.words(question) if w.casefold() not in asked.stopwords]
    own = [r for r in rows if r["language"] not in translated]
    return _merged([(own, partial(own_coverage, content)), *rankings], k)


def translated_search(
    retrieval: RetrievalRole,
    question: str,
    code: str,
    k: int,
    filters: list[MetadataFilter] | None = None,
    *,
    asked: Language | None = None,
) -> list[ScoredChunkRow]:
    """BM25 over the terms of language `code`'s chunks for a question in another language, said in `code`'s
    terms where that language can translate it; each word's translations weighed by how many chunks use
    them (corpus-based disambiguation); [] where it cannot. `asked`: the question's language, when the caller
    has detected it already."""
    return _translated(retrieval, question, code, k, filters, asked)[0]


def _translated(
    retrieval: RetrievalRole,
    question: str,
    code: str,
    k: int,
    filters: list[MetadataFilter] | None,
    asked: Language | None,
) -> tuple[list[ScoredChunkRow], list[Alternatives]]:
    target = language(code) if code in LANGUAGES else None
    if target is None or not target.segmented or not isinstance(target, Translating):
        return [], []
    asked = asked or detect(question)
    words = _within_budget(target.search_terms_from(asked.words(question), asked.code))
    clauses = {t: term_clause(t) for w in words for t in w.translations}
    counts = retrieval.term_counts({t: c for t, c in clauses.items() if c})
    used = [w.reweighted(counts) for w in words]
    query = alternatives_query([w.terms() for w in used])
    return (retrieval.fulltext_search(query, k, filters, terms=True) if query else []), used


Coverage = Callable[[str], float]


def own_coverage(words: list[str], text: str) -> float:
    """The share of a question's content words a passage in its own language holds (a word or its stem)."""
    if not words:
        return 1.0
    lowered = text.casefold()
    return sum(1 for w in words if (w[:-1] if len(w) > 3 and w.endswith("s") else w) in lowered) / len(words)


def translated_coverage(words: list[Alternatives], text: str) -> float:
    """The share of a question's words a passage in another language holds by one of their translations (or as
    written: Latin-letter names inside Chinese text)."""
    if not words:
        return 1.0
    lowered = text.casefold()
    held = sum(1 for w in words if any(t.replace(" ", "") in lowered for t in w.terms()))
    return held / len(words)


def _merged(rankings: list[tuple[list[ScoredChunkRow], Coverage]], k: int) -> list[ScoredChunkRow]:
    """Rankings from different indexes as one: each ranking's BM25 over its best, times the share of the
    question its best passage holds (`coverage`); a chunk found by both keeps the higher."""
    best: dict[str, ScoredChunkRow] = {}
    for ranking, coverage in rankings:
        top_row = max(ranking, key=lambda r: float(r["score"]), default=None)
        if top_row is None or float(top_row["score"]) <= 0:
            continue
        scale = coverage(top_row["text"]) / float(top_row["score"])
        for row in ranking:
            scaled = cast(ScoredChunkRow, {**row, "score": float(row["score"]) * scale})
            if row["chunk_id"] not in best or scaled["score"] > best[row["chunk_id"]]["score"]:
                best[row["chunk_id"]] = scaled
    return sorted(best.values(), key=lambda r: (-r["score"], r["chunk_id"]))[:k]


def _within_budget(words: list[Alternatives], budget: int = MAX_QUERY_TOKENS) -> list[Alternatives]:
    """The question's first words whose alternatives fit the query's term budget: a question of any length
    costs at most `budget` term counts and clauses (the query keeps no more either)."""
    kept: list[Alternatives] = []
    for word in words:
        budget -= len(word.translations) + len(word.as_written)
        if budget < 0:
            break
        kept.append(word)
    return kept

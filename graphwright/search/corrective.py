"""Grade and rewrite (CRAG / Self-RAG style): grade the retrieved context, then use it, refine it to the
relevant sentences, or rewrite the query and retrieve again, up to N rewrites, recording every attempt.

The grade is the LLM's (0-1) when one is configured; offline it is 0.5 x the best passage's cosine
similarity to the question + 0.5 x the share of the question's content words (or linked entity names) that
the passages contain. Offline rewriting keeps the question's content words and adds the names of the
entities it links to."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from graphwright.llm import LLM, LLMError
from graphwright.llm.json_repair import JSONRepairError, parse_json_object
from graphwright.llm.prompts import render
from graphwright.models import RetrievedChunk, TraceStep
from graphwright.search.answer import build_context
from graphwright.search.base import SearchContext, SearchMode, SearchQuery
from graphwright.search.evidence import Retrieval
from graphwright.search.hybrid import HybridRetriever
from graphwright.search.linking import QUESTION_WORDS, EntityLinker, question_words
from graphwright.text.sentences import split_sentences

Retrieve = Callable[[str], list[RetrievedChunk]]
_WORD_RE = re.compile(r"\w+")
GRADE_SCHEMA = {  # the grade's reply, where the endpoint has structured output (the prompt asks for the same)
    "name": "grade",
    "schema": {
        "type": "object",
        "properties": {
            "score": {"type": "number"},
            "relevant_sentences": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["score", "relevant_sentences"],
    },
}


@dataclass
class Grade:
    score: float
    relevant: list[str]


def content_words(question: str) -> list[str]:
    return [w for w in question_words(question) if w.lower() not in QUESTION_WORDS and len(w) >= 3]


def offline_grade(question: str, chunks: list[RetrievedChunk], names: list[str]) -> Grade:
    if not chunks:
        return Grade(0.0, [])
    vector = [c.scores["vector"] for c in chunks if "vector" in c.scores]
    cosine = max(0.0, 2 * max(vector) - 1) if vector else 0.0  # index score is (1 + cos) / 2
    blob = " ".join(c.text for c in chunks).casefold()
    wanted = names or content_words(question)
    coverage = sum(1 for w in wanted if w.casefold() in blob) / len(wanted) if wanted else 0.0
    terms = {w.casefold() for w in content_words(question)}
    relevant = [
        s for c in chunks for s in split_sentences(c.text) if terms & {t.casefold() for t in _WORD_RE.findall(s)}
    ]
    return Grade(round(0.5 * cosine + 0.5 * coverage, 3), relevant)


def llm_grade(question: str, chunks: list[RetrievedChunk], llm: LLM) -> Grade:
    messages = [
        {"role": "system", "content": render("corrective_grade")},
        {"role": "user", "content": f"Passages:\n\n{build_context(chunks)}\n\nQuestion: {question}"},
    ]
    data = parse_json_object(llm.chat(messages, use_cache=False, task="grade", schema=GRADE_SCHEMA).text)
    score = min(max(float(data.get("score", 0.0)), 0.0), 1.0)
    return Grade(score, [str(s) for s in data.get("relevant_sentences") or [] if str(s).strip()])


def offline_rewrite(question: str, previous: str, names: list[str]) -> str:
    words = content_words(previous) + [n for n in names if n.casefold() not in previous.casefold()]
    return " ".join(dict.fromkeys(words))


def refine(chunks: list[RetrievedChunk], relevant: list[str]) -> list[RetrievedChunk]:
    """Each passage cut to its relevant sentences; passages with none are dropped."""
    kept = []
    for chunk in chunks:
        sentences = [s for s in relevant if s.strip() and s.strip() in chunk.text]
        if sentences:
            kept.append(chunk.model_copy(update={"text": " ".join(dict.fromkeys(sentences))}))
    return kept


def corrective_retrieve(
    question: str, retrieve: Retrieve, llm: LLM | None, names: list[str], attempts: int, use_at: float, refine_at: float
) -> tuple[list[RetrievedChunk], list[TraceStep], list[str]]:
    """The context to answer from, each attempt traced, and notes."""
    trace: list[TraceStep] = []
    notes: list[str] = []
    query = question
    best: tuple[float, list[RetrievedChunk]] = (-1.0, [])
    for attempt in range(attempts + 1):
        chunks = retrieve(query)
        try:
            grade = llm_grade(question, chunks, llm) if llm and chunks else offline_grade(question, chunks, names)
        except (LLMError, JSONRepairError, ValueError, TypeError) as exc:
            notes.append(f"LLM grading failed ({exc}); graded offline")
            grade = offline_grade(question, chunks, names)
        if grade.score >= use_at:
            action = "use"
        elif grade.score >= refine_at:
            action = "refine"
        else:
            action = "rewrite" if attempt < attempts else "give up"
        trace.append(
            TraceStep(
                step=attempt + 1,
                kind="attempt",
                name=action,
                arguments={"query": query},
                summary=f"grade {grade.score:.2f} over {len(chunks)} passages",
                ok=action in ("use", "refine"),
            )
        )
        if grade.score > best[0]:
            best = (grade.score, chunks)
        if action == "use":
            return chunks, trace, notes
        if action == "refine":
            refined = refine(chunks, grade.relevant)
            return (refined or chunks), trace, notes
        if action == "give up":
            break
        rewritten = (
            llm.chat(
                [
                    {"role": "system", "content": render("corrective_rewrite")},
                    {"role": "user", "content": f"Question: {question}\nLast query: {query}"},
                ],
                use_cache=False,
            ).text.strip()
            if llm
            else offline_rewrite(question, query, names)
        )
        if not rewritten or rewritten == query:
            notes.append("the rewrite repeated the query; stopped")
            break
        query = rewritten
    notes.append(f"no attempt reached the grade to use ({use_at}); answering from the best one ({best[0]:.2f})")
    return best[1], trace, notes


class CorrectiveMode(SearchMode):
    name = "corrective"
    summary = "grade the passages, then use, refine or rewrite the query and retry (offline or with an LLM)"
    embeds_question = False  # each attempt embeds its own query

    def retrieve(self, query: SearchQuery, ctx: SearchContext) -> Retrieval:
        hybrid = HybridRetriever.from_settings(ctx.store, ctx.embedder, ctx.settings)
        settings = ctx.settings
        names = [e.name for e in EntityLinker(ctx.store.graph).exact(query.question)[0]] + query.carried_names
        chunks, trace, notes = corrective_retrieve(
            query.text,
            lambda q: hybrid.retrieve(q, query.k),
            ctx.llm,
            names,
            settings.search.rewrite_attempts,
            settings.search.grade_use,
            settings.search.grade_refine,
        )
        return Retrieval(chunks=chunks, trace=trace, notes=notes)

"""Run a dataset through our search modes and the peers, and score every system the same way.

A system's chunks are turned into a ranking of documents (each document at the rank of its best chunk),
matched against the gold documents by id (`gold_doc_ids`) or by title (`gold_titles`). Keyword recall is
measured over the text of the top max(k) chunks. Answer EM/F1 only when an LLM writes answers. A question with
page gold (FinanceBench) is also scored over passages, not documents: doc@k (a top-k passage is of the gold
document) and page@k (a top-k passage of it covers a gold page)."""

from __future__ import annotations

import json
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import BaseModel, Field

from graphwright.embeddings import embed_questions
from graphwright.errors import GraphStoreError, GraphwrightError
from graphwright.evaluation.datasets import Dataset, EvalQuestion
from graphwright.evaluation.metrics import (
    all_found_at_k,
    exact_match,
    keyword_recall,
    percentile,
    recall_at_k,
    reciprocal_rank,
    token_f1,
)
from graphwright.models import IngestReport, RetrievedChunk, SearchResult

if TYPE_CHECKING:
    from graphwright.embeddings import Embedder
    from graphwright.graph_store.contracts import GraphStore
    from graphwright.llm import LLM


class _Levels(Protocol):
    levels: dict[int, int]


class Evaluated(Protocol):
    """What an evaluation needs of the system under test (GraphRAG keeps it): evaluation sits beside
    search, below the API, so it takes this narrow interface instead of importing GraphRAG."""

    store: GraphStore

    @property
    def embedder(self) -> Embedder: ...

    @property
    def llm(self) -> LLM | None: ...

    def search(
        self, question: str, *, mode: Any = ..., k: int | None = ..., where: Any = ..., generate: bool = ...
    ) -> SearchResult: ...

    def ingest(
        self, paths: list[str | Path], *, base: str | Path | None = ..., extractor: str | None = ...
    ) -> IngestReport: ...

    def build_communities(self) -> _Levels: ...


DEPTH = 20  # chunks asked of every system; MRR looks this deep
Progress = Callable[[str, int, int], None]


class SystemScores(BaseModel):
    system: str
    kind: str  # "graphwright" or "peer"
    questions: int = 0
    recall: dict[int, float] = Field(default_factory=dict)
    all_found: dict[int, float] = Field(default_factory=dict)  # k -> share of questions with every gold in top k
    mrr: float = 0.0
    keyword_recall: float | None = None
    exact_match: float | None = None
    f1: float | None = None
    p50_ms: float = 0.0
    p95_ms: float = 0.0
    by_type: dict[str, dict[int, float]] = Field(default_factory=dict)  # type -> k -> recall
    by_type_all: dict[str, dict[int, float]] = Field(default_factory=dict)  # type -> k -> all-evidence recall
    doc_at: dict[int, float] = Field(default_factory=dict)  # k -> share with a gold document's passage in top k
    page_at: dict[int, float] = Field(default_factory=dict)  # k -> share with a gold page's passage in top k
    errors: int = 0


class EvalReport(BaseModel):
    dataset: str
    questions: int
    ks: list[int]
    systems: list[SystemScores]
    notes: list[str] = Field(default_factory=list)


def ranked_keys(chunks: list[RetrievedChunk], by_title: bool) -> list[str]:
    keys = [(c.title or c.document_id) if by_title else c.document_id for c in chunks]
    return list(dict.fromkeys(keys))


def page_numbers(span: str | None) -> set[int]:
    """The pages a citation span names: "3" -> {3}, "3–5" -> {3, 4, 5}; none for a passage without pages."""
    if not span:
        return set()
    first, _, last = span.replace("-", "–").partition("–")
    try:
        start = int(first)
        end = int(last) if last else start
    except ValueError:
        return set()
    return set(range(start, end + 1))


def first_gold_passage(chunks: list[RetrievedChunk], item: EvalQuestion, pages: bool) -> int | None:
    """The 1-based rank of the first passage of a gold document (`pages`: that covers a gold page)."""
    gold, wanted = set(item.gold_doc_ids), set(item.gold_pages)
    for rank, chunk in enumerate(chunks, start=1):
        if chunk.document_id in gold and (not pages or page_numbers(chunk.pages) & wanted):
            return rank
    return None


class _Tally:
    def __init__(self, ks: list[int]) -> None:
        self.ks = ks
        self.recall: dict[int, list[float]] = {k: [] for k in ks}
        self.all_found: dict[int, list[float]] = {k: [] for k in ks}
        self.typed: dict[str, dict[int, list[float]]] = {}
        self.typed_all: dict[str, dict[int, list[float]]] = {}
        self.doc_at: dict[int, list[float]] = {k: [] for k in ks}
        self.page_at: dict[int, list[float]] = {k: [] for k in ks}
        self.rr: list[float] = []
        self.keywords: list[float] = []
        self.em: list[float] = []
        self.f1: list[float] = []
        self.latency: list[float] = []
        self.errors = 0

    def add(self, item: EvalQuestion, chunks: list[RetrievedChunk], answer: str | None, ms: float) -> None:
        self.latency.append(ms)
        gold = set(item.gold_doc_ids) or set(item.gold_titles)
        if gold:
            ranked = ranked_keys(chunks, by_title=not item.gold_doc_ids)
            typed = self.typed.setdefault(item.type, {k: [] for k in self.ks})
            typed_all = self.typed_all.setdefault(item.type, {k: [] for k in self.ks})
            for k in self.ks:
                value = recall_at_k(ranked, gold, k)
                self.recall[k].append(value)
                typed[k].append(value)
                found = all_found_at_k(ranked, gold, k)
                self.all_found[k].append(found)
                typed_all[k].append(found)
            self.rr.append(reciprocal_rank(ranked, gold))
        if item.gold_pages and item.gold_doc_ids:
            doc_rank = first_gold_passage(chunks, item, pages=False)
            page_rank = first_gold_passage(chunks, item, pages=True)
            for k in self.ks:
                self.doc_at[k].append(float(doc_rank is not None and doc_rank <= k))
                self.page_at[k].append(float(page_rank is not None and page_rank <= k))
        if item.expected_keywords:
            self.keywords.append(keyword_recall([c.text for c in chunks[: max(self.ks)]], item.expected_keywords))
        if answer is not None and item.answer:
            self.em.append(exact_match(answer, item.answer))
            self.f1.append(token_f1(answer, item.answer))

    def scores(self, system: str, kind: str) -> SystemScores:
        def mean(values: list[float]) -> float:
            return statistics.fmean(values) if values else 0.0

        return SystemScores(
            system=system,
            kind=kind,
            questions=len(self.latency),
            recall={k: mean(v) for k, v in self.recall.items()},
            all_found={k: mean(v) for k, v in self.all_found.items()},
            mrr=mean(self.rr),
            keyword_recall=mean(self.keywords) if self.keywords else None,
            exact_match=mean(self.em) if self.em else None,
            f1=mean(self.f1) if self.f1 else None,
            p50_ms=percentile(self.latency, 0.5),
            p95_ms=percentile(self.latency, 0.95),
            by_type={t: {k: mean(v) for k, v in ks.items()} for t, ks in sorted(self.typed.items())},
            by_type_all={t: {k: mean(v) for k, v in ks.items()} for t, ks in sorted(self.typed_all.items())},
            doc_at={k: mean(v) for k, v in self.doc_at.items() if v},
            page_at={k: mean(v) for k, v in self.page_at.items() if v},
            errors=self.errors,
        )


def load_corpus(rag: Evaluated, dataset: Dataset, extractor: str | None, need_communities: bool) -> list[str]:
    """Ingest the dataset's own corpus (idempotent: unchanged paragraphs are skipped) and, for the modes
    that read them, build communities when there are none."""
    notes = []
    if dataset.corpus_dir is not None:
        report = rag.ingest([dataset.corpus_dir], base=dataset.corpus_dir, extractor=extractor)
        notes.append(
            f"corpus: {report.documents_written} files written, {report.documents_unchanged} unchanged, "
            f"{len(report.failures)} failed"
        )
        return notes + _communities(rag, need_communities)
    if not dataset.corpus:
        return ["the dataset has no corpus; evaluating the graph as it is"]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"{dataset.name}.jsonl"
        with path.open("w", encoding="utf-8") as handle:
            for title, text in dataset.corpus.items():
                handle.write(json.dumps({"id": title, "title": title, "text": text}, ensure_ascii=False) + "\n")
        report = rag.ingest([path], extractor=extractor)
    notes.append(
        f"corpus: {report.documents_written} paragraphs written, {report.documents_unchanged} unchanged, "
        f"{len(report.failures)} failed"
    )
    return notes + _communities(rag, need_communities)


def _communities(rag: Evaluated, needed: bool) -> list[str]:
    if needed and not rag.store.communities.community_levels():
        run = rag.build_communities()
        return [f"communities built: {sum(run.levels.values())}"]
    return []


def evaluate(
    rag: Evaluated,
    dataset: Dataset,
    modes: list[str],
    ks: list[int],
    peers: bool = False,
    generate: bool = True,
    progress: Progress | None = None,
) -> EvalReport:
    """Score each mode (and each peer) on every question of `dataset`, all against the same graph."""
    notes: list[str] = []
    ks = sorted(set(ks))
    depth = max(DEPTH, max(ks))
    answering = generate and rag.llm is not None and any(q.answer for q in dataset.questions)
    if answering:
        notes.append("answers generated by the LLM; latency includes generation")
    gold = sorted({g for q in dataset.questions for g in (q.gold_doc_ids or q.gold_titles)})
    if gold:
        known = rag.store.retrieval.known_documents(gold)
        if len(known) < len(gold):
            notes.append(
                f"{len(gold) - len(known)} of {len(gold)} gold documents are not in the graph"
                + (" (load the corpus first: --load-corpus)" if dataset.corpus or dataset.corpus_dir else "")
            )
    _ = rag.embedder.dimension  # load the model before timing anything
    embeddings = embed_questions(rag.embedder, [q.question for q in dataset.questions])
    systems: list[SystemScores] = []
    total = len(dataset.questions)
    for mode in modes:
        tally = _Tally(ks)
        for index, item in enumerate(dataset.questions):
            started = time.perf_counter()
            try:
                result = rag.search(item.question, mode=mode, k=depth, generate=answering)
            except GraphStoreError:
                raise  # the database is gone: every further question would fail the same way
            except GraphwrightError as exc:  # one bad question (an LLM failure...) must not end the evaluation
                tally.errors += 1
                notes.append(f"{mode}: question {index}: {exc.__class__.__name__}: {exc}")
                continue
            tally.add(item, result.chunks, result.answer if answering else None, (time.perf_counter() - started) * 1000)
            if progress:
                progress(mode, index + 1, total)
        systems.append(tally.scores(mode, "graphwright"))
    if peers:
        from graphwright.evaluation.peers import make_peers

        found, peer_notes, after = make_peers(rag.store)
        notes += peer_notes
        for name, peer in found.items():
            tally = _Tally(ks)
            for index, (item, embedding) in enumerate(zip(dataset.questions, embeddings)):
                # Peers get the question embedding precomputed; our modes' latency includes embedding.
                started = time.perf_counter()
                chunks = peer(item.question, embedding, depth)
                tally.add(item, chunks, None, (time.perf_counter() - started) * 1000)
                if progress:
                    progress(name, index + 1, total)
            systems.append(tally.scores(name, "peer"))
        notes += after()
        notes.append("peer latency excludes embedding the question (precomputed); ours includes it")
    return EvalReport(dataset=dataset.name, questions=total, ks=ks, systems=systems, notes=notes)

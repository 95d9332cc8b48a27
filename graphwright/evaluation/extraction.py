"""Extraction quality against hand-labelled sentences, scored by Text2KGBench's rules.

Gold: JSONL, `{id, text, triples: [{sub, rel, obj}]}` per line. Each sentence goes through the extraction
ingest runs (`extraction/extract.py`: the extractor, then the graph schema's check), and its predicted
triples are scored as the benchmark's `run_eval.py` scores them:
- a triple matches when subject, relation and object are equal after lower-casing and removing spaces and
  underscores (quotes stay: the benchmark writes literal strings quoted);
- precision and recall count only predicted triples whose relation the sentence's gold uses (the benchmark
  filters them so); a sentence with no prediction scores 0; figures are averaged over every gold sentence;
- ontology conformance: the share of predicted triples whose relation the schema declares (1 with none);
  relation hallucination is the rest; subject and object hallucination: the share whose subject or object
  is not in the sentence (or the schema's type names). The benchmark stems words with NLTK's Porter stemmer
  first; here words are compared unstemmed, which can only count more hallucinations, never fewer.
A folder in Text2KGBench's layout (one sub-folder per ontology with gold.jsonl, schema.json and
examples.jsonl) is scored ontology by ontology, and the figures averaged over ontologies as published."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from pydantic import AliasChoices, BaseModel, Field

from graphwright.extraction.base import Extractor
from graphwright.extraction.examples import read_jsonl_models
from graphwright.extraction.extract import extract_checked
from graphwright.graph_schema import GraphSchema
from graphwright.models import LabelledTriple

_SPACES = re.compile(r"(_|\s+)")


class GoldSentence(BaseModel):
    id: str = Field(min_length=1)
    text: str = Field(min_length=1, validation_alias=AliasChoices("text", "sent"))  # the benchmark says "sent"
    # required, and may be empty: the benchmark scores a sentence that states none of its relations (a
    # prediction there counts against conformance and hallucination, as in its `run_eval.py`)
    triples: list[LabelledTriple]


class SentenceScore(BaseModel):
    id: str
    precision: float
    recall: float
    f1: float
    conformance: float
    subject_hallucination: float
    relation_hallucination: float
    object_hallucination: float
    predicted: list[tuple[str, str, str]]
    gold: list[tuple[str, str, str]]


class Figures(BaseModel):
    precision: float = 0.0
    recall: float = 0.0
    f1: float = 0.0
    conformance: float = 0.0
    subject_hallucination: float = 0.0
    relation_hallucination: float = 0.0
    object_hallucination: float = 0.0
    micro_precision: float = 0.0
    micro_recall: float = 0.0
    micro_f1: float = 0.0


class OntologyScore(BaseModel):
    name: str
    sentences: int
    figures: Figures
    schema_checks: dict[str, int] = Field(default_factory=dict)
    scores: list[SentenceScore] = Field(default_factory=list)
    # sentences the LLM extractor handed to the offline one (its reply unusable), and those that failed
    fallbacks: int = 0
    failed: int = 0


class ExtractionReport(BaseModel):
    extractor: str
    ontologies: list[OntologyScore]
    average: Figures  # of the ontologies' figures, as the benchmark reports
    notes: list[str] = Field(default_factory=list)


def read_gold(path: Path) -> list[GoldSentence]:
    return read_jsonl_models(path, GoldSentence, "gold")


def _norm(text: str) -> str:
    return _SPACES.sub("", text).lower()


def _key(triple: tuple[str, str, str]) -> str:
    return "".join(_norm(part) for part in triple)


def score_sentence(
    gold: GoldSentence, predicted: list[tuple[str, str, str]], schema: GraphSchema | None
) -> SentenceScore:
    gold_triples = [(t.sub, t.rel, t.obj) for t in gold.triples]
    gold_relations = {t[1].replace(" ", "_") for t in gold_triples}
    kept = {_key(t) for t in predicted if t[1] in gold_relations}
    wanted = {_key(t) for t in gold_triples}
    hits = len(kept & wanted)
    precision = hits / len(kept) if kept else 0.0
    recall = hits / len(wanted) if kept else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    if predicted and schema is not None:
        declared = {t.label.replace(" ", "_") for t in schema.relationship_types}
        conformance = sum(1 for t in predicted if t[1] in declared) / len(predicted)
    else:
        conformance = 1.0
    haystack = _norm(gold.text + " ".join(t.label for t in schema.node_types) if schema else gold.text)
    missing = [(_norm(s) not in haystack, _norm(o) not in haystack) for s, _, o in predicted]
    return SentenceScore(
        id=gold.id,
        precision=precision,
        recall=recall,
        f1=f1,
        conformance=conformance,
        relation_hallucination=1 - conformance if predicted else 0.0,
        subject_hallucination=sum(s for s, _ in missing) / len(predicted) if predicted else 0.0,
        object_hallucination=sum(o for _, o in missing) / len(predicted) if predicted else 0.0,
        predicted=predicted,
        gold=gold_triples,
    )


def _figures(scores: list[SentenceScore]) -> Figures:
    n = len(scores) or 1
    predicted = sum(len({_key(t) for t in s.predicted if t[1] in {g[1] for g in s.gold}}) for s in scores)
    gold = sum(len({_key(t) for t in s.gold}) for s in scores)
    hits = sum(len({_key(t) for t in s.predicted} & {_key(t) for t in s.gold}) for s in scores)
    micro_p = hits / predicted if predicted else 0.0
    micro_r = hits / gold if gold else 0.0
    return Figures(
        precision=sum(s.precision for s in scores) / n,
        recall=sum(s.recall for s in scores) / n,
        f1=sum(s.f1 for s in scores) / n,
        conformance=sum(s.conformance for s in scores) / n,
        subject_hallucination=sum(s.subject_hallucination for s in scores) / n,
        relation_hallucination=sum(s.relation_hallucination for s in scores) / n,
        object_hallucination=sum(s.object_hallucination for s in scores) / n,
        micro_precision=micro_p,
        micro_recall=micro_r,
        micro_f1=2 * micro_p * micro_r / (micro_p + micro_r) if micro_p + micro_r else 0.0,
    )


def average(figures: list[Figures]) -> Figures:
    if not figures:
        return Figures()
    rows = [f.model_dump() for f in figures]
    return Figures(**{name: sum(r[name] for r in rows) / len(rows) for name in rows[0]})


def evaluate_ontology(
    name: str,
    extractor: Extractor,
    gold: list[GoldSentence],
    schema: GraphSchema | None,
    on_done: Callable[[int], None] | None = None,
) -> OntologyScore:
    """Extract every gold sentence as ingest would, then score it."""
    extractions, checks = extract_checked(extractor, [(g.id, g.text) for g in gold], schema, on_done)
    by_id = {x.chunk_id: x for x in extractions}
    scores = []
    for sentence in gold:
        found = by_id.get(sentence.id)
        predicted = []
        if found is not None and found.error is None:
            for r in found.relations:
                label = schema.relation_label(r.type) if schema is not None else None
                predicted.append((r.source, label or r.type, r.target))
        scores.append(score_sentence(sentence, predicted, schema))
    return OntologyScore(
        name=name,
        sentences=len(gold),
        figures=_figures(scores),
        schema_checks=dict(checks),
        scores=scores,
        fallbacks=sum(1 for x in extractions if x.fallback),
        failed=sum(1 for x in extractions if x.error),
    )

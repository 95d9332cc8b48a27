"""Scoring an extractor on many labelled sets: each as it is, or leave-one-set-out, what an extractor scores on
an ontology whose data taught it nothing beyond the user's own examples.

Whatever an extractor learns across ontologies (the relation prior, `extraction/relation_prior.py`) is fitted
on all the sets but one and scored on that one, which keeps its schema and its own examples as a user would
give them. The average over the held-out folds predicts an unseen ontology; the in-sample figure (the prior
fitted on every set, the packaged one) does not."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from graphwright.evaluation.extraction import GoldSentence, OntologyScore, evaluate_ontology
from graphwright.extraction.base import Extractor, LearnsFromExamples, SchemaAware, UsesRelationPrior
from graphwright.extraction.relation_prior import Evidence, RelationPrior
from graphwright.graph_schema import GraphSchema
from graphwright.models import ExtractionExample

_log = logging.getLogger(__name__)
Progress = Callable[[str, int, int], None]  # (set, sentences done, sentences)


@dataclass
class LabelledSet:
    name: str
    gold: list[GoldSentence]
    schema: GraphSchema | None
    examples: list[ExtractionExample]


def score_sets(
    sets: list[LabelledSet], make: Callable[[], Extractor], on_done: Progress | None = None
) -> list[OntologyScore]:
    """Each set scored by a new extractor given its schema and examples (a prior it learns across sets is
    the packaged one)."""
    return [_score(one, _prepared(make(), one), on_done) for one in sets]


def cross_validate_sets(
    sets: list[LabelledSet], make: Callable[[], Extractor], on_done: Progress | None = None
) -> list[OntologyScore]:
    """Each set scored by an extractor whose cross-ontology prior was fitted on the other sets only."""
    if len(sets) < 2:
        raise ValueError("leave-one-out needs at least two sets")
    # none while learning: the packaged prior has seen every set
    extractors = [_prepared(make(), one, without_prior=True) for one in sets]
    evidence: list[Evidence | None] = [e.evidence() if isinstance(e, UsesRelationPrior) else None for e in extractors]
    scores = []
    for i, (one, extractor) in enumerate(zip(sets, extractors)):
        others = [e for j, e in enumerate(evidence) if j != i and e is not None]
        if isinstance(extractor, UsesRelationPrior) and others:
            _log.info("fitting the relation prior without %s", one.name)
            extractor.use_relation_prior(RelationPrior.fit(others))
        scores.append(_score(one, extractor, on_done))
    return scores


def _prepared(extractor: Extractor, one: LabelledSet, without_prior: bool = False) -> Extractor:
    if one.schema is not None and isinstance(extractor, SchemaAware):
        extractor.use_schema(one.schema)
    if without_prior and isinstance(extractor, UsesRelationPrior):
        extractor.use_relation_prior(None)
    if one.examples and isinstance(extractor, LearnsFromExamples):
        extractor.use_examples(one.examples)
    return extractor


def _score(one: LabelledSet, extractor: Extractor, on_done: Progress | None) -> OntologyScore:
    tell = partial(_tell, on_done, one.name, len(one.gold)) if on_done is not None else None
    return evaluate_ontology(one.name, extractor, one.gold, one.schema, tell)


def _tell(on_done: Progress, name: str, total: int, done: int) -> None:
    on_done(name, done, total)

"""Offline extraction onto a user's graph schema, learned from their worked examples: no LLM.

Each example sentence is parsed; wherever a labelled triple's subject and object are both candidate mentions
(names, numbers), the pair's features (the words between them, the predicate the parse puts between them,
the words before the object, what kind of value the object is, the order) count towards its relation, and
every other pair of candidates towards "none". A new sentence's candidate pairs are scored by those counts
(multinomial naive Bayes, add-one smoothing) and a pair is written as the best relation when that is not
"none" and the schema allows it. Objects are written the way the examples write that relation's objects
(quoted literals, as in `"1957"`). The same method and settings serve every schema; only the examples
differ."""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from graphwright.extraction.predicates import predicate
from graphwright.graph_schema import GraphSchema, is_literal
from graphwright.models import ExtractedEntity, ExtractedRelation, ExtractionExample

NONE = "<none>"
_NUMBER_RE = re.compile(r"(?<![\w.])\d[\d,.]*\d(?![\w])|(?<![\w.])\d(?![\w])")
_WORD_RE = re.compile(r"[A-Za-z0-9']+")
_MAX_BETWEEN = 8
_NONE_WEIGHT = 0.5  # a pair the examples leave out is weaker evidence than a labelled one


@dataclass(frozen=True)
class Mention:
    text: str
    start: int
    end: int
    kind: str  # NAME or NUMBER


def _norm(text: str) -> str:
    return re.sub(r"[\s_\"]+", "", text).lower()


def _features(sentence: str, doc: Any, subject: Mention, obj: Mention, first: bool) -> list[str]:
    lo, hi = (subject, obj) if subject.start < obj.start else (obj, subject)
    between = _WORD_RE.findall(sentence[lo.end : hi.start].lower())
    feats = [
        f"kind:{obj.kind}",
        f"order:{'so' if subject.start < obj.start else 'os'}",
        f"first:{first}",  # most facts of a sentence are about the name it starts with
    ]
    if len(between) <= _MAX_BETWEEN:
        feats.append("between:" + " ".join(between))
        feats += [f"bw:{w}" for w in between]
    before = _WORD_RE.findall(sentence[max(0, obj.start - 40) : obj.start].lower())[-3:]
    feats += [f"before:{w}" for w in before]
    after = _WORD_RE.findall(sentence[obj.end : obj.end + 30].lower())[:2]
    feats += [f"after:{w}" for w in after]
    if doc is not None:
        a = doc.char_span(subject.start, subject.end, alignment_mode="expand")
        b = doc.char_span(obj.start, obj.end, alignment_mode="expand")
        if a is not None and b is not None:
            found = predicate(a.root, b.root)
            if found is not None:
                feats.append(f"pred:{' '.join(found.words)}:{found.forward}")
                feats += [f"pw:{w}" for w in found.words]
    return feats


class SchemaMapper:
    """Learned from examples for one schema; `relations` maps a parsed sentence onto it."""

    def __init__(self, schema: GraphSchema, mentions: Callable[[str], list[Mention]]) -> None:
        self.schema = schema
        self.mentions = mentions
        self.counts: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
        self.totals: dict[str, float] = defaultdict(float)
        self.vocabulary: set[str] = set()
        self.quoted: Counter[str] = Counter()
        self.seen: Counter[str] = Counter()

    def learn(self, examples: list[ExtractionExample], parse: Callable[[list[str]], dict[str, Any]]) -> None:
        docs = parse([e.text for e in examples])
        for example in examples:
            found = self.mentions(example.text)
            by_text: dict[str, list[Mention]] = defaultdict(list)
            for m in found:
                by_text[_norm(m.text)].append(m)
            labelled: dict[tuple[int, int], str] = {}
            for t in example.triples:
                label = self.schema.relation_label(t.rel) or t.rel
                self.seen[label] += 1
                self.quoted[label] += t.obj.startswith('"')
                subjects, objects = by_text.get(_norm(t.sub), []), by_text.get(_norm(t.obj), [])
                if subjects and objects:
                    labelled[(subjects[0].start, objects[0].start)] = label
            doc = docs.get(example.text)
            for s in found:
                for o in found:
                    if s.start == o.start:
                        continue
                    label = labelled.get((s.start, o.start), NONE)
                    weight = 1.0 if label != NONE else _NONE_WEIGHT
                    for f in _features(example.text, doc, s, o, s.start == found[0].start):
                        self.counts[label][f] += weight
                        self.totals[label] += weight
                        self.vocabulary.add(f)

    def _scores(self, feats: list[str]) -> dict[str, float]:
        size = len(self.vocabulary) + 1
        labels_total = sum(self.totals.values()) or 1.0
        scores = {}
        for label, counts in self.counts.items():
            denominator = self.totals[label] + size
            scores[label] = math.log(self.totals[label] / labels_total) + sum(
                math.log((counts.get(f, 0.0) + 1.0) / denominator) for f in feats
            )
        return scores

    def relations(self, sentence: str, doc: Any) -> tuple[list[ExtractedEntity], list[ExtractedRelation]]:
        """The schema's relations this sentence states, by the examples, with their typed ends. Each object
        gets at most one: the subject and relation that beat "none" by the widest margin."""
        found = self.mentions(sentence)
        best: dict[int, tuple[float, Mention, str]] = {}
        for s in found:
            if s.kind == "NUMBER":
                continue
            for o in found:
                if s.start == o.start:
                    continue
                scores = self._scores(_features(sentence, doc, s, o, s.start == found[0].start))
                label = max(scores, key=scores.__getitem__)
                if label == NONE:
                    continue
                margin = scores[label] - scores.get(NONE, -math.inf)
                if o.start not in best or margin > best[o.start][0]:
                    best[o.start] = (margin, s, label)
        entities: dict[str, ExtractedEntity] = {}
        relations = []
        objects = {m.start: m for m in found}
        for start, (_, s, label) in sorted(best.items()):
            o = objects[start]
            patterns = [p for p in self.schema.patterns if p.relationship == label]
            source_type = patterns[0].source if patterns else "Thing"
            known = entities.get(s.text)
            if known is not None:  # a name keeps one type: a pattern from it, if the relation has one
                source_type = next((p.source for p in patterns if p.source == known.type), known.type)
            target_type = next((p.target for p in patterns if p.source == source_type), "Thing")
            target = o.text
            if is_literal(target_type) and self.quoted[label] * 2 > self.seen[label]:
                target = f'"{o.text}"'
            entities.setdefault(s.text, ExtractedEntity(name=s.text, type=source_type, description=sentence[:300]))
            entities.setdefault(target, ExtractedEntity(name=target, type=target_type, description=sentence[:300]))
            relations.append(
                ExtractedRelation(
                    source=s.text, target=target, type=label, description=sentence[:200], evidence=sentence[:500]
                )
            )
        return list(entities.values()), relations


def number_mentions(sentence: str) -> list[Mention]:
    return [Mention(m.group(0), m.start(), m.end(), "NUMBER") for m in _NUMBER_RE.finditer(sentence)]

"""What any ontology's examples teach about relations in general, for the relations a user's examples never show.

A schema mapper learns its relations from the user's examples (`schema_mapper.py`); a relation the examples do
not show (12% of text2kg-webnlg's gold facts) it could never write. This prior scores a (subject, object,
relation) triple from features that do not name the relation, so what was learned on other ontologies carries
to this one:
- the relation's own words (its label and description, cut to stems) between, around or on the dependency
  path between the pair ("academic staff" for `academicStaffSize`, "born" for `birthDate` by association);
- **associations learned across ontologies**: how much more often a relation whose label holds stem `l` joins
  a pair whose context holds stem `c` than chance (pointwise mutual information: "born" with `birth`,
  "directed" with `director`, "capital" with `capital`), and the same between the object's named-entity type
  and the relation's target type (GPE with `country`, `city`);
- whether the object is the kind of value the relation's range takes (a date, a number, a name), whether the
  subject is the sentence's topic, how far apart they are.

A logistic regression over these few features is fitted on the pairs of many ontologies' examples; the
threshold is the one that gave the best F1 on those same training pairs. Nothing in it depends on one
ontology, so it is validated leave-one-ontology-out (`graphwright eval-extraction --cross-validate`), and the
packaged one (`data/relation_prior.json`) is fitted on all 19 ontologies of text2kg-webnlg (CC BY 4.0)."""

from __future__ import annotations

import hashlib
import json
import math
import zlib
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PACKAGED = Path(__file__).with_name("data") / "relation_prior.json"
_MIN_PAIRS = 2  # an association seen in fewer positive pairs is chance
# of the (none pair, relation) rows, which are most of them, all that share a word with the relation (the
# hard ones) and this share of the rest are learned from
_NONE_SAMPLE = 0.05
_NAMES = (
    "bias",
    "label_between",
    "label_path",
    "label_around",
    "label_share",
    "type_near",
    "assoc_context",
    "assoc_type",
    "kind_fits",
    "kind_clash",
    "topic",
    "far",
    "subject_first",
)


@dataclass(frozen=True)
class PairView:
    """What the sentence says around one (subject, object) pair, as stems; read from the mapper's features."""

    between: frozenset[str]
    around: frozenset[str]
    path: frozenset[str]
    object_words: frozenset[str]
    object_ner: str
    object_kind: str
    topic: bool
    far: bool
    subject_first: bool

    @classmethod
    def of(cls, observations: Iterable[str]) -> PairView:
        between: set[str] = set()
        around: set[str] = set()
        path: set[str] = set()
        words: set[str] = set()
        ner, kind, topic, far, first = "-", "NAME", False, False, True
        for f in observations:
            name, _, value = f.partition(":")
            stem = value[:5]
            if name == "bw" and len(value) > 2:
                between.add(stem)
            elif name in ("before", "after", "sbefore", "safter1") and len(value) > 2:
                around.add(stem)
            elif name in ("pl", "pw") and len(value) > 2:
                path.add(stem)
            elif name == "ow" and len(value) > 2:
                words.add(stem)
            elif name == "oner":
                ner = value
            elif name == "kind":
                kind = value
            elif name == "topic":
                topic = value == "True"
            elif name == "far":
                far = True
            elif name == "order":
                first = value == "so"
        return cls(
            frozenset(between), frozenset(around), frozenset(path), frozenset(words), ner, kind, topic, far, first
        )

    def context(self) -> frozenset[str]:
        return self.between | self.path

    def everything(self) -> frozenset[str]:
        return self.between | self.path | self.around


@dataclass(frozen=True)
class LabelView:
    """A relation as the prior sees it: the stems of its label and description, of its target type, and
    the kind of value its range takes (`name`, `date`, `year`, `number`, `text`)."""

    stems: frozenset[str]
    type_stems: frozenset[str]
    range: str


def fits(kind: str, range_: str) -> bool:
    """Whether a span of this kind can be a value of this range."""
    if range_ == "name":
        return kind == "NAME"
    if range_ in ("date", "year"):
        return kind in ("DATE", "NUMBER")
    if range_ == "number":
        return kind == "NUMBER"
    return kind in ("NAME", "NOUN", "QUOTE")


@dataclass
class Associations:
    """Counts of stems seen together in positive pairs, and of each alone; read as clipped PMI."""

    pairs: Counter[tuple[str, str]] = field(default_factory=Counter)
    left: Counter[str] = field(default_factory=Counter)  # context stem (or NER type) over all pairs
    right: Counter[str] = field(default_factory=Counter)  # label stem (or type stem) over positive pairs
    positives: int = 0
    total: int = 0

    def __sub__(self, other: Associations) -> Associations:
        return Associations(
            self.pairs - other.pairs,
            self.left - other.left,
            self.right - other.right,
            self.positives - other.positives,
            self.total - other.total,
        )

    def __add__(self, other: Associations) -> Associations:
        return Associations(
            self.pairs + other.pairs,
            self.left + other.left,
            self.right + other.right,
            self.positives + other.positives,
            self.total + other.total,
        )

    def best(self, left: Iterable[str], right: Iterable[str]) -> float:
        """The strongest association between any of the stems on each side (0 when none is above chance)."""
        right = list(right)
        best = 0.0
        for a in left:
            na = self.left.get(a, 0)
            if not na:
                continue
            for b in right:
                n = self.pairs.get((a, b), 0)
                if n >= _MIN_PAIRS:
                    # P(b | a, positive) against P(b | positive), each pair counted once
                    expected = na * self.right[b] / max(self.total, 1)
                    best = max(best, math.log(n / max(expected, 1e-9)))
        return min(best, 8.0)

    def pruned(self) -> Associations:
        kept = Counter({k: v for k, v in self.pairs.items() if v >= _MIN_PAIRS})
        lefts = {a for a, _ in kept}
        rights = {b for _, b in kept}
        return Associations(
            kept,
            Counter({k: v for k, v in self.left.items() if k in lefts}),
            Counter({k: v for k, v in self.right.items() if k in rights}),
            self.positives,
            self.total,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "pairs": [[a, b, n] for (a, b), n in sorted(self.pairs.items())],
            "left": dict(sorted(self.left.items())),
            "right": dict(sorted(self.right.items())),
            "positives": self.positives,
            "total": self.total,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Associations:
        return cls(
            Counter({(a, b): n for a, b, n in data["pairs"]}),
            Counter(data["left"]),
            Counter(data["right"]),
            data["positives"],
            data["total"],
        )


@dataclass
class Evidence:
    """One ontology's examples as the prior learns from them: each candidate pair's view, the relation the
    examples give it ("" for none), and the ontology's relations."""

    pairs: list[tuple[PairView, str]]
    labels: dict[str, LabelView]

    def words(self) -> Associations:
        found = Associations()
        ner = Associations()
        for view, gold in self.pairs:
            found.total += 1
            found.left.update(view.context())
            ner.total += 1
            ner.left[view.object_ner] += 1
            if gold and gold in self.labels:
                label = self.labels[gold]
                found.positives += 1
                found.right.update(label.stems)
                found.pairs.update((c, s) for c in view.context() for s in label.stems)
                ner.positives += 1
                ner.right.update(label.type_stems)
                ner.pairs.update((view.object_ner, t) for t in label.type_stems)
        # one Associations holding both: NER types are upper case, stems lower case, so they never collide
        return found + ner


class RelationPrior:
    """Logistic regression over `_NAMES`, and the associations it reads."""

    def __init__(self, weights: list[float], cut: float, associations: Associations) -> None:
        self.weights = weights
        self.cut = cut  # the logit above which a relation is written
        self.associations = associations

    def features(self, view: PairView, label: LabelView) -> list[float]:
        a = self.associations
        overlap = [len(label.stems & part) for part in (view.between, view.path, view.around)]
        return [
            1.0,
            float(overlap[0] > 0),
            float(overlap[1] > 0),
            float(overlap[2] > 0),
            max(overlap) / (len(label.stems) or 1),
            float(bool(label.type_stems & (view.around | view.between | view.object_words))),
            a.best(view.context(), label.stems) / 4,
            a.best([view.object_ner], label.type_stems) / 4,
            float(fits(view.object_kind, label.range)),
            float(not fits(view.object_kind, label.range)),
            float(view.topic),
            float(view.far),
            float(view.subject_first),
        ]

    def logit(self, view: PairView, label: LabelView) -> float:
        return sum(w * x for w, x in zip(self.weights, self.features(view, label))) - self.cut

    # --- fitting ------------------------------------------------------------------------------------------
    @classmethod
    def fit(cls, evidence: list[Evidence]) -> RelationPrior:
        """Fitted on many ontologies' pairs. A row's associations are counted without its own ontology's
        pairs, as they will be for an ontology the prior has never seen."""
        import numpy as np

        counts = [e.words() for e in evidence]
        everything = sum(counts, Associations())
        rows: list[list[float]] = []
        ys: list[float] = []
        for e, own in zip(evidence, counts):
            without = cls([0.0] * len(_NAMES), 0.0, everything - own)
            for view, gold in e.pairs:
                for name, label in e.labels.items():
                    positive = name == gold
                    if not gold and not (label.stems & view.everything()) and not _sampled(view, name):
                        continue
                    if not positive and not fits(view.object_kind, label.range):
                        continue  # never written: the decoder asks only for fitting kinds
                    rows.append(without.features(view, label))
                    ys.append(1.0 if positive else 0.0)
        x = np.asarray(rows)
        y = np.asarray(ys)
        weights = np.zeros(x.shape[1])
        ridge = 1e-3 * len(y) * np.eye(x.shape[1])
        for _ in range(25):  # Newton's method: few features, many rows; a little L2 keeps it finite
            p = 1 / (1 + np.exp(-(x @ weights)))
            gradient = x.T @ (p - y) + ridge @ weights
            hessian = (x * (p * (1 - p))[:, None]).T @ x + ridge
            step = np.linalg.solve(hessian, gradient)
            weights -= step
            if np.abs(step).max() < 1e-6:
                break
        scores = x @ weights
        return cls([float(w) for w in weights], _best_cut(scores, y), everything.pruned())

    # --- storing ------------------------------------------------------------------------------------------
    def to_json(self) -> str:
        return json.dumps(
            {"features": list(_NAMES), "weights": self.weights, "cut": self.cut, **self.associations.to_json()}
        )

    def fingerprint(self) -> str:
        """Names this prior in an extractor's version: another prior extracts again."""
        return hashlib.sha256(self.to_json().encode()).hexdigest()[:12]

    @classmethod
    def from_json(cls, text: str) -> RelationPrior:
        data = json.loads(text)
        if data.get("features") != list(_NAMES):
            raise ValueError("the relation prior was fitted with other features: fit it again")
        return cls(data["weights"], data["cut"], Associations.from_json(data))

    @classmethod
    def packaged(cls) -> RelationPrior | None:
        """The prior fitted on text2kg-webnlg, shipped with the package (None if absent)."""
        return cls.from_json(PACKAGED.read_text(encoding="utf-8")) if PACKAGED.is_file() else None


def _sampled(view: PairView, label: str) -> bool:
    """A fixed `_NONE_SAMPLE` share of the (none pair, relation) rows: the same on every run."""
    key = f"{sorted(view.between)}{sorted(view.path)}{view.object_kind}{label}".encode()
    return zlib.crc32(key) % 100 < _NONE_SAMPLE * 100


def _best_cut(scores: Any, y: Any) -> float:
    """The score above which the training rows' F1 is highest (rows of all relations pooled)."""
    import numpy as np

    order = np.argsort(-scores)
    hits = np.cumsum(y[order])
    taken = np.arange(1, len(order) + 1)
    f1 = 2 * hits / (taken + y.sum())
    best = int(np.argmax(f1))
    return float(scores[order][best]) - 1e-9

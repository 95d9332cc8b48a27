"""Offline extraction onto a user's graph schema, learned from their worked examples: no LLM.

1. **Candidates.** Every span of a sentence that could be a fact's end: the extractor's names, proper-noun runs
   ("1089 Tama", "University of Texas at Austin"), the recogniser's names, "City, State" pairs, noun phrases
   without their determiner ("sludge metal"; "raisins" stands for raisin), quoted strings, numbers and dates
   (read into a value: `$556,300,000` is 556300000, "June 11, 1929" is 1929-06-11), and the names the
   examples' triples use wherever the sentence has them. A span is written as the examples name the thing:
   "Mermaid" as `Mermaid (Train song)`, "AC Lumezzane" as `A.C. Lumezzane`, "U.S." as `United States`, and
   what their texts call a name by elimination ("American" for United_States).
2. **A pair classifier.** Each (subject, object) pair of candidates is described by what the sentence says
   about it: the words between and around, the dependency path between them with its lemmas (Mintz et al.,
   2009), the object's head words, the predicate, the kinds of span and of name, how each span is built (a
   "City, State" pair, a possessive, a list, a name with common words around it), and whether the subject is
   the text's topic (a later sentence's "It" stands for the first sentence's first name). Softmax
   regression, trained on the examples' sentences by stochastic gradient descent, scores each relation and
   "none": the pairs their triples label are the facts, every other pair a "none" (weighed down, they are
   ten to one), and pairs whose fact the text states under another name are left out. Features shared by
   every relation carry over to relations the examples seldom show: the relation's own words (and its
   schema description's) near the pair ("academic staff" for `academicStaffSize`), and whether the object
   is the kind of value the relation's objects are.
3. **Decoding.** A relation is written when it beats "none" and the examples show it between spans of those
   kinds; an object belongs to one subject and chosen spans never cross (one reading of the sentence); the
   types come from the schema's patterns, and objects are written the way the examples write that relation's
   objects (quoted or not, `1959-01-01` or `1959`, `4000.0` or `4000`, `252000.0 (millimetres)`); a name the
   examples do not know takes the disambiguation most of their names in that role carry ("Bolt" as a
   creator's subject is `Bolt (comicsCharacter)` when most of the examples' characters are written so).

One method and one configuration for every schema: only the examples differ."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable
from typing import Any

from graphwright.extraction.predicates import predicate
from graphwright.extraction.relation_prior import Evidence, LabelView, PairView, RelationPrior, fits
from graphwright.extraction.schema_spans import (
    LABEL_FEATURES,
    MAX_BETWEEN,
    MAX_CANDIDATES,
    QUOTE_RE,
    RANGE_FORMATS,
    RANGES,
    STOPWORDS,
    UNIT_RE,
    VALUE_ENTITIES,
    WORD_RE,
    Mention,
    aliases_of,
    anaphoric,
    conjuncts_of,
    date_mentions,
    first_name,
    fits_format,
    label_words,
    loose_name,
    mixed_case,
    name_suffix,
    norm_name,
    number_mentions,
    path_features,
    proper_runs,
    render_value,
    short_forms,
    span_of,
    span_shape,
    stems_of,
    value_format,
    value_unit,
    word_forms,
    words_between,
)
from graphwright.graph_schema import GraphSchema, is_literal
from graphwright.models import ExtractedEntity, ExtractedRelation, ExtractionExample

NONE = "<none>"


MAPPING_METHOD = "schema-mapping-4"  # in the extractor's version: a new method extracts again


_EPOCHS = 5


_NONE_SHARE = 0.5  # "none" pairs weigh, in all, half as much as the facts


_STEP = 0.1


_RUNS = 3  # orders of the pairs whose weights are averaged


class SchemaMapper:
    """Learned from examples for one schema; `relations` maps a chunk's parsed sentences onto it."""

    def __init__(self, schema: GraphSchema, names: Callable[[str], list[Mention]]) -> None:
        self.schema = schema
        self.names = names  # the extractor's own names in a sentence
        self.labels: list[str] = [NONE]
        self.features: dict[str, int] = {}
        self.weights: Any = None  # features x labels
        self.shared: Any = None  # weights of the label-dependent features
        self.formats: dict[str, str] = {}
        # (relation, "sub" or "obj") -> the disambiguation most of the examples' names in that role carry
        self.suffixes: dict[tuple[str, str], str] = {}
        self.units: dict[str, str] = {}  # the unit a relation's values are written with: "(millimetres)"
        self.quoted: dict[str, bool] = {}
        self.known: dict[str, tuple[str, str]] = {}  # normalised name -> (as written, its type)
        self.written: dict[str, tuple[str, str]] = {}  # the same, keyed by the lowered written name
        self.loose: dict[str, str] = {}  # the names without accents, dots and spaces -> as written
        self.label_words: dict[str, set[str]] = {}
        self.word_forms: dict[str, str] = {}  # a word as the text writes it -> as the examples' names write it
        self.functional: set[str] = set()
        # (subject kind, object kind) pairs each relation's examples show: "weather FOUNDED_BY spring" is
        # not a fact of a relation whose examples only ever link two names
        self.kinds: dict[str, set[tuple[str, str]]] = defaultdict(set)
        # the schema's relations the examples never show: written only by the prior (relation_prior.py)
        self.unseen: list[str] = []
        self.prior: RelationPrior | None = None
        self.evidence: Evidence | None = None  # the examples' pairs, for fitting a prior on many ontologies

    def label_view(self, label: str) -> LabelView:
        """A relation as the prior sees it: its words, its target type's words, the kind of value it takes."""
        target = next((p.target for p in self.schema.patterns if p.relationship == label), "Thing")
        if is_literal(target):
            kind = target.lower().removeprefix("xsd:")
            range_ = next((r for r, names in RANGES.items() if kind in names), "text")
            type_stems: frozenset[str] = frozenset()
        else:
            range_, type_stems = "name", frozenset(label_words(target))
        return LabelView(frozenset(self.label_words.get(label, label_words(label))), type_stems, range_)

    # --- candidates ----------------------------------------------------------------------------------
    def candidates(self, sentence: str, doc: Any) -> list[Mention]:
        found: dict[tuple[int, int], Mention] = {}

        def add(m: Mention | None) -> None:
            if m is not None and m.end > m.start and (m.start, m.end) not in found:
                found[(m.start, m.end)] = m

        for m in self.names(sentence):
            add(m)
        if doc is not None:
            runs = proper_runs(doc)
            spans = [span_of(run, sentence) for run in runs]
            for s in spans:
                add(s)
            for a, b in zip(spans, spans[1:]):  # "Buffalo, New York"
                if a is not None and b is not None and sentence[a.end : b.start].strip() == ",":
                    add(Mention(sentence[a.start : b.end], a.start, b.end, "NAME"))
            for ent in doc.ents:  # the recogniser's names, where the pipeline has one
                if ent.label_ not in VALUE_ENTITIES:
                    add(span_of(list(ent), sentence))
            for chunk in doc.noun_chunks:
                add(span_of(list(chunk), sentence))
                compound = [t for t in chunk if t.dep_ in ("compound", "amod", "nmod") or t.i == chunk.root.i]
                if len(compound) != len(chunk):
                    add(span_of(compound, sentence))
        for match in QUOTE_RE.finditer(sentence):
            group = 1 if match.group(1) is not None else 2
            add(Mention(match.group(group), match.start(group), match.end(group), "QUOTE"))
        dates = date_mentions(sentence)
        for m in dates:
            add(m)
        for m in number_mentions(sentence):
            if not any(d.start <= m.start < d.end and len(m.value) != 4 for d in dates):
                add(m)
        known = self._known_in(sentence.lower())
        for start, end in known:
            add(Mention(sentence[start:end], start, end, "NAME"))
        # the words of a name the examples use are that name: "It" and "Great" of "It's Great to Be Young" go
        inside = [
            m
            for m in found.values()
            if any(a <= m.start and m.end <= b and (a, b) != (m.start, m.end) for a, b in known)
        ]
        for m in inside:
            del found[(m.start, m.end)]
        return sorted(found.values(), key=lambda m: (m.start, -m.end))[:MAX_CANDIDATES]

    def _known_in(self, lowered: str) -> list[tuple[int, int]]:
        """Where the sentence writes a name the examples' triples use (its first place, as whole words)."""
        out = []
        for key in self.written:
            i = lowered.find(key) if len(key) >= 3 else -1
            if i >= 0:
                before = lowered[i - 1] if i > 0 else " "
                after = lowered[i + len(key)] if i + len(key) < len(lowered) else " "
                if not before.isalnum() and not after.isalnum():
                    out.append((i, i + len(key)))
        return out

    def _written_forms(self) -> list[tuple[str, tuple[str, str]]]:
        out = []
        for written, type_ in self.known.values():
            out.append((written.lower(), (written, type_)))
            out += [(alias.lower(), (written, type_)) for alias in aliases_of(written)]
        return out

    def name_of(self, m: Mention) -> str | None:
        """The examples' name for what a span names ("Mermaid (Train song)" for "Mermaid", "A.C. Lumezzane"
        for "AC Lumezzane"), if they have one."""
        for form in (m.text, m.value):
            if form and norm_name(form) in self.known:
                return self.known[norm_name(form)][0]
        for form in (m.text, m.value):
            if form and len(loose_name(form)) >= 4 and loose_name(form) in self.loose:
                return self.loose[loose_name(form)]
        return None

    def _names(self, m: Mention) -> set[str]:
        named = self.name_of(m)
        return {norm_name(m.text), norm_name(m.value)} | ({norm_name(named)} if named else set()) - {""}

    def _learn_aliases(
        self, examples: list[ExtractionExample], split: Callable[[str], list[str]], found_in: dict[str, list[Mention]]
    ) -> None:
        """What the examples' texts call their names, by elimination: where a text leaves exactly one name of
        its triples unwritten and exactly one of its own names unused ("American" and United_States), the one
        is the other. Taken when two examples or more agree."""
        votes: Counter[tuple[str, str]] = Counter()
        for example in examples:
            spans = [m for sentence in split(example.text) for m in found_in.get(sentence, []) if m.kind == "NAME"]
            ends = {t.sub for t in example.triples} | {t.obj for t in example.triples if not t.obj.startswith('"')}
            ends = {e for e in ends if not any(c.isdigit() for c in e)}
            named = {n for m in spans for n in self._names(m)}
            unwritten = [e for e in ends if norm_name(e) not in named]
            used = {norm_name(e) for e in ends}
            unused = [m for m in spans if not self._names(m) & used]
            longest = [
                m
                for m in unused
                if not any(
                    o is not m and o.start <= m.start and m.end <= o.end and (o.end - o.start) > (m.end - m.start)
                    for o in unused
                )
            ]
            if len(unwritten) == 1 and len({norm_name(m.text) for m in longest}) == 1:
                votes[(norm_name(longest[0].text), unwritten[0])] += 1
        for (surface, name), count in votes.items():
            if count >= 2 and surface not in self.known:
                self.known[surface] = (name.replace("_", " "), self.known.get(norm_name(name), ("", "Thing"))[1])

    # --- features ------------------------------------------------------------------------------------
    def _observations(self, sentence: str, doc: Any, s: Mention, o: Mention, topic: bool) -> list[str]:
        between = words_between(sentence, s, o)
        feats = [
            "bias",
            f"kind:{o.kind}",
            f"skind:{s.kind}",
            f"order:{'so' if s.start < o.start else 'os'}",
            f"topic:{topic}",
            f"kind_order:{o.kind}:{'so' if s.start < o.start else 'os'}:{topic}",
        ]
        if len(between) <= MAX_BETWEEN:
            feats += [f"bw:{w}" for w in between]
        else:
            feats.append("far")
        before = WORD_RE.findall(sentence[max(0, o.start - 40) : o.start].lower())[-3:]
        feats += [f"before:{w}" for w in before]
        if before:
            feats.append(f"before1:{before[-1]}")
        after = WORD_RE.findall(sentence[o.end : o.end + 30].lower())[:2]
        feats += [f"after:{w}" for w in after] + [f"after1:{w}" for w in after[:1]]
        feats += [f"ow:{w}" for w in WORD_RE.findall(o.text.lower())[-2:]]
        feats += [f"sw:{w}" for w in WORD_RE.findall(s.text.lower())[-1:]]
        feats += [f"oshape:{x}" for x in span_shape(o)] + [f"sshape:{x}" for x in span_shape(s)]
        if s.start >= 0:  # "the film Big Hero 6", "Big Hero 6, distributed by"
            s_before = WORD_RE.findall(sentence[max(0, s.start - 40) : s.start].lower())[-3:]
            feats += [f"sbefore1:{w}" for w in s_before[-1:]] + [f"sbefore:{w}" for w in s_before]
            s_after = WORD_RE.findall(sentence[s.end : s.end + 30].lower())[:1]
            feats += [f"safter1:{w}" for w in s_after]
        if doc is not None:
            b = doc.char_span(o.start, o.end, alignment_mode="expand")
            if b is not None:
                head = b.root.head
                if mixed_case(b):
                    feats.append("oshape:mixed")
                feats.append(f"oner:{b.root.ent_type_ or '-'}")
                feats.append(f"odep:{b.root.dep_}")
                feats.append(f"ohead:{head.lemma_.lower()}")
                feats.append(f"ohead2:{head.head.lemma_.lower()}")
                feats.append(f"ohead12:{head.lemma_.lower()}:{head.head.lemma_.lower()}")
            a = doc.char_span(s.start, s.end, alignment_mode="expand") if s.start >= 0 else None
            if a is not None:
                feats.append(f"sdep:{a.root.dep_}")
                if mixed_case(a):
                    feats.append("sshape:mixed")
                feats.append(f"sner:{a.root.ent_type_ or '-'}")
                if b is not None:
                    feats += path_features(a.root, b.root)
                    found = predicate(a.root, b.root)
                    if found is not None and found.words:
                        feats.append(f"pred:{' '.join(found.words)}:{found.forward}")
                        feats += [f"pw:{w}" for w in found.words]
        return feats

    def _context_stems(self, sentence: str, s: Mention, o: Mention) -> set[str]:
        words = words_between(sentence, s, o)[:MAX_BETWEEN]
        words += WORD_RE.findall(sentence[max(0, o.start - 40) : o.start].lower())[-4:]
        words += WORD_RE.findall(sentence[o.end : o.end + 30].lower())[:3]
        return stems_of(words)

    def _label_features(self, sentence: str, s: Mention, o: Mention) -> Any:
        """Per label: its own words near the pair, and whether the object's kind fits how its objects are written."""
        import numpy as np

        stems = self._context_stems(sentence, s, o)
        rows = np.zeros((len(self.labels), LABEL_FEATURES))
        for i, label in enumerate(self.labels):
            if label == NONE:
                continue
            words = self.label_words.get(label, set())
            overlap = len(words & stems)
            rows[i, 0] = overlap > 0
            rows[i, 1] = overlap / (len(words) or 1)
            fmt = self.formats.get(label, "text")
            rows[i, 2] = fits_format(o, fmt)
            rows[i, 3] = not fits_format(o, fmt)
        return rows

    # --- learning ------------------------------------------------------------------------------------
    def learn(
        self,
        examples: list[ExtractionExample],
        parse: Callable[[list[str]], dict[str, Any]],
        split: Callable[[str], list[str]],
    ) -> None:
        # A relation's conventions (quoted or not, a date or a year, its unit) are judged by its distinct
        # facts: examples repeat one fact many times, and one subject's habit is not the knowledge base's.
        facts_of: dict[str, dict[tuple[str, str], None]] = defaultdict(dict)
        subject_names: dict[str, set[str]] = defaultdict(set)
        for example in examples:
            for t in example.triples:
                label = self.schema.relation_label(t.rel) or t.rel
                if label not in self.labels:
                    self.labels.append(label)
                facts_of[label][(t.sub, t.obj)] = None
                subject_names[label].add(t.sub)
        values = {label: [obj for _, obj in facts] for label, facts in facts_of.items()}
        for label in self.labels[1:]:
            self.suffixes[(label, "sub")] = name_suffix(subject_names[label])
            self.suffixes[(label, "obj")] = name_suffix({v for v in values[label] if not v.startswith('"')})
        several: set[str] = set()  # relations some example gives one subject two objects of
        for example in examples:
            facts = {(t.sub, self.schema.relation_label(t.rel) or t.rel, norm_name(t.obj)) for t in example.triples}
            per_subject = Counter((sub, label) for sub, label, _ in facts)
            several.update(label for (_, label), n in per_subject.items() if n > 1)
        # the others (a birth date, a runtime) take one object per subject
        self.functional = set(self.labels[1:]) - several
        for label in self.labels[1:]:
            self.formats[label] = value_format(values[label])
            self.units[label] = value_unit(values[label])
            self.quoted[label] = sum(v.startswith('"') for v in values[label]) * 2 > len(values[label])
            described = WORD_RE.findall(self.schema.relationship_description(label).lower())
            self.label_words[label] = label_words(label) | stems_of(w for w in described if w not in STOPWORDS)
        for relation in self.schema.relationship_types:
            if relation.label not in self.labels:
                self.unseen.append(relation.label)
                described = WORD_RE.findall(relation.description.lower())
                self.label_words[relation.label] = label_words(relation.label) | stems_of(
                    w for w in described if w not in STOPWORDS
                )
                self.formats[relation.label] = RANGE_FORMATS.get(self.label_view(relation.label).range, "text")
        for example in examples:
            for t in example.triples:
                label = self.schema.relation_label(t.rel) or t.rel
                patterns = [p for p in self.schema.patterns if p.relationship == label]
                if patterns:
                    self.known.setdefault(norm_name(t.sub), (t.sub.replace("_", " "), patterns[0].source))
                    if not is_literal(patterns[0].target) and not t.obj.startswith('"'):
                        self.known.setdefault(norm_name(t.obj), (t.obj.replace("_", " "), patterns[0].target))
        for written, type_ in list(self.known.values()):
            # "Mermaid (Train song)": the knowledge base's name for what the sentences call "Mermaid"
            for alias in aliases_of(written):
                self.known.setdefault(norm_name(alias), (written, type_))
            for short in short_forms(written):  # "U.S.", "English": looked up, never searched for
                self.known.setdefault(norm_name(short), (written, type_))
        # found in sentences by their lowered written form; looked up by their normalised one
        self.written = {key: value for key, value in self._written_forms()}
        self.loose = {loose_name(key): written for key, (written, _) in self.written.items()}
        self.word_forms = word_forms(written for written, _ in self.known.values())

        sentences = [(e, s) for e in examples for s in split(e.text)]
        docs = parse([s for _, s in sentences])
        found_in = {sentence: self.candidates(sentence, docs.get(sentence)) for _, sentence in sentences}
        with_topics = self._with_topics(sentences, docs, found_in)
        self._learn_aliases(examples, split, found_in)
        rows = []  # (observations, label features, gold label index) per candidate pair
        for example, sentence, topic in with_topics:
            doc = docs.get(sentence)
            found = found_in[sentence]
            labelled: dict[tuple[int, int, int], int] = {}  # (subject start, object span) -> label
            # A triple the sentence states under other names ("The Quine Tapes" for "Bootleg Series Volume 1:
            # The Quine Tapes") leaves its found end's pairs unknown: not learned as "none".
            unsure_objects: set[tuple[int, int]] = set()
            unsure_subjects: set[str] = set()
            gold_objects: set[tuple[int, int]] = set()
            subjects = found + ([topic] if topic is not None else [])
            for t in example.triples:
                label = self.schema.relation_label(t.rel) or t.rel
                sub, obj = norm_name(t.sub), norm_name(t.obj)
                bare = norm_name(UNIT_RE.sub(r"\1", t.obj.strip('"')))  # a value without its unit
                fmt = self.formats.get(label, "text")
                ends_s = [s for s in subjects if sub in self._names(s)]
                ends_o = [o for o in found if obj in self._names(o) or bare == norm_name(render_value(o, fmt, False))]
                gold_objects.update((o.start, o.end) for o in ends_o)
                if not ends_o:
                    unsure_subjects.update(norm_name(s.text) for s in ends_s)
                elif not ends_s:
                    unsure_objects.update((o.start, o.end) for o in ends_o)
                for s in ends_s:
                    for o in ends_o:
                        labelled[(s.start, o.start, o.end)] = self.labels.index(label)
            first = first_name(found)
            for s, o, is_topic in self._pairs(found, topic):
                gold = labelled.get((s.start, o.start, o.end), 0)
                if gold:
                    self.kinds[self.labels[gold]].add((s.kind, o.kind))
                if gold == 0 and (
                    (o.start, o.end) in unsure_objects
                    or (norm_name(s.text) in unsure_subjects and (o.start, o.end) not in gold_objects)
                ):
                    continue
                rows.append(
                    (
                        self._observations(sentence, doc, s, o, is_topic or s.start == first),
                        self._label_features(sentence, s, o),
                        gold,
                    )
                )
        # a relation the examples never show writes its text values as most of theirs are written
        texts = [self.quoted[label] for label in self.labels[1:] if self.formats[label] == "text"]
        for label in self.unseen:
            self.quoted[label] = sum(texts) * 2 > len(texts)
        self.evidence = Evidence(
            [(PairView.of(obs), self.labels[gold] if gold else "") for obs, _, gold in rows],
            {label: self.label_view(label) for label in self.labels[1:] + self.unseen},
        )
        for observations, _, _ in rows:
            for f in observations:
                self.features.setdefault(f, len(self.features))
        encoded = [(sorted({self.features[f] for f in obs}), lab, gold) for obs, lab, gold in rows]
        # "none" pairs outnumber facts ten to one: weighed down, so the facts are not drowned
        positives = sum(1 for _, _, gold in encoded if gold != 0)
        none_weight = min(1.0, _NONE_SHARE * positives / max(len(encoded) - positives, 1))
        # The mean of a few runs over the pairs in different orders: one run's weights depend on the order
        # it saw the pairs in (text2kg F1 0.294 to 0.298 over three orders), their mean much less.
        runs = [self._fit(encoded, none_weight, seed) for seed in range(_RUNS)]
        self.weights = sum(w for w, _ in runs) / _RUNS
        self.shared = sum(s for _, s in runs) / _RUNS

    def _fit(self, encoded: list[tuple[list[int], Any, int]], none_weight: float, seed: int) -> tuple[Any, Any]:
        """Softmax regression by stochastic gradient descent over the pairs; few passes and a falling step
        keep the weights small, which is what lets them carry over to sentences the examples do not have."""
        import numpy as np

        weights = np.zeros((len(self.features), len(self.labels)))
        shared = np.zeros(LABEL_FEATURES)
        rng = np.random.default_rng(seed)
        for epoch in range(_EPOCHS):
            step = _STEP / (1 + epoch)
            for index in rng.permutation(len(encoded)):
                idx, lab, gold = encoded[index]
                z = weights[idx].sum(axis=0) + lab @ shared
                p = np.exp(z - z.max())
                p /= p.sum()
                p[gold] -= 1.0
                if gold == 0:
                    p *= none_weight
                weights[idx] -= step * p
                shared -= step * (p @ lab)
        return weights, shared

    @staticmethod
    def _pairs(found: list[Mention], topic: Mention | None) -> list[tuple[Mention, Mention, bool]]:
        pairs = []
        subjects = [(m, False) for m in found if m.kind in ("NAME", "NOUN")]
        if topic is not None and all(norm_name(m.text) != norm_name(topic.text) for m in found):
            subjects.append((topic, True))
        for s, is_topic in subjects:
            for o in found:
                if is_topic or not (o.start < s.end and s.start < o.end):
                    pairs.append((s, o, is_topic))
        return pairs

    @staticmethod
    def _with_topics(
        sentences: list[tuple[Any, str]], docs: dict[str, Any], found_in: dict[str, list[Mention]]
    ) -> list[tuple[Any, str, Mention | None]]:
        """Each sentence with its text's topic: the first name of the text's first sentence, which a later
        sentence's "It" or "The university" stands for."""
        out: list[tuple[Any, str, Mention | None]] = []
        topic: Mention | None = None
        previous = None
        for owner, sentence in sentences:
            if owner is not previous:
                previous, topic = owner, None
                out.append((owner, sentence, None))
                first = [m for m in found_in[sentence] if m.kind == "NAME"]
                topic = Mention(first[0].text, -1, -1, "NAME") if first else None
            else:
                out.append((owner, sentence, topic if anaphoric(docs.get(sentence)) else None))
        return out

    # --- mapping -------------------------------------------------------------------------------------
    def relations(
        self, sentences: list[str], docs: dict[str, Any]
    ) -> tuple[list[ExtractedEntity], list[ExtractedRelation]]:
        """The schema's relations a chunk's sentences state, by the examples, with their typed ends."""

        entities: dict[str, ExtractedEntity] = {}
        relations: list[ExtractedRelation] = []
        if self.weights is None:
            return [], []
        chunk = object()
        found_in = {sentence: self.candidates(sentence, docs.get(sentence)) for sentence in sentences}
        for _, sentence, topic in self._with_topics([(chunk, s) for s in sentences], docs, found_in):
            doc = docs.get(sentence)
            found = found_in[sentence]
            if not found:
                continue
            choices = []
            first = first_name(found)
            for s, o, is_topic in self._pairs(found, topic):
                obs = self._observations(sentence, doc, s, o, is_topic or s.start == first)
                idx = [self.features[f] for f in obs if f in self.features]
                scores = self.weights[idx].sum(axis=0) + self._label_features(sentence, s, o) @ self.shared
                for best in range(1, len(self.labels)):  # every relation more likely than "none"
                    margin = float(scores[best] - scores[0])  # log-odds against "none"
                    if margin > 0 and (s.kind, o.kind) in self.kinds[self.labels[best]]:
                        choices.append((margin, s, o, self.labels[best]))
                if self.prior is not None and self.unseen and s.kind == "NAME":
                    view = PairView.of(obs)
                    for label in self.unseen:
                        described = self.label_view(label)
                        if fits(o.kind, described.range):
                            margin = self.prior.logit(view, described)
                            if margin > 0:
                                choices.append((margin, s, o, label))
            # One reading of the sentence: an object belongs to one subject by one relation (the likeliest: "X
            # was followed by Y" is not also "X preceded by Y"), and chosen spans never cross.
            objects: set[tuple[int, int]] = set()  # the spans already written as an object
            filled: set[tuple[str, str]] = set()  # (subject, relation) of the relations that take one object
            spans: set[tuple[int, int]] = set()
            chosen: list[tuple[Mention, Mention, str]] = []
            for _, s, o, label in sorted(choices, key=lambda c: -c[0]):
                if any(o.start < e and b < o.end for b, e in objects):  # taken, or crossing one taken
                    continue
                ends = [(m.start, m.end) for m in (s, o) if m.start >= 0]
                if any(a < e and c < b and (a, b) != (c, e) for a, b in ends for c, e in spans):
                    continue
                if label in self.functional:
                    if (norm_name(s.text), label) in filled:
                        continue
                    filled.add((norm_name(s.text), label))
                objects.add((o.start, o.end))
                spans.update(ends)
                chosen.append((s, o, label))
                self._write(sentence, s, o, label, entities, relations)
            # What is listed with an object shares its relation ("tomatoes, guanciale, cheese and olive oil are
            # the main ingredients"): a relation that takes several objects takes them all.
            for s, o, label in chosen:
                if label in self.functional:
                    continue
                listed = conjuncts_of(doc, o)
                for c in found:
                    if (c.start, c.end) in objects or (s.kind, c.kind) not in self.kinds[label]:
                        continue
                    root = doc.char_span(c.start, c.end, alignment_mode="expand") if doc is not None else None
                    if root is None or root.root.i not in listed:
                        continue
                    if any(c.start < e and b < c.end for b, e in spans):
                        continue
                    objects.add((c.start, c.end))
                    spans.add((c.start, c.end))
                    self._write(sentence, s, c, label, entities, relations)
        return list(entities.values()), relations

    def _as_named(self, m: Mention, label: str, role: str) -> str:
        """A name the examples do not know, written by their convention for that role: most characters they
        give a creator are `X (comicsCharacter)`, so "Bolt" is `Bolt (comicsCharacter)`."""
        if m.kind != "NAME":
            return m.text
        text = " ".join(self.word_forms.get(word, word) for word in m.text.split(" "))
        suffix = self.suffixes.get((label, role), "")
        return f"{text} {suffix}" if suffix else text

    def _write(
        self,
        sentence: str,
        s: Mention,
        o: Mention,
        label: str,
        entities: dict[str, ExtractedEntity],
        relations: list[ExtractedRelation],
    ) -> None:
        patterns = [p for p in self.schema.patterns if p.relationship == label]
        subject = (self.name_of(s) or self._as_named(s, label, "sub")) if s.kind != "QUOTE" else s.text
        known = entities.get(subject)
        source_type = patterns[0].source if patterns else "Thing"
        if known is not None:  # a name keeps one type: a pattern from it, if the relation has one
            source_type = next((p.source for p in patterns if p.source == known.type), known.type)
        target_type = next((p.target for p in patterns if p.source == source_type), "Thing")
        fmt = self.formats.get(label, "text")
        if o.kind in ("NAME", "NOUN"):
            named = self.name_of(o)
            if named is None and o.kind == "NAME" and not is_literal(target_type):
                named = self._as_named(o, label, "obj")
            if named is not None:  # as the examples name it
                o = Mention(named, o.start, o.end, o.kind)
        target = render_value(
            o, fmt, self.quoted.get(label, False) and is_literal(target_type), self.units.get(label, "")
        )
        entities.setdefault(subject, ExtractedEntity(name=subject, type=source_type, description=sentence[:300]))
        entities.setdefault(target, ExtractedEntity(name=target, type=target_type, description=sentence[:300]))
        relations.append(
            ExtractedRelation(
                source=subject, target=target, type=label, description=sentence[:200], evidence=sentence[:500]
            )
        )

"""Offline entity and relation extraction: no model, no network.

English: runs of capitalized words (with "of"/"von"/"de" inside, numbers and roman numerals after:
"Sea of Tranquility", "Wernher von Braun", "Falcon 9", "Saturn V"), acronyms and code-like terms
("GPT-4o", "RP-1", "ISO 27001"). Other languages: the names their own tagger finds (`text/languages`; Chinese:
people, places and organisations by jieba, checked, terms glossed in English, noun compounds). Types are
best-effort keyword and gazetteer guesses, else CONCEPT.

Relations: two entities of one sentence are linked by what the sentence says between them, read from spaCy's
dependency parse (`predicates.py`: `Google -[ACQUIRED]-> DeepMind`); only sentences with two names or more
are parsed. Entities the sentence links by nothing readable (listed together, far apart) are RELATED_TO, and
so is every pair when spaCy's model is not installed. Weight = number of such sentences in the chunk, the
first sentence kept as evidence. The tagger also keeps a sentence-initial proper noun ("Google acquired...")
that the capitalisation rules alone would drop.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from graphwright.extraction.name_kinds import described_kind, list_head
from graphwright.extraction.name_words import (
    CONNECTORS,
    DAYS,
    DEMONYMS,
    FIRST_NAMES,
    INNER_THE,
    MONTHS,
    PLACES,
    ROMAN,
    TITLES,
    guess_type,
)
from graphwright.extraction.predicates import PLACE_READINGS, Predicate, distance, predicate
from graphwright.extraction.relation_prior import Evidence, RelationPrior
from graphwright.extraction.schema_mapper import MAPPING_METHOD, Mention, SchemaMapper
from graphwright.graph_schema import GraphSchema
from graphwright.models import ChunkExtraction, ExtractedEntity, ExtractedRelation, ExtractionExample
from graphwright.text.languages import detect
from graphwright.text.normalize import FALLBACK_RELATION, clean_name, normalize_key, relation_type
from graphwright.text.sentences import split_sentences
from graphwright.text.stopwords import STOPWORDS

_TOKEN_RE = re.compile(
    r"[A-Za-z0-9\u00C0-\u024F][A-Za-z0-9\u00C0-\u024F'’.\-/&]*[A-Za-z0-9\u00C0-\u024F]"
    r"|[A-Za-z0-9\u00C0-\u024F]"
)


# Two names this close in the parse (one edge: "A and B", "A (B)") with no predicate between them are kept as
# RELATED_TO; farther apart, the sentence says nothing about the pair and no relation is written.
_NEAR_EDGES = 1


_PARSED_CHUNKS = 64


_ACRONYM_RE = re.compile(r"[A-Z][A-Z0-9&.\-]{1,9}")


_CJK_RE = re.compile(r"[\u4e00-\u9fff]")


_CODE_RE = re.compile(r"^[A-Za-z][A-Za-z.]*-?\d[\w.\-]*$")  # GPT-4o, RP-1, B1058, STS-31, plutonium-238


@dataclass(frozen=True)
class _Token:
    text: str
    start: int
    end: int


def chunk_sentences(text: str) -> list[str]:
    """A chunk's sentences line by line, without markdown heading, quote and list markers."""
    return [s for line in text.splitlines() for s in split_sentences(line.lstrip("#> -*"))]


class NLPExtractor:
    """Deterministic and fast; see the module docstring for what it finds."""

    name = "nlp"

    def __init__(self, max_entity_words: int = 6, typed_relations: bool = True) -> None:
        from graphwright.extraction.parser import spacy_available

        self.max_entity_words = max_entity_words
        self.typed_relations = typed_relations and spacy_available()
        # What the content hash records, so a graph extracted another way is extracted again.
        self.version = "typed-2" if self.typed_relations else "cooccurrence-1"
        self._docs: dict[str, Any] = {}  # sentence -> its parse, for the chunks of one extract_many call
        self._spans: dict[str, list[tuple[str, str]]] = {}  # sentence -> english_spans, for the same chunks
        self._schema: GraphSchema | None = None
        self._examples: list[ExtractionExample] = []
        self._mapper: SchemaMapper | None = None
        self._prior: RelationPrior | None = None
        self._prior_given = False

    def use_relation_prior(self, prior: RelationPrior | None) -> None:
        """The prior for relations the examples never show (None: none); without this, the packaged one."""
        self._prior, self._prior_given = prior, True
        if self._mapper is not None:
            self._mapper.prior = prior
            self._set_version()

    def evidence(self) -> Evidence | None:
        """What the examples taught, as a prior fitted on many ontologies learns from it."""
        return self._mapper.evidence if self._mapper is not None else None

    def use_schema(self, schema: GraphSchema) -> None:
        self._schema = schema
        self._learn()

    def use_examples(self, examples: list[ExtractionExample]) -> None:
        """With a schema, relations are mapped onto it as the examples map theirs (schema_mapper.py)."""
        self._examples = list(examples)
        self._learn()

    def _learn(self) -> None:
        if self._schema is None or not self._examples or not self.typed_relations:
            return
        self._mapper = SchemaMapper(self._schema, self.name_mentions)
        self._mapper.learn(self._examples, self._parse_all, chunk_sentences)
        if not self._prior_given:
            self._prior, self._prior_given = RelationPrior.packaged(), True
        self._mapper.prior = self._prior
        self._spans = {}
        self._set_version()

    def _set_version(self) -> None:
        # the mapping's method (its second), what it learned from and the prior: any changing extracts again
        assert self._schema is not None
        learned = self._schema.to_json() + "".join(e.model_dump_json() for e in self._examples)
        prior = self._prior.fingerprint() if self._prior is not None else "none"
        self.version = f"typed-2+{MAPPING_METHOD}-" + hashlib.sha256((learned + prior).encode()).hexdigest()[:12]

    def name_mentions(self, sentence: str) -> list[Mention]:
        """The span rules' names (sentence-initial ones included), where they stand: the schema mapping's
        first candidates (it reads numbers and dates itself)."""
        found, taken = [], set()
        for name, _ in self._spans_of(sentence):
            start = sentence.find(name)
            if start >= 0 and start not in taken:
                taken.add(start)
                found.append(Mention(name, start, start + len(name), "NAME"))
        return found

    def _parse_all(self, sentences: list[str]) -> dict[str, Any]:
        """Every sentence, as the schema mapping parses them (the examples' sentences, to learn from)."""
        unique = list(dict.fromkeys(sentences))
        return dict(zip(unique, self._mapping_pipeline.pipe(unique, batch_size=256)))

    @cached_property
    def _pipeline(self) -> Any:
        from graphwright.extraction.parser import load_pipeline

        return load_pipeline(ner=False)

    @cached_property
    def _mapping_pipeline(self) -> Any:
        """With the recogniser too: the schema mapping reads what kind of name each candidate is."""
        from graphwright.extraction.parser import load_pipeline

        return load_pipeline(ner=True)

    def _spans_of(self, sentence: str) -> list[tuple[str, str]]:
        """english_spans, once per sentence of the slice being extracted (choosing what to parse reads them
        too); the cache is dropped at each slice and when extract_many ends."""
        found = self._spans.get(sentence)
        if found is None:
            found = self._spans[sentence] = self.english_spans(sentence)
        return found

    def parse(self, sentences: list[str]) -> dict[str, Any]:
        """Parses of the sentences that can hold a relation (two candidate names or more; with a learned
        schema mapping, every sentence, with the recogniser: its candidates come from the parse)."""
        if self._mapper is not None:
            wanted = list(sentences)
        else:
            wanted = [s for s in sentences if len({n for n, _ in self._spans_of(s)}) >= 2]
        pipeline = self._mapping_pipeline if self._mapper is not None else self._pipeline
        return dict(zip(wanted, pipeline.pipe(wanted, batch_size=256)))

    # --- English -------------------------------------------------------------------------------------
    def _is_start(self, tok: str) -> bool:
        if _CODE_RE.match(tok) and any(c.isalpha() for c in tok):
            return True
        return tok[:1].isupper() or (tok[:1].islower() and any(c.isupper() for c in tok[1:]) and tok.isalpha())

    def english_spans(self, sentence: str) -> list[tuple[str, str]]:
        """(name, previous word) for each candidate in a sentence."""
        tokens = [_Token(m.group(0), m.start(), m.end()) for m in _TOKEN_RE.finditer(sentence)]
        spans: list[tuple[str, str]] = []
        i = 0
        while i < len(tokens):
            tok = tokens[i].text
            if not self._is_start(tok):
                i += 1
                continue
            j = i + 1
            while j < len(tokens) and j - i < self.max_entity_words:
                gap = sentence[tokens[j - 1].end : tokens[j].start]
                initial = len(tokens[j - 1].text) == 1 and tokens[j - 1].text.isupper() and gap.strip() == "."
                if gap.strip() and not initial:  # punctuation between words ends the name ("F." does not)
                    break
                if tokens[j - 1].text.endswith(("'s", "’s")):
                    break  # "SpaceX's Starship": owner and owned are two names
                nxt = tokens[j].text
                if nxt[:1].isupper() or nxt in ROMAN or self._is_start(nxt):
                    j += 1
                elif re.fullmatch(r"\d{1,5}[A-Z]?", nxt) and tokens[j - 1].text[:1].isupper():
                    j += 1  # Falcon 9, Apollo 11, ISO 27001
                    break
                elif (
                    (nxt in CONNECTORS or nxt in INNER_THE)
                    and j + 1 < len(tokens)
                    and tokens[j + 1].text[:1].isupper()
                    and not sentence[tokens[j].end : tokens[j + 1].start].strip()
                ):
                    j += 2
                else:
                    break
            words = [
                t.text + ("." if k + 1 < j and len(t.text) == 1 and t.text.isupper() else "")
                for k, t in enumerate(tokens[i:j], start=i)
            ]
            previous = tokens[i - 1].text.lower() if i else ""
            at_start = i == 0
            spans.extend(self._clean_span(words, previous, at_start, sentence))
            i = j
        return spans

    def _clean_span(self, words: list[str], previous: str, at_start: bool, sentence: str) -> list[tuple[str, str]]:
        words = [re.sub(r"-(led|based|born|owned|made|built|era|class|style|type)$", "", w) for w in words]
        while words and words[0].lower() in STOPWORDS:
            words, at_start, previous = words[1:], False, words[0].lower()
        # "Commander Neil Armstrong", "Lunar Module Pilot Buzz Aldrin": the role is not the name
        for k in range(len(words) - 2, -1, -1):
            if words[k].lower().rstrip(".") in TITLES and words[k + 1][:1].isupper():
                words, at_start, previous = words[k + 1 :], False, words[k].lower().rstrip(".")
                break
        whole = " ".join(words).lower()
        if (
            len(words) > 1
            and words[0].lower() in DEMONYMS
            and whole not in PLACES
            and (words[1].lower() in FIRST_NAMES or len(words) == 2)
        ):
            words, previous = words[1:], words[0].lower()  # "Canadian Jeremy Hansen", "Russian Soyuz"
        if len(words) == 1 and words[0].lower() in DEMONYMS:
            return []
        while words and (words[-1].lower() in CONNECTORS | INNER_THE | STOPWORDS):
            words = words[:-1]
        if not words:
            return []
        possessive = bool(re.search(r"['’]s$", words[-1]))
        words[-1] = re.sub(r"['’]s$", "", words[-1])
        lowered = [w.lower() for w in words]
        if all(w in MONTHS | DAYS or w.isdigit() for w in lowered):
            return []
        if lowered[0] in MONTHS and len(words) <= 2:
            return []
        name = clean_name(" ".join(words))
        if len(name) < 2 or name.isdigit():
            return []
        if (
            at_start
            and len(words) == 1
            and not name.isupper()
            and not any(c.isdigit() for c in name)
            and not (possessive and name.lower() not in STOPWORDS)
        ):
            # "Crews", "Soon": capitalized only by position; keep it if it is capitalized elsewhere too
            rest = sentence[len(words[0]) :]
            if name not in rest:
                return [(name, "#start")]
        return [(name, previous)]

    # --- other languages ----------------------------------------------------------------------------
    @staticmethod
    def language_spans(sentence: str) -> list[tuple[str, str]]:
        """Names that the sentence's language finds with its own tagger (Chinese: text/languages/chinese.py),
        typed by it; nothing for English, whose names the rules above find."""
        if not _CJK_RE.search(sentence):
            return []
        return [(name, f"#lang:{kind}") for name, kind in detect(sentence).names(sentence)]

    def extract_many(
        self, chunks: list[tuple[str, str]], on_done: Callable[[int], None] | None = None
    ) -> list[ChunkExtraction]:
        results = []
        try:
            # Parses are held for a slice of chunks at a time, not the whole batch: they are the big objects.
            for start in range(0, len(chunks), _PARSED_CHUNKS):
                part = chunks[start : start + _PARSED_CHUNKS]
                self._spans = {}
                if self.typed_relations:
                    self._docs = self.parse(list(dict.fromkeys(s for _, text in part for s in chunk_sentences(text))))
                for chunk_id, text in part:
                    results.append(self.extract(chunk_id, text))
                    if on_done is not None and len(results) % 32 == 0:
                        on_done(len(results))
            return results
        finally:
            self._docs, self._spans = {}, {}

    def usage(self) -> dict[str, float]:
        return {}

    # --- whole chunk ---------------------------------------------------------------------------------
    def extract(self, chunk_id: str, text: str) -> ChunkExtraction:
        entities: dict[str, ExtractedEntity] = {}
        counts: Counter[str] = Counter()
        start_only: dict[str, str] = {}
        sentences = chunk_sentences(text)
        found_per_sentence: list[_Found] = []
        repeated = detect(text).terms(text) if _CJK_RE.search(text) else []
        for sentence in sentences:
            spans = list(self._spans_of(sentence))
            spans += self.language_spans(sentence)
            spans += [(term, "#lang:CONCEPT") for term in repeated if term in sentence]
            doc = self._docs.get(sentence)
            found = _Found(sentence, [], {})
            for name, previous in spans:
                key = normalize_key(name)
                if not key:
                    continue
                if previous == "#start":
                    if doc is None or not _proper_noun(doc, sentence, name):
                        start_only.setdefault(key, name)
                        continue
                    previous = ""  # the tagger says it is a name, not a capitalised word
                # "#lang:TYPE" and "#ner:TYPE": a tagger already typed the span
                tagged = previous.startswith(("#lang:", "#ner:"))
                type_ = previous.split(":", 1)[1] if tagged else guess_type(name, previous)
                current = entities.get(key)
                if current is None or (current.type == "CONCEPT" and type_ != "CONCEPT"):
                    entities[key] = ExtractedEntity(name=name, type=type_, description="")
                counts[key] += 1
                found.keys.append(key)
                found.surfaces.setdefault(key, name)
            found_per_sentence.append(found)
        # A sentence-initial word counts when the chunk also uses it mid-sentence.
        for key in start_only:
            if key in entities:
                counts[key] += 1
        self._link_short_names(entities, counts, found_per_sentence)
        # after the words' own types joined short names to full ones ("Armstrong" to a PERSON): the
        # sentence's word refines a type, it does not decide who a short name is
        self._type_by_context(entities, found_per_sentence)
        for key, entity in entities.items():
            first = next((f.sentence for f in found_per_sentence if key in f.keys), "")
            entity.description = first[:300]
            entity.count = max(counts[key], 1)
        relations = self._relations(entities, found_per_sentence)
        if self._mapper is not None and self._schema is not None:
            typed_ends, mapped = self._mapper.relations(sentences, self._docs)
            for entity in typed_ends:  # the schema's type wins over the rules' guess
                entities[normalize_key(entity.name)] = entity
            relations = mapped + (relations if self._schema.additional_relationship_types else [])
        return ChunkExtraction(chunk_id=chunk_id, entities=list(entities.values()), relations=relations)

    def _type_by_context(self, entities: dict[str, ExtractedEntity], found: list[_Found]) -> None:
        """Types the names the words alone left CONCEPT by what the parsed sentences say they are (a describing
        noun, a maker's role: `name_kinds.py`), then by the lists they are in: a list whose typed names are all
        of one kind, at least two, gives it to its untyped ones."""
        untyped = {key for key, e in entities.items() if e.type == "CONCEPT"}
        if not untyped or not self._docs:
            return
        said: dict[str, Counter[str]] = defaultdict(Counter)
        lists: list[set[str]] = []
        for sentence in found:
            doc = self._docs.get(sentence.sentence)
            if doc is None:
                continue
            in_list: dict[int, set[str]] = defaultdict(set)
            for key in dict.fromkeys(sentence.keys):
                root = _span_root(doc, sentence.sentence, sentence.surfaces[key])
                if root is None:
                    continue
                if key in untyped and (kind := described_kind(root)):
                    said[key][kind] += 1
                if (head := list_head(root)) is not None:
                    in_list[head].add(key)
            lists += [keys for keys in in_list.values() if len(keys) > 2]
        for key, votes in said.items():
            entities[key].type = votes.most_common(1)[0][0]
        for keys in lists:
            typed = [entities[k].type for k in keys if entities[k].type != "CONCEPT"]
            if len(typed) >= 2 and len(set(typed)) == 1:
                for k in keys:
                    if entities[k].type == "CONCEPT":
                        entities[k].type = typed[0]

    def _relations(self, entities: dict[str, ExtractedEntity], found: list[_Found]) -> list[ExtractedRelation]:
        """Typed where a sentence's parse links the two names, else RELATED_TO (a pair that is typed in one
        sentence of the chunk is not also RELATED_TO)."""
        counts: Counter[tuple[str, str, str]] = Counter()
        phrase: dict[tuple[str, str, str], str] = {}
        evidence: dict[tuple[str, str, str], str] = {}

        def add(key: tuple[str, str, str], words: str, sentence: str) -> None:
            counts[key] += 1
            phrase.setdefault(key, words)
            evidence.setdefault(key, sentence)

        for f in found:
            unique = sorted(set(k for k in f.keys if k in entities))
            doc = self._docs.get(f.sentence)
            for a_index, a in enumerate(unique):
                for b in unique[a_index + 1 :]:
                    link, near = _surface_link(f.sentence, f.surfaces[a], f.surfaces[b], entities[a], entities[b])
                    if link is None and doc is not None:
                        link, near = _link(doc, f.sentence, f.surfaces[a], f.surfaces[b])
                    if link is not None and link.words in PLACE_READINGS:
                        where = b if link.forward else a
                        if entities[where].type != "LOCATION":  # "Discovery on mission STS-31" is no place
                            link = None
                    type_ = relation_type("_".join(link.words)) if link is not None else FALLBACK_RELATION
                    if link is not None and type_ != FALLBACK_RELATION:
                        source, target = (a, b) if link.forward else (b, a)
                        add((source, target, type_), " ".join(link.words), f.sentence)
                    elif near:  # listed together, or one inside the other's phrase
                        add((a, b, FALLBACK_RELATION), "and", f.sentence)
        linked = {frozenset((s, t)) for s, t, type_ in counts if type_ != FALLBACK_RELATION}
        return [
            ExtractedRelation(
                source=entities[s].name,
                target=entities[t].name,
                type=type_,
                description=f"{entities[s].name} {phrase[(s, t, type_)]} {entities[t].name}"
                + (" appear together" if type_ == FALLBACK_RELATION else ""),
                weight=float(n),
                evidence=evidence[(s, t, type_)][:500],
            )
            for (s, t, type_), n in counts.items()
            if type_ != FALLBACK_RELATION or frozenset((s, t)) not in linked
        ]

    @staticmethod
    def _link_short_names(entities: dict[str, ExtractedEntity], counts: Counter[str], found: list[_Found]) -> None:
        """ "Armstrong" after "Neil Armstrong" in the same chunk is the same person."""
        people = {key: e for key, e in entities.items() if e.type == "PERSON" and " " in key}
        by_last: dict[str, str] = {}
        for key in people:
            by_last.setdefault(key.rsplit(" ", 1)[1], key)
            by_last.setdefault(key.split(" ", 1)[0], key)
        for key in list(entities):
            if " " in key or key not in by_last or entities[key].type not in {"CONCEPT", "PERSON"}:
                continue
            full = by_last[key]
            counts[full] += counts.pop(key, 0)
            del entities[key]
            for f in found:
                for i, k in enumerate(f.keys):
                    if k == key:
                        f.keys[i] = full
                if key in f.surfaces:
                    f.surfaces.setdefault(full, f.surfaces.pop(key))


@dataclass
class _Found:
    """One sentence of a chunk: the entity keys found in it, in order, and the text each was found as."""

    sentence: str
    keys: list[str]
    surfaces: dict[str, str]


def _surface_link(
    sentence: str, first: str, second: str, first_entity: ExtractedEntity, second_entity: ExtractedEntity
) -> tuple[Predicate | None, bool]:
    """Links the words themselves state, parse or no parse: "International Space Station (ISS)" (ALSO_KNOWN_AS)
    and "Huntsville, Alabama" (a place, then the place it is in: LOCATED_IN). The bool says whether a pair
    with no link here may still be kept as co-occurring (True: only a parse can say it may not)."""
    for x, y, forward, earlier, later in (
        (first, second, True, first_entity, second_entity),
        (second, first, False, second_entity, first_entity),
    ):
        at = sentence.find(x)
        if at < 0:
            continue
        after = sentence[at + len(x) :]
        if after.startswith(f" ({y})") and _ACRONYM_RE.fullmatch(y):
            return Predicate(("also", "known", "as"), forward), True
        if (
            after.startswith(f", {y}")
            and later.type == "LOCATION"
            and earlier.type in ("LOCATION", "ORGANIZATION", "CONCEPT")
            and not after[len(y) + 2 :].lstrip(" ,").startswith(("and ", "or "))
        ):
            return Predicate(("located", "in"), forward), True
    return None, True


def _span_root(doc: Any, sentence: str, name: str) -> Any:
    start = sentence.find(name)
    if start < 0:
        return None
    span = doc.char_span(start, start + len(name), alignment_mode="expand")
    return None if span is None else span.root


def _link(doc: Any, sentence: str, first: str, second: str) -> tuple[Predicate | None, bool]:
    """The predicate the parse puts between two names of the sentence, if any, and whether the names are
    near enough in the parse to be kept as co-occurring without one (at most _NEAR_EDGES apart)."""
    a, b = _span_root(doc, sentence, first), _span_root(doc, sentence, second)
    if a is None or b is None:
        return None, False
    found = predicate(a, b)
    if found is not None:
        return found, True
    edges = distance(a, b)
    return None, edges is not None and edges <= _NEAR_EDGES


def _proper_noun(doc: Any, sentence: str, name: str) -> bool:
    """Whether the tagger reads every word of a sentence-initial candidate as a proper noun."""
    start = sentence.find(name)
    span = doc.char_span(start, start + len(name), alignment_mode="expand") if start >= 0 else None
    return span is not None and all(t.tag_ in ("NNP", "NNPS") for t in span if t.is_alpha)

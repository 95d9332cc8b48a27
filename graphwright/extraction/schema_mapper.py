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

import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from graphwright.extraction.predicates import predicate
from graphwright.extraction.relation_prior import Evidence, LabelView, PairView, RelationPrior, fits
from graphwright.graph_schema import GraphSchema, is_literal
from graphwright.models import ExtractedEntity, ExtractedRelation, ExtractionExample

NONE = "<none>"
MAPPING_METHOD = "schema-mapping-4"  # in the extractor's version: a new method extracts again
_EPOCHS = 5
_NONE_SHARE = 0.5  # "none" pairs weigh, in all, half as much as the facts
_STEP = 0.1
_RUNS = 3  # orders of the pairs whose weights are averaged
_MAX_BETWEEN = 8
_LABEL_FEATURES = 4
_MAX_CANDIDATES = 40  # a sentence's spans to pair; a long sentence keeps its first ones
_NUMBER_RE = re.compile(
    r"(?<![\w.])\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\w])|(?<![\w.,])\d+(?:\.\d+)?(?=[a-zA-Z]*(?!\w))"
)  # "21.2metres" too
_WORD_RE = re.compile(r"[A-Za-z0-9']+")
_QUOTE_RE = re.compile(r"\"([^\"]{1,120})\"|“([^”]{1,120})”")
_MONTHS = {
    m: i + 1
    for i, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ]
    )
    for m in names
}
_MONTH = r"(?P<month>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>\d{4})"
_DATE_RES = [
    re.compile(rf"\b{_MONTH}\s+{_DAY},?\s+{_YEAR}\b", re.IGNORECASE),
    re.compile(rf"\b(?:the\s+)?{_DAY}\s+(?:of\s+)?{_MONTH},?\s+{_YEAR}\b", re.IGNORECASE),
    re.compile(r"\b(?P<year>\d{4})-(?P<month>\d{2})-(?P<day>\d{2})\b"),
    re.compile(r"\b(?P<month>\d{1,2})/(?P<day>\d{1,2})/(?P<year>\d{4})\b"),  # 9/27/2003, as in the US
]
_DETERMINERS = {"the", "a", "an", "its", "his", "her", "their", "this", "that", "these", "those", "our", "my"}
_CONNECTORS = {
    "of",
    "for",
    "de",
    "du",
    "la",
    "le",
    "at",
    "on",
    "the",
    "and",
    "&",
    "-",
    ":",
    "'s",
    "del",
    "von",
    "van",
    "y",
}
_STOPWORDS = {"the", "and", "for", "with", "from", "that", "this", "which", "has", "have", "was", "are", "its"}
_VALUE_ENTITIES = {"DATE", "TIME", "CARDINAL", "ORDINAL", "QUANTITY", "MONEY", "PERCENT"}  # read as values
_KINDS = ("NAME", "NOUN", "NUMBER", "DATE", "QUOTE")
# a literal range's kind of value, by its type's name, and how such values are written
_RANGES = {
    "date": {"date", "datetime"},
    "year": {"year", "gyear"},
    "number": {"number", "integer", "int", "float", "double", "decimal", "nonnegativeinteger", "positiveinteger"},
}
_RANGE_FORMATS = {"date": "date", "year": "year", "number": "number", "name": "text"}


@dataclass(frozen=True)
class Mention:
    text: str  # as the sentence writes it (or as the examples name it)
    start: int
    end: int
    kind: str  # one of _KINDS
    value: str = ""  # a NUMBER's digits, a DATE's ISO form


# letters that have no decomposition into a base letter and an accent
_UNACCENTED = str.maketrans(
    {"ø": "o", "Ø": "O", "æ": "ae", "Æ": "AE", "ß": "ss", "ł": "l", "Ł": "L", "đ": "d", "ı": "i"}
)


def _unaccented(text: str) -> str:
    """A name without its accents: "Agremiação" -> "Agremiacao", "Bjørklund" -> "Bjorklund"."""
    decomposed = unicodedata.normalize("NFKD", text.translate(_UNACCENTED))
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def _loose(text: str) -> str:
    """A name's letters and digits only, without accents or case: "Agremiação" = "Agremiacao", "F.C." = "FC",
    "Bjørklund" = "Bjorklund"."""
    return "".join(c for c in _unaccented(text) if c.isalnum()).lower()


def _norm(text: str) -> str:
    return re.sub(r"[\s_\"]+", "", text).lower()


def _label_words(label: str) -> set[str]:
    """`academicStaffSize` -> {acad, staf, size}: a relation's own words, cut to stems."""
    parts = re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+", label)
    return {p.lower()[:5] for p in parts if len(p) > 2}


def _stems(words: Iterable[str]) -> set[str]:
    return {w[:5] for w in words if len(w) > 2}


_UNIT_RE = re.compile(r"^(-?[\d.]+) (\([^)]+\))$")


def _value_unit(values: list[str]) -> str:
    """The unit most of a relation's example values carry, as they write it ("(millimetres)"), or ""."""
    units = Counter(m.group(2) for v in values if (m := _UNIT_RE.match(v.strip('"'))))
    unit, count = units.most_common(1)[0] if units else ("", 0)
    return unit if count * 2 > len(values) else ""


def _value_format(values: list[str]) -> str:
    """How the examples write a relation's objects: date, year, float, int or text (the commonest)."""
    kinds: Counter[str] = Counter()
    for v in values:
        v = _UNIT_RE.sub(r"\1", v.strip('"'))
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", v):
            kinds["date"] += 1
        elif re.fullmatch(r"\d{4}", v):
            kinds["year"] += 1
        elif re.fullmatch(r"-?\d+\.\d+", v):
            kinds["float"] += 1
        elif re.fullmatch(r"-?\d+", v):
            kinds["int"] += 1
        else:
            kinds["text"] += 1
    return kinds.most_common(1)[0][0] if kinds else "text"


def _fits(m: Mention, fmt: str) -> bool:
    if m.kind == "DATE":
        return fmt in ("date", "year")
    if m.kind == "NUMBER":
        return fmt in ("float", "int", "number") or (fmt == "year" and len(m.value) == 4)
    return fmt == "text"


def _render(m: Mention, fmt: str, quoted: bool, unit: str = "") -> str:
    if m.kind == "DATE":
        text = m.value if fmt == "date" else m.value[:4] if fmt == "year" else m.text
    elif m.kind == "NUMBER":
        text = m.value
        if fmt == "float" and "." not in text:
            text += ".0"
        elif fmt == "int" and text.endswith(".0"):
            text = text[:-2]
        if unit:
            text += " " + unit
    else:
        text = m.value or m.text
    return f'"{text}"' if quoted else text


def _dates(sentence: str) -> list[Mention]:
    found = []
    for pattern in _DATE_RES:
        for match in pattern.finditer(sentence):
            month = match.group("month")
            month_number = int(month) if month.isdigit() else _MONTHS[month.lower().rstrip(".")]
            day = int(match.group("day"))
            if 1 <= month_number <= 12 and 1 <= day <= 31:
                iso = f"{match.group('year')}-{month_number:02d}-{day:02d}"
                found.append(Mention(match.group(0), match.start(), match.end(), "DATE", iso))
    return sorted(found, key=lambda m: m.start)


def number_mentions(sentence: str) -> list[Mention]:
    return [
        Mention(m.group(0), m.start(), m.end(), "NUMBER", m.group(0).replace(",", ""))
        for m in _NUMBER_RE.finditer(sentence)
    ]


def _aliases(written: str) -> list[str]:
    """What a text calls a knowledge base's name: without its disambiguation, "(Train song)" or ", Georgia"."""
    out = []
    bare = re.sub(r"\s*\([^)]*\)", "", written).strip()
    if bare and bare != written:
        out.append(bare)
        kind = re.search(r"\(([^)]*)\)", written)
        if kind is not None and kind.group(1).islower():  # "the AIDS journal", "the journal AIDS"
            out += [f"{bare} {kind.group(1)}", f"{kind.group(1)} {bare}"]
    head = bare.split(",")[0].strip()
    if head and head != bare and len(head) >= 3:
        out.append(head)
    return out


def _name_suffix(names: set[str]) -> str:
    """The disambiguation ("(comicsCharacter)") most of a role's names carry, when at least three do."""
    found = Counter(m.group(1) for n in names if (m := re.search(r"[_ ](\([^)]+\))$", n)))
    suffix, count = found.most_common(1)[0] if found else ("", 0)
    return suffix if count >= 3 and count * 2 > len(names) else ""


def _short_forms(written: str) -> list[str]:
    """Shorter names texts use: the initials of a name of several capitalised words ("U.S.", "US" for United
    States) and the name without a trailing common noun ("English" for English language)."""
    words = written.split()
    out = []
    capitals = [w for w in words if w.lower() not in ("of", "the", "and", "for")]
    if len(capitals) >= 2 and all(w[:1].isupper() for w in capitals):
        initials = "".join(w[0] for w in capitals)
        out += [initials, ".".join(initials) + "."]
    if len(words) >= 2 and words[-1].islower() and words[-1].isalpha() and len(" ".join(words[:-1])) >= 3:
        out.append(" ".join(words[:-1]))
    return out


def _path_features(a: Any, b: Any) -> list[str]:
    """The dependency path between two names: its labels and the lemmas on it (Mintz et al.'s features for
    relations named by examples), when it is short enough to mean something."""
    up_a, up_b = [a], [b]
    while up_a[-1].head.i != up_a[-1].i and len(up_a) < 20:
        up_a.append(up_a[-1].head)
    while up_b[-1].head.i != up_b[-1].i and len(up_b) < 20:
        up_b.append(up_b[-1].head)
    index_b = {t.i: n for n, t in enumerate(up_b)}
    meet = next((n for n, t in enumerate(up_a) if t.i in index_b), None)
    if meet is None:
        return []
    rise, fall = up_a[:meet], up_b[: index_b[up_a[meet].i]]
    if len(rise) + len(fall) > 6:
        return ["path:long"]
    labels = [f"{t.dep_}^" for t in rise] + [f"{t.dep_}v" for t in reversed(fall)]
    lemmas = (
        [t.lemma_.lower() for t in rise[1:]]
        + [up_a[meet].lemma_.lower()]
        + [t.lemma_.lower() for t in reversed(fall[1:])]
    )
    if up_a[meet].i in (a.i, b.i):
        lemmas = [t.lemma_.lower() for t in (rise[1:] + list(reversed(fall[1:])))]
    return ["path:" + " ".join(labels), "plem:" + " ".join(lemmas)] + [f"pl:{w}" for w in lemmas]


def _anaphoric(doc: Any) -> bool:
    """Whether a sentence's subject stands for something named before: a pronoun ("It was founded in 1913").
    ("The club has 17000 members" may too, but so does "The weather was mild" not: left out.)"""
    if doc is None:
        return False
    return any(
        t.dep_ in ("nsubj", "nsubjpass") and t.pos_ == "PRON" and t.lower_ not in ("which", "that", "what", "who")
        for t in doc
    )


def _first_name(found: list[Mention]) -> int:
    """Where the sentence's first name starts: most facts of a sentence are about it."""
    return next((m.start for m in found if m.kind == "NAME"), found[0].start if found else -1)


def _conjuncts(doc: Any, m: Mention) -> set[int]:
    """The tokens listed with a span's root ("A, B and C"), by the parse's conjunction links; none without."""
    span = doc.char_span(m.start, m.end, alignment_mode="expand") if doc is not None and m.start >= 0 else None
    if span is None:
        return set()
    seen, todo = {span.root.i}, [span.root]
    while todo:
        token = todo.pop()
        linked = [c for c in token.children if c.dep_ == "conj"] + ([token.head] if token.dep_ == "conj" else [])
        for t in linked:
            if t.i not in seen:
                seen.add(t.i)
                todo.append(t)
    return seen - {span.root.i}


def _shape(m: Mention) -> list[str]:
    """How a span is built: "Perth, Australia" (a pair), "Guruli's height" (a possessive), "A and B" (a list),
    "company Trane" (led by a common word). Relations differ in which they take."""
    words = m.text.split()
    out = [f"len{min(len(words), 4)}"]
    if "," in m.text:
        out.append("comma")
    if "'s " in m.text or "’s " in m.text:
        out.append("poss")
    if " and " in m.text or " & " in m.text:
        out.append("and")
    if words and words[0][:1].islower():
        out.append("lower")
    if "(" in m.text:
        out.append("paren")
    return out


def _mixed(span: Any) -> bool:
    """A name with common words around it: "Test pilot Alan Shepard", "New York-born Albert Fountain"."""
    kinds = {t.pos_ for t in span}
    return "PROPN" in kinds and bool(kinds & {"NOUN", "ADJ", "VERB"})


def _between(sentence: str, s: Mention, o: Mention) -> list[str]:
    """The words between the pair; for a topic from an earlier sentence (start -1), those before the object."""
    if s.start < 0:
        return _WORD_RE.findall(sentence[: o.start].lower())[-_MAX_BETWEEN:]
    lo, hi = (s, o) if s.start < o.start else (o, s)
    return _WORD_RE.findall(sentence[lo.end : hi.start].lower())


def _span(tokens: list[Any], sentence: str) -> Mention | None:
    while tokens and (tokens[0].lower_ in _DETERMINERS or tokens[0].is_punct):
        tokens = tokens[1:]
    while tokens and (tokens[-1].is_punct or tokens[-1].lower_ in _CONNECTORS or tokens[-1].tag_ == "POS"):
        tokens = tokens[:-1]
    if not tokens or all(t.pos_ in ("PRON", "DET") for t in tokens):  # "it", "which": no name
        return None
    start, end = tokens[0].idx, tokens[-1].idx + len(tokens[-1].text)
    if sentence[start:end].count(")") > sentence[start:end].count("(") and sentence[:start].endswith("("):
        start -= 1  # "(66391) 1999 KW4": the bracket the name opens with is its own
    text = sentence[start:end]
    if not any(c.isalpha() for c in text):
        return None
    kind = "NAME" if any(t.pos_ == "PROPN" for t in tokens) else "NOUN"
    last = tokens[-1]
    if last.tag_ == "NNS" and last.lemma_ and last.lemma_ != last.text:  # "raisins": the thing is "raisin"
        singular = sentence[start : last.idx] + last.lemma_
        return Mention(text, start, end, kind, singular)
    return Mention(text, start, end, kind)


def _proper_runs(doc: Any) -> list[list[Any]]:
    runs: list[list[Any]] = []
    current: list[Any] = []
    tokens = list(doc)
    for i, tok in enumerate(tokens):
        proper = tok.pos_ == "PROPN" or (tok.like_num and i + 1 < len(tokens) and tokens[i + 1].pos_ == "PROPN")
        joins = (
            current
            and tok.lower_ in _CONNECTORS
            and i + 1 < len(tokens)
            and (tokens[i + 1].pos_ == "PROPN" or tokens[i + 1].lower_ in _CONNECTORS)
        )
        if (
            proper
            or joins
            or (current and tok.like_num and tok.pos_ != "VERB" and i > 0 and tokens[i - 1].pos_ == "PROPN")
        ):
            current.append(tok)
        else:
            if current:
                runs.append(current)
            current = []
    if current:
        runs.append(current)
    return runs


def _word_forms(names: Iterable[str]) -> dict[str, str]:
    """Words the examples' names write one way, by how a text may write them otherwise: "FC" -> "F.C.",
    "Gottingen" -> "Göttingen", "D" -> "D." (an initial), when the names write that word so at least twice,
    always alike, and never as the text does. A name the examples do not know is then written as they would."""
    words = [w for name in names for w in name.replace("_", " ").split()]
    exact = set(words)
    forms: dict[str, Counter[str]] = defaultdict(Counter)
    for w in words:
        if any(c.isalpha() for c in w):
            forms[_loose(w)][w] += 1
    out: dict[str, str] = {}
    for written in forms.values():
        (form, count), *others = written.most_common()
        if count < 2 or others:
            continue
        for plain in {_unaccented(form), form.replace(".", ""), form.rstrip(".")}:
            if plain != form and plain not in exact:
                out[plain] = form
    return out


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
            range_ = next((r for r, names in _RANGES.items() if kind in names), "text")
            type_stems: frozenset[str] = frozenset()
        else:
            range_, type_stems = "name", frozenset(_label_words(target))
        return LabelView(frozenset(self.label_words.get(label, _label_words(label))), type_stems, range_)

    # --- candidates ----------------------------------------------------------------------------------
    def candidates(self, sentence: str, doc: Any) -> list[Mention]:
        found: dict[tuple[int, int], Mention] = {}

        def add(m: Mention | None) -> None:
            if m is not None and m.end > m.start and (m.start, m.end) not in found:
                found[(m.start, m.end)] = m

        for m in self.names(sentence):
            add(m)
        if doc is not None:
            runs = _proper_runs(doc)
            spans = [_span(run, sentence) for run in runs]
            for s in spans:
                add(s)
            for a, b in zip(spans, spans[1:]):  # "Buffalo, New York"
                if a is not None and b is not None and sentence[a.end : b.start].strip() == ",":
                    add(Mention(sentence[a.start : b.end], a.start, b.end, "NAME"))
            for ent in doc.ents:  # the recogniser's names, where the pipeline has one
                if ent.label_ not in _VALUE_ENTITIES:
                    add(_span(list(ent), sentence))
            for chunk in doc.noun_chunks:
                add(_span(list(chunk), sentence))
                compound = [t for t in chunk if t.dep_ in ("compound", "amod", "nmod") or t.i == chunk.root.i]
                if len(compound) != len(chunk):
                    add(_span(compound, sentence))
        for match in _QUOTE_RE.finditer(sentence):
            group = 1 if match.group(1) is not None else 2
            add(Mention(match.group(group), match.start(group), match.end(group), "QUOTE"))
        dates = _dates(sentence)
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
        return sorted(found.values(), key=lambda m: (m.start, -m.end))[:_MAX_CANDIDATES]

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
            out += [(alias.lower(), (written, type_)) for alias in _aliases(written)]
        return out

    def name_of(self, m: Mention) -> str | None:
        """The examples' name for what a span names ("Mermaid (Train song)" for "Mermaid", "A.C. Lumezzane"
        for "AC Lumezzane"), if they have one."""
        for form in (m.text, m.value):
            if form and _norm(form) in self.known:
                return self.known[_norm(form)][0]
        for form in (m.text, m.value):
            if form and len(_loose(form)) >= 4 and _loose(form) in self.loose:
                return self.loose[_loose(form)]
        return None

    def _names(self, m: Mention) -> set[str]:
        named = self.name_of(m)
        return {_norm(m.text), _norm(m.value)} | ({_norm(named)} if named else set()) - {""}

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
            unwritten = [e for e in ends if _norm(e) not in named]
            used = {_norm(e) for e in ends}
            unused = [m for m in spans if not self._names(m) & used]
            longest = [
                m
                for m in unused
                if not any(
                    o is not m and o.start <= m.start and m.end <= o.end and (o.end - o.start) > (m.end - m.start)
                    for o in unused
                )
            ]
            if len(unwritten) == 1 and len({_norm(m.text) for m in longest}) == 1:
                votes[(_norm(longest[0].text), unwritten[0])] += 1
        for (surface, name), count in votes.items():
            if count >= 2 and surface not in self.known:
                self.known[surface] = (name.replace("_", " "), self.known.get(_norm(name), ("", "Thing"))[1])

    # --- features ------------------------------------------------------------------------------------
    def _observations(self, sentence: str, doc: Any, s: Mention, o: Mention, topic: bool) -> list[str]:
        between = _between(sentence, s, o)
        feats = [
            "bias",
            f"kind:{o.kind}",
            f"skind:{s.kind}",
            f"order:{'so' if s.start < o.start else 'os'}",
            f"topic:{topic}",
            f"kind_order:{o.kind}:{'so' if s.start < o.start else 'os'}:{topic}",
        ]
        if len(between) <= _MAX_BETWEEN:
            feats += [f"bw:{w}" for w in between]
        else:
            feats.append("far")
        before = _WORD_RE.findall(sentence[max(0, o.start - 40) : o.start].lower())[-3:]
        feats += [f"before:{w}" for w in before]
        if before:
            feats.append(f"before1:{before[-1]}")
        after = _WORD_RE.findall(sentence[o.end : o.end + 30].lower())[:2]
        feats += [f"after:{w}" for w in after] + [f"after1:{w}" for w in after[:1]]
        feats += [f"ow:{w}" for w in _WORD_RE.findall(o.text.lower())[-2:]]
        feats += [f"sw:{w}" for w in _WORD_RE.findall(s.text.lower())[-1:]]
        feats += [f"oshape:{x}" for x in _shape(o)] + [f"sshape:{x}" for x in _shape(s)]
        if s.start >= 0:  # "the film Big Hero 6", "Big Hero 6, distributed by"
            s_before = _WORD_RE.findall(sentence[max(0, s.start - 40) : s.start].lower())[-3:]
            feats += [f"sbefore1:{w}" for w in s_before[-1:]] + [f"sbefore:{w}" for w in s_before]
            s_after = _WORD_RE.findall(sentence[s.end : s.end + 30].lower())[:1]
            feats += [f"safter1:{w}" for w in s_after]
        if doc is not None:
            b = doc.char_span(o.start, o.end, alignment_mode="expand")
            if b is not None:
                head = b.root.head
                if _mixed(b):
                    feats.append("oshape:mixed")
                feats.append(f"oner:{b.root.ent_type_ or '-'}")
                feats.append(f"odep:{b.root.dep_}")
                feats.append(f"ohead:{head.lemma_.lower()}")
                feats.append(f"ohead2:{head.head.lemma_.lower()}")
                feats.append(f"ohead12:{head.lemma_.lower()}:{head.head.lemma_.lower()}")
            a = doc.char_span(s.start, s.end, alignment_mode="expand") if s.start >= 0 else None
            if a is not None:
                feats.append(f"sdep:{a.root.dep_}")
                if _mixed(a):
                    feats.append("sshape:mixed")
                feats.append(f"sner:{a.root.ent_type_ or '-'}")
                if b is not None:
                    feats += _path_features(a.root, b.root)
                    found = predicate(a.root, b.root)
                    if found is not None and found.words:
                        feats.append(f"pred:{' '.join(found.words)}:{found.forward}")
                        feats += [f"pw:{w}" for w in found.words]
        return feats

    def _context_stems(self, sentence: str, s: Mention, o: Mention) -> set[str]:
        words = _between(sentence, s, o)[:_MAX_BETWEEN]
        words += _WORD_RE.findall(sentence[max(0, o.start - 40) : o.start].lower())[-4:]
        words += _WORD_RE.findall(sentence[o.end : o.end + 30].lower())[:3]
        return _stems(words)

    def _label_features(self, sentence: str, s: Mention, o: Mention) -> Any:
        """Per label: its own words near the pair, and whether the object's kind fits how its objects are written."""
        import numpy as np

        stems = self._context_stems(sentence, s, o)
        rows = np.zeros((len(self.labels), _LABEL_FEATURES))
        for i, label in enumerate(self.labels):
            if label == NONE:
                continue
            words = self.label_words.get(label, set())
            overlap = len(words & stems)
            rows[i, 0] = overlap > 0
            rows[i, 1] = overlap / (len(words) or 1)
            fmt = self.formats.get(label, "text")
            rows[i, 2] = _fits(o, fmt)
            rows[i, 3] = not _fits(o, fmt)
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
            self.suffixes[(label, "sub")] = _name_suffix(subject_names[label])
            self.suffixes[(label, "obj")] = _name_suffix({v for v in values[label] if not v.startswith('"')})
        several: set[str] = set()  # relations some example gives one subject two objects of
        for example in examples:
            facts = {(t.sub, self.schema.relation_label(t.rel) or t.rel, _norm(t.obj)) for t in example.triples}
            per_subject = Counter((sub, label) for sub, label, _ in facts)
            several.update(label for (_, label), n in per_subject.items() if n > 1)
        # the others (a birth date, a runtime) take one object per subject
        self.functional = set(self.labels[1:]) - several
        for label in self.labels[1:]:
            self.formats[label] = _value_format(values[label])
            self.units[label] = _value_unit(values[label])
            self.quoted[label] = sum(v.startswith('"') for v in values[label]) * 2 > len(values[label])
            described = _WORD_RE.findall(self.schema.relationship_description(label).lower())
            self.label_words[label] = _label_words(label) | _stems(w for w in described if w not in _STOPWORDS)
        for relation in self.schema.relationship_types:
            if relation.label not in self.labels:
                self.unseen.append(relation.label)
                described = _WORD_RE.findall(relation.description.lower())
                self.label_words[relation.label] = _label_words(relation.label) | _stems(
                    w for w in described if w not in _STOPWORDS
                )
                self.formats[relation.label] = _RANGE_FORMATS.get(self.label_view(relation.label).range, "text")
        for example in examples:
            for t in example.triples:
                label = self.schema.relation_label(t.rel) or t.rel
                patterns = [p for p in self.schema.patterns if p.relationship == label]
                if patterns:
                    self.known.setdefault(_norm(t.sub), (t.sub.replace("_", " "), patterns[0].source))
                    if not is_literal(patterns[0].target) and not t.obj.startswith('"'):
                        self.known.setdefault(_norm(t.obj), (t.obj.replace("_", " "), patterns[0].target))
        for written, type_ in list(self.known.values()):
            # "Mermaid (Train song)": the knowledge base's name for what the sentences call "Mermaid"
            for alias in _aliases(written):
                self.known.setdefault(_norm(alias), (written, type_))
            for short in _short_forms(written):  # "U.S.", "English": looked up, never searched for
                self.known.setdefault(_norm(short), (written, type_))
        # found in sentences by their lowered written form; looked up by their normalised one
        self.written = {key: value for key, value in self._written_forms()}
        self.loose = {_loose(key): written for key, (written, _) in self.written.items()}
        self.word_forms = _word_forms(written for written, _ in self.known.values())

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
                sub, obj = _norm(t.sub), _norm(t.obj)
                bare = _norm(_UNIT_RE.sub(r"\1", t.obj.strip('"')))  # a value without its unit
                fmt = self.formats.get(label, "text")
                ends_s = [s for s in subjects if sub in self._names(s)]
                ends_o = [o for o in found if obj in self._names(o) or bare == _norm(_render(o, fmt, False))]
                gold_objects.update((o.start, o.end) for o in ends_o)
                if not ends_o:
                    unsure_subjects.update(_norm(s.text) for s in ends_s)
                elif not ends_s:
                    unsure_objects.update((o.start, o.end) for o in ends_o)
                for s in ends_s:
                    for o in ends_o:
                        labelled[(s.start, o.start, o.end)] = self.labels.index(label)
            first = _first_name(found)
            for s, o, is_topic in self._pairs(found, topic):
                gold = labelled.get((s.start, o.start, o.end), 0)
                if gold:
                    self.kinds[self.labels[gold]].add((s.kind, o.kind))
                if gold == 0 and (
                    (o.start, o.end) in unsure_objects
                    or (_norm(s.text) in unsure_subjects and (o.start, o.end) not in gold_objects)
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
        shared = np.zeros(_LABEL_FEATURES)
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
        if topic is not None and all(_norm(m.text) != _norm(topic.text) for m in found):
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
                out.append((owner, sentence, topic if _anaphoric(docs.get(sentence)) else None))
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
            first = _first_name(found)
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
                    if (_norm(s.text), label) in filled:
                        continue
                    filled.add((_norm(s.text), label))
                objects.add((o.start, o.end))
                spans.update(ends)
                chosen.append((s, o, label))
                self._write(sentence, s, o, label, entities, relations)
            # What is listed with an object shares its relation ("tomatoes, guanciale, cheese and olive oil are
            # the main ingredients"): a relation that takes several objects takes them all.
            for s, o, label in chosen:
                if label in self.functional:
                    continue
                listed = _conjuncts(doc, o)
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
        target = _render(o, fmt, self.quoted.get(label, False) and is_literal(target_type), self.units.get(label, ""))
        entities.setdefault(subject, ExtractedEntity(name=subject, type=source_type, description=sentence[:300]))
        entities.setdefault(target, ExtractedEntity(name=target, type=target_type, description=sentence[:300]))
        relations.append(
            ExtractedRelation(
                source=subject, target=target, type=label, description=sentence[:200], evidence=sentence[:500]
            )
        )

"""The spans a sentence offers the schema mapper (extraction/schema_mapper.py) as a fact's ends, and how each is
described and written: names, proper-noun runs, noun phrases, quoted strings, numbers and dates read into
values, a name's aliases and short forms, the dependency path between two spans."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

MAX_BETWEEN = 8


LABEL_FEATURES = 4


MAX_CANDIDATES = 40  # a sentence's spans to pair; a long sentence keeps its first ones


_NUMBER_RE = re.compile(
    r"(?<![\w.])\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\w])|(?<![\w.,])\d+(?:\.\d+)?(?=[a-zA-Z]*(?!\w))"
)  # "21.2metres" too


WORD_RE = re.compile(r"[A-Za-z0-9']+")


QUOTE_RE = re.compile(r"\"([^\"]{1,120})\"|“([^”]{1,120})”")


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


STOPWORDS = {"the", "and", "for", "with", "from", "that", "this", "which", "has", "have", "was", "are", "its"}


VALUE_ENTITIES = {"DATE", "TIME", "CARDINAL", "ORDINAL", "QUANTITY", "MONEY", "PERCENT"}  # read as values


_KINDS = ("NAME", "NOUN", "NUMBER", "DATE", "QUOTE")


# a literal range's kind of value, by its type's name, and how such values are written
RANGES = {
    "date": {"date", "datetime"},
    "year": {"year", "gyear"},
    "number": {"number", "integer", "int", "float", "double", "decimal", "nonnegativeinteger", "positiveinteger"},
}


RANGE_FORMATS = {"date": "date", "year": "year", "number": "number", "name": "text"}


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


def loose_name(text: str) -> str:
    """A name's letters and digits only, without accents or case: "Agremiação" = "Agremiacao", "F.C." = "FC",
    "Bjørklund" = "Bjorklund"."""
    return "".join(c for c in _unaccented(text) if c.isalnum()).lower()


def norm_name(text: str) -> str:
    return re.sub(r"[\s_\"]+", "", text).lower()


def label_words(label: str) -> set[str]:
    """`academicStaffSize` -> {acad, staf, size}: a relation's own words, cut to stems."""
    parts = re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+", label)
    return {p.lower()[:5] for p in parts if len(p) > 2}


def stems_of(words: Iterable[str]) -> set[str]:
    return {w[:5] for w in words if len(w) > 2}


UNIT_RE = re.compile(r"^(-?[\d.]+) (\([^)]+\))$")


def value_unit(values: list[str]) -> str:
    """The unit most of a relation's example values carry, as they write it ("(millimetres)"), or ""."""
    units = Counter(m.group(2) for v in values if (m := UNIT_RE.match(v.strip('"'))))
    unit, count = units.most_common(1)[0] if units else ("", 0)
    return unit if count * 2 > len(values) else ""


def value_format(values: list[str]) -> str:
    """How the examples write a relation's objects: date, year, float, int or text (the commonest)."""
    kinds: Counter[str] = Counter()
    for v in values:
        v = UNIT_RE.sub(r"\1", v.strip('"'))
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


def fits_format(m: Mention, fmt: str) -> bool:
    if m.kind == "DATE":
        return fmt in ("date", "year")
    if m.kind == "NUMBER":
        return fmt in ("float", "int", "number") or (fmt == "year" and len(m.value) == 4)
    return fmt == "text"


def render_value(m: Mention, fmt: str, quoted: bool, unit: str = "") -> str:
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


def date_mentions(sentence: str) -> list[Mention]:
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


def aliases_of(written: str) -> list[str]:
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


def name_suffix(names: set[str]) -> str:
    """The disambiguation ("(comicsCharacter)") most of a role's names carry, when at least three do."""
    found = Counter(m.group(1) for n in names if (m := re.search(r"[_ ](\([^)]+\))$", n)))
    suffix, count = found.most_common(1)[0] if found else ("", 0)
    return suffix if count >= 3 and count * 2 > len(names) else ""


def short_forms(written: str) -> list[str]:
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


def path_features(a: Any, b: Any) -> list[str]:
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


def anaphoric(doc: Any) -> bool:
    """Whether a sentence's subject stands for something named before: a pronoun ("It was founded in 1913").
    ("The club has 17000 members" may too, but so does "The weather was mild" not: left out.)"""
    if doc is None:
        return False
    return any(
        t.dep_ in ("nsubj", "nsubjpass") and t.pos_ == "PRON" and t.lower_ not in ("which", "that", "what", "who")
        for t in doc
    )


def first_name(found: list[Mention]) -> int:
    """Where the sentence's first name starts: most facts of a sentence are about it."""
    return next((m.start for m in found if m.kind == "NAME"), found[0].start if found else -1)


def conjuncts_of(doc: Any, m: Mention) -> set[int]:
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


def span_shape(m: Mention) -> list[str]:
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


def mixed_case(span: Any) -> bool:
    """A name with common words around it: "Test pilot Alan Shepard", "New York-born Albert Fountain"."""
    kinds = {t.pos_ for t in span}
    return "PROPN" in kinds and bool(kinds & {"NOUN", "ADJ", "VERB"})


def words_between(sentence: str, s: Mention, o: Mention) -> list[str]:
    """The words between the pair; for a topic from an earlier sentence (start -1), those before the object."""
    if s.start < 0:
        return WORD_RE.findall(sentence[: o.start].lower())[-MAX_BETWEEN:]
    lo, hi = (s, o) if s.start < o.start else (o, s)
    return WORD_RE.findall(sentence[lo.end : hi.start].lower())


def span_of(tokens: list[Any], sentence: str) -> Mention | None:
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


def proper_runs(doc: Any) -> list[list[Any]]:
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


def word_forms(names: Iterable[str]) -> dict[str, str]:
    """Words the examples' names write one way, by how a text may write them otherwise: "FC" -> "F.C.",
    "Gottingen" -> "Göttingen", "D" -> "D." (an initial), when the names write that word so at least twice,
    always alike, and never as the text does. A name the examples do not know is then written as they would."""
    words = [w for name in names for w in name.replace("_", " ").split()]
    exact = set(words)
    forms: dict[str, Counter[str]] = defaultdict(Counter)
    for w in words:
        if any(c.isalpha() for c in w):
            forms[loose_name(w)][w] += 1
    out: dict[str, str] = {}
    for written in forms.values():
        (form, count), *others = written.most_common()
        if count < 2 or others:
            continue
        for plain in {_unaccented(form), form.replace(".", ""), form.rstrip(".")}:
            if plain != form and plain not in exact:
                out[plain] = form
    return out

"""The documents a question is about, when it names them by what they are: an issuer, and then a year or a
quarter ("What is the FY2018 capital expenditure for 3M?" -> 3M's 10-K for fiscal 2018).

Why: a corpus of one company's filings over several years is nine near-identical documents; their passages
differ in a few figures, which neither an embedding nor BM25 weighs against the question's year. The profile
each document got at ingest (documents/document_profile.py) says who and when it is about, so the search
can look there first (search/engine.py runs the mode on the focus, then on everything). Each step only
narrows: a year no document of the issuer covers, or a quarter none has, leaves the issuer's documents as they
were; a question naming no issuer has no focus, whatever years it names."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from graphwright.documents.document_profile import core_name
from graphwright.graph_store.rows import DocumentProfileRow
from graphwright.models import MetadataFilter, RetrievedChunk
from graphwright.text.stopwords import STOPWORDS

_YEAR = re.compile(r"(?<![\d$.,])(?:FY\s?|fiscal\s+(?:year\s+)?)?((?:19|20)\d{2})(?!\d|,\d)", re.IGNORECASE)
_SHORT_FY = re.compile(r"\bFY\s?'?(\d{2})\b", re.IGNORECASE)
_QUARTER = re.compile(
    r"\b(?:Q([1-4])\b|([1-4])Q(?=\d{2}\b|\b)|(first|second|third|fourth)\s+(?:fiscal\s+)?quarter\b)", re.I
)
_TICKER = re.compile(r"[A-Z]{1,5}")
_ORDINAL = {"first": 1, "second": 2, "third": 3, "fourth": 4}
_ANNUAL_KINDS = {"10-K", "20-F", "40-F", "annual report"}
# An issuer matched by its first word alone ("CVS" for CVS Health) is a weaker match than by its whole name.
_WHOLE, _FIRST_WORD = 2, 1


@dataclass(frozen=True)
class Focus:
    """The documents a question names, and why (for the trace)."""

    document_ids: list[str]
    issuer: str
    years: list[int]
    quarter: int | None

    def describe(self) -> str:
        when = ", ".join(str(y) for y in self.years)
        quarter = f" Q{self.quarter}" if self.quarter else ""
        return f"{self.issuer}{quarter}{' ' + when if when else ''}: {', '.join(self.document_ids[:5])}" + (
            f" and {len(self.document_ids) - 5} more" if len(self.document_ids) > 5 else ""
        )


def question_years(question: str) -> list[int]:
    years = [int(m.group(1)) for m in _YEAR.finditer(question)]
    years += [2000 + int(m.group(1)) for m in _SHORT_FY.finditer(question)]
    return list(dict.fromkeys(years))


def question_quarter(question: str) -> int | None:
    found = _QUARTER.search(question)
    if not found:
        return None
    return int(found.group(1) or found.group(2) or _ORDINAL[found.group(3).lower()])


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text.casefold())


def issuer_match(
    question: str, question_words: set[str], question_compact: str, names: Sequence[str], tickers: Sequence[str] = ()
) -> int:
    """How well the question names an issuer: its whole name (the words in any order, or run together as a
    file name writes it) or a ticker, its first word when that word is distinctive, or not at all (0). A
    ticker ("JPM", "VZ") counts only written as one, in capitals: "on" never names ON Semiconductor."""
    if any(re.search(rf"(?<![\w$]){re.escape(t)}(?!\w)", question) for t in tickers if _TICKER.fullmatch(t)):
        return _WHOLE
    best = 0
    for name in names:
        words = [w for w in core_name(name).split() if w not in STOPWORDS]
        if not words:
            continue
        compact = "".join(words)
        if set(words) <= question_words or (len(compact) >= 5 and compact in question_compact):
            return _WHOLE
        if len(words) > 1 and len(words[0]) >= 3 and words[0] in question_words:
            best = _FIRST_WORD
    return best


def _reports_year(profile: DocumentProfileRow) -> bool:
    """An annual report, or a fourth-quarter results release (which reports the full year too)."""
    kind = profile["kind"] or ""
    return kind in _ANNUAL_KINDS or (kind == "earnings release" and profile["fiscal_quarter"] == 4)


def _years(profile: DocumentProfileRow) -> list[int]:
    return profile["years"] or ([profile["fiscal_year"]] if profile["fiscal_year"] else [])


def _narrowed(rows: list[DocumentProfileRow], keep: list[DocumentProfileRow]) -> list[DocumentProfileRow]:
    return keep or rows


def find_focus(question: str, profiles: Sequence[DocumentProfileRow]) -> Focus | None:
    """The documents `question` names by issuer, narrowed by the year and quarter it names; None when it
    names no issuer, or every document's (a focus on all of them changes nothing)."""
    if not profiles:
        return None
    words = _words(question)
    question_words, question_compact = set(words), "".join(words)
    scored = [
        (issuer_match(question, question_words, question_compact, [p["issuer"], *p["aliases"]], p["tickers"]), p)
        for p in profiles
    ]
    best = max(score for score, _ in scored)
    if best == 0:
        return None
    rows = [p for score, p in scored if score == best]
    years, quarter = question_years(question), question_quarter(question)
    if years:  # a report covers its year and compares the years before: several years ask for the latest
        latest = [p for p in rows if max(years) in _years(p)]
        rows = _narrowed(rows, latest or [p for p in rows if set(_years(p)) & set(years)])
    if quarter is not None:
        rows = _narrowed(rows, [p for p in rows if p["fiscal_quarter"] == quarter])
    elif years:  # a year and no quarter: the year's annual report, where there is one
        rows = _narrowed(rows, [p for p in rows if _reports_year(p)])
    if len(rows) == len(profiles):
        return None
    return Focus([p["id"] for p in rows], rows[0]["issuer"], years, quarter)


def focus_filter(focus: Focus) -> MetadataFilter:
    """The focus as a metadata filter, for the modes that take one."""
    return MetadataFilter(key="id", op="in", value=list(focus.document_ids))


def focused_first(focused: list[RetrievedChunk], everywhere: list[RetrievedChunk], k: int) -> list[RetrievedChunk]:
    """The passages found in the focus, then the others the unfocused search found, re-ranked 1..k."""
    seen = {c.chunk_id for c in focused}
    merged = [*focused, *(c for c in everywhere if c.chunk_id not in seen)][:k]
    return [c.model_copy(update={"rank": rank}) for rank, c in enumerate(merged, start=1)]


def partitioned(chunks: list[RetrievedChunk], focus: Focus) -> list[RetrievedChunk]:
    """A mode that takes no filter: its passages of the focus first, each group in the mode's order."""
    inside, _ = split_by_focus(chunks, focus)
    return focused_first(inside, chunks, len(chunks))


def split_by_focus(chunks: list[RetrievedChunk], focus: Focus | None) -> list[list[RetrievedChunk]]:
    """[the focus's passages, the others], each in order; one group when there is no focus."""
    if focus is None:
        return [chunks]
    inside = set(focus.document_ids)
    return [[c for c in chunks if c.document_id in inside], [c for c in chunks if c.document_id not in inside]]

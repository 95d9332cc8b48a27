"""What a document is about, as data: its issuer (who wrote or filed it), kind (10-K, price list, contract),
period (fiscal year, quarter) and a label made of them, read at ingest from its first pages, its metadata
title and its file name.

Why at ingest and from these three: a company's own files and a filer's reports say who and when on their
cover (an SEC cover page names the registrant and the period it covers; an earnings release says "(NYSE: X)
... reports fourth quarter"), and people name files that way too (`ACME_2023Q2_10Q.pdf`). Questions name the
same things ("FY2018 capital expenditure for 3M"), so a search can prefer the documents they match
(search/document_focus.py) instead of choosing among nine near-identical filings by their words alone.
Everything here is a pattern that either fires or says nothing: a document it cannot read keeps no profile.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, Field

from graphwright.documents.tables import CELL_SEPARATOR
from graphwright.text.normalize import normalize_key

# How much of a document's start is read: an SEC cover page and an earnings release's first paragraph fit.
HEAD_CHARS = 6_000

_MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
_DATE = rf"(?:{_MONTHS})\s+\d{{1,2}},?\s+((?:19|20)\d{{2}})"
_FORM = re.compile(r"\bFORM\s+(10-K|10-Q|8-K|20-F|40-F|6-K|S-1|DEF\s*14A)\b", re.IGNORECASE)
_ANNUAL_PERIOD = re.compile(rf"fiscal\s+year\s+ended\s*:?\s*{_DATE}", re.IGNORECASE)
_QUARTER_PERIOD = re.compile(rf"quarterly\s+period\s+ended\s*:?\s*(?:[^\n]*\n)?\s*{_DATE}", re.IGNORECASE)
_RESULTS_PERIOD = re.compile(rf"(?:quarter|year)s?\s+(?:and\s+(?:full\s+)?year\s+)?ended\s+{_DATE}", re.IGNORECASE)
_REGISTRANT = re.compile(r"\n([^\n]{0,80})\n([^\n]{2,80})\n\s*\(?\s*exact\s+name\s+of\s+registrant", re.IGNORECASE)
_REGISTRANT_LINES = re.compile(r"((?:\n[^\n]{0,80}){1,6})\n\s*\(?\s*exact\s+name\s+of\s+registrant", re.IGNORECASE)
_CLAUSE = re.compile(r"\b(?:for the|period|pursuant|report|section)\b", re.IGNORECASE)
_NOT_A_NAME = re.compile(r"^.*(?:_{3,}|commission\s+file\s+n(?:o|umber)\.?\s*[\d-]*)\s*", re.IGNORECASE)
_TICKER = re.compile(r"((?:[A-Z0-9][\w&.,'’-]*\s+){0,5}[A-Z0-9][\w&.'’-]*)\s*\((?:NYSE|NASDAQ|Nasdaq|LSE|TSX|ASX)\s*:")
# A cover's securities table: "Common stock JPM The New York Stock Exchange" (a ticker names its issuer too).
_TRADING = re.compile(
    r"\bCommon\s+(?i:stock|shares)\b[^\n]{0,60}?\s([A-Z]{1,5})\s+(?:The\s+)?(?:New\s+York|NYSE|Nasdaq|NASDAQ)",
)
# An earnings release: "... reports fourth quarter results", "today reported results for the second quarter".
_RESULTS = re.compile(
    r"\bearnings\s+release\b|\b(?:reports?|reported|announces?|announced)\b[^.]{0,60}?"
    r"\b(?:first|second|third|fourth)\s+quarter",
    re.IGNORECASE,
)
_ORDINAL_QUARTER = {"first": 1, "second": 2, "third": 3, "fourth": 4}
_QUARTER_WORDS = re.compile(r"\b(first|second|third|fourth)\s+quarter\b", re.IGNORECASE)

# File-name tokens that say what kind of document it is (`3M_2018_10K`, `acme-price-list`).
_KIND_TOKENS = {
    "10k": "10-K",
    "10q": "10-Q",
    "8k": "8-K",
    "20f": "20-F",
    "annualreport": "annual report",
    "earnings": "earnings release",
    "pricelist": "price list",
    "contract": "contract",
    "agreement": "agreement",
    "invoice": "invoice",
    "specification": "specification",
    "spec": "specification",
    "minutes": "minutes",
    "proxy": "proxy statement",
}
_YEAR_TOKEN = re.compile(r"^((?:19|20)\d{2})(?:q([1-4]))?$", re.IGNORECASE)
_CORPORATE = re.compile(
    r"\b(?:inc|incorporated|corp|corporation|company|co|plc|ltd|limited|llc|lp|ag|sa|nv|se|group|holdings?|"
    r"international|and\s+subsidiaries)\b\.?",
    re.IGNORECASE,
)


class DocumentProfile(BaseModel):
    """Who, what and when a document is; stored on its Document node (every field filterable with --where)."""

    issuer: str = ""
    issuer_aliases: list[str] = Field(default_factory=list)  # other names it goes by (its file name's)
    tickers: list[str] = Field(default_factory=list)  # its trading symbols ("JPM"), as its cover gives them
    kind: str = ""
    fiscal_year: int | None = None
    fiscal_quarter: int | None = None
    years: list[int] = Field(default_factory=list)  # every year the cover and the file name give as its period

    def label(self) -> str:
        """ "3M COMPANY 10-K fiscal year 2018": what a passage of the document is part of."""
        period = ""
        if self.fiscal_year:
            period = f"fiscal year {self.fiscal_year}"
            if self.fiscal_quarter:
                period = f"Q{self.fiscal_quarter} {period}"
        return " ".join(p for p in (self.issuer, self.kind, period) if p)

    def issuer_keys(self) -> list[str]:
        """The entity keys the issuer goes by in the graph ("ACME WIDGETS, INC." -> "acme widgets"): what
        links the document to its issuer's entity when written."""
        names = [self.issuer, *self.issuer_aliases] if self.issuer else []
        keys = [normalize_key(n) for n in names] + [normalize_key(core_name(n)) for n in names]
        return list(dict.fromkeys(k for k in keys + [normalize_key(t) for t in self.tickers] if k))

    def as_metadata(self) -> dict[str, Any]:
        """The profile as Document properties (empty fields left out, so they never overwrite a user's)."""
        values: dict[str, Any] = {
            "issuer": self.issuer,
            "issuer_aliases": self.issuer_aliases,
            "tickers": self.tickers,
            "issuer_keys": self.issuer_keys(),
            "doc_kind": self.kind,
            "fiscal_year": self.fiscal_year,
            "fiscal_quarter": self.fiscal_quarter,
            "period_years": self.years,
            "about": self.label(),
        }
        return {k: v for k, v in values.items() if v not in ("", None, [])}


def _name_tokens(stem: str) -> list[str]:
    return [t for t in re.split(r"[\s_\-.]+", stem) if t]


def _from_name(stem: str) -> tuple[str, str, int | None, int | None]:
    """(issuer, kind, year, quarter) as a file named ISSUER_YEAR_KIND says; an issuer only when the name also
    gives a year or a kind (else `notes.md` would name its issuer "notes")."""
    tokens = _name_tokens(stem)
    kind, year, quarter, first_fact = "", None, None, None
    for index, token in enumerate(tokens):
        lowered = token.lower()
        year_match = _YEAR_TOKEN.match(lowered)
        if year_match and year is None:
            year = int(year_match.group(1))
            quarter = int(year_match.group(2)) if year_match.group(2) else None
            first_fact = index if first_fact is None else first_fact
        elif lowered in _KIND_TOKENS and not kind:
            kind = _KIND_TOKENS[lowered]
            first_fact = index if first_fact is None else first_fact
    joined = "".join(tokens).lower()
    if not kind:
        kind = next((v for k, v in _KIND_TOKENS.items() if len(k) > 4 and k in joined), "")
    issuer = " ".join(tokens[:first_fact]) if first_fact else ""
    return issuer, kind, year, quarter


def _small_caps_name(head: str) -> str:
    """A registrant name set in small capitals, which some text layers cut into lines at each capital's change
    of size ("MGM\nR\nESORTS I\nNTERNATIONAL"): its all-capital lines glued where one ends in a lone capital;
    "" when the name was not cut so."""
    found = _REGISTRANT_LINES.search(head)
    if not found:
        return ""
    fragments: list[str] = []
    for line in reversed(found.group(1).split("\n")):
        line = line.strip()
        if not line or any(c.islower() for c in line) or not any(c.isupper() for c in line):
            break
        fragments.insert(0, line)
    if not any(len(f) == 1 or re.search(r"\s[A-Z]$", f) for f in fragments[:-1]):
        return ""
    name = ""
    for fragment in fragments:
        lone = name[-1:].isupper() and (len(name) == 1 or name[-2] == " ")
        name = name + fragment if lone else f"{name} {fragment}".strip()
    return name


def _issuer_from_text(head: str) -> str:
    glued = _small_caps_name(head)
    if glued and core_name(glued):
        return glued
    found = _REGISTRANT.search(head)
    if found:
        # The name's line may carry the cover's furniture before it, or hold only its legal form ("INC.",
        # its name having wrapped onto the line above).
        name = _NOT_A_NAME.sub("", found.group(2)).strip(" ,")
        if not core_name(name):
            name = f"{_NOT_A_NAME.sub('', found.group(1)).strip()} {name}".strip()
        if core_name(name) and not _CLAUSE.search(name):
            return " ".join(name.split())
    ticker = _TICKER.search(head)
    if ticker:
        name = " ".join(ticker.group(1).split())
        # "Las Vegas, Nevada, February 8, 2023 – MGM Resorts International": the name is what follows a dash.
        return re.split(r"\s[–—-]\s", name)[-1].strip(" ,")
    return ""


def profile_document(head: str, file_stem: str, title: str = "") -> DocumentProfile:
    """The profile a document's first `HEAD_CHARS` characters, file name and stated title give."""
    head = head[:HEAD_CHARS].replace("\r\n", "\n").replace("\r", "\n")
    name_issuer, name_kind, name_year, name_quarter = _from_name(file_stem)
    form = _FORM.search(head)
    kind = form.group(1).upper().replace(" ", "") if form else name_kind
    if not kind and _RESULTS.search(head[:3000]):
        kind = "earnings release"
    years: list[int] = []
    period = _ANNUAL_PERIOD.search(head) or _QUARTER_PERIOD.search(head) or _RESULTS_PERIOD.search(head)
    if period:
        years.append(int(period.group(1)))
    if name_year and name_year not in years:
        years.append(name_year)
    quarter = name_quarter
    if quarter is None and kind not in ("10-K", "20-F", "annual report"):
        words = _QUARTER_WORDS.search(head[:1500])
        quarter = _ORDINAL_QUARTER[words.group(1).lower()] if words else None
    issuer = _issuer_from_text(head) or name_issuer
    ticker = _TRADING.search(head) or re.search(r"\((?:NYSE|NASDAQ|Nasdaq)\s*:\s*([A-Z]{1,5})\)", head)
    aliases = [name_issuer] if name_issuer and core_name(name_issuer) != core_name(issuer) else []
    return DocumentProfile(
        issuer=issuer,
        issuer_aliases=aliases,
        tickers=[ticker.group(1)] if ticker else [],
        kind=kind,
        fiscal_year=(name_year or years[0]) if years else None,
        fiscal_quarter=quarter,
        years=years,
    )


def core_name(name: str) -> str:
    """An organisation's name without its legal form, lower case: "3M COMPANY" -> "3m",
    "JPMorgan Chase & Co." -> "jpmorgan chase"."""
    stripped = _CORPORATE.sub(" ", name.replace("&", " "))
    return " ".join(re.findall(r"\w+", stripped.lower()))


# --- page headings --------------------------------------------------------------------------------------
# A PDF page has no heading path, yet its first lines say what the page is ("Consolidated Statement of Cash
# Flows"): carried with every passage of the page, a statement's title reaches the passages that hold only its
# rows. A table's header row ("(Millions) | 2018 | 2017 | 2016") ends the heading: it leads each of the
# table's pieces itself (documents/pdf_tables.py).
_HEADING_LINES = 4
_HEADING_CHARS = 200
_LINE_CHARS = 90
_AMOUNT = re.compile(r"\$|\d[\d,]*\.\d|\d{1,3}(?:,\d{3})+|\(\d")  # money and figures: a table row, not a heading
_RUNNING_SHARE = 0.3  # a line that starts this share of the pages is the document's running header


def _lines(text: str) -> list[str]:
    return [" ".join(line.split()) for line in text.splitlines() if line.strip()]


def page_headings(pages: list[str]) -> list[str]:
    """Each page's heading: its first short lines that are neither a running header (a line starting many
    pages: "Table of Contents"), a page number, a sentence nor a row of figures, joined by " › "."""
    firsts: dict[str, int] = {}
    for text in pages:
        for line in _lines(text)[:2]:
            firsts[line.casefold()] = firsts.get(line.casefold(), 0) + 1
    running = {line for line, n in firsts.items() if n >= max(3, _RUNNING_SHARE * len(pages))}
    headings = []
    for text in pages:
        kept: list[str] = []
        lines = _lines(text)[: _HEADING_LINES + 3]
        for index, line in enumerate(lines):
            if line.casefold() in running or re.fullmatch(r"[\divxlcIVXLC\s.\-–]+|page \d+.*", line, re.I):
                continue
            if len(line) > _LINE_CHARS or line.endswith((".", ";")) or _AMOUNT.search(line) or CELL_SEPARATOR in line:
                break
            following = lines[index + 1] if index + 1 < len(lines) else ""
            if following[:1].islower() and len(line.split()) > 5:  # a sentence wrapped onto the next line
                break
            kept.append(line)
            if len(kept) == _HEADING_LINES:
                break
        headings.append(" › ".join(kept)[:_HEADING_CHARS])
    return headings

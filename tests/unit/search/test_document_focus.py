"""The documents a question names by issuer, year and quarter."""

from __future__ import annotations

from graphwright.graph_store.rows import DocumentProfileRow
from graphwright.models import RetrievedChunk
from graphwright.search.document_focus import find_focus, focused_first, question_quarter, question_years


def _profile(doc: str, issuer: str, kind: str, year: int, quarter: int | None = None, **extra) -> DocumentProfileRow:
    return {
        "id": doc,
        "issuer": issuer,
        "aliases": extra.get("aliases", []),
        "tickers": extra.get("tickers", []),
        "kind": kind,
        "fiscal_year": year,
        "fiscal_quarter": quarter,
        "years": [year],
    }


PROFILES = [
    _profile("acme18.pdf", "ACME WIDGETS, INC.", "10-K", 2018, tickers=["ACMW"]),
    _profile("acme22.pdf", "ACME WIDGETS, INC.", "10-K", 2022, tickers=["ACMW"]),
    _profile("acme23q2.pdf", "ACME WIDGETS, INC.", "10-Q", 2023, 2, tickers=["ACMW"]),
    _profile("globex22.pdf", "Globex Corporation", "10-K", 2022, aliases=["GLOBEX"]),
    _profile("globex22q4.pdf", "Globex Corporation", "earnings release", 2022, 4),
]


def test_years_and_quarters_as_questions_write_them() -> None:
    assert question_years("What was FY2018 capex? Compare with fiscal 2017 and FY22.") == [2018, 2017, 2022]
    assert question_years("Revenue was $2,018 million in 12,2019 units") == []
    assert [question_quarter(q) for q in ("in Q2 2023", "the second quarter", "2Q23", "this year")] == [2, 2, 2, None]


def test_an_issuer_and_a_year_name_one_filing() -> None:
    focus = find_focus("What is the FY2018 capital expenditure of Acme Widgets?", PROFILES)
    assert focus is not None and focus.document_ids == ["acme18.pdf"]
    # several years: the latest's report, which compares the earlier ones
    assert find_focus("Acme Widgets revenue in FY2018 and FY2022?", PROFILES).document_ids == ["acme22.pdf"]
    # a quarter: that quarter's report
    assert find_focus("ACMW operating margin in Q2 2023?", PROFILES).document_ids == ["acme23q2.pdf"]
    # a year with no quarter: the annual report and the fourth-quarter release (it reports the full year)
    assert find_focus("Globex EBITDA for FY2022", PROFILES).document_ids == ["globex22.pdf", "globex22q4.pdf"]


def test_no_issuer_no_focus() -> None:
    assert find_focus("What was the revenue in 2022?", PROFILES) is None
    # a ticker counts only written as one
    assert find_focus("Is acmw a word?", PROFILES) is None
    # every document of the corpus is no focus at all
    only = [p for p in PROFILES if p["issuer"].startswith("ACME")]
    assert find_focus("Acme Widgets history", only) is None


def test_focused_passages_come_first() -> None:
    def chunk(cid: str, doc: str) -> RetrievedChunk:
        return RetrievedChunk(chunk_id=cid, document_id=doc, text="", score=1.0, rank=1)

    inside = [chunk("a", "acme18.pdf")]
    everywhere = [chunk("b", "acme22.pdf"), chunk("a", "acme18.pdf"), chunk("c", "globex22.pdf")]
    merged = focused_first(inside, everywhere, 3)
    assert [(c.chunk_id, c.rank) for c in merged] == [("a", 1), ("b", 2), ("c", 3)]

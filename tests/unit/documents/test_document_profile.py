"""What a document is about, from its cover, its file name and its title; each PDF page's heading."""

from __future__ import annotations

from graphwright.documents.document_profile import core_name, page_headings, profile_document

COVER_10K = """UNITED STATES
SECURITIES AND EXCHANGE COMMISSION
FORM 10-K
ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d)
For the fiscal year ended December 31, 2018
Commission File Number 1-1234
ACME WIDGETS, INC.
(Exact name of registrant as specified in its charter)
Title of each class Trading Symbol(s) Name of each exchange on which registered
Common stock ACMW New York Stock Exchange
"""

RELEASE = """Exhibit 99.1
Springfield, Ohio, February 8, 2023 – Globex Corporation (NYSE: GBX) today reported results for the fourth
quarter and year ended December 31, 2022."""


def test_an_sec_cover_names_issuer_kind_period_and_ticker() -> None:
    profile = profile_document(COVER_10K, "ACMEWIDGETS_2018_10K")
    assert (profile.issuer, profile.kind, profile.fiscal_year, profile.fiscal_quarter) == (
        "ACME WIDGETS, INC.",
        "10-K",
        2018,
        None,
    )
    assert profile.tickers == ["ACMW"] and profile.issuer_aliases == ["ACMEWIDGETS"]
    assert profile.label() == "ACME WIDGETS, INC. 10-K fiscal year 2018"
    meta = profile.as_metadata()
    assert meta["doc_kind"] == "10-K" and meta["period_years"] == [2018] and "fiscal_quarter" not in meta


def test_a_name_in_small_capitals_cut_into_lines_is_glued_and_keyed_for_the_graph() -> None:
    # how one text layer gives "MGM Resorts International" set in small capitals
    cover = COVER_10K.replace("ACME WIDGETS, INC.", "Commission\nFile\nNo.\n001-10362\nMGM\nR\nESORTS I\nNTERNATIONAL")
    profile = profile_document(cover, "MGMRESORTS_2018_10K")
    assert profile.issuer == "MGM RESORTS INTERNATIONAL"
    assert profile.issuer_keys()[:2] == ["mgm resorts international", "mgmresorts"]
    # a name on one line, or wrapped before its legal form, is read as before
    assert profile_document(COVER_10K, "X").issuer == "ACME WIDGETS, INC."
    wrapped = COVER_10K.replace("ACME WIDGETS, INC.", "ACME WIDGETS\nINC.")
    assert profile_document(wrapped, "X").issuer == "ACME WIDGETS INC."


def test_a_results_release_and_a_quarterly_file_name() -> None:
    release = profile_document(RELEASE, "globex-q4-results")
    assert release.issuer == "Globex Corporation" and release.kind == "earnings release"
    assert release.fiscal_quarter == 4 and release.years == [2022] and release.tickers == ["GBX"]
    quarterly = profile_document("Quarterly report of the company.", "INITECH_2023Q2_10Q")
    assert (quarterly.issuer, quarterly.kind, quarterly.fiscal_year, quarterly.fiscal_quarter) == (
        "INITECH",
        "10-Q",
        2023,
        2,
    )


def test_a_plain_note_says_nothing_it_cannot_read() -> None:
    profile = profile_document("Meeting notes: we talked about the roadmap.", "notes")
    assert profile.as_metadata() == {}
    # a name alone is no issuer: it takes a year or a kind beside it
    assert profile_document("text", "price-list").issuer == ""
    assert profile_document("text", "price-list").kind == "price list"


def test_core_names_drop_the_legal_form() -> None:
    assert core_name("JPMorgan Chase & Co.") == "jpmorgan chase"
    assert core_name("3M COMPANY") == "3m" and core_name("AMCOR PLC") == "amcor"


def test_page_headings_skip_running_headers_sentences_and_figures() -> None:
    statement = "Table of Contents\nAcme and Subsidiaries\nConsolidated Statement of Cash Flows\n(Millions) 2018 2017\n"
    statement += "Net income $ 5,363 $ 4,869\nDepreciation 1,488 1,544"
    prose = "Table of Contents\nThe Company sells widgets in many markets and expects growth to continue in the\n"
    prose += "coming years across all of its segments."
    pages = [statement, prose, "Table of Contents\n12", "Table of Contents\nRisk Factors\nOur business has risks."]
    headings = page_headings(pages)
    assert headings[0] == "Acme and Subsidiaries › Consolidated Statement of Cash Flows › (Millions) 2018 2017"
    assert headings[1] == "" and headings[2] == ""
    assert headings[3] == "Risk Factors"

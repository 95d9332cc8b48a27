"""Long filings on the real Neo4j: documents profiled at ingest (issuer, kind, period), a question naming an
issuer and a year searched in that filing first, a statement's title carried to its rows' passages, page-level
eval scoring (doc@k, page@k), and relevance that says when no passage answers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphwright.evaluation.datasets import load_dataset
from graphwright.evaluation.runner import evaluate, load_corpus
from tests.documents import make_pdf, make_scanned_pdf

pytestmark = pytest.mark.integration

FILLER = (
    "The Company designs and sells industrial widgets to customers in many markets. Management discusses "
    "results of operations, liquidity and capital resources in this section of the report. "
)


def _cover(year: int) -> str:
    return (
        "UNITED STATES\nSECURITIES AND EXCHANGE COMMISSION\nFORM 10-K\n"
        f"For the fiscal year ended December 31, {year}\nCommission File Number 1-1234\n"
        "ACME WIDGETS, INC.\n(Exact name of registrant as specified in its charter)\n"
        "Common stock ACMW New York Stock Exchange"
    )


def _cash_flows(year: int, capex: str) -> str:
    rows = "\n".join(
        f"{name} {value} {value}"
        for name, value in [
            ("Net income", "5,363"),
            ("Depreciation and amortization", "1,488"),
            ("Accounts receivable", "(305)"),
            ("Inventories", "(509)"),
            ("Accounts payable", "408"),
            ("Other net", "120"),
            ("Proceeds from sale of businesses", "846"),
            ("Purchases of marketable securities", "(1,828)"),
        ]
    )
    return (
        f"Acme Widgets and Subsidiaries\nConsolidated Statement of Cash Flows\n(Millions) {year} {year - 1}\n"
        f"{rows}\n{rows}\nPurchases of property, plant and equipment ({capex}) (1,373)\n{rows}\n{rows}"
    )


@pytest.fixture
def filings(tmp_path: Path) -> Path:
    folder = tmp_path / "filings"
    (folder / "pdfs").mkdir(parents=True)
    for year, capex in ((2021, "1,211"), (2022, "1,577")):
        pages = [_cover(year), FILLER * 6, FILLER * 6, _cash_flows(year, capex), FILLER * 6]
        make_pdf(folder / "pdfs" / f"ACME_{year}_10K.pdf", pages)
    questions = [
        {
            "question": "What is the FY2022 capital expenditure (purchases of property, plant and equipment) "
            "of Acme Widgets, from the cash flow statement?",
            "answer": "$1577",
            "doc": "ACME_2022_10K",
            "pages": [4],
        },
        {
            "question": "What were Acme Widgets' purchases of property, plant and equipment in FY2021?",
            "answer": "$1211",
            "doc": "ACME_2021_10K",
            "pages": [4],
        },
    ]
    (folder / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in questions))
    return folder


def test_filings_are_profiled_and_a_named_year_finds_its_filing_and_page(rag, filings: Path) -> None:
    dataset = load_dataset(filings)
    assert dataset.corpus_dir == filings / "pdfs" and dataset.questions[0].gold_pages == [4]
    notes = load_corpus(rag, dataset, "nlp", need_communities=False)
    assert "2 files written" in notes[0]
    document = rag.store.read(
        "MATCH (d:Document {id: 'ACME_2022_10K.pdf'}) RETURN d.issuer AS issuer, d.doc_kind AS kind, "
        "d.fiscal_year AS year, d.tickers AS tickers, d.about AS about"
    )[0]
    assert document == {
        "issuer": "ACME WIDGETS, INC.",
        "kind": "10-K",
        "year": 2022,
        "tickers": ["ACMW"],
        "about": "ACME WIDGETS, INC. 10-K fiscal year 2022",
    }
    # the document is linked to its issuer's entity in the graph (one its own passages name), and only to it
    about = rag.store.read(
        "MATCH (d:Document {id: 'ACME_2022_10K.pdf'})-[:ABOUT]->(e:Entity) RETURN e.key AS key, "
        "EXISTS { (:Chunk {document_id: d.id})-[:MENTIONS]->(e) } AS mentioned"
    )
    assert about == [{"key": "acme widgets", "mentioned": True}]
    # the statement's title and its columns' years travel with every passage of its page
    contexts = rag.store.read(
        "MATCH (c:Chunk {document_id: 'ACME_2022_10K.pdf'}) WHERE c.page_start = 4 RETURN c.context AS context"
    )
    assert len(contexts) > 1 and all("Consolidated Statement of Cash Flows" in r["context"] for r in contexts)
    assert all("(Millions) 2022 2021" in r["context"] for r in contexts)
    # a question naming the issuer and a year is searched in that filing first, in every passage mode (raptor
    # over its tree too: a summary brings only passages of the documents in focus)
    rag.build_raptor()
    for mode in ("vector", "hybrid", "local", "raptor"):
        for item in dataset.questions:
            found = rag.search(item.question, mode=mode, k=3, generate=False)
            assert found.chunks[0].document_id == item.gold_doc_ids[0], (mode, item.question)
            assert any("focused on the documents the question names" in n for n in found.notes)
    # the filter is filterable by what the profile says
    narrowed = rag.search("capital expenditure", mode="hybrid", k=5, where=["fiscal_year=2021"], generate=False)
    assert {c.document_id for c in narrowed.chunks} == {"ACME_2021_10K.pdf"}
    # a question about a row, a column and the statement finds the cell's passage
    cell = rag.search("Purchases of property, plant and equipment in the 2022 cash flow statement", k=3)
    assert any("(1,577)" in c.text and c.pages == "4" for c in cell.chunks)


def test_eval_scores_documents_and_pages_over_passages(rag, filings: Path) -> None:
    dataset = load_dataset(filings)
    load_corpus(rag, dataset, "nlp", need_communities=False)
    report = evaluate(rag, dataset, ["vector", "hybrid"], [1, 5], peers=True, generate=False)
    systems = {s.system: s for s in report.systems}
    assert systems["hybrid"].doc_at[1] == 1.0 and systems["hybrid"].page_at[5] == 1.0
    for s in report.systems:  # every system, the peers too, is scored over the same page-located passages
        assert set(s.doc_at) == {1, 5} and set(s.page_at) == {1, 5} and s.page_at[5] <= s.doc_at[5]
    # the peers have no document focus: the other year's filing is as near to them
    assert systems["peer: bm25 (rank_bm25)"].doc_at[5] == 1.0


def test_relevance_is_comparable_and_no_answer_is_said(rag, filings: Path) -> None:
    from graphwright.api import GraphRAG

    dataset = load_dataset(filings)
    load_corpus(rag, dataset, "nlp", need_communities=False)
    answered = rag.search(dataset.questions[0].question, mode="hybrid", k=3, generate=False)
    unrelated = rag.search("Which striker scored the winning goal in the cup final?", mode="hybrid", k=3)
    assert answered.relevance is not None and unrelated.relevance is not None
    assert answered.relevance > unrelated.relevance + 0.1  # relevance compares across questions
    assert all(c.relevance is not None for c in answered.chunks)
    floor = (answered.relevance + unrelated.relevance) / 2
    strict = GraphRAG(rag.settings.updated(**{"no_answer_below": floor}), embedder=rag.embedder)
    try:
        said = strict.search("Which striker scored the winning goal in the cup final?", mode="local", k=3)
        assert said.no_answer and said.answer.startswith("No passage found answers this question well")
        assert not strict.search(dataset.questions[0].question, mode="local", k=3).no_answer
    finally:
        strict.close()


def test_a_scanned_page_is_found_by_a_question_about_its_text(rag, tmp_path: Path) -> None:
    folder = tmp_path / "scans"
    folder.mkdir()
    lines = ["Supplier agreement with Rotterdam Fittings BV.", "The Orion valve costs 4,250 EUR per unit."]
    make_scanned_pdf(folder / "agreement.pdf", pages=1, text_pages=[FILLER * 3], lines=lines)
    make_pdf(folder / "overview.pdf", [FILLER * 4, FILLER * 4])
    report = rag.ingest([folder], base=folder, extractor="nlp")
    assert report.ok and any("read by OCR" in w for w in report.warnings), report.warnings
    found = rag.search("How much does the Orion valve cost?", mode="hybrid", k=3, generate=False)
    top = found.chunks[0]
    assert top.document_id == "agreement.pdf" and top.pages.endswith("2") and "4,250 EUR" in top.text


def test_a_pdf_table_cell_is_found_by_its_row_and_column(rag, tmp_path: Path) -> None:
    from tests.documents import make_statement_pdf

    folder = tmp_path / "statements"
    folder.mkdir()
    rows = [
        ["Cash Flows from Operating Activities"],
        ["Net income", "$ 5,363", "$ 4,869", "$ 5,058"],
        ["Depreciation and amortization", "1,488", "1,544", "1,474"],
        ["Inventories", "(509)", "(387)", "57"],
        ["Other net", "12", "", "7"],
        ["Accounts payable", "408", "24", "148"],
        *([[f"Other operating item {i}", f"{i}", f"{i + 1}", f"{i + 2}"] for i in range(1, 12)]),
        ["Purchases of property, plant and equipment", "(1,577)", "(1,373)", "(1,420)"],
    ]
    make_statement_pdf(
        folder / "acme-2018.pdf",
        "Consolidated Statement of Cash Flows",
        ["(Millions)", "2018", "2017", "2016"],
        rows,
        before="Acme Widgets and Subsidiaries",
    )
    make_pdf(folder / "overview.pdf", [FILLER * 4, FILLER * 4])
    assert rag.ingest([folder], base=tmp_path).ok
    stored = rag.store.read(
        "MATCH (c:Chunk {document_id: 'statements/acme-2018.pdf'}) RETURN c.text AS text ORDER BY c.index"
    )
    assert len(stored) > 1, "the statement is long enough to be cut"
    # every passage of the table starts with its header row, and keeps a row a line
    assert all(r["text"].startswith("(Millions) | 2018 | 2017 | 2016\n") for r in stored[1:])
    assert any("\nOther net | 12 |  | 7\n" in r["text"] for r in stored)
    for mode in ("vector", "hybrid", "local"):
        found = rag.search("Purchases of property, plant and equipment in 2017", mode=mode, k=2, generate=False)
        top = found.chunks[0]
        assert top.document_id == "statements/acme-2018.pdf", mode
        assert "(Millions) | 2018 | 2017 | 2016" in top.text, mode
        assert "Purchases of property, plant and equipment | (1,577) | (1,373) | (1,420)" in top.text, mode

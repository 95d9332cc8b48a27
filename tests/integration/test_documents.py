"""PDF, Word and HTML files through the whole product on the real Neo4j: page spans and sections on chunks,
in citations, JSON and the Browser evidence query; bad files named while the rest goes on; re-ingest,
update, delete and size limits as for text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphwright.answer_graph import evidence_browser_query
from tests.documents import ARTICLE_HTML, SCRIPT_HTML, make_docx, make_pdf, make_scanned_pdf
from tests.integration.helpers import run

pytestmark = pytest.mark.integration

FILLER = "The laboratory kept careful notes on every sample it measured that year. "
PAGES = [
    "Marie Curie and Pierre Curie studied radioactivity in Paris. " + FILLER * 6,
    FILLER * 6 + "Henri Becquerel shared the Nobel Prize in Physics of 1903 with the Curies.",
    "Polonium was named after Poland, the country where Marie Curie was born. " + FILLER * 6,
]


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    make_pdf(folder / "report.pdf", PAGES, title="Curie report")
    make_docx(
        folder / "notes.docx",
        [
            ("h1", "Computing"),
            ("p", "Alan Turing described a universal machine in 1936."),
            ("p", "His paper defined what a simple abstract machine can compute, step by step. " * 12),
            ("h2", "Bletchley Park"),
            ("p", "Turing broke the Enigma cipher at Bletchley Park during the war."),
            ("table", [["Year", "Work"], ["1936", "On Computable Numbers"], ["1950", "Computing Machinery"]]),
        ],
        title="Turing notes",
    )
    (folder / "ada.html").write_text(ARTICLE_HTML, encoding="utf-8")
    return folder


def _chunks(rag, document_id: str) -> list[dict]:
    return rag.store.read(
        "MATCH (c:Chunk {document_id: $id}) RETURN c.page_start AS start, c.page_end AS end, "
        "c.pages AS pages, c.section AS section, c.text AS text ORDER BY c.index",
        id=document_id,
    )


def test_pdf_word_and_html_ingest_with_pages_and_sections(rag, tmp_path: Path) -> None:
    from graphwright.api import GraphRAG

    # No page read by OCR, so the scan fails by name (OCR: test_filings.py). A setting, not a patch: files are
    # read in a child process, which a patch of this one does not reach.
    no_ocr = GraphRAG(rag.settings.updated(**{"max_ocr_pages": 0}), embedder=rag.embedder)
    folder = _folder(tmp_path)
    make_pdf(folder / "locked.pdf", PAGES[:1], user_password="pw")
    make_scanned_pdf(folder / "scan.pdf")
    good = (folder / "notes.docx").read_bytes()
    (folder / "cut.docx").write_bytes(good[: len(good) // 2])
    (folder / "app.html").write_text(SCRIPT_HTML, encoding="utf-8")

    report = no_ocr.ingest([folder], base=tmp_path)
    no_ocr.close()
    assert report.documents_written == 3 and not report.skipped
    failed = {Path(f.source).name: f.error for f in report.failures}
    assert set(failed) == {"locked.pdf", "scan.pdf", "cut.docx", "app.html"}
    assert "encrypted" in failed["locked.pdf"] and "scanned" in failed["scan.pdf"]
    assert "truncated" in failed["cut.docx"] and "no main text" in failed["app.html"]

    pdf = _chunks(rag, "docs/report.pdf")
    assert pdf and all(c["start"] is not None and c["start"] <= c["end"] for c in pdf)
    assert pdf[0]["start"] == 1 and pdf[-1]["end"] == 3
    becquerel = [c for c in pdf if "Becquerel" in c["text"]]
    assert becquerel and all(c["start"] <= 2 <= c["end"] for c in becquerel)
    assert all(c["pages"] == (str(c["start"]) if c["start"] == c["end"] else f"{c['start']}–{c['end']}") for c in pdf)
    assert any(c["start"] < c["end"] for c in pdf), "chunks flow across page breaks"
    word = _chunks(rag, "docs/notes.docx")
    assert {c["section"] for c in word} <= {"Computing", "Computing › Bletchley Park"}
    assert any("Year: 1936 | Work: On Computable Numbers" in c["text"] for c in word)
    assert all(c["pages"] is None for c in word)
    html = _chunks(rag, "docs/ada.html")
    assert html and not any("SCRIPT_TEXT" in c["text"] or "NAVIGATION" in c["text"] for c in html)
    titles = {r["id"]: r["title"] for r in rag.store.read("MATCH (d:Document) RETURN d.id AS id, d.title AS title")}
    assert titles == {
        "docs/report.pdf": "Curie report",
        "docs/notes.docx": "Turing notes",
        "docs/ada.html": "Ada Lovelace",
    }


def test_citations_json_and_browser_query_show_the_pages(rag, tmp_path: Path) -> None:
    rag.ingest([_folder(tmp_path)], base=tmp_path)
    result = rag.search("Who shared the Nobel Prize in Physics of 1903 with the Curies?", mode="vector", k=3)
    top = result.chunks[0]
    assert top.document_id == "docs/report.pdf" and top.pages is not None and "2" in top.pages
    label = f"report.pdf p.{top.pages}"
    assert any(c.kind == "chunk" and c.label == label for c in result.citations)
    assert label in result.answer  # the offline answer lists each passage as it is cited
    dumped = json.loads(result.model_dump_json())
    assert dumped["chunks"][0]["pages"] == top.pages
    rows = rag.store.read(evidence_browser_query(result))
    assert top.pages in {r["pages"] for r in rows}
    word = rag.search("Where did Turing break the Enigma cipher?", mode="hybrid", k=3)
    assert word.chunks[0].document_id == "docs/notes.docx"
    assert word.chunks[0].section == "Computing › Bletchley Park"


def test_rich_files_reingest_update_delete_and_fail_without_loss(rag, tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    rag.ingest([folder], base=tmp_path)
    before = rag.store.read("MATCH (c:Chunk) RETURN c.id AS id ORDER BY id")
    again = rag.ingest([folder], base=tmp_path)
    assert again.documents_unchanged == 3 and again.documents_written == 0
    assert rag.store.read("MATCH (c:Chunk) RETURN c.id AS id ORDER BY id") == before

    make_pdf(folder / "report.pdf", [*PAGES, "Radium was isolated as a pure metal in 1910."], title="Curie report")
    updated = rag.ingest([folder], base=tmp_path)
    assert updated.documents_written == 1 and updated.documents_unchanged == 2
    assert _chunks(rag, "docs/report.pdf")[-1]["end"] == 4

    kept = _chunks(rag, "docs/report.pdf")
    (folder / "report.pdf").write_bytes((folder / "report.pdf").read_bytes()[:300])  # now truncated
    broken = rag.ingest([folder / "report.pdf"], base=tmp_path)
    assert broken.failures and "PDF" in broken.failures[0].error
    assert _chunks(rag, "docs/report.pdf") == kept, "a failed file leaves its stored version as it was"

    limited = rag.settings.updated(**{"max_file_bytes": 1000})
    from graphwright.documents.loaders import load_file

    too_big = load_file(folder / "notes.docx", tmp_path, {}, max_bytes=limited.max_file_bytes)
    assert "above the limit" in too_big.failures[0].error

    assert rag.delete_document("docs/notes.docx") is not None
    assert _chunks(rag, "docs/notes.docx") == []


def test_cli_query_prints_the_page_of_each_passage(rag, cli_env, tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    ingest = run(["ingest", str(folder), "-q", "--extractor", "none"], cli_env, tmp_path)
    assert ingest.returncode == 0, ingest.stderr
    out = run(
        ["query", "Who shared the Nobel Prize in Physics of 1903?", "--mode", "vector", "--k", "2"], cli_env, tmp_path
    )
    assert out.returncode == 0, out.stderr
    assert "report.pdf p.2" in out.stdout or "report.pdf p.1–2" in out.stdout or "report.pdf p.2–3" in out.stdout

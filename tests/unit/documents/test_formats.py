"""PDF, Word and HTML files (written by the tests) read into located parts, and chunks that keep them."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphwright.documents.chunking import chunk_parts
from graphwright.documents.file_types import supported_suffixes
from graphwright.documents.loaders import load_file
from graphwright.models import DocumentPart, RetrievedChunk, page_span
from tests.documents import ARTICLE_HTML, SCRIPT_HTML, make_docx, make_pdf, make_scanned_pdf

CURIE = "Marie Curie studied radioactivity in Paris with Pierre Curie. "
NOBEL = "The Nobel Prize in Physics of 1903 was shared by Henri Becquerel and the Curies. "


def _one(path: Path):
    result = load_file(path, path.parent, {})
    assert not result.failures, result.failures
    [doc] = result.documents
    return doc, result


def test_pdf_text_is_read_per_page_with_its_stated_title(tmp_path: Path) -> None:
    pdf = make_pdf(
        tmp_path / "report.pdf", [CURIE * 3, NOBEL * 3, "Radium was discovered in 1898."], title="Curie report"
    )
    doc, _ = _one(pdf)
    assert doc.title == doc.subject == "Curie report"
    assert [p.page for p in doc.parts] == [1, 2, 3]
    assert "Pierre Curie" in doc.parts[0].text and "Becquerel" in doc.parts[1].text
    assert "Becquerel" not in doc.parts[0].text
    assert doc.metadata["pages"] == 3
    assert doc.text == "\n\n".join(p.text for p in doc.parts)


def test_a_pdf_without_a_title_is_named_by_its_file(tmp_path: Path) -> None:
    doc, _ = _one(make_pdf(tmp_path / "minutes.pdf", [CURIE]))
    assert doc.title == "minutes" and doc.subject == ""


def test_chunks_record_the_pages_they_span() -> None:
    parts = [
        DocumentPart(text=CURIE * 12, page=1),
        DocumentPart(text=NOBEL * 12, page=2),
        DocumentPart(text=CURIE * 12, page=3),
    ]
    chunks = chunk_parts(parts, size=120, overlap=20)
    assert chunks[0].page_start == chunks[0].page_end == 1
    assert chunks[-1].page_end == 3
    spans = {(c.page_start, c.page_end) for c in chunks}
    assert any(a != b for a, b in spans), "a chunk that crosses a page break spans both pages"
    for c in chunks:
        if "Becquerel" in c.text:
            assert c.page_start <= 2 <= c.page_end
    assert page_span(3, 4) == "3–4" and page_span(3, 3) == "3" and page_span(None, None) is None


def test_a_citation_names_the_file_and_its_pages() -> None:
    chunk = RetrievedChunk(
        chunk_id="c_1",
        document_id="docs/report.pdf",
        text="x",
        score=1.0,
        rank=1,
        title="Curie report",
        source="/data/docs/report.pdf",
        pages="3–4",
    )
    assert chunk.cited_as == "report.pdf p.3–4"
    plain = chunk.model_copy(update={"pages": None})
    assert plain.cited_as == "Curie report"


def test_an_encrypted_pdf_is_named_as_such(tmp_path: Path) -> None:
    result = load_file(make_pdf(tmp_path / "locked.pdf", [CURIE], user_password="pw"), tmp_path, {})
    assert not result.documents
    assert "encrypted PDF" in result.failures[0].error and "locked.pdf" in result.failures[0].source


def _no_ocr(monkeypatch: pytest.MonkeyPatch) -> None:
    from graphwright.documents import ocr

    monkeypatch.setattr(ocr, "available", lambda: False)


def test_a_scanned_pdf_is_reported_not_read_without_ocr(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _no_ocr(monkeypatch)
    result = load_file(make_scanned_pdf(tmp_path / "scan.pdf", pages=2), tmp_path, {})
    assert not result.documents
    assert "scanned PDF" in result.failures[0].error and "graphwright[ocr]" in result.failures[0].error


def test_scanned_pages_among_text_pages_are_named_in_a_warning(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _no_ocr(monkeypatch)
    doc, result = _one(make_scanned_pdf(tmp_path / "mixed.pdf", pages=2, text_pages=[CURIE * 2]))
    assert [p.page for p in doc.parts] == [1]
    assert any("page(s) 2-3 of 3" in w and "scanned" in w for w in result.warnings), result.warnings


def test_a_scanned_page_is_read_by_ocr(tmp_path: Path) -> None:
    lines = ["Supplier agreement: the Orion valve costs 4,250 EUR per unit.", "Delivery within 6 weeks."]
    scan = make_scanned_pdf(tmp_path / "scan.pdf", pages=1, text_pages=[CURIE * 2], lines=lines)
    doc, result = _one(scan)
    assert [p.page for p in doc.parts] == [1, 2]
    assert "Orion valve costs 4,250 EUR" in doc.parts[1].text and "6 weeks" in doc.parts[1].text
    assert any("page(s) 2 of 2 are scanned: read by OCR" in w for w in result.warnings), result.warnings


def test_corrupt_and_truncated_pdfs_fail_by_name(tmp_path: Path) -> None:
    good = make_pdf(tmp_path / "good.pdf", [CURIE * 20, NOBEL * 20]).read_bytes()
    (tmp_path / "cut.pdf").write_bytes(good[: len(good) // 3])
    (tmp_path / "fake.pdf").write_bytes(b"this is not a pdf at all")
    for name, expected in (("cut.pdf", "PDF"), ("fake.pdf", "not a PDF")):
        result = load_file(tmp_path / name, tmp_path, {})
        assert not result.documents, name
        assert expected in result.failures[0].error, result.failures


def test_word_headings_become_the_section_path_and_tables_rows(tmp_path: Path) -> None:
    path = make_docx(
        tmp_path / "notes.docx",
        [
            ("h1", "Introduction"),
            ("p", "Alan Turing was a mathematician."),
            ("h2", "Bletchley Park"),
            ("p", "Turing broke Enigma ciphers at Bletchley Park."),
            ("table", [["Year", "Work"], ["1936", "On Computable Numbers"], ["1950", "Computing Machinery"]]),
            ("h1", "Legacy"),
            ("p", "The Turing Award is named after him."),
        ],
        title="Turing notes",
    )
    doc, _ = _one(path)
    assert doc.title == "Turing notes"
    assert [p.section for p in doc.parts] == ["Introduction", "Introduction › Bletchley Park", "Legacy"]
    # a table's rows say their cells by their columns' names, under the header row
    assert "Year | Work\nYear: 1936 | Work: On Computable Numbers" in doc.parts[1].text
    chunks = chunk_parts(doc.parts, size=12, overlap=2)
    assert {c.section for c in chunks} == {"Introduction", "Introduction › Bletchley Park", "Legacy"}
    legacy = [c for c in chunks if "Turing Award" in c.text]
    assert legacy and all(c.section == "Legacy" for c in legacy)


def test_a_truncated_word_file_fails_by_name(tmp_path: Path) -> None:
    good = make_docx(tmp_path / "good.docx", [("p", "Some text.")]).read_bytes()
    (tmp_path / "cut.docx").write_bytes(good[: len(good) // 2])
    result = load_file(tmp_path / "cut.docx", tmp_path, {})
    assert not result.documents
    assert "corrupt or truncated Word file" in result.failures[0].error


def test_html_keeps_the_main_content_and_drops_boilerplate(tmp_path: Path) -> None:
    path = tmp_path / "ada.html"
    path.write_text(ARTICLE_HTML, encoding="utf-8")
    doc, _ = _one(path)
    assert doc.title == "Ada Lovelace"
    assert "Analytical Engine" in doc.text and "Anne Isabella Milbanke" in doc.text
    for noise in (
        "ANALYTICS_SCRIPT_TEXT",
        "INLINE_SCRIPT_TEXT",
        "NAVIGATION_LINK_TEXT",
        "FOOTER_BOILERPLATE_TEXT",
        "font-family",
    ):
        assert noise not in doc.text
    assert [p.section for p in doc.parts] == ["Ada Lovelace", "Ada Lovelace › Early life", "Ada Lovelace › Work"]


def test_an_html_page_that_is_mostly_script_has_no_text_to_ingest(tmp_path: Path) -> None:
    path = tmp_path / "app.htm"
    path.write_text(SCRIPT_HTML, encoding="utf-8")
    result = load_file(path, tmp_path, {})
    assert not result.documents
    assert "no main text" in result.failures[0].error


def test_the_new_types_are_supported_and_empty_files_fail() -> None:
    assert {".pdf", ".docx", ".html", ".htm"} <= set(supported_suffixes())


def test_empty_rich_files_fail_by_name(tmp_path: Path) -> None:
    for name in ("empty.pdf", "empty.docx", "empty.html"):
        (tmp_path / name).write_bytes(b"")
        result = load_file(tmp_path / name, tmp_path, {})
        assert not result.documents and "empty" in result.failures[0].error, (name, result.failures)


def test_the_loader_table_is_the_one_list_of_file_types(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ingest, the upload page's file picker and the CLI's help name the same types, read from the table."""
    from click.testing import CliRunner

    from graphwright.cli import main
    from graphwright.documents import file_types
    from graphwright.documents.loaders import loader_for

    assert all(callable(loader_for(suffix)) for suffix in file_types.LOADERS)  # every entry resolves
    page = (Path(__file__).resolve().parents[3] / "graphwright/server/static/index.html").read_text(encoding="utf-8")
    assert 'accept="__ACCEPT__"' in page  # filled from the table when the page is served
    monkeypatch.setitem(file_types.LOADERS, ".tsv", "tests.unit.test_recipes:load_tsv")
    help_text = CliRunner().invoke(main, ["ingest", "--help"]).output
    for suffix in file_types.LOADERS:
        assert suffix in help_text, suffix


def test_a_long_word_table_is_cut_into_pieces_that_each_repeat_its_header(tmp_path: Path) -> None:
    rows = [["Product", "Price (EUR)", "Lead time (weeks)"]]
    rows += [[f"Valve model {n}", f"{1000 + n},00", str(n % 9 + 1)] for n in range(60)]
    doc, _ = _one(make_docx(tmp_path / "prices.docx", [("h1", "Price list"), ("table", rows)]))
    chunks = chunk_parts(doc.parts, size=128, overlap=24)
    with_rows = [c for c in chunks if "Valve model" in c.text]
    assert len(with_rows) > 3
    for chunk in with_rows:  # every piece of the table starts with the header row
        assert chunk.text.count("Product | Price (EUR) | Lead time (weeks)") >= 1, chunk.text
    cell = next(c for c in with_rows if "Valve model 42 " in c.text + " ")
    assert "Product: Valve model 42 | Price (EUR): 1042,00 | Lead time (weeks): 7" in cell.text


def test_an_html_table_becomes_header_led_pieces_too(tmp_path: Path) -> None:
    body = "".join(f"<tr><td>Part {n}</td><td>{n * 3}</td></tr>" for n in range(40))
    html = (
        "<html><head><title>Stock</title></head><body><article><h1>Stock levels</h1>"
        "<p>Warehouse stock counted on Monday for every part we keep.</p>"
        f"<table><tr><th>Part</th><th>Units in stock</th></tr>{body}</table></article></body></html>"
    )
    (tmp_path / "stock.html").write_text(html, encoding="utf-8")
    doc, _ = _one(tmp_path / "stock.html")
    assert "Part: Part 7 | Units in stock: 21" in doc.text
    pieces = [p for p in doc.text.split("\n\n") if "Part: Part" in p]
    assert len(pieces) > 1 and all(p.startswith("Part | Units in stock") for p in pieces)


def test_a_markdown_table_is_written_as_records_and_code_stays_code() -> None:
    from graphwright.documents.tables import markdown_tables_as_pieces

    text = "# Prices\n\n| Item | Price |\n|---|---|\n| Valve | 12 |\n\n```\n| not | a table |\n```\n"
    out = markdown_tables_as_pieces(text)
    assert "Item | Price\nItem: Valve | Price: 12" in out and "| not | a table |" in out and "|---|" not in out


def test_a_huge_scanned_page_is_rendered_within_a_bounded_bitmap() -> None:
    from graphwright.documents.ocr import MAX_RENDER_SIDE, RENDER_SCALE, render_scale

    assert render_scale(595, 842) == RENDER_SCALE  # A4 as before
    assert max(14400, 14400) * render_scale(14400, 14400) <= MAX_RENDER_SIDE  # a 200-inch page

"""Read PDF, Word and HTML files into located text: PDF text per page, Word and HTML text per heading path.

Libraries (PyPI wheels, nothing fetched at run time), imported only when such a file is read:
- PDF: pypdfium2 (PDFium, the engine of Chromium's viewer). Against pypdf on the same files it was 15-17x
  faster with the same text, and it marks hyphenation breaks so words cut at a line end join again
  (`bench/loaders.py` prints the comparison). A scanned page (no text layer, an image) is rendered and read
  by OCR (documents/ocr.py) when the `ocr` extra is installed. A page whose lines end in figures has its
  tables read from where its characters sit (documents/pdf_tables.py): cells under their columns, each
  piece of a table led by its header row.
- Word: python-docx; paragraphs and tables in body order, headings as the section path.
- HTML: trafilatura, which keeps the main content and drops navigation, scripts and page furniture.
"""

from __future__ import annotations

import logging
import re
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from graphwright.documents import ocr, pdf_tables
from graphwright.documents.tables import markdown_row, table_pieces
from graphwright.errors import (
    FormatError,  # re-exported: they used to live here
)
from graphwright.models import DocumentPart

log = logging.getLogger(__name__)

SECTION_SEPARATOR = " › "
# A page with fewer characters than this but with images is taken for a scan (a page number alone is text).
_SCANNED_PAGE_CHARS = 20


@dataclass(frozen=True)
class FileLimits:
    """What reading one file may cost: a crafted file (a zip bomb, a PDF of a million pages, a huge page of
    HTML) fails by name instead of filling the memory or a core of the process that reads it."""

    max_unpacked_bytes: int = 256 * 1024 * 1024
    max_unpack_ratio: int = 200
    max_pdf_pages: int = 5000
    max_pdf_seconds: float = 300.0
    max_ocr_pages: int = 200
    max_html_bytes: int = 10 * 1024 * 1024


# Parts that unpack to less than this are not judged by their ratio: small XML compresses very well.
_RATIO_FLOOR = 8 * 1024 * 1024
_MAX_ZIP_MEMBERS = 20_000


@dataclass
class ReadFile:
    """What a reader found: the located parts, the title the file states (if any), and warnings."""

    parts: list[DocumentPart]
    title: str = ""
    warnings: list[str] = field(default_factory=list)
    pages: int = 0


# --- PDF ----------------------------------------------------------------------------------------------
def _page_ranges(pages: list[int]) -> str:
    spans: list[str] = []
    for p in pages:
        if spans and spans[-1].rsplit("-", 1)[-1] == str(p - 1):
            spans[-1] = f"{spans[-1].split('-')[0]}-{p}"
        else:
            spans.append(str(p))
    return ", ".join(spans)


def _clean_pdf_text(text: str) -> str:
    # PDFium marks a hyphen that breaks a word at a line end with U+FFFE: join the word again.
    text = re.sub("\ufffe\\s*", "", text.replace("\r\n", "\n").replace("\r", "\n"))
    return text.replace("\x00", "").strip()


def _page_text(textpage: Any) -> str:
    """The page's text, its tables (a statement's rows under their column years) written as cells."""
    raw = textpage.get_text_range()
    if not pdf_tables.may_hold_table(raw):
        return _clean_pdf_text(raw)
    try:
        lines = pdf_tables.page_words(raw, [textpage.get_charbox(i) for i in range(textpage.count_chars())])
        spans = pdf_tables.find_tables(lines)
    except (ValueError, IndexError, ZeroDivisionError) as exc:  # a layout the reader did not foresee
        log.info("page read as text, not tables: %s", exc)
        return _clean_pdf_text(raw)
    if not spans:
        return _clean_pdf_text(raw)
    # Outside its tables the page is cleaned as a whole stretch, so a word hyphenated across lines still joins.
    raw_lines = raw.split("\n")
    out: list[str] = []
    position = 0
    for span in spans:
        out += [_clean_pdf_text("\n".join(raw_lines[position : span.first])), "\n\n".join(span.pieces)]
        position = span.last + 1
    out.append(_clean_pdf_text("\n".join(raw_lines[position:])))
    return "\n\n".join(p for p in out if p)


def read_pdf(raw: bytes, limits: FileLimits | None = None) -> ReadFile:
    import pypdfium2 as pdfium

    limits = limits or FileLimits()
    if not raw.lstrip()[:5].startswith(b"%PDF"):
        raise FormatError("not a PDF (no %PDF header)")
    try:
        pdf = pdfium.PdfDocument(raw)
    except pdfium.PdfiumError as exc:
        reason = str(exc).lower()
        if "password" in reason:
            raise FormatError("encrypted PDF: it needs a password; decrypt it first (e.g. qpdf --decrypt)") from exc
        raise FormatError(f"corrupt or truncated PDF ({exc})") from exc
    try:
        if len(pdf) > limits.max_pdf_pages:
            raise FormatError(
                f"PDF has {len(pdf)} pages, above the limit of {limits.max_pdf_pages} (GRAPHWRIGHT_MAX_PDF_PAGES)"
            )
        parts: list[DocumentPart] = []
        scanned: list[int] = []
        read_by_ocr: list[int] = []
        started = time.monotonic()
        for number in range(1, len(pdf) + 1):
            if time.monotonic() - started > limits.max_pdf_seconds:
                raise FormatError(
                    f"reading the PDF took more than {limits.max_pdf_seconds:g} s (stopped at page "
                    f"{number} of {len(pdf)}; GRAPHWRIGHT_MAX_PDF_SECONDS)"
                )
            page = pdf[number - 1]
            textpage = page.get_textpage()
            text = _page_text(textpage)
            if len(text) < _SCANNED_PAGE_CHARS and any(
                True for _ in page.get_objects(filter=(pdfium.raw.FPDF_PAGEOBJ_IMAGE,))
            ):
                if ocr.available() and len(read_by_ocr) < limits.max_ocr_pages:
                    text = (
                        _clean_pdf_text(ocr.read_image(page.render(scale=ocr.render_scale(*page.get_size())).to_pil()))
                        or text
                    )
                    read_by_ocr.append(number)
                else:
                    scanned.append(number)
            if text:
                parts.append(DocumentPart(text=text, page=number))
        title = str(pdf.get_metadata_dict().get("Title") or "").strip()
        n_pages = len(pdf)
    finally:
        pdf.close()
    result = ReadFile(parts=parts, title=title, pages=n_pages)
    if not parts:
        if scanned:
            raise FormatError(
                f"scanned PDF: none of its {n_pages} page(s) has a text layer "
                + (
                    f"and OCR read none of them (at most {limits.max_ocr_pages}: GRAPHWRIGHT_MAX_OCR_PAGES)"
                    if ocr.available()
                    else "and OCR is not installed (pip install 'graphwright[ocr]', or run OCR first, e.g. ocrmypdf)"
                )
            )
        raise FormatError(f"PDF has no text on any of its {n_pages} page(s)")
    if read_by_ocr:
        result.warnings.append(f"page(s) {_page_ranges(read_by_ocr)} of {n_pages} are scanned: read by OCR")
    if scanned:
        why = (
            f"more than {limits.max_ocr_pages} scanned pages (GRAPHWRIGHT_MAX_OCR_PAGES)"
            if ocr.available()
            else "no OCR: pip install 'graphwright[ocr]'"
        )
        result.warnings.append(
            f"page(s) {_page_ranges(scanned)} of {n_pages} are scanned images with no text layer and were skipped "
            f"({why})"
        )
    return result


# --- Word ---------------------------------------------------------------------------------------------
_HEADING = re.compile(r"^(?:heading|überschrift|titre)\s*(\d)$", re.IGNORECASE)


def _heading_level(style_name: str) -> int | None:
    if style_name.lower() == "title":
        return 0
    match = _HEADING.match(style_name.strip())
    return int(match.group(1)) if match else None


class _Sections:
    """Text gathered under the current heading path; a new heading closes the part."""

    def __init__(self) -> None:
        self.path: list[tuple[int, str]] = []
        self.lines: list[str] = []
        self.parts: list[DocumentPart] = []

    def heading(self, level: int, text: str) -> None:
        self.close()
        self.path = [(lvl, t) for lvl, t in self.path if lvl < level] + [(level, text)]
        self.lines.append(text)

    def add(self, text: str) -> None:
        if text.strip():
            self.lines.append(text.strip())

    def table(self, pieces: list[str]) -> None:
        """A table's pieces, each a paragraph of its own (so the chunker breaks between them)."""
        for piece in pieces:
            self.add(piece)

    def close(self) -> None:
        if self.lines:
            section = SECTION_SEPARATOR.join(t for _, t in self.path)
            self.parts.append(DocumentPart(text="\n\n".join(self.lines), section=section))
        self.lines = []


def check_zip(raw: bytes, limits: FileLimits) -> None:
    """Refuse a zip (a Word file is one) that would unpack past the limits. The sizes a zip declares bound
    what `zipfile` will inflate (it stops at the declared size), so checking them is enough."""
    import io

    try:
        members = zipfile.ZipFile(io.BytesIO(raw)).infolist()
    except (zipfile.BadZipFile, ValueError) as exc:
        raise FormatError(f"corrupt or truncated Word file (not a zip: {exc})") from exc
    if len(members) > _MAX_ZIP_MEMBERS:
        raise FormatError(f"Word file has {len(members)} parts, above {_MAX_ZIP_MEMBERS}: not a document")
    total = sum(m.file_size for m in members)
    if total > limits.max_unpacked_bytes:
        raise FormatError(
            f"Word file unpacks to {total} bytes, above the limit of {limits.max_unpacked_bytes} "
            "(GRAPHWRIGHT_MAX_UNPACKED_BYTES): refused as a possible zip bomb"
        )
    for member in members:
        ratio = member.file_size / max(member.compress_size, 1)
        if member.file_size > _RATIO_FLOOR and ratio > limits.max_unpack_ratio:
            raise FormatError(
                f"Word part {member.filename[:80]!r} unpacks {ratio:.0f} times its size, above "
                f"{limits.max_unpack_ratio} (GRAPHWRIGHT_MAX_UNPACK_RATIO): refused as a possible "
                "zip bomb"
            )


def read_docx(raw: bytes, limits: FileLimits | None = None) -> ReadFile:
    import io

    import docx
    from docx.opc.exceptions import PackageNotFoundError
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    check_zip(raw, limits or FileLimits())
    try:
        document = docx.Document(io.BytesIO(raw))
    except (PackageNotFoundError, zipfile.BadZipFile, KeyError, ValueError) as exc:
        raise FormatError(f"corrupt or truncated Word file ({type(exc).__name__}: {exc})") from exc
    except Exception as exc:
        raise FormatError(f"corrupt Word file ({type(exc).__name__}: {exc})") from exc
    sections = _Sections()
    title = ""
    style_name = _style_names(document)
    for block in document.iter_inner_content():
        if isinstance(block, Paragraph):
            text = block.text.strip()
            level = _heading_level(style_name(block))
            if level is not None and text:
                title = title or (text if level == 0 else "")
                sections.heading(level, text)
            else:
                sections.add(text)
        elif isinstance(block, Table):
            rows = []
            for row in block.rows:
                # Merged cells repeat their text in each grid cell they span: each once, in its first cell.
                cells = [" ".join(c.text.split()) for c in row.cells]
                rows.append([c if c not in cells[:i] else "" for i, c in enumerate(cells)])
            sections.table(table_pieces(rows))
    sections.close()
    if not sections.parts:
        raise FormatError("Word file has no text")
    stated = (document.core_properties.title or "").strip()
    return ReadFile(parts=sections.parts, title=stated or title)


def _style_names(document: Any) -> Callable[[Any], str]:
    """A paragraph's style name by one dict lookup. python-docx's `Paragraph.style` searches every style of
    the file for each paragraph (paragraphs x styles: a 58 KB file with thousands of styles took 268 s of
    CPU); the names are read once here instead."""
    from docx.enum.style import WD_STYLE_TYPE

    names: dict[str, str] = {}
    default = ""
    for style in document.styles:
        if style.type != WD_STYLE_TYPE.PARAGRAPH or style.style_id is None:
            continue
        names.setdefault(style.style_id, style.name or "")
        if style.element.default and not default:
            default = style.name or ""

    def name(paragraph: Any) -> str:
        style_id = paragraph._p.style  # the pStyle id, or None for the document's default paragraph style
        return names.get(style_id, default) if style_id is not None else default

    return name


# --- HTML ---------------------------------------------------------------------------------------------
_MD_HEADING = re.compile(r"^(#{1,6})\s+(.*\S)\s*$")


def read_html(html: str, limits: FileLimits | None = None) -> ReadFile:
    """`html` is already decoded, by the same rule as every text file."""
    import trafilatura

    limit = (limits or FileLimits()).max_html_bytes
    if len(html) > limit or len(html.encode("utf-8", "replace")) > limit:
        raise FormatError(f"HTML page is above the limit of {limit} bytes (GRAPHWRIGHT_MAX_HTML_BYTES)")
    options: dict[str, Any] = {"include_tables": True, "include_comments": False, "favor_recall": True}
    text = trafilatura.extract(html, output_format="markdown", include_formatting=True, **options)
    if not text or not text.strip():
        raise FormatError("HTML page has no main text (only scripts, navigation or markup)")
    metadata = trafilatura.extract_metadata(html)
    title = (metadata.title if metadata is not None else "") or ""
    sections = _Sections()
    table: list[list[str]] = []
    for line in text.splitlines():
        cells = markdown_row(line)
        if cells is not None:
            if not re.fullmatch(r"\|?(\s*:?-{3,}:?\s*\|)+\s*", line.strip()):  # a rule line is no row
                table.append([_plain(c) for c in cells])
            continue
        if table:
            sections.table(table_pieces(table))
            table = []
        match = _MD_HEADING.match(line)
        if match:
            sections.heading(len(match.group(1)), _plain(match.group(2)))
        else:
            sections.add(_plain(line))
    if table:
        sections.table(table_pieces(table))
    sections.close()
    return ReadFile(parts=sections.parts, title=title.strip())


def _plain(markdown_line: str) -> str:
    """Emphasis markers out; a table row keeps its bars, which read as cell separators."""
    line = re.sub(r"(\*\*|__)(.+?)\1", r"\2", markdown_line)
    if re.fullmatch(r"\|?(\s*:?-{3,}:?\s*\|)+\s*", line):
        return ""  # a markdown table's rule line
    return line.strip()

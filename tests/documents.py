"""Real PDF, Word and HTML files written by the tests (fpdf2, python-docx, plain HTML): no binary fixtures."""

from __future__ import annotations

from pathlib import Path


def make_pdf(path: Path, pages: list[str], title: str | None = None, user_password: str | None = None) -> Path:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_font("helvetica", size=11)
    if title:
        pdf.set_title(title)
    if user_password is not None:
        pdf.set_encryption(owner_password="owner-secret", user_password=user_password)
    for text in pages:
        pdf.add_page()
        pdf.multi_cell(0, 6, text)
    pdf.output(str(path))
    return path


def make_statement_pdf(
    path: Path, title: str, header: list[str], rows: list[list[str]], before: str = "", after: str = ""
) -> Path:
    """A page with a table set as a financial statement is: labels on the left, each figure right-aligned in
    its column, the column years over them (`header`: the label column's text first). A row of one cell is
    a section label; a row whose label is "" sets its figures under the label of the row before it, as
    the text layer of a wrapped label reads."""
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_font("helvetica", size=10)
    pdf.add_page()
    if before:
        pdf.multi_cell(0, 6, before)
    pdf.cell(0, 6, title, new_x="LMARGIN", new_y="NEXT")
    widths = [90] + [25] * (len(header) - 1)
    for text, width in zip(header, widths):
        pdf.cell(width, 6, text, align="L" if width == 90 else "C")
    pdf.ln(6)
    for row in rows:
        for text, width in zip(row, widths):
            pdf.cell(width, 6, text, align="L" if width == 90 else "R")
        pdf.ln(6)
    if after:
        pdf.multi_cell(0, 6, after)
    pdf.output(str(path))
    return path


def make_scanned_pdf(
    path: Path, pages: int = 2, text_pages: list[str] | None = None, lines: list[str] | None = None
) -> Path:
    """Image-only pages, as a scanner writes them (no text layer), after any `text_pages`; `lines` are printed
    on each scanned page in a readable font (else a tiny "scanned page N")."""
    from fpdf import FPDF
    from PIL import Image, ImageDraw, ImageFont

    pdf = FPDF()
    pdf.set_font("helvetica", size=11)
    for text in text_pages or []:
        pdf.add_page()
        pdf.multi_cell(0, 6, text)
    for i in range(pages):
        if lines:
            image = Image.new("RGB", (1400, 120 + 60 * len(lines)), "white")
            draw = ImageDraw.Draw(image)
            font = ImageFont.load_default(size=36)
            for n, line in enumerate(lines):
                draw.text((40, 40 + 60 * n), line, fill="black", font=font)
        else:
            image = Image.new("RGB", (400, 300), "white")
            ImageDraw.Draw(image).text((20, 20), f"scanned page {i + 1}", fill="black")
        pdf.add_page()
        pdf.image(image, x=10, y=10, w=180)
    pdf.output(str(path))
    return path


def make_docx(path: Path, blocks: list[tuple[str, object]], title: str | None = None) -> Path:
    """blocks: ("h1".."h3", text), ("p", text) or ("table", [[cell, ...], ...])."""
    import docx

    document = docx.Document()
    if title:
        document.core_properties.title = title
    for kind, value in blocks:
        if kind.startswith("h"):
            document.add_heading(str(value), level=int(kind[1:]))
        elif kind == "p":
            document.add_paragraph(str(value))
        else:
            rows = value if isinstance(value, list) else []
            table = document.add_table(rows=len(rows), cols=len(rows[0]))
            for r, row in enumerate(rows):
                for c, cell in enumerate(row):
                    table.cell(r, c).text = str(cell)
    document.save(str(path))
    return path


ARTICLE_HTML = """<!doctype html><html><head><title>Ada Lovelace | Example Encyclopedia</title>
<script>window.analytics = {track: function () {}}; var adTracker = "ANALYTICS_SCRIPT_TEXT";</script>
<style>body { font-family: serif }</style></head>
<body><nav><ul><li><a href="/">Home</a></li><li><a href="/random">NAVIGATION_LINK_TEXT</a></li></ul></nav>
<main><article><h1>Ada Lovelace</h1>
<p>Ada Lovelace was an English mathematician and writer, chiefly known for her work on Charles Babbage's
proposed mechanical general-purpose computer, the Analytical Engine.</p>
<h2>Early life</h2>
<p>She was the only legitimate child of the poet Lord Byron and the reformer Anne Isabella Milbanke.
Her mother promoted her interest in mathematics and logic from an early age.</p>
<h2>Work</h2>
<p>Lovelace wrote the first algorithm intended to be carried out by the Analytical Engine. She is often
regarded as one of the first computer programmers.</p>
</article></main>
<footer>FOOTER_BOILERPLATE_TEXT Copyright 2026 Example Corp. All rights reserved. Privacy policy.</footer>
<script>document.write("INLINE_SCRIPT_TEXT");</script></body></html>
"""

SCRIPT_HTML = (
    "<!doctype html><html><head><title>App</title><script>"
    + "var bundle = function () { return 'SCRIPT_BUNDLE_TEXT'; };\n" * 400
    + "</script></head><body><div id=\"root\"></div><script>render(document.getElementById('root'))"
    "</script></body></html>"
)


def style_bomb_docx(path: Path, styles: int, paragraphs: int) -> Path:
    """A small Word file with many paragraph styles, each paragraph in one of them: a reader that searches
    every style for every paragraph is quadratic in it (issue 76: 58 KB cost 268 s of CPU). The last style is
    named "Heading 1", so a linear reader must still find headings by name."""
    import io
    import re
    import zipfile

    import docx

    buffer = io.BytesIO()
    docx.Document().save(buffer)
    names = [f"Bomb {i}" for i in range(styles - 1)] + ["Heading 1"]
    defined = "".join(
        f'<w:style w:type="paragraph" w:styleId="B{i}"><w:name w:val="{n}"/></w:style>' for i, n in enumerate(names)
    )
    body = "".join(
        f'<w:p><w:pPr><w:pStyle w:val="B{i % styles}"/></w:pPr><w:r><w:t>para {i}</w:t></w:r></w:p>'
        for i in range(paragraphs)
    )
    source = zipfile.ZipFile(io.BytesIO(buffer.getvalue()))
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out:
        for item in source.infolist():
            data = source.read(item.filename)
            if item.filename == "word/styles.xml":
                data = data.replace(b"</w:styles>", defined.encode() + b"</w:styles>")
            elif item.filename == "word/document.xml":
                data = re.sub(rb"<w:body>", b"<w:body>" + body.encode(), data, count=1)
            out.writestr(item, data)
    return path

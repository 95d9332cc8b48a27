"""Scanned pages read by OCR: pages/s and how much of the text comes back, on real pages made into scans.

    .venv/bin/python -m bench.ocr --pdf data/financebench/pdfs/3M_2018_10K.pdf --pages 10 [--record]

Each of the first `--pages` pages of a born-digital PDF is rendered to an image (150 dpi, as a scanner would
write it) and written into an image-only PDF; `read_pdf` then reads that file by OCR (the `ocr` extra). Word
recall is the share of the text layer's words (of the original pages) that the OCR text holds.
"""

from __future__ import annotations

import re
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from bench.record import arguments, parse, record
from graphwright.documents import ocr
from graphwright.documents.formats import read_pdf

SCAN_DPI = 150


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def scanned_copy(source: Path, pages: int, target: Path) -> list[str]:
    """Write the first `pages` pages of `source` as images into `target`; the text layer of each page."""
    import pypdfium2 as pdfium
    from fpdf import FPDF

    pdf = pdfium.PdfDocument(source.read_bytes())
    texts: list[str] = []
    scan = FPDF(unit="pt")
    with tempfile.TemporaryDirectory() as folder:
        for number in range(min(pages, len(pdf))):
            page = pdf[number]
            width, height = page.get_size()
            texts.append(page.get_textpage().get_text_range())
            image = Path(folder) / f"{number}.png"
            page.render(scale=SCAN_DPI / 72).to_pil().convert("L").save(image)
            scan.add_page(format=(width, height))
            scan.image(str(image), x=0, y=0, w=width, h=height)
        scan.output(str(target))
    pdf.close()
    return texts


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--pdf", type=Path, required=True, help="a born-digital PDF whose pages become scans")
    parser.add_argument("--pages", type=int, default=10)
    args = parse(parser)
    if not ocr.available():
        parser.error("the ocr extra is not installed: pip install 'graphwright[ocr]'")
    from PIL import Image

    console = Console(record=True)
    with tempfile.TemporaryDirectory() as folder:
        scan = Path(folder) / "scan.pdf"
        texts = scanned_copy(args.pdf, args.pages, scan)
        ocr.read_image(Image.new("RGB", (64, 32), "white"))  # the models' loading is not timed
        started = time.perf_counter()
        read = read_pdf(scan.read_bytes())
        seconds = time.perf_counter() - started
    found = {p.page: set(_words(p.text)) for p in read.parts}
    source = [w for i, text in enumerate(texts, start=1) for w in _words(text)]
    hits = sum(w in found.get(i, set()) for i, text in enumerate(texts, start=1) for w in _words(text))
    table = Table(title=f"OCR of {len(texts)} scanned pages of {args.pdf.name} ({SCAN_DPI} dpi)")
    for column in ("pages", "seconds", "pages/s", "s/page", "word recall"):
        table.add_column(column, justify="right")
    recall = hits / max(len(source), 1)
    table.add_row(
        str(len(texts)), f"{seconds:.1f}", f"{len(texts) / seconds:.2f}", f"{seconds / len(texts):.1f}", f"{recall:.1%}"
    )
    console.print(table)
    if args.record:
        record(
            "Scanned pages read by OCR",
            "bench.ocr",
            console,
            headline=f"{len(texts) / seconds:.2f} pages/s, word recall {recall:.1%} of the text layer",
        )


if __name__ == "__main__":
    main()

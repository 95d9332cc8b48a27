"""What reading PDF tables from their characters' positions costs: pages/s with and without it, and how many
pages and table pieces it finds, over a folder of born-digital PDFs (FinanceBench's filings, built by
`../shared/tools/financebench.py`).

    .venv/bin/python -m bench.pdf_tables --pdfs data/financebench/pdfs [--record]
"""

from __future__ import annotations

import time
from pathlib import Path
from unittest import mock

from rich.console import Console
from rich.table import Table

from bench.record import arguments, parse, record
from graphwright.documents import pdf_tables
from graphwright.documents.formats import read_pdf
from graphwright.documents.tables import CELL_SEPARATOR


def read_all(files: list[Path], tables: bool) -> tuple[float, int, int, int]:
    """Seconds, pages, pages holding a table piece, table pieces (0 without tables)."""
    seconds, pages, with_tables, pieces = 0.0, 0, 0, 0
    for path in files:
        raw = path.read_bytes()
        with mock.patch.object(pdf_tables, "may_hold_table", pdf_tables.may_hold_table if tables else lambda _: False):
            started = time.perf_counter()
            read = read_pdf(raw)
            seconds += time.perf_counter() - started
        pages += read.pages
        for part in read.parts:
            blocks = [b for b in part.text.split("\n\n") if CELL_SEPARATOR in b]
            with_tables += bool(blocks)
            pieces += len(blocks)
    return seconds, pages, with_tables, pieces


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--pdfs", type=Path, default=Path("data/financebench/pdfs"))
    args = parse(parser)
    files = sorted(args.pdfs.glob("*.pdf"))
    if not files:
        parser.error(f"no PDF in {args.pdfs}")
    console = Console(record=True)
    table = Table(title=f"{len(files)} PDFs in {args.pdfs}")
    for column in ("reader", "pages", "seconds", "pages/s", "pages with a table", "table pieces"):
        table.add_column(column, justify="left" if column == "reader" else "right")
    figures = {}
    read_pdf(files[0].read_bytes())  # the first read loads PDFium: paid by neither row
    for name, tables in (("text layer only", False), ("tables from positions", True)):
        seconds, pages, with_tables, pieces = read_all(files, tables)
        figures[name] = pages / seconds
        share = f"{with_tables} ({with_tables / pages:.0%})" if tables else "-"
        rate = f"{pages / seconds:.1f}"
        table.add_row(name, str(pages), f"{seconds:.1f}", rate, share, str(pieces) if tables else "-")
    console.print(table)
    if args.record:
        record(
            "PDF tables read from their characters' positions",
            "bench.pdf_tables",
            console,
            headline=f"{figures['tables from positions']:.0f} pages/s with tables read as cells, "
            f"{figures['text layer only']:.0f} without",
        )


if __name__ == "__main__":
    main()

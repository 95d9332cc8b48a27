"""Tables in a born-digital PDF read from where their characters sit: figures under their columns (an empty
column stays empty), the header row leading every piece, a wrapped label joined to its figures, prose kept."""

from __future__ import annotations

from pathlib import Path

from graphwright.documents.chunking import chunk_parts
from graphwright.documents.formats import read_pdf
from graphwright.documents.pdf_tables import Word, find_tables, may_hold_table
from graphwright.documents.tables import PIECE_TOKENS
from graphwright.text.tokens import count_tokens
from tests.documents import make_pdf, make_statement_pdf

HEADER = ["(Millions)", "2018", "2017", "2016"]
ROWS = [
    ["Cash Flows from Operating Activities"],
    ["Net income", "$ 5,363", "$ 4,869", "$ 5,058"],
    ["Inventories", "(509)", "(387)", "57"],
    ["Other net", "12", "", "7"],
    ["Proceeds from sale of businesses, net of cash sold"],
    ["", "846", "1,065", "142"],
    ["Accounts payable", "408", "24", "148"],
]


def _statement(tmp_path: Path, rows: list[list[str]] = ROWS) -> str:
    path = make_statement_pdf(
        tmp_path / "s.pdf",
        "Consolidated Statement of Cash Flows",
        HEADER,
        rows,
        before="Acme Widgets and Subsidiaries",
        after="The accompanying notes are part of this statement.",
    )
    [part] = read_pdf(path.read_bytes()).parts
    return part.text


def test_a_statement_is_read_as_cells_under_its_column_years(tmp_path: Path) -> None:
    text = _statement(tmp_path)
    assert "(Millions) | 2018 | 2017 | 2016\nCash Flows from Operating Activities\n" in text
    assert "Net income | $ 5,363 | $ 4,869 | $ 5,058" in text
    assert "Inventories | (509) | (387) | 57" in text
    # the text layer reads "Other net 12 7": only the positions say 2017 is the empty column
    assert "Other net | 12 |  | 7" in text
    # a label the text layer put on the line above its figures is joined to them
    assert "Proceeds from sale of businesses, net of cash sold | 846 | 1,065 | 142" in text
    # what is not the table stays as it was, around it
    assert text.startswith("Acme Widgets and Subsidiaries\nConsolidated Statement of Cash Flows\n\n(Millions)")
    assert text.endswith("Accounts payable | 408 | 24 | 148\n\nThe accompanying notes are part of this statement.")


def test_a_long_table_is_cut_into_pieces_each_led_by_its_header_row(tmp_path: Path) -> None:
    rows = [[f"Line item number {i}", f"{i},{i:03d}", f"({i + 1},000)", str(i)] for i in range(30)]  # one page
    text = _statement(tmp_path, rows)
    pieces = [p for p in text.split("\n\n") if "Line item" in p]
    assert len(pieces) > 3
    assert all(p.startswith("(Millions) | 2018 | 2017 | 2016\n") for p in pieces)
    assert all(count_tokens(p) <= PIECE_TOKENS + 20 for p in pieces)
    rows_read = [line for p in pieces for line in p.splitlines() if line.startswith("Line item")]
    assert rows_read == [" | ".join(r) for r in rows], "every row once, in order"
    # chunking keeps a piece whole and a row a line, so every passage of the table says its column years
    chunks = [c for c in chunk_parts(read_pdf((tmp_path / "s.pdf").read_bytes()).parts, 128, 24) if "Line" in c.text]
    assert all("(Millions) | 2018 | 2017 | 2016\nLine item number" in c.text for c in chunks)


def test_prose_with_numbers_and_plain_pages_are_left_as_the_text_layer_reads_them(tmp_path: Path) -> None:
    prose = (
        "Revenue grew 12 percent in 2018 to 5,363 million.\nThe board met 4 times and approved 2 plans.\n"
        "Headcount rose to 1,200 from 1,100 people.\nWe opened 3 plants in 2017 and 2 in 2016."
    )
    path = make_pdf(tmp_path / "p.pdf", [prose])
    [part] = read_pdf(path.read_bytes()).parts
    assert " | " not in part.text and "5,363 million" in part.text


def test_rows_must_sit_in_columns() -> None:
    def line(*words: tuple[str, float]) -> list[Word]:
        return [Word(text, left, left + 6 * len(text)) for text, left in words]

    header = line(("(Millions)", 50), ("2018", 300), ("2017", 380))
    grid = [line((f"Item {i}", 50), ("1,000", 312), ("2,000", 392)) for i in range(4)]
    [table] = find_tables([header, *grid])
    assert table.first == 0 and table.last == 4
    assert table.pieces == ["(Millions) | 2018 | 2017\n" + "\n".join(f"Item {i} | 1,000 | 2,000" for i in range(4))]
    # figures that stand wherever the sentence put them are no grid
    ragged = [line((f"Item {i}", 50), ("1,000", 100 + 37 * i), ("2,000", 300 + 41 * i)) for i in range(4)]
    assert find_tables([header, *ragged]) == []


def test_the_cheap_test_needs_rows_ending_in_figures() -> None:
    assert may_hold_table("A 1 2\nB (3) 4\nC 5,000 $ 6")
    assert not may_hold_table("In 2018 we sold 5 plants.\nWe hired 200 people.\nPage 4")

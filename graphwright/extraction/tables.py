"""A table as passages that keep it a table: each piece starts with the header row, and each row says its
cells by their column names ("Product: Orion valve | Price (EUR): 4,250"), so a passage cut from the middle of
a long table still says what its numbers are, and a question naming a row and a column finds the cell.

Why rows as records: a chunk of bare rows ("Orion valve | 4,250 | 6") matches a question about the price only
by the row's name; the column's name is on the first row alone, in another chunk once the table is cut."""

from __future__ import annotations

import re

from graphwright.text.tokens import count_tokens

# A piece of a table stays below a chunk (128 tokens by default) so the chunker never cuts one.
PIECE_TOKENS = 90
CELL_SEPARATOR = " | "


def _row_text(header: list[str], row: list[str]) -> str:
    cells = []
    for index, value in enumerate(row):
        if not value:
            continue
        name = header[index] if index < len(header) else ""
        cells.append(f"{name}: {value}" if name and name != value else value)
    return CELL_SEPARATOR.join(cells)


def table_pieces(rows: list[list[str]], title: str = "", budget: int = PIECE_TOKENS) -> list[str]:
    """The table as pieces of at most about `budget` tokens: its title and header row, then rows as records.
    A table of one row (or none with text) is that row."""
    rows = [[" ".join(c.split()) for c in r] for r in rows if any(c.strip() for c in r)]
    if not rows:
        return []
    header, body = rows[0], rows[1:]
    lead = "\n".join(t for t in (title, CELL_SEPARATOR.join(c for c in header if c)) if t)
    if not body:
        return [lead]
    pieces: list[str] = []
    current: list[str] = []
    size = count_tokens(lead)
    for row in body:
        line = _row_text(header, row)
        n = count_tokens(line)
        if current and size + n > budget:
            pieces.append("\n".join([lead, *current]))
            current, size = [], count_tokens(lead)
        current.append(line)
        size += n
    pieces.append("\n".join([lead, *current]))
    return pieces


def markdown_row(line: str) -> list[str] | None:
    """The cells of a markdown table row ("| a | b |"), None for another line."""
    stripped = line.strip()
    if not (stripped.startswith("|") and stripped.endswith("|") and stripped.count("|") >= 2):
        return None
    return [c.strip() for c in stripped.strip("|").split("|")]


def _is_rule(line: str) -> bool:
    stripped = line.strip().strip("|")
    return bool(stripped) and all(c in "-:| " for c in stripped) and "---" in stripped


def markdown_tables_as_pieces(text: str) -> str:
    """A markdown text with each of its tables written as header-led pieces (blank lines between them); the
    rest as it was."""
    out: list[str] = []
    table: list[list[str]] = []

    def flush() -> None:
        if table:
            out.append("\n\n".join(table_pieces(table)))
            table.clear()

    fenced = False
    for line in text.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        cells = None if fenced else markdown_row(line)
        if cells is not None:
            if not _is_rule(line):
                table.append(cells)
            continue
        flush()
        out.append(line)
    flush()
    return "\n".join(out)


# --- statements in a PDF's text layer ----------------------------------------------------------------------
# A born-digital filing's statement reaches the text layer row by row ("Inventories (509) (387) 57") under a line
# of column years ("(Millions) 2018 2017 2016"); only that line says which year a figure is. Read from the text
# layer, not by a table parser: pdfplumber's `extract_tables` read 2.24 pages/s on a 10-K against PDFium's text at
# 144 (docs/benchmarks.md), which would double the ingest of a corpus of filings for rows the text already has.
_YEARS_LINE = re.compile(r"^(?P<label>.*?)\s*(?P<years>(?:19|20)\d{2}(?:\s+(?:19|20)\d{2})+)\s*$")
_FIGURE = re.compile(r"^\(?-?\$?\(?\d[\d,]*(?:\.\d+)?\)?%?$|^[—–-]$")
_MAX_COLUMNS = 8


def _figures(tokens: list[str], columns: int) -> tuple[list[str], list[str]] | None:
    """The line's last `columns` figures ("$ 5,363" is one) and the words before them; None if it has fewer."""
    cells: list[str] = []
    index = len(tokens)
    while index > 0 and len(cells) < columns:
        token = tokens[index - 1]
        if not _FIGURE.match(token):
            return None
        index -= 1
        if index > 0 and tokens[index - 1] in ("$", "€", "£", "¥"):  # a currency sign set apart
            index -= 1
            token = tokens[index] + token
        cells.append(token)
    if len(cells) < columns:
        return None
    return tokens[:index], cells[::-1]


def statement_rows(text: str) -> str:
    """A page's text with each row under a line of column years written as a record of its columns:
    "Inventories (509) (387) 57" under "(Millions) 2018 2017 2016" becomes "Inventories | 2018: (509) |
    2017: (387) | 2016: 57". A row whose label wrapped onto the line before its figures is joined to it. Lines
    that are not such rows are kept as they were; a page with no line of years is returned unchanged."""
    lines = text.split("\n")
    if not any(_YEARS_LINE.match(line.strip()) for line in lines):
        return text
    out: list[str] = []
    years: list[str] = []
    pending = -1  # the index in `out` of a label line the next row's figures may belong to
    for line in lines:
        stripped = line.strip()
        header = _YEARS_LINE.match(stripped)
        if header and len(header.group("years").split()) <= _MAX_COLUMNS:
            years = header.group("years").split()
            out.append(line)
            pending = -1
            continue
        found = _figures(stripped.split(), len(years)) if years and stripped else None
        if found is None:
            out.append(line)
            pending = len(out) - 1 if stripped and years else -1
            continue
        words, cells = found
        label = " ".join(words)
        if not label and pending >= 0:  # the figures alone: the label is the line before
            label = out.pop(pending).strip()
        record = CELL_SEPARATOR.join(f"{year}: {cell}" for year, cell in zip(years, cells))
        out.append(f"{label}{CELL_SEPARATOR}{record}" if label else record)
        pending = -1
    return "\n".join(out)

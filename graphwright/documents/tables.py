"""A table as passages that keep it a table: each piece starts with the header row, and each row says its
cells by their column names ("Product: Orion valve | Price (EUR): 4,250"), so a passage cut from the middle of
a long table still says what its numbers are, and a question naming a row and a column finds the cell.

Why rows as records: a chunk of bare rows ("Orion valve | 4,250 | 6") matches a question about the price only
by the row's name; the column's name is on the first row alone, in another chunk once the table is cut."""

from __future__ import annotations

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
    return led_pieces(lead, [_row_text(header, row) for row in body], budget)


def led_pieces(lead: str, lines: list[str], budget: int = PIECE_TOKENS) -> list[str]:
    """`lines` packed into pieces of at most about `budget` tokens, each starting with `lead` (if any)."""
    pieces: list[str] = []
    current: list[str] = []
    size = count_tokens(lead)
    for line in lines:
        n = count_tokens(line)
        if current and size + n > budget:
            pieces.append("\n".join([lead, *current] if lead else current))
            current, size = [], count_tokens(lead)
        current.append(line)
        size += n
    if current:
        pieces.append("\n".join([lead, *current] if lead else current))
    return pieces


def is_table_block(paragraph: str) -> bool:
    """Whether a paragraph is a piece of a table as these pieces are written (most of its lines cells
    joined by CELL_SEPARATOR): chunking keeps its line breaks, one row a line, as it keeps code's."""
    lines = [line for line in paragraph.splitlines() if line.strip()]
    return len(lines) >= 2 and sum(CELL_SEPARATOR in line for line in lines) * 2 > len(lines)


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

"""Tables in a born-digital PDF page, read from where its characters sit: a financial statement's rows become
cells under its columns, each piece of the table led by its header row ("(Millions) | 2018 | 2017 | 2016").

Why positions and not the text layer's order: the text layer gives a row as "Other — net 120 76" when a
column is empty, and nothing says which year lost its figure; numbers are right-aligned in their column, so
the right edge of each figure names its column. Why not a table parser: pdfplumber's `extract_tables` read
2.24 pages/s on a 10-K against 144 for PDFium's text (docs/benchmarks.md); the character boxes come from the
same PDFium text page in ~5 ms a page.

Why compact cells and not records ("Inventories | 2018: (509) | 2017: (387)", as Word tables are written):
records of their column years lowered FinanceBench page@5 from 60.0 to 55.0 on a fresh ingest; a header row
per piece says the same once."""

from __future__ import annotations

import re
from dataclasses import dataclass

from graphwright.documents.tables import CELL_SEPARATOR, led_pieces

# A figure as statements print it: 5,363 / (509) / 12.5 / 7% / a dash for nothing.
_FIGURE = re.compile(r"^\(?-?\$?\(?\d(?:[\d,]*\d)?(?:\.\d+)?\)?%?\)?$|^[—–-]$|^\*{1,3}$")
_CURRENCY = {"$", "€", "£", "¥"}
_YEAR = re.compile(r"^\(?(?:19|20)\d{2}\)?$")
# Figures whose right edges are this close (points) stand in one column; a bracket shifts an edge by ~2.
_COLUMN_GAP = 9.0
# Cells stand further apart than this (points) from the label; a word space is ~3 at 10 pt.
_CELL_GAP = 5.0
_MIN_ROWS = 3  # rows with figures before a run of lines is taken for a table
_MAX_COLUMNS = 10
_MAX_GAP_LINES = 3  # lines without figures (section labels, a wrapped label) inside one table
# A header line's own label ("(Millions)") stands this far (points) from its first column head; prose does not.
_LABEL_GAP = 20.0
_HEADER_LOOKBACK = 10  # lines above a table's first row searched for its column labels (stacked ones too)


@dataclass(frozen=True)
class Word:
    text: str
    left: float
    right: float


Line = list[Word]


def page_words(text: str, boxes: list[tuple[float, float, float, float]]) -> list[Line]:
    """The page's lines as words with their horizontal extent, from its text and each character's box
    (left, bottom, right, top), one box per character of `text`; a line per line of `text`. PDFium starts a
    new line at a wide gap ("Deferred taxes (57) 107" then "7" alone): words on the same baseline to the
    right of the line before join it, leaving their own line empty (indexes stay those of `text`'s lines)."""
    lines: list[Line] = []
    baselines: list[float | None] = []
    current: Line = []
    baseline: float | None = None
    chars: list[str] = []
    left = right = 0.0

    def close() -> None:
        if chars:
            current.append(Word("".join(chars), left, right))
            chars.clear()

    for index, char in enumerate(text):
        if char == "\ufffe":  # PDFium's mark of a word hyphenated at the line's end
            continue
        if char == "\n":
            close()
            lines.append(current)
            baselines.append(baseline)
            current, baseline = [], None
        elif char.isspace():
            close()
        else:
            box_left, bottom, box_right, _ = boxes[index] if index < len(boxes) else (0.0, 0.0, 0.0, 0.0)
            if not chars:
                left = box_left
            chars.append(char)
            right = max(right, box_right) if len(chars) > 1 else box_right
            baseline = bottom if baseline is None else baseline
    close()
    lines.append(current)
    baselines.append(baseline)
    target = 0  # the line words on its baseline join
    for index in range(1, len(lines)):
        here, low, high = lines[index], baselines[target], baselines[index]
        aligned = low is not None and high is not None and abs(high - low) < 1.0
        if here and lines[target] and aligned and here[0].left > lines[target][-1].right:
            lines[target].extend(here)
            lines[index] = []
            continue
        if here:
            target = index
    return lines


@dataclass
class _Row:
    index: int  # the line's position on the page
    label: str
    cells: list[Word]  # figures, left to right; a currency sign joined to its figure


def _split_figures(line: Line) -> _Row | None:
    """The line's trailing figures and the words before them; None without a figure at its end. A figure
    one word-space from the word before it is part of the label ("Note 12", "Line 4"): cells stand apart."""
    cells: list[Word] = []
    i = len(line)
    while i > 0:
        word = line[i - 1]
        if word.text in _CURRENCY and cells:  # "$ 5,363": the sign belongs to the figure after it
            first = cells[-1]
            cells[-1] = Word(f"{word.text} {first.text}", word.left, first.right)
        elif word.text == "%" and i > 1 and _FIGURE.match(line[i - 2].text):
            word = Word(f"{line[i - 2].text}%", line[i - 2].left, word.right)
            cells.append(word)
            i -= 1
        elif _FIGURE.match(word.text):
            cells.append(word)
        else:
            break
        i -= 1
        if i > 0 and word.left - line[i - 1].right < _CELL_GAP and line[i - 1].text not in _CURRENCY:
            if _FIGURE.match(line[i - 1].text) or not _FIGURE.match(word.text):
                continue  # "(1.5) 1.6" in a tight table, or a sign before its figure: still cells
            cells.pop()  # a number set close after a word: the label's own
            i += 1
            break
    if not cells:
        return None
    return _Row(-1, " ".join(w.text for w in line[:i]), cells[::-1])


def _columns(rows: list[_Row]) -> list[float]:
    """Right edges of the table's columns: figures' right edges clustered, each cluster held by several rows."""
    edges = sorted(cell.right for row in rows for cell in row.cells)
    clusters: list[list[float]] = []
    for edge in edges:
        if clusters and edge - clusters[-1][-1] <= _COLUMN_GAP:
            clusters[-1].append(edge)
        else:
            clusters.append([edge])
    support = max(2, len(rows) // 4)
    return [max(c) for c in clusters if len(c) >= support]


def _column_of(right: float, columns: list[float]) -> int | None:
    best = min(range(len(columns)), key=lambda i: abs(columns[i] - right))
    return best if abs(columns[best] - right) <= _COLUMN_GAP else None


def _header(
    lines: list[Line], first: int, centres: list[float], left_edge: float
) -> tuple[list[int], list[str]] | None:
    """The lines above the table's first row that label its columns, and the header row they make (the left
    part first). A column's label may be stacked over several lines ("Fiscal" over "2016"), each word given
    to the column whose centre is nearest; climbing stops at a line of prose or of figures, and after a line
    with a label of its own ("(Millions) 2018 2017 2016", the lowest line of a header)."""
    found: list[int] = []
    for index in range(first - 1, max(-1, first - 1 - _HEADER_LOOKBACK), -1):
        line = lines[index]
        heads = [w for w in line if w.right > left_edge]
        if not heads:
            if found:
                break
            continue  # a section's label between the header and the first row
        row = _split_figures(line)
        if row is not None and not all(_YEAR.match(c.text) for c in row.cells):
            break
        labelled = [w for w in line if w.right <= left_edge]
        if labelled:  # only the lowest line has a label, set well apart from the column heads (not prose)
            if found or heads[0].left - labelled[-1].right < _LABEL_GAP:
                break
            found.append(index)
            break
        found.append(index)
    if not found:
        return None
    found.reverse()
    names = [""] * len(centres)
    words = [w for index in found for w in lines[index] if w.right > left_edge]
    if len(found) == 1 and len(words) == len(centres):  # one label a column: by order
        names = [w.text for w in words]
    else:
        for word in words:
            middle = (word.left + word.right) / 2
            at = min(range(len(centres)), key=lambda i: abs(centres[i] - middle))
            names[at] = f"{names[at]} {word.text}".strip()
    if sum(1 for n in names if n) * 2 < len(centres):
        return None
    label = " ".join(w.text for index in found for w in lines[index] if w.right <= left_edge)
    return found, [label, *names]


def _render(label: str, cells: list[str]) -> str:
    return CELL_SEPARATOR.join([label, *cells])


def _cells(row: _Row, columns: list[float]) -> list[str] | None:
    """The row's figures in their columns, "" where a column is empty; None if one sits in no column or two
    in one (not a row of this grid: "Years ended December 31")."""
    cells = [""] * len(columns)
    for cell in row.cells:
        at = _column_of(cell.right, columns)
        if at is None or cells[at]:
            return None
        cells[at] = cell.text
    return cells


def _table_lines(lines: list[Line], rows: list[_Row], columns: list[float]) -> tuple[int, int, list[str]] | None:
    """The table's first and last line indexes and its pieces, or None when its rows do not sit in columns."""
    grid = {row.index: cells for row in rows if (cells := _cells(row, columns)) is not None}
    rows = [row for row in rows if row.index in grid]
    if len(rows) < _MIN_ROWS or len(grid) * 4 < (rows[-1].index - rows[0].index + 1) * 2:
        return None  # fewer than half its lines are rows of the grid: prose with numbers, not a table
    left_edge = min(cell.left for row in rows for cell in row.cells) - 1
    spans: list[list[float]] = [[] for _ in columns]
    for row in rows:
        for cell in row.cells:
            at = _column_of(cell.right, columns)
            if at is not None:
                spans[at] += [cell.left, cell.right]
    centres = [(min(s) + max(s)) / 2 if s else edge for s, edge in zip(spans, columns)]
    header = _header(lines, rows[0].index, centres, left_edge)
    labels = {row.index: row.label for row in rows}
    body: list[str] = []
    pending = ""  # a line without figures: a section label, or a label the text layer put above its figures
    top = header[0][0] if header else rows[0].index
    for index in range(top, rows[-1].index + 1):
        if header and index in header[0]:
            continue
        if index not in grid:
            if pending:
                body.append(pending)
            pending = " ".join(w.text for w in lines[index])
            continue
        label = labels[index]
        if not label and pending:
            label, pending = pending, ""
        elif pending:
            body.append(pending)
            pending = ""
        body.append(_render(label, grid[index]))
    lead = _render(header[1][0], header[1][1:]).strip() if header else ""  # "| 2018 | 2017" without a label
    return top, rows[-1].index, led_pieces(lead, body)


def _runs(lines: list[Line]) -> list[list[_Row]]:
    """Runs of lines with trailing figures, a few lines without them allowed inside a run."""
    runs: list[list[_Row]] = []
    current: list[_Row] = []
    gap = 0
    for index, line in enumerate(lines):
        row = _split_figures(line) if line else None
        if row is not None and all(_YEAR.match(c.text) for c in row.cells):
            row = None  # a line of column years is the header, not a row
        if row is None:
            gap += 1
            if current and gap > _MAX_GAP_LINES:
                runs.append(current)
                current = []
            continue
        row.index = index
        if current and gap > _MAX_GAP_LINES:
            runs.append(current)
            current = []
        current.append(row)
        gap = 0
    if current:
        runs.append(current)
    return runs


def may_hold_table(text: str) -> bool:
    """Cheap test on the text alone: lines ending in two figures or more, as a table's rows do."""
    rows = 0
    for line in text.splitlines():
        tokens = [t for t in line.split() if t not in _CURRENCY]
        if len(tokens) >= 2 and _FIGURE.match(tokens[-1]) and _FIGURE.match(tokens[-2].lstrip("$")):
            rows += 1
            if rows >= _MIN_ROWS:
                return True
    return False


@dataclass(frozen=True)
class TableSpan:
    """A table found on a page: lines `first`..`last` of the page, rewritten as `pieces`."""

    first: int
    last: int
    pieces: list[str]


def find_tables(lines: list[Line]) -> list[TableSpan]:
    """The page's tables, top to bottom, each as header-led pieces of cells."""
    spans: list[TableSpan] = []
    for run in _runs(lines):
        if len(run) < _MIN_ROWS:
            continue
        columns = _columns(run)
        if not 2 <= len(columns) <= _MAX_COLUMNS:
            continue
        found = _table_lines(lines, run, columns)
        if found is not None and (not spans or found[0] > spans[-1].last):
            spans.append(TableSpan(*found))
    return spans

"""Tables that fit the terminal, however narrow: the columns a person reads a row by (a name, an id) keep a
readable width and come first; long text wraps or ends in an ellipsis; when even that does not fit, the least
needed columns are left out and the table says which (`--json` always has everything)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

# Rich draws a vertical rule and one space of padding each side per column, plus the closing rule.
_PER_COLUMN, _EDGE = 3, 1


@dataclass(frozen=True)
class Column:
    """One column: `keep` is the narrowest it may be drawn (its content's width when narrower); `drop` ranks
    what goes first when the terminal is too narrow for every column's `keep` (0: never dropped, a higher
    number goes earlier); `clip` ends long text in an ellipsis on one line, else it wraps."""

    header: str
    keep: int = 8
    drop: int = 0
    clip: bool = False
    max_width: int | None = None
    justify: str = "left"


def _cell_width(cell: object) -> int:
    """Columns on screen, not characters: a Chinese name takes two a character."""
    from rich.cells import cell_len
    from rich.text import Text

    text = cell if isinstance(cell, Text) else Text.from_markup(str(cell))
    return max((cell_len(line) for line in text.plain.splitlines()), default=0)


def fitted_table(
    console: Console, columns: Sequence[Column], rows: Sequence[Sequence[Any]], **table_options: Any
) -> tuple[Table, list[str]]:
    """A table of `rows` no wider than `console`, and the headers of the columns left out to fit."""
    from rich.table import Table

    natural = [
        max([_cell_width(column.header), *(_cell_width(row[i]) for row in rows)]) for i, column in enumerate(columns)
    ]
    least = [min(column.keep, width) for column, width in zip(columns, natural)]
    kept = list(range(len(columns)))

    def needed() -> int:
        return sum(least[i] for i in kept) + _PER_COLUMN * len(kept) + _EDGE

    while needed() > console.width:
        droppable = [i for i in kept if columns[i].drop]
        if not droppable:
            break
        kept.remove(max(droppable, key=lambda i: (columns[i].drop, i)))
    # Widths are set here, not left to Rich: it shrinks the columns that wrap and keeps the clipped ones whole,
    # which squeezed a table's names to one letter beside a long description.
    widths = {i: min(natural[i], columns[i].max_width or natural[i]) for i in kept}
    room = console.width - _PER_COLUMN * len(kept) - _EDGE
    while sum(widths.values()) > room:
        shrinkable = [i for i in kept if widths[i] > least[i]]
        if not shrinkable:
            break
        widest = max(shrinkable, key=lambda i: (widths[i] - least[i], i))
        widths[widest] -= 1
    table = Table(**table_options)
    for i in kept:
        column = columns[i]
        table.add_column(
            column.header,
            width=widths[i],
            overflow="ellipsis" if column.clip else "fold",
            no_wrap=column.clip,
            justify=column.justify,  # type: ignore[arg-type]
        )
    for row in rows:
        table.add_row(*(row[i] for i in kept))
    return table, [columns[i].header for i in range(len(columns)) if i not in kept]


def print_fitted(
    console: Console, columns: Sequence[Column], rows: Sequence[Sequence[Any]], **table_options: Any
) -> None:
    """Print the fitted table, and a dim line naming what a narrow terminal left out."""
    table, dropped = fitted_table(console, columns, rows, **table_options)
    console.print(table)
    if dropped:
        console.print(f"[dim]left out to fit: {', '.join(dropped)} (a wider terminal or --json shows them)[/]")

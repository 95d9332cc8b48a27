"""Tables fit the terminal: names whole and first, long text clipped or wrapped, and what cannot fit left out
and said."""

from __future__ import annotations

import pytest
from rich.console import Console

from graphwright.cli.tables import Column, fitted_table, print_fitted

COLUMNS = [
    Column("name", keep=22),
    Column("type", keep=12, drop=3),
    Column("degree", keep=6, drop=4, justify="right"),
    Column("passages", keep=8, drop=5, justify="right"),
    Column("description", keep=12, drop=2, clip=True, max_width=60),
]
ROWS = [
    ["European Space Agency", "ORGANIZATION", "7", "7", "Hubble is operated by NASA together with the ESA " * 3],
    ["Wernher von Braun", "PERSON", "1", "1", "Wernher von Braun led its design at the Marshall centre."],
]


@pytest.mark.parametrize("width", [200, 120, 80, 60, 40])
def test_a_table_is_never_wider_than_the_terminal_and_its_names_stay_whole(width: int) -> None:
    console = Console(width=width, record=True, color_system=None)
    print_fitted(console, COLUMNS, ROWS)
    text = console.export_text()
    assert max(len(line) for line in text.splitlines()) <= width
    assert "European Space Agency" in text and "Wernher von Braun" in text  # on one line each, never folded


def test_at_80_columns_every_short_column_stays_and_only_the_description_is_clipped() -> None:
    table, dropped = fitted_table(Console(width=80), COLUMNS, ROWS)
    assert dropped == [] and [c.header for c in table.columns] == ["name", "type", "degree", "passages", "description"]
    console = Console(width=80, record=True, color_system=None)
    console.print(table)
    text = console.export_text()
    assert "ORGANIZATION" in text and "…" in text


def test_narrower_terminals_leave_out_the_least_needed_columns_first_and_say_so() -> None:
    _, at_60 = fitted_table(Console(width=60), COLUMNS, ROWS)
    _, at_40 = fitted_table(Console(width=40), COLUMNS, ROWS)
    assert at_60 == ["degree", "passages"] and at_40 == ["type", "degree", "passages"]
    console = Console(width=40, record=True, color_system=None)
    print_fitted(console, COLUMNS, ROWS)
    assert "left out to fit: type, degree, passages" in " ".join(console.export_text().split())


def test_wide_characters_count_as_the_columns_they_take() -> None:
    rows = [["国家航天局", "ORGANIZATION", "3", "2", "负责中国的航天活动与国际合作" * 4]]
    console = Console(width=80, record=True, color_system=None)
    print_fitted(console, COLUMNS, rows)
    text = console.export_text()
    from rich.cells import cell_len

    assert max(cell_len(line) for line in text.splitlines()) <= 80
    assert any(line.startswith("│ 国家航天局 │") for line in text.splitlines())  # whole, on one line

"""Pure logic of the agentic modes: the calculator, the router's table, hops."""

from __future__ import annotations

import pytest

from graphwright.search.calculator import CalculationError, calculate
from graphwright.search.cypher import extract_query
from graphwright.search.multihop import substitute
from graphwright.search.router import route_by_rules


def test_query_is_taken_out_of_a_fence() -> None:
    assert extract_query("Here:\n```cypher\nMATCH (n) RETURN n\n```") == "MATCH (n) RETURN n"


@pytest.mark.parametrize(
    ("expression", "value"),
    [("(1969 - 1957) * 12", 144), ("7 / 2", 3.5), ("2 ** 10", 1024), ("-3 + 5 % 3", -1), ("10 // 3", 3)],
)
def test_calculator(expression: str, value: float) -> None:
    assert calculate(expression) == value


@pytest.mark.parametrize(
    "expression",
    [
        "__import__('os').system('id')",
        "9 ** 9 ** 9",
        "1 / 0",
        "x + 1",
        "2 +",
        "(1).__class__",
        "10 ** 400 * 10 ** 100",
        "1" * 300,
    ],
)
def test_calculator_refuses_anything_else(expression: str) -> None:
    with pytest.raises(CalculationError):
        calculate(expression)


ROUTER_TABLE = [
    ("What does error code QX-7719-ZB mean?", 0, "hybrid"),
    ("Which launch used COSPAR 1969-059A?", 0, "hybrid"),
    ("What are the main themes of these documents?", 0, "global"),
    ("Give me an overview of the corpus", 1, "global"),
    ("Summarize the collection", 0, "global"),
    ("How is Jeff Bezos connected to NASA?", 2, "path"),
    ("What is the relationship between SpaceX and NASA?", 2, "path"),
    ("Which of Acme Corp's suppliers are also Zenith Motors' competitors?", 2, "path"),
    ("What did Wernher von Braun work on?", 1, "local"),
    ("Tell me about Neil Armstrong and Buzz Aldrin", 2, "local"),
    ("Who founded SpaceX?", 1, "local"),
    ("What happened in 1969?", 0, "hybrid"),
    ('Where does the phrase "step by step, ferociously" come from?', 0, "hybrid"),
    ("Which telescopes observe in infrared light?", 0, "vector"),
    ("how do rockets reach orbit", 0, "vector"),
    ("What is the capital of the moon program?", 0, "vector"),
]


def test_router_table() -> None:
    chosen = [(q, route_by_rules(q, named).mode, expected) for q, named, expected in ROUTER_TABLE]
    wrong = [(q, got, expected) for q, got, expected in chosen if got != expected]
    assert not wrong, f"router accuracy {len(chosen) - len(wrong)}/{len(chosen)}: {wrong}"
    assert "QX-7719-ZB" in route_by_rules(ROUTER_TABLE[0][0], 0).why  # it says why


def test_hop_references_are_filled_in() -> None:
    assert (
        substitute("Who invested in #1?", ["Borealis Steel [c_12ab34cd].\nMore"]) == "Who invested in Borealis Steel?"
    )
    assert substitute("What did #2 do?", ["x"]) == "What did #2 do?"

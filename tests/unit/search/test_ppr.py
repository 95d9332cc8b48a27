"""Personalized PageRank on small graphs whose answer is known by hand."""

from __future__ import annotations

import pytest

from graphwright.search.ppr import WalkGraph, personalized_pagerank


def _graph(*edges: tuple[str, str]) -> WalkGraph:
    graph = WalkGraph()
    for a, b in edges:
        graph.connect(a, b)
    return graph


def test_two_nodes_match_the_closed_form() -> None:
    # p_a = (1-d) + d * p_b and p_b = d * p_a  =>  p_a = (1-d) / (1-d^2) = 1 / (1+d)
    mass = personalized_pagerank(_graph(("a", "b")), {"a": 1.0}, damping=0.5)
    assert mass["a"] == pytest.approx(1 / 1.5)
    assert mass["b"] == pytest.approx(0.5 / 1.5)
    assert sum(mass.values()) == pytest.approx(1.0)


def test_the_bridge_passage_outranks_a_passage_of_a_common_entity() -> None:
    """question -> film -> (passage about the film) -> director -> (passage about the director). A passage
    that only shares a hub entity with the film's passage gets less than the director's own passage."""
    graph = _graph(
        ("e:film", "c:film"),
        ("c:film", "e:director"),
        ("e:director", "c:director"),
        ("c:film", "e:usa"),
        ("e:usa", "c:other1"),
        ("e:usa", "c:other2"),
        ("e:usa", "c:other3"),
    )
    mass = personalized_pagerank(graph, {"e:film": 1.0})
    assert mass["c:film"] > mass["c:director"] > mass["c:other1"]


def test_mass_is_lost_to_edges_outside_a_cut_not_redistributed() -> None:
    """A node whose full degree is larger than its fetched edges passes only its share along each edge."""
    cut = _graph(("s", "x"))
    cut.degree["s"] = 4.0  # three more edges in the full graph, not fetched
    d = 0.7
    # x = d * s / 4 and s = (1 - d) + d * x  =>  s = (1 - d) / (1 - d * d / 4)
    s = (1 - d) / (1 - d * d / 4)
    mass = personalized_pagerank(cut, {"s": 1.0}, damping=d)
    assert mass["s"] == pytest.approx(s)
    assert mass["x"] == pytest.approx(d * s / 4)
    assert sum(mass.values()) < 0.5  # the rest went out through the three edges not fetched


def test_parallel_edges_add_up() -> None:
    graph = _graph(("a", "b"), ("a", "b"), ("a", "c"))
    mass = personalized_pagerank(graph, {"a": 1.0})
    assert mass["b"] == pytest.approx(2 * mass["c"])


def test_seeds_are_normalised_and_may_lie_outside_the_graph() -> None:
    mass = personalized_pagerank(_graph(("a", "b")), {"a": 2.0, "lonely": 2.0}, damping=0.5)
    # A seed with no edge keeps only what restarts there: a step out of it leads nowhere.
    assert mass["lonely"] == pytest.approx(0.25)
    assert mass["a"] == pytest.approx(1 / 3)  # a = 0.25 + 0.5 b, b = 0.5 a
    assert mass["b"] == pytest.approx(1 / 6)


def test_no_positive_seed_gives_nothing_and_damping_is_checked() -> None:
    assert personalized_pagerank(_graph(("a", "b")), {"a": 0.0}) == {}
    with pytest.raises(ValueError):
        personalized_pagerank(_graph(("a", "b")), {"a": 1.0}, damping=1.0)

"""Pure logic of the graph modes: context budget, spans, relation words, path rendering, map points."""

from __future__ import annotations

import pytest

from graphwright.models import RelationRef
from graphwright.search.context import Item, pack_sections, parse_shares
from graphwright.search.global_search import batches, is_thematic, parse_points
from graphwright.search.linking import Mention, candidate_spans, question_words
from graphwright.search.path import nearest_mention, relation_words, render_path, words_match


def test_shares_are_normalized_and_checked() -> None:
    assert parse_shares("a=1,b=3") == {"a": 0.25, "b": 0.75}
    with pytest.raises(ValueError, match="name=number"):
        parse_shares("a=lots")
    with pytest.raises(ValueError, match="positive"):
        parse_shares("a=0")


def test_sections_keep_their_share_and_pass_on_what_they_leave() -> None:
    words = " ".join(["word"] * 9)  # 9 tokens + 1 for the line
    items = {"a": [Item("a1", words)], "b": [Item(f"b{i}", words) for i in range(10)]}
    sections = pack_sections(items, {"a": 0.5, "b": 0.5}, 100)
    assert [s.name for s in sections] == ["a", "b"]
    # a uses 2 (title) + 10 of its 50; b gets its 50 plus the 38 left: (88 - 2) // 10 = 8 items
    assert sections[1].ids == [f"b{i}" for i in range(8)]
    assert all(s.tokens <= 88 for s in sections)


def test_an_item_too_big_is_skipped_but_smaller_ones_after_it_fit() -> None:
    sections = pack_sections({"x": [Item("big", "w " * 80), Item("small", "tiny")]}, {"x": 1.0}, 20)
    assert sections[0].ids == ["small"]


def test_empty_sections_are_left_out() -> None:
    assert pack_sections({"x": [], "y": [Item("y1", "text")]}, {"x": 0.5, "y": 0.5}, 50)[0].name == "y"


def test_question_words_drop_possessives() -> None:
    assert question_words("Which of Acme Corp's suppliers are Zenith Motors' rivals?") == [
        "Which",
        "of",
        "Acme",
        "Corp",
        "suppliers",
        "are",
        "Zenith",
        "Motors",
        "rivals",
    ]


def test_spans_skip_stopwords_and_lowercase_words_of_a_cased_question() -> None:
    keys = {key for _, _, key in candidate_spans(question_words("What did the Saturn V launch in 1969?"))}
    assert "saturn v" in keys and "1969" in keys
    assert "launch" not in keys and "the" not in keys and "what" not in keys
    lowercase = {key for _, _, key in candidate_spans(question_words("how is apollo 11 linked to nasa"))}
    assert {"apollo 11", "nasa"} <= lowercase


@pytest.mark.parametrize(
    ("word", "type_part", "expected"),
    [
        ("suppliers", "SUPPLIES", True),
        ("competitors", "COMPETES", True),
        ("acquired", "ACQUIRED", True),
        ("investors", "INVESTED", True),
        ("partner", "PARTNERS", True),
        ("connected", "COMPETES", False),
        ("students", "STUDIED", False),
        ("supplies", "SUPPORTS", False),
    ],
)
def test_relation_word_families(word: str, type_part: str, expected: bool) -> None:
    assert words_match(word, type_part) is expected


def test_relation_words_attach_to_the_name_they_follow() -> None:
    words = question_words("Which of Acme Corp's suppliers are also Zenith Motors' competitors?")
    acme, zenith = Mention("acme", 2, 4), Mention("zenith", 7, 9)
    found = relation_words(words, [acme, zenith], ["COMPETES_WITH", "SUPPLIES", "RELATED_TO"])
    assert found == [(4, ["SUPPLIES"]), (9, ["COMPETES_WITH"])]
    assert nearest_mention(4, [acme, zenith]).entity_id == "acme"
    assert nearest_mention(9, [acme, zenith]).entity_id == "zenith"
    # "the suppliers of Acme": the name after the word when none comes before
    assert nearest_mention(1, [Mention("acme", 3, 4)]).entity_id == "acme"


def test_paths_render_each_edge_in_its_direction() -> None:
    def rel(a: str, t: str, b: str) -> RelationRef:
        return RelationRef(source_id=a, source=a.upper(), type=t, target_id=b, target=b.upper())

    nodes = [{"id": "f", "name": "F"}, {"id": "b", "name": "B"}, {"id": "a", "name": "A"}]
    assert (
        render_path(nodes, [rel("f", "INVESTED_IN", "b"), rel("b", "SUPPLIES", "a")])
        == "F -[INVESTED_IN]-> B -[SUPPLIES]-> A"
    )
    assert (
        render_path(nodes[::-1], [rel("b", "SUPPLIES", "a"), rel("f", "INVESTED_IN", "b")])
        == "A <-[SUPPLIES]- B <-[INVESTED_IN]- F"
    )


def test_map_points_are_parsed_leniently_and_checked() -> None:
    text = (
        '```json\n{"points": [{"description": "Space", "score": "85", "reports": ["L0-1", "L9-x"]},'
        ' {"description": "", "score": 90}, {"description": "Zero", "score": 0},'
        ' {"description": "Capped", "score": 400, "reports": []},]}\n```'
    )
    points = parse_points(text, {"L0-1"})
    assert [(p.description, p.score, p.reports) for p in points] == [("Space", 85.0, ["L0-1"]), ("Capped", 100.0, [])]
    with pytest.raises(ValueError):
        parse_points("no json here", set())


def test_batches_respect_the_budget_and_keep_order() -> None:
    texts = [(str(i), "w " * 40) for i in range(5)]
    groups = batches(texts, 100)
    assert [[i for i, _ in g] for g in groups] == [["0", "1"], ["2", "3"], ["4"]]
    assert batches([("big", "w " * 500)], 100) == [[("big", "w " * 500)]]


def test_thematic_wording() -> None:
    assert is_thematic("What are the main themes of this corpus?")
    assert is_thematic("Give me an overview")
    assert not is_thematic("Who founded Acme Corp?")
    assert is_thematic("这些文档的主要内容是什么？")


def test_name_query_adds_fuzzy_variants_of_long_words_only() -> None:
    from graphwright.search.linking import name_query

    assert name_query("Where is Armstong?") == "name:(Where is Armstong\\?) OR name:(Armstong~1)"
    assert name_query("who is he") == "name:(who is he)"
    assert name_query("???") == "name:(\\?\\?\\?)"


def test_browser_evidence_query_keeps_only_generated_ids() -> None:
    from graphwright.graph_store.queries.inspection import evidence_browser_query

    cypher = evidence_browser_query(["c_1", "x'}) DETACH DELETE n //"], ["e_2", "e_2"], ["L1-3"])
    assert "['c_1']" in cypher and "['e_2']" in cypher and "['L1-3']" in cypher
    assert "DELETE" not in cypher

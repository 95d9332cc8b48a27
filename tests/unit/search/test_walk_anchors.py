"""When local search lets the walk rank passages: a name the question writes as one, specific, and where the
question's closest passages agree (issue 62: "the graph never hurts")."""

from __future__ import annotations

from types import SimpleNamespace

from graphwright.config import Settings
from graphwright.models import EntityRef, RetrievedChunk
from graphwright.search.linking import Mention, named_mentions, question_words
from graphwright.search.local import LocalSearch
from graphwright.search.neighbourhood import CHUNK, ENTITY, Neighbourhood
from graphwright.search.ppr import WalkGraph


def _mentions(question: str, *names: str) -> list[Mention]:
    words = [w.lower() for w in question_words(question)]
    found = []
    for name in names:
        parts = name.lower().split()
        start = next(i for i in range(len(words)) if words[i : i + len(parts)] == parts)
        found.append(Mention(name, start, start + len(parts)))
    return found


def test_a_word_capitalised_only_by_its_sentence_is_no_name() -> None:
    question = "What is the FY2018 capex in USD for 3M? Give a response in millions."
    assert named_mentions(question, _mentions(question, "Give", "USD", "3M", "FY2018")) == {"USD", "3M", "FY2018"}


def test_an_all_lowercase_question_names_only_what_has_a_digit_or_an_acronym() -> None:
    question = "were there any board nominees with more votes against than 3m or the sec?"
    assert named_mentions(question, _mentions(question, "any", "board", "3m", "sec")) == {"3m"}


def test_a_name_inside_a_sentence_counts_and_a_script_without_case_counts_whole() -> None:
    question = "Who directed the film that Orion Rockets sponsored?"
    assert named_mentions(question, _mentions(question, "Orion Rockets", "Who")) == {"Orion Rockets"}
    assert named_mentions("知识图谱是什么", [Mention("kg", 0, 1)]) == {"kg"}


def _search() -> LocalSearch:
    return LocalSearch(SimpleNamespace(graph=None), SimpleNamespace(), Settings())  # type: ignore[arg-type]


def _hood(edges: list[tuple[str, str]], mentions: dict[str, int]) -> Neighbourhood:
    graph = WalkGraph()
    for chunk, entity in edges:
        graph.connect(CHUNK + chunk, ENTITY + entity)
    return Neighbourhood(graph=graph, mentions=mentions)


def _chunk(chunk_id: str) -> RetrievedChunk:
    return RetrievedChunk(chunk_id=chunk_id, document_id="d", text="t", score=0.7, rank=1)


def test_the_walk_needs_a_name_the_closest_passages_agree_with() -> None:
    usd = EntityRef(id="usd", name="USD", type="MONEY", how="exact", score=1.0)
    palme = EntityRef(id="palme", name="Palme", type="PERSON", how="exact", score=1.0)
    lisbet = EntityRef(id="lisbet", name="Lisbet Palme", type="PERSON", how="fulltext", score=0.2)
    seeds = {ENTITY + "usd": 0.3, ENTITY + "palme": 0.3, ENTITY + "lisbet": 0.1}
    hood = _hood([("far", "usd"), ("near", "lisbet"), ("other", "palme")], {"usd": 3, "palme": 3, "lisbet": 1})
    dense = [_chunk("near")]
    found = _search().anchors([usd, palme, lisbet], hood, seeds, dense, {"usd", "palme"})
    # USD's pages are none of the closest; a close page names Lisbet Palme, whose name holds Palme's
    assert [e.id for e in found] == ["palme"]
    # a name the question does not write as one, or a hub, anchors nothing
    assert _search().anchors([palme, lisbet], hood, seeds, dense, set()) == []
    hub = _hood([("near", "palme")], {"palme": Settings().search.ppr_hub_mentions + 1})
    assert _search().anchors([palme], hub, seeds, dense, {"palme"}) == []


def test_a_question_without_spaces_names_what_it_holds_whole_however_it_was_cut() -> None:
    pan = EntityRef(id="pan", name="潘淑", type="PERSON", how="fulltext", score=0.2)
    other = EntityRef(id="other", name="潘淑时", type="PERSON", how="fulltext", score=0.2)
    assert named_mentions("潘淑是哪里人？", [], [pan, other]) == {"pan"}
    assert named_mentions("Where is Pan Shu from?", [], [pan]) == set()

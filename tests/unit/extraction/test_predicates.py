"""Relation types read from real parses (spaCy's packaged English model), and the offline extractor that
writes them: typed where the sentence says what links two names, RELATED_TO only for names listed together."""

from __future__ import annotations

import pytest

from graphwright.extraction.nlp_extractor import NLPExtractor
from graphwright.extraction.parser import load_pipeline, spacy_available
from graphwright.extraction.predicates import predicate
from graphwright.text.normalize import relation_type

pytestmark = pytest.mark.skipif(not spacy_available(), reason="spaCy's English model is not installed")


@pytest.fixture(scope="module")
def nlp():
    return load_pipeline(ner=False)


def link(nlp, sentence: str, first: str, second: str) -> tuple[str, str, str] | None:
    doc = nlp(sentence)

    def root(name: str):
        start = sentence.index(name)
        return doc.char_span(start, start + len(name), alignment_mode="expand").root

    found = predicate(root(first), root(second))
    if found is None:
        return None
    source, target = (first, second) if found.forward else (second, first)
    return source, relation_type("_".join(found.words)), target


@pytest.mark.parametrize(
    ("sentence", "first", "second", "expected"),
    [
        ("Google acquired DeepMind in 2014.", "Google", "DeepMind", ("Google", "ACQUIRED", "DeepMind")),
        # a passive turned active
        (
            "Apollo 11 was launched by a Saturn V rocket.",
            "Apollo 11",
            "Saturn V",
            ("Saturn V", "LAUNCHED", "Apollo 11"),
        ),
        # both conjuncts are subjects; the preposition joins the verb
        (
            "Neil Armstrong and Buzz Aldrin walked on the Moon.",
            "Buzz Aldrin",
            "Moon",
            ("Buzz Aldrin", "WALKED_ON", "Moon"),
        ),
        # a relative clause's subject is the name it hangs on
        (
            "Jeff Bezos, who founded Blue Origin in 2000, also runs Amazon.",
            "Jeff Bezos",
            "Blue Origin",
            ("Jeff Bezos", "FOUNDED", "Blue Origin"),
        ),
        (
            "Jeff Bezos, who founded Blue Origin in 2000, also runs Amazon.",
            "Jeff Bezos",
            "Amazon",
            ("Jeff Bezos", "RUNS", "Amazon"),
        ),
        (
            "Wernher von Braun, the director of the Marshall Space Flight Center, led the design.",
            "Wernher von Braun",
            "Marshall Space Flight Center",
            ("Wernher von Braun", "DIRECTOR_OF", "Marshall Space Flight Center"),
        ),
        ("Paris is the capital of France.", "Paris", "France", ("Paris", "CAPITAL_OF", "France")),
        # a clause on the attribute is said of the subject
        (
            "Blue Origin is an American aerospace company founded in 2000 by Jeff Bezos.",
            "Blue Origin",
            "Jeff Bezos",
            ("Jeff Bezos", "FOUNDED", "Blue Origin"),
        ),
        # every conjunct of a list takes the role of the first
        (
            "Expedition 1 arrived with William Shepherd, Yuri Gidzenko and Sergei Krikalev.",
            "Expedition 1",
            "Sergei Krikalev",
            ("Expedition 1", "ARRIVED_WITH", "Sergei Krikalev"),
        ),
        ("SpaceX did not acquire Boeing.", "SpaceX", "Boeing", ("SpaceX", "NOT_ACQUIRES", "Boeing")),
        (
            "The Falcon 9, which was built by SpaceX, landed on a drone ship.",
            "Falcon 9",
            "SpaceX",
            ("SpaceX", "BUILT", "Falcon 9"),
        ),
        (
            "The Orion spacecraft, built by Lockheed Martin, flew in 2022.",
            "Orion",
            "Lockheed Martin",
            ("Lockheed Martin", "BUILT", "Orion"),
        ),
        # a possessive, a bare preposition: read as relations, never a preposition alone
        (
            "Blue Origin's New Shepard rocket flew.",
            "Blue Origin",
            "New Shepard",
            ("New Shepard", "BELONGS_TO", "Blue Origin"),
        ),
        (
            "The Jet Propulsion Laboratory in Pasadena built Voyager.",
            "Jet Propulsion Laboratory",
            "Pasadena",
            ("Jet Propulsion Laboratory", "LOCATED_IN", "Pasadena"),
        ),
        (
            "The Guiana Space Centre is in Kourou.",
            "Guiana Space Centre",
            "Kourou",
            ("Guiana Space Centre", "LOCATED_IN", "Kourou"),
        ),
        (
            "It launched on a Saturn V rocket from Launch Complex 39A at Kennedy Space Center in Florida.",
            "Launch Complex 39A",
            "Kennedy Space Center",
            ("Launch Complex 39A", "LOCATED_AT", "Kennedy Space Center"),
        ),
    ],
)
def test_the_predicate_between_two_names_is_their_relation(nlp, sentence, first, second, expected) -> None:
    assert link(nlp, sentence, first, second) == expected


@pytest.mark.parametrize(
    ("sentence", "first", "second"),
    [
        ("Neil Armstrong and Buzz Aldrin walked on the Moon.", "Neil Armstrong", "Buzz Aldrin"),  # listed together
        # the object of a clause about the subject is not the main verb's subject
        ("Jeff Bezos, who founded Blue Origin in 2000, also runs Amazon.", "Blue Origin", "Amazon"),
    ],
)
def test_names_the_sentence_does_not_link_get_no_predicate(nlp, sentence, first, second) -> None:
    assert link(nlp, sentence, first, second) is None


def relations(text: str, typed: bool = True) -> set[tuple[str, str, str]]:
    [found] = NLPExtractor(typed_relations=typed).extract_many([("c1", text)])
    return {(r.source, r.type, r.target) for r in found.relations}


def test_a_sentence_initial_name_is_an_entity_and_its_relation_is_typed() -> None:
    [found] = NLPExtractor().extract_many([("c1", "Google acquired DeepMind in 2014.")])
    assert {e.name for e in found.entities} >= {"Google", "DeepMind"}
    assert relations("Google acquired DeepMind in 2014.") == {("Google", "ACQUIRED", "DeepMind")}
    # without the parse, the rules alone drop the capitalised first word, and with it the relation
    assert relations("Google acquired DeepMind in 2014.", typed=False) == set()


def test_only_names_listed_together_stay_related_to_and_far_pairs_are_not_written() -> None:
    text = (
        "Artemis II will carry astronauts Reid Wiseman, Victor Glover and Christina Koch on a lunar flyby "
        "that NASA planned."
    )
    found = relations(text)
    assert ("Artemis II", "CARRIES", "Reid Wiseman") in found
    assert ("Reid Wiseman", "RELATED_TO", "Victor Glover") in found  # a list: nothing more is said
    assert not any({s, t} == {"Christina Koch", "NASA"} for s, _, t in found)  # far apart: no relation
    # the co-occurrence graph, when the model is not there, links every pair of the sentence
    untyped = relations(text, typed=False)
    assert {r for _, r, _ in untyped} == {"RELATED_TO"} and len(untyped) == 10


def test_the_words_alone_state_aliases_and_places() -> None:
    found = relations("The European Space Agency (ESA) runs a centre in Kourou, French Guiana.")
    assert ("European Space Agency", "ALSO_KNOWN_AS", "ESA") in found
    assert ("Kourou", "LOCATED_IN", "French Guiana") in found


def test_the_extraction_version_says_whether_relations_are_typed() -> None:
    assert NLPExtractor().version != NLPExtractor(typed_relations=False).version

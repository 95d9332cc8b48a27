"""Names typed by what the sentence says they are, on real parses: a describing noun, the noun a name stands
before, a maker's role, a list; and relation types that read as relations, never a bare preposition."""

from __future__ import annotations

import pytest

from graphwright.extraction.nlp_extractor import NLPExtractor
from graphwright.extraction.parser import spacy_available

pytestmark = pytest.mark.skipif(not spacy_available(), reason="spaCy's English model is not installed")


def extracted(text: str):
    [found] = NLPExtractor().extract_many([("c1", text)])
    return {e.name: e.type for e in found.entities}, {(r.source, r.type, r.target) for r in found.relations}


@pytest.mark.parametrize(
    ("text", "name", "kind"),
    [
        ("Blue Origin is an American aerospace company founded by Jeff Bezos.", "Blue Origin", "ORGANIZATION"),
        ("Northrop Grumman was the prime contractor for Webb.", "Northrop Grumman", "ORGANIZATION"),
        ("Boeing built the S-IC first stage for Saturn V.", "Boeing", "ORGANIZATION"),
        ("The Orion spacecraft, built by Lockheed Martin, flew in 2022.", "Lockheed Martin", "ORGANIZATION"),
        ("The Orion spacecraft, built by Lockheed Martin, flew in 2022.", "Orion", "PRODUCT"),
        ("It is a joint project of NASA, Roscosmos, the European Space Agency and JAXA.", "Roscosmos", "ORGANIZATION"),
    ],
)
def test_a_name_the_words_leave_untyped_takes_the_kind_its_sentence_gives(text: str, name: str, kind: str) -> None:
    types, _ = extracted(text)
    assert types[name] == kind


def test_a_person_who_makes_nothing_named_stays_as_the_words_type_it() -> None:
    types, _ = extracted("Mary Quill made tea for Tom Brandt.")
    assert types["Mary Quill"] == "PERSON"  # a first name: the words already say; "made" reads only as an agent


def test_relation_types_are_never_a_bare_preposition() -> None:
    text = (
        "The Jet Propulsion Laboratory in Pasadena built Voyager. Blue Origin's New Shepard rocket flew. "
        "The Hubble Space Telescope was launched by the Space Shuttle Discovery on mission STS-31."
    )
    _, relations = extracted(text)
    assert ("Jet Propulsion Laboratory", "LOCATED_IN", "Pasadena") in relations
    assert ("New Shepard", "BELONGS_TO", "Blue Origin") in relations
    assert not any(t in {"IN", "ON", "AT", "FROM", "HAS", "OF", "WITH", "FOR", "BY"} for _, t, _ in relations)
    # "on mission STS-31" is no place: no LOCATED_ON
    assert not any(t.startswith("LOCATED") and "STS-31" in (s, o) for s, t, o in relations), relations

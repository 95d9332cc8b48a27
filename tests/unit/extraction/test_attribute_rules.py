"""The attribute ruler's rules applied from tables give, token for token, what spaCy's own ruler gives."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphwright.extraction.parser import MODEL, load_pipeline, spacy_available

pytestmark = pytest.mark.skipif(not spacy_available(), reason="spaCy's English model is not installed")

CORPUS = Path(__file__).resolve().parents[2] / "data" / "hotpot_mini" / "corpus.json"

# Sentences for the rules no table holds: two tokens, regular expressions, dependency labels, spaces.
CRAFTED = [
    "I'm gonna tell you, y'all gotta see it. Let's go, c'mon!",
    "He ain't here, and there is nothin' left but the dog.",
    "It gave it to me, and I gave you it; you saw I was there.",
    "She does not know whether that is true, though he did have it.",
    "What did they do?  They had   what they wanted,\n\nand which one gets it got it.",
    "There are two, there were three, and there's one that isn't.",
]


def signature(doc) -> list[tuple[str, ...]]:
    return [(t.text, t.tag_, t.pos_, str(t.morph), t.lemma_, t.dep_, t.ent_type_) for t in doc]


@pytest.fixture(scope="module")
def sentences() -> list[str]:
    texts = [s.strip() for lines in json.loads(CORPUS.read_text(encoding="utf-8")).values() for s in lines]
    return CRAFTED + [t for t in texts if t]


def test_every_token_gets_what_spacys_own_ruler_gives_it(sentences: list[str]) -> None:
    import spacy

    stock = spacy.load(MODEL)
    ours = load_pipeline(ner=True)
    expected = [signature(doc) for doc in stock.pipe(sentences)]
    assert [signature(doc) for doc in ours.pipe(sentences)] == expected
    assert signature(ours(CRAFTED[0])) == expected[0]

    # Both halves of the rules were used: the tables and the Matcher of the rest.
    ruler = stock.get_pipe("attribute_ruler")
    rules = ours._rules
    assert rules is not None
    matched = {int(stock.vocab.strings[m]) for doc in stock.pipe(CRAFTED) for m, _, _ in ruler.matcher(doc)}
    in_matcher = {int(key) for key in map(str, range(len(ruler.attrs))) if key in rules._matcher}
    assert len(in_matcher) < len(ruler.attrs) // 4
    assert len(matched & in_matcher) >= 8 and matched - in_matcher


def test_a_pipeline_without_the_parse_has_no_rules_to_apply() -> None:
    names = load_pipeline(ner=True, parse=False)
    assert names.nlp.pipe_names == ["ner"]
    assert [e.text for e in names("Google acquired DeepMind in London.").ents] == ["Google", "DeepMind", "London"]

from __future__ import annotations

from bench.extraction_gold import score
from graphwright.extraction.name_words import guess_type
from graphwright.extraction.nlp_extractor import NLPExtractor


def _names(text: str) -> dict[str, str]:
    return {e.name: e.type for e in NLPExtractor().extract("c", text).entities}


def test_multiword_names_codes_and_titles() -> None:
    names = _names(
        "Commander Neil Armstrong flew Apollo 11 on a Saturn V. President John F. Kennedy set the "
        "goal. GPT-4o and ISO 27001 are codes. The Sea of Tranquility is on the Moon. "
        "Wernher von Braun led the Marshall Space Flight Center."
    )
    assert names["Neil Armstrong"] == "PERSON" and names["John F. Kennedy"] == "PERSON"
    assert {
        "Apollo 11",
        "Saturn V",
        "GPT-4o",
        "ISO 27001",
        "Sea of Tranquility",
        "Moon",
        "Wernher von Braun",
        "Marshall Space Flight Center",
    } <= set(names)
    assert not {"Commander", "President", "The", "The Sea of Tranquility"} & set(names)


def test_possessives_split_and_sentence_starts_dropped() -> None:
    names = _names("SpaceX's Starship flew. Soon the crew slept. Both ships docked.")
    assert "SpaceX" in names and "Starship" in names
    assert not {"Soon", "Both", "SpaceX's Starship"} & set(names)


def test_relations_are_sentence_cooccurrence_with_evidence() -> None:
    result = NLPExtractor().extract(
        "c", "Elon Musk founded SpaceX. SpaceX builds Falcon 9 for NASA. Elon Musk runs SpaceX."
    )
    rel = {frozenset((r.source, r.target)): r for r in result.relations}
    musk = rel[frozenset(("Elon Musk", "SpaceX"))]
    assert musk.type == "RELATED_TO" and musk.weight == 2.0 and musk.evidence == "Elon Musk founded SpaceX."
    assert frozenset(("Elon Musk", "NASA")) not in rel
    counts = {e.name: e.count for e in result.entities}
    assert counts["SpaceX"] == 3


def test_chinese_names_via_jieba() -> None:
    names = _names("李白和杜甫在长安见面。")
    assert {"李白", "杜甫", "长安"} <= set(names)
    assert names["李白"] == "PERSON" and names["长安"] == "LOCATION"


def test_types_are_best_effort() -> None:
    assert guess_type("European Space Agency") == "ORGANIZATION"
    assert guess_type("Kennedy Space Center") == "LOCATION"
    assert guess_type("Falcon 9") == "PRODUCT"
    assert guess_type("Space Launch System") == "TECHNOLOGY"
    assert guess_type("Gradatim Ferociter") == "CONCEPT"


def test_sample_corpus_gold_recall_and_precision() -> None:
    result = score()
    assert result.recall >= 0.8, result.missed
    assert result.precision >= 0.8, result.junk

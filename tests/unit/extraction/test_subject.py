"""A document's stated title becomes an entity of each of its chunks."""

from __future__ import annotations

from graphwright.extraction.subject import add_subject, subject_name
from graphwright.models import ChunkExtraction, ExtractedEntity


def test_subject_name_drops_disambiguation_and_refuses_what_is_no_name() -> None:
    assert subject_name("Alexandria International Airport (Louisiana)") == "Alexandria International Airport"
    assert subject_name("  Lilu (mythology) ") == "Lilu"
    assert subject_name("Apollo 11") == "Apollo 11"
    assert subject_name("") == ""
    assert subject_name("(film)") == ""
    assert subject_name("x") == ""
    assert subject_name(" ".join(["word"] * 13)) == ""


def test_add_subject_joins_once_and_never_to_a_failed_chunk() -> None:
    found = ChunkExtraction(chunk_id="c1", entities=[ExtractedEntity(name="Teutberga", type="PERSON")])
    add_subject(found, "Teutberga")
    assert [e.name for e in found.entities] == ["Teutberga"]

    other = ChunkExtraction(chunk_id="c2", entities=[ExtractedEntity(name="Lothair II", type="PERSON")])
    add_subject(other, "Teutberga (queen)")
    assert [(e.name, e.type) for e in other.entities] == [("Lothair II", "PERSON"), ("Teutberga", "CONCEPT")]

    failed = ChunkExtraction(chunk_id="c3", error="timeout")
    add_subject(failed, "Teutberga")
    assert failed.entities == []

    untitled = ChunkExtraction(chunk_id="c4")
    add_subject(untitled, "")
    assert untitled.entities == []

"""The "no passage answers this well" line agrees with the passage shown under it: when the first passage names
what the question asks about, the line says so instead of reading as a denial of it."""

from __future__ import annotations

from graphwright.models import RetrievedChunk
from graphwright.search.relevance import named_in_first, no_answer_line


def _chunk(text: str) -> RetrievedChunk:
    return RetrievedChunk(chunk_id="c1", document_id="d", text=text, score=1.0, rank=1, relevance=0.41)


def test_the_line_names_the_entity_the_first_passage_holds() -> None:
    chunks = [_chunk("SpaceX was founded in 2002 by Elon Musk in Hawthorne.")]
    named = named_in_first("Who is the CFO of SpaceX?", chunks, ["Elon Musk", "SpaceX"])
    assert named == "SpaceX"  # named by the question; Elon Musk is not
    line = no_answer_line(0.41, 0.476, named)
    assert line.startswith("No passage found answers this question well (best relevance 0.41, below 0.48)")
    assert "The first passage names SpaceX" in line and line.endswith("the closest passages follow.")


def test_no_name_when_the_question_or_the_passage_lacks_it() -> None:
    chunks = [_chunk("Blue Origin builds the New Glenn rocket.")]
    assert named_in_first("Who is the CFO of SpaceX?", chunks, ["SpaceX", "Blue Origin"]) is None
    assert named_in_first("What does ESA do?", chunks, ["ESA"]) is None
    research = [_chunk("Its research centres study rockets.")]
    assert named_in_first("What does ESA do?", research, ["ESA"]) is None  # inside "research" is no mention
    assert named_in_first("Who?", [], ["SpaceX"]) is None
    assert "first passage" not in no_answer_line(0.3, 0.476)

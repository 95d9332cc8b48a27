"""A passage's relevance to the question on one scale for every mode and every question, and the verdict
that no passage answers it.

Why not the modes' own scores: each is on its own scale, most over the question's best passage (hybrid's
fusion, a walk's visit share), so the top passage scored 1.000 also for "Who is the CFO?" where no document
names one. The cosine of the question's and the passage's embeddings (on the common scale: above a calibrated
embedder's floor) means the same for every question and does not depend on which mode found the passage; a
question whose best passage stays below a floor calibrated on the shared sets (bench/no_answer.py) is one
that no passage answers, and the result says so (`no_answer`, a line leading the answer)."""

from __future__ import annotations

import re

from graphwright.embeddings import Embedder, knows_language, read_languages, similarity
from graphwright.graph_store.contracts import GraphStore
from graphwright.models import RetrievedChunk

# The floor under which no passage answers, per embedder, calibrated on the shared sets (bench/no_answer.py:
# the highest that calls at most 5% of answerable questions unanswered, each set weighing the same). A floor
# means nothing on another embedder's cosines, so one without a calibrated floor gives no verdict unless
# GRAPHWRIGHT_NO_ANSWER_BELOW sets one.
CALIBRATED_FLOORS = {"all-MiniLM-L6-v2 (bundled)": 0.476}

NO_ANSWER_LINE = (
    "No passage found answers this question well (best relevance {best:.2f}, below {floor:.2f}){named}; "
    "the closest passages follow."
)
NAMED = ". The first passage names {name}, which the question asks about, but may not say what it asks"


def with_relevance(
    store: GraphStore, embedder: Embedder, chunks: list[RetrievedChunk], embedding: list[float]
) -> list[RetrievedChunk]:
    """The chunks with `relevance` set where the embedder reads their language (one of unknown language is
    taken to be read); a passage in a language it does not read keeps None: its similarity is noise."""
    readable = [c.chunk_id for c in chunks if c.language is None or knows_language(embedder, c.language)]
    scores = store.retrieval.passage_similarities(readable, embedding, read_languages(embedder)) if readable else {}
    return [
        c.model_copy(update={"relevance": round(similarity(embedder, 2.0 * scores[c.chunk_id] - 1.0), 4)})
        if c.chunk_id in scores
        else c
        for c in chunks
    ]


def verdict(chunks: list[RetrievedChunk], floor: float) -> tuple[float | None, bool]:
    """(The best relevance among `chunks`, whether it is below `floor`); no verdict (None, False) when no
    passage has a relevance, or the floor is 0 (off)."""
    known = [c.relevance for c in chunks if c.relevance is not None]
    best = max(known) if known else None
    return best, best is not None and floor > 0 and best < floor


def no_answer_floor(setting: float | None, embedder: Embedder) -> float:
    """The floor a search judges by: the setting where given, else the embedder's calibrated one, else 0 (off)."""
    if setting is not None:
        return setting
    return CALIBRATED_FLOORS.get(str(getattr(embedder, "name", "")), 0.0)


def no_answer_line(best: float | None, floor: float, named: str | None = None) -> str:
    """The line leading a result no passage answers well; `named`: an entity the question names that the
    first passage holds, said so, so the verdict does not read as a denial of the passage shown under it."""
    return NO_ANSWER_LINE.format(best=best or 0.0, floor=floor, named=NAMED.format(name=named) if named else "")


def named_in_first(question: str, chunks: list[RetrievedChunk], names: list[str]) -> str | None:
    """The first of `names` (entities the search found) that the question names, as a word, and the first
    passage holds; None."""
    if not chunks:
        return None
    for name in names:
        word = re.compile(rf"(?<!\w){re.escape(name.lower())}(?!\w)")
        if len(name) >= 3 and word.search(question.lower()) and word.search(chunks[0].text.lower()):
            return name
    return None

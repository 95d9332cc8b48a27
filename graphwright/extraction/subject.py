"""A document's subject as an entity of each of its chunks.

A document that states its title says what every one of its passages is about, even a passage that never
repeats the name ("She was a daughter of Boso the Elder" in the article "Teutberga"). Linking each chunk to
that entity joins a document's passages in the graph and ties them to the other passages that name it, which
is the bridge a multi-hop question crosses. A trailing parenthetical is disambiguation, not part of the name:
"Alexandria International Airport (Louisiana)" names "Alexandria International Airport"."""

from __future__ import annotations

import re

from graphwright.models import ChunkExtraction, ExtractedEntity
from graphwright.text.normalize import clean_name, normalize_key

_DISAMBIGUATION = re.compile(r"\s*\([^()]*\)\s*$")
_MAX_WORDS = 12  # a longer "title" is a sentence, not a name


def subject_name(title: str) -> str:
    """The entity name a title states, or "" when it states none."""
    name = clean_name(_DISAMBIGUATION.sub("", title))
    if len(normalize_key(name)) < 2 or len(name.split()) > _MAX_WORDS:
        return ""
    return name


def add_subject(extraction: ChunkExtraction, subject: str) -> None:
    """The subject joins the chunk's entities, unless the extractor already found it there."""
    name = subject_name(subject)
    if not name or extraction.error is not None:
        return
    key = normalize_key(name)
    if all(normalize_key(e.name) != key for e in extraction.entities):
        extraction.entities.append(ExtractedEntity(name=name, count=1))

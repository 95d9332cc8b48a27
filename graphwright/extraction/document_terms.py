"""The terms a whole document keeps coming back to, as entities of the chunks that use them.

A chunk alone cannot tell a two-word compound from chance (知识 + 图谱, which the dictionary splits and tags a
verb and a noun); a document that uses it six times, once in each of six chunks, can. The language finds the
compounds (`Language.terms(document=True)`, over the document's prose, code left out); each chunk that holds
one gets it as a concept, unless its extractor already found it. Languages that write words with spaces have
none to add."""

from __future__ import annotations

from graphwright.models import ChunkExtraction, ExtractedEntity
from graphwright.text.code_blocks import without_code
from graphwright.text.languages import language
from graphwright.text.normalize import normalize_key


def document_terms(text: str, code: str) -> list[str]:
    """The compounds a document in language `code` keeps coming back to."""
    found = language(code)
    return found.terms(without_code(text), document=True) if found.segmented else []


def add_document_terms(extraction: ChunkExtraction, terms: list[str], chunk_text: str) -> None:
    """The document's terms that the chunk's text holds join its entities as concepts."""
    if extraction.error is not None:
        return
    prose = without_code(chunk_text)
    known = {normalize_key(e.name) for e in extraction.entities}
    for term in terms:
        if term in prose and normalize_key(term) not in known:
            extraction.entities.append(ExtractedEntity(name=term, type="CONCEPT", count=prose.count(term)))
            known.add(normalize_key(term))

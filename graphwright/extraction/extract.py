"""One extraction step for every caller (ingest, and eval-extraction scoring it): the extractor on
(chunk id, text) pairs, then the graph schema's check. Scoring runs exactly what ingest writes."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from graphwright.extraction.base import Extractor
from graphwright.extraction.schema_check import apply_schema
from graphwright.graph_schema import GraphSchema
from graphwright.models import ChunkExtraction
from graphwright.text.code_blocks import without_code


def extract_checked(
    extractor: Extractor,
    chunks: list[tuple[str, str]],
    schema: GraphSchema | None,
    on_done: Callable[[int], None] | None = None,
    before_check: Callable[[list[ChunkExtraction]], None] | None = None,
) -> tuple[list[ChunkExtraction], Counter[str]]:
    """The extractions of the chunks, checked against the schema (None: unchecked), and what the check did.
    `before_check` sees them first (ingest adds each document's subject there). Code blocks inside a
    chunk are not read: their names are identifiers, not entities of the text."""
    extractions = extractor.extract_many(extraction_inputs(chunks), on_done)
    if before_check is not None:
        before_check(extractions)
    return extractions, (apply_schema(extractions, schema) if schema is not None else Counter())


def extraction_inputs(chunks: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """What the extractor reads of each (chunk id, text): the text without its code blocks (their names are
    identifiers, not entities of the text)."""
    return [(cid, without_code(text)) for cid, text in chunks]

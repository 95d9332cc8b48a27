"""Bring your own graph: entities and relations extracted elsewhere, tied to the chunks that support them.

One JSON object per line:
  {"name": "Ada Lovelace", "type": "person", "description": "...", "chunk_id": "c_..."}
  {"source": "Ada Lovelace", "target": "Analytical Engine", "type": "WROTE_FOR", "weight": 2,
   "document_id": "notes/ada.md"}
A record names its support with `chunk_id` (or `chunk_ids`), or `document_id` (the chunks of that document
that mention the name, both names for a relation), or nothing: then chunks anywhere that mention it. Records
with no supporting chunk are reported and skipped; the graph only holds what some chunk supports.

Real OpenIE triples paraphrase their object ("became monthly publication in 1963"), so with a document named
and no chunk of it quoting every name, the record goes to the document's best-supporting chunk: the one that
names the subject, else the one sharing the most words with the record. Only a record no chunk of its
document shares a word with is skipped.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from graphwright.models import ChunkExtraction, ExtractedEntity, ExtractedRelation, FileFailure
from graphwright.text.stopwords import STOPWORDS

_MENTION_SCAN = 50
_WORD_RE = re.compile(r"\w+")

# Why a record was skipped; MALFORMED and NO_NAME are faults of the input, the others of its support.
MALFORMED = "invalid record"
NO_NAME = "record has no name (or source/target)"
UNKNOWN_DOCUMENT = "its document_id names no ingested document"
UNKNOWN_CHUNK = "its chunk_id names no ingested chunk"
NO_SUPPORT = "no chunk mentions its name(s)"
NO_SUPPORT_IN_DOCUMENT = "no chunk of its document shares a word with it"
INPUT_FAULTS = (MALFORMED, NO_NAME)


class ImportSkip(FileFailure):
    """A skipped record: where (file:line), why (`cause`, one of the constants above) and the detail."""

    cause: str


@dataclass
class ImportReport:
    entities: int = 0
    relations: int = 0
    attached: int = 0  # records of a named document tied to its best-supporting chunk (no chunk quoted them)
    skipped: list[ImportSkip] = field(default_factory=list)
    schema_checks: dict[str, int] = field(default_factory=dict)  # what the graph schema pruned, by reason

    def by_cause(self) -> dict[str, int]:
        return dict(Counter(s.cause for s in self.skipped).most_common())

    @property
    def malformed(self) -> int:
        return sum(1 for s in self.skipped if s.cause in INPUT_FAULTS)


def _phrase(name: str) -> str:
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


class ChunkReader(Protocol):
    """What the importer reads of the graph (the store's retrieval role provides it): injected, so that
    extraction never imports the store."""

    def chunks_by_id(self, ids: list[str]) -> dict[str, str]: ...

    def document_chunks(self, document_id: str) -> dict[str, str]: ...

    def chunks_matching(self, lucene_query: str, k: int = 50) -> dict[str, str]: ...


class GraphImporter:
    def __init__(self, chunks: ChunkReader) -> None:
        self.chunks = chunks
        self._doc_cache: dict[str, dict[str, str]] = {}

    def _support(self, record: dict[str, Any], names: list[str], report: ImportReport) -> dict[str, str] | str:
        """chunk id -> text of the chunks that support this record, or why none does (a skip cause)."""
        ids = record.get("chunk_ids") or ([record["chunk_id"]] if record.get("chunk_id") else [])
        if ids:
            return self.chunks.chunks_by_id([str(i) for i in ids]) or UNKNOWN_CHUNK
        if not record.get("document_id"):
            candidates = self.chunks.chunks_matching(" AND ".join(_phrase(n) for n in names), _MENTION_SCAN)
            return _quoting(candidates, names) or NO_SUPPORT
        doc = str(record["document_id"])
        if doc not in self._doc_cache:
            self._doc_cache[doc] = self.chunks.document_chunks(doc)
        candidates = self._doc_cache[doc]
        if not candidates:
            return UNKNOWN_DOCUMENT
        quoting = _quoting(candidates, names)
        if quoting:
            return quoting
        best = _best_chunk(candidates, names)
        if best is None:
            return NO_SUPPORT_IN_DOCUMENT
        report.attached += 1
        return {best: candidates[best]}

    def read(self, path: Path) -> tuple[list[ChunkExtraction], ImportReport]:
        report = ImportReport()
        per_chunk: dict[str, ChunkExtraction] = {}
        texts: dict[str, str] = {}
        lines = path.read_text(encoding="utf-8").splitlines()
        for lineno, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            where = f"{path}:{lineno}"
            try:
                record = json.loads(line)
                if not isinstance(record, dict):
                    raise ValueError("not a JSON object")
            except ValueError as exc:
                report.skipped.append(ImportSkip(source=where, cause=MALFORMED, error=f"{MALFORMED}: {exc}"))
                continue
            is_relation = "source" in record and "target" in record
            names = [str(record["source"]), str(record["target"])] if is_relation else [str(record.get("name", ""))]
            if not all(n.strip() for n in names):
                report.skipped.append(ImportSkip(source=where, cause=NO_NAME, error=NO_NAME))
                continue
            support = self._support(record, names, report)
            if isinstance(support, str):
                report.skipped.append(ImportSkip(source=where, cause=support, error=f"{' -> '.join(names)}: {support}"))
                continue
            texts.update(support)
            for chunk_id in support:
                extraction = per_chunk.setdefault(chunk_id, ChunkExtraction(chunk_id=chunk_id))
                if is_relation:
                    extraction.relations.append(
                        ExtractedRelation(
                            source=names[0],
                            target=names[1],
                            type=str(record.get("type") or "RELATED_TO"),
                            description=str(record.get("description") or ""),
                            weight=float(record.get("weight") or 1.0),
                            evidence=str(record.get("evidence") or ""),
                        )
                    )
                    for n in names:
                        extraction.entities.append(ExtractedEntity(name=n, type="CONCEPT"))
                else:
                    extraction.entities.append(
                        ExtractedEntity(
                            name=names[0],
                            type=str(record.get("type") or "CONCEPT"),
                            description=str(record.get("description") or ""),
                            count=max(texts[chunk_id].lower().count(names[0].lower()), 1),
                        )
                    )
        # a relation endpoint listed only as CONCEPT must not outvote its typed entity record
        for extraction in per_chunk.values():
            typed = {e.name.lower() for e in extraction.entities if e.type.upper() != "CONCEPT"}
            extraction.entities = [
                e for e in extraction.entities if e.type.upper() != "CONCEPT" or e.name.lower() not in typed
            ]
        return list(per_chunk.values()), report


def _quoting(candidates: dict[str, str], names: list[str]) -> dict[str, str]:
    """The chunks that contain every name verbatim (case aside)."""
    return {cid: text for cid, text in candidates.items() if all(n.lower() in text.lower() for n in names)}


def _best_chunk(candidates: dict[str, str], names: list[str]) -> str | None:
    """The chunk that names the subject (the first name), else the one sharing the most of the record's
    words; None when no chunk shares a word. Ties go to the earlier chunk id, so the choice is stable."""
    subject = names[0].lower()
    wanted = {w.lower() for n in names for w in _WORD_RE.findall(n) if len(w) > 2 and w.lower() not in STOPWORDS}

    def score(item: tuple[str, str]) -> tuple[bool, int]:
        text = item[1].lower()
        return subject in text, len(wanted & set(_WORD_RE.findall(text)))

    best_id, best_text = max(sorted(candidates.items()), key=score)
    named, shared = score((best_id, best_text))
    return best_id if named or shared else None

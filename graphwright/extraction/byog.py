"""Bring your own graph: entities and relations extracted elsewhere, tied to the chunks that support them.

One JSON object per line:
  {"name": "Ada Lovelace", "type": "person", "description": "...", "chunk_id": "c_..."}
  {"source": "Ada Lovelace", "target": "Analytical Engine", "type": "WROTE_FOR", "weight": 2,
   "document_id": "notes/ada.md"}
A record names its support with `chunk_id` (or `chunk_ids`), or `document_id` (the chunks of that document
that mention the name, both names for a relation), or nothing: then chunks anywhere that mention it. Records
with no supporting chunk are reported and skipped; the graph only holds what some chunk supports.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from graphwright.models import ChunkExtraction, ExtractedEntity, ExtractedRelation, FileFailure

_MENTION_SCAN = 50


@dataclass
class ImportReport:
    entities: int = 0
    relations: int = 0
    skipped: list[FileFailure] = field(default_factory=list)


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

    def _support(self, record: dict[str, Any], names: list[str]) -> dict[str, str]:
        """chunk id -> text of the chunks that support this record."""
        ids = record.get("chunk_ids") or ([record["chunk_id"]] if record.get("chunk_id") else [])
        if ids:
            return self.chunks.chunks_by_id([str(i) for i in ids])
        if record.get("document_id"):
            doc = str(record["document_id"])
            if doc not in self._doc_cache:
                self._doc_cache[doc] = self.chunks.document_chunks(doc)
            candidates = self._doc_cache[doc]
        else:
            candidates = self.chunks.chunks_matching(" AND ".join(_phrase(n) for n in names), _MENTION_SCAN)
        return {cid: text for cid, text in candidates.items()
                if all(n.lower() in text.lower() for n in names)}

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
                report.skipped.append(FileFailure(source=where, error=f"invalid record: {exc}"))
                continue
            is_relation = "source" in record and "target" in record
            names = [str(record["source"]), str(record["target"])] if is_relation else [str(record.get("name", ""))]
            if not all(n.strip() for n in names):
                report.skipped.append(FileFailure(source=where, error="record has no name (or source/target)"))
                continue
            support = self._support(record, names)
            if not support:
                report.skipped.append(FileFailure(source=where, error=f"no chunk supports {' -> '.join(names)}"))
                continue
            texts.update(support)
            for chunk_id in support:
                extraction = per_chunk.setdefault(chunk_id, ChunkExtraction(chunk_id=chunk_id))
                if is_relation:
                    extraction.relations.append(ExtractedRelation(
                        source=names[0], target=names[1], type=str(record.get("type") or "RELATED_TO"),
                        description=str(record.get("description") or ""),
                        weight=float(record.get("weight") or 1.0), evidence=str(record.get("evidence") or "")))
                    for n in names:
                        extraction.entities.append(ExtractedEntity(name=n, type="CONCEPT"))
                else:
                    extraction.entities.append(ExtractedEntity(
                        name=names[0], type=str(record.get("type") or "CONCEPT"),
                        description=str(record.get("description") or ""),
                        count=max(texts[chunk_id].lower().count(names[0].lower()), 1)))
        # a relation endpoint listed only as CONCEPT must not outvote its typed entity record
        for extraction in per_chunk.values():
            typed = {e.name.lower() for e in extraction.entities if e.type.upper() != "CONCEPT"}
            extraction.entities = [e for e in extraction.entities
                                   if e.type.upper() != "CONCEPT" or e.name.lower() not in typed]
        return list(per_chunk.values()), report

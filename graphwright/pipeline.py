"""Indexing pipeline: load -> chunk -> embed -> write (one transaction per document).

Later stages (extract -> resolve -> communities -> reports) hang off the same flow.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol

from graphwright.config import Settings
from graphwright.embeddings import Embedder
from graphwright.extraction.base import Extractor
from graphwright.extraction.chunking import chunk_text
from graphwright.extraction.loaders import load_paths
from graphwright.extraction.resolution import EntityIndex, Resolver
from graphwright.graph_store import GraphStoreError, Neo4jStore
from graphwright.models import Chunk, ChunkExtraction, Document, Entity, FileFailure, IngestReport, Relation


class ProgressCallback(Protocol):
    """(stage, done, total, detail): the CLI turns this into rich progress bars; the Python API may pass
    nothing. `detail` is a short live figure, e.g. LLM calls and tokens during extraction."""

    def __call__(self, stage: str, done: int, total: int, detail: str = "") -> None: ...



def chunk_id(document_id: str, index: int, text: str) -> str:
    """Content-addressed: an unchanged chunk keeps its id across re-ingests, a changed one gets a new id."""
    digest = hashlib.sha256(f"{document_id}\x00{index}\x00{text}".encode()).hexdigest()
    return f"c_{digest[:24]}"


def make_chunks(document: Document, size: int, overlap: int) -> list[Chunk]:
    return [
        Chunk(id=chunk_id(document.id, i, piece.text), document_id=document.id, index=i, text=piece.text,
              n_tokens=piece.n_tokens)
        for i, piece in enumerate(chunk_text(document.text, size, overlap))
    ]


def _groups(items: list[tuple[Document, list[Chunk]]],
            group_chunks: int) -> Iterator[list[tuple[Document, list[Chunk]]]]:
    group: list[tuple[Document, list[Chunk]]] = []
    size = 0
    for item in items:
        group.append(item)
        size += len(item[1])
        if size >= group_chunks:
            yield group
            group, size = [], 0
    if group:
        yield group


def entity_text(entity: Entity) -> str:
    """Name, type and the start of the description: enough to link a question to an entity, and short,
    because on a 2-core machine entity embeddings cost as much as chunk embeddings (measured on a novel)."""
    return f"{entity.name} ({entity.type.lower()}): {entity.description}"[:100]


def slice_graph(entities: list[Entity], relations: list[Relation],
                chunk_ids: set[str]) -> tuple[list[Entity], list[Relation]]:
    """The part of a group's graph that the given chunks support (to write one document alone)."""
    ents = []
    for e in entities:
        mentions = {c: n for c, n in e.mentions.items() if c in chunk_ids}
        if mentions:
            ents.append(e.model_copy(update={"mentions": mentions}))
    rels = []
    for r in relations:
        keep = [i for i, c in enumerate(r.chunk_ids) if c in chunk_ids]
        if keep:
            rels.append(r.model_copy(update={"chunk_ids": [r.chunk_ids[i] for i in keep],
                                             "chunk_weights": [r.chunk_weights[i] for i in keep],
                                             "evidence": [r.evidence[i] for i in keep]}))
    return ents, rels


class IngestPipeline:
    def __init__(self, settings: Settings, store: Neo4jStore, embedder: Embedder,
                 extractor: Extractor | None = None) -> None:
        self.settings = settings
        self.store = store
        self.embedder = embedder
        self.extractor = extractor
        self.resolver = Resolver(settings.entity_type_list, settings.resolution_threshold,
                                 summarize=getattr(extractor, "summarize", None))

    def ingest(self, paths: list[Path], base: Path | None = None, metadata: dict[str, Any] | None = None,
               glob: str | None = None, text_field: str | None = None,
               progress: ProgressCallback | None = None) -> IngestReport:
        started = time.perf_counter()
        report = IngestReport()
        notify: ProgressCallback = progress or (lambda stage, done, total, detail="": None)
        loaded = load_paths(paths, base or Path.cwd(), metadata, glob, text_field, self.settings.max_file_bytes)
        report.failures.extend(loaded.failures)
        report.warnings.extend(loaded.warnings)
        report.documents_seen = len(loaded.documents)
        notify("load", len(loaded.documents), len(loaded.documents))

        # The stored hash covers content *and* how it was indexed, so changing chunking or the
        # embedding model re-indexes on the next ingest instead of leaving stale chunks behind.
        extractor_name = self.extractor.name if self.extractor else "none"
        report.extractor = extractor_name
        signature = f"{self.settings.chunk_size}|{self.settings.chunk_overlap}|{self.embedder.name}|{extractor_name}"
        for doc in loaded.documents:
            doc.content_hash = hashlib.sha256(f"{doc.content_hash}|{signature}".encode()).hexdigest()

        existing: dict[str, str] = {}
        ids = [d.id for d in loaded.documents]
        for start in range(0, len(ids), 1000):
            existing.update(self.store.document_hashes(ids[start:start + 1000]))
        todo = [d for d in loaded.documents if existing.get(d.id) != d.content_hash]
        report.documents_unchanged = len(loaded.documents) - len(todo)

        chunked: list[tuple[Document, list[Chunk]]] = []
        for doc in todo:
            chunks = make_chunks(doc, self.settings.chunk_size, self.settings.chunk_overlap)
            if not chunks:
                report.failures.append(FileFailure(source=doc.source, error=f"document {doc.id!r} has no text"))
                continue
            chunked.append((doc, chunks))
        notify("chunk", len(chunked), len(chunked))

        total_chunks = sum(len(c) for _, c in chunked)
        embedded = extracted = 0
        index = EntityIndex.from_rows(self.store.entity_catalog()) if self.extractor and chunked else None
        for group in _groups(chunked, self.settings.ingest_group_chunks):
            texts = [c.text for _, chunks in group for c in chunks]
            vectors = self.embedder.embed(texts)
            cursor = 0
            for _, chunks in group:
                for c in chunks:
                    c.embedding = vectors[cursor]
                    cursor += 1
            embedded += len(texts)
            notify("embed", embedded, total_chunks)
            entities: list[Entity] = []
            relations: list[Relation] = []
            if self.extractor is not None and index is not None:
                extractions = self.extractor.extract_many(
                    [(c.id, c.text) for _, chunks in group for c in chunks],
                    lambda n, base=extracted: notify("extract", base + n, total_chunks, self._usage_line()))
                self._record_failures(group, extractions, report)
                entities, relations = self.resolver.resolve([x for x in extractions if x.error is None], index)
                self._embed_entities([e for e in entities if e.id not in index.embedded])
                extracted += len(texts)
                notify("extract", extracted, total_chunks, self._usage_line())
            self._write_group(group, report, entities, relations)
            if index is not None:
                index.embedded.update(e.id for e in entities if e.embedding is not None)
            notify("write", report.documents_written, len(chunked))
        if self.extractor is not None:
            report.llm_usage = self.extractor.usage()
        report.seconds = time.perf_counter() - started
        return report

    def _usage_line(self) -> str:
        usage = self.extractor.usage() if self.extractor is not None else {}
        if not usage:
            return ""
        tokens = usage.get("prompt_tokens", 0) + usage.get("completion_tokens", 0)
        return f"LLM {usage.get('calls', 0):.0f} calls ({usage.get('cached', 0):.0f} cached), {tokens:,.0f} tokens"

    @staticmethod
    def _record_failures(group: list[tuple[Document, list[Chunk]]], extractions: list[ChunkExtraction],
                         report: IngestReport) -> None:
        """A chunk whose extraction failed is reported, and its document marked incomplete, so the next
        ingest retries it (cached LLM answers make the rest free) instead of skipping it as unchanged."""
        failed = {x.chunk_id: x.error for x in extractions if x.error}
        if not failed:
            return
        for doc, chunks in group:
            errors = [f"chunk {c.index} ({c.id}): {failed[c.id]}" for c in chunks if c.id in failed]
            if errors:
                doc.content_hash = f"{doc.content_hash}:incomplete"
                report.extraction_failures.extend(FileFailure(source=doc.source, error=e) for e in errors)

    def _embed_entities(self, entities: list[Entity]) -> None:
        """Each entity is embedded once, when it first appears: embedding is the costliest offline step."""
        texts = [entity_text(e) for e in entities]
        for entity, vector in zip(entities, self.embedder.embed(texts)):
            entity.embedding = vector

    def _write_group(self, group: list[tuple[Document, list[Chunk]]], report: IngestReport,
                     entities: list[Entity], relations: list[Relation]) -> None:
        """One transaction for the group; if it fails, one per document, so only the bad one is lost."""
        batch = self.settings.write_batch_size
        try:
            self.store.write_documents(group, batch, entities, relations)
            written = group
            report.entities_written += len(entities)
            report.relations_written += len(relations)
        except GraphStoreError:
            raise  # the database is gone: stop; every committed group is complete
        except Exception:
            written = []
            for doc, chunks in group:
                ents, rels = slice_graph(entities, relations, {c.id for c in chunks})
                try:
                    self.store.write_documents([(doc, chunks)], batch, ents, rels)
                    report.entities_written += len(ents)
                    report.relations_written += len(rels)
                except GraphStoreError:
                    raise
                except Exception as exc:  # one bad document must not sink the run
                    report.failures.append(FileFailure(source=doc.source, error=f"{doc.id}: write failed: {exc}"))
                    continue
                written.append((doc, chunks))
        report.documents_written += len(written)
        report.chunks_written += sum(len(chunks) for _, chunks in written)

"""Indexing pipeline: load -> chunk -> embed -> write (one transaction per document).

Later stages (extract -> resolve -> communities -> reports) hang off the same flow.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from graphwright.config import Settings
from graphwright.embeddings import Embedder
from graphwright.extraction.chunking import chunk_text
from graphwright.extraction.loaders import load_paths
from graphwright.graph_store import GraphStoreError, Neo4jStore
from graphwright.models import Chunk, Document, FileFailure, IngestReport

# (stage, done, total): the CLI turns this into rich progress bars; the Python API may pass nothing.
ProgressCallback = Callable[[str, int, int], None]

# Chunks embedded together: big enough to keep the encoder busy, small enough to bound memory.
_EMBED_GROUP_CHUNKS = 256


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


def _groups(items: list[tuple[Document, list[Chunk]]]) -> Iterator[list[tuple[Document, list[Chunk]]]]:
    group: list[tuple[Document, list[Chunk]]] = []
    size = 0
    for item in items:
        group.append(item)
        size += len(item[1])
        if size >= _EMBED_GROUP_CHUNKS:
            yield group
            group, size = [], 0
    if group:
        yield group


class IngestPipeline:
    def __init__(self, settings: Settings, store: Neo4jStore, embedder: Embedder) -> None:
        self.settings = settings
        self.store = store
        self.embedder = embedder

    def ingest(self, paths: list[Path], base: Path | None = None, metadata: dict[str, Any] | None = None,
               glob: str | None = None, text_field: str | None = None,
               progress: ProgressCallback | None = None) -> IngestReport:
        started = time.perf_counter()
        report = IngestReport()
        notify = progress or (lambda stage, done, total: None)
        loaded = load_paths(paths, base or Path.cwd(), metadata, glob, text_field, self.settings.max_file_bytes)
        report.failures.extend(loaded.failures)
        report.warnings.extend(loaded.warnings)
        report.documents_seen = len(loaded.documents)
        notify("load", len(loaded.documents), len(loaded.documents))

        # The stored hash covers content *and* how it was indexed, so changing chunking or the
        # embedding model re-indexes on the next ingest instead of leaving stale chunks behind.
        signature = f"{self.settings.chunk_size}|{self.settings.chunk_overlap}|{self.embedder.name}"
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
        embedded = 0
        for group in _groups(chunked):
            texts = [c.text for _, chunks in group for c in chunks]
            vectors = self.embedder.embed(texts)
            cursor = 0
            for _, chunks in group:
                for c in chunks:
                    c.embedding = vectors[cursor]
                    cursor += 1
            embedded += len(texts)
            notify("embed", embedded, total_chunks)
            self._write_group(group, report)
            notify("write", report.documents_written, len(chunked))
        report.seconds = time.perf_counter() - started
        return report

    def _write_group(self, group: list[tuple[Document, list[Chunk]]], report: IngestReport) -> None:
        """One transaction for the group; if it fails, one per document, so only the bad one is lost."""
        batch = self.settings.write_batch_size
        try:
            self.store.write_documents(group, batch)
            written = group
        except GraphStoreError:
            raise  # the database is gone: stop; every committed group is complete
        except Exception:
            written = []
            for doc, chunks in group:
                try:
                    self.store.write_documents([(doc, chunks)], batch)
                except GraphStoreError:
                    raise
                except Exception as exc:  # one bad document must not sink the run
                    report.failures.append(FileFailure(source=doc.source, error=f"{doc.id}: write failed: {exc}"))
                    continue
                written.append((doc, chunks))
        report.documents_written += len(written)
        report.chunks_written += sum(len(chunks) for _, chunks in written)

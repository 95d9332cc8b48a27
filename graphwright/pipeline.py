"""Indexing pipeline: load -> chunk -> embed and extract -> resolve -> write, then communities upkeep.

Documents go in groups of about `ingest_group_chunks` chunks, each group in one transaction (a document never
straddles two, so each lands whole); a document bigger than a group is staged over several transactions and
promoted in the one that replaces it.
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import logging
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from graphwright.config import Settings
from graphwright.curation.rules import aligned_descriptions
from graphwright.documents.chunking import make_chunks
from graphwright.documents.formats import FileLimits
from graphwright.documents.loaders import LoadResult, iter_files, iter_loaded, source_of
from graphwright.documents.parse_worker import ParseWorker, parse_budget
from graphwright.embeddings import Embedder
from graphwright.embeddings.base import PrefetchingEmbedder
from graphwright.errors import WriteRejectedError
from graphwright.extraction.base import (
    TIME_BUDGET,
    Extractor,
    Prefetching,
    SchemaAware,
    Summarizer,
    TimeBudgeted,
    Versioned,
)
from graphwright.extraction.document_terms import add_document_terms, document_terms
from graphwright.extraction.extract import extract_checked, extraction_inputs
from graphwright.extraction.resolution import EntityIndex, Resolver
from graphwright.extraction.schema_check import schema_entity_types
from graphwright.extraction.subject import add_subject
from graphwright.graph_schema import GraphSchema
from graphwright.graph_store.contracts import GraphStore
from graphwright.models import (
    Chunk,
    ChunkExtraction,
    Document,
    Entity,
    FileFailure,
    IngestReport,
    Relation,
    entity_embedding_text,
)
from graphwright.telemetry import set_attributes, span


class ProgressCallback(Protocol):
    """(stage, done, total, detail): the CLI turns this into rich progress bars; the Python API may pass
    nothing. `detail` is a short live figure, e.g. LLM calls and tokens during extraction. Called from the
    pipeline's embedding thread too, so it must be thread-safe."""

    def __call__(self, stage: str, done: int, total: int, detail: str = "") -> None: ...


log = logging.getLogger(__name__)
# How a chunk's context enters what is embedded and indexed, and how a document's subject joins its chunks'
# entities; part of the content hash, so a change re-indexes.
CHUNK_CONTEXT = "title-about-section-v2"
SUBJECT_RULE = "subject-v1"


# Text read before it is chunked and written: bounds memory on big corpora, and keeps hash look-ups batched.
_WAVE_CHARS = 8_000_000


def _groups(
    items: list[tuple[Document, list[Chunk]]], group_chunks: int
) -> Iterator[list[tuple[Document, list[Chunk]]]]:
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
    return entity_embedding_text(entity.name, entity.type, entity.description)


def slice_graph(
    entities: list[Entity], relations: list[Relation], chunk_ids: set[str]
) -> tuple[list[Entity], list[Relation]]:
    """The part of a group's graph that the given chunks support (to write one document alone)."""
    ents = []
    for e in entities:
        mentions = {c: n for c, n in e.mentions.items() if c in chunk_ids}
        if mentions:
            said = {c: t for c, t in e.described_in.items() if c in chunk_ids}
            called = {c: n for c, n in e.named_in.items() if c in chunk_ids}
            ents.append(e.model_copy(update={"mentions": mentions, "described_in": said, "named_in": called}))
    rels = []
    for r in relations:
        keep = [i for i, c in enumerate(r.chunk_ids) if c in chunk_ids]
        if keep:
            rels.append(
                r.model_copy(
                    update={
                        "chunk_ids": [r.chunk_ids[i] for i in keep],
                        "chunk_weights": [r.chunk_weights[i] for i in keep],
                        "evidence": [r.evidence[i] for i in keep],
                        "descriptions": [aligned_descriptions(r)[i] for i in keep],
                    }
                )
            )
    return ents, rels


@dataclass
class _Run:
    """Counters of one ingest across its waves, for progress; and the entity index, loaded once."""

    notify: ProgressCallback
    documents: int = 0
    chunks: int = 0
    embedded: int = 0
    vectors_reused: int = 0
    extracted: int = 0
    replacing: set[str] = field(default_factory=set)  # documents this run writes over a stored version
    index: EntityIndex | None = None
    seconds: dict[str, float] = field(default_factory=dict)  # busy seconds by stage; overlapped ones both count

    @contextmanager
    def timed(self, stage: str) -> Iterator[None]:
        started = time.perf_counter()
        try:
            with span(f"ingest {stage}"):
                yield
        finally:
            self.seconds[stage] = self.seconds.get(stage, 0.0) + time.perf_counter() - started


@dataclass
class Naming:
    """How a sync names what it ingests, and what it learns back. `names` maps a file's source as read
    (a staged copy's path below the staging folder) to the name it is known by (a URL, `s3://bucket/key`):
    its documents take that name as source and id (a JSON file's records keep their `#n`). `documents` is
    filled with the document ids each source gave, as named, so a sync knows what to delete later."""

    names: dict[str, str] = field(default_factory=dict)
    documents: dict[str, list[str]] = field(default_factory=dict)

    def name(self, source: str) -> str:
        return self.names.get(source, source)

    def apply(self, one: LoadResult) -> None:
        for doc in one.documents:
            named = self.names.get(doc.source)
            if named is not None:
                if doc.id == doc.source or doc.id.startswith(doc.source + "#"):
                    doc.id = named + doc.id[len(doc.source) :]
                doc.source = named
            self.documents.setdefault(doc.source, []).append(doc.id)
        for failure in one.failures:  # a file's, or a record's in it ("x.jsonl:3", "x.json[2]")
            read = next((k for k in self.names if failure.source.startswith(k)), None)
            if read is not None:
                failure.source = self.names[read] + failure.source[len(read) :]


class IngestPipeline:
    def __init__(
        self,
        settings: Settings,
        store: GraphStore,
        embedder: Embedder,
        extractor: Extractor | None = None,
        schema: GraphSchema | None = None,
        *,
        reextract: bool = False,
        reader: ParseWorker | None = None,
        naming: Naming | None = None,
    ) -> None:
        self.settings = settings
        self.naming = naming or Naming()
        self.reader = reader  # the child process that reads files (one per ingest when None)
        self.reextract = reextract  # unchanged documents too: chunked, embedded and extracted again
        self.store = store
        self.embedder = embedder
        self.extractor = extractor
        self.schema = schema
        if schema is not None and isinstance(extractor, SchemaAware):
            extractor.use_schema(schema)
        types = settings.entity_type_list
        if schema is not None and schema.node_types:  # the schema's types replace the configured ones
            types = schema_entity_types(schema)
        self._plan: list[tuple[str, str]] | None = None  # a dry run's chunks to extract
        self.resolver = Resolver(
            types,
            settings.resolution_threshold,
            summarize=extractor.summarize if isinstance(extractor, Summarizer) else None,
        )

    def ingest(
        self,
        paths: list[Path],
        base: Path | None = None,
        metadata: dict[str, Any] | None = None,
        glob: str | None = None,
        text_field: str | None = None,
        progress: ProgressCallback | None = None,
        relative_sources: bool = False,
    ) -> IngestReport:
        """Files are read a wave at a time (about _WAVE_CHARS of text), so memory follows the largest file
        and the group size, not the corpus. `relative_sources`: files are named below `base` (documents'
        sources, failures, skips), not where they happen to lie."""
        with span("ingest", {"graphwright.workspace": self.settings.workspace}) as current:
            report = self._ingest(paths, base, metadata, glob, text_field, progress, relative_sources)
            set_attributes(current, {f"graphwright.{k}": v for k, v in report.model_dump().items()})
        return report

    def _ingest(
        self,
        paths: list[Path],
        base: Path | None,
        metadata: dict[str, Any] | None,
        glob: str | None,
        text_field: str | None,
        progress: ProgressCallback | None,
        relative_sources: bool,
    ) -> IngestReport:
        started = time.perf_counter()
        report = IngestReport(extractor=self.extractor.name if self.extractor else "none")
        if isinstance(self.extractor, TimeBudgeted) and self._plan is None:
            budget = self.settings.llm.time_budget
            self.extractor.set_deadline(time.monotonic() + budget if budget else None)
        run = _Run(notify=progress or (lambda stage, done, total, detail="": None))
        skipped: list[Path] = []
        files = list(iter_files(paths, glob, skipped))
        root = base or Path.cwd()
        report.skipped = [self.naming.name(source_of(p, root, relative_sources)) for p in skipped]
        self._ingest_files(files, root, metadata, text_field, relative_sources, report, run)
        if self._plan is None:  # the documents table lists what failed until the same file goes in
            failed = {f.source: f.error for f in report.failures}
            named = (self.naming.name(source_of(p, root, relative_sources)) for p in files)
            read = [source for source in named if source not in failed]
            self.store.writes.record_failures(list(failed.items()), read)
        if report.entities_written:
            run.notify("synonyms", 0, 1)
            with run.timed("synonyms"):
                self.store.writes.link_similar(self.settings.write_batch_size)
            run.notify("synonyms", 1, 1)
        if self.extractor is not None:
            report.llm_usage = self.extractor.usage()
        report.vectors_reused = run.vectors_reused
        report.seconds = time.perf_counter() - started
        report.stage_seconds = {stage: round(seconds, 3) for stage, seconds in run.seconds.items()}
        return report

    def plan(
        self,
        paths: list[Path],
        base: Path | None = None,
        metadata: dict[str, Any] | None = None,
        glob: str | None = None,
        text_field: str | None = None,
    ) -> tuple[int, list[tuple[str, str]]]:
        """A dry run: the documents an ingest would write and the (chunk id, text) it would extract, read and
        chunked exactly as `ingest` does (unchanged documents skipped); nothing is embedded or written."""
        self._plan = []
        try:
            report = self.ingest(paths, base, metadata, glob, text_field)
            return report.documents_written, self._plan
        finally:
            self._plan = None

    def _ingest_files(
        self,
        files: list[Path],
        root: Path,
        metadata: dict[str, Any] | None,
        text_field: str | None,
        relative_sources: bool,
        report: IngestReport,
        run: _Run,
    ) -> None:
        settings = self.settings
        limits = FileLimits(
            max_unpacked_bytes=settings.max_unpacked_bytes,
            max_unpack_ratio=settings.max_unpack_ratio,
            max_pdf_pages=settings.max_pdf_pages,
            max_pdf_seconds=settings.max_pdf_seconds,
            max_ocr_pages=settings.max_ocr_pages,
            max_html_bytes=settings.max_html_bytes,
        )
        with contextlib.ExitStack() as stack:
            worker = self.reader or stack.enter_context(ParseWorker(parse_budget(settings)))
            loaded = iter_loaded(
                files, root, metadata, text_field, settings.max_file_bytes, relative_sources, limits, worker.load
            )
            self._ingest_loaded(loaded, len(files), report, run)

    def _ingest_loaded(self, loaded: Iterator[LoadResult], files: int, report: IngestReport, run: _Run) -> None:
        wave: list[Document] = []
        wave_chars = 0
        for done, one in enumerate(loaded, start=1):
            self.naming.apply(one)
            report.failures.extend(one.failures)
            report.warnings.extend(one.warnings)
            report.documents_seen += len(one.documents)
            run.notify("load", done, files)
            wave.extend(one.documents)
            wave_chars += sum(len(d.text) for d in one.documents)
            if wave_chars >= _WAVE_CHARS:
                self._ingest_wave(wave, report, run)
                wave, wave_chars = [], 0
        if wave:
            self._ingest_wave(wave, report, run)

    def _ingest_wave(self, documents: list[Document], report: IngestReport, run: _Run) -> None:
        # The stored hash covers content *and* how it was indexed, so changing chunking or the
        # embedding model re-indexes on the next ingest instead of leaving stale chunks behind.
        extraction = report.extractor
        if isinstance(self.extractor, Versioned):
            extraction += f"@{self.extractor.version}"
        if self.schema is not None:  # another schema keeps other facts: extract again
            extraction += "@schema:" + hashlib.sha256(self.schema.to_json().encode()).hexdigest()[:16]
        signature = (
            f"{self.settings.chunk_size}|{self.settings.chunk_overlap}|{self.embedder.name}|{extraction}"
            f"|{CHUNK_CONTEXT}|{SUBJECT_RULE}"
        )
        for doc in documents:
            doc.content_hash = hashlib.sha256(f"{doc.content_hash}|{signature}".encode()).hexdigest()
        existing: dict[str, str] = {}
        ids = [d.id for d in documents]
        for start in range(0, len(ids), 1000):
            existing.update(self.store.writes.document_hashes(ids[start : start + 1000]))
        todo = [d for d in documents if self.reextract or existing.get(d.id) != d.content_hash]
        run.replacing.update(d.id for d in todo if d.id in existing)
        report.documents_unchanged += len(documents) - len(todo)

        chunked: list[tuple[Document, list[Chunk]]] = []
        for doc in todo:
            chunks = make_chunks(doc, self.settings.chunk_size, self.settings.chunk_overlap)
            if chunks and self.extractor is not None:
                doc.terms = document_terms(doc.text, chunks[0].language)
            doc.text = ""  # the chunks hold the text now
            if not chunks:
                report.failures.append(FileFailure(source=doc.source, error=f"document {doc.id!r} has no text"))
                continue
            chunked.append((doc, chunks))
        run.documents += len(chunked)
        run.chunks += sum(len(c) for _, c in chunked)
        run.notify("chunk", run.documents, run.documents)
        if self._plan is not None:  # a dry run: what would be extracted; nothing embedded or written
            self._plan.extend((c.id, c.text) for _, cs in chunked for c in cs)
            report.documents_written += len(chunked)
            return
        if self.extractor is not None and chunked and run.index is None:
            run.index = EntityIndex.from_rows(self.store.graph.entity_catalog())
        self._prefetch(chunked, run)
        size = self.settings.ingest_group_chunks
        # A model per chunk takes seconds a chunk: each document is written when it is done, so a stop keeps
        # every finished one (grouping only saves transactions, which cost milliseconds).
        per_document = isinstance(self.extractor, TimeBudgeted)
        for group in _groups(chunked, 1 if per_document else size):
            if len(group) == 1 and len(group[0][1]) > size:
                self._ingest_large(*group[0], report, run)
            else:
                self._ingest_group(group, report, run)
            run.notify("write", report.documents_written, run.documents)

    def _prefetch(self, chunked: list[tuple[Document, list[Chunk]]], run: _Run) -> None:
        """An embedder or extractor that works elsewhere (a cluster) starts on the whole wave now, so it works
        while this process resolves and writes each group in turn. A replaced document's chunks are left to
        their group: most keep their stored vectors."""
        if isinstance(self.embedder, PrefetchingEmbedder):
            fresh = [c for doc, cs in chunked if doc.id not in run.replacing for c in cs]
            self.embedder.prefetch([c.embedding_text for c in fresh])
        if isinstance(self.extractor, Prefetching):
            self.extractor.prefetch(extraction_inputs([(c.id, c.text) for _, cs in chunked for c in cs]))

    def _embed_and_extract(
        self, items: list[tuple[Document, list[Chunk]]], report: IngestReport, run: _Run
    ) -> list[ChunkExtraction]:
        chunks = [c for _, cs in items for c in cs]
        if self.extractor is None:
            self._embed_chunks(chunks, run)
            return []
        # The chunks are embedded while they are parsed: the embedder's streams run in onnxruntime (or wait
        # on an endpoint) with the GIL released, so the parse fills their gaps; how long a stream then waits
        # for the GIL back is the switch interval, which the CLI shortens for its ingests (cli/common.py).
        with ThreadPoolExecutor(1, thread_name_prefix="embed") as pool:
            # in a copy of this thread's context, so its spans are children of the ingest's
            embedding = pool.submit(contextvars.copy_context().run, self._embed_chunks, chunks, run)
            try:
                extractions = self._extract(items, chunks, report, run)
            finally:
                embedding.result()  # joined even when extraction failed, and its error raised
        return extractions

    def _embed_chunks(self, chunks: list[Chunk], run: _Run) -> None:
        with run.timed("embed chunks"):
            # A changed filing or manual mostly keeps its passages: those keep their stored vectors (the same
            # model made them, and a text's vector does not depend on its batch), so a re-ingest embeds only
            # what changed. Embedding is the costliest offline stage.
            replacing = sorted({c.document_id for c in chunks} & run.replacing)
            stored = self.store.writes.stored_vectors(replacing, [c.text for c in chunks]) if replacing else {}
            todo = [c for c in chunks if c.embedding_text not in stored]
            fresh = dict(zip((c.id for c in todo), self.embedder.embed([c.embedding_text for c in todo])))
        for chunk in chunks:
            chunk.embedding = fresh[chunk.id] if chunk.id in fresh else stored[chunk.embedding_text]
        run.vectors_reused += len(chunks) - len(todo)
        run.embedded += len(chunks)
        run.notify("embed", run.embedded, run.chunks)

    def _extract(
        self, items: list[tuple[Document, list[Chunk]]], chunks: list[Chunk], report: IngestReport, run: _Run
    ) -> list[ChunkExtraction]:
        assert self.extractor is not None
        base = run.extracted
        subjects = {c.id: doc.subject for doc, cs in items for c in cs}
        texts = {c.id: c.text for c in chunks}
        terms = {c.id: doc.terms for doc, cs in items if doc.terms for c in cs}

        def add_subjects(found: list[ChunkExtraction]) -> None:
            for extraction in found:
                add_subject(extraction, subjects.get(extraction.chunk_id, ""))
                if terms.get(extraction.chunk_id):
                    add_document_terms(extraction, terms[extraction.chunk_id], texts[extraction.chunk_id])

        with run.timed("extract"):
            extractions, checks = extract_checked(
                self.extractor,
                [(c.id, c.text) for c in chunks],
                self.schema,
                lambda n: run.notify("extract", base + n, run.chunks, self._usage_line()),
                add_subjects,
            )
        for reason, n in checks.items():
            report.schema_checks[reason] = report.schema_checks.get(reason, 0) + n
        run.extracted += len(chunks)
        run.notify("extract", run.extracted, run.chunks, self._usage_line())
        self._record_failures(items, extractions, report)
        return extractions

    def _resolve(self, extractions: list[ChunkExtraction], run: _Run) -> tuple[list[Entity], list[Relation]]:
        if run.index is None:
            return [], []
        with run.timed("resolve"):
            entities, relations = self.resolver.resolve([x for x in extractions if x.error is None], run.index)
            self._describe_with_stored(entities, run.index)
        with run.timed("embed entities"):
            self._embed_entities([e for e in entities if e.id not in run.index.embedded])
        return entities, relations

    def _describe_with_stored(self, entities: list[Entity], index: EntityIndex) -> None:
        """An entity already in the graph gets one description from its stored one and this group's, as the
        resolver makes one within a group (summarized by the LLM once they no longer fit), instead of the
        stored one and the new one joined and cut at the limit. Only with a summarizer: a join is what the
        write does anyway."""
        if self.resolver.summarize is None:
            return
        known = [e for e in entities if e.description and e.id in index.embedded]
        stored = self.store.graph.entity_descriptions([e.id for e in known]) if known else {}
        for entity in known:
            before = stored.get(entity.id, "")
            if before and entity.description not in before:
                entity.description = self.resolver.describe(entity.name, [before, entity.description])
                entity.replace_description = True

    def _ingest_group(self, group: list[tuple[Document, list[Chunk]]], report: IngestReport, run: _Run) -> None:
        entities, relations = self._resolve(self._embed_and_extract(group, report, run), run)
        with run.timed("write"):
            self._write_group(group, report, entities, relations)
        self._remember_embedded(entities, run)

    @staticmethod
    def _remember_embedded(entities: list[Entity], run: _Run) -> None:
        """Entities now written with a vector are not embedded again by this run."""
        if run.index is not None:
            run.index.embedded.update(e.id for e in entities if e.embedding is not None)

    def _ingest_large(self, doc: Document, chunks: list[Chunk], report: IngestReport, run: _Run) -> None:
        """A document bigger than a group: its chunks are staged group by group (invisible to search, and
        their embeddings leave memory), then one transaction swaps them in with its entity graph. A crash
        before that commit leaves the old version whole; the next ingest of the same version goes on from the
        staged parts (another version clears them)."""
        size, batch = self.settings.ingest_group_chunks, self.settings.write_batch_size
        # The stage is named by the document's version (its hash covers the text, chunking, embedder and
        # extractor): a run stopped by Ctrl-C or a crash left its parts staged with their extractions, and the
        # same ingest takes them up instead of embedding and extracting them again.
        stage = hashlib.sha256(f"{doc.id}|{doc.content_hash}".encode()).hexdigest()[:32]
        extractions: list[ChunkExtraction] = []
        try:
            self.store.writes.clear_staged(doc.id, keep=stage)
            done = self.store.writes.staged_extractions(doc.id, stage)
            for start in range(0, len(chunks), size):
                part = chunks[start : start + size]
                if all(c.id in done for c in part):
                    extractions += [ChunkExtraction.model_validate_json(done[c.id]) for c in part]
                    report.chunks_resumed += len(part)
                    run.extracted += len(part)
                    run.notify("extract", run.extracted, run.chunks, "resumed")
                    continue
                found = self._embed_and_extract([(doc, part)], report, run)
                extractions += found
                with run.timed("write"):
                    # only what needs no second try: a failed or deferred chunk is extracted again next time
                    kept = {
                        x.chunk_id: x.model_dump_json()
                        for x in found
                        if x.error is None and not (x.fallback or "").startswith(TIME_BUDGET)
                    }
                    self.store.writes.stage_chunks(doc.id, stage, part, batch, kept)
                for chunk in part:
                    chunk.embedding = None
            entities, relations = self._resolve(extractions, run)
            with run.timed("write"):
                self.store.writes.commit_staged(doc, chunks, stage, batch, entities, relations)
        except WriteRejectedError as exc:  # one bad document must not sink the run; an outage does
            report.failures.append(FileFailure(source=doc.source, error=f"{doc.id}: write failed: {exc}"))
            return
        report.entities_written += len(entities)
        report.relations_written += len(relations)
        report.documents_written += 1
        report.chunks_written += len(chunks)
        self._remember_embedded(entities, run)

    def _usage_line(self) -> str:
        usage = self.extractor.usage() if self.extractor is not None else {}
        if not usage:
            return ""
        tokens = usage.get("prompt_tokens", 0) + usage.get("completion_tokens", 0)
        return f"LLM {usage.get('calls', 0):.0f} calls ({usage.get('cached', 0):.0f} cached), {tokens:,.0f} tokens"

    @staticmethod
    def _record_failures(
        group: list[tuple[Document, list[Chunk]]], extractions: list[ChunkExtraction], report: IngestReport
    ) -> None:
        """A chunk whose extraction failed is reported, and its document marked incomplete, so the next
        ingest retries it (cached LLM answers make the rest free) instead of skipping it as unchanged."""
        for extraction in extractions:
            if extraction.fallback:
                reason = "offline graph: " + extraction.fallback.partition(":")[0]
                report.extraction_fallbacks[reason] = report.extraction_fallbacks.get(reason, 0) + 1
        failed = {x.chunk_id: x.error for x in extractions if x.error}
        # Past the time budget a chunk got the offline graph: the document is written, and the next ingest
        # continues it with the model (the answers already paid for come from the cache).
        deferred = {x.chunk_id for x in extractions if (x.fallback or "").startswith(TIME_BUDGET)}
        if not failed and not deferred:
            return
        for doc, chunks in group:
            errors = [f"chunk {c.index} ({c.id}): {failed[c.id]}" for c in chunks if c.id in failed]
            if errors or any(c.id in deferred for c in chunks):
                # a large document is checked part by part: mark it once
                doc.content_hash = doc.content_hash.removesuffix(":incomplete") + ":incomplete"
                report.extraction_failures.extend(FileFailure(source=doc.source, error=e) for e in errors)

    def _embed_entities(self, entities: list[Entity]) -> None:
        """Each entity is embedded once, when it first appears: embedding is the costliest offline step."""
        texts = [entity_text(e) for e in entities]
        for entity, vector in zip(entities, self.embedder.embed(texts)):
            entity.embedding = vector

    def _write_group(
        self,
        group: list[tuple[Document, list[Chunk]]],
        report: IngestReport,
        entities: list[Entity],
        relations: list[Relation],
    ) -> None:
        """One transaction for the group; if it fails, one per document, so only the bad one is lost."""
        batch = self.settings.write_batch_size
        try:
            self.store.writes.write_documents(group, batch, entities, relations)
            written = group
            report.entities_written += len(entities)
            report.relations_written += len(relations)
        except WriteRejectedError:  # (an outage is a GraphStoreError: it stops the run, every group whole)
            log.info("a group of %d documents was refused; writing them one by one", len(group))
            written = []
            for doc, chunks in group:
                ents, rels = slice_graph(entities, relations, {c.id for c in chunks})
                try:
                    self.store.writes.write_documents([(doc, chunks)], batch, ents, rels)
                    report.entities_written += len(ents)
                    report.relations_written += len(rels)
                except WriteRejectedError as exc:  # one bad document must not sink the run
                    report.failures.append(FileFailure(source=doc.source, error=f"{doc.id}: write failed: {exc}"))
                    continue
                written.append((doc, chunks))
        report.documents_written += len(written)
        report.chunks_written += sum(len(chunks) for _, chunks in written)

"""One sync of a source: scan it against its record, ingest what is new or changed, delete the documents of
what is gone (everything derived from them goes with them: passages, entities and relations they alone
supported, their share of the others, communities and the summary tree brought up to date), and store the
record. Safe to stop at any point: the next sync compares the source with the record again."""

from __future__ import annotations

import logging
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from graphwright.documents.loaders import document_id_for
from graphwright.errors import SourceError
from graphwright.models import SourceRecord, SyncedItem, SyncReport
from graphwright.pipeline import Naming, ProgressCallback
from graphwright.sources.base import Item, unchanged
from graphwright.sources.registry import kind_of, open_source

if TYPE_CHECKING:
    from graphwright.config import Settings
    from graphwright.graph_store.contracts import GraphStore
    from graphwright.models import IngestReport

log = logging.getLogger(__name__)


class Syncing(Protocol):
    """What a sync needs of a GraphRAG (api/__init__.py): its store and settings, ingest and delete."""

    settings: Settings
    store: GraphStore

    def ingest(
        self,
        paths: list[str | Path],
        *,
        base: str | Path | None = ...,
        extractor: str | None = ...,
        progress: ProgressCallback | None = ...,
        update_communities: bool = ...,
        relative_sources: bool = ...,
        naming: Naming | None = ...,
    ) -> IngestReport: ...

    def delete_document(self, document_id: str, update_communities: bool = True) -> int | None: ...

    def keep_derived_current(self, report: IngestReport | None = None) -> None: ...

    def forget_answers(self, chunk_ids: list[str]) -> int: ...


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def sync(
    rag: Syncing,
    location: str,
    *,
    options: dict[str, Any] | None = None,
    extractor: str | None = None,
    progress: ProgressCallback | None = None,
) -> SyncReport:
    started = time.perf_counter()
    notify = progress or (lambda stage, done, total, detail="": None)
    kind = kind_of(location)
    probe = open_source(location, options or {}, rag.settings, kind=kind)
    previous = rag.store.sources.get(probe.id)
    source = probe if options or previous is None else open_source(location, previous.options, rag.settings, kind=kind)
    report = SyncReport(source=source.id, kind=source.kind)
    with tempfile.TemporaryDirectory(prefix="graphwright-sync-") as staging:  # 0700: fetched bytes stay private
        notify("scan", 0, 1, source.id)
        try:
            listing = source.scan(previous, Path(staging))
        except SourceError as exc:
            if previous is not None:  # say so in the record; what it had stays
                rag.store.sources.put(previous.model_copy(update={"error": str(exc)}))
            raise
        notify("scan", 1, 1, f"{len(listing.items)} items")
        report.skipped = listing.skipped
        report.failures = list(listing.failures)
        before = previous.items if previous else {}
        now = {item.key: item for item in listing.items}
        todo = {i.key: i.path for i in listing.items if i.path is not None and not unchanged(i, previous)}
        report.unchanged = len(listing.items) - len(todo) + len(listing.kept)
        gone = [key for key in before if key not in now and key not in listing.kept]
        items = {key: before[key] for key in listing.kept}
        naming = Naming()
        reading = set(todo)
        rewritten = [d for k in reading if k in before for d in before[k].documents]
        passages_before = _passages(rag, rewritten)
        if todo:
            named = ((document_id_for(path, listing.base), key) for key, path in todo.items())
            naming.names = {read: key for read, key in named if read != key}
            report.ingest = rag.ingest(
                list(todo.values()),
                base=listing.base,
                relative_sources=True,
                extractor=extractor,
                progress=progress,
                update_communities=False,
                naming=naming,
            )
            report.failures.extend(report.ingest.failures)
        failed = {f.source: f.error for f in report.failures}
        for item in listing.items:
            items[item.key] = _state(item, before.get(item.key), item.key in reading, naming, failed)
            if item.key in reading:
                (report.changed if item.key in before else report.added).append(item.key)
        # A changed file that now gives fewer documents (a JSON record removed) loses the others.
        stale = [d for k in reading if k in before for d in before[k].documents if d not in items[k].documents]
        for n, key in enumerate(gone, start=1):
            notify("remove", n, len(gone), key)
            stale.extend(before[key].documents)
        report.removed = gone
        # What the model was told of passages a rewrite dropped goes too (deletes below forget their own).
        rag.forget_answers(sorted(passages_before - _passages(rag, rewritten)))
        claimed = {d for state in items.values() for d in state.documents}  # a record's id moved to another file
        for document_id in dict.fromkeys(d for d in stale if d not in claimed):
            if rag.delete_document(document_id, update_communities=False):
                report.documents_removed += 1
        if report.touched:
            rag.keep_derived_current(report.ingest)
        record = SourceRecord(
            id=source.id,
            kind=source.kind,
            location=source.location,
            options=source.options,
            items=items,
            last_sync=_now(),
            counts={
                "added": len(report.added),
                "changed": len(report.changed),
                "removed": len(report.removed),
                "unchanged": report.unchanged,
                "failed": len(report.failures),
            },
        )
        rag.store.sources.put(record)
    report.seconds = round(time.perf_counter() - started, 3)
    return report


def _passages(rag: Syncing, document_ids: list[str]) -> set[str]:
    return {c for d in document_ids for c in rag.store.retrieval.document_chunks(d)}


def _state(item: Item, before: SyncedItem | None, read: bool, naming: Naming, failed: dict[str, str]) -> SyncedItem:
    """What the record keeps of an item after this sync."""
    if not read:  # unchanged (a 304 keeps its links), or listed but not fetched (an object over the size cap)
        kept = before or SyncedItem(version=item.version)
        return kept.model_copy(
            update={"version": item.version, "depth": item.depth, "failed": failed.get(item.key, kept.failed)}
        )
    documents = naming.documents.get(item.key, [])
    error = failed.get(item.key, "")
    if not documents and error and before is not None:
        # A changed file that cannot be read now keeps the documents of the version that could (a save
        # caught half-written is read again when it changes); the record says why.
        return before.model_copy(update={"version": item.version, "failed": error})
    return SyncedItem(
        version=item.version,
        documents=documents,
        failed="" if documents else error,
        links=list(item.links),
        depth=item.depth,
    )


def forget(rag: Syncing, source_id: str, *, documents: bool) -> SourceRecord:
    """Stop keeping a source in step; with `documents`, delete everything it gave too."""
    from graphwright.errors import NotFoundError

    record = rag.store.sources.get(source_id)
    if record is None:
        raise NotFoundError(f"no source {source_id!r} in this workspace (graphwright sources lists them)")
    if documents:
        for item in record.items.values():
            for document_id in item.documents:
                rag.delete_document(document_id, update_communities=False)
        rag.keep_derived_current(None)
    rag.store.sources.forget(source_id)
    return record

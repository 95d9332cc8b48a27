"""`GraphRAG.inspect`: what the graph holds and whether it is well: counts, documents, entities, integrity,
health, and read-only Cypher."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from graphwright.config import Settings
from graphwright.embeddings import Embedder, embed_questions
from graphwright.errors import GraphStoreError, QueryRejectedError
from graphwright.graph_store import GraphStore
from graphwright.models import (
    CypherRows,
    DocumentInfo,
    DocumentPage,
    DocumentQuery,
    DocumentText,
    EntityInfo,
    EntityPage,
    EntityProfile,
    EntityRef,
    GraphStats,
    Health,
)
from graphwright.search.results import document_text


class Inspection:
    """Reads of one workspace's graph. `embedder()` gives the embedder when a lookup needs one (the model loads
    then, not before)."""

    def __init__(self, store: GraphStore, settings: Settings, embedder: Callable[[], Embedder]) -> None:
        self._store = store
        self._settings = settings
        self._embedder = embedder

    def stats(self) -> dict[str, int]:
        """Documents, chunks, links, entities, relations, mentions and communities, counted."""
        return self._store.admin.counts()

    def documents(self, offset: int = 0, limit: int = 100) -> list[DocumentInfo]:
        """Stored documents by id, a page at a time (`document_table` adds interrupted ingests and failed files)."""
        return self.document_table(DocumentQuery(offset=offset, limit=limit, stored=True)).documents

    def document_text(self, document_id: str) -> DocumentText | None:
        """A stored document's passages in order (None when there is no such document)."""
        return document_text(self._store.retrieval, document_id)

    def document_table(self, query: DocumentQuery | None = None) -> DocumentPage:
        """The documents table: stored, interrupted and failed, filtered, sorted and paged, with the number
        of matching rows in each status."""
        query = query or DocumentQuery()
        retrieval = self._store.retrieval
        rows = retrieval.list_documents(query)
        counts = retrieval.document_status_counts(search=query.search, language=query.language)
        total = counts.get(query.status, 0) if query.status else sum(counts.values())
        return DocumentPage(documents=[DocumentInfo(**row) for row in rows], counts=counts, total=total)

    def entity_table(
        self, search: str | None = None, type: str | None = None, offset: int = 0, limit: int = 100
    ) -> EntityPage:
        """Entities whose name contains `search`, of a `type`, most connected first, a page at a time."""
        graph = self._store.graph
        rows = graph.list_entities(offset, limit, search=search, type=type)
        return EntityPage(
            entities=[EntityInfo(**row) for row in rows], total=graph.count_entities(search=search, type=type)
        )

    def read_cypher(self, query: str, *, caller: str = "", tenant: bool = False) -> CypherRows:
        """Run a Cypher query only if it is provably read-only (the locks of `graph_store/cypher_gate/read_only.py`: its
        text, Neo4j's plan, a READ transaction), within the row, byte and time limits of the settings, and
        at most `cypher_max_concurrent` at once for one `caller` (a key's fingerprint; BusyError past it).
        CypherRejectedError says which lock refused it."""
        from graphwright.search.cypher import run_read_only

        return run_read_only(self._store, query, self._settings, caller=caller, tenant=tenant)

    def health(self) -> Health:
        """The store reachable and every index online; never raises for a database that is down."""
        try:
            self._store.verify()
            indexes = self._store.admin.indexes()
        except (GraphStoreError, QueryRejectedError) as exc:
            return Health(ok=False, neo4j=False, indexes_online=False, detail=str(exc))
        waiting = [row["name"] for row in indexes if row["state"] != "ONLINE"]
        meta = self._store.admin.meta()
        return Health(
            ok=not waiting,
            neo4j=True,
            indexes_online=not waiting,
            detail=f"indexes not online: {', '.join(waiting)}" if waiting else "",
            embedding_model=meta["model"] if meta else None,
        )

    def graph(self) -> GraphStats:
        """Counts, entities and relations by type, communities by level, index states and, for the local
        server, the database's size on disk."""
        from graphwright.graph_store.launcher.local_server import store_bytes

        types = self._store.admin.type_counts()
        indexes = [
            {k: row.get(k) for k in ("name", "type", "labelsOrTypes", "properties", "state", "populationPercent")}
            for row in self._store.admin.indexes()
        ]
        levels = self._store.communities.community_levels()
        return GraphStats(
            counts=self._store.admin.counts(),
            entity_types=types["entities"],
            relation_types=types["relations"],
            community_levels={r["level"]: r["communities"] for r in levels},
            indexes=indexes,
            store_bytes=store_bytes(self._settings.home, self._settings.neo4j_database),
        )

    def check(self) -> dict[str, dict[str, Any]]:
        """Rules of the graph model some element breaks ({} when the graph is consistent): documents with a
        wrong number of chunks, chunks without a document or embedding, entities nothing mentions, relations
        citing missing chunks, duplicate entity names."""
        return {rule: dict(problem) for rule, problem in self._store.admin.integrity_problems().items()}

    def resumable(self) -> dict[str, Any]:
        """Chunks an interrupted ingest staged (`n`, and `examples`: their documents), which the same ingest
        takes up: work left, not a broken rule."""
        return dict(self._store.admin.resumable())

    def entity(self, name: str, relations: int = 25) -> EntityProfile | None:
        """The entity a name means (exact name first, else the closest name, misspellings forgiven) with its
        relations, sources and communities; None when no name is close (meaning alone is not enough here:
        every entity is the nearest vector of something)."""
        from graphwright.search.linking import EntityLinker
        from graphwright.search.local import relation_refs
        from graphwright.text.normalize import clean_name, normalize_key

        graph = self._store.graph
        # The whole name as given first: the span linker reads words, and a name of no word ("_") has none.
        key = normalize_key(clean_name(name))
        whole = graph.entities_by_key([key]) if key else []
        if whole:
            entity_id, how = whole[0]["id"], "exact"
        else:
            linker = EntityLinker(graph)
            embedder: Embedder = self._embedder()
            found = linker.exact(name)[0] or [
                e for e in linker.link(name, embed_questions(embedder, [name])[0], 3)[0] if e.how == "fulltext"
            ]
            if not found:
                return None
            entity_id, how = found[0].id, found[0].how
        profile = graph.entity_profile(entity_id)
        if profile is None:
            return None
        ref = EntityRef(
            id=profile["id"], name=profile["name"], type=profile["type"], description=profile["description"], how=how
        )
        return EntityProfile(
            entity=ref,
            labels=profile["labels"],
            aliases=profile["aliases"],
            degree=profile["degree"],
            relations=relation_refs(graph.entity_relations(ref.id, relations)),
            sources=[dict(s) for s in graph.entity_sources(ref.id)],
            communities=profile["communities"],
        )

    def __call__(self) -> GraphStats:
        """`rag.inspect()`, as it was before this was an object: `rag.inspect.graph()`."""
        warnings.warn("GraphRAG.inspect() is now GraphRAG.inspect.graph()", DeprecationWarning, stacklevel=2)
        return self.graph()

"""The store contract suite: what any backend of `STORE_BACKENDS` must do, whatever it is built on. A backend's
tests subclass `StoreContract` with a `store` fixture that yields an empty store of `DIMENSION`-wide embeddings
with its schema in place; Neo4j runs it in tests/integration/test_store_contract.py, the plain-Python backend
of tests/memory_store.py in tests/unit/graph_store/test_memory_store.py.

It covers what ingest, vector and keyword search, entity linking, conversations and workspaces need; the walk's
reads, community reports and curation have tests of their own against Neo4j."""

from __future__ import annotations

import pytest

from graphwright.errors import NotFoundError, SchemaMismatchError, WorkspaceExistsError
from graphwright.graph_store.contracts import GraphStore
from graphwright.graph_store.rows import ScoredChunkRow
from graphwright.graph_store.schema import SchemaPlan
from graphwright.models import Chunk, Document, Entity, Relation, SourceRecord, SyncedItem
from graphwright.search.keywords import keyword_search
from graphwright.text.normalize import entity_label, normalize_key

DIMENSION = 384
OTHER_WORKSPACE = "contractb"


def basis(i: int, lean: int | None = None) -> list[float]:
    """Unit vector i, leaning a little towards vector `lean`: distances known exactly on any backend."""
    vector = [0.0] * DIMENSION
    vector[i] = 1.0
    if lean is not None:
        vector[lean] = 0.3
    return vector


def document(doc_id: str, texts: list[str], *, title: str = "", first: int = 0) -> tuple[Document, list[Chunk]]:
    doc = Document(id=doc_id, source=f"{doc_id}.txt", title=title or doc_id.title(), text=" ".join(texts))
    doc = doc.model_copy(update={"content_hash": f"hash-{doc_id}-{len(texts)}"})
    chunks = [
        Chunk(
            id=f"{doc_id}:{i}",
            document_id=doc_id,
            index=i,
            text=text,
            n_tokens=len(text.split()),
            embedding=basis(first + i),
        )
        for i, text in enumerate(texts)
    ]
    return doc, chunks


def entity(name: str, kind: str, *chunk_ids: str) -> Entity:
    return Entity(
        id="e_" + normalize_key(name),
        name=name,
        type=kind,
        label=entity_label(kind),
        mentions={c: 1 for c in chunk_ids},
        embedding=basis(300 + len(name)),
    )


def relation(source: Entity, kind: str, target: Entity, chunk_id: str) -> Relation:
    return Relation(source_id=source.id, target_id=target.id, type=kind, chunk_ids=[chunk_id], chunk_weights=[1.0])


ROCKETS = ["The Saturn V carried Apollo crews to the Moon.", "Wernher von Braun led the rocket's design."]
AIRSHIPS = ["Zeppelins crossed the Atlantic in the 1930s.", "Helium replaced hydrogen in later airships."]


class StoreContract:
    """Subclass with a `store` fixture (an empty store, schema in place)."""

    def write_rockets(self, store: GraphStore) -> tuple[Entity, Entity]:
        doc, chunks = document("rockets", ROCKETS)
        saturn = entity("Saturn V", "PRODUCT", "rockets:0")
        braun = entity("Wernher von Braun", "PERSON", "rockets:1", "rockets:0")
        store.writes.write_documents(
            [(doc, chunks)], entities=[saturn, braun], relations=[relation(braun, "DESIGNED", saturn, "rockets:1")]
        )
        return saturn, braun

    def test_a_written_document_reads_back(self, store: GraphStore) -> None:
        self.write_rockets(store)
        found = store.retrieval.get_document("rockets")
        assert found is not None
        assert (found["document"]["id"], found["document"]["title"]) == ("rockets", "Rockets")
        assert [c["text"] for c in found["chunks"]] == ROCKETS
        assert store.retrieval.get_document("nowhere") is None
        [listed] = store.retrieval.list_documents()
        assert (listed["id"], listed["chunks"], listed["content_hash"]) == ("rockets", 2, "hash-rockets-2")
        assert store.writes.document_hashes(["rockets", "nowhere"]) == {"rockets": "hash-rockets-2"}
        assert store.retrieval.known_documents(["rockets", "Rockets", "nowhere"]) == {"rockets", "Rockets"}
        assert store.retrieval.document_chunks("rockets") == {"rockets:0": ROCKETS[0], "rockets:1": ROCKETS[1]}
        rows = store.retrieval.chunks_with_ids(["rockets:1", "nowhere", "rockets:0"])
        assert [(r["chunk_id"], r["title"], r["source"]) for r in rows] == [
            ("rockets:1", "Rockets", "rockets.txt"),
            ("rockets:0", "Rockets", "rockets.txt"),
        ], "in the order asked, unknown ids skipped"

    def test_rewriting_a_document_replaces_its_chunks(self, store: GraphStore) -> None:
        self.write_rockets(store)
        doc, chunks = document("rockets", ["Only one passage now."])
        store.writes.write_documents([(doc, chunks)])
        assert store.retrieval.chunks_by_id(["rockets:0", "rockets:1"]) == {"rockets:0": "Only one passage now."}
        counts = store.admin.counts()
        assert (counts["documents"], counts["chunks"]) == (1, 1)
        assert counts["entities"] == 0, "entities no passage mentions any longer went with the old passages"

    def test_deleting_a_document_takes_what_only_it_supported(self, store: GraphStore) -> None:
        saturn, braun = self.write_rockets(store)
        doc, chunks = document("airships", AIRSHIPS, first=10)
        store.writes.write_documents([(doc, chunks)], entities=[entity("Wernher von Braun", "PERSON", "airships:0")])
        assert store.writes.delete_document("rockets") == 2
        assert store.writes.delete_document("rockets") is None
        assert [r["id"] for r in store.graph.entities_with_ids([saturn.id, braun.id])] == [braun.id]
        counts = store.admin.counts()
        assert (counts["documents"], counts["chunks"], counts["entities"], counts["relations"]) == (1, 2, 1, 0)

    def test_a_failed_files_record_and_an_interrupted_runs_staging_are_forgotten(self, store: GraphStore) -> None:
        store.writes.record_failures([("broken.pdf", "no text layer")], [])
        doc, chunks = document("half", ROCKETS)
        store.writes.stage_chunks("half", "stage-1", chunks)
        assert store.retrieval.document_status_counts() == {"failed": 1, "interrupted": 1}
        assert store.writes.forget_record("broken.pdf") is True
        assert store.writes.forget_record("broken.pdf") is False  # gone
        assert store.writes.forget_record("half") is True  # its staged chunks
        assert store.writes.forget_record("half") is False and store.writes.forget_record("nowhere") is False
        assert store.writes.staged_extractions("half", "stage-1") == {}
        assert store.retrieval.document_status_counts() == {}  # the table no longer lists either

    def test_vector_search_ranks_the_nearest_passage_first(self, store: GraphStore) -> None:
        doc, chunks = document("mixed", [*ROCKETS, *AIRSHIPS])
        store.writes.write_documents([(doc, chunks)])
        store.admin.await_indexes()
        rows = store.retrieval.vector_search(basis(2, lean=1), k=3)
        assert len(rows) == 3
        assert [r["chunk_id"] for r in rows[:2]] == ["mixed:2", "mixed:1"], "the other two tie, in any order"
        assert set(ScoredChunkRow.__annotations__) <= set(rows[0])
        assert rows[0]["score"] > rows[1]["score"]

    def test_keyword_search_finds_the_passage_with_a_rare_word(self, store: GraphStore) -> None:
        doc, chunks = document("mixed", [*ROCKETS, *AIRSHIPS])
        store.writes.write_documents([(doc, chunks)])
        store.admin.await_indexes()
        rows = keyword_search(store.retrieval, "Which passage mentions helium?", k=5)
        assert rows and rows[0]["chunk_id"] == "mixed:3"
        assert keyword_search(store.retrieval, "xylophone", k=5) == []

    def test_entities_are_found_by_key_and_id_with_their_relations(self, store: GraphStore) -> None:
        saturn, braun = self.write_rockets(store)
        [row] = store.graph.entities_by_key([normalize_key("Saturn V"), "nobody"])
        assert (row["key"], row["id"], row["name"], row["type"]) == ("saturn v", saturn.id, "Saturn V", "PRODUCT")
        assert [r["name"] for r in store.graph.entities_with_ids([braun.id, "e_x", saturn.id])] == [
            "Wernher von Braun",
            "Saturn V",
        ]
        [link] = store.graph.relations_among([saturn.id, braun.id], [saturn.id], 10)
        assert (link["source"], link["type"], link["target"], link["chunk_ids"]) == (
            "Wernher von Braun",
            "DESIGNED",
            "Saturn V",
            ["rockets:1"],
        )
        assert {r["key"] for r in store.graph.entity_catalog()} == {"saturn v", "wernher von braun"}
        assert store.admin.type_counts() == {"entities": {"PERSON": 1, "PRODUCT": 1}, "relations": {"DESIGNED": 1}}

    def test_reset_empties_the_workspace(self, store: GraphStore) -> None:
        self.write_rockets(store)
        assert store.admin.counts()["mentions"] == 3
        store.admin.reset()
        assert not any(store.admin.counts().values())
        assert store.admin.meta() is None

    def test_the_schema_records_the_embedder_and_refuses_another(self, store: GraphStore) -> None:
        meta = store.admin.meta()
        assert meta is not None and meta["dimension"] == DIMENSION
        assert set(store.admin.vector_index_dimensions().values()) == {DIMENSION}
        with pytest.raises(SchemaMismatchError):
            store.admin.ensure_schema(SchemaPlan(DIMENSION + 1, str(meta["model"]), "standard"))

    def test_conversations_belong_to_their_owner(self, store: GraphStore) -> None:
        talks = store.conversations
        created = talks.create("c1", "alice", "")
        assert (created["id"], created["turns"]) == ("c1", 0)
        turn = {"question": "q", "answer": "a", "mode": "vector", "standalone": "q", "chunk_ids": [], "entity_ids": []}
        assert talks.append("c1", "alice", turn, max_turns=2, title="First") == 0
        assert talks.append("c1", "mallory", turn, max_turns=2, title="x") is None
        for _ in range(2):
            talks.append("c1", "alice", turn, max_turns=2, title="ignored")
        got = talks.get("c1", "alice")
        assert got is not None and got["title"] == "First"
        assert [t["index"] for t in got["history"]] == [1, 2], "the newest max_turns are kept"
        assert talks.get("c1", "mallory") is None
        assert [c["id"] for c in talks.list("alice")] == ["c1"] and talks.list("mallory") == []
        assert not talks.delete("c1", "mallory")
        assert talks.delete("c1", "alice") and talks.get("c1", "alice") is None

    def test_sources_are_remembered_whole_and_go_with_a_reset(self, store: GraphStore) -> None:
        record = SourceRecord(
            id="/data/notes",
            kind="folder",
            location="/data/notes",
            items={"notes/a.md": SyncedItem(version="12:34", documents=["notes/a.md"])},
            last_sync="2026-12-07T10:00:00+00:00",
            counts={"added": 1},
        )
        assert store.sources.get(record.id) is None and store.sources.list() == []
        store.sources.put(record)
        record.items["notes/b.json"] = SyncedItem(version="5:6", documents=["b#0", "b#1"])
        store.sources.put(record)  # replaces, never adds a second
        assert store.sources.list() == [record] and store.sources.get(record.id) == record
        assert store.in_workspace(OTHER_WORKSPACE).sources.list() == [], "a workspace sees only its own sources"
        assert store.sources.forget(record.id) and not store.sources.forget(record.id)
        store.sources.put(record)
        store.admin.reset()
        assert store.sources.list() == []

    def test_workspaces_are_registered_and_kept_apart(self, store: GraphStore) -> None:
        registry = store.workspaces
        assert registry.names()[0] == "default"
        with pytest.raises(NotFoundError):
            registry.get(OTHER_WORKSPACE)
        registry.create(OTHER_WORKSPACE, {"extractor": "none"})
        try:
            with pytest.raises(WorkspaceExistsError):
                registry.create(OTHER_WORKSPACE)
            assert registry.get(OTHER_WORKSPACE)["settings"] == {"extractor": "none"}
            other = store.in_workspace(OTHER_WORKSPACE)
            doc, chunks = document("airships", AIRSHIPS)
            other.writes.write_documents([(doc, chunks)])
            assert other.retrieval.get_document("airships") is not None
            assert store.retrieval.get_document("airships") is None, "a workspace sees only its own documents"
            assert store.admin.counts()["chunks"] == 0
            other.admin.reset()
        finally:
            registry.forget(OTHER_WORKSPACE)
        assert OTHER_WORKSPACE not in registry.names()

"""The storage-backend recipe, exercised: a plain-Python store (tests/memory_store.py) passes the store contract
suite Neo4j passes, and registered in one line, `GRAPHWRIGHT_STORE_BACKEND=memory` makes GraphRAG ingest and
search through it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from graphwright.config import Settings
from graphwright.embeddings.base import Embedder
from graphwright.graph_store.backends import STORE_BACKENDS
from graphwright.graph_store.schema import SchemaPlan
from tests.memory_store import MemoryStore
from tests.store_contract import DIMENSION, StoreContract


class TestMemoryStore(StoreContract):
    @pytest.fixture
    def store(self) -> Iterator[MemoryStore]:
        store = MemoryStore()
        store.admin.ensure_schema(SchemaPlan(DIMENSION, "contract-model", "standard"))
        yield store


@pytest.fixture
def memory_backend() -> Iterator[None]:
    STORE_BACKENDS.register("memory", "tests.memory_store:open_memory")  # the one registration
    yield
    STORE_BACKENDS.unregister("memory")


def test_a_registered_store_backend_serves_graphrag(memory_backend: None, tmp_path: Path, embedder: Embedder) -> None:
    from graphwright.api import GraphRAG

    settings = Settings(_env_file=None, store_backend="memory", extractor="none", home=tmp_path)
    (tmp_path / "saturn.md").write_text("# Saturn V\n\nThe Saturn V carried Apollo crews to the Moon.\n")
    (tmp_path / "airships.md").write_text("# Airships\n\nZeppelins crossed the Atlantic with helium aboard.\n")
    with GraphRAG(settings, embedder=embedder) as rag:
        assert isinstance(rag.store, MemoryStore)
        rag.init()
        report = rag.ingest([tmp_path / "saturn.md", tmp_path / "airships.md"])
        assert report.documents_written == 2
        for mode in ("vector", "hybrid"):
            result = rag.search("Which rocket carried crews to the Moon?", mode=mode, k=1)
            assert [c.document_id for c in result.chunks] == [rag.inspect.documents()[1].id], mode
        assert rag.delete_document(rag.inspect.documents()[0].id, update_communities=False) == 1
        assert rag.inspect.stats()["documents"] == 1


def test_graphrag_keeps_its_old_methods_as_warnings_of_where_they_moved(memory_backend: None, tmp_path: Path) -> None:
    from graphwright.api import GraphRAG

    settings = Settings(_env_file=None, store_backend="memory", home=tmp_path)
    with GraphRAG(settings) as rag:
        with pytest.warns(DeprecationWarning, match=r"GraphRAG.stats\(\) is now GraphRAG.inspect.stats\(\)"):
            assert rag.stats() == rag.inspect.stats()
        with pytest.warns(DeprecationWarning, match=r"GraphRAG.create_workspace\(\) is now GraphRAG.workspaces"):
            rag.create_workspace("moved", extractor="none")
        with pytest.warns(DeprecationWarning, match=r"workspaces.list\(\)"):
            assert [w.name for w in rag.workspaces()] == ["default", "moved"] == rag.workspaces.names()
        with pytest.warns(DeprecationWarning, match=r"inspect.graph\(\)"):
            assert rag.inspect().counts == rag.inspect.graph().counts
        assert rag.workspaces.delete("moved").name == "moved" and rag.workspaces.names() == ["default"]

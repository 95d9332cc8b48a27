"""Neo4j passes the store contract suite (tests/store_contract.py), the one any store backend must pass."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from graphwright.api import GraphRAG
from graphwright.graph_store.contracts import GraphStore
from tests.store_contract import DIMENSION, StoreContract


class TestNeo4jStore(StoreContract):
    @pytest.fixture
    def store(self, rag: GraphRAG) -> Iterator[GraphStore]:
        assert rag.embedder.dimension == DIMENSION  # the rag fixture: emptied, schema in place
        yield rag.store

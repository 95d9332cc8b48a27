"""The store backends by name (GRAPHWRIGHT_STORE_BACKEND), each imported on first use: `open_store` builds the
one the settings name."""

from __future__ import annotations

from typing import Any

from graphwright.registry import Registry

# Store backends: a factory `(settings, *, workspace) -> GraphStore`, the contract of
# graph_store/contracts.py; tests/store_contract.py is what a backend must pass.
STORE_BACKENDS: Registry[Any] = Registry(
    "store backend",
    {"neo4j": "graphwright.graph_store.store:open_neo4j"},
    parameter="GRAPHWRIGHT_STORE_BACKEND",
)

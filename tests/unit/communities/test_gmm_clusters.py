"""The RAPTOR paper's clustering (UMAP + a Gaussian mixture by BIC), the `raptor-umap` extra: planted clusters
are found, the hierarchy narrows to small clusters, and the tree is built from it as from Leiden's."""

from __future__ import annotations

import numpy as np
import pytest

from graphwright.communities.passage_tree import tree

pytest.importorskip("umap", reason="the raptor-umap extra is not installed")


def _planted(clusters: int, size: int, seed: int = 7) -> tuple[list[str], np.ndarray]:
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(clusters, 32))
    rows = np.vstack([c + 0.05 * rng.normal(size=(size, 32)) for c in centres])
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    return [f"c_{i:04d}" for i in range(len(rows))], rows


def test_planted_clusters_become_first_level_summaries() -> None:
    ids, vectors = _planted(clusters=6, size=6)
    nodes = tree(ids, vectors, max_cluster=8, clustering="umap-gmm")
    first = [n for n in nodes if n.level == 1]
    # each planted cluster of 6 (ids 6k..6k+5) is one summary's passages exactly
    planted = {tuple(ids[6 * k : 6 * k + 6]) for k in range(6)}
    assert {tuple(sorted(n.chunks)) for n in first} == planted
    top = max(n.level for n in nodes)
    assert [sorted(n.leaves) for n in nodes if n.level == top] == [sorted(ids)]
    assert tree(ids, vectors, max_cluster=8, clustering="umap-gmm") == nodes, "the same vectors, the same tree"


def test_one_component_is_halved_so_the_tree_still_narrows() -> None:
    ids, vectors = _planted(clusters=1, size=20)
    nodes = tree(ids, vectors, max_cluster=8, clustering="umap-gmm")
    assert all(len(n.chunks) <= 8 for n in nodes if n.level == 1) and len(nodes) >= 3

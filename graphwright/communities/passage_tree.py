"""The shape of a RAPTOR tree: passages clustered by meaning, the clusters clustered again, up to a root.

Clusters come from a nearest-neighbour graph of the passages' vectors cut by hierarchical Leiden (the same
detection as the entity communities, communities/leiden.py): a cluster larger than `max_cluster` is split on
its own subgraph, level by level, so the hierarchy is the tree and its smallest clusters are the first level of
summaries. Why not the paper's UMAP + Gaussian mixture: on 2,000 vectors with 25 planted clusters it took 113 s
(plus 25 s importing numba) where a 15-nearest-neighbour graph and Leiden took 0.3 s and found them exactly
(issue 66's measurement), and Leiden is already here.

A long document gets a tree of its own (a filing's pages cluster with each other, not with the same page of
last year's filing); short documents share one corpus tree. A tree's nodes are named by what they cover, so a
rebuild over unchanged passages gives the same names and its summaries are kept."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from graphwright.communities.leiden import detect

# Nearest neighbours per passage in the graph Leiden cuts.
NEIGHBOURS = 10
# Most members of a cluster of the first level: about what one summary can say in ~120 tokens.
MAX_CLUSTER = 8
# A document with at least this many passages gets a tree of its own.
OWN_TREE_CHUNKS = 24
_BLOCK = 512  # rows of the similarity matrix computed at once (512 x 100k floats: 200 MB)


@dataclass
class TreeNode:
    """A summary to write: its level (1 over passages), the passages and the summaries it covers."""

    id: str
    level: int
    chunks: list[str]  # passages it summarizes directly
    children: list[str] = field(default_factory=list)  # summaries it summarizes
    leaves: list[str] = field(default_factory=list)  # every passage under it


def knn_edges(ids: Sequence[str], vectors: Any, neighbours: int = NEIGHBOURS) -> list[tuple[str, str, float]]:
    """Each passage joined to its nearest neighbours by cosine (unit vectors: a dot product), weight the
    similarity (at least a small positive weight, so a far neighbour still holds its passage in the graph)."""
    import numpy as np

    matrix = np.asarray(vectors, dtype=np.float32)
    n = len(ids)
    if n < 2:
        return []
    k = min(neighbours, n - 1)
    edges: list[tuple[str, str, float]] = []
    for start in range(0, n, _BLOCK):
        block = matrix[start : start + _BLOCK] @ matrix.T
        for row in range(block.shape[0]):
            block[row, start + row] = -np.inf  # not its own neighbour
        nearest = np.argpartition(-block, k - 1, axis=1)[:, :k]
        for row, columns in enumerate(nearest):
            a = ids[start + row]
            for column in columns:
                b, weight = ids[int(column)], max(float(block[row, column]), 0.01)
                edges.append((a, b, weight) if a < b else (b, a, weight))
    return edges


def tree(
    ids: Sequence[str], vectors: Any, max_cluster: int = MAX_CLUSTER, seed: int = 42, clustering: str = "leiden"
) -> list[TreeNode]:
    """The summaries of one tree over these passages, children before their parents. A cluster of one
    passage needs no summary: its parent covers the passage directly. `clustering`: `leiden` (a
    nearest-neighbour graph cut by Leiden) or `umap-gmm` (the paper's, communities/gmm_clusters.py)."""
    if len(ids) < 2:
        return []
    if clustering == "umap-gmm":
        from graphwright.communities.gmm_clusters import detect_gmm

        found = detect_gmm(list(ids), vectors, max_cluster, seed)
    else:
        found = detect(knn_edges(ids, vectors), max_cluster_size=max_cluster, seed=seed)
    by_id = {c.id: c for c in found}
    nodes: dict[str, TreeNode] = {}

    def build(community_id: str) -> TreeNode | None:
        community = by_id[community_id]
        built = [b for child in community.children if (b := build(child)) is not None]
        covered = {leaf for b in built for leaf in b.leaves}
        direct = sorted(m for m in community.members if m not in covered)
        if len(built) == 1 and not direct:
            return built[0]  # a split that left one cluster: the same summary
        if len(built) + len(direct) < 2:
            return None
        node = TreeNode(
            id="s_" + community.member_hash[:24],  # named by the passages it covers
            level=1 + max((b.level for b in built), default=0),
            chunks=direct,
            children=[b.id for b in built],
            leaves=sorted(community.members),
        )
        nodes[node.id] = node
        return node

    roots = [c.id for c in found if c.parent is None]
    for root in roots:
        build(root)
    return sorted(nodes.values(), key=lambda n: (n.level, n.id))


def groups(documents: dict[str, list[str]], own_tree: int = OWN_TREE_CHUNKS) -> list[list[str]]:
    """The passages of each tree: a long document's alone, the short documents' together."""
    long = [chunks for _, chunks in sorted(documents.items()) if len(chunks) >= own_tree]
    short = [c for _, chunks in sorted(documents.items()) if len(chunks) < own_tree for c in chunks]
    return long + ([short] if short else [])


def by_document(rows: Sequence[tuple[str, str]]) -> dict[str, list[str]]:
    """(chunk id, document id) pairs grouped by document."""
    found: dict[str, list[str]] = defaultdict(list)
    for chunk, document in rows:
        found[document].append(chunk)
    return dict(found)

"""The RAPTOR tree's shape: planted clusters of vectors found as the first level, bounded in size, under
parents; names that follow what a summary covers; long documents with trees of their own; extractive
summaries from the most central members."""

from __future__ import annotations

import numpy as np

from graphwright.communities.extractive_summary import central_order, summarize
from graphwright.communities.passage_tree import MAX_CLUSTER, by_document, groups, knn_edges, tree


def planted(clusters: int, size: int, seed: int = 7) -> tuple[list[str], np.ndarray, dict[str, int]]:
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(clusters, 32))
    ids, rows, truth = [], [], {}
    for c in range(clusters):
        for i in range(size):
            vector = centres[c] + 0.15 * rng.normal(size=32)
            ids.append(f"c{c}-{i}")
            rows.append(vector / np.linalg.norm(vector))
            truth[ids[-1]] = c
    return ids, np.asarray(rows, dtype=np.float32), truth


def test_knn_edges_join_each_passage_to_its_nearest() -> None:
    ids, vectors, truth = planted(3, 6)
    edges = knn_edges(ids, vectors, neighbours=3)
    assert all(a < b for a, b, _ in edges) and all(0 < w <= 1.0 + 1e-6 for _, _, w in edges)
    assert sum(truth[a] == truth[b] for a, b, _ in edges) / len(edges) > 0.95, "neighbours are of the cluster"


def test_the_first_level_finds_planted_clusters_and_parents_cover_their_children() -> None:
    ids, vectors, truth = planted(6, 6)
    nodes = tree(ids, vectors)
    first = [n for n in nodes if n.level == 1]
    assert first and all(len(n.leaves) <= MAX_CLUSTER for n in first)
    # each first-level summary covers passages of one planted cluster
    assert all(len({truth[c] for c in n.leaves}) == 1 for n in first)
    by_id = {n.id: n for n in nodes}
    for node in nodes:
        below = {leaf for child in node.children for leaf in by_id[child].leaves} | set(node.chunks)
        assert below == set(node.leaves), "a summary covers exactly its children and its own passages"
        assert all(by_id[child].level < node.level for child in node.children)
    # the same passages give the same tree, names included; one passage changed renames what covers it
    assert [(n.id, n.leaves) for n in tree(ids, vectors)] == [(n.id, n.leaves) for n in nodes]
    renamed = [("x" + i if i == ids[0] else i) for i in ids]
    changed = {n.id for n in tree(renamed, vectors)}
    kept = {n.id for n in nodes if ids[0] not in n.leaves}
    assert kept <= changed and not {n.id for n in nodes if ids[0] in n.leaves} & changed


def test_long_documents_get_trees_of_their_own() -> None:
    pairs = [(f"a{i}", "long.pdf") for i in range(30)] + [("b0", "short-1.md"), ("b1", "short-2.md")]
    assert groups(by_document(pairs)) == [[f"a{i}" for i in range(30)], ["b0", "b1"]]
    assert tree(["only"], np.ones((1, 4), dtype=np.float32)) == []


def test_an_extractive_summary_opens_with_the_most_central_members() -> None:
    vectors = np.asarray([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0]], dtype=np.float32)
    assert central_order(vectors)[-1] == 2, "the outlier last"
    texts = [
        "Apollo 11 landed on the Moon. It carried three astronauts.",
        "Apollo 11 landed on the Moon. Armstrong stepped out first. He spoke.",
        "Saturn has rings.",
    ]
    text = summarize(texts, vectors, budget=20)
    assert text.startswith("Apollo 11 landed on the Moon.") and text.count("Apollo 11 landed") == 1
    assert "Saturn" not in text, "the budget is spent on the central members"

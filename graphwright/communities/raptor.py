"""Build the RAPTOR summary tree (Sarthi et al., 2024) of a workspace: passages clustered by meaning
(communities/passage_tree.py), each cluster summarized (extractively: communities/extractive_summary.py; with an
LLM, the broadest `budget` summaries by the LLM, communities/cluster_summary.py, each falling back to the
extractive one when the reply is unusable), the summaries clustered and summarized again; summaries stored with
their level and the passages they cover, vector- and fulltext-indexed, for the `raptor` search mode. A summary
is named by what it covers: one whose passages did not change is kept as it is (not summarized or embedded
again), so a rebuild after an ingest redoes only the trees of the documents that changed."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from graphwright.communities.cluster_summary import ClusterSummarizer
from graphwright.communities.extractive_summary import summarize
from graphwright.communities.passage_tree import TreeNode, by_document, groups, tree
from graphwright.embeddings import Embedder
from graphwright.graph_store.contracts import GraphStore
from graphwright.models import chunk_embedding_text

log = logging.getLogger(__name__)

Progress = Callable[[str, int, int], None]
_TITLE_NAMES = 3


@dataclass
class RaptorRun:
    """What a build did, for the CLI, the API and the benchmark."""

    passages: int = 0
    trees: int = 0
    summaries: int = 0
    kept: int = 0  # unchanged: neither summarized nor embedded again
    written: int = 0
    removed: int = 0
    by_llm: int = 0  # written by the LLM (the rest extractive)
    llm_failed: int = 0  # asked of the LLM, answered unusably: extractive instead
    levels: dict[int, int] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)


class RaptorBuilder:
    def __init__(
        self,
        store: GraphStore,
        embedder: Embedder,
        analyzer: str,
        writer: ClusterSummarizer | None = None,
        clustering: str = "leiden",
    ) -> None:
        self.store, self.embedder, self.analyzer, self.clustering = store, embedder, analyzer, clustering
        self.writer = writer  # the LLM's summaries, for the broadest nodes its budget covers

    def build(self, progress: Progress | None = None) -> RaptorRun:
        import numpy as np

        notify = progress or (lambda stage, done, total: None)
        run = RaptorRun()
        started = time.perf_counter()
        ids: list[str] = []
        pairs: list[tuple[str, str]] = []
        texts: dict[str, str] = {}
        vectors: list[list[float]] = []
        for row in self.store.summaries.chunk_vectors():
            ids.append(row["id"])
            pairs.append((row["id"], row["document_id"]))
            texts[row["id"]] = row["text"]
            vectors.append(row["embedding"])
        run.passages = len(ids)
        matrix = np.asarray(vectors, dtype=np.float32).reshape(len(ids), -1)
        del vectors
        position = {chunk: i for i, chunk in enumerate(ids)}
        run.seconds["read"] = time.perf_counter() - started

        started = time.perf_counter()
        nodes: list[TreeNode] = []
        trees = groups(by_document(pairs))
        for done, members in enumerate(trees, start=1):
            nodes += tree(members, matrix[[position[m] for m in members]], clustering=self.clustering)
            notify("cluster", done, len(trees))
        run.trees = len(trees)
        run.seconds["cluster"] = time.perf_counter() - started

        # Kept: a summary of the same passages with all its links, over kept summaries. A re-ingested
        # document's passages are written anew (same ids, links gone), so its summaries are made again even
        # where its text is the same, and so are their parents (a child written again loses its parent's link).
        stored = self.store.summaries.catalog()
        wanted = {n.id for n in nodes}
        redo: set[str] = set()
        for node in nodes:  # children before their parents
            if stored.get(node.id) != len(node.chunks) + len(node.children) or redo & set(node.children):
                redo.add(node.id)
        fresh = [n for n in nodes if n.id in redo]
        run.kept = len(nodes) - len(fresh)
        run.summaries = len(nodes)
        for node in nodes:
            run.levels[node.level] = run.levels.get(node.level, 0) + 1

        started = time.perf_counter()
        rows = self._summaries(fresh, texts, matrix, position, notify)
        run.by_llm = sum(r["method"] == "llm" for r in rows)
        run.llm_failed = self.writer.failed if self.writer is not None else 0
        run.seconds["summarize and embed"] = time.perf_counter() - started

        started = time.perf_counter()
        removed = sorted(set(stored) - wanted)
        redone = sorted(n.id for n in fresh if n.id in stored)  # written again whole, without stale links
        if rows or removed:
            self.store.summaries.ensure_schema(len(matrix[0]) if len(matrix) else 0, self.analyzer)
            self.store.summaries.write(
                removed + redone,
                rows,
                [{"summary": n.id, "member": c} for n in fresh for c in n.chunks],
                [{"summary": n.id, "member": c} for n in fresh for c in n.children],
            )
        run.written, run.removed = len(rows), len(removed)
        run.seconds["write"] = time.perf_counter() - started
        return run

    def _summaries(
        self,
        nodes: list[TreeNode],
        texts: dict[str, str],
        matrix: Any,
        position: dict[str, int],
        notify: Progress,
    ) -> list[dict[str, Any]]:
        """Summaries level by level (a parent reads its children's), embedded a level at a time."""
        import numpy as np

        summary_text: dict[str, str] = {}
        summary_vector: dict[str, Any] = {}
        known = self._stored_summaries({c for n in nodes for c in n.children} - {n.id for n in nodes})
        for key, (text, vector) in known.items():
            summary_text[key], summary_vector[key] = text, vector
        rows: list[dict[str, Any]] = []
        levels = sorted({n.level for n in nodes})
        # the LLM's budget goes to the broadest summaries: the top levels, the largest first
        broadest = sorted(nodes, key=lambda n: (-n.level, -len(n.leaves), n.id))
        by_llm = {n.id for n in broadest[: self.writer.budget]} if self.writer is not None else set()
        done = 0
        for level in levels:
            at_level = [n for n in nodes if n.level == level]
            members: dict[str, list[str]] = {}
            extractive: dict[str, str] = {}
            for node in at_level:
                member_texts = [texts[c] for c in node.chunks] + [summary_text[c] for c in node.children]
                member_vectors = [matrix[position[c]] for c in node.chunks] + [summary_vector[c] for c in node.children]
                members[node.id] = member_texts
                extractive[node.id] = summarize(member_texts, np.asarray(member_vectors))
            asked = [n.id for n in at_level if n.id in by_llm]
            llm_texts = self.writer.summaries({i: members[i] for i in asked}) if self.writer and asked else {}
            written: list[tuple[TreeNode, str, str, str]] = []
            for node in at_level:
                title = ", ".join(self.store.summaries.entity_names(node.leaves, _TITLE_NAMES))
                by_model = llm_texts.get(node.id)
                written.append((node, title, by_model or extractive[node.id], "llm" if by_model else "extractive"))
            embeddings = self.embedder.embed([chunk_embedding_text(title, text) for _, title, text, _ in written])
            for (node, title, text, method), vector in zip(written, embeddings):
                summary_text[node.id], summary_vector[node.id] = text, np.asarray(vector, dtype=np.float32)
                rows.append(
                    {
                        "id": node.id,
                        "level": node.level,
                        "title": title,
                        "text": text,
                        "method": method,
                        "n_chunks": len(node.leaves),
                        "embedding": vector,
                    }
                )
            done += len(at_level)
            notify("summarize", done, len(nodes))
        return rows

    def _stored_summaries(self, ids: set[str]) -> dict[str, tuple[str, Any]]:
        """Kept summaries a new parent reads: their text and vector, from the store."""
        if not ids:
            return {}
        import numpy as np

        found = self.store.summaries.texts_and_vectors(sorted(ids))
        return {key: (text, np.asarray(vector, dtype=np.float32)) for key, (text, vector) in found.items()}

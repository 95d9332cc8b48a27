"""Two ingest workers (separate CLI processes, at the same time) on disjoint shards of a corpus give the same
graph as one run over all of it: docs/scaling.md promises this."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.helpers import SPACE

pytestmark = pytest.mark.integration

GRAPH = {
    "documents": "MATCH (d:Document) RETURN d.id AS k, d.content_hash AS v",
    "chunks": "MATCH (c:Chunk)-[:PART_OF]->(d:Document) RETURN c.id AS k, d.id AS v",
    "next": "MATCH (a:Chunk)-[:NEXT]->(b:Chunk) RETURN a.id AS k, b.id AS v",
    "entities": "MATCH (e:Entity) RETURN e.id AS k, e.name + '|' + e.type AS v",
    "mentions": "MATCH (c:Chunk)-[:MENTIONS]->(e:Entity) RETURN c.id + '>' + e.id AS k, 1 AS v",
    "relations": "MATCH (a:Entity)-[r]->(b:Entity) WHERE NOT type(r) IN ['SIMILAR_TO'] "
    "RETURN a.id + '-' + type(r) + '->' + b.id AS k, r.chunk_ids AS v",
}


def _graph(rag) -> dict[str, dict]:
    out = {}
    for name, cypher in GRAPH.items():
        rows = rag.store.read(cypher)
        out[name] = {r["k"]: sorted(r["v"]) if isinstance(r["v"], list) else r["v"] for r in rows}
    return out


def test_two_workers_on_two_shards_build_the_graph_of_one_run(rag, cli_env, tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    files = sorted(p for p in SPACE.iterdir() if p.suffix == ".md")
    shards = [corpus / "a", corpus / "b"]
    for i, path in enumerate(files):
        shards[i % 2].mkdir(parents=True, exist_ok=True)
        shutil.copy(path, shards[i % 2] / path.name)

    report = rag.ingest([corpus], base=corpus, extractor="nlp", update_communities=False)
    assert report.ok and report.documents_written == len(files)
    one_run = _graph(rag)
    assert one_run["entities"] and one_run["relations"]

    rag.store.admin.reset()
    rag.init()
    workers = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "graphwright.cli",
                "ingest",
                str(shard),
                "--base",
                str(corpus),
                "--extractor",
                "nlp",
                "-q",
            ],
            env=cli_env,
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for shard in shards
    ]
    for worker in workers:
        out, err = worker.communicate(timeout=600)
        assert worker.returncode == 0, err
    assert _graph(rag) == one_run

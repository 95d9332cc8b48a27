"""Text-only ingest side by side with a peer, in one run on the same server and corpus: graphwright's
`ingest --extractor none` against neo4j-graphrag's own lexical-graph pipeline (its FixedSizeSplitter,
TextChunkEmbedder around SentenceTransformerEmbeddings with the same bundled model (where the torch extra is
installed; else the same model's ONNX export behind their Embedder interface), LexicalGraphBuilder and
Neo4jWriter), as chunks/s and their ratio.

Their writer MERGEs relationships with APOC (`apoc.merge.relationship`), which the local Neo4j built here does
not ship; the peer row uses their writer with that one query replaced by the same MERGE in plain Cypher (a
dynamic relationship type, Neo4j 5.26). Nodes are written by their own query.

    .venv/bin/python -m bench.lexical_peer --novels 3 --yes-reset [--record]

WARNING: empties the database NEO4J_URI points at before each row. The peer's splitter counts characters; it
is set to the characters of our average chunk (and our overlap), so both write about as many chunks.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from bench.ingest_novels import NOVELS
from bench.record import arguments, parse, record, torch_installed
from graphwright.api import GraphRAG
from graphwright.config import Settings
from graphwright.embeddings.onnx_export import bundled_model_dir


def ours(settings: Settings, folder: Path) -> tuple[int, float]:
    with GraphRAG(settings) as rag:
        rag.store.admin.reset()
        _ = rag.embedder.embed(["warm up"])  # model load is not ingest
        started = time.perf_counter()
        report = rag.ingest([folder], base=folder, extractor="none", update_communities=False)
        return report.chunks_written, time.perf_counter() - started


def _without_apoc(writer_class):
    class PlainWriter(writer_class):
        def _upsert_relationships(self, rels) -> None:
            self.driver.execute_query(
                "UNWIND $rows AS row "
                "MATCH (start:__KGBuilder__ {__tmp_internal_id: row.start_node_id}), "
                "      (end:__KGBuilder__ {__tmp_internal_id: row.end_node_id}) "
                "MERGE (start)-[rel:$(row.type)]->(end) SET rel += row.properties",
                parameters_={"rows": self._relationships_to_rows(rels)},
                database_=self.neo4j_database,
            )

    return PlainWriter


def peer_embedder():
    """Their SentenceTransformerEmbeddings with the bundled model where torch is installed; else the same
    model's ONNX export behind their Embedder interface, on a two-thread session as ONNX is usually run
    (their TextChunkEmbedder embeds one chunk per call)."""
    if torch_installed():
        from neo4j_graphrag.embeddings import SentenceTransformerEmbeddings

        return "sentence-transformers on torch", SentenceTransformerEmbeddings(model=str(bundled_model_dir()))
    from neo4j_graphrag.embeddings.base import Embedder

    from bench.embeddings import TwoThreads
    from graphwright.embeddings import OnnxEmbedder, default_cache_dir

    onnx = TwoThreads(OnnxEmbedder(default_cache_dir(), streams=1))

    class OnnxEmbeddings(Embedder):
        def embed_query(self, text: str) -> list[float]:
            return onnx.embed([text])[0]

    return "the bundled model on ONNX, 2 threads (no torch here)", OnnxEmbeddings()


def peer(settings: Settings, texts: dict[str, str], chunk_chars: int, overlap_chars: int) -> tuple[int, float, str]:
    from neo4j_graphrag.components.embedder import TextChunkEmbedder  # 1.22 moved them out of experimental
    from neo4j_graphrag.components.kg_writer import Neo4jWriter
    from neo4j_graphrag.components.lexical_graph import LexicalGraphBuilder
    from neo4j_graphrag.components.text_splitters.fixed_size_splitter import FixedSizeSplitter
    from neo4j_graphrag.components.types import DocumentInfo

    with GraphRAG(settings) as rag:
        rag.store.admin.reset()
        their, embedder = peer_embedder()
        embedder.embed_query("warm up")
        splitter = FixedSizeSplitter(chunk_size=chunk_chars, chunk_overlap=overlap_chars)
        chunk_embedder = TextChunkEmbedder(embedder=embedder)
        builder = LexicalGraphBuilder()
        writer = _without_apoc(Neo4jWriter)(rag.store.driver, neo4j_database=settings.neo4j_database)

        async def run() -> int:
            written = 0
            for name, text in texts.items():
                chunks = await splitter.run(text)
                embedded = await chunk_embedder.run(chunks)
                graph = await builder.run(embedded, DocumentInfo(path=name))
                result = await writer.run(graph.graph, graph.config)
                if result.status != "SUCCESS":
                    raise RuntimeError(f"neo4j-graphrag writer failed: {result.metadata}")
                written += len(embedded.chunks)
            return written

        started = time.perf_counter()
        written = asyncio.run(run())
        return written, time.perf_counter() - started, their


def main() -> None:
    parser = arguments(__doc__, resets=True)
    parser.add_argument("--novels", type=int, default=3)
    parser.add_argument("--data", type=Path, default=NOVELS, help="JSONL with a text field per line")
    args = parse(parser)
    lines = args.data.read_text(encoding="utf-8").splitlines()[: args.novels]
    texts = {f"novel-{i}.txt": json.loads(line)["text"] for i, line in enumerate(lines)}
    settings = Settings()
    console = Console(record=True, width=140)
    table = Table(
        title=f"text-only ingest of {len(texts)} novels ({sum(map(len, texts.values())) / 1e6:.1f} M "
        "chars), same server, one run"
    )
    for column in ("pipeline", "chunks", "s", "chunks/s", "vs neo4j-graphrag"):
        table.add_column(column, justify="left" if column == "pipeline" else "right")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for name, text in texts.items():
            (folder / name).write_text(text, encoding="utf-8")
        rows = []
        runs = [("graphwright (onnx, default)", "onnx", None)]
        if torch_installed():
            runs.append(("graphwright (torch, batch 64: before)", "torch", 64))
        for label, runtime, batch in runs:
            chunks, seconds = ours(
                settings.updated(**{"embedding_runtime": runtime, "embedding_batch_size": batch}), folder
            )
            rows.append((label, chunks, seconds))
        from graphwright.documents.chunking import chunk_text

        pieces = [c.text for t in texts.values() for c in chunk_text(t, settings.chunk_size, settings.chunk_overlap)]
        chars = round(sum(map(len, pieces)) / len(pieces))
        overlap = round(chars * settings.chunk_overlap / settings.chunk_size)
        chunks, seconds, their = peer(settings, texts, chars, overlap)
        rows.append(
            (f"neo4j-graphrag lexical pipeline ({chars} chars, overlap {overlap}; no APOC; {their})", chunks, seconds)
        )
        with GraphRAG(settings) as rag:
            rag.store.admin.reset()
    peer_rate = rows[-1][1] / rows[-1][2]
    for label, chunks, seconds in rows:
        rate = chunks / seconds
        table.add_row(label, str(chunks), f"{seconds:.1f}", f"{rate:.1f}", f"{rate / peer_rate:.2f}x")
    console.print(table)
    if args.record:
        record(
            "Text-only ingest against neo4j-graphrag's lexical pipeline",
            "bench.lexical_peer",
            console,
            "Ours also builds vector and fulltext indexes and NEXT/PART_OF links; the peer's writer builds no index",
        )


if __name__ == "__main__":
    main()

"""Neo4j batched-write rate against batch size (rows per UNWIND statement).

    .venv/bin/python -m bench.write_batches --yes-reset [--chunks 10000] [--entities 5000] [--record]

WARNING: empties the database NEO4J_URI points at before each batch size. Writes synthetic chunks (384-d
random embeddings, through `write_documents`: one transaction for all documents, as ingest groups them) and a
synthetic entity graph (through `write_graph`), and prints rows per second for each batch size.
"""

from __future__ import annotations

import argparse
import random
import time

from rich.console import Console
from rich.table import Table

from bench.record import record
from graphwright.config import Settings
from graphwright.graph_store import Neo4jStore
from graphwright.graph_store.schema import SchemaPlan
from graphwright.models import Chunk, Document
from tests.synthetic import planted_partition

_CHUNKS_PER_DOCUMENT = 500


def synthetic_documents(chunks: int, dimension: int, seed: int) -> list[tuple[Document, list[Chunk]]]:
    rng = random.Random(seed)
    items = []
    for d in range(max(1, chunks // _CHUNKS_PER_DOCUMENT)):
        document = Document(id=f"doc-{d}", source=f"doc-{d}.txt", title=f"Document {d}", text="", content_hash="h")
        items.append(
            (
                document,
                [
                    Chunk(
                        id=f"c_{d}_{i}",
                        document_id=document.id,
                        index=i,
                        n_tokens=100,
                        text=f"Synthetic passage {i} of document {d}. " * 10,
                        embedding=[rng.uniform(-1, 1) for _ in range(dimension)],
                    )
                    for i in range(_CHUNKS_PER_DOCUMENT)
                ],
            )
        )
    return items


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--batch", type=int, action="append", help="batch sizes (repeatable)")
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--entities", type=int, default=5_000)
    parser.add_argument("--yes-reset", action="store_true")
    parser.add_argument("--record", action="store_true")
    args = parser.parse_args()
    if not args.yes_reset:
        parser.error("this empties the database; pass --yes-reset")
    settings = Settings()
    store = Neo4jStore(
        settings.neo4j_uri, settings.neo4j_user, settings.neo4j_password.get_secret_value(), settings.neo4j_database
    )
    documents = synthetic_documents(args.chunks, 384, seed=1)
    n_chunks = sum(len(c) for _, c in documents)
    console = Console(record=True, width=120)
    table = Table(title=f"batched writes: {n_chunks:,} chunks, ~{args.entities:,} entities")
    for column in ("batch", "chunks s", "chunks/s", "entities", "relations", "graph s", "entities/s", "relations/s"):
        table.add_column(column, justify="right")
    for batch in args.batch or [10, 100, 500, 2000]:
        store.admin.reset()
        store.admin.ensure_schema(
            SchemaPlan(dimension=384, embedding_model="synthetic", analyzer=settings.fulltext_analyzer)
        )
        started = time.perf_counter()
        store.writes.write_documents(documents, batch_size=batch)
        chunk_seconds = time.perf_counter() - started
        entities, relations, _ = planted_partition(
            groups=max(1, args.entities // 50), size=50, chunk_id=documents[0][1][0].id, intra_degree=6, seed=2
        )
        started = time.perf_counter()
        store.writes.write_graph(entities, relations, batch_size=batch)
        graph_seconds = time.perf_counter() - started
        table.add_row(
            str(batch),
            f"{chunk_seconds:.1f}",
            f"{n_chunks / chunk_seconds:,.0f}",
            f"{len(entities):,}",
            f"{len(relations):,}",
            f"{graph_seconds:.1f}",
            f"{len(entities) / graph_seconds:,.0f}",
            f"{len(relations) / graph_seconds:,.0f}",
        )
    store.admin.reset()
    store.close()
    console.print(table)
    if args.record:
        record("Batched writes", "bench.write_batches", console)


if __name__ == "__main__":
    main()

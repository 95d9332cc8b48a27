"""What a hand merge costs: two entities with `--relations` relations each (half of their neighbours shared, so
half of the moved relations join one the survivor has), every relation backed by its own chunk. Times the
merge and its exact undo, each one transaction with its audit record, without the community update
(`communities=False`) and, in a second round, with it (the graph then has communities). Synthetic vectors: the
embedder's speed is not what is measured (the survivor's one new embedding is, by the real embedder).
Empties the database first.

    .venv/bin/python -m bench.curation --yes-reset --relations 1000
"""

from __future__ import annotations

import hashlib
import random
import statistics
import time

from rich.console import Console
from rich.table import Table

from bench.record import arguments, parse, record
from graphwright.api import GraphRAG
from graphwright.config import Settings
from graphwright.models import Chunk, Document, Entity, Relation
from graphwright.text.normalize import entity_id, normalize_key

CHUNKS_PER_DOCUMENT = 20


def _vector(rng: random.Random, dimension: int) -> list[float]:
    values = [rng.gauss(0, 1) for _ in range(dimension)]
    norm = sum(v * v for v in values) ** 0.5
    return [v / norm for v in values]


def build(rag: GraphRAG, relations: int) -> None:
    """Documents of chunks, entities A and B, and `relations` neighbours each (the middle half shared)."""
    rng = random.Random(7)
    dimension = rag.embedder.dimension
    neighbours = relations + relations // 2  # A: 0..relations-1, B: relations/2..relations*1.5-1
    names = {"A": "Alpha Holdings", "B": "Alpha Holdings Group"} | {
        str(i): f"Entity {i:05d}" for i in range(neighbours)
    }
    chunk_ids = [f"c_bench_{i:05d}" for i in range(neighbours)]
    by_document: dict[int, list[Chunk]] = {}
    for i, chunk in enumerate(chunk_ids):
        d = i // CHUNKS_PER_DOCUMENT
        text = f"{names['A']} and {names['B']} work with {names[str(i)]}."
        by_document.setdefault(d, []).append(
            Chunk(
                id=chunk,
                document_id=f"bench-{d}",
                index=i % CHUNKS_PER_DOCUMENT,
                text=text,
                n_tokens=12,
                embedding=_vector(rng, dimension),
            )
        )
    entities = []
    for key, name in names.items():
        mentions = {chunk_ids[int(key)]: 1} if key.isdigit() else {}
        entities.append(
            Entity(
                id=entity_id(normalize_key(name)),
                name=name,
                type="ORGANIZATION",
                label="Organization",
                mentions=mentions,
                embedding=_vector(rng, dimension),
            )
        )
    a, b = entities[0], entities[1]
    a.mentions = {c: 1 for c in chunk_ids[:relations]}
    b.mentions = {c: 1 for c in chunk_ids[relations // 2 : relations // 2 + relations]}
    rows = []
    for i in range(neighbours):
        other = entities[2 + i]
        for owner in (a, b):
            if chunk_ids[i] in owner.mentions:
                rows.append(
                    Relation(
                        source_id=owner.id,
                        target_id=other.id,
                        type="WORKS_WITH",
                        chunk_ids=[chunk_ids[i]],
                        chunk_weights=[1.0],
                        evidence=[f"{owner.name} works with {other.name}."],
                    )
                )
    items = []
    for d, chunks in by_document.items():
        text = " ".join(c.text for c in chunks)
        items.append(
            (
                Document(
                    id=f"bench-{d}",
                    source=f"bench-{d}",
                    title=f"bench {d}",
                    text="",
                    content_hash=hashlib.sha256(text.encode()).hexdigest(),
                ),
                chunks,
            )
        )
    rag.store.writes.write_documents(items, entities=entities, relations=rows)


def _degrees(rag: GraphRAG) -> tuple[int, int]:
    rows = rag.store.read(
        "MATCH (e:Entity) WHERE e.name IN ['Alpha Holdings', 'Alpha Holdings Group'] "
        "RETURN e.name AS n, COUNT { (e)-[]-(:Entity) } AS d"
    )
    found = {r["n"]: r["d"] for r in rows}
    return found.get("Alpha Holdings", 0), found.get("Alpha Holdings Group", 0)


def main() -> None:
    parser = arguments(__doc__, resets=True)
    parser.add_argument("--relations", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parse(parser)
    console = Console(record=True, width=120)
    with GraphRAG(Settings()) as rag:
        rag.store.admin.reset()
        rag.init()
        build(rag, args.relations)
        before = _degrees(rag)
        console.print(f"A and B: {before[0]} and {before[1]} relations; {rag.inspect.stats()}")
        rag.embedder.embed(["warm up"])
        table = Table("communities updated", "merge s (median)", "undo s (median)", "runs", "survivor relations")
        for with_communities in (False, True):
            if with_communities:
                rag.build_communities()
            curation = rag.curation(who="bench", communities=with_communities)
            merges, undos, after = [], [], (0, 0)
            for _ in range(args.repeats):
                started = time.perf_counter()
                curation.merge("Alpha Holdings", "Alpha Holdings Group")
                merges.append(time.perf_counter() - started)
                after = _degrees(rag)
                started = time.perf_counter()
                curation.undo()
                undos.append(time.perf_counter() - started)
                if _degrees(rag) != before or rag.inspect.check():
                    raise SystemExit("undo did not give the graph back")
            table.add_row(
                "yes" if with_communities else "no",
                f"{statistics.median(merges):.2f}",
                f"{statistics.median(undos):.2f}",
                " / ".join(f"{m:.2f}+{u:.2f}" for m, u in zip(merges, undos)),
                str(after[1]),
            )
        console.print(table)
    if args.record:
        record(
            f"Curation: a merge of two entities with {args.relations} relations each, and its undo",
            "bench.curation",
            console,
        )


if __name__ == "__main__":
    main()

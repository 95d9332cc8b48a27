"""Community detection + reports + write on synthetic planted-partition graphs (about 3 relations per
entity), and the community levels of whatever graph is loaded (e.g. the novels) with --current.

    .venv/bin/python -m bench.communities --entities 10000 --entities 100000 --yes-reset [--record]
    .venv/bin/python -m bench.communities --current [--record]      # no reset: the graph as it is
    .venv/bin/python -m bench.communities --detect-only --entities 10000 --entities 100000   # no database

WARNING: without --current it empties the database NEO4J_URI points at.
"""

from __future__ import annotations

import argparse
import resource
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from bench.ingest_novels import server_peak_mib
from bench.record import record
from graphwright.api import GraphRAG
from graphwright.config import Settings
from tests.synthetic import planted_partition

_WRITE_BATCH = 10_000


def load_synthetic(rag: GraphRAG, n: int, tmp: Path) -> tuple[int, int, float]:
    rag.store.admin.reset()
    (tmp / "support.md").write_text("Synthetic support text.", encoding="utf-8")
    rag.ingest([tmp / "support.md"], base=tmp, extractor="none")
    chunk = rag.store.retrieval.get_document("support.md")["chunks"][0]["id"]
    entities, relations, _ = planted_partition(
        groups=n // 100, size=100, chunk_id=chunk, intra_degree=5.6, inter_degree=0.4, seed=11
    )
    started = time.perf_counter()
    for start in range(0, len(entities), _WRITE_BATCH):
        rag.store.writes.write_graph(entities[start : start + _WRITE_BATCH], [])
    for start in range(0, len(relations), _WRITE_BATCH):
        rag.store.writes.write_graph([], relations[start : start + _WRITE_BATCH])
    return len(entities), len(relations), time.perf_counter() - started


def detect_only(sizes: list[int], max_cluster_size: int, console: Console) -> Table:
    """Detection alone, in memory: graspologic's native hierarchical Leiden, our stable detection from scratch,
    and our incremental detection after one new entity joins, on the same planted graphs."""
    import graspologic_native as gn

    from graphwright.communities.leiden import PreviousCommunity, detect

    table = Table(title=f"detection only, in memory (max cluster size {max_cluster_size})")
    for column in (
        "entities",
        "relations",
        "communities",
        "native hierarchical_leiden s",
        "detect (full) s",
        "detect (incremental, one new entity) s",
        "ids changed",
        "new member sets",
    ):
        table.add_column(column, justify="right")
    for n in sizes:
        entities, relations, _ = planted_partition(
            groups=n // 100, size=100, chunk_id="c", intra_degree=5.6, inter_degree=0.4, seed=11
        )
        edges = sorted({(min(r.source_id, r.target_id), max(r.source_id, r.target_id), 1.0) for r in relations})
        started = time.perf_counter()
        gn.hierarchical_leiden(edges, max_cluster_size=max_cluster_size, seed=42)
        native = time.perf_counter() - started
        started = time.perf_counter()
        found = detect(edges, max_cluster_size, 42)
        full = time.perf_counter() - started
        previous = [PreviousCommunity(c.id, c.level, tuple(c.members), c.parent, c.graph_hash) for c in found]
        started = time.perf_counter()
        after = detect([*edges, ("newcomer", edges[0][0], 1.0)], max_cluster_size, 42, previous)
        incremental = time.perf_counter() - started
        changed = len({c.id for c in found} ^ {c.id for c in after})
        sets = len({tuple(c.members) for c in after} - {tuple(c.members) for c in found})
        table.add_row(
            f"{len(entities):,}",
            f"{len(edges):,}",
            f"{len(found):,}",
            f"{native:.1f}",
            f"{full:.1f}",
            f"{incremental:.1f}",
            str(changed),
            str(sets),
        )
    console.print(table)
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--entities", type=int, action="append")
    parser.add_argument("--current", action="store_true", help="measure the graph already loaded")
    parser.add_argument("--detect-only", action="store_true", help="time detection in memory, no database")
    parser.add_argument("--max-cluster-size", type=int, default=10)
    parser.add_argument("--yes-reset", action="store_true")
    parser.add_argument("--record", action="store_true")
    args = parser.parse_args()
    if args.detect_only:
        console = Console(record=True, width=140)
        detect_only(args.entities or [10_000], args.max_cluster_size, console)
        if args.record:
            record("Community detection in memory", "bench.communities", console)
        return
    if not args.current and not args.yes_reset:
        parser.error("this empties the database; pass --yes-reset (or --current)")
    settings = Settings()
    rag = GraphRAG(settings)
    _ = rag.embedder.dimension
    console = Console(record=True, width=140)
    table = Table(title=f"communities (max cluster size {args.max_cluster_size}, extractive reports)")
    for column in (
        "graph",
        "entities",
        "relations",
        "levels (communities per level)",
        "detect s",
        "reports s",
        "embed s",
        "write s",
        "client peak MiB",
        "Neo4j peak MiB",
    ):
        table.add_column(column, justify="right")
    extra: list[str] = []
    sizes = [] if args.current else (args.entities or [10_000])
    for n in sizes + (["current"] if args.current else []):
        if n == "current":
            counts = rag.inspect.stats()
            ents, rels, label = counts["entities"], counts["relations"], "current"
            rag.store.connection.write("MATCH (c:Community) DETACH DELETE c")
        else:
            import tempfile

            with tempfile.TemporaryDirectory() as tmp:
                ents, rels, load_s = load_synthetic(rag, n, Path(tmp))
            label = f"planted {n:,}"
            extra.append(f"{label}: graph written in {load_s:.0f}s (not counted)")
        run = rag.build_communities(max_cluster_size=args.max_cluster_size, seed=42)
        levels = ", ".join(f"L{k}: {v:,}" for k, v in sorted(run.levels.items()))
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        server = server_peak_mib(settings)
        print(
            f"{label}: {ents} entities, {rels} relations, {levels}; detect {run.detect_seconds:.1f}s, reports "
            f"{run.report_seconds:.1f}s, embed {run.embed_seconds:.1f}s, write {run.write_seconds:.1f}s, "
            f"client peak {peak:.0f} MiB, Neo4j peak {server} MiB",
            flush=True,
        )
        table.add_row(
            label,
            f"{ents:,}",
            f"{rels:,}",
            levels,
            f"{run.detect_seconds:.1f}",
            f"{run.report_seconds:.1f}",
            f"{run.embed_seconds:.1f}",
            f"{run.write_seconds:.1f}",
            f"{peak:.0f}",
            f"{server:.0f}" if server else "n/a",
        )
        if n == "current":
            top = rag.store.communities.communities(level=0, limit=5)
            extra.append(
                "five largest level-0 communities: " + "; ".join(f"{c['title']} ({c['size']} members)" for c in top)
            )
    rag.close()
    console.print(table)
    for line in extra:
        console.print(line)
    if args.record:
        what = "current graph" if args.current else "synthetic graphs"
        record(f"Communities on the {what}", "bench.communities", console)


if __name__ == "__main__":
    main()

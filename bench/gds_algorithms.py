"""Graph algorithms in the client and in Neo4j Graph Data Science on one graph (issue 65): a full community
detection (seconds, peak memory of the process, modularity, communities per level) and the walk (local
search p50/p95, and whether it ranks the same passages), each engine in a child process of its own, so the
peak memory is that engine's alone.

    GRAPHWRIGHT_NEO4J_GDS=true graphwright db start      # or: graphwright db start --gds
    .venv/bin/python -m bench.gds_algorithms [--workspace W] [--record]

Reads only: the graph of the workspace is left as it is (detection is not written)."""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from bench.ingest_novels import latency_questions, mode_latency
from bench.record import arguments, parse, record

ENGINES = ("client", "gds")


def _server_rss_mib(home: Path) -> tuple[float, float]:
    """The Neo4j process's resident memory now and at its peak so far."""
    now = peak = 0.0
    try:
        pid = int((home / "neo4j" / "neo4j.pid").read_text().strip())
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                now = int(line.split()[1]) / 1024
            elif line.startswith("VmHWM:"):
                peak = int(line.split()[1]) / 1024
    except (OSError, ValueError):
        pass
    return now, peak


def child(engine: str, workspace: str | None) -> dict[str, Any]:
    from graphwright.algorithms import graph_algorithms
    from graphwright.api import GraphRAG
    from graphwright.communities.leiden import detect, modularity
    from graphwright.config import Settings

    settings = Settings(graph_algorithms=engine, **({"workspace": workspace} if workspace else {}))
    with GraphRAG(settings) as rag:
        started = time.perf_counter()
        edges = rag.store.communities.entity_edges()
        read_seconds = time.perf_counter() - started
        algorithms = graph_algorithms(settings, rag.store)
        assert algorithms.name == engine, algorithms.name
        started = time.perf_counter()
        detected = detect(edges, 10, 42, (), algorithms)
        detect_seconds = time.perf_counter() - started
        detect_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        level0 = {m: c.id for c in detected if c.level == 0 for m in c.members}
        levels: dict[int, int] = {}
        for c in detected:
            levels[c.level] = levels.get(c.level, 0) + 1
        questions = latency_questions(rag.store.graph.top_entities(12))
        _cold, p50, p95 = mode_latency(rag, "local", questions)
        rankings = [[c.chunk_id for c in rag.search(q, mode="local", generate=False).chunks] for q in questions]
        return {
            "engine": engine,
            "nodes": len({n for a, b, _ in edges for n in (a, b)}),
            "edges": len(edges),
            "read_seconds": read_seconds,
            "detect_seconds": detect_seconds,
            "detect_peak_mib": detect_peak,
            "modularity": modularity(edges, level0),
            "levels": levels,
            "communities": sorted(c.id for c in detected),
            "local_p50": p50,
            "local_p95": p95,
            "rankings": rankings,
            "server_mib": _server_rss_mib(settings.home),
        }


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--workspace", default=None, help="the workspace whose graph is measured")
    parser.add_argument("--child", choices=ENGINES, help=argparse.SUPPRESS)
    args = parse(parser)
    if args.child:
        print(json.dumps(child(args.child, args.workspace)))
        return
    results = {}
    for engine in ENGINES:
        command = [sys.executable, "-m", "bench.gds_algorithms", "--child", engine]
        command += ["--workspace", args.workspace] if args.workspace else []
        done = subprocess.run(command, capture_output=True, text=True, check=True)
        results[engine] = json.loads(done.stdout.strip().splitlines()[-1])
    client, gds = results["client"], results["gds"]
    console = Console(record=True, width=150)
    table = Table(
        title=f"graph algorithms: client vs Neo4j GDS on one graph ({client['nodes']:,} entities with relations, "
        f"{client['edges']:,} weighted pairs)"
    )
    for column in (
        "engine",
        "detect s",
        "process peak MiB",
        "modularity (level 0)",
        "communities per level",
        "local p50/p95 ms",
        "Neo4j RSS / peak MiB after",
    ):
        table.add_column(column, justify="right")
    for r in (client, gds):
        table.add_row(
            r["engine"],
            f"{r['detect_seconds']:.1f}",
            f"{r['detect_peak_mib']:.0f}",
            f"{r['modularity']:.4f}",
            ", ".join(f"L{k}: {v:,}" for k, v in sorted(r["levels"].items(), key=lambda kv: int(kv[0]))),
            f"{r['local_p50']:.0f}/{r['local_p95']:.0f}",
            f"{r['server_mib'][0]:.0f} / {r['server_mib'][1]:.0f}",
        )
    console.print(table)
    same = sum(a == b for a, b in zip(client["rankings"], gds["rankings"]))
    shared = len(set(client["communities"]) & set(gds["communities"]))
    ratio = gds["modularity"] / client["modularity"] if client["modularity"] else 1.0
    console.print(
        f"local search: the same passages in the same order for {same} of {len(client['rankings'])} questions; "
        f"modularity GDS / client {ratio:.4f}; communities with identical members {shared:,} of "
        f"{len(client['communities']):,} (client) and {len(gds['communities']):,} (GDS); reading the graph "
        f"{client['read_seconds']:.1f} s (both)"
    )
    if args.record:
        record(
            "Graph algorithms in the client and in Neo4j GDS",
            "bench.gds_algorithms",
            console,
            headline=f"detection {client['detect_seconds']:.1f} s client vs {gds['detect_seconds']:.1f} s GDS, "
            f"modularity ratio {ratio:.3f}, local p50 {client['local_p50']:.0f} vs {gds['local_p50']:.0f} ms",
        )


if __name__ == "__main__":
    main()

"""Offline ingest of ../shared/eval/novels/novels.jsonl with the entity graph (NLP extractor) and
communities, then query latency per search mode on the graph it built.

    .venv/bin/python -m bench.ingest_novels --count 1 --count 5 --count 20 --yes-reset [--record]

WARNING: empties the database NEO4J_URI points at before each size. For each --count N (first N novels) it
prints words, chunks, entities and relations written, ingest and community seconds, rates, peak RSS of this
process and of the local Neo4j server, the five most-connected entities (a sanity check a reader can judge),
and each mode's latency: its first search on the new graph (cold), then p50/p95 over questions about the
graph's own entities, asked twice (warm; no LLM). The embedding
floor is the same chunks embedded alone by the same embedder, in the same run, after the ingest: the least
an ingest of them can take on this machine; "x floor" is ingest plus communities over it. Busy seconds by
stage come from the ingest report (the chunks are embedded while they are parsed, so stages overlap).
"""

from __future__ import annotations

import argparse
import json
import resource
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from bench.record import record
from graphwright.api import GraphRAG
from graphwright.cli.common import short_gil_turns
from graphwright.config import Settings
from graphwright.documents.chunking import make_chunks
from graphwright.documents.loaders import load_paths

STAGES = ("embed chunks", "extract", "resolve", "embed entities", "write", "synonyms")
NOVELS = Path(__file__).resolve().parents[1].parent / "shared" / "eval" / "novels" / "novels.jsonl"


def server_peak_mib(settings: Settings) -> float | None:
    try:
        pid = int((settings.home / "neo4j" / "neo4j.pid").read_text().strip())
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except (OSError, ValueError):
        return None
    return None


LATENCY_MODES = ("vector", "hybrid", "local", "global", "path")
LATENCY_ROUNDS = 2  # 14 questions alone make p95 their slowest one


def embedding_floor(rag: GraphRAG, path: Path) -> float:
    """Seconds to embed the ingest's own chunks alone: loaded and chunked as the ingest does (outside the
    timing), then embedded by the same embedder with nothing else running."""
    loaded = load_paths([path], path.parent)
    settings = rag.settings
    texts = [
        c.embedding_text for d in loaded.documents for c in make_chunks(d, settings.chunk_size, settings.chunk_overlap)
    ]
    started = time.perf_counter()
    rag.embedder.embed(texts)
    return time.perf_counter() - started


def latency_questions(top: Sequence[Mapping[str, Any]]) -> list[str]:
    """Questions about the graph's own most-connected entities, so every mode has something to find."""
    names = [t["name"] for t in top]
    questions = [f"What happens to {n}?" for n in names[:8]]
    questions += [f"How is {a} connected to {b}?" for a, b in zip(names[:8:2], names[1:8:2])]
    return questions + ["What are the main themes of these books?", "Who travels by sea?"]


def mode_latency(rag: GraphRAG, mode: str, questions: list[str]) -> tuple[float, float, float]:
    """The first search of the mode on the new graph (cold: Neo4j plans its queries, reads its pages), then
    p50/p95 of the questions asked twice over (warm; nothing in graphwright caches a search's result)."""
    from graphwright.evaluation.metrics import percentile

    def timed(question: str) -> float:
        started = time.perf_counter()
        rag.search(question, mode=mode, generate=False)  # type: ignore[arg-type]
        return (time.perf_counter() - started) * 1000

    first = timed(f"Who is {questions[0].split()[-1]}")  # not one of the timed questions
    times = [timed(question) for _ in range(LATENCY_ROUNDS) for question in questions]
    return first, percentile(times, 0.5), percentile(times, 0.95)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=NOVELS)
    parser.add_argument("--count", type=int, action="append", help="number of novels (repeatable)")
    parser.add_argument("--extractor", default="nlp")
    parser.add_argument("--yes-reset", action="store_true")
    parser.add_argument("--record", action="store_true")
    args = parser.parse_args()
    if not args.yes_reset:
        parser.error("this empties the database; pass --yes-reset")
    records = [json.loads(line) for line in args.data.read_text(encoding="utf-8").splitlines() if line.strip()]
    settings = Settings()
    rag = GraphRAG(settings)
    _ = rag.embedder.dimension
    console = Console(record=True, width=190)
    table = Table(title=f"offline ingest of novels ({args.extractor} extractor)")
    for column in (
        "novels",
        "words",
        "chunks",
        "entities",
        "relations",
        "ingest s",
        "communities s",
        "total s",
        "docs/s",
        "chunks/s",
        "entities/s",
        "relations/s",
        "client peak MiB",
        "Neo4j peak MiB",
        "floor s",
        "x floor",
    ):
        table.add_column(column, justify="right")
    stages = Table(title="where the ingest's seconds went (busy seconds by stage; embedding overlaps the parse)")
    for column in ("novels", "ingest s", *STAGES):
        stages.add_column(column, justify="right")
    latency = Table(title="query latency on that graph (ms, no LLM, embedding included)")
    for column in ("novels", "questions", *(f"{m} first/p50/p95" for m in LATENCY_MODES)):
        latency.add_column(column, justify="right")
    tops = []
    for count in args.count or [1]:
        subset = records[:count]
        rag.store.admin.reset()
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "novels.jsonl"
            path.write_text("".join(json.dumps(r) + "\n" for r in subset), encoding="utf-8")
            started = time.perf_counter()
            with short_gil_turns():  # as `graphwright ingest` and `index` run it
                report = rag.ingest([path], extractor=args.extractor)
            seconds = time.perf_counter() - started
            floor = embedding_floor(rag, path)
        started = time.perf_counter()
        rag.build_communities()
        community_seconds = time.perf_counter() - started
        counts = rag.inspect.stats()
        words = sum(len(r["text"].split()) for r in subset)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        server = server_peak_mib(settings)
        total = seconds + community_seconds
        table.add_row(
            str(count),
            f"{words:,}",
            f"{counts['chunks']:,}",
            f"{counts['entities']:,}",
            f"{counts['relations']:,}",
            f"{seconds:.0f}",
            f"{community_seconds:.0f}",
            f"{total:.0f}",
            f"{count / total:.3f}",
            f"{counts['chunks'] / seconds:.1f}",
            f"{report.entities_written / seconds:.1f}",
            f"{report.relations_written / seconds:.1f}",
            f"{peak:.0f}",
            f"{server:.0f}" if server else "n/a",
            f"{floor:.0f}",
            f"{total / floor:.2f}",
        )
        stages.add_row(str(count), f"{seconds:.0f}", *(f"{report.stage_seconds.get(s, 0.0):.1f}" for s in STAGES))
        tops.append((count, rag.store.graph.top_entities(5)))
        questions = latency_questions(rag.store.graph.top_entities(12))
        timed = [mode_latency(rag, mode, questions) for mode in LATENCY_MODES]
        asked = f"{len(questions)} x {LATENCY_ROUNDS}"
        latency.add_row(str(count), asked, *(f"{first:.0f}/{p50:.0f}/{p95:.0f}" for first, p50, p95 in timed))
    rag.close()
    console.print(table)
    console.print(stages)
    console.print(latency)
    for count, top in tops:
        console.print(
            f"most connected entities, {count} novel(s): "
            + "; ".join(f"{t['name']} ({t['type'].lower()}, degree {t['degree']}, {t['chunks']} chunks)" for t in top)
        )
    if args.record:
        record(
            "Offline ingest of the novels",
            "bench.ingest_novels",
            console,
            "'entities/s' and 'relations/s' count rows written per group (an entity seen in several groups "
            "counts each time); the entities/relations columns are the final graph; docs/s counts ingest "
            "and communities",
        )


if __name__ == "__main__":
    main()

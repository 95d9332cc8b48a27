"""The cost curve: grow one graph to --sizes chunks (default 1k, 10k, 30k, 100k) with the offline extractor
and measure, at each size, the ingest seconds per 1k chunks of the step that reached it, the store on disk,
client and server memory, p50/p95 of vector, hybrid and local, and a full community detection.

    .venv/bin/python -m bench.cost_curve --yes-reset [--sizes 1000,10000,30000,100000] [--record]
    .venv/bin/python -m bench.cost_curve --resume --sizes 100000 [--record]

`--resume` grows the graph an earlier run left (its documents are the stream's first ones) to the sizes above
its chunk count instead of starting empty, so the largest size need not repeat the smaller ones' ingest.

WARNING: empties the database NEO4J_URI points at. The text is the shared novels, then copies of them whose
names are made distinct (every capitalised word of copy k gets a suffix of its own), so past the 20 novels
(~10k chunks) the entity graph keeps growing instead of repeating the same names.
"""

from __future__ import annotations

import json
import re
import resource
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from rich.console import Console
from rich.table import Table

from bench.ingest_novels import NOVELS, latency_questions, mode_latency, server_peak_mib
from bench.record import arguments, parse, record
from graphwright.api import GraphRAG
from graphwright.config import Settings

MODES = ("vector", "hybrid", "local")
_NAME = re.compile(r"\b([A-Z][a-z]{2,})\b")
_SYLLABLES = ["ka", "lo", "mi", "ren", "tor", "vas", "el", "quin", "dar", "sul"]


def suffix(copy: int) -> str:
    """A pronounceable suffix per copy: 1 -> "lo", 12 -> "loka"..., so copy k's names are its own."""
    out = ""
    while copy:
        copy, digit = divmod(copy, len(_SYLLABLES))
        out += _SYLLABLES[digit]
    return out


def documents(novels: list[dict]) -> Iterator[tuple[str, str]]:
    """(id, text) without end: the novels, then renamed copies of them."""
    copy = 0
    while True:
        tail = suffix(copy)
        for i, novel in enumerate(novels):
            text = novel["text"] if copy == 0 else _NAME.sub(lambda m: m.group(1) + tail, novel["text"])  # noqa: B023
            yield f"copy{copy}-novel{i}", text
        copy += 1


def store_bytes(settings: Settings) -> int:
    data = settings.home / "neo4j" / "data"
    return sum(p.stat().st_size for p in data.rglob("*") if p.is_file()) if data.is_dir() else 0


def latency(rag: GraphRAG, mode: str, questions: list[str]) -> tuple[float, float]:
    rag.search(questions[1], mode=mode, generate=False)  # type: ignore[arg-type]  # more warm-up at this size
    _cold, p50, p95 = mode_latency(rag, mode, questions)  # its first search warms the planner's plans
    return p50, p95


def main() -> None:
    parser = arguments(__doc__, resets=True)
    parser.add_argument("--sizes", default="1000,10000,30000,100000", help="chunk counts to measure at")
    parser.add_argument("--data", type=Path, default=NOVELS, help="JSONL with a text field per line")
    parser.add_argument("--batch", type=int, default=4, help="documents per ingest call")
    parser.add_argument("--resume", action="store_true", help="grow the graph an earlier run left; no reset")
    args = parse(parser)
    sizes = sorted(int(s) for s in args.sizes.split(","))
    novels = [json.loads(line) for line in args.data.read_text(encoding="utf-8").splitlines() if line.strip()]
    settings = Settings()
    console = Console(record=True, width=150)
    progress = Console(stderr=True)  # the growing count, kept out of what --record writes
    table = Table(title="the cost curve: one graph grown step by step (nlp extractor, no LLM)")
    for column in (
        "chunks",
        "entities",
        "relations",
        "ingest s per 1k chunks",
        "store MiB",
        "client peak MiB",
        "Neo4j peak MiB",
        *(f"{m} p50/p95 ms" for m in MODES),
        "communities s",
    ):
        table.add_column(column, justify="right")
    source = documents(novels)
    with GraphRAG(settings) as rag, tempfile.TemporaryDirectory() as tmp:
        if args.resume:
            counts = rag.inspect.stats()
            for _ in range(counts["documents"]):  # the stream's documents the graph already holds
                next(source)
            chunks = counts["chunks"]
        else:
            rag.store.admin.reset()
            rag.init()
            chunks = 0
        for size in (s for s in sizes if s > chunks):
            step_chunks, step_seconds = 0, 0.0
            while chunks < size:
                folder = Path(tmp) / f"step{chunks}"
                folder.mkdir()
                for _ in range(args.batch):
                    name, text = next(source)
                    (folder / f"{name}.txt").write_text(text, encoding="utf-8")
                started = time.perf_counter()
                report = rag.ingest([folder], base=folder, update_communities=False)
                step_seconds += time.perf_counter() - started
                step_chunks += report.chunks_written
                chunks = rag.inspect.stats()["chunks"]
                progress.log(f"{chunks:,} chunks")
            started = time.perf_counter()
            rag.build_communities(full=True)
            communities = time.perf_counter() - started
            counts = rag.inspect.stats()
            questions = latency_questions(rag.store.graph.top_entities(12))
            timed = [latency(rag, mode, questions) for mode in MODES]
            table.add_row(
                f"{counts['chunks']:,}",
                f"{counts['entities']:,}",
                f"{counts['relations']:,}",
                f"{1000 * step_seconds / max(1, step_chunks):.1f}",
                f"{store_bytes(settings) / 2**20:.0f}",
                f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f}",
                f"{server_peak_mib(settings) or 0:.0f}",
                *(f"{p50:.0f}/{p95:.0f}" for p50, p95 in timed),
                f"{communities:.0f}",
            )
    console.print(table)
    if args.record:
        record("The cost curve", "bench.cost_curve", console)


if __name__ == "__main__":
    main()

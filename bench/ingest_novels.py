"""Offline ingest of ../shared/eval/novels/novels.jsonl with the entity graph (NLP extractor).

    .venv/bin/python -m bench.ingest_novels --count 1 --count 5 --yes-reset [--record]

WARNING: empties the database NEO4J_URI points at before each size. For each --count N (first N novels) it
prints words, chunks, entities and relations written, seconds, rates, peak RSS of this process and of the
local Neo4j server, and the five most-connected entities (a sanity check a reader can judge).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import resource
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from bench.ingest_sample import machine
from graphwright.api import GraphRAG
from graphwright.config import Settings

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
    console = Console(record=True, width=140)
    table = Table(title=f"offline ingest of novels ({args.extractor} extractor)")
    for column in ("novels", "words", "chunks", "entities", "relations", "seconds", "chunks/s", "entities/s",
                   "relations/s", "client peak MiB", "Neo4j peak MiB"):
        table.add_column(column, justify="right")
    tops = []
    for count in args.count or [1]:
        subset = records[:count]
        rag.store.reset()
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "novels.jsonl"
            path.write_text("".join(json.dumps(r) + "\n" for r in subset), encoding="utf-8")
            started = time.perf_counter()
            report = rag.ingest([path], extractor=args.extractor)
            seconds = time.perf_counter() - started
        counts = rag.stats()
        words = sum(len(r["text"].split()) for r in subset)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        server = server_peak_mib(settings)
        table.add_row(str(count), f"{words:,}", f"{counts['chunks']:,}", f"{counts['entities']:,}",
                      f"{counts['relations']:,}", f"{seconds:.0f}", f"{counts['chunks'] / seconds:.1f}",
                      f"{report.entities_written / seconds:.1f}", f"{report.relations_written / seconds:.1f}",
                      f"{peak:.0f}", f"{server:.0f}" if server else "n/a")
        tops.append((count, rag.store.top_entities(5)))
    rag.close()
    console.print(table)
    for count, top in tops:
        console.print(f"most connected entities, {count} novel(s): " + "; ".join(
            f"{t['name']} ({t['type'].lower()}, degree {t['degree']}, {t['chunks']} chunks)" for t in top))
    if args.record:
        counts_arg = " ".join(f"--count {c}" for c in args.count or [1])
        with open("docs/benchmarks.md", "a", encoding="utf-8") as handle:
            handle.write(f"\n### Offline ingest of the novels, {dt.date.today().isoformat()}\n\nMachine: {machine()}. "
                         f"Command: `.venv/bin/python -m bench.ingest_novels {counts_arg} --yes-reset --record`. "
                         "'entities/s' and 'relations/s' count rows written per group (an entity seen in "
                         "several groups counts each time); the entities/relations columns are the final "
                         "graph.\n\n"
                         f"```\n{console.export_text()}```\n")


if __name__ == "__main__":
    main()

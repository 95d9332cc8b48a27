"""Passage Recall@2/@5 and latency of each search mode on ../shared/eval/hotpotqa-dev (100 questions,
994 paragraphs), all modes against the same graph in the same run.

    .venv/bin/python -m bench.hotpotqa_retrieval --yes-reset [--record]   # ingest (offline NLP) + communities
    .venv/bin/python -m bench.hotpotqa_retrieval --reuse                   # graph already loaded by a run above

WARNING: --yes-reset empties the database NEO4J_URI points at. Documents are ranked by their best chunk (a
paragraph may span several chunks); Recall@k = |gold titles in the top k documents| / |gold titles|,
averaged. `global` and `path` return evidence rather than a ranking, so only their latency is reported.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from bench.ingest_sample import machine
from graphwright.api import GraphRAG
from graphwright.config import Settings

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "eval" / "hotpotqa-dev"


def ranked_documents(chunks) -> list[str]:  # noqa: ANN001 - list[RetrievedChunk]
    return list(dict.fromkeys(c.document_id for c in chunks))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--yes-reset", action="store_true")
    parser.add_argument("--reuse", action="store_true", help="keep the graph already in the database")
    parser.add_argument("--modes", default="vector,hybrid,local,global,path")
    parser.add_argument("--record", action="store_true")
    args = parser.parse_args()
    if not args.yes_reset and not args.reuse:
        parser.error("this empties the database; pass --yes-reset (or --reuse a graph loaded before)")
    corpus = json.loads((args.data / "corpus.json").read_text(encoding="utf-8"))
    questions = json.loads((args.data / "questions.json").read_text(encoding="utf-8"))

    rag = GraphRAG(Settings())
    console = Console(record=True, width=120)
    if not args.reuse:
        rag.store.reset()
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "hotpotqa.jsonl"
            with path.open("w", encoding="utf-8") as handle:
                for title, sentences in corpus.items():
                    handle.write(json.dumps({"id": title, "title": title, "text": "".join(sentences)}) + "\n")
            report = rag.ingest([path], extractor="nlp")
        run = rag.build_communities()
        console.print(f"ingested {report.documents_written} paragraphs, {report.chunks_written} chunks, "
                      f"{report.entities_written} entities, {report.relations_written} relations in "
                      f"{report.seconds:.1f}s; {len(report.failures)} failures; "
                      f"{sum(run.levels.values())} communities")
    counts = rag.stats()
    console.print(f"graph: {counts['documents']} documents, {counts['chunks']} chunks, {counts['entities']} entities, "
                  f"{counts['relations']} relations, {counts['communities']} communities")

    table = Table(title=f"hotpotqa-dev passage recall ({len(questions)} questions)")
    for column in ("mode", "R@2", "R@5", "p50 ms", "p95 ms"):
        table.add_column(column, justify="right")
    rag.search("warm up", mode="vector", generate=False)  # model load is not a query's cost
    for mode in args.modes.split(","):
        recalls = {2: [], 5: []}
        latencies = []
        for item in questions:
            gold = {title for title, _ in item["supporting_facts"]}
            started = time.perf_counter()
            result = rag.search(item["question"], mode=mode, k=20, generate=False)
            latencies.append((time.perf_counter() - started) * 1000)
            docs = ranked_documents(result.chunks)
            for k in recalls:
                recalls[k].append(len(gold & set(docs[:k])) / len(gold))
        latencies.sort()
        ranked = mode in ("vector", "hybrid", "local")
        table.add_row(mode, f"{100 * statistics.mean(recalls[2]):.1f}" if ranked else "-",
                      f"{100 * statistics.mean(recalls[5]):.1f}" if ranked else "-",
                      f"{statistics.median(latencies):.0f}", f"{latencies[int(0.95 * (len(latencies) - 1))]:.0f}")
    rag.close()
    console.print(table)
    if args.record:
        with open("docs/benchmarks.md", "a", encoding="utf-8") as handle:
            handle.write(f"\n### hotpotqa-dev retrieval, {dt.date.today().isoformat()}\n\nMachine: {machine()}. "
                         f"Command: `.venv/bin/python -m bench.hotpotqa_retrieval {' '.join(sys.argv[1:])}` "
                         "(latency = whole `search()` call, embedding included)\n\n"
                         f"```\n{console.export_text()}```\n")


if __name__ == "__main__":
    main()

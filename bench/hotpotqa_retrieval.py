"""Passage recall and latency of every search mode on ../shared/eval/hotpotqa-dev (100 questions, 994
paragraphs), beside the peers (plain-Python BM25 and dense, neo4j-graphrag's retrievers), in one run on
one graph. The scoring is `graphwright eval`'s; this script adds the ingest and the record.

    .venv/bin/python -m bench.hotpotqa_retrieval --yes-reset [--record]   # ingest (offline NLP) + communities
    .venv/bin/python -m bench.hotpotqa_retrieval --reuse [--record]       # graph already loaded by a run above

WARNING: --yes-reset empties the database NEO4J_URI points at. `global` and `path` return evidence rather
than a ranking; their recall is shown but is not what they are for.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console

from bench.record import record
from graphwright.api import GraphRAG
from graphwright.config import Settings
from graphwright.evaluation.datasets import load_dataset
from graphwright.evaluation.runner import evaluate, load_corpus
from graphwright.evaluation.tables import print_report

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "eval" / "hotpotqa-dev"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--yes-reset", action="store_true")
    parser.add_argument("--reuse", action="store_true", help="keep the graph already in the database")
    parser.add_argument("--modes", default="vector,hybrid,local,global,path")
    parser.add_argument("--no-peers", action="store_true")
    parser.add_argument("--record", action="store_true")
    args = parser.parse_args()
    if not args.yes_reset and not args.reuse:
        parser.error("this empties the database; pass --yes-reset (or --reuse a graph loaded before)")
    dataset = load_dataset(args.data)
    console = Console(record=True, width=150)
    with GraphRAG(Settings()) as rag:
        if not args.reuse:
            rag.store.admin.reset()
            for note in load_corpus(rag, dataset, "nlp", need_communities=True):
                console.print(note)
        counts = rag.inspect.stats()
        console.print(
            f"graph: {counts['documents']} documents, {counts['chunks']} chunks, {counts['entities']} "
            f"entities, {counts['relations']} relations, {counts['communities']} communities"
        )
        report = evaluate(rag, dataset, args.modes.split(","), [2, 5, 10], peers=not args.no_peers, generate=False)
    print_report(console, report)
    if args.record:
        record(
            "hotpotqa-dev retrieval, all modes and peers",
            "bench.hotpotqa_retrieval",
            console,
            "Our latency is the whole `search()` call, embedding included; documents rank at their best chunk",
        )


if __name__ == "__main__":
    main()

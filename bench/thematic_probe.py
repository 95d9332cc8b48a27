"""A thematic probe of the bundled sample (20 space documents): broad questions whose answer is spread over
several documents, and how much of that spread each mode's top passages reach. A small hand-made probe (six
questions, their documents chosen from the sample's own text before any mode was run), not a benchmark: it
says whether a mode built for themes (global, raptor, drift) brings more of a theme than one built for a
fact (vector, local). It ingests the sample into its own workspace (offline extractor), builds the communities
and the RAPTOR tree, then asks each question with each mode for its top 10 passages, offline.

    .venv/bin/python -m bench.thematic_probe [--workspace thematic_probe] [--keep] [--record]

A workspace it creates is deleted at the end (`--keep` keeps it), so the database is left as it was found.

Scores: theme recall@10 = the share of a question's documents among the documents of its top 10 passages
(mean over the five themed questions); spread@10 = distinct documents among the top 10 passages of "What are
the main themes of these documents?" (of the sample's 20)."""

from __future__ import annotations

import statistics
import time

from rich.console import Console
from rich.table import Table

from bench.record import arguments, parse, record
from graphwright.api import GraphRAG
from graphwright.config import Settings
from graphwright.samples import SPACE

MODES = ("vector", "local", "global", "raptor", "drift")
K = 10
OPEN = "What are the main themes of these documents?"
THEMES = {
    "Which rockets and launch vehicles appear across the collection?": {
        "saturn-v.md",
        "falcon-9.md",
        "mission/starship-ift",
        "mission/new-glenn",
        "mission/ariane-6",
        "blue-origin.md",
        "spacex.md",
        "artemis.md",
    },
    "How has the exploration of the Moon changed over the decades?": {
        "apollo-11.md",
        "artemis.md",
        "chang-e.md",
        "mission/chandrayaan-3",
        "saturn-v.md",
    },
    "What do the space telescopes in these documents study?": {"hubble.md", "james-webb.md", "mission/kepler"},
    "Which robotic probes and rovers explored other worlds?": {
        "voyager.md",
        "mission/mars-perseverance",
        "mission/curiosity",
        "mission/rosetta",
        "chang-e.md",
        "mission/chandrayaan-3",
    },
    "Give an overview of private companies in spaceflight.": {
        "spacex.md",
        "blue-origin.md",
        "falcon-9.md",
        "mission/starship-ift",
        "mission/new-glenn",
    },
}


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--workspace", default="thematic_probe")
    parser.add_argument("--keep", action="store_true", help="keep the workspace when this run created it")
    args = parse(parser)
    root = GraphRAG(Settings())
    created = args.workspace not in root.store.workspaces.names()
    if created:
        root.workspaces.create(args.workspace)
    console = Console(record=True)
    with root.in_workspace(args.workspace) as rag:
        rag.ingest([SPACE], base=SPACE, extractor="nlp")
        if not rag.inspect.stats().get("communities"):
            rag.build_communities()
        started = time.perf_counter()
        tree = rag.build_raptor()
        build = time.perf_counter() - started
        table = Table(title=f"Thematic probe of the bundled sample: top {K} passages, offline")
        for column in ("mode", "theme recall@10", "spread@10 (of 20)", "p50 ms"):
            table.add_column(column, justify="left" if column == "mode" else "right")
        for mode in MODES:
            recalls, times = [], []
            for question, gold in THEMES.items():
                began = time.perf_counter()
                found = rag.search(question, mode=mode, k=K, generate=False)
                times.append((time.perf_counter() - began) * 1000)
                recalls.append(len(gold & {c.document_id for c in found.chunks[:K]}) / len(gold))
            spread = len({c.document_id for c in rag.search(OPEN, mode=mode, k=K, generate=False).chunks[:K]})
            table.add_row(mode, f"{100 * statistics.mean(recalls):.1f}", str(spread), f"{statistics.median(times):.0f}")
    if created and not args.keep:
        root.workspaces.delete(args.workspace, yes=True)
    root.close()
    console.print(table)
    console.print(
        f"RAPTOR tree: {tree.passages} passages, {tree.summaries} summaries ({tree.written} written) in {build:.1f} s"
    )
    if args.record:
        record("Thematic probe of the bundled sample", "bench.thematic_probe", console)


if __name__ == "__main__":
    main()

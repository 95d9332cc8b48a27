"""What a small ingest costs the community layer: add 1, then 10, then 100 documents to a graph with
communities and count the communities kept / rewritten / created / removed, the report calls a configured LLM
makes (the local OpenAI-compatible stub, counted over real HTTP, no cap), the time, and the level-0
modularity against a full rebuild of the same graph.

    .venv/bin/python -m bench.incremental_communities --novels 19 --yes-reset [--record]
    .venv/bin/python -m bench.incremental_communities --dataset ../shared/eval/2wiki-101 --yes-reset [--record]

Novels: the first N novels are the base, the added documents are ~200-word parts of the next novel.
A dataset: its corpus less 111 paragraphs is the base, those paragraphs are added. Extraction is offline
(nlp); only reports use the stub. It uses only API that older versions have too, so the same script measures
a checkout from before a change (PYTHONPATH=<that checkout>).

WARNING: empties the database NEO4J_URI points at.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from bench.ingest_novels import NOVELS
from bench.record import record

STEPS = (1, 10, 100)  # documents added in turn


def _report(body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    from tests.stub_openai import chat_reply

    return chat_reply(
        json.dumps(
            {
                "title": "Stub report",
                "summary": "A community.",
                "rating": 5,
                "findings": [{"summary": "finding", "explanation": "why"}],
            }
        )
    )


def novel_documents(count: int, steps: tuple[int, ...]) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    records = [json.loads(line) for line in NOVELS.read_text(encoding="utf-8").splitlines() if line.strip()]
    base, extra = records[:count], records[count]
    words = extra["text"].split()
    start = len(words) // 10  # past the front matter
    parts = [
        {
            "id": f"{extra['id']}-part{i}",
            "title": f"{extra['title']} part {i}",
            "text": " ".join(words[start + 200 * i : start + 200 * (i + 1)]),
        }
        for i in range(sum(steps))
    ]
    return base, parts


def dataset_documents(folder: Path, steps: tuple[int, ...]) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    corpus = json.loads((folder / "corpus.json").read_text(encoding="utf-8"))
    records = [
        {"id": title, "title": title, "text": " ".join(texts) if isinstance(texts, list) else texts}
        for title, texts in corpus.items()
    ]
    return records[: -sum(steps)], records[-sum(steps) :]


def _write(records: list[dict[str, str]], folder: Path, name: str) -> Path:
    path = folder / f"{name}.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def level0_modularity(rag: Any, edges: list[tuple[str, str, float]]) -> float:
    import graspologic_native as gn

    rows = rag.store.read("MATCH (e:Entity)-[:IN_COMMUNITY]->(c:Community {level: 0}) RETURN e.id AS e, c.id AS c")
    labels: dict[str, int] = {}
    assignment = {r["e"]: labels.setdefault(r["c"], len(labels)) for r in rows}
    nodes = {n for a, b, _ in edges for n in (a, b)}
    for node in sorted(nodes - assignment.keys()):
        assignment[node] = len(labels) + len(assignment)
    return float(gn.modularity(edges, {n: assignment[n] for n in nodes}))


def full_modularity(edges: list[tuple[str, str, float]]) -> float:
    import graspologic_native as gn

    from graphwright.communities.leiden import detect

    found = detect(edges, 10, 42)
    labels: dict[str, int] = {}
    assignment = {m: labels.setdefault(c.id, len(labels)) for c in found if c.level == 0 for m in c.members}
    return float(gn.modularity(edges, assignment))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--novels", type=int, help="base: this many novels")
    parser.add_argument("--dataset", type=Path, help="a HotpotQA-style folder with corpus.json")
    parser.add_argument("--label", default="", help="a name for this code version in the table")
    parser.add_argument("--steps", default=",".join(map(str, STEPS)), help="documents added in turn")
    parser.add_argument("--yes-reset", action="store_true")
    parser.add_argument("--record", action="store_true")
    args = parser.parse_args()
    if not args.yes_reset:
        parser.error("this empties the database; pass --yes-reset")
    if bool(args.novels) == bool(args.dataset):
        parser.error("pass --novels N or --dataset FOLDER")
    from graphwright.api import GraphRAG
    from graphwright.config import Settings
    from tests.stub_openai import StubOpenAI

    steps_n = tuple(int(n) for n in args.steps.split(","))
    base, added = novel_documents(args.novels, steps_n) if args.novels else dataset_documents(args.dataset, steps_n)
    graph_name = f"{args.novels} novels" if args.novels else args.dataset.name
    console = Console(record=True, width=175)
    table = Table(title=f"incremental communities on {graph_name} {args.label} (nlp extraction, stub LLM reports)")
    for column in (
        "step",
        "docs",
        "chunks",
        "entities",
        "communities",
        "kept",
        "rewritten",
        "created",
        "removed",
        "kept by overlap",
        "LLM report calls",
        "stale",
        "communities s",
        "modularity",
        "full rebuild",
        "ratio",
    ):
        table.add_column(column, justify="right")
    with StubOpenAI() as stub, tempfile.TemporaryDirectory() as tmp:
        stub.default = _report
        settings = Settings(openai_base_url=stub.base_url, llm_model="stub-model", llm_cache=False)
        rag = GraphRAG(settings)
        rag.store.admin.reset()
        rag.init()
        started = time.perf_counter()
        rag.ingest([_write(base, Path(tmp), "base")], extractor="nlp", update_communities=False)
        ingest_s = time.perf_counter() - started
        steps: list[tuple[str, list[dict[str, str]]]] = [("base", [])]
        offset = 0
        for n in steps_n:
            steps.append((f"+{n}", added[offset : offset + n]))
            offset += n
        for name, docs in steps:
            if docs:
                rag.ingest([_write(docs, Path(tmp), name.strip("+"))], extractor="nlp", update_communities=False)
            calls = len(stub.requests)
            started = time.perf_counter()
            run = rag.build_communities()
            seconds = time.perf_counter() - started
            edges = rag.store.communities.entity_edges()
            mod, full = level0_modularity(rag, edges), full_modularity(edges)
            counts = rag.inspect.stats()
            table.add_row(
                name,
                str(len(docs) or len(base)),
                f"{counts['chunks']:,}",
                f"{counts['entities']:,}",
                f"{counts['communities']:,}",
                f"{run.kept:,}",
                f"{run.rewritten:,}",
                f"{run.created:,}",
                f"{run.removed:,}",
                str(getattr(run, "reused", "-")),
                f"{len(stub.requests) - calls:,}",
                str(getattr(run, "stale", "-")),
                f"{seconds:.1f}",
                f"{mod:.4f}",
                f"{full:.4f}",
                f"{mod / full:.3f}" if full else "-",
            )
            console.print(f"{name}: done in {seconds:.1f}s")
        rag.close()
    console.print(table)
    console.print(f"base ingest (offline, not counted above): {ingest_s:.0f}s")
    if args.record:
        record(
            f"Incremental communities on {graph_name} {args.label}".strip(),
            "bench.incremental_communities",
            console,
            remark=f"Base ingest {ingest_s:.0f}s (offline, not counted in the table)",
        )


if __name__ == "__main__":
    main()

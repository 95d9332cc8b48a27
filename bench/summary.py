"""docs/benchmarks.md's table of today's figures, generated from the recorded runs in docs/benchmarks-history.md:
for each benchmark script (`bench/<name>.py`), its newest recorded run: the date, the figure its section
states on a `Headline:` line (or a pointer to the section when it states none), and the exact command.
`bench/record.py` rewrites it after every `--record`; a test checks it is current.

    .venv/bin/python -m bench.summary            # rewrite the table in docs/benchmarks.md
    .venv/bin/python -m bench.summary --check    # exit 1 when the table is not what the history says
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path

DOCS = Path(__file__).resolve().parents[1] / "docs"
HISTORY, SUMMARY = DOCS / "benchmarks-history.md", DOCS / "benchmarks.md"
BEGIN, END = "<!-- summary:begin (bench/summary.py writes this block) -->", "<!-- summary:end -->"
_HEADING = re.compile(r"^### (?P<title>.+), (?P<date>\d{4}-\d{2}-\d{2})\s*$")
_SCRIPT = re.compile(r"`(?:\S*python\S* )?(?:-m bench\.|bench/)(?P<name>\w+)(?:\.py)?(?P<args>[^`]*)`")


@dataclass
class Run:
    title: str
    date: str
    script: str
    command: str
    headline: str
    anchor: str


def _anchor(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def runs(history: str) -> list[Run]:
    """Each section of the history that names the bench script it ran, in the order written."""
    found = []
    sections = re.split(r"(?m)^(?=### )", history)
    for section in sections:
        lines = section.splitlines()
        heading = _HEADING.match(lines[0]) if lines else None
        if heading is None:
            continue
        script = _SCRIPT.search(section)
        if script is None or not (Path(__file__).parent / f"{script['name']}.py").exists():
            continue
        headline = next((line.split(":", 1)[1].strip() for line in lines if line.startswith("Headline:")), "")
        found.append(
            Run(
                title=heading["title"],
                date=heading["date"],
                script=script["name"],
                command=" ".join(f"python -m bench.{script['name']}{script['args']}".split()),
                headline=headline,
                anchor=_anchor(lines[0].removeprefix("### ")),
            )
        )
    return found


# The questions a user asks of the numbers, in the order the page answers them, and what each script measures
# towards one. A new script is one line here (tests/unit/test_benchmarks_summary.py fails on a recorded script
# without one).
QUESTIONS: dict[str, dict[str, str]] = {
    "How fast does it ingest?": {
        "ingest_sample": "the bundled sample, offline, into an empty database",
        "ingest_novels": "20 novels offline with the entity graph and communities",
        "lexical_peer": "text-only ingest beside neo4j-graphrag's lexical pipeline, same server",
        "loaders": "each file format's loader, and its text quality",
        "pdf_tables": "PDF pages with their tables read as cells",
        "ocr": "scanned PDF pages read by OCR",
        "embeddings": "embedding throughput of each backend",
        "write_batches": "Neo4j's write rate by batch size",
        "schema_mapping_speed": "the offline extractor mapping onto a user's schema",
        "resume": "an ingest stopped halfway, then run again",
        "sync": "a folder kept in step: a re-sync with nothing changed, a watched change searchable",
        "llm_ingest": "the sample's LLM ingest on a real local model server",
    },
    "How good is retrieval?": {
        "hotpotqa_retrieval": "multi-hop passage recall on hotpotqa-dev",
        "no_answer": 'real filings (FinanceBench\'s shared half): ingest, and the "no answer" floor',
        "seeds_zh": "every mode on FinanceBench's shared half and Chinese CMRC 2018",
        "thematic_probe": "broad questions on the bundled sample, every mode",
        "conversations": "follow-up questions with and without their conversation",
        "multilingual_embedders": "which embedder reads Chinese",
    },
    "How good is the graph?": {
        "extraction_gold": "offline entities against the sample's gold list",
        "extraction_text2kg": "typed extraction on Text2KGBench against published LLM baselines",
    },
    "How fast does it answer?": {
        "query_latency": "each search mode on the 20 novels",
        "cold_start": "a CLI question in a fresh process",
        "serve": "`graphwright serve`: warm questions, and load during an ingest",
        "workspaces": "a search in one workspace of many",
        "gds_algorithms": "Leiden and the walk in this process and in Neo4j GDS",
    },
    "How does it scale?": {
        "communities": "community detection on large synthetic graphs",
        "incremental_communities": "what a small ingest costs the community layer",
        "cost_curve": "one graph grown from 1k to 100k chunks",
        "large_file": "one very large text file",
        "cluster_ingest": "filings ingested by one process and by a Dask cluster",
        "curation": "a hand merge of two large entities, and its undo",
    },
    "Does it stay safe and up?": {
        "hostile": "hostile input: crafted files, path highlights, the Cypher gate's cost",
        "cypher_attacks": "attacks on the read-only Cypher gate and workspaces",
        "security_iv": "a Word bomb, slow clients and SIGTERM against a real serve",
        "neo4j_down": "Neo4j stopped behind a running server",
        "serving_signals": "whether a stopped server withdraws its address file",
        "real_llm": "every LLM path against a real llama.cpp server",
        "fresh_install": "a fresh virtualenv: pip install, then the README's commands",
    },
}
_QUESTION_OF = {script: question for question, scripts in QUESTIONS.items() for script in scripts}
# Arguments that name data on the machine that ran them, written as what to put there, so every command runs on
# any checkout once given them (the page says how to make each).
_PLACES = [
    (re.compile(r"\S*/financebench/pdfs/(\S+\.pdf)"), r"FINANCEBENCH/pdfs/\1"),
    (re.compile(r"\S*/financebench/pdfs\b"), "FINANCEBENCH/pdfs"),
    (re.compile(r"(?<=--data )\S+"), "FILINGS"),
    (re.compile(r"\S*data/financebench\b"), "FINANCEBENCH"),
    (re.compile(r"(?<=--server-python )\S+"), "LLM_PYTHON"),
]


def portable(command: str) -> str:
    """`command` with this machine's paths replaced by what they stand for."""
    for pattern, place in _PLACES:
        command = pattern.sub(place, command)
    return command


def table(history: str) -> str:
    latest: dict[str, Run] = {}
    for run in runs(history):  # a later section of the same script, or the same day, wins
        if run.script not in latest or run.date >= latest[run.script].date:
            latest[run.script] = run
    blocks = []
    for question in [*QUESTIONS, "Other"]:
        rows = [r for r in latest.values() if _QUESTION_OF.get(r.script, "Other") == question]
        if not rows:
            continue
        lines = [f"### {question}", "", "| what is measured | figure | date | command |", "| --- | --- | --- | --- |"]
        order = list(QUESTIONS.get(question, {}))
        for run in sorted(rows, key=lambda r: (order.index(r.script) if r.script in order else len(order), r.script)):
            what = QUESTIONS.get(question, {}).get(run.script, run.title)
            figure = run.headline or "(no figure stated)"
            link = f"[run](benchmarks-history.md#{run.anchor})"
            lines.append(f"| {what} ({link}) | {figure} | {run.date} | `{portable(run.command)}` |")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def rewrite(summary: str, history: str) -> str:
    start, end = summary.index(BEGIN) + len(BEGIN), summary.index(END)
    return summary[:start] + "\n" + table(history) + "\n" + summary[end:]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args()
    summary, history = SUMMARY.read_text(encoding="utf-8"), HISTORY.read_text(encoding="utf-8")
    fresh = rewrite(summary, history)
    if args.check:
        if fresh != summary:
            print("docs/benchmarks.md's summary is stale: run .venv/bin/python -m bench.summary")
            sys.exit(1)
        print("docs/benchmarks.md's summary is what the recorded runs say")
        return
    SUMMARY.write_text(fresh, encoding="utf-8")
    shown = [line for line in table(history).splitlines() if line.startswith("| ") and "](" in line]
    print(f"docs/benchmarks.md: {len(shown)} benchmarks")


if __name__ == "__main__":
    main()

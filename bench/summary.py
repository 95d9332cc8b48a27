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


def table(history: str) -> str:
    latest: dict[str, Run] = {}
    for run in runs(history):  # a later section of the same script, or the same day, wins
        if run.script not in latest or run.date >= latest[run.script].date:
            latest[run.script] = run
    rows = [
        "| benchmark | latest run | figure | command |",
        "| --- | --- | --- | --- |",
    ]
    for run in sorted(latest.values(), key=lambda r: (r.date, r.script), reverse=True):
        figure = run.headline or f"see [the section](benchmarks-history.md#{run.anchor})"
        title = f"[{run.title}](benchmarks-history.md#{run.anchor})"
        rows.append(f"| `{run.script}`: {title} | {run.date} | {figure} | `{run.command}` |")
    return "\n".join(rows)


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
    print(f"docs/benchmarks.md: {len(table(history).splitlines()) - 2} benchmarks")


if __name__ == "__main__":
    main()

"""What every benchmark shares: the machine line, and appending a table to docs/benchmarks-history.md (then
docs/benchmarks.md's summary is generated again)."""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import sys
from pathlib import Path

from rich.console import Console

BENCHMARKS = Path("docs/benchmarks-history.md")


def machine() -> str:
    cpu = "unknown cpu"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem_gb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return f"{os.cpu_count()} cores, {cpu}, {mem_gb:.0f} GiB, Python {platform.python_version()}"


def record(title: str, module: str, console: Console, remark: str = "", headline: str = "") -> None:
    """Append what `console` printed under a dated heading, with the machine and the exact command, then
    regenerate the summary; `headline` is the figure the summary shows for this run."""
    command = f"`.venv/bin/python -m {module} {' '.join(sys.argv[1:])}`"
    with BENCHMARKS.open("a", encoding="utf-8") as handle:
        handle.write(
            f"\n### {title}, {dt.date.today().isoformat()}\n\n"
            + (f"Headline: {headline}\n\n" if headline else "")
            + f"Machine: {machine()}. Command: {command}"
            f"{'. ' + remark if remark else ''}\n\n```\n{console.export_text()}```\n"
        )
    from bench.summary import HISTORY, SUMMARY, rewrite

    SUMMARY.write_text(
        rewrite(SUMMARY.read_text(encoding="utf-8"), HISTORY.read_text(encoding="utf-8")), encoding="utf-8"
    )


def isolated_env(home: Path, bolt_port: int, http_port: int, **extra: str) -> dict[str, str]:
    """This process's environment without graphwright's, Neo4j's or an LLM's settings, for a benchmark with a
    home and a local Neo4j of its own (nothing of the user's is touched)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GRAPHWRIGHT_", "NEO4J_", "OPENAI_"))}
    env.update(
        {
            "GRAPHWRIGHT_HOME": str(home),
            "NEO4J_URI": f"bolt://127.0.0.1:{bolt_port}",
            "GRAPHWRIGHT_HTTP_PORT": str(http_port),
            "COLUMNS": "200",
            **extra,
        }
    )
    return env


def torch_installed() -> bool:
    """Whether the `torch` extra is here: the default install leaves it out, so its rows are skipped."""
    import importlib.util

    return importlib.util.find_spec("sentence_transformers") is not None


def arguments(doc: str | None, resets: bool = False) -> argparse.ArgumentParser:
    """The parser every benchmark starts from: its docstring as help, --record, and --yes-reset for those
    that empty the database (`parse` refuses to run them without it)."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    if resets:
        parser.add_argument("--yes-reset", action="store_true")
    parser.add_argument("--record", action="store_true")
    return parser


def parse(parser: argparse.ArgumentParser) -> argparse.Namespace:
    args = parser.parse_args()
    if hasattr(args, "yes_reset") and not args.yes_reset and not getattr(args, "resume", False):
        parser.error("this empties the database; pass --yes-reset")
    return args

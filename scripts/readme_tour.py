"""The README's tour, run for real: each command of the tour is run as a user runs it, and its output is the
README's text between the `tour:begin` and `tour:end` markers, so the README cannot show what the product no
longer prints. CI runs `--check` (tests/integration/test_readme.py); after a change that moves the output,
run it without `--check` to rewrite the block.

    .venv/bin/python scripts/readme_tour.py            # rewrite README.md's tour (a running Neo4j)
    .venv/bin/python scripts/readme_tour.py --check    # exit 1, with a diff, when the README is stale
    .venv/bin/python scripts/readme_tour.py --check --python /tmp/venv/bin/python --cwd /tmp/x
                                                       # the same, run by a pip-installed graphwright elsewhere

It works in its own workspace (`readme-tour`, made anew and deleted after), so your graph is untouched.
Output is captured 100 columns wide; progress bars (stderr) are left out. The check ignores what changes
from run to run on the same data: durations, rates, sizes on disk, a score's third decimal place, and a
table's padding."""

from __future__ import annotations

import argparse
import difflib
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
BEGIN, END = "<!-- tour:begin (scripts/readme_tour.py writes this block) -->", "<!-- tour:end -->"
WORKSPACE = "readme-tour"
# (what the reader types, the flags added when it runs here, lines kept of its output: 0 = all)
TOUR: list[tuple[str, list[str], int]] = [
    ("graphwright init", [], 0),
    ("graphwright ingest --sample --meta collection=space", ["-q"], 0),
    ("graphwright ingest --sample --meta collection=space     # idempotent: nothing changes", ["-q"], 0),
    ("graphwright stats", [], 15),
    ('graphwright show entity "Wernher von Braun"', [], 12),
    ('graphwright query "Who founded SpaceX?" --k 2', [], 0),
    ('graphwright query "How is Jeff Bezos connected to NASA?" --mode path --k 3 --explain', [], 0),
    ('graphwright query "What are the main themes of these documents?" --mode global --k 2', [], 12),
]
# What differs between two runs over the same data: timings, rates, sizes on disk, the Browser's port.
VOLATILE = [
    (re.compile(r"\b\d+(?:\.\d+)? ?(?:KiB|MiB|GiB|B)\b"), "SIZE"),
    (re.compile(r"\b\d+(?:\.\d+)?(?= ?(?:s|ms|docs/s)\b)"), "N"),
    (re.compile(r"http://127\.0\.0\.1:\d+"), "http://127.0.0.1:PORT"),
    # fused scores move in the third place between two databases (BM25's statistics); the order is checked
    (re.compile(r"\b[01]\.\d{3}\b"), "S"),
    # a table's rules and padding follow its widest cell (a size on disk): compare the cells alone
    (re.compile(r"[─━┏┓┗┛┡┩┳┻╇┃│└┘┴┬┼]+"), " "),
    (re.compile(r"[ \t]+"), " "),
]


def _argv(typed: str) -> list[str]:
    import shlex

    words = shlex.split(typed.split("  #", 1)[0])
    assert words[0] == "graphwright"
    return words[1:]


def run_tour(python: str = sys.executable, cwd: Path = ROOT) -> str:
    """The tour's block: each command as typed, then what it printed, by `python`'s graphwright in `cwd`."""
    plain = {k: v for k, v in os.environ.items() if k != "GRAPHWRIGHT_WORKSPACE"}
    env = {**plain, "GRAPHWRIGHT_WORKSPACE": WORKSPACE, "COLUMNS": "100", "NO_COLOR": "1", "TERM": "dumb"}
    base = [python, "-m", "graphwright.cli"]
    # a fresh workspace: the tour starts from an empty graph, as a newcomer's does
    subprocess.run([*base, "workspace", "delete", WORKSPACE, "--yes"], env=plain, cwd=cwd, capture_output=True)
    subprocess.run([*base, "workspace", "create", WORKSPACE], env=plain, cwd=cwd, check=True, capture_output=True)
    lines = []
    try:
        for typed, flags, keep in TOUR:
            done = subprocess.run(
                [*base, *_argv(typed), *flags], env=env, cwd=cwd, capture_output=True, text=True, timeout=600
            )
            if done.returncode != 0:
                raise SystemExit(f"`{typed}` exited {done.returncode}:\n{done.stderr}")
            out = [line.rstrip() for line in done.stdout.splitlines()]
            if keep and len(out) > keep:
                out = [*out[:keep], "..."]
            lines += [f"$ {typed}", *out]
    finally:  # leave the database as it was found
        subprocess.run([*base, "workspace", "delete", WORKSPACE, "--yes"], env=plain, cwd=cwd, capture_output=True)
    return "\n".join(lines)


def normalized(text: str) -> str:
    # the store's size on disk is not known on every server (a fresh one reports none)
    text = "\n".join(line for line in text.splitlines() if "store on disk" not in line)
    for pattern, replacement in VOLATILE:
        text = pattern.sub(replacement, text)
    return "\n".join(line.strip() for line in text.splitlines() if line.strip())


def readme_block(readme: str) -> str:
    start, end = readme.index(BEGIN) + len(BEGIN), readme.index(END)
    return readme[start:end].strip("\n").removeprefix("```console\n").removesuffix("\n```")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="compare with README.md instead of writing it")
    parser.add_argument("--python", default=sys.executable, help="the Python whose graphwright runs the tour")
    parser.add_argument("--cwd", type=Path, default=ROOT, help="the folder the commands run in")
    args = parser.parse_args()
    readme = README.read_text(encoding="utf-8")
    tour = run_tour(args.python, args.cwd)
    if args.check:
        want, have = normalized(tour).splitlines(), normalized(readme_block(readme)).splitlines()
        if want != have:
            diff = "\n".join(difflib.unified_diff(have, want, "README.md", "the commands today", lineterm=""))
            print(f"README.md's tour is stale; run scripts/readme_tour.py to rewrite it:\n{diff}")
            sys.exit(1)
        print("README.md's tour is what the commands print")
        return
    start, end = readme.index(BEGIN) + len(BEGIN), readme.index(END)
    README.write_text(readme[:start] + f"\n```console\n{tour}\n```\n" + readme[end:], encoding="utf-8")
    print(f"README.md's tour rewritten ({len(tour.splitlines())} lines)")


if __name__ == "__main__":
    main()

"""`graphwright docs`: the documentation a pip user reaches, and every hint in the package names a page of it."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from click.testing import CliRunner

from graphwright.cli.docs import docs, docs_folder, find_topic, topics

ROOT = Path(__file__).resolve().parents[2]


def test_docs_lists_the_pages_and_shows_one_by_a_part_of_its_name() -> None:
    listed = CliRunner().invoke(docs, [], terminal_width=200)
    assert listed.exit_code == 0
    for page in (ROOT / "docs").glob("*.md"):
        assert page.stem in listed.output
    shown = CliRunner().invoke(docs, ["knowledge"])  # not a terminal: the markdown as it is
    assert shown.exit_code == 0 and shown.output.startswith("# Knowledge bases beyond this workspace")
    path = CliRunner().invoke(docs, ["security", "--path"])
    assert Path(path.output.strip()) == docs_folder() / "security.md"
    missing = CliRunner().invoke(docs, ["no-such-page"])
    assert missing.exit_code == 2 and "configuration" in missing.output


def test_a_topic_is_found_by_its_name_a_prefix_or_one_unique_part() -> None:
    pages = topics(docs_folder())
    assert find_topic("docs/security.md", pages) == pages["security"]
    assert find_topic("search", pages) == pages["search-modes"]
    assert find_topic("benchmarks", pages) == pages["benchmarks"]  # exact beats the longer page it begins
    assert find_topic("e", pages) is None  # ambiguous: no guess


def _strings() -> list[tuple[Path, int, str]]:
    """Every string the package can show a person: all but module docstrings (developer notes)."""
    found = []
    for source in sorted((ROOT / "graphwright").rglob("*.py")):
        tree = ast.parse(source.read_text(encoding="utf-8"))
        module_doc = ast.get_docstring(tree, clean=False)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value != module_doc:
                found.append((source, node.lineno, node.value))
    return found


def test_every_hint_names_a_page_a_pip_user_has() -> None:
    pages = topics(docs_folder())
    named = 0
    for source, line, text in _strings():
        # a checkout's path ("docs/security.md") leads nowhere for a pip user; the command does
        assert not re.search(r"\bdocs/[\w-]+\.md", text), f"{source}:{line} names a checkout's path"
        for topic in re.findall(r"graphwright docs ([a-z][\w-]*)", text):
            named += 1
            assert topic in pages, f"{source}:{line} names `graphwright docs {topic}`, which is no page"
    assert named >= 5

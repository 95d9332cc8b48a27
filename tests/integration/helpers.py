"""Helpers the integration tests share: the CLI in a subprocess, corpora, scripted LLM replies."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tests.stub_openai import chat_reply

if TYPE_CHECKING:
    from graphwright.config import Settings

SPACE = Path(__file__).resolve().parents[2] / "examples" / "space"


def workspace_texts(rag: Any) -> str:
    """Every property of every node and relationship of the default workspace, as one JSON text (what a
    forgotten document must leave no trace in). Other workspaces' nodes, whose labels carry their prefix, are
    left out: earlier tests leave theirs in the same database."""
    import json

    own = "none(l IN labels(n) WHERE l CONTAINS '__')"
    nodes = rag.store.read(f"MATCH (n) WHERE {own} RETURN properties(n) AS p")
    rels = rag.store.read(f"MATCH (n)-[r]->() WHERE {own} RETURN properties(r) AS p")
    return json.dumps([row["p"] for row in nodes + rels], default=str)


def write_files(folder: Path, files: dict[str, str]) -> Path:
    """Each `name: text` as a UTF-8 file in `folder` (made if missing); returns the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def offline_settings(neo4j_uri: str, password: str, home: Path, **extra: Any) -> Settings:
    """Settings of a module's own graph on the test Neo4j: no LLM, no .env, its home under `home`."""
    from graphwright.config import Settings

    return Settings(
        neo4j_uri=neo4j_uri,
        neo4j_password=password,
        home=home / "home",
        _env_file=None,
        openai_api_key=None,
        openai_base_url=None,
        **extra,
    )


MARK = "Revision two"


def run(args: list[str], env: dict[str, str], cwd: Path, typed: str | None = None) -> subprocess.CompletedProcess:
    """The CLI with `args`; `typed` is what a user types at it (its standard input)."""
    return subprocess.run(
        [sys.executable, "-m", "graphwright.cli", *args],
        env=env,
        cwd=cwd,
        input=typed,
        capture_output=True,
        text=True,
        timeout=300,
    )


def write_space_corpus(folder: Path, revision: bool, omnibus: bool = False) -> Path:
    """The bundled space articles; revision two appends a paragraph to every one of them. The omnibus is all
    of them in one document, big enough to be staged over many transactions."""
    folder.mkdir(parents=True, exist_ok=True)
    texts = []
    for source in sorted(SPACE.glob("*.md")):
        text = source.read_text(encoding="utf-8")
        if revision:
            text += f"\n\n{MARK} of {source.stem}: the editors added this closing paragraph in the spring.\n"
        (folder / source.name).write_text(text, encoding="utf-8")
        texts.append(text)
    if omnibus:
        (folder / "omnibus.md").write_text("\n\n".join(texts), encoding="utf-8")
    return folder


GOOD = {
    "entities": [
        {"name": "Ada Lovelace", "type": "person", "description": "A mathematician."},
        {"name": "Analytical Engine", "type": "technology", "description": "A machine."},
        {"name": "Charles Babbage", "type": "PERSON", "description": "An inventor."},
    ],
    "relations": [
        {
            "source": "Ada Lovelace",
            "target": "Analytical Engine",
            "type": "wrote programs for",
            "description": "She wrote the first program for it.",
            "strength": 9,
        },
        {
            "source": "Charles Babbage",
            "target": "Analytical Engine",
            "type": "DESIGNED",
            "description": "He designed it.",
            "strength": 10,
        },
    ],
}
TEXT = "Ada Lovelace wrote the first program for the Analytical Engine. Charles Babbage designed the machine."


def is_glean(body: dict) -> bool:
    return "were missed" in body["messages"][-1]["content"]


def extractor_reply(first: str, glean: str = '{"entities": [], "relations": []}'):
    def reply(body: dict):
        return chat_reply(glean if is_glean(body) else first, prompt_tokens=100, completion_tokens=40)

    return reply


def ada_corpus(tmp_path: Path, text: str = TEXT) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir(exist_ok=True)
    (folder / "ada.md").write_text(text, encoding="utf-8")
    return folder

"""The `graphwright` command end to end, as a user runs it (subprocess, real Neo4j)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.integration.corpus import write_corpus
from tests.integration.helpers import run

pytestmark = pytest.mark.integration

COMMANDS = [
    [],
    ["db"],
    ["db", "start"],
    ["db", "build"],
    ["db", "stop"],
    ["db", "status"],
    ["init"],
    ["reset"],
    ["ingest"],
    ["import-graph"],
    ["index"],
    ["communities"],
    ["communities", "build"],
    ["communities", "refresh"],
    ["communities", "show"],
    ["raptor"],
    ["raptor", "build"],
    ["knowledge"],
    ["knowledge", "check"],
    ["delete"],
    ["stats"],
    ["query"],
    ["eval"],
    ["show"],
    ["show", "entity"],
    ["documents"],
    ["entities"],
    ["export"],
    ["browser"],
    ["check"],
    ["entity"],
    ["entity", "merge"],
    ["entity", "rename"],
    ["entity", "retype"],
    ["entity", "delete"],
    ["relation"],
    ["relation", "retype"],
    ["relation", "delete"],
    ["history"],
    ["undo"],
    ["worker"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "main")
def test_every_command_has_help_with_an_example(command: list[str], cli_env, tmp_path: Path) -> None:
    out = run([*command, "--help"], cli_env, tmp_path)
    assert out.returncode == 0, out.stderr
    assert "graphwright" in out.stdout and ("Example" in out.stdout or "Quick start" in out.stdout)


def test_ingest_query_delete(rag, cli_env, tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "corpus")
    out = run(["ingest", str(corpus), "--meta", "collection=cli", "--json"], cli_env, tmp_path)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["documents_written"] > 10 and report["failures"] == []
    # the first ingest builds the communities (a newcomer's `global` and page have some), the next keep them
    built = rag.store.communities.community_levels()
    assert report["communities"]["created"] == sum(r["communities"] for r in built) > 0

    again = json.loads(run(["ingest", str(corpus), "--json"], cli_env, tmp_path).stdout)
    assert again["documents_written"] > 0  # --meta changed, so every document's metadata changed
    assert again["communities"]["created"] == 0 and rag.store.communities.community_levels() == built
    third = json.loads(run(["ingest", str(corpus), "--json"], cli_env, tmp_path).stdout)
    assert third["documents_written"] == 0 and third["documents_unchanged"] == report["documents_written"]

    out = run(["query", "Which company builds Falcon 9?", "--mode", "hybrid", "--k", "2", "--json"], cli_env, tmp_path)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["answer_kind"] == "retrieval" and result["mode"] == "hybrid"
    assert result["chunks"][0]["document_id"] == "corpus/rockets.md"
    assert {"kind": "document", "id": "corpus/rockets.md", "label": "Rockets"} in result["citations"]

    out = run(
        ["query", "reusable rockets", "--where", "category=rockets", "--where", "year>=2020", "--json"],
        cli_env,
        tmp_path,
    )
    assert [c["document_id"] for c in json.loads(out.stdout)["chunks"]] == ["rec-rockets-2023"]

    pretty = run(["query", "Which company builds Falcon 9?", "--k", "2"], cli_env, tmp_path)
    assert pretty.returncode == 0 and "retrieval (offline)" in pretty.stdout and "[1] Rockets" in pretty.stdout

    out = run(["delete", "corpus/rockets.md"], cli_env, tmp_path)
    assert out.returncode == 0 and "Deleted corpus/rockets.md" in out.stdout
    missing = run(["delete", "corpus/rockets.md"], cli_env, tmp_path)
    assert missing.returncode == 2 and "no document" in missing.stderr


def test_bad_file_exit_code_and_names(rag, cli_env, tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "corpus")
    (corpus / "bad.json").write_text("[1, 2", encoding="utf-8")
    out = run(["ingest", str(corpus), "-q"], cli_env, tmp_path)
    assert out.returncode == 1
    assert "bad.json" in out.stdout and "invalid JSON" in out.stdout
    assert "failed" in out.stdout
    counts = run(["stats"], cli_env, tmp_path)
    assert counts.returncode == 0 and "documents" in counts.stdout


def test_a_folder_of_unread_types_is_named_and_exits_non_zero(rag, cli_env, tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    for name in ("slides.pptx", "sheet.xlsx", "scan.png"):
        (folder / name).write_bytes(b"PK\x03\x04 not read here")
    out = run(["ingest", str(folder), "-q"], cli_env, tmp_path)
    assert out.returncode == 2 and "nothing to ingest" in out.stderr and "3 of other types skipped" in out.stderr
    assert "skipped: 3 file(s)" in out.stdout and "(.png, .pptx, .xlsx)" in out.stdout
    assert all(name in out.stdout for name in ("slides.pptx", "sheet.xlsx", "scan.png"))
    assert "Supported: .docx, .htm, .html, .json, .jsonl, .markdown, .md, .pdf, .txt" in out.stdout
    (folder / "note.md").write_text("# Note\nAda Lovelace wrote the first program.", encoding="utf-8")
    mixed = run(["ingest", str(folder), "-q", "--json"], cli_env, tmp_path)
    report = json.loads(mixed.stdout)
    assert mixed.returncode == 0 and report["documents_written"] == 1
    assert sorted(Path(p).name for p in report["skipped"]) == ["scan.png", "sheet.xlsx", "slides.pptx"]
    empty = tmp_path / "empty"
    empty.mkdir()
    nothing = run(["ingest", str(empty), "-q"], cli_env, tmp_path)
    assert nothing.returncode == 2 and "nothing to ingest" in nothing.stderr
    assert "Ingested 0" not in nothing.stdout  # no success line before the error
    gone = run(["ingest", str(tmp_path / "no-such-folder"), str(empty), "-q"], cli_env, tmp_path)
    assert gone.returncode == 2 and "no such file or folder" in gone.stderr and "no-such-folder" in gone.stderr


def test_refresh_without_an_llm_is_one_clear_line(rag, cli_env, tmp_path: Path) -> None:
    out = run(["communities", "refresh", "--budget", "5"], cli_env, tmp_path)
    assert out.returncode == 2 and "needs an LLM" in out.stderr and "Traceback" not in out.stderr


def test_bad_filter_is_a_usage_error(cli_env, tmp_path: Path) -> None:
    out = run(["query", "x", "--where", "year"], cli_env, tmp_path)
    assert out.returncode == 2 and "--where" in out.stderr


@pytest.mark.parametrize(
    "command", [["stats"], ["query", "x"], ["ingest", "--sample"], ["documents"], ["entities"], ["export", "g.csv"]]
)
def test_neo4j_down_is_one_line_naming_db_start(command: list[str], cli_env, tmp_path: Path) -> None:
    env = {**cli_env, "NEO4J_URI": "bolt://127.0.0.1:7999"}
    out = run(command, env, tmp_path)
    assert out.returncode == 2
    assert "not reachable at bolt://127.0.0.1:7999" in out.stderr and "graphwright db start" in out.stderr
    # one message, not the driver's retries (34 s of them once) nor a traceback
    assert "Traceback" not in out.stderr and "retr" not in out.stderr.lower()
    assert len(out.stderr.strip().splitlines()) <= 3


def test_wrong_password_is_one_clear_line(cli_env, tmp_path: Path) -> None:
    env = {**cli_env, "NEO4J_PASSWORD": "definitely-wrong"}
    out = run(["stats"], env, tmp_path)
    assert out.returncode == 2
    assert "refused the credentials" in out.stderr and "definitely-wrong" not in out.stderr + out.stdout


def test_ingest_without_communities_leaves_them_to_a_build(rag, cli_env, tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "corpus")
    out = run(["ingest", str(corpus), "--no-communities", "--json"], cli_env, tmp_path)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["communities"] == {} and rag.store.communities.community_levels() == []

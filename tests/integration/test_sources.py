"""Sources kept in step, against the real Neo4j: a folder synced and re-synced (added, changed, removed,
renamed), a source that cannot be read deleting nothing, and the record `graphwright sources` lists."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from graphwright.errors import SourceError
from tests.integration.helpers import workspace_texts, write_files

ALPHA = "Margaret Hamilton led the team that wrote the Apollo guidance software at the MIT Instrumentation Lab."
BETA = "The Saturn V rocket carried Apollo 11 from the Kennedy Space Center in July 1969."
GAMMA = "Valentina Tereshkova flew Vostok 6 in June 1963, the first woman in space."


def document_ids(rag) -> set[str]:
    return {row["id"] for row in rag.store.read("MATCH (d:Document) RETURN d.id AS id")}


def found(rag, question: str, mode: str = "hybrid") -> set[str]:
    return {c.document_id for c in rag.search(question, mode=mode, k=5).chunks}


def test_a_folder_is_kept_in_step_and_remembered(rag, tmp_path: Path) -> None:
    notes = write_files(
        tmp_path / "notes",
        {"alpha.md": f"# Hamilton\n\n{ALPHA}\n", "beta.txt": BETA, "skip.xyz": "not read"},
    )
    (notes / "records.json").write_text(
        json.dumps([{"id": "r1", "text": GAMMA}, {"id": "r2", "text": "Yuri Gagarin flew Vostok 1 in April 1961."}]),
        encoding="utf-8",
    )
    first = rag.sync(notes)
    assert sorted(first.added) == ["notes/alpha.md", "notes/beta.txt", "notes/records.json"]
    assert first.skipped == ["notes/skip.xyz"] and not first.failures and not first.removed
    assert document_ids(rag) == {"notes/alpha.md", "notes/beta.txt", "r1", "r2"}
    assert "notes/alpha.md" in found(rag, "Who wrote the Apollo guidance software?")

    again = rag.sync(notes)
    assert (again.added, again.changed, again.removed, again.unchanged) == ([], [], [], 3)
    assert again.ingest is None, "an unchanged folder reads no file"

    # changed, removed, renamed, and a JSON record dropped
    (notes / "alpha.md").write_text("# Hamilton\n\nMargaret Hamilton coined the term software engineering.\n")
    (notes / "beta.txt").unlink()
    (notes / "records.json").write_text(json.dumps([{"id": "r1", "text": GAMMA}]), encoding="utf-8")
    os.rename(notes / "records.json", notes / "moved.json")
    third = rag.sync(notes)
    assert third.changed == ["notes/alpha.md"] and third.added == ["notes/moved.json"]
    assert sorted(third.removed) == ["notes/beta.txt", "notes/records.json"]
    assert document_ids(rag) == {"notes/alpha.md", "r1"}
    stored = workspace_texts(rag)
    for gone in ("MIT Instrumentation Lab", "Kennedy Space Center", "Gagarin"):
        assert gone not in stored, f"{gone!r} outlived its file"
    assert "software engineering" in stored

    [record] = rag.sources()
    assert record.id == str(notes) and record.kind == "folder"
    assert record.counts == {"added": 1, "changed": 1, "removed": 2, "unchanged": 0, "failed": 0}
    assert record.items["notes/moved.json"].documents == ["r1"]
    assert record.summary()["documents"] == 2 and record.last_sync


def test_a_source_that_cannot_be_read_deletes_nothing(rag, tmp_path: Path) -> None:
    notes = write_files(tmp_path / "notes", {"alpha.md": ALPHA, "broken.pdf": "%PDF-1.7 not really"})
    report = rag.sync(notes)
    assert [f.source for f in report.failures] == ["notes/broken.pdf"]
    assert rag.sources()[0].items["notes/broken.pdf"].failed
    assert rag.sync(notes).failures == [], "a file that failed is tried again only once it changes"
    moved = tmp_path / "elsewhere"
    notes.rename(moved)  # an unmounted disk looks like this
    with pytest.raises(SourceError, match="no such folder"):
        rag.sync(notes)
    assert document_ids(rag) == {"notes/alpha.md"}
    assert "no such folder" in rag.sources()[0].error
    moved.rename(notes)
    assert rag.sync(notes).unchanged == 2 and rag.sources()[0].error == ""


def test_forgetting_a_source_can_take_its_documents(rag, tmp_path: Path) -> None:
    notes = write_files(tmp_path / "notes", {"alpha.md": ALPHA})
    other = write_files(tmp_path / "other", {"beta.md": BETA})
    rag.sync(notes)
    rag.sync(other)
    kept = rag.forget_source(str(notes), documents=False)
    assert kept.id == str(notes) and "notes/alpha.md" in document_ids(rag)
    rag.forget_source(str(other), documents=True)
    assert document_ids(rag) == {"notes/alpha.md"} and rag.sources() == []


def test_the_commands(rag, cli_env: dict[str, str], tmp_path: Path) -> None:
    from tests.integration.helpers import run

    notes = write_files(tmp_path / "notes", {"alpha.md": ALPHA, "beta.txt": BETA})
    first = run(["sync", "notes", "--extractor", "none"], cli_env, tmp_path)
    assert first.returncode == 0, first.stderr
    assert "2 added, 0 changed, 0 removed" in first.stdout and "notes/alpha.md" in first.stdout
    listed = run(["sources"], cli_env, tmp_path)
    assert listed.returncode == 0 and "folder" in listed.stdout and "+2" in listed.stdout
    (notes / "beta.txt").unlink()
    again = run(["sources", "sync", "-q"], cli_env, tmp_path)
    assert again.returncode == 0 and "1 removed" in again.stdout, again.stdout
    as_json = json.loads(run(["sources", "--json"], cli_env, tmp_path).stdout)
    assert as_json[0]["documents"] == 1 and as_json[0]["counts"]["removed"] == 1
    missing = run(["sync", str(tmp_path / "nowhere")], cli_env, tmp_path)
    assert missing.returncode == 2 and "no such folder" in missing.stderr
    forgot = run(["sources", "forget", "notes", "--documents"], cli_env, tmp_path)
    assert forgot.returncode == 0 and "deleted its 1 documents" in forgot.stdout
    assert document_ids(rag) == set() and run(["sources"], cli_env, tmp_path).stdout.startswith("No sources")
    for command in (["sync"], ["watch"], ["sources"], ["sources", "forget"], ["sources", "sync"]):
        helped = run([*command, "--help"], cli_env, tmp_path)
        assert helped.returncode == 0 and "Example" in helped.stdout

from __future__ import annotations

import json
from pathlib import Path

from graphwright.documents.loaders import content_hash, load_file, load_paths


def test_markdown_title_and_relative_id(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    path = tmp_path / "docs" / "a.md"
    path.write_text("# Apollo\n\nText.", encoding="utf-8")
    result = load_file(path, tmp_path, {"team": "x"})
    doc = result.documents[0]
    assert (doc.id, doc.title, doc.metadata) == ("docs/a.md", "Apollo", {"team": "x"})
    outside = load_file(path, tmp_path / "elsewhere", {})
    assert outside.documents[0].id == path.resolve().as_posix()


def test_json_records_fields_become_metadata(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text(
        json.dumps(
            [
                {
                    "id": 7,
                    "title": "T",
                    "content": "Body",
                    "year": 2020,
                    "tags": ["a", "b"],
                    "nested": {"k": 1},
                    "source": "wiki",
                },
                {"text": "Second"},
            ]
        ),
        encoding="utf-8",
    )
    docs = load_file(path, tmp_path, {}).documents
    assert docs[0].id == "7" and docs[0].text == "Body" and docs[0].title == "T"
    assert docs[0].metadata == {"year": 2020, "tags": ["a", "b"], "nested": '{"k": 1}', "meta_source": "wiki"}
    assert docs[1].id == "r.json#1"


def test_jsonl_bad_lines_are_reported_by_line(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text('{"text": "ok"}\n{broken\n\n{"title": "no text"}\n[1]\n', encoding="utf-8")
    result = load_file(path, tmp_path, {})
    assert [d.id for d in result.documents] == ["r.jsonl#1"]
    where = {f.source.rsplit(":", 1)[1]: f.error for f in result.failures}
    assert set(where) == {"2", "4", "5"}
    assert "invalid JSON" in where["2"] and "no non-empty text field" in where["4"] and "list" in where["5"]


def test_text_field_option(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text('{"question": "Why?", "text": "ignored"}\n', encoding="utf-8")
    assert load_file(path, tmp_path, {}, text_field="question").documents[0].text == "Why?"


def test_bad_inputs(tmp_path: Path) -> None:
    (tmp_path / "bin.txt").write_bytes(b"abc\x00def")
    (tmp_path / "empty.md").write_text("  \n", encoding="utf-8")
    (tmp_path / "big.txt").write_text("x" * 100, encoding="utf-8")
    (tmp_path / "deep.json").write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    (tmp_path / "image.png").write_bytes(b"\x89PNG")
    errors = {}
    for name in ("bin.txt", "empty.md", "deep.json", "image.png", "nope.md"):
        errors[name] = load_file(tmp_path / name, tmp_path, {}).failures[0].error
    errors["big.txt"] = load_file(tmp_path / "big.txt", tmp_path, {}, max_bytes=10).failures[0].error
    assert "binary" in errors["bin.txt"]
    assert "empty" in errors["empty.md"]
    assert "nested too deeply" in errors["deep.json"]
    assert "unsupported file type .png" in errors["image.png"]
    assert "no such file" in errors["nope.md"]
    assert "above the limit" in errors["big.txt"]


def test_folders_skip_hidden_and_unsupported_and_report_duplicates(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "x.md").write_text("hidden", encoding="utf-8")
    (tmp_path / "a.md").write_text("A", encoding="utf-8")
    (tmp_path / "b.txt").write_text("B", encoding="utf-8")
    (tmp_path / "c.png").write_bytes(b"\x89PNG")
    (tmp_path / "one.jsonl").write_text('{"id": "same", "text": "1"}\n', encoding="utf-8")
    (tmp_path / "two.jsonl").write_text('{"id": "same", "text": "2"}\n', encoding="utf-8")
    result = load_paths([tmp_path], tmp_path)
    assert sorted(d.id for d in result.documents) == ["a.md", "b.txt", "same"]
    assert len(result.failures) == 1 and "duplicate document id 'same'" in result.failures[0].error
    only_md = load_paths([tmp_path], tmp_path, glob="*.md")
    assert [d.id for d in only_md.documents] == ["a.md"]


def test_content_hash_covers_text_and_metadata() -> None:
    assert content_hash("a", {"x": 1}) == content_hash("a", {"x": 1})
    assert content_hash("a", {"x": 1}) != content_hash("a", {"x": 2})
    assert content_hash("a", {}) != content_hash("b", {})


def test_files_of_types_we_do_not_read_are_listed_as_skipped(tmp_path: Path) -> None:
    from graphwright.documents.loaders import iter_files

    for name in ("a.md", "b.pptx", "c.XLSX", "d.odt", "sub/e.txt", "sub/f", ".hidden/g.pptx", "sub/.h.pptx"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x", encoding="utf-8")
    skipped: list[Path] = []
    found = list(iter_files([tmp_path], None, skipped))
    assert [p.relative_to(tmp_path).as_posix() for p in found] == ["a.md", "sub/e.txt"]
    assert [p.relative_to(tmp_path).as_posix() for p in skipped] == ["b.pptx", "c.XLSX", "d.odt", "sub/f"]
    only_pptx: list[Path] = []  # a glob is the user's filter: what it leaves out is not "skipped"
    assert list(iter_files([tmp_path], "*.pptx", only_pptx)) == [] and [p.name for p in only_pptx] == ["b.pptx"]


def test_the_embedding_check_names_reembed_and_an_unfinished_run() -> None:
    import pytest

    from graphwright.graph_store.queries.schema import embedding_page
    from graphwright.graph_store.schema import SchemaMismatchError, check_model

    check_model(None, "any")  # an empty database fits every model
    check_model({"model": "m1", "dimension": 384, "reembed_model": None}, "m1")
    with pytest.raises(SchemaMismatchError, match="graphwright reembed"):
        check_model({"model": "m1", "dimension": 384, "reembed_model": None}, "m2")
    with pytest.raises(SchemaMismatchError, match="did not finish"):
        check_model({"model": "m1", "dimension": 384, "reembed_model": "m2"}, "m2")
    check_model({"model": "m1", "dimension": 384, "reembed_model": "m2"}, "m1")  # the old model still serves
    with pytest.raises(ValueError, match="no embeddings on label"):
        embedding_page("Document) DETACH DELETE (n")


def test_relative_sources_name_files_below_base(tmp_path: Path) -> None:
    """A server's uploads: documents and failures are named by their path below base, not where they lie."""
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.md").write_text("# A\n\nalpha", encoding="utf-8")
    (tmp_path / "empty.txt").write_text("", encoding="utf-8")
    doc = load_file(tmp_path / "sub" / "a.md", tmp_path, {}, relative_source=True).documents[0]
    assert (doc.id, doc.source) == ("sub/a.md", "sub/a.md")
    failed = load_file(tmp_path / "empty.txt", tmp_path, {}, relative_source=True).failures[0]
    assert failed.source == "empty.txt"
    assert load_file(tmp_path / "sub" / "a.md", tmp_path, {}).documents[0].source == str(tmp_path / "sub" / "a.md")


def test_a_parser_that_breaks_fails_its_file_alone(tmp_path: Path, monkeypatch) -> None:
    """A plain install once lacked lxml_html_clean: one HTML file's ImportError aborted a 7-file ingest."""
    import graphwright.documents.loaders as loaders

    real = loaders.loader_for

    def broken(suffix: str):
        if suffix == ".html":

            def missing(file) -> None:
                raise ImportError("lxml.html.clean module is now a separate project lxml_html_clean")

            return missing
        if suffix == ".json":

            def buggy(file) -> None:
                raise ValueError("a parser's own bug")

            return buggy
        return real(suffix)

    monkeypatch.setattr(loaders, "loader_for", broken)
    (tmp_path / "a.md").write_text("# A\n\nText.", encoding="utf-8")
    (tmp_path / "b.html").write_text("<p>x</p>", encoding="utf-8")
    (tmp_path / "c.json").write_text("{}", encoding="utf-8")
    (tmp_path / "d.txt").write_text("Plain.", encoding="utf-8")
    result = load_paths([tmp_path], tmp_path)
    assert sorted(d.id for d in result.documents) == ["a.md", "d.txt"]
    reasons = {f.source.rsplit("/", 1)[-1]: f.error for f in result.failures}
    assert reasons["b.html"].startswith("its parser could not load: lxml.html.clean")
    assert reasons["c.json"] == "its parser failed: ValueError: a parser's own bug"

"""Ingest into the real Neo4j: counts, idempotency, replacement, deletion, bad files."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphwright import pipeline
from graphwright.documents.chunking import make_chunks
from graphwright.errors import WriteRejectedError
from tests.integration.corpus import DOCS, LONG_DOC, RECORDS, write_corpus
from tests.integration.helpers import write_files

pytestmark = pytest.mark.integration


def _chunk_rows(rag) -> dict[str, tuple[str, str]]:
    rows = rag.store.read("MATCH (c:Chunk) RETURN c.id AS id, c.document_id AS doc, c.text AS text")
    return {r["id"]: (r["doc"], r["text"]) for r in rows}


def test_ingest_counts_match_the_chunker(rag, tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "corpus")
    report = rag.ingest([corpus], base=tmp_path)
    assert report.ok, report.failures
    stages = {"embed chunks", "write"} | (
        {"extract", "resolve", "embed entities"} if report.extractor != "none" else set()
    )
    assert stages <= report.stage_seconds.keys() and all(s >= 0 for s in report.stage_seconds.values()), report
    assert report.documents_written == len(DOCS) + len(RECORDS)

    from graphwright.documents.loaders import load_paths

    loaded = load_paths([corpus], tmp_path)
    expected = sum(len(make_chunks(d, rag.settings.chunk_size, rag.settings.chunk_overlap)) for d in loaded.documents)
    counts = rag.inspect.stats()
    assert counts["documents"] == len(DOCS) + len(RECORDS)
    assert counts["chunks"] == expected == report.chunks_written
    assert counts["part_of_links"] == expected
    assert counts["next_links"] == expected - counts["documents"]  # a chain per document
    lab_chunks = rag.store.retrieval.get_document("corpus/lab.md")["chunks"]
    assert len(lab_chunks) > 3, "the long document must be split"
    assert [c["index"] for c in lab_chunks] == list(range(len(lab_chunks)))
    # every chunk embedding is in the vector index with the embedder's dimension
    dims = rag.store.read("MATCH (c:Chunk) RETURN DISTINCT size(c.embedding) AS d")
    assert dims == [{"d": rag.embedder.dimension}]


def test_reingest_changes_nothing(rag, tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "corpus")
    rag.ingest([corpus], base=tmp_path)
    before = _chunk_rows(rag)
    stamps = rag.store.read("MATCH (d:Document) RETURN d.id AS id, d.ingested_at AS at ORDER BY id")
    again = rag.ingest([corpus], base=tmp_path)
    assert again.documents_written == 0
    assert again.documents_unchanged == len(DOCS) + len(RECORDS)
    assert _chunk_rows(rag) == before
    assert rag.store.read("MATCH (d:Document) RETURN d.id AS id, d.ingested_at AS at ORDER BY id") == stamps


def test_changed_file_replaces_its_chunks(rag, tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "corpus")
    rag.ingest([corpus], base=tmp_path)
    before = _chunk_rows(rag)
    (corpus / "cats.md").write_text("# Cats\n\nThe dog chased the cat up an old oak tree.\n", encoding="utf-8")
    report = rag.ingest([corpus], base=tmp_path)
    assert report.documents_written == 1
    after = _chunk_rows(rag)
    old_cat = {cid for cid, (doc, _) in before.items() if doc == "corpus/cats.md"}
    new_cat = {cid for cid, (doc, _) in after.items() if doc == "corpus/cats.md"}
    assert old_cat and new_cat and not old_cat & new_cat
    assert all("oak tree" in after[cid][1] or "Cats" in after[cid][1] for cid in new_cat)
    assert not any("purred" in text for _, text in after.values())
    others_before = {cid for cid, (doc, _) in before.items() if doc != "corpus/cats.md"}
    assert others_before <= set(after)  # untouched documents keep their chunk ids


def test_delete_removes_document_and_chunks(rag, tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "corpus")
    rag.ingest([corpus], base=tmp_path)
    n_lab = len(rag.store.retrieval.get_document("corpus/lab.md")["chunks"])
    total = rag.inspect.stats()
    assert rag.delete_document("corpus/lab.md") == n_lab
    assert rag.store.retrieval.get_document("corpus/lab.md") is None
    after = rag.inspect.stats()
    assert after["documents"] == total["documents"] - 1
    assert after["chunks"] == total["chunks"] - n_lab
    assert rag.store.read("MATCH (c:Chunk {document_id: 'corpus/lab.md'}) RETURN count(c) AS n") == [{"n": 0}]
    assert rag.delete_document("corpus/lab.md") is None
    hits = rag.search("experiment measurement of sample under steady conditions", mode="hybrid", k=10)
    assert all(c.document_id != "corpus/lab.md" for c in hits.chunks)


def test_bad_files_are_named_and_the_rest_ingests(rag, tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "corpus")
    (corpus / "image.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00")
    (corpus / "empty.txt").write_text("", encoding="utf-8")
    (corpus / "broken.json").write_text('{"text": "unterminated', encoding="utf-8")
    (corpus / "latin1.txt").write_bytes("Caf\xe9 au lait in M\xfcnchen.".encode("latin-1"))
    report = rag.ingest([corpus, tmp_path / "missing.md"], base=tmp_path)
    failed = {Path(f.source).name: f.error for f in report.failures}
    assert set(failed) == {"image.md", "empty.txt", "broken.json", "missing.md"}
    assert "binary" in failed["image.md"]
    assert "empty" in failed["empty.txt"]
    assert "invalid JSON" in failed["broken.json"]
    assert "no such file" in failed["missing.md"]
    assert any("latin1.txt" in w and "UTF-8" in w for w in report.warnings)
    assert report.documents_written == len(DOCS) + len(RECORDS) + 1  # the cp1252 file is kept
    doc = rag.store.retrieval.get_document("corpus/latin1.txt")
    assert "Café" in doc["chunks"][0]["text"]


def test_record_metadata_becomes_document_properties(rag, tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "corpus")
    rag.ingest([corpus], base=tmp_path, metadata={"collection": "tests"})
    doc = rag.store.retrieval.get_document("rec-rockets-2023")["document"]
    assert doc["category"] == "rockets" and doc["year"] == 2023 and doc["collection"] == "tests"
    assert doc["title"] == "Methane engines"


def test_a_document_bigger_than_a_group_is_staged_then_swapped_in_whole(
    rag, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rag.settings.ingest_group_chunks = 3  # the "lab" document has more chunks than that
    corpus = write_corpus(tmp_path / "corpus")
    report = rag.ingest([corpus], base=tmp_path)
    assert report.ok and not rag.inspect.check()
    lab = rag.store.retrieval.get_document("corpus/lab.md")["chunks"]
    assert len(lab) > 3 and [c["index"] for c in lab] == list(range(len(lab)))
    old_ids = {c["id"] for c in lab}
    hit = rag.search("experiment measurement of sample under steady conditions", mode="vector", k=3)
    assert hit.chunks[0].document_id == "corpus/lab.md"  # promoted chunks are in the vector index

    # A failure after staging, before the swap: the old version stays whole, and the run says which failed.
    lab_file = corpus / "lab.md"
    lab_file.write_text(
        lab_file.read_text(encoding="utf-8") + "\n\nA new closing paragraph on calibration.\n", encoding="utf-8"
    )
    real_commit = rag.store.writes.commit_staged

    def failing_commit(*args, **kwargs):
        raise WriteRejectedError("simulated fault before the swap")  # e.g. Neo4j's transaction memory limit

    monkeypatch.setattr(rag.store.writes, "commit_staged", failing_commit)
    failed = rag.ingest([corpus], base=tmp_path)
    assert [f.source for f in failed.failures] == [str(lab_file)] and "simulated" in failed.failures[0].error
    assert {c["id"] for c in rag.store.retrieval.get_document("corpus/lab.md")["chunks"]} == old_ids
    assert not rag.inspect.check() and rag.inspect.resumable()["examples"] == ["corpus/lab.md"]
    assert not any("calibration" in c.text for c in rag.search("calibration", mode="hybrid", k=10).chunks)

    monkeypatch.setattr(rag.store.writes, "commit_staged", real_commit)
    again = rag.ingest([corpus], base=tmp_path)
    assert again.ok and again.documents_written == 1 and not rag.inspect.check()  # the staged version goes in
    lab = rag.store.retrieval.get_document("corpus/lab.md")
    # nothing embedded or extracted twice: the failed run had staged every chunk of the new version
    assert again.chunks_resumed == len(lab["chunks"]) and rag.inspect.resumable()["n"] == 0
    assert any("calibration" in c["text"] for c in lab["chunks"]) and len(lab["chunks"]) == lab["document"]["n_chunks"]


def test_a_staged_write_the_driver_retried_is_swapped_in_once(
    rag, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A commit that reached Neo4j but whose reply was lost (a restart) is run again by the driver's retry.
    rag.settings.ingest_group_chunks = 1
    real_stage = rag.store.writes.stage_chunks

    def stage_twice(*args, **kwargs):
        real_stage(*args, **kwargs)
        real_stage(*args, **kwargs)

    monkeypatch.setattr(rag.store.writes, "stage_chunks", stage_twice)
    report = rag.ingest([write_corpus(tmp_path / "corpus")], base=tmp_path)
    assert report.ok, report.failures
    assert not rag.inspect.check()
    rows = rag.store.read("MATCH (c:Chunk) RETURN count(c) AS n, count(DISTINCT c.id) AS ids")[0]
    assert (
        rows["n"]
        == rows["ids"]
        == sum(d["n_chunks"] for d in rag.store.read("MATCH (d:Document) RETURN d.n_chunks AS n_chunks"))
    )


def test_an_ingest_stopped_halfway_through_a_large_document_goes_on_from_where_it_stopped(
    rag, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C at about half of a large document: the same command extracts only the chunks left, and writes
    the graph an uninterrupted run writes."""
    rag.settings.ingest_group_chunks = 2
    corpus = write_files(tmp_path / "corpus", {"lab.md": "# Lab notes\n\n" + LONG_DOC})
    seen: list[str] = []
    stop_after = [4]
    real = pipeline.extract_checked

    def extract(extractor, items, *args, **kwargs):
        if len(seen) >= stop_after[0]:
            raise KeyboardInterrupt  # what Ctrl-C raises in the main thread
        seen.extend(chunk_id for chunk_id, _ in items)
        return real(extractor, items, *args, **kwargs)

    monkeypatch.setattr(pipeline, "extract_checked", extract)
    with pytest.raises(KeyboardInterrupt):
        rag.ingest([corpus], base=tmp_path, extractor="nlp")
    assert rag.inspect.stats()["documents"] == 0 and not rag.inspect.check()
    staged = rag.inspect.resumable()
    assert staged["n"] == len(seen) == 4 and staged["examples"] == ["corpus/lab.md"]
    table = rag.inspect.document_table()
    assert [(d.id, d.status, d.chunks) for d in table.documents] == [("corpus/lab.md", "interrupted", 4)]

    first_run = list(seen)
    seen.clear()
    stop_after[0] = 10**6
    report = rag.ingest([corpus], base=tmp_path, extractor="nlp")
    assert report.ok and report.documents_written == 1 and report.chunks_resumed == 4
    total = rag.store.retrieval.get_document("corpus/lab.md")["document"]["n_chunks"]
    assert not set(seen) & set(first_run) and len(seen) == total - 4  # only what was left
    resumed = {k: rag.inspect.stats()[k] for k in ("chunks", "entities", "relations", "mentions")}
    assert not rag.inspect.check() and rag.inspect.resumable()["n"] == 0

    # the graph is the one an uninterrupted run writes
    rag.store.admin.reset()
    rag.init()
    rag.ingest([corpus], base=tmp_path, extractor="nlp")
    assert {k: rag.inspect.stats()[k] for k in ("chunks", "entities", "relations", "mentions")} == resumed


def test_a_changed_document_embeds_only_its_changed_passages(rag, tmp_path: Path, monkeypatch) -> None:
    from graphwright.models import chunk_embedding_text

    corpus = write_files(tmp_path / "corpus", {"lab.md": "# Lab notes\n\n" + LONG_DOC})
    rag.ingest([corpus], base=tmp_path, extractor="nlp")
    read = "MATCH (c:Chunk) RETURN c.context AS context, c.text AS text, c.embedding AS embedding"
    before = {chunk_embedding_text(r["context"], r["text"]): r["embedding"] for r in rag.store.read(read)}
    assert len(before) > 3

    last = LONG_DOC.split("\n\n")[-1]
    write_files(corpus, {"lab.md": "# Lab notes\n\n" + LONG_DOC.replace(last, "The centrifuge was replaced in March.")})
    embedded: list[str] = []
    real = rag.embedder.embed
    monkeypatch.setattr(rag.embedder, "embed", lambda texts: embedded.extend(texts) or real(texts))
    report = rag.ingest([corpus], base=tmp_path, extractor="nlp")

    after = {chunk_embedding_text(r["context"], r["text"]): r["embedding"] for r in rag.store.read(read)}
    new = set(after) - set(before)
    assert report.documents_written == 1 and new and any("centrifuge" in t for t in new)
    assert report.vectors_reused == len(after) - len(new) > 0
    assert {t for t in embedded if t in after} == new, "only the changed passages reach the embedder"
    assert all(after[t] == before[t] for t in set(after) - new), "the others keep their stored vectors"
    # a kept vector is the one the model gives the text today
    kept = sorted(set(after) - new)[0]
    assert max(abs(a - b) for a, b in zip(real([kept])[0], after[kept])) < 1e-5
    assert [r.document_id for r in rag.search("When was the centrifuge replaced?", mode="vector", k=1).chunks] == [
        "corpus/lab.md"
    ]

    # a document written under another id embeds all of its passages: vectors are kept only within a document
    embedded.clear()
    other = write_files(tmp_path / "other", {"lab.md": "# Lab notes\n\n" + LONG_DOC})
    assert rag.ingest([other], base=tmp_path, extractor="nlp").vectors_reused == 0
    assert len([t for t in embedded if t in before]) == len(before)

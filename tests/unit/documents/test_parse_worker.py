"""Every file is read in a child process within a time and memory budget (issue 76, finding 4): a file past
it fails alone, by name and limit, and the next file is read by a new child. Real child processes."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphwright.documents.formats import read_docx
from graphwright.documents.parse_worker import ParseBudget, ParseWorker
from tests.documents import make_docx, style_bomb_docx

MAX = 50 * 1024 * 1024


def _load(worker: ParseWorker, path: Path):
    return worker.load(path, path.parent, {}, None, MAX, False, None)


def _slow_html(path: Path) -> Path:
    """About 9 MB of HTML (under the 10 MB HTML limit): its main-text extraction takes seconds."""
    rows = "".join(f"<p>Paragraph {i} has some words, and <b>bold</b> ones.</p>" for i in range(120_000))
    path.write_text(f"<html><body>{rows}</body></html>", encoding="utf-8")
    return path


def test_word_styles_are_looked_up_once_not_per_paragraph(tmp_path: Path, monkeypatch) -> None:
    """The quadratic path (python-docx's Paragraph.style, a search of every style per paragraph) is not taken,
    and headings are still found by their style's name: a style-bomb file reads whole."""
    from docx.text.paragraph import Paragraph

    def refused(self: Paragraph) -> None:
        raise AssertionError("Paragraph.style searches every style for each paragraph")

    plain = make_docx(tmp_path / "plain.docx", [("h1", "Findings"), ("p", "The turbine works."), ("h2", "Cost")])
    monkeypatch.setattr(Paragraph, "style", property(refused))
    read = read_docx(plain.read_bytes())
    assert [p.section for p in read.parts] == ["Findings", "Findings › Cost"]
    bomb = style_bomb_docx(tmp_path / "bomb.docx", 8000, 8000)
    assert bomb.stat().st_size < 200_000
    found = read_docx(bomb.read_bytes())
    assert sum(p.text.count("para ") for p in found.parts) == 8000
    assert any(p.section.startswith("para 7999") for p in found.parts)  # the "Heading 1" style's paragraph


def test_a_file_past_its_time_fails_alone_and_the_next_is_read(tmp_path: Path) -> None:
    slow = _slow_html(tmp_path / "slow.html")
    after = tmp_path / "after.md"
    after.write_text("# After\nRead by a new child.\n", encoding="utf-8")
    with ParseWorker(ParseBudget(seconds=0.5)) as worker:
        failed = _load(worker, slow)
        read = _load(worker, after)
    assert not failed.documents and len(failed.failures) == 1
    assert failed.failures[0].source.endswith("slow.html")
    assert "more than 0.5 s (GRAPHWRIGHT_MAX_PARSE_SECONDS)" in failed.failures[0].error
    assert [d.title for d in read.documents] == ["After"] and not read.failures


def test_a_file_past_its_memory_fails_alone_by_name(tmp_path: Path) -> None:
    slow = _slow_html(tmp_path / "big.html")
    small = tmp_path / "small.md"
    small.write_text("# Small\nFits.\n", encoding="utf-8")
    with ParseWorker(ParseBudget(memory_mb=300)) as worker:
        assert _load(worker, small).documents
        failed = _load(worker, slow)
        again = _load(worker, small)
    assert not failed.documents and failed.failures[0].source.endswith("big.html")
    assert "GRAPHWRIGHT_MAX_PARSE_MEMORY_MB" in failed.failures[0].error
    assert again.documents and not again.failures


def test_a_child_that_dies_costs_one_file_and_the_next_gets_a_new_child(tmp_path: Path) -> None:
    """A crash while reading (the child killed mid-file, as the kernel's OOM killer would) fails that file."""
    import threading

    one = tmp_path / "one.md"
    one.write_text("# One\ntext\n", encoding="utf-8")
    slow = _slow_html(tmp_path / "slow.html")
    with ParseWorker(ParseBudget()) as worker:
        assert _load(worker, one).documents
        process = worker._process
        assert process is not None
        threading.Timer(0.5, process.kill).start()
        lost = _load(worker, slow)
        back = _load(worker, one)
        assert worker._process is not None and worker._process.pid != process.pid
    assert lost.failures and "its parser stopped" in lost.failures[0].error
    assert back.documents and not back.failures


@pytest.mark.parametrize("suffix", [".pdf", ".docx", ".html", ".md", ".json"])
def test_every_format_goes_through_the_child(tmp_path: Path, suffix: str) -> None:
    """Whatever the type, a worker with no time at all fails the file: nothing is read in this process."""
    path = tmp_path / f"x{suffix}"
    path.write_bytes(b"%PDF-1.4\n" if suffix == ".pdf" else b"{}" if suffix == ".json" else b"<p>text</p>")
    with ParseWorker(ParseBudget(seconds=1e-6, pdf_seconds=-30.0 + 1e-6)) as worker:
        failed = _load(worker, path)
    assert failed.failures and "GRAPHWRIGHT_MAX_PARSE_SECONDS" in failed.failures[0].error

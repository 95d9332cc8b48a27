"""The page's last gaps to LightRAG's WebUI, in headless Chromium against a real server and Neo4j: files dropped
on the documents tab are uploaded; a failed row is retried from the upload the server kept and deleted like a
document; an entity's description is edited; an entity is pruned from the drawing; one wheel notch zooms
enough to see; each Undo names the change it undoes; a passage shows one relevance number, the answer's; the
system's dark theme is followed."""

from __future__ import annotations

import re
import shutil

import httpx
import pytest

from tests.integration.conftest import WRITE
from tests.integration.test_browser import SHOTS, served_page

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian's chromium is not installed"),
]
CY = "window.graphwrightExplorer"
AUTH = {"Authorization": f"Bearer {WRITE}"}

# A drop of files, as a browser makes it: a DataTransfer holding them, on the documents tab.
DROP = """([names, texts]) => {
  const data = new DataTransfer();
  names.forEach((name, i) => data.items.add(new File([texts[i]], name, { type: "text/plain" })));
  const panel = document.getElementById("panel-documents");
  panel.dispatchEvent(new DragEvent("dragover", { dataTransfer: data, bubbles: true, cancelable: true }));
  const dragging = panel.classList.contains("dragging");
  panel.dispatchEvent(new DragEvent("drop", { dataTransfer: data, bubbles: true, cancelable: true }));
  return dragging;
}"""


def test_dropped_files_upload_and_a_failed_row_is_retried_then_deleted(live) -> None:
    with served_page(live, WRITE, 1000) as (page, outside):
        page.click("#tab-documents")
        page.locator("#documents tr").first.wait_for(timeout=15000)
        names, texts = ["dropped-note.txt", "dropped-blank.txt"], ["The Dropped Note names the Lunar Gateway.", "  "]
        assert page.evaluate(DROP, [names, texts])  # the tab shows it takes the drop
        page.locator("#job-status", has_text="succeeded").wait_for(timeout=120000)
        assert "1 written" in page.inner_text("#job-status") and "1 failed" in page.inner_text("#job-status")
        assert not page.evaluate("document.getElementById('panel-documents').classList.contains('dragging')")
        assert any(d.id == "dropped-note.txt" for d in live.rag.inspect.documents(0, 1000))

        # the failed row: a checkbox like any row's, and a retry from the copy the server kept
        page.fill("#doc-search", "dropped-blank")
        page.wait_for_function("document.querySelectorAll('#documents tr').length === 1", timeout=15000)
        assert page.locator("#documents tr.status-failed input[type=checkbox]").count() == 1
        page.click("#documents tr.status-failed button.retry")
        # the kept copy is still blank: its one file failed again, and the job says why
        page.locator("#job-status", has_text="every file failed").wait_for(timeout=120000)
        assert "empty" in page.inner_text("#job-status")
        page.screenshot(path=str(SHOTS / "page-retry.png"))

        page.check("#documents tr.status-failed input[type=checkbox]")
        prompts: list[str] = []
        page.once("dialog", lambda d: (prompts.append(d.message), d.accept()))
        page.click("#doc-delete")
        page.wait_for_function("document.querySelectorAll('#documents tr').length === 0", timeout=30000)
        assert "failed file" in prompts[0]
        assert live.rag.inspect.document_table().counts.get("failed", 0) == 0 or not any(
            d.id == "dropped-blank.txt" for d in live.rag.inspect.document_table().documents
        )
        gone = httpx.post(f"{live.url}/v1/documents/retry", json={"id": "dropped-blank.txt"}, headers=AUTH)
        assert gone.status_code == 404  # its kept copy went with the row
        live.rag.delete_document("dropped-note.txt")
    assert not outside, outside


def test_a_failed_uploads_kept_copy_is_what_the_retry_ingests(live) -> None:
    """The retry ingests the copy the server kept (here fixed on disk, as an operator could), and a file that
    goes in is no longer kept."""
    files = {"files": ("kept-retry.txt", b"   ", "text/plain")}
    job = httpx.post(f"{live.url}/v1/documents", files=files, headers=AUTH, timeout=30).json()
    from tests.serve_process import wait_job

    assert wait_job(live.url, job["id"], AUTH)["result"]["failures"]
    kept = list((live.server_home / "uploads" / "failed").rglob("kept-retry.txt"))
    assert len(kept) == 1, (job, sorted(map(str, (live.server_home / "uploads").rglob("*"))))
    kept[0].write_text("The Kept Retry file names the Artemis program.", encoding="utf-8")
    again = httpx.post(f"{live.url}/v1/documents/retry", json={"id": "kept-retry.txt"}, headers=AUTH, timeout=30)
    assert again.status_code == 202, again.text
    done = wait_job(live.url, again.json()["id"], AUTH)
    assert done["status"] == "succeeded" and done["result"]["documents_written"] == 1
    assert "kept-retry.txt" in {d.id for d in live.rag.inspect.documents(0, 1000)}
    assert not list((live.server_home / "uploads" / "failed").rglob("kept-retry.txt"))  # went in: not kept
    nothing = httpx.post(f"{live.url}/v1/documents/retry", json={"id": "../../etc/passwd"}, headers=AUTH)
    assert nothing.status_code == 404
    live.rag.delete_document("kept-retry.txt")


def test_describe_prune_wheel_zoom_and_undo_that_names_its_change(live) -> None:
    with served_page(live, WRITE, 1000) as (page, outside):
        page.click("#tab-graph")
        page.wait_for_function(f"{CY} && {CY}.nodes().length > 5", timeout=30000)  # drawn and laid out
        # one wheel notch zooms by a visible step about the pointer (it was about 4%)
        box = page.locator("#kg").bounding_box()
        assert box is not None
        before = page.evaluate(f"{CY}.zoom()")
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.mouse.wheel(0, -100)
        page.wait_for_timeout(300)
        after = page.evaluate(f"{CY}.zoom()")
        assert after / before > 1.1, (before, after)

        page.fill("#entity-q", "Starbase")
        page.click("#entity-find")
        page.locator("#entity-hits button", has_text="Starbase").first.click()
        page.locator("#detail-name", has_text="Starbase").wait_for(timeout=15000)
        original = page.inner_text("#detail-description")
        page.click("#edit-description")
        assert page.input_value("#description-text") == original
        page.fill("#description-text", "SpaceX's launch site in Texas, as a curator wrote it.")
        page.click("#save-description")
        page.locator("#detail-description", has_text="as a curator wrote it").wait_for(timeout=30000)
        assert page.is_hidden("#description-editor")
        page.locator("#history li:first-child", has_text="described").wait_for(timeout=15000)
        page.fill("#curate-value", "Starbase Texas")
        page.click("#do-rename")
        page.locator("#history li:first-child", has_text="renamed").wait_for(timeout=30000)

        # each Undo's question names the change it undoes: the rename, then the description (not the undo)
        prompts: list[str] = []
        page.on("dialog", lambda d: (prompts.append(d.message), d.accept()))
        page.click("#undo-last")
        page.locator("#history li:first-child", has_text="undid").wait_for(timeout=30000)
        page.wait_for_function("document.getElementById('undo-last').dataset.summary.startsWith('described')")
        page.click("#undo-last")
        page.wait_for_function("document.querySelectorAll('#history li.undone').length === 2", timeout=30000)
        assert re.match(r"Undo c\d+: renamed 'Starbase' to 'Starbase Texas'\?", prompts[0]), prompts
        assert re.match(r"Undo c\d+: described 'Starbase'\?", prompts[1]), prompts
        row = live.rag.store.read("MATCH (e:Entity {name: 'Starbase'}) RETURN e.description AS d")
        assert row == [{"d": original}]  # both undone, exactly

        # prune: the open entity leaves the drawing with the neighbours only it connected
        page.locator("#entity-hits button", has_text="Starbase").first.click()
        page.locator("#detail-name", has_text="Starbase").wait_for(timeout=15000)
        page.wait_for_function(f"{CY}.nodes().length > 1", timeout=15000)
        node = page.evaluate("document.getElementById('entity-detail').dataset.id")
        count = page.evaluate(f"{CY}.nodes().length")
        page.click("#kg-prune")
        assert page.evaluate(f"{CY}.getElementById({node!r}).empty()")
        assert page.evaluate(f"{CY}.nodes().length") < count and page.is_hidden("#entity-detail")
        assert "pruned" in page.inner_text("#explore-status")
    assert not outside, outside
    assert live.rag.inspect.check() == {}


def test_a_passage_shows_the_answers_relevance_and_the_dark_theme_is_followed(live) -> None:
    with served_page(live, WRITE, 1000, color_scheme="dark") as (page, outside):
        background = page.evaluate("getComputedStyle(document.body).backgroundColor")
        assert background == "rgb(20, 25, 31)", background  # the dark surface, as the system asks
        page.fill("#question", "Who founded SpaceX?")
        page.check("#no-llm")
        page.click("#ask")
        page.locator("#status", has_text="done in").wait_for(timeout=60000)
        answer = page.inner_text("#answer")
        first = re.search(r"\[1\][^\n]*relevance (\d\.\d\d)", answer)
        assert first, answer
        meta = page.inner_text("#passages li:first-child .meta")
        assert f"relevance {first.group(1)}" in meta and "score" not in meta  # one number, the answer's
        page.screenshot(path=str(SHOTS / "page-dark.png"))
        page.click("#tab-graph")
        page.wait_for_function(f"{CY} && {CY}.nodes().length > 5", timeout=30000)  # drawn and laid out
        label = page.evaluate(f"{CY}.nodes()[0].style('color')")
        assert label == "rgb(228,231,235)" or label == "rgb(228, 231, 235)", label  # names readable on dark
    assert not outside, outside

"""The web page of `graphwright serve`, used the way a newcomer would in headless Chromium (Playwright):
give the key, ask, see the answer, cited passages, answer graph and Browser link; upload a file and watch
its job; stats. Screenshots are kept under .graphwright/screenshots/ (the README shows one)."""

from __future__ import annotations

import shutil
from pathlib import Path

import httpx
import pytest

from tests.integration.conftest import READ, WRITE
from tests.integration.test_browser import SHOTS, served_page

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian's chromium is not installed"),
]


def test_newcomer_asks_and_uploads_in_the_page(live, tmp_path: Path) -> None:
    note = tmp_path / "kestrel-station.md"
    note.write_text(
        "# Kestrel Station\n\nKestrel Station is a research base on Europa run by Dr. Mara Voss.\n", encoding="utf-8"
    )
    with served_page(live, WRITE, 1100) as (page, outside):
        page.locator("#stats", has_text="12 documents").wait_for(timeout=15000)
        assert page.locator("#mode option").count() >= 5
        page.fill("#question", "Which rocket launched Apollo 11 to the Moon?")
        page.select_option("#mode", "local")
        page.click("#ask")
        page.locator("#status", has_text="done in").wait_for(timeout=60000)
        answer = page.inner_text("#answer")
        assert "Saturn V" in answer, answer
        assert "local" in page.inner_text("#answer-kind")
        assert page.locator("#passages li").count() >= 1 and page.locator("#passages li.cited").count() >= 1
        link = page.get_attribute("#browser-link", "href")
        assert link and link.startswith("http://127.0.0.1:") and "/browser/" in link
        graph = page.frame_locator("#graph")
        graph.locator("svg .node").first.wait_for(timeout=15000)
        assert graph.locator("svg .node").count() >= 2
        panel, drawing = page.locator("#graph").bounding_box(), graph.locator("svg").bounding_box()
        assert panel and drawing and drawing["width"] <= panel["width"], (panel, drawing)  # the graph fits its panel
        page.screenshot(path=str(SHOTS / "serve-page.png"), full_page=True)

        page.click("#tab-documents")
        page.set_input_files("#files", str(note))
        page.click("#upload")
        page.locator("#job-status", has_text="succeeded").wait_for(timeout=120000)
        assert "1 written" in page.inner_text("#job-status")
        page.locator("#documents tr", has_text="Kestrel Station").wait_for(timeout=15000)
        page.locator("#stats", has_text="13 documents").wait_for(timeout=15000)
        page.screenshot(path=str(SHOTS / "serve-page-upload.png"), full_page=True)
    assert not outside, f"the page fetched from outside the server: {outside}"
    hit = httpx.post(
        f"{live.url}/v1/search",
        headers={"Authorization": f"Bearer {READ}"},
        json={"question": "Who runs Kestrel Station?", "mode": "vector", "k": 1},
    ).json()
    assert hit["chunks"][0]["document_id"] == "kestrel-station.md"
    assert (
        httpx.delete(
            f"{live.url}/v1/documents/kestrel-station.md", headers={"Authorization": f"Bearer {WRITE}"}
        ).status_code
        == 200
    )


def test_the_page_is_a_thread_with_follow_ups(live) -> None:
    with served_page(live, READ, 1100) as (page, _):
        page.locator("#mode option").first.wait_for(state="attached", timeout=15000)
        page.select_option("#mode", "local")
        page.fill("#question", "Tell me about the Hubble Space Telescope.")
        page.click("#ask")
        page.locator("#thread li").first.wait_for(timeout=60000)
        assert page.input_value("#question") == "", "the box is cleared for the follow-up"
        page.fill("#question", "Who made its primary mirror?")
        page.click("#ask")
        page.locator("#thread li").nth(1).wait_for(timeout=60000)
        note = page.inner_text("#followup")
        assert "carried Hubble Space Telescope" in note, note
        assert "Hubble Space Telescope" in page.inner_text("#passages li >> nth=0")
        assert page.locator("#thread li").count() == 2
        page.screenshot(path=str(SHOTS / "serve-page-thread.png"), full_page=True)
        page.click("#new-thread")
        assert page.locator("#thread li").count() == 0 and page.is_hidden("#result")
        page.fill("#question", "Who made its primary mirror?")
        page.click("#ask")
        page.locator("#thread li").first.wait_for(timeout=60000)
        assert page.is_hidden("#followup"), "a new conversation carries nothing"

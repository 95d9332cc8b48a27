"""The page of `graphwright serve` as an app, in headless Chromium (Playwright) against a real server and
Neo4j: its tabs and workspace selector, every search option of the Ask tab, the explorer's drawing (overview,
zoom, pan, drag, fit, layouts, the type legend in the answer graph's colours, relation labels), curation that
confirms first, the documents table (failed files with their reason, search, status filter, sort, pages,
multi-select delete), the API tab and Swagger UI offline, and a 420 px wide screen. Nothing may be
fetched from outside the server. Screenshots go to .graphwright/screenshots/page-*.png (docs/screenshots has
copies)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from tests.integration.conftest import WRITE
from tests.integration.test_browser import SHOTS, served_page

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian's chromium is not installed"),
]
CY = "window.graphwrightExplorer"


def _rgb(hex_colour: str) -> str:
    r, g, b = (int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgb({r}, {g}, {b})"


def test_tabs_and_the_workspace_selector(live) -> None:
    live.rag.workspaces.create("page-app")
    try:
        with served_page(live, WRITE, 900) as (page, outside):
            page.locator("#workspace option", has_text="page-app").wait_for(state="attached", timeout=15000)
            assert page.input_value("#workspace") == live.rag.workspace  # the open one is shown
            for tab in ("graph", "documents", "api", "ask"):
                page.click(f"#tab-{tab}")
                assert page.is_visible(f"#panel-{tab}") and page.get_attribute(f"#tab-{tab}", "aria-selected") == "true"
                assert sum(page.is_visible(f"#panel-{t}") for t in ("ask", "graph", "documents", "api")) == 1
                assert page.url.endswith(f"#{tab}")
            page.select_option("#workspace", "page-app")
            page.wait_for_url(re.compile(r"/w/page-app/"), timeout=15000)
            page.locator("#stats", has_text="0 documents").wait_for(timeout=15000)
            assert page.input_value("#workspace") == "page-app" and "page-app" in page.title()
            page.screenshot(path=str(SHOTS / "page-workspace.png"))
            page.select_option("#workspace", live.rag.workspace)
            page.wait_for_url(re.compile(r":\d+/#"), timeout=15000)
            page.locator("#stats", has_text="12 documents").wait_for(timeout=15000)
        assert not outside, outside
    finally:
        live.rag.workspaces.delete("page-app", yes=True)


def test_the_ask_tab_sends_every_search_option(live) -> None:
    def stream_body(request) -> None:
        if request.url.endswith("/v1/search/stream"):
            sent.append(json.loads(request.post_data))

    def ask(question: str, mode: str) -> None:
        page.fill("#question", question)
        page.select_option("#mode", mode)
        page.click("#ask")
        page.wait_for_function("!document.querySelector('#ask').disabled", timeout=60000)

    with served_page(live, WRITE, 1000) as (page, outside):
        sent: list[dict] = []
        page.on("request", stream_body)
        page.locator("#mode option", has_text="path").wait_for(state="attached", timeout=15000)
        page.fill("#k", "3")
        page.check("#no-llm")
        page.click("#options summary")
        page.fill("#where", "year>=1900\ncategory!=none")
        ask("reusable rockets", "hybrid")
        assert "done in" in page.inner_text("#status")
        assert sent[-1]["mode"] == "hybrid" and sent[-1]["k"] == 3 and sent[-1]["generate"] is False
        assert sent[-1]["where"] == ["year>=1900", "category!=none"] and sent[-1]["history"] == []
        page.fill("#where", "")
        page.fill("#source", "Jeff Bezos")
        page.fill("#target", "NASA")
        ask("How are they connected?", "path")
        assert "done in" in page.inner_text("#status") and "path" in page.inner_text("#answer-kind")
        assert (sent[-1]["source"], sent[-1]["target"]) == ("Jeff Bezos", "NASA") and len(sent[-1]["history"]) == 2
        page.screenshot(path=str(SHOTS / "page-ask-options.png"), full_page=True)
        page.fill("#source", "")
        page.fill("#target", "")
        page.fill("#level", "0")
        ask("What are the main themes?", "global")
        assert "done in" in page.inner_text("#status") and sent[-1]["level"] == 0
        # an option the server cannot serve is said on the page: HyDE needs an LLM this server has not
        page.fill("#level", "")
        page.check("#hyde")
        ask("reusable rockets", "hybrid")
        assert sent[-1]["hyde"] is True and "error" in page.get_attribute("#status", "class")
        page.uncheck("#hyde")
        page.fill("#conversation", "no-such-conversation")
        ask("reusable rockets", "hybrid")
        assert sent[-1]["conversation_id"] == "no-such-conversation" and "history" not in sent[-1]
        assert "error" in page.get_attribute("#status", "class")
    assert not outside, outside


def test_the_explorer_zooms_pans_drags_filters_and_shares_the_answer_graph_legend(live) -> None:
    with served_page(live, WRITE, 1100) as (page, outside):
        # the answer graph's legend, for the colours
        page.fill("#question", "Which rocket launched Apollo 11 to the Moon?")
        page.select_option("#mode", "local")
        page.click("#ask")
        page.frame_locator("#graph").locator("svg .node").first.wait_for(timeout=60000)
        answer_legend = page.frame_locator("#graph").locator("body").inner_html()

        page.click("#tab-graph")
        page.wait_for_function(f"{CY} && {CY}.nodes().length > 0", timeout=15000)
        page.fill("#kg-limit", "25")
        page.click("#kg-overview")
        page.locator("#explore-status", has_text="entities,").wait_for(timeout=15000)
        assert page.evaluate(f"{CY}.nodes().length") == 25
        degrees = page.evaluate(f"{CY}.nodes().map((n) => n.data('degree'))")
        assert min(degrees) >= 1  # the most connected entities

        # legend: each type's swatch in the answer graph's colour; unticking a type hides its entities
        for swatch in page.locator("#kg-legend .swatch").all():
            kind = swatch.get_attribute("data-type")
            colour = re.search(rf"background:(#[0-9a-f]{{6}})\"?[^>]*></i>{kind.title()}", answer_legend)
            if colour:
                assert swatch.evaluate("e => getComputedStyle(e).backgroundColor") == _rgb(colour.group(1))
        first = page.locator("#kg-legend input").first
        kind = first.get_attribute("data-type")
        shown = page.evaluate(f"{CY}.nodes(':visible').length")
        first.uncheck()
        hidden = page.evaluate(f"{CY}.nodes().filter((n) => n.data('type') === {kind!r}).length")
        assert 0 < hidden < shown
        page.wait_for_function(f"{CY}.nodes(':visible').length === {shown - hidden}", timeout=5000)
        first.check()

        # zoom (buttons and the wheel), pan (drag the background), drag a node, fit
        before = page.evaluate(f"{CY}.zoom()")
        page.click("#kg-zoom-in")
        assert page.evaluate(f"{CY}.zoom()") > before
        box = page.locator("#kg").bounding_box()
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.mouse.wheel(0, 400)
        page.wait_for_timeout(300)
        assert page.evaluate(f"{CY}.zoom()") < before * 1.3
        page.click("#kg-fit")
        pan = page.evaluate(f"{CY}.pan()")
        empty = page.evaluate(  # a point of the background, away from every node
            f"""() => {{ const cy = {CY};
              const near = (x, y) => cy.nodes().some((n) => {{ const b = n.renderedBoundingBox();
                return x > b.x1 - 15 && x < b.x2 + 15 && y > b.y1 - 15 && y < b.y2 + 15; }});
              for (let x = 5; x < cy.width(); x += 20) for (let y = 5; y < cy.height(); y += 20)
                if (!near(x, y)) return [x, y];
              return null; }}"""
        )
        page.mouse.move(box["x"] + empty[0], box["y"] + empty[1])
        page.mouse.down()
        page.mouse.move(box["x"] + empty[0] + 60, box["y"] + empty[1] + 40, steps=5)
        page.mouse.up()
        moved = page.evaluate(f"{CY}.pan()")
        assert abs(moved["x"] - pan["x"]) > 30 and abs(moved["y"] - pan["y"]) > 20
        # a node well inside the canvas and the window (the pan above pushed some past the edges, where a
        # press misses the canvas), the one standing furthest from the others (a press on overlapping nodes
        # grabs another), moved towards the middle so it stays inside
        node = page.evaluate(
            f"""(() => {{ const cy = {CY}; const w = cy.width(), h = cy.height(); let best = null, far = -1;
              cy.nodes().forEach((n) => {{ const p = n.renderedPosition();
                const r = cy.container().getBoundingClientRect(), top = r.top + p.y, left = r.left + p.x;
                if (p.x < 70 || p.x > w - 70 || p.y < 50 || p.y > h - 50) return;
                if (top < 50 || top > window.innerHeight - 50 || left < 70 || left > window.innerWidth - 70) return;
                let near = Infinity;
                cy.nodes().forEach((m) => {{ if (m !== n) {{ const q = m.renderedPosition();
                  near = Math.min(near, Math.hypot(p.x - q.x, p.y - q.y)); }} }});
                if (near > far) {{ far = near; best = n; }} }});
              const p = best.renderedPosition();
              return [best.id(), p, p.x < w / 2 ? 50 : -50, p.y < h / 2 ? 30 : -30]; }})()"""
        )
        page.mouse.move(box["x"] + node[1]["x"], box["y"] + node[1]["y"])
        page.mouse.down()
        page.mouse.move(box["x"] + node[1]["x"] + node[2], box["y"] + node[1]["y"] + node[3], steps=5)
        page.mouse.up()
        after = page.evaluate(f"{CY}.getElementById({node[0]!r}).renderedPosition()")
        assert abs(after["x"] - node[1]["x"] - node[2]) < 15 and abs(after["y"] - node[1]["y"] - node[3]) < 15

        # relation labels off and on; another layout moves the nodes
        page.uncheck("#kg-labels")
        assert page.evaluate(f"{CY}.edges().every((e) => e.hasClass('no-label'))")
        page.check("#kg-labels")
        assert page.evaluate(f"{CY}.edges().every((e) => !e.hasClass('no-label'))")
        positions = page.evaluate(f"{CY}.nodes().map((n) => n.position())")
        page.select_option("#kg-layout", "circle")
        assert page.evaluate(f"{CY}.nodes().map((n) => n.position())") != positions
        page.click("#kg-fullscreen")
        page.wait_for_timeout(300)
        assert page.evaluate("document.fullscreenElement && document.fullscreenElement.id") == "kg-box"
        page.screenshot(path=str(SHOTS / "page-graph-fullscreen.png"))
        page.click("#kg-fullscreen")
        page.select_option("#kg-layout", "cose")
        page.wait_for_timeout(300)
        assert page.evaluate("document.documentElement.scrollWidth") <= 1300  # back in its panel
        page.screenshot(path=str(SHOTS / "page-graph.png"), full_page=True)
    assert not outside, outside


def test_curation_asks_before_it_deletes_or_undoes(live) -> None:
    with served_page(live, WRITE, 1000) as (page, outside):
        page.click("#tab-graph")
        page.fill("#entity-q", "Starbase")
        page.click("#entity-find")
        page.locator("#entity-hits button", has_text="Starbase").first.click()
        page.locator("#detail-name", has_text="Starbase").wait_for(timeout=15000)
        before = live.rag.inspect.stats()["entities"]
        page.once("dialog", lambda d: d.dismiss())
        page.click("#do-delete")
        page.wait_for_timeout(500)
        assert live.rag.inspect.stats()["entities"] == before and page.is_visible("#entity-detail")
        page.once("dialog", lambda d: d.accept())
        page.click("#do-delete")
        page.locator("#history li:first-child", has_text="deleted").wait_for(timeout=30000)
        assert live.rag.inspect.stats()["entities"] == before - 1
        # the pane closes after the history line shows (a loaded CI machine once read it a moment before)
        page.locator("#entity-detail").wait_for(state="hidden", timeout=10000)
        page.once("dialog", lambda d: d.dismiss())  # "Undo the last change?" No
        page.click("#undo-last")
        page.wait_for_timeout(500)
        assert live.rag.inspect.stats()["entities"] == before - 1
        prompts: list[str] = []
        page.once("dialog", lambda d: (prompts.append(d.message), d.accept()))
        page.click("#undo-last")
        page.locator("#history li:first-child", has_text="undid").wait_for(timeout=30000)
        assert "deleted" in prompts[0] and live.rag.inspect.stats()["entities"] == before
    assert not outside, outside
    assert live.rag.inspect.check() == {}


def test_the_documents_table(live, tmp_path: Path) -> None:
    good = [tmp_path / f"note-{i}.md" for i in range(3)]
    for i, path in enumerate(good):
        path.write_text(f"# Page app note {i}\n\nNote {i} is about the Lunar Gateway station.\n", encoding="utf-8")
    (bad := tmp_path / "blank.txt").write_text("   \n", encoding="utf-8")
    with served_page(live, WRITE, 1100) as (page, outside):
        page.click("#tab-documents")
        page.locator("#documents tr").first.wait_for(timeout=15000)
        page.set_input_files("#files", [str(p) for p in [*good, bad]])
        page.click("#upload")
        page.locator("#job-status", has_text="succeeded").wait_for(timeout=120000)
        assert "3 written" in page.inner_text("#job-status") and "1 failed" in page.inner_text("#job-status")
        page.locator("#jobs li", has_text="succeeded").first.wait_for(timeout=15000)

        # the failed file is a row of its own, with its reason, until a fixed one goes in
        page.select_option("#doc-status", "failed")
        page.wait_for_function("document.querySelectorAll('#documents tr').length === 1", timeout=15000)
        assert page.locator("#documents tr.status-failed").count() == 1
        assert "blank.txt" in page.inner_text("#documents") and "empty" in page.inner_text("#documents .reason")
        assert "failed (1)" in page.inner_text("#doc-status")
        page.select_option("#doc-status", "")

        # search (as you type), sort by a column's header, pages
        page.fill("#doc-search", "page app note")
        page.wait_for_function("document.querySelectorAll('#documents tr').length === 3", timeout=15000)
        page.fill("#doc-search", "")
        page.wait_for_function("document.querySelectorAll('#documents tr').length > 3", timeout=15000)
        page.click("#doc-table th[data-sort=chunks]")
        page.wait_for_function(
            "document.querySelector('#doc-table th[data-sort=chunks]').getAttribute('aria-sort') === 'descending'"
        )
        chunks = [int(c) for c in page.locator("#documents tr td:nth-child(6)").all_inner_texts() if c]
        assert chunks == sorted(chunks, reverse=True)
        page.select_option("#doc-limit", "10")
        page.wait_for_function("document.querySelectorAll('#documents tr').length === 10", timeout=15000)
        total = live.rag.inspect.document_table().total
        assert f"1–10 of {total}" in page.inner_text("#doc-page") and total > 10
        page.click("#doc-next")
        page.wait_for_function(f"document.querySelectorAll('#documents tr').length === {total - 10}", timeout=15000)
        assert page.is_disabled("#doc-next") and not page.is_disabled("#doc-prev")
        page.screenshot(path=str(SHOTS / "page-documents.png"), full_page=True)

        # select several and delete them, after saying yes
        page.select_option("#doc-limit", "50")
        page.fill("#doc-search", "page app note")
        page.wait_for_function("document.querySelectorAll('#documents tr').length === 3", timeout=15000)
        page.check("#doc-all")
        assert page.inner_text("#doc-delete") == "Delete selected (3)…"
        page.once("dialog", lambda d: d.dismiss())
        page.click("#doc-delete")
        page.wait_for_timeout(300)
        assert page.locator("#documents tr").count() == 3
        page.once("dialog", lambda d: d.accept())
        page.click("#doc-delete")
        page.wait_for_function("document.querySelectorAll('#documents tr').length === 0", timeout=30000)
        assert not any("page app note" in (d.title or "").lower() for d in live.rag.inspect.documents(0, 1000))
    assert not outside, outside


def test_the_api_tab_and_its_docs_work_offline(live) -> None:
    with served_page(live, WRITE, 1000) as (page, outside):
        page.click("#tab-api")
        assert page.get_attribute("#api-docs", "href") == "/docs"
        assert "/v1/search" in page.inner_text("#api-example")
        page.goto(f"{live.url}/docs")
        page.locator(".swagger-ui .opblock").first.wait_for(timeout=30000)
        assert (
            page.locator(".opblock").count() >= 30 and page.locator(".opblock", has_text="/v1/documents/table").count()
        )
        page.screenshot(path=str(SHOTS / "page-swagger.png"))
        assert page.evaluate("typeof SwaggerUIBundle") == "function"  # the package's copy, not a CDN's
    assert not outside, f"the API docs fetched from outside the server: {outside}"


def test_every_tab_fits_a_narrow_screen(live) -> None:
    with served_page(live, WRITE, 900) as (page, outside):
        page.set_viewport_size({"width": 420, "height": 900})
        for tab in ("ask", "graph", "documents", "api"):
            page.click(f"#tab-{tab}")
            page.wait_for_timeout(300)
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= 421, f"the {tab} tab is {width} px wide on a 420 px screen"
        page.click("#tab-graph")
        page.wait_for_function(f"{CY} && {CY}.nodes().length > 0", timeout=15000)
        page.screenshot(path=str(SHOTS / "page-narrow-graph.png"), full_page=True)
    assert not outside, outside

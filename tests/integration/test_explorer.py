"""The knowledge-graph explorer and curation over HTTP, on the space articles' offline graph: read keys browse
and are refused changes (403), write keys change and undo, the audit trail names the key's fingerprint (never
the key); and the page in headless Chromium: search, open, expand, merge, undo (screenshots kept)."""

from __future__ import annotations

import shutil

import httpx
import pytest

from tests.integration.conftest import READ, WRITE
from tests.integration.test_browser import SHOTS, served_page

pytestmark = pytest.mark.integration


def _get(live, path: str, key: str = READ, **params) -> httpx.Response:
    return httpx.get(f"{live.url}{path}", headers={"Authorization": f"Bearer {key}"}, params=params, timeout=60)


def _post(live, path: str, body: dict, key: str = WRITE) -> httpx.Response:
    return httpx.post(f"{live.url}{path}", headers={"Authorization": f"Bearer {key}"}, json=body, timeout=120)


def test_explore_and_curate_over_http(live) -> None:
    hits = _get(live, "/v1/graph/entities", q="jaxa").json()
    assert hits and hits[0]["name"] == "JAXA"
    jaxa = hits[0]["id"]
    view = _get(live, f"/v1/graph/neighbourhood/{jaxa}").json()
    assert view["center"]["name"] == "JAXA" and view["edges"]
    assert all(e["evidence"] and e["chunk_ids"] for e in view["edges"])  # every relation shows its sentence
    assert {n["id"] for n in view["nodes"]} == {e["source"] for e in view["edges"]} | {
        e["target"] for e in view["edges"]
    } - {jaxa}
    passages = _get(live, f"/v1/graph/passages/{jaxa}").json()
    assert passages and all("JAXA" in p["text"] for p in passages)
    assert _get(live, "/v1/graph/neighbourhood/e_nope").status_code == 404

    merge = {"source": "JAXA", "target": "Japan Aerospace Exploration Agency"}
    refused = _post(live, "/v1/curation/merge", merge, key=READ)
    assert refused.status_code == 403
    assert _get(live, "/v1/curation/history").json() == []  # nothing changed by the refused call
    done = _post(live, "/v1/curation/merge", merge)
    assert done.status_code == 200, done.text
    change = done.json()
    assert change["op"] == "merge" and change["who"].startswith("key-") and WRITE not in change["who"]
    assert _get(live, "/v1/graph/entities", q="jaxa").json()[0]["name"] == "Japan Aerospace Exploration Agency"
    history = _get(live, "/v1/curation/history").json()
    assert [c["id"] for c in history] == [change["id"]] and history[0]["at"]
    assert _post(live, "/v1/curation/undo", {"change": change["id"]}, key=READ).status_code == 403
    undone = _post(live, "/v1/curation/undo", {"change": change["id"]})
    assert undone.status_code == 200 and undone.json()["undoes"] == change["id"]
    assert _get(live, "/v1/graph/entities", q="jaxa").json()[0]["name"] == "JAXA"
    again = _post(live, "/v1/curation/undo", {"change": change["id"]})
    assert again.status_code == 409 and "undone already" in again.json()["error"]["message"]
    missing = _post(live, "/v1/curation/rename", {"entity": "Nobody at all", "name": "Somebody"})
    assert missing.status_code == 404
    bad = _post(live, "/v1/curation/retype", {"entity": "SpaceX", "type": "!!!"})
    assert bad.status_code == 400
    # hostile text stays data: a type that tries to close the label and a search that tries to end the query
    counts = live.rag.inspect.stats()
    hostile = _post(live, "/v1/curation/retype", {"entity": "SpaceX", "type": "Person`) DETACH DELETE (n"})
    assert hostile.status_code == 200 and hostile.json()["summary"].endswith("to PERSON_DETACH_DELETE_N")
    assert _get(live, "/v1/graph/entities", q="') MATCH (n) DETACH DELETE n //").status_code == 200
    assert live.rag.inspect.stats() == counts
    assert _post(live, "/v1/curation/undo", {"change": hostile.json()["id"]}).status_code == 200
    assert live.rag.inspect.check() == {}


@pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian's chromium is not installed")
def test_explorer_page_search_expand_merge_undo(live) -> None:
    """The Knowledge graph tab: find, open, expand by clicking a node, merge into an entity picked from a list
    (a dismissed confirmation changes nothing), undo (confirmed)."""
    with served_page(live, WRITE, 1100) as (page, outside):
        page.click("#tab-graph")
        page.wait_for_function("window.graphwrightExplorer && window.graphwrightExplorer.nodes().length > 0")
        page.fill("#entity-q", "JAXA")
        page.click("#entity-find")
        page.locator("#entity-hits button", has_text="JAXA").first.click()
        page.locator("#detail-name", has_text="JAXA").wait_for(timeout=15000)
        assert page.locator("#detail-relations li").count() >= 1
        drawn = page.evaluate("window.graphwrightExplorer.nodes().length")
        assert drawn >= 2
        # every drawn node lies inside the canvas once fitted
        page.click("#kg-fit")
        inside = page.evaluate(
            """() => { const cy = window.graphwrightExplorer, w = cy.width(), h = cy.height();
                 return cy.nodes(':visible').every((n) => { const p = n.renderedPosition();
                   return p.x >= 0 && p.y >= 0 && p.x <= w && p.y <= h; }); }"""
        )
        assert inside
        # a click on another node opens it and adds its neighbours
        other = page.evaluate("window.graphwrightExplorer.nodes().filter((n) => n.data('name') !== 'JAXA')[0].id()")
        page.evaluate(f"window.graphwrightExplorer.getElementById({other!r}).emit('tap')")
        page.locator("#detail-name:not(:text-is('JAXA'))").wait_for(timeout=15000)
        assert page.evaluate("window.graphwrightExplorer.nodes().length") >= drawn
        page.click("#show-passages")
        page.locator("#detail-passages li").first.wait_for(timeout=15000)

        page.fill("#entity-q", "JAXA")
        page.click("#entity-find")
        page.locator("#entity-hits button", has_text="JAXA").first.click()
        page.locator("#detail-name", has_text="JAXA").wait_for(timeout=15000)
        page.fill("#merge-q", "Japan Aerospace")
        page.click("#merge-find")
        page.locator("#merge-target option", has_text="Japan Aerospace Exploration Agency").wait_for(
            state="attached", timeout=15000
        )
        changes = live.rag.curation().history(limit=100)
        page.once("dialog", lambda dialog: dialog.dismiss())  # "Merge ... into ...?" No: nothing changes
        page.click("#do-merge")
        page.wait_for_timeout(500)
        assert "JAXA" in page.inner_text("#detail-name") and live.rag.curation().history(limit=100) == changes
        page.once("dialog", lambda dialog: dialog.accept())
        page.click("#do-merge")
        page.locator("#detail-name", has_text="Japan Aerospace Exploration Agency").wait_for(timeout=60000)
        assert "JAXA" in page.inner_text("#detail-aliases")
        page.locator("#history li:first-child", has_text="merged 'JAXA'").wait_for(timeout=15000)
        # the merged-away entity leaves the hit list and the drawing
        page.fill("#entity-q", "JAXA")
        page.click("#entity-find")
        page.wait_for_timeout(500)
        assert page.locator("#entity-hits button", has_text="JAXA ·").count() == 0
        page.screenshot(path=str(SHOTS / "explorer-merge.png"), full_page=True)
        page.once("dialog", lambda dialog: dialog.accept())  # "Undo the last change: merged ...?"
        page.click("#undo-last")
        page.locator("#history li:first-child", has_text="undid").wait_for(timeout=60000)
        page.fill("#entity-q", "JAXA")
        page.click("#entity-find")
        page.locator("#entity-hits button", has_text="JAXA ·").first.wait_for(timeout=15000)
        page.screenshot(path=str(SHOTS / "explorer-undo.png"), full_page=True)
    assert not outside, f"the page fetched from outside the server: {outside}"
    assert live.rag.inspect.check() == {}


def test_two_clients_curating_at_once_over_http(live) -> None:
    """Two write clients merge one entity into different survivors at the same moment: one merge lands, the
    other is told the entity is gone (404); then both undo, one after the other, and the graph is whole."""
    from concurrent.futures import ThreadPoolExecutor

    bodies = [
        {"source": "Starbase", "target": "Boca Chica"},
        {"source": "Starbase", "target": "Lunar Gateway"},
    ]
    with ThreadPoolExecutor(2) as pool:
        answers = list(pool.map(lambda body: _post(live, "/v1/curation/merge", body), bodies))
    assert sorted(a.status_code for a in answers) == [200, 404], [a.text for a in answers]
    landed = next(a.json() for a in answers if a.status_code == 200)
    assert _post(live, "/v1/curation/undo", {"change": landed["id"]}).status_code == 200
    assert _get(live, "/v1/graph/entities", q="starbase").json()[0]["name"] == "Starbase"
    assert live.rag.inspect.check() == {}

"""Real-browser tests in headless Chromium (Debian's package, installed by scripts/setup.sh): the local
Neo4j Browser serves, and an answer graph renders its nodes offline. Screenshots are kept under
.graphwright/screenshots/ for a person to look at."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.integration.helpers import run

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian's chromium is not installed"),
]
ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / ".graphwright" / "screenshots"
# Without the background-networking flags Chromium keeps dialling Google's hosts on this closed network.
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@contextmanager
def served_page(live, key: str, height: int, color_scheme: str = "light") -> Iterator[tuple[Any, list[str]]]:
    """The served page in headless Chromium with `key` given in its key box, and the list of any request it
    makes outside the server (the page must work offline); `color_scheme` is the system's theme."""
    sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
    SHOTS.mkdir(parents=True, exist_ok=True)
    outside: list[str] = []
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1300, "height": height}, color_scheme=color_scheme)
            page.on(
                "request", lambda r: None if r.url.startswith((live.url, "about:", "data:")) else outside.append(r.url)
            )
            page.goto(live.url)
            page.locator("#key-box").wait_for(state="visible", timeout=15000)  # the server wants a key
            page.fill("#api-key", key)
            page.click("#save-key")
            yield page, outside
        finally:
            browser.close()


def screenshot(url: str, name: str, tmp_path: Path, budget_ms: int = 15000) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    target = SHOTS / name
    target.unlink(missing_ok=True)
    subprocess.run(
        [
            "chromium",
            "--headless",
            *CHROMIUM_FLAGS,
            f"--user-data-dir={tmp_path / 'chromium'}",
            "--window-size=1200,900",
            "--hide-scrollbars",
            f"--virtual-time-budget={budget_ms}",
            f"--screenshot={target}",
            url,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert target.exists() and target.stat().st_size > 1000, f"no screenshot of {url}"
    return target


def colours(path: Path) -> dict[tuple[int, int, int], int]:
    from PIL import Image

    with Image.open(path) as image:
        return {rgb: n for n, rgb in image.convert("RGB").getcolors(maxcolors=1 << 20)}


def test_neo4j_browser_serves_and_renders(neo4j_uri: str, tmp_path: Path) -> None:
    shot = screenshot("http://127.0.0.1:7475/browser/", "neo4j-browser.png", tmp_path)
    seen = colours(shot)
    assert len(seen) > 50, "the Browser page rendered blank"  # a real UI has many colours (text, icons)


def test_answer_graph_opens_offline_and_shows_nodes(world, cli_env, tmp_path: Path) -> None:
    page = tmp_path / "answer.html"
    out = run(
        ["query", "How is Falcon Ventures connected to Acme Corp?", "--mode", "path", "--graph", str(page)],
        cli_env,
        tmp_path,
    )
    assert out.returncode == 0, out.stderr
    text = page.read_text(encoding="utf-8")
    assert "<svg" in text and text.count('class="node"') == 3 and 'stroke="#d62728"' in text
    assert "src=" not in text and "<script" not in text and "<link" not in text  # nothing to fetch
    shot = screenshot(page.as_uri(), "answer-graph.png", tmp_path, budget_ms=2000)
    organisation_blue = colours(shot).get((0x4E, 0x79, 0xA7), 0)
    assert organisation_blue > 3 * 400, "the three organisation nodes are not drawn"  # r=16 discs: ~800 px each


def test_newcomer_sees_an_answers_evidence_in_the_neo4j_browser(
    world, cli_env, test_password: str, neo4j_uri: str, tmp_path: Path
) -> None:
    """The README's path: ask a question, open the printed Browser link, connect, press Run, see the graph."""
    sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
    env = {**cli_env, "GRAPHWRIGHT_HTTP_PORT": "7475"}
    out = run(["query", "How is Falcon Ventures connected to Acme Corp?", "--mode", "path", "--explain"], env, tmp_path)
    assert out.returncode == 0, out.stderr
    link = next(word for word in out.stdout.split() if word.startswith("http://127.0.0.1:7475/browser/?cmd=edit"))
    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.goto(link)
            page.get_by_test_id("boltaddress").fill(neo4j_uri.split("://", 1)[1])
            page.get_by_test_id("username").fill("neo4j")
            page.get_by_test_id("password").fill(test_password)
            page.get_by_test_id("connect").click()
            page.get_by_text("You are connected as user").first.wait_for(timeout=30000)
            page.get_by_test_id("editor-Run").first.click()
            page.locator("svg g.node").first.wait_for(timeout=30000)
            page.wait_for_timeout(1500)  # the force layout settles
            page.screenshot(path=str(SHOTS / "neo4j-browser-evidence.png"))
            captions = " ".join(page.locator("svg g.node").all_text_contents())
            drawn = page.locator("svg g.relationship").count()
            # Edge captions are cut to the edge's drawn length ("INVESTE…"); the overview names types whole.
            overview = page.inner_text("body")
        finally:
            browser.close()
    # The path's three entities, its two evidence passages and their documents; the typed relations between them.
    for name in ("Falcon", "Borealis", "Acme"):
        assert name in captions, captions
    types = {"INVESTED_IN": 1, "SUPPLIES": 1, "MENTIONS": 4, "PART_OF": 2}
    for type_, n in types.items():
        assert f"{type_} ({n})" in overview, overview
    assert drawn == sum(types.values()), drawn

"""Real-browser tests in headless Chromium (Debian's package, installed by scripts/setup.sh): the local
Neo4j Browser serves, and an answer graph renders its nodes offline. Screenshots are kept under
.graphwright/screenshots/ for a person to look at."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.integration.test_cli import run
from tests.integration.test_graph_search import world  # noqa: F401 - the known small graph, as a fixture

pytestmark = [pytest.mark.integration,
              pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian's chromium is not installed")]
ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / ".graphwright" / "screenshots"


def screenshot(url: str, name: str, tmp_path: Path, budget_ms: int = 15000) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    target = SHOTS / name
    target.unlink(missing_ok=True)
    subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                    "--disable-background-networking", "--disable-component-update", "--disable-sync",
                    f"--user-data-dir={tmp_path / 'chromium'}", "--window-size=1200,900", "--hide-scrollbars",
                    f"--virtual-time-budget={budget_ms}", f"--screenshot={target}", url],
                   capture_output=True, text=True, timeout=120)
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


def test_answer_graph_opens_offline_and_shows_nodes(world, cli_env, tmp_path: Path) -> None:  # noqa: F811
    page = tmp_path / "answer.html"
    out = run(["query", "How is Falcon Ventures connected to Acme Corp?", "--mode", "path", "--graph", str(page)],
              cli_env, tmp_path)
    assert out.returncode == 0, out.stderr
    text = page.read_text(encoding="utf-8")
    assert "<svg" in text and text.count('class="node"') == 3 and 'stroke="#d62728"' in text
    assert "src=" not in text and "<script" not in text and "<link" not in text  # nothing to fetch
    shot = screenshot(page.as_uri(), "answer-graph.png", tmp_path, budget_ms=2000)
    organisation_blue = colours(shot).get((0x4E, 0x79, 0xA7), 0)
    assert organisation_blue > 3 * 400, "the three organisation nodes are not drawn"  # r=16 discs: ~800 px each

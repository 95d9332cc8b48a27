"""The README's tour is what today's commands print (scripts/readme_tour.py runs them), so it cannot go stale."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]


def test_the_readme_tour_is_what_the_commands_print(cli_env, tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "scripts/readme_tour.py", "--check"],
        env=cli_env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "README.md's tour is what the commands print" in done.stdout


def test_a_stale_tour_is_caught(tmp_path: Path) -> None:
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import readme_tour
    finally:
        sys.path.pop(0)
    block = readme_tour.readme_block((ROOT / "README.md").read_text(encoding="utf-8"))
    assert "$ graphwright ingest --sample" in block
    # durations and sizes may move between runs; a count may not
    timed = next(line for line in block.splitlines() if line.startswith("Ingested 20 documents"))
    moved = timed.replace(timed.split(" in ")[1], "99.9s (0.2 docs/s)")
    assert readme_tour.normalized(block.replace(timed, moved)) == readme_tour.normalized(block)
    assert readme_tour.normalized(block.replace("20 documents", "19 documents")) != readme_tour.normalized(block)

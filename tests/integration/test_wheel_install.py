"""`pip install <wheel>` is the whole install: a new virtualenv outside the checkout, the wheel built from it,
and the README's tour run there as written (the sample and the Neo4j launcher come from the package)."""

from __future__ import annotations

import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]


def _run(command: list[str], **kwargs) -> subprocess.CompletedProcess[str]:
    started = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True, **kwargs)
    # the step's time, for the record (-s shows it); never asserted
    print(f"{time.monotonic() - started:6.1f}s  {' '.join(command[:4])}")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done


def test_a_wheel_in_a_new_virtualenv_runs_the_readme_tour(cli_env, tmp_path: Path) -> None:
    wheels, venv, elsewhere = tmp_path / "wheels", tmp_path / "venv", tmp_path / "somewhere"
    elsewhere.mkdir()
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(wheels), str(ROOT)], cwd=tmp_path)
    (wheel,) = wheels.glob("graphwright-*.whl")
    # the docs ship inside the wheel, and its metadata says where the project lives
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        (metadata,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        meta = archive.read(metadata).decode()
    assert {f"graphwright/_docs/{page.name}" for page in (ROOT / "docs").glob("*.md")} <= names
    assert {"Project-URL: Documentation", "Project-URL: Source", "Project-URL: Issues"} <= {
        line.split(",")[0] for line in meta.splitlines()
    }
    _run([sys.executable, "-m", "venv", str(venv)])
    _run([str(venv / "bin/python"), "-m", "pip", "install", "--quiet", str(wheel)], cwd=elsewhere)
    python = str(venv / "bin/python")
    installed = _run([python, "-c", "import graphwright; print(graphwright.__file__)"], cwd=elsewhere)
    assert str(venv) in installed.stdout and str(ROOT) not in installed.stdout
    # what `db start` builds is in the package (the build itself is cached per version of its sources)
    built = _run([str(venv / "bin/graphwright"), "db", "build"], cwd=elsewhere, env=cli_env)
    assert "neo4j-local" in built.stdout
    page = _run([str(venv / "bin/graphwright"), "docs", "knowledge-bases", "--path"], cwd=elsewhere, env=cli_env)
    assert page.stdout.startswith(str(venv)) and Path(page.stdout.strip()).is_file()
    listed = _run([str(venv / "bin/graphwright"), "docs"], cwd=elsewhere, env=cli_env).stdout
    assert "configuration" in listed and "security" in listed
    help_text = _run([str(venv / "bin/graphwright"), "ingest", "--help"], cwd=elsewhere, env=cli_env).stdout
    assert "--sample" in help_text
    # the README's tour, from the installed package, in a folder that is no checkout
    tour = _run(
        [sys.executable, str(ROOT / "scripts/readme_tour.py"), "--check", "--python", python, "--cwd", str(elsewhere)],
        env=cli_env,
        timeout=1200,
    )
    assert "README.md's tour is what the commands print" in tour.stdout

"""The packaged Neo4j launcher: where `db build` builds it, and the progress it reports from Maven's output."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from graphwright.errors import LocalServerError
from graphwright.graph_store.launcher.local_server import (
    PACKAGED_PROJECT,
    LocalServer,
    default_project_dir,
    project_sources,
)

_CENTRAL = "https://repo.maven.apache.org/maven2/org/neo4j"
MAVEN_OUTPUT = f"""[INFO] Scanning for projects...
Downloading from central: {_CENTRAL}/neo4j/5.26.30/neo4j-5.26.30.pom
Downloaded from central: {_CENTRAL}/neo4j/5.26.30/neo4j-5.26.30.pom (12 kB at 40 kB/s)
Downloaded from central: {_CENTRAL}/neo4j/5.26.30/neo4j-5.26.30.jar (1.5 MB at 3 MB/s)
Downloaded from central: {_CENTRAL}/neo4j-kernel/5.26.30/neo4j-kernel-5.26.30.jar (9.2 MB at 8 MB/s)
[INFO] BUILD SUCCESS
"""


def test_the_package_carries_the_launcher_and_builds_a_copy_per_version_of_it(tmp_path: Path) -> None:
    sources = [str(p.relative_to(PACKAGED_PROJECT)) for p in project_sources(PACKAGED_PROJECT)]
    assert sources == ["pom.xml", "gds/pom.xml", "src/main/java/io/graphwright/neo4jlocal/Launcher.java"]
    built = default_project_dir(tmp_path)
    assert built.parent == tmp_path and built.name.startswith("neo4j-local-")
    assert (built / "pom.xml").read_bytes() == (PACKAGED_PROJECT / "pom.xml").read_bytes()
    assert (built / "gds" / "pom.xml").read_bytes() == (PACKAGED_PROJECT / "gds" / "pom.xml").read_bytes()
    assert default_project_dir(tmp_path) == built  # the same sources: the same folder, its build kept
    assert not list(PACKAGED_PROJECT.glob("target"))  # nothing is built inside the package


def _server(project: Path, tmp_path: Path) -> LocalServer:
    return LocalServer(
        project_dir=project,
        home=tmp_path / "home",
        bolt_uri="bolt://127.0.0.1:7999",
        http_port=7998,
        user="neo4j",
        password="a-password",
    )


def _fake_maven(folder: Path, output: str, status: int) -> None:
    folder.mkdir()
    script = folder / "mvn"
    script.write_text(f"#!/bin/sh\ncat <<'EOF'\n{output}EOF\nexit {status}\n", encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)


def test_a_build_counts_what_maven_fetches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_maven(tmp_path / "bin", MAVEN_OUTPUT, 0)
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    project = default_project_dir(tmp_path / "cache")
    (project / "target" / "lib").mkdir(parents=True)
    told: list[tuple[int, int]] = []
    server = _server(project, tmp_path)
    server.build(lambda jars, fetched: told.append((jars, fetched)))
    assert told == [(0, 12_000), (1, 1_512_000), (2, 10_712_000)]  # jars counted, every artifact's bytes summed
    assert server.is_built()


def test_a_failed_build_says_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_maven(tmp_path / "bin", "[ERROR] Could not resolve dependencies for project io.graphwright\n", 1)
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    server = _server(default_project_dir(tmp_path / "cache"), tmp_path)
    with pytest.raises(LocalServerError, match="Could not resolve dependencies"):
        server.build()
    assert not server.is_built()

"""The Python API as the README shows it: `from graphwright import GraphRAG`, settings from the environment."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.integration


def test_readme_python_example(
    rag, neo4j_uri: str, test_password: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import graphwright
    from graphwright import GraphRAG, SearchResult, Settings

    assert graphwright.__version__ and Settings is graphwright.Settings
    monkeypatch.setenv("NEO4J_URI", neo4j_uri)
    monkeypatch.setenv("NEO4J_PASSWORD", test_password)
    monkeypatch.chdir(Path(__file__).resolve().parents[2])  # the repository root, where examples/ lives
    with GraphRAG.from_env() as api:
        report = api.ingest(["examples/space"])
        assert report.ok and report.documents_written == 20
        result = api.search("Which rocket launched Apollo 11?", mode="hybrid", k=3)
        assert isinstance(result, SearchResult)
        assert "examples/space/apollo-11.md" in [c.document_id for c in result.chunks]
        assert result.answer_kind == "retrieval" and result.citations
        vector = api.search("Which rocket launched Apollo 11?", mode="vector", k=3)
        assert vector.chunks and all("vector" in c.scores for c in vector.chunks)
        with pytest.raises(ValueError, match="unknown mode"):
            api.search("x", mode="telepathy")  # type: ignore[arg-type]
        # the graph modes as the README shows them
        api.build_communities()
        path = api.search("How is Jeff Bezos connected to NASA?", mode="path")
        assert path.graph_paths and path.graph_paths[0].startswith("Jeff Bezos")
        assert {c.kind for c in path.citations} >= {"chunk", "entity", "relation"}
        themes = api.search("What are the main themes?", mode="global", level=0)
        assert themes.communities and all(c.level == 0 for c in themes.communities)
        with pytest.raises(ValueError, match="empty"):
            api.search("   ")

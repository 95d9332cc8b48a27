"""One list of extractor names: the registry builds exactly the names settings, the CLI, the server and the
docs accept (issue 25: GRAPHWRIGHT_EXTRACTOR=ner failed validation while --extractor ner worked)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from graphwright.config import EXTRACTOR_NAMES, Settings
from graphwright.extraction.registry import REGISTERED, make_extractor

ROOT = Path(__file__).resolve().parents[2]


def test_the_registry_and_the_names_agree() -> None:
    assert set(REGISTERED) == set(EXTRACTOR_NAMES)


@pytest.mark.parametrize("name", EXTRACTOR_NAMES)
def test_every_name_is_accepted_everywhere(name: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from graphwright.cli import main
    from graphwright.server.app import _extractor
    from graphwright.server.schemas import DocumentsRequest

    monkeypatch.setenv("GRAPHWRIGHT_EXTRACTOR", name)
    assert Settings(home=tmp_path, _env_file=None).extractor == name
    assert DocumentsRequest.model_validate({"documents": [{"text": "x"}], "extractor": name}).extractor == name
    assert _extractor(name) == name
    for command in (["ingest", "--help"], ["import-graph", "--help"]):
        out = CliRunner().invoke(main, command).output
        if "--extractor" in out:
            assert name in out, command
    assert f"`{name}`" in (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")


def test_offline_names_build_and_unknown_ones_are_refused(tmp_path: Path) -> None:
    from graphwright.errors import ExtractorNotAvailableError

    settings = Settings(home=tmp_path, openai_api_key=None, openai_base_url=None, _env_file=None)
    assert make_extractor(settings, "nlp").name == "nlp"
    assert make_extractor(settings, "auto").name == "nlp"  # no LLM configured
    assert make_extractor(settings, "none") is None
    with pytest.raises(ExtractorNotAvailableError, match="needs an LLM"):
        make_extractor(settings, "llm")
    with pytest.raises(ExtractorNotAvailableError, match="unknown extractor 'spacy'"):
        make_extractor(settings, "spacy")

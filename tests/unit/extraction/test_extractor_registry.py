"""One list of extractor names: the registry builds exactly the names settings, the CLI, the server and the
docs accept (issue 25: GRAPHWRIGHT_EXTRACTOR=ner failed validation while --extractor ner worked)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from graphwright.config import Settings
from graphwright.extraction.registry import EXTRACTOR_NAMES, make_extractor

ROOT = Path(__file__).resolve().parents[3]


def test_every_registered_extractor_names_a_factory_that_exists() -> None:
    from importlib import import_module

    from graphwright.extraction.registry import EXTRACTORS

    assert tuple(EXTRACTORS) == EXTRACTOR_NAMES
    for name in EXTRACTORS:
        target = EXTRACTORS.target(name)
        assert isinstance(target, str)
        module, _, function = target.partition(":")
        assert callable(getattr(import_module(module), function, None)), f"{name}: {target} is not importable"


@pytest.mark.parametrize("name", EXTRACTOR_NAMES)
def test_every_name_is_accepted_everywhere(name: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from graphwright.cli import main
    from graphwright.server.schemas import DocumentsRequest
    from graphwright.server.uploads import upload_extractor as _extractor

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


def test_llm_clients_come_from_one_factory(tmp_path: Path) -> None:
    from graphwright.errors import InvalidRequestError
    from graphwright.llm import LLMClient
    from graphwright.llm.registry import LLM_BACKENDS, make_llm

    offline = Settings(home=tmp_path, openai_api_key=None, openai_base_url=None, _env_file=None)
    assert make_llm(offline) is None
    online = offline.updated(**{"openai_base_url": "http://127.0.0.1:9/v1"})
    assert isinstance(make_llm(online), LLMClient) and LLM_BACKENDS.names() == ("openai",)
    with pytest.raises(InvalidRequestError, match="unknown LLM backend"):
        make_llm(online, "carrier-pigeon")


def test_optional_capabilities_are_protocols(tmp_path: Path) -> None:
    """What the pipeline and the API look for is declared, not found by `getattr`."""
    from graphwright.embeddings.base import MeteredEmbedder
    from graphwright.embeddings.endpoint import EndpointEmbedder
    from graphwright.extraction.base import Summarizer
    from graphwright.extraction.llm_extractor import LLMExtractor
    from graphwright.extraction.nlp_extractor import NLPExtractor
    from graphwright.llm.registry import make_llm

    settings = Settings(home=tmp_path, openai_base_url="http://127.0.0.1:9/v1", _env_file=None)
    assert isinstance(LLMExtractor(make_llm(settings), settings), Summarizer)
    assert not isinstance(NLPExtractor(), Summarizer)
    endpoint = EndpointEmbedder(
        settings.updated(**{"embedding_backend": "openai", "embedding_model": "m", "embedding_dimensions": 8})
    )
    assert isinstance(endpoint, MeteredEmbedder)

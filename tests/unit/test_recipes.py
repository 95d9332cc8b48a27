"""The recipes of docs/architecture.md, followed with toy implementations: a new loader, extractor, LLM backend
and embedding backend are each one module (here, this one) plus one registration, the backends chosen by their
setting; the search mode's recipe is followed in test_search_contract.py, the language's in
tests/unit/text/test_languages.py. Nothing else changes for them to work."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from graphwright.config import Settings
from graphwright.embeddings.registry import EMBEDDING_BACKENDS
from graphwright.errors import ExtractorNotAvailableError, InvalidRequestError
from graphwright.extraction.registry import EXTRACTORS
from graphwright.llm import ChatResult
from graphwright.llm.registry import LLM_BACKENDS, llm_configured
from graphwright.models import ChunkExtraction, Document


# --- a loader: one function and one line in documents/file_types.py's LOADERS ---------------------------
def load_tsv(file: Any) -> None:
    """Each row "id<TAB>text" is a document."""
    for line in file.text().splitlines():
        ident, _, text = line.partition("\t")
        file.result.documents.append(
            Document(id=ident, source=file.source, title=ident, text=text, metadata={}, content_hash=ident + text)
        )


def test_a_new_loader_is_one_function_and_one_registration(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from graphwright.documents import file_types, loaders

    monkeypatch.setitem(file_types.LOADERS, ".tsv", f"{__name__}:load_tsv")
    path = tmp_path / "rows.tsv"
    path.write_text("a\tAda wrote programs.\nb\tGrace built compilers.\n", encoding="utf-8")
    loaded = loaders.load_file(path, tmp_path, {})
    assert [d.id for d in loaded.documents] == ["a", "b"] and not loaded.failures
    assert list(loaders.iter_files([tmp_path])) == [path]  # a folder's .tsv files are picked up too


# --- an extractor: a class, a factory and one line in EXTRACTORS -----------------------------------
class ShoutExtractor:
    """Every capitalised word is an entity."""

    name = "shout"

    def extract_many(self, chunks: list[tuple[str, str]], on_done: Any = None) -> list[ChunkExtraction]:
        return [
            ChunkExtraction(
                chunk_id=cid, entities=[{"name": w, "type": "CONCEPT"} for w in text.split() if w[:1].isupper()]
            )
            for cid, text in chunks
        ]

    def usage(self) -> dict[str, float]:
        return {}


def make_shout(settings: Settings, llm: Any) -> ShoutExtractor:
    return ShoutExtractor()


def test_a_new_extractor_is_one_module_and_one_registration(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from graphwright.extraction.registry import make_extractor

    monkeypatch.setitem(EXTRACTORS, "shout", f"{__name__}:make_shout")
    settings = Settings(home=tmp_path, extractor="shout", _env_file=None)  # the settings accept the name
    extractor = make_extractor(settings)
    assert isinstance(extractor, ShoutExtractor)
    assert [e.name for e in extractor.extract_many([("c1", "Ada met Grace")])[0].entities] == ["Ada", "Grace"]
    with pytest.raises(ExtractorNotAvailableError, match="unknown extractor 'whisper'"):  # said when it is built
        make_extractor(Settings(home=tmp_path, extractor="whisper", _env_file=None))


# --- an LLM backend: a class and one line in LLM_BACKENDS, chosen by GRAPHWRIGHT_LLM_BACKEND -------
class EchoLLM:
    """Answers with the last message: a backend that needs no endpoint."""

    model = "echo"

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    @staticmethod
    def configured(settings: Settings) -> bool:
        return True  # nothing to set

    def chat(
        self,
        messages: list[dict[str, Any]],
        temperature: float | None = None,
        use_cache: bool = True,
        *,
        task: str = "answer",
        schema: dict[str, Any] | None = None,
    ) -> ChatResult:
        return ChatResult(text=str(messages[-1]["content"]))

    def forget(self, messages: list[dict[str, Any]], temperature: float | None = None) -> None:
        pass


def test_a_new_llm_backend_is_one_class_and_one_registration_chosen_by_setting(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from graphwright.api import GraphRAG
    from graphwright.llm.registry import make_llm

    monkeypatch.setitem(LLM_BACKENDS, "echo", f"{__name__}:EchoLLM")
    monkeypatch.setenv("GRAPHWRIGHT_LLM_BACKEND", "echo")
    settings = Settings(home=tmp_path, _env_file=None)  # no OpenAI variables: the echo backend needs none
    assert settings.llm.backend == "echo" and llm_configured(settings)
    llm = make_llm(settings)
    assert isinstance(llm, EchoLLM) and llm.chat([{"role": "user", "content": "hi"}]).text == "hi"
    with GraphRAG(settings) as rag:  # the library's client is the chosen backend's, built lazily
        assert isinstance(rag.llm, EchoLLM)
    with pytest.raises(InvalidRequestError, match="unknown LLM backend 'pigeon'"):  # said when it is built
        make_llm(Settings(home=tmp_path, llm_backend="pigeon", _env_file=None))


# --- an embedding backend: an object and one line in EMBEDDING_BACKENDS -------------------------------
class CountingBackend:
    """Embeds a text as (its length, 1, 0): enough to show the backend is the one chosen."""

    @staticmethod
    def configured(settings: Settings) -> bool:
        return True

    def __call__(self, settings: Settings) -> Any:
        class Counting:
            name = "counting"
            dimension = 3

            def embed(self, texts: list[str]) -> list[list[float]]:
                return [[float(len(t)), 1.0, 0.0] for t in texts]

        return Counting()


COUNTING = CountingBackend()


def test_a_new_embedding_backend_is_one_object_and_one_registration(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from graphwright.embeddings import make_embedder

    monkeypatch.setitem(EMBEDDING_BACKENDS, "counting", f"{__name__}:COUNTING")
    monkeypatch.setenv("GRAPHWRIGHT_EMBEDDING_BACKEND", "counting")
    embedder = make_embedder(Settings(home=tmp_path, _env_file=None))
    assert embedder.name == "counting" and embedder.embed(["abc"]) == [[3.0, 1.0, 0.0]]
    endpoint = EMBEDDING_BACKENDS.load("openai")
    assert not endpoint.configured(Settings(home=tmp_path, openai_base_url=None, _env_file=None))

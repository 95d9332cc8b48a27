"""The question's language is detected once per search and carried: every part of a search reads the same
`SearchQuery.language`, and a rewritten question is detected again."""

from __future__ import annotations

import pytest

from graphwright.search import base
from graphwright.search.base import SearchQuery
from graphwright.text.languages import detect
from graphwright.text.languages.base import Language


def test_the_language_is_detected_once_and_again_after_a_rewrite(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []

    def counting(text: str) -> Language:
        calls.append(text)
        return detect(text)

    monkeypatch.setattr(base, "detect", counting)
    query = SearchQuery(question="知识图谱是什么？")
    assert query.language.code == "zh" and query.language is query.language
    assert calls == ["知识图谱是什么？"]
    rewritten = query.model_copy(update={"question": "What is a knowledge graph?"})
    assert rewritten.language.code == "en" and query.language.code == "zh"
    assert calls == ["知识图谱是什么？", "What is a knowledge graph?"]

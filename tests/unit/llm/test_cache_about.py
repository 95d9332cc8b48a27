"""Cached LLM answers filed under the chunks they are about, and forgotten with them."""

from __future__ import annotations

import stat
from pathlib import Path

from graphwright.llm.base import ChatResult
from graphwright.llm.cache import ResponseCache, cached_about
from graphwright.llm.tasks import CACHED_TASKS


def test_answers_are_forgotten_with_the_chunks_they_are_about(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path)
    for key, about in (("k1", ("c1",)), ("k2", ("c1", "c2")), ("k3", ())):
        with cached_about(*about):
            cache.put(key, ChatResult(text=key, prompt_tokens=1, completion_tokens=1))
            cache.file_under_current(key)
    with cached_about("c3"):  # an answer served from the cache to another chunk is filed under it too
        cache.file_under_current("k3")
    assert all(cache.has(k) for k in ("k1", "k2", "k3"))
    index = next((tmp_path / "about").rglob("*"), None)
    assert index is not None
    assert cache.forget_about(["c2"]) == 1 and not cache.has("k2") and cache.has("k1")
    assert cache.forget_about(["c1", "c2"]) == 1 and not cache.has("k1")
    assert cache.forget_about(["c3"]) == 1 and not cache.has("k3")
    assert cache.forget_about(["unknown"]) == 0
    for path in (tmp_path / "about").rglob("*"):
        assert path.is_dir() or stat.S_IMODE(path.stat().st_mode) == 0o600


def test_only_indexing_answers_are_kept() -> None:
    assert {"extract", "glean", "repair", "summarize"} == CACHED_TASKS
    assert "answer" not in CACHED_TASKS and "agent_step" not in CACHED_TASKS

"""LLM answers on disk, keyed by model, messages and temperature: re-indexing unchanged text is free.

An answer given while `cached_about(ids)` is in force (an extraction of a chunk) is also filed under those
ids, so that deleting the chunk forgets what the model was told of it (`forget_about`): a deleted document
leaves no answer quoting it behind."""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

from graphwright.llm.base import ChatResult

_ABOUT: ContextVar[tuple[str, ...]] = ContextVar("graphwright_cache_about", default=())
_ABOUT_DIR = "about"


@contextmanager
def cached_about(*ids: str) -> Iterator[None]:
    """Answers cached (or served from the cache) inside are filed under `ids` (chunk ids) too."""
    token = _ABOUT.set(tuple(ids))
    try:
        yield
    finally:
        _ABOUT.reset(token)


class ResponseCache:
    """Answers on disk keyed by model, messages and temperature: re-indexing unchanged text is free."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    @staticmethod
    def key(model: str, messages: list[dict[str, str]], temperature: float) -> str:
        payload = json.dumps({"m": model, "t": temperature, "msgs": messages}, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()

    def has(self, key: str) -> bool:
        return self._path(key).is_file()

    def get(self, key: str) -> ChatResult | None:
        try:
            data = json.loads(self._path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return ChatResult(
            text=data["text"],
            prompt_tokens=data.get("prompt_tokens", 0),
            completion_tokens=data.get("completion_tokens", 0),
            finish_reason=data.get("finish_reason"),
            max_tokens=data.get("max_tokens"),
        )

    def forget(self, key: str) -> None:
        self._path(key).unlink(missing_ok=True)

    def _about_path(self, subject: str) -> Path:
        name = hashlib.sha256(subject.encode("utf-8")).hexdigest()
        return self.folder / _ABOUT_DIR / name[:2] / name

    def file_under_current(self, key: str) -> None:
        """File `key` under the ids `cached_about` set, if any (one line per answer, appended)."""
        for subject in _ABOUT.get():
            path = self._about_path(subject)
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600), "a", encoding="utf-8") as out:
                out.write(key + "\n")

    def forget_about(self, ids: list[str]) -> int:
        """Forget every answer filed under these ids; how many entries went."""
        gone = 0
        for subject in ids:
            path = self._about_path(subject)
            try:
                keys = set(path.read_text(encoding="utf-8").split())
            except OSError:
                continue
            for key in keys:
                entry = self._path(key)
                if entry.is_file():
                    entry.unlink(missing_ok=True)
                    gone += 1
            path.unlink(missing_ok=True)
        return gone

    def put(self, key: str, result: ChatResult) -> None:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        tmp = path.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
        tmp.write_text(
            json.dumps(
                {
                    "text": result.text,
                    "prompt_tokens": result.prompt_tokens,
                    "completion_tokens": result.completion_tokens,
                    "finish_reason": result.finish_reason,
                    "max_tokens": result.max_tokens,
                }
            ),
            encoding="utf-8",
        )
        tmp.chmod(0o600)  # prompts quote documents: owner-only, whatever the process's umask
        tmp.replace(path)  # atomic: a killed run never leaves half an answer behind


def cache_folder(home: Path) -> Path:
    """Where a home's LLM answers are cached."""
    return home / "cache" / "llm"

"""LLM answers on disk, keyed by model, messages and temperature: re-indexing unchanged text is free."""

from __future__ import annotations

import hashlib
import json
import os
import threading
from pathlib import Path

from graphwright.llm.base import ChatResult


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

"""What one endpoint (its URL and model) was found to support, learned once and remembered on disk, so no
later run pays for probing again: the best structured output it takes, whether it calls tools, how many
requests it serves at once, and how long each task's replies run (for the cost estimate)."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Literal

log = logging.getLogger(__name__)

# Best first: a JSON schema (OpenAI, vLLM, Ollama, llama.cpp's own server), a schema inside JSON mode
# (llama-cpp-python's server, which turns it into a grammar), JSON mode, then the prompt alone.
Structured = Literal["schema", "json+schema", "json", "prompt"]
STRUCTURED_RUNGS: tuple[Structured, ...] = ("schema", "json+schema", "json", "prompt")


@dataclass
class TaskStats:
    calls: int = 0
    completion_tokens: int = 0

    @property
    def mean(self) -> float:
        return self.completion_tokens / self.calls if self.calls else 0.0


@dataclass
class Traits:
    structured: Structured = "schema"
    structured_ok: bool = False  # a call at that rung has succeeded: its errors are no longer probes
    tools: Literal["native", "text"] = "native"
    stream_options: bool = True  # takes stream_options (usage at the end of a stream)
    width: int | None = None  # requests it serves at once, once a queue was seen
    tasks: dict[str, TaskStats] = field(default_factory=dict)


class EndpointMemory:
    """Traits per endpoint in one small JSON file (owner-only), written atomically when something is learned."""

    def __init__(self, path: Path | None, base_url: str | None, model: str) -> None:
        self.path = path
        self.key = hashlib.sha256(f"{base_url or 'openai'}|{model}".encode()).hexdigest()[:16]
        self._lock = threading.Lock()
        self._saved = 0.0
        self.traits = self._load()

    def _load(self) -> Traits:
        if self.path is None:
            return Traits()
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8")).get(self.key) or {}
            tasks = {k: TaskStats(**v) for k, v in (raw.pop("tasks", None) or {}).items()}
            traits = Traits(**raw, tasks=tasks)
        except (OSError, ValueError, TypeError):
            return Traits()
        if traits.structured not in STRUCTURED_RUNGS:
            traits.structured = "schema"
        return traits

    def learn(self, **changes: object) -> None:
        with self._lock:
            changed = {k: v for k, v in changes.items() if getattr(self.traits, k) != v}
            if not changed:
                return
            for name, value in changed.items():
                setattr(self.traits, name, value)
            log.info("LLM endpoint: learned %s", ", ".join(f"{k}={v}" for k, v in changed.items()))
            self._save()

    def record(self, task: str, completion_tokens: int) -> None:
        """One reply's length, for the next dry run's estimate: saved at once for a task's first replies, then
        at most once a second (a run of thousands of calls writes the file a few hundred times at most)."""
        with self._lock:
            stats = self.traits.tasks.setdefault(task, TaskStats())
            stats.calls += 1
            stats.completion_tokens += completion_tokens
            now = time.monotonic()
            if stats.calls <= 3 or now - self._saved >= 1.0:
                self._save()
                self._saved = now

    def save(self) -> None:
        with self._lock:
            self._save()

    def _save(self) -> None:
        if self.path is None:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            try:
                every = json.loads(self.path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                every = {}
            every[self.key] = asdict(self.traits)
            tmp = self.path.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
            tmp.write_text(json.dumps(every, indent=1), encoding="utf-8")
            tmp.chmod(0o600)
            tmp.replace(self.path)
        except OSError as exc:  # a read-only home only loses the memory, never the call
            log.warning("could not remember what the LLM endpoint supports: %s", exc)

"""What one endpoint (its URL and model) was found to support, learned once and remembered on disk, so no
later run pays for probing again: the best structured output it takes, whether it calls tools, whether its
chat template keeps a system message, how many requests it serves at once, its context window, how long each
task's replies run (for the cost estimate and the reply caps), how fast it reads and writes (for the time
estimate), and whether gleaning pays on it."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
import time
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Literal

log = logging.getLogger(__name__)

# Best first: a JSON schema (OpenAI, vLLM, Ollama, llama.cpp's own server), a schema inside JSON mode
# (llama-cpp-python's server, which turns it into a grammar), JSON mode, then the prompt alone.
Structured = Literal["schema", "json+schema", "json", "prompt"]
STRUCTURED_RUNGS: tuple[Structured, ...] = ("schema", "json+schema", "json", "prompt")


_SAMPLE = 64  # reply lengths kept per task for the learned cap
_CAP_AFTER = 12  # finished replies under the full cap before the cap is learned from them
_CAP_HEADROOM = 1.25
_CAP_FLOOR = 48


@dataclass
class TaskStats:
    calls: int = 0
    completion_tokens: int = 0
    # Replies that ended by themselves while asked under the task's full cap: what its replies need. Replies
    # asked under a learned cap are not sampled (those it cut would be missing, and the cap would only shrink).
    finished: list[int] = field(default_factory=list)

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> TaskStats:
        """As saved; keys this version does not keep (an earlier one's) are left out, not a reason to forget."""
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})  # type: ignore[arg-type]

    @property
    def mean(self) -> float:
        return self.completion_tokens / self.calls if self.calls else 0.0

    def learned_cap(self, full: int) -> int | None:
        """The 95th percentile of the sampled replies with a quarter more as headroom, below `full`; None
        until enough were sampled. A small model's rambling runs to the cap and is never sampled."""
        if len(self.finished) < _CAP_AFTER:
            return None
        ordered = sorted(self.finished)
        p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
        return min(full, max(_CAP_FLOOR, round(p95 * _CAP_HEADROOM)))


@dataclass
class Speed:
    """How fast the endpoint reads a prompt (until the first token) and writes a reply (after it)."""

    prompt_tokens: int = 0
    prompt_seconds: float = 0.0
    completion_tokens: int = 0
    completion_seconds: float = 0.0

    def seconds(self, prompt_tokens: float, completion_tokens: float) -> float | None:
        """The time a call of this size takes, from the measured rates (None: not measured)."""
        if not (self.prompt_tokens and self.completion_tokens and self.completion_seconds):
            return None
        return (
            prompt_tokens * self.prompt_seconds / self.prompt_tokens
            + completion_tokens * self.completion_seconds / self.completion_tokens
        )


@dataclass
class Traits:
    structured: Structured = "schema"
    structured_ok: bool = False  # a call at that rung has succeeded: its errors are no longer probes
    tools: Literal["native", "text"] = "native"
    stream_options: bool = True  # takes stream_options (usage at the end of a stream)
    width: int | None = None  # requests it serves at once, once a queue was seen
    system_role: Literal["system", "user"] | None = None  # "user": its template drops system messages
    probed: bool = False  # the system role and the width were probed (once per endpoint)
    context: int | None = None  # its context window in tokens, where it told
    glean: bool | None = None  # False: gleaning was measured not to pay here
    glean_note: str = ""
    reports: bool | None = None  # False: its community reports were measured to hold none (extractive ones then)
    reports_note: str = ""
    speed: Speed = field(default_factory=Speed)
    tasks: dict[str, TaskStats] = field(default_factory=dict)


@dataclass(frozen=True)
class Timing:
    """One call's clock: seconds to its first token (None: not streamed) and in all; its prompt's tokens."""

    total: float
    first_token: float | None
    prompt_tokens: int


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
            tasks = {k: TaskStats.from_dict(v) for k, v in (raw.pop("tasks", None) or {}).items()}
            speed = Speed(**(raw.pop("speed", None) or {}))
            traits = Traits(**raw, tasks=tasks, speed=speed)
        except (OSError, ValueError, TypeError):  # a file of an older or newer version: learned again
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

    def record(self, task: str, completion_tokens: int, *, sample: bool = False, timing: Timing | None = None) -> None:
        """One reply: its length, for the next dry run's estimate and (`sample`: it ended by itself under the
        task's full cap) the task's learned cap; its timing, for the time estimate. Saved at once for a task's
        first replies, then at most once a second (a run of thousands of calls writes the file a few hundred
        times at most)."""
        with self._lock:
            stats = self.traits.tasks.setdefault(task, TaskStats())
            stats.calls += 1
            stats.completion_tokens += completion_tokens
            if sample:
                stats.finished = [*stats.finished, completion_tokens][-_SAMPLE:]
            if timing is not None and timing.first_token is not None and timing.prompt_tokens and completion_tokens > 1:
                self._timed(
                    timing.prompt_tokens, timing.first_token, completion_tokens - 1, timing.total - timing.first_token
                )
            now = time.monotonic()
            if stats.calls <= 3 or now - self._saved >= 1.0:
                self._save()
                self._saved = now

    def timed(self, prompt_tokens: int, prompt_seconds: float, completion_tokens: int, seconds: float) -> None:
        """A call's reading (prompt tokens, seconds to the first token) and writing (tokens after it, seconds)."""
        with self._lock:
            self._timed(prompt_tokens, prompt_seconds, completion_tokens, seconds)
            self._save()

    def _timed(self, prompt_tokens: int, prompt_seconds: float, completion_tokens: int, seconds: float) -> None:
        speed = self.traits.speed
        speed.prompt_tokens += prompt_tokens
        speed.prompt_seconds += prompt_seconds
        speed.completion_tokens += completion_tokens
        speed.completion_seconds += seconds

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

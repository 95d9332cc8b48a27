"""How many calls an endpoint gets at once, learned from how it answers.

A local server (llama.cpp's, Ollama's default) generates for one request at a time and queues the rest:
sending four at once only makes three wait, time out and be sent again behind the first. So calls start one
at a time and the limit grows by one after as many clean calls as the limit (additive increase, as TCP does);
a call that waited for its first token much longer than a call alone does was queued behind another, so the
limit falls back below the level that queued and never grows past it again (the server's width, remembered
for the next run). A timed-out call halves the limit; a reply the server ended unfinished while another call ran
(llama-cpp-python's server drops a running reply for a new request) shows the width at once."""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

_QUEUED_FACTOR = 3.0  # a first token this many times slower than alone, plus the slack, was queued
_QUEUED_SLACK = 0.5  # seconds: a cloud endpoint's jitter is not a queue
_QUEUED_SEEN = 2  # queued calls seen before the width is believed (one may be a hiccup: it only halves)


@dataclass
class Slot:
    """One call's place: when it started, how many were in flight with it, and when its first token came."""

    started: float
    crowd: int  # calls in flight when it started, itself included
    first_token: float | None = None
    cut_short: bool = False  # the server ended it unfinished (llama-cpp-python's ends one when another comes)
    in_flight: Callable[[], int] = lambda: 1  # calls in flight now, itself included

    def token(self) -> None:
        if self.first_token is None:
            self.first_token = time.monotonic() - self.started


@dataclass
class Pacer:
    most: int  # the configured concurrency: never more
    width: int | None = None  # the server's width learned before (None: not known)
    slack: float = _QUEUED_SLACK
    limit: int = field(init=False)
    ceiling: int = field(init=False)
    _flight: int = field(default=0, init=False)
    _clean: int = field(default=0, init=False)
    _queued: int = field(default=0, init=False)
    _alone: deque[float] = field(default_factory=lambda: deque(maxlen=8), init=False)
    _cond: threading.Condition = field(default_factory=threading.Condition, init=False)

    def __post_init__(self) -> None:
        self.ceiling = max(1, min(self.most, self.width or self.most))
        self.limit = self.ceiling if self.width else 1

    @contextmanager
    def slot(self) -> Iterator[Slot]:
        with self._cond:
            while self._flight >= self.limit:
                self._cond.wait()
            self._flight += 1
            slot = Slot(time.monotonic(), self._flight, in_flight=lambda: self._flight)
        ok = False
        try:
            yield slot
            ok = True
        finally:
            with self._cond:
                self._flight -= 1
                self._learn(slot, ok)
                self._cond.notify_all()

    def _learn(self, slot: Slot, ok: bool) -> None:
        if not ok:
            crowd = max(slot.crowd, self._flight + 1)  # with it: those when it started, or when it ended
            if slot.cut_short and crowd > 1:  # the server dropped it for another: it serves fewer at once
                self.ceiling = max(1, min(self.ceiling, crowd - 1))
                self.limit = min(self.limit, self.ceiling)
                self._clean = 0
            elif slot.first_token is None:  # no token at all: the server is swamped or stuck
                self.limit = max(1, self.limit // 2)
                self._clean = 0
            return
        if slot.first_token is None:
            return
        if slot.crowd == 1:
            self._alone.append(slot.first_token)
        elif self._alone and slot.first_token > _QUEUED_FACTOR * max(self._alone) + self.slack:
            self._queued += 1
            self._clean = 0
            if self._queued >= _QUEUED_SEEN:  # this many at once made calls wait: the server's width
                self.ceiling = max(1, min(self.ceiling, slot.crowd - 1))
                self.limit = min(self.limit, self.ceiling)
            else:
                self.limit = max(1, self.limit // 2)
            return
        self._clean += 1
        if self._clean >= self.limit and self.limit < self.ceiling:
            self.limit += 1
            self._clean = 0

    def narrow(self, width: int) -> None:
        """The server's width, learned another way (a probe): never more calls at once than that."""
        with self._cond:
            self.ceiling = max(1, min(self.ceiling, width))
            self.limit = min(self.limit, self.ceiling)

    @property
    def learned_width(self) -> int | None:
        """The width to remember: known once a queue was seen (a ceiling below the configured most)."""
        return self.ceiling if self.ceiling < self.most else None

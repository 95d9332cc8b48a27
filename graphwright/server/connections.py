"""Slow clients are dropped: uvicorn's h11 protocol with a deadline for a request's head (a client that
opens a connection and never finishes its headers holds a socket and a file descriptor for ever otherwise),
an idle limit while its body arrives, and a cap on open connections per server process. The limits travel
on uvicorn's Config (`graphwright_limits`), which the worker processes of `serve --workers N` receive too."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

log = logging.getLogger(__name__)
PROTOCOL = "graphwright.server.connections:GuardedH11Protocol"


@dataclass(frozen=True)
class ConnectionLimits:
    """`head_seconds`: from a request's first byte (or the connection's start) to the end of its headers;
    `body_seconds`: the longest pause while a body arrives; `max_connections`: open at once per process."""

    head_seconds: float = 10.0
    body_seconds: float = 30.0
    max_connections: int = 1000


class GuardedH11Protocol(H11Protocol):
    """H11Protocol with the head deadline, the body idle limit and the connection cap."""

    def __init__(self, config: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(config, *args, **kwargs)
        limits = getattr(config, "graphwright_limits", None)
        self.limits = limits if isinstance(limits, ConnectionLimits) else ConnectionLimits()
        self._timer: asyncio.TimerHandle | None = None
        self._watching: str = ""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if len(self.connections) > self.limits.max_connections:
            log.warning("connection refused: %d open, the most this server keeps", self.limits.max_connections)
            transport.close()
            return
        self._arm("head", self.limits.head_seconds)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        state = self.conn.their_state
        if state is h11.IDLE:  # a request's head has begun (a kept-alive connection's next one, say)
            if self._watching != "head":
                self._arm("head", self.limits.head_seconds)
        elif state is h11.SEND_BODY:  # every byte of a body resets its idle limit
            self._arm("body", self.limits.body_seconds)
        else:
            self._disarm()

    def on_response_complete(self) -> None:
        self._disarm()  # uvicorn's keep-alive timeout watches the idle connection from here
        super().on_response_complete()

    def _arm(self, what: str, seconds: float) -> None:
        self._disarm()
        self._watching = what
        self._timer = self.loop.call_later(seconds, self._expire, what, seconds)

    def _disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer, self._watching = None, ""

    def _expire(self, what: str, seconds: float) -> None:
        self._timer, self._watching = None, ""
        busy = self.cycle is not None and not self.cycle.response_complete
        if what == "head" and self.conn.their_state is h11.IDLE and busy:
            return  # a response is still being written for the previous request: not a slow client
        log.info("dropped a connection whose request %s took more than %g s", what, seconds)
        self.transport.close()

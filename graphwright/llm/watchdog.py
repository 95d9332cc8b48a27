"""Stop a streamed reply that goes quiet: no first token within `first` seconds, or no next token within
`idle` seconds. A whole-request timeout would cut off a long answer that is still arriving, and miss a server
that keeps the connection alive with pings (llama.cpp's sends one every 15 s) while it generates nothing.

One thread watches every open stream of a client; on expiry it shuts the stream's socket down, which wakes
the reader blocked on it at once (closing the socket would not) and tells the server the client is gone, so it
stops generating for a request no one will read before the call is retried."""

from __future__ import annotations

import socket
import threading
import time
from typing import Any

_TICK = 0.2  # seconds between checks


class Watch:
    def __init__(self, first: float, idle: float) -> None:
        self.first, self.idle = first, idle
        self.started = self.last = time.monotonic()
        self.tokens = 0
        self.pieces = 0
        self.expired: str | None = None  # why it was stopped
        self._sock: socket.socket | None = None
        self._response: Any = None

    def attach(self, response: Any) -> None:
        """The httpx response whose socket to shut down on expiry."""
        self._response = response
        stream = getattr(response, "extensions", {}).get("network_stream")
        sock = stream.get_extra_info("socket") if stream is not None else None
        self._sock = sock if isinstance(sock, socket.socket) else None

    def tick(self, token: bool = True) -> None:
        """A piece of the stream arrived (`token`: one with text); any piece shows the reply is alive."""
        self.pieces += 1
        self.tokens += token
        self.last = time.monotonic()

    def due(self, now: float) -> str | None:
        if self.pieces == 0 and now - self.started > self.first:
            return f"no reply within {self.first:.0f} s"
        if self.pieces and now - self.last > self.idle:
            return f"no token for {self.idle:.0f} s after {self.tokens} tokens"
        return None

    def stop(self, reason: str) -> None:
        self.expired = reason
        try:
            if self._sock is not None:
                self._sock.shutdown(socket.SHUT_RDWR)
            elif self._response is not None:
                self._response.close()
        except OSError:  # already closed
            pass


class Watchdog:
    def __init__(self) -> None:
        self._watches: set[Watch] = set()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def watch(self, first: float, idle: float) -> Watch:
        watch = Watch(first, idle)
        with self._lock:
            self._watches.add(watch)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="llm-watchdog", daemon=True)
                self._thread.start()
        return watch

    def done(self, watch: Watch) -> None:
        with self._lock:
            self._watches.discard(watch)

    def _run(self) -> None:
        idle_since = time.monotonic()
        while True:
            time.sleep(_TICK)
            now = time.monotonic()
            with self._lock:
                watches = list(self._watches)
                if not watches and now - idle_since > 5:  # nothing to watch for a while: end the thread
                    self._thread = None
                    return
            if watches:
                idle_since = now
            for watch in watches:
                reason = watch.expired is None and watch.due(now)
                if reason:
                    watch.stop(reason)

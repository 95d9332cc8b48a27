"""Slow clients are dropped (issue 76, finding 7): a real uvicorn with graphwright's protocol on a loopback
port, and raw sockets that never finish their headers, pause in a body, or open too many connections."""

from __future__ import annotations

import socket
import threading
import time

import pytest

from graphwright.server.connections import PROTOCOL, ConnectionLimits


async def _app(scope, receive, send) -> None:
    if scope["type"] != "http":
        return
    body = b""
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
    await send({"type": "http.response.body", "body": b"ok"})


@pytest.fixture
def server():
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    config = uvicorn.Config(_app, log_level="warning", http=PROTOCOL, lifespan="off")
    config.graphwright_limits = ConnectionLimits(head_seconds=1.0, body_seconds=1.0, max_connections=20)  # type: ignore[attr-defined]
    running = uvicorn.Server(config)
    thread = threading.Thread(target=running.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not running.started:
        time.sleep(0.02)
    yield sock.getsockname()[1]
    running.should_exit = True
    thread.join(10)


def _closed_within(conn: socket.socket, seconds: float) -> bool:
    """Whether the server closed `conn` within `seconds` (recv returns nothing, or the connection resets)."""
    conn.settimeout(seconds)
    try:
        while True:
            data = conn.recv(4096)
            if not data:
                return True
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True


def _open(port: int) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), timeout=5)


def test_a_head_never_finished_is_dropped(server) -> None:
    silent, dripping = _open(server), _open(server)
    dripping.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
    for conn in (silent, dripping):
        assert _closed_within(conn, 5), "a connection that never finished its headers was kept"
        conn.close()


def test_a_dripped_head_is_dropped_at_its_deadline_not_kept_alive_by_each_byte(server) -> None:
    conn = _open(server)
    started = time.monotonic()
    closed = False
    for _ in range(50):  # a byte every 0.1 s would keep an idle timer alive for ever
        try:
            conn.sendall(b"X")
        except OSError:
            closed = True
            break
        time.sleep(0.1)
    assert closed or _closed_within(conn, 2)
    assert time.monotonic() - started < 5
    conn.close()


def test_a_stalled_body_is_dropped_and_normal_requests_are_served(server) -> None:
    conn = _open(server)
    conn.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nhalf")
    assert _closed_within(conn, 5)
    conn.close()
    ok = _open(server)
    ok.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nfull")
    ok.settimeout(5)
    assert b"200 OK" in ok.recv(4096)
    ok.close()


def test_connections_past_the_cap_are_closed_and_the_server_recovers(server) -> None:
    held = [_open(server) for _ in range(20)]
    extra = _open(server)
    assert _closed_within(extra, 3), "a connection past the cap was kept"
    extra.close()
    for conn in held:
        conn.close()
    time.sleep(0.3)
    ok = _open(server)
    ok.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
    ok.settimeout(5)
    assert b"200 OK" in ok.recv(4096)
    ok.close()

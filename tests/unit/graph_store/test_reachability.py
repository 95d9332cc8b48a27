"""Whether Neo4j's address takes connections: known at once, asked again while down, so a process recovers."""

from __future__ import annotations

import socket

from graphwright.graph_store.connection import Reachability


def test_a_closed_port_is_down_an_open_one_answers_and_the_answer_is_asked_again() -> None:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    port = listener.getsockname()[1]
    reach = Reachability(f"bolt://127.0.0.1:{port}", timeout=1.0, recheck=0.0)
    assert reach.answers() and not reach.down
    listener.close()
    assert not reach.answers() and reach.down  # a closed port refuses at once
    again = socket.socket()
    again.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    again.bind(("127.0.0.1", port))
    again.listen(4)
    try:
        assert reach.answers() and not reach.down  # back: the same object says so
    finally:
        again.close()


def test_while_down_the_address_is_asked_at_most_once_per_recheck() -> None:
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()  # nothing listens there
    reach = Reachability(f"neo4j://127.0.0.1:{port}", timeout=1.0, recheck=60.0)
    assert not reach.answers()
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(4)
    try:
        assert not reach.answers()  # within the recheck interval: the last answer, no new connect
    finally:
        listener.close()

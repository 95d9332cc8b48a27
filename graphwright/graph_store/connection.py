"""The one driver, and how every query runs: reads in READ transactions, writes in managed transactions
(retried by the driver on transient errors). Failures become our errors: the database gone or the
credentials refused is a GraphStoreError; one refused query or write is a QueryRejectedError or a
WriteRejectedError, and the database is still there.

A connection belongs to one workspace and renders every query of the package into its names
(graph_store/workspace_names.py), so no role can run a query in another workspace. `explain` and `read_once`
run text as given: they serve only user-written Cypher, which the read-only gate checks instead."""

from __future__ import annotations

import logging
import socket
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import contextmanager
from typing import Any, TypeVar
from urllib.parse import urlsplit

import neo4j
from neo4j import GraphDatabase, NotificationMinimumSeverity, RoutingControl
from neo4j.exceptions import AuthError, Neo4jError, ServiceUnavailable, SessionExpired

from graphwright.errors import GraphStoreError, QueryRejectedError, WriteRejectedError
from graphwright.graph_store.workspace_names import Workspace

log = logging.getLogger(__name__)
T = TypeVar("T")
Row = dict[str, Any]


class ScopedTransaction:
    """A managed transaction that runs the package's queries in its workspace's names."""

    def __init__(self, tx: neo4j.ManagedTransaction, workspace: Workspace) -> None:
        self._tx = tx
        self._workspace = workspace

    def run(self, query: str, parameters: dict[str, Any] | None = None, **kwargs: Any) -> neo4j.Result:
        return self._tx.run(self._workspace.render(query), parameters, **kwargs)


class Reachability:
    """Whether the database's address takes connections at all, asked with a bare TCP connect (closed port:
    milliseconds; no route: `timeout`). The driver retries an unreachable database for its whole retry time
    (30 s by default, then once more per query), which left a person behind a running server waiting a minute
    for a 503; a failed connect is known at once and answered at once, and every call while the database is
    down asks again (at most once per `recheck` seconds), so the same process recovers when it returns."""

    def __init__(self, uri: str, timeout: float, recheck: float = 0.5) -> None:
        parsed = urlsplit(uri)
        self.address = (parsed.hostname or "127.0.0.1", parsed.port or 7687)
        self.timeout, self.recheck = timeout, recheck
        self.down = False
        self._asked_at, self._answered = -1e9, True
        self._lock = threading.Lock()

    def answers(self) -> bool:
        with self._lock:
            if time.monotonic() - self._asked_at >= self.recheck:
                try:
                    socket.create_connection(self.address, timeout=self.timeout).close()
                    self._answered = True
                except OSError:
                    self._answered = False
                self._asked_at = time.monotonic()
            self.down = not self._answered
            return self._answered


class Neo4jConnection:
    def __init__(
        self,
        uri: str,
        user: str,
        password: str,
        database: str = "neo4j",
        retry_seconds: float = 30.0,
        connect_seconds: float = 2.0,
    ) -> None:
        self.uri = uri
        self.database = database
        self.retry_seconds = retry_seconds
        self.workspace = Workspace()  # default; `scoped` gives the same driver in another
        self._owns_driver = True
        self.reachability = Reachability(uri, connect_seconds)
        # Notifications (e.g. "label does not exist yet" on an empty graph) are noise for users.
        self.driver = GraphDatabase.driver(
            uri,
            auth=(user, password),
            connection_timeout=connect_seconds,
            max_transaction_retry_time=retry_seconds,
            notifications_min_severity=NotificationMinimumSeverity.OFF,
        )

    def scoped(self, workspace: Workspace) -> Neo4jConnection:
        """The same driver in another workspace (closing it leaves the driver to this connection)."""
        other = object.__new__(Neo4jConnection)
        other.uri, other.database, other.driver = self.uri, self.database, self.driver
        other.retry_seconds, other.reachability = self.retry_seconds, self.reachability
        other.workspace, other._owns_driver = workspace, False
        return other

    def unreachable(self) -> GraphStoreError:
        """The one line a person gets while the database is down, wherever they asked from."""
        return GraphStoreError(
            f"Neo4j is not reachable at {self.uri}: start it with `graphwright db start` or "
            "`docker compose up -d` (or check NEO4J_URI; `graphwright db status` says more)"
        )

    def _ensure_reachable(self) -> None:
        """Fail at once while the database is known to be down and its address still refuses connections."""
        if self.reachability.down and not self.reachability.answers():
            raise self.unreachable()

    def verify(self) -> None:
        try:
            self.driver.verify_connectivity()
        except AuthError as exc:
            raise GraphStoreError(
                f"Neo4j at {self.uri} refused the credentials (check NEO4J_USER / NEO4J_PASSWORD)"
            ) from exc
        except (ServiceUnavailable, OSError) as exc:
            self.reachability.down = True  # the next call asks the address again before the driver waits
            raise self.unreachable() from exc

    def close(self) -> None:
        if self._owns_driver:
            self.driver.close()

    def read(self, cypher: str, /, **params: Any) -> list[Row]:
        """Rows of a query in a READ transaction."""
        return self._run(cypher, params, RoutingControl.READ)

    def write(self, cypher: str, /, **params: Any) -> list[Row]:
        """Rows of one write statement in its own transaction."""
        return self._run(cypher, params, RoutingControl.WRITE)

    def _run(self, query: str, params: dict[str, Any], routing: RoutingControl) -> list[Row]:
        if routing == RoutingControl.READ:
            return self._read_rows(self.workspace.render(query), params)
        self._ensure_reachable()
        with self._translated(WriteRejectedError):  # credentials refused: a GraphStoreError there too
            records, _, _ = self.driver.execute_query(
                self.workspace.render(query), params, database_=self.database, routing_=routing
            )
        return [record.data() for record in records]

    def _read_rows(self, query: str, params: dict[str, Any]) -> list[Row]:
        """A read, retried here rather than by the driver: a lost connection or a transient error is tried
        again for up to the retry time while the database's address takes connections, and not at all once
        it refuses them (someone is waiting for the answer; a write, which may be a long ingest's, still waits
        out a restart in the driver's managed retries)."""
        deadline, delay = time.monotonic() + self.retry_seconds, 0.1
        while True:
            self._ensure_reachable()
            try:
                # one auto-commit round trip, as the driver's execute_query makes it (an explicit transaction
                # added two, 3-5 ms a search), in the same causal chain as the writes
                with (
                    self._translated(QueryRejectedError, retryable=True),
                    self.driver.session(
                        database=self.database,
                        default_access_mode=neo4j.READ_ACCESS,
                        bookmark_manager=self.driver.execute_query_bookmark_manager,
                    ) as session,
                ):
                    return [record.data() for record in session.run(query, params)]
            except _RetryableError:
                if time.monotonic() + delay > deadline:
                    raise GraphStoreError(f"Neo4j at {self.uri} did not answer a read within the retry time") from None
            time.sleep(delay)
            delay = min(2 * delay, 1.0)

    def execute_write(self, work: Callable[[ScopedTransaction], T]) -> T:
        """`work` in one managed write transaction: all of it commits, or none."""
        self._ensure_reachable()
        with self._translated(WriteRejectedError), self.driver.session(database=self.database) as session:
            return session.execute_write(lambda tx: work(ScopedTransaction(tx, self.workspace)))

    def read_once(
        self, work: Callable[[neo4j.Transaction], T], timeout: float | None = None, fetch_size: int | None = None
    ) -> T:
        """`work` in one READ transaction (the server refuses writes there), run once: never retried, whatever
        fails (the driver's managed transactions retry what they take for transient, and a query that ran
        out of memory once would run out again). With an optional timeout and the number of records fetched
        per round trip; its text runs as given (user Cypher, checked first)."""
        self._ensure_reachable()
        with (
            self._translated(QueryRejectedError),
            self._read_session(fetch_size) as session,
            session.begin_transaction(timeout=timeout) as tx,
        ):
            return work(tx)

    def stream(self, cypher: str, /, **params: Any) -> Iterator[neo4j.Record]:
        """Records of a large read one at a time, without holding them all."""
        self._ensure_reachable()
        with self._translated(None), self._read_session() as session:
            yield from session.run(self.workspace.render(cypher), params)

    def explain(self, query: str, timeout: float) -> tuple[str, dict[str, Any] | None]:
        """Neo4j's classification ("r", "rw", "w" or "s") and plan tree of an `EXPLAIN ...` query, run in a
        READ session; nothing of the query is executed. Planning is bounded too: by the transaction's timeout
        and, should the server never answer (a parser that overflowed its stack sends nothing), by waiting at
        most `timeout` seconds here, after which the query is refused and the call left to end on its own."""

        self._ensure_reachable()

        def plan() -> tuple[str, dict[str, Any] | None]:
            with self._translated(QueryRejectedError), self._read_session() as session:
                summary = session.run(neo4j.Query(query, timeout=timeout)).consume()
                found = summary.plan
                return summary.query_type or "?", dict(found) if isinstance(found, dict) else None

        pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="graphwright-explain")
        try:
            return pool.submit(plan).result(timeout=timeout)
        except FutureTimeout as exc:
            raise QueryRejectedError(
                f"Neo4j did not plan the query within {timeout:g} s, so it is refused; simplify it"
            ) from exc
        finally:
            pool.shutdown(wait=False)

    def _read_session(self, fetch_size: int | None = None) -> neo4j.Session:
        extra: dict[str, Any] = {"fetch_size": fetch_size} if fetch_size else {}
        return self.driver.session(database=self.database, default_access_mode=neo4j.READ_ACCESS, **extra)

    @contextmanager
    def _translated(
        self, refused: type[QueryRejectedError] | type[WriteRejectedError] | None, *, retryable: bool = False
    ) -> Iterator[None]:
        """Neo4j's failures as ours: the database gone is a GraphStoreError (the one-line hint when its address
        refuses connections); one statement Neo4j refused is `refused` (None: left as Neo4j raised it). With
        `retryable`, a failure worth trying again (a lost connection to a database that still takes
        connections, a transient error) is raised as _RetryableError for the caller's loop."""
        try:
            yield
        except AuthError as exc:
            raise GraphStoreError(f"Neo4j at {self.uri} refused the credentials") from exc
        except (ServiceUnavailable, SessionExpired) as exc:
            if not self.reachability.answers():
                raise self.unreachable() from exc
            if retryable:
                raise _RetryableError from exc
            raise GraphStoreError(f"Neo4j at {self.uri} became unreachable: {exc}") from exc
        except Neo4jError as exc:
            if retryable and exc.is_retryable():
                raise _RetryableError from exc
            if refused is None:
                raise
            if refused is WriteRejectedError:
                log.warning("write rolled back: %s", exc.message or exc)
            what = "query" if refused is QueryRejectedError else "write"
            raise refused(f"Neo4j refused the {what}: {exc.message or exc}") from exc


class _RetryableError(Exception):
    """A read failed in a way worth trying again (raised only inside this module)."""


def write_batches(connection: Neo4jConnection, query: str, key: str, items: Sequence[Any], batch_size: int) -> None:
    """`query` once per slice of `items` (passed as `key`), each slice in a transaction of its own: derived data
    (communities, summary trees) whose writes must stay under Neo4j's transaction memory limit."""
    for start in range(0, len(items), batch_size):
        part = list(items[start : start + batch_size])

        def work(tx: ScopedTransaction, part: list[Any] = part) -> None:
            tx.run(query, {key: part}).consume()

        connection.execute_write(work)


def run_batches(
    tx: ScopedTransaction, query: str, key: str, items: list[Any], batch_size: int, **params: Any
) -> list[neo4j.Record]:
    """`query` once per slice of `items` (passed as `key`), all in `tx`; the records of every slice."""
    records: list[neo4j.Record] = []
    for start in range(0, len(items), batch_size):
        records += list(tx.run(query, {key: items[start : start + batch_size], **params}))
    return records


class Role:
    """What every role of the store is: a small object over the store's one connection (graph_store/store.py)."""

    def __init__(self, connection: Neo4jConnection) -> None:
        self.connection = connection

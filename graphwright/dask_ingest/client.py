"""The client's side of a cluster ingest: a connection that checks its workers, and an embedder and an
extractor whose work runs on them. The pipeline asks for a wave's work at once (`prefetch`), so the workers
stay busy while this process resolves and writes the group before; it takes the results in the order of a
single run, and a text's vector or a chunk's extraction does not depend on which worker made it, so the graph
is the one a single run writes."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from graphwright.errors import ClusterError, ExtraNotInstalledError
from graphwright.extraction.base import LearnsFromExamples, SchemaAware, Versioned
from graphwright.models import ChunkExtraction

if TYPE_CHECKING:
    from graphwright.embeddings.base import Embedder
    from graphwright.extraction.base import Extractor
    from graphwright.graph_schema import GraphSchema
    from graphwright.models import ExtractionExample

# Texts per embedding task and chunks per extraction task: enough to hide a task's overhead (~1 ms), few
# enough that a wave spreads over many workers and a lost worker costs little to redo.
EMBED_PIECE = 64
EXTRACT_PIECE = 32


def _pieces(items: list[Any], size: int) -> Iterable[list[Any]]:
    return (items[start : start + size] for start in range(0, len(items), size))


class Cluster:
    """A connection to a Dask scheduler whose workers run graphwright. `retries`: how many times a task is
    run again after it failed (a worker that dies has its tasks run elsewhere, which Dask does itself); `home`:
    where the client's TLS certificates are (dask_ingest/trust.py), for a `tls://` address."""

    def __init__(
        self,
        address: str,
        *,
        retries: int = 2,
        timeout: float = 30.0,
        home: Path,
        insecure: bool = False,
    ) -> None:
        from graphwright.dask_ingest.trust import check_address, security

        tls = check_address(address, insecure=insecure, what="the scheduler")
        try:
            from distributed import Client
        except ImportError as exc:
            raise ExtraNotInstalledError(
                "--cluster needs Dask distributed: pip install 'graphwright[cluster]'"
            ) from exc
        from graphwright.dask_ingest.state import PLUGIN, WorkerState

        self.address = address
        self.retries = retries
        try:
            found = security(home, "client") if tls else None
            self.client = Client(address, timeout=timeout, set_as_default=False, security=found)
        except (OSError, TimeoutError) as exc:
            raise ClusterError(f"no Dask scheduler answered at {address}: {exc}") from exc
        try:
            self.client.wait_for_workers(1, timeout=timeout)
            # every worker, and one that joins later, builds its embedder and extractors from its own settings
            self.client.register_plugin(WorkerState(), name=PLUGIN)
        except (OSError, TimeoutError) as exc:
            self.close()
            raise ClusterError(f"no worker joined the scheduler at {address} within {timeout:.0f} s") from exc

    def check(self, embedder: Embedder, extractor: Extractor | None, choice: str | None) -> None:
        """Refuse workers that would embed with another model or extract with another extractor than this
        client: their vectors or entities would not match the graph's."""
        from graphwright.dask_ingest.state import identify

        want = {
            "embedder": embedder.name,
            "dimension": embedder.dimension,
            "extractor": extractor.name if extractor is not None else "none",
            "version": extractor.version if isinstance(extractor, Versioned) else "",
        }
        for worker, have in self.client.run(identify, choice if extractor is not None else "none").items():
            wrong = {k: (have.get(k), v) for k, v in want.items() if have.get(k) != v}
            if wrong:
                said = "; ".join(f"{k}: {got!r} there, {mine!r} here" for k, (got, mine) in wrong.items())
                raise ClusterError(f"worker {worker} would not write this graph ({said})")

    def submit(self, fn: Callable[..., Any], *args: Any) -> Any:
        return self.client.submit(fn, *args, pure=False, retries=self.retries)

    def close(self) -> None:
        self.client.close()

    def __enter__(self) -> Cluster:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _examples_json(examples: list[ExtractionExample]) -> str:
    """Worked examples as the workers' extractors are told them (state.WorkerState.extractor reads this)."""
    from pydantic import TypeAdapter

    from graphwright.models import ExtractionExample as Example

    return TypeAdapter(list[Example]).dump_json(examples).decode()


# What a worker may send back (a worker is trusted by its certificate, but a result is still checked before it is
# written: a broken or compromised worker fails its task, it does not write what it likes).
MAX_ENTITIES = 500  # per chunk
MAX_RELATIONS = 1000
MAX_NAME_CHARS = 500
MAX_TEXT_CHARS = 20_000


def _checked_vectors(found: Any, rows: int, dimension: int) -> Any:
    """A task's vectors: an array of `rows` x `dimension` finite floats, or ClusterError."""
    import numpy as np

    if not isinstance(found, np.ndarray) or found.dtype.kind != "f" or found.shape != (rows, dimension):
        shape = getattr(found, "shape", None)
        raise ClusterError(f"a worker returned {type(found).__name__} {shape} for {rows} vectors of {dimension}")
    if not np.isfinite(found).all():
        raise ClusterError("a worker returned vectors that are not finite numbers")
    return found


def _checked_extractions(found: Any, asked: list[str]) -> tuple[list[ChunkExtraction], dict[str, float]]:
    """A task's extractions: one ChunkExtraction per chunk asked (re-validated here, sizes bounded), and usage
    counts as numbers; anything else is the task's failure."""
    if not (isinstance(found, tuple) and len(found) == 2 and isinstance(found[0], list) and isinstance(found[1], dict)):
        raise ClusterError(f"a worker returned {type(found).__name__} where (extractions, usage) was expected")
    items, usage = found
    if len(items) != len(asked):
        raise ClusterError(f"a worker returned {len(items)} extractions for {len(asked)} chunks")
    checked = []
    for item, chunk_id in zip(items, asked, strict=True):
        extraction = ChunkExtraction.model_validate(item.model_dump() if isinstance(item, ChunkExtraction) else item)
        if extraction.chunk_id != chunk_id:
            raise ClusterError(f"a worker returned chunk {extraction.chunk_id[:40]!r} where {chunk_id!r} was asked")
        if len(extraction.entities) > MAX_ENTITIES or len(extraction.relations) > MAX_RELATIONS:
            raise ClusterError(f"a worker returned more entities or relations for chunk {chunk_id!r} than allowed")
        names = [e.name for e in extraction.entities] + [n for r in extraction.relations for n in (r.source, r.target)]
        texts = [e.description for e in extraction.entities] + [
            r.description + r.evidence for r in extraction.relations
        ]
        if any(len(n) > MAX_NAME_CHARS for n in names) or any(len(t) > MAX_TEXT_CHARS for t in texts):
            raise ClusterError(f"a worker returned names or texts for chunk {chunk_id!r} longer than allowed")
        checked.append(extraction)
    if not all(
        isinstance(k, str) and isinstance(v, (int, float)) and not isinstance(v, bool) for k, v in usage.items()
    ):
        raise ClusterError("a worker returned usage counts that are not numbers")
    return checked, {k: float(v) for k, v in usage.items()}


def _failure(exc: BaseException) -> str:
    return f"cluster task failed after its retries: {type(exc).__name__}: {exc}"


class ClusterEmbedder:
    """The client's embedder (its name and dimension), with the vectors made on the workers."""

    def __init__(self, cluster: Cluster, local: Embedder) -> None:
        self.name = local.name
        self._local = local
        self._cluster = cluster
        self._pending: dict[str, tuple[Any, int]] = {}  # text -> (future, row in its result)
        self._rows: dict[Any, int] = {}  # future key -> texts it was asked for

    @property
    def dimension(self) -> int:
        return self._local.dimension

    def prefetch(self, texts: list[str]) -> None:
        from graphwright.dask_ingest.state import embed_texts

        new = list(dict.fromkeys(t for t in texts if t not in self._pending))
        for piece in _pieces(new, EMBED_PIECE):
            future = self._cluster.submit(embed_texts, piece)
            self._rows[future.key] = len(piece)
            self._pending.update((text, (future, row)) for row, text in enumerate(piece))

    def embed(self, texts: list[str]) -> list[list[float]]:
        self.prefetch(texts)
        results: dict[Any, Any] = {}
        out: list[list[float]] = []
        for text in texts:
            future, row = self._pending[text]
            if future.key not in results:
                try:
                    found = future.result()
                except Exception as exc:  # a task's own error, after its retries, or a cluster gone
                    raise ClusterError(f"embedding on {self._cluster.address}: {_failure(exc)}") from exc
                results[future.key] = _checked_vectors(found, self._rows[future.key], self.dimension)
            out.append(results[future.key][row].tolist())
        for text in texts:
            self._pending.pop(text, None)  # asked once: its memory goes with it
        live = {future.key for future, _ in self._pending.values()}
        self._rows = {key: rows for key, rows in self._rows.items() if key in live}
        return out


class ClusterExtractor:
    """The client's extractor (name, version, summaries for resolution, its time budget), with chunks
    extracted on the workers by the same extractor, told the same schema and examples."""

    def __init__(
        self,
        cluster: Cluster,
        local: Extractor,
        choice: str | None,
        examples: list[ExtractionExample] | None = None,
    ) -> None:
        self.name = local.name
        self._local = local
        self._cluster = cluster
        self._choice = choice
        self._schema_json = ""
        self._examples_json = _examples_json(examples) if examples else ""
        self._pending: dict[str, tuple[Any, int]] = {}  # chunk id -> (future, position in its result)
        self._pieces: dict[Any, list[str]] = {}  # future key -> the chunk ids it was asked for, in order
        self._usage: dict[str, float] = {}

    def __getattr__(self, name: str) -> Any:  # version, summarize, set_deadline...: the local extractor's
        return getattr(self._local, name)

    def use_schema(self, schema: GraphSchema) -> None:
        if isinstance(self._local, SchemaAware):
            self._local.use_schema(schema)
        self._schema_json = schema.to_json()

    def use_examples(self, examples: list[ExtractionExample]) -> None:
        if isinstance(self._local, LearnsFromExamples):
            self._local.use_examples(examples)
        self._examples_json = _examples_json(examples)

    def usage(self) -> dict[str, float]:
        """The workers' extraction calls and this process's own (an LLM's summaries for resolution)."""
        total = dict(self._local.usage())
        for key, value in self._usage.items():
            total[key] = total.get(key, 0.0) + value
        return total

    def prefetch(self, chunks: list[tuple[str, str]]) -> None:
        from graphwright.dask_ingest.state import extract_pairs

        new = [pair for pair in dict(chunks).items() if pair[0] not in self._pending]
        for piece in _pieces(new, EXTRACT_PIECE):
            args = (self._choice, self._schema_json, self._examples_json, piece)
            future = self._cluster.submit(extract_pairs, *args)
            self._pending.update((cid, (future, i)) for i, (cid, _) in enumerate(piece))
            self._pieces[future.key] = [cid for cid, _ in piece]

    def extract_many(
        self, chunks: list[tuple[str, str]], on_done: Callable[[int], None] | None = None
    ) -> list[ChunkExtraction]:
        self.prefetch(chunks)
        wanted = {cid for cid, _ in chunks}
        futures = {self._pending[cid][0].key: self._pending[cid][0] for cid in wanted}
        found: dict[str, ChunkExtraction] = {}
        done = 0
        for future in futures.values():  # in the order asked, which is the order the cluster runs them
            try:
                extractions, usage = _checked_extractions(future.result(), self._pieces[future.key])
            except Exception as exc:  # noqa: BLE001 - any error a task raised, after its retries: its chunks
                # fail, so their documents are marked incomplete and the next run redoes them
                extractions = [
                    ChunkExtraction(chunk_id=cid, error=_failure(exc))
                    for cid, (f, _) in self._pending.items()
                    if f.key == future.key
                ]
                usage = {}
            for key, value in usage.items():
                self._usage[key] = self._usage.get(key, 0.0) + value
            for extraction in extractions:
                if extraction.chunk_id in wanted:
                    found[extraction.chunk_id] = extraction
                    done += 1
            if on_done is not None:
                on_done(done)
        for cid in wanted:
            self._pending.pop(cid, None)
        live = {future.key for future, _ in self._pending.values()}
        self._pieces = {key: ids for key, ids in self._pieces.items() if key in live}
        return [found[cid] for cid, _ in chunks]

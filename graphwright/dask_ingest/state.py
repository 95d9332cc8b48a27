"""What a worker holds: the embedder and extractors built once from the worker's own settings (its
environment, as any graphwright process reads it, so keys never cross the cluster's wire), and the tasks
that use them. Runs only where `distributed` is installed."""

from __future__ import annotations

import hashlib
import logging
from typing import Any

from distributed import WorkerPlugin, get_worker

from graphwright.models import ChunkExtraction

log = logging.getLogger(__name__)

PLUGIN = "graphwright"


class WorkerState(WorkerPlugin):
    """Built when the plugin reaches a worker (at its start under `graphwright worker`, or when a client
    registers it): the embedder is loaded and run once, so the first task does not pay for it."""

    idempotent = True  # a worker started by `graphwright worker` already has one: a client's is skipped

    def __init__(self) -> None:
        self.settings: Any = None
        self.embedder: Any = None
        self._extractors: dict[str, Any] = {}

    def setup(self, worker: Any) -> None:
        from graphwright.config import Settings
        from graphwright.embeddings import make_embedder

        self.settings = Settings()
        self.embedder = make_embedder(self.settings)
        self.embedder.embed(["warm up"])
        log.info("worker %s: embedder %s", worker.address, self.embedder.name)

    def extractor(self, choice: str | None, schema_json: str, examples_json: str) -> Any:
        """The extractor the client chose, told the client's schema and examples; built once per choice."""
        key = hashlib.sha256(f"{choice}\x00{schema_json}\x00{examples_json}".encode()).hexdigest()
        if key not in self._extractors:
            from pydantic import TypeAdapter

            from graphwright.extraction.base import LearnsFromExamples, SchemaAware
            from graphwright.extraction.registry import make_extractor
            from graphwright.graph_schema import GraphSchema
            from graphwright.llm.registry import make_llm
            from graphwright.models import ExtractionExample

            extractor = make_extractor(self.settings, choice, make_llm(self.settings))
            if schema_json and isinstance(extractor, SchemaAware):
                extractor.use_schema(GraphSchema.model_validate_json(schema_json))
            if examples_json and isinstance(extractor, LearnsFromExamples):
                examples = TypeAdapter(list[ExtractionExample]).validate_json(examples_json)
                extractor.use_examples(examples)
            self._extractors[key] = extractor
        return self._extractors[key]


def _state(worker: Any = None) -> WorkerState:
    state = (worker or get_worker()).plugins[PLUGIN]
    assert isinstance(state, WorkerState)
    return state


def identify(choice: str | None, dask_worker: Any = None) -> dict[str, Any]:
    """How this worker would embed and extract, for the client to compare with its own (`Client.run` passes
    `dask_worker`: it runs outside a task)."""
    from graphwright.extraction.base import Versioned

    state = _state(dask_worker)
    extractor = state.extractor(choice, "", "") if choice != "none" else None
    return {
        "embedder": state.embedder.name,
        "dimension": state.embedder.dimension,
        "extractor": getattr(extractor, "name", "none"),
        "version": extractor.version if isinstance(extractor, Versioned) else "",
    }


def embed_texts(texts: list[str]) -> Any:
    """Vectors as one float32 array: a quarter of the bytes of Python floats on the wire."""
    import numpy as np

    return np.asarray(_state().embedder.embed(texts), dtype=np.float32)


def extract_pairs(
    choice: str | None, schema_json: str, examples_json: str, pairs: list[tuple[str, str]]
) -> tuple[list[ChunkExtraction], dict[str, float]]:
    """The extractions of (chunk id, text) pairs and what they cost (an LLM's calls and tokens)."""
    extractor = _state().extractor(choice, schema_json, examples_json)
    before = dict(extractor.usage())
    found = extractor.extract_many(pairs)
    after = extractor.usage()
    return found, {k: v - before.get(k, 0.0) for k, v in after.items()}

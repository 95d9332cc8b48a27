"""Loaded by `graphwright worker` (Dask's `--preload`): the worker builds its embedder and extractor state
when it starts, before its first task."""

from __future__ import annotations

from typing import Any

from graphwright.dask_ingest.state import PLUGIN, WorkerState


async def dask_setup(worker: Any) -> None:
    await worker.plugin_add(WorkerState(), name=PLUGIN)

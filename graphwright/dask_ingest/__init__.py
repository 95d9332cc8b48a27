"""Ingest on a Dask cluster (`graphwright ingest --cluster tcp://HOST:8786`, `graphwright worker`; the
`cluster` extra). Workers embed and extract, the costly ~90% of an offline ingest; this process plans the run
(the content-hash skip), reads the files, resolves entity names across every document, writes, and builds
communities once at the end. Why the writes stay here: one writer in the order of a single run writes the
graph a single run writes (no shard-boundary duplicates, no deadlocks between writers on shared entities),
and writing was 6% of a long-filings ingest (docs/scaling.md)."""

from __future__ import annotations

from graphwright.dask_ingest.client import Cluster, ClusterEmbedder, ClusterExtractor

__all__ = ["Cluster", "ClusterEmbedder", "ClusterExtractor"]

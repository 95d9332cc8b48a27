"""What a worker returns is checked before the client writes it (issue 76, finding 6): types, shapes, counts,
ids and sizes; a forged or broken result fails its task instead of reaching the graph."""

from __future__ import annotations

import pytest

pytest.importorskip("numpy")

import numpy as np

from graphwright.dask_ingest.client import MAX_ENTITIES, _checked_extractions, _checked_vectors
from graphwright.errors import ClusterError
from graphwright.models import ChunkExtraction, ExtractedEntity


def test_vectors_must_be_the_asked_shape_of_finite_floats() -> None:
    good = np.ones((2, 4), dtype=np.float32)
    assert _checked_vectors(good, 2, 4) is good
    for bad in (np.ones((3, 4)), np.ones((2, 5)), np.ones((2, 4), dtype=np.int64), [[1.0] * 4] * 2, "vectors"):
        with pytest.raises(ClusterError):
            _checked_vectors(bad, 2, 4)
    broken = good.copy()
    broken[0, 0] = np.nan
    with pytest.raises(ClusterError, match="not finite"):
        _checked_vectors(broken, 2, 4)


def test_extractions_must_answer_exactly_the_chunks_asked_within_bounds() -> None:
    asked = ["c1", "c2"]
    good = [ChunkExtraction(chunk_id="c1", entities=[ExtractedEntity(name="Ada")]), ChunkExtraction(chunk_id="c2")]
    found, usage = _checked_extractions((good, {"calls": 2}), asked)
    assert [f.chunk_id for f in found] == asked and usage == {"calls": 2.0}
    forged = [ChunkExtraction(chunk_id="c9"), ChunkExtraction(chunk_id="c2")]
    many = [ChunkExtraction(chunk_id="c1", entities=[ExtractedEntity(name=f"e{i}") for i in range(MAX_ENTITIES + 1)])]
    long_name = [ChunkExtraction(chunk_id="c1", entities=[ExtractedEntity(name="x" * 10_000)])]
    for result, ids in (
        ((forged, {}), asked),  # a chunk that was not asked
        ((good[:1], {}), asked),  # one missing
        ((many, {}), ["c1"]),
        ((long_name, {}), ["c1"]),
        ((good, {"calls": "lots"}), asked),
        (good, asked),  # not the (extractions, usage) pair
        (([{"chunk_id": "c1", "entities": "not a list"}, good[1]], {}), asked),
    ):
        with pytest.raises((ClusterError, ValueError)):
            _checked_extractions(result, ids)

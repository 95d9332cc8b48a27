"""RAPTOR's own clustering, as the paper does it (Sarthi et al., 2024; parthsarthi03/raptor `cluster_utils.py`):
the vectors reduced by UMAP to 10 dimensions (neighbours: the square root of the count), a Gaussian mixture whose
number of components is chosen by BIC, recursively until a cluster is small enough. An extra
(`pip install 'graphwright[raptor-umap]'`, GRAPHWRIGHT_RAPTOR_CLUSTERING=umap-gmm), not the default: on issue
66's 2,000 planted vectors it took 113 s plus 25 s importing numba where the nearest-neighbour graph and Leiden
took 0.3 s, and found the clusters less exactly. Membership is hard (each passage in its most likely
component), where the paper also lets a passage sit in every component above 0.1: a tree here is named by the
passages it covers, and a passage under one summary of a level keeps each rebuild's tree the same shape.

Returns the same hierarchy Leiden's detection does (communities/leiden.py), coarsest first, so the tree is
built from either the same way."""

from __future__ import annotations

from typing import Any

from graphwright.communities.leiden import DetectedCommunity, member_hash
from graphwright.errors import ExtraNotInstalledError

DIMENSIONS = 10
MAX_COMPONENTS = 50


def detect_gmm(ids: list[str], vectors: Any, max_cluster: int, seed: int = 42) -> list[DetectedCommunity]:
    import numpy as np

    try:
        import umap  # noqa: F401  (numba's import is most of its cost, paid here once)
        from sklearn.mixture import GaussianMixture  # noqa: F401
    except ImportError as exc:
        raise ExtraNotInstalledError(
            "GRAPHWRIGHT_RAPTOR_CLUSTERING=umap-gmm needs umap-learn and scikit-learn: "
            "pip install 'graphwright[raptor-umap]' (or use the default, leiden)"
        ) from exc
    matrix = np.asarray(vectors, dtype=np.float32)
    found: list[DetectedCommunity] = []

    def split(rows: Any, level: int, parent: str | None) -> str:
        members = [ids[int(i)] for i in rows]
        digest = member_hash(members)
        community = DetectedCommunity(
            id=f"g{level}-{digest[:16]}", level=level, members=sorted(members), member_hash=digest, parent=parent
        )
        found.append(community)
        if len(rows) > max_cluster:
            labels = _labels(matrix[rows], seed)
            parts = [rows[labels == label] for label in np.unique(labels)]
            if len(parts) < 2:  # one component: halve along the widest direction, so the tree still narrows
                parts = _halves(matrix, rows)
            community.children = [split(part, level + 1, community.id) for part in parts]
        return community.id

    if len(ids) >= 2:
        split(np.arange(len(ids)), 0, None)
    return found


def _labels(vectors: Any, seed: int) -> Any:
    """Each vector's component in the Gaussian mixture BIC prefers, over UMAP's reduction of them."""
    import numpy as np
    from sklearn.mixture import GaussianMixture

    n = len(vectors)
    reduced = vectors
    if n > DIMENSIONS + 2:
        import umap

        reducer = umap.UMAP(
            n_neighbors=max(2, int((n - 1) ** 0.5)),
            n_components=DIMENSIONS,
            metric="cosine",
            random_state=seed,
            n_jobs=1,  # a seed makes UMAP one-threaded anyway; said, it does not warn
        )
        reduced = reducer.fit_transform(vectors)
    best, best_bic = None, np.inf
    for k in range(1, min(MAX_COMPONENTS, n // 2) + 1):
        mixture = GaussianMixture(n_components=k, random_state=seed).fit(reduced)
        bic = mixture.bic(reduced)
        if bic < best_bic:
            best, best_bic = mixture, bic
    assert best is not None
    return best.predict(reduced)


def _halves(matrix: Any, rows: Any) -> list[Any]:
    import numpy as np

    block = matrix[rows] - matrix[rows].mean(axis=0)
    direction = np.linalg.svd(block, full_matrices=False)[2][0]
    order = rows[np.argsort(block @ direction)]
    middle = len(order) // 2
    return [order[:middle], order[middle:]]

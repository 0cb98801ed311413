"""The funnel's automatic settings, calibrated on the index's own similarity profile.

MiniLM-like models give unrelated texts of one domain a cosine far from 0 (licences: 0.42
for the median pair of passages from different documents, 0.30 at the 10th percentile),
and off-topic questions score about 0.1 against every passage, so no fixed number suits
every corpus. `background(index)` samples pairs of indexed passages from *different
documents* (passages of different sections when there is one document) and reads a
percentile of their cosines: a candidate less similar to the question than the 10th
percentile of unrelated passage pairs is noise. On the licence set every relevant hit
scored ≥ 0.48 against a threshold of 0.30 (`bench/retrieval_quality.py`).
"""

from __future__ import annotations

import numpy as np

PERCENTILE = 10.0
PAIRS = 4000


def background(
    index, granularity: str = "section", *, percentile: float = PERCENTILE, pairs: int = PAIRS
) -> float | None:
    """The `percentile` of cosines between unrelated passages of `index` (None: no vectors).

    Deterministic (a fixed seed) and computed once per index and setting.
    """
    if not index.embedding_model:
        return None
    key = ("_background", granularity, percentile, pairs)
    cache = index.__dict__.setdefault("_calibration", {})
    if key in cache:
        return cache[key]
    dense = index.base("dense", granularity)
    vectors = np.asarray(dense.vectors, dtype=np.float32)
    if len(vectors) < 2:
        cache[key] = None
        return None
    groups = np.asarray(index.chunks.column("doc_id").take(dense.rows).to_pylist(), dtype=object)
    if len(set(groups.tolist())) < 2:
        groups = np.asarray(
            index.chunks.column("section_id").take(dense.rows).to_pylist(), dtype=object
        )
    rng = np.random.default_rng(0)
    a, b = rng.integers(0, len(vectors), pairs), rng.integers(0, len(vectors), pairs)
    keep = groups[a] != groups[b]
    if not keep.any():
        cache[key] = None
        return None
    cosines = np.einsum("ij,ij->i", vectors[a[keep]], vectors[b[keep]])
    cache[key] = float(np.percentile(cosines, percentile))
    return cache[key]

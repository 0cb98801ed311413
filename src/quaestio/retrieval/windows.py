"""The "windows" re-score: the packaged embedding model over sentence windows of each hit.

A long passage's single vector averages everything it says; the sentence that answers can
be drowned. Each hit is cut into windows of `size` sentences (stride 1, `pysbd` sentences);
its score is the best cosine of the question to one of its windows. No cross-encoder ships
inside a PyPI package, so this is the offline reranker (see the bench for whether it helps).
"""

from __future__ import annotations

import numpy as np

from .splitting import sentence_spans


def windows(text: str, size: int = 3, max_windows: int = 24) -> list[str]:
    """Overlapping windows of `size` sentences of `text` (at most `max_windows`)."""
    spans = sentence_spans(text, 0, len(text))
    if len(spans) <= size:
        return [text]
    out = [text[spans[i][0] : spans[i + size - 1][1]] for i in range(len(spans) - size + 1)]
    step = max(1, len(out) // max_windows)
    return out[::step][:max_windows]


def window_scores(embedder, question: str, texts: list[str], *, size: int = 3) -> np.ndarray:
    """The best window cosine of each text to the question."""
    pieces = [windows(t, size) for t in texts]
    flat = [w for p in pieces for w in p]
    if not flat:
        return np.zeros(len(texts))
    q = embedder.encode_queries([question])[0]
    vectors = embedder.encode_passages(flat)
    sims = vectors @ q
    out, at = [], 0
    for p in pieces:
        out.append(float(sims[at : at + len(p)].max()))
        at += len(p)
    return np.asarray(out)

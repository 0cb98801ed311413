"""Candidate variants and concepts, discovered by clustering a corpus's noun phrases.

Phrases and the dictionary's own keywords are embedded together (packaged model, cached),
reduced with PCA and clustered with HDBSCAN. A cluster that holds keywords of a concept
proposes its other phrases as variants of that concept, each with its similarity to the
concept's keywords; a cluster with no keyword (or the phrases of a cluster that are far
from all its keywords) is proposed as a possible new concept.
Nothing is admitted here: the proposals are rows for an analyst to review.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import polars as pl
import regex

from ..analysis.text import fold_phrase
from ..retrieval.base import Progress
from ..satellites import Satellites
from .cache import embed_phrases
from .phrases import PHRASE_SCHEMA, extract_phrases
from .review import REVIEW_COLUMNS


class Discovery(NamedTuple):
    """What `discover_candidates` found; `message` explains an empty result."""

    candidates: pl.DataFrame  # review rows (REVIEW_COLUMNS), decision left empty
    clusters: pl.DataFrame  # cluster_id, size, phrases, keywords, concepts, label
    phrases: pl.DataFrame  # the phrases with cluster_id and 2-D map coordinates x, y
    message: str
    timings: dict[str, float]


# The columns of `Discovery.clusters`, empty or not.
CLUSTER_SCHEMA = {
    "cluster_id": pl.Int64,
    "size": pl.Int64,
    "phrases": pl.Int64,
    "keywords": pl.Int64,
    "concepts": pl.String,
    "label": pl.String,
    "top_phrases": pl.String,
}


def discover_candidates(
    corpus: Any,
    sats: Satellites,
    *,
    phrases: pl.DataFrame | None = None,
    model: str = "all-MiniLM-L6-v2",
    min_cluster_size: int = 5,
    min_samples: int | None = None,
    dims: int = 20,
    min_count: int = 2,
    max_phrases: int | None = 100_000,
    min_similarity: float = 0.6,
    rejected: Iterable[tuple[str, str]] = (),
    anchor_sources: Iterable[str] = ("expert", "discovery"),
    cache_dir: str | Path | None = None,
    embedder=None,
    progress: Progress | None = None,
    **read_options: Any,
) -> Discovery:
    """Propose new variants for known concepts, and possible new concepts, from a corpus.

    Args:
        corpus: A folder, file or DataFrame (see `read_corpus`); ignored when `phrases`
            (the output of `extract_phrases`) is given.
        sats: The dictionary to grow: its validated keywords anchor the clusters, and no
            keyword it already holds for a concept (validated, candidate or rejected) is
            proposed again for that concept.
        min_cluster_size: HDBSCAN's smallest cluster.
        min_samples: HDBSCAN's neighbourhood size (how conservative the clusters are).
        dims: PCA dimensions before clustering (0 keeps the model's).
        min_count: Fewest occurrences of a phrase that takes part (see `extract_phrases`).
        max_phrases: Most phrases that take part, the most frequent first.
        min_similarity: A variant is proposed only when its cosine similarity to the
            nearest keyword of the concept reaches this.
        rejected: (language, phrase) pairs an analyst rejected as new concepts
            (`rejected_phrases(folder)`), never proposed again.
        anchor_sources: Which keyword rows anchor clusters, by `source`. Closed sets are
            left out by default: they are generated whole from data packages, and hundreds
            of country names would turn every place name of a corpus into a "variant".
        cache_dir: Root of the embedding cache.
        progress: Called as `progress(stage, done, total)` through the long steps
            ("phrases" per document, "embedding" per phrase, "clustering"), for one bar.

    Returns:
        A `Discovery`; with fewer phrases than `min_cluster_size` its frames are empty and
        `message` says why.
    """
    t0 = time.perf_counter()
    if phrases is None:
        phrases = extract_phrases(
            corpus,
            sats,
            min_count=min_count,
            max_phrases=max_phrases,
            progress=progress,
            **read_options,
        )
    timings = {"phrases": time.perf_counter() - t0}
    if phrases.height < max(min_cluster_size, 2):
        why = (
            f"{phrases.height} distinct phrase(s) seen at least {min_count} times, fewer "
            f"than min_cluster_size={min_cluster_size}: nothing to cluster. Give a larger "
            f"corpus or lower --min-count / --min-cluster-size."
        )
        return _empty(phrases, why, timings)
    languages = set(phrases["language"].unique().to_list()) | {"*"}
    # `cased` rows are codes and acronyms (DE, AI, EUR): their vectors say little about
    # meaning, and "AI" (Anguilla) would pull every phrase about AI to a country.
    kws = (
        sats.concept_keywords.filter(
            pl.col("status") == "validated",
            pl.col("match") != "cased",
            pl.col("source").is_in(list(anchor_sources)),
            pl.col("language").is_in(list(languages)),
        )
        .select("concept", "language", "keyword")
        .unique(subset=["concept", "keyword"], maintain_order=True)
    )
    texts = phrases["phrase"].to_list() + kws["keyword"].to_list()
    t = time.perf_counter()
    vectors, encoded = embed_phrases(
        texts, model=model, cache_dir=cache_dir, embedder=embedder, progress=progress
    )
    timings["embed"], timings["encoded"] = time.perf_counter() - t, float(encoded)
    t = time.perf_counter()
    if progress is not None:
        progress("clustering", 0, 1)
    labels, coords = cluster(
        vectors, min_cluster_size=min_cluster_size, min_samples=min_samples, dims=dims
    )
    if progress is not None:
        progress("clustering", 1, 1)
    timings["cluster"] = time.perf_counter() - t
    n = phrases.height
    phrases = phrases.with_columns(
        pl.Series("cluster_id", labels[:n], dtype=pl.Int64),
        pl.Series("x", coords[:n, 0]),
        pl.Series("y", coords[:n, 1]),
    )
    candidates, clusters = _propose(
        phrases, kws, vectors, labels, min_similarity, _known(sats), set(rejected)
    )
    timings["total"] = time.perf_counter() - t0
    found = clusters.height
    message = (
        f"{n} phrases, {found} clusters ({clusters.filter(pl.col('concepts') != '').height}"
        f" touching a known concept), {candidates.height} candidates"
    )
    if found == 0:
        message += ": no cluster formed; try a smaller --min-cluster-size or more text"
    return Discovery(candidates, clusters, phrases, message, timings)


def cluster(
    vectors: np.ndarray,
    *,
    min_cluster_size: int = 5,
    min_samples: int | None = None,
    dims: int = 20,
) -> tuple[np.ndarray, np.ndarray]:
    """HDBSCAN labels (-1 is noise) after PCA to `dims`, and 2-D PCA coordinates for a map.

    Uses the `hdbscan` package when installed (fast on low dimensions), else scikit-learn's.
    """
    from sklearn.decomposition import PCA

    n, dim = vectors.shape
    target = min(dims or dim, dim, n)
    reduced = PCA(n_components=target, random_state=0).fit_transform(vectors)
    coords = reduced[:, :2] if target >= 2 else np.zeros((n, 2))
    # Unit length again, so Euclidean distance ranks neighbours as cosine similarity does.
    reduced = reduced / np.linalg.norm(reduced, axis=1, keepdims=True).clip(min=1e-12)
    try:
        import hdbscan

        model = hdbscan.HDBSCAN(
            min_cluster_size=min_cluster_size, min_samples=min_samples, core_dist_n_jobs=1
        )
    except ImportError:
        from sklearn.cluster import HDBSCAN

        model = HDBSCAN(min_cluster_size=min_cluster_size, min_samples=min_samples)
    return model.fit_predict(reduced.astype(np.float64)), np.asarray(coords)


def _known(sats: Satellites) -> set[tuple[str, str]]:
    return {
        (c, fold_phrase(k))
        for c, k in sats.concept_keywords.select("concept", "keyword").iter_rows()
    }


def _propose(
    phrases: pl.DataFrame,
    kws: pl.DataFrame,
    vectors: np.ndarray,
    labels: np.ndarray,
    min_similarity: float,
    known: set,
    rejected: set,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    n = phrases.height
    recs = phrases.to_dicts()
    kw_concepts, kw_texts = kws["concept"].to_list(), kws["keyword"].to_list()
    anywhere = {key for _, key in known}
    rows, clusters = [], []
    for cid in sorted(set(labels.tolist()) - {-1}):
        members = np.flatnonzero(labels == cid)
        ph = [int(i) for i in members if i < n]
        kw = [int(i) - n for i in members if i >= n]
        concepts = Counter(kw_concepts[i] for i in kw)
        top = sorted(ph, key=lambda i: -recs[i]["count"])
        label = recs[top[0]]["phrase"] if top else kw_texts[kw[0]]
        clusters.append(
            {
                "cluster_id": cid,
                "size": len(members),
                "phrases": len(ph),
                "keywords": len(kw),
                "concepts": "; ".join(sorted(concepts)),
                "label": label,
                "top_phrases": " | ".join(recs[i]["phrase"] for i in top[:5]),
            }
        )
        fresh = [i for i in top if recs[i]["key"] not in anywhere]
        by_concept = {c: [n + i for i in kw if kw_concepts[i] == c] for c in concepts}
        # Phrases far from every keyword of their cluster are not variants of those concepts:
        # a stray keyword ("damage caused to others") must not hide a cluster of new terms.
        strays = []
        for i in fresh:
            if not by_concept:
                strays.append(i)
                continue
            sim, concept, idx = max(
                (
                    (float(np.max(vectors[idx] @ vectors[i])), c, idx)
                    for c, idx in by_concept.items()
                ),
                key=lambda t: t[0],
            )
            if sim < min_similarity:
                strays.append(i)
            elif (concept, recs[i]["key"]) not in known:
                nearest = kw_texts[idx[int(np.argmax(vectors[idx] @ vectors[i]))] - n]
                rows.append(_row(recs[i], cid, "variant", concept, sim, nearest, concepts, ""))
        strays = [i for i in strays if (recs[i]["language"], recs[i]["key"]) not in rejected]
        if strays:
            centroid = vectors[strays].mean(axis=0)
            centroid /= max(float(np.linalg.norm(centroid)), 1e-12)
            proposed = _snake(recs[strays[0]]["phrase"])
            for i in strays:
                rows.append(
                    _row(
                        recs[i],
                        cid,
                        "new_concept",
                        "",
                        float(vectors[i] @ centroid),
                        "",
                        concepts,
                        proposed,
                    )
                )
    cand = pl.DataFrame(rows, schema={c: pl.String for c in REVIEW_COLUMNS})
    cand = cand.with_columns(
        pl.col("similarity").cast(pl.Float64),
        pl.col("cluster_id").cast(pl.Int64),
        pl.col("count").cast(pl.Int64),
        pl.col("docs").cast(pl.Int64),
    )
    cand = cand.sort(["kind", "concept", "similarity"], descending=[True, False, True])
    return cand, pl.DataFrame(clusters, schema=CLUSTER_SCHEMA)


def _row(
    rec: dict,
    cid: int,
    kind: str,
    concept: str,
    sim: float,
    nearest: str,
    concepts: Counter,
    proposed: str,
) -> dict[str, Any]:
    return {
        "decision": "",
        "kind": kind,
        "concept": concept,
        "language": rec["language"],
        "keyword": rec["phrase"],
        "keyword_priority": "secondary",
        "weight": f"{min(1.0, max(0.5, round(sim, 2))):.2f}",
        "match": "fuzzy",
        "proposed_concept": proposed,
        "cluster_id": str(cid),
        "similarity": f"{sim:.3f}",
        "nearest_keyword": nearest,
        "count": str(rec["count"]),
        "docs": str(rec["docs"]),
        "cluster_concepts": "; ".join(sorted(concepts)),
        "examples": " | ".join(rec["examples"]),
    }


def _snake(text: str) -> str:
    words = regex.findall(r"[a-z0-9]+", fold_phrase(text))
    name = "_".join(words)[:40].strip("_") or "concept"
    return name if name[0].isalpha() else "c_" + name


def _empty(phrases: pl.DataFrame, message: str, timings: dict) -> Discovery:
    cand = pl.DataFrame(schema={c: pl.String for c in REVIEW_COLUMNS})
    clusters = pl.DataFrame(schema=CLUSTER_SCHEMA)
    base = phrases if phrases.height else pl.DataFrame(schema=PHRASE_SCHEMA)
    base = base.with_columns(
        pl.lit(-1, pl.Int64).alias("cluster_id"),
        pl.lit(None, pl.Float64).alias("x"),
        pl.lit(None, pl.Float64).alias("y"),
    )
    return Discovery(cand, clusters, base, message, timings)


def write_candidates(candidates: pl.DataFrame, path: str | Path) -> Path:
    """The review file: one candidate per row, `decision` empty for the analyst to fill."""
    path = Path(path)
    candidates.select(pl.col(c).cast(pl.String) for c in REVIEW_COLUMNS).write_csv(path)
    return path

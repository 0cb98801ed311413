"""`evaluate_retrieval`: recall@k, MRR and nDCG@k of one or several hits_df against a gold set.

Query transformations act on what reaches the candidate pool, so recall is reported at
large k as well as small: a configuration that lifts recall@50 feeds a reranker better
even when its MRR does not move.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping, Sequence
from typing import Any

import polars as pl

from ..analysis.text import fold_phrase as fold
from ..io import polars_from_arrow
from ..satellites import Satellites
from .gold import read_gold

DEFAULT_KS = (5, 20, 50)
LEVELS = ("chunk", "section", "doc")
_RELEVANT = {
    "chunk": "relevant_chunk_ids",
    "section": "relevant_sections",
    "doc": "relevant_doc_ids",
}
_ID_COLUMN = {"chunk": "chunk_id", "section": "breadcrumb", "doc": "doc_id"}


def evaluate_retrieval(
    hits: Any,
    gold: Any,
    *,
    ks: Sequence[int] = DEFAULT_KS,
    level: str | None = None,
    satellites: Satellites | None = None,
    as_: str = "pandas",
):
    """Score ranked hits against the gold's relevant ids; one row per configuration.

    Args:
        hits: a hits_df (question_id, chunk_id and/or doc_id, rank), or a mapping
            {configuration name: hits_df} to compare configurations side by side.
        gold: a gold file or frame with `relevant_chunk_ids`, `relevant_sections` or
            `relevant_doc_ids`.
        ks: the cut-offs for recall@k and nDCG@k.
        level: "chunk", "section" or "doc"; by default whichever the gold holds, in that
            order. A section is named by its breadcrumb or any tail of it ("Cancellation",
            "Policy > Cancellation"), compared folded: readable, and stable when the
            corpus is re-chunked. A section or document counts at the rank of its best
            chunk.

    Gold questions with no hits at all score zero: a configuration that returns nothing
    is not rewarded by being left out of the average.
    """
    gold_df = read_gold(gold, satellites)
    level = level or next((name for name in LEVELS if _RELEVANT[name] in gold_df.columns), "chunk")
    if level not in LEVELS:
        raise ValueError(f"level must be one of {', '.join(LEVELS)}, not {level!r}")
    relevant_column = _RELEVANT[level]
    if relevant_column not in gold_df.columns:
        raise ValueError(f"the gold has no {relevant_column!r} column")
    relevant = {
        qid: set(ids)
        for qid, ids in gold_df.select("question_id", relevant_column).drop_nulls().iter_rows()
        if ids
    }
    configurations = hits if isinstance(hits, Mapping) else {"hits": hits}
    if level == "section":
        relevant = {qid: {_fold_section(s) for s in ids} for qid, ids in relevant.items()}
    rows = [
        {
            "configuration": name,
            "level": level,
            "questions": len(relevant),
            **_scores(_ranked(frame, level, relevant), relevant, ks),
        }
        for name, frame in configurations.items()
    ]
    out = pl.DataFrame(rows)
    if as_ == "polars":
        return out
    if as_ == "arrow":
        return out.to_arrow()
    if as_ == "pandas":
        return out.to_pandas()
    raise ValueError(f"as_ must be 'pandas', 'polars' or 'arrow', not {as_!r}")


def _ranked(hits: Any, level: str, relevant: dict[str, set[str]]) -> dict[str, list[str]]:
    """question_id -> ids in rank order, each id once (its best rank)."""
    frame = to_polars(hits)
    id_column = _ID_COLUMN[level]
    for column in ("question_id", id_column, "rank"):
        if column not in frame.columns:
            raise ValueError(
                f"hits have no {column!r} column (columns: {', '.join(frame.columns)})"
            )
    if level == "section":
        # A hit's id becomes the gold section its breadcrumb ends with, if any.
        ids = [
            _section_of(_fold_section(crumb or ""), relevant.get(qid, ()))
            for qid, crumb in frame.select("question_id", id_column).iter_rows()
        ]
        frame = frame.with_columns(pl.Series(id_column, ids, dtype=pl.String))
    best = (
        frame.select("question_id", pl.col(id_column).alias("id"), "rank")
        .group_by("question_id", "id")
        .agg(pl.col("rank").min())
        .sort("question_id", "rank", "id")
    )
    return {
        qid: ids
        for qid, ids in best.group_by("question_id", maintain_order=True).agg("id").iter_rows()
    }


def _fold_section(breadcrumb: str) -> str:
    return " > ".join(fold(part).strip() for part in breadcrumb.split(">"))


def _section_of(crumb: str, sections) -> str:
    for section in sections:
        if crumb == section or crumb.endswith(" > " + section):
            return section
    return crumb


def _scores(
    ranked: dict[str, list[str]], relevant: dict[str, set[str]], ks: Sequence[int]
) -> dict[str, float]:
    totals = {f"recall@{k}": 0.0 for k in ks} | {"mrr": 0.0} | {f"ndcg@{k}": 0.0 for k in ks}
    for qid, wanted in relevant.items():
        ids = ranked.get(qid, [])
        first = next((i for i, x in enumerate(ids, 1) if x in wanted), None)
        totals["mrr"] += 1 / first if first else 0.0
        for k in ks:
            top = ids[:k]
            totals[f"recall@{k}"] += len(wanted.intersection(top)) / len(wanted)
            dcg = sum(1 / math.log2(i + 1) for i, x in enumerate(top, 1) if x in wanted)
            ideal = sum(1 / math.log2(i + 1) for i in range(1, min(len(wanted), k) + 1))
            totals[f"ndcg@{k}"] += dcg / ideal
    n = max(len(relevant), 1)
    return {name: value / n for name, value in totals.items()}


def to_polars(frame: Any) -> pl.DataFrame:
    if isinstance(frame, pl.DataFrame):
        return frame
    if "pandas" in sys.modules and isinstance(frame, sys.modules["pandas"].DataFrame):
        return pl.from_pandas(frame)
    return polars_from_arrow(frame)

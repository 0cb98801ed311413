"""Coverage and health of the dictionary, read from a batch of parsed questions.

Which questions matched no concept, which concepts no question reached, which keywords fit
several concepts and how each was resolved, and the hit rate per concept, language and
document family. Every figure is a polars DataFrame an analyst can sort, filter or plot.
"""

from __future__ import annotations

import sys
from typing import Any, NamedTuple

import polars as pl

from ..satellites import Satellites, bundled_satellites


class CoverageReport(NamedTuple):
    """The coverage of one `question_df` batch against one set of satellites."""

    summary: pl.DataFrame  # metric, value
    unmatched: pl.DataFrame  # question_id, original_question, language
    never_hit: pl.DataFrame  # concept, doc_family, variants
    ambiguous: pl.DataFrame  # text, candidates, chosen, method, questions
    by_concept: pl.DataFrame  # concept, doc_family, questions, hit_rate
    by_language: pl.DataFrame  # language, questions, matched, hit_rate
    by_family: pl.DataFrame  # doc_family, concepts, concepts_hit, questions, hit_rate


def as_polars(frame: Any) -> pl.DataFrame:
    pd = sys.modules.get("pandas")
    if pd is not None and isinstance(frame, pd.DataFrame):
        return pl.from_pandas(frame)
    if isinstance(frame, pl.DataFrame):
        return frame
    raise TypeError(f"expected a polars or pandas DataFrame, got {type(frame).__name__}")


def coverage_report(question_df: Any, sats: Satellites | None = None) -> CoverageReport:
    """Coverage and health of the dictionary on a parsed batch.

    Args:
        question_df: The output of `parse_questions` (polars or pandas). Rows with an
            `error_code` are counted in the summary and left out of every rate.
        sats: The satellites the batch was parsed with (default: bundled); they give the
            list of concepts, their document family and their variant counts.

    Returns:
        A `CoverageReport` of polars DataFrames. Rates are shares of the parsed
        (error-free) questions.

    Examples:
        >>> from quaestio import parse_questions
        >>> report = coverage_report(parse_questions(["What is the premium?", "Hello"]))
        >>> report.unmatched["original_question"].to_list()
        ['Hello']
    """
    sats = sats or bundled_satellites()
    qdf = as_polars(question_df)
    failed = qdf.filter(pl.col("error_code").is_not_null()).height
    ok = qdf.filter(pl.col("error_code").is_null())
    n = ok.height
    concepts = sats.concepts.select("concept", pl.col("doc_family").fill_null("(none)"))
    variants = sats.concept_keywords.filter(status="validated").group_by("concept").len("variants")
    hits = (
        ok.select("question_id", "concepts")
        .explode("concepts")
        .drop_nulls("concepts")
        .unique()
        .group_by("concepts")
        .len("questions")
        .rename({"concepts": "concept"})
    )
    by_concept = (
        concepts.join(hits, on="concept", how="left")
        .with_columns(pl.col("questions").fill_null(0).cast(pl.Int64))
        .with_columns(_rate(pl.col("questions"), n))
        .sort(["questions", "concept"], descending=[True, False])
    )
    never_hit = (
        by_concept.filter(pl.col("questions") == 0)
        .select("concept", "doc_family")
        .join(variants, on="concept", how="left")
        .with_columns(pl.col("variants").fill_null(0).cast(pl.Int64))
    )
    matched = pl.col("concepts").list.len() > 0
    unmatched = ok.filter(~matched).select("question_id", "original_question", "language")
    by_language = (
        ok.group_by(pl.col("language").fill_null("(none)"))
        .agg(pl.len().alias("questions"), matched.sum().alias("matched"))
        .with_columns(pl.col("questions").cast(pl.Int64), pl.col("matched").cast(pl.Int64))
        .with_columns((pl.col("matched") / pl.col("questions")).alias("hit_rate"))
        .sort("language")
    )
    return CoverageReport(
        summary=_summary(qdf.height, failed, n, unmatched.height, by_concept, sats),
        unmatched=unmatched,
        never_hit=never_hit,
        ambiguous=_ambiguous(ok),
        by_concept=by_concept,
        by_language=by_language,
        by_family=_by_family(ok, concepts, by_concept, n),
    )


def _rate(col: pl.Expr, n: int) -> pl.Expr:
    return (col / n if n else pl.lit(0.0)).cast(pl.Float64).alias("hit_rate")


def _summary(
    total: int, failed: int, n: int, unmatched: int, by_concept: pl.DataFrame, sats: Satellites
) -> pl.DataFrame:
    hit = by_concept.filter(pl.col("questions") > 0).height
    rows = [
        ("questions", total),
        ("error_rows", failed),
        ("parsed", n),
        ("matched_a_concept", n - unmatched),
        ("matched_no_concept", unmatched),
        ("question_hit_rate", (n - unmatched) / n if n else 0.0),
        ("concepts", by_concept.height),
        ("concepts_hit", hit),
        ("concepts_never_hit", by_concept.height - hit),
        ("satellites_version", sats.version),
    ]
    return pl.DataFrame({"metric": [r[0] for r in rows], "value": [str(r[1]) for r in rows]})


def _ambiguous(ok: pl.DataFrame) -> pl.DataFrame:
    amb = (
        ok.select("question_id", "ambiguous_keywords")
        .explode("ambiguous_keywords")
        .drop_nulls("ambiguous_keywords")
        .unnest("ambiguous_keywords")
    )
    if amb.is_empty():
        return pl.DataFrame(
            schema={
                "text": pl.String,
                "candidates": pl.List(pl.String),
                "chosen": pl.String,
                "method": pl.String,
                "questions": pl.Int64,
            }
        )
    # The same span may be resolved differently in different questions: one row per outcome.
    return (
        amb.with_columns(pl.col("text").str.to_lowercase(), pl.col("candidates").list.sort())
        .group_by("text", "candidates", "chosen", "method")
        .agg(pl.col("question_id").n_unique().cast(pl.Int64).alias("questions"))
        .sort(["questions", "text", "chosen"], descending=[True, False, False])
    )


def _by_family(
    ok: pl.DataFrame, concepts: pl.DataFrame, by_concept: pl.DataFrame, n: int
) -> pl.DataFrame:
    fam_of = dict(concepts.iter_rows())
    per_question = (
        ok.select("question_id", "concepts")
        .explode("concepts")
        .drop_nulls("concepts")
        .with_columns(
            pl.col("concepts").replace_strict(fam_of, default="(unknown)").alias("doc_family")
        )
        .group_by("doc_family")
        .agg(pl.col("question_id").n_unique().cast(pl.Int64).alias("questions"))
    )
    families = by_concept.group_by("doc_family").agg(
        pl.len().cast(pl.Int64).alias("concepts"),
        (pl.col("questions") > 0).sum().cast(pl.Int64).alias("concepts_hit"),
    )
    return (
        families.join(per_question, on="doc_family", how="left")
        .with_columns(pl.col("questions").fill_null(0))
        .with_columns(_rate(pl.col("questions"), n))
        .sort(["questions", "doc_family"], descending=[True, False])
    )

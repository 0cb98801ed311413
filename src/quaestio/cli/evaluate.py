"""`quaestio eval`: score a question_df (or a fresh offline parse) against a gold file."""

from __future__ import annotations

import json

import click

from . import cli, satellites_option
from . import load_satellites_or_bundled as _satellites
from .errors import check_text_file, user_errors


@cli.command("eval")
@click.argument("gold_path", metavar="GOLD", type=click.Path(exists=True, dir_okay=False))
@click.option(
    "--questions",
    "questions_path",
    type=click.Path(exists=True, dir_okay=False),
    help="A question_df file (from `quaestio batch`); by default the gold's "
    "questions are parsed now, offline.",
)
@satellites_option
@click.option(
    "--failures",
    "failures_path",
    type=click.Path(dir_okay=False),
    help="Write every failing (question, field) to this CSV.",
)
@click.option(
    "--index",
    "index_path",
    type=click.Path(exists=True, file_okay=False),
    help="An index (from `quaestio index`): search it for the gold's questions and "
    "score the hits (relevant_chunk_ids / relevant_sections / "
    "relevant_doc_ids) and the confirmed answers (expected_value).",
)
@click.option(
    "--backend",
    default="hybrid",
    show_default=True,
    help="The backend every question is searched with, or `dispatch` to route each "
    "by its dispatch columns (its own retrieval_k then caps the hits).",
)
@click.option(
    "-k",
    "k",
    default=20,
    show_default=True,
    type=click.IntRange(min=1),
    help="Hits per question scored for retrieval (recall@5, @10, @k).",
)
@click.option(
    "--top",
    default=5,
    show_default=True,
    type=click.IntRange(min=0),
    help="Failures shown per failure mode.",
)
@click.option("--json", "as_json", is_flag=True, help="Print metrics and modes as JSON.")
def evaluate_command(
    gold_path: str,
    questions_path: str | None,
    satellites_dir: str | None,
    failures_path: str | None,
    index_path: str | None,
    backend: str,
    k: int,
    top: int,
    as_json: bool,
) -> None:
    """Score question_df against GOLD (CSV, JSONL or Parquet): per-field metrics, the
    confusion of categorical fields and the failures grouped by failure mode; with
    --index, retrieval (recall@k, MRR, nDCG@k) and confirmed answers as well."""
    import polars as pl

    from ..analysis import parse_questions
    from ..evaluate import evaluate, read_gold

    with user_errors(source=gold_path):
        check_text_file(gold_path)
        if questions_path:
            check_text_file(questions_path)
        sats = _satellites(satellites_dir)
        gold = read_gold(gold_path, sats)
        if questions_path:
            qdf = (
                pl.read_parquet(questions_path)
                if questions_path.endswith(".parquet")
                else pl.read_ndjson(questions_path)
            )
        else:
            qdf = parse_questions(
                gold.select("question_id", "question"), sats, id_column="question_id", as_="polars"
            )
        result = evaluate(qdf, gold, satellites=sats, as_="polars")
        retrieval, answers = (
            _downstream(qdf, gold, sats, index_path, backend, k) if index_path else (None, None)
        )
    if answers is not None:  # one table of metrics and failures, whatever layer failed
        result = type(result)(
            *(pl.concat([a, b], how="diagonal_relaxed") for a, b in zip(result, answers))
        )
        result = result._replace(
            modes=result.modes.sort("count", "failure_mode", descending=[True, False])
        )
    downstream = [
        c
        for c in ("relevant_chunk_ids", "relevant_sections", "relevant_doc_ids", "expected_value")
        if c in gold.columns
    ]
    not_scored = [] if index_path else downstream
    if failures_path:
        with user_errors(note=" (--failures)"):
            result.failures.write_csv(failures_path)
    if as_json:
        click.echo(
            json.dumps(
                {
                    "questions": gold.height,
                    "metrics": result.metrics.to_dicts(),
                    "retrieval": None if retrieval is None else retrieval.to_dicts(),
                    "not_scored": not_scored,
                    "failure_modes": result.modes.drop("example").to_dicts(),
                },
                indent=2,
            )
        )
        return
    with pl.Config(
        tbl_rows=200,
        tbl_hide_dataframe_shape=True,
        fmt_str_lengths=70,
        float_precision=3,
        tbl_hide_column_data_types=True,
    ):
        click.echo(f"{gold.height} gold questions\n")
        click.echo(result.metrics)
        if not_scored:
            click.echo(f"not scored without --index INDEX: {', '.join(not_scored)}")
        if retrieval is not None:
            click.echo(
                f"\nretrieval ({retrieval['configuration'][0]}, {retrieval['level'][0]} level):"
            )
            click.echo(retrieval.drop("configuration", "level"))
        if result.modes.height:
            click.echo("\nfailure modes, most frequent first:")
            click.echo(result.modes.select("failure_mode", "count", "share", "fields"))
            for mode in result.modes["failure_mode"]:
                sample = result.failures.filter(pl.col("failure_mode") == mode).head(top)
                click.echo(f"\n{mode}:")
                for row in sample.iter_rows(named=True):
                    click.echo(
                        f"  [{row['question_id']}] {row['question'][:70]!r} "
                        f"{row['field']}: expected {row['expected']!r}, "
                        f"got {row['got']!r}"
                    )


def _downstream(qdf, gold, sats, index_path: str, backend: str, k: int):
    """Search the index for the gold's questions; score the hits and confirmed answers."""
    from ..confirm import confirm
    from ..evaluate import evaluate_answers, evaluate_retrieval
    from ..retrieval import dispatch, open_index, search

    index = open_index(index_path)
    hits = (
        dispatch(qdf, index, k=k, as_="polars")
        if backend == "dispatch"
        else search(index, qdf, backend=backend, k=k, as_="polars")
    )
    retrieval = answers = None
    if {"relevant_chunk_ids", "relevant_sections", "relevant_doc_ids"} & set(gold.columns):
        cut_offs = sorted({min(5, k), min(10, k), k})
        retrieval = evaluate_retrieval(
            {backend: hits}, gold, ks=cut_offs, satellites=sats, as_="polars"
        )
    if "expected_value" in gold.columns:
        verdicts = confirm(qdf, hits, satellites=sats, as_="polars").verdicts
        answers = evaluate_answers(verdicts, gold, satellites=sats, as_="polars")
    return retrieval, answers

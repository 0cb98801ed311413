"""`quaestio eval`: score a question_df (or a fresh offline parse) against a gold file."""

from __future__ import annotations

import json

import click

from ..errors import QuaestioError
from . import cli, load_satellites_or_bundled as _satellites, satellites_option


@cli.command("eval")
@click.argument("gold_path", metavar="GOLD", type=click.Path(exists=True, dir_okay=False))
@click.option("--questions", "questions_path", type=click.Path(exists=True, dir_okay=False),
              help="A question_df file (from `quaestio batch`); by default the gold's "
                   "questions are parsed now, offline.")
@satellites_option
@click.option("--failures", "failures_path", type=click.Path(dir_okay=False),
              help="Write every failing (question, field) to this CSV.")
@click.option("--top", default=5, show_default=True, help="Failures shown per failure mode.")
@click.option("--json", "as_json", is_flag=True, help="Print metrics and modes as JSON.")
def evaluate_command(gold_path: str, questions_path: str | None, satellites_dir: str | None,
                     failures_path: str | None, top: int, as_json: bool) -> None:
    """Score question_df against GOLD (CSV, JSONL or Parquet): per-field metrics, the
    confusion of categorical fields and the failures grouped by failure mode."""
    import polars as pl

    from ..analysis import parse_questions
    from ..evaluate import evaluate, read_gold

    try:
        sats = _satellites(satellites_dir)
        gold = read_gold(gold_path, sats)
        if questions_path:
            qdf = pl.read_parquet(questions_path) if questions_path.endswith(".parquet") \
                else pl.read_ndjson(questions_path)
        else:
            qdf = parse_questions(gold.select("question_id", "question"), sats,
                                  id_column="question_id", as_="polars")
        result = evaluate(qdf, gold, satellites=sats, as_="polars")
    except (QuaestioError, ValueError, FileNotFoundError) as exc:
        raise click.ClickException(str(exc)) from exc
    if failures_path:
        result.failures.write_csv(failures_path)
    if as_json:
        click.echo(json.dumps({"questions": gold.height,
                               "metrics": result.metrics.to_dicts(),
                               "failure_modes": result.modes.drop("example").to_dicts()},
                              indent=2))
        return
    with pl.Config(tbl_rows=200, tbl_hide_dataframe_shape=True, fmt_str_lengths=70,
                   float_precision=3, tbl_hide_column_data_types=True):
        click.echo(f"{gold.height} gold questions\n")
        click.echo(result.metrics)
        if result.modes.height:
            click.echo("\nfailure modes, most frequent first:")
            click.echo(result.modes.select("failure_mode", "count", "share", "fields"))
            for mode in result.modes["failure_mode"]:
                sample = result.failures.filter(pl.col("failure_mode") == mode).head(top)
                click.echo(f"\n{mode}:")
                for row in sample.iter_rows(named=True):
                    click.echo(f"  [{row['question_id']}] {row['question'][:70]!r} "
                               f"{row['field']}: expected {row['expected']!r}, "
                               f"got {row['got']!r}")

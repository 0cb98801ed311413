"""`quaestio parse` and `quaestio batch`: one question, or a file of them."""

from __future__ import annotations

import click

from ..errors import QuaestioError
from . import cli, load_satellites_or_bundled as _satellites, satellites_option


@cli.command()
@click.argument("question")
@satellites_option
@click.option("--language", help="Force the language (en, fr, es, ...) instead of detecting it.")
@click.option("--json", "as_json", is_flag=True, help="Print the whole row as JSON.")
def parse(question: str, satellites_dir: str | None, language: str | None,
          as_json: bool) -> None:
    """Parse one QUESTION and print its row."""
    from ..analysis import parse_question

    try:
        row = parse_question(question, _satellites(satellites_dir), language=language)
    except QuaestioError as exc:
        raise click.ClickException(str(exc)) from exc
    if as_json:
        click.echo(row.model_dump_json(indent=2))
        return
    click.echo(f"question_id: {row.question_id}\nlanguage:    {row.language}")
    if row.corrected_question != row.original_question:
        click.echo(f"corrected:   {row.corrected_question}")
    click.echo(f"concepts:    {', '.join(row.concepts) or '-'}")
    for amb in row.ambiguous_keywords:
        click.echo(f"ambiguous:   {amb.text!r} -> {amb.chosen} among {amb.candidates} "
                   f"({amb.method})")
    click.echo("keywords:")
    for k in row.keywords:
        where = f"[{k.span_start}:{k.span_end}]" if k.span_start is not None else ""
        extra = f" {k.concept}/{k.language}" if k.concept else ""
        click.echo(f"  {k.source.value:<17} {k.weight:4.2f}  {k.text}{extra} {where}")


@cli.command()
@click.argument("input_path", metavar="IN", type=click.Path(exists=True, dir_okay=False))
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False),
              help="Output file: .parquet, .jsonl or .csv (nested columns as JSON text).")
@satellites_option
@click.option("--question-column", default="question", show_default=True)
@click.option("--id-column", help="Column whose values become question_id.")
@click.option("--language", help="Force one language for every question.")
@click.option("--errors", type=click.Choice(["collect", "raise"]), default="collect",
              show_default=True, help="collect: a bad question becomes an error row.")
@click.option("--chunk-size", default=5000, show_default=True,
              help="Questions parsed and written at a time (bounds memory).")
def batch(input_path: str, output: str, satellites_dir: str | None, question_column: str,
          id_column: str | None, language: str | None, errors: str, chunk_size: int) -> None:
    """Parse every question of IN (CSV, JSONL or Parquet) into question_df at OUTPUT."""
    from ..analysis import parse_questions
    from ..io import QuestionWriter, iter_questions

    try:
        sats = _satellites(satellites_dir)
        total = failed = 0
        with QuestionWriter(output) as writer:
            for part in iter_questions(input_path, chunk_size):
                if id_column is None:
                    import polars as pl

                    part = part.with_columns(pl.int_range(total, total + part.height)
                                             .cast(pl.String).alias("_qid"))
                table = parse_questions(part, sats, question_column=question_column,
                                        id_column=id_column or "_qid", language=language,
                                        errors=errors, as_="arrow")
                failed += table["error_code"].length() - table["error_code"].null_count
                total += part.height
                writer.write(table)
    except (QuaestioError, ValueError) as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"{total} questions -> {output} ({failed} with an error_code)", err=True)

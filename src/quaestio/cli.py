"""The `quaestio` command: a thin layer over the library."""

from __future__ import annotations

import json
import sys

import click

from .errors import QuaestioError


def _satellites(folder: str | None):
    from .satellites import bundled_satellites, load_satellites

    return load_satellites(folder) if folder else bundled_satellites()


satellites_option = click.option(
    "--satellites", "satellites_dir", type=click.Path(exists=True, file_okay=False),
    envvar="QUAESTIO_SATELLITES", help="Folder of satellite tables (default: bundled).")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="quaestio")
def cli() -> None:
    """Turn questions into typed, auditable rows of question_df."""


@cli.command()
@click.argument("question")
@satellites_option
@click.option("--language", help="Force the language (en, fr, es, ...) instead of detecting it.")
@click.option("--json", "as_json", is_flag=True, help="Print the whole row as JSON.")
def parse(question: str, satellites_dir: str | None, language: str | None,
          as_json: bool) -> None:
    """Parse one QUESTION and print its row."""
    from .analysis import parse_question

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
    from .analysis import parse_questions
    from .io import QuestionWriter, chunks, read_questions

    try:
        frame = read_questions(input_path)
        sats = _satellites(satellites_dir)
        total = failed = 0
        with QuestionWriter(output) as writer:
            for part in chunks(frame, chunk_size):
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


@cli.group()
def satellites() -> None:
    """Check and describe satellite tables."""


@satellites.command()
@click.argument("folder", required=False, type=click.Path(exists=True, file_okay=False))
def validate(folder: str | None) -> None:
    """Validate FOLDER (default: the bundled tables); list every bad row."""
    try:
        sats = _satellites(folder)
    except QuaestioError as exc:
        raise click.ClickException(str(exc)) from exc
    rows = sum(t.height for t in sats.tables.values())
    click.echo(f"OK: {len(sats.tables)} tables, {rows} rows (version {sats.version})")


@satellites.command()
@click.argument("folder", required=False, type=click.Path(exists=True, file_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
def stats(folder: str | None, as_json: bool) -> None:
    """Rows per table, keywords per language and concepts per family."""
    import polars as pl

    try:
        sats = _satellites(folder)
    except QuaestioError as exc:
        raise click.ClickException(str(exc)) from exc
    by_language = sats.concept_keywords.group_by("language").len().sort("language")
    by_family = sats.concepts.group_by("doc_family").len().sort("doc_family")
    if as_json:
        click.echo(json.dumps({
            "version": sats.version,
            "tables": dict(sats.stats().select("table", "rows").iter_rows()),
            "keywords_by_language": dict(by_language.iter_rows()),
            "concepts_by_family": dict(by_family.iter_rows()),
        }, indent=2))
        return
    with pl.Config(tbl_rows=100, tbl_hide_dataframe_shape=True, fmt_str_lengths=80):
        click.echo(sats.stats())
        click.echo(by_language.rename({"len": "keywords"}))
        click.echo(by_family.rename({"len": "concepts"}))


@satellites.command()
@click.argument("folder", type=click.Path(file_okay=False))
def export(folder: str) -> None:
    """Write the bundled tables into FOLDER, one CSV per table, to start your own set."""
    from .satellites import bundled_satellites

    for path in bundled_satellites().write(folder):
        click.echo(path)


def main() -> None:
    cli(prog_name="quaestio")


if __name__ == "__main__":
    sys.exit(main())

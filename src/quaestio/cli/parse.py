"""`quaestio parse` and `quaestio batch`: one question, or a file of them."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any, Literal

import click

from . import cli, satellites_option
from . import load_satellites_or_bundled as _satellites
from .errors import (
    UserError,
    check_columns,
    check_language,
    check_text_file,
    echo_warnings,
    user_errors,
)
from .progress import progress_bar


def llm_options(command):
    """The LLM mode's flags, shared by `parse` and `batch`. The API key is never a flag (it
    would sit in the shell history and the process list): QUAESTIO_LLM_API_KEY or a prompt."""
    options = [
        click.option(
            "--llm",
            "use_llm",
            is_flag=True,
            help="LLM mode: one structured call per question to an OpenAI-compatible "
            "server (offline rules when absent).",
        ),
        click.option(
            "--llm-base-url",
            envvar="QUAESTIO_LLM_BASE_URL",
            metavar="URL",
            help="Server base URL, e.g. http://127.0.0.1:8080/v1 [env QUAESTIO_LLM_BASE_URL].",
        ),
        click.option(
            "--llm-model", envvar="QUAESTIO_LLM_MODEL", help="Model name [env QUAESTIO_LLM_MODEL]."
        ),
        click.option(
            "--llm-concurrency",
            type=click.IntRange(1, 1024),
            help="Requests in flight (batch) [defaults row llm_concurrency].",
        ),
        click.option(
            "--llm-cache",
            envvar="QUAESTIO_LLM_CACHE",
            metavar="PATH",
            type=click.Path(dir_okay=False),
            help="SQLite file caching replies [env QUAESTIO_LLM_CACHE].",
        ),
        click.option("--llm-timeout", type=float, help="Seconds per request."),
        click.option(
            "--llm-retries",
            type=click.IntRange(0, 20),
            help="Retries after timeouts, 429, 5xx, connection errors.",
        ),
        click.option(
            "--llm-json-mode",
            is_flag=True,
            help="Use JSON mode instead of json_schema structured outputs.",
        ),
        click.option(
            "--llm-ask-key",
            is_flag=True,
            help="Prompt for the API key (hidden) instead of QUAESTIO_LLM_API_KEY.",
        ),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def _llm(
    sats,
    use_llm: bool,
    llm_base_url,
    llm_model,
    llm_concurrency,
    llm_cache,
    llm_timeout,
    llm_retries,
    llm_json_mode,
    llm_ask_key,
):
    if not use_llm:
        return None
    from ..llm import LLM, LLMConfig

    key = click.prompt("API key", hide_input=True, err=True) if llm_ask_key else None
    config = LLMConfig.from_env(
        base_url=llm_base_url,
        model=llm_model,
        api_key=key,
        concurrency=llm_concurrency,
        cache_path=llm_cache,
        timeout=llm_timeout,
        max_retries=llm_retries,
        response_format="json_object" if llm_json_mode else None,
    )
    return LLM(config, satellites=sats)


@cli.command()
@click.argument("question")
@satellites_option
@click.option("--language", help="Force the language (en, fr, es, ...) instead of detecting it.")
@click.option("--json", "as_json", is_flag=True, help="Print the whole row as JSON.")
@llm_options
def parse(
    question: str,
    satellites_dir: str | None,
    language: str | None,
    as_json: bool,
    **llm_flags: Any,
) -> None:
    """Parse one QUESTION and print its row."""
    from ..analysis import parse_question

    with user_errors():
        sats = _satellites(satellites_dir)
        check_language(sats, language)
        row = parse_question(question, sats, language=language, llm=_llm(sats, **llm_flags))
    if as_json:
        click.echo(row.model_dump_json(indent=2))
        return
    click.echo(f"question_id: {row.question_id}\nlanguage:    {row.language}")
    if row.corrected_question != row.original_question:
        click.echo(f"corrected:   {row.corrected_question}")
    click.echo(f"concepts:    {', '.join(row.concepts) or '-'}")
    p = row.provenance
    if p.llm_status != "off":
        click.echo(
            f"llm:         {p.llm_status} ({p.llm_model}, {p.llm_tokens_in or 0}+"
            f"{p.llm_tokens_out or 0} tokens, {p.latency_ms or 0:.0f} ms)"
        )
        click.echo(f"answer:      {row.answer_type} / {row.answer_shape}")
        for warning in p.warnings:
            click.echo(f"warning:     {warning}")
    for amb in row.ambiguous_keywords:
        click.echo(
            f"ambiguous:   {amb.text!r} -> {amb.chosen} among {amb.candidates} ({amb.method})"
        )
    click.echo("keywords:")
    for k in row.keywords:
        where = f"[{k.span_start}:{k.span_end}]" if k.span_start is not None else ""
        extra = f" {k.concept}/{k.language}" if k.concept else ""
        click.echo(f"  {k.source.value:<17} {k.weight:4.2f}  {k.text}{extra} {where}")


@cli.command()
@click.argument("input_path", metavar="IN", type=click.Path(exists=True, dir_okay=False))
@click.option(
    "-o",
    "--output",
    required=True,
    type=click.Path(dir_okay=False),
    help="Output file: .parquet, .jsonl or .csv (nested columns as JSON text).",
)
@satellites_option
@click.option("--question-column", default="question", show_default=True)
@click.option("--id-column", help="Column whose values become question_id.")
@click.option("--language", help="Force one language for every question.")
@click.option(
    "--errors",
    type=click.Choice(["collect", "raise"]),
    default="collect",
    show_default=True,
    help="collect: a bad question becomes an error row.",
)
@click.option(
    "--chunk-size",
    default=5000,
    show_default=True,
    type=click.IntRange(min=1),
    help="Questions parsed and written at a time (bounds memory).",
)
@click.option(
    "--encoding", help="Force the encoding of a CSV/JSONL file (default: UTF-8, else detected)."
)
@click.option(
    "--strict", is_flag=True, help="Exit with code 1 when any question gets an error_code."
)
@llm_options
def batch(
    input_path: str,
    output: str,
    satellites_dir: str | None,
    question_column: str,
    id_column: str | None,
    language: str | None,
    errors: Literal["collect", "raise", "warn"],  # a click.Choice of these
    chunk_size: int,
    encoding: str | None,
    strict: bool,
    **llm_flags: Any,
) -> None:
    """Parse every question of IN (CSV, JSONL or Parquet) into question_df at OUTPUT."""
    from collections import Counter

    import pyarrow as pa

    from ..analysis import iter_parse
    from ..io import QuestionWriter, file_format, iter_questions

    statuses: Counter = Counter()
    total = failed = 0
    with user_errors(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _check_output(output)
        file_format(input_path)
        check_text_file(input_path)
        sats = _satellites(satellites_dir)
        check_language(sats, language)
        llm = _llm(sats, **llm_flags)
        bar = _progress_bar(input_path)
        with QuestionWriter(output) as writer:
            for part in iter_questions(input_path, chunk_size, encoding=encoding):
                check_columns(
                    input_path, part.columns, question_column=question_column, id_column=id_column
                )
                if id_column is None:
                    import polars as pl

                    part = part.with_columns(
                        pl.int_range(total, total + part.height).cast(pl.String).alias("_qid")
                    )
                batches = iter_parse(
                    part,
                    sats,
                    question_column=question_column,
                    id_column=id_column or "_qid",
                    language=language,
                    errors=errors,
                    llm=llm,
                    batch_size=chunk_size,
                )
                try:
                    for batch in batches:
                        failed += batch.num_rows - batch["error_code"].null_count
                        statuses.update(s.split(":")[0] for s in batch["llm_status"].to_pylist())
                        writer.write(pa.Table.from_batches([batch]))
                except Exception as exc:  # --errors raise: say which row, then stop
                    raise UserError(f"{input_path}: {exc} (--errors raise)") from exc
                total += part.height
                if bar is not None:
                    bar.update(part.height)
        if bar is not None:
            bar.close()
    echo_warnings(caught)
    llm_note = (
        ""
        if llm is None
        else "; llm: "
        + ", ".join(f"{statuses[k]} {k}" for k in ("ok", "cached", "fallback") if statuses[k])
    )
    click.echo(f"{total} questions -> {output} ({failed} with an error_code{llm_note})", err=True)
    if total and failed == total:
        click.echo(
            f"warning: every question of {input_path} got an error_code; see the "
            f"error_message column (--strict makes this exit 1)",
            err=True,
        )
    if strict and failed:
        raise click.exceptions.Exit(1)


def _progress_bar(path: str):
    """One bar for the whole file (see `progress.progress_bar`). The total counts rows
    cheaply: Parquet's metadata, or the lines of a CSV/JSONL file (an estimate where a CSV
    field spans lines); counted only when a bar is drawn."""
    import sys

    if not sys.stderr.isatty():
        return None
    total = None
    try:
        if path.endswith(".parquet"):
            import pyarrow.parquet as pq

            total = pq.ParquetFile(path).metadata.num_rows
        else:
            with open(path, "rb") as handle:
                lines = sum(
                    block.count(b"\n") for block in iter(lambda: handle.read(1 << 20), b"")
                )
            total = max(lines - path.endswith(".csv"), 0)
    except OSError:
        total = None
    return progress_bar(total, unit="q", desc="parsing")


def _check_output(output: str) -> None:
    from ..io import file_format

    try:
        file_format(output)
    except ValueError as exc:
        raise UserError(f"-o/--output: {exc}") from exc
    folder = Path(output).parent
    if not folder.is_dir():
        raise UserError(
            f"-o/--output {output!r}: the folder {str(folder)!r} does not exist; create it first"
        )

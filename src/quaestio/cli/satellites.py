"""`quaestio satellites ...`: validate, describe and export satellite tables."""

from __future__ import annotations

import json

import click

from . import cli
from . import load_satellites_or_bundled as _satellites
from .errors import UserError, user_errors


@cli.group()
def satellites() -> None:
    """Check and describe satellite tables."""


@satellites.command()
@click.argument("folder", required=False, type=click.Path(exists=True, file_okay=False))
def validate(folder: str | None) -> None:
    """Validate FOLDER (default: the bundled tables); list every bad row."""
    with user_errors():
        sats = _satellites(folder)
    rows = sum(t.height for t in sats.tables.values())
    click.echo(f"OK: {len(sats.tables)} tables, {rows} rows (version {sats.version})")


@satellites.command()
@click.argument("folder", required=False, type=click.Path(exists=True, file_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
def stats(folder: str | None, as_json: bool) -> None:
    """Rows per table, keywords per language and concepts per family."""
    import polars as pl

    with user_errors():
        sats = _satellites(folder)
    by_language = sats.concept_keywords.group_by("language").len().sort("language")
    by_family = sats.concepts.group_by("doc_family").len().sort("doc_family")
    if as_json:
        click.echo(
            json.dumps(
                {
                    "version": sats.version,
                    "tables": dict(sats.stats().select("table", "rows").iter_rows()),
                    "keywords_by_language": dict(by_language.iter_rows()),
                    "concepts_by_family": dict(by_family.iter_rows()),
                },
                indent=2,
            )
        )
        return
    with pl.Config(tbl_rows=100, tbl_hide_dataframe_shape=True, fmt_str_lengths=80):
        click.echo(sats.stats())
        click.echo(by_language.rename({"len": "keywords"}))
        click.echo(by_family.rename({"len": "concepts"}))


@satellites.command()
@click.argument("folder", type=click.Path(file_okay=False))
def export(folder: str) -> None:
    """Copy the bundled tables into FOLDER, file by file, to start your own set.

    The bundled split is kept (`concept_keywords.currencies.csv` stays its own file), so a
    closed set can later be replaced on its own with `satellites load --bundled`. Existing
    files are never overwritten: FOLDER must not hold any of them.
    """
    from importlib import resources
    from pathlib import Path

    bundled = resources.files("quaestio.satellites") / "data"
    sources = sorted(
        (f for f in bundled.iterdir() if f.name.endswith(".csv")), key=lambda f: f.name
    )
    out = Path(folder)
    taken = [f.name for f in sources if (out / f.name).exists()]
    if taken:
        raise UserError(
            f"{folder} already holds {', '.join(taken)}; nothing was written "
            f"(export into an empty or new folder)"
        )
    out.mkdir(parents=True, exist_ok=True)
    for source in sources:
        target = out / source.name
        target.write_bytes(source.read_bytes())
        click.echo(target)

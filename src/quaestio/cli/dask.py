"""`quaestio dask parse|search`: batches of Parquet/CSV/JSONL partitions on a Dask cluster."""

from __future__ import annotations

import contextlib
import glob
import os
from pathlib import Path

import click

from ..errors import QuaestioError
from . import cli, satellites_option
from . import load_satellites_or_bundled as _satellites
from .errors import UserError

_READERS = {
    ".parquet": "parquet",
    ".pq": "parquet",
    ".csv": "csv",
    ".jsonl": "json",
    ".json": "json",
    ".ndjson": "json",
}


def read_partitions(source: str, blocksize: str | None = None):
    """A dask DataFrame from a folder or glob of Parquet, CSV or JSON Lines files."""
    import dask.dataframe as dd

    path = Path(source)
    files = sorted(glob.glob(str(path / "*"))) if path.is_dir() else sorted(glob.glob(source))
    files = [f for f in files if Path(f).suffix.lower() in _READERS]
    if not files:
        raise UserError(f"{source}: no .parquet, .csv or .jsonl files")
    kinds = {_READERS[Path(f).suffix.lower()] for f in files}
    if len(kinds) > 1:
        raise UserError(
            f"{source}: mixed file kinds ({', '.join(sorted(kinds))}); point at one kind"
        )
    kind = kinds.pop()
    if kind == "parquet":
        return dd.read_parquet(files, dtype_backend="pyarrow")  # nested columns read back
    if kind == "csv":
        return dd.read_csv(files, blocksize=blocksize or "16MB", dtype=str, keep_default_na=False)
    return dd.read_json(files, lines=True, blocksize=blocksize or "16MB")


@contextlib.contextmanager
def cluster_client(scheduler: str | None, workers: int | None):
    """A client of `scheduler`, or of a local cluster of `workers` processes (loopback)."""
    from distributed import Client, LocalCluster

    if scheduler:
        with Client(scheduler) as client:
            yield client
        return
    with (
        LocalCluster(
            n_workers=workers or os.cpu_count() or 1,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
        ) as local,
        Client(local) as client,
    ):
        yield client


def _write(frame, output: str, client, quiet: bool) -> int:
    from distributed import progress, wait

    written = client.compute(frame.to_parquet(output, write_index=False, compute=False))
    if not quiet:
        progress(written)
        click.echo("", err=True)
    wait(written)
    written.result()  # raises PartitionFailed (with the partition number) if one failed
    return frame.npartitions


def _cluster_options(f):
    for option in reversed(
        [
            click.option(
                "--scheduler",
                help="Address of a running scheduler (tcp://host:8786); else a local cluster.",
            ),
            click.option(
                "--workers",
                type=int,
                help="Worker processes of the local cluster (default: one per core).",
            ),
            click.option("--blocksize", help="CSV/JSONL bytes per partition (default 16MB)."),
            click.option("--quiet", is_flag=True, help="No progress bar."),
            click.option(
                "-o",
                "--output",
                required=True,
                type=click.Path(file_okay=False),
                help="Folder of Parquet partitions to write.",
            ),
        ]
    ):
        f = option(f)
    return f


@cli.group("dask")
def dask_group() -> None:
    """Run parse or search over partitioned files on a Dask cluster."""


@dask_group.command("parse")
@click.argument("source")
@_cluster_options
@click.option("--column", default="question", show_default=True, help="Question column.")
@click.option("--id-column", help="Column of question ids (default: q0, q1, ... in order).")
@satellites_option
def parse_command(
    source: str,
    output: str,
    scheduler: str | None,
    workers: int | None,
    blocksize: str | None,
    quiet: bool,
    column: str,
    id_column: str | None,
    satellites_dir: str | None,
) -> None:
    """Parse the questions of SOURCE (a folder or glob of Parquet/CSV/JSONL files) into
    question_df partitions under OUTPUT."""
    from ..dask import parse_questions

    frame = read_partitions(source, blocksize)
    with cluster_client(scheduler, workers) as client:
        try:
            qdf = parse_questions(
                frame,
                _satellites(satellites_dir),
                client=client,
                question_column=column,
                id_column=id_column,
            )
            n = _write(qdf, output, client, quiet)
        except QuaestioError as exc:
            raise UserError(str(exc)) from exc
    click.echo(f"{n} partitions of question_df -> {output}", err=True)


@dask_group.command("search")
@click.argument("index")
@click.argument("source")
@_cluster_options
@click.option("--backend", help="Default: postgres for a DSN, else hybrid or bm25.")
@click.option("-k", "--k", "k", default=10, show_default=True, help="Hits per question.")
@click.option(
    "--column",
    default="question",
    show_default=True,
    help="Question column, when SOURCE holds questions rather than question_df.",
)
@satellites_option
def search_command(
    index: str,
    source: str,
    output: str,
    scheduler: str | None,
    workers: int | None,
    blocksize: str | None,
    quiet: bool,
    backend: str | None,
    k: int,
    column: str,
    satellites_dir: str | None,
) -> None:
    """Search INDEX (a folder every worker can read, or a postgresql:// DSN) for the
    questions of SOURCE (question_df partitions, or raw questions parsed first), writing
    hits_df partitions under OUTPUT."""
    from ..dask import parse_questions, search

    frame = read_partitions(source, blocksize)
    with cluster_client(scheduler, workers) as client:
        try:
            sats = _satellites(satellites_dir)
            if "keywords" not in frame.columns:
                frame = parse_questions(frame, sats, client=client, question_column=column)
            hits = search(index, frame, client=client, satellites=sats, backend=backend, k=k)
            n = _write(hits, output, client, quiet)
        except QuaestioError as exc:
            raise UserError(str(exc)) from exc
    click.echo(f"{n} partitions of hits_df -> {output}", err=True)

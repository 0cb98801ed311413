"""`quaestio workbench DIR`: the curation workbench on one satellite folder, for one analyst."""

from __future__ import annotations

import ipaddress

import click

from . import cli


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@cli.command()
@click.argument("folder", type=click.Path(exists=True, file_okay=False))
@click.option(
    "--questions",
    type=click.Path(exists=True, dir_okay=False),
    help="A question set (.txt, .csv/.jsonl/.parquet with a question column) for "
    "coverage and the re-parse diff.",
)
@click.option(
    "--corpus",
    type=click.Path(exists=True),
    help="A corpus (folder or file) for the coverage page.",
)
@click.option(
    "--candidates",
    type=click.Path(exists=True, dir_okay=False),
    help="The review file of `quaestio discover` (default: FOLDER/curation/candidates.csv).",
)
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Loopback only: this mode has no keys (use `quaestio serve` to share).",
)
@click.option("--port", default=8765, show_default=True, type=int)
def workbench(
    folder: str,
    questions: str | None,
    corpus: str | None,
    candidates: str | None,
    host: str,
    port: int,
) -> None:
    """Open the curation workbench on FOLDER in the browser (one local analyst).

    Coverage, the candidates review queue (keyboard: j/k, a/r/d, e), rows of every table
    with the loader's validation as you type, try a question with your change, the table
    and re-parse diff before saving, and a change log with revert. Saves rewrite FOLDER's
    CSV files atomically and log who, when and why in FOLDER/curation/changelog.jsonl.
    """
    if not _loopback(host):
        raise click.UsageError(
            f"--host {host} is not a loopback address: the standalone "
            "workbench has no keys; serve it to others with "
            "`quaestio serve`, which checks them"
        )
    try:
        import uvicorn

        from ..workbench import create_workbench_app
    except ImportError as exc:
        raise click.ClickException(
            f"the workbench needs the serve extra ({exc.name} is "
            f"missing). Install it with: pip install 'quaestio[serve]'"
        ) from exc
    from ..errors import QuaestioError

    try:
        app = create_workbench_app(
            folder, questions=questions, corpus=corpus, candidates=candidates
        )
    except (QuaestioError, ValueError, FileNotFoundError) as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"quaestio workbench on {folder}: http://{host}:{port}/", err=True)
    uvicorn.run(app, host=host, port=port, log_level="warning")

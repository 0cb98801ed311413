"""`quaestio serve` and `quaestio serve-key`."""

from __future__ import annotations

import click

from . import cli, satellites_option


@cli.command("serve")
@click.option(
    "--index",
    "index_dir",
    type=click.Path(exists=True, file_okay=False),
    help="Folder of an index (quaestio index); without it only /v1/parse works.",
)
@satellites_option
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, show_default=True, type=int)
@click.option("--workers", default=1, show_default=True, type=click.IntRange(1, 64))
@click.option(
    "--api-keys",
    "api_keys",
    type=click.Path(exists=True, dir_okay=False),
    envvar="QUAESTIO_API_KEYS_FILE",
    help="File of hashed keys (see serve-key); else QUAESTIO_API_KEYS; with none, "
    "loopback clients only.",
)
@click.option("--llm", is_flag=True, help="Parse and answer with the LLM of QUAESTIO_LLM_*.")
@click.option(
    "--store",
    type=click.Path(dir_okay=False),
    help="SQLite file of the conversation memory (default: a temp file).",
)
@click.option("--backend", default=None, help="Retrieval backend (default: the dispatch's).")
@click.option(
    "--rate",
    "rate_per_minute",
    default=600.0,
    show_default=True,
    help="Requests per minute per key.",
)
def serve_command(
    index_dir, satellites_dir, host, port, workers, api_keys, llm, store, backend, rate_per_minute
):
    """Serve parse, search and conversations over HTTP (needs the serve extra)."""
    try:
        from ..serve import ServeConfig, run
        from ..serve.auth import KeyRing
    except ImportError as exc:
        raise click.ClickException(
            f"{exc}. Install it with: pip install 'quaestio[serve]'"
        ) from exc
    from ..errors import QuaestioError

    try:
        KeyRing.load(api_keys)  # a bad key file fails here, before any worker starts
        config = ServeConfig(
            index=index_dir,
            satellites=satellites_dir,
            api_keys=api_keys,
            llm=_llm_config() if llm else None,
            store=store,
            backend=backend,
            rate_per_minute=rate_per_minute,
        )
    except QuaestioError as exc:
        raise click.ClickException(str(exc)) from exc
    run(config, host=host, port=port, workers=workers)


def _llm_config():
    from ..llm import LLMConfig

    return LLMConfig.from_env().require()


@cli.command("serve-key")
@click.argument("role", type=click.Choice(["reader", "analyst", "admin"]))
@click.argument("name")
def serve_key_command(role, name):
    """Make a new API key: the key on stderr (give it to the client), the key-file line on
    stdout (append it to the --api-keys file)."""
    from ..serve.auth import new_key_line

    key, line = new_key_line(role, name)
    click.echo(f"key for {name}: {key}", err=True)
    click.echo(line)

"""The `quaestio` command: a thin layer over the library.

Each concern registers its commands from its own module (parse.py, satellites.py, ...), all on
the one `cli` group defined here.
"""

from __future__ import annotations

import click


def load_satellites_or_bundled(folder: str | None):
    from ..satellites import bundled_satellites, load_satellites

    return load_satellites(folder) if folder else bundled_satellites()


satellites_option = click.option(
    "--satellites",
    "satellites_dir",
    type=click.Path(exists=True, file_okay=False),
    envvar="QUAESTIO_SATELLITES",
    help="Folder of satellite tables (default: bundled).",
)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="quaestio")
def cli() -> None:
    """Turn questions into typed, auditable rows of question_df."""


# Registration: importing a module adds its commands to `cli`.
from . import curation as _curation  # noqa: E402,F401
from . import dask as _dask  # noqa: E402,F401
from . import evaluate as _evaluate  # noqa: E402,F401
from . import parse as _parse  # noqa: E402,F401
from . import retrieval as _retrieval  # noqa: E402,F401
from . import satellites as _satellites  # noqa: E402,F401
from . import serve as _serve  # noqa: E402,F401
from . import workbench as _workbench  # noqa: E402,F401


def main() -> None:
    cli(prog_name="quaestio")


if __name__ == "__main__":
    main()

"""User errors on the command line: one line (or the list of bad rows) and exit code 2.

Every command wraps its work in `user_errors()`: an error quaestio raises on purpose, a file
that cannot be read or a missing extra becomes `Error: ...` naming the file, row, column or
flag and what to do, never a traceback. A bug still shows its traceback.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager

import click

from ..errors import QuaestioError, TableError

EXIT_USER_ERROR = 2


class UserError(click.ClickException):
    """A mistake in the input or the flags: printed as `Error: ...`, exit code 2."""

    exit_code = EXIT_USER_ERROR


# Extras that hold the optional imports a command may need, for the "install" hint.
_EXTRAS = {
    "sentence_transformers": "retrieval",
    "bm25s": "retrieval",
    "numba": "retrieval",
    "torch": "retrieval",
    "hdbscan": "curation",
    "sklearn": "curation",
}


@contextmanager
def user_errors(note: str = "", *, source: str | None = None) -> Iterator[None]:
    """Turn the errors a user can fix into a `UserError`; `note` is added to the message.

    `source`: the command's input file, named in front of a decoding or parsing error
    (polars, Arrow) whose own message does not name it.
    """
    try:
        yield
    except click.ClickException:
        raise
    except TableError as exc:  # the list of every bad row is the point: keep it whole
        raise UserError(str(exc) + note) from exc
    except ImportError as exc:
        raise UserError(_missing_extra(exc) + note) from exc
    except QuaestioError as exc:
        raise UserError(one_line(exc) + note) from exc
    except (ValueError, OSError, UnicodeError) as exc:
        raise UserError(_named(one_line(exc), source) + note) from exc
    except Exception as exc:
        if not _is_data_error(exc):
            raise
        raise UserError(_named(one_line(exc), source) + note) from exc


def _named(message: str, source: str | None) -> str:
    if source is None or source in message:
        return message
    return f"{source}: cannot be read ({message})"


def _is_data_error(exc: Exception) -> bool:
    """A file polars or Arrow cannot read (empty, binary, truncated) is the user's to fix."""
    import polars as pl
    import pyarrow as pa

    return isinstance(exc, (pl.exceptions.PolarsError, pa.ArrowException))


def one_line(exc: BaseException) -> str:
    """The first line of an error's message, with the file name an OSError carries."""
    if isinstance(exc, OSError) and exc.filename is not None and exc.strerror:
        return f"{exc.filename}: {exc.strerror}"
    lines = [line for line in str(exc).splitlines() if line.strip()]
    return lines[0].strip() if lines else type(exc).__name__


def _missing_extra(exc: ImportError) -> str:
    module = (exc.name or "").split(".")[0]
    extra = _EXTRAS.get(module)
    if extra is None:
        return one_line(exc)
    return (
        f"this needs the optional package {module!r}: pip install 'quaestio[{extra}]' "
        f"(from a checkout: pip install '.[{extra}]')"
    )


def check_language(sats, language: str | None, flag: str = "--language") -> None:
    """A forced language must be one the satellites have stopwords for."""
    if language is None:
        return
    known = sorted(set(sats.stopwords["language"].to_list()) - {"*"})
    if language not in known:
        raise UserError(
            f"{flag} {language!r} is not a language of the satellite tables; "
            f"use one of {', '.join(known)}"
        )


def check_columns(path: str, columns: list[str], **flags: str | None) -> None:
    """Each named column (by its flag: question_column="question") must be in the file."""
    for flag, name in flags.items():
        if name is not None and name not in columns:
            shown = ", ".join(_short(repr(c)) for c in columns[:20])
            raise UserError(
                f"{path}: no column {name!r}; its columns are {shown}. Name the "
                f"right one with --{flag.replace('_', '-')} NAME"
            )


def check_text_file(path: str) -> None:
    """A CSV or JSONL input must be text: NUL bytes near the start mean a binary file."""
    if str(path).lower().endswith((".parquet", ".pq")):
        return
    with open(path, "rb") as fh:
        head = fh.read(8192)
    if b"\x00" in head and not head.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise UserError(
            f"{path}: a binary file, not CSV or JSONL text; give a .csv, .jsonl or .parquet file"
        )


def _short(text: str, width: int = 40) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."


def echo_warnings(caught: list[warnings.WarningMessage]) -> None:
    """Print warnings caught during a command as `warning: ...` lines on stderr, once each."""
    for message in dict.fromkeys(str(w.message) for w in caught):
        click.echo(f"warning: {message}", err=True)

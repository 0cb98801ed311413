"""The exception tree, reason codes for rows that failed, and warning codes."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from enum import StrEnum
from typing import Any


class ReasonCode(StrEnum):
    """Why a question produced an error row (the `error_code` column)."""

    MISSING_QUESTION = "missing_question"
    NOT_A_STRING = "not_a_string"
    EMPTY_QUESTION = "empty_question"
    REGEX_TIMEOUT = "regex_timeout"
    INTERNAL_ERROR = "internal_error"
    QUESTION_TOO_LONG = "question_too_long"  # over max_question_chars, or a service limit


class WarningCode(StrEnum):
    """Stable codes for degraded but valid output, so users can filter them."""

    W101_REGEX_TIMEOUT = "W101"
    W102_TABLE_FROM_DEFAULTS = "W102"
    W103_TEXT_REPAIRED = "W103"  # lone surrogates replaced by U+FFFD
    W104_REGEX_BUDGET = "W104"  # the question's regex time budget ran out
    # LLM mode (quaestio.llm)
    W201_LLM_VALUE_REJECTED = "W201"
    W202_LLM_VALUE_REPAIRED = "W202"
    W203_REWRITE_NOT_IN_CORPUS = "W203"
    W204_LLM_FALLBACK = "W204"
    # Ingestion (quaestio.retrieval)
    W301_EMPTY_FILE = "W301"
    W302_BINARY_FILE = "W302"
    W303_DUPLICATE_DOCUMENT = "W303"
    W304_ENCODING_GUESSED = "W304"


class QuaestioError(Exception):
    """Base class of every error quaestio raises on purpose."""


class QuaestioWarning(UserWarning):
    """Degraded but valid output; `code` is a `WarningCode`."""

    def __init__(self, code: WarningCode, message: str):
        self.code = code
        super().__init__(f"[{code}] {message}")


class TableError(QuaestioError, ValueError):
    """A table failed validation; `failure_cases` lists every bad cell at once.

    `failure_cases` is a list of dicts with keys source, table, row, column, value, reason.
    `row` is the 1-based line number in a CSV file (the header is line 1), or the 0-based
    position in a DataFrame.
    """

    what = "the table"

    def __init__(self, failure_cases: list[dict[str, Any]], *, limit: int = 50):
        self.failure_cases = failure_cases
        lines = [_describe(case) for case in failure_cases[:limit]]
        more = len(failure_cases) - limit
        if more > 0:
            lines.append(f"... and {more} more")
        head = f"{len(failure_cases)} problem(s) in {self.what}; nothing was loaded:"
        super().__init__("\n".join([head, *lines]))

    def failure_frame(self):
        """The failures as a pandas DataFrame, one row per bad cell."""
        import pandas as pd

        columns = ["source", "table", "row", "column", "value", "reason"]
        return pd.DataFrame(self.failure_cases, columns=columns)


class SatelliteError(TableError):
    """Satellite tables failed validation (see `TableError`)."""

    what = "the satellite tables"


class GoldError(TableError):
    """A gold set failed validation (see `TableError`)."""

    what = "the gold set"


def _describe(case: dict[str, Any]) -> str:
    where = f"{case['source']}"
    if case.get("row") is not None:
        where += f" row {case['row']}"
    if case.get("column"):
        where += f" ({case['column']}={case.get('value')!r})"
    return f"  {where}: {case['reason']}"


class UnknownNameError(QuaestioError, ValueError):
    """A name that is not in a registry; the message suggests the closest one."""

    def __init__(self, kind: str, name: str, available: Iterable[str]):
        self.kind, self.name, self.available = kind, name, sorted(available)
        close = difflib.get_close_matches(str(name), self.available, n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        super().__init__(f"Unknown {kind} {name!r}.{hint} Available: {', '.join(self.available)}.")


class QuestionError(QuaestioError, ValueError):
    """A question that cannot be parsed; carries the reason code and where it came from."""

    def __init__(
        self,
        code: ReasonCode,
        message: str,
        *,
        row: int | None = None,
        column: str | None = None,
        value: Any = None,
    ):
        self.code, self.row, self.column, self.value = code, row, column, value
        where = ""
        if row is not None:
            where = f"row {row}" + (f", column {column!r}" if column else "") + ": "
        super().__init__(f"{where}{message} (got {value!r})")


class InputFileError(QuaestioError, ValueError):
    """A question or data file that cannot be read as it is: names the file, the line or
    column when known, and what to do."""

    def __init__(
        self, path: Any, message: str, *, line: int | None = None, column: str | None = None
    ):
        self.path, self.line, self.column = str(path), line, column
        where = (
            self.path
            + (f" line {line}" if line is not None else "")
            + (f" column {column!r}" if column else "")
        )
        super().__init__(f"{where}: {message}")

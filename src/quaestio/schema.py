"""The `question_df` contract, declared once: an Arrow schema derived from `ParsedQuestion`.

The same schema serves pandas (Arrow-backed dtypes, so nothing is lost on the way back),
polars and Parquet. Column families (`ColumnFamily` fields) are flattened into top-level columns.
`COMPACT_SCHEMA` is the same contract with the repeated nested strings dictionary-encoded:
what the parser builds in memory and returns as Arrow (`as_="arrow"`, `iter_parse`); polars
and pandas frames and written files get `QUESTION_SCHEMA`.
"""

from __future__ import annotations

import datetime as dt
import sys
import types as _pytypes
import typing
from collections.abc import Iterable
from enum import Enum
from functools import cache
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel

from .errors import UnknownNameError
from .types import ColumnFamily, ParsedQuestion

if TYPE_CHECKING:  # pyarrow is imported where a table is made: one parsed question needs none
    import pyarrow as pa

    QUESTION_SCHEMA: pa.Schema  # see __getattr__
    COMPACT_SCHEMA: pa.Schema

Engine = Literal["pandas", "polars", "arrow"]
ENGINES: tuple[str, ...] = typing.get_args(Engine)


def _arrow_type(annotation: Any) -> pa.DataType:
    import pyarrow as pa

    origin = typing.get_origin(annotation)
    if origin in (typing.Union, _pytypes.UnionType):
        (inner,) = [a for a in typing.get_args(annotation) if a is not type(None)]
        return _arrow_type(inner)
    if origin is list:
        return pa.list_(_arrow_type(typing.get_args(annotation)[0]))
    if isinstance(annotation, type):
        if issubclass(annotation, BaseModel):
            return pa.struct(
                [
                    pa.field(n, _arrow_type(f.annotation))
                    for n, f in annotation.model_fields.items()
                ]
            )
        if issubclass(annotation, Enum) or annotation is str:
            return pa.string()
        # bool before int: bool is a subclass of int.
        for py, arrow in (
            (bool, pa.bool_()),
            (int, pa.int64()),
            (float, pa.float64()),
            (dt.date, pa.date32()),
        ):
            if issubclass(annotation, py):
                return arrow
    raise TypeError(f"no Arrow type for {annotation!r}")


def _families() -> dict[str, type[ColumnFamily]]:
    return {
        name: f.annotation
        for name, f in ParsedQuestion.model_fields.items()
        if isinstance(f.annotation, type) and issubclass(f.annotation, ColumnFamily)
    }


FAMILIES: dict[str, type[ColumnFamily]] = _families()


@cache
def question_schema() -> pa.Schema:
    """The Arrow schema of question_df (also `QUESTION_SCHEMA`), built on first use."""
    import pyarrow as pa

    fields = []
    for name, info in ParsedQuestion.model_fields.items():
        if name in FAMILIES:
            fields += [
                pa.field(n, _arrow_type(f.annotation))
                for n, f in FAMILIES[name].model_fields.items()
            ]
        else:
            fields.append(pa.field(name, _arrow_type(info.annotation)))
    return pa.schema(fields)


COLUMNS: tuple[str, ...] = tuple(
    n
    for name in ParsedQuestion.model_fields
    for n in (FAMILIES[name].model_fields if name in FAMILIES else (name,))
)

# The values that repeat from row to row (a concept's variants, sources, weights, rule ids,
# the enum and version columns), stored once per batch: the same columns and values,
# dictionary-encoded. A name maps to the struct fields to encode, () to the column's own
# values (a scalar, or a list's items).
DICTIONARY_ENCODED: dict[str, tuple[str, ...]] = {
    "keywords": (
        "text",
        "weight",
        "source",
        "concept",
        "language",
        "keyword_priority",
        "semantic_group",
        "rule_id",
    ),
    "concepts": (),
    "activations": (),
    "rules_fired": (),
    "excluded_concepts": (),
    **dict.fromkeys(
        (
            "language",
            "answer_shape",
            "answer_type",
            "layout_hint",
            "detect_context",
            "answer_context",
            "decomposition_pattern",
            "chunk_strategy",
            "suggested_model",
            "parser_mode",
            "llm_model",
            "llm_status",
            "satellites_version",
            "quaestio_version",
            "error_code",
        ),
        (),
    ),
}

# Offsets into the question, bounded by `max_question_chars` (at most 10**8): 32 bits hold
# them, and they are a third of a keyword's bytes at 64.
NARROWED: dict[str, tuple[str, ...]] = {
    "keywords": ("span_start", "span_end"),
    "ambiguous_keywords": ("span_start", "span_end"),
    "spelling_corrections": ("span_start", "span_end"),
}


def _item(annotation: Any) -> Any:
    """`X` for `X`, `X | None` and `list[X]`."""
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    return _item(args[0]) if args else annotation


def _annotations() -> dict[tuple[str, str], Any]:
    """(column, struct field or "") -> the annotation it was derived from."""
    found: dict[tuple[str, str], Any] = {}
    for name, info in ParsedQuestion.model_fields.items():
        fields = FAMILIES[name].model_fields if name in FAMILIES else {name: info}
        for column, f in fields.items():
            found[column, ""] = _item(f.annotation)
            item = found[column, ""]
            if isinstance(item, type) and issubclass(item, BaseModel):
                found.update(
                    ((column, n), _item(g.annotation)) for n, g in item.model_fields.items()
                )
    return found


@cache
def compact_schema() -> pa.Schema:
    """What `parse_questions(as_="arrow")` and `iter_parse` return (also `COMPACT_SCHEMA`):
    `QUESTION_SCHEMA`'s columns with the `DICTIONARY_ENCODED` fields dictionary-encoded
    (8-bit indices for an enum's closed set, 32-bit otherwise) and the `NARROWED` offsets
    in 32 bits. Values are the same: `table.cast(QUESTION_SCHEMA)` (or `frame_to_table`)
    decodes it; `to_pylist` reads the same values."""
    import pyarrow as pa

    annotations = _annotations()

    def encoded(column: str, field: pa.Field, sub: str = "") -> pa.Field:
        annotation = annotations[column, sub]
        closed = isinstance(annotation, type) and issubclass(annotation, Enum)
        return field.with_type(pa.dictionary(pa.int8() if closed else pa.int32(), field.type))

    def nested(column: str, field: pa.Field, names: tuple[str, ...], narrowed: tuple[str, ...]):
        if field.name in names:
            return encoded(column, field, field.name)
        return field.with_type(pa.int32()) if field.name in narrowed else field

    def compact(field: pa.Field) -> pa.Field:
        names = DICTIONARY_ENCODED.get(field.name, ())
        narrowed = NARROWED.get(field.name, ())
        if field.name in DICTIONARY_ENCODED and not names:
            if pa.types.is_list(field.type):
                item = encoded(field.name, field.type.value_field)
                return field.with_type(pa.list_(item.type))
            return encoded(field.name, field)
        if not names and not narrowed:
            return field
        item = [nested(field.name, f, names, narrowed) for f in field.type.value_type]
        return field.with_type(pa.list_(pa.struct(item)))

    return pa.schema([compact(f) for f in question_schema()])


# Columns added after question_df files were first written: filled with their (empty)
# default when an older frame lacks them.
ADDED_COLUMNS: tuple[str, ...] = ("excluded_concepts", "excluded_terms")


def to_record(row: ParsedQuestion) -> dict[str, Any]:
    """Flatten one row into a dict keyed by question_df column."""
    # Reading the validated models' __dict__ directly is twice as fast as model_dump, and
    # the values are already plain (StrEnum members are str for Arrow).
    record: dict[str, Any] = {}
    for name, value in row.__dict__.items():
        if name in FAMILIES:
            record.update((n, _plain(v)) for n, v in value.__dict__.items())
        else:
            record[name] = _plain(value)
    return record


def _plain(value: Any) -> Any:
    # Item models (Keyword, ScopeItem, ...) hold only scalars and lists of scalars: one level.
    if type(value) is list and value and isinstance(value[0], BaseModel):
        return [dict(v.__dict__) for v in value]
    return value


def from_record(record: dict[str, Any]) -> ParsedQuestion:
    """Rebuild a `ParsedQuestion` from one flat question_df record."""
    data = dict(record)
    for family, model in FAMILIES.items():
        data[family] = {n: data.pop(n) for n in model.model_fields if n in data}
    return ParsedQuestion.model_validate(data)


def __getattr__(name: str) -> Any:
    if name == "QUESTION_SCHEMA":
        return question_schema()
    if name == "COMPACT_SCHEMA":
        return compact_schema()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def rows_to_table(rows: Iterable[ParsedQuestion]) -> pa.Table:
    import pyarrow as pa

    return pa.Table.from_pylist([to_record(r) for r in rows], schema=question_schema())


def table_to_frame(table: pa.Table, engine: str = "pandas"):
    """Convert an Arrow table in the question_df schema (plain or `COMPACT_SCHEMA`) to the
    requested engine.

    arrow keeps the table as it is (the compact form, for memory); polars and pandas get plain
    strings: a Categorical `concept` refuses to join with a user's String column in polars,
    and pandas' ArrowDtype over dictionary types lacks comparisons and fillna.
    """
    if engine == "arrow":
        return table
    if engine not in ("polars", "pandas"):
        raise UnknownNameError("engine", engine, ENGINES)
    if table.schema == compact_schema():  # other tables (hits_df...) pass as they are
        table = table.cast(question_schema())
    if engine == "polars":
        import polars as pl

        return pl.from_arrow(table)
    import pandas as pd

    return table.to_pandas(types_mapper=pd.ArrowDtype)


def frame_to_table(frame: Any) -> pa.Table:
    """Convert a question_df in any engine back to an Arrow table in `QUESTION_SCHEMA` (plain
    strings, so that `Table.equals` compares values whatever dictionaries a run built)."""
    import pyarrow as pa

    if isinstance(frame, pa.Table):
        table = frame
    elif "polars" in sys.modules and isinstance(frame, sys.modules["polars"].DataFrame):
        table = frame.to_arrow()
    else:
        table = pa.Table.from_pandas(frame, preserve_index=False)
    for name in ADDED_COLUMNS:  # a question_df written before these columns existed
        if name not in table.column_names:
            field = question_schema().field(name)
            table = table.append_column(field, pa.array([[]] * table.num_rows, field.type))
    missing = [c for c in COLUMNS if c not in table.column_names]
    if missing:
        raise ValueError(f"not a question_df: missing columns {missing}")
    return table.select(list(COLUMNS)).cast(question_schema())


def table_to_rows(table: pa.Table) -> list[ParsedQuestion]:
    return [from_record(r) for r in table.to_pylist()]

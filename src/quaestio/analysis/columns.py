"""Records to an Arrow table in `COMPACT_SCHEMA`, the keywords column built on its own.

The keywords column is the one that grows with the dictionary: a matched concept brings all
its variants. Those are `dictionary.VariantBlock`s shared by every row that matches the
concept, each converted to Arrow once; a batch's column is then one `take` over the blocks
it uses and the row's own keywords (best keyword with its span, explicit, anchor, direct),
so the Python work per row follows the number of blocks, not of variants.
"""

from __future__ import annotations

from operator import itemgetter
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..satellites import Satellites
from ..schema import COMPACT_SCHEMA
from ..types import Keyword
from .dictionary import VariantBlock, expand_pieces

_KEYWORDS = COMPACT_SCHEMA.field("keywords").type
_KEYWORD = _KEYWORDS.value_type
_AT = COMPACT_SCHEMA.get_field_index("keywords")
_OTHERS = pa.schema([f for f in COMPACT_SCHEMA if f.name != "keywords"])
_ROW = itemgetter(*_OTHERS.names)
# A keyword's dict leaves out the fields at their model default (`is_regex`): Arrow would
# read them as null where `parse_question` gives the default.
_DEFAULTS = {
    name: field.default
    for name, field in Keyword.model_fields.items()
    if not field.is_required() and field.default is not None
}


def records_to_table(records: list[dict[str, Any]], sats: Satellites) -> pa.Table:
    """The records as one table in `COMPACT_SCHEMA`; raises as `Table.from_pylist` would
    when a record holds a value its column cannot take."""
    table = pa.Table.from_arrays(_other_columns(records), schema=_OTHERS)
    return table.add_column(_AT, COMPACT_SCHEMA.field("keywords"), keywords_column(records, sats))


def _other_columns(records: list[dict[str, Any]]) -> list[list[Any]]:
    """The values `Table.from_pylist` would hand `from_arrays` (None where a record lacks a
    column), so that Arrow converts them the same way. Its loop looks each name up twice
    per record; one `itemgetter` per record, turned into columns by `zip`, takes a third of
    that (a Python loop per column, as much as the conversion itself)."""
    try:
        rows = list(map(_ROW, records))
    except KeyError:  # a record without some column: read as from_pylist does
        return [[r.get(name) for r in records] for name in _OTHERS.names]
    if not rows:
        return [[] for _ in _OTHERS.names]
    return [list(column) for column in zip(*rows)]


def keywords_column(records: list[dict[str, Any]], sats: Satellites) -> pa.Array:
    """The keywords column; a row's `keywords` may hold `VariantBlock`s (`finish_pieces`),
    each standing for its `kept` keywords."""
    given = [r.get("keywords") for r in records]
    if any(k is None for k in given):  # not a parser row: the plain conversion
        plain = [None if k is None else expand_pieces(k) for k in given]
        return _with_defaults(pa.array(plain, type=_KEYWORDS))
    lists: list[list[Any]] = given  # type: ignore[assignment]  # no None left
    # Comprehensions over the batch's pieces rather than one loop with a branch per piece:
    # this is the only Python work per piece left.
    pieces = [k for row in lists for k in row]
    is_block = [type(k) is VariantBlock for k in pieces]
    own = [k for k, b in zip(pieces, is_block) if not b]  # converted together
    blocks = [k for k, b in zip(pieces, is_block) if b]
    first: dict[int, int] = {}  # id(block) -> its first row among the blocks' rows
    arrays: list[pa.Array] = []
    size = 0
    for block in {id(b): b for b in blocks}.values():
        first[id(block)] = size
        arrays.append(_block_array(block))
        size += len(block.kept)
    flags = np.array(is_block, dtype=bool)
    run_length = np.ones(len(pieces), dtype=np.int64)
    run_length[flags] = [len(b.kept) for b in blocks]
    run_start = np.empty(len(pieces), dtype=np.int64)
    run_start[~flags] = np.arange(len(own))
    run_start[flags] = np.array([first[id(b)] for b in blocks], dtype=np.int64) + len(own)
    values = pa.concat_arrays([pa.array(own, type=_KEYWORD), *arrays])
    first_out = np.cumsum(run_length) - run_length
    take = np.repeat(run_start - first_out, run_length) + np.arange(int(run_length.sum()))
    # A row's list starts where its first piece does.
    ends = np.cumsum(run_length)
    row_pieces = np.cumsum([len(row) for row in lists], dtype=np.int64)
    offsets = np.zeros(len(lists) + 1, dtype=np.int32)
    offsets[1:] = np.concatenate([[0], ends])[row_pieces]
    return _with_defaults(
        pa.ListArray.from_arrays(pa.array(offsets), values.take(take), type=_KEYWORDS)
    )


def _with_defaults(column: pa.ListArray) -> pa.ListArray:
    """The column with its keywords' missing fields at their model defaults."""
    items = column.values
    if not len(items):
        return column
    fields = [items.field(i) for i in range(items.type.num_fields)]
    for name, default in _DEFAULTS.items():
        at = items.type.get_field_index(name)
        fields[at] = pc.fill_null(fields[at], default)
    items = pa.StructArray.from_arrays(fields, fields=list(items.type), mask=items.is_null())
    return pa.ListArray.from_arrays(column.offsets, items, type=column.type, mask=column.is_null())


def _block_array(block: VariantBlock) -> pa.Array:
    if block.arrow is None:
        block.arrow = pa.array(block.kept, type=_KEYWORD)
    return block.arrow

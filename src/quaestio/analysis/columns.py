"""Records to an Arrow table in `COMPACT_SCHEMA`, the keywords column built on its own.

The keywords column is the one that grows with the dictionary: a matched concept brings all
its variants. Those are `dictionary.VariantBlock`s shared by every row that matches the
concept, each converted to Arrow once; a batch's column is then one `take` over the blocks
it uses and the row's own keywords (best keyword with its span, explicit, anchor, direct),
so the Python work per row follows the number of blocks, not of variants.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

from ..satellites import Satellites
from ..schema import COMPACT_SCHEMA
from .dictionary import VariantBlock, expand_pieces

_KEYWORDS = COMPACT_SCHEMA.field("keywords").type
_KEYWORD = _KEYWORDS.value_type
_AT = COMPACT_SCHEMA.get_field_index("keywords")
_OTHERS = pa.schema([f for f in COMPACT_SCHEMA if f.name != "keywords"])


def records_to_table(records: list[dict[str, Any]], sats: Satellites) -> pa.Table:
    """The records as one table in `COMPACT_SCHEMA`; raises as `Table.from_pylist` would
    when a record holds a value its column cannot take."""
    # The other columns hold a few values per row: Arrow's own row conversion is the fastest
    # way there (a Python loop per column costs twice as much).
    table = pa.Table.from_pylist(records, schema=_OTHERS)
    return table.add_column(_AT, COMPACT_SCHEMA.field("keywords"), keywords_column(records, sats))


def keywords_column(records: list[dict[str, Any]], sats: Satellites) -> pa.Array:
    """The keywords column; a row's `keywords` may hold `VariantBlock`s (`finish_pieces`),
    each standing for its `kept` keywords."""
    given = [r.get("keywords") for r in records]
    if any(k is None for k in given):  # not a parser row: the plain conversion
        return pa.array([None if k is None else expand_pieces(k) for k in given], type=_KEYWORDS)
    lists: list[list[Any]] = given  # type: ignore[assignment]  # no None left
    own: list[dict] = []  # keywords of the rows themselves, converted together
    used: dict[int, int] = {}  # id(block) -> where its rows start among the blocks' rows
    arrays: list[pa.Array] = []
    size = 0
    # Runs of the output: (start, length, 1 for a block run, 0 for one of the row's own).
    starts: list[int] = []
    lengths: list[int] = []
    shared: list[int] = []
    row_lengths: list[int] = []
    for pieces in lists:
        n = 0
        for k in pieces:
            if type(k) is VariantBlock:
                base = used.get(id(k))
                if base is None:
                    base = used[id(k)] = size
                    arrays.append(_block_array(k))
                    size += len(k.kept)
                starts.append(base)
                lengths.append(len(k.kept))
                shared.append(1)
                n += len(k.kept)
            else:
                starts.append(len(own))
                lengths.append(1)
                shared.append(0)
                own.append(k)
                n += 1
        row_lengths.append(n)
    values = pa.concat_arrays([pa.array(own, type=_KEYWORD), *arrays])
    run_length = np.array(lengths, dtype=np.int64)
    run_start = np.array(starts, dtype=np.int64) + np.array(shared, dtype=np.int64) * len(own)
    first_out = np.cumsum(run_length) - run_length
    take = np.repeat(run_start - first_out, run_length) + np.arange(int(run_length.sum()))
    offsets = np.zeros(len(lists) + 1, dtype=np.int32)
    np.cumsum(row_lengths, out=offsets[1:])
    return pa.ListArray.from_arrays(pa.array(offsets), values.take(take), type=_KEYWORDS)


def _block_array(block: VariantBlock) -> pa.Array:
    if block.arrow is None:
        block.arrow = pa.array(block.kept, type=_KEYWORD)
    return block.arrow

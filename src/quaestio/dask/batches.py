"""`parse_questions`, `search` and `confirm` on dask DataFrames, partition by partition.

Each function installs the worker state (satellites, index) once, then maps one pandas
function over the partitions with the exact Arrow-backed schema as `meta`. A partition keeps
its rows and their order (parse: one row per input row, with the input's index); a failure
is retried `retries` times on the worker, then raised as `PartitionFailed` with the
partition's number.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pyarrow as pa

from .plugin import PartitionFailed, QuaestioState, install, state_for


def _client(client):
    if client is not None:
        return client
    try:
        from distributed import get_client

        return get_client()
    except (ImportError, ValueError):
        return None  # the threads or synchronous scheduler: state kept in this process


def _empty(schema: pa.Schema):
    from ..schema import table_to_frame

    return table_to_frame(schema.empty_table(), "pandas")


def _attempts(step: str, partition: int, retries: int, work: Callable[[], Any]):
    from ..errors import QuaestioError

    for attempt in range(retries + 1):
        try:
            return work()
        except Exception as exc:  # noqa: BLE001 - retried, then reported with its partition
            # Bad input (a QuaestioError names its row and column) fails the same way again.
            if attempt == retries or isinstance(exc, QuaestioError):
                raise PartitionFailed(step, partition, attempt + 1, exc) from exc
            time.sleep(min(0.1 * 2**attempt, 2.0))


def parse_questions(
    questions,
    satellites=None,
    *,
    client=None,
    question_column: str = "question",
    id_column: str | None = None,
    retries: int = 2,
    **options: Any,
):
    """`quaestio.parse_questions` over a dask DataFrame: a lazy dask `question_df`.

    Args:
        questions: A dask DataFrame with `question_column` (and `id_column` when given).
        satellites: The tables (bundled when None), sent to each worker once.
        client: A `distributed.Client`; the current one when None (or none: local threads).
        id_column: The column of question ids; else ids are q0, q1, ... in input order across
            partitions (the partition lengths are computed first for that).
        retries: Attempts after a failure, on the worker, before `PartitionFailed`.
        **options: `language`, `toc`, `scope`, `parties`, `errors`... of `parse_questions`.

    Returns:
        A dask DataFrame with `QUESTION_SCHEMA` columns as `meta`, partition for partition.
    """
    from ..satellites import bundled_satellites
    from ..schema import QUESTION_SCHEMA

    key = install(QuaestioState(satellites or bundled_satellites()), _client(client))
    offsets = None
    if id_column is None:
        lengths = questions.map_partitions(len).compute().tolist()
        offsets = [sum(lengths[:i]) for i in range(len(lengths))]
    return questions.map_partitions(
        _parse_partition,
        key,
        question_column,
        id_column,
        offsets,
        retries,
        options,
        meta=_empty(QUESTION_SCHEMA),
        enforce_metadata=False,
        align_dataframes=False,
    )


def _parse_partition(
    frame, key, question_column, id_column, offsets, retries, options, partition_info=None
):
    import pandas as pd

    from ..analysis import iter_parse
    from ..schema import COMPACT_SCHEMA, table_to_frame

    number = (partition_info or {}).get("number", 0)

    def work():
        state = state_for(key)
        ids = frame[id_column] if id_column else None
        texts = frame[question_column].astype(object)
        # pandas' NA (how dask carries a missing string) is a missing question, as None is.
        batch = pd.DataFrame({question_column: texts.where(texts.notna(), None).to_numpy()})
        if ids is None and offsets is not None:
            start = offsets[number]
            batch = batch.assign(_qid=[f"q{start + i}" for i in range(len(batch))])
        elif ids is not None:
            batch = batch.assign(_qid=ids.astype(str).to_numpy())
        # Streamed batch by batch (`iter_parse`), as the CLI does: one compact table.
        batches = iter_parse(
            batch,
            state.satellites,
            question_column=question_column,
            id_column="_qid" if "_qid" in batch else None,
            **options,
        )
        out = table_to_frame(pa.Table.from_batches(list(batches), schema=COMPACT_SCHEMA))
        out.index = frame.index
        return out

    return _attempts("parse_questions", number, retries, work)


def search(
    index,
    question_df,
    *,
    client=None,
    satellites=None,
    backend: str | None = None,
    k: int = 10,
    retries: int = 2,
    **options: Any,
):
    """`quaestio.retrieval.search` over a dask `question_df`: a lazy dask `hits_df`.

    Args:
        index: An index folder every worker can read, an `Index` (its tables are sent to
            each worker once) or a PostgreSQL DSN (each worker opens its own pool).
        question_df: A dask `question_df` (from `parse_questions` here, or read from Parquet).
        backend: As in `search`; "postgres" for a DSN, else bm25 or hybrid by the index.
        k: Hits per question, as in `search`.
        **options: Passed to `search` (backend, funnel, filters).

    Returns:
        A dask DataFrame with `HITS_SCHEMA` columns as `meta`, the hits of each question
        partition in the partition of the same number, in question order.
    """
    from ..retrieval.schema import HITS_SCHEMA
    from ..satellites import bundled_satellites
    from .plugin import _is_dsn

    state = QuaestioState(satellites or bundled_satellites(), index)
    if backend is None:
        backend = "postgres" if _is_dsn(index) else None
    key = install(state, _client(client))
    return question_df.map_partitions(
        _search_partition,
        key,
        backend,
        k,
        retries,
        options,
        meta=_empty(HITS_SCHEMA),
        enforce_metadata=False,
        align_dataframes=False,
    )


def _search_partition(frame, key, backend, k, retries, options, partition_info=None):
    from ..retrieval import search as run

    number = (partition_info or {}).get("number", 0)

    def work():
        state = state_for(key)
        name = backend or ("hybrid" if getattr(state.index, "embedding_model", None) else "bm25")
        records = pa.Table.from_pandas(frame, preserve_index=False).to_pylist()
        return run(
            state.index,
            records,
            backend=name,
            k=k,
            satellites=state.satellites,
            as_="pandas",
            **options,
        )

    return _attempts("search", number, retries, work)


def confirm(
    question_df, hits_df, *, client=None, satellites=None, retries: int = 2, **options: Any
):
    """`quaestio.confirm` over dask frames whose partitions match (hits of partition i are
    those of the questions of partition i, as `search` here returns them).

    Returns:
        `Confirmation(answers, verdicts)`, two lazy dask DataFrames (`ANSWER_SCHEMA`,
        `VERDICT_SCHEMA`); verdicts hold exactly one row per question, in question order.
        Each is computed on its own: compute both in one `dask.compute` call when you
        need both.
    """
    from ..confirm.confirm import Confirmation
    from ..confirm.schema import ANSWER_SCHEMA, VERDICT_SCHEMA
    from ..satellites import bundled_satellites

    if question_df.npartitions != hits_df.npartitions:
        raise ValueError(
            f"question_df has {question_df.npartitions} partitions, hits_df "
            f"{hits_df.npartitions}: confirm pairs them partition by partition"
        )
    key = install(QuaestioState(satellites or bundled_satellites()), _client(client))
    frames = [
        question_df.map_partitions(
            _confirm_partition,
            hits_df,
            key,
            part,
            retries,
            options,
            meta=_empty(schema),
            enforce_metadata=False,
            align_dataframes=False,
        )
        for part, schema in ((0, ANSWER_SCHEMA), (1, VERDICT_SCHEMA))
    ]
    return Confirmation(*frames)


def _confirm_partition(questions, hits, key, part, retries, options, partition_info=None):
    from ..confirm import confirm as run

    number = (partition_info or {}).get("number", 0)

    def work():
        state = state_for(key)
        q = pa.Table.from_pandas(questions, preserve_index=False)
        h = pa.Table.from_pandas(hits, preserve_index=False)
        return run(q, h, satellites=state.satellites, as_="pandas", **options)[part]

    return _attempts("confirm", number, retries, work)

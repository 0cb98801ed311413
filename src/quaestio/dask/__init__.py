"""quaestio on Dask: `parse_questions`, `search` and `confirm` over dask DataFrames.

    >>> from distributed import Client                                   # doctest: +SKIP
    >>> import dask.dataframe as dd, quaestio.dask as qd                   # doctest: +SKIP
    >>> client = Client("tcp://scheduler:8786")                          # doctest: +SKIP
    >>> qdf = qd.parse_questions(dd.read_parquet("questions/"))          # doctest: +SKIP
    >>> qdf.to_parquet("question_df/")                                   # doctest: +SKIP

The satellites and the index reach each worker once, through a worker plugin that checks
their versions there (`plugin`); partitions keep their rows and order, and a partition that
still fails after its retries raises `PartitionFailed` with its number (`batches`). Needs
`pip install 'quaestio[dask]'`; dask is imported only by the functions that use it.
"""

from __future__ import annotations

from .batches import confirm, parse_questions, search
from .plugin import PartitionFailed, QuaestioState, WorkerStateError

__all__ = [
    "PartitionFailed",
    "QuaestioState",
    "WorkerStateError",
    "confirm",
    "parse_questions",
    "search",
]

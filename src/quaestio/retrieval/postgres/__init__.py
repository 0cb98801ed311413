"""A PostgreSQL retrieval backend: one database shared by many service workers.

    >>> from quaestio.retrieval.postgres import build_postgres, search     # doctest: +SKIP
    >>> store = build_postgres("examples/corpus", "postgresql://localhost/q")  # doctest: +SKIP
    >>> search(store, "What is the annual premium?", k=3)                    # doctest: +SKIP

`quaestio.retrieval.search(store_or_dsn, questions, backend="postgres")` does the same.
Tables and indexes: `ddl`; ingest and in-place updates: `store`; query terms and filters:
`query`; ranking and hits: `search`. Needs `pip install 'quaestio[postgres]'` (psycopg and
psycopg-pool); dense search needs the server's pgvector extension.
"""

from __future__ import annotations

import os
from typing import Any

from .search import search
from .store import PostgresIndex


def build_postgres(
    source: Any,
    dsn: str,
    *,
    schema: str = "quaestio",
    embedding_model: str | None = None,
    mode: str = "replace",
    **options: Any,
) -> PostgresIndex:
    """Chunk `source` (as `build_index` does) and write it to PostgreSQL, in one transaction.

    Args:
        source: What `build_index` takes (a folder, files, a documents DataFrame) or an
            `Index` already built.
        dsn: The database. schema: The PostgreSQL schema of the tables.
        embedding_model: Vectors to store (used only where pgvector is installed).
        mode: "replace" (the default: the index becomes `source`), "add" (new documents) or
            "update" (documents replaced by id; unchanged chunks are not rewritten).
        **options: Chunking options of `build_index`.

    Returns:
        The open `PostgresIndex` (close it, or use it as a context manager).
    """
    from ..build import build_index
    from ..index import Index

    store = PostgresIndex(dsn, schema=schema)
    try:
        if not isinstance(source, Index):
            model = embedding_model if store.has_pgvector else None
            source = build_index(source, embedding_model=model, **options)
        operation = {
            "replace": store.ingest,
            "add": store.add_documents,
            "update": store.update_documents,
        }
        if mode not in operation:
            raise ValueError(f"mode must be one of {', '.join(operation)}, not {mode!r}")
        operation[mode](source)
    except BaseException:
        store.close()
        raise
    return store


def is_dsn(value: Any) -> bool:
    """True for a PostgreSQL URI (postgres:// or postgresql://), not for an index folder."""
    return isinstance(value, (str, os.PathLike)) and str(value).startswith(
        ("postgres://", "postgresql://")
    )


__all__ = ["PostgresIndex", "build_postgres", "is_dsn", "search"]

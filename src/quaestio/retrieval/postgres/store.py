"""`PostgresIndex`: chunks, documents, term statistics and the manifest in PostgreSQL.

Several service workers share one database through psycopg's connection pool. Every ingest
(`ingest`, `add_documents`, `remove_documents`, `update_documents`) is one transaction: a
failure leaves the previous state, and readers see the old index or the new one, never a mix.
"""

from __future__ import annotations

import hashlib
import json
import warnings
from collections.abc import Sequence
from typing import Any

import pyarrow as pa

from ..errors import BackendUnavailable, IndexFormatError
from .ddl import CHUNK_COLUMNS, DOCUMENT_COLUMNS, TABLES, VECTORS, config_of


def _psycopg():
    try:
        import psycopg
        import psycopg_pool
    except ImportError as exc:
        raise BackendUnavailable(
            "backend 'postgres'", "psycopg[binary] psycopg-pool", extra="postgres"
        ) from exc
    return psycopg, psycopg_pool


class PostgresIndex:
    """An index held in PostgreSQL (see `quaestio.retrieval.postgres`).

    Args:
        dsn: A libpq connection string or URI.
        schema: The PostgreSQL schema holding the tables (created when missing).
        pool_size: Connections kept open (`max_size`; one is opened at start).
        vectors: "auto" uses pgvector when the extension is installed; "off" never does.
    """

    def __init__(
        self, dsn: str, *, schema: str = "quaestio", pool_size: int = 4, vectors: str = "auto"
    ):
        psycopg, psycopg_pool = _psycopg()
        self.dsn, self.schema = dsn, schema
        self.pool = psycopg_pool.ConnectionPool(
            dsn, min_size=1, max_size=pool_size, open=True, kwargs={"autocommit": False}
        )
        self._ident = psycopg.sql.Identifier(schema)
        self._cache: dict[str, Any] = {}
        with self.pool.connection() as conn:
            conn.execute(self.sql("CREATE SCHEMA IF NOT EXISTS {schema}"))
            conn.execute(self.sql(TABLES))
            self.has_pgvector = (
                vectors != "off"
                and conn.execute(
                    "SELECT count(*) FROM pg_available_extensions WHERE name = 'vector'"
                ).fetchone()[0]
                > 0
            )
        if not self.has_pgvector:
            warnings.warn(
                "PostgreSQL index: the pgvector extension is not installed on this "
                "server; dense and hybrid search are off, full-text search serves "
                "every query",
                RuntimeWarning,
                stacklevel=2,
            )

    # -- plumbing -------------------------------------------------------------------------
    def sql(self, text: str, **parts: Any):
        """`text` composed with the schema identifier (and any other `sql` parts)."""
        from psycopg import sql

        return sql.SQL(text).format(schema=self._ident, **parts)

    def close(self) -> None:
        self.pool.close()

    def __enter__(self) -> PostgresIndex:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def manifest(self) -> dict:
        """The body of the last manifest row ({} for an empty index)."""
        with self.pool.connection() as conn:
            row = conn.execute(
                self.sql("SELECT body FROM {schema}.manifest ORDER BY id DESC LIMIT 1")
            ).fetchone()
        return row[0] if row else {}

    def history(self) -> list[dict]:
        """Every manifest row, oldest first: one per ingest or update."""
        with self.pool.connection() as conn:
            rows = conn.execute(
                self.sql(
                    "SELECT id, recorded_at, operation, body FROM {schema}.manifest ORDER BY id"
                )
            ).fetchall()
        return [{"id": i, "recorded_at": at, "operation": op, **body} for i, at, op, body in rows]

    @property
    def embedding_model(self) -> str | None:
        return self.vector_model(self.manifest)

    def vector_model(self, manifest: dict) -> str | None:
        """The model of the stored vectors, when this server can search them."""
        model = manifest.get("embedding_model")
        return model["name"] if model and self.has_pgvector else None

    def generation(self) -> int:
        """The id of the last manifest row: changes with every committed ingest."""
        with self.pool.connection() as conn:
            return conn.execute(
                self.sql("SELECT coalesce(max(id), 0) FROM {schema}.manifest")
            ).fetchone()[0]

    def refresh(self, conn) -> dict:
        """Facts the search reads (configurations, corpus sizes, breadcrumbs), read again
        only when the index changed since they were cached."""
        generation = conn.execute(
            self.sql("SELECT coalesce(max(id), 0) FROM {schema}.manifest")
        ).fetchone()[0]
        if self._cache.get("generation") != generation:
            stats = conn.execute(
                self.sql(
                    "SELECT granularity, array_agg(DISTINCT config::text), count(*), "
                    "avg(doc_len)::float8 FROM {schema}.chunks GROUP BY granularity"
                )
            ).fetchall()
            crumbs = [
                r[0]
                for r in conn.execute(
                    self.sql(
                        "SELECT DISTINCT breadcrumb FROM {schema}.chunks "
                        "WHERE breadcrumb IS NOT NULL ORDER BY 1"
                    )
                )
            ]
            has_pages = conn.execute(
                self.sql(
                    "SELECT EXISTS (SELECT 1 FROM {schema}.chunks WHERE page_start IS NOT NULL)"
                )
            ).fetchone()[0]
            self._cache = {
                "generation": generation,
                "facts": {
                    "granularities": {
                        g: {"configs": sorted(c), "n": n, "avg_len": a or 1.0}
                        for g, c, n, a in stats
                    },
                    "breadcrumbs": crumbs,
                    "has_pages": has_pages,
                    "manifest": self._last(conn),
                },
            }
        return self._cache["facts"]

    def facts(self, conn) -> dict:
        return self._cache["facts"] if "facts" in self._cache else self.refresh(conn)

    # -- ingest ---------------------------------------------------------------------------
    def ingest(self, index) -> dict:
        """Replace the whole content with `index` (an in-memory or opened `Index`).

        Returns:
            The manifest recorded for this ingest.
        """
        with self.pool.connection() as conn, conn.transaction():
            conn.execute(self.sql("TRUNCATE {schema}.chunks, {schema}.documents, {schema}.terms"))
            self._write(conn, index.documents, index.chunks, _vectors(index))
            return self._record(conn, "ingest", index.manifest)

    def as_index(self, source, *, embed: bool = True):
        """`source` as an `Index`: an `Index` as is, else what `build_index` takes, chunked
        with the options (and model, where pgvector is) recorded by the last ingest."""
        from ..build import build_index
        from ..index import Index

        if isinstance(source, Index):
            return source
        last = self.manifest
        options = {
            k: v
            for k, v in (last.get("chunk_options") or {}).items()
            if k
            in (
                "safety_margin",
                "min_tokens",
                "overlap",
                "parent_child",
                "child_tokens",
                "sentence_window",
            )
        }
        model = self.vector_model(last) if last and embed else None
        return build_index(source, embedding_model=model, **options)

    def add_documents(self, source) -> dict:
        """Add documents (an `Index` or what `build_index` takes; their doc_ids must be new),
        in one transaction."""
        index = self.as_index(source)
        doc_ids = index.documents.column("doc_id").to_pylist()
        with self.pool.connection() as conn, conn.transaction():
            present = conn.execute(
                self.sql("SELECT doc_id FROM {schema}.documents WHERE doc_id = ANY(%s)"), [doc_ids]
            ).fetchall()
            if present:
                raise IndexFormatError(
                    f"add_documents: already indexed: "
                    f"{', '.join(sorted(r[0] for r in present)[:5])}; use "
                    f"update_documents to replace them"
                )
            self._write(conn, index.documents, index.chunks, _vectors(index))
            return self._record(conn, "add", {**index.manifest, "doc_ids": doc_ids})

    def remove_documents(self, doc_ids: Sequence[str]) -> dict:
        """Remove these documents and their chunks, in one transaction (unknown ids: an error)."""
        doc_ids = list(doc_ids)
        with self.pool.connection() as conn, conn.transaction():
            known = {
                r[0]
                for r in conn.execute(
                    self.sql("SELECT doc_id FROM {schema}.documents WHERE doc_id = ANY(%s)"),
                    [doc_ids],
                )
            }
            missing = [d for d in doc_ids if d not in known]
            if missing:
                raise IndexFormatError(
                    f"remove_documents: not in the index: {', '.join(missing[:5])}"
                )
            self._forget_chunks(conn, "doc_id", doc_ids)
            conn.execute(
                self.sql("DELETE FROM {schema}.documents WHERE doc_id = ANY(%s)"), [doc_ids]
            )
            return self._record(conn, "remove", {**self._last(conn), "doc_ids": doc_ids})

    def update_documents(self, source) -> dict:
        """Replace documents by doc_id (an `Index` or what `build_index` takes; new ones are
        added). Chunks whose id and content are unchanged stay as they are: not rewritten,
        not re-embedded (their vectors are not even read)."""
        index = self.as_index(source, embed=False)  # only the rewritten chunks get vectors
        documents, chunks = index.documents, index.chunks
        doc_ids = documents.column("doc_id").to_pylist()
        fresh = dict(zip(chunks.column("chunk_id").to_pylist(), _fingerprints(chunks)))
        with self.pool.connection() as conn, conn.transaction():
            stored = dict(
                conn.execute(
                    self.sql(
                        "SELECT chunk_id, fingerprint FROM {schema}.chunks WHERE doc_id = ANY(%s)"
                    ),
                    [doc_ids],
                ).fetchall()
            )
            gone = [c for c, f in stored.items() if fresh.get(c) != f]
            keep = {c for c, f in stored.items() if fresh.get(c) == f}
            if gone:
                self._forget_chunks(conn, "chunk_id", gone)
            conn.execute(
                self.sql(
                    "DELETE FROM {schema}.documents d WHERE doc_id = ANY(%s) AND "
                    "NOT EXISTS (SELECT 1 FROM {schema}.chunks c WHERE "
                    "c.doc_id = d.doc_id)"
                ),
                [doc_ids],
            )
            self._upsert_documents(conn, documents)
            new_rows = [
                i for i, c in enumerate(chunks.column("chunk_id").to_pylist()) if c not in keep
            ]
            written = chunks.take(pa.array(new_rows, pa.int64()))
            vectors = _vectors(index)
            if vectors is not None:
                vectors = vectors[new_rows]
            elif model := self.vector_model(self._last(conn)):
                vectors = _embed(written, model)
            self._write_chunks(conn, written, vectors)
            return self._record(
                conn,
                "update",
                {
                    **index.manifest,
                    "doc_ids": doc_ids,
                    "chunks_written": len(new_rows),
                    "chunks_removed": len(gone),
                    "chunks_unchanged": len(keep),
                },
            )

    # -- writing helpers ------------------------------------------------------------------
    def _write(self, conn, documents: pa.Table, chunks: pa.Table, vectors) -> None:
        self._upsert_documents(conn, documents)
        self._write_chunks(conn, chunks, vectors)

    def _upsert_documents(self, conn, documents: pa.Table) -> None:
        from psycopg import sql

        cols = [c for c in DOCUMENT_COLUMNS if c in documents.column_names]
        statement = self.sql(
            "INSERT INTO {schema}.documents ({cols}) VALUES ({values}) ON CONFLICT (doc_id) "
            "DO UPDATE SET {updates}",
            cols=_names(cols),
            values=sql.SQL(", ").join(sql.Placeholder() * len(cols)),
            updates=sql.SQL(", ").join(
                sql.SQL("{0} = EXCLUDED.{0}").format(sql.Identifier(c))
                for c in cols
                if c != "doc_id"
            ),
        )
        with conn.cursor() as cur:
            cur.executemany(
                statement, [[row[c] for c in cols] for row in documents.select(cols).to_pylist()]
            )

    def _write_chunks(self, conn, chunks: pa.Table, vectors) -> None:
        from ..bm25 import tokenize

        if chunks.num_rows == 0:
            return
        start = conn.execute(
            self.sql("SELECT coalesce(max(row_no), -1) + 1 FROM {schema}.chunks")
        ).fetchone()[0]
        columns = list(CHUNK_COLUMNS) + ["row_no", "config", "doc_len", "fingerprint"]
        if vectors is not None and self.has_pgvector:
            self._ensure_vectors(conn, vectors.shape[1])
            columns.append("embedding")
        fingerprints = _fingerprints(chunks)
        with conn.cursor() as cur:
            with cur.copy(
                self.sql("COPY {schema}.chunks ({cols}) FROM STDIN", cols=_names(columns))
            ) as copy:
                for n, row in enumerate(chunks.select(list(CHUNK_COLUMNS)).to_pylist()):
                    values = [row[c] for c in CHUNK_COLUMNS]
                    values += [
                        start + n,
                        config_of(row["language"], row["generation_text"] or ""),
                        len(tokenize(row["generation_text"] or "")),
                        fingerprints[n],
                    ]
                    if len(columns) > len(CHUNK_COLUMNS) + 4:
                        values.append(_vector_text(vectors[n]))
                    copy.write_row(values)
            # The new chunks' lexemes join the document frequencies of their granularity.
            cur.execute(
                self.sql(
                    "INSERT INTO {schema}.terms (granularity, config, lexeme, ndoc) "
                    "SELECT c.granularity, c.config, l.lexeme, count(*) FROM {schema}.chunks c, "
                    "unnest(c.tsv) AS l WHERE c.row_no >= %s GROUP BY 1, 2, 3 "
                    "ON CONFLICT (granularity, config, lexeme) DO UPDATE "
                    "SET ndoc = {schema}.terms.ndoc + EXCLUDED.ndoc"
                ),
                [start],
            )

    def _forget_chunks(self, conn, column: str, ids: list[str]) -> None:
        """Delete the chunks whose `column` (doc_id or chunk_id) is in `ids`, and take their
        lexemes out of the document frequencies."""
        from psycopg import sql

        col = sql.Identifier(column)
        conn.execute(
            self.sql(
                "UPDATE {schema}.terms t SET ndoc = t.ndoc - g.n FROM (SELECT c.granularity, "
                "c.config, l.lexeme, count(*) AS n FROM {schema}.chunks c, unnest(c.tsv) AS l "
                "WHERE c.{col} = ANY(%s) GROUP BY 1, 2, 3) g WHERE t.granularity = g.granularity "
                "AND t.config = g.config AND t.lexeme = g.lexeme",
                col=col,
            ),
            [ids],
        )
        conn.execute(self.sql("DELETE FROM {schema}.terms WHERE ndoc <= 0"))
        conn.execute(self.sql("DELETE FROM {schema}.chunks WHERE {col} = ANY(%s)", col=col), [ids])

    def _ensure_vectors(self, conn, dim: int) -> None:
        from psycopg import sql

        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        conn.execute(self.sql(VECTORS, dim=sql.Literal(int(dim))))

    def _last(self, conn) -> dict:
        row = conn.execute(
            self.sql("SELECT body FROM {schema}.manifest ORDER BY id DESC LIMIT 1")
        ).fetchone()
        return dict(row[0]) if row else {}

    def _record(self, conn, operation: str, manifest: dict) -> dict:
        counts = conn.execute(
            self.sql(
                "SELECT (SELECT count(*) FROM {schema}.documents), count(*), "
                "coalesce(array_agg(DISTINCT granularity), '{{}}'), "
                "count(*) FILTER (WHERE granularity = 'section') FROM {schema}.chunks"
            )
        ).fetchone()
        body = {
            **{k: v for k, v in manifest.items() if k not in ("doc_ids",)},
            "backend": "postgres",
            "documents": counts[0],
            "chunks": counts[1],
            "sections": counts[3],
            "granularities": [g for g in ("section", "child", "sentence") if g in counts[2]],
        }
        if "doc_ids" in manifest:
            body["doc_ids"] = manifest["doc_ids"][:1000]
        conn.execute(
            self.sql("INSERT INTO {schema}.manifest (operation, body) VALUES (%s, %s)"),
            [operation, json.dumps(body, default=str)],
        )
        # Fresh statistics, or the planner keeps the sizes of an empty table (no GIN lookups).
        for table in ("chunks", "documents", "terms"):
            conn.execute(self.sql("ANALYZE {schema}.{table}", table=_ident(table)))
        self._cache.clear()
        return body


def _fingerprints(chunks: pa.Table) -> list[str]:
    rows = chunks.select(list(CHUNK_COLUMNS)).to_pylist()
    return [
        hashlib.sha1(json.dumps(r, sort_keys=True, default=str).encode()).hexdigest() for r in rows
    ]


def _vectors(index):
    """The section vectors aligned with `index.chunks` rows (None without a model)."""
    if not getattr(index, "embedding_model", None):
        return None
    import numpy as np

    out = None
    for granularity in index.granularities():
        base = index.base("dense", granularity)
        if out is None:  # rows of no indexed granularity (parents) stay NaN: NULL vectors
            out = np.full((index.chunks.num_rows, base.vectors.shape[1]), np.nan, np.float32)
        out[base.rows] = np.asarray(base.vectors)
    return out


def _embed(chunks: pa.Table, model: str):
    """Vectors of these chunks' representation_text (parents, never searched, get none)."""
    import numpy as np

    from ..embeddings import get_embedder

    texts = chunks.column("representation_text").to_pylist()
    out = np.asarray(get_embedder(model).encode_passages(texts), dtype=np.float32)
    parents = np.asarray(chunks.column("granularity").to_pylist(), dtype=object) == "parent"
    out[parents] = np.nan
    return out


def _vector_text(vector) -> str | None:
    if vector is None or not len(vector) or vector[0] != vector[0]:  # a NaN row: no vector
        return None
    return "[" + ",".join(f"{x:.7g}" for x in vector) + "]"


def _ident(name: str):
    from psycopg import sql

    return sql.Identifier(name)


def _names(columns: Sequence[str]):
    from psycopg import sql

    return sql.SQL(", ").join(sql.Identifier(c) for c in columns)

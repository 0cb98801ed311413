"""Documents into `documents_df` and `chunks_df` (no index yet): `chunk_documents`."""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Callable
from typing import Any

import pyarrow as pa

from .base import Progress
from .chunking import ChunkOptions, chunk_document
from .describe import Describe
from .errors import IngestionError
from .schema import CHUNK_SCHEMA, DOCUMENT_SCHEMA
from .sources import RawDoc, count_documents, iter_documents


def fingerprint(raw: RawDoc) -> str:
    """What a document's chunks depend on besides the options: text, metadata, first page
    (not where it was read from: a moved file or DataFrame row is the same document)."""
    meta = json.dumps(raw.meta, sort_keys=True, default=str)
    return hashlib.sha256(
        "\x1f".join([raw.content_hash, meta, str(raw.first_page), raw.encoding]).encode()
    ).hexdigest()


def chunk_documents(
    source: Any,
    *,
    embedding_model: str | None = None,
    options: ChunkOptions | None = None,
    describe: Describe | None = None,
    encoding: str | None = None,
    progress: bool | Progress | None = None,
    skipped: list[dict] | None = None,
    select: Callable[[RawDoc], bool] | None = None,
    fingerprints: dict[str, str] | None = None,
) -> tuple[pa.Table, pa.Table]:
    """Read and chunk every document of `source` into (documents, chunks) Arrow tables.

    Args:
        source: A folder (Markdown/text files, recursively), a file, a list of files, or a
            pandas/polars DataFrame with a `text` column (optional: doc_id, title, source,
            page_start, date, parties, jurisdiction, doc_family, doc_type, language).
        embedding_model: Counts tokens with this packaged model's tokenizer and sizes parts to
            its limit; None estimates tokens from words (limit `options.max_tokens`).
        options: Chunking options (`ChunkOptions`).
        describe: Optional `describe(kind, text, title) -> str` writing the document summaries
            and piece descriptions (an LLM); extractive when None.
        encoding: Force one encoding for every file (else UTF-8 with fallbacks).
        progress: A callable, called as `progress("chunking", done, total)` per document
            (the caller draws the bar); True/None: a bar on stderr when it is a terminal
            (None: for 200+ documents only); False: none.
        skipped: A list that receives one dict per skipped file or fallback.
        select: Chunk only the documents for which `select(raw)` is true (an update skips
            the unchanged ones); the others are still read, so none is lost unseen.
        fingerprints: A dict that receives `fingerprint(raw)` per chunked document id.

    Raises:
        IngestionError: a path that does not exist, a DataFrame without `text`, or no
            readable document at all.
    """
    options = options or ChunkOptions()
    if embedding_model is not None:
        from .embeddings import get_embedder

        embedder = get_embedder(embedding_model)
        count = embedder.count_tokens
        if options.max_tokens != embedder.max_tokens:
            options = ChunkOptions(**{**options.__dict__, "max_tokens": embedder.max_tokens})
    else:
        from .embeddings import approximate_tokens as count
    skipped = skipped if skipped is not None else []
    docs, rows, read = [], [], 0
    items = iter_documents(source, encoding=encoding, skipped=skipped)
    if callable(progress):
        items = _reported(items, progress, count_documents(source))
    else:
        items = _progress(items, source, progress)
    for raw in items:
        read += 1
        if select is not None and not select(raw):
            continue
        record, chunk_rows = chunk_document(raw, count, options, describe)
        docs.append(record)
        rows += chunk_rows
        if fingerprints is not None:
            fingerprints[raw.doc_id] = fingerprint(raw)
    if not read:
        reasons = "; ".join(f"{s['source']}: {s['reason']}" for s in skipped[:5])
        raise IngestionError(
            _name(source), "no readable document" + (f" ({reasons})" if reasons else "")
        )
    return (
        pa.Table.from_pylist(docs, schema=DOCUMENT_SCHEMA),
        pa.Table.from_pylist(rows, schema=CHUNK_SCHEMA),
    )


def _name(source: Any) -> str:
    return str(source) if not hasattr(source, "columns") else "documents DataFrame"


def _reported(items, report: Progress, total: int):
    report("chunking", 0, total)
    done = 0
    for raw in items:
        yield raw
        done += 1
        report("chunking", min(done, total), total)
    report("chunking", total, total)  # skipped files are done too


def _progress(items, source: Any, progress: bool | None):
    # A bar is for a person watching a terminal; redirected output gets none, even when the
    # command line asked for progress (its own summary line says what was done).
    if progress is False or not sys.stderr.isatty():
        return items
    if progress is None:
        total = len(source) if hasattr(source, "columns") else None
        if total is not None and total < 200:
            return items
    from tqdm import tqdm

    return tqdm(items, unit="doc", desc="chunking", file=sys.stderr)

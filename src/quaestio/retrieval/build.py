"""`build_index` and `open_index`: documents to an `Index`, and an index folder back."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pyarrow as pa

from .base import Progress, rows_of
from .chunking import ChunkOptions
from .describe import Describe
from .index import FORMAT_VERSION, INDEXED, Index, model_probe
from .ingest import chunk_documents
from .storage import MARKER, read_index


def build_index(
    source: Any,
    path: str | os.PathLike | None = None,
    *,
    embedding_model: str | None = "all-MiniLM-L6-v2",
    parent_child: bool = True,
    sentence_window: int = 0,
    safety_margin: float = 0.1,
    min_tokens: int = 48,
    overlap: int = 32,
    child_tokens: int = 300,
    describe: Describe | None = None,
    encoding: str | None = None,
    progress: bool | Progress | None = None,
) -> Index:
    """Chunk `source` and index it with bm25 (and dense vectors when `embedding_model`).

    Args:
        source: A folder of Markdown/text files, a file, a list of files, or a DataFrame of
            documents with a `text` column (see `chunk_documents`).
        path: Where to write the index (atomically); in memory only when None.
        embedding_model: A packaged model (`EMBEDDING_MODELS`, alias "minilm"); None builds
            a bm25-only index, without torch.
        parent_child: Also store whole sections apart and index small children of them.
        sentence_window: > 0 also indexes single sentences, delivered with this many
            neighbours on each side.
        safety_margin: Share of the model's token limit kept free (`ChunkOptions`).
        min_tokens: Subsections shorter than this merge into their parent (`ChunkOptions`).
        overlap: Tokens shared by consecutive parts of a split section (`ChunkOptions`).
        child_tokens: Size of the children searched by the parent backend (`ChunkOptions`).
        describe: `describe(kind, text, title) -> str` for LLM-written summaries and
            descriptions; extractive when None.
        encoding: Force one file encoding.
        progress: A callable, called as `progress(stage, done, total)` while documents
            are chunked ("chunking") and the vectors encoded ("embedding", all
            granularities in one total), for the caller's bar; True: a bar of the
            chunking on stderr when it is a terminal.

    Returns:
        The `Index` (also written to `path` when given).

    Examples:
        >>> index = build_index("examples/corpus", embedding_model=None)
        >>> index.chunks.num_rows > 0
        True
    """
    options = ChunkOptions(
        safety_margin=safety_margin,
        min_tokens=min_tokens,
        overlap=overlap,
        parent_child=parent_child,
        child_tokens=child_tokens,
        sentence_window=sentence_window,
    )
    skipped: list[dict] = []
    fingerprints: dict[str, str] = {}
    documents, chunks = chunk_documents(
        source,
        embedding_model=embedding_model,
        options=options,
        describe=describe,
        encoding=encoding,
        progress=progress,
        skipped=skipped,
        fingerprints=fingerprints,
    )
    index = Index(
        documents,
        chunks,
        new_manifest(documents, chunks, options, embedding_model, skipped, describe, fingerprints),
    )
    fit(index, progress if callable(progress) else None)
    if path is not None:
        index.save(path)
    return index


def new_manifest(
    documents: pa.Table,
    chunks: pa.Table,
    options: ChunkOptions,
    embedding_model: str | None,
    skipped: list[dict],
    describe: Describe | None,
    fingerprints: dict[str, str],
) -> dict:
    """The manifest of an index of these tables (the file list is added when written)."""
    present = set(chunks.column("granularity").to_pylist())
    model = _model_entry(embedding_model)
    return {
        "format": MARKER,
        "format_version": FORMAT_VERSION,
        "quaestio_version": _version(),
        "embedding_model": model,
        "chunk_options": dict(options.__dict__),
        "granularities": [g for g in INDEXED if g in present],
        "documents": documents.num_rows,
        "chunks": chunks.num_rows,
        "skipped": skipped,
        "described_by": "callable" if describe else "extractive",
        "bm25": {"k1": 1.5, "b": 0.75, "method": "lucene"},
        "model_probe": [round(float(x), 6) for x in model_probe(model["name"])] if model else None,
        "updates": [],
        # Per document, what its chunks were made from (`ingest.fingerprint`): an update
        # re-chunks a document only when this changes.
        "fingerprints": fingerprints,
    }


def fit(index: Index, progress: Progress | None = None) -> None:
    """Fit every backend now: a failure must stop the build, not the first search.
    `progress("embedding", done, total)` counts the vectors of every granularity."""
    granularities = index.granularities()
    for granularity in granularities:
        index.base("bm25", granularity)
    if not index.embedding_model:
        return
    if progress is None:
        for granularity in granularities:
            index.base("dense", granularity)
        return
    sizes = [len(rows_of(index.chunks, g)) for g in granularities]
    total = sum(sizes)

    def after(before: int) -> Progress:  # one granularity's count, shifted into the total
        return lambda stage, done, _: progress(stage, before + done, total)

    for n, granularity in enumerate(granularities):
        index.base("dense", granularity, progress=after(sum(sizes[:n])))


def open_index(path: str | os.PathLike) -> Index:
    """Open an index folder written by `build_index`, checked whole (`storage`).

    Every file is read once: its size and sha256 must match the manifest, and its shape the
    index (row counts, vector dimension, finite values, schemas). The data stay in memory
    (vectors memory-mapped), so an update swapped in meanwhile does not change this index.

    Raises:
        IndexFormatError: the folder is not an index, or a file is missing, damaged, from
            another index or of the wrong shape; the message names the file.
    """
    folder = Path(path)
    documents, chunks, manifest, stored = read_index(folder)
    index = Index(documents, chunks, manifest, folder, stored)
    # Decompressing Parquet leaves freed buffers in Arrow's allocator; hand them back, so a
    # service holds the tables and not their read scratch (-200 MB RSS at 109k chunks).
    pa.default_memory_pool().release_unused()
    return index


def _model_entry(name: str | None) -> dict | None:
    if name is None:
        return None
    from .embeddings import embedding_identity, resolve

    spec = resolve(name)
    return {
        "name": spec.name,
        "package": spec.distribution,
        "dim": spec.dim,
        "max_tokens": spec.max_tokens,
        **embedding_identity(spec.name),
    }


def _version() -> str:
    from .. import __version__

    return __version__

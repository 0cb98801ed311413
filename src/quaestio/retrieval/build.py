"""`build_index` and `open_index`: documents to an `Index`, and an index folder back."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from .chunking import ChunkOptions
from .describe import Describe
from .errors import IndexFormatError
from .index import FORMAT_VERSION, INDEXED, Index
from .ingest import chunk_documents


def build_index(source: Any, path: str | os.PathLike | None = None, *,
                embedding_model: str | None = "all-MiniLM-L6-v2", parent_child: bool = True,
                sentence_window: int = 0, safety_margin: float = 0.1, min_tokens: int = 48,
                overlap: int = 32, child_tokens: int = 300, describe: Describe | None = None,
                encoding: str | None = None, progress: bool | None = None) -> Index:
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
        safety_margin, min_tokens, overlap, child_tokens: Chunking options (`ChunkOptions`).
        describe: `describe(kind, text, title) -> str` for LLM-written summaries and
            descriptions; extractive when None.
        encoding: Force one file encoding. progress: Show a progress bar.

    Returns:
        The `Index` (also written to `path` when given).

    Examples:
        >>> index = build_index("examples/corpus", embedding_model=None)
        >>> index.chunks.num_rows > 0
        True
    """
    options = ChunkOptions(safety_margin=safety_margin, min_tokens=min_tokens, overlap=overlap,
                           parent_child=parent_child, child_tokens=child_tokens,
                           sentence_window=sentence_window)
    skipped: list[dict] = []
    documents, chunks = chunk_documents(source, embedding_model=embedding_model,
                                        options=options, describe=describe, encoding=encoding,
                                        progress=progress, skipped=skipped)
    present = set(chunks.column("granularity").to_pylist())
    manifest = {
        "format_version": FORMAT_VERSION, "quaestio_version": _version(),
        "embedding_model": _model_entry(embedding_model), "chunk_options": options.__dict__,
        "granularities": [g for g in INDEXED if g in present],
        "documents": documents.num_rows, "chunks": chunks.num_rows, "skipped": skipped,
        "described_by": "callable" if describe else "extractive",
    }
    index = Index(documents, chunks, manifest)
    for granularity in manifest["granularities"]:  # fit now: a failure must stop the build
        index.base("bm25", granularity)
        if embedding_model:
            index.base("dense", granularity)
    if path is not None:
        index.save(path)
    return index


def open_index(path: str | os.PathLike) -> Index:
    """Open an index folder written by `build_index`; backends load on first use."""
    folder = Path(path)
    manifest_path = folder / "manifest.json"
    if not manifest_path.exists():
        raise IndexFormatError(f"{folder} is not a quaestio index (no manifest.json); "
                               f"build one with: quaestio index DOCS_DIR -o {folder}")
    manifest = json.loads(manifest_path.read_text())
    if manifest.get("format_version") != FORMAT_VERSION:
        raise IndexFormatError(f"{folder}: index format {manifest.get('format_version')!r}, "
                               f"this quaestio reads {FORMAT_VERSION}; rebuild the index")
    index = Index(pq.read_table(folder / "documents.parquet"),
                  pq.read_table(folder / "chunks.parquet"), manifest, folder)
    # Decompressing Parquet leaves freed buffers in Arrow's allocator; hand them back, so a
    # service holds the tables and not their read scratch (-200 MB RSS at 109k chunks).
    pa.default_memory_pool().release_unused()
    return index


def _model_entry(name: str | None) -> dict | None:
    if name is None:
        return None
    from .embeddings import embedding_identity, resolve

    spec = resolve(name)
    return {"name": spec.name, "package": spec.distribution, "dim": spec.dim,
            "max_tokens": spec.max_tokens, **embedding_identity(spec.name)}


def _version() -> str:
    from .. import __version__

    return __version__

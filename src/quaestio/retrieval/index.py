"""`Index`: chunks, documents, the manifest and the fitted backends.

On disk an index is a folder (`storage`): `manifest.json` (marker, format, embedding model of
every vector, chunking options, skipped files, updates, and the sha256 and size of every
other file), `documents.parquet`, `chunks.parquet`, one BM25 matrix and one vector file per
indexed granularity. It is written to a temporary sibling folder and swapped in only when
complete, so a failed build never leaves a corrupt index, and checked whole when opened.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa

from .errors import EmbeddingModelMismatch, IndexFormatError
from .storage import FORMAT_VERSION, INDEXED, write_index

if TYPE_CHECKING:
    from .base import Progress

__all__ = ["FORMAT_VERSION", "INDEXED", "Index", "PROBE", "model_probe"]

# Embedded at build time and again when the vectors are first queried: a manifest that names
# another model of the same dimension gives another vector, and is refused.
PROBE = "quaestio embedding model probe: the annual premium is due on 1 March."


class Index:
    """A built index. Use `retriever(name, **options)` for a backend bound to it."""

    def __init__(
        self,
        documents: pa.Table,
        chunks: pa.Table,
        manifest: dict,
        path: Path | None = None,
        stored: dict | None = None,
    ):
        self.documents, self.chunks, self.manifest, self.path = documents, chunks, manifest, path
        self._base: dict[tuple[str, str], Any] = {}
        # Arrays read from the folder at open (bm25 matrices, vectors), by (kind, granularity).
        self._stored: dict[tuple[str, str], Any] = dict(stored or {})

    @property
    def embedding_model(self) -> str | None:
        model = self.manifest.get("embedding_model")
        return model["name"] if model else None

    def granularities(self) -> list[str]:
        return self.manifest["granularities"]

    def check_model(self, model: str | None) -> str:
        """The model to query the vectors with; raises if it is not the one that made them."""
        from .embeddings import resolve

        if model is not None:
            model = resolve(model).name
        if self.embedding_model is None or (model and model != self.embedding_model):
            raise EmbeddingModelMismatch(self.embedding_model, model or "a dense backend")
        return self.embedding_model

    def base(
        self,
        kind: str,
        granularity: str = "section",
        model: str | None = None,
        *,
        progress: Progress | None = None,
    ):
        """The fitted bm25 or dense backend of one granularity (loaded from disk once);
        `progress` hears how far the dense vectors are when they are encoded now."""
        if granularity not in self.granularities():
            raise IndexFormatError(
                f"this index has no {granularity!r} chunks (it has "
                f"{', '.join(self.granularities())}); rebuild it with "
                f"{'parent_child=True' if granularity == 'child' else 'sentence_window=2'}"
            )
        if kind == "dense":
            model = self.check_model(model)
        key = (kind, granularity)
        if key not in self._base:
            backend = _new(kind, granularity, model, progress)
            if key in self._stored:
                backend.restore(self._stored[key], self.chunks)
                if kind == "dense":
                    self._check_probe(backend)
                del self._stored[key]
            else:
                backend.index(self.chunks)
            self._base[key] = backend
        return self._base[key]

    def _check_probe(self, backend) -> None:
        """The vectors must be the named model's: the fixed probe passage and the first
        stored chunk, embedded now, must give the vectors the index holds."""
        stored = self.manifest.get("model_probe")
        pairs = []
        if stored is not None:
            pairs.append((np.asarray(stored, dtype=np.float32), PROBE))
        if len(backend.rows):
            first = self.chunks.column("representation_text")[int(backend.rows[0])].as_py()
            pairs.append((np.asarray(backend.vectors[0], dtype=np.float32), first or ""))
        if not pairs:
            return
        now = backend.embedder.encode_passages([text for _, text in pairs])
        if any(float(np.dot(v, n)) < 0.98 for (v, _), n in zip(pairs, now)):
            raise IndexFormatError(
                f"{self.path or 'index'}/manifest.json: names embedding model "
                f"{self.embedding_model!r}, but the vectors were made by another model "
                f"(re-embedding the probe and the first chunk gives other vectors); "
                f"rebuild the index"
            )

    def retriever(self, name: str, **options):
        """A backend from the registry (`list_backends()`), bound to this index."""
        from .registry import get_backend

        return get_backend(name, self, **options)

    def save(self, path: str | os.PathLike) -> Path:
        """Write the index to `path` (atomically: temporary folder, then swap). An existing
        folder is replaced only if it is a quaestio index holding nothing else."""
        target = Path(path)
        write_index(self, target)
        self.path = target
        return target


def model_probe(model: str) -> np.ndarray:
    """The normalised vector `model` gives the fixed `PROBE` passage."""
    from .embeddings import get_embedder

    return get_embedder(model).encode_passages([PROBE])[0]


def _new(kind: str, granularity: str, model: str | None, progress: Progress | None = None):
    if kind == "bm25":
        from .bm25 import BM25Backend

        return BM25Backend(granularity=granularity)
    from .dense import DenseBackend

    return DenseBackend(granularity=granularity, model=model, progress=progress)

"""`Index`: chunks, documents, the manifest and the fitted backends.

On disk an index is a folder: `manifest.json` (format, embedding model of every vector,
chunking options, skipped files), `documents.parquet`, `chunks.parquet`, one bm25s folder and
one vector file per indexed granularity. It is written to a temporary sibling folder and
swapped in only when complete, so a failed build never leaves a corrupt index.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from .errors import EmbeddingModelMismatch, IndexFormatError

FORMAT_VERSION = 1
INDEXED = ("section", "child", "sentence")


class Index:
    """A built index. Use `retriever(name, **options)` for a backend bound to it."""

    def __init__(self, documents: pa.Table, chunks: pa.Table, manifest: dict,
                 path: Path | None = None):
        self.documents, self.chunks, self.manifest, self.path = documents, chunks, manifest, path
        self._base: dict[tuple[str, str], Any] = {}

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

    def base(self, kind: str, granularity: str = "section", model: str | None = None):
        """The fitted bm25 or dense backend of one granularity (loaded from disk once)."""
        if granularity not in self.granularities():
            raise IndexFormatError(f"this index has no {granularity!r} chunks (it has "
                                   f"{', '.join(self.granularities())}); rebuild it with "
                                   f"{'parent_child=True' if granularity == 'child' else 'sentence_window=2'}")
        if kind == "dense":
            model = self.check_model(model)
        key = (kind, granularity)
        if key not in self._base:
            backend = _new(kind, granularity, model)
            stored = self.path / f"{kind}.{granularity}{'.npy' if kind == 'dense' else ''}" \
                if self.path else None
            if stored is not None and stored.exists():
                backend.load(stored, self.chunks)
            else:
                backend.index(self.chunks)
            self._base[key] = backend
        return self._base[key]

    def retriever(self, name: str, **options):
        """A backend from the registry (`list_backends()`), bound to this index."""
        from .registry import get_backend

        return get_backend(name, self, **options)

    def save(self, path: str | os.PathLike) -> Path:
        """Write the index to `path` (atomically: temporary folder, then swap)."""
        target = Path(path)
        if target.exists() and any(target.iterdir()) and not (target / "manifest.json").exists():
            raise IndexFormatError(f"{target} exists and is not a quaestio index; "
                                   f"refusing to replace it")
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.tmp-", dir=target.parent))
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o777 & ~umask)  # mkdtemp makes it private; an index is a plain folder
        try:
            pq.write_table(self.documents, tmp / "documents.parquet")
            pq.write_table(self.chunks, tmp / "chunks.parquet")
            for granularity in self.granularities():
                self.base("bm25", granularity).save(tmp / f"bm25.{granularity}")
                if self.embedding_model:
                    self.base("dense", granularity).save(tmp / f"dense.{granularity}.npy")
            (tmp / "manifest.json").write_text(json.dumps(self.manifest, indent=2, default=str))
            _swap(tmp, target)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        self.path = target
        return target


def _new(kind: str, granularity: str, model: str | None):
    if kind == "bm25":
        from .bm25 import BM25Backend

        return BM25Backend(granularity=granularity)
    from .dense import DenseBackend

    return DenseBackend(granularity=granularity, model=model)


def _swap(tmp: Path, target: Path) -> None:
    old = None
    if target.exists():
        old = target.with_name(f".{target.name}.old-{os.getpid()}")
        os.replace(target, old)
    os.replace(tmp, target)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)

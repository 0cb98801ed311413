"""`Index`: chunks, documents, the manifest and the fitted backends; `build_index`, `open_index`.

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

from .chunking import ChunkOptions
from .describe import Describe
from .errors import EmbeddingModelMismatch, IndexFormatError
from .ingest import chunk_documents

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
    return Index(pq.read_table(folder / "documents.parquet"),
                 pq.read_table(folder / "chunks.parquet"), manifest, folder)


def _model_entry(name: str | None) -> dict | None:
    if name is None:
        return None
    from .embeddings import resolve

    spec = resolve(name)
    return {"name": spec.name, "package": spec.distribution, "dim": spec.dim,
            "max_tokens": spec.max_tokens}


def _version() -> str:
    from .. import __version__

    return __version__

"""Retrieval: ingest documents into dual-field chunks, index them, and serve question_df.

    >>> from quaestio.retrieval import build_index, search
    >>> index = build_index("examples/corpus", "my_index/")        # doctest: +SKIP
    >>> search(index, "What is the annual premium?", k=3)           # doctest: +SKIP

Heavy dependencies (bm25s, numba, sentence-transformers) load only when a backend needs
them; without them a clear error names `pip install 'quaestio[retrieval]'`.
"""

from .api import search
from .base import Backend, Hit, Retriever
from .build import build_index, open_index
from .chunking import ChunkOptions
from .dispatch import dispatch
from .embeddings import EMBEDDING_MODELS, get_embedder
from .errors import (
    BackendUnavailable,
    EmbeddingModelMismatch,
    HydeNotConfigured,
    IndexFormatError,
    IndexUpdateError,
    IngestionError,
    IngestionWarning,
    RetrievalError,
)
from .funnel import Funnel
from .hybrid import rrf
from .index import Index
from .ingest import chunk_documents
from .registry import get_backend, list_backends, register_backend
from .schema import CHUNK_SCHEMA, DOCUMENT_SCHEMA, HITS_SCHEMA
from .update import add_documents, remove_documents, sync_documents, update_documents

__all__ = [
    "CHUNK_SCHEMA",
    "DOCUMENT_SCHEMA",
    "EMBEDDING_MODELS",
    "HITS_SCHEMA",
    "Backend",
    "BackendUnavailable",
    "ChunkOptions",
    "EmbeddingModelMismatch",
    "Funnel",
    "Hit",
    "HydeNotConfigured",
    "Index",
    "IndexFormatError",
    "IndexUpdateError",
    "IngestionError",
    "IngestionWarning",
    "RetrievalError",
    "Retriever",
    "add_documents",
    "build_index",
    "chunk_documents",
    "dispatch",
    "get_backend",
    "get_embedder",
    "list_backends",
    "open_index",
    "register_backend",
    "remove_documents",
    "rrf",
    "search",
    "sync_documents",
    "update_documents",
]

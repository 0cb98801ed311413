"""Errors and warnings of the retrieval side (subclasses of the quaestio tree)."""

from __future__ import annotations

from ..errors import QuaestioError, QuaestioWarning, WarningCode

INSTALL_HINT = "Install it with: pip install 'quaestio[retrieval]'"


class RetrievalError(QuaestioError):
    """Base class of retrieval errors."""


class BackendUnavailable(RetrievalError, ImportError):
    """A backend or model needs a package that is not installed."""

    def __init__(self, what: str, package: str, extra: str = "retrieval"):
        self.what, self.package, self.extra = what, package, extra
        super().__init__(
            f"{what} needs the {package!r} package, which is not installed. "
            f"Install it with: pip install 'quaestio[{extra}]'"
        )


class IngestionError(RetrievalError, ValueError):
    """A document could not be read; names the file (or DataFrame row) and the reason."""

    def __init__(self, source: str, reason: str):
        self.source, self.reason = source, reason
        super().__init__(f"{source}: {reason}")


class IndexFormatError(RetrievalError, ValueError):
    """A folder that is not a quaestio index, or one written by an incompatible version."""


class EmbeddingModelMismatch(RetrievalError, ValueError):
    """Querying vectors with a model other than the one that embedded them."""

    def __init__(self, indexed: str | None, requested: str):
        self.indexed, self.requested = indexed, requested
        what = (
            f"was built with embedding model {indexed!r}"
            if indexed
            else "was built without embeddings (embedding_model=None)"
        )
        super().__init__(
            f"The index {what}; querying it with {requested!r} would compare vectors of "
            f"different spaces. Query with {indexed!r}, or rebuild the index with "
            f"embedding_model={requested!r}."
            if indexed
            else f"The index {what}, so it cannot be queried with {requested!r}. Rebuild it with "
            f"embedding_model={requested!r}, or use backend='bm25'."
        )


class HydeNotConfigured(RetrievalError, ValueError):
    """HyDE was asked for but no passage writer was given."""

    def __init__(self):
        super().__init__(
            "HyDE needs a passage writer: pass hyde_writer=callable(question, n) -> list[str] "
            "(an LLM client, once the LLM mode is configured), or search without hyde=True."
        )


class IngestionWarning(QuaestioWarning):
    """A document was skipped or read with a fallback; `code` says which (W3xx)."""


# Stable warning codes of ingestion: members of the one catalogue, quaestio.errors.WarningCode.
W301_EMPTY = WarningCode.W301_EMPTY_FILE
W302_BINARY = WarningCode.W302_BINARY_FILE
W303_DUPLICATE = WarningCode.W303_DUPLICATE_DOCUMENT
W304_ENCODING = WarningCode.W304_ENCODING_GUESSED


class IndexUpdateError(RetrievalError, ValueError):
    """An update that cannot apply: unknown or clashing document ids, options that differ
    from the index's, or an index changed by another update meanwhile."""

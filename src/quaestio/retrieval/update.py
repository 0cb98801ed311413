"""Indexes that change in place: `add_documents`, `remove_documents`, `update_documents`
(by document id) and `sync_documents` (the index made equal to a source, as `quaestio index
--update` does).

Each takes an `Index` (or its folder) and returns a new `Index`, written with the same
write-then-swap as a build when the index has a folder (or `path=` is given): a reader that
opened the old index keeps it whole, a reader opening afterwards gets the new one whole.
The old `Index` object is left as it was.

Unchanged work is not redone. A document whose fingerprint (text, metadata, source) is the
one the manifest recorded is not read into chunks again; its rows are copied. A chunk whose
id (stable: a hash of document, position and text) and embedded text are unchanged keeps its
vector: only new or changed chunks are embedded. BM25 is refitted over all rows, since
document frequencies are global; that is what keeps the search results equal to a full
rebuild of the same documents in the same order. The manifest's `updates` list records each
update (when, what, how many chunks were embedded and reused).
"""

from __future__ import annotations

import datetime as dt
import fcntl
import json
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from .base import Progress, rows_of
from .chunking import ChunkOptions
from .describe import Describe
from .errors import IndexUpdateError
from .index import INDEXED, Index
from .ingest import chunk_documents, fingerprint
from .schema import CHUNK_SCHEMA, DOCUMENT_SCHEMA
from .storage import MAX_MANIFEST_BYTES

_LISTED = 50  # document ids written per update record; the counts are always complete


def add_documents(
    index: Index | str | os.PathLike,
    source: Any,
    *,
    path: str | os.PathLike | None = None,
    describe: Describe | None = None,
    encoding: str | None = None,
    progress: bool | Progress | None = None,
) -> Index:
    """Add the documents of `source` (new document ids) after the index's documents.

    Args:
        index: An `Index` or the folder of one.
        source: What `build_index` reads: a folder, a file, a list of files, or a DataFrame
            with a `text` column (and `doc_id`).
        path: Where to write the result; by default the index's own folder (none for an
            index only in memory).
        describe: The summary writer, required when the index was built with one.
        encoding: As for `build_index`.
        progress: As for `build_index`.

    Returns:
        The new `Index`.

    Raises:
        IndexUpdateError: a document id the index already holds (use `update_documents`).
    """
    old, target = _open(index, path)
    known = set(old.documents.column("doc_id").to_pylist())
    clash: list[str] = []

    def select(raw) -> bool:
        if raw.doc_id in known:
            clash.append(raw.doc_id)
        return True

    new = _chunk(old, source, select, describe, encoding, progress)
    if clash:
        raise IndexUpdateError(
            f"add_documents: {_ids(clash)} already in the index; use "
            f"update_documents to replace them"
        )
    order = [*known_order(old), *new.ids]
    return _apply(old, new, order, "add", target, progress=_callback(progress))


def update_documents(
    index: Index | str | os.PathLike,
    source: Any,
    *,
    path: str | os.PathLike | None = None,
    describe: Describe | None = None,
    encoding: str | None = None,
    progress: bool | Progress | None = None,
) -> Index:
    """Replace the documents of `source`, by document id, where they stand in the index.

    A document whose fingerprint did not change is left as it is; in a changed one, the
    chunks whose id and text did not change keep their vectors. Arguments as for
    `add_documents`.

    Raises:
        IndexUpdateError: a document id the index does not hold (use `add_documents`).
    """
    old, target = _open(index, path)
    known = set(old.documents.column("doc_id").to_pylist())
    prints = old.manifest.get("fingerprints") or {}
    unknown: list[str] = []
    seen: dict[str, str] = {}

    def select(raw) -> bool:
        if raw.doc_id not in known:
            unknown.append(raw.doc_id)
        seen[raw.doc_id] = raw.source
        return prints.get(raw.doc_id) != fingerprint(raw)

    new = _chunk(old, source, select, describe, encoding, progress)
    if unknown:
        raise IndexUpdateError(
            f"update_documents: {_ids(unknown)} not in the index; use "
            f"add_documents for new documents"
        )
    return _apply(
        old,
        new,
        known_order(old),
        "update",
        target,
        unchanged=len(seen) - len(new.ids),
        sources=seen,
        progress=_callback(progress),
    )


def remove_documents(
    index: Index | str | os.PathLike,
    doc_ids: Iterable[str],
    *,
    path: str | os.PathLike | None = None,
) -> Index:
    """Remove documents (and all their chunks) by id.

    Raises:
        IndexUpdateError: a document id the index does not hold.
    """
    old, target = _open(index, path)
    doc_ids = [doc_ids] if isinstance(doc_ids, str) else list(doc_ids)
    order = known_order(old)
    unknown = sorted(set(doc_ids) - set(order))
    if unknown:
        raise IndexUpdateError(f"remove_documents: {_ids(unknown)} not in the index")
    gone = set(doc_ids)
    return _apply(old, _Chunked.empty(), [d for d in order if d not in gone], "remove", target)


def sync_documents(
    index: Index | str | os.PathLike,
    source: Any,
    *,
    path: str | os.PathLike | None = None,
    describe: Describe | None = None,
    encoding: str | None = None,
    progress: bool | Progress | None = None,
) -> Index:
    """Make the index hold exactly the documents of `source`, in its order: new ones
    added, changed ones re-chunked, missing ones removed, unchanged ones kept as they are.
    The result searches like `build_index(source)`. Arguments as for `add_documents`."""
    old, target = _open(index, path)
    prints = old.manifest.get("fingerprints") or {}
    seen: dict[str, str] = {}

    def select(raw) -> bool:
        seen[raw.doc_id] = raw.source
        return prints.get(raw.doc_id) != fingerprint(raw)

    new = _chunk(old, source, select, describe, encoding, progress)
    return _apply(
        old,
        new,
        list(seen),
        "sync",
        target,
        unchanged=len(seen) - len(new.ids),
        sources=seen,
        progress=_callback(progress),
    )


# --- the shared steps ------------------------------------------------------------------


class _Chunked:
    def __init__(self, documents: pa.Table, chunks: pa.Table, prints: dict, skipped: list):
        self.documents, self.chunks, self.prints, self.skipped = documents, chunks, prints, skipped
        self.ids = documents.column("doc_id").to_pylist()

    @classmethod
    def empty(cls) -> _Chunked:
        return cls(DOCUMENT_SCHEMA.empty_table(), CHUNK_SCHEMA.empty_table(), {}, [])


def known_order(index: Index) -> list[str]:
    return index.documents.column("doc_id").to_pylist()


def _ids(ids: list[str]) -> str:
    return ", ".join(repr(i) for i in ids[:5]) + (
        f" (+{len(ids) - 5} more)" if len(ids) > 5 else ""
    )


def _open(index, path) -> tuple[Index, Path | None]:
    if not isinstance(index, Index):
        from .build import open_index

        index = open_index(index)
    target = Path(path) if path is not None else index.path
    return index, target


def _chunk(old: Index, source, select, describe, encoding, progress) -> _Chunked:
    manifest = old.manifest
    if manifest.get("described_by") == "callable" and describe is None:
        raise IndexUpdateError(
            "this index's summaries were written by a describe callable; "
            "pass the same describe= so new chunks are written alike"
        )
    prints: dict[str, str] = {}
    skipped: list[dict] = []
    documents, chunks = chunk_documents(
        source,
        embedding_model=old.embedding_model,
        options=ChunkOptions(**manifest["chunk_options"]),
        describe=describe,
        encoding=encoding,
        progress=progress,
        skipped=skipped,
        select=select,
        fingerprints=prints,
    )
    return _Chunked(documents, chunks, prints, skipped)


def _callback(progress: bool | Progress | None) -> Progress | None:
    """The caller's `progress(stage, done, total)`, which also counts the embedding; a
    bool only asks for the chunking bar of `chunk_documents`."""
    return progress if callable(progress) else None


def _grouped(ids: list[str], offset: int = 0) -> dict[str, list[int]]:
    rows: dict[str, list[int]] = {}
    for i, doc in enumerate(ids):
        rows.setdefault(doc, []).append(i + offset)
    return rows


def _apply(
    old: Index,
    new: _Chunked,
    order: list[str],
    operation: str,
    target: Path | None,
    *,
    unchanged: int | None = None,
    sources: dict[str, str] | None = None,
    progress: Progress | None = None,
) -> Index:
    plain = lambda t: t.replace_schema_metadata(None)  # noqa: E731
    n_old_docs, n_old_chunks = old.documents.num_rows, old.chunks.num_rows
    doc_row = {d: i for i, d in enumerate(known_order(old))}
    doc_row.update({d: n_old_docs + i for i, d in enumerate(new.ids)})
    documents = pa.concat_tables([plain(old.documents), plain(new.documents)]).take(
        pa.array([doc_row[d] for d in order], pa.int64())
    )
    if sources:  # an unchanged document read from elsewhere now: its record says where
        at = documents.schema.get_field_index("source")
        current = documents.column("source").to_pylist()
        documents = documents.set_column(
            at,
            "source",
            pa.array([sources.get(d, s) for d, s in zip(order, current)], pa.string()),
        )
    old_rows = _grouped(old.chunks.column("doc_id").to_pylist())
    new_rows = _grouped(new.chunks.column("doc_id").to_pylist(), n_old_chunks)
    fresh = set(new.ids)
    take = [r for d in order for r in (new_rows if d in fresh else old_rows).get(d, ())]
    chunks = pa.concat_tables([plain(old.chunks), plain(new.chunks)]).take(
        pa.array(take, pa.int64())
    )
    present = set(chunks.column("granularity").to_pylist())
    manifest = {k: v for k, v in old.manifest.items() if k not in ("files", "digest", "rows")}
    manifest["granularities"] = [g for g in INDEXED if g in present]
    manifest["documents"], manifest["chunks"] = documents.num_rows, chunks.num_rows
    # A sync reads the whole source again: its skipped files replace the old list.
    manifest["skipped"] = (
        new.skipped
        if operation == "sync"
        else list(old.manifest.get("skipped") or []) + new.skipped
    )
    prints = {d: p for d, p in (old.manifest.get("fingerprints") or {}).items()}
    prints.update(new.prints)
    kept = set(order)
    manifest["fingerprints"] = {d: p for d, p in prints.items() if d in kept}
    from .build import _version

    manifest["quaestio_version"] = _version()
    index = Index(documents, chunks, manifest)
    embedded, reused = _fit(old, index, progress)
    before, after = set(known_order(old)), kept
    record: dict[str, Any] = {
        "at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "operation": operation,
        "added": sorted(fresh - before),
        "updated": sorted(fresh & before),
        "removed": sorted(before - after),
    }
    counts = {f"n_{k}": len(v) for k, v in record.items() if isinstance(v, list)}
    record = {k: v[:_LISTED] if isinstance(v, list) else v for k, v in record.items()}
    record.update(
        counts,
        n_unchanged=len(after - fresh) if unchanged is None else unchanged,
        chunks_embedded=embedded,
        chunks_reused=reused,
    )
    manifest["updates"] = list(old.manifest.get("updates") or []) + [record]
    if target is not None:
        _write(index, old, Path(target))
    return index


def _fit(old: Index, index: Index, progress: Progress | None = None) -> tuple[int, int]:
    """Fit the backends of the new index; vectors come from the old one where the chunk
    and its embedded text are unchanged. Returns (chunks embedded, chunks reused);
    `progress("embedding", done, total)` counts the chunks embedded, every granularity in
    one total."""
    from .bm25 import BM25Backend
    from .dense import DenseBackend

    params = old.manifest.get("bm25") or {}
    model = index.embedding_model
    for g in index.granularities():
        bm25 = BM25Backend(granularity=g, k1=params.get("k1", 1.5), b=params.get("b", 0.75))
        bm25.index(index.chunks)
        index._base[("bm25", g)] = bm25
    if not model:
        return 0, 0
    plans = [(g, *_reuse(old, index, g)) for g in index.granularities()]
    total = sum(len(todo) for *_, todo in plans)
    embedded = reused = 0
    if progress is not None and total:
        progress("embedding", 0, total)
    for g, texts, vectors, todo in plans:
        if todo:
            from .embeddings import get_embedder

            report = None if progress is None else _shifted(progress, embedded, total)
            vectors[todo] = get_embedder(model).encode_passages(
                [texts[i] for i in todo], encoded=report
            )
        embedded += len(todo)
        reused += len(texts) - len(todo)
        dense = DenseBackend(granularity=g, model=model)
        dense.restore(vectors, index.chunks)
        index._base[("dense", g)] = dense
    return embedded, reused


def _shifted(progress: Progress, before: int, total: int) -> Callable[[int], None]:
    """`encoded(n)` of one granularity as `progress("embedding", ...)` over all of them."""
    return lambda n: progress("embedding", before + n, total)


def _reuse(old: Index, index: Index, g: str) -> tuple[list[str], np.ndarray, list[int]]:
    """One granularity's embedded texts, its vectors with the old index's copied in where
    the chunk and its text are unchanged, and the positions still to embed."""
    rows = rows_of(index.chunks, g)
    ids = index.chunks.column("chunk_id").take(pa.array(rows)).to_pylist()
    texts = index.chunks.column("representation_text").take(pa.array(rows)).to_pylist()
    previous, stored = _old_vectors(old, g)
    vectors = np.empty((len(rows), old.manifest["embedding_model"]["dim"]), np.float32)
    todo, dest, src = [], [], []
    for i, (cid, text) in enumerate(zip(ids, texts)):
        at = previous.get(cid)
        if at is not None and at[0] == text:
            dest.append(i)
            src.append(at[1])
        else:
            todo.append(i)
    if dest:
        vectors[dest] = np.asarray(stored)[src]
    return texts, vectors, todo


def _old_vectors(old: Index, g: str) -> tuple[dict[str, tuple[str, int]], Any]:
    """chunk_id -> (embedded text, position) of the old index's rows of one granularity,
    and the old vectors."""
    if g not in old.granularities():
        return {}, None
    if ("dense", g) in old._base:
        vectors = old._base[("dense", g)].vectors
    elif ("dense", g) in old._stored:
        vectors = old._stored[("dense", g)]  # copied as they are; checked when queried
    else:
        vectors = old.base("dense", g).vectors
    rows = rows_of(old.chunks, g)
    ids = old.chunks.column("chunk_id").take(pa.array(rows)).to_pylist()
    texts = old.chunks.column("representation_text").take(pa.array(rows)).to_pylist()
    return {cid: (text, i) for i, (cid, text) in enumerate(zip(ids, texts))}, vectors


def _write(index: Index, old: Index, target: Path) -> None:
    """Write-then-swap, refusing to overwrite an update that landed since `old` was read."""
    target.parent.mkdir(parents=True, exist_ok=True)
    lock = os.open(target.parent, os.O_RDONLY)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one writer per parent folder at a time
        if old.path is not None and Path(old.path) == target:
            try:
                with open(target / "manifest.json", "rb") as f:
                    now = json.loads(f.read(MAX_MANIFEST_BYTES)).get("digest")
            except (OSError, ValueError):
                now = None
            if now != old.manifest.get("digest"):
                raise IndexUpdateError(
                    f"{target} changed since this update read it (another "
                    f"update?); run the update again"
                )
        index.save(target)
    finally:
        os.close(lock)

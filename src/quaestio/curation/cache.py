"""Phrase embeddings cached on disk: one store per model, keyed by a hash of the phrase text.

The store is a folder of segments (`embeddings/<model>/<time>-<pid>-<rand>.qemb`). A run that
meets new phrases appends one segment; when there are more than `MAX_SEGMENTS`, they are
merged into one (compaction), so the folder stays small however many runs there were. A
segment is one file: a header line (format, model, rows, dimension, blake2b digest of the
payload) and the payload (16-byte phrase hashes, then float16 vectors). It is written to a
temporary name and renamed, so a reader sees a whole segment or none.

A segment is used only after its header parsed, its size matched and its digest checked
(so each is read whole once); of a good segment only the rows of the phrases asked for are
kept in memory. A segment that fails is
reported (a warning), renamed aside to `*.damaged` (never deleted: the store did not
check it was its own) and its phrases are encoded again. Other files in the folder
(earlier formats, anything else) are neither read nor removed.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

from ..retrieval.base import Progress

DEFAULT_CACHE = Path(os.environ.get("QUAESTIO_CACHE", Path.home() / ".cache" / "quaestio"))
MAX_SEGMENTS = 8
_MAGIC = b"quaestio-embeddings 1 "
_SUFFIX = ".qemb"
_KEY_BYTES = 16


def cache_folder(cache_dir: str | Path | None, model: str) -> Path:
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", model)
    return Path(cache_dir or DEFAULT_CACHE) / "embeddings" / safe


def phrase_key(phrase: str) -> bytes:
    return hashlib.blake2b(
        phrase.encode("utf-8", "surrogatepass"), digest_size=_KEY_BYTES
    ).digest()


def embed_phrases(
    phrases: list[str],
    *,
    model: str = "all-MiniLM-L6-v2",
    cache_dir: str | Path | None = None,
    batch_size: int = 256,
    embedder=None,
    progress: Progress | None = None,
) -> tuple[np.ndarray, int]:
    """Normalised vectors for `phrases` (float32, one row each) and how many were encoded.

    Args:
        phrases: The texts, embedded as passages by the packaged model `model`.
        cache_dir: Root of the cache (default `$QUAESTIO_CACHE` or ~/.cache/quaestio);
            False-y paths use the default, so pass a folder to keep tests apart.
        embedder: An object with `encode_passages(texts, batch_size=)`; default
            `quaestio.retrieval.embeddings.get_embedder(model)`.
        progress: Called as `progress("embedding", done, total)` while encoding.
    """
    store = EmbeddingStore(cache_folder(cache_dir, model), model)
    wanted = {phrase_key(p): p for p in phrases}
    known = store.read(set(wanted))  # key -> float16 vector
    missing = list(dict.fromkeys(p for p in phrases if phrase_key(p) not in known))
    if missing:
        if embedder is None:
            from ..retrieval.embeddings import get_embedder

            embedder = get_embedder(model)
        parts = []
        step = batch_size * 4
        for start in range(0, len(missing), step):
            if progress is not None:
                progress("embedding", start, len(missing))
            parts.append(
                np.asarray(
                    embedder.encode_passages(missing[start : start + step], batch_size=batch_size),
                    dtype=np.float32,
                )
            )
        if progress is not None:
            progress("embedding", len(missing), len(missing))
        # Use what the cache holds (float16), so a first run and a cached re-run agree.
        vectors = np.concatenate(parts).astype(np.float16)
        keys = [phrase_key(p) for p in missing]
        store.append(keys, vectors)
        known.update(zip(keys, vectors))
    if not phrases:
        return np.zeros((0, 0), dtype=np.float32), 0
    out = np.stack([np.asarray(known[phrase_key(p)], dtype=np.float32) for p in phrases])
    out /= np.linalg.norm(out, axis=1, keepdims=True).clip(min=1e-12)
    return out, len(missing)


class EmbeddingStore:
    """The segments of one model's folder (see the module docstring)."""

    def __init__(self, folder: Path, model: str):
        self.folder = folder
        self.model = model

    def segments(self) -> list[Path]:
        return sorted(self.folder.glob(f"*{_SUFFIX}")) if self.folder.is_dir() else []

    def read(self, keys: set[bytes] | None = None) -> dict[bytes, np.ndarray]:
        """Vectors of `keys` (every key when None) from the segments that pass their checks."""
        found: dict[bytes, np.ndarray] = {}
        for path in self.segments():
            segment = self._load(path)
            if segment is None:
                continue
            names, vectors = segment
            rows = [
                (names[i * _KEY_BYTES : (i + 1) * _KEY_BYTES], i)
                for i in range(len(vectors))
                if keys is None or names[i * _KEY_BYTES : (i + 1) * _KEY_BYTES] in keys
            ]
            # A copy of the rows asked for: the segment's bytes are not kept alive.
            taken = vectors[[i for _, i in rows]].copy()
            found.update((key, taken[j]) for j, (key, _) in enumerate(rows))
        return found

    def append(self, keys: list[bytes], vectors: np.ndarray) -> None:
        """Add one segment; merge all into one when there are more than MAX_SEGMENTS."""
        try:
            self._write(keys, vectors)
            if len(self.segments()) > MAX_SEGMENTS:
                self.compact()
        except OSError as exc:  # a read-only cache costs time, not the result
            warnings.warn(f"{self.folder}: embedding cache not written ({exc})", stacklevel=3)

    def compact(self) -> None:
        """Rewrite the good segments as one (latest vector of a phrase wins), then remove
        the segments merged: files this store wrote and checked, nothing else."""
        merged: dict[bytes, np.ndarray] = {}
        done: list[Path] = []
        for path in self.segments():
            segment = self._load(path)
            if segment is None:
                continue
            names, vectors = segment
            merged.update(
                (names[i * _KEY_BYTES : (i + 1) * _KEY_BYTES], vectors[i])
                for i in range(len(vectors))
            )
            done.append(path)
        if len(done) < 2:
            return
        written = self._write(list(merged), np.stack(list(merged.values())))
        for path in done:
            if path != written:
                path.unlink(missing_ok=True)  # another process may have merged it already

    def _write(self, keys: list[bytes], vectors: np.ndarray) -> Path:
        vectors = np.ascontiguousarray(vectors, dtype=np.float16)
        payload = b"".join(keys) + vectors.tobytes()
        header = {
            "model": self.model,
            "rows": len(keys),
            "dim": int(vectors.shape[1]) if vectors.ndim == 2 else 0,
            "dtype": "float16",
            "digest": hashlib.blake2b(payload).hexdigest(),
        }
        self.folder.mkdir(parents=True, exist_ok=True)
        # Named by time, so that name order is write order: a later vector of a phrase wins.
        name = f"{time.time_ns():020d}-{os.getpid()}-{secrets.token_hex(4)}{_SUFFIX}"
        fd, tmp = tempfile.mkstemp(dir=self.folder, prefix=".", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(_MAGIC + json.dumps(header).encode() + b"\n" + payload)
            os.replace(tmp, self.folder / name)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return self.folder / name

    def _load(self, path: Path) -> tuple[bytes, np.ndarray] | None:
        """(phrase hashes, vectors) of a segment that passes every check, else None (and
        a damaged one reported and set aside)."""
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return None  # merged away by another process meanwhile
        except OSError as exc:
            warnings.warn(f"{path}: embedding cache segment unreadable ({exc})", stacklevel=4)
            return None
        why = _check(data, self.model)
        if isinstance(why, str):
            self._set_aside(path, why)
            return None
        rows, dim, start = why
        names = data[start : start + rows * _KEY_BYTES]
        vectors = np.frombuffer(data, dtype=np.float16, offset=start + rows * _KEY_BYTES)
        return names, vectors.reshape(rows, dim)

    def _set_aside(self, path: Path, why: str) -> None:
        aside = path.with_name(path.name + ".damaged")
        try:
            os.replace(path, aside)
            where = f"moved to {aside.name}"
        except OSError:
            where = "left in place"
        warnings.warn(
            f"{path}: damaged embedding cache segment ({why}); {where}, its phrases are "
            f"encoded again",
            stacklevel=5,
        )


def _check(data: bytes, model: str) -> tuple[int, int, int] | str:
    """(rows, dimension, payload offset) of a well-formed segment of `model`, or what is
    wrong with it."""
    if not data.startswith(_MAGIC):
        return "not a segment of this format"
    end = data.find(b"\n", len(_MAGIC))
    if end < 0:
        return "no header"
    try:
        header = json.loads(data[len(_MAGIC) : end])
        rows, dim, digest = int(header["rows"]), int(header["dim"]), str(header["digest"])
        stored_model = header["model"]
    except (ValueError, KeyError, TypeError):
        return "unreadable header"
    if stored_model != model or header.get("dtype") != "float16" or rows < 0 or dim < 0:
        return f"header of another kind: model {stored_model!r}"
    payload = memoryview(data)[end + 1 :]
    if len(payload) != rows * (_KEY_BYTES + 2 * dim):
        return f"{len(payload)} payload bytes, {rows * (_KEY_BYTES + 2 * dim)} expected"
    if hashlib.blake2b(payload).hexdigest() != digest:
        return "digest mismatch"
    return rows, dim, end + 1

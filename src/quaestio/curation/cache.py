"""Phrase embeddings cached on disk, keyed by model and exact phrase text.

Each run that meets new phrases adds one chunk (`NNNNN.npy` vectors in float16 + `NNNNN.txt`
phrases, one a line) to the model's folder; a re-run reads the chunks and encodes nothing it
has seen. Chunks are written to temporary names and renamed, so an interrupted run leaves no
half chunk behind.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

import numpy as np

DEFAULT_CACHE = Path(os.environ.get("QUAESTIO_CACHE", Path.home() / ".cache" / "quaestio"))


def cache_folder(cache_dir: str | Path | None, model: str) -> Path:
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", model)
    return Path(cache_dir or DEFAULT_CACHE) / "embeddings" / safe


def embed_phrases(
    phrases: list[str],
    *,
    model: str = "all-MiniLM-L6-v2",
    cache_dir: str | Path | None = None,
    batch_size: int = 256,
    embedder=None,
) -> tuple[np.ndarray, int]:
    """Normalised vectors for `phrases` (float32, one row each) and how many were encoded.

    Args:
        phrases: The texts, embedded as passages by the packaged model `model`.
        cache_dir: Root of the cache (default `$QUAESTIO_CACHE` or ~/.cache/quaestio);
            False-y paths use the default, so pass a folder to keep tests apart.
        embedder: An object with `encode_passages(texts, batch_size=)`; default
            `quaestio.retrieval.embeddings.get_embedder(model)`.
    """
    folder = cache_folder(cache_dir, model)
    known = _read(folder)
    missing = list(dict.fromkeys(p for p in phrases if p not in known))
    if missing:
        if embedder is None:
            from ..retrieval.embeddings import get_embedder

            embedder = get_embedder(model)
        vectors = np.asarray(
            embedder.encode_passages(missing, batch_size=batch_size), dtype=np.float32
        )
        _write(folder, missing, vectors)
        # Use what the cache holds (float16), so a first run and a cached re-run agree.
        known.update(zip(missing, vectors.astype(np.float16)))
    if not phrases:
        return np.zeros((0, 0), dtype=np.float32), 0
    out = np.stack([np.asarray(known[p], dtype=np.float32) for p in phrases])
    out /= np.linalg.norm(out, axis=1, keepdims=True).clip(min=1e-12)
    return out, len(missing)


def _read(folder: Path) -> dict[str, np.ndarray]:
    known: dict[str, np.ndarray] = {}
    if not folder.is_dir():
        return known
    for vec_path in sorted(folder.glob("*.npy")):
        txt = vec_path.with_suffix(".txt")
        if not txt.exists():
            continue
        names = txt.read_text(encoding="utf-8").split("\n")[:-1]
        vectors = np.load(vec_path)
        if len(names) == len(vectors):  # a chunk that does not add up is ignored
            known.update(zip(names, vectors))
    return known


def _write(folder: Path, phrases: list[str], vectors: np.ndarray) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    # Newlines would break the one-phrase-a-line index; such phrases are simply not cached.
    keep = [i for i, p in enumerate(phrases) if "\n" not in p and "\r" not in p]
    stem = f"{len(list(folder.glob('*.npy'))):05d}-{os.getpid()}"
    fd, tmp_vec = tempfile.mkstemp(dir=folder, suffix=".tmp")
    os.close(fd)
    with open(tmp_vec, "wb") as fh:
        np.save(fh, vectors[keep].astype(np.float16))
    fd, tmp_txt = tempfile.mkstemp(dir=folder, suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write("".join(phrases[i] + "\n" for i in keep))
    # The index goes in first: a vector file without its index would be skipped anyway.
    os.replace(tmp_txt, folder / f"{stem}.txt")
    os.replace(tmp_vec, folder / f"{stem}.npy")

"""The index folder on disk: written whole then swapped in, checked whole when opened.

Format 2. `manifest.json` carries the marker `"format": "quaestio-index"`, the list of every
other file with its sha256 and size, the row counts and dimensions the files must have, and
a digest of its own content. The other files are flat (no subfolders):

    documents.parquet, chunks.parquet          DOCUMENT_SCHEMA / CHUNK_SCHEMA rows
    bm25.<g>.data.npy, .indices.npy, .indptr.npy, .vocab.json
                                               one BM25 matrix (CSC, bm25s layout) per granularity
    dense.<g>.npy                              float32 (rows of <g>, model dim), finite

Opening reads every file once, hashes exactly the bytes it parses (so a file swapped under
the reader cannot mix with the manifest it read) and checks shapes: any mismatch is an
`IndexFormatError` naming the file and what is wrong. The data are held in memory (vectors
memory-mapped), so a reader keeps the index it opened while an update swaps in a new one.

Writing goes to a temporary sibling folder, swapped with the target in one step. An
existing target is replaced only when it is provably an index (its manifest carries the
marker and the folder holds nothing but the files it lists), and then only those files are
deleted: anything else is refused with the folder left as it was.
"""

from __future__ import annotations

import ctypes
import hashlib
import io
import json
import mmap
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from .errors import IndexFormatError

MARKER = "quaestio-index"
FORMAT_VERSION = 2
INDEXED = ("section", "child", "sentence")
BM25_PARTS = ("data.npy", "indices.npy", "indptr.npy", "vocab.json")
MAX_MANIFEST_BYTES = 64 << 20
_REQUIRED = {
    "format": str,
    "format_version": int,
    "granularities": list,
    "documents": int,
    "chunks": int,
    "rows": dict,
    "files": dict,
    "bm25": dict,
    "chunk_options": dict,
    "digest": str,
}


def expected_files(manifest: dict) -> list[str]:
    """The files an index with this manifest holds, manifest.json aside."""
    names = ["documents.parquet", "chunks.parquet"]
    for g in manifest["granularities"]:
        names += [f"bm25.{g}.{part}" for part in BM25_PARTS]
        if manifest.get("embedding_model"):
            names.append(f"dense.{g}.npy")
    return names


def digest(manifest: dict) -> str:
    """sha256 of the manifest's content without its own digest (canonical JSON)."""
    body = {k: v for k, v in manifest.items() if k != "digest"}
    return hashlib.sha256(json.dumps(body, sort_keys=True, default=str).encode()).hexdigest()


# --- writing ---------------------------------------------------------------------------


def write_index(index: Any, target: Path) -> None:
    """Write `index` (an `Index` with fitted backends) to `target`: temporary folder, then
    one swap. Refuses a target that is not provably an index."""
    target = Path(target)
    known = replaceable(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.tmp-", dir=target.parent))
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o777 & ~umask)  # mkdtemp makes it private; an index is a plain folder
    try:
        files = {}
        files["documents.parquet"] = _write(
            tmp, "documents.parquet", lambda f: pq.write_table(index.documents, f)
        )
        files["chunks.parquet"] = _write(
            tmp, "chunks.parquet", lambda f: pq.write_table(index.chunks, f)
        )
        for g in index.granularities():
            bm25 = index.base("bm25", g)
            for part, value in (
                ("data", bm25.data),
                ("indices", bm25.indices),
                ("indptr", bm25.indptr),
            ):
                files[f"bm25.{g}.{part}.npy"] = _write(
                    tmp, f"bm25.{g}.{part}.npy", lambda f, v=value: np.save(f, np.asarray(v))
                )
            vocab = json.dumps(bm25.vocab, ensure_ascii=False).encode()
            files[f"bm25.{g}.vocab.json"] = _write(
                tmp, f"bm25.{g}.vocab.json", lambda f, vocab=vocab: f.write(vocab)
            )
            if index.embedding_model:
                vectors = np.ascontiguousarray(index.base("dense", g).vectors, dtype=np.float32)
                files[f"dense.{g}.npy"] = _write(
                    tmp, f"dense.{g}.npy", lambda f, v=vectors: np.save(f, v)
                )
        manifest = dict(
            index.manifest,
            format=MARKER,
            format_version=FORMAT_VERSION,
            files=files,
            documents=index.documents.num_rows,
            chunks=index.chunks.num_rows,
            rows=_rows(index.chunks),
        )
        manifest.pop("digest", None)
        manifest["digest"] = digest(manifest)
        (tmp / "manifest.json").write_text(json.dumps(manifest, indent=2, default=str))
        _swap(tmp, target, known)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)  # our own temporary folder only
        raise
    index.manifest = manifest


def _write(folder: Path, name: str, write) -> dict:
    with open(folder / name, "wb") as f:
        write(f)
    data = (folder / name).read_bytes()
    return {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}


def _rows(chunks: pa.Table) -> dict[str, int]:
    values = chunks.column("granularity").to_pylist()
    return {g: values.count(g) for g in sorted(set(values), key=str)}


def replaceable(target: Path) -> list[str] | None:
    """The files of the index at `target` (None when there is nothing there); raises
    `IndexFormatError` when `target` holds anything that does not prove it is an index."""
    if not target.exists() and not target.is_symlink():
        return None
    refuse = f"{target} exists and is not a quaestio index"
    if target.is_symlink() or not target.is_dir():
        raise IndexFormatError(f"{refuse} (not a folder); refusing to replace it")
    entries = sorted(p.name for p in target.iterdir())
    if not entries:
        return []
    if "manifest.json" not in entries:
        raise IndexFormatError(
            f"{refuse} (no manifest.json); refusing to replace it: choose another folder"
        )
    try:
        manifest = json.loads((target / "manifest.json").read_bytes()[:MAX_MANIFEST_BYTES])
        files = list(manifest["files"]) if manifest.get("format") == MARKER else None
    except (ValueError, KeyError, TypeError, OSError):
        files = None
    if files is None:
        raise IndexFormatError(
            f"{refuse} (its manifest.json has no quaestio index marker); "
            f"refusing to replace it: choose another folder"
        )
    allowed = set(files) | {"manifest.json"}
    extra = [
        e
        for e in entries
        if e not in allowed or not (target / e).is_file() or (target / e).is_symlink()
    ]
    if extra:
        raise IndexFormatError(
            f"{target} holds files that are not part of its index "
            f"({', '.join(extra[:5])}{', ...' if len(extra) > 5 else ''}); "
            f"refusing to replace it: move them out or choose another folder"
        )
    return [e for e in entries]


_RENAME_EXCHANGE = 2


def _exchange(a: Path, b: Path) -> bool:
    """Swap two folders in one step (Linux renameat2); False where unsupported."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd = -100
    return renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), _RENAME_EXCHANGE) == 0


def _swap(tmp: Path, target: Path, known: list[str] | None) -> None:
    if known is None:
        os.replace(tmp, target)
        return
    if _exchange(tmp, target):
        old = tmp  # now holds the previous index
    else:  # two renames: a reader may find no folder for an instant, and retries
        old = target.with_name(f".{target.name}.old-{os.getpid()}-{time.monotonic_ns()}")
        os.replace(target, old)
        os.replace(tmp, target)
    for name in known:  # only the files the old index listed; never a whole tree
        try:
            (old / name).unlink()
        except FileNotFoundError:
            pass
    try:
        old.rmdir()
    except OSError:  # something was added meanwhile: leave it where it is
        pass


# --- reading ---------------------------------------------------------------------------


class _Changed(Exception):
    """The folder changed while it was read (an update swapped in): read it again."""


def read_index(folder: Path, *, attempts: int = 5) -> tuple[pa.Table, pa.Table, dict, dict]:
    """(documents, chunks, manifest, stored arrays by (kind, granularity)), checked."""
    for attempt in range(attempts):
        try:
            return _read(folder)
        except _Changed:
            time.sleep(0.02 * (attempt + 1))
    return _read(folder, retry=False)


def _read(folder: Path, retry: bool = True):
    raw = _manifest_bytes(folder, retry)
    if raw is None:  # only a quiet read returns None; this one raises instead
        raise IndexFormatError(f"{folder}: manifest.json cannot be read")
    manifest = check_manifest(raw, folder)
    try:
        blobs = {
            name: _file(folder, name, manifest["files"][name])
            for name in expected_files(manifest)
            if not name.startswith("dense.")
        }
        documents = _parquet(blobs.pop("documents.parquet"), "documents.parquet")
        chunks = _parquet(blobs.pop("chunks.parquet"), "chunks.parquet")
        stored: dict[tuple[str, str], Any] = {}  # bm25 arrays (dicts) or dense vectors
        for g in manifest["granularities"]:
            stored[("bm25", g)] = _bm25(blobs, g, manifest["rows"].get(g, 0))
            stored[("bm25", g)]["params"] = manifest["bm25"]
            if manifest.get("embedding_model"):
                stored[("dense", g)] = _dense(folder, g, manifest)
    except IndexFormatError:
        if retry and _manifest_bytes(folder, False, quiet=True) != raw:
            raise _Changed() from None
        raise
    check_tables(documents, chunks, manifest)
    return documents, chunks, manifest, stored


def _manifest_bytes(folder: Path, retry: bool, quiet: bool = False) -> bytes | None:
    path = folder / "manifest.json"
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_MANIFEST_BYTES + 1)
    except FileNotFoundError:
        if quiet:
            return None
        if retry and any(folder.parent.glob(f".{folder.name}.old-*")):
            raise _Changed() from None  # between the two renames of a swap
        if folder.is_dir():
            raise IndexFormatError(
                f"{folder} is not a quaestio index (no manifest.json); "
                f"build one with: quaestio index DOCS_DIR -o {folder}"
            ) from None
        raise IndexFormatError(f"{folder}: no such index folder") from None
    except IsADirectoryError:
        raise IndexFormatError(f"{path}: is a folder, not a manifest file") from None
    except OSError as exc:
        if quiet:
            return None
        raise IndexFormatError(f"{path}: cannot be read ({exc.strerror})") from None
    if len(data) > MAX_MANIFEST_BYTES:
        raise IndexFormatError(
            f"{path}: larger than {MAX_MANIFEST_BYTES >> 20} MB; not a quaestio manifest"
        )
    return data


def check_manifest(raw: bytes, folder: Path) -> dict:
    """The manifest, or an `IndexFormatError` saying what is wrong with it."""
    where = "manifest.json"
    try:
        manifest = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise IndexFormatError(f"{folder}/{where}: not UTF-8 text") from None
    except ValueError as exc:
        raise IndexFormatError(f"{folder}/{where}: not valid JSON ({exc})") from None
    if not isinstance(manifest, dict):
        raise IndexFormatError(
            f"{folder}/{where}: a JSON {type(manifest).__name__}, not an object"
        )
    if manifest.get("format") != MARKER:
        version = manifest.get("format_version")
        hint = "; rebuild the index" if version == 1 else ""
        raise IndexFormatError(
            f"{folder}/{where}: no quaestio index marker (format_version {version!r}){hint}"
        )
    if manifest.get("format_version") != FORMAT_VERSION:
        raise IndexFormatError(
            f"{folder}/{where}: index format "
            f"{manifest.get('format_version')!r}, this quaestio reads "
            f"{FORMAT_VERSION}; rebuild the index"
        )
    for key, kind in _REQUIRED.items():
        value = manifest.get(key)
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise IndexFormatError(
                f"{folder}/{where}: key {key!r} is missing or not a "
                f"{kind.__name__} (got {type(value).__name__})"
            )
    if manifest["digest"] != digest(manifest):
        raise IndexFormatError(
            f"{folder}/{where}: its digest does not match its content "
            f"(edited or damaged); rebuild the index"
        )
    grans = manifest["granularities"]
    if (
        not set(grans) <= set(INDEXED)
        or len(set(grans)) != len(grans)
        or not all(isinstance(g, str) for g in grans)
    ):
        raise IndexFormatError(
            f"{folder}/{where}: granularities {grans!r} are not among {list(INDEXED)}"
        )
    for key in ("documents", "chunks"):
        if manifest[key] < 0:
            raise IndexFormatError(f"{folder}/{where}: {key} is negative")
    rows = manifest["rows"]
    if (
        not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in rows.values())
        or sum(rows.values()) != manifest["chunks"]
    ):
        raise IndexFormatError(
            f"{folder}/{where}: rows {rows!r} do not add up to {manifest['chunks']} chunks"
        )
    _check_model(manifest, folder)
    prints = manifest.get("fingerprints", {})
    if not isinstance(prints, dict) or not all(isinstance(v, str) for v in prints.values()):
        raise IndexFormatError(f"{folder}/{where}: fingerprints must map document ids to text")
    if not isinstance(manifest.get("updates", []), list):
        raise IndexFormatError(f"{folder}/{where}: updates must be a list")
    files = manifest["files"]
    expected = expected_files(manifest)
    missing = [n for n in expected if n not in files]
    unknown = [n for n in files if n not in expected]
    if missing or unknown:
        raise IndexFormatError(
            f"{folder}/{where}: its file list does not match the index "
            f"(missing {missing[:3]}, unexpected {unknown[:3]})"
        )
    for name, entry in files.items():
        if not (
            isinstance(entry, dict)
            and isinstance(entry.get("sha256"), str)
            and len(entry["sha256"]) == 64
            and isinstance(entry.get("size"), int)
            and not isinstance(entry.get("size"), bool)
            and entry["size"] >= 0
        ):
            raise IndexFormatError(
                f"{folder}/{where}: entry of {name!r} needs a sha256 (64 hex digits) and a size"
            )
    return manifest


def _check_model(manifest: dict, folder: Path) -> None:
    model = manifest.get("embedding_model")
    if model is None:
        return
    where = f"{folder}/manifest.json"
    if not isinstance(model, dict) or not isinstance(model.get("name"), str):
        raise IndexFormatError(f"{where}: embedding_model must be null or an object with a name")
    from ..errors import UnknownNameError
    from .embeddings import resolve

    try:
        spec = resolve(model["name"])
    except UnknownNameError:
        raise IndexFormatError(
            f"{where}: embedding model {model['name']!r} is not a packaged model of this quaestio"
        ) from None
    if model.get("dim") != spec.dim or model.get("package") != spec.distribution:
        raise IndexFormatError(
            f"{where}: embedding model {spec.name!r} has dim {spec.dim} "
            f"and package {spec.distribution!r}, the manifest says "
            f"{model.get('dim')!r} and {model.get('package')!r}"
        )
    probe = manifest.get("model_probe")
    if probe is not None and not (
        isinstance(probe, list)
        and len(probe) == spec.dim
        and all(isinstance(x, (int, float)) for x in probe)
    ):
        raise IndexFormatError(f"{where}: model_probe is not a vector of {spec.dim} numbers")


@contextmanager
def _listed_file(path: Path) -> Iterator[BinaryIO]:
    """A file the manifest lists, opened for reading; its absence or an unreadable file is
    an `IndexFormatError` naming it (a link is not followed: an index holds its own files)."""
    try:
        if path.is_symlink() or not path.is_file():
            raise FileNotFoundError
        with open(path, "rb") as f:
            yield f
    except FileNotFoundError:
        raise IndexFormatError(
            f"{path}: missing (the manifest lists it); rebuild the index"
        ) from None
    except OSError as exc:
        raise IndexFormatError(f"{path}: cannot be read ({exc.strerror})") from None


def _file(folder: Path, name: str, entry: dict) -> bytes:
    path = folder / name
    with _listed_file(path) as f:
        data = f.read(entry["size"] + 1)
    _verify(path, data, entry)
    return data


def _verify(path: Path, data, entry: dict) -> None:
    if len(data) != entry["size"]:
        raise IndexFormatError(
            f"{path}: {len(data)}{'+' if len(data) > entry['size'] else ''}"
            f" bytes, the manifest says {entry['size']} (truncated or "
            f"replaced); rebuild the index"
        )
    if hashlib.sha256(data).hexdigest() != entry["sha256"]:
        raise IndexFormatError(
            f"{path}: sha256 does not match the manifest (damaged or "
            f"taken from another index); rebuild the index"
        )


def _parquet(data: bytes, name: str) -> pa.Table:
    try:
        return pq.read_table(pa.BufferReader(data))
    except Exception as exc:  # the checksum matched: a manifest re-signed over bad data
        raise IndexFormatError(f"{name}: not a readable Parquet file ({exc})") from None


def _npy(data: bytes, name: str) -> np.ndarray:
    try:
        return np.load(io.BytesIO(data), allow_pickle=False)
    except Exception as exc:
        raise IndexFormatError(f"{name}: not a readable .npy array ({exc})") from None


def _bm25(blobs: dict, g: str, n_rows: int) -> dict:
    name = f"bm25.{g}"
    data = _npy(blobs[f"{name}.data.npy"], f"{name}.data.npy")
    indices = _npy(blobs[f"{name}.indices.npy"], f"{name}.indices.npy")
    indptr = _npy(blobs[f"{name}.indptr.npy"], f"{name}.indptr.npy")
    try:
        vocab = json.loads(blobs[f"{name}.vocab.json"].decode("utf-8"))
    except ValueError as exc:
        raise IndexFormatError(f"{name}.vocab.json: not JSON ({exc})") from None
    problem = None
    if not isinstance(vocab, dict) or not all(isinstance(v, int) for v in vocab.values()):
        problem = f"{name}.vocab.json: not an object of token ids"
    elif sorted(vocab.values()) != list(range(len(vocab))):
        problem = f"{name}.vocab.json: token ids are not 0..{len(vocab) - 1}"
    elif data.ndim != 1 or data.dtype.kind != "f" or not np.isfinite(data).all():
        problem = f"{name}.data.npy: must be a 1-D array of finite floats"
    elif indices.ndim != 1 or indices.dtype.kind not in "iu":
        problem = f"{name}.indices.npy: must be a 1-D array of integers"
    elif len(indices) != len(data):
        problem = (
            f"{name}.data.npy and {name}.indices.npy disagree: {len(data)} scores, "
            f"{len(indices)} row numbers (one is damaged or from another index)"
        )
    elif len(indices) and (indices.min() < 0 or indices.max() >= max(n_rows, 1)):
        problem = f"{name}.indices.npy: row numbers outside 0..{n_rows - 1}"
    elif (
        indptr.ndim != 1
        or indptr.dtype.kind not in "iu"
        or len(indptr) - 1 < max((v for t, v in vocab.items() if t), default=-1) + 1
        or len(indptr) > len(vocab) + 1
        or not len(indptr)
        or indptr[0] != 0
        or indptr[-1] != len(data)
        or (np.diff(indptr) < 0).any()
    ):
        # bm25s keeps a column per token but for its "" placeholder
        problem = (
            f"{name}.indptr.npy: must be one non-decreasing offset per token of "
            f"{name}.vocab.json, from 0 to the {len(data)} scores of {name}.data.npy"
        )
    if problem:
        raise IndexFormatError(problem)
    return {
        "data": data,
        "indices": indices,
        "indptr": indptr,
        "vocab": vocab,
        "num_docs": max(n_rows, 1),
    }


def _dense(folder: Path, g: str, manifest: dict) -> np.ndarray:
    """The vectors, memory-mapped; the sha256 is taken over that same mapping."""
    name = f"dense.{g}.npy"
    path, entry = folder / name, manifest["files"][name]
    with _listed_file(path) as f:
        size = os.fstat(f.fileno()).st_size
        mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) if size else b""
    _verify(path, mapped, entry)
    try:
        header = io.BytesIO(mapped[:65536])
        version = np.lib.format.read_magic(header)
        read = (
            np.lib.format.read_array_header_1_0
            if version == (1, 0)
            else np.lib.format.read_array_header_2_0
        )
        shape, fortran, dtype = read(header)
        count = int(np.prod(shape)) if shape else 1
        vectors = np.frombuffer(mapped, dtype=dtype, count=count, offset=header.tell())
        vectors = vectors.reshape(shape, order="F" if fortran else "C")
    except Exception as exc:  # the checksum matched: a manifest re-signed over bad data
        raise IndexFormatError(f"{path}: not a readable .npy array ({exc})") from None
    dim, n = manifest["embedding_model"]["dim"], manifest["rows"].get(g, 0)
    if vectors.dtype != np.float32 or vectors.shape != (n, dim):
        raise IndexFormatError(
            f"{path}: {vectors.dtype} {vectors.shape}, expected float32 "
            f"({n}, {dim}) for {n} {g} chunks of a {dim}-d model"
        )
    if not np.isfinite(vectors).all():
        raise IndexFormatError(f"{path}: holds NaN or infinite values")
    return vectors


def check_tables(documents: pa.Table, chunks: pa.Table, manifest: dict) -> None:
    """Schemas, row counts and links of the two tables against the manifest."""
    from .schema import CHUNK_SCHEMA, DOCUMENT_SCHEMA

    for name, table, schema, count in (
        ("documents.parquet", documents, DOCUMENT_SCHEMA, manifest["documents"]),
        ("chunks.parquet", chunks, CHUNK_SCHEMA, manifest["chunks"]),
    ):
        if not table.schema.remove_metadata().equals(schema):
            got = set(table.schema.names) ^ set(schema.names)
            raise IndexFormatError(
                f"{name}: columns do not match the index schema"
                + (f" ({', '.join(sorted(got)[:5])})" if got else " (column types differ)")
            )
        if table.num_rows != count:
            raise IndexFormatError(f"{name}: {table.num_rows} rows, the manifest says {count}")
    doc_ids = documents.column("doc_id").to_pylist()
    if None in doc_ids or len(set(doc_ids)) != len(doc_ids):
        raise IndexFormatError("documents.parquet: doc_id values are missing or repeated")
    ids = chunks.column("chunk_id").to_pylist()
    if None in ids or len(set(ids)) != len(ids):
        raise IndexFormatError("chunks.parquet: chunk_id values are missing or repeated")
    if not set(chunks.column("doc_id").to_pylist()) <= set(doc_ids):
        raise IndexFormatError(
            "chunks.parquet: chunks of documents that documents.parquet does not hold"
        )
    if _rows(chunks) != {g: n for g, n in manifest["rows"].items() if n}:
        raise IndexFormatError(
            f"chunks.parquet: rows per granularity {_rows(chunks)} differ "
            f"from the manifest's {manifest['rows']}"
        )

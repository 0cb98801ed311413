"""Documents in: a folder, a list of files, or a DataFrame; bad files are reported, not fatal.

Behaviour on bad input (each skip or fallback is a warning with a stable code and is listed in
the index manifest under "skipped"):
- an empty or whitespace-only file is skipped (W301);
- a binary file (NUL bytes in its first 8 KiB, no UTF-16 byte-order mark) is skipped (W302);
- a document whose text has the same hash as an earlier one is indexed once (W303);
- text is decoded as UTF-8 (a BOM selects UTF-8-sig or UTF-16); bytes that are not UTF-8
  are decoded in the encoding charset-normalizer finds, with a warning naming the file
  and offset (W304),
  unless `encoding=` forces one, in which case a decoding error is an `IngestionError`.
"""

from __future__ import annotations

import hashlib
import sys
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import WarningCode
from .errors import (
    W301_EMPTY,
    W302_BINARY,
    W303_DUPLICATE,
    W304_ENCODING,
    IngestionError,
    IngestionWarning,
)

SUFFIXES = (".md", ".markdown", ".txt", ".mdx")
META_COLUMNS = (
    "title",
    "date",
    "parties",
    "jurisdiction",
    "doc_family",
    "doc_type",
    "language",
    "type",
)


@dataclass
class RawDoc:
    doc_id: str
    source: str
    text: str
    encoding: str = "utf-8"
    meta: dict[str, Any] = field(default_factory=dict)
    first_page: int | None = None

    @property
    def content_hash(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8", "surrogatepass")).hexdigest()


def iter_documents(
    source: Any, *, encoding: str | None = None, skipped: list[dict[str, str]] | None = None
) -> Iterator[RawDoc]:
    """Yield each readable, non-duplicate document of `source` (see the module docstring)."""
    skipped = skipped if skipped is not None else []
    seen: dict[str, str] = {}
    for doc in _raw(source, encoding, skipped):
        digest = doc.content_hash
        if digest in seen:
            _skip(
                skipped,
                doc.source,
                W303_DUPLICATE,
                f"same content as {seen[digest]}: indexed once",
            )
            continue
        seen[digest] = doc.source
        yield doc


def count_documents(source: Any) -> int:
    """How many documents `source` offers (rows, or files to read): the total of a bar,
    before empty, binary and duplicate ones are skipped."""
    if _is_frame(source):
        return len(source)
    return sum(len(_files(root)) for root in _roots(source))


def _is_frame(source: Any) -> bool:
    pd, pl = sys.modules.get("pandas"), sys.modules.get("polars")
    return (pd is not None and isinstance(source, pd.DataFrame)) or (
        pl is not None and isinstance(source, pl.DataFrame)
    )


def _roots(source: Any) -> list[Path]:
    roots = [Path(p) for p in ([source] if isinstance(source, (str, Path)) else list(source))]
    for root in roots:
        if not root.exists():
            raise IngestionError(str(root), "no such file or folder")
    return roots


def _files(root: Path) -> list[Path]:
    if not root.is_dir():
        return [root]
    return sorted(
        p
        for p in root.rglob("*")
        if p.is_file()
        and p.suffix.lower() in SUFFIXES
        and not any(part.startswith(".") for part in p.relative_to(root).parts)
    )


def _raw(source: Any, encoding: str | None, skipped: list) -> Iterator[RawDoc]:
    if _is_frame(source):
        yield from _from_frame(source, skipped)
        return
    for root in _roots(source):
        for path in _files(root):
            doc_id = path.relative_to(root).as_posix() if root.is_dir() else path.name
            text, used = _decode(path, encoding, skipped)
            if text is not None:
                yield RawDoc(doc_id, str(path), text, used)


def _decode(path: Path, encoding: str | None, skipped: list) -> tuple[str | None, str]:
    data = path.read_bytes()
    if not data.strip():
        _skip(skipped, str(path), W301_EMPTY, "empty file: skipped")
        return None, ""
    if encoding:
        try:
            return data.decode(encoding), encoding
        except (UnicodeDecodeError, LookupError) as exc:
            raise IngestionError(str(path), f"cannot decode as {encoding}: {exc}") from exc
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16"), "utf-16"
    if b"\x00" in data[:8192]:
        _skip(skipped, str(path), W302_BINARY, "binary file (NUL bytes): skipped")
        return None, ""
    try:
        return data.decode("utf-8-sig"), "utf-8"
    except UnicodeDecodeError as exc:
        from ..io import decode_bytes  # charset-normalizer: cp1251, Shift-JIS, cp1252, ...

        text, guess, _ = decode_bytes(data)
        _skip(
            skipped,
            str(path),
            W304_ENCODING,
            f"not UTF-8 (byte {exc.start}): decoded as {guess}",
            skipped_doc=False,
        )
        return text, guess


def _from_frame(frame: Any, skipped: list) -> Iterator[RawDoc]:
    rows = frame.to_dicts() if hasattr(frame, "to_dicts") else frame.to_dict("records")
    columns = list(frame.columns)
    if "text" not in columns:
        raise IngestionError("documents DataFrame", f"needs a 'text' column; has {columns}")
    for n, row in enumerate(rows):
        text, where = row["text"], f"documents DataFrame row {n}"
        if not isinstance(text, str):
            raise IngestionError(where, f"column 'text' must be a string, got {text!r:.60}")
        if not text.strip():
            _skip(skipped, where, W301_EMPTY, "empty text: skipped")
            continue
        doc_id = str(row.get("doc_id") if row.get("doc_id") is not None else f"doc{n}")
        meta = {k: row[k] for k in META_COLUMNS if k in row and _present(row[k])}
        page = row.get("page_start")
        yield RawDoc(
            doc_id,
            str(row.get("source") or where),
            text,
            "utf-8",
            meta,
            int(page) if _present(page) else None,
        )


def _present(value: Any) -> bool:
    try:
        return value is not None and value == value and value != ""
    except (TypeError, ValueError):  # lists and arrays
        return True


def _skip(skipped: list, source: str, code: WarningCode, reason: str, *, skipped_doc: bool = True):
    skipped.append(
        {
            "source": source,
            "code": code,
            "reason": reason,
            "skipped": "yes" if skipped_doc else "no",
        }
    )
    warnings.warn(IngestionWarning(code, f"{source}: {reason}"), stacklevel=4)

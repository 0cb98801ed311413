"""What a process learns about each analyst pattern, kept for the next process.

Checking a pattern row (it compiles, does not match the empty string, passes the
backtracking probe) and reading the literals it needs cost about a second and a half per
start for the bundled ~1,100 patterns, and the answers depend only on the pattern's text,
its flags and the engines' versions. They are kept in one small JSON file under
`$QUAESTIO_CACHE` (default `~/.cache/quaestio`), keyed by those, so a second process starts
warm. Only facts about patterns that passed are kept: a failing row is checked again, and
reported in full, every time. A missing, unreadable or foreign file is ignored (the facts are
recomputed), never trusted; writes are atomic. `QUAESTIO_PATTERN_CACHE=0` turns it off.

Other caches that outlive a process (the spelling word lists, `analysis.wordlist`; the lemma
tables, `analysis.morphology`; a table set that loaded cleanly, `satellites.load_satellites`)
go through the same functions under the same switch:
`cache_file` names the file, and `write_sealed` / `read_sealed` keep a large table as a
marshal dump behind its sha256.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import marshal
import os
import sys
import tempfile
import threading
from functools import cache
from pathlib import Path
from typing import Any

import regex

_FORMAT = 1
_lock = threading.Lock()
_facts: dict[str, Any] | None = None
_dirty = False


def cache_file(name: str) -> Path | None:
    """`$QUAESTIO_CACHE/<name>` (default `~/.cache/quaestio`), read at call time; None when
    the cross-process caches are turned off. The name carries whatever the content depends
    on (format and library versions), so a stale file is never looked at."""
    if os.environ.get("QUAESTIO_PATTERN_CACHE", "1") == "0":
        return None
    root = Path(os.environ.get("QUAESTIO_CACHE", Path.home() / ".cache" / "quaestio"))
    return root / name


def write_atomic(path: Path, text: str | bytes) -> None:
    """Replace `path` with `text` (UTF-8 text, or bytes as they are) in one step (a reader
    sees the old file or the new one, never half of one); any failure leaves the old file."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(text.encode("utf-8") if isinstance(text, str) else text)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError:
        pass  # a read-only home is no reason to fail: the next process recomputes


def write_sealed(path: Path, value: Any) -> None:
    """Write `value` (built-in types only) as a marshal dump behind its sha256, atomically:
    the form of the large tables kept between processes (lemma tables, word lists), which
    loads several times faster than JSON."""
    body = marshal.dumps(value)
    write_atomic(path, hashlib.sha256(body).digest() + body)


def read_sealed(path: Path) -> Any:
    """What `write_sealed` wrote, or None when the file is missing, unreadable, or its
    digest does not match (marshal is only read once the digest proved the file is the one
    written); the caller still checks the value's shape before trusting it."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    digest, body = data[:32], data[32:]
    if len(digest) < 32 or hashlib.sha256(body).digest() != digest:
        return None
    try:
        return marshal.loads(body)
    except (EOFError, ValueError, TypeError):
        return None


def _path() -> Path | None:
    engines = f"{regex.__version__}-py{sys.version_info[0]}.{sys.version_info[1]}"
    return cache_file(f"pattern_facts-v{_FORMAT}-{engines}.json")


def _load() -> dict[str, Any]:
    global _facts
    if _facts is None:
        facts: dict[str, Any] = {}
        path = _path()
        if path is not None and path.is_file():
            try:
                loaded = json.loads(path.read_text(encoding="utf-8"))
                if isinstance(loaded, dict):
                    facts = loaded
            except (OSError, ValueError, UnicodeDecodeError):
                facts = {}
        _facts = facts
    return _facts


def key(kind: str, pattern: str, flags: int = 0) -> str:
    """The cache key of one fact about one pattern."""
    digest = hashlib.blake2b(
        f"{kind}\0{int(flags)}\0{pattern}".encode("utf-8", "surrogatepass"), digest_size=12
    ).hexdigest()
    return f"{kind}:{digest}"


def get(fact_key: str) -> Any:
    with _lock:
        return _load().get(fact_key)


def put(fact_key: str, value: Any) -> None:
    global _dirty
    with _lock:
        facts = _load()
        if facts.get(fact_key) != value:
            facts[fact_key] = value
            _dirty = True


def save() -> None:
    """Write the facts learnt since the start (atomic; any failure leaves the old file)."""
    global _dirty
    path = _path()
    with _lock:
        if not _dirty or path is None or _facts is None:
            return
        text = json.dumps(_facts, separators=(",", ":"))
        _dirty = False
    write_atomic(path, text)


@cache
def compiled(pattern: str, flags: int) -> regex.Pattern:
    """One compiled object per (pattern, flags) in a process: validation and the rule sets
    share it (the `regex` module's own cache holds 500, fewer than the bundled rows)."""
    return regex.compile(pattern, flags | regex.V0)


atexit.register(save)


class LazyPattern:
    """A rule's regex, compiled on its first use: most rules of a family never run in a
    process (the literal gate reads what they need from their text, see `analysis.gate`),
    so they need not be compiled at start. Reads like the compiled pattern it stands for."""

    __slots__ = ("pattern", "flags", "_compiled")

    def __init__(self, pattern: str, flags: int = 0):
        self.pattern = pattern
        self.flags = int(flags)
        self._compiled: regex.Pattern | None = None

    @property
    def compiled(self) -> regex.Pattern:
        if self._compiled is None:
            self._compiled = compiled(self.pattern, self.flags)
        return self._compiled

    def __getattr__(self, name: str) -> Any:  # search, finditer, match, groupindex, ...
        return getattr(self.compiled, name)

    def __reduce__(self):
        return LazyPattern, (self.pattern, self.flags)

    def __repr__(self) -> str:
        return f"LazyPattern({self.pattern!r}, {self.flags})"

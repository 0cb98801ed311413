"""A persistent cache of validated LLM replies (SQLite, standard library).

The key is the model, the prompt version, a fingerprint of what else shapes the prompt (the
satellites version, the candidate concepts, caller options) and the normalized question, so
the same question typed by many users costs one call, and a changed dictionary or prompt
never serves a stale reply. The reply is stored, not the row: a hit is checked and merged
again against the current offline pass, like a fresh reply.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
import unicodedata
from pathlib import Path

import regex

_SPACES = regex.compile(r"\s+")


def normalize(question: str) -> str:
    """NFKC, casefolded, single spaces, no trailing punctuation: how users' repeats differ."""
    text = _SPACES.sub(" ", unicodedata.normalize("NFKC", question).casefold()).strip()
    return text.rstrip(" ?!.")


def cache_key(model: str, prompt_version: str, question: str, context: object) -> str:
    digest = hashlib.sha256()
    for part in (
        model,
        prompt_version,
        normalize(question),
        json.dumps(context, sort_keys=True, default=str, ensure_ascii=False),
    ):
        digest.update(part.encode("utf-8", "surrogatepass") + b"\x00")
    return digest.hexdigest()


class ReplyCache:
    """get/put of reply JSON by key; safe to share between threads of one process."""

    def __init__(self, path: str | Path):
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, timeout=30)
        with self._lock, self._db:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS replies (key TEXT PRIMARY KEY, "
                "model TEXT, prompt_version TEXT, question TEXT, reply TEXT, "
                "created REAL)"
            )
        self.hits = self.misses = 0

    def get(self, key: str) -> str | None:
        with self._lock:
            row = self._db.execute("SELECT reply FROM replies WHERE key = ?", (key,)).fetchone()
        if row is None:
            self.misses += 1
            return None
        self.hits += 1
        return row[0]

    def put(self, key: str, model: str, prompt_version: str, question: str, reply: str) -> None:
        with self._lock, self._db:
            self._db.execute(
                "INSERT OR REPLACE INTO replies VALUES (?, ?, ?, ?, ?, ?)",
                (key, model, prompt_version, normalize(question), reply, time.time()),
            )

    def __len__(self) -> int:
        with self._lock:
            return self._db.execute("SELECT COUNT(*) FROM replies").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            self._db.close()

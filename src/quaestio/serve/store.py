"""Conversation memory: a small protocol and its SQLite implementation.

A turn is one JSON record (question, parsed row, answer, citations, prompt parts, model,
token counts, events). The store keeps at most `max_turns` per conversation and forgets
turns older than `max_age` seconds; another store (Redis, PostgreSQL) implements the same
five methods.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any, Protocol


class ConversationStore(Protocol):
    def new_turn(self, conversation_id: str, question: str) -> int: ...
    def save_turn(self, conversation_id: str, turn: int, record: dict[str, Any]) -> None: ...
    def turns(self, conversation_id: str) -> list[dict[str, Any]] | None: ...
    def delete(self, conversation_id: str) -> bool: ...
    def close(self) -> None: ...


class SQLiteStore:
    """Turns in one SQLite file (WAL, so several workers can share it)."""

    def __init__(self, path: str | Path, *, max_turns: int = 20, max_age: float = 7 * 86400):
        self.max_turns = max_turns
        self.max_age = max_age
        self._lock = threading.Lock()
        self._db = sqlite3.connect(
            str(path), check_same_thread=False, timeout=10, isolation_level=None
        )
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS turns (conversation_id TEXT NOT NULL, "
            "turn INTEGER NOT NULL, created_at REAL NOT NULL, record TEXT NOT NULL, "
            "PRIMARY KEY (conversation_id, turn))"
        )

    def new_turn(self, conversation_id: str, question: str) -> int:
        now = time.time()
        with self._lock:
            self._forget_old(now)
            self._db.execute("BEGIN IMMEDIATE")  # numbering and insert as one step
            try:
                (last,) = self._db.execute(
                    "SELECT COALESCE(MAX(turn), 0) FROM turns WHERE conversation_id = ?",
                    (conversation_id,),
                ).fetchone()
                turn = last + 1
                record = {
                    "turn": turn,
                    "question": question,
                    "created_at": now,
                    "status": "running",
                }
                self._db.execute(
                    "INSERT INTO turns VALUES (?, ?, ?, ?)",
                    (conversation_id, turn, now, json.dumps(record)),
                )
                self._db.execute(
                    "DELETE FROM turns WHERE conversation_id = ? AND turn <= ?",
                    (conversation_id, turn - self.max_turns),
                )
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return turn

    def save_turn(self, conversation_id: str, turn: int, record: dict[str, Any]) -> None:
        with self._lock:
            self._db.execute(
                "UPDATE turns SET record = ? WHERE conversation_id = ? AND turn = ?",
                (json.dumps(record, default=str), conversation_id, turn),
            )

    def turns(self, conversation_id: str) -> list[dict[str, Any]] | None:
        """The kept turns, oldest first; None when the conversation is unknown or forgotten."""
        with self._lock:
            rows = self._db.execute(
                "SELECT record FROM turns WHERE conversation_id = ? AND created_at >= ? "
                "ORDER BY turn",
                (conversation_id, time.time() - self.max_age),
            ).fetchall()
        return [json.loads(r[0]) for r in rows] or None

    def delete(self, conversation_id: str) -> bool:
        with self._lock:
            cursor = self._db.execute(
                "DELETE FROM turns WHERE conversation_id = ?", (conversation_id,)
            )
        return cursor.rowcount > 0

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _forget_old(self, now: float) -> None:
        self._db.execute("DELETE FROM turns WHERE created_at < ?", (now - self.max_age,))

"""One cache for every model call: SQLite, keyed by model id + prompt version + call kind + prompt.

Each ``put_many`` is one transaction, so a killed run leaves the file either
with or without that batch, never half-written; several processes may share
the file (SQLite locks it).  ``ModelCache(None)`` keeps values in memory.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sqlite3
import threading
from pathlib import Path
from typing import Any, Iterable

__all__ = ["ModelCache", "cache_key"]

logger = logging.getLogger("logical_pyserini.models")


def cache_key(model_id: str, version: str, kind: str, prompt: Any) -> str:
    """A stable digest of everything that decides a model call's answer."""
    blob = json.dumps([model_id, version, kind, prompt], ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class ModelCache:
    """Key -> JSON value store for model answers.

    Parameters
    ----------
    path : str or Path, optional
        SQLite file (created with its folder); None keeps values in memory.

    Attributes
    ----------
    hits, misses : int
        Lookups answered / not answered since construction.
    """

    def __init__(self, path: str | os.PathLike | None = None):
        self.path = Path(path) if path is not None else None
        self._memory: dict[str, Any] = {}
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        self.hits = 0
        self.misses = 0
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            try:
                self._db = sqlite3.connect(str(self.path), timeout=60, check_same_thread=False)
                self._db.execute("CREATE TABLE IF NOT EXISTS calls (key TEXT PRIMARY KEY, model TEXT, "
                                 "version TEXT, kind TEXT, value TEXT)")
                self._db.commit()
            except sqlite3.DatabaseError as exc:
                raise ValueError(f"{self.path} is not a model cache (SQLite): {exc}") from None

    def __len__(self) -> int:
        if self._db is None:
            return len(self._memory)
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM calls").fetchone()[0])

    def get(self, key: str) -> Any | None:
        """The cached value or None."""
        if self._db is None:
            value = self._memory.get(key)
        else:
            with self._lock:
                row = self._db.execute("SELECT value FROM calls WHERE key = ?", (key,)).fetchone()
            value = json.loads(row[0]) if row else self._memory.get(key)
        if value is None:
            self.misses += 1
        else:
            self.hits += 1
        return value

    def put_many(self, items: Iterable[tuple[str, Any]], model: str = "", version: str = "", kind: str = "") -> None:
        """Store values, in one transaction when on disk."""
        items = list(items)
        if not items:
            return
        if self._db is None:
            self._memory.update(items)
            return
        rows = [(k, model, version, kind, json.dumps(v, ensure_ascii=False)) for k, v in items]
        with self._lock:
            try:
                with self._db:  # one transaction: all rows or none
                    self._db.executemany("INSERT OR REPLACE INTO calls VALUES (?, ?, ?, ?, ?)", rows)
            except sqlite3.OperationalError as exc:  # full disk, read-only file: keep the run going
                logger.warning("model cache %s not updated: %s", self.path, exc)
                self._memory.update(items)

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

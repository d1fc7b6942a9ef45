"""On-disk cache of plausibilities (JSON lines, append-only).

Key: oracle id, prompt version, entity key, predicate statement.  The entity
key includes the knowledge setting and a hash of the context text, so a
``parametric`` value is never reused for ``parametric+`` or for a different
truncation of the document.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

__all__ = ["PlausibilityCache"]

logger = logging.getLogger(__name__)

Key = tuple[str, str, str, str]


class PlausibilityCache:
    """Plausibility cache backed by a JSONL file (or memory only when ``path`` is None).

    Parameters
    ----------
    path : str, optional
        File to load and append to; created on the first write.

    Notes
    -----
    Lines that do not parse (e.g. a run killed mid-write) are skipped with a
    warning; the last line for a key wins.
    """

    def __init__(self, path: str | os.PathLike | None = None):
        self.path = Path(path) if path is not None else None
        self._data: dict[Key, float] = {}
        self.hits = 0
        self.misses = 0
        if self.path is not None and self.path.is_file():
            self._load()

    def _load(self) -> None:
        bad = 0
        with self.path.open(encoding="utf-8") as f:
            for line in f:
                try:
                    obj = json.loads(line)
                    key = (obj["oracle"], obj["version"], obj["entity"], obj["predicate"])
                    self._data[key] = float(obj["p"])
                except (ValueError, KeyError, TypeError):
                    bad += 1
        if bad:
            logger.warning("%s: skipped %d unreadable cache line(s)", self.path, bad)

    def __len__(self) -> int:
        return len(self._data)

    def get(self, key: Key) -> float | None:
        """Cached value or None (counts hits and misses)."""
        value = self._data.get(key)
        if value is None:
            self.misses += 1
        else:
            self.hits += 1
        return value

    def put_many(self, items: list[tuple[Key, float]]) -> None:
        """Store values and append them to the file in one write."""
        if not items:
            return
        for key, value in items:
            self._data[key] = float(value)
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as f:
            f.write("".join(
                json.dumps({"oracle": k[0], "version": k[1], "entity": k[2], "predicate": k[3], "p": float(v)},
                           ensure_ascii=False) + "\n"
                for k, v in items
            ))

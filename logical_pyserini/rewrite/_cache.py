"""On-disk cache of model rewrites: one JSON object per line, append-only.

Keyed by (model id, prompt version, task, question) so a rerun with the same
model and prompt is reproducible and makes no model calls, while a new prompt
version or model misses cleanly.  Append-only JSONL survives interruption:
at worst the last line is cut, and unreadable lines are skipped on load.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from ..query import normalize_text

__all__ = ["RewriteCache"]

log = logging.getLogger(__name__)


class RewriteCache:
    """JSONL cache of model answers.

    Parameters
    ----------
    path : str or Path
        The cache file; created (with its folder) on the first write.
    """

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self._entries: dict[tuple[str, str, str, str], dict[str, Any]] = {}
        if self.path.exists():
            self._load()

    @staticmethod
    def key(model: str, prompt_version: str, task: str, question: str) -> tuple[str, str, str, str]:
        return (model, prompt_version, task, normalize_text(question))

    def _load(self) -> None:
        with self.path.open(encoding="utf-8") as f:
            for lineno, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    rec = json.loads(line)
                    k = self.key(rec["model"], rec["prompt_version"], rec["task"], rec["question"])
                except (json.JSONDecodeError, KeyError, TypeError):
                    log.warning("%s:%d: skipping unreadable cache line", self.path, lineno)
                    continue
                self._entries[k] = rec  # later lines win

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, model: str, prompt_version: str, task: str, question: str) -> dict[str, Any] | None:
        """The cached record (``answer``, ``source``, ...) or None."""
        return self._entries.get(self.key(model, prompt_version, task, question))

    def put(self, model: str, prompt_version: str, task: str, question: str, answer: Any, source: str) -> None:
        """Store an answer (query text, or a decomposition as a dict) and append it to the file."""
        rec = {
            "model": model,
            "prompt_version": prompt_version,
            "task": task,
            "question": question,
            "answer": answer,
            "source": source,
        }
        self._entries[self.key(model, prompt_version, task, question)] = rec
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as f:
            f.write(json.dumps(rec, ensure_ascii=False) + "\n")

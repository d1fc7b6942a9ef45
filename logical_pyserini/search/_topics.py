"""Read topic files: ``qid<TAB>query`` TSV or JSON lines."""

from __future__ import annotations

import json
import os
from pathlib import Path

__all__ = ["read_topics"]

_QID_KEYS = ("qid", "query_id", "id", "_id")
_TEXT_KEYS = ("query", "text", "title", "question")


def read_topics(path: str | os.PathLike) -> dict[str, str]:
    """Topics in file order.

    Parameters
    ----------
    path : str
        A TSV file (``qid<TAB>query``, no header) or a JSONL file (``.jsonl`` /
        ``.json``) whose objects have a qid field (``qid``, ``query_id``,
        ``id`` or ``_id``) and a text field (``query``, ``text``, ``title``
        or ``question``).

    Raises
    ------
    FileNotFoundError
        If the file does not exist.
    ValueError
        For a malformed line (with its line number) or a duplicate qid.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"topics file not found: {path}")
    jsonl = path.suffix in (".jsonl", ".json")
    topics: dict[str, str] = {}
    with path.open(encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            qid, text = _parse_json(line, path, lineno) if jsonl else _parse_tsv(line, path, lineno)
            if qid in topics:
                raise ValueError(f"{path}:{lineno}: duplicate qid {qid!r}")
            topics[qid] = text
    if not topics:
        raise ValueError(f"{path}: no topics")
    return topics


def _parse_tsv(line: str, path: Path, lineno: int) -> tuple[str, str]:
    parts = line.rstrip("\n").split("\t", 1)
    if len(parts) != 2 or not parts[0].strip():
        raise ValueError(f"{path}:{lineno}: expected 'qid<TAB>query', got {line.strip()[:80]!r}")
    return parts[0].strip(), parts[1].strip()


def _parse_json(line: str, path: Path, lineno: int) -> tuple[str, str]:
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}:{lineno}: invalid JSON ({exc.msg})") from None
    qid = next((obj[k] for k in _QID_KEYS if k in obj), None)
    text = next((obj[k] for k in _TEXT_KEYS if k in obj), None)
    if qid is None or not isinstance(text, str):
        raise ValueError(f"{path}:{lineno}: need one of {_QID_KEYS} and a text field {_TEXT_KEYS}")
    return str(qid), text.strip()

"""Read topic files: ``qid<TAB>query`` TSV or JSON lines (shared by every CLI).

Kept free of heavy imports so that reading topics never starts the JVM.
"""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path
from typing import Iterator

from ._io import parse_json_object

__all__ = ["TopicsError", "read_topics"]

_QID_KEYS = ("qid", "query_id", "id", "_id")
_TEXT_KEYS = ("query", "text", "question", "title")


class TopicsError(ValueError):
    """An unreadable topics file (the message names the file and line)."""


def read_topics(path: str | os.PathLike) -> dict[str, str]:
    """Topics in file order, ``{qid: text}``.

    Parameters
    ----------
    path : str
        A TSV file (``qid<TAB>query``, no header) or a JSONL file (suffix
        ``.jsonl`` / ``.json`` / ``.ndjson``, or a first line starting with
        ``{``) whose objects have a qid field (``qid``, ``query_id``, ``id`` or
        ``_id``) and a text field (``query``, ``text``, ``question`` or ``title``).

    Raises
    ------
    FileNotFoundError
        If the file does not exist.
    TopicsError
        For a malformed line, an empty qid or text, a qid with whitespace or a
        control character, a duplicate qid or no topics at all.  A UTF-8
        byte-order mark is skipped.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"topics file not found: {path}")
    try:
        # utf-8-sig drops a byte-order mark (Windows editors write one) instead of
        # gluing it to the first qid; split on newlines only, since str.splitlines
        # would also break a query at U+2028, U+0085 or a form feed.
        content = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise TopicsError(f"{path}: not UTF-8 text ({exc.reason})") from None
    lines = [line[:-1] if line.endswith("\r") else line for line in content.split("\n")]
    first = next((line for line in lines if line.strip()), "")
    jsonl = path.suffix.lower() in (".jsonl", ".json", ".ndjson") or first.lstrip().startswith("{")
    topics: dict[str, str] = {}
    for lineno, qid, text in (_jsonl_rows if jsonl else _tsv_rows)(path, lines):
        if not qid:
            raise TopicsError(f"{path}:{lineno}: empty qid")
        bad = next((ch for ch in qid if ch.isspace() or unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp")), None)
        if bad is not None:
            raise TopicsError(f"{path}:{lineno}: qid {qid!r} contains {unicodedata.name(bad, 'control character')} "
                              f"(U+{ord(bad):04X}); qids must be printable and without spaces (run files "
                              "separate columns by whitespace)")
        if not text.strip():
            raise TopicsError(f"{path}:{lineno}: empty query for qid {qid!r}")
        if qid in topics:
            raise TopicsError(f"{path}:{lineno}: duplicate qid {qid!r}")
        topics[qid] = text.strip()
    if not topics:
        raise TopicsError(f"{path}: no topics")
    return topics


def _tsv_rows(path: Path, lines: list[str]) -> Iterator[tuple[int, str, str]]:
    for lineno, line in enumerate(lines, 1):
        if line.strip():
            qid, tab, text = line.partition("\t")
            if not tab:
                raise TopicsError(f"{path}:{lineno}: expected 'qid<TAB>query', got {line.strip()[:80]!r}")
            yield lineno, qid.strip(), text


def _jsonl_rows(path: Path, lines: list[str]) -> Iterator[tuple[int, str, str]]:
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        row = parse_json_object(line, f"{path}:{lineno}", TopicsError)
        qid = next((row[k] for k in _QID_KEYS if k in row), None)
        text = next((row[k] for k in _TEXT_KEYS if k in row), None)
        if qid is None or not isinstance(text, str):
            raise TopicsError(f"{path}:{lineno}: needs an id ({'/'.join(_QID_KEYS)}) and a text "
                              f"({'/'.join(_TEXT_KEYS)})")
        yield lineno, str(qid).strip(), text

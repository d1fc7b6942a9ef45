"""Read corpora: Pyserini JsonCollection (``id``, ``contents``) or BEIR (``_id``, ``title``, ``text``)."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from .._io import parse_json_object

__all__ = ["Document", "check_index_dir", "corpus_files", "count_documents", "iter_documents"]


@dataclass(frozen=True)
class Document:
    """A corpus document in the form the indexers need."""

    id: str
    contents: str
    title: str | None = None

    def to_json(self) -> str:
        """JsonCollection line; the title travels as an extra field so the stored raw JSON keeps it."""
        obj = {"id": self.id, "contents": self.contents}
        if self.title:
            obj["title"] = self.title
        return json.dumps(obj, ensure_ascii=False)


def check_index_dir(index_dir: str | os.PathLike, overwrite: bool) -> Path:
    """Refuse to build into a non-empty directory unless ``overwrite``.

    Callers remove the old index only after the corpus has been validated, so a
    bad corpus never costs an existing index.

    Raises
    ------
    FileExistsError
        If ``index_dir`` is a non-empty directory and ``overwrite`` is False.
    """
    index_dir = Path(index_dir)
    if index_dir.exists() and any(index_dir.iterdir()) and not overwrite:
        raise FileExistsError(f"index directory {index_dir} is not empty (use --overwrite to replace it)")
    return index_dir


def corpus_files(path: str | os.PathLike) -> list[Path]:
    """The JSONL files of a corpus: the file itself, or ``*.jsonl`` / ``*.json`` in a folder (sorted)."""
    path = Path(path)
    if path.is_file():
        return [path]
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.suffix in (".jsonl", ".json") and p.is_file())
        if not files:
            raise FileNotFoundError(f"no .jsonl/.json files in corpus folder {path}")
        return files
    raise FileNotFoundError(f"corpus not found: {path}")


def count_documents(path: str | os.PathLike) -> int:
    """Number of non-empty lines (for progress bars)."""
    total = 0
    for file in corpus_files(path):
        with file.open("rb") as f:
            total += sum(1 for line in f if line.strip())
    return total


def iter_documents(path: str | os.PathLike) -> Iterator[Document]:
    """Yield documents; BEIR's title and text are joined into ``contents``.

    Raises
    ------
    ValueError
        On invalid JSON or a document without an id or text, naming file and
        line: a half-built index is worse than none.
    """
    for file in corpus_files(path):
        with file.open(encoding="utf-8") as f:
            for lineno, line in enumerate(f, 1):
                if line.strip():
                    yield _document(line, file, lineno)


def _document(line: str, file: Path, lineno: int) -> Document:
    obj = parse_json_object(line, f"{file}:{lineno}")
    docid = obj.get("id", obj.get("_id", obj.get("docid")))
    if docid is None or str(docid).strip() == "":
        raise ValueError(f"{file}:{lineno}: document has no 'id' (JsonCollection) or '_id' (BEIR)")
    title = obj.get("title") or None
    if "contents" in obj:
        contents = obj["contents"]
    elif "text" in obj:
        contents = f"{title}\n{obj['text']}" if title else obj["text"]
    else:
        raise ValueError(f"{file}:{lineno}: document {docid!r} has no 'contents' or 'text'")
    if not isinstance(contents, str):
        raise ValueError(f"{file}:{lineno}: document {docid!r}: text must be a string")
    return Document(str(docid), contents, title)

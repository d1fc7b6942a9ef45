"""Passages for SLICE: BM25 through our Lucene searcher (retrieval setting) or the question's own
passages (in-context setting).  Every call is counted."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

__all__ = ["InContext", "LuceneRetriever", "Passage", "Retriever", "load_corpus"]


@dataclass(frozen=True)
class Passage:
    docid: str
    text: str


def load_corpus(path: str | Path) -> dict[str, str]:
    """``{docid: text}`` of a JSONL corpus (``id``/``contents`` or ``_id``/``title``/``text``), read by the
    indexer's own reader (malformed lines raise ``ValueError`` naming file and line)."""
    from ..index import iter_documents

    return {doc.id: doc.contents for doc in iter_documents(path)}


class Retriever:
    """Interface: ``retrieve(query, k, passages=None) -> [Passage]``; ``calls`` counts calls."""

    def __init__(self) -> None:
        self._local = threading.local()

    @property
    def calls(self) -> int:
        return getattr(self._local, "calls", 0)

    def reset(self) -> None:
        """Zero this thread's call counter (one counter per question's thread)."""
        self._local.calls = 0

    def _count(self) -> None:
        self._local.calls = self.calls + 1

    def retrieve(self, query: str, k: int, passages: Sequence[Passage] | None = None) -> list[Passage]:
        raise NotImplementedError


class LuceneRetriever(Retriever):
    """BM25 over a Lucene index with :class:`~logical_pyserini.search.LogicalLuceneSearcher`
    (``plain_search``: the question text as a bag of words, exactly Pyserini's ranking).

    The index is built from ``corpus`` when ``index`` does not exist yet.
    """

    def __init__(self, index: str | Path, corpus: str | Path | None = None, k1: float | None = None,
                 b: float | None = None) -> None:
        super().__init__()
        index = Path(index)
        if not (index.exists() and any(index.iterdir())):
            if corpus is None:
                raise FileNotFoundError(f"index {index} does not exist and no --corpus to build it from")
            from logical_pyserini.index import build_lucene_index

            build_lucene_index(corpus, index, progress=False)
        from logical_pyserini.search import LogicalLuceneSearcher

        self.searcher = LogicalLuceneSearcher(str(index))
        if k1 is not None and b is not None:
            self.searcher.set_bm25(k1, b)
        self._texts = load_corpus(corpus) if corpus else {}
        self._lock = threading.Lock()

    def _text(self, docid: str) -> str:
        text = self._texts.get(docid)
        if text is None:
            doc = self.searcher.doc(docid)
            raw = doc.raw() if doc is not None else ""
            try:
                text = json.loads(raw).get("contents", raw)
            except (ValueError, AttributeError):
                text = raw or ""
        return text

    def retrieve(self, query: str, k: int, passages: Sequence[Passage] | None = None) -> list[Passage]:
        self._count()
        with self._lock:  # one JVM searcher shared by the worker threads
            hits = self.searcher.plain_search(query, k=k)
        return [Passage(h.docid, self._text(h.docid)) for h in hits]


class InContext(Retriever):
    """The in-context setting: every call returns the question's own passages (gold + distractors)."""

    def retrieve(self, query: str, k: int, passages: Sequence[Passage] | None = None) -> list[Passage]:
        self._count()
        return list(passages or [])

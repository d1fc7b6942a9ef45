"""A retriever seen through another index's document keys (same corpus, other index)."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ._base import LeafRetriever, LeafStatistics
from ._lucene import LeafHits

__all__ = ["MappedRetriever"]


class MappedRetriever(LeafRetriever):
    """``inner`` with its keys translated into the key space of another index of the same corpus.

    Build it with :meth:`onto`, which matches the two indexes by collection
    docid and fails if they do not hold the same documents.  Class-level
    facts (``name``, ``clip_negative``...) stay those of the inner retriever:
    the registry is asked by name.
    """

    def __init__(self, inner: LeafRetriever, to_outer: np.ndarray, to_inner: np.ndarray):
        self.inner = inner
        self.to_outer = to_outer
        self.to_inner = to_inner
        self.num_docs = len(to_inner)

    @classmethod
    def onto(cls, inner: LeafRetriever, outer_docids: Sequence[str], outer: str = "the first index",
             other: str = "the second index") -> "MappedRetriever":
        """Map ``inner`` onto the keys ``0 .. len(outer_docids)-1`` of another index.

        Raises
        ------
        ValueError
            When the two indexes hold different docids (naming examples) or duplicates.
        """
        inner_docids = inner.all_docids()
        rows = {d: i for i, d in enumerate(inner_docids)}
        n = len(outer_docids)
        missing = [d for d in outer_docids if d not in rows]
        if missing or len(inner_docids) != n:
            extra = sorted(set(inner_docids) - set(outer_docids))
            raise ValueError(
                f"the indexes hold different corpora: {outer} has {n} documents, {other} has "
                f"{len(inner_docids)}; {len(missing)} docids of {outer} are not in {other} (e.g. {missing[:3]}), "
                f"{len(extra)} docids of {other} are not in {outer} (e.g. {extra[:3]}); build both from the same "
                "corpus"
            )
        to_inner = np.fromiter((rows[d] for d in outer_docids), dtype=np.int64, count=n)
        if len(np.unique(to_inner)) != n:
            raise ValueError(f"duplicate docids in {outer} or {other}: documents cannot be matched")
        to_outer = np.empty(n, dtype=np.int64)
        to_outer[to_inner] = np.arange(n, dtype=np.int64)
        return cls(inner, to_outer, to_inner)

    def search(self, text: str, k: int) -> LeafHits:
        hits = self.inner.search(text, k)
        return LeafHits(self.to_outer[hits.docs], hits.scores, hits.complete)

    def score(self, text: str, docs: np.ndarray) -> np.ndarray:
        return self.inner.score(text, self.to_inner[np.asarray(docs, dtype=np.int64)])

    def prepare(self, texts: Sequence[str]) -> None:
        self.inner.prepare(texts)

    def statistics(self, hits: LeafHits) -> LeafStatistics:
        return self.inner.statistics(hits)

    def calibration_keys(self) -> set[str]:
        return self.inner.calibration_keys()

    def docids(self, keys: np.ndarray) -> list[str]:
        return self.inner.docids(self.to_inner[np.asarray(keys, dtype=np.int64)])

    def key(self, docid: str) -> int | None:
        inner = self.inner.key(docid)
        return None if inner is None else int(self.to_outer[inner])

    def close(self) -> None:
        self.inner.close()

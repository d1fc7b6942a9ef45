"""``hybrid``: a retriever made of retrievers -- the weighted fusion of normalised component scores.

Fusion of a leaf ``t`` for document ``d`` with components ``c`` and weights ``w_c``::

    fused(t, d) = sum_c w_c * N_c(c(t, d))            (default: 0.5 * N_bm25 + 0.5 * N_dense)

Each component is normalised on its own, with the searcher's normalisation and
the component's statistics over its own top hits (``max`` divides by the
component's top score for ``t``, negative cosines count as 0; ``minmax`` spans
[floor, top]; ``sigmoid`` uses each component's calibration).  The fused value
is therefore already in [0, 1] and is composed as it is (``fused = True``).
A fused leaf's top hits are the best ``k`` of the union of its components' top
hits, each scored exactly by every component.
"""

from __future__ import annotations

import threading
from typing import Mapping, Sequence

import numpy as np

from ._base import LeafRetriever, exact_scores
from ._lucene import LeafHits
from ._registry import get_retriever

__all__ = ["HybridLeafRetriever"]


class HybridLeafRetriever(LeafRetriever):
    """Weighted fusion of component retrievers that share one key space.

    Parameters
    ----------
    parts : mapping of str to LeafRetriever
        Registry name -> component (already in the common key space, e.g. a
        :class:`MappedRetriever`); the name says how its scores are normalised.
    weights : mapping of str to float
        Weight of each component (non-negative).
    normalizer : Normalizer
        The searcher's normalisation, applied per component.
    leaf_hits : int
        Depth of each component's sub-search.
    """

    name = "hybrid"
    fused = True
    complete_hits = False

    def __init__(self, parts: Mapping[str, LeafRetriever], weights: Mapping[str, float], normalizer,
                 leaf_hits: int = 1000):
        if set(parts) != set(weights):
            raise ValueError(f"hybrid: components {sorted(parts)} but weights for {sorted(weights)}")
        if any(w < 0 for w in weights.values()):
            raise ValueError(f"hybrid: weights must be >= 0, got {dict(weights)}")
        self.parts = dict(parts)
        self.weights = dict(weights)
        self.normalizer = normalizer
        self.leaf_hits = int(leaf_hits)
        first = next(iter(self.parts.values()))
        self.num_docs = first.num_docs
        self._hits: dict[tuple[str, int], dict[str, LeafHits]] = {}
        self._lock = threading.Lock()

    def _components(self, text: str, k: int | None = None) -> dict[str, LeafHits]:
        # Cached per instance (a searcher makes one per query or batch); concurrent fills compute the same values.
        key = (text, k or self.leaf_hits)
        hits = self._hits.get(key)
        if hits is None:
            hits = {name: part.search(text, key[1]) for name, part in self.parts.items()}
            with self._lock:
                self._hits[key] = hits
        return hits

    def _fuse(self, text: str, docs: np.ndarray) -> np.ndarray:
        hits = self._components(text)
        fused = np.zeros(len(docs), dtype=np.float64)
        for name, part in self.parts.items():
            raw = exact_scores(hits[name], docs, lambda missing, p=part: p.score(text, missing))
            stats = part.statistics(hits[name])
            fused += self.weights[name] * get_retriever(name).normalize(self.normalizer, raw, stats.leaf_max,
                                                                         stats.floor)
        return fused

    def search(self, text: str, k: int) -> LeafHits:
        hits = self._components(text, k)
        docs = np.unique(np.concatenate([h.docs for h in hits.values()]))
        fused = self._fuse(text, docs)
        top = np.lexsort((docs, -fused))[:k]
        return LeafHits(docs[top], fused[top], complete=False)

    def score(self, text: str, docs: np.ndarray) -> np.ndarray:
        return self._fuse(text, np.asarray(docs, dtype=np.int64))

    def components(self, text: str, docs: np.ndarray) -> dict[str, float]:
        """Raw score of each component for one document (for ``explain``)."""
        return {name: float(part.score(text, docs)[0]) for name, part in self.parts.items()}

    def calibration_keys(self) -> set[str]:
        return {key for name in self.parts if (key := get_retriever(name).calibration_key())}

    def prepare(self, texts: Sequence[str]) -> None:
        for part in self.parts.values():
            part.prepare(texts)

    def docids(self, keys: np.ndarray) -> list[str]:
        return next(iter(self.parts.values())).docids(keys)

    def key(self, docid: str) -> int | None:
        return next(iter(self.parts.values())).key(docid)

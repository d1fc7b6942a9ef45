"""The retrieval pipeline shared by every logical searcher.

text -> tree -> leaf sub-searches -> candidate pool -> exact leaf scores for
the whole pool -> normalised leaf scores -> combined score -> ranking.

A *backend* supplies the two leaf operations on its own document keys
(internal Lucene docids, Faiss rows, ...):

* ``search(term, k) -> LeafHits``: the leaf's top ``k`` documents;
* ``score(term, docs) -> np.ndarray``: exact leaf scores of arbitrary documents.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from ..compose import Normalizer, Operators, compose
from ..query import Node, Term, distinct_terms, positive_terms
from ..retrieve import LeafHits, exact_scores

__all__ = ["LeafBackend", "NoPositiveTermError", "Pool", "score_pool"]


class NoPositiveTermError(ValueError):
    """The query only excludes (e.g. ``NOT "x"``), so it has no candidates."""


class LeafBackend(Protocol):
    def search(self, term: Term, k: int) -> LeafHits: ...

    def score(self, term: Term, docs: np.ndarray) -> np.ndarray: ...

    def retriever(self, term: Term) -> str: ...


@dataclass
class Pool:
    """Every candidate with its exact leaf scores and combined score.

    ``raw`` and ``normalized`` map :attr:`Term.key` to one value per entry of
    ``docs``; ``trace`` maps ``id(node)`` to node values (see
    :func:`logical_pyserini.compose.explain_tree`).
    """

    tree: Node
    docs: np.ndarray
    raw: dict[tuple, np.ndarray]
    normalized: dict[tuple, np.ndarray]
    combined: np.ndarray
    is_candidate: np.ndarray
    trace: dict[int, np.ndarray] = field(default_factory=dict)

    def ranking(self, k: int | None = None) -> np.ndarray:
        """Indices into ``docs`` by descending combined score.

        Ties keep the backend's document order (index order for Lucene), so
        runs are deterministic.
        """
        order = np.lexsort((self.docs, -self.combined))
        return order if k is None else order[:k]


def score_pool(
    tree: Node,
    backend: LeafBackend,
    operators: Operators,
    normalizer: Normalizer,
    leaf_hits: int,
    extra_docs: np.ndarray | None = None,
) -> Pool:
    """Run each distinct leaf once, then score the candidate pool exactly.

    Parameters
    ----------
    tree : Node
        Parsed query.
    backend : LeafBackend
        Leaf search / exact scoring.
    operators, normalizer
        Composition choices.
    leaf_hits : int
        Depth of every leaf sub-search.
    extra_docs : np.ndarray, optional
        Documents to score even if no positive leaf retrieved them (``explain``).

    Raises
    ------
    NoPositiveTermError
        When every leaf sits under an odd number of NOTs.
    """
    positives = {t.key for t in positive_terms(tree)}
    if not positives:
        raise NoPositiveTermError(
            f"query {tree} has no positive term: a NOT-only query cannot select candidates; "
            'add a term to match, e.g. "topic" AND NOT "x"'
        )
    terms = distinct_terms(tree)
    hits = {t.key: backend.search(t, leaf_hits) for t in terms}
    candidates = np.unique(np.concatenate([hits[key].docs for key in positives]))
    docs = candidates if extra_docs is None else np.union1d(candidates, np.asarray(extra_docs, dtype=np.int64))

    raw: dict[tuple, np.ndarray] = {}
    normalized: dict[tuple, np.ndarray] = {}
    for term in terms:
        leaf = hits[term.key]
        values = _exact_scores(term, leaf, docs, backend)
        raw[term.key] = values
        pool_min = float(min(values.min(initial=np.inf), leaf.scores.min(initial=np.inf)))
        pool_min = 0.0 if not np.isfinite(pool_min) else pool_min
        normalized[term.key] = normalizer(values, leaf.max, pool_min, backend.retriever(term))
    trace: dict[int, np.ndarray] = {}
    combined = compose(tree, normalized, operators, trace) if len(docs) else np.zeros(0)
    return Pool(tree, docs, raw, normalized, combined, np.isin(docs, candidates), trace)


def _exact_scores(term: Term, leaf: LeafHits, docs: np.ndarray, backend: LeafBackend) -> np.ndarray:
    """Leaf score of every pool document (see :func:`logical_pyserini.retrieve.exact_scores`)."""
    return exact_scores(leaf, docs, lambda missing: backend.score(term, missing))

"""``LogicalLuceneSearcher``: Pyserini's ``LuceneSearcher`` that enforces AND / OR / NOT."""

from __future__ import annotations

import logging

import numpy as np

from .._bootstrap import ensure_pyserini, jvm_lock
from ..compose import Normalizer, Operators
from ..query import Node, Term, parse_query
from ..retrieve import LuceneLeafScorer, boolean_query, check_lucene_index
from ._base import LogicalHit, LogicalSearchMixin

ensure_pyserini()
from pyserini.search.lucene import LuceneSearcher  # noqa: E402  (needs the bootstrap first)

logger = logging.getLogger(__name__)

__all__ = ["LogicalHit", "LogicalLuceneSearcher", "LuceneKeysMixin", "check_lucene_index"]


class LuceneKeysMixin:
    """Hooks of a searcher whose keys are the internal Lucene docids of ``self.leaves`` (a
    :class:`LuceneLeafScorer` over the searcher's own index), and whose one-leaf queries and
    ``plain_search`` are its Pyserini base class's ``search`` (:meth:`_pyserini_search`)."""

    #: Registry name of ``self.leaves``: the leaves a one-leaf query delegates to Pyserini.
    _own_retriever: str = "bm25"

    def _pyserini_search(self, q, k: int) -> list:
        raise NotImplementedError

    def plain_search(self, q: str, k: int = 10) -> list:
        """Pyserini's own ``search`` on the raw text: the baseline that ignores operators."""
        with jvm_lock:
            return self._pyserini_search(q, k)

    def _single_leaf(self, term: Term, k: int) -> list[LogicalHit] | None:
        if (term.retriever or self.leaf_retriever) != self._own_retriever:
            return None  # another retriever, or an error the backend reports
        # One leaf of the searcher's own kind: delegate, so the ranking is exactly Pyserini's.
        with jvm_lock:
            return [LogicalHit(h.docid, h.score, h.lucene_docid, {}, self) for h in self._pyserini_search(term.text, k)]

    def _docids(self, keys: np.ndarray) -> list[str]:
        return self.leaves.docids(keys)

    def _key(self, docid: str) -> int | None:
        return self.leaves.lucene_docid(docid)

    def _hit(self, docid: str, score: float, key: int, leaf_scores: dict[str, float]) -> LogicalHit:
        return LogicalHit(docid, score, key, leaf_scores, self)

    def _release_thread(self) -> None:
        import jnius

        jnius.detach()  # threads attached to the JVM must detach before they end

    def close(self) -> None:
        self.leaves.close()
        super().close()


class LogicalLuceneSearcher(LuceneKeysMixin, LogicalSearchMixin, LuceneSearcher):
    """Logical search over a Lucene index with BM25 leaves.

    Leaf BM25 scores are normalised into [0, 1] and combined by the operator
    tree.  By default the answer is the exact top-k over the whole collection
    (see :func:`~logical_pyserini.search.topk`), found by a threshold
    algorithm that searches each distinct leaf a few times at growing depth
    and scores only the documents that can still qualify; with
    ``pooled=True`` the candidates are the union of the positive leaves' top
    ``leaf_hits`` hits.  ``search``,
    ``batch_search`` and ``explain`` come from :class:`LogicalSearchMixin`.

    Parameters
    ----------
    index_dir : str
        Path to a Lucene index (built by ``python -m logical_pyserini.index``
        or Pyserini).
    operators : Operators, optional
        AND / OR / NOT operators (default product / sum / complement).
    normalize : str or Normalizer, optional
        Leaf score normalisation (default ``max``).
    leaf_hits : int, optional
        Depth of every leaf sub-search when ``pooled`` (default 1000).
    pooled : bool, optional
        False (default): the exact top-k over the whole collection, as if every
        document were scored on every leaf.  True: rank only the union of the
        positive leaves' top ``leaf_hits`` (not exact).  ``minmax``
        normalisation has no safe bound and is always pooled.

    Examples
    --------
    >>> searcher = LogicalLuceneSearcher("indexes/demo")          # doctest: +SKIP
    >>> hits = searcher.search('museum AND (Paris OR Amsterdam) AND NOT art')  # doctest: +SKIP
    >>> hits[0].docid, hits[0].score                             # doctest: +SKIP
    """

    def __init__(
        self,
        index_dir: str,
        operators: Operators | None = None,
        normalize: str | Normalizer = "max",
        leaf_hits: int = 1000,
        pooled: bool = False,
    ):
        check_lucene_index(index_dir)
        super().__init__(str(index_dir))
        self._setup(operators, normalize, leaf_hits, pooled)
        self.leaves = LuceneLeafScorer(str(index_dir), analyzer=self.object.get_analyzer(),
                                       similarity=self.object.get_similarity())

    @classmethod
    def from_prebuilt_index(cls, prebuilt_index_name: str, operators: Operators | None = None,
                            normalize: str | Normalizer = "max", leaf_hits: int = 1000,
                            verbose: bool = False) -> "LogicalLuceneSearcher":
        """A searcher over one of Pyserini's prebuilt BM25 indexes, from Pyserini's cache.

        Resolution, cache directory (``$PYSERINI_CACHE``) and download are
        Pyserini's own (see :func:`logical_pyserini._resources.resolve_index`).
        Unlike ``LuceneSearcher.from_prebuilt_index`` this raises instead of
        printing and returning None.

        Raises
        ------
        FileNotFoundError
            For a name Pyserini does not know.
        ResourceError
            For an index of another kind (naming the one to use), or one that is
            not cached and cannot be downloaded here (naming the cache path).
        """
        from .._resources import resolve_index

        resource = resolve_index(prebuilt_index_name, "lucene")
        if verbose:
            logger.info("initializing %s from %s", prebuilt_index_name, resource.path)
        searcher = cls(str(resource.path), operators, normalize, leaf_hits)
        searcher.prebuilt_index_name = prebuilt_index_name
        return searcher

    # Keep leaf scoring on the same similarity as plain search.
    def set_bm25(self, k1: float = 0.9, b: float = 0.4) -> None:
        super().set_bm25(k1, b)
        self.leaves.set_similarity(self.object.get_similarity())

    def _pyserini_search(self, q, k: int) -> list:
        """``LuceneSearcher.search`` (``plain_search`` and one-leaf queries)."""
        return LuceneSearcher.search(self, q, k)

    def boolean_query(self, q: str | Node):
        """The strict Lucene ``BooleanQuery`` of a logical query (the Boolean peer).

        AND -> MUST, OR -> SHOULD (at least one), NOT -> MUST_NOT, each leaf
        the bag-of-words query ``LuceneSearcher.search`` builds (a ``phrase:`` leaf its
        ``PhraseQuery``); see
        :func:`logical_pyserini.retrieve.boolean_query`.
        """
        tree = parse_query(q) if isinstance(q, str) else q

        def leaf(term: Term):
            if term.retriever not in (None, "bm25", "phrase"):
                raise ValueError(f"term {term} asks for a {term.retriever} retriever, but the Boolean peer is a "
                                 "Lucene query of BM25 (bag-of-words or phrase) leaves")
            return self.leaves.query(self.leaves.leaf_key(term))

        with jvm_lock:  # the BooleanQuery builder is a per-call Java object (see jvm_lock)
            return boolean_query(tree, leaf)

    def boolean_search(self, q: str | Node, k: int = 10) -> list:
        """The Boolean peer: ``LuceneSearcher.search`` on :meth:`boolean_query`.

        Only documents that satisfy the logic strictly are returned, ranked by
        Lucene's BM25 sum over the matching positive leaves (hits are
        Pyserini's ``ScoredDoc``, like :meth:`plain_search`).
        """
        with jvm_lock:
            return LuceneSearcher.search(self, self.boolean_query(q), k)

    # -- LogicalSearchMixin hooks ------------------------------------------
    leaf_retriever = "bm25"
    _missing_hint = "use LogicalHybridSearcher / --dense-index"
    _single_leaves_delegated = True

    def _retrievers(self) -> dict:
        return {"bm25": self.leaves, "phrase": self.leaves}  # one scorer: phrase leaves are PhraseQuery keys

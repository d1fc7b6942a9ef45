"""``LogicalLuceneSearcher``: Pyserini's ``LuceneSearcher`` that enforces AND / OR / NOT."""

from __future__ import annotations

import json
import logging
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .._bootstrap import ensure_pyserini
from ..compose import Normalizer, Operators, explain_tree
from ..query import NODE_TYPES, Node, Term, parse_query
from ..retrieve import LeafHits, LuceneLeafScorer
from ._pipeline import Pool, score_pool

ensure_pyserini()
from pyserini.search.lucene import LuceneSearcher  # noqa: E402  (needs the bootstrap first)

logger = logging.getLogger(__name__)

__all__ = ["LogicalHit", "LogicalLuceneSearcher", "check_lucene_index"]


def check_lucene_index(index_dir: str | os.PathLike) -> Path:
    """Fail with a clear message unless ``index_dir`` holds a Lucene index.

    Pyserini itself prints "Unrecognized index name" and carries on, or raises
    a Java stack trace; we want one sentence and a non-zero exit.
    """
    path = Path(index_dir)
    if not path.is_dir():
        raise FileNotFoundError(f"Lucene index not found: {index_dir} is not a directory")
    if not any(p.name.startswith("segments_") for p in path.iterdir()):
        raise FileNotFoundError(f"Lucene index not found: {index_dir} has no segments_N file (not a Lucene index?)")
    return path


@dataclass
class LogicalHit:
    """One ranked document, shaped like Pyserini's ``ScoredDoc``.

    Attributes
    ----------
    docid : str
        Collection docid.
    score : float
        Combined logical score (for a single-leaf query: Pyserini's BM25 score).
    lucene_docid : int
        Internal Lucene docid.
    leaf_scores : dict
        Term text -> normalised leaf score (empty for single-leaf queries).
    """

    docid: str
    score: float
    lucene_docid: int
    leaf_scores: dict[str, float] = field(default_factory=dict)
    _searcher: Any = field(default=None, repr=False, compare=False)

    @property
    def lucene_document(self):
        """The stored Lucene document (fetched on first access)."""
        return self._searcher.object.doc(int(self.lucene_docid))

    @property
    def raw(self) -> str | None:
        """The stored raw document (the JSON line for JsonCollection indexes)."""
        return self.lucene_document.get("raw")

    @property
    def contents(self) -> str | None:
        """Indexed text: the stored ``contents`` field, else ``contents`` of the raw JSON."""
        doc = self.lucene_document
        stored = doc.get("contents")
        if stored is not None:
            return stored
        raw = doc.get("raw")
        try:
            return json.loads(raw).get("contents") if raw else None
        except (json.JSONDecodeError, AttributeError):
            return raw


class _LuceneBackend:
    """Adapts :class:`LuceneLeafScorer` to the pipeline's backend protocol."""

    def __init__(self, scorer: LuceneLeafScorer):
        self.scorer = scorer

    @staticmethod
    def _check(term: Term) -> None:
        if term.retriever not in (None, "bm25"):
            raise ValueError(
                f"term {term} asks for a {term.retriever} retriever, but this searcher only has a "
                "Lucene index; use LogicalHybridSearcher / --dense-index"
            )

    def search(self, term: Term, k: int) -> LeafHits:
        self._check(term)
        return self.scorer.search(term.text, k)

    def score(self, term: Term, docs: np.ndarray) -> np.ndarray:
        return self.scorer.score(term.text, docs)

    def retriever(self, term: Term) -> str:
        return "bm25"


class LogicalLuceneSearcher(LuceneSearcher):
    """Logical search over a Lucene index with BM25 leaves.

    Each distinct leaf of the query runs once as a BM25 sub-search; the
    candidates are the union of the hits of the positive leaves; every
    candidate gets the exact BM25 score of every leaf; scores are normalised
    into [0, 1] and combined by the operator tree.

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
        Depth of every leaf sub-search (default 1000).

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
    ):
        check_lucene_index(index_dir)
        super().__init__(str(index_dir))
        self.operators = operators or Operators()
        self.normalizer = normalize if isinstance(normalize, Normalizer) else Normalizer(normalize)
        if leaf_hits < 1:
            raise ValueError(f"leaf_hits must be >= 1, got {leaf_hits}")
        self.leaf_hits = int(leaf_hits)
        self.leaves = LuceneLeafScorer(str(index_dir), analyzer=self.object.get_analyzer(),
                                       similarity=self.object.get_similarity())
        self._backend = _LuceneBackend(self.leaves)

    # Keep leaf scoring on the same similarity as plain search.
    def set_bm25(self, k1: float = 0.9, b: float = 0.4) -> None:
        super().set_bm25(k1, b)
        self.leaves.set_similarity(self.object.get_similarity())

    @staticmethod
    def _tree(q: str | Node) -> Node:
        return parse_query(q) if isinstance(q, str) else q

    def search(self, q: str | Node, k: int = 10, **kwargs) -> list[LogicalHit]:
        """Search with a logical query.

        Parameters
        ----------
        q : str or Node
            Query text in the logical query language (or a parsed tree).  A
            Lucene ``Query`` object is passed through to ``LuceneSearcher``.
        k : int
            Number of hits.

        Returns
        -------
        list of LogicalHit
            Best first.

        Raises
        ------
        QuerySyntaxError
            For malformed query text (with position).
        NoPositiveTermError
            For queries that only exclude.
        """
        if not isinstance(q, (str, *NODE_TYPES)):  # a Lucene Query object: plain Pyserini behaviour
            return super().search(q, k, **kwargs)
        tree = self._tree(q)
        if isinstance(tree, Term) and tree.retriever in (None, "bm25"):
            # One leaf is plain BM25: delegate, so the ranking is exactly Pyserini's.
            return [LogicalHit(h.docid, h.score, h.lucene_docid, {}, self) for h in super().search(tree.text, k)]
        pool = score_pool(tree, self._backend, self.operators, self.normalizer, self.leaf_hits)
        return self._hits(pool, k)

    def plain_search(self, q: str, k: int = 10) -> list:
        """``LuceneSearcher.search`` on the raw text: the baseline that ignores operators."""
        return LuceneSearcher.search(self, q, k)

    def _hits(self, pool: Pool, k: int) -> list[LogicalHit]:
        top = pool.ranking(k)
        docids = self.leaves.docids(pool.docs[top])
        texts = {key: key[0] for key in pool.normalized}
        return [
            LogicalHit(
                docid,
                float(pool.combined[i]),
                int(pool.docs[i]),
                {texts[key]: float(values[i]) for key, values in pool.normalized.items()},
                self,
            )
            for docid, i in zip(docids, top)
        ]

    def batch_search(
        self, queries: list[str], qids: list[str], k: int = 10, threads: int = 1, **kwargs
    ) -> dict[str, list[LogicalHit]]:
        """Search many queries; same results as calling :meth:`search` on each.

        Parameters
        ----------
        queries, qids : list of str
            Query texts and their ids (same length).
        k : int
            Hits per query.
        threads : int
            Worker threads.  Lucene work runs in the JVM, so threads overlap
            Java time with Python time; on 2 cores gains are modest.

        Raises
        ------
        QuerySyntaxError
            On the first malformed query (message prefixed with its qid); the
            CLI handles bad topics one by one instead.
        """
        if len(queries) != len(qids):
            raise ValueError(f"{len(queries)} queries but {len(qids)} qids")
        trees = []
        for qid, q in zip(qids, queries):
            try:
                trees.append(self._tree(q))
            except ValueError as exc:
                raise type(exc)(f"qid {qid}: {exc}") if not hasattr(exc, "query") else exc
        if threads <= 1:
            return {qid: self.search(tree, k) for qid, tree in zip(qids, trees)}

        def run(tree: Node) -> list[LogicalHit]:
            try:
                return self.search(tree, k)
            finally:
                import jnius

                jnius.detach()  # threads attached to the JVM must detach before they end

        with ThreadPoolExecutor(max_workers=threads) as pool:
            results = list(pool.map(run, trees))
        return dict(zip(qids, results))

    def explain(self, q: str | Node, docid: str) -> dict:
        """How ``docid`` is scored for ``q``.

        Returns
        -------
        dict
            The operator tree; every node has ``value``, operators have ``op``
            and ``children``, leaves have ``term``, ``raw`` (exact BM25) and
            ``normalized``.  The top level also has ``docid`` and ``score``
            (equal to the root's ``value``) and ``candidate`` (whether a
            positive leaf retrieved the document).
        """
        tree = self._tree(q)
        lucene_docid = self.leaves.lucene_docid(docid)
        if lucene_docid is None:
            raise KeyError(f"docid {docid!r} is not in the index")
        pool = score_pool(tree, self._backend, self.operators, self.normalizer, self.leaf_hits,
                          extra_docs=np.array([lucene_docid]))
        index = int(np.searchsorted(pool.docs, lucene_docid))
        report = explain_tree(tree, index, pool.trace, pool.raw)
        report.update(docid=docid, score=report["value"], candidate=bool(pool.is_candidate[index]))
        return report

    def close(self) -> None:
        self.leaves.close()
        super().close()

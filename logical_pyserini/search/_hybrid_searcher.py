"""``LogicalHybridSearcher``: logical search whose leaves are BM25, dense or fused.

Which retriever scores a leaf is chosen per leaf by its prefix (``bm25:``,
``dense:``, ``hybrid:``) and otherwise by the searcher's ``leaf_retriever``.

A ``hybrid`` leaf is scored by :class:`~logical_pyserini.retrieve.HybridLeafRetriever`
(the weighted fusion of separately normalised BM25 and dense scores; see there).

Documents are keyed by Lucene internal ids; the Faiss rows are mapped onto
them once, when the searcher loads (through the docids of both indexes).
"""

from __future__ import annotations

import logging
import time

import numpy as np

from ..compose import Normalizer, Operators
from ..query import Node, Term, map_terms, parse_query, pin_negated
from ..retrieve import HybridLeafRetriever, MappedRetriever, retriever_names
from ._base import LogicalHit, LogicalSearchMixin
from ._faiss_searcher import LogicalFaissSearcher
from ._lucene_searcher import LogicalLuceneSearcher

logger = logging.getLogger(__name__)

__all__ = ["LogicalHybridSearcher"]


class LogicalHybridSearcher(LogicalSearchMixin):
    """Logical search over a Lucene index and a Faiss index of the same corpus.

    Parameters
    ----------
    lucene_index : str
        Lucene index directory.
    faiss_index : str
        Faiss index directory of the same documents (same docids).
    query_encoder : QueryEncoder, SentenceEncoder or str, optional
        The encoder the Faiss index was built with (default all-MiniLM-L6-v2).
    leaf_retriever : str
        ``bm25``, ``dense`` or ``hybrid`` (default): the retriever of leaves
        without a prefix.
    operators, normalize, leaf_hits
        As for :class:`LogicalLuceneSearcher`.
    dense_weight : float
        Weight ``w`` of the dense component of a fused leaf (see the module
        docstring); 0.5 is the plain mean.
    negated_retriever : str, optional
        Retriever of leaves under a NOT that have no prefix (default: as
        ``leaf_retriever``).  ``bm25`` suits natural-language leaves: a dense
        "history museums" is close to every museum, so its complement would
        sink them all.

    Attributes
    ----------
    sparse : LogicalLuceneSearcher
    dense : LogicalFaissSearcher
    mapping_seconds : float
        Time spent mapping Faiss rows onto Lucene ids at load.

    Raises
    ------
    ValueError
        If the two indexes do not hold the same docids (naming examples), or
        for an unknown ``leaf_retriever``.
    """

    def __init__(
        self,
        lucene_index: str,
        faiss_index: str,
        query_encoder=None,
        leaf_retriever: str = "hybrid",
        operators: Operators | None = None,
        normalize: str | Normalizer = "max",
        leaf_hits: int = 1000,
        dense_weight: float = 0.5,
        negated_retriever: str | None = None,
    ):
        for name in (leaf_retriever, negated_retriever or leaf_retriever):
            if name not in retriever_names():
                raise ValueError(f"unknown leaf retriever {name!r}; choose from {', '.join(retriever_names())}")
        if not 0.0 <= dense_weight <= 1.0:
            raise ValueError(f"dense_weight must be in [0, 1], got {dense_weight}")
        self._setup(operators, normalize, leaf_hits)
        self.leaf_retriever = leaf_retriever
        self.negated_retriever = negated_retriever
        self.dense_weight = float(dense_weight)
        self.sparse = LogicalLuceneSearcher(lucene_index, self.operators, self.normalizer, leaf_hits)
        self.dense = LogicalFaissSearcher(faiss_index, query_encoder, self.operators, self.normalizer, leaf_hits)
        start = time.perf_counter()
        self._docid_of = self.sparse.leaves.all_docids()
        # Documents are keyed by Lucene internal ids; Faiss rows are mapped onto them once, here.
        self._dense_part = MappedRetriever.onto(self.dense.leaves, self._docid_of, f"Lucene {lucene_index}",
                                                f"Faiss {faiss_index}")
        self._row_of = self._dense_part.to_inner
        self._key_of = {d: i for i, d in enumerate(self._docid_of)}
        self.mapping_seconds = time.perf_counter() - start

    @classmethod
    def from_prebuilt_index(cls, lucene_index: str, faiss_index: str, query_encoder, leaf_retriever: str = "hybrid",
                            operators: Operators | None = None, normalize: str | Normalizer = "max",
                            leaf_hits: int = 1000, dense_weight: float = 0.5) -> "LogicalHybridSearcher":
        """A hybrid searcher over Pyserini prebuilt indexes (or directories) of the same corpus.

        E.g. ``("beir-v1.0.0-scifact.flat", "beir-v1.0.0-scifact.bge-base-en-v1.5", "models/bge-base-en-v1.5")``;
        ``query_encoder`` is the Faiss index's model, a local directory or a
        ``QueryEncoder``.  Raises like :meth:`LogicalLuceneSearcher.from_prebuilt_index`.
        """
        from .._resources import resolve_cli_indexes

        lucene, dense = resolve_cli_indexes(lucene_index, faiss_index, query_encoder)
        return cls(str(lucene.path), str(dense.path), query_encoder, leaf_retriever, operators, normalize,
                   leaf_hits, dense_weight)

    def set_bm25(self, k1: float = 0.9, b: float = 0.4) -> None:
        """BM25 parameters of the sparse leaves (and of plain search)."""
        self.sparse.set_bm25(k1, b)

    def plain_search(self, q: str, k: int = 10) -> list:
        """Baseline that ignores operators: Pyserini's ``HybridSearcher`` fusion of plain BM25 and
        plain dense search on the raw text (min-max normalised, equal weights, depth ``leaf_hits``)."""
        from pyserini.search.hybrid import HybridSearcher

        depth = max(k, self.leaf_hits)
        return HybridSearcher._hybrid_results(self.dense.plain_search(q, depth), self.sparse.plain_search(q, depth),
                                              alpha=1.0, k=k, normalization=True)

    def dense_candidates(self, q: str, k: int) -> list[LogicalHit]:
        """Top ``k`` documents of a plain dense search of ``q``, as hits whose stored text can be read.

        Reranking adds them to its candidates (``--rerank-add-dense``): a document
        that paraphrases a leaf is found by meaning although no lexical leaf matches it.
        """
        out = []
        for h in self.dense.plain_search(q, k):
            key = self._key_of.get(str(h.docid))
            if key is not None:  # the two indexes hold the same docids (checked at load)
                out.append(self._hit(str(h.docid), float(h.score), key, {}))
        return out

    def hybrid_candidates(self, q: str | Node, k: int) -> list[LogicalHit]:
        """Top ``k`` of the logical query with its positive leaves scored ``hybrid`` and its negated leaves
        ``bm25`` (leaves that name a retriever keep it), whatever this searcher's own ``leaf_retriever``.

        Reranking adds them to its candidates (``--rerank-add-hybrid``): the
        lexical run of the same query stays the base ranking, and documents
        that paraphrase a positive leaf can still be judged.  BM25 for the
        negated leaves: a dense ``NOT "history museums"`` is near every museum.
        """
        tree = pin_negated(parse_query(q) if isinstance(q, str) else q, "bm25")
        return self.search(map_terms(tree, lambda t: t if t.retriever else Term(t.text, "hybrid", t.start)), k)

    def boolean_search(self, q: str | Node, k: int = 10) -> list:
        """The Boolean peer on the Lucene index: a Boolean query is a Lucene construct, so every
        leaf is a BM25 bag of words here whatever its prefix (a ``phrase:`` leaf stays a phrase) (see ``LogicalLuceneSearcher.boolean_search``)."""
        tree = parse_query(q) if isinstance(q, str) else q
        return self.sparse.boolean_search(map_terms(tree, lambda t: Term(t.text, "phrase" if t.retriever == "phrase"
                                                                        else None)), k)

    # -- LogicalSearchMixin hooks ------------------------------------------
    def _retrievers(self) -> dict:
        parts = {"bm25": self.sparse.leaves, "dense": self._dense_part}
        # A fresh fused retriever per query or batch: it caches its components' hits.
        fused = HybridLeafRetriever(parts, {"bm25": 1 - self.dense_weight, "dense": self.dense_weight},
                                    self.normalizer, self.leaf_hits)
        return {**parts, "phrase": self.sparse.leaves, "hybrid": fused}

    def _single_leaf(self, term: Term, k: int) -> list[LogicalHit] | None:
        part = {"bm25": self.sparse, "dense": self.dense}.get(term.retriever or self.leaf_retriever)
        if part is None:
            return None  # a fused leaf goes through the pipeline
        hits = part._single_leaf(Term(term.text), k)  # exactly Pyserini's ranking
        return [self._hit(h.docid, h.score, self._key_of[h.docid], {}) for h in hits]

    def _docids(self, keys: np.ndarray) -> list[str]:
        return [self._docid_of[int(k)] for k in keys]

    def _key(self, docid: str) -> int | None:
        return self._key_of.get(docid)

    def _hit(self, docid: str, score: float, key: int, leaf_scores: dict[str, float]) -> LogicalHit:
        return LogicalHit(docid, score, key, leaf_scores, self.sparse, faiss_row=int(self._row_of[key]))

    def _release_thread(self) -> None:
        self.sparse._release_thread()

    def close(self) -> None:
        self.sparse.close()

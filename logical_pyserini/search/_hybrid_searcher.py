"""``LogicalHybridSearcher``: logical search whose leaves are BM25, dense or fused.

Which retriever scores a leaf is chosen per leaf by its prefix (``bm25:``,
``dense:``, ``hybrid:``) and otherwise by the searcher's ``leaf_retriever``.

Fusion of a ``hybrid`` leaf ``t`` for document ``d``::

    fused(t, d) = (1 - w) * N_bm25(bm25(t, d)) + w * N_dense(cos(t, d))      (w = dense_weight, 0.5)

Each component is normalised on its own, with the searcher's normalisation
and the component's statistics over the whole index: ``max`` divides by the
component's top score for ``t`` (negative cosines count as 0), ``minmax``
spans [0, top] for BM25 and [lowest of the top ``leaf_hits`` cosines, top]
for dense, ``sigmoid`` uses the calibration of each retriever.  The fused
value is therefore already in [0, 1] and is composed as it is.  A fused
leaf's top hits are the best ``leaf_hits`` of the union of its BM25 and dense
top hits, each scored exactly by both retrievers.

Documents are keyed by Lucene internal ids; the Faiss rows are mapped onto
them once, when the searcher loads (through the docids of both indexes).
"""

from __future__ import annotations

import logging
import time

import numpy as np

from ..compose import Normalizer, Operators
from ..query import RETRIEVERS, Node, Term, distinct_terms, map_terms, parse_query
from ..retrieve import LeafHits
from ._base import LeafNormalizer, LogicalHit, LogicalSearchMixin
from ._faiss_searcher import LogicalFaissSearcher, _DenseBackend
from ._lucene_searcher import LogicalLuceneSearcher, _LuceneBackend
from ._pipeline import _exact_scores

logger = logging.getLogger(__name__)

__all__ = ["LogicalHybridSearcher"]


class _SparsePart(_LuceneBackend):
    @staticmethod
    def _check(term: Term) -> None:
        """The hybrid backend has already chosen BM25 for this leaf."""


class _DensePart(_DenseBackend):
    @staticmethod
    def _check(term: Term) -> None:
        """The hybrid backend has already chosen dense for this leaf."""


class _HybridBackend:
    """Routes each leaf to BM25, dense or their fusion; keys are Lucene internal ids."""

    def __init__(self, searcher: "LogicalHybridSearcher"):
        self.default = searcher.leaf_retriever
        self.parts = {"bm25": searcher._sparse_part, "dense": searcher._dense_part}
        self.normalize = LeafNormalizer(searcher.normalizer)
        self.dense_weight = searcher.dense_weight
        self.leaf_hits = searcher.leaf_hits
        self._component_hits: dict[tuple, dict[str, LeafHits]] = {}

    def retriever(self, term: Term) -> str:
        return term.retriever or self.default

    def search(self, term: Term, k: int) -> LeafHits:
        kind = self.retriever(term)
        if kind != "hybrid":
            return self.parts[kind].search(term, k)
        hits = self._components(term, k)
        docs = np.union1d(hits["bm25"].docs, hits["dense"].docs)
        fused = self._fuse(term, docs)
        top = np.lexsort((docs, -fused))[:k]
        return LeafHits(docs[top], fused[top], complete=False)

    def score(self, term: Term, docs: np.ndarray) -> np.ndarray:
        kind = self.retriever(term)
        return self.parts[kind].score(term, docs) if kind != "hybrid" else self._fuse(term, docs)

    def components(self, term: Term, docs: np.ndarray) -> dict[str, float] | None:
        """Raw BM25 and dense scores of one document for a fused leaf (for ``explain``)."""
        if self.retriever(term) != "hybrid":
            return None
        return {name: float(part.score(term, docs)[0]) for name, part in self.parts.items()}

    def _components(self, term: Term, k: int | None = None) -> dict[str, LeafHits]:
        # Cached per backend (one query or batch); concurrent fills compute the same values.
        key = (term.key[0], k or self.leaf_hits)
        if key not in self._component_hits:
            self._component_hits[key] = {name: part.search(term, key[1]) for name, part in self.parts.items()}
        return self._component_hits[key]

    def _fuse(self, term: Term, docs: np.ndarray) -> np.ndarray:
        hits = self._components(term)
        bm25 = _exact_scores(term, hits["bm25"], docs, self.parts["bm25"])
        dense = _exact_scores(term, hits["dense"], docs, self.parts["dense"])
        floor = float(hits["dense"].scores.min()) if len(hits["dense"].scores) else 0.0
        w = self.dense_weight
        return ((1 - w) * self.normalize(bm25, hits["bm25"].max, 0.0, "bm25")
                + w * self.normalize(dense, hits["dense"].max, floor, "dense"))


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
    ):
        if leaf_retriever not in RETRIEVERS:
            raise ValueError(f"unknown leaf retriever {leaf_retriever!r}; choose from {', '.join(RETRIEVERS)}")
        if not 0.0 <= dense_weight <= 1.0:
            raise ValueError(f"dense_weight must be in [0, 1], got {dense_weight}")
        self._setup(operators, normalize, leaf_hits)
        self.leaf_retriever = leaf_retriever
        self.dense_weight = float(dense_weight)
        self.sparse = LogicalLuceneSearcher(lucene_index, self.operators, self.normalizer, leaf_hits)
        self.dense = LogicalFaissSearcher(faiss_index, query_encoder, self.operators, self.normalizer, leaf_hits)
        start = time.perf_counter()
        self._map_documents(lucene_index, faiss_index)
        self.mapping_seconds = time.perf_counter() - start
        self._sparse_part = _SparsePart(self.sparse.leaves)
        self._dense_part = _DensePart(self.dense.leaves, row_of=self._row_of, key_of=self._lucene_of)

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

    def _map_documents(self, lucene_index: str, faiss_index: str) -> None:
        """``_row_of[lucene id]`` and ``_lucene_of[row]``, checked to be inverse bijections."""
        n = int(self.sparse.num_docs)
        self._docid_of = self.sparse.leaves.docids(np.arange(n, dtype=np.int64))
        faiss_docids = self.dense.leaves.docids_by_row
        rows = {d: i for i, d in enumerate(faiss_docids)}
        missing = [d for d in self._docid_of if d not in rows]
        if missing or len(faiss_docids) != n:
            extra = sorted(set(faiss_docids) - set(self._docid_of))
            raise ValueError(
                f"the indexes hold different corpora: Lucene {lucene_index} has {n} documents, Faiss "
                f"{faiss_index} has {len(faiss_docids)}; {len(missing)} Lucene docids are not in the Faiss "
                f"index (e.g. {missing[:3]}), {len(extra)} Faiss docids are not in the Lucene index "
                f"(e.g. {extra[:3]}); build both from the same corpus"
            )
        self._row_of = np.fromiter((rows[d] for d in self._docid_of), dtype=np.int64, count=n)
        if len(np.unique(self._row_of)) != n:
            raise ValueError(f"duplicate docids in {lucene_index} or {faiss_index}: documents cannot be matched")
        self._lucene_of = np.empty(n, dtype=np.int64)
        self._lucene_of[self._row_of] = np.arange(n, dtype=np.int64)
        self._key_of = {d: i for i, d in enumerate(self._docid_of)}

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

    def boolean_search(self, q: str | Node, k: int = 10) -> list:
        """The Boolean peer on the Lucene index: a Boolean query is a Lucene construct, so every
        leaf is a BM25 bag of words here whatever its prefix (see ``LogicalLuceneSearcher.boolean_search``)."""
        tree = parse_query(q) if isinstance(q, str) else q
        return self.sparse.boolean_search(map_terms(tree, lambda t: Term(t.text)), k)

    # -- LogicalSearchMixin hooks ------------------------------------------
    def _backend(self, trees: list[Node]) -> _HybridBackend:
        backend = _HybridBackend(self)
        self.dense.leaves.encode([t.text for tree in trees for t in distinct_terms(tree)
                                  if backend.retriever(t) != "bm25"])
        return backend

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

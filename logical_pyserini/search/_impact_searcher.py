"""``LogicalImpactSearcher``: Pyserini's ``LuceneImpactSearcher`` (uniCOIL, SPLADE...) that enforces AND / OR / NOT."""

from __future__ import annotations

from .._bootstrap import ensure_pyserini
from ..compose import Normalizer, Operators
from ..retrieve import check_lucene_index
from ..retrieve._impact import ImpactLeafScorer, impact_query_encoder
from ._base import LogicalSearchMixin
from ._lucene_searcher import LuceneKeysMixin

ensure_pyserini()
from pyserini.search.lucene import LuceneImpactSearcher  # noqa: E402  (needs the bootstrap first)

__all__ = ["LogicalImpactSearcher"]


class LogicalImpactSearcher(LuceneKeysMixin, LogicalSearchMixin, LuceneImpactSearcher):
    """Logical search over a Lucene impact index, with learned-sparse leaves (registry name ``impact``).

    Each leaf is encoded by the index's query encoder and scored
    ``sum_t w_q(t) * w_d(t)``, as ``LuceneImpactSearcher`` scores a query; a
    one-leaf query is ``LuceneImpactSearcher.search`` itself.  ``search``,
    ``batch_search`` and ``explain`` come from :class:`LogicalSearchMixin`.

    Parameters
    ----------
    index_dir : str
        Lucene impact index (Anserini ``-impact -pretokenized``).
    query_encoder : QueryEncoder, str or None
        A Pyserini query encoder, a local uniCOIL / SPLADE model directory, a
        JSONL file of pre-encoded queries, or None (whitespace tokens weighted
        by count: pre-tokenized queries); see
        :func:`~logical_pyserini.retrieve._impact.impact_query_encoder`.
    operators, normalize, leaf_hits, pooled
        As :class:`~logical_pyserini.search.LogicalLuceneSearcher`.
    """

    def __init__(self, index_dir: str, query_encoder=None, operators: Operators | None = None,
                 normalize: str | Normalizer = "max", leaf_hits: int = 1000, pooled: bool = False,
                 prebuilt_index_name: str | None = None):
        check_lucene_index(index_dir)
        encoder = impact_query_encoder(query_encoder, prebuilt_index_name)
        super().__init__(str(index_dir), encoder, prebuilt_index_name=prebuilt_index_name)
        self._setup(operators, normalize, leaf_hits, pooled)
        self.leaves = ImpactLeafScorer(str(index_dir), encoder)

    @classmethod
    def from_prebuilt_index(cls, prebuilt_index_name: str, query_encoder, operators: Operators | None = None,
                            normalize: str | Normalizer = "max", leaf_hits: int = 1000) -> "LogicalImpactSearcher":
        """A searcher over one of Pyserini's prebuilt impact indexes, from Pyserini's cache.

        The counterpart of ``LuceneImpactSearcher.from_prebuilt_index``;
        ``query_encoder`` must be given (a ``QueryEncoder``, a local model
        directory or a JSONL file of pre-encoded queries).  Raises like
        :meth:`LogicalLuceneSearcher.from_prebuilt_index`, and for a missing encoder.
        """
        from .._resources import check_impact_encoder, resolve_index

        resource = resolve_index(prebuilt_index_name, "impact")
        check_impact_encoder(resource, query_encoder, "query_encoder")
        return cls(str(resource.path), query_encoder, operators, normalize, leaf_hits,
                   prebuilt_index_name=prebuilt_index_name)

    def encode(self, query: str) -> dict:
        """The leaves' encoder (one error for a text a pre-encoded queries file lacks)."""
        return self.leaves.encode(query)

    def _pyserini_search(self, q, k: int) -> list:
        """``LuceneImpactSearcher.search`` (``plain_search`` and one-leaf queries)."""
        return LuceneImpactSearcher.search(self, q, k)

    def boolean_search(self, q, k: int = 10) -> list:
        raise ValueError("the Boolean peer is a Lucene BooleanQuery of BM25 leaves: it needs a BM25 --index, "
                         "not an impact index")

    # -- LogicalSearchMixin hooks ------------------------------------------
    leaf_retriever = _own_retriever = "impact"
    _missing_hint = "search a BM25 --index and give this impact index as --impact-index"
    _single_leaves_delegated = True

    def _retrievers(self) -> dict:
        return {"impact": self.leaves}

"""``LogicalFaissSearcher``: Pyserini's ``FaissSearcher`` that enforces AND / OR / NOT."""

from __future__ import annotations

import json
import logging
import os
import sys
from pathlib import Path

import numpy as np

from .._bootstrap import ensure_pyserini
from ..compose import Normalizer, Operators
from ..query import Term
from ..retrieve import FaissLeafScorer, check_faiss_index

ensure_pyserini()
from pyserini.encode import QueryEncoder  # noqa: E402  (needs the bootstrap first)
from pyserini.search.faiss import FaissSearcher  # noqa: E402

from ..encode import OpenAIQueryEncoder, SentenceEncoder  # noqa: E402
from ..encode._query_encoder import SentenceQueryEncoder  # noqa: E402
from ._base import LogicalHit, LogicalSearchMixin  # noqa: E402

logger = logging.getLogger(__name__)

__all__ = ["LogicalFaissSearcher", "as_query_encoder"]


def as_query_encoder(encoder: QueryEncoder | SentenceEncoder | str | os.PathLike | None) -> QueryEncoder:
    """A query encoder: given, an :class:`OpenAIQueryEncoder` for ``openai:MODEL`` (an embeddings endpoint),
    or a :class:`SentenceQueryEncoder` for a local model name / directory / encoder."""
    if isinstance(encoder, str) and encoder.startswith("openai:"):
        return OpenAIQueryEncoder(encoder)
    return encoder if isinstance(encoder, (QueryEncoder, OpenAIQueryEncoder)) else SentenceQueryEncoder(encoder)


def _batch_encode(encoder: QueryEncoder):
    """``list[str] -> (n, d)``: ``encode_batch`` when the encoder has it, else one call per text."""
    if hasattr(encoder, "encode_batch"):
        return encoder.encode_batch
    return lambda texts: np.stack([np.asarray(encoder.encode(t), dtype=np.float32).reshape(-1) for t in texts])


class LogicalFaissSearcher(LogicalSearchMixin, FaissSearcher):
    """Logical search over a Faiss index with dense (cosine) leaves.

    Every distinct leaf of a query is encoded in one batch (for
    ``batch_search``: the leaves of the whole batch); each leaf's top hits
    come from ``index.search``; every candidate gets the exact cosine of every
    leaf from its stored vector (never 0 for a document outside a leaf's
    top hits); scores are normalised and combined by the operator tree.

    Parameters
    ----------
    index_dir : str
        Pyserini Faiss index directory (``index`` + ``docid``), e.g. built by
        ``python -m logical_pyserini.index --dense``.
    query_encoder : QueryEncoder, SentenceEncoder or str, optional
        Pyserini query encoder, or a model for :class:`SentenceQueryEncoder`
        (default: the packaged all-MiniLM-L6-v2).  Must be the model the index
        was built with.
    operators : Operators, optional
        AND / OR / NOT operators (default product / sum / complement).
    normalize : str or Normalizer, optional
        Leaf score normalisation (default ``max``; negative cosines count as 0).
    leaf_hits : int, optional
        Depth of every leaf sub-search (default 1000).

    Raises
    ------
    FileNotFoundError
        If the directory, its ``index`` or its ``docid`` file is missing, or
        the encoder is unknown.
    ValueError
        If the encoder's dimension differs from the index's.

    Examples
    --------
    >>> searcher = LogicalFaissSearcher("indexes/demo-dense")        # doctest: +SKIP
    >>> searcher.search('"vitamin D benefits" AND NOT "bone health"', k=10)  # doctest: +SKIP
    """

    def __init__(
        self,
        index_dir: str,
        query_encoder: QueryEncoder | SentenceEncoder | str | None = None,
        operators: Operators | None = None,
        normalize: str | Normalizer = "max",
        leaf_hits: int = 1000,
    ):
        check_faiss_index(index_dir)
        encoder = as_query_encoder(query_encoder)
        try:
            super().__init__(str(index_dir), encoder)
        except AssertionError:  # FaissSearcher asserts one docid per vector
            raise ValueError(f"Faiss index {index_dir}: the docid file and the index hold different numbers "
                             "of documents (one docid per line, in row order)") from None
        self._setup(operators, normalize, leaf_hits)
        self.leaves = FaissLeafScorer(self.index, self.docids, _batch_encode(encoder),
                                      dimension=getattr(encoder, "dimension", None))
        _warn_on_other_encoder(index_dir, encoder)

    @classmethod
    def from_prebuilt_index(cls, prebuilt_index_name: str, query_encoder: QueryEncoder | SentenceEncoder | str,
                            operators: Operators | None = None, normalize: str | Normalizer = "max",
                            leaf_hits: int = 1000) -> "LogicalFaissSearcher":
        """A searcher over one of Pyserini's prebuilt Faiss indexes, from Pyserini's cache.

        ``query_encoder`` is the model the index was encoded with: a Pyserini
        ``QueryEncoder`` object or a local model directory (nothing is
        downloaded from a model hub).  Raises like
        :meth:`LogicalLuceneSearcher.from_prebuilt_index`.
        """
        from .._resources import resolve_cli_indexes

        _, resource = resolve_cli_indexes(None, prebuilt_index_name, query_encoder)
        searcher = cls(str(resource.path), query_encoder, operators, normalize, leaf_hits)
        searcher.prebuilt_index_name = prebuilt_index_name
        return searcher

    def plain_search(self, q: str, k: int = 10) -> list:
        """``FaissSearcher.search`` on the raw text: the baseline that ignores operators."""
        return self._faiss_search(q, k)

    def _faiss_search(self, q: str, k: int) -> list:
        """``FaissSearcher.search``, leaving the process's thread count as it was.

        Pyserini sets OpenMP to its ``threads`` argument (1) for the whole
        process on every call; torch shares that runtime, so a language model
        in the same process (an OrLog oracle after a dense search) then ran on
        one core: the demo's OrLog(LLM) took twice as long on 2 cores.
        """
        import faiss

        threads = faiss.omp_get_max_threads()
        torch = sys.modules.get("torch")
        torch_threads = torch.get_num_threads() if torch is not None else None
        try:
            return FaissSearcher.search(self, q, k, threads=threads)  # OpenMP stays at ``threads``
        finally:
            if torch_threads is not None and torch.get_num_threads() != torch_threads:
                torch.set_num_threads(torch_threads)

    # -- LogicalSearchMixin hooks ------------------------------------------
    leaf_retriever = "dense"
    _missing_hint = "use LogicalHybridSearcher / --index together with --dense-index"
    # One-leaf queries are encoded by FaissSearcher.search itself.
    _single_leaves_delegated = True

    def _retrievers(self) -> dict:
        return {"dense": self.leaves}

    def _single_leaf(self, term: Term, k: int) -> list[LogicalHit] | None:
        if term.retriever not in (None, "dense"):
            return None  # the backend reports the unsupported retriever
        # One leaf is plain dense retrieval: delegate, so the ranking is exactly FaissSearcher's.
        return [self._hit(h.docid, float(h.score), self.leaves.row(h.docid), {})
                for h in self._faiss_search(term.text, k)]

    def _docids(self, keys: np.ndarray) -> list[str]:
        return self.leaves.docids(keys)

    def _key(self, docid: str) -> int | None:
        return self.leaves.row(docid)

    def _hit(self, docid: str, score: float, key: int, leaf_scores: dict[str, float]) -> LogicalHit:
        return LogicalHit(docid, score, None, leaf_scores, self, faiss_row=key)


def _warn_on_other_encoder(index_dir: str | os.PathLike, encoder: QueryEncoder) -> None:
    """Same dimension but another model still gives meaningless scores: say so."""
    meta = Path(index_dir) / "meta.json"
    name = getattr(encoder, "name", None)
    if not meta.is_file() or name is None:
        return
    try:
        built_with = json.loads(meta.read_text(encoding="utf-8")).get("encoder")
    except (OSError, json.JSONDecodeError):
        return
    if built_with and built_with != name:
        logger.warning("Faiss index %s was built with encoder %r but queries use %r", index_dir, built_with, name)

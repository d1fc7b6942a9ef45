"""The plug-in unit of retrieval: a :class:`LeafRetriever` scores one query leaf over one index.

Everything above ``retrieve/`` (the scoring pipeline, the searchers, the CLI,
calibration) talks to leaves only through this interface and finds
implementations through the registry (:mod:`._registry`), by the name a query
writes as a prefix (``bm25:``, ``dense:``, ``impact:``...).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, ClassVar, NamedTuple, Sequence

import numpy as np

if TYPE_CHECKING:
    from ._lucene import LeafHits

__all__ = ["LeafRetriever", "LeafStatistics", "exact_scores"]


class LeafStatistics(NamedTuple):
    """What normalisation needs of one leaf's hits.

    ``leaf_max`` is the top score; ``floor`` the score that maps to 0 under
    ``minmax`` (0 for term retrievers, whose non-matching documents score 0;
    the lowest retrieved score for similarity retrievers).
    """

    leaf_max: float
    floor: float


class LeafRetriever(ABC):
    """Search a leaf to depth ``k`` and score it exactly on any document.

    Documents are identified by *keys*: int64 numbers private to the
    retriever (internal Lucene ids, Faiss rows); :meth:`docids` and
    :meth:`key` translate them to and from collection docids, which is how
    retrievers over different indexes of one corpus are combined
    (:class:`~logical_pyserini.retrieve.MappedRetriever`).

    Class attributes describe a retriever to the rest of the library without
    an instance, so the CLI and the normaliser read them from the registry:

    Attributes
    ----------
    name : str
        Registry name; also the query prefix (``impact:"..."``).
    index_option : str or None
        The command-line flag that names this retriever's index
        (``--impact-index``); None for retrievers built from others (hybrid)
        or from the searcher's own index.
    fused : bool
        Scores arrive already normalised (a retriever made of retrievers,
        like ``hybrid``): the normaliser passes them through and they have
        no calibration key.
    clip_negative : bool
        Similarity scores can be negative; under ``max`` normalisation a
        negative score counts as 0 (with the product AND two negative
        leaves would multiply into a positive score).
    complete_hits : bool
        Whether a leaf's hit list can be complete (every non-listed
        document scores 0: term matching).  Similarity retrievers score every
        document and never are.
    """

    name: ClassVar[str] = ""
    index_option: ClassVar[str | None] = None
    index_help: ClassVar[str] = ""
    fused: ClassVar[bool] = False
    clip_negative: ClassVar[bool] = False
    complete_hits: ClassVar[bool] = True

    num_docs: int

    @classmethod
    def calibration_key(cls) -> str | None:
        """Key of this retriever's ``σ((s-τ)λ)`` parameters in a calibration file (None: fused, not calibrated)."""
        return None if cls.fused else cls.name

    @classmethod
    def open(cls, index: str, **options) -> "LeafRetriever":
        """The retriever over ``index`` (the value of :attr:`index_option`); options come from the CLI config."""
        raise NotImplementedError(f"the {cls.name} retriever cannot be opened from an index path alone")

    # -- the leaf operations the pipeline uses ------------------------------
    @abstractmethod
    def search(self, text: str, k: int) -> LeafHits:
        """Top ``k`` keys of one leaf, best first, with exact scores."""

    @abstractmethod
    def score(self, text: str, docs: np.ndarray) -> np.ndarray:
        """Exact leaf score of each key in ``docs`` (0 where a term retriever does not match)."""

    def prepare(self, texts: Sequence[str]) -> None:
        """Called once per query or batch with every leaf text first (e.g. to encode them in one pass)."""

    def statistics(self, hits: LeafHits) -> LeafStatistics:
        """Normalisation statistics of one leaf from its hits."""
        floor = float(hits.scores.min()) if self.clip_negative and len(hits.scores) else 0.0
        return LeafStatistics(hits.max, floor)

    def calibration_keys(self) -> set[str]:
        """Calibration keys whose parameters scoring with this retriever needs (a fused one: its parts')."""
        key = type(self).calibration_key()
        return {key} if key else set()

    @classmethod
    def normalize(cls, normalizer, raw: np.ndarray, leaf_max: float, floor: float) -> np.ndarray:
        """Apply ``normalizer`` (a :class:`~logical_pyserini.compose.Normalizer`) to this retriever's raw scores.

        Fused retrievers pass through; similarity retrievers clip negative
        values under ``max`` (see :attr:`clip_negative`).
        """
        if cls.fused:
            return np.asarray(raw, dtype=np.float64)
        out = normalizer(raw, leaf_max, floor, cls.calibration_key())
        if cls.clip_negative and normalizer.method == "max":
            out = np.maximum(out, 0.0)
        return out

    # -- keys ----------------------------------------------------------------
    @abstractmethod
    def docids(self, keys: np.ndarray) -> list[str]:
        """Collection docids of keys."""

    @abstractmethod
    def key(self, docid: str) -> int | None:
        """Key of a collection docid (None if absent)."""

    def all_docids(self) -> list[str]:
        """Docid of every key ``0 .. num_docs-1`` (to map another index onto this one)."""
        return self.docids(np.arange(self.num_docs, dtype=np.int64))

    def close(self) -> None:
        """Release the index."""


def exact_scores(hits: "LeafHits", docs: np.ndarray, score) -> np.ndarray:
    """Leaf score of every document in ``docs``: from the leaf's own hits where it has them, from
    ``score(missing_docs)`` (the retriever's exact scorer) for the rest -- unless the hit list is complete,
    in which case the rest is exactly 0."""
    values = np.zeros(len(docs), dtype=np.float64)
    if len(hits.docs):
        order = np.argsort(hits.docs)
        pos = np.searchsorted(hits.docs, docs, sorter=order)
        pos = np.minimum(pos, len(hits.docs) - 1)
        found = hits.docs[order[pos]] == docs
        values[found] = hits.scores[order[pos[found]]]
    else:
        found = np.zeros(len(docs), dtype=bool)
    if not hits.complete and not found.all():
        values[~found] = score(docs[~found])
    return values

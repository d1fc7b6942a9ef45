"""Dense leaves on a Faiss index: top hits per leaf and exact scores for any rows.

Documents are Faiss rows (int64) until the final ranking.  A dense leaf never
has a *complete* hit list: every document has some cosine with the leaf, so
the pipeline asks :meth:`FaissLeafScorer.score` for every candidate outside a
leaf's top hits, and that score is computed from the stored vector, never
assumed to be 0.
"""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from ..query import normalize_text
from ._base import LeafRetriever
from ._lucene import LeafHits

logger = logging.getLogger(__name__)

__all__ = ["FaissLeafScorer", "check_faiss_index", "read_docids"]

INDEX_FILE = "index"
DOCID_FILE = "docid"


def check_faiss_index(index_dir: str | os.PathLike) -> Path:
    """Fail with one clear sentence unless ``index_dir`` is a Pyserini Faiss index.

    Pyserini would raise a bare ``FileNotFoundError`` for ``docid`` or a
    Faiss C++ error for ``index``.
    """
    path = Path(index_dir)
    if not path.is_dir():
        raise FileNotFoundError(f"Faiss index not found: {index_dir} is not a directory")
    if not (path / INDEX_FILE).is_file():
        raise FileNotFoundError(f"Faiss index not found: {index_dir} has no '{INDEX_FILE}' file (not a Faiss index?)")
    if not (path / DOCID_FILE).is_file():
        raise FileNotFoundError(
            f"Faiss index {index_dir} has no '{DOCID_FILE}' file (one docid per line, in index row order); "
            "rebuild it with `python -m logical_pyserini.index --dense`"
        )
    return path


def read_docids(index_dir: str | os.PathLike) -> list[str]:
    """The ``docid`` file of a Faiss index directory, one docid per row."""
    with open(Path(index_dir) / DOCID_FILE, encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f]


class FaissLeafScorer(LeafRetriever):
    """Dense leaves (registry name ``dense``): sub-searches and exact scoring against one Faiss index.

    Parameters
    ----------
    index : faiss.Index
        An inner-product index (``IndexFlatIP`` as built by
        ``python -m logical_pyserini.index --dense``); share the one a
        ``FaissSearcher`` already loaded.
    docids : list of str
        Collection docid of every row.
    encode : callable
        ``list[str] -> (n, d) float32``: the query encoder, batched.
    dimension : int, optional
        The encoder's output size, checked against the index now (else on the
        first encoding).

    Notes
    -----
    Scores are inner products between the leaf vector and the stored vectors:
    cosine similarity for the unit-length vectors of :class:`SentenceEncoder`,
    and exactly what ``FaissSearcher.search`` ranks by.  For ``IndexFlat`` the
    stored vectors are read in place (no copy); other index types go through
    ``reconstruct_batch``.
    """

    name = "dense"
    index_option = "--dense-index"
    clip_negative = True
    complete_hits = False

    #: Leaf vectors kept between queries (a query's leaves recur across topics).
    CACHE_SIZE = 100_000

    def __init__(
        self,
        index,
        docids: Sequence[str],
        encode: Callable[[list[str]], np.ndarray],
        dimension: int | None = None,
    ):
        import faiss

        if len(docids) != index.ntotal:
            raise ValueError(f"the docid file has {len(docids)} lines but the Faiss index holds {index.ntotal} vectors")
        if index.metric_type != faiss.METRIC_INNER_PRODUCT:
            logger.warning("Faiss index metric is not inner product: leaf scores are still inner products")
        self.index = index
        self.docids_by_row = list(docids)
        self.dimension = int(index.d)
        self._encode = encode
        if dimension is not None:
            self._check_dimension(int(dimension))
        self._vectors = self._stored_vectors(index)
        self._cache: dict[str, np.ndarray] = {}
        self._lock = threading.Lock()
        self._row_of: dict[str, int] | None = None
        self.num_docs = int(index.ntotal)

    def _check_dimension(self, got: int) -> None:
        if got != self.dimension:
            raise ValueError(
                f"dimension mismatch: the Faiss index holds {self.dimension}-d vectors but the query encoder "
                f"gives {got}-d; use the encoder the index was built with (--encoder)"
            )

    @staticmethod
    def _stored_vectors(index) -> np.ndarray | None:
        """Zero-copy view of an ``IndexFlat``'s vectors, else None (use reconstruct)."""
        import faiss

        if isinstance(index, faiss.IndexFlat):
            return faiss.rev_swig_ptr(index.get_xb(), index.ntotal * index.d).reshape(index.ntotal, index.d)
        ivf = faiss.try_extract_index_ivf(index)
        if ivf is not None:
            ivf.make_direct_map()  # IVF indexes cannot reconstruct rows without it
        try:
            index.reconstruct_batch(np.zeros(min(1, index.ntotal), dtype=np.int64))
        except RuntimeError as exc:
            raise ValueError(
                f"{type(index).__name__} cannot return stored vectors, which exact leaf scores need ({exc})"
            ) from None
        return None

    # -- query vectors -----------------------------------------------------
    def encode(self, texts: Sequence[str]) -> None:
        """Encode every not-yet-cached leaf text in one batch (one forward pass per batch)."""
        todo = [t for t in dict.fromkeys(normalize_text(t) for t in texts) if t not in self._cache]
        if not todo:
            return
        vectors = np.asarray(self._encode(todo), dtype=np.float32).reshape(len(todo), -1)
        self._check_dimension(vectors.shape[1])
        with self._lock:
            if len(self._cache) + len(todo) > self.CACHE_SIZE:
                self._cache.clear()
            self._cache.update(zip(todo, vectors))

    def clear_cache(self) -> None:
        """Forget encoded leaf vectors (e.g. to time cold queries)."""
        with self._lock:
            self._cache.clear()

    def vector(self, text: str) -> np.ndarray:
        """Unit vector of a leaf text (encoded now if it was not prepared by :meth:`encode`)."""
        key = normalize_text(text)
        vec = self._cache.get(key)
        if vec is None:
            self.encode([key])
            vec = self._cache[key]
        return vec

    def prepare(self, texts: Sequence[str]) -> None:
        self.encode(texts)

    # -- leaves ------------------------------------------------------------
    def search(self, text: str, k: int) -> LeafHits:
        """Top ``k`` rows of one leaf with their inner products (never complete)."""
        if self.num_docs == 0:
            return LeafHits(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32), complete=True)
        scores, rows = self.index.search(self.vector(text)[None, :], int(min(k, self.num_docs)))
        keep = rows[0] >= 0
        return LeafHits(rows[0][keep].astype(np.int64), scores[0][keep].astype(np.float32), complete=False)

    def score(self, text: str, rows: np.ndarray) -> np.ndarray:
        """Exact inner product of ``text``'s vector with the stored vector of each row."""
        rows = np.asarray(rows, dtype=np.int64)
        if len(rows) == 0:
            return np.zeros(0, dtype=np.float32)
        stored = self._vectors[rows] if self._vectors is not None else self.index.reconstruct_batch(rows)
        return stored @ self.vector(text)

    def score_all(self, texts: Sequence[str]) -> np.ndarray | None:
        """Inner products of every leaf text with every stored vector, ``(len(texts), num_docs)``,
        in one matrix product: the work a flat index's search does, so exact scoring of the
        whole collection costs what one search per leaf costs.  None unless the index is a
        flat inner-product index (an IVF or HNSW index would have to reconstruct every row)."""
        import faiss

        if self._vectors is None or self.index.metric_type != faiss.METRIC_INNER_PRODUCT:
            return None
        # (matrix-vector per leaf, as :meth:`score` computes a row: the same float32 values)
        return np.stack([self._vectors @ self.vector(t) for t in texts]) if texts else np.zeros((0, self.num_docs))

    # -- docids ------------------------------------------------------------
    def docids(self, rows: np.ndarray) -> list[str]:
        """Collection docids of Faiss rows."""
        return [self.docids_by_row[int(r)] for r in rows]

    def key(self, docid: str) -> int | None:
        return self.row(docid)

    def all_docids(self) -> list[str]:
        return list(self.docids_by_row)

    def row(self, docid: str) -> int | None:
        """Faiss row of a collection docid (None if absent)."""
        if self._row_of is None:
            self._row_of = {d: i for i, d in enumerate(self.docids_by_row)}
        return self._row_of.get(docid)

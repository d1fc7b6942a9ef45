"""A Pyserini ``QueryEncoder`` around :class:`SentenceEncoder`.

``FaissSearcher(index_dir, "path/to/model")`` guesses the pooling from the
model path (mean pooling + L2 norm only if the path contains "sentence",
otherwise CLS pooling without norm).  Passing this object instead makes the
query side use exactly the pooling the corpus was indexed with.
"""

from __future__ import annotations

import os

import numpy as np

from .._bootstrap import ensure_pyserini
from ._sentence import SentenceEncoder

ensure_pyserini()  # pyserini.encode imports its OpenAI module, which needs the bootstrap's workaround
from pyserini.encode import QueryEncoder  # noqa: E402

__all__ = ["SentenceQueryEncoder"]


class SentenceQueryEncoder(QueryEncoder):
    """Pyserini query encoder: mean pooling + L2 norm, one vector per query.

    Parameters
    ----------
    encoder : SentenceEncoder or str, optional
        An encoder to share (loading weights once), or a model name / directory
        for :class:`SentenceEncoder` (default: the packaged all-MiniLM-L6-v2).
    batch_size : int
        Texts per forward pass in :meth:`encode_batch`.

    Examples
    --------
    >>> from pyserini.search.faiss import FaissSearcher        # doctest: +SKIP
    >>> searcher = FaissSearcher("indexes/demo-dense", SentenceQueryEncoder())  # doctest: +SKIP
    """

    def __init__(self, encoder: SentenceEncoder | str | os.PathLike | None = None, batch_size: int = 64):
        super().__init__()
        self.encoder = encoder if isinstance(encoder, SentenceEncoder) else SentenceEncoder(encoder)
        self.has_model = True
        self.batch_size = batch_size

    @property
    def dimension(self) -> int:
        return self.encoder.dimension

    @property
    def name(self) -> str:
        return self.encoder.name

    def encode(self, query: str, **kwargs) -> np.ndarray:
        """1-D float32 unit vector, as ``FaissSearcher.search`` expects."""
        return self.encoder.encode(query)

    def encode_batch(self, queries: list[str]) -> np.ndarray:
        """``(len(queries), dimension)`` float32; ``FaissSearcher.batch_search`` uses it when present."""
        return self.encoder.encode(list(queries), batch_size=self.batch_size)

"""Dense query encoders served over an OpenAI-compatible ``/v1/embeddings`` endpoint (``openai:MODEL``).

The strong embedding models a deployment already serves (vLLM, text-embeddings-inference, hosted
APIs) can encode dense leaves: ``--encoder openai:MODEL`` with ``$OPENAI_BASE_URL`` /
``$OPENAI_API_KEY``.  The Faiss index must hold the same model's document vectors.  Requests go
through the one model layer (:mod:`logical_pyserini.models`), which owns retries and error lines.
"""

from __future__ import annotations

import numpy as np

__all__ = ["OpenAIQueryEncoder"]


class OpenAIQueryEncoder:
    """A query encoder (Pyserini's ``encode`` / ``encode_batch`` shape) over ``/embeddings``.

    Parameters
    ----------
    spec : str
        ``openai:MODEL``.
    normalize : bool
        L2-normalise the vectors (leave False when the server already returns unit vectors and
        the index was built from the raw ones).
    **options
        ``base_url``, ``api_key``, ``timeout``, ``batch_size`` for the model layer.
    """

    def __init__(self, spec: str, normalize: bool = False, **options):
        from ..models import get_model

        self.name = spec
        self.normalize = normalize
        self.model = get_model(spec, **options)
        if not hasattr(self.model, "embed"):
            raise ValueError(f"{spec}: embeddings need an OpenAI-compatible server (openai:MODEL)")

    def encode_batch(self, queries: list[str]) -> np.ndarray:
        vectors = self.model.embed(list(queries))
        if self.normalize:
            vectors = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        return vectors

    def encode(self, query: str, **kwargs) -> np.ndarray:
        """1-D float32 vector, as ``FaissSearcher.search`` expects."""
        return self.encode_batch([query])[0]

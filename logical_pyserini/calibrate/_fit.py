"""Fit and store the calibration ``σ((s - τ) λ)`` of seed 001, appendix E."""

from __future__ import annotations

import json
import os

import numpy as np

from .._io import atomic_write_text
from ..compose import SigmoidParams
from ..compose import load_calibration as _load_calibration

__all__ = ["fit_sigmoid", "load_calibration", "write_calibration"]


def fit_sigmoid(scores: np.ndarray, labels: np.ndarray, C: float = 100.0, balanced: bool = False) -> SigmoidParams:
    """Maximum-likelihood ``τ, λ`` of ``P(relevant | s) = σ((s - τ) λ)``.

    A one-feature scikit-learn ``LogisticRegression`` is fitted on the
    standardised scores, so its (weak, ``C``) L2 penalty means the same for
    BM25 scores around 10 as for cosines around 0.5 and keeps λ finite when the
    classes are separable.  With ``logit = w z + b`` and ``z = (s - μ) / σ_s``:
    ``λ = w / σ_s`` and ``τ = μ - b σ_s / w``.

    Parameters
    ----------
    scores : array
        Raw retrieval scores.
    labels : array
        1 for relevant, 0 for not.
    C : float
        Inverse L2 strength on the standardised weight.
    balanced : bool
        Weight the classes equally (``class_weight="balanced"``), so τ is
        where relevance has even odds whatever the share of positive pairs;
        otherwise the pairs' own share is the prior.

    Raises
    ------
    ValueError
        Without both classes, with constant scores, or when the fit has no
        positive slope (scores say nothing about relevance, or the labels are
        inverted, e.g. unjudged documents taken as non-relevant).
    """
    from sklearn.linear_model import LogisticRegression

    s = np.asarray(scores, dtype=np.float64).ravel()
    y = np.asarray(labels).astype(int).ravel()
    if len(s) != len(y):
        raise ValueError(f"{len(s)} scores but {len(y)} labels")
    n_pos = int(y.sum())
    if n_pos == 0 or n_pos == len(y):
        raise ValueError(f"calibration needs relevant and non-relevant pairs; got {n_pos} of {len(y)} relevant")
    mu, sd = float(s.mean()), float(s.std())
    if sd == 0.0:
        raise ValueError("all scores are equal: nothing to calibrate")
    model = LogisticRegression(C=C, class_weight="balanced" if balanced else None).fit(((s - mu) / sd)[:, None], y)
    w, b = float(model.coef_[0, 0]), float(model.intercept_[0])
    if abs(w) < 1e-12:
        raise ValueError("the fitted slope is 0: the scores do not separate relevant from non-relevant pairs")
    if w < 0:
        raise ValueError(
            f"the fitted slope is negative (λ = {w / sd:.3g}): higher scores look less relevant. The labels are "
            "probably wrong, e.g. qrels that judge only part of the pool while unjudged documents count as "
            "non-relevant; add judged non-relevant documents (relevance 0) to the qrels"
        )
    return SigmoidParams(tau=mu - b * sd / w, lam=w / sd)


def write_calibration(path: str | os.PathLike, params: dict[str, SigmoidParams], meta: dict) -> None:
    """Write ``{"bm25": {"tau", "lambda"}, "dense": {...}, "meta": {...}}``."""
    out = {name: {"tau": p.tau, "lambda": p.lam} for name, p in params.items()}
    out["meta"] = meta
    atomic_write_text(path, json.dumps(out, indent=2) + "\n")


def load_calibration(path: str | os.PathLike) -> dict[str, SigmoidParams]:
    """Read a calibration file, accepting the calibration keys of every registered retriever
    (see :func:`logical_pyserini.compose.load_calibration`)."""
    from ..retrieve import calibration_keys

    return _load_calibration(path, calibration_keys())

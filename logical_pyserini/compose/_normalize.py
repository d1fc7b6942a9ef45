"""Map raw leaf scores into [0, 1] before composition.

BM25 scores are unbounded and their scale differs from leaf to leaf (a rare
term scores higher than a common one), so composing raw scores would let one
leaf dominate.  Each method maps the raw scores of one leaf over the candidate
pool; ``leaf_max`` is the best score the leaf reached anywhere in the index
(its top hit), ``pool_min`` the lowest score among the scored documents.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Collection

import numpy as np

from .._io import parse_json_object

__all__ = ["NORMALIZERS", "Normalizer", "SigmoidParams", "load_calibration"]

NORMALIZERS = ("max", "minmax", "sigmoid", "none")


@dataclass(frozen=True)
class SigmoidParams:
    """Calibration ``σ((s - τ) λ)`` of seed 001, appendix E."""

    tau: float
    lam: float


@dataclass(frozen=True)
class Normalizer:
    """Normalisation method plus per-retriever sigmoid parameters.

    Parameters
    ----------
    method : str
        ``max`` (divide by the leaf's maximum), ``minmax``, ``sigmoid`` or
        ``none`` (raw scores; only sensible for scores already in [0, 1]).
    sigmoid : dict
        Retriever name (``bm25``, ``dense``) -> :class:`SigmoidParams`; used by
        ``sigmoid``.
    """

    method: str = "max"
    sigmoid: dict[str, SigmoidParams] | None = None

    def __post_init__(self) -> None:
        if self.method not in NORMALIZERS:
            raise ValueError(f"unknown normalisation {self.method!r}; choose from {', '.join(NORMALIZERS)}")

    @property
    def has_safe_bounds(self) -> bool:
        """Whether the normalised score is a fixed non-decreasing function of the raw
        score (given the leaf's maximum), so that a bound on raw scores bounds
        normalised ones.  ``minmax`` depends on the lowest score of the scored
        pool, so no bound for unseen documents exists; a sigmoid with a
        negative slope is decreasing."""
        if self.method == "minmax":
            return False
        if self.method == "sigmoid":
            return all(p.lam >= 0 for p in (self.sigmoid or {}).values())
        return True

    def __call__(self, raw: np.ndarray, leaf_max: float, pool_min: float, retriever: str = "bm25") -> np.ndarray:
        raw = np.asarray(raw, dtype=np.float64)
        if self.method == "none":
            return raw
        if self.method == "max":
            # A leaf that matched nothing has max 0: every document gets 0, not NaN.
            return raw / leaf_max if leaf_max > 0 else np.zeros_like(raw)
        if self.method == "minmax":
            span = leaf_max - pool_min
            return np.clip((raw - pool_min) / span, 0.0, 1.0) if span > 0 else np.zeros_like(raw)
        params = (self.sigmoid or {}).get(retriever)
        if params is None:
            raise ValueError(
                f"sigmoid normalisation needs parameters for retriever {retriever!r} "
                "(--sigmoid-tau/--sigmoid-lambda or --calibration)"
            )
        return 1.0 / (1.0 + np.exp(-(raw - params.tau) * params.lam))


def load_calibration(path: str | os.PathLike, known: Collection[str] | None = None) -> dict[str, SigmoidParams]:
    """Read a calibration file (``python -m logical_pyserini.calibrate``) into ``Normalizer("sigmoid", ...)`` parameters.

    Applying a calibration is normalisation, so reading the file lives here;
    fitting one lives in :mod:`logical_pyserini.calibrate`.

    Parameters
    ----------
    path : str
        ``{"bm25": {"tau": .., "lambda": ..}, "dense": {...}, "meta": {...}}``.
    known : collection of str, optional
        Accepted retriever keys (the registry's calibration keys); None accepts any.

    Raises
    ------
    FileNotFoundError
        If the file does not exist.
    ValueError
        For invalid JSON, an unknown retriever, or an entry without finite
        ``tau`` and ``lambda``.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"calibration file not found: {path}")
    data = parse_json_object(path.read_text(encoding="utf-8"), f"calibration file {path}")
    params: dict[str, SigmoidParams] = {}
    for name, entry in data.items():
        if name == "meta":
            continue
        if known is not None and name not in known:
            raise ValueError(f"calibration file {path}: unknown retriever {name!r} "
                             f"(expected {', '.join(known)} or meta)")
        values = [entry.get(k) if isinstance(entry, dict) else None for k in ("tau", "lambda")]
        if not all(isinstance(v, (int, float)) and math.isfinite(v) for v in values):
            raise ValueError(f"calibration file {path}: {name!r} needs finite numbers 'tau' and 'lambda'")
        params[name] = SigmoidParams(float(values[0]), float(values[1]))
    if not params:
        raise ValueError(f"calibration file {path} has no retriever parameters (e.g. bm25, dense)")
    return params

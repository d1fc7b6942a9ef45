"""Filtered ranking metrics (MRR, Hits@k) for knowledge-graph query answering."""

from __future__ import annotations

from typing import Iterable, Mapping

import numpy as np

__all__ = ["HITS", "aggregate", "filtered_ranks", "query_metrics"]

HITS = (1, 3, 10)


def filtered_ranks(scores: np.ndarray, targets: Iterable[int], answers: Iterable[int]) -> np.ndarray:
    """Filtered rank of each target: other answers are removed from the ranking.

    Ties are counted at their expected position under random tie-breaking
    (1 + #higher + #tied / 2), so an executor gains nothing from giving many
    entities the same score.

    Parameters
    ----------
    scores : numpy.ndarray
        ``(num_entities,)`` executor scores.
    targets : iterable of int
        The answers being scored (the hard ones under the standard protocol).
    answers : iterable of int
        All answers of the query (easy and hard): filtered out of the ranking.
    """
    targets = np.fromiter(targets, dtype=np.int64)
    answers = np.fromiter(answers, dtype=np.int64)
    mask = np.ones(len(scores), bool)
    mask[answers] = False
    others = np.sort(scores[mask])
    t = scores[targets]
    higher = len(others) - np.searchsorted(others, t, side="right")
    tied = np.searchsorted(others, t, side="right") - np.searchsorted(others, t, side="left")
    return 1.0 + higher + tied / 2.0


def query_metrics(ranks: np.ndarray) -> dict[str, float]:
    """MRR and Hits@k of one query (averaged over its target answers)."""
    out = {"MRR": float(np.mean(1.0 / ranks))}
    for k in HITS:
        out[f"Hits@{k}"] = float(np.mean(ranks <= k))
    return out


def aggregate(rows: Iterable[Mapping]) -> dict[str, dict[str, float]]:
    """Per-type means (in percent, like the BetaE/ROG tables) of per-query metrics, plus ``n``."""
    by_type: dict[str, list[Mapping]] = {}
    for row in rows:
        if row.get("metrics"):
            by_type.setdefault(row["type"], []).append(row["metrics"])
    out = {}
    for qtype, ms in by_type.items():
        out[qtype] = {k: round(100.0 * float(np.mean([m[k] for m in ms])), 2) for k in ms[0]}
        out[qtype]["n"] = len(ms)
    return out

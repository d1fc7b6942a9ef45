"""Interval bounds of the combined score, for safe early termination.

Given, for every leaf, a lower and an upper bound of its normalised score per
document, :func:`compose_bounds` returns bounds of the combined score.  It runs
the *same* operator functions as :func:`~logical_pyserini.compose.compose`
on the lower and upper ends, so the bounds are exact to the last bit: every
operator used is monotone in each argument on the domain checked below, and
IEEE rounding is monotone, so ``compose(x)`` lies between the two results
whenever every leaf value lies between its ends.

Monotonicity per operator (the domain is checked at run time):

* AND product: non-decreasing when every child value is >= 0;
* AND sum / min, OR sum / max: non-decreasing everywhere;
* OR noisy-or ``1 - prod(1 - v)``: non-decreasing when every child value is <= 1;
* NOT complement ``1 - x`` and inverse ``1 / max(x, eps)``: non-increasing everywhere.

Outside that domain (e.g. raw BM25 scores above 1 under the complement NOT)
:class:`BoundsUnavailable` is raised and the caller scores exhaustively.
"""

from __future__ import annotations

from typing import Mapping

import numpy as np

from ..query import And, Node, Not, Term
from ._operators import Operators

__all__ = ["BoundsUnavailable", "compose_bounds"]


class BoundsUnavailable(ValueError):
    """The operators are not monotone on these leaf values, so no safe bound exists."""


def compose_bounds(
    node: Node,
    lower: Mapping[tuple, np.ndarray],
    upper: Mapping[tuple, np.ndarray],
    operators: Operators = Operators(),
) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper bound of the combined score of every document.

    Parameters
    ----------
    node : Node
        Operator tree.
    lower, upper : mapping
        :attr:`Term.key` -> per-document lower / upper bound of the normalised
        leaf score (equal where the score is known).
    operators : Operators
        AND / OR / NOT choice.

    Raises
    ------
    BoundsUnavailable
        When an operator is not monotone on the given values.
    """
    if isinstance(node, Term):
        return np.asarray(lower[node.key], dtype=np.float64), np.asarray(upper[node.key], dtype=np.float64)
    if isinstance(node, Not):
        lo, hi = compose_bounds(node.child, lower, upper, operators)
        return operators.neg(hi), operators.neg(lo)
    parts = [compose_bounds(c, lower, upper, operators) for c in node.children]
    lo = np.stack([p[0] for p in parts])
    hi = np.stack([p[1] for p in parts])
    if isinstance(node, And):
        if operators.and_ == "product" and lo.size and lo.min() < 0:
            raise BoundsUnavailable("AND=product is not monotone on negative values")
        return operators.conj(lo), operators.conj(hi)
    if operators.or_ == "noisy-or" and hi.size and hi.max() > 1:
        raise BoundsUnavailable("OR=noisy-or is not monotone on values above 1")
    return operators.disj(lo), operators.disj(hi)

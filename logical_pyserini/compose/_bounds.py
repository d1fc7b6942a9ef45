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

from dataclasses import dataclass
from typing import Mapping

import numpy as np

from ..query import And, Node, Not, Term
from ._operators import Operators

__all__ = ["BoundQuery", "BoundsUnavailable", "bound_query", "compose_bounds"]


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
        return operators.neg(hi, node.weight), operators.neg(lo, node.weight)
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


# -- a query a term index can rank, whose score bounds the combined score ------


@dataclass(frozen=True)
class BoundQuery:
    """A scoring query, in backend-neutral form, whose score bounds the combined score.

    ``op`` is ``leaf`` (the term's raw score times ``weight``), ``sum``, ``max``
    or ``product`` (of the children's scores, times ``weight``).  A document the
    query does not match scores at most 0 on the tree; one it matches scores at
    most the query's score.  A term index ranks such a query with its own
    dynamic pruning (a Lucene BooleanQuery / DisjunctionMaxQuery, or a product
    over a conjunction), so the best documents of the tree are found among the
    query's best.  See :func:`bound_query`.
    """

    op: str
    weight: float = 1.0
    term: Term | None = None
    children: tuple["BoundQuery", ...] = ()

    def terms(self) -> list[Term]:
        """The leaves the query uses."""
        return [self.term] if self.term is not None else [t for c in self.children for t in c.terms()]


def bound_query(
    node: Node,
    operators: Operators,
    scale: Mapping[tuple, float | None],
    leaf_max: Mapping[tuple, float],
) -> BoundQuery | None:
    """A :class:`BoundQuery` whose score is >= the combined score of every document it
    matches, while every document it does not match combines to <= 0 (None if none exists).

    Parameters
    ----------
    node : Node
        Operator tree.
    operators : Operators
        AND / OR / NOT choice.
    scale : mapping
        :attr:`Term.key` -> ``w`` when the normalised leaf score is ``w * raw``
        (``max``: 1 / leaf maximum; ``none``: 1), None when it is not linear.
    leaf_max : mapping
        :attr:`Term.key` -> largest normalised score of the leaf (raw scores are >= 0,
        so normalised ones lie in ``[0, leaf_max]``).

    Notes
    -----
    Built bottom-up.  Every subtree is either a query (its value is 0 where the
    query does not match, at most the query's score where it does, and >= 0) or a
    *constant range* ``[lo, hi]`` that holds for every document (a NOT, or a
    subtree of NOTs).  Products multiply queries and fold constant upper ends
    into the weight (all factors must be >= 0); sums and maxima need constants
    <= 0 (else documents the query misses could score); noisy-or is bounded by
    the sum of its children in [0, 1].  AND=min and sigmoid leaves have no such
    query here: :func:`~logical_pyserini.search.topk` then runs its threshold loop.
    """
    try:
        return _bound(node, operators, scale, leaf_max)[0]
    except BoundsUnavailable:
        return None


def _bound(node, operators, scale, leaf_max) -> tuple:
    """``(query, lo, hi)``: the subtree's bound query (None for a constant range) and
    ``[lo, hi]``, a range that holds for every document."""
    if isinstance(node, Term):
        w = scale.get(node.key)
        if w is None:
            raise BoundsUnavailable(f"leaf {node} is not normalised linearly")
        top = float(leaf_max[node.key])
        if w <= 0 or top <= 0:
            return None, 0.0, 0.0  # matches nothing: 0 everywhere
        return BoundQuery("leaf", float(w), node), 0.0, top
    if isinstance(node, Not):
        _, lo, hi = _bound(node.child, operators, scale, leaf_max)
        ends = operators.neg(np.array([hi, lo], dtype=np.float64), node.weight)  # NOT is non-increasing
        return None, float(ends[0]), float(ends[1])
    parts = [_bound(c, operators, scale, leaf_max) for c in node.children]
    queries = [q for q, _, _ in parts if q is not None]
    const_hi = [hi for q, _, hi in parts if q is None]
    los = np.array([[lo] for _, lo, _ in parts], dtype=np.float64)
    his = np.array([[hi] for _, _, hi in parts], dtype=np.float64)
    conj = isinstance(node, And)
    reduce = operators.conj if conj else operators.disj
    lo, hi = float(reduce(los)[0]), float(reduce(his)[0])
    if conj and operators.and_ == "product":
        if los.min() < 0:
            raise BoundsUnavailable("AND=product of a possibly negative value")
        factor = float(np.prod(const_hi)) if const_hi else 1.0
        if not queries or factor <= 0:
            return None, lo, hi
        query = queries[0] if len(queries) == 1 else BoundQuery("product", 1.0, None, tuple(queries))
        return _scaled(query, factor), lo, hi
    if conj and operators.and_ == "min":
        raise BoundsUnavailable("AND=min has no bound query")
    if not conj and operators.or_ == "noisy-or" and (los.min() < 0 or his.max() > 1):
        raise BoundsUnavailable("OR=noisy-or is bounded by the sum only in [0, 1]")
    if not queries:
        return None, lo, hi
    if any(h > 0 for h in const_hi):
        raise BoundsUnavailable("a constant part above 0: documents outside the query could score")
    op = "max" if not conj and operators.or_ == "max" else "sum"
    query = queries[0] if len(queries) == 1 else BoundQuery(op, 1.0, None, tuple(queries))
    return query, lo, hi


def _scaled(query: BoundQuery, factor: float) -> BoundQuery:
    return query if factor == 1.0 else BoundQuery(query.op, query.weight * factor, query.term, query.children)

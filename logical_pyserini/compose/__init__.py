"""Composition stage: leaf-score normalisation and AND / OR / NOT operators."""

from ._bounds import BoundQuery, BoundsUnavailable, bound_query, compose_bounds
from ._compose import compose, explain_tree
from ._normalize import NORMALIZERS, Normalizer, SigmoidParams, load_calibration
from ._operators import AND_OPERATORS, INVERSE_EPSILON, NOT_OPERATORS, OR_OPERATORS, Operators, resolve

__all__ = [
    "AND_OPERATORS",
    "BoundQuery",
    "BoundsUnavailable",
    "INVERSE_EPSILON",
    "NORMALIZERS",
    "NOT_OPERATORS",
    "OR_OPERATORS",
    "Normalizer",
    "Operators",
    "SigmoidParams",
    "bound_query",
    "compose",
    "compose_bounds",
    "explain_tree",
    "load_calibration",
    "resolve",
]

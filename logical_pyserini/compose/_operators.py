"""Score operators for AND / OR / NOT (seed 001, section 2.3).

Every operator works element-wise on numpy arrays holding one value per
candidate document, so a whole candidate pool is composed in a few vector
operations.  AND and OR are n-ary reductions over the stacked child values;
all of them are associative, which is what lets the parser flatten chains.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

__all__ = ["AND_OPERATORS", "NOT_OPERATORS", "OR_OPERATORS", "Operators", "INVERSE_EPSILON"]

Reduce = Callable[[np.ndarray], np.ndarray]  # (n_children, n_docs) -> (n_docs,)

# 1/x is unbounded at 0, and a BM25 leaf is exactly 0 on every document that
# lacks the term; the floor caps NOT at 1/INVERSE_EPSILON instead of inf.
INVERSE_EPSILON = 1e-3

# ufunc.reduce is what np.prod / np.sum / np.min / np.max run, without their Python wrapper
# (a few microseconds per node, which a top-10 search of 15 candidates notices).
AND_OPERATORS: dict[str, Reduce] = {
    "product": lambda v: np.multiply.reduce(v, axis=0),
    "sum": lambda v: np.add.reduce(v, axis=0),
    "min": lambda v: np.minimum.reduce(v, axis=0),
}

OR_OPERATORS: dict[str, Reduce] = {
    "sum": lambda v: np.add.reduce(v, axis=0),
    "max": lambda v: np.maximum.reduce(v, axis=0),
    # Probabilistic sum: P(A or B) for independent events, stays in [0, 1].
    "noisy-or": lambda v: 1.0 - np.multiply.reduce(1.0 - v, axis=0),
}

NOT_OPERATORS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "complement": lambda x: 1.0 - x,
    "inverse": lambda x: 1.0 / np.maximum(x, INVERSE_EPSILON),
}

# The seed writes the operators as formulas; accept those spellings too.
_ALIASES = {
    "and": {"x*y": "product", "prod": "product", "x+y": "sum", "+": "sum", "*": "product"},
    "or": {"x+y": "sum", "+": "sum", "noisy_or": "noisy-or", "noisyor": "noisy-or", "prob": "noisy-or"},
    "not": {"1-x": "complement", "1/x": "inverse"},
}
_TABLES = {"and": AND_OPERATORS, "or": OR_OPERATORS, "not": NOT_OPERATORS}


def resolve(kind: str, name: str) -> str:
    """Canonical operator name for ``kind`` (``and`` / ``or`` / ``not``).

    Raises
    ------
    ValueError
        For an unknown name, listing the valid ones.
    """
    table = _TABLES[kind]
    canonical = _ALIASES[kind].get(name.strip().lower(), name.strip().lower())
    if canonical not in table:
        valid = sorted(table) + sorted(_ALIASES[kind])
        raise ValueError(f"unknown {kind.upper()} operator {name!r}; choose from {', '.join(valid)}")
    return canonical


@dataclass(frozen=True)
class Operators:
    """A choice of AND / OR / NOT operators.  The default is the seed's best:
    product / sum / complement (1 - x)."""

    and_: str = "product"
    or_: str = "sum"
    not_: str = "complement"

    def __post_init__(self) -> None:
        object.__setattr__(self, "and_", resolve("and", self.and_))
        object.__setattr__(self, "or_", resolve("or", self.or_))
        object.__setattr__(self, "not_", resolve("not", self.not_))

    def conj(self, values: np.ndarray) -> np.ndarray:
        return AND_OPERATORS[self.and_](values)

    def disj(self, values: np.ndarray) -> np.ndarray:
        return OR_OPERATORS[self.or_](values)

    def neg(self, value: np.ndarray, weight: float = 1.0) -> np.ndarray:
        """NOT of ``value``; a soft exclusion (``NOT^w``, ``weight`` < 1) mixes it with 1, the value of
        excluding nothing: ``(1 - w) + w * NOT(x)``, non-increasing in ``x`` like the operator itself."""
        negated = NOT_OPERATORS[self.not_](value)
        return negated if weight == 1.0 else (1.0 - weight) + weight * negated

    def __str__(self) -> str:
        return f"AND={self.and_} OR={self.or_} NOT={self.not_}"

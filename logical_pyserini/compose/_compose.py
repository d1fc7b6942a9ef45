"""Evaluate an operator tree over per-leaf score vectors."""

from __future__ import annotations

from typing import Mapping

import numpy as np

from ..query import And, Node, Not, Or, Term
from ._operators import Operators

__all__ = ["compose", "explain_tree"]


def compose(
    node: Node,
    leaf_values: Mapping[tuple, np.ndarray],
    operators: Operators = Operators(),
    trace: dict[int, np.ndarray] | None = None,
) -> np.ndarray:
    """Combined score of every candidate.

    Parameters
    ----------
    node : Node
        Operator tree from :func:`logical_pyserini.query.parse_query`.
    leaf_values : mapping
        :attr:`Term.key` -> normalised scores, one per candidate (same order
        for every leaf).
    operators : Operators
        AND / OR / NOT choice.
    trace : dict, optional
        If given, filled with ``id(node) -> values`` for every node, which is
        what :func:`explain_tree` reads.
    """
    if isinstance(node, Term):
        value = np.asarray(leaf_values[node.key], dtype=np.float64)
    elif isinstance(node, Not):
        value = operators.neg(compose(node.child, leaf_values, operators, trace), node.weight)
    else:
        stacked = np.array([compose(c, leaf_values, operators, trace) for c in node.children])  # (children, docs)
        value = operators.conj(stacked) if isinstance(node, And) else operators.disj(stacked)
    if trace is not None:
        trace[id(node)] = value
    return value


def explain_tree(
    node: Node,
    index: int,
    trace: Mapping[int, np.ndarray],
    leaf_raw: Mapping[tuple, np.ndarray],
) -> dict:
    """Nested dict describing how candidate ``index`` got its score.

    Leaves carry ``raw`` (retrieval score) and ``normalized``; every node
    carries ``value``.
    """
    value = float(trace[id(node)][index])
    if isinstance(node, Term):
        return {
            "term": node.text,
            "retriever": node.retriever,
            "raw": float(leaf_raw[node.key][index]),
            "normalized": value,
            "value": value,
        }
    if isinstance(node, Not):
        report = {"op": "NOT", "value": value, "children": [explain_tree(node.child, index, trace, leaf_raw)]}
        if node.weight != 1.0:
            report["weight"] = node.weight
        return report
    return {
        "op": "AND" if isinstance(node, And) else "OR",
        "value": value,
        "children": [explain_tree(c, index, trace, leaf_raw) for c in node.children],
    }

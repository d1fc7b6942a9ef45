"""Atomic predicates and the formula over them, from a query tree or a decomposition.

OrLog needs (i) statements about a candidate entity and (ii) a Boolean formula
over those statements.  From a logical query tree every distinct leaf becomes
one predicate (repeated leaves share it, which is what makes exact inference
differ from independence arithmetic); a decomposition object brings its own
statements.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..prompts import load_prompt
from ..query import And, Node, Not, Or, Term, distinct_terms, map_terms, parse_query

__all__ = ["OrLogQuery", "fill_statement", "leaf_statement"]

PLACEHOLDER = "{x}"


def leaf_statement(leaf: str) -> str:
    """The statement (with ``{x}``) that stands for one query leaf."""
    template = load_prompt("orlog")["leaf_statement"]
    # Substitute the leaf by splitting on the marker, so braces in the leaf are inert.
    return leaf.join(template.split("{leaf}"))


def fill_statement(statement: str, subject: str) -> str:
    """Put ``subject`` (an entity title) in place of every ``{x}``."""
    return subject.join(statement.split(PLACEHOLDER))


@dataclass(frozen=True)
class OrLogQuery:
    """Predicates and formula of one query.

    Attributes
    ----------
    atoms : tuple of str
        Statements with an ``{x}`` placeholder, one per predicate.
    formula : Node
        The query tree whose leaves are predicate indices (``Term("0")``).
    question : str
        Text shown to an LLM-as-reasoner (the natural question when known,
        else the logical query text).
    parse_tokens : int
        One-off tokens spent producing the decomposition (0 when the logical
        query was given); amortised over candidates in token accounting.
    """

    atoms: tuple[str, ...]
    formula: Node
    question: str = ""
    parse_tokens: int = 0

    @classmethod
    def from_tree(cls, tree: Node, question: str | None = None) -> "OrLogQuery":
        """One predicate per distinct leaf (leaves equal up to whitespace are one)."""
        terms = distinct_terms(tree)
        index = {t.key[0]: i for i, t in enumerate(terms)}
        formula = map_terms(tree, lambda t: Term(str(index[t.key[0]])))
        return cls(tuple(leaf_statement(t.text) for t in terms), formula,
                   question if question is not None else str(tree))

    @classmethod
    def from_decomposition(cls, decomposition: Any) -> "OrLogQuery":
        """Duck-typed: needs ``atoms`` and ``to_tree()``.

        The formula comes from ``formula_tree()`` (leaves are atom ids) when the
        object has one; otherwise leaves of ``to_tree()`` are matched to atoms
        through ``leaves`` (one search phrase per atom) or, lacking that, by
        order of first appearance.
        """
        atoms = tuple(str(a) for a in decomposition.atoms)
        if not atoms:
            raise ValueError("decomposition has no atoms")
        for atom in atoms:
            if PLACEHOLDER not in atom:
                raise ValueError(f"atom {atom!r} lacks the {PLACEHOLDER} placeholder")
        if hasattr(decomposition, "formula_tree"):
            formula = decomposition.formula_tree()
        else:
            tree = decomposition.to_tree()
            leaves = getattr(decomposition, "leaves", None)
            order = list(leaves) if leaves else [t.text for t in distinct_terms(tree)]
            if len(order) != len(atoms):
                raise ValueError(f"{len(atoms)} atoms but {len(order)} distinct leaves in the tree")
            index = {" ".join(str(leaf).split()): i for i, leaf in enumerate(order)}
            formula = map_terms(tree, lambda t: Term(str(index[t.key[0]])))
        used = {int(t.text) for t in distinct_terms(formula)}
        if used - set(range(len(atoms))):
            raise ValueError(f"formula names atoms {sorted(used)} but there are {len(atoms)}")
        question = getattr(decomposition, "question", "") or str(decomposition.to_tree())
        usage = getattr(decomposition, "usage", None) or {}
        parse_tokens = int(usage.get("total_tokens", 0)) if isinstance(usage, dict) else 0
        return cls(atoms, formula, question, parse_tokens)

    @classmethod
    def coerce(cls, query: Any) -> "OrLogQuery":
        """Accept an :class:`OrLogQuery`, a query tree or its text, or a decomposition."""
        if isinstance(query, cls):
            return query
        if isinstance(query, str):
            return cls.from_tree(parse_query(query))
        if isinstance(query, (Term, Not, And, Or)):
            return cls.from_tree(query)
        if hasattr(query, "atoms") and hasattr(query, "to_tree"):
            return cls.from_decomposition(query)
        raise TypeError(f"expected a query tree or a decomposition, got {type(query).__name__}")



"""Operator tree of a logical query.

Nodes are immutable and hashable.  ``And`` / ``Or`` are n-ary: the parser
flattens ``a AND b AND c`` into one node because every supported operator is
associative, and n-ary nodes keep ``explain`` output readable.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterator, Union



@dataclass(frozen=True)
class Term:
    """A leaf: free text scored by one sub-search.

    Parameters
    ----------
    text : str
        The term as written (quotes removed, escapes resolved).
    retriever : str or None
        ``bm25``, ``dense`` or ``hybrid`` when the query pins it with a prefix
        (``dense:"vitamin D"``); None means the searcher's default.
    start : int
        Character offset of the term in the query (for messages); not part of
        the term's identity.
    """

    text: str
    retriever: str | None = None
    start: int = field(default=0, compare=False, hash=False)
    # Computed once: search reads it for every leaf many times per query.
    key: tuple[str, str | None] = field(init=False, repr=False, compare=False, hash=False)
    """Identity used to run each distinct leaf once (whitespace-normalised)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "key", (normalize_text(self.text), self.retriever))

    def __str__(self) -> str:
        prefix = f"{self.retriever}:" if self.retriever else ""
        escaped = self.text.replace("\\", "\\\\").replace('"', '\\"')
        return f'{prefix}"{escaped}"'


@dataclass(frozen=True)
class Not:
    """Negation of ``child``.

    Parameters
    ----------
    child : Node
        What is excluded.
    weight : float
        Strength of the exclusion in (0, 1], written ``NOT^0.3``: the value is
        ``(1 - weight) + weight * NOT(x)`` (``1 - 0.3 x`` under the complement),
        so a soft exclusion reorders comparably relevant documents instead of
        sinking every one that mentions the thing.  1 (plain ``NOT``) is the
        strict operator; the Boolean peer always excludes strictly.
    """

    child: "Node"
    weight: float = 1.0

    def __post_init__(self) -> None:
        if not 0.0 < self.weight <= 1.0:
            raise ValueError(f"NOT weight must be in (0, 1], not {self.weight!r}")

    def __str__(self) -> str:
        inner = str(self.child)
        op = "NOT" if self.weight == 1.0 else f"NOT^{format_weight(self.weight)}"
        return f"{op} {inner}" if isinstance(self.child, (Term, Not)) else f"{op} ({inner})"


def format_weight(weight: float) -> str:
    """A NOT weight as the query language writes it (``0.3``, not ``0.30000000000000004``)."""
    return f"{weight:.6g}"


@dataclass(frozen=True)
class And:
    children: tuple["Node", ...]

    def __str__(self) -> str:
        return " AND ".join(f"({c})" if isinstance(c, Or) else str(c) for c in self.children)


@dataclass(frozen=True)
class Or:
    children: tuple["Node", ...]

    def __str__(self) -> str:
        return " OR ".join(str(c) for c in self.children)


Node = Union[Term, Not, And, Or]
NODE_TYPES = (Term, Not, And, Or)


def iter_terms(node: Node, negated: bool = False) -> Iterator[tuple[Term, bool]]:
    """Yield ``(term, negated)`` for every leaf, in query order.

    ``negated`` is True when the leaf sits under an odd number of NOTs.
    """
    if isinstance(node, Term):
        yield node, negated
    elif isinstance(node, Not):
        yield from iter_terms(node.child, not negated)
    else:
        for child in node.children:
            yield from iter_terms(child, negated)


def map_terms(node: Node, fn) -> Node:
    """A copy of the tree with every leaf replaced by ``fn(term)``."""
    if isinstance(node, Term):
        return fn(node)
    if isinstance(node, Not):
        return Not(map_terms(node.child, fn), node.weight)
    return type(node)(tuple(map_terms(c, fn) for c in node.children))


def pin_negated(node: Node, retriever: str, negated: bool = False) -> Node:
    """A copy of the tree whose negated leaves without a prefix use ``retriever``.

    Leaves under an odd number of NOTs that name no retriever get
    ``retriever``; every other leaf is kept as it is (the same object when
    nothing changes, so an unchanged tree compares and hashes as before).
    """
    if isinstance(node, Term):
        return Term(node.text, retriever, node.start) if negated and node.retriever is None else node
    if isinstance(node, Not):
        child = pin_negated(node.child, retriever, not negated)
        return node if child is node.child else Not(child, node.weight)
    children = tuple(pin_negated(c, retriever, negated) for c in node.children)
    return node if all(a is b for a, b in zip(children, node.children)) else type(node)(children)


def distinct_terms(node: Node) -> list[Term]:
    """Distinct leaves (by :attr:`Term.key`) in order of first appearance."""
    seen: dict[tuple, Term] = {}
    for term, _ in iter_terms(node):
        seen.setdefault(term.key, term)
    return list(seen.values())


def positive_terms(node: Node) -> list[Term]:
    """Distinct leaves that occur under an even number of NOTs somewhere.

    Only these leaves contribute candidates: a document is worth scoring when
    it matches something the query asks for, not something it excludes.
    """
    seen: dict[tuple, Term] = {}
    for term, negated in iter_terms(node):
        if not negated:
            seen.setdefault(term.key, term)
    return list(seen.values())


def count_negations(node: Node) -> int:
    """Number of NOT operators in the tree."""
    if isinstance(node, Term):
        return 0
    if isinstance(node, Not):
        return 1 + count_negations(node.child)
    return sum(count_negations(c) for c in node.children)


def shape(node: Node) -> str:
    """Structure of the tree with leaves anonymised, e.g. ``AND(_, NOT(_))``.

    Children of n-ary nodes are sorted, so the shape does not depend on the
    order in which operands were written.  Used to compare rewrites with gold
    structures.
    """
    if isinstance(node, Term):
        return "_"
    if isinstance(node, Not):
        return f"NOT({shape(node.child)})"
    name = "AND" if isinstance(node, And) else "OR"
    return f"{name}({', '.join(sorted(shape(c) for c in node.children))})"


_WS = re.compile(r"\s+")


def normalize_text(text: str) -> str:
    """Collapse runs of whitespace; the canonical text of a term."""
    return _WS.sub(" ", text).strip()

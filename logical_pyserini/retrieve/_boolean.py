"""The Boolean peer: a strict Lucene ``BooleanQuery`` built from an operator tree.

This is what a practitioner writes by hand instead of logical search: AND ->
``MUST``, OR -> ``SHOULD`` with ``minimumNumberShouldMatch`` 1, NOT ->
``MUST_NOT``, each leaf the bag-of-words query ``LuceneSearcher.search``
builds from its text.  Lucene ranks the matches by its own BM25 sum.  It is
the comparison every results table carries next to ITLR.

Lucene matches nothing for a query made only of ``MUST_NOT`` clauses, so a
conjunction without a positive operand (``NOT a``, ``NOT a AND NOT b``, or a
negated operand of OR) gets a ``MatchAllDocsQuery`` as ``MUST``: it then
returns every document without the excluded terms, each with the same
constant score (1.0), in index order.
"""

from __future__ import annotations

from typing import Any, Callable

from ..query import And, Node, Not, Or, Term

__all__ = ["boolean_query"]


def _lucene():
    from .._bootstrap import ensure_pyserini

    ensure_pyserini()
    from jnius import autoclass

    return (autoclass("org.apache.lucene.search.BooleanQuery$Builder"),
            autoclass("org.apache.lucene.search.BooleanClause$Occur"),
            autoclass("org.apache.lucene.search.MatchAllDocsQuery"))


def boolean_query(tree: Node, leaf_query: Callable[[Term], Any]) -> Any:
    """The strict Lucene ``BooleanQuery`` of ``tree``.

    Parameters
    ----------
    tree : Node
        A parsed query (:func:`logical_pyserini.query.parse_query`).
    leaf_query : callable
        Term -> Lucene ``Query`` of one leaf (for BM25 leaves,
        :meth:`LuceneLeafScorer.query` on the term's text).

    Returns
    -------
    Java ``org.apache.lucene.search.Query``
    """
    builder_cls, occur, match_all = _lucene()

    def build(node: Node):
        if isinstance(node, Term):
            return leaf_query(node)
        # Children are built before the parent's builder is touched: pyjnius binds a method to its
        # instance at attribute lookup, so ``b.add(build(child), ...)`` would add to the child's builder.
        if isinstance(node, Or):
            clauses = [(build(child), occur.SHOULD) for child in node.children]
            minimum = 1
        else:
            children = node.children if isinstance(node, And) else (node,)
            clauses = [(build(c.child), occur.MUST_NOT) if isinstance(c, Not) else (build(c), occur.MUST)
                       for c in children]
            minimum = 0
            if all(isinstance(c, Not) for c in children):  # only MUST_NOT clauses would match nothing
                clauses.append((match_all(), occur.MUST))
        b = builder_cls()
        for query, how in clauses:
            b.add(query, how)
        if minimum:
            b.setMinimumNumberShouldMatch(minimum)
        return b.build()

    return build(tree)

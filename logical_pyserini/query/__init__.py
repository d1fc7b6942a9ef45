"""Query language: lark grammar, operator tree and parser.

>>> from logical_pyserini.query import parse_query
>>> str(parse_query('museum AND (Paris OR Amsterdam) AND NOT "art museum"'))
'"museum" AND ("Paris" OR "Amsterdam") AND NOT "art museum"'
"""

from ._parser import MAX_DEPTH, QuerySyntaxError, parse_query
from ._tree import (
    NODE_TYPES,
    And,
    Node,
    Not,
    Or,
    Term,
    count_negations,
    distinct_terms,
    iter_terms,
    map_terms,
    normalize_text,
    pin_negated,
    positive_terms,
    shape,
)

__all__ = [
    "MAX_DEPTH",
    "NODE_TYPES",
    "RETRIEVERS",
    "And",
    "Node",
    "Not",
    "Or",
    "QuerySyntaxError",
    "Term",
    "count_negations",
    "distinct_terms",
    "iter_terms",
    "map_terms",
    "normalize_text",
    "parse_query",
    "pin_negated",
    "positive_terms",
    "shape",
]


def __getattr__(name: str):
    # Kept for callers of the old constant: the names now come from the retriever registry.
    if name == "RETRIEVERS":
        from ..retrieve import retriever_names

        return retriever_names()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

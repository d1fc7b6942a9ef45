"""No input crashes the query parser: it returns a tree or raises QuerySyntaxError."""

from __future__ import annotations

import random
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from logical_pyserini.compose import Operators, compose
from logical_pyserini.query import MAX_DEPTH, QuerySyntaxError, distinct_terms, parse_query

# Pieces that exercise every grammar path: operators, keywords glued to words,
# quotes and escapes, retriever prefixes (good and bad), odd whitespace and unicode.
PIECES = ["AND", "OR", "NOT", "(", ")", '"', "\\", "\\\"", "a", "b c", "bm25:", "dense:", "hybrid:", "foo:",
          "ANDROID", "and", " ", "\t", "\n", "\u00a0", "\u200b", "é", "\ufeff", "\x00", "\x1b", ":", "*", "''"]


def _check(text: str) -> None:
    try:
        tree = parse_query(text)
    except QuerySyntaxError as exc:
        assert 0 <= exc.position <= len(text)
        str(exc)  # the caret display renders
        return
    str(tree)  # printing walks the tree


@settings(max_examples=400, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(st.lists(st.sampled_from(PIECES), max_size=40).map(" ".join))
def test_hypothesis_token_soup(text):
    _check(text)


@settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(st.text(max_size=60))
def test_hypothesis_any_text(text):
    _check(text)


def test_twenty_thousand_random_inputs_no_crash():
    """20k seeded inputs (token soup, deep nests, long flat chains): 0 crashes."""
    rng = random.Random(20260)
    for i in range(20_000):
        kind = i % 40  # deep nests are slow to parse: 1 input in 20
        if kind == 0:
            d = rng.randint(MAX_DEPTH - 5, 30 * MAX_DEPTH)
            text = "(" * d + "x" + ")" * rng.randint(0, d)
        elif kind == 1:
            text = "NOT " * rng.randint(MAX_DEPTH - 5, 30 * MAX_DEPTH) + "x"
        elif kind < 10:
            text = " AND ".join(rng.choice(["a", "(b OR c)", "NOT d", '"e f"']) for _ in range(rng.randint(1, 12)))
        else:
            text = " ".join(rng.choice(PIECES) for _ in range(rng.randint(0, 30)))
        _check(text)


@pytest.mark.parametrize("opener", ["(", "NOT (", "NOT "])
def test_too_deep_is_a_syntax_error_with_position(opener):
    deep = opener * 5000 + "x" + ")" * (5000 if "(" in opener else 0)
    with pytest.raises(QuerySyntaxError, match="nests deeper") as info:
        parse_query(deep)
    assert 0 < info.value.position < len(deep)


def test_deepest_allowed_query_composes():
    """MAX_DEPTH levels parse, and the recursive tree walks downstream survive them."""
    import numpy as np

    query = "(" * (MAX_DEPTH - 1) + "a AND NOT b" + ")" * (MAX_DEPTH - 1)
    tree = parse_query(query)
    leaves = {t.key: np.array([0.5, 1.0]) for t in distinct_terms(tree)}
    assert compose(tree, leaves, Operators()).shape == (2,)
    assert sys.getrecursionlimit() >= 1000

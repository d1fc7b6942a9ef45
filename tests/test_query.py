"""Parser: precedence, parentheses, quoting, and every error with its position."""

import pytest

from logical_pyserini.query import (
    And,
    Not,
    Or,
    QuerySyntaxError,
    Term,
    count_negations,
    distinct_terms,
    parse_query,
    positive_terms,
    shape,
)


def test_precedence_not_binds_tighter_than_and_than_or():
    tree = parse_query("a OR b AND NOT c")
    assert tree == Or((Term("a"), And((Term("b"), Not(Term("c"))))))


def test_parentheses_override_precedence():
    tree = parse_query("(a OR b) AND NOT c")
    assert tree == And((Or((Term("a"), Term("b"))), Not(Term("c"))))


def test_seed_example_tree():
    tree = parse_query('("dog" OR "cat" AND "mouse") AND NOT "giraffe"')
    assert tree == And((Or((Term("dog"), And((Term("cat"), Term("mouse"))))), Not(Term("giraffe"))))


def test_chains_are_flattened():
    assert parse_query("a AND b AND (c AND d)") == And(tuple(Term(x) for x in "abcd"))
    assert parse_query("a OR (b OR c)") == Or(tuple(Term(x) for x in "abc"))


def test_quoted_phrase_is_one_term_and_bare_words_join():
    assert parse_query('"art museums" AND NOT modern art') == And(
        (Term("art museums"), Not(Term("modern art")))
    )


def test_escaped_quote_inside_phrase():
    assert parse_query(r'"the \"best\" cafe"') == Term('the "best" cafe')


def test_lowercase_operators_are_words():
    assert parse_query("rock and roll or not") == Term("rock and roll or not")


def test_keyword_prefix_is_not_an_operator():
    assert parse_query("ANDROID NOTEBOOK ORACLE") == Term("ANDROID NOTEBOOK ORACLE")


def test_double_negation():
    assert parse_query("NOT NOT x") == Not(Not(Term("x")))
    assert count_negations(parse_query("NOT NOT x")) == 2


def test_retriever_prefix():
    tree = parse_query('dense:"vitamin D benefits" AND NOT bm25:bone')
    assert tree == And((Term("vitamin D benefits", "dense"), Not(Term("bone", "bm25"))))


def test_rendering_round_trips():
    for text in ['a OR b AND NOT c', '(a OR b) AND NOT (c OR d)', 'NOT NOT "x y"', 'dense:"q \\"z\\""']:
        tree = parse_query(text)
        assert parse_query(str(tree)) == tree


def test_positive_and_distinct_terms():
    tree = parse_query("a AND NOT b AND NOT (c OR NOT a) AND NOT NOT d")
    assert [t.text for t in distinct_terms(tree)] == ["a", "b", "c", "d"]
    # 'a' occurs positively (first operand) and under two NOTs; 'd' under two NOTs.
    assert [t.text for t in positive_terms(tree)] == ["a", "d"]


def test_shape_ignores_operand_order():
    assert shape(parse_query("a AND NOT b")) == shape(parse_query("NOT x AND y")) == "AND(NOT(_), _)"


@pytest.mark.parametrize(
    "query, position, fragment",
    [
        ("", 0, "empty query"),
        ("   ", 0, "empty query"),
        ("(a AND b", 0, "'(' is never closed"),
        ("x AND (y OR z", 6, "'(' is never closed"),
        ("a AND b)", 7, "')' has no matching '('"),
        ("a AND", 2, "AND has no right operand"),
        ("a OR", 2, "OR has no right operand"),
        ("a AND NOT", 6, "NOT has no right operand"),
        ("AND a", 0, "AND has no left operand"),
        ("a OR OR b", 5, "OR has no left operand"),
        ('""', 0, "empty quoted term"),
        ('a AND "  "', 6, "empty quoted term"),
        ('"abc', 0, "unterminated quote"),
        ("a NOT b", 2, "write 'AND NOT'"),
        ('"a" "b"', 4, "missing operator"),
        ("(a OR b) c", 9, "missing operator"),
        ("()", 1, "expected a term before ')'"),
        ('foo:"x"', 0, "unknown retriever prefix 'foo:'"),
    ],
)
def test_errors_name_the_position(query, position, fragment):
    with pytest.raises(QuerySyntaxError) as info:
        parse_query(query)
    err = info.value
    assert err.position == position
    assert fragment in err.reason
    # The message shows the query and a caret under the offending character.
    lines = str(err).splitlines()
    assert lines[0].endswith(f"at position {position}")
    assert lines[2].index("^") - 2 == position


def test_non_string_query_is_a_type_error():
    with pytest.raises(TypeError):
        parse_query(None)

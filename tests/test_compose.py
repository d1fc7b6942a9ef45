"""Composition: operators, normalisation, and the seed's worked example."""

import numpy as np
import pytest

from logical_pyserini.compose import INVERSE_EPSILON, Normalizer, Operators, SigmoidParams, compose, explain_tree
from logical_pyserini.query import parse_query

SEED = '("dog" OR "cat" AND "mouse") AND NOT "giraffe"'


def leaf_values(tree_values: dict[str, list[float]]) -> dict:
    return {(k, None): np.array(v) for k, v in tree_values.items()}


def test_seed_worked_example_by_hand():
    # Appendix A: s = (s_dog + s_cat * s_mouse) * (1 - s_giraffe).
    dog, cat, mouse, giraffe = [0.9, 0.1, 0.0], [0.2, 0.8, 0.7], [0.5, 0.9, 0.6], [0.1, 0.0, 1.0]
    values = leaf_values({"dog": dog, "cat": cat, "mouse": mouse, "giraffe": giraffe})
    got = compose(parse_query(SEED), values)
    expected = [(d + c * m) * (1 - g) for d, c, m, g in zip(dog, cat, mouse, giraffe)]
    np.testing.assert_allclose(got, expected)
    assert got[0] == pytest.approx((0.9 + 0.2 * 0.5) * 0.9)


@pytest.mark.parametrize(
    "and_, or_, not_, expected",
    [
        ("product", "sum", "complement", (0.9 + 0.2 * 0.5) * (1 - 0.1)),
        ("min", "max", "complement", min(max(0.9, min(0.2, 0.5)), 1 - 0.1)),
        ("sum", "sum", "inverse", (0.9 + (0.2 + 0.5)) + 1 / 0.1),
        ("product", "noisy-or", "complement", (1 - (1 - 0.9) * (1 - 0.2 * 0.5)) * 0.9),
    ],
)
def test_operator_families(and_, or_, not_, expected):
    values = leaf_values({"dog": [0.9], "cat": [0.2], "mouse": [0.5], "giraffe": [0.1]})
    got = compose(parse_query(SEED), values, Operators(and_, or_, not_))
    assert got[0] == pytest.approx(expected)


def test_inverse_not_is_capped_at_zero():
    got = compose(parse_query("a AND NOT b"), leaf_values({"a": [1.0], "b": [0.0]}), Operators(not_="1/x"))
    assert got[0] == pytest.approx(1 / INVERSE_EPSILON)


def test_aliases_from_the_seed_formulas():
    ops = Operators("x*y", "x+y", "1-x")
    assert (ops.and_, ops.or_, ops.not_) == ("product", "sum", "complement")


@pytest.mark.parametrize("kwargs", [{"and_": "xor"}, {"or_": "product"}, {"not_": "negate"}])
def test_invalid_operator_names_are_rejected(kwargs):
    with pytest.raises(ValueError, match="choose from"):
        Operators(**kwargs)


def test_explain_tree_reports_every_node():
    tree = parse_query(SEED)
    values = leaf_values({"dog": [0.9], "cat": [0.2], "mouse": [0.5], "giraffe": [0.1]})
    trace = {}
    compose(tree, values, Operators(), trace)
    report = explain_tree(tree, 0, trace, {k: v * 10 for k, v in values.items()})
    assert report["op"] == "AND" and report["value"] == pytest.approx(0.9)
    or_node, not_node = report["children"]
    assert or_node["value"] == pytest.approx(1.0)
    assert not_node["children"][0] == {"term": "giraffe", "retriever": None, "raw": pytest.approx(1.0),
                                       "normalized": pytest.approx(0.1), "value": pytest.approx(0.1)}


def test_normalizers():
    raw = np.array([0.0, 2.0, 5.0])
    np.testing.assert_allclose(Normalizer("max")(raw, leaf_max=10.0, pool_min=0.0), [0, 0.2, 0.5])
    np.testing.assert_allclose(Normalizer("minmax")(raw, leaf_max=6.0, pool_min=2.0), [0, 0, 0.75])
    sig = Normalizer("sigmoid", {"bm25": SigmoidParams(tau=2.0, lam=1.5)})
    np.testing.assert_allclose(sig(raw, 5.0, 0.0, "bm25"), 1 / (1 + np.exp(-(raw - 2.0) * 1.5)))
    np.testing.assert_allclose(Normalizer("none")(raw, 5.0, 0.0), raw)


def test_normalizer_without_matches_gives_zeros_not_nan():
    out = Normalizer("max")(np.zeros(3), leaf_max=0.0, pool_min=0.0)
    assert np.array_equal(out, np.zeros(3))


def test_sigmoid_needs_parameters_for_the_retriever():
    with pytest.raises(ValueError, match="dense"):
        Normalizer("sigmoid", {"bm25": SigmoidParams(1, 1)})(np.ones(2), 1.0, 0.0, "dense")


def test_unknown_normalizer():
    with pytest.raises(ValueError, match="unknown normalisation"):
        Normalizer("zscore")

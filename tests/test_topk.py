"""Exact top-k with early termination equals exhaustive scoring (property tests on a real index)."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import lucene_index
from logical_pyserini.compose import AND_OPERATORS, bound_query, NOT_OPERATORS, OR_OPERATORS, Normalizer, Operators, SigmoidParams
from logical_pyserini.query import And, Not, Or, Term
from logical_pyserini.query import distinct_terms as query_terms
from logical_pyserini.search import LeafNormalizer, LogicalLuceneSearcher, TopKStats, exhaustive, topk
from logical_pyserini.search import _topk

WORDS = [f"w{i}x" for i in range(24)]
N_DOCS = 400


@pytest.fixture(scope="module")
def small_index(tmp_path_factory):
    """400 documents over 24 Zipf-distributed words: leaves overlap, lists run deep."""
    rng = random.Random(5)
    weights = [1 / (r + 1) for r in range(len(WORDS))]
    docs = [(f"d{i:04d}", " ".join(rng.choices(WORDS, weights, k=rng.randint(3, 12)))) for i in range(N_DOCS)]
    return lucene_index(tmp_path_factory, "topk", docs)


@pytest.fixture(scope="module")
def backend(small_index):
    searcher = LogicalLuceneSearcher(str(small_index))
    yield searcher._retriever_backend()
    searcher.close()


@pytest.fixture
def shallow(monkeypatch):
    """Tiny first depths so that most queries need several rounds and exact probes."""
    monkeypatch.setattr(_topk, "_MIN_DEPTH", 2)
    monkeypatch.setattr(_topk, "_NEG_DEPTH", 1)
    monkeypatch.setattr(_topk, "_GROWTH", 2)
    monkeypatch.setattr(_topk, "_BOUND_EXTRA", 1)
    monkeypatch.setattr(_topk, "_BOUND_EXTRA_NOT", 1)
    monkeypatch.setattr(_topk, "_BOUND_GROWTH", 2)
    monkeypatch.setattr(_topk, "_BOUND_MAX_K", 10**9)


def _leaf():
    return st.lists(st.sampled_from(WORDS), min_size=1, max_size=2).map(lambda ws: Term(" ".join(ws)))


def _trees():
    return st.recursive(
        _leaf(),
        lambda kids: st.one_of(
            kids.map(Not),
            st.tuples(kids, st.sampled_from([0.3, 0.75])).map(lambda c: Not(c[0], c[1])),  # soft NOT^w
            st.lists(kids, min_size=2, max_size=3).map(lambda c: And(tuple(c))),
            st.lists(kids, min_size=2, max_size=3).map(lambda c: Or(tuple(c))),
        ),
        max_leaves=4,
    )


def _mixed_trees():
    """Trees whose leaves are bag-of-words or ``phrase:`` terms over the 6 most frequent words
    (two-word phrases of frequent words occur in some of the 400 documents)."""
    leaf = st.tuples(st.lists(st.sampled_from(WORDS[:6]), min_size=1, max_size=2), st.booleans()).map(
        lambda c: Term(" ".join(c[0]), "phrase" if c[1] and len(c[0]) > 1 else None))
    return st.recursive(
        leaf,
        lambda kids: st.one_of(
            kids.map(Not),
            st.lists(kids, min_size=2, max_size=3).map(lambda c: And(tuple(c))),
            st.lists(kids, min_size=2, max_size=3).map(lambda c: Or(tuple(c))),
        ),
        max_leaves=4,
    )


def _top(pool, k):
    order = pool.ranking(k)
    return list(zip(pool.docs[order].tolist(), pool.combined[order].tolist()))


def _check(tree, backend, operators, normalizer, k, bound_queries=True):
    """Exact top-k (bound query first, then the threshold loop alone) equals exhaustive scoring."""
    want = _top(exhaustive(tree, backend, operators, normalizer), k)
    stats = TopKStats()
    got = _top(topk(tree, backend, operators, normalizer, k, stats, bound_queries), k)
    assert got == want, f"{tree} {operators} k={k} ({stats})"
    if bound_queries and stats.path == "bound-query":
        threshold = TopKStats()
        got = _top(topk(tree, backend, operators, normalizer, k, threshold, bound_queries=False), k)
        assert got == want, f"{tree} {operators} k={k} threshold loop ({threshold})"
    return stats


SETTINGS = settings(max_examples=300, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


@pytest.mark.parametrize("and_op", sorted(AND_OPERATORS))
@SETTINGS
@given(tree=_trees(), or_op=st.sampled_from(sorted(OR_OPERATORS)), not_op=st.sampled_from(sorted(NOT_OPERATORS)),
       k=st.sampled_from([1, 3, 10]))
def test_topk_equals_exhaustive_max_normaliser(backend, shallow, and_op, tree, or_op, not_op, k):
    _check(tree, backend, Operators(and_op, or_op, not_op), LeafNormalizer(Normalizer("max")), k)


@settings(max_examples=100, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(tree=_trees(), ops=st.sampled_from([Operators(), Operators("min", "max"), Operators("sum", "noisy-or")]),
       k=st.sampled_from([1, 10]))
def test_topk_equals_exhaustive_sigmoid_normaliser(backend, shallow, tree, ops, k):
    # Every document scores above 0 under a sigmoid, so no-match documents fill the tail.
    normalizer = LeafNormalizer(Normalizer("sigmoid", {"bm25": SigmoidParams(1.0, 2.0)}))
    _check(tree, backend, ops, normalizer, k)


@pytest.mark.parametrize("and_op", ["product", "sum"])
@settings(max_examples=150, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(tree=_mixed_trees(), k=st.sampled_from([1, 10]))
def test_topk_equals_exhaustive_with_phrase_leaves(backend, shallow, and_op, tree, k):
    # phrase: and bag-of-words leaves go to one Lucene scorer, so mixed trees keep the exact paths
    assert backend.exact_topk(tree)
    _check(tree, backend, Operators(and_op), LeafNormalizer(Normalizer("max")), k)


def test_selective_query_stops_early_with_default_depths(backend):
    """A rare AND of two words: far fewer documents cross from Java than the collection holds."""
    tree = And((Term("w20x"), Term("w21x")))
    stats = _check(tree, backend, Operators(), LeafNormalizer(Normalizer("max")), 10, bound_queries=False)
    assert stats.rounds == 1 and stats.max_depth <= 200 and stats.path == "bounded"


def test_and_query_terminates_before_exhausting_lists(backend, shallow):
    tree = And((Term("w5x"), Term("w6x")))  # 121 and 93 matching documents
    stats = _check(tree, backend, Operators(), LeafNormalizer(Normalizer("max")), 3, bound_queries=False)
    assert stats.rounds > 1 and stats.max_depth < 93


@pytest.mark.parametrize("query", [And((Term("w1x"), Term("w2x"))), Or((Term("w1x"), Term("w2x"))),
                                   And((Or((Term("w1x"), Term("w3x"))), Not(Term("w2x"))))])
def test_bound_query_answers_in_one_round(backend, query):
    """Frequent leaves (lists of 100+ documents): the bound query's first 15 documents (30
    with a NOT, which lowers exact scores below the bound) decide the top 10; their exact
    leaf scores come back with that one search (sort fields), so besides each leaf's top-1
    (its maximum) nothing else is searched or scored."""
    stats = _check(query, backend, Operators(), LeafNormalizer(Normalizer("max")), 10)
    depth = 30 if "NOT" in str(query) else 15
    assert stats.path == "bound-query" and stats.rounds == 1 and stats.max_depth == depth
    assert stats.scorings == 0 and stats.docid_calls == 0
    assert stats.searches == len({t.key for t in query_terms(query)}) + 1


def test_bound_query_deepens_when_not_prunes_the_top(backend, shallow):
    """The complement NOT lowers the bound query's best documents: more rounds, still exact."""
    stats = _check(And((Term("w0x"), Not(Term("w1x")))), backend, Operators(), LeafNormalizer(Normalizer("max")), 5)
    assert stats.path == "bound-query" and stats.rounds > 1


def test_bound_query_shapes():
    """Which trees have a bound query, and its form (weights: 1 / leaf maximum)."""
    a, b, c = Term("a"), Term("b"), Term("c")
    scale = {t.key: 0.5 for t in (a, b, c)}
    top = {t.key: 1.0 for t in (a, b, c)}
    spec = bound_query(And((a, Or((b, c)), Not(c))), Operators(), scale, top)
    assert spec.op == "product" and [ch.op for ch in spec.children] == ["leaf", "sum"]
    assert spec.children[0].weight == 0.5 and [t.text for t in spec.terms()] == ["a", "b", "c"]
    assert bound_query(Or((a, b)), Operators(or_="max"), scale, top).op == "max"
    # inverse NOT (at most 1 / 1e-3) becomes a constant factor of the product
    assert bound_query(And((a, Not(b))), Operators(not_="inverse"), scale, top).weight == pytest.approx(1e3 * 0.5)
    for tree, ops in [(Not(a), Operators()), (Or((a, Not(b))), Operators()), (And((a, b)), Operators("min")),
                      (And((a, Not(b))), Operators(and_="sum"))]:
        assert bound_query(tree, ops, scale, top) is None, (tree, ops)
    assert bound_query(And((a, b)), Operators(), {a.key: None, b.key: 0.5}, top) is None  # sigmoid leaf


def test_not_only_queries_get_answers(small_index):
    searcher = LogicalLuceneSearcher(str(small_index))
    hits = searcher.search('NOT w0x AND NOT w1x', 5)
    assert len(hits) == 5
    # Every hit lacks both words, scores 1 and comes in index order.
    assert all(h.score == 1.0 and h.leaf_scores == {"w0x": 0.0, "w1x": 0.0} for h in hits)
    assert [h.lucene_docid for h in hits] == sorted(h.lucene_docid for h in hits)
    for h in hits:
        assert not {"w0x", "w1x"} & set(h.contents.split())
    searcher.close()


def test_minmax_has_no_safe_bound_and_stays_pooled(small_index):
    assert not Normalizer("minmax").has_safe_bounds
    assert not Normalizer("sigmoid", {"bm25": SigmoidParams(1.0, -1.0)}).has_safe_bounds
    searcher = LogicalLuceneSearcher(str(small_index), normalize="minmax", leaf_hits=5)
    searcher.topk_stats = TopKStats()
    hits = searcher.search("w3x AND w4x", 10)
    assert hits and searcher.topk_stats.rounds == 0  # the exact path never ran
    searcher.close()


def test_exact_search_hits_match_pooled_exhaustive(small_index):
    """With positive leaves and no-match documents scoring 0, exact top-k equals the pooled
    ranking at full leaf depth (the issue's reference), and a shallow pool differs."""
    exact = LogicalLuceneSearcher(str(small_index))
    full = LogicalLuceneSearcher(str(small_index), pooled=True, leaf_hits=N_DOCS)
    query = "(w2x OR w5x) AND w9x AND NOT w0x"
    assert [(h.docid, h.score) for h in exact.search(query, 10)] == [(h.docid, h.score) for h in full.search(query, 10)]
    exact.close()
    full.close()


def test_raw_scores_under_complement_fall_back_to_exhaustive(backend):
    """Raw BM25 under the complement NOT goes negative: product AND has no safe bound there."""
    tree = And((Term("w3x"), Not(Term("w23x"))))  # a rare word: raw BM25 above 1
    normalizer = LeafNormalizer(Normalizer("none"))
    stats = _check(tree, backend, Operators(), normalizer, 10)
    assert stats.path == "exhaustive"
    assert np.isfinite(stats.max_depth)


def test_hits_carry_exact_leaf_scores_from_the_same_search(backend):
    """Leaf scores returned as sort fields of the bound search and of the filler listing are
    bit for bit the leaf scorer's own (0 where a leaf does not match), for every hit."""
    lucene = backend.retrievers["bm25"]
    texts = ("w1x", "w4x w9x", "w23x")
    spec = bound_query(Or((Term("w1x"), Term("w4x w9x"))), Operators(),
                       {Term(t).key: 0.5 for t in texts}, {Term(t).key: 1.0 for t in texts})
    ranked = lucene.bound_search(spec, 40, score=texts)
    plain = lucene.bound_search(spec, 40)
    # Same bound scores; ties may come in another order (broken by the leaf values, not docids).
    assert ranked.scores.tolist() == plain.scores.tolist()
    above = float(plain.scores[-1])
    assert sorted(ranked.docs[ranked.scores > above].tolist()) == sorted(plain.docs[plain.scores > above].tolist())
    first = lucene.first_hits(["w4x", "w23x"], 15, True, score=texts)
    assert first.docs.tolist() == lucene.first_docs(["w4x", "w23x"], 15, True).tolist()
    for hits in (ranked, first):
        assert len(hits.values) == len(texts)
        for text, values in zip(texts, hits.values):
            exact = lucene.score(text, hits.docs)
            assert values.dtype == np.float32 and values.tobytes() == exact.tobytes(), text
        assert (hits.values[2] == 0).any() and (hits.values[0] > 0).any()
        # The docids came back with the hits (a sort field on the binary doc values of ``id``).
        lookup = lucene._resolve(hits.docs.tolist())
        assert lucene.docids(hits.docs) == [lookup[d] for d in hits.docs.tolist()]
    assert lucene._id_kind == "BINARY" and set(ranked.docs.tolist()) <= set(lucene._docid_cache)

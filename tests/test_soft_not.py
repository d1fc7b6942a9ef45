"""Soft exclusions (``NOT^w``): the query language, the operators, ProbLog, the guard and a real Lucene search."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import lucene_index
from logical_pyserini.compose import Operators, compose
from logical_pyserini.query import And, Not, QuerySyntaxError, Term, map_terms, parse_query, pin_negated
from logical_pyserini.rerank._problog import CompiledFormula, program_posterior
from logical_pyserini.rewrite import GUARD_NOT_WEIGHT, RuleRewriter, guard_decision, guard_rewrite

LONG = ("Hi all, we are flying to Rome in May with two kids and want cheap flights from Manchester. Not Ryanair "
        "please, they charged us twice for bags last time. Any tips on which airline or booking site works best?")


@pytest.mark.parametrize("query, weight", [
    ('a AND NOT^0.3 b', 0.3), ('a AND NOT^.5 (b OR c)', 0.5), ('a AND NOT^1 b', 1.0), ('a AND NOT b', 1.0),
])
def test_the_weight_parses_prints_and_round_trips(query, weight):
    tree = parse_query(query)
    assert isinstance(tree.children[1], Not) and tree.children[1].weight == weight
    assert parse_query(str(tree)) == tree
    assert ("^" in str(tree)) == (weight != 1.0)


def test_weighted_not_keywords_need_a_boundary_and_a_weight_in_range():
    assert parse_query("NOTE AND NOT^0.3x") == And((Term("NOTE"), Term("NOT^0.3x")))
    for bad, pos in (("a AND NOT^0 b", 6), ("a AND NOT^1.5 b", 6)):
        with pytest.raises(QuerySyntaxError) as err:
            parse_query(bad)
        assert err.value.position == pos and "(0, 1]" in str(err.value)
    with pytest.raises(ValueError):
        Not(Term("x"), 0.0)


def test_tree_rewrites_keep_the_weight():
    tree = parse_query('a AND NOT^0.3 b')
    assert map_terms(tree, lambda t: Term(t.text.upper())) == parse_query('A AND NOT^0.3 B')
    assert pin_negated(tree, "bm25").children[1].weight == 0.3


@pytest.mark.parametrize("not_op, expected", [
    ("complement", lambda x: 1 - 0.3 * x),
    ("inverse", lambda x: 0.7 + 0.3 / np.maximum(x, 1e-3)),
])
def test_a_soft_not_mixes_the_operator_with_excluding_nothing(not_op, expected):
    x = np.array([0.0, 0.4, 1.0])
    pos = np.array([1.0, 0.8, 0.9])
    values = {Term("a").key: pos, Term("b").key: x}
    got = compose(parse_query('a AND NOT^0.3 b'), values, Operators("product", "sum", not_op))
    np.testing.assert_allclose(got, pos * expected(x))
    strict = compose(parse_query('a AND NOT b'), values, Operators("product", "sum", not_op))
    assert not np.allclose(got, strict)


def test_problog_reads_a_soft_not_as_one_minus_weight_times_p():
    formula = parse_query('"0" AND NOT^0.3 "1" AND NOT "2"')
    p = [0.8, 0.6, 0.1]
    want = 0.8 * (1 - 0.3 * 0.6) * (1 - 0.1)
    assert program_posterior(formula, p) == pytest.approx(want)
    compiled = CompiledFormula(formula)
    assert compiled.posterior(p) == pytest.approx(want)
    assert compiled.posterior([0.5, 1.0, 0.0]) == pytest.approx(0.5 * 0.7)  # re-weighted: strength stays fixed
    with pytest.raises(ValueError, match="1/1024"):  # a strength that would pass for an atom's placeholder weight
        CompiledFormula(parse_query('"0" AND NOT^0.0009765625 "1"'))


def test_the_guard_softens_only_the_nots_it_adds_to_a_question_kept_whole():
    decision = guard_decision(RuleRewriter().rewrite(LONG), propose=True)
    assert decision.mode == "question" and decision.kept == ("Ryanair",)
    assert decision.tree.children[-1] == Not(Term("Ryanair"), GUARD_NOT_WEIGHT)
    strict = guard_decision(RuleRewriter().rewrite(LONG), propose=True, not_weight=1.0)
    assert strict.tree.children[-1] == Not(Term("Ryanair"))
    assert 'NOT^0.3 "Ryanair"' in guard_rewrite(RuleRewriter().rewrite(LONG)).query
    # a short question's reliable parse keeps its strict NOT
    short = guard_decision(RuleRewriter().rewrite("Novels set in Paris excluding detective novels"), propose=True)
    assert short.mode == "structure" and all(n.weight == 1.0 for n in short.tree.children if isinstance(n, Not))
    with pytest.raises(ValueError):
        guard_decision(RuleRewriter().rewrite(LONG), not_weight=1.5)


DOCS = [
    ("trap", "Cheap flights Manchester Rome: Ryanair bags."),
    ("answer", "Cheap flights from Manchester to Rome with easyJet and Jet2; bags are included in most family fares."),
    ("weak", "Rome travel guide: museums and food."),
]


@pytest.fixture(scope="module")
def flights(tmp_path_factory):
    from logical_pyserini.search import LogicalLuceneSearcher

    searcher = LogicalLuceneSearcher(str(lucene_index(tmp_path_factory, "soft", DOCS)))
    yield searcher
    searcher.close()


def test_a_soft_exclusion_reorders_close_documents_and_a_strict_one_sinks_them(flights):
    query = '"cheap flights Manchester Rome bags" AND NOT{} Ryanair'
    soft = [h.docid for h in flights.search(query.format("^0.3"), k=3)]
    strict = [h.docid for h in flights.search(query.format(""), k=3)]
    plain = [h.docid for h in flights.search('"cheap flights Manchester Rome bags"', k=3)]
    assert plain[0] == "trap"  # it names the excluded airline and everything else asked for
    assert soft == ["answer", "trap", "weak"]  # below the comparable answer, above the weakly related guide
    assert strict[:2] == ["answer", "weak"]  # the strict NOT puts it below every document without the word
    # the Boolean peer stays strict whatever the weight
    assert [h.docid for h in flights.boolean_search(query.format("^0.3"), k=3)] == ["answer", "weak"]


def test_search_cli_rejects_a_weight_outside_the_unit_interval(museum_index, tmp_path):
    from logical_pyserini.search.__main__ import main as search_main

    topics = tmp_path / "t.tsv"
    topics.write_text("q1\tmuseums in Paris but not art museums\n", encoding="utf-8")
    out = tmp_path / "run.txt"
    assert search_main(["--index", str(museum_index), "--topics", str(topics), "--output", str(out), "--rewrite",
                        "rules", "--rewrite-not-weight", "0", "--quiet"]) == 2
    assert not out.exists()

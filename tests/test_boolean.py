"""The Boolean peer: the strict Lucene BooleanQuery of a parsed tree, on a real index."""

from __future__ import annotations

import re

import pytest

from conftest import MUSEUMS

TEXT = dict(MUSEUMS)


def _has(docid: str, word: str) -> bool:
    # The English analyzer stems "museums" -> "museum"; the corpus words used below are unstemmed forms.
    return re.search(rf"\b{word}", TEXT[docid], re.IGNORECASE) is not None


def _strict(query_fn) -> set[str]:
    return {d for d in TEXT if query_fn(d)}


@pytest.mark.parametrize("query, truth", [
    ('museum AND Paris AND NOT art', lambda d: _has(d, "museum") and _has(d, "Paris") and not _has(d, "art")),
    ('(Paris OR Amsterdam) AND museum', lambda d: (_has(d, "Paris") or _has(d, "Amsterdam")) and _has(d, "museum")),
    ('science OR Madrid', lambda d: _has(d, "science") or _has(d, "Madrid")),
    ('Amsterdam AND NOT (art OR science)',
     lambda d: _has(d, "Amsterdam") and not (_has(d, "art") or _has(d, "science"))),
])
def test_boolean_search_returns_exactly_the_documents_that_satisfy_the_logic(searcher, query, truth):
    hits = searcher.boolean_search(query, k=100)
    assert {h.docid for h in hits} == _strict(truth)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_boolean_score_is_the_lucene_bm25_sum_of_the_matching_positive_leaves(searcher):
    hits = searcher.boolean_search('(Paris OR Amsterdam) AND museum AND NOT art', k=100)
    assert hits
    for h in hits:
        expected = sum(searcher.leaves.explain(t, h.lucene_docid) for t in ("Paris", "Amsterdam", "museum"))
        assert h.score == pytest.approx(expected, abs=2e-4)  # Anserini rounds to 4 decimals


def test_a_one_leaf_boolean_query_ranks_like_plain_search(searcher):
    boolean = [(h.docid, h.score) for h in searcher.boolean_search("art museum Paris", k=20)]
    plain = [(h.docid, h.score) for h in searcher.plain_search("art museum Paris", k=20)]
    assert boolean == plain


def test_not_only_query_returns_the_documents_without_the_term(searcher):
    hits = searcher.boolean_search('NOT museum', k=100)
    assert {h.docid for h in hits} == {d for d in TEXT if not _has(d, "museum")} == {"m06", "m11"}
    assert max(h.score for h in hits) - min(h.score for h in hits) < 1e-4  # MatchAllDocs: constant (Anserini breaks ties by -1e-6)


def test_negated_operand_of_or_is_strict_too(searcher):
    hits = searcher.boolean_search('Madrid OR NOT museum', k=100)
    assert {h.docid for h in hits} == {"m05", "m06", "m11"}


def test_boolean_search_rejects_a_dense_leaf_on_a_lucene_index(searcher):
    with pytest.raises(ValueError, match="dense"):
        searcher.boolean_search('dense:"art" AND museum', k=5)


def test_cli_plain_boolean_writes_a_strict_run_and_plain_alone_stays_bag_of_words(tmp_path, museum_index):
    from logical_pyserini.search.__main__ import main

    topics = tmp_path / "t.tsv"
    topics.write_text("q1\tmuseum AND Paris AND NOT art\nq2\tmuseum AND (\n", encoding="utf-8")
    run = tmp_path / "boolean.txt"
    assert main(["--index", str(museum_index), "--topics", str(topics), "--output", str(run),
                 "--plain", "boolean", "--quiet"]) == 1  # q2 is malformed: reported, q1 still written
    lines = [line.split() for line in run.read_text().splitlines()]
    assert {line[2] for line in lines} == {"m02", "m07"} and {line[5] for line in lines} == {"boolean"}
    topics.write_text("q1\tmuseum AND Paris AND NOT art\n", encoding="utf-8")
    text_run = tmp_path / "plain.txt"
    assert main(["--index", str(museum_index), "--topics", str(topics), "--output", str(text_run),
                 "--plain", "--quiet"]) == 0
    plain_docs = {line.split()[2] for line in text_run.read_text().splitlines()}
    assert {"m01", "m12"} <= plain_docs  # bag of words: "art" is just another word


def test_cli_plain_boolean_needs_a_lucene_index(tmp_path, capsys):
    from logical_pyserini.search.__main__ import main

    topics = tmp_path / "t.tsv"
    topics.write_text("q1\ta AND b\n", encoding="utf-8")
    assert main(["--dense-index", str(tmp_path), "--topics", str(topics), "--output", str(tmp_path / "r"),
                 "--plain", "boolean"]) == 2
    assert "needs --index" in capsys.readouterr().err

"""LogicalLuceneSearcher on a real Lucene index built in the test."""

import numpy as np
import pytest

from logical_pyserini.query import QuerySyntaxError
from logical_pyserini.search import LogicalLuceneSearcher, NoPositiveTermError, TopKStats

from conftest import write_corpus

QUERY = 'museum AND (Paris OR Amsterdam) AND NOT art'


def test_single_leaf_ranks_exactly_like_lucene_searcher(searcher):
    from pyserini.search.lucene import LuceneSearcher

    plain = LuceneSearcher.search(searcher, "science museum paris", 10)
    ours = searcher.search("science museum paris", 10)
    assert [(h.docid, h.score) for h in ours] == [(h.docid, h.score) for h in plain]
    # Quoting one term does not change what it means.
    assert [h.docid for h in searcher.search('"science museum paris"', 10)] == [h.docid for h in plain]


def test_logical_query_enforces_and_or_not(searcher):
    hits = searcher.search(QUERY, k=20)
    # Museums in Paris or Amsterdam that are not art museums come first ...
    assert {h.docid for h in hits[:4]} == {"m02", "m04", "m07", "m09"}
    # ... then the art museums (NOT is fuzzy: 1 - normalised score), then the rest.
    assert {h.docid for h in hits[4:8]} == {"m01", "m03", "m08", "m12"}
    assert hits[3].score > hits[4].score


def test_plain_bm25_ranks_the_negated_term_high(searcher):
    # The failure logical search fixes: plain BM25 rewards documents mentioning "art".
    plain = searcher.plain_search("museum Paris Amsterdam art", 3)
    assert any(h.docid in {"m01", "m03", "m08", "m12"} for h in plain)


def test_not_term_demotes_an_otherwise_equal_document(tmp_path):
    from logical_pyserini.index import build_lucene_index

    corpus = write_corpus(tmp_path / "c.jsonl", [("a", "red apple pie recipe"), ("b", "red apple pie recipe walnut")])
    build_lucene_index(corpus, tmp_path / "idx", progress=False)
    s = LogicalLuceneSearcher(str(tmp_path / "idx"))
    hits = s.search('"apple pie" AND NOT walnut', 2)
    assert [h.docid for h in hits] == ["a", "b"]
    assert hits[0].score > hits[1].score
    # Without the NOT both documents are equally good for the positive leaf.
    assert s.search('"apple pie" AND recipe', 2)[0].score > 0


def test_exact_leaf_scores_equal_lucene_explain(searcher):
    hits = searcher.search(QUERY, k=20)
    for hit in hits:
        report = searcher.explain(QUERY, hit.docid)
        assert report["score"] == pytest.approx(hit.score, rel=1e-12)
        for leaf in _leaves(report):
            assert leaf["raw"] == pytest.approx(searcher.leaves.explain(leaf["term"], hit.lucene_docid), rel=1e-6)


def test_exact_scores_outside_a_leafs_top_hits(museum_index):
    # With leaf_hits=3 the NOT leaf keeps 3 of its 5 matches; the other
    # candidates that contain "art" must get Lucene's exact score, not 0.
    shallow = LogicalLuceneSearcher(str(museum_index), leaf_hits=3)
    q = "museum OR Paris OR Amsterdam OR NOT art"
    art_top = set(shallow.leaves.docids(shallow.leaves.search("art", 3).docs))
    outside = 0
    for hit in shallow.search(q, 50):
        report = shallow.explain(q, hit.docid)
        art = next(leaf for leaf in _leaves(report) if leaf["term"] == "art")
        assert art["raw"] == pytest.approx(shallow.leaves.explain("art", hit.lucene_docid), rel=1e-6)
        if hit.docid not in art_top and art["raw"] > 0:
            outside += 1
    assert outside >= 1, "a candidate outside the NOT leaf's top hits contains 'art'"
    deep = LogicalLuceneSearcher(str(museum_index), leaf_hits=1000)
    common = {h.docid: h.leaf_scores for h in deep.search(q, 50)}
    for hit in shallow.search(q, 50):
        assert hit.leaf_scores == pytest.approx(common[hit.docid])


def test_exact_scores_match_index_reader(museum_index, searcher):
    from pyserini.index.lucene import LuceneIndexReader

    reader = LuceneIndexReader(str(museum_index))
    for docid in ("m01", "m04", "m09"):
        expected = reader.compute_query_document_score(docid, "Amsterdam")
        got = searcher.leaves.score("Amsterdam", np.array([searcher.leaves.lucene_docid(docid)]))[0]
        assert got == pytest.approx(expected, abs=1e-6)


def test_batch_search_equals_search(searcher):
    queries = [QUERY, "science museum", "art AND NOT Paris", "(Paris OR London) AND museum"]
    qids = ["q1", "q2", "q3", "q4"]
    for threads in (1, 2):
        batch = searcher.batch_search(queries, qids, k=5, threads=threads)
        assert list(batch) == qids
        for q, qid in zip(queries, qids):
            assert [(h.docid, h.score) for h in batch[qid]] == [(h.docid, h.score) for h in searcher.search(q, 5)]


def test_hits_give_access_to_the_stored_document(searcher):
    hit = searcher.search(QUERY, 1)[0]
    assert "museum" in hit.contents
    assert hit.docid in hit.raw


def test_operator_choice_changes_scores(museum_index):
    a = LogicalLuceneSearcher(str(museum_index))
    b = LogicalLuceneSearcher(str(museum_index), operators=__import__("logical_pyserini").Operators("min", "max"))
    sa = {h.docid: h.score for h in a.search(QUERY, 5)}
    sb = {h.docid: h.score for h in b.search(QUERY, 5)}
    assert all(v <= 1.0 for v in sb.values())
    assert sa != sb


def test_bad_queries_fail_loudly(searcher):
    with pytest.raises(QuerySyntaxError):
        searcher.search("museum AND (Paris", 5)
    with pytest.raises(NoPositiveTermError):  # a pool needs a positive leaf; exact top-k does not
        LogicalLuceneSearcher(searcher.index_dir, pooled=True).search("NOT art", 5)
    with pytest.raises(ValueError, match="dense"):
        searcher.search('dense:"art" AND museum', 5)


def test_missing_index_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="not a directory"):
        LogicalLuceneSearcher(str(tmp_path / "nope"))
    with pytest.raises(FileNotFoundError, match="segments_N"):
        LogicalLuceneSearcher(str(tmp_path))


def test_unknown_docid_in_explain(searcher):
    with pytest.raises(KeyError):
        searcher.explain(QUERY, "no-such-doc")


def test_explain_of_a_non_candidate(searcher):
    report = searcher.explain(QUERY, "m05")  # Madrid: retrieved by 'museum', so a candidate with score 0
    assert report["candidate"] and report["score"] == 0.0
    report = searcher.explain("Paris AND NOT art", "m10")  # London: no positive leaf retrieves it
    assert not report["candidate"]


def _leaves(node):
    if "term" in node:
        yield node
    for child in node.get("children", []):
        yield from _leaves(child)


def test_batch_search_names_the_qid_of_a_bad_query(searcher):
    with pytest.raises(QuerySyntaxError) as info:
        searcher.batch_search(["museum", "museum AND (art"], ["ok", "broken"], k=3)
    assert info.value.reason.startswith("qid broken: unbalanced parentheses")
    assert info.value.position == 11


def test_repeated_queries_reuse_their_plan_and_rank_the_same(museum_index, monkeypatch):
    """A searcher keeps parsed queries and per-tree plans (bounded); clear_caches() forgets
    them and everything its leaf scorer caches; none of it changes a ranking."""
    from logical_pyserini.search import _topk

    s = LogicalLuceneSearcher(str(museum_index))
    first = [(h.docid, h.score) for h in s.search(QUERY, 10)]
    tree = s._tree(QUERY)
    assert s._tree(QUERY) is tree
    assert [(h.docid, h.score) for h in s.search(QUERY, 10)] == first
    s.clear_caches()
    assert s._tree(QUERY) is not tree and s._tree(QUERY) == tree
    assert [(h.docid, h.score) for h in s.search(QUERY, 10)] == first
    for _ in range(2):  # a syntax error is raised every time, never kept as a plan
        with pytest.raises(QuerySyntaxError):
            s.search("museum AND (Paris", 5)
    # Fewer than k documents score above 0: the first time one listing brings the 0-scored
    # fillers; the repeated query reuses it.
    s.topk_stats = TopKStats()
    fillers = [(h.docid, h.score) for h in s.search("Paris AND Amsterdam", 8)]
    assert s.topk_stats.docid_calls == 1 and len(fillers) == 8 and fillers[-1][1] == 0.0
    s.topk_stats = TopKStats()
    assert [(h.docid, h.score) for h in s.search("Paris AND Amsterdam", 8)] == fillers
    assert s.topk_stats.docid_calls == 0
    # The kept listing carries its docids: when the docid cache starts over, none is looked up again.
    s.leaves._docid_cache.clear()
    looked_up = []
    resolve = s.leaves._resolve
    monkeypatch.setattr(s.leaves, "_resolve", lambda docs: looked_up.extend(docs) or resolve(docs))
    assert [(h.docid, h.score) for h in s.search("Paris AND Amsterdam", 8)] == fillers
    assert looked_up == []
    s.topk_stats = None
    monkeypatch.setattr(_topk, "_PLANS_MAX", 5)
    for word in ["art", "Paris", "Amsterdam", "London", "science", "history", "modern", "city"]:
        s.search(f"museum AND NOT {word}", 3)
        assert len(s._plans) <= 5
    assert [(h.docid, h.score) for h in s.search(QUERY, 10)] == first


def test_ensure_index_takes_str_paths_and_rebuilds_only_for_a_changed_corpus(tmp_path, capsys):
    from conftest import write_corpus

    from logical_pyserini.demo import ensure_index

    corpus = write_corpus(tmp_path / "c.jsonl", [("d1", "museums in Porto"), ("d2", "bridges in Lisbon")])
    index = tmp_path / "idx"
    ensure_index(str(corpus), str(index))  # plain strings, as a script passes them
    assert "indexed 2 documents" in capsys.readouterr().err
    ensure_index(str(corpus), str(index))
    assert "up to date" in capsys.readouterr().err
    write_corpus(corpus, [("d1", "museums in Porto"), ("d2", "bridges in Lisbon"), ("d3", "parks in Madrid")])
    ensure_index(corpus, index)
    assert "indexed 3 documents" in capsys.readouterr().err

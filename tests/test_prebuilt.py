"""Pyserini's named resources, offline: prebuilt index / topics / qrels names through a cache
pre-populated in the test with indexes built here, laid out as Pyserini and Anserini lay them out."""

from __future__ import annotations

import json
import logging
import shutil
from pathlib import Path

import numpy as np
import pytest

from logical_pyserini.calibrate.__main__ import main as calibrate_main
from logical_pyserini.eval.__main__ import main as eval_main
from logical_pyserini.search.__main__ import main as search_main

# Anserini's TsvInt topic reader needs integer qids, as dl19-passage has.
TOPICS = "264014\tmuseum AND (Paris OR Amsterdam) AND NOT art\n1110199\tscience AND museum\n"
QRELS = "264014 0 m07 1\n264014 0 m04 1\n264014 0 m01 0\n1110199 0 m04 2\n1110199 0 m10 1\n"


def _info(name: str) -> dict:
    import pyserini.prebuilt_index_info as info

    for registry in (info.TF_INDEX_INFO, info.FAISS_INDEX_INFO, info.IMPACT_INDEX_INFO):
        if name in registry:
            return registry[name]
    raise KeyError(name)


def _cache_dir_name(name: str) -> str:
    """The folder ``download_prebuilt_index`` unpacks ``name`` into: tarball name minus .tar.gz, dot, md5."""
    info = _info(name)
    return info["filename"].removesuffix(".tar.gz") + "." + info["md5"]


@pytest.fixture
def cache(tmp_path, monkeypatch, museum_index):
    """PYSERINI_CACHE and HOME in tmp, no network; msmarco-v1-passage (a copy of the museum index) cached,
    with dl19-passage topics and qrels in Anserini's topics-and-qrels cache."""
    from logical_pyserini.search import LogicalLuceneSearcher  # noqa: F401  (JVM up before the env changes)

    monkeypatch.setenv("PYSERINI_CACHE", str(tmp_path / "pyserini"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("LOGICAL_PYSERINI_OFFLINE", "1")
    indexes = tmp_path / "pyserini" / "indexes"
    indexes.mkdir(parents=True)
    shutil.copytree(museum_index, indexes / _cache_dir_name("msmarco-v1-passage"))
    tq = tmp_path / "home" / ".cache" / "pyserini" / "topics-and-qrels"
    tq.mkdir(parents=True)
    (tq / "topics.dl19-passage.txt").write_text(TOPICS)
    (tq / "qrels.dl19-passage.txt").write_text(QRELS)
    return tmp_path


def _error_line(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    errors = [line for line in err if line.startswith("error:")]
    assert len(errors) == 1, err
    assert not any("Exception" in line or "\tat " in line for line in err), err  # no Java stack trace
    return errors[0]


def test_the_cache_layout_is_pyserinis(cache):
    from pyserini.util import check_downloaded

    from logical_pyserini._resources import resolve_index

    assert check_downloaded("msmarco-v1-passage")  # Pyserini itself sees our cached copy
    assert not check_downloaded("msmarco-v1-doc")
    resource = resolve_index("msmarco-v1-passage")
    assert resource.path == cache / "pyserini" / "indexes" / _cache_dir_name("msmarco-v1-passage")
    # Pyserini's own resolver returns that very folder (cached: it skips the download).
    from pyserini.util import download_prebuilt_index

    assert download_prebuilt_index("msmarco-v1-passage", verbose=False) == str(resource.path)
    assert resource.kind == "lucene" and resource.info["texts"] == "msmarco-v1-passage"


def test_search_and_eval_by_name_match_search_by_path(cache, museum_index, capsys, caplog):
    from pyserini.search import get_topics_with_reader

    by_name, by_path = cache / "name.txt", cache / "path.txt"
    with caplog.at_level(logging.WARNING):
        assert search_main(["--index", "msmarco-v1-passage", "--topics", "dl19-passage", "--output", str(by_name),
                            "--hits", "5", "--quiet"]) == 0
    # Our copy is not the real MS MARCO: Pyserini's statistics check says so, without failing the run.
    assert any("does not match Pyserini's published statistics" in r.getMessage() for r in caplog.records)
    topics_file = cache / "topics.tsv"
    topics_file.write_text(TOPICS)
    assert search_main(["--index", str(museum_index), "--topics", str(topics_file), "--output", str(by_path),
                        "--hits", "5", "--quiet"]) == 0
    assert by_name.read_text() == by_path.read_text()
    # The run's qids are the ones Pyserini's own reader gives for dl19-passage.
    theirs = get_topics_with_reader("io.anserini.search.topicreader.TsvIntTopicReader",
                                    str(cache / "home/.cache/pyserini/topics-and-qrels/topics.dl19-passage.txt"))
    assert {line.split()[0] for line in by_name.read_text().splitlines()} == {str(q) for q in theirs}
    capsys.readouterr()

    assert eval_main(["--qrels", "dl19-passage", "--run", f"named={by_name}", "--measures", "nDCG@5"]) == 0
    named_table = capsys.readouterr().out
    qrels_file = cache / "qrels.txt"
    qrels_file.write_text(QRELS)
    assert eval_main(["--qrels", str(qrels_file), "--run", f"named={by_name}", "--measures", "nDCG@5"]) == 0
    assert capsys.readouterr().out == named_table
    assert "| all   | named | 2 " in named_table


def test_calibrate_by_names(cache, capsys):
    out = cache / "calib.json"
    assert calibrate_main(["--index", "msmarco-v1-passage", "--topics", "dl19-passage", "--qrels", "dl19-passage",
                           "--output", str(out), "--depth", "12"]) == 0
    calibration = json.loads(out.read_text())
    assert calibration["meta"]["index"] == "msmarco-v1-passage"  # the name, as the user gave it
    assert calibration["meta"]["topics_used"] == 2 and np.isfinite(calibration["bm25"]["tau"])


def test_gzipped_string_id_topics_of_beir(cache):
    import gzip

    from logical_pyserini._resources import ResourceError, resolve_qrels, resolve_topics

    tq = cache / "home" / ".cache" / "pyserini" / "topics-and-qrels"
    with gzip.open(tq / "topics.beir-v1.0.0-scifact.test.tsv.gz", "wt", encoding="utf-8") as f:
        f.write("abc-2\tscience AND museum\n1\tParis OR Amsterdam\n")
    assert resolve_topics("beir-v1.0.0-scifact-test") == {"1": "Paris OR Amsterdam", "abc-2": "science AND museum"}
    with pytest.raises(ValueError, match="has no field 'description'"):
        resolve_topics("beir-v1.0.0-scifact-test", field="description")
    with pytest.raises(ResourceError, match="qrels.beir-v1.0.0-scifact.test.txt"):
        resolve_qrels("beir-v1.0.0-scifact-test")
    with pytest.raises(FileNotFoundError, match="did you mean dl19-passage"):
        resolve_topics("dl19-pasage")


def test_rewrite_by_topics_name(cache):
    from logical_pyserini.rewrite.__main__ import main as rewrite_main

    out = cache / "logical.tsv"
    assert rewrite_main(["--topics", "dl19-passage", "--output", str(out), "--quiet"]) == 0
    rows = [line.split("\t") for line in out.read_text().splitlines()]
    assert [r[0] for r in rows] == ["264014", "1110199"]  # Pyserini's qids, numeric order
    assert all("museum" in r[1] for r in rows)


def test_from_prebuilt_index_is_a_lucene_searcher(cache, museum_index):
    from pyserini.search.lucene import LuceneSearcher

    from logical_pyserini.search import LogicalLuceneSearcher

    named = LogicalLuceneSearcher.from_prebuilt_index("msmarco-v1-passage")
    assert isinstance(named, LuceneSearcher) and named.prebuilt_index_name == "msmarco-v1-passage"
    query = "museum AND (Paris OR Amsterdam) AND NOT art"
    direct = LogicalLuceneSearcher(str(museum_index))
    assert [(h.docid, h.score) for h in named.search(query, 5)] == [(h.docid, h.score) for h in direct.search(query, 5)]
    assert named.doc("m07").raw()  # the default flavour stores raw text


@pytest.mark.parametrize(
    "argv, expected",
    [
        # Uncached: one line naming the cache path and the command that fetches it elsewhere.
        (["--index", "msmarco-v1-doc"], ["download_prebuilt_index('msmarco-v1-doc')", "/pyserini/indexes/",
                                         "is not in the cache"]),
        (["--index", "msmarco-v1-passage", "--topics", "dl20"], ["get_topics('dl20')", "/topics-and-qrels/"]),
        # Unknown: a close match is suggested.
        (["--index", "msmarco-v1-pasage"], ["not a directory nor one of Pyserini's prebuilt", "msmarco-v1-passage"]),
        # The wrong kind for the flag: the flavour to use instead.
        (["--index", "msmarco-v1-passage.bge-base-en-v1.5"], ["Faiss dense index", "--dense-index",
                                                               "--index msmarco-v1-passage"]),
        (["--dense-index", "msmarco-v1-passage"], ["pass it as --index msmarco-v1-passage"]),
        # An impact index is searched as one (its cache and encoder: test_prebuilt_impact_*); not as --dense-index.
        (["--index", "msmarco-v1-passage.splade-pp-ed", "--encoder", "."],
         ["download_prebuilt_index('msmarco-v1-passage.splade-pp-ed')", "is not in the cache"]),
        (["--dense-index", "msmarco-v1-passage.splade-pp-ed"], ["impact", "--dense-index takes a Faiss index"]),
        (["--index", "msmarco-v1-passage", "--encoder", "."], ["--encoder needs --dense-index, or an impact --index"]),
        (["--index", "msmarco-v1-passage", "--impact-index", "msmarco-v1-passage.bge-base-en-v1.5"],
         ["Faiss dense index", "--impact-index takes a Lucene impact index", "--dense-index"]),
    ],
)
def test_one_line_errors(cache, capsys, argv, expected):
    topics = [] if "--topics" in argv else ["--topics", "dl19-passage"]
    assert search_main([*argv, *topics, "--output", str(cache / "r.txt"), "--quiet"]) == 2
    line = _error_line(capsys)
    for text in expected:
        assert text in line
    assert not (cache / "r.txt").exists()


def test_offline_qrels_error_names_the_cache(cache, capsys):
    (cache / "r.txt").write_text("1 Q0 d 1 1.0 x\n")
    assert eval_main(["--qrels", "dl20-passage", "--run", str(cache / "r.txt")]) == 2
    line = _error_line(capsys)
    assert "get_qrels_file('dl20-passage')" in line and str(cache / "home") in line


def test_prebuilt_dense_index_needs_its_encoder_as_a_directory(cache, capsys):
    import faiss

    name = "beir-v1.0.0-scifact.bge-base-en-v1.5"
    folder = cache / "pyserini" / "indexes" / _cache_dir_name(name)
    folder.mkdir()
    index = faiss.IndexFlatIP(4)
    index.add(np.eye(4, dtype=np.float32))
    faiss.write_index(index, str(folder / "index"))
    (folder / "docid").write_text("a\nb\nc\nd\n")
    for encoder in ([], ["--encoder", "BAAI/bge-base-en-v1.5"]):
        assert search_main(["--dense-index", name, *encoder, "--topics", "dl19-passage",
                            "--output", str(cache / "r.txt"), "--quiet"]) == 2
        line = _error_line(capsys)
        assert "BGE-base-en-v1.5" in line and "--encoder DIR" in line


def test_orlog_needs_stored_text(cache, museum_corpus, capsys):
    from pyserini.index.lucene import LuceneIndexer

    from logical_pyserini._resources import ResourceError
    from logical_pyserini.search import LogicalLuceneSearcher

    slim = cache / "pyserini" / "indexes" / _cache_dir_name("msmarco-v1-passage-slim")
    indexer = LuceneIndexer(str(slim), args=["-index", str(slim)], threads=1)  # no -storeRaw: a 'slim' index
    for line in museum_corpus.read_text().splitlines():
        indexer.add_doc_dict(json.loads(line))
    indexer.close()
    searcher = LogicalLuceneSearcher.from_prebuilt_index("msmarco-v1-passage-slim")
    assert searcher.search("museum AND Paris", 3)  # exact BM25 leaves work on any BM25 index

    from logical_pyserini._resources import require_stored_text, resolve_index

    with pytest.raises(ResourceError, match="stores no document text, which --rerank orlog needs; "
                                            "use --index msmarco-v1-passage$"):
        require_stored_text(resolve_index("msmarco-v1-passage-slim"), searcher, "--rerank orlog")
    require_stored_text(resolve_index("msmarco-v1-passage"),
                        LogicalLuceneSearcher.from_prebuilt_index("msmarco-v1-passage"), "--rerank orlog")
    assert search_main(["--index", "msmarco-v1-passage-slim", "--topics", "dl19-passage", "--output",
                        str(cache / "r.txt"), "--rerank", "orlog", "--quiet"]) == 2
    assert "use --index msmarco-v1-passage" in _error_line(capsys)


BGE_PREFIX = "Represent this sentence for searching relevant passages:"


@pytest.fixture
def tiny_bge(cache, tmp_path):
    """A tiny BERT (built from a config here) as the 'BGE' of a cached prebuilt Faiss index, whose documents
    were encoded the way Pyserini's BGE indexes were: CLS pooling, L2 norm."""
    import faiss
    import torch
    from pyserini.encode import AutoQueryEncoder
    from transformers import BertConfig, BertModel, BertTokenizerFast

    from conftest import MUSEUMS

    words = sorted({w.strip(".,'").lower() for _, text in MUSEUMS for w in text.split()} | set(BGE_PREFIX.lower()
                   .rstrip(":").split()))
    model_dir = tmp_path / "models" / "tiny-encoder"
    model_dir.mkdir(parents=True)
    (model_dir / "vocab.txt").write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", ":", *words]))
    BertTokenizerFast(str(model_dir / "vocab.txt")).save_pretrained(model_dir)
    torch.manual_seed(0)
    BertModel(BertConfig(vocab_size=6 + len(words), hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                         intermediate_size=32)).save_pretrained(model_dir)
    doc_encoder = AutoQueryEncoder(str(model_dir), pooling="cls", l2_norm=True)
    vectors = np.stack([doc_encoder.encode(text) for _, text in MUSEUMS]).astype(np.float32)
    folder = cache / "pyserini" / "indexes" / _cache_dir_name("beir-v1.0.0-scifact.bge-base-en-v1.5")
    folder.mkdir()
    index = faiss.IndexFlatIP(vectors.shape[1])
    index.add(vectors)
    faiss.write_index(index, str(folder / "index"))
    (folder / "docid").write_text("".join(f"{docid}\n" for docid, _ in MUSEUMS))
    return model_dir, folder


def test_prebuilt_dense_index_encodes_queries_as_pyserini(cache, tiny_bge):
    from pyserini.encode import AutoQueryEncoder
    from pyserini.search.faiss import FaissSearcher

    model_dir, folder = tiny_bge
    topics = cache / "dense.tsv"
    topics.write_text("1\tscience museum in Paris\n2\tart museum\n")
    common = ["--dense-index", "beir-v1.0.0-scifact.bge-base-en-v1.5", "--encoder", str(model_dir), "--topics",
              str(topics), "--hits", "5", "--quiet"]
    ours, other = cache / "ours.txt", cache / "mean.txt"
    assert search_main([*common, "--l2-norm", "--query-prefix", BGE_PREFIX, "--output", str(ours)]) == 0
    # The same command line as python -m pyserini.search.faiss: its encoder, its ranking (one-leaf topics).
    pyserini = FaissSearcher(str(folder), AutoQueryEncoder(str(model_dir), pooling="cls", l2_norm=True,
                                                           prefix=BGE_PREFIX))
    rows = [line.split() for line in ours.read_text().splitlines()]
    for qid, text in (("1", "science museum in Paris"), ("2", "art museum")):
        expected = [(h.docid, float(h.score)) for h in pyserini.search(text, 5)]
        got = [(r[2], float(r[4])) for r in rows if r[0] == qid]
        assert [d for d, _ in got] == [d for d, _ in expected]
        assert np.allclose([s for _, s in got], [s for _, s in expected], atol=1e-5)
    # Another pooling is another encoder: the flags reach it.
    assert search_main([*common, "--l2-norm", "--query-prefix", BGE_PREFIX, "--pooling", "mean",
                        "--output", str(other)]) == 0
    assert other.read_text() != ours.read_text()
    # Logical queries run over the prebuilt dense index too.
    topics.write_text("1\tmuseum AND NOT art\n")
    assert search_main([*common, "--l2-norm", "--query-prefix", BGE_PREFIX, "--output", str(ours)]) == 0
    assert len(ours.read_text().splitlines()) == 5


# -- impact (learned sparse) prebuilt indexes ----------------------------------

IMPACT = "beir-v1.0.0-scifact.splade-pp-ed"


@pytest.fixture(scope="module")
def impact_dir(tmp_path_factory):
    """A small impact index (test_retrievers' pre-computed weights over the museums), built once."""
    from test_retrievers import build_impact_index

    return build_impact_index(tmp_path_factory.mktemp("impact"))


@pytest.fixture
def impact_cache(cache, impact_dir):
    """The impact index cached under the folder name Pyserini expects for IMPACT, and a JSONL file of
    pre-encoded queries (Pyserini's CachedDataQueryEncoder format) for the leaves the tests use."""
    folder = cache / "pyserini" / "indexes" / _cache_dir_name(IMPACT)
    shutil.copytree(impact_dir, folder)
    queries = cache / "queries.splade.jsonl"
    encoded = {"painting": {"painting": 3}, "paris": {"paris": 2}, "science museum": {"science": 2, "museum": 1},
               "amsterdam": {"amsterdam": 1}}
    queries.write_text("".join(json.dumps({"contents": t, "vector": v}) + "\n" for t, v in encoded.items()))
    return folder, queries


def _ranked(run) -> dict[str, list[tuple[str, float]]]:
    out: dict[str, list[tuple[str, float]]] = {}
    for line in run.read_text().splitlines():
        qid, _, docid, _, score, _ = line.split()
        out.setdefault(qid, []).append((docid, float(score)))
    return out


def test_prebuilt_impact_index_by_name(impact_cache, cache, capsys):
    from pyserini.encode import CachedDataQueryEncoder
    from pyserini.search.lucene import LuceneImpactSearcher
    from pyserini.util import check_downloaded

    folder, queries = impact_cache
    assert check_downloaded(IMPACT)  # Pyserini itself sees the cached copy
    topics = cache / "impact.tsv"
    topics.write_text("1\tpainting\n2\tpainting AND NOT paris\n3\tscience museum OR amsterdam\n")
    by_name, by_dir = cache / "name.txt", cache / "dir.txt"
    assert search_main(["--index", IMPACT, "--encoder", str(queries), "--topics", str(topics), "--output",
                        str(by_name), "--hits", "5", "--quiet"]) == 0
    # The same search given as a directory with Pyserini's --impact flag.
    assert search_main(["--index", str(folder), "--impact", "--encoder", str(queries), "--topics", str(topics),
                        "--output", str(by_dir), "--hits", "5", "--quiet"]) == 0
    assert by_name.read_text() == by_dir.read_text()
    ranked = _ranked(by_name)
    # A one-leaf topic is Pyserini's LuceneImpactSearcher with that encoder: same docids, same scores.
    theirs = LuceneImpactSearcher(str(folder), CachedDataQueryEncoder(str(queries))).search("painting", 5)
    assert [d for d, _ in ranked["1"]] == [h.docid for h in theirs]
    assert [s for _, s in ranked["1"]] == pytest.approx([h.score for h in theirs], abs=1e-4)
    # Logic over impact leaves: the painting documents first, the Paris one (the Louvre, m01) pushed below them
    # (in topic 1 it ranks above m03 and m05).
    plain = [d for d, _ in ranked["1"]]
    assert plain.index("m01") < plain.index("m03") and {d for d, _ in ranked["2"][:3]} == {"m03", "m05", "m08"}
    assert ranked["3"][0][0] == "m04"  # the science museum in Amsterdam satisfies both sides of the OR
    # A leaf the pre-encoded file lacks fails that topic with one line, not the run.
    topics.write_text("1\tpainting\n2\tpainting AND NOT zebra\n")
    capsys.readouterr()
    assert search_main(["--index", IMPACT, "--encoder", str(queries), "--topics", str(topics), "--output",
                        str(by_name), "--quiet"]) == 1
    assert "failed qid 2: ValueError: leaf 'zebra' is not in the pre-encoded queries file" in capsys.readouterr().err
    assert set(_ranked(by_name)) == {"1"}
    # --plain is LuceneImpactSearcher.search on the topic text; the Boolean peer is BM25 and says so.
    plain = cache / "plain.txt"
    assert search_main(["--index", IMPACT, "--encoder", str(queries), "--topics", str(topics), "--output",
                        str(plain), "--hits", "5", "--plain", "--quiet"]) == 1  # topic 2's text is not pre-encoded
    assert [(d, pytest.approx(s, abs=1e-4)) for d, s in _ranked(plain)["1"]] == [(h.docid, h.score) for h in theirs]
    capsys.readouterr()
    assert search_main(["--index", IMPACT, "--encoder", str(queries), "--topics", str(topics), "--output",
                        str(plain), "--plain", "boolean", "--quiet"]) == 2
    assert "needs a BM25 --index, not an impact index" in _error_line(capsys)


def test_impact_index_without_text_names_the_text_flavour():
    from logical_pyserini._resources import IndexResource, ResourceError, require_stored_text

    with pytest.raises(ResourceError, match="use --index msmarco-v1-passage.splade-pp-ed-text$"):
        require_stored_text(IndexResource(Path("x"), "msmarco-v1-passage.splade-pp-ed", "impact"), None, "--rerank orlog")
    with pytest.raises(ResourceError, match="give beir-v1.0.0-scifact.splade-pp-ed as --impact-index$"):
        require_stored_text(IndexResource(Path("x"), IMPACT, "impact"), None, "--rerank orlog")


def test_prebuilt_impact_searcher_and_leaves_are_pyserinis(impact_cache, cache, capsys):
    from pyserini.search.lucene import LuceneImpactSearcher

    from logical_pyserini.retrieve import ImpactLeafScorer
    from logical_pyserini.search import LogicalImpactSearcher

    folder, queries = impact_cache
    searcher = LogicalImpactSearcher.from_prebuilt_index(IMPACT, str(queries))
    assert isinstance(searcher, LuceneImpactSearcher) and searcher.prebuilt_index_name == IMPACT
    hits = searcher.search("painting AND NOT paris", 5)
    assert {h.docid for h in hits[:3]} == {"m03", "m05", "m08"} and hits[0].leaf_scores
    assert searcher.doc("m08").raw()  # our test index stores raw text
    leaves = ImpactLeafScorer.from_prebuilt_index(IMPACT, str(queries))
    assert leaves.weights("science museum") == {"science": 2, "museum": 1}
    # Next to a BM25 index, as the impact retriever's own index flag: impact leaves by prefix.
    run = cache / "mixed.txt"
    topics = cache / "mixed.tsv"
    topics.write_text("1\timpact:painting AND NOT bm25:Paris\n2\tpainting\n")
    assert search_main(["--index", "msmarco-v1-passage", "--impact-index", IMPACT, "--impact-encoder", str(queries),
                        "--leaf-retriever", "impact", "--topics", str(topics), "--output", str(run), "--hits", "3",
                        "--quiet"]) == 0
    assert {d for d, _ in _ranked(run)["1"]} == {"m03", "m05", "m08"}
    # A one-leaf topic without a prefix is an impact leaf too (BM25 would find only m01 and m03: "paintings").
    assert [d for d, _ in _ranked(run)["2"]] == [h.docid for h in searcher.search("painting", 3)]
    assert _ranked(run)["2"][0][0] == "m08"


@pytest.mark.parametrize("encoder, expected", [
    ([], "no --encoder was given"),
    (["--encoder", "naver/splade-cocondenser-ensembledistil"], "is neither a directory nor a file"),
])
def test_prebuilt_impact_index_needs_its_encoder(impact_cache, cache, capsys, encoder, expected):
    assert search_main(["--index", IMPACT, *encoder, "--topics", "dl19-passage", "--output", str(cache / "r.txt"),
                        "--quiet"]) == 2
    line = _error_line(capsys)
    assert "SPLADE++" in line and "--encoder DIR|FILE" in line and expected in line
    assert not (cache / "r.txt").exists()
    # The impact retriever's own flag says the same with its own name.
    assert search_main(["--index", "msmarco-v1-passage", "--impact-index", IMPACT, "--topics", "dl19-passage",
                        "--output", str(cache / "r.txt"), "--quiet"]) == 2
    assert "--impact-encoder DIR|FILE" in _error_line(capsys)


def test_prebuilt_impact_index_is_not_cached(cache, capsys):
    # Offline, uncached: one line with the cache path and the fetch command, before any encoder is loaded.
    assert search_main(["--index", "msmarco-v1-passage", "--impact-index", "msmarco-v1-passage.splade-pp-ed",
                        "--impact-encoder", str(cache), "--topics", "dl19-passage", "--output", str(cache / "r.txt"),
                        "--quiet"]) == 2
    line = _error_line(capsys)
    assert "download_prebuilt_index('msmarco-v1-passage.splade-pp-ed')" in line and str(cache / "pyserini") in line
    # Calibration's --index is BM25: an impact name is pointed to --impact-index.
    assert calibrate_main(["--index", "msmarco-v1-passage.splade-pp-ed", "--topics", "dl19-passage", "--qrels",
                           "dl19-passage", "--output", str(cache / "c.json")]) == 2
    assert "pass it as --impact-index msmarco-v1-passage.splade-pp-ed" in _error_line(capsys)


def test_prebuilt_impact_index_with_a_model_directory(impact_cache, cache, tmp_path):
    """A tiny SPLADE (a BERT masked LM built from a config here) in a folder whose name says nothing: the prebuilt
    name picks Pyserini's SpladeQueryEncoder, and the ranking is LuceneImpactSearcher's with that encoder."""
    import torch
    from pyserini.encode import SpladeQueryEncoder
    from pyserini.search.lucene import LuceneImpactSearcher
    from transformers import BertConfig, BertForMaskedLM, BertTokenizerFast

    from conftest import MUSEUMS

    folder, _ = impact_cache
    words = sorted({w.strip(".,'").lower() for _, text in MUSEUMS for w in text.split()})
    model_dir = tmp_path / "models" / "tiny-encoder"
    model_dir.mkdir(parents=True)
    (model_dir / "vocab.txt").write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *words]))
    BertTokenizerFast(str(model_dir / "vocab.txt")).save_pretrained(model_dir)
    torch.manual_seed(0)
    BertForMaskedLM(BertConfig(vocab_size=5 + len(words), hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                               intermediate_size=32)).save_pretrained(model_dir)
    topics = cache / "model.tsv"
    topics.write_text("1\tscience museum in Paris\n2\tart AND NOT Paris\n")
    run = cache / "model.txt"
    assert search_main(["--index", IMPACT, "--encoder", str(model_dir), "--topics", str(topics), "--output", str(run),
                        "--hits", "5", "--quiet"]) == 0
    ranked = _ranked(run)
    theirs = LuceneImpactSearcher(str(folder), SpladeQueryEncoder(str(model_dir))).search("science museum in Paris", 5)
    assert [d for d, _ in ranked["1"]] == [h.docid for h in theirs]
    assert [s for _, s in ranked["1"]] == pytest.approx([h.score for h in theirs], abs=1e-4)
    assert ranked["2"]  # a logical query over model-encoded leaves runs too

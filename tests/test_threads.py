"""Concurrent search gives the same documents as one thread.

pyjnius binds a Java method to its object by mutating the method object that
every instance of the class shares (``JavaMethod.__get__`` sets ``j_self``);
two threads calling the same method on *different* Java objects (per-call doc
values iterators, weights, collectors, segment readers) could run it on the
other thread's object, or on one whose reference the other thread had just
dropped.  Observed before the fix: wrong docids and Java NullPointerExceptions.
"""

from __future__ import annotations

import random

import pytest

from conftest import write_corpus

WORDS = ("museum art paris amsterdam science history london madrid painting sculpture canal bridge river "
         "station train music opera garden park castle church tower market food wine cheese bread").split()


@pytest.fixture(scope="module")
def random_index(tmp_path_factory):
    from logical_pyserini.index import build_lucene_index

    rng = random.Random(0)
    docs = [(f"d{i:04d}", " ".join(rng.choice(WORDS) for _ in range(rng.randint(5, 30)))) for i in range(600)]
    root = tmp_path_factory.mktemp("threads")
    corpus = write_corpus(root / "corpus.jsonl", docs)
    index = root / "index"
    # Several segments, so that docid resolution and exact scoring walk different segment readers.
    build_lucene_index(corpus, index, batch_size=100, progress=False)
    return index


def _queries(n: int) -> list[str]:
    rng = random.Random(1)
    out = []
    for _ in range(n):
        a, b, c, d = rng.sample(WORDS, 4)
        out.append(f"{a} AND ({b} OR {c}) AND NOT {d}")
    return out


def _flat(results: dict) -> dict:
    return {qid: [(h.docid, h.score) for h in hits] for qid, hits in results.items()}


def test_batch_search_threads_identical_to_one_thread(random_index):
    from logical_pyserini.search import LogicalLuceneSearcher

    searcher = LogicalLuceneSearcher(str(random_index), leaf_hits=100)
    queries = _queries(80)
    qids = [f"q{i}" for i in range(len(queries))]
    # Fresh docid caches for every run: resolution is the racy part.
    expected = _flat(searcher.batch_search(queries, qids, k=50, threads=1))
    for _ in range(3):
        searcher.leaves._docid_cache.clear()
        assert _flat(searcher.batch_search(queries, qids, k=50, threads=4)) == expected


def test_cli_threads_write_the_same_run(random_index, tmp_path):
    from logical_pyserini.search.__main__ import main

    topics = tmp_path / "topics.tsv"
    topics.write_text("".join(f"q{i}\t{q}\n" for i, q in enumerate(_queries(40))), encoding="utf-8")
    runs = []
    for threads in (1, 3):
        out = tmp_path / f"run.{threads}.txt"
        assert main(["--index", str(random_index), "--topics", str(topics), "--output", str(out), "--hits", "50",
                     "--leaf-hits", "100", "--threads", str(threads), "--batch-size", "20", "--quiet"]) == 0
        runs.append(out.read_bytes())
    assert runs[0] == runs[1]

"""Indexing never loses a document silently, and a killed rebuild keeps the old index."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from conftest import MUSEUMS, write_corpus

from logical_pyserini.index.__main__ import main as index_main

REPO = Path(__file__).parents[1]


def test_huge_document_is_indexed_and_rejected_one_is_named(tmp_path, capsys):
    corpus = tmp_path / "corpus.jsonl"
    with corpus.open("w", encoding="utf-8") as f:
        f.write(json.dumps({"id": "small", "contents": "museum paris"}) + "\n")
        # Over Jackson's default 20,000,000-character string limit: Anserini used to drop it silently.
        f.write(json.dumps({"id": "huge", "contents": "amsterdam canal" + " " * 20_100_000 + "museum"}) + "\n")
        # An id over Lucene's 32,766-byte term limit: Lucene rejects the document.
        f.write(json.dumps({"id": "x" * 40_000, "contents": "immense id"}) + "\n")
    index = tmp_path / "index"
    assert index_main(["--input", str(corpus), "--index", str(index), "--quiet"]) == 1
    err = capsys.readouterr().err
    assert "indexed 2 documents, 1 failed" in err
    assert "error: 1 documents are not in the index: 'xxxx" in err and "(40000 characters)" in err

    from logical_pyserini.search import LogicalLuceneSearcher

    searcher = LogicalLuceneSearcher(str(index))
    assert searcher.num_docs == 2
    assert [h.docid for h in searcher.search("canal", 5)] == ["huge"]


def test_killed_overwrite_keeps_the_old_index(tmp_path, museum_index):
    import shutil

    index = tmp_path / "index"
    shutil.copytree(museum_index, index)
    big = write_corpus(tmp_path / "big.jsonl", [(f"n{i}", f"new document {i} " * 50) for i in range(20000)])
    proc = subprocess.Popen([sys.executable, "-m", "logical_pyserini.index", "--input", str(big), "--index",
                             str(index), "--overwrite", "--quiet", "--batch-size", "100"],
                            env={**os.environ, "PYTHONPATH": str(REPO)},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 240
    while time.time() < deadline and proc.poll() is None:
        building = list(tmp_path.glob(".index.tmp-*"))
        if building and any(p.name.startswith("_") for p in building[0].iterdir()):  # Lucene files appear
            proc.send_signal(signal.SIGKILL)
            break
        time.sleep(0.01)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL, "the build ended before it could be killed"

    from logical_pyserini.search import LogicalLuceneSearcher

    searcher = LogicalLuceneSearcher(str(index))
    assert searcher.num_docs == len(MUSEUMS)
    assert searcher.search("Louvre", 1)[0].docid == "m01"
    # The next build cleans the killed build's temporary directory up.
    small = write_corpus(tmp_path / "small.jsonl", MUSEUMS[:3])
    assert index_main(["--input", str(small), "--index", str(index), "--overwrite", "--quiet"]) == 0
    assert not list(tmp_path.glob(".index.tmp-*"))
    assert LogicalLuceneSearcher(str(index)).num_docs == 3

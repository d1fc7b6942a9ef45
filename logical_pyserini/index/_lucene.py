"""Build a Lucene index in-process with Pyserini's ``LuceneIndexer``."""

from __future__ import annotations

import os
import shutil

from tqdm import tqdm

from .._bootstrap import ensure_pyserini
from ._corpus import check_index_dir, iter_documents

__all__ = ["build_lucene_index"]


def build_lucene_index(
    input_path: str | os.PathLike,
    index_dir: str | os.PathLike,
    threads: int = 1,
    batch_size: int = 1000,
    overwrite: bool = False,
    progress: bool = True,
) -> int:
    """Index a JSONL corpus (JsonCollection or BEIR form) with BM25-ready settings.

    Raw documents, positions and document vectors are stored, so the index
    serves ``doc()``, phrase queries and ``IndexReader`` statistics.

    Returns
    -------
    int
        Number of documents indexed.

    Raises
    ------
    FileExistsError
        If ``index_dir`` is a non-empty directory and ``overwrite`` is False.
    """
    index_dir = check_index_dir(index_dir, overwrite)
    # Validate every line before touching anything (a half-built index is worse
    # than none); streaming twice keeps memory flat for large corpora.
    total = sum(1 for _ in iter_documents(input_path))
    if index_dir.exists():
        shutil.rmtree(index_dir)
    ensure_pyserini()
    from pyserini.index.lucene import LuceneIndexer

    index_dir.mkdir(parents=True, exist_ok=True)
    args = ["-index", str(index_dir), "-storePositions", "-storeDocvectors", "-storeRaw"]
    indexer = LuceneIndexer(str(index_dir), args=args, threads=threads)
    try:
        with tqdm(total=total, desc="index", unit="doc", disable=not progress) as bar:
            batch: list[str] = []
            for doc in iter_documents(input_path):
                batch.append(doc.to_json())
                if len(batch) == batch_size:
                    indexer.add_batch_raw(batch)
                    bar.update(len(batch))
                    batch = []
            if batch:
                indexer.add_batch_raw(batch)
                bar.update(len(batch))
    finally:
        indexer.close()
    return total

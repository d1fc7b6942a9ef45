"""Build a Lucene index in-process with Pyserini's ``LuceneIndexer``."""

from __future__ import annotations

import logging
import os

from tqdm import tqdm

from .._bootstrap import ensure_pyserini
from .._io import atomic_directory
from ._corpus import check_index_dir, iter_documents

__all__ = ["IndexReport", "build_lucene_index"]

logger = logging.getLogger(__name__)

# Anserini parses each raw JSON line with a static Jackson ObjectMapper whose
# default StreamReadConstraints reject string values over 20,000,000 characters;
# addRawDocuments then drops the document, logs nothing we see, and the build
# "succeeds" with one document less.  The JVM heap is the real limit.
_MAX_STRING_LENGTH = 2**31 - 1


class IndexReport(int):
    """Outcome of a Lucene build: an ``int`` (documents indexed) with the ids that failed.

    Attributes
    ----------
    indexed : int
        Documents in the new index.
    failed : list of str
        Ids of corpus documents Lucene/Anserini rejected (not in the index).
    """

    failed: list[str]

    def __new__(cls, indexed: int, failed: list[str] | tuple = ()):
        report = int.__new__(cls, indexed)
        report.failed = list(failed)
        return report

    @property
    def indexed(self) -> int:
        return int(self)


def _lift_json_limit() -> None:
    from jnius import autoclass

    constraints = autoclass("com.fasterxml.jackson.core.StreamReadConstraints")
    limit = constraints.builder().maxStringLength(_MAX_STRING_LENGTH).build()
    mapper = autoclass("io.anserini.collection.JsonCollection$Document").MAPPER
    mapper.getFactory().setStreamReadConstraints(limit)


def build_lucene_index(
    input_path: str | os.PathLike,
    index_dir: str | os.PathLike,
    threads: int = 1,
    batch_size: int = 1000,
    overwrite: bool = False,
    progress: bool = True,
) -> IndexReport:
    """Index a JSONL corpus (JsonCollection or BEIR form) with BM25-ready settings.

    Raw documents, positions and document vectors are stored, so the index
    serves ``doc()``, phrase queries and ``IndexReader`` statistics.  The
    index is built in a temporary sibling directory and swapped in at the
    end: an interrupted or failed build leaves an existing index untouched.

    Returns
    -------
    IndexReport
        An ``int`` (documents indexed) that also lists the ids of documents
        Lucene rejected; every document is either in the index or listed.

    Raises
    ------
    FileExistsError
        If ``index_dir`` is a non-empty directory and ``overwrite`` is False.
    ValueError
        For an invalid corpus line (before anything is written).
    """
    index_dir = check_index_dir(index_dir, overwrite)
    # Validate every line before touching anything (a half-built index is worse
    # than none); streaming twice keeps memory flat for large corpora.
    total = sum(1 for _ in iter_documents(input_path))
    ensure_pyserini()
    from jnius import autoclass
    from pyserini.index.lucene import LuceneIndexer

    from .._bootstrap import jvm_lock

    added = 0
    with atomic_directory(index_dir, overwrite=True) as tmp:
        args = ["-index", str(tmp), "-storePositions", "-storeDocvectors", "-storeRaw"]
        with jvm_lock:
            _lift_json_limit()
            indexer = LuceneIndexer(str(tmp), args=args, threads=threads)
        try:
            with tqdm(total=total, desc="index", unit="doc", disable=not progress) as bar:
                batch: list[str] = []
                for doc in iter_documents(input_path):
                    batch.append(doc.to_json())
                    if len(batch) == batch_size:
                        added += _add(indexer, batch, jvm_lock)
                        bar.update(len(batch))
                        batch = []
                if batch:
                    added += _add(indexer, batch, jvm_lock)
                    bar.update(len(batch))
        finally:
            with jvm_lock:
                indexer.close()
        failed: list[str] = []
        if added != total:
            failed = _missing_ids(tmp, input_path, autoclass)
            for docid in failed:
                logger.error("document %s was rejected by Lucene and is not in the index", short_id(docid))
    return IndexReport(added, failed)


def short_id(docid: str, limit: int = 80) -> str:
    """``repr`` of a docid, cut for messages (a rejected id can be megabytes long)."""
    return repr(docid) if len(docid) <= limit else f"{docid[:limit]!r}... ({len(docid)} characters)"


def _add(indexer, batch: list[str], lock) -> int:
    """Add a batch; the number Anserini reports as added (it skips failures silently)."""
    with lock:
        return int(indexer.object.addRawDocuments(batch))


def _missing_ids(index_dir, input_path, autoclass) -> list[str]:
    """Corpus ids absent from the index (read back from the index's stored ids)."""
    paths = autoclass("java.nio.file.Paths")
    reader = autoclass("org.apache.lucene.index.DirectoryReader").open(
        autoclass("org.apache.lucene.store.FSDirectory").open(paths.get(str(index_dir))))
    try:
        stored = reader.storedFields()
        present = {stored.document(i).get("id") for i in range(reader.maxDoc())}
    finally:
        reader.close()
    return [doc.id for doc in iter_documents(input_path) if doc.id not in present]

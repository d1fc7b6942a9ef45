"""Indexing: JSONL corpora (Pyserini JsonCollection or BEIR) into Lucene or Faiss indexes.

``python -m logical_pyserini.index --input corpus.jsonl --index indexes/name [--dense]``
"""

from ._corpus import Document, corpus_files, count_documents, iter_documents
from ._faiss import build_faiss_index
from ._lucene import IndexReport, build_lucene_index

__all__ = ["Document", "IndexReport", "build_faiss_index", "build_lucene_index", "corpus_files", "count_documents", "iter_documents"]

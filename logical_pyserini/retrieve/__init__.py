"""Leaf retrieval: one sub-search per distinct leaf, exact scores for candidates."""

from ._boolean import boolean_query
from ._faiss import FaissLeafScorer, check_faiss_index, read_docids
from ._lucene import LeafHits, LuceneLeafScorer

__all__ = ["FaissLeafScorer", "boolean_query", "LeafHits", "LuceneLeafScorer", "check_faiss_index", "read_docids"]

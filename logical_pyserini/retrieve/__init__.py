"""Leaf retrieval: one sub-search per distinct leaf, exact scores for candidates."""

from ._lucene import LeafHits, LuceneLeafScorer

__all__ = ["LeafHits", "LuceneLeafScorer"]

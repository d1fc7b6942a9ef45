"""Search front-ends: logical searchers shaped like Pyserini's, and the CLI.

``python -m logical_pyserini.search --index DIR [--dense-index DIR] --topics FILE --output RUN``
"""

from ._base import LeafNormalizer, LogicalHit, LogicalSearchMixin
from ._faiss_searcher import LogicalFaissSearcher
from ._hybrid_searcher import LogicalHybridSearcher
from ._lucene_searcher import LogicalLuceneSearcher, check_lucene_index
from ._pipeline import NoPositiveTermError, Pool, score_pool

__all__ = [
    "LeafNormalizer",
    "LogicalFaissSearcher",
    "LogicalHit",
    "LogicalHybridSearcher",
    "LogicalLuceneSearcher",
    "LogicalSearchMixin",
    "NoPositiveTermError",
    "Pool",
    "check_lucene_index",
    "score_pool",
]

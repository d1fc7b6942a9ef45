"""Search front-ends: logical searchers shaped like Pyserini's, and the CLI.

``python -m logical_pyserini.search --index DIR --topics FILE --output RUN``
"""

from ._lucene_searcher import LogicalHit, LogicalLuceneSearcher, check_lucene_index
from ._pipeline import NoPositiveTermError, Pool, score_pool

__all__ = ["LogicalHit", "LogicalLuceneSearcher", "NoPositiveTermError", "Pool", "check_lucene_index", "score_pool"]

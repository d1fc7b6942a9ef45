"""Search front-ends: logical searchers shaped like Pyserini's, and the CLI.

``python -m logical_pyserini.search --index DIR [--dense-index DIR] --topics FILE --output RUN``

The searchers are loaded on first use: importing them starts the JVM and
torch, which ``--help`` and topic-file checks should not have to wait for.
"""

import importlib

_EXPORTS = {
    "LeafNormalizer": "._base",
    "LogicalHit": "._base",
    "LogicalSearchMixin": "._base",
    "LogicalFaissSearcher": "._faiss_searcher",
    "LogicalHybridSearcher": "._hybrid_searcher",
    "LogicalImpactSearcher": "._impact_searcher",
    "LogicalLuceneSearcher": "._lucene_searcher",
    "check_lucene_index": "._lucene_searcher",
    "NoPositiveTermError": "._pipeline",
    "RetrieverBackend": "._base",
    "RunReport": "._run",
    "SearchConfig": "._run",
    "build_searcher": "._run",
    "open_run_writer": "._output",
    "run_topics": "._run",
    "Pool": "._pipeline",
    "score_pool": "._pipeline",
    "TopKStats": "._topk",
    "exhaustive": "._topk",
    "topk": "._topk",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

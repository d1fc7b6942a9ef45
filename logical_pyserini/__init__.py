"""logical_pyserini: logical (AND / OR / NOT) retrieval on top of Pyserini.

Importing the package is always safe: it configures Java (JAVA_HOME >= 21,
JVM options) before anything can import pyserini, and starts nothing.  The
searchers are imported lazily because loading them starts the JVM.

>>> from logical_pyserini import LogicalLuceneSearcher          # doctest: +SKIP
>>> searcher = LogicalLuceneSearcher("indexes/demo")           # doctest: +SKIP
>>> searcher.search('museum AND (Paris OR Amsterdam) AND NOT art', k=10)  # doctest: +SKIP
"""

from . import _bootstrap  # noqa: F401  (must run before any pyserini import)
from .compose import Normalizer, Operators
from .query import QuerySyntaxError, parse_query

__version__ = "0.1.0"

_LAZY = {
    "LogicalLuceneSearcher": "logical_pyserini.search",
    "LogicalFaissSearcher": "logical_pyserini.search",
    "LogicalHybridSearcher": "logical_pyserini.search",
    "LogicalImpactSearcher": "logical_pyserini.search",
    "LogicalHit": "logical_pyserini.search",
    "NoPositiveTermError": "logical_pyserini.search",
}

__all__ = ["Normalizer", "Operators", "QuerySyntaxError", "parse_query", *_LAZY]


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'logical_pyserini' has no attribute {name!r}")

"""Leaf retrieval: the plug-in unit of the library.

A :class:`LeafRetriever` searches one query leaf to depth ``k`` and scores it
exactly on any document; the registry (:func:`get_retriever`,
:func:`register_retriever`, entry point group ``logical_pyserini.retrievers``)
maps the names that queries write as prefixes (``bm25:``, ``dense:``,
``hybrid:``, ``impact:``) to implementations.  Built-ins:

* ``bm25`` -- :class:`LuceneLeafScorer`, BM25 over a Lucene index;
* ``phrase`` -- :class:`LucenePhraseLeaves`, positional phrases scored by the same Lucene scorer;
* ``dense`` -- :class:`FaissLeafScorer`, inner products over a Faiss index;
* ``hybrid`` -- :class:`HybridLeafRetriever`, a retriever made of retrievers;
* ``impact`` -- :class:`ImpactLeafScorer`, learned sparse weights in a Lucene impact index.

:class:`MappedRetriever` puts a retriever over one index into the document
keys of another index of the same corpus.
"""

import importlib

from ._base import LeafRetriever, LeafStatistics, exact_scores
from ._cli import add_retriever_arguments, open_retrievers, retriever_indexes
from ._boolean import boolean_query
from ._faiss import FaissLeafScorer, check_faiss_index, read_docids
from ._lucene import LeafHits, LuceneLeafScorer, LucenePhraseLeaves, Phrase, check_lucene_index
from ._mapped import MappedRetriever
from ._registry import (ENTRY_POINT_GROUP, calibration_keys, get_retriever, register_retriever, retriever_names,
                        unregister_retriever)

_LAZY = {"HybridLeafRetriever": "._hybrid", "ImpactLeafScorer": "._impact"}

__all__ = [
    "ENTRY_POINT_GROUP", "FaissLeafScorer", "HybridLeafRetriever", "ImpactLeafScorer", "LeafHits", "LeafRetriever",
    "LeafStatistics", "boolean_query", "LuceneLeafScorer", "LucenePhraseLeaves", "Phrase", "MappedRetriever",
    "add_retriever_arguments", "open_retrievers", "retriever_indexes", "calibration_keys", "check_faiss_index",
    "check_lucene_index", "exact_scores", "get_retriever", "read_docids", "register_retriever", "retriever_names",
    "unregister_retriever",
]


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

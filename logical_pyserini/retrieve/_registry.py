"""Registry of leaf retrievers: name -> :class:`LeafRetriever` class, loaded on first use.

Built-ins are listed below; other packages add theirs through the entry point
group ``logical_pyserini.retrievers``::

    # setup.cfg of a plug-in package
    [options.entry_points]
    logical_pyserini.retrievers =
        splade = my_package.splade:SpladeRetriever

or at run time with :func:`register_retriever`.  The query grammar's
``name:`` prefixes, the CLI's ``--leaf-retriever`` choices and index flags,
calibration and the normaliser all read this one table.  This module imports
nothing from the package at import time (the query parser reads the names),
and loads an implementation only when it is asked for.
"""

from __future__ import annotations

import importlib
import re
import threading
from functools import lru_cache
from importlib.metadata import entry_points
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._base import LeafRetriever

__all__ = ["ENTRY_POINT_GROUP", "calibration_keys", "get_retriever", "register_retriever", "retriever_names",
           "unregister_retriever"]

ENTRY_POINT_GROUP = "logical_pyserini.retrievers"

# name -> "module:attribute"; a new built-in is one line here and one module.
_BUILTINS: dict[str, str] = {
    "bm25": "logical_pyserini.retrieve._lucene:LuceneLeafScorer",
    "phrase": "logical_pyserini.retrieve._lucene:LucenePhraseLeaves",
    "dense": "logical_pyserini.retrieve._faiss:FaissLeafScorer",
    "hybrid": "logical_pyserini.retrieve._hybrid:HybridLeafRetriever",
    "impact": "logical_pyserini.retrieve._impact:ImpactLeafScorer",
}

_NAME = re.compile(r"[a-z][a-z0-9_]*\Z")
_added: dict[str, object] = {}
_lock = threading.Lock()


@lru_cache(maxsize=1)
def _plugins() -> dict[str, object]:
    """Entry points of installed plug-in packages (read once)."""
    return {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}


def _table() -> dict[str, object]:
    # Built-ins win over plug-ins of the same name; run-time registrations win over both.
    return {**_plugins(), **_BUILTINS, **_added}


def retriever_names() -> tuple[str, ...]:
    """Every registered retriever name, built-ins first, then plug-ins in name order."""
    table = _table()
    return tuple(_BUILTINS) + tuple(sorted(n for n in table if n not in _BUILTINS))


def register_retriever(name: str, target: "type[LeafRetriever] | str") -> None:
    """Register a retriever class (or ``"module:Class"``) under ``name`` for this process.

    Raises
    ------
    ValueError
        For a name that cannot be a query prefix (lower-case letters, digits, ``_``).
    """
    if not _NAME.match(name):
        raise ValueError(f"retriever name {name!r} must be lower-case letters, digits or _, starting with a letter")
    with _lock:
        _added[name] = target
    get_retriever.cache_clear()


def unregister_retriever(name: str) -> None:
    """Undo :func:`register_retriever` (built-ins and installed plug-ins stay)."""
    with _lock:
        _added.pop(name, None)
    get_retriever.cache_clear()


@lru_cache(maxsize=None)
def get_retriever(name: str) -> "type[LeafRetriever]":
    """The :class:`LeafRetriever` class registered as ``name``.

    Raises
    ------
    ValueError
        For an unknown name (listing the known ones).
    ImportError
        When the implementation's dependencies are missing (with the install command).
    """
    table = _table()
    if name not in table:
        raise ValueError(f"unknown retriever {name!r}; registered: {', '.join(retriever_names())}")
    target = table[name]
    if isinstance(target, str):
        module, _, attr = target.partition(":")
        cls = getattr(importlib.import_module(module), attr)
    elif hasattr(target, "load"):  # an entry point
        cls = target.load()
    else:
        cls = target
    from ._base import LeafRetriever

    if not (isinstance(cls, type) and issubclass(cls, LeafRetriever)):
        raise TypeError(f"retriever {name!r} ({target}) is not a LeafRetriever subclass")
    if cls.name != name:
        # One class may serve under several names only through subclasses; say which name it has here.
        cls = type(cls.__name__, (cls,), {"name": name, "__module__": cls.__module__})
    return cls


def calibration_keys() -> tuple[str, ...]:
    """Keys a calibration file may hold: each registered retriever's :meth:`LeafRetriever.calibration_key`.

    A retriever whose implementation cannot be imported here (a missing optional dependency) is skipped.
    """
    keys: list[str] = []
    for name in retriever_names():
        try:
            key = get_retriever(name).calibration_key()
        except ImportError:
            continue
        if key and key not in keys:
            keys.append(key)
    return tuple(keys)

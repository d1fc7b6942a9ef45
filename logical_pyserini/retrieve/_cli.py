"""Command-line glue: one index flag per registered retriever (``--impact-index``...).

The search and calibrate CLIs define their own ``--index`` / ``--dense-index``
(BM25 and dense are the searchers' own indexes); every other registered
retriever that names an ``index_option`` gets its flag here, so a plug-in
retriever is usable from the command line without touching the CLIs.
"""

from __future__ import annotations

import argparse
import logging

from ._base import LeafRetriever
from ._registry import get_retriever, retriever_names

__all__ = ["add_retriever_arguments", "open_retrievers", "retriever_indexes"]

logger = logging.getLogger(__name__)


def _pluggable(exclude: tuple[str, ...]) -> list[type[LeafRetriever]]:
    out = []
    for name in retriever_names():
        try:
            cls = get_retriever(name)
        except ImportError as exc:  # a plug-in whose dependencies are missing: say so, keep the others
            logger.warning("retriever %s unavailable: %s", name, exc)
            continue
        if cls.index_option and cls.index_option not in exclude:
            out.append(cls)
    return out


def add_retriever_arguments(parser: argparse.ArgumentParser,
                            exclude: tuple[str, ...] = ("--index", "--dense-index")) -> argparse.ArgumentParser:
    """Add the index flag (and ``--NAME-encoder``) of every registered retriever not in ``exclude``."""
    group = parser.add_argument_group("more leaf retrievers (registry: logical_pyserini.retrievers)")
    for cls in _pluggable(exclude):
        group.add_argument(cls.index_option, default=None, metavar="DIR", help=cls.index_help or
                           f"Index of the {cls.name} retriever, for leaves written {cls.name}:\"...\".")
        group.add_argument(f"--{cls.name}-encoder", default=None, metavar="SPEC",
                           help=f"Query encoder of the {cls.name} retriever (default: the retriever's own).")
    return parser


def retriever_indexes(args, exclude: tuple[str, ...] = ("--index", "--dense-index")) -> dict[str, dict]:
    """Registry name -> ``{"index": DIR, "<name>_encoder": SPEC}`` for every retriever flag given in ``args``."""
    out = {}
    for cls in _pluggable(exclude):
        index = getattr(args, cls.index_option.lstrip("-").replace("-", "_"), None)
        if index:
            out[cls.name] = {"index": index, f"{cls.name}_encoder": getattr(args, f"{cls.name}_encoder", None)}
    return out


def open_retrievers(specs: dict[str, dict]) -> dict[str, LeafRetriever]:
    """Open the retrievers of :func:`retriever_indexes` (``LeafRetriever.open(index, **options)``)."""
    return {name: get_retriever(name).open(**spec) for name, spec in specs.items()}

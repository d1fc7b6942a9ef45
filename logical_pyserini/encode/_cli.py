"""Command-line glue: the query encoder of ``--dense-index``, chosen as Pyserini's CLI chooses it.

Our own Faiss indexes are built with mean pooling + L2 norm
(:class:`SentenceEncoder`), so ``--encoder DIR`` alone keeps that.  Pyserini's
prebuilt Faiss indexes were encoded with other poolings and prefixes (BGE:
CLS pooling, L2 norm and a query instruction), so for them -- and whenever
one of Pyserini's encoder flags is given -- the query encoder is built by
``python -m pyserini.search.faiss``'s own ``init_query_encoder`` with the same
flags (``--encoder-class --pooling --l2-norm --query-prefix --max-length``),
so that a command copied from Pyserini's reproduction pages encodes queries
exactly as Pyserini does.
"""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["add_encoder_arguments", "query_encoder_from_args"]


def add_encoder_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Pyserini's dense query-encoder flags (``--encoder`` itself is the caller's)."""
    g = parser.add_argument_group("dense query encoder, as python -m pyserini.search.faiss builds it")
    g.add_argument("--encoder-class", default=None, metavar="CLASS",
                   help="Pyserini query encoder class (auto, tct_colbert, dpr, ance, contriever, ...); default: "
                   "guessed from the --encoder path as Pyserini does.")
    g.add_argument("--pooling", default=None, choices=["cls", "mean", "last", "eos"],
                   help="Pooling of the auto encoder class (Pyserini's default: cls).")
    g.add_argument("--l2-norm", action="store_true", help="L2-normalise query embeddings.")
    g.add_argument("--query-prefix", default=None, metavar="STR",
                   help='Query prefix, e.g. "Represent this sentence for searching relevant passages:" for BGE.')
    g.add_argument("--max-length", type=int, default=256, metavar="NUM", help="Query token limit.")
    return parser


def query_encoder_from_args(args: argparse.Namespace, prebuilt: bool = False) -> Any:
    """The ``query_encoder`` argument for the dense searchers.

    Returns ``args.encoder`` unchanged (None, or a directory for
    :class:`SentenceQueryEncoder`) unless the index is a Pyserini prebuilt one
    or a Pyserini encoder flag was given; then Pyserini's own query encoder.
    """
    pyserini_flags = (args.encoder_class, args.pooling, args.l2_norm or None, args.query_prefix)
    if args.encoder is None or not (prebuilt or any(v is not None for v in pyserini_flags)):
        return args.encoder
    from .._bootstrap import ensure_pyserini

    ensure_pyserini()
    from pyserini.search.faiss.__main__ import init_query_encoder

    try:
        return init_query_encoder(args.encoder, args.encoder_class, None, None, None, "cpu", args.max_length,
                                  args.pooling or "cls", args.l2_norm, args.query_prefix)
    except KeyError:
        raise ValueError(f"unknown --encoder-class {args.encoder_class!r}") from None

"""Fit ``σ((s - τ) λ)`` per retriever from judged topics; write a calibration file.

    python -m logical_pyserini.calibrate --index indexes/demo --dense-index indexes/demo-dense \\
        --topics logical_pyserini/data/demo/topics.logical.tsv \\
        --qrels logical_pyserini/data/demo/qrels.txt --output calib.json

How (leaf, document) pairs are labelled is documented in
:mod:`logical_pyserini.calibrate._pairs`.  Calibrating on the topics you then
evaluate on leaks the qrels into the run: hold topics out.
"""

from __future__ import annotations

import argparse
import datetime
import logging
import sys
import time

from .._cli import HelpFormatter
from ..encode import add_encoder_arguments, query_encoder_from_args
from ..retrieve import add_retriever_arguments, get_retriever, open_retrievers, retriever_indexes
from ..query import QuerySyntaxError, parse_query

logger = logging.getLogger("logical_pyserini.calibrate")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m logical_pyserini.calibrate",
        description="Fit the calibration σ((s-τ)λ) of BM25 and/or dense leaf scores from judged topics "
        "(scikit-learn logistic regression) and write it as JSON for search --calibration.",
        formatter_class=HelpFormatter,
    )
    p.add_argument("--index", default=None, metavar="DIR|NAME",
                   help="Lucene index or Pyserini prebuilt BM25 index name (calibrates bm25).")
    p.add_argument("--dense-index", default=None, metavar="DIR|NAME",
                   help="Faiss index or Pyserini prebuilt Faiss index name (calibrates dense).")
    p.add_argument("--encoder", default=None, metavar="NAME", help="Query encoder of --dense-index.")
    add_encoder_arguments(p)
    add_retriever_arguments(p)
    p.add_argument("--topics", required=True, metavar="FILE|NAME",
                   help="Logical topics (TSV or JSONL), or a Pyserini topics name.")
    p.add_argument("--qrels", required=True, metavar="FILE|NAME", help="TREC qrels of the topics, or a Pyserini "
                   "qrels name.")
    p.add_argument("--output", required=True, metavar="FILE", help="Calibration JSON to write.")
    p.add_argument("--depth", type=int, default=100, metavar="NUM",
                   help="Leaf search depth that negatives are drawn from.")
    p.add_argument("--negatives-per-positive", type=float, default=3.0, metavar="R",
                   help="Non-relevant docs sampled per relevant doc of a topic (only some get a forced label).")
    p.add_argument("--no-balance", action="store_true",
                   help="Fit with the pairs' own share of relevant pairs as the prior instead of even odds.")
    p.add_argument("--C", type=float, default=100.0, help="Inverse L2 strength of the logistic regression.")
    p.add_argument("--seed", type=int, default=0, help="Seed of the negative sampling.")
    p.add_argument("--k1", type=float, default=0.9, help="BM25 k1.")
    p.add_argument("--b", type=float, default=0.4, help="BM25 b.")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("faiss.loader").setLevel(logging.WARNING)  # its INFO lines list missing CPU variants
    if not args.index and not args.dense_index:
        print("error: give --index (bm25), --dense-index (dense) or both", file=sys.stderr)
        return 2
    if args.depth < 1 or args.negatives_per_positive <= 0:
        print("error: --depth and --negatives-per-positive must be positive", file=sys.stderr)
        return 2
    start = time.perf_counter()
    index_specs = {"index": args.index, "dense_index": args.dense_index, "encoder": args.encoder}
    try:
        from .._resources import resolve_cli_indexes

        lucene, dense = resolve_cli_indexes(args.index, args.dense_index, args.encoder)
        args.index, args.dense_index = (str(r.path) if r else None for r in (lucene, dense))
        args.encoder = query_encoder_from_args(args, prebuilt=dense is not None and dense.name is not None)
        topics, qrels = _read(args)
        retrievers = _retrievers(args)
        from ._fit import fit_sigmoid, write_calibration
        from ._pairs import collect_pairs

        pairs = collect_pairs(topics, qrels, retrievers, args.depth, args.negatives_per_positive, args.seed)
        labels = pairs.labels
        params = {r.name: fit_sigmoid(pairs.scores[r.name], labels, C=args.C, balanced=not args.no_balance)
                  for r in retrievers}
    except (FileNotFoundError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    meta = {
        "created": datetime.datetime.now().isoformat(timespec="seconds"),
        "model": "P(relevant | s) = sigmoid((s - tau) * lambda); sklearn LogisticRegression on standardised s",
        "labelling": "leaves whose truth value the topic's judgement forces (see logical_pyserini.calibrate._pairs)",
        "topics": str(args.topics), "qrels": str(args.qrels), **index_specs,
        "topics_used": pairs.topics_used, "pairs": len(labels), "positive": int(labels.sum()),
        "negative": int(len(labels) - labels.sum()), "conflicting_pairs_dropped": pairs.conflicts,
        "unknown_relevant_docids": pairs.unknown_docids, "depth": args.depth,
        "negatives_per_positive": args.negatives_per_positive, "C": args.C, "seed": args.seed,
        "prior": "pairs' share of relevant" if args.no_balance else "even odds (class_weight=balanced)",
        "k1": args.k1, "b": args.b,
    }
    write_calibration(args.output, params, meta)
    for name, p in params.items():
        print(f"{name}: tau={p.tau:.4f} lambda={p.lam:.4f}", file=sys.stderr)
    print(f"{meta['pairs']} pairs ({meta['positive']} relevant) from {pairs.topics_used} topics; "
          f"{time.perf_counter() - start:.1f}s; written to {args.output}", file=sys.stderr)
    return 0


def _read(args: argparse.Namespace) -> tuple[dict, dict]:
    import ir_measures

    from .._resources import resolve_qrels, resolve_topics

    topics = {}
    for qid, text in resolve_topics(args.topics).items():
        try:
            topics[qid] = parse_query(text)
        except QuerySyntaxError as exc:
            logger.warning("qid %s skipped: %s", qid, str(exc).splitlines()[0])
    qrels: dict[str, dict[str, int]] = {}
    for q in ir_measures.read_trec_qrels(resolve_qrels(args.qrels)):
        qrels.setdefault(q.query_id, {})[q.doc_id] = int(q.relevance)
    if not set(topics) & set(qrels):
        raise ValueError(f"no topic of {args.topics} is judged in {args.qrels}")
    return topics, qrels


def _retrievers(args: argparse.Namespace) -> list:
    from ._pairs import LeafScores

    retrievers = []
    if args.index:
        from ..search._lucene_searcher import LogicalLuceneSearcher

        lucene = LogicalLuceneSearcher(args.index)
        lucene.set_bm25(args.k1, args.b)
        retrievers.append(LeafScores("bm25", lucene.leaves))
    if args.dense_index:
        from ..search._faiss_searcher import LogicalFaissSearcher

        retrievers.append(LeafScores("dense", LogicalFaissSearcher(args.dense_index, args.encoder).leaves))
    for name, retriever in open_retrievers(retriever_indexes(args)).items():  # plug-ins: --impact-index ...
        key = get_retriever(name).calibration_key()
        if key:
            retrievers.append(LeafScores(key, retriever))
    return retrievers


if __name__ == "__main__":
    sys.exit(main())

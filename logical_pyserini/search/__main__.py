"""Logical search over a Lucene index, writing a TREC run.

    python -m logical_pyserini.search --index indexes/demo \\
        --topics logical_pyserini/data/demo/topics.logical.tsv --output runs/run.demo.logical.txt

Flag names follow ``python -m pyserini.search.lucene``.  Every topic is
searched independently: a malformed query is reported (with its position) and
skipped, the run is still written for the others, and the exit status is 1
when any topic failed.
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
from pathlib import Path

from tqdm import tqdm

from ..compose import AND_OPERATORS, NORMALIZERS, NOT_OPERATORS, OR_OPERATORS, Normalizer, Operators, SigmoidParams
from ..query import QuerySyntaxError, parse_query
from ._topics import read_topics

logger = logging.getLogger("logical_pyserini.search")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m logical_pyserini.search",
        description="Logical (AND / OR / NOT) search over a Lucene index; writes a TREC run.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument("--index", required=True, metavar="DIR", help="Lucene index directory.")
    p.add_argument("--topics", required=True, metavar="FILE",
                   help="Topics: TSV 'qid<TAB>query' or JSONL with qid and query fields.")
    p.add_argument("--output", required=True, metavar="FILE", help="Run file to write.")
    p.add_argument("--output-format", default="trec", choices=["trec", "msmarco"], help="Run format.")
    p.add_argument("--run-tag", default=None, help="Run tag in the last TREC column (default: logical or bm25).")
    p.add_argument("--hits", type=int, default=1000, metavar="NUM", help="Hits per topic in the run.")
    p.add_argument("--leaf-hits", type=int, default=1000, metavar="NUM", help="Depth of each leaf sub-search.")
    p.add_argument("--and", dest="and_op", default="product", choices=sorted(AND_OPERATORS),
                   help="AND operator.")
    p.add_argument("--or", dest="or_op", default="sum", choices=sorted(OR_OPERATORS), help="OR operator.")
    p.add_argument("--not", dest="not_op", default="complement", choices=sorted(NOT_OPERATORS),
                   help="NOT operator: complement is 1-x, inverse is 1/x.")
    p.add_argument("--normalize", default="max", choices=NORMALIZERS, help="Leaf score normalisation.")
    p.add_argument("--sigmoid-tau", type=float, default=None, help="τ of --normalize sigmoid: σ((s-τ)λ).")
    p.add_argument("--sigmoid-lambda", type=float, default=None, help="λ of --normalize sigmoid.")
    p.add_argument("--k1", type=float, default=0.9, help="BM25 k1.")
    p.add_argument("--b", type=float, default=0.4, help="BM25 b.")
    p.add_argument("--plain", action="store_true",
                   help="Baseline: plain BM25 (LuceneSearcher.search) on the topic text, operators ignored.")
    p.add_argument("--batch-size", type=int, default=16, metavar="NUM", help="Topics per batch_search call.")
    p.add_argument("--threads", type=int, default=1, metavar="NUM", help="Threads per batch.")
    p.add_argument("--quiet", action="store_true", help="No progress bar.")
    return p


def _normalizer(args: argparse.Namespace) -> Normalizer:
    if args.normalize != "sigmoid":
        return Normalizer(args.normalize)
    if args.sigmoid_tau is None or args.sigmoid_lambda is None:
        raise ValueError("--normalize sigmoid needs --sigmoid-tau and --sigmoid-lambda")
    return Normalizer("sigmoid", {"bm25": SigmoidParams(args.sigmoid_tau, args.sigmoid_lambda)})


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    for name in ("hits", "leaf_hits", "batch_size", "threads"):
        if getattr(args, name) < 1:
            print(f"error: --{name.replace('_', '-')} must be >= 1", file=sys.stderr)
            return 2
    try:
        topics = read_topics(args.topics)
        from ._lucene_searcher import LogicalLuceneSearcher, check_lucene_index  # starts the JVM

        check_lucene_index(args.index)
        searcher = LogicalLuceneSearcher(
            args.index, Operators(args.and_op, args.or_op, args.not_op), _normalizer(args), args.leaf_hits
        )
        searcher.set_bm25(args.k1, args.b)
    except (FileNotFoundError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2

    # Parse every topic first: a bad query is reported once with its caret and skipped.
    failures: dict[str, str] = {}
    trees = {}
    for qid, text in topics.items():
        if args.plain:
            trees[qid] = text
            continue
        try:
            trees[qid] = parse_query(text)
        except QuerySyntaxError as exc:
            failures[qid] = str(exc)
            logger.error("qid %s: %s", qid, exc)

    from ._output import open_run_writer

    tag = args.run_tag or ("bm25" if args.plain else "logical")
    empty: list[str] = []
    start = time.perf_counter()
    qids = list(trees)
    with open_run_writer(args.output, args.output_format, args.hits, tag) as writer, \
            tqdm(total=len(qids), desc="search", unit="q", disable=args.quiet) as bar:
        for i in range(0, len(qids), args.batch_size):
            batch = qids[i : i + args.batch_size]
            results = _search_batch(searcher, batch, trees, args, failures)
            for qid in batch:
                if qid not in results:
                    continue
                if not results[qid]:
                    empty.append(qid)
                    logger.warning("qid %s: no hits (no positive term matched any document)", qid)
                writer.write(qid, results[qid])
            bar.update(len(batch))
    elapsed = time.perf_counter() - start

    ok = len(topics) - len(failures)
    print(
        f"{len(topics)} topics: {ok} searched ({len(empty)} with no hits), {len(failures)} failed; "
        f"{elapsed:.1f}s; run written to {args.output}",
        file=sys.stderr,
    )
    for qid, message in failures.items():
        print(f"  failed qid {qid}: {message.splitlines()[0]}", file=sys.stderr)
    return 1 if failures else 0


def _search_batch(searcher, batch, trees, args, failures) -> dict:
    """Search a batch; if the batch call fails, retry topic by topic so one
    bad topic cannot take the others down."""
    if args.plain:
        return {qid: searcher.plain_search(trees[qid], args.hits) for qid in batch}
    try:
        return searcher.batch_search([trees[q] for q in batch], batch, args.hits, args.threads)
    except Exception:  # noqa: BLE001 - isolate the failing topic below
        results = {}
        for qid in batch:
            try:
                results[qid] = searcher.search(trees[qid], args.hits)
            except Exception as exc:  # noqa: BLE001 - reported per topic, run continues
                failures[qid] = f"{type(exc).__name__}: {exc}"
                logger.error("qid %s: %s", qid, failures[qid])
        return results


if __name__ == "__main__":
    sys.exit(main())

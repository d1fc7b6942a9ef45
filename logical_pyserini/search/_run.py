"""One pipeline for running topics: topics -> (rewrite) -> search -> (rerank) -> run file.

:func:`run_topics` is the API that ``python -m logical_pyserini.search``
configures (through a :class:`SearchConfig`) and that the demo and the
benchmarks call; nothing rebuilds a command line.  Per topic, a malformed
query, a rewriter failure or a search failure is reported for that qid and
the others go on.  The run file is written atomically: it grows as
``OUTPUT.partial`` (one topic at a time) and is renamed to ``OUTPUT`` when the
run completes, so a crash never leaves a truncated run under the real name,
and ``resume=True`` skips the topics an interrupted run finished.

>>> from logical_pyserini.search import SearchConfig, run_topics        # doctest: +SKIP
>>> report = run_topics(SearchConfig(topics="topics.tsv", output="run.txt", index="indexes/demo"))  # doctest: +SKIP
>>> report.failures                                                       # doctest: +SKIP
{}
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import logging
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from tqdm import tqdm

from .._io import OutputError, atomic_write_text, check_writable, partial_path
from .._resources import require_stored_text, resolve_cli_indexes, resolve_topics
from ..compose import Normalizer, Operators, SigmoidParams, load_calibration
from ..encode import query_encoder_from_args
from ..query import QuerySyntaxError, parse_query
from ..rerank import (CANDIDATE_SOURCES, added_candidates, apply_rerank, build_reranker, prefetch_rerank,
                      rerank_candidates, rerank_summary)
from ..retrieve import calibration_keys, open_retrievers

__all__ = ["PLAIN_MODES", "RunInterrupted", "RunReport", "SearchConfig", "build_searcher", "run_topics"]

logger = logging.getLogger("logical_pyserini.search")

#: ``plain`` modes: the bag-of-words baseline and the Boolean peer.
PLAIN_MODES = ("text", "boolean")


@dataclass
class SearchConfig:
    """Everything one run needs; the CLI builds it from its flags (same names, ``-`` -> ``_``).

    ``retrievers`` holds the plug-in retrievers' indexes and options
    (registry name -> ``{"index": DIR, ...}``, e.g. ``{"impact": {"index": "indexes/impact"}}``);
    the other fields mirror the flags of ``python -m logical_pyserini.search --help``.
    """

    topics: str
    output: str
    index: str | None = None
    dense_index: str | None = None
    impact: bool = False
    encoder: Any = None
    encoder_class: str | None = None
    pooling: str | None = None
    l2_norm: bool = False
    query_prefix: str | None = None
    max_length: int = 256
    leaf_retriever: str | None = None
    negated_leaf_retriever: str | None = None
    retrievers: dict[str, dict] = field(default_factory=dict)
    output_format: str = "trec"
    run_tag: str | None = None
    hits: int = 1000
    leaf_hits: int = 1000
    pooled: bool = False
    and_op: str = "product"
    or_op: str = "sum"
    not_op: str = "complement"
    normalize: str = "max"
    sigmoid_tau: float | None = None
    sigmoid_lambda: float | None = None
    calibration: str | None = None
    k1: float = 0.9
    b: float = 0.4
    plain: str | None = None
    rewrite: str | None = None
    rewrite_guard: str = "propose"
    rewrite_verify: str = "off"
    rewrite_verify_max: float | None = None
    rewrite_propose: str = "off"
    rewrite_propose_min: float | None = None
    rewrite_not_weight: float | None = None
    rewrite_phrases: bool = False
    model: str = "embedded"
    model_cache: str | None = None
    install_model: bool = False
    llm_concurrency: int = 4
    device: str | None = None
    model_dtype: str | None = None
    base_url: str | None = None
    api_key: str | None = None
    rerank: str | None = None
    rerank_depth: int = 20
    rerank_fusion: float | None = None
    rerank_lift: float | None = None
    rerank_lift_ratio: float | None = None
    rerank_lift_floor: float | None = None
    rerank_tie_spread: float | None = None
    rerank_add_dense: int = 0
    rerank_add_hybrid: int = 0
    oracle: str = "auto"
    knowledge: str = "parametric+"
    batch_size: int = 16
    threads: int = 1
    quiet: bool = False
    resume: bool = False

    @classmethod
    def from_args(cls, args: argparse.Namespace, retrievers: dict[str, dict] | None = None) -> "SearchConfig":
        """The config of parsed CLI flags (unknown attributes are ignored)."""
        names = {f.name for f in dataclasses.fields(cls)} - {"retrievers"}
        return cls(**{n: getattr(args, n) for n in names if hasattr(args, n)}, retrievers=dict(retrievers or {}))

    def usage_error(self, searcher_given: bool = False) -> str | None:
        """A usage error in flag terms, or None (``searcher_given``: the indexes come with a searcher)."""
        for name in ("hits", "leaf_hits", "batch_size", "threads"):
            if getattr(self, name) < 1:
                return f"--{name.replace('_', '-')} must be >= 1"
        if not self.index and not self.dense_index and not searcher_given:
            return "give --index (Lucene), --dense-index (Faiss) or both"
        if self.impact and (self.dense_index or not self.index):
            return ("--impact searches one impact --index; for impact leaves next to BM25 or dense ones give the "
                    "impact index as --impact-index")
        if self.plain not in (None, *PLAIN_MODES):
            return f"--plain must be one of {', '.join(PLAIN_MODES)}"
        if self.rewrite_verify not in ("off", "model"):
            return "--rewrite-verify must be off or model"
        if self.rewrite_verify == "model" and not self.rewrite:
            return "--rewrite-verify model checks the exclusions of rewrites: give --rewrite too"
        if self.rewrite_verify_max is not None and not 0.0 <= self.rewrite_verify_max <= 1.0:
            return "--rewrite-verify-max must lie in [0, 1]"
        if self.rewrite_propose not in ("off", "model"):
            return "--rewrite-propose must be off or model"
        if self.rewrite_propose == "model" and not self.rewrite:
            return "--rewrite-propose model adds exclusions to rewrites: give --rewrite too"
        if self.rewrite_propose_min is not None and not 0.0 <= self.rewrite_propose_min <= 1.0:
            return "--rewrite-propose-min must lie in [0, 1]"
        if self.rewrite_not_weight is not None and not 0.0 < self.rewrite_not_weight <= 1.0:
            return "--rewrite-not-weight must lie in (0, 1]"
        if self.rewrite_phrases and not self.rewrite:
            return "--rewrite-phrases writes the exclusions of rewrites: give --rewrite too"
        if self.rewrite_phrases and (self.impact or not self.index) and not searcher_given:
            return "--rewrite-phrases writes phrase: leaves, which a Lucene BM25 --index with positions scores"
        if self.rewrite and self.plain == "text":
            return "--rewrite produces logical queries; it cannot be combined with --plain (try --plain boolean)"
        for name in CANDIDATE_SOURCES:
            flag, k = f"--rerank-add-{name}", added_candidates(self, name)
            if k < 0:
                return f"{flag} must be >= 0"
            if k and not self.rerank:
                return f"{flag} adds candidates to a reranker: give --rerank too"
            if k and not (self.index and self.dense_index) and not searcher_given:
                return (f"{flag} searches --dense-index and reads the documents from --index: give both (with "
                        "--leaf-retriever bm25 the leaves stay lexical)")
        if self.plain == "boolean" and not self.index and not searcher_given:
            return "--plain boolean builds a Lucene BooleanQuery: it needs --index"
        return None

    @property
    def tag(self) -> str:
        """Run tag: ``run_tag``, else what the run is (bm25 / dense / hybrid / boolean / logical)."""
        plain_tag = ("hybrid" if self.index and self.dense_index else "dense" if self.dense_index
                     else "impact" if self.impact else "bm25")
        return self.run_tag or {"text": plain_tag, "boolean": "boolean"}.get(self.plain, "logical")


@dataclass
class RunReport:
    """What :func:`run_topics` did."""

    output: str
    topics: int
    searched: int = 0
    resumed: int = 0
    empty: list[str] = field(default_factory=list)
    failures: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)

    def summary(self) -> str:
        lines = [f"{self.topics} topics: {self.searched} searched ({len(self.empty)} with no hits), "
                 f"{self.resumed} already done, {len(self.failures)} failed; {self.seconds:.1f}s; run written to "
                 f"{self.output}", *self.notes]
        lines += [f"  failed qid {qid}: {message.splitlines()[0]}" for qid, message in self.failures.items()]
        return "\n".join(lines)


class RunInterrupted(Exception):
    """The run stopped part-way (Ctrl-C / SIGTERM, or the disk filled): ``OUTPUT`` is unchanged and the
    finished topics are in ``partial`` for ``resume``."""

    def __init__(self, report: RunReport, cause: BaseException, todo: int, partial: Path):
        super().__init__(f"{report.searched} of {todo} topics done; finished topics in {partial}")
        self.report, self.cause, self.todo, self.partial = report, cause, todo, partial


# -- building the stages --------------------------------------------------------

def build_normalizer(config: SearchConfig) -> Normalizer:
    """The leaf normalisation of ``config`` (a calibration file, sigmoid parameters, or a method)."""
    if config.calibration is not None:
        if config.sigmoid_tau is not None or config.sigmoid_lambda is not None:
            raise ValueError("give either --calibration or --sigmoid-tau/--sigmoid-lambda, not both")
        return Normalizer("sigmoid", load_calibration(config.calibration, calibration_keys()))
    if config.normalize != "sigmoid":
        return Normalizer(config.normalize)
    if config.sigmoid_tau is None or config.sigmoid_lambda is None:
        raise ValueError("--normalize sigmoid needs --sigmoid-tau and --sigmoid-lambda (or --calibration)")
    params = SigmoidParams(config.sigmoid_tau, config.sigmoid_lambda)
    return Normalizer("sigmoid", {key: params for key in calibration_keys()})


def build_searcher(config: SearchConfig, normalizer: Normalizer | None = None):
    """The searcher for the config's indexes: Lucene, Faiss or hybrid, plus plug-in retrievers.

    ``config.index`` / ``dense_index`` must be directories (see :func:`resolve_indexes`);
    with ``config.impact`` the ``index`` is a Lucene impact index searched with ``config.encoder``.
    """
    normalizer = normalizer or build_normalizer(config)
    operators = Operators(config.and_op, config.or_op, config.not_op)
    if config.impact:
        from ._impact_searcher import LogicalImpactSearcher  # starts the JVM

        searcher = LogicalImpactSearcher(config.index, config.encoder, operators, normalizer, config.leaf_hits)
    elif config.index and config.dense_index:
        from ._hybrid_searcher import LogicalHybridSearcher

        searcher = LogicalHybridSearcher(config.index, config.dense_index, config.encoder,
                                         config.leaf_retriever or "hybrid", operators, normalizer, config.leaf_hits)
        logger.info("mapped %d documents between the indexes in %.3fs", searcher.sparse.num_docs,
                    searcher.mapping_seconds)
    elif config.dense_index:
        from ._faiss_searcher import LogicalFaissSearcher

        searcher = LogicalFaissSearcher(config.dense_index, config.encoder, operators, normalizer, config.leaf_hits)
    else:
        from ._lucene_searcher import LogicalLuceneSearcher  # starts the JVM

        searcher = LogicalLuceneSearcher(config.index, operators, normalizer, config.leaf_hits)
    searcher.pooled = searcher.pooled or config.pooled
    if config.index and not config.impact:
        searcher.set_bm25(config.k1, config.b)
    # Plug-in retrievers over their own indexes of the same corpus (--impact-index ...), matched by docid.
    for name, retriever in open_retrievers(config.retrievers).items():
        searcher.add_retriever(retriever, name)
    for flag, name, attribute in (("--leaf-retriever", config.leaf_retriever, "leaf_retriever"),
                                  ("--negated-leaf-retriever", config.negated_leaf_retriever, "negated_retriever")):
        if name:
            if name not in searcher.available_retrievers():
                raise ValueError(f"{flag} {name} needs its index; this search has "
                                 f"{', '.join(searcher.available_retrievers())}")
            setattr(searcher, attribute, name)
    return searcher


def resolve_indexes(config: SearchConfig):
    """Resolve prebuilt index names to cached directories and the query encoder (in ``config``).

    A prebuilt impact ``--index`` (``msmarco-v1-passage.splade-pp-ed``...)
    sets ``config.impact``, as ``pyserini.search.lucene --impact`` does.
    """
    lucene, dense = resolve_cli_indexes(config.index, config.dense_index, config.encoder,
                                        impact=not config.dense_index)
    config.index = str(lucene.path) if lucene else None
    config.dense_index = str(dense.path) if dense else None
    config.impact = config.impact or (lucene is not None and lucene.kind == "impact")
    if config.impact and config.plain == "boolean":
        raise ValueError("--plain boolean builds a Lucene BooleanQuery of BM25 leaves: it needs a BM25 --index, "
                         "not an impact index")
    if config.impact:
        from ..retrieve._impact import impact_query_encoder

        config.encoder = impact_query_encoder(config.encoder, lucene.name)
    elif config.encoder and not dense:
        raise ValueError("--encoder needs --dense-index, or an impact --index (a prebuilt impact name, or --impact)")
    else:
        config.encoder = query_encoder_from_args(config, prebuilt=dense is not None and dense.name is not None)
    return lucene, dense


def _build_rewriter(config: SearchConfig):
    if not config.rewrite:
        return None
    from ..models import model_from_args
    from ..rewrite import get_rewriter

    # A spec without its own model (llm, llm-draft) uses the one the --model flags select.
    return get_rewriter(config.rewrite, model_factory=lambda: model_from_args(config, install=config.install_model),
                        cache=config.model_cache, base_url=config.base_url, api_key=config.api_key)


def _build_model_checks(config: SearchConfig, rewriter) -> tuple:
    """The exclusion check of ``--rewrite-verify`` and the proposer of ``--rewrite-propose`` (each None without a
    rewriter, with the guard off, or when off); both use one model, the rewriter's when it has one."""
    if rewriter is None or config.rewrite_guard == "off":
        return None, None
    from ..models import model_from_args
    from ..rewrite import build_proposer, build_verifier

    model = functools.lru_cache(maxsize=1)(lambda: model_from_args(config, install=config.install_model))
    return (build_verifier(config.rewrite_verify, rewriter, model, config.rewrite_verify_max),
            build_proposer(config.rewrite_propose, rewriter, model, config.rewrite_propose_min))


# -- the pipeline ---------------------------------------------------------------

def run_topics(config: SearchConfig, *, searcher=None, topics: dict[str, str] | None = None) -> RunReport:
    """Run every topic of ``config`` and write the run file.

    Parameters
    ----------
    config : SearchConfig
        What to run (see ``python -m logical_pyserini.search --help``).
    searcher : optional
        A searcher to reuse (e.g. across runs of a benchmark); default: built from ``config``.
    topics : dict, optional
        qid -> query text; default: read from ``config.topics`` (file or Pyserini name).

    Returns
    -------
    RunReport
        Counts, per-topic failures (qid -> message) and timing.

    Raises
    ------
    FileNotFoundError, ValueError
        For a configuration that cannot run (bad flags, missing index, topics,
        calibration or model), before any topic is searched.
    OutputError
        When the run file cannot be written (checked before anything is loaded).
    RunInterrupted
        On Ctrl-C or a full disk during the run: ``OUTPUT`` is unchanged, the
        finished topics are in ``OUTPUT.partial`` for ``resume=True``.
    """
    usage = config.usage_error(searcher_given=searcher is not None)
    if usage:
        raise ValueError(usage)
    check_writable(config.output)  # before minutes of model loading, not after
    lucene_index = None
    if searcher is None:
        lucene_index, _ = resolve_indexes(config)
    topics = topics if topics is not None else resolve_topics(config.topics)
    normalizer = build_normalizer(config) if searcher is None else searcher.normalizer
    rewriter = _build_rewriter(config)
    verifier, proposer = _build_model_checks(config, rewriter)  # a missing model fails here, before any search
    reranker = build_reranker(config)  # a bad --oracle fails here, before any search
    if searcher is None:
        searcher = build_searcher(config, normalizer)
    for name, (method, _) in CANDIDATE_SOURCES.items():
        if added_candidates(config, name) and not hasattr(searcher, method):
            raise ValueError(f"--rerank-add-{name} needs a hybrid searcher (--index and --dense-index), not "
                             f"{type(searcher).__name__}")
    if reranker is not None and lucene_index is not None:
        require_stored_text(lucene_index, getattr(searcher, "sparse", searcher), f"--rerank {config.rerank}")

    from ._output import completed_topics, open_run_writer  # pyserini's writers: imported when needed

    output = Path(config.output)
    done: set[str] = set()
    if config.resume:  # OUTPUT.partial is cut back to its finished topics
        done = set(completed_topics(output, config.output_format)) & set(topics)
        logger.info("resuming %s: %d topics already done", partial_path(output), len(done))
    elif partial_path(output).exists():
        logger.warning("%s exists from an interrupted run; starting over (pass --resume to continue it)",
                       partial_path(output))
    report = RunReport(str(output), len(topics), resumed=len(done))
    todo = {qid: text for qid, text in topics.items() if qid not in done}

    # Parse (or rewrite) every topic first: a bad query is reported once with its caret and skipped.
    # With a rewriter, OrLog and the reasoners get the decomposition: the natural question and its predicates.
    rerank_queries: dict = {}
    trees = _rewrite_topics(todo, rewriter, config, report.failures, rerank_queries, verifier,
                                   proposer) if rewriter else {}
    for qid, text in todo.items() if not rewriter else ():
        if config.plain == "text":
            trees[qid] = text
            continue
        try:
            trees[qid] = parse_query(text)
        except QuerySyntaxError as exc:
            report.failures[qid] = str(exc)
            logger.error("qid %s: %s", qid, exc)
    if normalizer.method == "sigmoid" and not config.plain:
        missing = sorted(searcher.calibration_keys(list(trees.values())) - set(normalizer.sigmoid or {}))
        if missing:
            raise ValueError(f"{config.calibration or 'the sigmoid parameters'} has no parameters for "
                             f"{' and '.join(missing)}, which the topics' leaves use; calibrate with those "
                             "retrievers' indexes too")

    start = time.perf_counter()
    qids = list(trees)
    audit: dict[str, str] = {}
    try:
        with open_run_writer(output, config.output_format, config.hits, config.tag, resume=config.resume) as writer, \
                tqdm(total=len(qids), desc="search", unit="q", disable=config.quiet) as bar:
            for i in range(0, len(qids), config.batch_size):
                batch = qids[i : i + config.batch_size]
                results = _search_batch(searcher, batch, trees, config, report.failures)
                # A GPU oracle judges the whole batch's pairs in a few large calls (same answers).
                searched = [q for q in batch if q in results]
                queries = {q: rerank_queries.get(q, trees[q]) for q in searched}
                # Reranking candidates once per topic (added sources search again), for both calls below.
                pools = {q: rerank_candidates(config, queries[q], results[q], searcher, trees[q]) for q in searched}
                prefetch_rerank(config, [(queries[q], *pools[q]) for q in searched], searcher)
                for qid in searched:
                    candidates, depth = pools[qid]
                    hits = apply_rerank(config, queries[qid], candidates, searcher, depth=depth)
                    if config.rerank:
                        audit[qid] = _rerank_record(qid, hits)
                    if not hits:
                        report.empty.append(qid)
                        logger.warning("qid %s: no hits (no positive term matched any document)", qid)
                    writer.write(qid, hits)  # flushed per topic: an interrupted run keeps it
                    report.searched += 1
                bar.update(len(batch))
    except (KeyboardInterrupt, OutputError) as exc:
        _write_rerank_record(config, audit)
        raise RunInterrupted(report, exc, len(qids), partial_path(output)) from exc
    _write_rerank_record(config, audit)
    report.seconds = time.perf_counter() - start
    report.notes = [line for line in (_rewrite_summary(rewriter, verifier, proposer), rerank_summary(config)) if line]
    return report


def _rewrite_topics(topics: dict[str, str], rewriter, config: SearchConfig, failures: dict,
                    decompositions: dict | None = None, verify=None, proposer=None) -> dict:
    """Rewrite natural-language topics; the rewrites are kept next to the run
    (``OUTPUT.rewrites.tsv``: qid, logical query, source) so a run can be audited."""
    from ..rewrite import GUARD_NOT_WEIGHT, guard_rewrite

    weight = GUARD_NOT_WEIGHT if config.rewrite_not_weight is None else config.rewrite_not_weight
    trees, rows = {}, []
    for qid, text in tqdm(topics.items(), desc="rewrite", unit="q", disable=config.quiet):
        try:
            proposed = rewriter.rewrite(text)
            rewrite = guard_rewrite(proposed, config.rewrite_guard, verify, weight, phrases=config.rewrite_phrases,
                                    proposer=proposer)
        except Exception as exc:  # noqa: BLE001 - a rewriter failure costs one topic, not the run
            failures[qid] = f"rewrite failed: {type(exc).__name__}: {exc}"
            logger.error("qid %s: %s", qid, failures[qid])
            continue
        trees[qid] = rewrite.tree
        if decompositions is not None:
            # The guard keeps the model's one-off parse cost; without predicates OrLog judges the leaves.
            decompositions[qid] = rewrite.orlog_decomposition(proposed) or rewrite.tree
        rows.append(f"{qid}\t{rewrite.query}\t{rewrite.source}\n")
    record = Path(f"{config.output}.rewrites.tsv")
    earlier = _earlier_lines(record, config.resume, set(trees) | set(failures), lambda line: line.split("\t", 1)[0])
    atomic_write_text(record, "".join(earlier + rows))
    return trees


def _earlier_lines(record: Path, resume: bool, redone: set[str], qid_of: Callable[[str], str]) -> list[str]:
    """With ``--resume``, the lines of a side record (``OUTPUT.rewrites.tsv``, ``OUTPUT.rerank.jsonl``) for the
    topics done before, which this run does not redo; ``qid_of`` reads a line's topic id."""
    if not (resume and record.exists()):
        return []
    return [line if line.endswith("\n") else line + "\n"
            for line in record.read_text(encoding="utf-8").splitlines(keepends=True)
            if line.strip() and qid_of(line) not in redone]


def _rerank_record(qid: str, hits: list) -> str:
    """One JSON line: the reranked candidates' base rank and score, the reranker's own score (the OrLog
    posterior, before the fusion) and the final score, in the final order; none after a fallback."""
    rows = [{"docid": h.docid, "base_rank": h.base_rank + 1, "base_score": round(h.base_score, 6),
             "posterior": round(h.rerank_score, 6), "score": round(h.score, 6)}
            for h in hits if getattr(h, "rerank_score", None) is not None]
    return json.dumps({"qid": qid, "reranked": rows}) + "\n"


def _write_rerank_record(config: SearchConfig, audit: dict[str, str]) -> None:
    """``OUTPUT.rerank.jsonl``: what the reranker decided per topic, for audits and for choosing a fusion rule
    offline (``eval/bench_fusion.py``).  With ``--resume`` the records of topics done before are kept."""
    if not config.rerank or not config.output:
        return
    record = Path(f"{config.output}.rerank.jsonl")
    earlier = _earlier_lines(record, config.resume, set(audit), lambda line: json.loads(line)["qid"])
    try:
        atomic_write_text(record, "".join(earlier + list(audit.values())))
    except OSError as exc:  # the run file is what matters; its audit is a side record
        logger.error("could not write %s: %s", record, exc)


def _rewrite_summary(rewriter, verifier=None, proposer=None) -> str:
    if rewriter is None:
        return ""
    stats = ", ".join(f"{k}={v}" for k, v in rewriter.stats.items())
    checked = f"; exclusion check: {', '.join(f'{k}={v}' for k, v in verifier.stats.items())}" if verifier else ""
    added = f"; exclusion proposals: {', '.join(f'{k}={v}' for k, v in proposer.stats.items())}" if proposer else ""
    return f"rewrite: {stats}{checked}{added}"


def _search_batch(searcher, batch, trees, config: SearchConfig, failures) -> dict:
    """Search a batch; if the batch call fails, retry topic by topic so one
    bad topic cannot take the others down."""
    if config.plain == "text":
        return _one_by_one(batch, lambda qid: searcher.plain_search(trees[qid], config.hits), failures)
    if config.plain == "boolean":
        return _one_by_one(batch, lambda qid: searcher.boolean_search(trees[qid], config.hits), failures)
    try:
        return searcher.batch_search([trees[q] for q in batch], batch, config.hits, config.threads)
    except Exception:  # noqa: BLE001 - isolate the failing topic below
        return _one_by_one(batch, lambda qid: searcher.search(trees[qid], config.hits), failures)


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

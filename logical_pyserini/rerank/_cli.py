"""Command-line glue: reranking flags for ``python -m logical_pyserini.search``.

The search CLI calls :func:`add_rerank_arguments` on its parser, optionally
:func:`build_reranker` at start-up (so a bad ``--oracle`` fails before any
search), :func:`apply_rerank` per topic, and :func:`rerank_summary` at the end.
"""

from __future__ import annotations

import argparse
import logging
from typing import Any

from ._base import (DEFAULT_FUSION, DEFAULT_LIFT, KNOWLEDGE, LIFT_FLOOR, LIFT_RATIO, LOW_CONFIDENCE_FUSION, MAX_LIFT,
                    TIE_SPREAD, TIE_TOP, BaseReranker, pool_hits, searcher_doc_text_fn)

logger = logging.getLogger(__name__)

__all__ = ["CANDIDATE_SOURCES", "add_rerank_arguments", "added_candidates", "apply_rerank", "build_reranker",
           "pool_question", "prefetch_rerank", "rerank_candidates", "rerank_summary"]

_STATE = "_rerank_state"  # the reranker lives on the Namespace: built once per run


def add_rerank_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Add ``--rerank``, ``--rerank-depth``, ``--oracle``, ``--knowledge``, ``--rerank-fusion``,
    ``--rerank-lift`` and the model flags."""
    g = parser.add_argument_group("reranking")
    g.add_argument("--rerank", default=None, choices=["orlog", "llm-reasoner", "llm-reasoner+logic"],
                   help="Rerank the top hits: orlog (plausibilities + ProbLog), or the baselines llm-reasoner "
                   "(the model judges the whole question) and llm-reasoner+logic (plus the decomposition).")
    g.add_argument("--rerank-depth", type=int, default=20, metavar="NUM",
                   help="Hits reranked per topic; the rest keep their order below.")
    g.add_argument("--oracle", default="auto", metavar="SPEC",
                   help="auto (the LLM oracle when the embedded model is installed, else leaf), llm (the --model "
                        "language model: P(True) from one forward pass), leaf (exact normalised leaf scores, no "
                        "model), dense (embedded MiniLM); hf:PATH and openai:NAME name the model directly.")
    g.add_argument("--rerank-fusion", type=float, default=None, metavar="W",
                   help="Posterior weight in the final score W*posterior + (1-W)*base (min-max scaled); "
                        f"default {DEFAULT_FUSION:g}, and {LOW_CONFIDENCE_FUSION:g} for a low-confidence topic "
                        "(every posterior below the lift, none singled out); a W given here holds for every topic "
                        "(see README, OrLog reranking).")
    g.add_argument("--rerank-lift", type=float, default=None, metavar="P",
                   help="OrLog: when no reranked hit's posterior reaches P, scale the topic's posteriors (at most "
                        f"{MAX_LIFT:g}x) so the best one does, before the fusion; 0 disables; default {DEFAULT_LIFT:g} "
                        "for --oracle llm, 0 for leaf and dense.")
    g.add_argument("--rerank-lift-ratio", type=float, default=None, metavar="R",
                   help="OrLog: lift only when the best posterior is at least R times that of the base run's top hit "
                        "(all low and close together: a low-confidence judgement, the base keeps its weight); "
                        f"0 lifts always; default {LIFT_RATIO:g}.")
    g.add_argument("--rerank-lift-floor", type=float, default=None, metavar="F",
                   help="OrLog: nor lift a topic whose best posterior is below F to the power of its formula's "
                        "positive conjuncts (no hit judged likely: a low-confidence judgement, the base keeps its "
                        f"weight); 0 disables; default {LIFT_FLOOR:g}.")
    g.add_argument("--rerank-tie-spread", type=float, default=None, metavar="S",
                   help=f"OrLog: when the posteriors of the base run's top {TIE_TOP} hits lie within S of one another, "
                        "the model does not tell them apart and the base's first hit stays first; 0 disables; "
                        f"default {TIE_SPREAD:g} for --oracle llm, 0 for leaf and dense.")
    g.add_argument("--rerank-add-dense", type=int, default=0, metavar="NUM",
                   help="Also rerank the top NUM documents of a dense search of the question (the natural question "
                        "when --rewrite gave one, else the positive leaves) that are not in the top --rerank-depth: "
                        "documents that paraphrase a leaf reach the reranker although no lexical leaf matches them. "
                        "Needs --index and --dense-index (add --leaf-retriever bm25 to keep the leaves lexical). "
                        "An added document starts at the lowest base score of the reranked hits. Default 0.")
    g.add_argument("--rerank-add-hybrid", type=int, default=0, metavar="NUM",
                   help="Also rerank the top NUM hits of the same logical query searched with hybrid positive leaves "
                        "(BM25 + dense) and BM25 negated leaves that are not in the top --rerank-depth: the lexical "
                        "run stays the base ranking and paraphrases of a leaf still reach the reranker. Needs --index "
                        "and --dense-index (with --leaf-retriever bm25 for a lexical base run). An added document "
                        "starts at the lowest base score of the reranked hits. Default 0.")
    g.add_argument("--knowledge", default="parametric+", choices=KNOWLEDGE,
                   help="parametric: entity title only; parametric+: title and document text.")
    if not any(a.dest == "model" for a in parser._actions):
        from ..models import add_model_arguments

        add_model_arguments(parser)
    return parser


def build_reranker(args: argparse.Namespace) -> BaseReranker | None:
    """The reranker the flags ask for (None without ``--rerank``); built once per Namespace.

    Raises
    ------
    ValueError, FileNotFoundError, OracleError
        For bad flags or a model that cannot serve the method; call at
        start-up to fail before searching.
    """
    if not getattr(args, "rerank", None):
        return None
    reranker = getattr(args, _STATE, None)
    if reranker is not None:
        return reranker
    if args.rerank_depth < 1:
        raise ValueError("--rerank-depth must be >= 1")
    from ._reranker import DEFAULT_FUSION, LIFT_FLOOR, LIFT_RATIO, OrLogReranker, get_oracle

    progress = not getattr(args, "quiet", False)
    fusion = DEFAULT_FUSION if getattr(args, "rerank_fusion", None) is None else args.rerank_fusion
    lift = getattr(args, "rerank_lift", None)  # None: the oracle's own default
    ratio = getattr(args, "rerank_lift_ratio", None)
    floor = getattr(args, "rerank_lift_floor", None)
    spec = resolve_oracle_spec(args.oracle)
    if args.rerank == "orlog":
        try:
            oracle = get_oracle(spec, **_model_options(args, spec))
        except ValueError:
            if args.oracle != "auto":
                raise
            logger.warning("oracle auto: no LLM oracle is registered, using the leaf-score oracle")
            oracle = get_oracle("leaf")
        reranker = OrLogReranker(oracle, args.rerank_depth, args.knowledge, progress=progress, fusion=fusion,
                                 lift=lift, lift_ratio=LIFT_RATIO if ratio is None else ratio,
                                 lift_floor=LIFT_FLOOR if floor is None else floor,
                                 tie_spread=getattr(args, "rerank_tie_spread", None),
                                 # an explicit --rerank-fusion holds for every query, low-confidence ones included
                                 low_fusion=None if getattr(args, "rerank_fusion", None) is None else fusion)
    else:
        if spec.partition(":")[0] in ("dense", "leaf"):
            raise ValueError(f"--rerank {args.rerank} needs a generative model: --oracle llm (with --model SPEC)")
        from ._reasoner import LLMReasoner

        model = get_oracle(spec, **_model_options(args, spec)).model
        reranker = LLMReasoner(model, args.rerank_depth, args.knowledge, logic=args.rerank.endswith("+logic"),
                               fusion=fusion)
    setattr(args, _STATE, reranker)
    return reranker


def _model_options(args: argparse.Namespace, spec: str) -> dict[str, Any]:
    """The language model the flags select (loaded only when an LLM oracle asks for it)."""
    kind = spec.partition(":")[0]
    if kind not in ("llm", "hf", "openai"):
        return {}
    if kind != "llm" or ":" in spec:
        return {k: v for k, v in {"cache": getattr(args, "model_cache", None),
                                  "base_url": getattr(args, "base_url", None),
                                  "api_key": getattr(args, "api_key", None)}.items() if v is not None}
    from ..models import model_from_args

    return {"model": model_from_args(args, install=getattr(args, "install_model", False))}


def resolve_oracle_spec(spec: str) -> str:
    """``auto`` -> ``llm`` when the embedded model is installed, else ``leaf``: the model-free default never
    does worse than the base run (``eval/results/leaf_oracle.md``), unlike the dense MiniLM oracle."""
    if spec != "auto":
        return spec
    try:
        from ..models import embedded_path

        embedded_path()
    except Exception:  # noqa: BLE001 - not installed (or no model layer): the model-free default
        logger.info("oracle auto: no LLM installed, using the leaf-score oracle")
        return "leaf"
    return "llm"


def apply_rerank(args: argparse.Namespace, query: Any, hits: list, searcher: Any, tree: Any = None,
                 depth: int | None = None) -> list:
    """Rerank one topic's hits as the flags say (unchanged without ``--rerank``).

    ``query`` is what the reranker judges (a tree, or a rewrite's
    decomposition); ``tree`` the logical query that was searched (default
    ``query``), which ``--rerank-add-hybrid`` searches again.  With ``depth``,
    ``hits`` are candidates already pooled by :func:`rerank_candidates` (the
    search loop pools them once for :func:`prefetch_rerank` and this call).

    Never raises for a per-topic failure: that topic keeps its base ranking
    and the failure is counted (see :func:`rerank_summary`).
    """
    reranker = build_reranker(args)
    if reranker is None or not hits:
        return hits
    oracle = getattr(reranker, "oracle", None)
    if getattr(oracle, "score_fn", False) is None and hasattr(searcher, "leaf_scores"):
        oracle.bind(searcher.leaf_scores, f"leaf:{getattr(searcher.normalizer, 'method', '')}")
    if depth is None:
        hits, depth = rerank_candidates(args, query, hits, searcher, tree)
    new_hits, _ = reranker.rerank(query, hits, searcher_doc_text_fn(searcher), depth=depth)
    return new_hits


def rerank_candidates(args: Any, query: Any, hits: list, searcher: Any, tree: Any = None) -> tuple[list, int | None]:
    """The hits to rerank and their rerank depth: ``hits`` and None, or with ``--rerank-add-NAME`` the top
    ``--rerank-depth`` hits plus each source's documents not among them (:func:`pool_hits`).  A failing
    source is logged and skipped."""
    reranker = build_reranker(args)
    if reranker is None or not hits or not any(added_candidates(args, name) for name in CANDIDATE_SOURCES):
        return hits, None
    added = []
    for name, (_, source) in CANDIDATE_SOURCES.items():
        k = added_candidates(args, name)
        if not k:
            continue
        try:
            added += source(searcher, query, tree if tree is not None else query, k)
        except Exception as exc:  # noqa: BLE001 - the topic is still reranked, on its other candidates
            logger.warning("--rerank-add-%s: the search failed (%s: %s); candidates from it skipped",
                           name, type(exc).__name__, exc)
    return pool_hits(hits, added, reranker.depth)


def _dense_source(searcher: Any, query: Any, tree: Any, k: int) -> list:
    return searcher.dense_candidates(pool_question(query), k)


def _hybrid_source(searcher: Any, query: Any, tree: Any, k: int) -> list:
    from ..query import Node

    # A decomposition (the reranker's query when no searched tree is given) carries its own tree.
    return searcher.hybrid_candidates(tree if isinstance(tree, (Node, str)) else tree.to_tree(), k)


#: ``--rerank-add-NAME NUM``: NAME -> (searcher method it needs, source(searcher, query, searched tree, NUM) -> hits).
#: Their documents join the reranked candidates (:func:`pool_hits`); the base ranking is unchanged.
CANDIDATE_SOURCES: dict[str, tuple[str, Any]] = {
    "dense": ("dense_candidates", _dense_source),
    "hybrid": ("hybrid_candidates", _hybrid_source),
}


def added_candidates(args: Any, name: str) -> int:
    """``--rerank-add-NAME`` of ``args`` (0 when absent)."""
    return int(getattr(args, f"rerank_add_{name}", 0) or 0)


def prefetch_rerank(args: argparse.Namespace, items: list[tuple], searcher: Any) -> int:
    """Before :func:`apply_rerank` of a search batch: OrLog judges all its topics' pairs in pooled oracle
    calls when that pays off (a GPU model or a server; see ``OrLogReranker.pools``).  ``items`` holds
    ``(query, hits)`` per topic, or ``(query, hits, depth)`` with the candidates and depth of
    :func:`rerank_candidates` (then pass the same to :func:`apply_rerank`).  Returns the pairs judged (0
    when nothing was pooled); never raises."""
    reranker = build_reranker(args)
    if reranker is None or not hasattr(reranker, "prefetch") or not reranker.pools or len(items) < 2:
        return 0
    try:
        doc_text = searcher_doc_text_fn(searcher)
        return reranker.prefetch([(query, hits, doc_text, *depth) for query, hits, *depth in items if hits])
    except Exception as exc:  # noqa: BLE001 - the topics are judged one by one instead
        logger.warning("OrLog: pooled judgement skipped (%s: %s)", type(exc).__name__, exc)
        return 0


def pool_question(query: Any) -> str:
    """Text to search densely for a query: its natural question when a rewrite kept one, else its positive leaves."""
    from ..query import Node, positive_terms

    if not isinstance(query, Node):
        question = getattr(query, "question", "")
        if question:
            return str(question)
        query = query.to_tree() if hasattr(query, "to_tree") else query
    return " ".join(t.text for t in positive_terms(query))


def rerank_summary(args: argparse.Namespace) -> str:
    """One line on what reranking did (empty without ``--rerank``)."""
    reranker = getattr(args, _STATE, None)
    if reranker is None:
        return ""
    t = reranker.summary()
    return (f"rerank {reranker.method}: {t['queries']} topics, {t['fallbacks']} fell back to the base ranking, "
            f"{int(t['pairs'])} pairs ({int(t['cache_hits'])} cached), {t['tokens_per_pair']:.2f} LLM tokens/pair, "
            f"oracle {t['oracle_seconds']:.1f}s, problog {t['problog_seconds']:.2f}s")

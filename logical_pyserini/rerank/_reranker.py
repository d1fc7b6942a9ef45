"""OrLog reranking: plausibilities per (candidate, predicate), ProbLog posterior per candidate."""

from __future__ import annotations

import logging
import time
from typing import Any, Callable, Sequence

import numpy as np
from tqdm import tqdm

from ..query import And, Not
from ._base import (DEFAULT_FUSION, DEFAULT_LIFT, LIFT_FLOOR, LIFT_RATIO, LOW_CONFIDENCE_FUSION, MAX_LIFT, TIE_SPREAD,
                    TIE_TOP, BaseReranker, DocTextFn, RerankedHit, RerankStats)
from ._oracle import Entity, Oracle
from ._predicates import OrLogQuery
from ._problog import CompiledFormula, available_backends

logger = logging.getLogger(__name__)

__all__ = ["DEFAULT_FUSION", "DEFAULT_LIFT", "LIFT_FLOOR", "LIFT_RATIO", "LOW_CONFIDENCE_FUSION", "ORACLES",
           "TIE_SPREAD", "TIE_TOP", "OrLogReranker", "fuse", "get_oracle", "positive_conjuncts"]


def fuse(posteriors: Sequence[float], base: Sequence[float], weight: float, lift: float = 0.0,
         lift_ratio: float = 0.0, low_weight: float | None = None, lift_floor: float = 0.0,
         tie_spread: float = 0.0, tie_top: int = TIE_TOP) -> np.ndarray:
    """``weight * posterior + (1 - weight) * base``, the base min-max scaled to [0, 1].

    With ``weight < 1`` equal posteriors are ordered by the base score, and
    two candidates swap only when their posteriors differ by more than
    ``(1 - weight) / weight`` times their scaled base gap.

    ``lift``: when every posterior is below it, all are multiplied by
    ``lift / max`` (at most ``MAX_LIFT``), so the best candidate sits at
    ``lift``.  Without it, a query the model judges no candidate to satisfy
    (a conjunction of three paraphrased topics: posteriors 0.08 against
    0.03) is ranked by the base score alone, although its posteriors still
    order the candidates.  A common factor never changes the order of the
    posteriors themselves, nor equal posteriors, nor a query whose best
    candidate reaches ``lift``.

    ``lift_ratio``: lift only when the best posterior is at least this many
    times that of the base's top candidate (``base`` is in ranking order):
    low posteriors close together are a low-confidence judgement, and then
    the base score keeps its weight; ``low_weight`` (default ``weight``)
    replaces ``weight`` for such a query.  ``lift_floor``: nor is a query
    lifted whose best posterior is below it (no candidate judged likely at
    all); it counts as low-confidence too.

    ``tie_spread``: when the posteriors of the base's top ``tie_top``
    candidates (after any lift) lie within it of one another, the model does
    not tell them apart: the base's first candidate stays first (its score
    is raised just above the best), and the others are fused as usual.

    >>> fuse([0.075, 0.025], [0.0, 1.0], 0.8).round(3).tolist()
    [0.06, 0.22]
    >>> fuse([0.075, 0.025], [0.0, 1.0], 0.8, lift=0.5).round(3).tolist()
    [0.4, 0.333]
    >>> fuse([0.23, 0.31], [1.0, 0.5], 0.8, lift=0.5, lift_ratio=2.0).round(3).tolist()
    [0.384, 0.248]
    >>> fuse([0.23, 0.31], [1.0, 0.5], 0.8, lift=0.5, lift_ratio=2.0, low_weight=0.7).round(3).tolist()
    [0.461, 0.217]
    >>> fuse([0.05, 0.11], [1.0, 0.5], 0.8, lift=0.5, lift_ratio=2.0, low_weight=0.7,
    ...      lift_floor=0.25).round(3).tolist()
    [0.335, 0.077]
    >>> fuse([0.45, 0.52, 0.43], [19.3, 17.1, 8.1], 0.8).round(3).tolist()
    [0.56, 0.577, 0.344]
    >>> fuse([0.45, 0.52, 0.43], [19.3, 17.1, 8.1], 0.8, tie_spread=0.1).round(3).tolist()
    [0.577, 0.577, 0.344]
    """
    p = np.asarray(posteriors, dtype=float)
    best = float(p.max()) if len(p) else 0.0
    if 0.0 < best < lift:
        if best < lift_ratio * p[0] or best < lift_floor:  # low and close together, or all near 0: low confidence
            weight = weight if low_weight is None else low_weight
        else:
            p = p * min(MAX_LIFT, lift / best)
    b = np.asarray(base, dtype=float)
    span = float(b.max() - b.min()) if len(b) else 0.0
    scaled = (b - b.min()) / span if span > 0 else np.zeros_like(b)
    fused = weight * p + (1.0 - weight) * scaled
    top = p[:tie_top]  # as lifted: 0.075 against 0.025 (three conjuncts) is a judgement, not a tie
    if tie_spread > 0.0 and len(top) > 1 and float(top.max() - top.min()) < tie_spread:
        fused[0] = float(fused.max()) + 1e-6  # near-equal judgements: no reason to overturn the base's first
    return fused


def _unit(name: str, value: float) -> float:
    """``value`` as a float, or a ValueError naming ``name`` when it lies outside [0, 1]."""
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must be in [0, 1], got {value}")
    return float(value)


def positive_conjuncts(formula: Any) -> int:
    """How many positive conjuncts a formula's top-level conjunction has (at least 1): the lift floor holds per
    conjunct, since a product of n judgements is low even when each is fair ("table tennis AND golf AND ice cream"
    at 0.71 · 0.18 · 0.59 = 0.075), while one positive judgement below the floor says no candidate fits.

    >>> from logical_pyserini.query import parse_query
    >>> positive_conjuncts(parse_query('"a" AND "b" AND NOT "c"')), positive_conjuncts(parse_query('"a" OR "b"'))
    (2, 1)
    """
    if isinstance(formula, And):
        return max(1, sum(1 for c in formula.children if not isinstance(c, Not)))
    return 1


def _dense(arg: str, options: dict[str, Any]) -> Oracle:
    from ._dense import DenseOracle

    return DenseOracle(arg or None)


def _llm(arg: str, options: dict[str, Any]) -> Oracle:
    from ..models import get_model

    from ._llm import LLMOracle

    model = options.get("model")
    if model is None or arg:
        model = get_model(arg or "embedded", **{k: v for k, v in options.items() if k != "model"})
    return LLMOracle(model)


def _legacy(kind: str):
    # ``hf:PATH`` / ``openai:NAME``: the model spec itself names the model.
    return lambda arg, options: _llm(f"{kind}:{arg}" if kind == "openai" else arg, options)


def _leaf(arg: str, options: dict[str, Any]) -> Oracle:
    from ._leaf import LeafScoreOracle

    return LeafScoreOracle(**options)


#: ``--oracle`` kinds: name -> builder(arg, options).
ORACLES: dict[str, Callable[[str, dict[str, Any]], Oracle]] = {
    "dense": _dense, "leaf": _leaf, "llm": _llm, "hf": _legacy("hf"), "openai": _legacy("openai"),
}


def get_oracle(spec: str, **options: Any) -> Oracle:
    """Build an oracle from a CLI spec.

    Parameters
    ----------
    spec : str
        ``llm`` (the language model given as ``model=``, else the embedded
        one), ``llm:MODEL_SPEC`` (any :func:`logical_pyserini.models.get_model`
        spec), ``leaf`` (exact normalised leaf scores; needs a searcher bound,
        see :class:`LeafScoreOracle`), ``dense`` / ``dense:DIR`` (sentence
        encoder), and the older spellings ``hf:PATH`` and ``openai:NAME``.
    **options
        ``model`` (a LanguageModel), or options for ``get_model``
        (``base_url``, ``api_key``, ``concurrency``, ``device``, ``cache``).

    Raises
    ------
    ValueError
        For an unknown spec.
    ModelError, OracleError
        When the model is missing or cannot serve True/False plausibilities.
    """
    kind, _, arg = spec.partition(":")
    if kind not in ORACLES or (kind in ("hf", "openai") and not arg) or (kind == "leaf" and arg):
        raise ValueError(f"unknown oracle {spec!r}; expected one of: llm, llm:MODEL, leaf, dense, dense:DIR, "
                         "hf:PATH, openai:NAME")
    return ORACLES[kind](arg, options)


class OrLogReranker(BaseReranker):
    """Rerank the top ``depth`` hits by the posterior that they satisfy the query.

    Parameters
    ----------
    oracle : Oracle
        Source of plausibilities (see :func:`get_oracle`).
    depth : int
        Candidates reranked; hits below keep their order under them.
    knowledge : str
        ``parametric`` (title only) or ``parametric+`` (title + text).
    fusion : float
        Weight of the posterior in the final score: ``fusion * posterior +
        (1 - fusion) * base``, the base score min-max scaled over the reranked
        candidates.  Below 1, equal posteriors keep the base order and a
        low-confidence judgement (posteriors close together) cannot overturn
        a clear base margin.  LLM answers are cached by the model layer.
    lift : float, optional
        When no candidate's posterior reaches ``lift``, the query's
        posteriors are scaled so the best one does (at most 10x) before the
        fusion (see :func:`fuse`); 0 disables it.  Default: the oracle's
        ``lift`` (0.5 for the LLM oracle, 0 for the leaf and dense ones).
    lift_ratio : float
        The lift applies only when the best posterior is at least this many
        times that of the base's top candidate (default ``LIFT_RATIO``, 2):
        low posteriors close together do not overturn the base ranking.
    lift_floor : float
        Nor is a query lifted whose best posterior is below this to the
        power of its positive conjuncts (default ``LIFT_FLOOR``, 0.25; 0.0156
        for ``a AND b AND c``): no candidate is judged likely, so it is a
        low-confidence query.
    tie_spread : float, optional
        When the posteriors of the base's top ``TIE_TOP`` (5) hits lie within
        this of one another, the base's first hit stays first (see
        :func:`fuse`).  Default: the oracle's ``tie_spread`` (``TIE_SPREAD``,
        0.1, for the LLM oracle; 0 for the leaf and dense ones).
    low_fusion : float, optional
        Posterior weight for such a low-confidence query (default
        ``LOW_CONFIDENCE_FUSION``, 0.7, when ``fusion`` is the default 0.8;
        otherwise ``fusion`` itself).  Only LLM-style oracles with a lift
        ever have such queries.
    context_tokens : int
        Token budget for the document text in ``parametric+``.
    backend : str, optional
        ProbLog knowledge compiler (``sdd``, else ``ddnnf``).
    progress : bool
        Progress bar while the oracle scores many pairs.
    oracle_batch : int
        Pairs handed to the oracle per call.

    Examples
    --------
    >>> reranker = OrLogReranker(get_oracle("dense"))                  # doctest: +SKIP
    >>> new_hits, stats = reranker.rerank(parse_query('"a" OR "b"'), hits)  # doctest: +SKIP
    """

    method = "orlog"

    def __init__(self, oracle: Oracle, depth: int = 20, knowledge: str = "parametric+",
                 context_tokens: int = 256, backend: str | None = None, progress: bool = False,
                 oracle_batch: int = 64, fusion: float = DEFAULT_FUSION, lift: float | None = None,
                 lift_ratio: float = LIFT_RATIO, low_fusion: float | None = None, lift_floor: float = LIFT_FLOOR,
                 tie_spread: float | None = None):
        super().__init__(depth, knowledge, context_tokens)
        if not hasattr(oracle, "plausibilities"):
            raise TypeError(f"{type(oracle).__name__} is not an oracle (no plausibilities method)")
        self.oracle = oracle
        self.fusion = _unit("fusion", fusion)
        # the lift and the tie spread default to the oracle's own (an LLM's P(True) needs them, leaf scores do not)
        self.lift = _unit("lift", float(getattr(oracle, "lift", 0.0)) if lift is None else lift)
        if lift_ratio < 0.0:
            raise ValueError(f"lift_ratio must be >= 0, got {lift_ratio}")
        self.lift_ratio = float(lift_ratio)
        self.lift_floor = _unit("lift_floor", lift_floor)
        self.tie_spread = _unit("tie_spread",
                                float(getattr(oracle, "tie_spread", 0.0)) if tie_spread is None else tie_spread)
        if low_fusion is None:
            low_fusion = LOW_CONFIDENCE_FUSION if self.fusion == DEFAULT_FUSION else self.fusion
        self.low_fusion = _unit("low_fusion", low_fusion)
        backends = available_backends()
        if not backends:
            raise RuntimeError("no ProbLog knowledge compiler available (install pysdd for sdd)")
        if backend is not None and backend not in backends:
            raise ValueError(f"ProbLog backend {backend!r} unavailable here; available: {backends}")
        self.backend = backend or backends[0]
        self.progress = progress
        self.oracle_batch = int(oracle_batch)
        self.prefetch_batch = 4096
        # Answers judged ahead by :meth:`prefetch` for the current search batch: (entity key, atom) -> value.
        self._memo: dict[tuple[str, str], float] = {}
        self._prefetched = RerankStats("orlog-prefetch")

    @property
    def pools(self) -> bool:
        """Whether pooling several queries' pairs into one oracle call pays off: a model on a GPU, whose
        batches stay mostly empty with one query's ~100 prompts, or a server with requests in flight."""
        model = getattr(self.oracle, "model", None)
        return str(getattr(model, "device", "")).startswith("cuda") or getattr(model, "concurrency", 1) > 1

    def prefetch(self, items: Sequence[tuple]) -> int:
        """Judge the (candidate, predicate) pairs of several queries in pooled oracle calls.

        ``items`` holds ``(query, hits, doc_text_fn)`` per query, as :meth:`rerank` takes them, optionally
        with a fourth element, the rerank depth of that query (``depth=`` of :meth:`rerank`).  The
        answers are kept until the next prefetch, and :meth:`rerank` of those queries reads them
        instead of calling the oracle per query: on a GPU the calls then hold thousands of prompts
        (and a document shared by several queries is encoded once), which measured 2-3x the pairs/s of
        per-query calls (eval/results/oracle_throughput.md).  The answers are the same.  A failure is
        logged and leaves the pairs to :meth:`rerank`, which falls back per query as usual.

        Returns
        -------
        int
            Pairs judged.
        """
        self._memo.clear()
        pairs: list[tuple[Entity, str]] = []
        seen: set[tuple[str, str]] = set()
        for query, hits, doc_text_fn, *rest in items:
            depth = rest[0] if rest and rest[0] is not None else self.depth
            try:
                atoms = OrLogQuery.coerce(query).atoms
                entities = self._entities(list(hits[:depth]), doc_text_fn, self.oracle)
            except Exception:  # noqa: BLE001 - rerank() reports this query's failure
                continue
            for entity in entities:
                for atom in atoms:
                    if (entity.key, atom) not in seen:
                        seen.add((entity.key, atom))
                        pairs.append((entity, atom))
        if not pairs:
            return 0
        steps = range(0, len(pairs), self.prefetch_batch)
        try:
            for s in tqdm(steps, desc="oracle (pooled)", unit="batch", leave=False,
                          disable=not self.progress or len(steps) < 2):
                chunk = pairs[s : s + self.prefetch_batch]
                values = self._judge(chunk, self._prefetched)
                self._memo.update(((e.key, a), float(v)) for (e, a), v in zip(chunk, values))
        except Exception as exc:  # noqa: BLE001 - each query is judged on its own instead
            logger.warning("OrLog: pooled judgement of %d pairs failed (%s: %s); judging per query",
                           len(pairs), type(exc).__name__, exc)
        return len(pairs)

    def summary(self) -> dict[str, float]:
        """Totals over every query reranked so far, plus the cost of the pooled judgements (their pairs are
        counted by the queries that read them)."""
        total = super().summary()
        for name in ("cache_hits", "prompt_tokens", "computed_tokens", "generated_tokens", "oracle_seconds"):
            total[name] += getattr(self._prefetched, name)
        return total

    def _judge(self, pairs: Sequence[tuple[Entity, str]], stats: RerankStats | None) -> np.ndarray:
        """One oracle call, checked, with its cost added to ``stats``."""
        oracle = self.oracle
        before = dict(getattr(oracle, "usage", {}))
        model_usage = getattr(getattr(oracle, "model", None), "usage", None)
        hits_before = model_usage["cache_hits"] if model_usage else 0
        start = time.perf_counter()
        values = np.asarray(oracle.plausibilities(list(pairs)), dtype=float)
        if values.shape != (len(pairs),) or not np.all((values >= 0) & (values <= 1)):
            raise ValueError(f"oracle {oracle.id} returned values outside [0, 1] or of the wrong shape")
        if stats is not None:
            stats.oracle_seconds += time.perf_counter() - start
            if model_usage:
                stats.cache_hits += model_usage["cache_hits"] - hits_before
            after = getattr(oracle, "usage", {})
            for name in ("prompt_tokens", "computed_tokens", "generated_tokens"):
                setattr(stats, name, getattr(stats, name) + after.get(name, 0) - before.get(name, 0))
        return values

    def plausibility_matrix(self, entities: Sequence[Entity], atoms: Sequence[str],
                            stats: RerankStats | None = None) -> np.ndarray:
        """``(len(entities), len(atoms))`` plausibilities (entity-major, so a document's claims share a batch)."""
        matrix = np.full((len(entities), len(atoms)), np.nan)
        todo = []
        for i in range(len(entities)):
            for j in range(len(atoms)):
                known = self._memo.get((entities[i].key, atoms[j]))
                if known is None:
                    todo.append((i, j))
                else:
                    matrix[i, j] = known
        steps = range(0, len(todo), self.oracle_batch)
        for s in tqdm(steps, desc="oracle", unit="batch", leave=False,
                      disable=not self.progress or len(steps) < 2):
            chunk = todo[s : s + self.oracle_batch]
            values = self._judge([(entities[i], atoms[j]) for i, j in chunk], stats)
            for (i, j), v in zip(chunk, values):
                matrix[i, j] = v
        if stats is not None:
            stats.pairs += len(entities) * len(atoms)
        return matrix

    def rerank(self, query: Any, hits: Sequence[Any],
               doc_text_fn: DocTextFn | None = None, depth: int | None = None) -> tuple[list[RerankedHit], RerankStats]:
        """Rerank one query's hits.

        Parameters
        ----------
        query : Node, decomposition or OrLogQuery
            A logical query tree (one predicate per distinct leaf) or an
            object with ``atoms`` and ``to_tree()``.
        hits : sequence
            Hits with ``docid`` and ``score``, best first.
        doc_text_fn : callable, optional
            ``hit -> (title, text)``; default reads ``hit.raw`` (see
            :func:`hit_title_text`).
        depth : int, optional
            Candidates reranked for this query (default: the reranker's
            ``depth``), e.g. after :func:`pool_hits` added some.

        Returns
        -------
        (list of RerankedHit, RerankStats)
            On any failure (oracle error, bad values) the base ranking comes
            back with ``stats.fallback`` set and the error text.
        """
        stats = RerankStats(self.method)
        self.history.append(stats)
        try:
            q = OrLogQuery.coerce(query)
            top = list(hits[: depth or self.depth])
            stats.candidates, stats.atoms = len(top), len(q.atoms)
            if not top:
                return [], stats
            entities = self._entities(top, doc_text_fn, self.oracle)
            matrix = self.plausibility_matrix(entities, q.atoms, stats)
            start = time.perf_counter()
            posteriors = CompiledFormula(q.formula, self.backend).posteriors(matrix)
            stats.problog_seconds = time.perf_counter() - start
        except Exception as exc:  # noqa: BLE001 - any failure keeps the base ranking (counted)
            return self._fail(hits, stats, exc), stats
        # Seed 000 accounting: one decoding-free forward pass per predicate, plus parsing amortised.
        stats.tokens_per_pair = len(q.atoms) + q.parse_tokens / len(top)
        fused = fuse(posteriors, [float(h.score) for h in top], self.fusion, self.lift, self.lift_ratio,
                     self.low_fusion, self.lift_floor ** positive_conjuncts(q.formula), self.tie_spread)
        return self._reorder(hits, fused, posteriors), stats

"""Exact top-k logical search with safe early termination.

The reference is *exhaustive scoring*: every document of the collection gets
its exact score on every leaf, the tree combines them, and the answer is the
``k`` documents with the highest combined score above 0, ties broken by the
backend's document order (Lucene internal docid).  :func:`topk` returns the
same list while touching only the few documents that can still qualify.

First choice for k <= 1000, a *bound query* (:func:`~logical_pyserini.compose.bound_query`):
when leaves are normalised linearly (``max``, ``none``), the tree has a query
the term index ranks itself, with its own dynamic pruning, whose score is at
least the combined score of every document it matches, while documents it
misses combine to at most 0 (a sum of weighted leaves for OR, a product over a
conjunction for AND, NOT factors replaced by their upper end).  Its top ``d``
documents come with every leaf's exact score (a Lucene backend returns them
from the same search, as sort fields); once the k-th best exact combined score
beats the ``d``-th bound score (with a margin for the index's float32
arithmetic), no other document can enter the top k; otherwise ``d`` grows.
One bound search (plus each leaf's top-1, cached) answers most top-10 queries;
when fewer than k documents score above 0, one more listing by docid brings
the 0-scored fillers, again with their leaf scores.

Otherwise (a sigmoid, AND=min, NOT-only trees) it is a threshold algorithm
over the leaves' ranked lists:

1. every distinct leaf is searched to a depth ``d`` (one backend call each);
   the documents of the *positive* leaves' lists are the candidates;
2. for a candidate, a leaf it is missing from lies between the backend's
   floor (0 for BM25) and the last score of that leaf's list (or is exactly
   the floor when the list is complete); a document in no positive list has
   every positive leaf in that range and every negated leaf anywhere up to
   its maximum;
3. :func:`~logical_pyserini.compose.compose_bounds` turns those ranges into
   bounds of the combined score; ``theta`` is the k-th best lower bound;
4. a document whose upper bound is below ``theta`` (or not above 0) can never
   be returned.  When that holds for every unseen document, the remaining
   ambiguous candidates get exact leaf scores (one batched call per leaf) and
   the ranking is final; otherwise the positive lists are searched deeper.

When every positive list is complete and unseen documents can still score
(``NOT "x"``, ``a OR NOT b``), they all have the positive leaves at the floor,
so none beats the score ``s0`` of a document matching no leaf at all; the
first ``k`` such documents (by docid) come from one backend call, and only
documents before the k-th of them need the negated leaves' exact scores.

Bounds need a normaliser that maps raw scores monotonically given the leaf
maximum (``max``, ``sigmoid``, ``none``; not ``minmax``, which depends on the
scored pool) and operators that are monotone on the values at hand; where
that fails, every document is scored (still exact, not fast).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

import numpy as np

from ..compose import BoundsUnavailable, Operators, bound_query, compose, compose_bounds
from ..query import Node, count_negations, distinct_terms, positive_terms
from ..retrieve import LeafHits
from ._pipeline import LeafBackend, Pool

logger = logging.getLogger(__name__)

__all__ = ["TopKStats", "score_everything", "supports_topk", "topk"]

# First depth of every leaf list, and how much deeper each further round goes.
# Negated leaves only need their maximum and a bound, so their first list is short.
# Measured on the 100k synthetic benchmark: fewest backend calls per top-10 query.
_MIN_DEPTH = 200
_NEG_DEPTH = 20
_GROWTH = 8
# Bound query: first depth k + max(k / 4, extra), then 4x deeper per round, up to k = 1000.
# Without NOT the bound score of a matched document is its exact score (up to float32), so a
# few more than k settle the top k unless scores tie; a NOT lowers exact scores below the bound,
# so such trees start deeper.  Each hit costs its leaves' sort-field values: depth 15 instead of
# 30 for k = 10 took NOT-free top-10 on the latency benchmark from 1.21x to 1.10x plain at 100k
# docs (1.00x to 0.93x at 1M) at 1.00 / 1.02 rounds per query (2026-11-23).
# Since its hits carry the leaves' exact scores and docids (sort fields), it also wins at run
# depth (eval/bench_topk_paths.py SIZE 1000, 2026-11-23: 100k docs 26.1 ms vs 26.7 ms for the
# threshold loop, 1M docs 16.7 ms vs 59.6 ms; it had lost 2x there while it rescored every leaf).
_BOUND_MAX_K = 1000
_BOUND_EXTRA = 5
_BOUND_EXTRA_NOT = 20
_BOUND_GROWTH = 4
# The index computes bound scores in float32 (boosts, sums, products: relative
# error about 1e-7 per operation, all terms >= 0), the exact scores are float64:
# a document's exact score is at most its bound score times (1 + margin).
_BOUND_MARGIN = 1e-5


@dataclass
class TopKStats:
    """What one :func:`topk` call did (for benchmarks and tests)."""

    rounds: int = 0
    searches: int = 0
    scorings: int = 0
    scored_docs: int = 0
    docid_calls: int = 0
    max_depth: int = 0
    path: str = "bounded"
    backend_calls: list = field(default_factory=list)

    @property
    def calls(self) -> int:
        """Backend operations (each is a constant number of Java calls)."""
        return self.searches + self.scorings + self.docid_calls


def supports_topk(backend: LeafBackend, normalizer, tree: Node) -> bool:
    """Whether exact top-k applies: a backend whose leaf lists for ``tree`` are exact
    (``backend.exact_topk(tree)``) and a normaliser with safe bounds (see
    :attr:`~logical_pyserini.compose.Normalizer.has_safe_bounds`)."""
    inner = getattr(normalizer, "normalizer", normalizer)
    exact = getattr(backend, "exact_topk", None)
    return bool(exact and exact(tree)) and bool(getattr(inner, "has_safe_bounds", False))


class _Leaf:
    """One distinct leaf: its ranked list plus exact scores probed so far."""

    def __init__(self, term, positive: bool):
        self.term = term
        self.positive = positive
        self.hits: LeafHits | None = None
        self.depth = 0
        self.probed_docs = np.zeros(0, dtype=np.int64)
        self.probed_vals = np.zeros(0, dtype=np.float64)

    def fetch(self, backend: LeafBackend, depth: int, num_docs: int, stats: TopKStats) -> None:
        if self.hits is not None and getattr(backend, "extends", False):
            self.hits = backend.search(self.term, depth, self.hits)  # only the new hits cross
        else:
            self.hits = backend.search(self.term, depth)
        self.depth = depth
        stats.searches += 1
        stats.max_depth = max(stats.max_depth, depth)
        if len(self.hits.docs) >= num_docs:  # every document listed (a dense leaf at full depth)
            self.hits = LeafHits(self.hits.docs, self.hits.scores, True)

    @property
    def complete(self) -> bool:
        return self.hits.complete

    @property
    def last(self) -> float:
        """Upper bound of the raw score of any document missing from the list."""
        return float(self.hits.scores[-1]) if len(self.hits.scores) else 0.0

    def known(self, docs: np.ndarray, floor: float) -> tuple[np.ndarray, np.ndarray]:
        """(mask of docs whose raw score is known, raw scores; unknown entries are 0)."""
        values = np.zeros(len(docs), dtype=np.float64)
        mask = np.zeros(len(docs), dtype=bool)
        for src_docs, src_vals in ((self.hits.docs, self.hits.scores), (self.probed_docs, self.probed_vals)):
            if len(src_docs) == 0:
                continue
            order = np.argsort(src_docs, kind="stable")
            pos = np.minimum(np.searchsorted(src_docs, docs, sorter=order), len(src_docs) - 1)
            hit = src_docs[order[pos]] == docs
            values[hit] = src_vals[order[pos[hit]]]
            mask |= hit
        if self.complete:
            values[~mask] = floor
            mask[:] = True
        return mask, values

    def probe(self, backend: LeafBackend, docs: np.ndarray, stats: TopKStats) -> None:
        """Exact raw scores of ``docs`` (one backend call)."""
        if len(docs) == 0:
            return
        self.add(docs, backend.score(self.term, docs))
        stats.scorings += 1
        stats.scored_docs += len(docs)

    def add(self, docs: np.ndarray, values) -> None:
        """Record exact raw scores."""
        self.probed_docs = np.concatenate([self.probed_docs, docs])
        self.probed_vals = np.concatenate([self.probed_vals, np.asarray(values, dtype=np.float64)])


def topk(
    tree: Node,
    backend: LeafBackend,
    operators: Operators,
    normalizer,
    k: int,
    stats: TopKStats | None = None,
    bound_queries: bool = True,
    plans: dict | None = None,
) -> Pool:
    """The exact top ``k`` of ``tree`` over the whole collection.

    Parameters
    ----------
    tree : Node
        Parsed query.
    backend : LeafBackend
        Leaf search / exact scoring; must also offer ``num_docs`` (size of
        its document key space), ``floor`` (raw score of a document that a
        complete list does not contain) and ``first_docs(terms, k, matching)``
        (the first ``k`` keys that match any / none of ``terms``).
    operators, normalizer
        Composition choices (``normalizer`` must have safe bounds).
    k : int
        Number of hits.
    stats : TopKStats, optional
        Filled with what the call did.
    bound_queries : bool
        Try a bound query first where the backend ranks one (default); False
        runs the threshold loop over leaf lists only (tests compare both).
    plans : dict, optional
        Where to keep per-tree work (leaves, bound query, score range) for later calls
        with the same tree; a searcher passes its own.  Default: nothing kept.

    Returns
    -------
    Pool
        Every document that can be in the top ``k``, with exact scores; its
        :meth:`Pool.ranking` gives the answer.  A document is *returned* when
        it matches a positive leaf or scores above 0 (see :func:`exhaustive`).
    """
    search = _TopK(tree, backend, operators, normalizer, k, stats, bound_queries, plans)
    try:
        return search.run()
    except BoundsUnavailable as exc:
        logger.debug("no safe bound (%s): scoring every document", exc)
        search.stats.path = "exhaustive"
        return exhaustive(tree, backend, operators, normalizer, search.stats)


class _TopK:
    """State of one :func:`topk` call."""

    def __init__(self, tree, backend, operators, normalizer, k, stats, bound_queries=True, plans=None):
        self.tree, self.backend, self.operators, self.normalizer = tree, backend, operators, normalizer
        self.bound_queries = bound_queries
        self.k = max(1, int(k))
        self.stats = stats if stats is not None else TopKStats()
        self.num_docs = int(backend.num_docs)
        self.floor = float(getattr(backend, "floor", 0.0))
        self.plans = plans if plans is not None else {}
        terms, positive, self.has_not = _memo(self.plans, ("leaves", tree), lambda: _leaf_plan(tree))
        self.leaves = [_Leaf(t, t.key in positive) for t in terms]
        self.positive = [leaf for leaf in self.leaves if leaf.positive]

    def norm(self, leaf: _Leaf, raw) -> np.ndarray:
        return self.normalizer(np.asarray(raw, dtype=np.float64), leaf.hits.max, 0.0,
                               self.backend.retriever(leaf.term))

    def run(self) -> Pool:
        k, num_docs = self.k, self.num_docs
        if num_docs == 0:
            return Pool(self.tree, np.zeros(0, dtype=np.int64), {}, {}, np.zeros(0), np.zeros(0, dtype=bool))
        if self.bound_queries and k <= _BOUND_MAX_K:
            pool = self.run_bound_query()
            if pool is not None:
                return pool
        depth = min(max(k, _MIN_DEPTH), num_docs)
        for leaf in self.leaves:
            leaf.fetch(self.backend, depth if leaf.positive else min(max(k, _NEG_DEPTH), num_docs),
                       num_docs, self.stats)
        while True:
            self.stats.rounds += 1
            lists = [leaf.hits.docs for leaf in self.positive]
            self.cands = np.unique(np.concatenate(lists)) if lists else np.zeros(0, dtype=np.int64)
            lo, hi, self.known = {}, {}, {}
            for leaf in self.leaves:
                mask, raw = leaf.known(self.cands, self.floor)
                self.known[leaf.term.key] = mask
                lo[leaf.term.key] = self.norm(leaf, np.where(mask, raw, self.floor))
                hi[leaf.term.key] = self.norm(leaf, np.where(mask, raw, leaf.last))
            self.lower, self.upper = compose_bounds(self.tree, lo, hi, self.operators)
            self.theta = _kth(self.lower, k)
            ub_unseen = self.unseen_bound()
            covered = any(len(leaf.hits.docs) >= num_docs for leaf in self.positive)
            if covered or _excluded(ub_unseen, self.theta):
                return self.finish(self.open_docs())
            deeper = [leaf for leaf in self.positive if not leaf.complete]
            if not deeper:
                return self.unmatched_step(ub_unseen)
            # (Probing open candidates here to raise theta before going deeper cost
            # more calls than it saved on the benchmark, so lists just grow.)
            depth = min(depth * _GROWTH, num_docs)
            for leaf in deeper:
                leaf.fetch(self.backend, depth, num_docs, self.stats)

    def run_bound_query(self) -> Pool | None:
        """The answer from a bound query's top documents (None when the tree has none)."""
        ready = getattr(self.backend, "bound_query_ready", None)
        method = getattr(getattr(self.normalizer, "normalizer", self.normalizer), "method", None)
        if ready is None or method not in ("max", "none") or not ready(self.tree):
            return None
        for leaf in self.leaves:  # every leaf's maximum (cached by the backend)
            leaf.fetch(self.backend, 1, self.num_docs, self.stats)
        key = (self.tree, self.operators, method, self.floor, tuple(leaf.hits.max for leaf in self.leaves))
        spec = _memo(self.plans, key, lambda: self.bound_spec(method))
        if spec is None:
            return None
        self.stats.path = "bound-query"
        extra = _BOUND_EXTRA_NOT if self.has_not else _BOUND_EXTRA
        k, want, hits = self.k, self.k + max(self.k // 4, extra), None
        terms = [leaf.term for leaf in self.leaves]
        while True:
            want = min(want, self.num_docs)
            hits = self.backend.bound_search(spec, want, hits, terms)
            self.stats.rounds += 1
            self.stats.searches += 1
            self.stats.max_depth = max(self.stats.max_depth, want)
            docs, raw = self.listed(hits)
            pool = _final(self.tree, self.leaves, docs, self.backend, self.operators, self.normalizer, self.floor,
                          raw)
            if hits.complete or len(hits.docs) >= self.num_docs:
                break  # every document the bound query matches is scored; the others score <= 0
            last = float(hits.scores[-1])
            if _kth(pool.combined, k) > last * (1.0 + _BOUND_MARGIN):
                break  # no document below the d-th bound score can reach the k-th exact score
            want *= _BOUND_GROWTH
        # (fillers: ``finish`` lists matching documents by docid unless every positive list is complete)
        lists = [leaf.hits.docs for leaf in self.positive]
        self.cands = np.unique(np.concatenate(lists)) if lists else np.zeros(0, dtype=np.int64)
        return self.finish(docs, pool)

    def bound_spec(self, method: str):
        """The tree's :func:`~logical_pyserini.compose.bound_query` for the leaves' maxima."""
        scale, top = {}, {}
        for leaf in self.leaves:
            m = leaf.hits.max
            scale[leaf.term.key] = (1.0 / m if m > 0 else 0.0) if method == "max" else 1.0
            top[leaf.term.key] = float(self.norm(leaf, [max(m, self.floor)])[0])
        return bound_query(self.tree, self.operators, scale, top)

    def unseen_bound(self) -> float:
        """Upper bound of any document in no positive list."""
        lo, hi = {}, {}
        for leaf in self.leaves:
            if leaf.positive:
                top = self.floor if leaf.complete else leaf.last
            else:
                top = leaf.hits.max
            lo[leaf.term.key] = self.norm(leaf, [self.floor])
            hi[leaf.term.key] = self.norm(leaf, [max(top, self.floor)])
        return float(compose_bounds(self.tree, lo, hi, self.operators)[1][0])

    def no_match_score(self) -> float:
        """Combined score of a document that matches no leaf."""
        values = {leaf.term.key: self.norm(leaf, [self.floor]) for leaf in self.leaves}
        return float(compose(self.tree, values, self.operators)[0])

    def open_docs(self) -> np.ndarray:
        """Candidates that can still be in the top k."""
        return self.cands[~_excluded(self.upper, self.theta)]

    def listed(self, hits: LeafHits) -> tuple[np.ndarray, dict | None]:
        """``(docs, raw)``: the distinct documents of ``hits`` in docid order and, when the
        backend returned every leaf's exact score with them (:attr:`LeafHits.values`, in the
        order of ``self.leaves``), those scores by leaf key (also recorded on the leaves);
        otherwise ``raw`` is None and the documents are probed."""
        docs, first = np.unique(hits.docs, return_index=True)
        if hits.values is None or len(hits.values) != len(self.leaves):
            self.probe(docs)
            return docs, None
        raw = {}
        for leaf, values in zip(self.leaves, hits.values):
            raw[leaf.term.key] = np.asarray(values, dtype=np.float64)[first]
            leaf.add(docs, raw[leaf.term.key])  # (a document listed twice keeps equal values)
        return docs, raw

    def probe(self, docs: np.ndarray) -> None:
        """Exact scores of ``docs`` on every leaf that does not know them yet (one pass
        over all of them where the backend scores several leaves at once)."""
        missing = {}
        for leaf in self.leaves:
            mask, _ = leaf.known(docs, self.floor)
            if not mask.all():
                missing[leaf] = docs[~mask]
        if not missing:
            return
        if not hasattr(self.backend, "score_many"):
            for leaf, todo in missing.items():
                leaf.probe(self.backend, todo, self.stats)
            return
        todo = np.unique(np.concatenate(list(missing.values())))
        values = self.backend.score_many([leaf.term for leaf in missing], todo)
        for leaf, vals in zip(missing, values):
            leaf.add(todo, vals)
        self.stats.scorings += len(missing)
        self.stats.scored_docs += len(todo) * len(missing)

    def unmatched_step(self, ub_unseen: float) -> Pool:
        """Every positive list is complete, yet documents in none of them may still
        score above 0 (``NOT "x"``, ``a OR NOT b``): none beats the no-match score
        ``s0``, so the first k no-match documents bound how far to look."""
        s0 = self.no_match_score()
        if ub_unseen > s0:
            raise BoundsUnavailable("documents outside the lists are not bounded by the no-match score")
        first = np.asarray(self.backend.first_docs([leaf.term for leaf in self.leaves], self.k, False),
                           dtype=np.int64)
        self.stats.docid_calls += 1
        self.stats.path = "unmatched"
        # Documents after the k-th no-match document score at most s0 and lose the tie on docid.
        end = int(first[-1]) + 1 if len(first) >= self.k else self.num_docs
        span = np.setdiff1d(np.arange(end, dtype=np.int64), self.cands, assume_unique=True)
        return self.finish(np.union1d(self.open_docs(), span))

    def finish(self, docs: np.ndarray, pool: Pool | None = None) -> Pool:
        """Exact scores for ``docs`` (``pool``, when already computed); when fewer than k
        of them score above 0, the top k is filled with 0-scored documents that match a
        positive leaf, by docid."""
        if pool is None:
            self.probe(docs)
            pool = _final(self.tree, self.leaves, docs, self.backend, self.operators, self.normalizer, self.floor)
        n_pos = int((pool.combined > 0).sum())
        if n_pos >= self.k or not self.positive:
            return pool
        # Every document outside ``docs`` scores <= 0 here; fillers must score exactly 0.
        inner = getattr(self.normalizer, "normalizer", self.normalizer)
        key = ("range", self.tree, self.operators, inner, self.floor, tuple(leaf.hits.max for leaf in self.leaves))
        if _memo(self.plans, key, self.score_range)[0] < 0:
            raise BoundsUnavailable("scores can be negative, so 0-scored fillers are not the next best")
        listed = None
        if all(leaf.complete for leaf in self.positive):
            fill = self.cands[: self.k]  # the candidates are every matching document, in docid order
        elif hasattr(self.backend, "first_hits"):
            # The first k documents matching a positive leaf, with every leaf's score, depend only on
            # the leaves and k: like a leaf's maximum, a repeated query reuses them (as Lucene's
            # query cache reuses a filter); one listing when first seen.
            def first_hits():
                self.stats.docid_calls += 1
                return self.backend.first_hits([leaf.term for leaf in self.positive], self.k, True,
                                               [leaf.term for leaf in self.leaves])

            key = ("fillers", tuple(leaf.term.key for leaf in self.positive),
                   tuple(leaf.term.key for leaf in self.leaves), self.k)
            listed = _memo(self.plans, key, first_hits)
            if hasattr(self.backend, "remember"):  # its docids, in case the backend's cache started over
                self.backend.remember(self.positive[0].term, listed)
            fill = np.sort(listed.docs)
        else:
            fill = np.asarray(self.backend.first_docs([leaf.term for leaf in self.positive], self.k, True),
                              dtype=np.int64)
            self.stats.docid_calls += 1
        fill = np.setdiff1d(fill, docs)
        if len(fill) == 0:
            return pool
        raw = None
        if listed is not None:
            listed_docs, listed_raw = self.listed(listed)  # (records the fillers' leaf scores)
            if listed_raw is not None and all(key in pool.raw for key in listed_raw) and len(pool.docs) == len(docs):
                # Every pool document kept (none dropped as unreturnable): merge instead of looking up.
                merged = np.concatenate([docs, listed_docs])
                docs, first = np.unique(merged, return_index=True)
                raw = {key: np.concatenate([pool.raw[key], values])[first] for key, values in listed_raw.items()}
        if raw is None:
            docs = np.union1d(docs, fill)
            self.probe(docs)
        return _final(self.tree, self.leaves, docs, self.backend, self.operators, self.normalizer, self.floor, raw)

    def score_range(self) -> tuple[float, float]:
        """Bounds of any document's combined score."""
        lo = {leaf.term.key: self.norm(leaf, [self.floor]) for leaf in self.leaves}
        hi = {leaf.term.key: self.norm(leaf, [max(leaf.hits.max, self.floor)]) for leaf in self.leaves}
        low, high = compose_bounds(self.tree, lo, hi, self.operators)
        return float(low[0]), float(high[0])


# A searcher keeps what a tree needs across searches in a dict it passes as ``plans`` (its
# leaves; given their maxima, its bound query and score range): a repeated query skips
# rebuilding them.  Bounded: starts over when full.
_PLANS_MAX = 4096
_MISSING = object()


def _memo(plans: dict, key: tuple, compute):
    """``compute()``, remembered in ``plans`` under ``key`` (computed afresh when the key is
    unhashable, e.g. a normaliser holding a sigmoid dict)."""
    try:
        value = plans.get(key, _MISSING)
    except TypeError:
        return compute()
    if value is _MISSING:
        value = compute()
        if len(plans) >= _PLANS_MAX:
            plans.clear()
        plans[key] = value
    return value


def _leaf_plan(tree: Node) -> tuple[tuple, frozenset, bool]:
    """``(distinct leaves, keys of the positive ones, whether the tree has a NOT)``."""
    return (tuple(distinct_terms(tree)), frozenset(t.key for t in positive_terms(tree)),
            count_negations(tree) > 0)


def _kth(values: np.ndarray, k: int) -> float:
    """k-th largest positive value (-inf when fewer than k are positive)."""
    pos = values[values > 0]
    if len(pos) < k:
        return -np.inf
    return float(np.partition(pos, len(pos) - k)[len(pos) - k])


def _excluded(upper, theta: float):
    """Documents that can never be in the top k by score: at most 0, or strictly
    below the k-th best lower bound (a tie could still win on docid)."""
    upper = np.asarray(upper)
    return (upper <= 0) | (upper < theta)


def _final(tree, leaves, docs, backend, operators, normalizer, floor, known_raw: dict | None = None) -> Pool:
    """Exact scores of ``docs`` (every leaf value must be known by now; ``known_raw``:
    the raw leaf scores of ``docs`` by leaf key, when the caller has them at hand).

    Keeps the documents that are returnable: they score above 0 or match a
    positive leaf (a raw score above the floor).
    """
    raw = {}
    for leaf in leaves:
        if known_raw is not None:
            values = known_raw[leaf.term.key]
        else:
            mask, values = leaf.known(docs, floor)
            if not mask.all():  # a bug, not an input problem: the result would not be exact
                raise AssertionError(f"leaf {leaf.term} has no exact score for {int((~mask).sum())} documents")
        raw[leaf.term.key] = values
    # (No node trace: only ``explain`` reads one, and it scores through score_pool or score_everything.)
    normalized, combined, matches = _composed(tree, [(leaf.term, leaf.positive, leaf.hits.max) for leaf in leaves],
                                              raw, len(docs), backend, operators, normalizer, floor)
    return _kept(tree, docs, raw, normalized, combined, matches, (combined > 0) | matches)


def _composed(tree, leaves, raw, n, backend, operators, normalizer, floor, trace=None):
    """``(normalized, combined, matches)`` of ``n`` documents whose raw leaf scores are ``raw``
    (by leaf key); ``leaves``: ``(term, positive, leaf maximum)`` each.  ``matches``: a
    positive leaf scores above the floor."""
    normalized = {}
    matches = np.zeros(n, dtype=bool)
    for term, positive, top in leaves:
        values = raw[term.key]
        if positive:
            matches |= values > floor
        normalized[term.key] = normalizer(values, top, 0.0, backend.retriever(term))
    combined = compose(tree, normalized, operators, trace) if n else np.zeros(0)
    return normalized, combined, matches


def _kept(tree, docs, raw, normalized, combined, matches, keep, trace=None) -> Pool:
    """The pool of the documents where ``keep`` holds."""
    if not keep.all():
        docs, combined, matches = docs[keep], combined[keep], matches[keep]
        raw = {key: v[keep] for key, v in raw.items()}
        normalized = {key: v[keep] for key, v in normalized.items()}
        trace = {key: v[keep] for key, v in (trace or {}).items()}
    return Pool(tree, docs, raw, normalized, combined, matches, trace or {})


def exhaustive(tree: Node, backend: LeafBackend, operators: Operators, normalizer,
               stats: TopKStats | None = None) -> Pool:
    """Every document scored on every leaf: the reference :func:`topk` equals.

    Each leaf's list is fetched complete (so every other document scores the
    backend's floor).  Returnable documents are those that score above 0 or
    match a positive leaf (so a document that only has ``a`` still follows the
    ones that have both under ``a AND b``, as in the pooled ranking; one that
    matches nothing is returned only if it scores, e.g. for ``NOT "x"``).
    """
    stats = stats if stats is not None else TopKStats()
    num_docs = int(backend.num_docs)
    floor = float(getattr(backend, "floor", 0.0))
    positive = {t.key for t in positive_terms(tree)}
    leaves = [_Leaf(t, t.key in positive) for t in distinct_terms(tree)]
    for leaf in leaves:
        leaf.fetch(backend, num_docs + 1, num_docs, stats)
        if not leaf.complete:
            raise AssertionError(f"backend returned an incomplete list for {leaf.term} at full depth")
    return _final(tree, leaves, np.arange(num_docs, dtype=np.int64), backend, operators, normalizer, floor)


def score_everything(tree: Node, backend, operators: Operators, normalizer, k: int,
                     extra_docs: np.ndarray | None = None) -> Pool | None:
    """The exact top ``k`` by scoring every document on every leaf in one pass, where the backend
    can (``backend.score_all``: a flat dense index, whose search computes every inner product
    anyway); None where it cannot or the normaliser has no collection-level form (``minmax``).

    Same answer as :func:`exhaustive`: a document is returned when it scores above 0 or has a
    positive leaf above 0; ties go to the lower key.  Only the documents that can be in the top
    ``k`` are kept in the pool, plus ``extra_docs`` (``explain``, which also gets the node trace).
    """
    inner = getattr(normalizer, "normalizer", normalizer)
    score_all = getattr(backend, "score_all", None)
    if score_all is None or not getattr(inner, "has_safe_bounds", False):
        return None
    terms = distinct_terms(tree)
    values = score_all(terms)
    if values is None:
        return None
    positive = {t.key for t in positive_terms(tree)}
    n = values.shape[1]
    raw = {term.key: row for term, row in zip(terms, values)}
    leaves = [(term, term.key in positive, float(row.max()) if n else 0.0) for term, row in zip(terms, values)]
    trace: dict[int, np.ndarray] | None = {} if extra_docs is not None else None
    normalized, combined, matches = _composed(tree, leaves, raw, n, backend, operators, normalizer,
                                              float(getattr(backend, "floor", 0.0)), trace)
    keep = (combined > 0) | matches
    if keep.sum() > k:  # the top k by (score, key) all score at least the k-th best returnable score
        kth = np.partition(combined[keep], -k)[-k]
        keep &= combined >= kth
    if extra_docs is not None:
        keep[np.asarray(extra_docs, dtype=np.int64)] = True
    return _kept(tree, np.arange(n, dtype=np.int64), raw, normalized, combined, matches, keep, trace)

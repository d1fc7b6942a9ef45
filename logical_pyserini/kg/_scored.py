"""The ``scored`` executor: fuzzy sets, with projections completed by relation-path rules."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

import numpy as np
from tqdm import tqdm

from ._executor import Executor, register_executor
from ._graph import KnowledgeGraph, gather_rows
from ._rules import RuleSet, mine_rules

__all__ = ["FEATURES", "ProjectionWeights", "ScoredExecutor", "fit_projection_weights"]

logger = logging.getLogger(__name__)

#: Per-entity evidence of a projection, in the order of :meth:`ScoredExecutor.features`: noisy-or of rule
#: confidences, the best single path rule, how many path rules fire, the co-tail walk, tail-frequency
#: popularity (log) and whether the entity is a tail of the relation at all.
FEATURES = ("rules", "best_rule", "rules_fired", "walk", "popularity", "typed")


@dataclass(frozen=True)
class ProjectionWeights:
    """A logistic model over :data:`FEATURES`: ``P(tail) = sigmoid(coef . features + bias)``."""

    coef: np.ndarray
    bias: float
    info: dict = field(default_factory=dict)


@register_executor
class ScoredExecutor(Executor[np.ndarray]):
    """A fuzzy-set generalisation of ``exact``: each step holds a score in [0, 1] per entity.

    Projection of a fuzzy set ``s`` through relation ``r``: the graph's own ``r``
    edges give 1 (max-product from ``s``); every other entity gets, with
    ``weights`` (``--projection logistic``, the CLI default), the probability of
    a logistic model over :data:`FEATURES` (mined rules ``r <- path``
    propagated max-product, the co-tail walk, tail popularity of ``r``) fitted
    on edges held out of the graph; the certain members of ``s`` and the
    uncertain rest are projected as two groups, the latter scaled by its best
    score.  Without weights (``--projection rules``): a noisy-or of the rule
    confidences, and a small tail-frequency prior orders what no rule reaches.
    Intersection is the product t-norm, union the maximum, negation multiplies
    by ``1 - n`` at the end of its step.  With no rules, no prior and no weights
    it equals ``exact``.

    Parameters
    ----------
    rules : RuleSet, optional
        Mined rules (default: mined from ``graph`` at construction).
    prior : float
        Weight of the tail-frequency prior.
    beam : int
        Entities of a step kept as input to the next projection (highest scores).
    weights : ProjectionWeights, optional
        The logistic projection model (:func:`fit_projection_weights`).
    """

    name = "scored"

    def __init__(self, graph: KnowledgeGraph, rules: RuleSet | None = None, prior: float = 1e-3,
                 beam: int = 1000, progress: bool = True, paths: str = "max", rules_combine: str = "noisy-or",
                 weights: "ProjectionWeights | None" = None):
        super().__init__(graph)
        self.paths, self.rules_combine = paths, rules_combine
        self.rules = rules if rules is not None else mine_rules(graph, progress=progress)
        self.prior_weight = float(prior)
        self.beam = int(beam)
        self.weights = weights
        self._prior: dict[int, np.ndarray] = {}

    @classmethod
    def add_arguments(cls, parser):
        g = parser.add_argument_group("scored executor")
        g.add_argument("--rule-heads", type=int, default=100, help="head entities sampled per relation to "
                       "count rule confidences (default 100)")
        g.add_argument("--rules-per-relation", type=int, default=20, help="rules kept per relation (default 20)")
        g.add_argument("--beam", type=int, default=1000, help="entities of a step propagated by the next "
                       "projection (default 1000)")
        g.add_argument("--prior", type=float, default=1e-3, help="weight of the tail-frequency prior in the "
                       "unweighted (--projection rules) scorer (default 1e-3)")
        g.add_argument("--projection", choices=("logistic", "rules"), default="logistic",
                       help="logistic: rule, walk and tail-frequency features weighted by a logistic model fitted "
                       "on edges held out of the graph (calibrated probabilities); rules: the plain noisy-or of "
                       "rule confidences (default logistic)")
        g.add_argument("--holdout", type=float, default=0.05, help="share of the graph's edges held out to fit "
                       "the logistic projection (default 0.05)")

    @classmethod
    def from_args(cls, graph, args):
        mine = dict(max_heads=args.rule_heads, top=args.rules_per_relation, seed=args.seed, progress=not args.quiet)
        rules = mine_rules(graph, **mine)
        weights = None
        if getattr(args, "projection", "rules") == "logistic":
            try:
                weights = fit_projection_weights(graph, holdout=args.holdout, seed=args.seed, mine=mine,
                                                 progress=not args.quiet)
            except ValueError as exc:  # a graph too small to hold edges out: the plain rule scorer still works
                logger.warning("%s; falling back to --projection rules", exc)
        return cls(graph, rules=rules, prior=args.prior, beam=args.beam, weights=weights)

    # -- pieces -------------------------------------------------------------
    def _support(self, s: np.ndarray) -> np.ndarray:
        idx = np.flatnonzero(s)
        if len(idx) > self.beam:
            idx = idx[np.argpartition(-s[idx], self.beam)[:self.beam]]
        return idx

    def _hop(self, s: np.ndarray, relation: int) -> np.ndarray:
        """Max-product propagation of ``s`` through one relation."""
        mat = self.graph.adjacency(relation)
        idx = self._support(s)
        out = np.zeros(self.graph.num_entities, np.float32)
        if len(idx) == 0:
            return out
        pos, lengths = gather_rows(mat.indptr, idx)
        if len(pos):
            vals = np.repeat(s[idx], lengths)
            if self.paths == "max":
                np.maximum.at(out, mat.indices[pos], vals)
            else:  # noisy-or over the entities a value arrives from: several paths count more than one
                miss = np.bincount(mat.indices[pos], weights=-np.log1p(-np.minimum(vals, 0.999)),
                                   minlength=len(out))
                out = (1.0 - np.exp(-miss)).astype(np.float32)
        return out

    def _walk(self, s: np.ndarray, path: tuple[int, ...]) -> np.ndarray:
        """Degree-normalised random walk of ``s`` along ``path``, scaled so the top entity gets 1."""
        for rel in path:
            mat = self.graph.adjacency(rel)
            idx = self._support(s)
            pos, lengths = gather_rows(mat.indptr, idx)
            if len(pos) == 0:
                return np.zeros(self.graph.num_entities, np.float32)
            vals = np.repeat(s[idx] / np.maximum(lengths, 1), lengths)
            s = np.bincount(mat.indices[pos], weights=vals, minlength=self.graph.num_entities).astype(np.float32)
        top = float(s.max())
        return s / top if top > 0 else s

    def prior(self, relation: int, normalised: bool = True) -> np.ndarray:
        """How often each entity is a tail of ``relation`` (divided by the largest count when ``normalised``)."""
        counts = self._prior.get(relation)
        if counts is None:
            tails = self.graph.relation_pairs(relation)[:, 1]
            counts = self._prior[relation] = np.bincount(tails, minlength=self.graph.num_entities).astype(np.float32)
        if not normalised:
            return counts
        return counts / counts.max() if counts.max() > 0 else counts

    def rule_paths(self, relation: int):
        """The rules used for ``relation`` (for explanations)."""
        return self.rules.get(relation, [])

    def _components(self, s: np.ndarray, relation: int):
        """``(direct, [(rule, vector), ...])``: what each piece of the projection reaches, before combining."""
        direct = self._hop(s, relation)  # the graph's own edges, confidence 1
        first: dict[int, np.ndarray] = {}
        parts = []
        for rule in self.rules.get(relation, []):
            if rule.walk:
                parts.append((rule, self._walk(s, rule.body)))
                continue
            a = rule.body[0]
            if a not in first:
                first[a] = self._hop(s, a)
            parts.append((rule, first[a] if len(rule.body) == 1 else self._hop(first[a], rule.body[1])))
        return direct, parts

    def _combine(self, s: np.ndarray, relation: int, direct: np.ndarray, parts) -> np.ndarray:
        miss = 1.0 - direct
        for rule, v in parts:
            if self.rules_combine == "max":
                miss = np.minimum(miss, 1.0 - rule.confidence * v)
            else:
                miss *= 1.0 - rule.confidence * v
        out = 1.0 - miss
        if self.prior_weight:
            # Below every rule-supported score, so it only orders the rest.
            out += self.prior_weight * self.prior(relation) * (out == 0) * float(s.max())
        return out.astype(np.float32)

    def features(self, s: np.ndarray, relation: int, parts) -> np.ndarray:
        """``(len(FEATURES), num_entities)`` evidence for each entity being a tail (see :data:`FEATURES`)."""
        miss = np.ones(self.graph.num_entities, np.float32)
        best = np.zeros_like(miss)
        fired = np.zeros_like(miss)
        walk = np.zeros_like(miss)
        for rule, v in parts:
            cv = rule.confidence * v
            miss *= 1.0 - cv
            if rule.walk:
                walk = np.maximum(walk, v)
            else:
                best = np.maximum(best, cv)
                fired += v > 0
        counts = self.prior(relation, normalised=False)
        top = float(s.max())
        popularity = np.log1p(counts) / np.log1p(max(float(counts.max()), 1.0)) * top
        return np.stack([1.0 - miss, best, np.log1p(fired) / np.log(2.0 + len(parts)), walk, popularity,
                         (counts > 0) * np.float32(top)])

    def _weighted(self, s: np.ndarray, relation: int, direct: np.ndarray, parts) -> np.ndarray:
        """``max(direct, p)``: p the logistic model's probability, 0 where there is no evidence at all."""
        feats = self.features(s, relation, parts)
        w = self.weights
        p = 1.0 / (1.0 + np.exp(-(w.coef @ feats + w.bias))) * feats.any(axis=0)
        return np.maximum(direct, p).astype(np.float32)

    def project_fuzzy(self, s: np.ndarray, relation: int) -> np.ndarray:
        """Fuzzy projection of ``s`` through ``relation`` (graph edges + rules + prior)."""
        if self.weights is None:
            return self._combine(s, relation, *self._components(s, relation))
        # The model was fitted on crisp heads, and popularity does not depend on the input: project the
        # certain members (score 1) and the uncertain rest as two groups, each divided by its best score
        # and the result multiplied back (a two-beam version of CQD's max over intermediate entities).
        idx = self._support(s)
        out = np.zeros(self.graph.num_entities, np.float32)
        for members in (idx[s[idx] >= 1.0], idx[s[idx] < 1.0]):
            if len(members) == 0:
                continue
            top = float(s[members].max())
            group = np.zeros_like(out)
            group[members] = s[members] / top
            out = np.maximum(out, top * self._weighted(group, relation, *self._components(group, relation)))
        return out

    def explain_projection(self, s: np.ndarray, relation: int, per_entity: int = 2):
        """The projection and, per reached entity, the strongest pieces that support it.

        Returns
        -------
        (scores, support)
            ``support[e]`` lists up to ``per_entity`` strings such as
            ``"edge r5"`` or ``"path r3,r9 (conf 0.41)"``, strongest first.
        """
        direct, parts = self._components(s, relation)
        scores = self.project_fuzzy(s, relation)
        support: dict[int, list[tuple[float, str]]] = {}
        for e in np.flatnonzero(direct):
            support.setdefault(int(e), []).append((float(direct[e]) + 1.0, f"edge r{relation}"))
        for rule, v in parts:
            label = ("co-tail walk " if rule.walk else "path ") + ",".join(f"r{b}" for b in rule.body)
            idx = np.flatnonzero(v)
            for e in idx[np.argsort(-v[idx] * rule.confidence)][:200]:
                support.setdefault(int(e), []).append((float(v[e]) * rule.confidence,
                                                       f"{label} (conf {rule.confidence:.2f})"))
        return scores, {e: [txt for _, txt in sorted(items, key=lambda x: -x[0])[:per_entity]]
                        for e, items in support.items()}

    # -- operators ----------------------------------------------------------
    def project_anchor(self, entity, relation, step, ctx):
        s = np.zeros(self.graph.num_entities, np.float32)
        s[entity] = 1.0
        return self.project_fuzzy(s, relation)

    def project(self, value, relation, step, ctx):
        return self.project_fuzzy(value, relation)

    def intersect(self, values, excluded, step, ctx):
        out = values[0].copy()
        for v in values[1:]:
            out *= v
        for n in excluded:  # negation: subtract the to-be-removed set at the end of the step
            out *= 1.0 - n
        return out

    def union(self, values, step, ctx):
        return np.maximum.reduce(values)

    def scores(self, value):
        return value


def _fit_logistic(x: np.ndarray, y: np.ndarray, weight: np.ndarray, l2: float = 1e-2,
                  iterations: int = 100) -> tuple[np.ndarray, float]:
    """Weighted L2-regularised logistic regression by Newton's method (a handful of features: no solver needed)."""
    xb = np.hstack([x, np.ones((len(x), 1))])
    w = np.zeros(xb.shape[1])
    reg = np.full(xb.shape[1], l2)
    reg[-1] = 0.0  # the bias is not shrunk
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-(xb @ w)))
        grad = xb.T @ (weight * (p - y)) + reg * w
        hess = (xb * (weight * p * (1.0 - p))[:, None]).T @ xb + np.diag(reg + 1e-9)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-7:
            break
    return w[:-1], float(w[-1])


def fit_projection_weights(graph: KnowledgeGraph, *, holdout: float = 0.05, queries: int = 2000,
                           negatives: int = 200, seed: int = 0, mine: dict | None = None,
                           use: tuple[str, ...] = FEATURES, progress: bool = True) -> ProjectionWeights:
    """Fit the logistic projection model on edges held out of ``graph``.

    A random ``holdout`` share of the edges (and their inverse edges, which
    would give them away) is removed, rules are mined again on the rest, and
    for up to ``queries`` held-out ``(head, relation)`` pairs every entity with
    some evidence is a training example: the held-out tails positive, the
    others negative (``negatives`` sampled per query, weighted back up to their
    full count, so the model's probabilities stay calibrated).  Entities with
    no evidence at all are left out: the executor scores them 0 anyway.

    Parameters
    ----------
    mine : dict, optional
        Keyword arguments for :func:`mine_rules` (use the ones the executor's rules were mined with).
    use : tuple of str
        The :data:`FEATURES` the model may weight (the others get weight 0).
    """
    mine = {"progress": progress, **(mine or {})}
    rng = np.random.default_rng(seed)
    triples, inverse = graph.triples, graph.inverse_relations()
    n_ent, n_rel = graph.num_entities, graph.num_relations
    pick = rng.choice(len(triples), max(1, int(holdout * len(triples))), replace=False)
    held = triples[pick]
    has_inv = inverse[held[:, 1]] >= 0
    partners = np.stack([held[has_inv, 2], inverse[held[has_inv, 1]], held[has_inv, 0]], axis=1)

    def key(t):
        return (t[:, 0] * n_rel + t[:, 1]) * n_ent + t[:, 2]

    hidden = np.isin(key(triples), np.concatenate([key(held), key(partners)]))
    reduced = KnowledgeGraph(triples[~hidden], n_ent, n_rel)
    executor = ScoredExecutor(reduced, rules=mine_rules(reduced, **mine), prior=0.0, beam=1 << 30)
    hidden_pairs = triples[hidden]
    hidden_pairs = hidden_pairs[np.argsort(hidden_pairs[:, 0] * n_rel + hidden_pairs[:, 1], kind="stable")]
    groups, first = np.unique(hidden_pairs[:, 0] * n_rel + hidden_pairs[:, 1], return_index=True)
    bounds = np.append(first, len(hidden_pairs))
    chosen = np.arange(len(groups))
    if len(chosen) > queries:
        chosen = np.sort(rng.choice(chosen, queries, replace=False))
    xs, ys, ws = [], [], []
    for g in tqdm(chosen, desc="fit projection", unit="q", disable=not progress):
        head, relation = divmod(int(groups[g]), n_rel)
        s = np.zeros(n_ent, np.float32)
        s[head] = 1.0
        direct, parts = executor._components(s, relation)
        feats = executor.features(s, relation, parts)
        candidate = feats.any(axis=0) & (direct == 0)
        truth = hidden_pairs[bounds[g]:bounds[g + 1], 2]
        pos = truth[candidate[truth]]
        pool = np.setdiff1d(np.flatnonzero(candidate), truth)
        neg = pool if len(pool) <= negatives else rng.choice(pool, negatives, replace=False)
        xs += [feats[:, pos].T, feats[:, neg].T]
        ys += [np.ones(len(pos)), np.zeros(len(neg))]
        ws += [np.ones(len(pos)), np.full(len(neg), len(pool) / max(len(neg), 1))]
    x, y, w = (np.concatenate(a) if a else np.zeros((0, len(FEATURES))) for a in (xs, ys, ws))
    if y.sum() == 0 or y.sum() == len(y):
        raise ValueError("cannot fit the projection model: the held-out edges give no positive and negative examples")
    cols = [FEATURES.index(f) for f in use]
    coef = np.zeros(len(FEATURES))
    coef[cols], bias = _fit_logistic(x[:, cols].astype(np.float64), y, w)
    return ProjectionWeights(coef, bias, {"held_out_edges": int(hidden.sum()), "queries": len(chosen),
                                          "positives": int(y.sum()), "negatives": int(len(y) - y.sum())})

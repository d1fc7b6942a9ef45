"""The ``scored`` executor: fuzzy sets, with projections completed by relation-path rules."""

from __future__ import annotations

import numpy as np

from ._executor import Executor, register_executor
from ._graph import KnowledgeGraph, gather_rows
from ._rules import RuleSet, mine_rules

__all__ = ["ScoredExecutor"]


@register_executor
class ScoredExecutor(Executor[np.ndarray]):
    """A fuzzy-set generalisation of ``exact``: each step holds a score in [0, 1] per entity.

    Projection of a fuzzy set ``s`` through relation ``r`` scores entity ``y`` by a
    noisy-or of the graph's own ``r`` edges (confidence 1) and every mined rule
    ``r <- path`` (its confidence), each propagated max-product along its path;
    a small tail-frequency prior of ``r`` orders what no rule reaches.  Intersection
    is the product t-norm, union the maximum, negation multiplies by ``1 - n``
    at the end of its step.  With no rules and no prior it equals ``exact``.

    Parameters
    ----------
    rules : RuleSet, optional
        Mined rules (default: mined from ``graph`` at construction).
    prior : float
        Weight of the tail-frequency prior.
    beam : int
        Entities of a step kept as input to the next projection (highest scores).
    """

    name = "scored"

    def __init__(self, graph: KnowledgeGraph, rules: RuleSet | None = None, prior: float = 1e-3,
                 beam: int = 1000, progress: bool = True, paths: str = "max", rules_combine: str = "noisy-or"):
        super().__init__(graph)
        self.paths, self.rules_combine = paths, rules_combine
        self.rules = rules if rules is not None else mine_rules(graph, progress=progress)
        self.prior_weight = float(prior)
        self.beam = int(beam)
        self._prior: dict[int, np.ndarray] = {}

    @classmethod
    def add_arguments(cls, parser):
        g = parser.add_argument_group("scored executor")
        g.add_argument("--rule-heads", type=int, default=100, help="head entities sampled per relation to "
                       "count rule confidences (default 100)")
        g.add_argument("--rules-per-relation", type=int, default=20, help="rules kept per relation (default 20)")
        g.add_argument("--beam", type=int, default=1000, help="entities of a step propagated by the next "
                       "projection (default 1000)")
        g.add_argument("--prior", type=float, default=1e-3, help="weight of the tail-frequency prior (default 1e-3)")

    @classmethod
    def from_args(cls, graph, args):
        rules = mine_rules(graph, max_heads=args.rule_heads, top=args.rules_per_relation, seed=args.seed,
                           progress=not args.quiet)
        return cls(graph, rules=rules, prior=args.prior, beam=args.beam)

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

    def prior(self, relation: int) -> np.ndarray:
        p = self._prior.get(relation)
        if p is None:
            tails = self.graph.relation_pairs(relation)[:, 1]
            counts = np.bincount(tails, minlength=self.graph.num_entities).astype(np.float32)
            p = counts / counts.max() if counts.max() > 0 else counts
            self._prior[relation] = p
        return p

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

    def project_fuzzy(self, s: np.ndarray, relation: int) -> np.ndarray:
        """Fuzzy projection of ``s`` through ``relation`` (graph edges + rules + prior)."""
        return self._combine(s, relation, *self._components(s, relation))

    def explain_projection(self, s: np.ndarray, relation: int, per_entity: int = 2):
        """The projection and, per reached entity, the strongest pieces that support it.

        Returns
        -------
        (scores, support)
            ``support[e]`` lists up to ``per_entity`` strings such as
            ``"edge r5"`` or ``"path r3,r9 (conf 0.41)"``, strongest first.
        """
        direct, parts = self._components(s, relation)
        scores = self._combine(s, relation, direct, parts)
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

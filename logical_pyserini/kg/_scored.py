"""The ``scored`` executor: fuzzy sets, with projections completed by relation-path rules."""

from __future__ import annotations

import logging
from pathlib import Path
from dataclasses import dataclass, field

import numpy as np
from tqdm import tqdm

from ._embedding import EmbeddingError, LinkPredictor, default_embedding_path
from ._executor import Executor, ExecutorError, register_executor
from ._graph import KnowledgeGraph, gather_rows, read_triples
from ._rules import RuleSet, mine_rules

__all__ = ["FEATURES", "GRAPH_FEATURES", "ProjectionWeights", "ScoredExecutor", "fit_projection_weights"]

logger = logging.getLogger(__name__)

INTERMEDIATE = ("members", "group")
EXISTS = ("max", "noisy-or")


def _probabilistic_sum(values: list[np.ndarray]) -> np.ndarray:
    """``1 - prod(1 - v)``: the t-conorm dual to the product t-norm under ``1 - x``."""
    miss = np.ones_like(values[0])
    for v in values:
        miss *= 1.0 - v
    return 1.0 - miss


#: Union t-conorms (``--union NAME``): ``probsum`` is De Morgan dual to the product t-norm and the ``1 - x``
#: negation used for intersection and negation (CQD pairs them the same way); ``max`` is Goedel's.
UNIONS = {"probsum": _probabilistic_sum, "max": np.maximum.reduce}

#: Evidence of a projection, in the order of :meth:`ScoredExecutor.features`: noisy-or of rule
#: confidences, the best single path rule, how many path rules fire, the co-tail walk, tail-frequency
#: popularity (log), whether the entity is a tail of the relation at all, the head's breadth (log of how many
#: tails it already has under the relation: the same for every candidate of one head, it ranks nothing within
#: a 1p query but puts heads on one scale: a head with many known tails has more missing ones, which matters
#: wherever candidates of different heads compete: union branches, the members of a chain), and the learned
#: link predictor's log-probability of the tail (:class:`LinkPredictor`; 0 without one).
FEATURES = ("rules", "best_rule", "rules_fired", "walk", "popularity", "typed", "head_tails", "embedding")
#: Features of the head, not of a candidate: they are not evidence that a candidate is a tail at all.
HEAD_FEATURES = ("head_tails",)
_CANDIDATE_ROWS = np.array([i for i, f in enumerate(FEATURES) if f not in HEAD_FEATURES])
#: The features read off the graph alone (the ``logistic`` projection).
GRAPH_FEATURES = FEATURES[:-1]
#: Log-probabilities below this are clipped: the feature stays finite and such tails are all equally unlikely.
MIN_LOG_PROBABILITY = -30.0


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
    edges give 1; every other entity gets, with ``weights`` (``--projection
    logistic``, the CLI default), the probability of a logistic model over
    :data:`FEATURES` (mined rules ``r <- path``, the co-tail walk, tail popularity
    of ``r``, and how many tails the head already has, which puts different heads
    on one probability scale) fitted on edges held out of the graph, i.e. on
    crisp single heads.
    So a fuzzy input is projected member by member (``intermediate="members"``):
    each of the ``members`` best entities ``m`` as a crisp head, its
    probabilities scaled by ``s[m]``, combined per tail by ``exists`` (``max``:
    CQD's max over intermediate entities; ``noisy-or``).  ``intermediate="group"``
    is the earlier projection of the certain members and of the uncertain rest as
    two groups.  Without weights (``--projection rules``): a noisy-or of the rule
    confidences, and a small tail-frequency prior orders what no rule reaches.
    Intersection is the product t-norm, union its dual probabilistic sum
    ``1 - prod(1 - v)`` (``union="max"``: the maximum), negation multiplies
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
    intermediate : {"members", "group"}
        How the logistic projection treats a fuzzy input set (see above).
    members : int
        Entities of a fuzzy input projected one by one (best first, ties by id).
    exists : {"max", "noisy-or"}
        How the members' projections combine per tail.
    irreflexive : bool
        With ``intermediate="members"``: a member is never its own tail under a
        relation that has no self-loop in the graph (the co-tail walk and rules
        like ``r <- r1, r1^-1`` otherwise lead back to the head).
    union : {"probsum", "max"}
        The t-conorm of a union step (:data:`UNIONS`).
    embedding : LinkPredictor, optional
        Learned link prediction (``--projection embedding|fused``): its
        log-probability of each tail is the ``embedding`` feature, so every
        entity, not only those some rule reaches, can score above 0.
    """

    name = "scored"

    def __init__(self, graph: KnowledgeGraph, rules: RuleSet | None = None, prior: float = 1e-3,
                 beam: int = 1000, progress: bool = True, paths: str = "max", rules_combine: str = "noisy-or",
                 weights: "ProjectionWeights | None" = None, intermediate: str = "members", members: int = 256,
                 exists: str = "max", irreflexive: bool = True, embedding: "LinkPredictor | None" = None,
                 union: str = "probsum"):
        super().__init__(graph)
        if intermediate not in INTERMEDIATE or exists not in EXISTS or union not in UNIONS:
            raise ExecutorError(f"intermediate must be one of {INTERMEDIATE}, exists one of {EXISTS}, "
                                f"union one of {tuple(UNIONS)}")
        self.union_name = union
        self.intermediate, self.members, self.exists = intermediate, int(members), exists
        self.irreflexive = irreflexive
        self.paths, self.rules_combine = paths, rules_combine
        self.rules = rules if rules is not None else mine_rules(graph, progress=progress)
        self.prior_weight = float(prior)
        self.beam = int(beam)
        self.weights = weights
        self.embedding = embedding
        if embedding is not None and (weights is None or intermediate != "members"):
            raise ExecutorError("an embedding projection needs fitted weights and --intermediate members")
        self._prior: dict[int, np.ndarray] = {}
        self._norm: dict = {}

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
        g.add_argument("--projection", choices=sorted(PROJECTIONS), default="logistic",
                       help="; ".join(f"{name}: {unit.help}" for name, unit in sorted(PROJECTIONS.items()))
                       + " (default logistic)")
        g.add_argument("--embeddings", help="link-predictor file for --projection embedding|fused (default: "
                       "$LOGICAL_PYSERINI_HOME/kg/<data folder>-complex.npz, made by `python -m "
                       "logical_pyserini.kg train-embeddings --data DATA`)")
        g.add_argument("--intermediate", choices=INTERMEDIATE, default="members",
                       help="how the logistic projection treats a fuzzy input set: members = each of the --members "
                       "best entities projected as a crisp head (what the model was fitted on) and scaled by its "
                       "score; group = certain and uncertain members as two groups (the earlier default) "
                       "(default members)")
        g.add_argument("--members", type=int, default=256, help="entities of a fuzzy input projected one by one "
                       "with --intermediate members, best first (default 256)")
        g.add_argument("--exists", choices=EXISTS, default="max", help="how the members' projections combine "
                       "per tail: max = max_m s_m p_m (CQD's max over intermediate entities); noisy-or = "
                       "1 - prod(1 - s_m p_m), which also counts the evidence of entities shared by every member "
                       "(popularity) once per member (default max)")
        g.add_argument("--union", choices=sorted(UNIONS), default="probsum", help="t-conorm for union: probsum = "
                       "1 - prod(1 - v), the dual of the product t-norm under 1 - x; max = the earlier default "
                       "(default probsum)")
        g.add_argument("--features", nargs="+", choices=FEATURES, metavar="FEATURE",
                       help="the features a fitted projection may weight, for ablations (default: the projection's "
                       "own: logistic " + " ".join(GRAPH_FEATURES) + "; embedding: embedding; fused: all of "
                       + " ".join(FEATURES) + ")")
        g.add_argument("--holdout", type=float, default=0.05, help="share of the graph's edges held out to fit "
                       "the logistic projection (default 0.05)")

    @classmethod
    def from_args(cls, graph, args):
        mine = dict(max_heads=args.rule_heads, top=args.rules_per_relation, seed=args.seed, progress=not args.quiet)
        unit = PROJECTIONS[getattr(args, "projection", "rules")]
        built = unit.build(graph, args, mine)  # before mining: a missing embedding file fails fast
        return cls(graph, rules=mine_rules(graph, **mine), prior=args.prior, beam=args.beam,
                   intermediate=args.intermediate, members=args.members, exists=args.exists, union=args.union,
                   **built)

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

    def features(self, s: np.ndarray, relation: int, parts, direct: np.ndarray | None = None) -> np.ndarray:
        """``(len(FEATURES), num_entities)`` evidence for each entity being a tail (see :data:`FEATURES`);
        ``direct``: the graph's own projection of ``s`` (its nonzero entries are the input's known tails)."""
        counts = self.prior(relation, normalised=False)
        if direct is None:
            direct = self._hop(s, relation)
        emb = None
        if self.embedding is not None:
            heads = np.flatnonzero(s)
            if len(heads) != 1:
                raise ExecutorError("the embedding feature is defined for one crisp head (use --intermediate members)")
            emb = self._log_probabilities(heads, relation)[0]
        return self._feature_stack(parts, len(parts), counts, float(s.max()), float(counts.max()), emb,
                                   np.float32(np.count_nonzero(direct)))

    def _log_probabilities(self, heads: np.ndarray, relation: int) -> np.ndarray:
        """The link predictor's log-probability of every entity as a tail of each head (clipped)."""
        return np.maximum(self.embedding.log_probabilities(heads, relation), MIN_LOG_PROBABILITY)

    @staticmethod
    def _feature_stack(parts, n_parts: int, counts: np.ndarray, top: float, most: float,
                       embedding: np.ndarray | None = None, known: "np.ndarray | float" = 0.0) -> np.ndarray:
        """:data:`FEATURES` from rule reach ``parts`` (``(rule, array)``; arrays of one shape: a vector over
        entities, or a member x entity matrix), tail counts ``counts`` (broadcast over the last axis), the
        link predictor's log-probabilities ``embedding`` (same shape as the parts; zeros when None) and the
        number of tails each head already has, ``known`` (a scalar, or ``(members, 1)``)."""
        miss = best = fired = walk = None
        for rule, v in parts:
            if miss is None:
                miss, best, fired, walk = (np.ones(v.shape, np.float32), np.zeros(v.shape, np.float32),
                                           np.zeros(v.shape, np.float32), np.zeros(v.shape, np.float32))
            cv = rule.confidence * v
            miss *= 1.0 - cv
            if rule.walk:
                np.maximum(walk, v, out=walk)
            else:
                np.maximum(best, cv, out=best)
                fired += v > 0
        if miss is None:  # no rules for this relation
            miss, best, fired, walk = (np.ones(counts.shape, np.float32), *(np.zeros(counts.shape, np.float32),) * 3)
        shape = np.broadcast_shapes(miss.shape, counts.shape, np.shape(known),
                                    () if embedding is None else embedding.shape)
        popularity = np.log1p(counts) / np.log1p(max(most, 1.0)) * top
        typed = (counts > 0) * np.float32(top)
        emb = np.zeros(shape, np.float32) if embedding is None else embedding
        head = np.log1p(np.asarray(known, np.float32))
        return np.stack([np.broadcast_to(x, shape) for x in (1.0 - miss, best, np.log1p(fired) / np.log(2.0 + n_parts),
                                                             walk, popularity, typed, head, emb)])

    @staticmethod
    def _evidence(feats: np.ndarray) -> np.ndarray:
        """Where some candidate feature is nonzero (head features say nothing about a candidate)."""
        return feats[_CANDIDATE_ROWS].any(axis=0)

    def _probability(self, feats: np.ndarray, direct: np.ndarray) -> np.ndarray:
        """``max(direct, p)``: p the logistic model's probability, 0 where there is no evidence at all."""
        w = self.weights
        p = 1.0 / (1.0 + np.exp(-(np.tensordot(w.coef, feats, axes=1) + w.bias))) * self._evidence(feats)
        return np.maximum(direct, p).astype(np.float32)

    def _weighted(self, s: np.ndarray, relation: int, direct: np.ndarray, parts) -> np.ndarray:
        """The logistic projection of a fuzzy set taken as one group (see :meth:`_probability`)."""
        return self._probability(self.features(s, relation, parts, direct), direct)

    # -- member-wise projection (--intermediate members) ----------------------
    def _normalised(self, relation: int):
        """``D^-1 A`` of ``relation``: one step of the degree-normalised walk (cached)."""
        mat = self._norm.get(relation)
        if mat is None:
            adj = self.graph.adjacency(relation)
            deg = np.maximum(np.diff(adj.indptr), 1).astype(np.float32)
            mat = self._norm[relation] = adj.multiply(1.0 / deg[:, None]).tocsr()
        return mat

    def _has_self_loops(self, relation: int) -> bool:
        pairs = self.graph.relation_pairs(relation)
        return bool(np.any(pairs[:, 0] == pairs[:, 1]))

    def _member_parts(self, members: np.ndarray, relation: int):
        """``(direct, [(rule, matrix)])`` of every member projected on its own: sparse ``(k, n)`` rows,
        the same pieces :meth:`_components` gives for one crisp head."""
        direct = self.graph.adjacency(relation)[members]
        first: dict[int, object] = {}
        parts = []
        for rule in self.rules.get(relation, []):
            if rule.walk:
                m = self._normalised(rule.body[0])[members]
                for rel in rule.body[1:]:
                    m = (m @ self._normalised(rel)).tocsr()
                top = m.max(axis=1).toarray().ravel()
                m = m.multiply(1.0 / np.where(top > 0, top, 1.0)[:, None]).tocsr()
            else:
                a = rule.body[0]
                if a not in first:
                    first[a] = self.graph.adjacency(a)[members]
                m = first[a]
                if len(rule.body) > 1:
                    m = (m @ self.graph.adjacency(rule.body[1])).tocsr()
                    m.data[:] = 1.0  # reached or not (max-product from a crisp head), not a path count
            parts.append((rule, m))
        return direct, parts

    def _project_members(self, s: np.ndarray, relation: int) -> np.ndarray:
        """Each of the ``members`` best entities of ``s`` projected as a crisp head (what the model was
        fitted on), scaled by its score, then combined per tail: ``1 - prod(1 - s_m p_m)`` (independent
        existential, ``--exists noisy-or``) or ``max`` (CQD's choice, ``--exists max``)."""
        n = self.graph.num_entities
        idx = np.flatnonzero(s)
        idx = idx[np.lexsort((idx, -s[idx]))][:self.members]  # best first, ties by id: deterministic
        out = np.zeros(n, np.float32)
        if len(idx) == 0:
            return out
        direct, parts = self._member_parts(idx, relation)
        counts = self.prior(relation, normalised=False)
        # Only entities with graph evidence (an edge, a rule, a tail of the relation) have features other than
        # the embedding's: those columns get the full model; without an embedding the rest score 0.
        cols = np.unique(np.concatenate([direct.indices, np.flatnonzero(counts)]
                                        + [m.indices for _, m in parts])).astype(np.int64)
        colpos = np.full(n, -1, np.int64)
        colpos[cols] = np.arange(len(cols))
        w = self.weights
        if self.embedding is not None:  # every entity has evidence: work on all of them
            out_cols, out_pos = np.arange(n), np.arange(n)
            step = max(1, 4_000_000 // n)
        else:
            out_cols, out_pos = cols, colpos
            step = max(1, 2_000_000 // max(len(cols), 1))
        acc = np.zeros(len(out_cols), np.float64)  # sum of log(1 - s_m p_m), or the max of s_m p_m
        sure = np.zeros(len(out_cols), bool)
        for lo in range(0, len(idx), step):
            rows = slice(lo, lo + step)
            k = len(idx[rows])

            def dense(m):
                sub = m[rows]
                d = np.zeros((k, len(cols)), np.float32)
                d[np.repeat(np.arange(k), np.diff(sub.indptr)), colpos[sub.indices]] = sub.data
                return d

            emb = self._log_probabilities(idx[rows], relation) if self.embedding is not None else None
            known = np.diff(direct[rows].indptr).astype(np.float32)[:, None]  # each member's known tails
            feats = self._feature_stack(((rule, dense(m)) for rule, m in parts), len(parts), counts[cols], 1.0,
                                        float(counts.max()), None if emb is None else emb[:, cols], known)
            p = self._probability(feats, dense(direct))
            if emb is not None:
                # no graph evidence: every candidate feature but the embedding is 0
                full = 1.0 / (1.0 + np.exp(-(w.coef[FEATURES.index("embedding")] * emb
                                             + w.coef[FEATURES.index("head_tails")] * np.log1p(known) + w.bias)))
                full[:, cols] = p
                p = full.astype(np.float32)
            sp = s[idx[rows]][:, None] * p
            if self.irreflexive and not self._has_self_loops(relation):
                # a relation the graph never uses from an entity to itself: the member is not its own tail
                own = out_pos[idx[rows]]
                sp[np.flatnonzero(own >= 0), own[own >= 0]] = 0.0
            sure |= (sp >= 1.0).any(axis=0)
            if self.exists == "max":
                np.maximum(acc, sp.max(axis=0), out=acc)
            else:
                acc += np.log1p(-np.minimum(sp, 1.0 - 1e-7)).sum(axis=0)
        out[out_cols] = acc if self.exists == "max" else -np.expm1(acc)
        out[out_cols[sure]] = 1.0
        return out

    def project_fuzzy(self, s: np.ndarray, relation: int) -> np.ndarray:
        """Fuzzy projection of ``s`` through ``relation`` (graph edges + rules + prior)."""
        if self.weights is None:
            return self._combine(s, relation, *self._components(s, relation))
        if self.intermediate == "members":
            return self._project_members(s, relation)
        # --intermediate group: the certain members (score 1) and the uncertain rest projected as two
        # groups, each divided by its best score and the result multiplied back.
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
        return UNIONS[self.union_name](values)

    def scores(self, value):
        return value


# -- projections: how a projection completes the graph's own edges (--projection NAME) -----------------------

PROJECTIONS: dict[str, "Projection"] = {}


def register_projection(cls: type["Projection"]) -> type["Projection"]:
    """Class decorator: make ``cls`` available as ``--projection cls.name``."""
    PROJECTIONS[cls.name] = cls()
    return cls


class Projection:
    """One kind of projection: builds the :class:`ScoredExecutor` keyword arguments it needs."""

    name = ""
    help = ""
    use: tuple[str, ...] = ()

    def build(self, graph: KnowledgeGraph, args, mine: dict) -> dict:
        """``{"weights": ..., "embedding": ...}`` (either may be absent) for ``graph`` from CLI ``args``."""
        return {}

    def features(self, args) -> tuple[str, ...]:
        """The :data:`FEATURES` the fitted model may weight: ``--features`` if given, else the projection's own."""
        chosen = getattr(args, "features", None)
        return tuple(chosen) if chosen else self.use


@register_projection
class _Rules(Projection):
    name = "rules"
    help = "the plain noisy-or of relation-path rule confidences"


@register_projection
class _Logistic(Projection):
    name = "logistic"
    help = ("rule, walk and tail-frequency features weighted by a logistic model fitted on edges held out of the "
            "graph (calibrated probabilities)")
    use = GRAPH_FEATURES

    def build(self, graph, args, mine):
        try:
            return {"weights": fit_projection_weights(graph, holdout=args.holdout, seed=args.seed, mine=mine,
                                                      progress=not args.quiet, use=self.features(args))}
        except ValueError as exc:  # a graph too small to hold edges out: the plain rule scorer still works
            logger.warning("%s; falling back to --projection rules", exc)
            return {}


@register_projection
class _Embedding(Projection):
    name = "embedding"
    help = ("the learned link predictor (ComplEx-N3, --embeddings) alone, its log-probability calibrated by a "
            "logistic fit on the valid edges it was not trained on")
    use = ("embedding",)

    def build(self, graph, args, mine):
        data = Path(args.data)
        path = Path(args.embeddings) if getattr(args, "embeddings", None) else default_embedding_path(data)
        embedding = LinkPredictor.load(path, graph.num_entities, graph.num_relations)
        valid = read_triples(data / "valid.txt")
        try:
            weights = fit_projection_weights(graph, seed=args.seed, mine=mine, progress=not args.quiet,
                                             use=self.features(args), held_out=valid, embedding=embedding)
        except ValueError as exc:  # no valid edges to calibrate on: say so in one line
            raise EmbeddingError(f"{data / 'valid.txt'}: --projection {self.name} is fitted on the valid edges the "
                                 f"embedding was not trained on ({exc})") from None
        return {"weights": weights, "embedding": embedding}


@register_projection
class _Fused(_Embedding):
    name = "fused"
    help = "the logistic model's graph features and the link predictor's log-probability, fitted together"
    use = FEATURES


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
                           use: tuple[str, ...] = GRAPH_FEATURES, progress: bool = True,
                           held_out: np.ndarray | None = None,
                           embedding: LinkPredictor | None = None) -> ProjectionWeights:
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
    held_out : numpy.ndarray, optional
        ``(n, 3)`` triples to hold out instead of a random ``holdout`` share: with an ``embedding``, edges it
        was not trained on (``valid.txt``), or its feature would be judged on edges it has memorised.
    embedding : LinkPredictor, optional
        Supplies the ``embedding`` feature (required when ``use`` names it).
    """
    if "embedding" in use and embedding is None:
        raise ValueError("the embedding feature needs a LinkPredictor")
    mine = {"progress": progress, **(mine or {})}
    rng = np.random.default_rng(seed)
    triples, inverse = graph.triples, graph.inverse_relations()
    n_ent, n_rel = graph.num_entities, graph.num_relations
    if held_out is None:
        held = triples[rng.choice(len(triples), max(1, int(holdout * len(triples))), replace=False)]
    else:
        held = np.asarray(held_out, dtype=np.int64).reshape(-1, 3)
    has_inv = inverse[held[:, 1]] >= 0
    partners = np.stack([held[has_inv, 2], inverse[held[has_inv, 1]], held[has_inv, 0]], axis=1)

    def key(t):
        return (t[:, 0] * n_rel + t[:, 1]) * n_ent + t[:, 2]

    hidden = np.isin(key(triples), np.concatenate([key(held), key(partners)]))
    reduced = KnowledgeGraph(triples[~hidden], n_ent, n_rel)
    # A placeholder model lets the reduced executor compute the embedding feature; it is never used to score.
    placeholder = ProjectionWeights(np.zeros(len(FEATURES)), 0.0) if embedding is not None else None
    executor = ScoredExecutor(reduced, rules=mine_rules(reduced, **mine), prior=0.0, beam=1 << 30,
                              weights=placeholder, embedding=embedding)
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
        feats = executor.features(s, relation, parts, direct)
        candidate = executor._evidence(feats) & (direct == 0)
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
    return ProjectionWeights(coef, bias, {"held_out_edges": int(hidden.sum()), "queries": len(chosen), "use": list(use),
                                          "positives": int(y.sum()), "negatives": int(len(y) - y.sum())})

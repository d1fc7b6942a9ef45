"""The ``llm`` executor (ROG): a language model judges each projection step over retrieved evidence."""

from __future__ import annotations

import re
import time
from bisect import bisect_left
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..prompts import fill, load_prompt
from ._executor import Executor, ExecutorError, get_executor, register_executor
from ._graph import KnowledgeGraph
from ._rules import RuleSet

__all__ = ["LLMExecutor", "LikelihoodRatios", "parse_ids"]

_ID_LINE = re.compile(r"^\W*e(\d+)\W*$")


def parse_ids(text: str) -> tuple[list[int], bool]:
    """Entity ids from a reply constrained to one ``eN`` per line or ``NONE``.

    Returns
    -------
    (ids, well_formed)
        ``ids`` in reply order without repeats; ``well_formed`` is False when a
        line was neither an id nor ``NONE`` (those lines are ignored).
    """
    ids: list[int] = []
    ok = True
    for line in text.strip().splitlines():
        line = line.strip()
        if not line or line.upper() == "NONE":
            continue
        m = _ID_LINE.match(line)
        if m is None:
            ok = False
            continue
        e = int(m.group(1))
        if e not in ids:
            ids.append(e)
    return ids, ok


#: Accepted entities score in [ACCEPTED, 1]; every other entity keeps ACCEPTED x its scored probability.
ACCEPTED = 0.99

@dataclass(frozen=True)
class LikelihoodRatios:
    """How far a judgement moves a shown candidate's odds, per band of its position in the shown list.

    ``accept[i]`` / ``reject[i]`` are the likelihood ratios of "accepted" and of
    "shown, not accepted" for a true answer shown at a position of band ``i``;
    ``bands`` holds the last position of every band but the open-ended last
    one: ``(1, 3)`` means position 1, positions 2-3, positions 4 and on.  Bands
    exist because the model's judgement is not independent of the proposer's
    order: on the calibration samples it tells nothing about the proposer's
    top candidates (accepted as often when wrong as when right) and, pooled,
    a little about the lower ones (unstable from one sample to the next:
    eval/results/kg_llm_calibration.md).

    >>> LikelihoodRatios((1.0, 2.0, 9.0), (1.0, 0.8, 0.6), (1, 3)).at(3)
    (2.0, 0.8)
    """

    accept: tuple[float, ...]
    reject: tuple[float, ...]
    bands: tuple[int, ...] = ()

    def __post_init__(self):
        accept, reject = tuple(map(float, self.accept)), tuple(map(float, self.reject))
        bands = tuple(map(int, self.bands))
        object.__setattr__(self, "accept", accept)
        object.__setattr__(self, "reject", reject)
        object.__setattr__(self, "bands", bands)
        if not (len(accept) == len(reject) == len(bands) + 1):
            raise ExecutorError(f"likelihood ratios: {len(bands)} band bounds need {len(bands) + 1} accept and "
                                f"reject ratios each, got {len(accept)} and {len(reject)}")
        if min(accept + reject) <= 0:
            raise ExecutorError(f"likelihood ratios must be > 0, got accept {accept}, reject {reject}")
        if any(b < 1 for b in self.bands) or list(self.bands) != sorted(set(self.bands)):
            raise ExecutorError(f"band bounds must be increasing positions >= 1, got {self.bands}")

    def band(self, position: int) -> int:
        """Index of the band that holds shown ``position`` (1-based)."""
        return bisect_left(self.bands, position)

    def at(self, position: int) -> tuple[float, float]:
        """(accept, reject) ratios for a candidate shown at ``position`` (1-based)."""
        i = self.band(position)
        return self.accept[i], self.reject[i]


#: ``--judgement odds``: likelihood ratios by shown position, measured on calibration samples (seeds 1 and 2,
#: never the seed-0 evaluation sample): eval/results/kg_llm_calibration.md.
JUDGEMENT_LR = LikelihoodRatios(accept=(0.98, 1.01, 5.15), reject=(1.01, 1.00, 0.84), bands=(1, 3))

#: How a judgement enters the scores (:func:`judged_scores`).
JUDGEMENTS = ("rank", "odds")


def judged_scores(judged: np.ndarray, proposed: np.ndarray, shown: list[int] | None = None,
                  fusion: str = "rank", lr: LikelihoodRatios | tuple[float, float] = (1.0, 1.0)) -> np.ndarray:
    """One projection's scores from the model's vote shares and the proposer's probabilities.

    ``fusion="rank"`` (the issue's rule): accepted entities (vote share > 0)
    come first, ordered by vote share, then by ``proposed``; the rest keep
    their ``proposed`` order.  All values stay in [0, 1] on the proposer's
    probability scale: the earlier ``judged + 1e-3 * proposed`` put every
    entity the model did not accept near 0, so a negated branch ``x * (1 -
    n)`` removed only the accepted ones (2in 9.7 against scored's 16.2 on the
    same queries) and an intersection multiplied scales that differ by 1000.

    ``fusion="odds"``: the judgement is evidence, not a verdict.  Each shown
    candidate's odds ``p / (1 - p)`` are multiplied by ``a ** v * r ** (1 -
    v)`` (``v`` its vote share; ``(a, r)`` = ``lr.at(position)``, the
    likelihood ratios of "accepted" and "shown, not accepted" for a true
    answer at its position in ``shown``, measured on a calibration sample; a
    plain pair applies to every position); entities that were not shown keep
    ``proposed``.  A weak model then moves a candidate only as far as its
    measured reliability allows, instead of over the proposer's confident top
    answer.

    >>> [round(float(x), 4) for x in judged_scores(np.array([0.0, 1.0, 0.0]), np.array([0.9, 0.2, 0.5]))]
    [0.891, 0.9992, 0.495]
    >>> [round(float(x), 3) for x in judged_scores(np.array([0.0, 1.0, 0.0]), np.array([0.9, 0.2, 0.5]),
    ...                                            shown=[0, 1], fusion="odds", lr=(4.0, 0.5))]
    [0.818, 0.5, 0.5]
    """
    p = np.clip(proposed, 0.0, 1.0).astype(np.float32)
    if fusion == "odds":
        out = p.copy()
        if shown:
            ratios = lr if isinstance(lr, LikelihoodRatios) else LikelihoodRatios((lr[0],), (lr[1],))
            idx = np.asarray(shown, dtype=np.int64)
            acc, rej = np.array([ratios.at(i) for i in range(1, len(shown) + 1)], np.float64).T
            q = np.clip(p[idx].astype(np.float64), 1e-6, 1 - 1e-6)
            v = judged[idx].astype(np.float64)
            logit = np.log(q / (1 - q)) + v * np.log(acc) + (1 - v) * np.log(rej)
            out[idx] = (1.0 / (1.0 + np.exp(-logit))).astype(np.float32)
        return out
    if fusion not in JUDGEMENTS:
        raise ExecutorError(f"unknown judgement fusion {fusion!r} ({', '.join(JUDGEMENTS)})")
    span = 1.0 - ACCEPTED
    accepted = ACCEPTED + span * (0.9 * judged + 0.1 * p)
    return np.where(judged > 0, accepted, ACCEPTED * p).astype(np.float32)


@register_executor
class LLMExecutor(Executor[np.ndarray]):
    """ROG: one prompt per projection, over abstract ids, with capped query-aware evidence.

    Each projection step shows the model the operator, the cached input set by
    placeholder (``#1``), the serialised capped neighbourhood (edges of the
    step's relation and of its rules' relations first) and the top
    ``candidates`` proposed by the ``scored`` executor with the rule paths that
    support them.  The reply must be one id per line or ``NONE``; ids that are
    neither candidates nor evidence facts of the step (a tail of its relation
    from a member of its input) are rejected (counted in
    ``info["unsupported"]``).  With ``samples`` > 1 the candidate list is
    rotated per sample and accepted ids are majority-voted.

    Ordering (:func:`judged_scores`), ``judgement="odds"`` (default): each
    shown candidate's ``scored`` odds times the likelihood ratio of its
    judgement at its shown position (``lr``, measured on calibration
    samples).  ``judgement="rank"`` (the issue's rule): accepted entities rank
    first, by vote share and then by their ``scored`` score; everything else
    keeps its ``scored`` score (times 0.99), so the vector stays on the
    probability scale that the set steps and the next projection read.
    Intersection (product), union (max) and negation (``x * (1 - n)``, at the
    end of the step) act on the cached score vectors without a prompt: on
    explicit sets they are exact, a model could only add errors.

    Parameters
    ----------
    model : LanguageModel or str
        A :mod:`logical_pyserini.models` model or spec (``embedded``).
    proposer : Executor, optional
        Proposes candidates (default: a ``scored`` executor on ``graph``).
    candidates : int
        Candidates shown per projection.
    hops, max_triples, per_entity : int
        Neighbourhood radius, triple cap, edges kept per entity.
    expand : bool
        Also retrieve evidence around the candidates (newly produced entities).
    samples : int
        Prompts per step for the majority vote.
    judgement, lr : str, LikelihoodRatios or (float, float)
        How a judgement enters the score (``rank`` or ``odds``) and, for
        ``odds``, the likelihood ratios of "accepted" / "shown, not accepted"
        (per band of shown positions; a pair applies to all positions).
    """

    name = "llm"

    def __init__(self, graph: KnowledgeGraph, model: Any = "embedded", proposer: Executor | None = None,
                 rules: RuleSet | None = None, candidates: int = 8, hops: int = 1, max_triples: int = 40,
                 per_entity: int = 8, expand: bool = True, samples: int = 1, max_new_tokens: int = 48,
                 show_inputs: int = 8, judgement: str = "odds",
                 lr: LikelihoodRatios | tuple[float, float] = JUDGEMENT_LR):
        super().__init__(graph)
        if isinstance(model, str):
            from ..models import get_model

            model = get_model(model)
        self.model = model
        self.proposer = proposer if proposer is not None else get_executor("scored")(graph, rules=rules)
        if not hasattr(self.proposer, "explain_projection"):
            raise ExecutorError("the llm executor's proposer must be able to explain projections (scored)")
        self.candidates, self.hops, self.max_triples = int(candidates), int(hops), int(max_triples)
        self.per_entity, self.expand, self.samples = int(per_entity), bool(expand), max(1, int(samples))
        self.max_new_tokens, self.show_inputs = int(max_new_tokens), int(show_inputs)
        if judgement not in JUDGEMENTS:
            raise ExecutorError(f"unknown --judgement {judgement!r} ({', '.join(JUDGEMENTS)})")
        self.judgement = judgement
        self.lr = lr if isinstance(lr, LikelihoodRatios) else LikelihoodRatios((lr[0],), (lr[1],))
        self.prompt = load_prompt("kg")

    @classmethod
    def add_arguments(cls, parser):
        from ..models import add_model_arguments

        add_model_arguments(parser)
        g = parser.add_argument_group("llm executor (ROG)")
        g.add_argument("--candidates", type=int, default=8, help="candidates from 'scored' judged per projection")
        g.add_argument("--hops", type=int, default=1, help="neighbourhood radius around the step's entities")
        g.add_argument("--max-triples", type=int, default=40, help="evidence triples per prompt at most")
        g.add_argument("--per-entity", type=int, default=8, help="evidence edges kept per entity (long adjacency "
                       "lists are truncated, the step's relations first)")
        g.add_argument("--no-expand", action="store_true", help="no evidence around the candidates themselves")
        g.add_argument("--samples", type=int, default=1, help="prompts per step, majority vote (rotated candidates)")
        g.add_argument("--judgement", choices=JUDGEMENTS, default="odds",
                       help="odds: the judgement multiplies each shown candidate's scored odds by a likelihood ratio "
                       "(--accept-lr / --reject-lr); rank: accepted candidates first, scored order as tie-break")
        g.add_argument("--accept-lr", type=float, nargs="+", default=list(JUDGEMENT_LR.accept), metavar="LR",
                       help="odds: likelihood ratio of 'accepted' for a true answer, one per band of shown positions "
                       "(--lr-bands; one value = every position); measured by eval/kg_bench.py calibrate")
        g.add_argument("--reject-lr", type=float, nargs="+", default=list(JUDGEMENT_LR.reject), metavar="LR",
                       help="odds: likelihood ratio of 'shown, not accepted' for a true answer, one per band")
        g.add_argument("--lr-bands", type=int, nargs="*", default=list(JUDGEMENT_LR.bands), metavar="POS",
                       help="odds: last shown position of each band but the last (1 3: position 1, 2-3, 4 on); "
                       "give none (--lr-bands) with one ratio each for a single band")

    @classmethod
    def from_args(cls, graph, args):
        from ..models import model_from_args

        proposer = get_executor("scored").from_args(graph, args)
        return cls(graph, model=model_from_args(args), proposer=proposer, candidates=args.candidates,
                   hops=args.hops, max_triples=args.max_triples, per_entity=args.per_entity,
                   expand=not args.no_expand, samples=args.samples, judgement=args.judgement,
                   lr=LikelihoodRatios(tuple(args.accept_lr), tuple(args.reject_lr), tuple(args.lr_bands)))

    # -- prompt pieces --------------------------------------------------------
    def _evidence(self, seeds: list[int], relations: list[int]) -> list[tuple[int, int, int]]:
        return self.graph.neighbourhood(seeds, relations, hops=self.hops, max_triples=self.max_triples,
                                        per_entity=self.per_entity)

    @staticmethod
    def _top(v: np.ndarray, k: int) -> list[int]:
        idx = np.flatnonzero(v > 0)
        return [int(i) for i in idx[np.argsort(-v[idx], kind="stable")][:k]]

    def build_prompts(self, source: str, members: list[int], relation: int, cands: list[int],
                      support: dict[int, list[str]], evidence: list[tuple[int, int, int]]) -> list[str]:
        """The step's prompt, once per sample (candidate order rotated for the vote)."""
        p = self.prompt
        ev = "\n".join(f"e{h} r{r} e{t}" for h, r, t in evidence) or p["no_evidence"]
        inputs = "" if not members else fill(p["inputs"], source=source,
                                              members=", ".join(f"e{e}" for e in members))
        out = []
        for s in range(self.samples):
            shift = (s * max(1, len(cands) // self.samples)) % max(1, len(cands))
            order = cands[shift:] + cands[:shift]
            lines = "\n".join(f"e{c}: " + ("; ".join(support.get(c, [])) or "no rule path") for c in order)
            out.append(fill(p["project"], source=source, relation=f"r{relation}", inputs=inputs, evidence=ev,
                            candidates=lines or p["no_evidence"]))
        return out

    # -- operators ----------------------------------------------------------
    def _project(self, s: np.ndarray, relation: int, source: str, ctx: dict) -> np.ndarray:
        info = ctx["info"]
        proposed, support = self.proposer.explain_projection(s, relation)
        cands = self._top(proposed, self.candidates)
        members = self._top(s, self.show_inputs) if not source.startswith("e") else []
        seeds = [int(source[1:])] if source.startswith("e") else members
        rule_rels = {b for rule in self.proposer.rule_paths(relation) for b in rule.body}
        evidence = self._evidence(seeds + (cands if self.expand else []), [relation, *sorted(rule_rels)])
        prompts = self.build_prompts(source, members, relation, cands,
                                     {c: support.get(c, []) for c in cands}, evidence)
        t = time.perf_counter()
        before = dict(self.model.usage)
        try:
            replies = self.model.generate(prompts, self.max_new_tokens, version=self.prompt["version"],
                                          system=self.prompt["system"])
        except Exception as exc:  # a model failure falls back to the proposer's order for this step
            info["fallbacks"] = info.get("fallbacks", 0) + 1
            info.setdefault("errors", []).append(f"{type(exc).__name__}: {exc}"[:200])
            replies = []
        info["seconds_llm"] = info.get("seconds_llm", 0.0) + time.perf_counter() - t
        info["prompts"] = info.get("prompts", 0) + len(prompts)
        for k in ("prompt_tokens", "generated_tokens", "cache_hits"):
            info[k] = info.get(k, 0) + self.model.usage.get(k, 0) - before.get(k, 0)
        # An id is accepted only as a shown candidate or as an evidence fact of this very step: a tail of
        # the step's relation from a member of its input. Any tail in the evidence was accepted before,
        # and the 1.5B model answered with the step's own source entity in 60 of 127 steps (an echo that
        # some other edge made "supported"), which then ranked first.
        allowed = set(cands) | {t for h, r, t in evidence if r == relation and s[h] > 0}
        votes = np.zeros(self.graph.num_entities, np.float32)
        for reply in replies:
            ids, ok = parse_ids(reply.text)
            info["malformed"] = info.get("malformed", 0) + (not ok)
            bad = [e for e in ids if e not in allowed or e >= self.graph.num_entities]
            info["unsupported"] = info.get("unsupported", 0) + len(bad)
            for e in ids:
                if e not in bad:
                    votes[e] += 1.0
        info.setdefault("transcript", []).append({"relation": relation, "source": source, "candidates": cands,
                                                 "replies": [r.text for r in replies]})
        judged = votes / max(1, len(prompts))
        if self.samples > 1:  # majority vote: below half the samples counts as rejected
            judged = np.where(judged > 0.5, judged, 0.0).astype(np.float32)
        return judged_scores(judged, proposed, cands, self.judgement, self.lr)

    def project_anchor(self, entity, relation, step, ctx):
        s = np.zeros(self.graph.num_entities, np.float32)
        s[entity] = 1.0
        return self._project(s, relation, f"e{entity}", ctx)

    def project(self, value, relation, step, ctx):
        source = f"#{step.inputs[0]}"
        return self._project(value, relation, source, ctx)

    def intersect(self, values, excluded, step, ctx):
        return self.proposer.intersect(values, excluded, step, ctx)

    def union(self, values, step, ctx):
        return self.proposer.union(values, step, ctx)

    def scores(self, value):
        return value

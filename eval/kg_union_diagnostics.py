"""Why the scored executor's unions and chains lag behind 1p: measurements on one query sample (NELL995).

Prints Markdown sections (all under the standard protocol: graph = train+valid, hard answers scored,
every easy answer filtered):

* ``2u``: each hard answer's rank in the union against its rank in the branch that reaches it in the full
  graph, scored alone with the same filter; the union under ``max`` and under the probabilistic sum.
* breadth: MRR of 1p queries and of 2u branches (as 1p queries) by how many tails the head already has.
* calibration: per branch, the expected number of missing tails (sum of the projection's probabilities)
  against the actual number, by breadth; with and without the head-breadth feature.
* ``2p``: hard answers by which hop is missing; whether the predicted intermediate that a hop-1-missing
  answer needs is among the ``--members`` best; the rank a hop-2-missing answer would get from its own
  observed intermediate alone.

Example::

    python eval/kg_union_diagnostics.py --data /work/shared/data/nell-betae --per-type 200 --seed 0
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict

import numpy as np

import _common as C  # noqa: F401 - puts the checkout on sys.path

from logical_pyserini.kg import (
    ReferenceGraph, ScoredExecutor, compile_query, filtered_ranks, load_dataset, load_queries, reference_answers,
    select_queries,
)
from logical_pyserini.kg.__main__ import build_parser

BUCKETS = ((0, 2), (2, 5), (5, 20), (20, 60), (60, 150), (150, 10**9))
OLD_FEATURES = ("rules", "best_rule", "rules_fired", "walk", "popularity", "typed")


def _bucket(k: int) -> int:
    return next(i for i, (lo, hi) in enumerate(BUCKETS) if lo <= k < hi)


def _label(i: int) -> str:
    lo, hi = BUCKETS[i]
    return f"{lo}+" if hi > 10**8 else f"{lo}-{hi - 1}"


def _mean(x) -> str:
    return f"{100 * np.mean(x):.1f}" if len(x) else ""


class Lab:
    """The dataset, the reference graphs and a scored executor built as the CLI builds it."""

    def __init__(self, data: str, seed: int, extra: list[str]):
        self.ds = load_dataset(data)
        self.full, self.obs = ReferenceGraph(self.ds.full), ReferenceGraph(self.ds.observed)
        args = build_parser().parse_args(["--data", data, "--executor", "scored", "--output", "-", "--quiet",
                                          "--seed", str(seed), *extra])
        self.ex = ScoredExecutor.from_args(self.ds.graph("train+valid"), args)
        self.queries = load_queries(next(p for p in (self.ds.root / "test-queries.pkl",
                                                     self.ds.root / "test-queries.pkl.ori") if p.exists()))

    def answers(self, qtype: str, query) -> tuple[set, set, list]:
        """(all answers, easy answers, sorted hard answers)."""
        a, e = reference_answers(self.full, qtype, query), reference_answers(self.obs, qtype, query)
        return a, e, sorted(a - e)

    def project(self, entity: int, relation: int) -> np.ndarray:
        return self.ex.execute(compile_query("1p", (entity, (relation,)))).scores


def union_section(lab: Lab, picks) -> list[str]:
    per_query = defaultdict(list)
    for _, _, q in picks:
        answers, easy, hard = lab.answers("2u", q)
        filt = answers | easy
        (ea, (ra,)), (eb, (rb,)), _ = q
        sa, sb = lab.project(ea, ra), lab.project(eb, rb)
        fa = lab.full.step({ea}, ra)
        own = [sa if h in fa and (h not in lab.full.step({eb}, rb) or sa[h] >= sb[h]) else sb for h in hard]
        branch = np.array([filtered_ranks(s, [h], filt)[0] for s, h in zip(own, hard)])
        for name, scores in (("union, max", np.maximum(sa, sb)), ("union, probabilistic sum", 1 - (1 - sa) * (1 - sb))):
            per_query[name].append(np.mean(1 / filtered_ranks(scores, hard, filt)))
        per_query["its branch alone, same filter"].append(np.mean(1 / branch))
    return ["### 2u: the union against its branches", "", *C.md_table(
        ["ranking of the hard answers", "MRR"], [[k, _mean(v)] for k, v in per_query.items()]), ""]


def breadth_section(lab: Lab, picks_1p, picks_2u) -> list[str]:
    one, branch = defaultdict(list), defaultdict(list)
    expected, actual = defaultdict(list), defaultdict(list)
    for _, _, q in picks_1p:
        answers, easy, hard = lab.answers("1p", q)
        e, (r,) = q
        s = lab.project(e, r)
        one[_bucket(len(easy))].append(np.mean(1 / filtered_ranks(s, hard, answers | easy)))
    for _, _, q in picks_2u:
        _, _, hard = lab.answers("2u", q)
        for e, (r,) in q[:2]:
            full, obs = lab.full.step({e}, r), lab.obs.step({e}, r)
            s = lab.project(e, r)
            b = _bucket(len(obs))
            expected[b].append(float(s[s < 1].sum()))
            actual[b].append(len(full - obs))
            mine = sorted((full - obs) & set(hard))
            if mine:
                branch[b].append(np.mean(1 / filtered_ranks(s, mine, full | obs)))
    rows = [[_label(i), len(one[i]), _mean(one[i]), len(branch[i]), _mean(branch[i]),
             f"{np.mean(expected[i]):.2f}" if expected[i] else "", f"{np.mean(actual[i]):.2f}" if actual[i] else ""]
            for i in range(len(BUCKETS))]
    rows.append(["all", sum(map(len, one.values())), _mean(sum(one.values(), [])),
                 sum(map(len, branch.values())), _mean(sum(branch.values(), [])), "", ""])
    return ["### Breadth: 1p queries and 2u branches by the head's known tails", "", *C.md_table(
        ["known tails", "1p queries", "1p MRR", "2u branches", "branch MRR (as 1p)", "expected missing (sum p)",
         "actual missing"], rows), ""]


def chain_section(lab: Lab, picks) -> list[str]:
    kinds, needed = defaultdict(list), defaultdict(int)
    actual, own_member = [], []
    for _, _, q in picks:
        answers, easy, hard = lab.answers("2p", q)
        filt = answers | easy
        e, (r1, r2) = q
        scores = lab.ex.execute(compile_query("2p", q)).scores
        mid_obs, mid_full = lab.obs.step({e}, r1), lab.full.step({e}, r1)
        s1 = lab.project(e, r1)
        top = np.flatnonzero(s1)
        top = set(top[np.lexsort((top, -s1[top]))][:lab.ex.members].tolist())
        ranks = filtered_ranks(scores, hard, filt)
        cache: dict[int, np.ndarray] = {}
        a, b = [], []
        for h, rank in zip(hard, ranks):
            via_obs = [m for m in mid_obs if h in lab.full.step({m}, r2)]  # missing 2nd edge
            via_new = [m for m in mid_full - mid_obs if h in lab.obs.step({m}, r2)]  # missing 1st edge
            kind = ("both routes" if via_obs and via_new else "hop 2 missing" if via_obs
                    else "hop 1 missing" if via_new else "both hops missing")
            kinds[kind].append(1 / rank)
            if kind == "hop 1 missing":
                needed["in the members" if any(m in top for m in via_new) else
                       "score 0" if all(s1[m] == 0 for m in via_new) else "cut by the cap"] += 1
            if via_obs:
                best = min(filtered_ranks(cache.setdefault(m, lab.project(m, r2)), [h], filt)[0] for m in via_obs)
                a.append(1 / rank)
                b.append(1 / best)
        if a:
            actual.append(np.mean(a))
            own_member.append(np.mean(b))
    return ["### 2p: which hop is missing", "", *C.md_table(
        ["hard answers", "count", "mean reciprocal rank"], [[k, len(v), f"{np.mean(v):.3f}"] for k, v in kinds.items()]),
        "", f"Hop-1-missing answers, their predicted intermediate: {dict(needed)} (cap --members {lab.ex.members}).",
        "", f"Queries with hop-2-missing answers: {len(actual)}; MRR of those answers {_mean(actual)} in the query, "
        f"{_mean(own_member)} if each were ranked by its own observed intermediate's projection alone.", ""]


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", required=True)
    p.add_argument("--per-type", type=int, default=200)
    p.add_argument("--per-type-1p", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    ns = p.parse_args(argv)
    print(f"# Scored executor diagnostics (`python eval/kg_union_diagnostics.py {' '.join(sys.argv[1:])}`)\n")
    for title, extra in (("earlier model (six graph features)", ["--features", *OLD_FEATURES]),
                         ("with the head-breadth feature (default)", [])):
        lab = Lab(ns.data, ns.seed, extra)
        picks = {t: select_queries(lab.queries, [t], ns.per_type if t != "1p" else ns.per_type_1p, ns.seed)
                 for t in ("1p", "2u", "2p")}
        print(f"## {title}\n")
        print("\n".join(union_section(lab, picks["2u"]) + breadth_section(lab, picks["1p"], picks["2u"])
                        + chain_section(lab, picks["2p"])))


if __name__ == "__main__":
    main()

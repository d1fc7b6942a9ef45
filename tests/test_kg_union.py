"""Union, breadth calibration and the negation filter of the scored executor's standard protocol."""

from __future__ import annotations

import json
import pickle

import numpy as np
import pytest

pytest.importorskip("scipy")

from logical_pyserini.kg import (  # noqa: E402
    FEATURES, GRAPH_FEATURES, QUERY_STRUCTURES, EvalConfig, Execution, Executor, KnowledgeGraph, ProjectionWeights,
    ScoredExecutor, compile_query, evaluate, filtered_ranks, fit_projection_weights, mine_rules,
)
from logical_pyserini.kg.__main__ import build_parser  # noqa: E402
from logical_pyserini.kg._scored import PROJECTIONS  # noqa: E402

PEOPLE, ITEMS = 300, 60  # items 300..359 are liked (r0); clubs 360..419 are joined (r1)
ITEM0, CLUB0 = PEOPLE, PEOPLE + ITEMS
N = PEOPLE + 2 * ITEMS


def breadth_graph(seed: int = 0):
    """Person p likes k_p items (k from 1 to 40) and joins one club, both drawn by a Zipf-like popularity.

    Every tie is hidden with probability 0.15 (returned as ``(person, relation, tail)``): a person
    with many likes has many missing ones, a person's single club is rarely missing.  No inverse
    relations, so no path rules: the evidence is popularity and the head's breadth alone.
    """
    rng = np.random.default_rng(seed)
    pop = 1.0 / np.arange(1, ITEMS + 1) ** 0.7
    pop /= pop.sum()
    kept, hidden = [], []
    for p in range(PEOPLE):
        k = int(rng.integers(1, 41))
        ties = [(p, 0, ITEM0 + int(i)) for i in rng.choice(ITEMS, k, replace=False, p=pop)]
        ties.append((p, 1, CLUB0 + int(rng.choice(ITEMS, p=pop))))
        for t in ties:
            (hidden if rng.random() < 0.15 else kept).append(t)
    return KnowledgeGraph(np.array(kept), N, 2), hidden


@pytest.fixture(scope="module")
def fitted():
    graph, hidden = breadth_graph()
    rules = mine_rules(graph, progress=False)
    with_head = fit_projection_weights(graph, holdout=0.2, queries=400, negatives=60, seed=0, progress=False)
    flat = fit_projection_weights(graph, holdout=0.2, queries=400, negatives=60, seed=0, progress=False,
                                  use=tuple(f for f in GRAPH_FEATURES if f != "head_tails"))
    return graph, hidden, rules, with_head, flat


def test_the_model_learns_that_broad_heads_have_more_missing_tails(fitted):
    graph, _, _, with_head, flat = fitted
    head = FEATURES.index("head_tails")
    assert with_head.coef[head] > 0.3
    assert flat.coef[head] == 0.0 and "head_tails" not in flat.info["use"]


def test_head_breadth_does_not_reorder_one_head_and_gives_no_evidence(fitted):
    graph, _, rules, with_head, _ = fitted
    head = FEATURES.index("head_tails")
    zeroed = ProjectionWeights(np.where(np.arange(len(FEATURES)) == head, 0.0, with_head.coef), with_head.bias)
    a = ScoredExecutor(graph, rules=rules, weights=with_head)
    b = ScoredExecutor(graph, rules=rules, weights=zeroed)
    broad = max(range(PEOPLE), key=lambda p: len(graph.project([p], 0)))
    sa, sb = (x.execute(compile_query("1p", (broad, (0,)))).scores for x in (a, b))
    cand = np.flatnonzero((sa > 0) & (sa < 1))
    assert len(cand) > 10 and np.all(sa[cand] > sb[cand])  # a broad head: every candidate more likely ...
    assert np.array_equal(np.argsort(-sa[cand], kind="stable"), np.argsort(-sb[cand], kind="stable"))  # same order
    # a head's many known tails are no evidence for entities that are never tails of the relation (people)
    assert sa[:PEOPLE].max() == 0.0


def _union_vs_branch_ranks(graph, hidden, rules, weights):
    """For 2u queries (broad person, likes) | (narrow person, joins): each hidden like's rank in the union
    and in the broad branch alone, with the same filter (all answers of the union)."""
    ex = ScoredExecutor(graph, rules=rules, weights=weights)
    likes = {}
    for p, r, t in hidden:
        if r == 0:
            likes.setdefault(p, []).append(t)
    broad = sorted((p for p in likes if len(graph.project([p], 0)) >= 25), key=lambda p: -len(likes[p]))[:8]
    narrow = [p for p in range(PEOPLE) if len(graph.project([p], 0)) <= 3][:8]
    gaps = []
    for b, n in zip(broad, narrow):
        union = ex.execute(compile_query("2u", ((b, (0,)), (n, (1,)), (-1,)))).scores
        branch = ex.execute(compile_query("1p", (b, (0,)))).scores
        answers = set(graph.project([b], 0)) | set(likes[b]) | set(graph.project([n], 1))
        answers |= {t for p, r, t in hidden if p == n and r == 1}
        gaps += list(filtered_ranks(union, likes[b], answers) - filtered_ranks(branch, likes[b], answers))
    return np.array(gaps)


def test_a_union_ranks_the_broad_branch_candidate_where_its_1p_rank_says(fitted):
    graph, hidden, rules, with_head, flat = fitted
    calibrated = _union_vs_branch_ranks(graph, hidden, rules, with_head)
    uncalibrated = _union_vs_branch_ranks(graph, hidden, rules, flat)
    assert len(calibrated) >= 20
    # the narrow branch's clubs, as popular as the broad branch's items, interleave with them unless the
    # model knows that one club per person is rarely missing while a person with 30 likes misses several
    assert calibrated.mean() <= 0.5
    assert uncalibrated.mean() > calibrated.mean() + 1.5


def test_union_is_the_probabilistic_sum_by_default_and_max_on_request(fitted):
    graph, _, rules, with_head, _ = fitted
    by_default = ScoredExecutor(graph, rules=rules, weights=with_head)
    by_max = ScoredExecutor(graph, rules=rules, weights=with_head, union="max")
    a, b = 5, 6
    plan = compile_query("2u", ((a, (0,)), (b, (0,)), (-1,)))
    sa, sb = (by_default.execute(compile_query("1p", (e, (0,)))).scores for e in (a, b))
    np.testing.assert_allclose(by_default.execute(plan).scores, 1 - (1 - sa) * (1 - sb), rtol=1e-6)
    np.testing.assert_allclose(by_max.execute(plan).scores, np.maximum(sa, sb))
    # a tail supported by both branches ranks above one with the same best score from one branch only
    both = np.flatnonzero((sa > 0) & (sa < 1) & (sb > 0) & (sb < 1))
    assert len(both) and np.all(by_default.execute(plan).scores[both] > np.maximum(sa, sb)[both])
    # known tails stay certain
    known = graph.project([a], 0)
    assert np.all(by_default.execute(plan).scores[known] == 1.0)


def test_cli_features_flag_chooses_what_the_model_weights():
    args = build_parser().parse_args(["--data", "d", "--output", "o", "--executor", "scored",
                                      "--features", "rules", "popularity"])
    assert PROJECTIONS["logistic"].features(args) == ("rules", "popularity")
    assert PROJECTIONS["logistic"].features(build_parser().parse_args(["--data", "d", "--output", "o"])) \
        == GRAPH_FEATURES
    assert build_parser().parse_args(["--data", "d", "--output", "o"]).union == "probsum"


class _FixedScores(Executor):
    """Scores every query with one fixed vector: what the ranking protocol does with it is under test."""

    name = "fixed-scores-test"

    def __init__(self, graph, scores):
        super().__init__(graph)
        self.fixed = np.asarray(scores, np.float32)

    def execute(self, plan):
        return Execution(self.fixed.copy())


def test_standard_protocol_filters_observed_answers_that_a_test_edge_negates(tmp_path):
    """2in: a likes x and h (h only in test.txt); b dislikes z, and x only in test.txt.  On train+valid x is
    an answer (easy); on the full graph only h is.  BetaE filters every easy answer, so h ranks first."""
    a, b, x, h, z = 0, 1, 2, 3, 4
    root = tmp_path / "nell"
    root.mkdir()
    (root / "train.txt").write_text(f"{a}\t0\t{x}\n{b}\t1\t{z}\n")
    (root / "valid.txt").write_text("")
    (root / "test.txt").write_text(f"{a}\t0\t{h}\n{b}\t1\t{x}\n")
    (root / "stats.txt").write_text("numentity: 6\nnumrelations: 2")
    (root / "q.pkl").write_bytes(pickle.dumps({QUERY_STRUCTURES["2in"]: {((a, (0,)), (b, (1, -2)))}}))
    scores = np.zeros(6)
    scores[x], scores[h] = 0.9, 0.5  # the executor still believes x (its graph cannot show the test edge)
    config = EvalConfig(data=root, queries=root / "q.pkl", output=tmp_path / "o.jsonl", types=("2in",),
                        progress=False)
    metrics = evaluate(config, lambda graph: _FixedScores(graph, scores))
    row = json.loads((tmp_path / "o.jsonl").read_text())
    assert (row["n_answers"], row["n_easy"], row["n_targets"], row["n_easy_not_answers"]) == (1, 1, 1, 1)
    assert row["metrics"]["MRR"] == 1.0 and metrics["2in"]["MRR"] == 100.0

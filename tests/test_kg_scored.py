"""The scored executor's logistic projection model: fitting, calibration, hidden inverse edges, fallback."""

from __future__ import annotations

import functools
import json
import logging
import pickle
import random
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("scipy")

from logical_pyserini.kg import (  # noqa: E402
    FEATURES, KnowledgeGraph, ScoredExecutor, compile_query, fit_projection_weights, mine_rules,
)
from logical_pyserini.kg._scored import _fit_logistic  # noqa: E402
from logical_pyserini.kg.__main__ import main  # noqa: E402

N_PEOPLE, N_CITIES = 120, 30


def synonym_graph(seed: int = 0, hidden: int = 0) -> tuple[np.ndarray, list[tuple[int, int]]]:
    """People ``0..119`` live in cities ``120..149``: r0 lives_in (inverse r1); r2 born_in (inverse r3)
    agrees with r0 for 90% of people; r4 likes (inverse r5) points at a random city.

    The first ``hidden`` people's r0 facts (and inverses) are left out and returned as ``(person, city)``.
    """
    rng = random.Random(seed)
    triples, held = [], []
    for p in range(N_PEOPLE):
        city = N_PEOPLE + rng.randrange(N_CITIES)
        born = city if rng.random() < 0.9 else N_PEOPLE + rng.randrange(N_CITIES)
        liked = N_PEOPLE + rng.randrange(N_CITIES)
        triples += [(p, 2, born), (born, 3, p), (p, 4, liked), (liked, 5, p)]
        if p < hidden:
            held.append((p, city))
        else:
            triples += [(p, 0, city), (city, 1, p)]
    return np.array(triples), held


def test_fit_logistic_recovers_known_weights():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(20000, 2))
    y = (rng.random(20000) < 1 / (1 + np.exp(-(2.0 * x[:, 0] - 1.0 * x[:, 1] + 0.5)))).astype(float)
    coef, bias = _fit_logistic(x, y, np.ones(len(y)), l2=0.0)
    assert np.allclose(coef, [2.0, -1.0], atol=0.15) and abs(bias - 0.5) < 0.15


def test_projection_model_learns_the_synonym_and_is_calibrated():
    triples, held = synonym_graph(hidden=20)
    graph = KnowledgeGraph(triples, N_PEOPLE + N_CITIES, 6)
    weights = fit_projection_weights(graph, holdout=0.2, queries=500, negatives=50, seed=1, progress=False)
    # every held-out edge takes its inverse with it (all relations here have one): an even count
    assert weights.info["held_out_edges"] % 2 == 0 and weights.info["positives"] > 0
    assert weights.coef.shape == (len(FEATURES),)
    scorer = ScoredExecutor(graph, rules=mine_rules(graph, progress=False), weights=weights)
    top1, prob_true, prob_other = 0, [], []
    for person, city in held:
        scores = scorer.execute(compile_query("1p", (person, (0,)))).scores
        top1 += int(np.argmax(scores) == city)
        prob_true.append(scores[city])
        others = scores[N_PEOPLE:].copy()
        others[city - N_PEOPLE] = -1
        prob_other.append(others.max())
    # born_in agrees 90% of the time: the hidden city is the top tail for most people, with a high probability
    assert top1 >= 15
    assert np.median(prob_true) > 0.5 > np.median(prob_other)
    # people are never tails of lives_in and no rule reaches them: probability exactly 0
    assert scores[:N_PEOPLE].max() == 0.0
    # a fact in the graph keeps probability 1
    assert scorer.execute(compile_query("1p", (N_PEOPLE - 1, (0,)))).scores.max() == 1.0


def test_projection_without_weights_is_the_plain_rule_scorer():
    triples, _ = synonym_graph(hidden=10)
    graph = KnowledgeGraph(triples, N_PEOPLE + N_CITIES, 6)
    rules = mine_rules(graph, progress=False)
    plain = ScoredExecutor(graph, rules=rules)
    weighted = ScoredExecutor(graph, rules=rules,
                              weights=fit_projection_weights(graph, holdout=0.2, seed=0, progress=False))
    plan = compile_query("1p", (3, (0,)))
    a, b = plain.execute(plan).scores, weighted.execute(plan).scores
    assert not np.allclose(a, b)  # the weights change the scores ...
    assert set(np.flatnonzero(b)) <= set(np.flatnonzero(a))  # ... but not which entities have evidence


def test_cli_falls_back_to_rules_when_the_graph_is_too_small_to_hold_out(tmp_path, caplog):
    root = tmp_path / "tiny"
    root.mkdir()
    (root / "train.txt").write_text("0\t0\t1\n1\t1\t0\n")
    (root / "valid.txt").write_text("")
    (root / "test.txt").write_text("2\t0\t1\n1\t1\t2\n")
    (root / "stats.txt").write_text("numentity: 3\nnumrelations: 2")
    (root / "test-queries.pkl").write_bytes(pickle.dumps({("e", ("r",)): {(2, (0,))}}))
    out = tmp_path / "o.jsonl"
    with caplog.at_level(logging.WARNING):
        assert main(["--data", str(root), "--executor", "scored", "--quiet", "--output", str(out)]) == 0
    assert "falling back to --projection rules" in caplog.text
    rows = [json.loads(line) for line in Path(out).read_text().splitlines()]
    assert len(rows) == 1 and "error" not in rows[0]


def test_uncertain_members_are_projected_as_their_own_group_and_explained_consistently():
    triples, _ = synonym_graph(hidden=0)
    graph = KnowledgeGraph(triples, N_PEOPLE + N_CITIES, 6)
    weights = fit_projection_weights(graph, holdout=0.2, seed=0, progress=False)
    scorer = ScoredExecutor(graph, rules=mine_rules(graph, progress=False), weights=weights)
    # city c0 for sure, c1 with 0.3: people of c1 (inverse r1) can score at most 0.3, people of c0 get 1
    c0, c1 = N_PEOPLE, N_PEOPLE + 1
    s = np.zeros(graph.num_entities, np.float32)
    s[c0], s[c1] = 1.0, 0.3
    out = scorer.project_fuzzy(s, 1)
    of_c0, of_c1 = graph.project([c0], 1), graph.project([c1], 1)
    assert np.all(out[of_c0] == 1.0)
    assert np.all(out[np.setdiff1d(of_c1, of_c0)] <= 0.3 + 1e-6) and out[np.setdiff1d(of_c1, of_c0)].min() > 0
    scores, support = scorer.explain_projection(s, 1)
    assert np.array_equal(scores, out) and all(support[int(e)] for e in of_c0)


@functools.lru_cache(maxsize=1)
def _fitted():
    triples, _ = synonym_graph(hidden=10)
    graph = KnowledgeGraph(triples, N_PEOPLE + N_CITIES, 6)
    return graph, mine_rules(graph, progress=False), fit_projection_weights(graph, holdout=0.2, seed=0, progress=False)


def _fitted_scorer(**options):
    """One fitted model shared by the tests below (the fit is the slow part), a fresh executor per call."""
    graph, rules, weights = _fitted()
    return graph, ScoredExecutor(graph, rules=rules, weights=weights, **options)


def test_member_projection_of_one_crisp_head_is_what_the_model_was_fitted_on():
    graph, scorer = _fitted_scorer()
    for person in (0, 5, 60):  # 0 and 5 lost their lives_in fact, 60 has it
        s = np.zeros(graph.num_entities, np.float32)
        s[person] = 1.0
        members = scorer.project_fuzzy(s, 0)
        fitted = scorer._weighted(s, 0, *scorer._components(s, 0))  # the dense path the fit uses
        assert np.allclose(members, fitted, atol=1e-6) and members.max() > 0


def test_members_are_projected_one_by_one_and_combined_by_max_or_noisy_or():
    graph, by_max = _fitted_scorer(exists="max")
    _, noisy = _fitted_scorer(exists="noisy-or")
    a, b = 2, 7  # two people whose lives_in facts are hidden: every city is a prediction
    single = {}
    for p in (a, b):
        s = np.zeros(graph.num_entities, np.float32)
        s[p] = 1.0
        single[p] = by_max.project_fuzzy(s, 0)
    s = np.zeros(graph.num_entities, np.float32)
    s[a], s[b] = 1.0, 0.5
    assert np.allclose(by_max.project_fuzzy(s, 0), np.maximum(single[a], 0.5 * single[b]), atol=1e-6)
    assert np.allclose(noisy.project_fuzzy(s, 0), 1 - (1 - single[a]) * (1 - 0.5 * single[b]), atol=1e-5)
    # where both predict a city, noisy-or counts the second member, max does not
    both = (single[a] > 0) & (single[b] > 0) & (single[a] < 1)
    assert both.any() and np.all(noisy.project_fuzzy(s, 0)[both] > by_max.project_fuzzy(s, 0)[both])


def test_only_the_best_members_are_projected_ties_broken_by_id():
    graph, scorer = _fitted_scorer(members=1)
    city_a, city_b = N_PEOPLE + 3, N_PEOPLE + 4
    people_a, people_b = graph.project([city_a], 1), graph.project([city_b], 1)
    s = np.zeros(graph.num_entities, np.float32)
    s[city_a], s[city_b] = 0.9, 0.9  # a tie: the lower id (city_a) is the one projected
    out = scorer.project_fuzzy(s, 1)
    assert np.all(out[people_a] >= 0.9 - 1e-6)
    assert np.all(out[np.setdiff1d(people_b, people_a)] < 0.9)
    s[city_b] = 0.95  # now city_b is the best member
    out = scorer.project_fuzzy(s, 1)
    assert np.all(out[people_b] >= 0.95 - 1e-6) and np.all(out[np.setdiff1d(people_a, people_b)] < 0.9)


def test_group_intermediate_keeps_the_earlier_projection_and_bad_options_fail():
    graph, members = _fitted_scorer()
    _, group = _fitted_scorer(intermediate="group")
    s = np.zeros(graph.num_entities, np.float32)
    s[N_PEOPLE:N_PEOPLE + 6] = 1.0  # six certain cities: the group sees them as one head, members one by one
    assert not np.allclose(members.project_fuzzy(s, 1), group.project_fuzzy(s, 1))
    with pytest.raises(ValueError):
        ScoredExecutor(graph, rules={}, intermediate="nope")


def test_an_entity_is_not_its_own_tail_under_a_relation_without_self_loops():
    """knows (r2, inverse r3) links people of the same city, never a person to itself: the rule
    knows <- lives_in, lives_in^-1 reaches the head too, which is dropped unless irreflexive=False."""
    rng = random.Random(0)
    city = {p: N_PEOPLE + rng.randrange(5) for p in range(60)}
    triples = [(p, 0, c) for p, c in city.items()] + [(c, 1, p) for p, c in city.items()]
    for p in range(60):
        for q in range(60):
            if p != q and city[p] == city[q] and rng.random() < 0.5:
                triples += [(p, 2, q), (q, 3, p)]
    graph = KnowledgeGraph(np.array(triples), N_PEOPLE + 5, 4)
    rules = mine_rules(graph, progress=False)
    assert any(r.body == (0, 1) for r in rules[2])
    weights = fit_projection_weights(graph, holdout=0.2, seed=0, progress=False)
    s = np.zeros(graph.num_entities, np.float32)
    s[7] = 1.0
    plain = ScoredExecutor(graph, rules=rules, weights=weights, irreflexive=False).project_fuzzy(s, 2)
    irreflexive = ScoredExecutor(graph, rules=rules, weights=weights).project_fuzzy(s, 2)
    assert plain[7] > 0 and irreflexive[7] == 0.0
    others = np.arange(graph.num_entities) != 7
    assert np.array_equal(plain[others], irreflexive[others])

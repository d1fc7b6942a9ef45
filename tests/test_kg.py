"""Knowledge-graph queries (ROG): graph store, BetaE pickles, plans, executors, protocol, CLI."""

from __future__ import annotations

import json
import re
import pickle
import random
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("scipy")

from logical_pyserini.kg import (  # noqa: E402
    QUERY_STRUCTURES, TYPES, ExactExecutor, GraphError, KnowledgeGraph, PlanError, QueryFileError,
    ReferenceGraph, ScoredExecutor, compile_query, filtered_ranks, get_executor, load_queries, mine_rules,
    read_triples, reference_answers,
)
from logical_pyserini.kg.__main__ import main  # noqa: E402

NE, NR = 40, 6  # relations come in inverse pairs (2k, 2k+1), as in BetaE's NELL995


def random_triples(seed: int, n: int = 160) -> np.ndarray:
    rng = random.Random(seed)
    out = set()
    while len(out) < n:
        h, t, r = rng.randrange(NE), rng.randrange(NE), rng.randrange(NR // 2) * 2
        out.add((h, r, t))
        out.add((t, r + 1, h))
    return np.array(sorted(out))


def random_query(rng: random.Random, structure):
    """A random instance of a BetaE structure with BetaE's markers (-2 = n, -1 = u)."""
    if isinstance(structure, str):
        return {"e": rng.randrange(NE), "r": rng.randrange(NR), "n": -2, "u": -1}[structure]
    return tuple(random_query(rng, s) for s in structure)


def answered_queries(triples: np.ndarray, qtype: str, k: int, rng: random.Random) -> set:
    """``k`` random queries of ``qtype`` that have answers on ``triples``."""
    ref, out = ReferenceGraph(triples), set()
    for _ in range(5000):
        q = random_query(rng, QUERY_STRUCTURES[qtype])
        if reference_answers(ref, qtype, q):
            out.add(q)
            if len(out) == k:
                return out
    raise AssertionError(f"could not draw {k} {qtype} queries with answers")


def write_dataset(root: Path, train, valid, test, queries: dict) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for name, rows in (("train.txt", train), ("valid.txt", valid), ("test.txt", test)):
        (root / name).write_text("".join(f"{h}\t{r}\t{t}\n" for h, r, t in rows))
    (root / "stats.txt").write_text(f"numentity: {NE}\nnumrelations: {NR}")
    data = defaultdict(set)
    for qtype, qs in queries.items():
        data[QUERY_STRUCTURES[qtype]].update(qs)
    (root / "test-queries.pkl").write_bytes(pickle.dumps(data))
    return root


# -- graph store ---------------------------------------------------------------------------------

def test_projection_matches_brute_force():
    triples = random_triples(1)
    g = KnowledgeGraph(triples, NE, NR)
    rng = np.random.default_rng(0)
    for _ in range(30):
        ents = np.unique(rng.integers(0, NE, size=rng.integers(1, 6)))
        r = int(rng.integers(0, NR))
        want = sorted({t for h, rr, t in triples.tolist() if rr == r and h in set(ents.tolist())})
        assert g.project(ents, r).tolist() == want
    assert g.adjacency(0).shape == (NE, NE)
    with pytest.raises(GraphError):
        g.adjacency(NR)


def test_read_triples_names_the_bad_line(tmp_path):
    p = tmp_path / "t.txt"
    p.write_text("0\t1\t2\n3\tx\t4\n")
    with pytest.raises(GraphError, match=r"t.txt:2"):
        read_triples(p)
    with pytest.raises(GraphError, match="cannot read"):
        read_triples(tmp_path / "missing.txt")


def test_neighbourhood_prefers_step_relations_and_respects_caps():
    triples = [(0, 0, 1), (0, 2, 2), (0, 2, 3), (0, 4, 4), (1, 4, 5), (2, 4, 6)]
    g = KnowledgeGraph(np.array(triples), 8, 6)
    first = g.neighbourhood([0], relations=[4], hops=1, max_triples=2)
    assert first[0] == (0, 4, 4) and len(first) == 2
    two = g.neighbourhood([0], relations=[4], hops=2, max_triples=100)
    assert set(two) == set(triples)  # second hop reaches 1 and 2's edges
    capped = g.neighbourhood([0], hops=1, max_triples=100, per_entity=1)
    assert capped == [(0, 0, 1)]


# -- BetaE pickles -------------------------------------------------------------------------------

class _Evil:
    def __reduce__(self):
        return (Path.touch, (Path(EVIL_MARK),))


EVIL_MARK = ""


def test_restricted_unpickler_refuses_code(tmp_path):
    global EVIL_MARK
    EVIL_MARK = str(tmp_path / "pwned")
    bad = tmp_path / "evil.pkl"
    bad.write_bytes(pickle.dumps({("e", ("r",)): {_Evil()}}))
    with pytest.raises(QueryFileError, match="refusing to load global"):
        load_queries(bad)
    assert not Path(EVIL_MARK).exists()
    (tmp_path / "junk.pkl").write_bytes(b"\x80\x04not a pickle")
    with pytest.raises(QueryFileError):
        load_queries(tmp_path / "junk.pkl")


def test_load_queries_reads_betae_pickle(tmp_path):
    data = defaultdict(set)
    data[("e", ("r",))] = {(3, (1,)), (2, (0,))}
    data[(("e", ("r",)), ("e", ("r", "n")))] = {((1, (0,)), (2, (3, -2)))}
    data[((("e", ("r", "n")), ("e", ("r", "n"))), ("n",))] = {(((1, (0, -2)), (2, (3, -2))), (-2,))}  # 2u-DM
    p = tmp_path / "q.pkl"
    p.write_bytes(pickle.dumps(data))
    qs = load_queries(p)
    assert list(qs) == ["1p", "2in"]  # the De Morgan form is not one of the 14
    assert qs["1p"] == [(2, (0,)), (3, (1,))]


# -- plans ---------------------------------------------------------------------------------------

def test_plans_are_single_operator_steps_with_negation_at_the_end():
    plan = compile_query("pni", ((7, (1, 2, -2)), (8, (3,))))
    assert plan.describe() == ["#0 = project(e7, r1)", "#1 = project(#0, r2)", "#2 = project(e8, r3)",
                               "#3 = intersect(#2) - #1"]
    up = compile_query("up", (((1, (0,)), (2, (0,)), (-1,)), (4,)))
    assert [s.op for s in up.steps] == ["project", "project", "union", "project"]
    # a repeated branch is one step (the cache key is the same)
    same = compile_query("2i", ((5, (1,)), (5, (1,))))
    assert len(same.steps) == 2 and same.steps[-1].inputs == (0, 0)
    with pytest.raises(PlanError):
        compile_query("2in", ((1, (0,)), (2, (3, 4))))  # missing negation marker
    with pytest.raises(PlanError):
        compile_query("2p", (1, (0,)))
    with pytest.raises(PlanError):
        compile_query("9x", (1, (0,)))


def test_exact_executor_equals_reference_on_all_types():
    triples = random_triples(2, n=700)
    g = KnowledgeGraph(triples, NE, NR)
    ref = ReferenceGraph(triples)
    ex = ExactExecutor(g)
    rng = random.Random(3)
    for qtype in TYPES:
        with_answers = 0
        for attempt in range(3000):  # random queries, keeping those with answers (and a few without)
            q = random_query(rng, QUERY_STRUCTURES[qtype])
            want = reference_answers(ref, qtype, q)
            if not want and attempt % 50:
                continue
            got = set(np.flatnonzero(ex.execute(compile_query(qtype, q)).scores).tolist())
            assert got == want, (qtype, q)
            with_answers += bool(want)
            if with_answers == 15:
                break
        assert with_answers == 15, qtype


def test_filtered_ranks_count_ties_at_their_expected_position():
    s = np.array([0.9, 0.5, 0.5, 0.5, 0.1])
    # target 1 ties with entities 2 and 3, entity 0 is another answer (filtered)
    assert filtered_ranks(s, [1], [0, 1]).tolist() == [2.0]
    assert filtered_ranks(s, [0], [0]).tolist() == [1.0]


# -- scored executor and the protocols -------------------------------------------------------------

def synonym_dataset(root: Path) -> Path:
    """r0 and r2 say the same thing (r2 always holds with r0); some r0 facts are only in test."""
    rng = random.Random(5)
    train, test = set(), set()
    for h in range(20):
        t = 20 + rng.randrange(20)
        train |= {(h, 2, t), (t, 3, h)}
        (test if h < 5 else train).update({(h, 0, t), (t, 1, h)})
        u = 20 + rng.randrange(20)
        train |= {(h, 4, u), (u, 5, h)}
    queries = {"1p": {(h, (0,)) for h in range(5)}, "2p": {(h, (0, 1)) for h in range(5)},
               "2in": {((h, (0,)), (h, (4, -2))) for h in range(5)}}
    return write_dataset(root, sorted(train), [], sorted(test), queries)


def test_rules_find_the_synonym_and_scored_reaches_hidden_answers(tmp_path):
    root = synonym_dataset(tmp_path / "syn")
    observed = KnowledgeGraph(read_triples(root / "train.txt"), NE, NR)
    rules = mine_rules(observed, progress=False)
    assert rules[0] and rules[0][0].body == (2,) and rules[0][0].confidence > 0.5
    for name, floor in (("exact", None), ("scored", 90.0)):
        out = tmp_path / f"{name}.jsonl"
        assert main(["--data", str(root), "--executor", name, "--protocol", "standard", "--quiet",
                     "--output", str(out)]) == 0
        metrics = json.loads(Path(f"{out}.metrics.json").read_text())
        rows = [json.loads(line) for line in out.read_text().splitlines()]
        assert len(rows) == 15 and all("error" not in r for r in rows)
        if floor is None:
            assert metrics["1p"]["MRR"] < 50  # hard answers are absent from the graph exact sees
        else:
            assert metrics["1p"]["MRR"] >= floor and metrics["2in"]["MRR"] >= floor


def test_complete_protocol_exact_scores_100(tmp_path):
    triples = random_triples(4, n=700)
    rng = random.Random(6)
    queries = {t: answered_queries(triples, t, 5, rng) for t in TYPES}
    root = write_dataset(tmp_path / "rand", triples[:1000], triples[1000:1200], triples[1200:], queries)
    out = tmp_path / "exact.jsonl"
    assert main(["--data", str(root), "--executor", "exact", "--protocol", "complete", "--quiet",
                 "--output", str(out)]) == 0
    metrics = json.loads(Path(f"{out}.metrics.json").read_text())
    assert metrics["_run"]["errors"] == 0 and metrics["_run"]["scored"] == 70
    assert all(metrics[t]["MRR"] == 100.0 for t in metrics if t != "_run")


def test_cli_fails_with_one_line_on_missing_data(tmp_path, capsys):
    assert main(["--data", str(tmp_path / "nope"), "--output", str(tmp_path / "o.jsonl"), "--quiet"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "no such data folder" in err
    assert not (tmp_path / "o.jsonl").exists()


def test_executor_registry():
    assert get_executor("exact") is ExactExecutor and get_executor("scored") is ScoredExecutor
    with pytest.raises(ValueError, match="unknown executor"):
        get_executor("nope")


# -- llm executor (ROG) ----------------------------------------------------------------------------

from logical_pyserini.kg._executor import ExecutorError  # noqa: E402
from logical_pyserini.kg._llm import LLMExecutor, parse_ids  # noqa: E402
from logical_pyserini.models import Completion, LanguageModel  # noqa: E402


class ScriptedModel(LanguageModel):
    """A backend that answers from a rule over the prompt text (the executor's dependency, not under test)."""

    id = "scripted"

    def __init__(self, reply):
        super().__init__()
        self.reply, self.prompts = reply, []

    def _generate(self, chats, max_new_tokens):
        self.prompts.extend(c[-1]["content"] for c in chats)
        return [Completion(self.reply(c[-1]["content"]), 100, 5) for c in chats]


def test_parse_ids_keeps_one_id_per_line():
    assert parse_ids("e5\n- e7\ne5\nNONE") == ([5, 7], True)
    assert parse_ids("NONE") == ([], True)
    assert parse_ids("The answer is e5 and e9\ne3") == ([3], False)


def test_llm_judgement_ranks_first_with_scored_order_as_tie_break(tmp_path):
    root = synonym_dataset(tmp_path / "syn")
    g = KnowledgeGraph(read_triples(root / "train.txt"), NE, NR)
    scored = ScoredExecutor(g, rules=mine_rules(g, progress=False))
    plan = compile_query("1p", (0, (0,)))  # head 0's r0 fact is hidden (test only)
    proposed = scored.execute(plan).scores
    order = [int(e) for e in np.argsort(-proposed, kind="stable")[:10]]
    pick = order[3]  # the model accepts the 4th candidate and invents an id that is no entity
    lm = ScriptedModel(lambda text: f"e{pick}\ne999\n")
    ex = LLMExecutor(g, model=lm, proposer=scored, candidates=10, max_triples=30, judgement="rank")
    result = ex.execute(plan)
    ranking = [int(e) for e in np.argsort(-result.scores, kind="stable")[:10]]
    assert ranking[0] == pick and [e for e in ranking if e != pick][:5] == [e for e in order if e != pick][:5]
    assert result.info["unsupported"] == 1 and result.info["prompts"] == 1
    prompt = lm.prompts[0]
    assert "Operator: projection" in prompt and f"e{pick}:" in prompt and "r0" in prompt
    evidence = prompt.split("Evidence triples (head relation tail):\n")[1].split("\n\n")[0].splitlines()
    assert 0 < len(evidence) <= 30 and all(re.fullmatch(r"e\d+ r\d+ e\d+", line) for line in evidence)


def test_llm_accepts_only_candidates_and_evidence_facts_of_the_step(tmp_path):
    """An id must be a shown candidate or a tail of the step's relation from its input in the evidence:
    the source itself (an echo the 1.5B model often gave) and tails of other relations are rejected."""
    root = synonym_dataset(tmp_path / "syn")
    triples = read_triples(root / "train.txt")
    g = KnowledgeGraph(triples, NE, NR)
    head = next(h for h in range(5, 20)
                if {t for hh, r, t in triples if hh == h and r == 2} != {t for hh, r, t in triples if hh == h and r == 4})
    [fact] = [t for h, r, t in triples if h == head and r == 2]
    [other] = [t for h, r, t in triples if h == head and r == 4]
    lm = ScriptedModel(lambda text: f"e{head}\ne{other}\ne{fact}\n")
    ex = LLMExecutor(g, model=lm, candidates=0, max_triples=40, judgement="rank")  # no candidates: evidence alone
    result = ex.execute(compile_query("1p", (head, (2,))))
    prompt = lm.prompts[0]
    assert f"e{head} r4 e{other}" in prompt  # a fact of another relation, in the evidence
    assert int(np.argmax(result.scores)) == fact and result.scores[fact] >= 1.0
    assert result.scores[head] < 1.0 and result.scores[other] < 1.0
    assert result.info["unsupported"] == 2


def test_llm_scores_stay_on_the_probability_scale_for_set_steps():
    """Accepted entities first, then the proposer's order; an entity the model did not accept keeps its
    probability, so a negated branch x * (1 - n) still removes a likely member of the negated set."""
    from logical_pyserini.kg._llm import judged_scores

    proposed = np.array([0.95, 0.2, 0.6, 0.0, 0.3], np.float32)
    judged = np.array([0.0, 1.0, 0.0, 0.0, 0.5], np.float32)
    out = judged_scores(judged, proposed)
    assert np.all((out >= 0) & (out <= 1))
    assert np.argsort(-out, kind="stable").tolist() == [1, 4, 0, 2, 3]   # votes, then scored order
    assert out[0] > 0.9 and 1 - out[0] < 0.1 and out[3] == 0.0          # a negated branch still removes entity 0


def test_llm_odds_judgement_moves_a_candidate_only_as_far_as_its_likelihood_ratio(tmp_path):
    """--judgement odds: an accepted 4th candidate rises above the proposer's top answer only when the
    likelihood ratios outweigh the odds between them; unshown entities keep the proposer's scores."""
    root = synonym_dataset(tmp_path / "syn")
    g = KnowledgeGraph(read_triples(root / "train.txt"), NE, NR)
    scored = ScoredExecutor(g, rules=mine_rules(g, progress=False))
    plan = compile_query("1p", (0, (0,)))
    proposed = scored.execute(plan).scores
    order = [int(e) for e in np.argsort(-proposed, kind="stable")]
    top, pick = order[0], order[3]
    lm = ScriptedModel(lambda text: f"e{pick}\n")

    def odds(e):
        q = min(max(float(proposed[e]), 1e-6), 1 - 1e-6)
        return q / (1 - q)

    needed = odds(top) / odds(pick)  # accept-lr / reject-lr beyond this puts pick first
    for ratio, first in ((needed * 4, pick), (needed / 4, top)):
        ex = LLMExecutor(g, model=lm, proposer=scored, candidates=4, judgement="odds", lr=(ratio ** 0.5, ratio ** -0.5))
        out = ex.execute(plan).scores
        assert int(np.argmax(out)) == first
        assert np.all((out >= 0) & (out <= 1)) and out[order[5]] == pytest.approx(proposed[order[5]])
    with pytest.raises(ExecutorError, match="judgement"):
        LLMExecutor(g, model=lm, proposer=scored, judgement="vote")


def test_llm_odds_likelihood_ratios_depend_on_the_shown_position(tmp_path):
    """Banded ratios: the same acceptance moves a candidate shown 4th and leaves the top candidate's
    rival alone when its band's ratio is 1; malformed bands are refused with the reason."""
    from logical_pyserini.kg._llm import LikelihoodRatios, judged_scores

    proposed = np.array([0.6, 0.5, 0.4, 0.3, 0.2], np.float32)
    judged = np.array([0.0, 1.0, 0.0, 1.0, 0.0], np.float32)
    lr = LikelihoodRatios(accept=(1.0, 1.0, 10.0), reject=(1.0, 1.0, 0.5), bands=(1, 3))
    out = judged_scores(judged, proposed, shown=[0, 1, 2, 3, 4], fusion="odds", lr=lr)
    assert out[:3].tolist() == pytest.approx(proposed[:3].tolist())        # bands with ratio 1: unchanged
    assert int(np.argmax(out)) == 3                                         # 0.3 odds x 10 beats 0.6
    assert out[4] == pytest.approx(0.2 * 0.5 / (0.8 + 0.2 * 0.5), rel=1e-4)  # rejected at position 5
    flat = judged_scores(judged, proposed, shown=[0, 1, 2, 3, 4], fusion="odds", lr=(10.0, 0.5))
    assert int(np.argmax(flat)) == 1                                        # one band: position 2 wins instead
    for bad in (dict(accept=(1.0,), reject=(1.0,), bands=(2,)), dict(accept=(1.0, 0.0), reject=(1.0, 1.0), bands=(1,)),
                dict(accept=(1.0, 1.0, 1.0), reject=(1.0, 1.0, 1.0), bands=(3, 2))):
        with pytest.raises(ExecutorError):
            LikelihoodRatios(**bad)


@pytest.mark.parametrize("judge", ["oracle", "yes-man"])
def test_calibration_measures_how_informative_the_judgements_are(tmp_path, judge):
    """eval/kg_bench.py calibrate: a model that accepts exactly the true answers gets accept-lr > 1 > reject-lr;
    one that accepts every candidate tells nothing (accept-lr near 1)."""
    import subprocess
    import sys

    from logical_pyserini.kg import EvalConfig, evaluate

    root = synonym_dataset(tmp_path / "syn")
    truth = {int(h): int(t) for h, r, t in read_triples(root / "test.txt") if r == 0}

    def reply(text):
        cands = re.findall(r"^e(\d+):", text.split("Candidates")[1], flags=re.M)
        if judge == "yes-man":
            return "\n".join(f"e{c}" for c in cands)
        head = int(re.search(r"such that \(e(\d+), r0,", text).group(1))
        return "\n".join(f"e{c}" for c in cands if int(c) == truth.get(head)) or "NONE"

    rows = tmp_path / "llm.jsonl"
    cfg = EvalConfig(data=root, queries=root / "test-queries.pkl", output=rows, types=("1p",), progress=False)
    evaluate(cfg, lambda g: LLMExecutor(g, model=ScriptedModel(reply), candidates=4))
    script = str(Path(__file__).resolve().parents[1] / "eval" / "kg_bench.py")

    def calibrate(*bands):
        done = subprocess.run([sys.executable, script, "calibrate", "--data", str(root), "--rows", str(rows),
                               "--results", str(tmp_path / "res"), "--lr-bands", *bands],
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
        text = (tmp_path / "res" / "kg_llm_calibration.md").read_text()
        acc, rej = re.search(r"--accept-lr ([\d. ]+) --reject-lr ([\d. ]+)`", text).groups()
        return [float(x) for x in acc.split()], [float(x) for x in rej.split()]

    [acc], [rej] = calibrate()  # one band over all positions
    if judge == "oracle":
        assert acc > 2 and rej < 0.5
    else:
        assert 0.8 < acc < 1.25  # (it never rejects, so reject-lr is only the smoothing's prior)
    acc, rej = calibrate("1", "2")  # bands: position 1, position 2, positions 3 on
    assert len(acc) == len(rej) == 3
    if judge == "yes-man":
        assert all(0.8 < a < 1.25 for a in acc)


def test_llm_majority_vote_and_set_steps_use_cached_placeholders(tmp_path):
    root = synonym_dataset(tmp_path / "syn")
    g = KnowledgeGraph(read_triples(root / "train.txt"), NE, NR)
    calls = {"n": 0}

    def reply(text):  # accepts the first listed candidate in 2 of 3 samples
        calls["n"] += 1
        cand = re.findall(r"^e(\d+):", text.split("Candidates")[1], flags=re.M)
        return f"e{cand[0]}" if calls["n"] % 3 else "NONE"

    lm = ScriptedModel(reply)
    ex = LLMExecutor(g, model=lm, samples=3, candidates=6)
    result = ex.execute(compile_query("2p", (7, (0, 1))))
    assert result.info["prompts"] == 6  # two projections x three samples, the second refers to #0
    assert any("#0 is a cached set" in p for p in lm.prompts)
    assert np.all(result.scores >= 0)


def test_llm_with_a_tiny_transformer_never_crashes_on_garbage(tmp_path):
    pytest.importorskip("transformers")
    import sys
    sys.path.insert(0, str(Path(__file__).parent))
    from tiny_lm import tiny_llama, tiny_tokenizer
    from logical_pyserini.models import TransformersModel

    tok = tiny_tokenizer("Operator projection Candidates Evidence e1 e2 e3 r0 r1 NONE", chat=True)
    lm = TransformersModel(model=tiny_llama(tok), tokenizer=tok, model_id="tiny")
    root = synonym_dataset(tmp_path / "syn")
    g = KnowledgeGraph(read_triples(root / "train.txt"), NE, NR)
    ex = LLMExecutor(g, model=lm, candidates=4, max_new_tokens=6)
    result = ex.execute(compile_query("2in", ((0, (0,)), (1, (4, -2)))))
    assert result.scores.shape == (NE,) and result.info["prompts"] == 2
    assert result.info["generated_tokens"] > 0


def test_benchmark_script_writes_a_results_table(tmp_path):
    import subprocess
    import sys

    root = synonym_dataset(tmp_path / "syn")
    done = subprocess.run([sys.executable, str(Path(__file__).resolve().parents[1] / "eval" / "kg_bench.py"), "exact",
                           "--data", str(root), "--per-type", "5", "--results", str(tmp_path / "res"),
                           "--runs", str(tmp_path / "runs")], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    text = (tmp_path / "res" / "kg_exact.md").read_text()
    assert "| exact MRR | 100.0 | 100.0 |" in text and "queries/s" in text

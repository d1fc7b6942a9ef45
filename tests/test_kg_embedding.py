"""The learned link predictor (ComplEx-N3) and the scored executor's embedding / fused projections."""

from __future__ import annotations

import functools
import json
import pickle
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("scipy")
pytest.importorskip("torch")

from logical_pyserini.kg import (  # noqa: E402
    FEATURES, GRAPH_FEATURES, EmbeddingError, KnowledgeGraph, LinkPredictor, ScoredExecutor, TrainConfig,
    compile_query, fit_projection_weights, mine_rules, train_complex,
)
from logical_pyserini.kg._embedding import filtered_tail_mrr  # noqa: E402
from logical_pyserini.kg.__main__ import main  # noqa: E402

PEOPLE, CITIES = 200, 20
NE, NR = PEOPLE + CITIES, 4


def city_of(p: int) -> int:
    return PEOPLE + p % CITIES


def split_triples():
    """r0 lives_in (inverse r1); r2 "lives next to" (inverse r3): the city after one's own (cyclic).

    No relation links a city to the next one, so no 1- or 2-hop rule recovers a missing lives_in fact,
    and every city has as many people (popularity says nothing).  An embedding learns it: people next to
    the same city live in the same city.  lives_in facts of people ``p % 7 == 0`` are test, ``== 1`` valid.
    """
    split = {"train": [], "valid": [], "test": []}
    for p in range(PEOPLE):
        near = PEOPLE + (p % CITIES + 1) % CITIES
        split["train"] += [(p, 2, near), (near, 3, p)]
        part = {0: "test", 1: "valid"}.get(p % 7, "train")
        split[part] += [(p, 0, city_of(p)), (city_of(p), 1, p)]
    return {k: np.array(v, dtype=np.int64) for k, v in split.items()}


CONFIG = TrainConfig(rank=16, epochs=40, batch_size=100, regularisation=0.05, patience=10, seed=0)


@functools.lru_cache(maxsize=1)
def trained() -> LinkPredictor:
    s = split_triples()
    return train_complex(s["train"], NE, NR, CONFIG, valid=s["valid"], progress=False)


def test_complex_learns_the_pattern_far_above_an_untrained_model():
    s = split_triples()
    known = np.concatenate([s["train"], s["valid"], s["test"]])
    lives_in = s["test"][s["test"][:, 1] == 0]
    untrained = train_complex(s["train"], NE, NR, TrainConfig(rank=16, epochs=0), progress=False)
    model = trained()
    before, after = filtered_tail_mrr(untrained, lives_in, known), filtered_tail_mrr(model, lives_in, known)
    assert before < 20 and after > 80, (before, after)
    # the epoch was selected on valid and the sidecar says so
    assert model.info["valid_mrr"] > 80 and 1 <= model.info["best_epoch"] <= model.info["epochs_run"] <= 40
    assert model.rank == 16 and model.entities.shape == (NE, 32)
    lp = model.log_probabilities([0, 1], 0)
    assert np.allclose(np.exp(lp).sum(axis=1), 1.0, atol=1e-4)


def test_save_load_round_trip_and_clear_errors(tmp_path):
    model = trained()
    path = tmp_path / "kg" / "emb.npz"
    path.parent.mkdir()
    model.save(path)
    back = LinkPredictor.load(path, NE, NR)
    assert np.array_equal(back.entities, model.entities) and np.array_equal(back.relations, model.relations)
    assert back.info == json.loads(json.dumps(model.info))
    assert np.allclose(back.scores([3], 0), model.scores([3], 0))
    with pytest.raises(EmbeddingError, match="train-embeddings"):
        LinkPredictor.load(tmp_path / "missing.npz")
    with pytest.raises(EmbeddingError, match="trained for 220 entities"):
        LinkPredictor.load(path, NE + 1, NR)
    (tmp_path / "bad.npz").write_bytes(b"not a zip")
    with pytest.raises(EmbeddingError, match="unreadable"):
        LinkPredictor.load(tmp_path / "bad.npz")


def write_dataset(root: Path) -> Path:
    s = split_triples()
    root.mkdir(parents=True)
    for name in ("train", "valid", "test"):
        (root / f"{name}.txt").write_text("".join(f"{h}\t{r}\t{t}\n" for h, r, t in s[name]))
    (root / "stats.txt").write_text(f"numentity: {NE}\nnumrelations: {NR}")
    queries = {("e", ("r",)): {(p, (0,)) for p in range(0, PEOPLE, 7)}}
    (root / "test-queries.pkl").write_bytes(pickle.dumps(queries))
    return root


def test_train_embeddings_cli_writes_file_and_sidecar(tmp_path, capsys):
    root = write_dataset(tmp_path / "data")
    out = tmp_path / "emb.npz"
    assert main(["train-embeddings", "--data", str(root), "--rank", "8", "--epochs", "3", "--batch-size", "200",
                 "--output", str(out), "--quiet"]) == 0
    info = json.loads(Path(f"{out}.json").read_text())
    assert info["rank"] == 8 and info["epochs_run"] == 3 and info["num_entities"] == NE
    assert len(info["train_sha256"]) == 16 and info["valid_mrr"] is not None
    assert LinkPredictor.load(out, NE, NR).rank == 8
    assert "valid filtered MRR" in capsys.readouterr().out


def test_scored_cli_without_the_embedding_file_names_the_command(tmp_path, capsys):
    root = write_dataset(tmp_path / "data")
    out = tmp_path / "o.jsonl"
    code = main(["--data", str(root), "--executor", "scored", "--projection", "fused", "--quiet",
                 "--embeddings", str(tmp_path / "none.npz"), "--output", str(out)])
    err = capsys.readouterr().err.strip()
    assert code == 1 and err.count("\n") == 0
    assert "python -m logical_pyserini.kg train-embeddings --data" in err and "none.npz" in err


def _mrr(scorer: ScoredExecutor) -> float:
    rr = []
    for p in range(0, PEOPLE, 7):  # the test people: their lives_in fact is in no graph
        scores = scorer.execute(compile_query("1p", (p, (0,)))).scores
        rr.append(1.0 / (1 + np.sum(scores > scores[city_of(p)]) + np.sum(scores == scores[city_of(p)]) / 2 - 0.5))
    return float(np.mean(rr))


def test_embedding_projection_ranks_links_that_rules_cannot_reach():
    s = split_triples()
    graph = KnowledgeGraph(np.concatenate([s["train"], s["valid"]]), NE, NR)  # the standard protocol's graph
    rules = mine_rules(graph, progress=False)
    model = trained()
    logistic = fit_projection_weights(graph, holdout=0.1, seed=0, progress=False)
    by_name = {"rules": ScoredExecutor(graph, rules=rules), "logistic": ScoredExecutor(graph, rules=rules,
                                                                                       weights=logistic)}
    for name, use in (("embedding", ("embedding",)), ("fused", FEATURES)):
        weights = fit_projection_weights(graph, seed=0, progress=False, use=use, held_out=s["valid"],
                                         embedding=model)
        assert weights.info["use"] == list(use) and weights.coef[FEATURES.index("embedding")] > 0
        by_name[name] = ScoredExecutor(graph, rules=rules, weights=weights, embedding=model)
    assert logistic.coef[FEATURES.index("embedding")] == 0 and list(logistic.info["use"]) == list(GRAPH_FEATURES)
    mrr = {name: _mrr(scorer) for name, scorer in by_name.items()}
    # without the embedding the true city is one of 20 equally likely ones; with it, near the top
    assert mrr["rules"] < 0.4 and mrr["logistic"] < 0.4, mrr
    assert mrr["embedding"] > 0.8 and mrr["fused"] > 0.8, mrr
    # graph edges keep probability 1; a 2p chain goes through the embedding for both hops
    scores = by_name["fused"].execute(compile_query("1p", (5, (0,)))).scores
    assert scores[city_of(5)] == 1.0 and scores.max() == 1.0
    two = by_name["fused"].execute(compile_query("2p", (0, (0, 1)))).scores  # people of 0's (missing) city
    same_city = [p for p in range(1, PEOPLE) if p % CITIES == 0]
    others = [p for p in range(1, PEOPLE) if p % CITIES != 0]
    assert np.median(two[same_city]) > np.max(two[others])


def test_embedding_projection_needs_member_wise_weights():
    s = split_triples()
    graph = KnowledgeGraph(s["train"], NE, NR)
    with pytest.raises(ValueError, match="needs fitted weights"):
        ScoredExecutor(graph, rules=mine_rules(graph, progress=False), embedding=trained())
    with pytest.raises(ValueError, match="needs a LinkPredictor"):
        fit_projection_weights(graph, use=FEATURES, held_out=s["valid"], progress=False)


def test_resume_continues_training_and_its_history(tmp_path, capsys):
    root = write_dataset(tmp_path / "data")
    first, second = tmp_path / "emb.npz", tmp_path / "emb-long.npz"
    common = ["train-embeddings", "--data", str(root), "--batch-size", "200", "--quiet"]
    assert main(common + ["--rank", "8", "--epochs", "3", "--output", str(first)]) == 0
    before = json.loads(Path(f"{first}.json").read_text())
    assert main(common + ["--epochs", "2", "--resume", str(first), "--output", str(second)]) == 0
    after = json.loads(Path(f"{second}.json").read_text())
    start = before["best_epoch"]
    # the rank came from the file; epochs are numbered on from the resumed one, the old history kept
    assert after["rank"] == 8 and after["epochs_run"] == start + 2
    assert [r["epoch"] for r in after["history"]] == list(range(1, start + 3))
    assert after["history"][:start] == before["history"][:start]
    (entry,) = after["resumed_from"]
    assert entry["file"] == str(first) and entry["epoch"] == start and entry["adagrad"] == "saved"
    assert entry["valid_mrr"] == before["valid_mrr"]  # the same valid sample, measured again
    assert after["valid_mrr"] >= before["valid_mrr"] and after["seconds"] >= before["seconds"]
    resumed = LinkPredictor.load(second, NE, NR, optimizer=True)
    assert set(resumed.optimizer) == {"entities", "relations"}
    if after["best_epoch"] > start:  # trained on: the factors moved
        assert not np.array_equal(resumed.entities, LinkPredictor.load(first).entities)
    # a mismatched rank or graph is one clear line, not a crash
    capsys.readouterr()
    assert main(common + ["--rank", "4", "--resume", str(first), "--output", str(tmp_path / "x.npz")]) == 1
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "rank 8" in err and "--rank 4" in err
    LinkPredictor(np.zeros((NE + 1, 16), np.float32), np.zeros((NR, 16), np.float32)).save(tmp_path / "other.npz")
    assert main(common + ["--resume", str(tmp_path / "other.npz"), "--output", str(tmp_path / "x.npz")]) == 1
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "trained for 221 entities" in err and not (tmp_path / "x.npz").exists()


def test_resume_without_saved_adagrad_state_estimates_it():
    s = split_triples()
    model = trained()
    config = TrainConfig(rank=16, epochs=0, batch_size=100, regularisation=0.05, seed=0)
    kept = train_complex(s["train"], NE, NR, config, valid=s["valid"], progress=False, start=model)
    assert np.array_equal(kept.optimizer["entities"], model.optimizer["entities"])
    bare = LinkPredictor(model.entities, model.relations, model.info)  # a file written before the sums were saved
    est = train_complex(s["train"], NE, NR, config, valid=s["valid"], progress=False, start=bare)
    assert est.info["resumed_from"][0]["adagrad"].startswith("estimated")
    for name in ("entities", "relations"):
        # no zero sums (a zero sum would make the first steps the full learning rate) and the right scale:
        # squared gradients of a few batches scaled by the batches already trained
        ratio = est.optimizer[name].mean() / model.optimizer[name].mean()
        assert est.optimizer[name].min() > 0 and 0.1 < ratio < 10, (name, ratio)
    with pytest.raises(EmbeddingError, match="cannot resume"):
        train_complex(s["train"], NE, NR, TrainConfig(rank=8, epochs=1), progress=False, start=model)


def test_embedding_benchmark_puts_a_baseline_beside_the_new_rows(tmp_path):
    import subprocess
    import sys

    root = write_dataset(tmp_path / "data")
    emb = tmp_path / "emb.npz"
    trained().save(emb)
    base = tmp_path / "old"
    base.mkdir()
    (base / "kg-scored-fused-standard-5-s0.jsonl.metrics.json").write_text(
        json.dumps({"1p": {"MRR": 10.0, "Hits@1": 0.0, "Hits@3": 0.0, "Hits@10": 0.0, "n": 5}}))
    done = subprocess.run([sys.executable, str(Path(__file__).resolve().parents[1] / "eval" / "kg_bench.py"),
                           "embedding", "--data", str(root), "--per-type", "5", "--embeddings", str(emb),
                           "--projections", "logistic", "fused", "--baseline", str(base), "--baseline-label", "old",
                           "--tag", "long", "--results", str(tmp_path / "res"), "--runs", str(tmp_path / "runs")],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    text = (tmp_path / "res" / "kg_scored_embedding_5_s0_long.md").read_text()
    new = json.loads((tmp_path / "runs" / "kg-scored-fused-standard-5-s0.jsonl.metrics.json").read_text())["1p"]["MRR"]
    assert "| fused, old | 10.0 |" in text and f"| fused: this - old | {new - 10.0:.1f} |" in text
    assert "fused, old 10.0" in text  # its mean beside the new ones

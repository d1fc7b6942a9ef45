"""The benchmark scripts run end to end in --quick mode, so the harness cannot rot."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_latency_benchmark_quick(tmp_path):
    out = tmp_path / "latency.md"
    done = subprocess.run(
        [sys.executable, str(ROOT / "eval" / "bench_latency.py"), "--quick", "--data", str(tmp_path / "data"),
         "--output", str(out)],
        capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    text = out.read_text()
    rows = [line for line in text.splitlines() if line.startswith("| 2,000 |") and " / " in line.split("|")[3]]
    assert len(rows) == 4  # wall clock and thread CPU tables: top-10 and depth 1000
    for row in rows:
        for ratio in row.split("|")[8:12]:  # exact, cold, pooled, boolean / plain
            assert 0 < float(ratio) < 100
    calls = {line.split("|")[3].strip(): line.split("|")[4] for line in text.splitlines()
             if line.startswith("| 2,000 | 10 |") and line.count("|") == 8}
    assert set(calls) == {"plain", "exact", "cold", "boolean"}
    assert all(float(c.split("/")[0]) > 0 for c in calls.values())  # every search crosses into Java
    equal = next(line for line in text.splitlines() if line.startswith("| 2,000 | 20 |"))
    assert equal.split("|")[3].strip() == "20"  # every exact top-10 equals exhaustive scoring
    assert "| 2         | logical |" in text  # effectiveness by number of negations


def test_oracle_throughput_benchmark_on_recorded_prompts(tmp_path):
    """`bench_oracle_throughput.py run` scores an export file with a local model folder: every setting (batch
    size, pairs per call, pooled topics) gives the same answers, and they agree with the recorded ones."""
    import json

    sys.path.insert(0, str(ROOT / "tests"))
    from tiny_lm import tiny_llama, tiny_tokenizer

    from logical_pyserini.models import ModelCache, TransformersModel
    from logical_pyserini.rerank import Entity, LLMOracle, valuation_parts

    docs = [Entity(f"d{i}", name, f"{name} is a museum in {city} .") for i, (name, city) in
            enumerate([("Louvre", "Paris"), ("Prado", "Madrid"), ("NEMO", "Amsterdam"), ("Orsay", "Paris")])]
    claims = ["{x} is in Paris", "{x} is in Madrid", "{x} is a museum"]
    words = " ".join(e.title + " " + e.text for e in docs) + " " + " ".join(claims)
    tok = tiny_tokenizer(words + " Document document < > / - Claim Is the claim true ? Reply True or False "
                         "You check claims against a : with one word . x { } system user assistant", chat=True)
    model = tiny_llama(tok)
    folder = tmp_path / "tiny"
    model.save_pretrained(folder)
    tok.save_pretrained(folder)
    oracle = LLMOracle(TransformersModel(model=model, tokenizer=tok, cache=ModelCache(enabled=False)))
    # Two topics over the same documents (as topics of one corpus share candidates), two claims each.
    topics = [(qid, e, c) for qid, asked in (("q0", claims[:2]), ("q1", claims[1:])) for e in docs for c in asked]
    recorded = oracle.plausibilities([(e, c) for _, e, c in topics])
    rows = [{"version": oracle.prompt_version, "system": oracle.system, "model": "tiny", "device": "cpu"}]
    for (qid, entity, claim), p in zip(topics, recorded):
        prefix, suffix = valuation_parts(entity, claim, oracle.prompt)
        rows.append({"qid": qid, "docid": entity.docid, "prefix": prefix, "suffix": suffix, "p": float(p)})
    export = tmp_path / "pairs.jsonl"
    export.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out, data = tmp_path / "throughput.md", tmp_path / "throughput.json"
    done = subprocess.run(
        [sys.executable, str(ROOT / "eval" / "bench_oracle_throughput.py"), "run", "--pairs", str(export),
         "--model", str(folder), "--dtype", "float32", "--batch-size", "1,4", "--pairs-per-call", "3,16",
         "--pool-topics", "1,2", "--output", str(out), "--json", str(data)],
        capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads(data.read_text())["results"]
    assert len(results) == 8 and all(r["pairs"] == 16 and r["pairs_per_s"] > 0 for r in results)
    assert max(r["max_abs_vs_first_setting"] for r in results) < 1e-4  # batching and pooling change no answer
    # Pooling the two topics encodes each document once per call, not once per topic: fewer tokens run.
    assert min(r["computed_tokens"] for r in results if r["pool_topics"] == 2) < \
        min(r["computed_tokens"] for r in results if r["pool_topics"] == 1)
    text = out.read_text()
    agreement = next(line for line in text.splitlines() if line.startswith("Agreement"))
    assert "same side of 0.5 100.0%" in agreement and "max |ΔP| 0.0000" in agreement
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"version": "x"}\n{"qid": "q0"}\n')
    done = subprocess.run([sys.executable, str(ROOT / "eval" / "bench_oracle_throughput.py"), "run", "--pairs",
                           str(bad), "--model", str(folder), "--output", str(out)], capture_output=True, text=True)
    assert done.returncode != 0 and "line 2 lacks its fields" in done.stderr


def test_fusion_benchmark_refuses_records(tmp_path):
    """`bench_fusion.py` re-fuses the posteriors of a rerank record under each rule: the low, close posteriors that
    the always-on lift lets overturn the base's right answer keep it under the default rule, and so do posteriors
    that are all near 0 (the lift floor), and near-equal judgements of the base's top (the tie spread), while a
    candidate singled out above the floor is still lifted."""
    import json

    rows = [("a", 1, 9.0, 0.23), ("b", 2, 5.0, 0.31), ("c", 3, 1.0, 0.10)]  # a is relevant
    far = [("d", 1, 9.0, 0.10), ("e", 2, 1.5, 0.30), ("f", 3, 1.0, 0.04)]  # e is relevant, singled out
    noise = [("g", 1, 9.0, 0.025), ("h", 2, 5.0, 0.075), ("i", 3, 1.0, 0.01)]  # g is relevant; all judged unlikely
    tie = [("j", 1, 9.0, 0.45), ("k", 2, 8.5, 0.52), ("l", 3, 1.0, 0.44)]  # j is relevant; no judgement tells them apart
    record = tmp_path / "run.txt.rerank.jsonl"
    record.write_text("".join(json.dumps({"qid": q, "reranked": [
        {"docid": d, "base_rank": r, "base_score": b, "posterior": p, "score": 0.0} for d, r, b, p in cands]}) + "\n"
        for q, cands in (("q1", rows), ("q2", far), ("q3", []), ("q4", noise), ("q5", tie))))
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 a 1\nq2 0 e 1\nq3 0 z 1\nq4 0 g 1\nq5 0 j 1\n")
    done = subprocess.run(
        [sys.executable, str(ROOT / "eval" / "bench_fusion.py"), "--set", f"toy={record},{qrels}",
         "--rules", "default,lift-always,no-lift,no-floor,no-tie", "--results", str(tmp_path)],
        capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    text = (tmp_path / "fusion.md").read_text()
    lost = {line.split("|")[2].strip(): line.split("|")[4].strip() for line in text.splitlines()
            if line.startswith("| toy |") and line.count("|") == 6}
    assert lost == {"default": "–", "lift-always": "q1 q4 q5", "no-lift": "q5", "no-floor": "q4 q5", "no-tie": "q5"}
    # Per set: base, Boolean peer (not given), then the rules; only the default gets all four topics right (no-lift
    # leaves q2's singled-out answer at rank 2).  q3 fell back (no candidates) and is not scored.
    row = next(line for line in text.splitlines() if line.startswith("| toy | 4 |")).split("|")
    assert [c.strip().split(" / ")[-1] for c in row[3:10]] == ["0.75", "–", "1.00", "0.25", "0.50", "0.50", "0.75"]
    bad = subprocess.run([sys.executable, str(ROOT / "eval" / "bench_fusion.py"), "--set", f"toy={record}",
                          "--results", str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert bad.returncode == 2 and "NAME=RECORD,QRELS" in bad.stderr


def test_long_question_builder_writes_one_topic_line_per_question(tmp_path):
    """A question typed as a list keeps its line breaks in questions.jsonl; topics.tsv folds them (a TSV field holds
    none), so every set the builder writes can be searched (eval/longq17 lt04 failed to load before)."""
    import json

    spec = tmp_path / "questions.jsonl"
    questions = [
        {"qid": "x1", "kind": "exclusion", "question": "Practice amp for guitar.\n- budget $200\n- no tube amps\tplease",
         "pos": ["practice amplifiers", "guitar tone", "home recording"], "neg": ["tube amps"]},
        {"qid": "x2", "kind": "none", "question": "Why won't my amp turn on?",
         "pos": ["amplifier repair", "power supply faults", "fuse replacement"], "neg": []},
    ]
    spec.write_text("".join(json.dumps(q) + "\n" for q in questions))
    done = subprocess.run([sys.executable, str(ROOT / "eval" / "longq_build.py"), "--spec", str(spec),
                           "--out", str(tmp_path / "set")], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    from logical_pyserini._topics import read_topics

    topics = read_topics(str(tmp_path / "set" / "topics.tsv"))
    assert list(topics) == ["x1", "x2"]
    assert topics["x1"] == "Practice amp for guitar. - budget $200 - no tube amps please"
    qrels = (tmp_path / "set" / "qrels.txt").read_text().split("\n")
    assert sum(line.startswith("x1 ") for line in qrels) == 4 + 4 + 3  # relevant, hard negatives, partial matches

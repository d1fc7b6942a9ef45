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

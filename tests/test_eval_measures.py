"""The seed-000 measure set and paired sign tests in logical_pyserini.eval (no JVM needed)."""

from __future__ import annotations

import math

import pytest

from logical_pyserini.eval import evaluate_runs, per_query_values, sign_test, sign_tests
from logical_pyserini.eval.__main__ import main

QRELS = "".join(f"q{i} 0 d{i}a 1\nq{i} 0 d{i}b 1\nq{i} 0 x 0\n" for i in range(1, 7))


def _run(path, ranking_of):
    with open(path, "w") as f:
        for i in range(1, 7):
            for rank, doc in enumerate(ranking_of(i), 1):
                f.write(f"q{i} Q0 {doc} {rank} {100 - rank} t\n")
    return path


@pytest.fixture
def files(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(QRELS)
    good = _run(tmp_path / "good.txt", lambda i: [f"d{i}a", f"d{i}b", "x"])
    # bad: relevant docs below a non-relevant one on q1..q5, identical to good on q6.
    bad = _run(tmp_path / "bad.txt", lambda i: [f"d{i}a", f"d{i}b", "x"] if i == 6 else ["x", f"d{i}a"])
    return qrels, good, bad


def test_sign_test_is_the_exact_two_tailed_binomial():
    assert sign_test(0, 5) == pytest.approx(2 / 32)
    assert sign_test(5, 0) == pytest.approx(2 / 32)
    assert sign_test(3, 3) == 1.0 and sign_test(0, 0) == 1.0
    assert sign_test(2, 8) == pytest.approx(2 * sum(math.comb(10, i) for i in range(3)) / 1024)


def test_seed000_preset_has_f1_from_precision_and_recall(files):
    qrels, good, bad = files
    values = per_query_values(qrels, bad, "seed000")
    assert list(values["q1"]) == ["P@1", "R@1", "F1@1", "nDCG@1", "P@10", "R@10", "F1@10", "nDCG@10", "RR"]
    q1 = values["q1"]
    assert q1["P@1"] == 0 and q1["F1@1"] == 0 and q1["RR"] == 0.5
    assert q1["P@10"] == pytest.approx(0.1) and q1["R@10"] == 0.5
    assert q1["F1@10"] == pytest.approx(2 * 0.1 * 0.5 / 0.6)
    row = evaluate_runs(qrels, {"good": good}, "seed000")[0]
    assert row.values["F1@1"] == pytest.approx(2 * 1 * 0.5 / 1.5) and row.values["RR"] == 1.0


def test_sign_tests_pair_queries_and_drop_ties_per_group(files):
    qrels, good, bad = files
    groups = {f"q{i}": "a" if i <= 3 else "b" for i in range(1, 7)}
    rows = sign_tests(qrels, {"bad": bad, "good": good}, "P@1", baseline="bad", groups=groups)
    by_group = {r.group: r for r in rows}
    assert (by_group["all"].wins, by_group["all"].losses, by_group["all"].ties) == (5, 0, 1)
    assert by_group["all"].p == pytest.approx(0.0625)
    assert (by_group["b"].wins, by_group["b"].ties) == (2, 1) and by_group["b"].p == 0.5
    with pytest.raises(ValueError, match="baseline"):
        sign_tests(qrels, {"good": good}, "P@1", baseline="nope")


def test_cli_writes_measures_and_sign_tests(files, tmp_path, capsys):
    qrels, good, bad = files
    out = tmp_path / "table.md"
    assert main(["--qrels", str(qrels), "--run", f"bad={bad}", f"good={good}", "--measures", "seed000",
                 "--sign-test", "nDCG@10", "--output", str(out)]) == 0
    text = out.read_text()
    assert "F1@10" in text and "| all   | good | bad | nDCG@10 | 5    | 0      | 1    | 0.0625" in text
    assert main(["--qrels", str(qrels), "--run", str(good), "--measures", "F2@3"]) == 2
    assert "unknown measure" in capsys.readouterr().err

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

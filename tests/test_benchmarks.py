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
    assert "| 2,000 | 1000 | 1000 |" in text
    rows = [line for line in text.splitlines() if line.startswith("| 2,000")]
    assert len(rows) == 3
    for row in rows:
        ratio = float(row.split("|")[6])
        assert 0 < ratio < 100
    assert "| 2         | logical |" in text  # effectiveness by number of negations

"""The one run pipeline: per-topic errors, atomic output, resuming an interrupted run."""

from __future__ import annotations

import pytest

TOPICS = {
    "q1": "museum AND Paris AND NOT art",
    "q2": "museum AND (Paris OR Amsterdam)",
    "bad": "museum AND (Paris",
    "q3": "science AND museum",
}


def _run_lines(path) -> dict[str, list[str]]:
    return _run_lines_text(path.read_text())


def test_run_topics_reports_bad_topics_and_writes_the_others(searcher, tmp_path):
    from logical_pyserini.search import SearchConfig, run_topics

    out = tmp_path / "runs" / "run.txt"
    report = run_topics(SearchConfig(topics="-", output=str(out), hits=5, quiet=True), searcher=searcher,
                        topics=TOPICS)
    assert list(report.failures) == ["bad"] and "position" in report.failures["bad"]
    assert report.searched == 3 and report.topics == 4
    lines = _run_lines(out)
    assert set(lines) == {"q1", "q2", "q3"}
    assert lines["q1"][0].split()[2] in {"m02", "m07"}  # a non-art Paris museum first
    assert not (tmp_path / "runs" / "run.txt.partial").exists()  # renamed into place when complete


def test_resume_keeps_complete_topics_and_redoes_the_cut_one(searcher, tmp_path):
    from logical_pyserini.search import SearchConfig, run_topics

    out = tmp_path / "run.txt"
    config = SearchConfig(topics="-", output=str(out), hits=5, quiet=True)
    topics = {q: t for q, t in TOPICS.items() if q != "bad"}
    full = run_topics(config, searcher=searcher, topics=topics)
    assert not full.failures
    expected = out.read_text()
    # An interrupted run: q1 complete (marked, to see that it is kept, not redone), q2 cut mid-line.
    q1 = [line.replace(" logical", " earlier") + "\n" for line in _run_lines(out)["q1"]]
    q2 = _run_lines(out)["q2"]
    out.unlink()
    (tmp_path / "run.txt.partial").write_text("".join(q1) + q2[0] + "\n" + q2[1][:12])
    config.resume = True
    report = run_topics(config, searcher=searcher, topics=topics)
    assert report.resumed == 1 and report.searched == 2
    lines = _run_lines(out)
    assert [line + "\n" for line in lines["q1"]] == q1  # kept as it was
    assert "\n".join(lines["q2"] + lines["q3"]) + "\n" == "".join(
        line + "\n" for q in ("q2", "q3") for line in _run_lines_text(expected)[q])
    assert not (tmp_path / "run.txt.partial").exists()
    # With nothing interrupted there is nothing to keep: the run is redone, to the first run's bytes.
    again = run_topics(config, searcher=searcher, topics=topics)
    assert again.searched == 3 and again.resumed == 0 and out.read_text() == expected


def _run_lines_text(text: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for line in text.splitlines():
        out.setdefault(line.split()[0], []).append(line)
    return out


def test_config_errors_fail_before_any_search(tmp_path):
    from logical_pyserini.search import SearchConfig, run_topics

    with pytest.raises(ValueError, match="give --index"):
        run_topics(SearchConfig(topics="t.tsv", output=str(tmp_path / "r.txt")))
    with pytest.raises(ValueError, match="--hits must be >= 1"):
        run_topics(SearchConfig(topics="t.tsv", output=str(tmp_path / "r.txt"), index="x", hits=0))
    assert not any(tmp_path.iterdir())

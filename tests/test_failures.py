"""Hostile and careless input: one clear line, the right exit code, nothing lost."""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from logical_pyserini._topics import TopicsError, read_topics
from logical_pyserini.search.__main__ import main as search_main

REPO = Path(__file__).parents[1]


def search(index, topics, output, *extra):
    return search_main(["--index", str(index), "--topics", str(topics), "--output", str(output), "--hits", "5",
                        "--quiet", *extra])


# -- topics -------------------------------------------------------------------
def test_bom_is_not_part_of_the_first_qid(tmp_path):
    path = tmp_path / "t.tsv"
    path.write_bytes("\ufeffq1\tmuseum\r\nq2\tart\u2028gallery\r\n".encode("utf-8"))
    assert read_topics(path) == {"q1": "museum", "q2": "art\u2028gallery"}  # U+2028 does not split a line
    jsonl = tmp_path / "t.jsonl"
    jsonl.write_bytes('\ufeff{"qid": "q1", "query": "museum"}\n'.encode("utf-8"))
    assert read_topics(jsonl) == {"q1": "museum"}


@pytest.mark.parametrize("qid", ["q\x1b1", "q\x001", "q 1", "q\u200b1"])
def test_control_characters_and_spaces_in_qids_are_rejected(tmp_path, qid):
    path = tmp_path / "t.jsonl"
    path.write_text('{"qid": "ok", "query": "a"}\n' + json.dumps({"qid": qid, "query": "museum"}) + "\n",
                    encoding="utf-8")
    with pytest.raises(TopicsError, match=rf"t.jsonl:2: qid .* contains .*U\+{ord(qid[1]):04X}"):
        read_topics(path)


# -- queries ------------------------------------------------------------------
def test_too_deep_topic_fails_alone(tmp_path, museum_index, capsys):
    topics = tmp_path / "t.tsv"
    deep = "(" * 500 + "museum" + ")" * 500
    topics.write_text(f"ok\tmuseum AND NOT art\ndeep\t{deep}\nnot\t{'NOT ' * 400}art\nok2\tscience\n")
    run = tmp_path / "run.txt"
    assert search(museum_index, topics, run) == 1
    err = capsys.readouterr().err
    assert "failed qid deep: query nests deeper than 100" in err and "failed qid not: query nests deeper" in err
    assert "Traceback" not in err
    assert [line.split()[0] for line in run.read_text().splitlines()].count("ok2") > 0


# -- indexes and outputs ------------------------------------------------------
def test_corrupted_index_is_one_line_exit_2(tmp_path, museum_index, capsys):
    broken = tmp_path / "broken"
    shutil.copytree(museum_index, broken)
    for f in broken.iterdir():
        if not f.name.startswith(("segments", "write.lock")):
            f.write_bytes(f.read_bytes()[: max(1, f.stat().st_size // 3)])  # a half-copied index
    topics = tmp_path / "t.tsv"
    topics.write_text("q1\tmuseum AND art\n")
    assert search(broken, topics, tmp_path / "run.txt") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("error: cannot open the index") and "--overwrite" in err[-1]
    (broken / next(p.name for p in broken.iterdir() if p.name.startswith("segments_"))).unlink()
    assert search(broken, topics, tmp_path / "run.txt") == 2
    assert "no segments_N file" in capsys.readouterr().err


@pytest.mark.parametrize("where", ["under_a_file", "a_directory"])
def test_unwritable_output_is_one_line_exit_2(tmp_path, museum_index, capsys, where):
    topics = tmp_path / "t.tsv"
    topics.write_text("q1\tmuseum AND art\n")
    blocker = tmp_path / "file"
    blocker.write_text("x")
    output = blocker / "run.txt" if where == "under_a_file" else tmp_path
    assert search(museum_index, topics, output) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and "Traceback" not in err[0]


def test_full_disk_keeps_previous_run_and_says_how_to_resume(tmp_path, museum_index, capsys):
    topics = tmp_path / "t.tsv"
    topics.write_text("".join(f"q{i}\tmuseum AND (paris OR amsterdam) AND NOT art{i}\n" for i in range(300)))
    run = tmp_path / "run.txt"
    run.write_text("previous run\n")
    # A file-size limit makes writes past 4 kB fail as a full disk would (EFBIG instead of ENOSPC).
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    old_handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (4096, hard))
    try:
        code = search(museum_index, topics, run)
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, old_handler)
    assert code == 2
    err = capsys.readouterr().err
    assert "File too large" in err and "--resume" in err and "Traceback" not in err
    assert run.read_text() == "previous run\n"


def test_killed_run_keeps_previous_file_and_resume_completes_it(tmp_path, museum_index):
    topics = tmp_path / "t.tsv"
    words = ["paris", "amsterdam", "art", "science", "history", "london"]
    topics.write_text("".join(f"q{i}\tmuseum AND ({words[i % 6]} OR {words[(i + 1) % 6]}) AND NOT "
                              f"{words[(i + 3) % 6]}\n" for i in range(1500)))
    expected = tmp_path / "expected.txt"
    assert search(museum_index, topics, expected, "--batch-size", "1") == 0

    run = tmp_path / "run.txt"
    run.write_text("previous run\n")
    partial = tmp_path / "run.txt.partial"
    proc = subprocess.Popen(
        [sys.executable, "-m", "logical_pyserini.search", "--index", str(museum_index), "--topics", str(topics),
         "--output", str(run), "--hits", "5", "--quiet", "--batch-size", "1"],
        env={**os.environ, "PYTHONPATH": str(REPO)}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 240
    while time.time() < deadline and proc.poll() is None:
        if partial.exists() and partial.stat().st_size > 2000:
            proc.send_signal(signal.SIGKILL)
            break
        time.sleep(0.005)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL, "the run ended before it could be killed"
    assert run.read_text() == "previous run\n"  # the old file survives a kill -9

    assert search(museum_index, topics, run, "--batch-size", "1", "--resume") == 0
    assert run.read_bytes() == expected.read_bytes()
    assert not partial.exists()


def test_eval_unwritable_output_is_one_line_exit_2(tmp_path, capsys):
    from logical_pyserini.eval.__main__ import main as eval_main

    (tmp_path / "qrels.txt").write_text("q1 0 d1 1\n")
    (tmp_path / "run.txt").write_text("q1 Q0 d1 1 1.0 x\n")
    (tmp_path / "file").write_text("x")
    code = eval_main(["--qrels", str(tmp_path / "qrels.txt"), "--run", f"a={tmp_path / 'run.txt'}",
                      "--output", str(tmp_path / "file" / "table.md")])
    assert code == 2
    assert capsys.readouterr().err.strip().startswith("error: ")

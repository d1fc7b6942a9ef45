"""CLIs end to end: index -> search -> eval, and their failure modes."""

import subprocess
import sys
from pathlib import Path

import pytest

from logical_pyserini.eval.__main__ import main as eval_main
from logical_pyserini.search.__main__ import main as search_main

TOPICS = "q1\tmuseum AND (Paris OR Amsterdam) AND NOT art\nq2\tscience museum\n"
QRELS = "q1 0 m02 1\nq1 0 m04 1\nq1 0 m07 1\nq1 0 m09 1\nq2 0 m04 1\nq2 0 m07 1\nq2 0 m10 1\n"


@pytest.fixture()
def topics(tmp_path):
    path = tmp_path / "topics.tsv"
    path.write_text(TOPICS)
    (tmp_path / "qrels.txt").write_text(QRELS)
    return path


def run_module(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True, timeout=300)


def test_index_search_eval_end_to_end(tmp_path, museum_corpus, topics):
    index = tmp_path / "idx"
    done = run_module("logical_pyserini.index", "--input", str(museum_corpus), "--index", str(index), "--quiet")
    assert done.returncode == 0, done.stderr
    run = tmp_path / "run.txt"
    done = run_module("logical_pyserini.search", "--index", str(index), "--topics", str(topics),
                      "--output", str(run), "--hits", "5", "--quiet")
    assert done.returncode == 0, done.stderr
    lines = run.read_text().splitlines()
    assert [line.split()[0] for line in lines].count("q1") == 5
    assert lines[0].split()[2] in {"m02", "m04", "m07", "m09"}
    done = run_module("logical_pyserini.eval", "--qrels", str(tmp_path / "qrels.txt"), "--run", f"logical={run}",
                      "--measures", "nDCG@10 P@1")
    assert done.returncode == 0, done.stderr
    row = next(line for line in done.stdout.splitlines() if "logical" in line)
    assert float(row.split("|")[5]) == 1.0  # P@1 of both topics


def test_bad_query_is_reported_and_others_still_run(tmp_path, museum_index, capsys):
    topics = tmp_path / "t.tsv"
    topics.write_text("ok\tmuseum AND NOT art\nbad\tmuseum AND (art\nneg\tNOT art\n")
    run = tmp_path / "run.txt"
    code = search_main(["--index", str(museum_index), "--topics", str(topics), "--output", str(run), "--quiet"])
    assert code == 1
    err = capsys.readouterr().err
    assert "failed qid bad: unbalanced parentheses" in err and "position 11" in err
    assert "qid neg" not in err  # exact top-k answers NOT-only queries...
    assert {line.split()[0] for line in run.read_text().splitlines()} == {"ok", "neg"}
    code = search_main(["--index", str(museum_index), "--topics", str(topics), "--output", str(run), "--quiet",
                        "--pooled"])
    assert "failed qid neg: NoPositiveTermError" in capsys.readouterr().err  # ...a pool cannot
    assert {line.split()[0] for line in run.read_text().splitlines()} == {"ok"}


def test_missing_index_exits_non_zero(tmp_path, topics):
    done = run_module("logical_pyserini.search", "--index", str(tmp_path / "missing"), "--topics", str(topics),
                      "--output", str(tmp_path / "r.txt"))
    assert done.returncode == 2
    assert "Lucene index not found" in done.stderr
    assert "Traceback" not in done.stderr


def test_plain_baseline_and_jsonl_topics(tmp_path, museum_index):
    topics = tmp_path / "t.jsonl"
    topics.write_text('{"qid": "q1", "query": "science museum"}\n')
    run = tmp_path / "run.txt"
    assert search_main(["--index", str(museum_index), "--topics", str(topics), "--output", str(run),
                        "--plain", "--quiet", "--hits", "3"]) == 0
    assert [line.split()[5] for line in run.read_text().splitlines()] == ["bm25"] * 3


def test_search_rejects_bad_flags(museum_index, topics, tmp_path):
    with pytest.raises(SystemExit):
        search_main(["--index", str(museum_index), "--topics", str(topics), "--output", "x", "--and", "xor"])
    # sigmoid without its parameters is a usage error, reported before any search runs.
    assert search_main(["--index", str(museum_index), "--topics", str(topics), "--output", str(tmp_path / "r"),
                        "--normalize", "sigmoid"]) == 2
    assert not (tmp_path / "r").exists()


def test_eval_group_by_and_missing_queries_count_zero(tmp_path, capsys):
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.txt").write_text("q1 Q0 m02 1 2.0 x\nq1 Q0 m01 2 1.0 x\n")  # q2 missing from the run
    (tmp_path / "meta.jsonl").write_text('{"qid": "q1", "negations": 1}\n{"qid": "q2", "negations": 0}\n')
    code = eval_main(["--qrels", str(tmp_path / "qrels.txt"), "--run", str(tmp_path / "run.txt"),
                      "--measures", "P@1", "--group-by", f"{tmp_path / 'meta.jsonl'}:negations"])
    assert code == 0
    rows = {line.split("|")[1].strip(): float(line.split("|")[4]) for line in capsys.readouterr().out.splitlines()[2:]}
    assert rows == {"all": 0.5, "0": 0.0, "1": 1.0}


def test_eval_errors(tmp_path):
    (tmp_path / "q.txt").write_text(QRELS)
    assert eval_main(["--qrels", str(tmp_path / "q.txt"), "--run", str(tmp_path / "missing.txt")]) == 2
    (tmp_path / "r.txt").write_text("q1 Q0 m02 1 2.0 x\n")
    assert eval_main(["--qrels", str(tmp_path / "q.txt"), "--run", str(tmp_path / "r.txt"), "--measures", "Bogus@3"]) == 2


@pytest.mark.parametrize(
    "content, suffix, message",
    [
        ("q1\tfoo\nq1\tbar\n", ".tsv", "duplicate qid 'q1'"),
        ("q1 foo\n", ".tsv", "expected 'qid<TAB>query'"),
        ('{"qid": "q1"}\n', ".jsonl", "needs an id"),
        ("q1\t   \n", ".tsv", "empty query"),
        ("\n\n", ".tsv", "no topics"),
    ],
)
def test_malformed_topics_name_the_line(tmp_path, museum_index, capsys, content, suffix, message):
    topics = tmp_path / f"t{suffix}"
    topics.write_text(content)
    code = search_main(["--index", str(museum_index), "--topics", str(topics), "--output", str(tmp_path / "r")])
    assert code == 2
    assert message in capsys.readouterr().err


def test_rewrite_then_search_records_the_rewrites(tmp_path, museum_index, searcher, capsys):
    topics = tmp_path / "natural.tsv"
    topics.write_text("q1\tmuseums in Paris that are not art museums\nq2\tscience museums\n")
    run = tmp_path / "run.txt"
    code = search_main(["--index", str(museum_index), "--topics", str(topics), "--output", str(run),
                        "--rewrite", "rules", "--hits", "3", "--quiet"])
    assert code == 0
    rewrites = dict(line.split("\t")[:2] for line in (tmp_path / "run.txt.rewrites.tsv").read_text().splitlines())
    # The default guard keeps the reliable parse and narrows the exclusion to the word the question excludes.
    assert rewrites["q1"] == '"museums in Paris" AND NOT "art"'
    assert "NOT" not in rewrites["q2"]
    # Rewriting on the fly ranks exactly like searching the recorded rewrite.
    top = [line.split()[2] for line in run.read_text().splitlines() if line.startswith("q1 ")]
    assert top == [h.docid for h in searcher.search(rewrites["q1"], 3)]
    assert "rewrite: rules=2" in capsys.readouterr().err


def test_llm_draft_rewrite_from_the_cli_sees_the_rules_draft(tmp_path, museum_index, capsys):
    from stub_server import serve

    asked = []

    def reply(path, body, headers):
        asked.append(body["messages"][-1]["content"])
        return {"choices": [{"message": {"content": '"museums in Paris" AND NOT "art museums"'}}]}

    server, url = serve(reply)
    try:
        topics = tmp_path / "natural.tsv"
        topics.write_text("q1\tmuseums in Paris that are not art museums\n")
        run = tmp_path / "run.txt"
        code = search_main(["--index", str(museum_index), "--topics", str(topics), "--output", str(run),
                            "--rewrite", "llm-draft", "--model", "openai:stub", "--base-url", url,
                            "--api-key", "sk-test", "--rewrite-guard", "off", "--hits", "3", "--quiet"])
    finally:
        server.shutdown()
        server.server_close()
    assert code == 0 and len(asked) == 1
    assert 'Draft (JSON string): "\\"museums in Paris\\" AND NOT \\"art museums\\""' in asked[0]
    rewrites = dict(line.split("\t")[:2] for line in (tmp_path / "run.txt.rewrites.tsv").read_text().splitlines())
    assert rewrites["q1"] == '"museums in Paris" AND NOT "art"'  # the NOT narrowed to its qualifier
    assert run.read_text().startswith("q1 Q0 ")


def test_orlog_rerank_from_the_cli(tmp_path, museum_index, topics, capsys, caplog):
    run = tmp_path / "run.txt"
    with caplog.at_level("INFO"):
        code = search_main(["--index", str(museum_index), "--topics", str(topics), "--output", str(run),
                            "--rerank", "orlog", "--oracle", "dense", "--rerank-depth", "5", "--hits", "8", "--quiet"])
    assert code == 0
    assert not [r for r in caplog.records if r.name.startswith("problog")]  # no per-topic grounding timings
    err = capsys.readouterr().err
    assert "rerank orlog: 2 topics, 0 fell back" in err
    q1 = [line.split() for line in run.read_text().splitlines() if line.startswith("q1 ")]
    assert len(q1) == 8
    scores = [float(row[4]) for row in q1]
    assert scores == sorted(scores, reverse=True)  # run order agrees with the written scores


def test_bad_oracle_fails_before_searching(tmp_path, museum_index, topics, capsys):
    code = search_main(["--index", str(museum_index), "--topics", str(topics), "--output", str(tmp_path / "r"),
                        "--rerank", "orlog", "--oracle", "hf:/no/such/model"])
    assert code == 2
    assert not (tmp_path / "r").exists()


def test_overwrite_with_a_bad_corpus_keeps_the_existing_index(tmp_path, museum_corpus):
    from logical_pyserini.index import build_lucene_index

    index = tmp_path / "idx"
    build_lucene_index(museum_corpus, index, progress=False)
    before = sorted(p.name for p in index.iterdir())
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x", "contents": "fine"}\n{"id": "y", "contents": \n')
    with pytest.raises(ValueError, match="bad.jsonl:2: invalid JSON"):
        build_lucene_index(bad, index, overwrite=True, progress=False)
    assert sorted(p.name for p in index.iterdir()) == before
    with pytest.raises(FileExistsError, match="--overwrite"):
        build_lucene_index(museum_corpus, index, progress=False)


def test_search_help_names_real_defaults_only():
    """Flags whose default is resolved per oracle or model show the one their help names, never '(default: None)'."""
    from logical_pyserini.rerank import TIE_SPREAD, TIE_TOP
    from logical_pyserini.search.__main__ import build_parser

    text = " ".join(build_parser().format_help().split())
    assert "(default: None)" not in text and "(default: False)" not in text
    assert f"base run's top {TIE_TOP} hits" in text and f"default {TIE_SPREAD:g} for --oracle llm" in text
    assert "(default: 100)" in text or "(default: 1000)" in text  # real defaults are still shown


def _search_with_stub(reply, flags: list[str], output) -> dict[str, str]:
    """Run search (``flags``) against a loopback OpenAI-compatible server answering with ``reply``; check it exits 0
    and return the rewrites it wrote next to ``output`` (qid -> query)."""
    from stub_server import serve

    server, url = serve(reply)
    try:
        assert search_main([*flags, "--output", str(output), "--base-url", url]) == 0
    finally:
        server.shutdown()
        server.server_close()
    return dict(line.split("\t")[:2] for line in Path(f"{output}.rewrites.tsv").read_text().splitlines())


def _claims_reply(claims: list, true_when: str):
    """An OpenAI-compatible completions reply that records each prompt's claim line in ``claims`` and answers True
    (logprobs) for the claims that hold ``true_when``, False for the others."""
    def reply(path, body, headers):
        choices = []
        for i, prompt in enumerate(body["prompt"]):
            claim = prompt[prompt.rindex("Claim:"):].splitlines()[0]
            claims.append(claim)
            top = {" True": -0.1, " False": -2.5} if true_when in claim else {" False": -0.1, " True": -2.5}
            choices.append({"index": i, "text": "x", "logprobs": {"top_logprobs": [top]}})
        return {"choices": choices, "usage": {"prompt_tokens": 7 * len(body["prompt"])}}

    return reply


def test_rewrite_verify_from_the_cli_vetoes_what_the_model_calls_a_situation(tmp_path, museum_index, capsys):
    """--rewrite-verify model over an OpenAI-compatible server: the exclusion it judges part of the asker's
    situation leaves the rewrite (the question is searched plain), the other stays; a failing server keeps both."""
    claims = []

    topics = tmp_path / "natural.tsv"
    topics.write_text("q1\tmuseums in Paris that are not art museums\nq2\tmuseums in Paris, not the Louvre\n")
    flags = ["--index", str(museum_index), "--topics", str(topics), "--rewrite", "rules", "--rewrite-verify", "model",
             "--model", "openai:stub", "--api-key", "sk-test", "--hits", "3", "--quiet"]
    rewrites = _search_with_stub(_claims_reply(claims, '"art"'), flags, tmp_path / "run.txt")
    assert rewrites == {"q1": '"museums in Paris that are not art museums"', "q2": '"museums in Paris" AND NOT "Louvre"'}
    assert sorted(claims) == sorted(['Claim: "art" is part of the writer\'s own situation or problem, not something '
                                     'they reject.', 'Claim: "Louvre" is part of the writer\'s own situation or '
                                     'problem, not something they reject.'])
    assert "exclusion check: judged=2, vetoed=1, failures=0" in capsys.readouterr().err

    rewrites = _search_with_stub(lambda path, body, headers: (500, {"error": "overloaded"}),
                                 [*flags, "--llm-concurrency", "1"], tmp_path / "run2.txt")
    assert rewrites["q1"] == '"museums in Paris" AND NOT "art"'  # the guard's decision, kept
    assert "failures=2" in capsys.readouterr().err


def test_rewrite_propose_from_the_cli_adds_the_name_the_model_reads_as_refused(tmp_path, museum_index, capsys):
    """--rewrite-propose model over an OpenAI-compatible server: one claim per capitalised name, the name the model
    reads as refused becomes a soft NOT of the question kept whole; a failing server proposes nothing."""
    claims = []
    question = "museums in Paris for a rainy day, the Louvre queues broke me last time"
    topics = tmp_path / "natural.tsv"
    topics.write_text(f"q1\t{question}\n")
    flags = ["--index", str(museum_index), "--topics", str(topics), "--rewrite", "rules", "--rewrite-propose", "model",
             "--model", "openai:stub", "--api-key", "sk-test", "--hits", "3", "--quiet"]
    rewrites = _search_with_stub(_claims_reply(claims, '"Louvre"'), flags, tmp_path / "run.txt")
    assert rewrites == {"q1": '"museums in Paris for a rainy day the queues broke me last time" AND NOT^0.3 "Louvre"'}
    assert sorted(c.split('"')[1] for c in claims) == ["Louvre", "Paris"]
    assert "exclusion proposals: asked=1, proposed=1, failures=0" in capsys.readouterr().err

    rewrites = _search_with_stub(lambda path, body, headers: (500, {"error": "overloaded"}),
                                 [*flags, "--llm-concurrency", "1"], tmp_path / "run2.txt")
    assert rewrites["q1"] == f'"{question}"'  # nothing proposed: the question as typed, plain
    assert "asked=0, proposed=0, failures=1" in capsys.readouterr().err

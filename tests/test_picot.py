"""π-CoT: real SWI-Prolog (pyswip), a real Lucene index of a tiny PhantomWiki universe.

The fixture universe ``tests/data/picot_tiny`` was made by the real generator
(``python eval/picot_data.py phantomwiki --seed 3 --size 12 --questions-per-type 1``: 12 articles,
50 questions of 1-9 hops) and is committed, so no test needs the Python 3.12 side environment.
"""

from __future__ import annotations

import json
import threading
from contextlib import contextmanager
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data" / "picot_tiny"


@pytest.fixture(scope="module")
def engine():
    from logical_pyserini.picot import PrologEngine, PrologUnavailable

    try:
        return PrologEngine.get()
    except PrologUnavailable as exc:  # CI installs it (.ci/run -> make); say how, do not skip
        pytest.fail(f"SWI-Prolog is required for the π-CoT tests: {exc}")


@pytest.fixture(scope="module")
def tiny_index(tmp_path_factory, engine):
    from logical_pyserini.index import build_lucene_index

    index = tmp_path_factory.mktemp("picot") / "index"
    assert build_lucene_index(DATA / "corpus.jsonl", index, progress=False) == 12
    return index


@pytest.fixture(scope="module")
def executor(tiny_index):
    from logical_pyserini.picot import LuceneRetriever, SliceExecutor, TemplateReader, phantomwiki_schema

    schema = phantomwiki_schema((DATA / "rules.pl").read_text())
    return SliceExecutor(schema, TemplateReader(schema), LuceneRetriever(tiny_index, DATA / "corpus.jsonl"), k=10)


def questions():
    from logical_pyserini.picot import load_questions

    return load_questions(DATA / "questions.jsonl")


# -- the knowledge base ---------------------------------------------------------------------

INJECTIONS = [
    'x"), assertz(evil(1)), ("',
    "a'), halt, ('",
    'end". evil(2). x("',
    "back\\slash \\\" quote\nnew line\u0000nul",
    "%comment */ /* :- evil(3).",
]


@pytest.mark.parametrize("value", INJECTIONS)
def test_answer_strings_cannot_inject_clauses(engine, value):
    from logical_pyserini.picot import Goal, KnowledgeBase

    with KnowledgeBase({"job": 2}) as kb:
        assert kb.add_fact("job", ["Ann", value])
        kb.mark_acquired(Goal("job", ("Ann", None)))
        assert kb.states('job("Ann", Y)') == [{"Y": value}]      # stored verbatim, as one string
        assert kb.facts() == [Goal("job", ("Ann", value))]
        assert not engine.run("current_predicate(evil/_)")
        assert not engine.run(f"current_predicate({kb.module}:evil/_)")


def test_only_readable_predicates_take_facts_and_bad_names_are_refused(engine):
    from logical_pyserini.picot import KnowledgeBase, QueryError

    with KnowledgeBase({"job": 2}) as kb:
        assert not kb.add_fact("halt", ["x"])                   # not readable here: nothing asserted
        with pytest.raises(QueryError):
            kb.add_fact("job), halt, (x", ["a", "b"])
        with pytest.raises(QueryError, match="unknown predicate"):
            kb.parse('job(X, Y), shell("rm -rf /")')
        with pytest.raises(QueryError, match="syntax error"):
            kb.parse('job(X, "unterminated)')
        assert kb.parse('job(X, Y), aggregate_all(count, distinct(job(X, Z)), C)') == ["X", "Y", "Z", "C"]


def test_knowledge_bases_are_isolated_and_removed(engine):
    from logical_pyserini.picot import Goal, KnowledgeBase

    a = KnowledgeBase({"job": 2})
    b = KnowledgeBase({"job": 2}, "worker(X) :- job(X, _).")
    a.add_fact("job", ["Ann", "pilot"])
    b.add_fact("job", ["Bo", "cook"])
    for kb in (a, b):
        kb.mark_acquired(Goal("job", (None, None)))
    assert a.states("job(X, Y)") == [{"X": "Ann", "Y": "pilot"}]
    assert b.states("worker(X)") == [{"X": "Bo"}]
    with pytest.raises(Exception):
        a.states("worker(X)")                                  # b's rule is not visible in a
    module = a.module
    a.close()
    assert not engine.run(f"current_predicate({module}:job/2)")
    assert b.states("job(X, Y)") == [{"X": "Bo", "Y": "cook"}]
    b.close()


def test_pending_goals_drive_acquisition_through_rules(engine):
    """A derived goal asks for exactly the readable goals its rule body needs, step by step."""
    from logical_pyserini.picot import Goal, KnowledgeBase

    rules = 'parent(X, Y) :- mother(X, Y).\nparent(X, Y) :- father(X, Y).\nmale(X) :- gender(X, "male").'
    with KnowledgeBase({"mother": 2, "father": 2, "gender": 2}, rules) as kb:
        q = 'parent("Cy", P), male(P)'
        assert kb.pending(q) == [Goal("mother", ("Cy", None)), Goal("father", ("Cy", None))]
        kb.add_fact("mother", ["Cy", "Ann"])
        kb.add_fact("father", ["Cy", "Bo"])
        kb.mark_acquired(Goal("mother", ("Cy", None)))
        kb.mark_acquired(Goal("father", ("Cy", None)))
        # verification goals, one per candidate
        assert kb.pending(q) == [Goal("gender", ("Ann", "male")), Goal("gender", ("Bo", "male"))]
        kb.add_fact("gender", ["Bo", "male"])
        for g in kb.pending(q):
            kb.mark_acquired(g)
        assert kb.pending(q) == []
        assert kb.states(q) == [{"P": "Bo"}]
        assert kb.states('aggregate_all(count, distinct(parent("Cy", P)), C)') == [{"P": None, "C": 2}]


def test_comparisons_of_values_read_from_text(engine):
    """2Wiki's "whose director was born first?" plans compare dates and numbers the reader
    returns as text; plain arithmetic raised a type error and lost the whole question."""
    from logical_pyserini.picot import Goal, KnowledgeBase

    q = ('director("F1", D1), born(D1, B1), director("F2", D2), born(D2, B2), '
         '(B1 < B2 -> Y = "F1" ; Y = "F2")')
    with KnowledgeBase({"director": 2, "born": 2}) as kb:
        for film, person, born in (("F1", "Ann", "May 24, 1925"), ("F2", "Bo", "18 March 1919")):
            kb.add_fact("director", [film, person])
            kb.add_fact("born", [person, born])
        while todo := kb.pending(q):
            for g in todo:
                kb.mark_acquired(g)
        assert [s["Y"] for s in kb.states(q)] == ["F2"]                        # 1919 before 1925
        kb.add_fact("born", ["Cy", "1920"])
        kb.mark_acquired(Goal("born", (None, None)))
        assert kb.states('born(P, B), B >= "1920"') == [{"P": "Ann", "B": "May 24, 1925"},
                                                                {"P": "Cy", "B": "1920"}]
        assert kb.states('born("Ann", B), B > 1900, B =< "82 years"') == []    # 19250524 > 82
        assert kb.states('X = "Leste Chen", X > "harry piel"') == [{"X": "Leste Chen"}]  # text order
        assert kb.states("X < 3") == []                                         # unbound: false, no error
        assert kb.states('X = "45,000 seats", X > "9,999", X < 1000000') == [{"X": "45,000 seats"}]
        assert kb.states('X = "May 24, 1925", X > "May 23, 1925"') == [{"X": "May 24, 1925"}]
    # A rule that compares: the same keys whether the rule runs demand-driven or as plain Prolog.
    with KnowledgeBase({"born": 2}, "older(X, Y) :- born(X, A), born(Y, B), A < B.") as kb:
        kb.add_fact("born", ["Ann", "May 24, 1925"])
        kb.add_fact("born", ["Bo", "18 March 1919"])
        assert kb.pending('older(P, "Ann")') == [Goal("born", (None, None))]
        kb.mark_acquired(Goal("born", (None, None)))
        assert kb.pending('older(P, "Ann")') == []
        assert kb.states('older(P, "Ann")') == [{"P": "Bo"}]


# -- SLICE over a real index ----------------------------------------------------------------

def test_symbolic_path_answers_the_tiny_universe(executor):
    """Gold Prolog + template reader + BM25: every hop count answered exactly."""
    from logical_pyserini.picot import Plan, set_scores

    qs = questions()
    wrong = []
    for q in qs:
        res = executor.run(Plan(q.prolog["query"], q.prolog["answer"]))
        assert res.error is None, (q.qid, res.error)
        assert res.retriever_calls == sum(len(s["calls"]) for s in res.steps)
        if set_scores(res.answers, q.answers)[0] != 1.0:
            wrong.append((q.question, res.answers, q.answers))
    assert len(wrong) <= 0.05 * len(qs), wrong[:3]


def test_trajectory_has_extraction_verification_and_aggregation(executor):
    from logical_pyserini.picot import Plan

    q = next(q for q in questions() if q.prolog["answer"].startswith("Count") and q.hops and q.hops >= 2)
    res = executor.run(Plan(q.prolog["query"], q.prolog["answer"]))
    kinds = {c["kind"] for s in res.steps for c in s["calls"]}
    assert "extract" in kinds
    assert sorted(res.answers) == sorted(q.answers)
    assert all(a.isdigit() for a in res.answers)
    assert len(res.steps) == len(q.prolog["query"])
    assert res.notes and all(n.endswith(".") for n in res.notes)   # verbalised facts for the final prompt
    # a wrong constant finds nothing instead of failing
    res = executor.run(Plan(['job(Y_1, "astronaut of the moon")', "friend(Y_1, Y_2)"], "Y_2"))
    assert res.error is None and res.answers == []


def test_threads_share_the_engine_without_mixing_questions(executor):
    from logical_pyserini.picot import Plan

    qs = questions()[:8]
    expected = {q.qid: sorted(executor.run(Plan(q.prolog["query"], q.prolog["answer"])).answers) for q in qs}
    got: dict[str, list[str]] = {}

    def work(q):
        got[q.qid] = sorted(executor.run(Plan(q.prolog["query"], q.prolog["answer"])).answers)

    threads = [threading.Thread(target=work, args=(q,)) for q in qs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == expected


def test_worker_threads_leave_no_engine_for_swi_to_complain_about_at_exit(executor):
    # A fresh interpreter: SWI starts in the main thread, worker threads query it, the process exits.
    # Engines pyswip attached to the workers used to survive them, and SWI's exit cleanup printed
    # "Failed to stop Prolog threads" after every threaded run.
    import subprocess
    import sys

    code = ("import threading\n"
            "from logical_pyserini.picot._prolog import PrologEngine\n"
            "engine = PrologEngine.get()\n"
            "results = []\n"
            "threads = [threading.Thread(target=lambda: results.append(engine.run('X = 1'))) for _ in range(3)]\n"
            "[t.start() for t in threads]\n[t.join() for t in threads]\n"
            "assert results == [True] * 3 and engine.run('true')\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "Failed to stop Prolog threads" not in proc.stderr + proc.stdout


def test_template_reader_reads_article_sentences():
    from logical_pyserini.picot import TemplateReader, phantomwiki_schema

    reader = TemplateReader(phantomwiki_schema())
    text = ("# Ann Ray\n## Family\nThe sons of Ann Ray are Bo Ray, Cy Ray.\nThe husband of Ann Ray is Dan Ray.\n"
            "## Attributes\nThe date of birth of Ann Ray is 0867-07-12.\nThe occupation of Ann Ray is designer, textile.")
    facts = reader.facts(text)
    assert ("son", ("Ann Ray", "Bo Ray")) in facts and ("son", ("Ann Ray", "Cy Ray")) in facts
    assert ("dob", ("Ann Ray", "0867-07-12")) in facts
    assert ("job", ("Ann Ray", "designer, textile")) in facts           # single-valued: commas kept
    assert ("husband", ("Ann Ray", "Dan Ray")) in facts


# -- metrics, parsing, CLI -------------------------------------------------------------------

def test_answer_set_and_token_scores():
    from logical_pyserini.picot import mean_se, paired_test, set_scores, token_scores

    assert set_scores(["The Ann", "bo"], ["Bo", "ann"]) == (1.0, 1.0)
    em, f1 = set_scores(["Ann", "Cy"], ["Ann", "Bo"])
    assert em == 0.0 and f1 == pytest.approx(0.5)
    assert set_scores([], ["Ann"]) == (0.0, 0.0)
    assert token_scores("the Moscow State University", ["Moscow State University"]) == (1.0, 1.0)
    assert token_scores("yes it is", ["yes"])[1] == 0.0
    assert mean_se([1.0, 0.0, 1.0, 0.0]) == pytest.approx((0.5, 0.2886751))
    t = paired_test([1, 1, 1, 0.9, 1, 1], [0, 0.1, 0, 0, 0.2, 0])
    assert t["mean_diff"] > 0.8 and t["p"] < 0.001
    assert paired_test([1, 0], [1, 0])["p"] == 1.0
    assert (t["wins"], t["losses"], t["ties"]) == (6, 0, 0) and t["sign_p"] == pytest.approx(2 / 64)


def test_paired_test_reports_the_sign_test_over_untied_questions():
    from logical_pyserini.picot import paired_test

    t = paired_test([1, 0.5, 0, 1, 0], [0, 0.5, 0, 0.2, 1])
    assert (t["n"], t["wins"], t["losses"], t["ties"]) == (5, 2, 1, 2) and t["sign_p"] == pytest.approx(1.0)
    t = paired_test([1] * 9 + [0], [0] * 9 + [1])
    assert (t["wins"], t["losses"]) == (9, 1) and t["sign_p"] == pytest.approx(2 * 11 / 1024)


def test_plan_and_answer_parsing():
    from logical_pyserini.picot._llm import parse_answer, parse_plan

    plan, defs = parse_plan('Reasoning...\n**Query:** job(Y1, "a, b"), friend(Y1, Y2)\n**Target:** Y2\n**Definition:**\n'
                            "job(X, Y) | What is the occupation of X? | Whose occupation is Y? | The occupation of X is Y.\n"
                            "friend(X, Y) | Who is the friend of X? | Whose friend is Y? | Y is a friend of X.")
    assert plan.goals == ['job(Y1, "a, b")', "friend(Y1, Y2)"] and plan.target == "Y2"
    assert defs["job"].question([None, "pilot"]) == "Whose occupation is pilot?"
    assert defs["friend"].claim(["Ann", "Bo"]) == "Bo is a friend of Ann."
    assert parse_answer("Ann's friends are listed. The answer is Bo Lee, Cy Tan.") == ["Bo Lee", "Cy Tan"]
    assert parse_answer("so the answer is: 3") == ["3"]
    # what the embedded model actually wrote: the answer first, then an explanation; or no "answer is"
    assert parse_answer("The answer is Alvaro Smock, Barabara Beltran.\n\nTo arrive at this answer, I analyzed "
                        "the evidence, which is long.") == ["Alvaro Smock", "Barabara Beltran"]
    assert parse_answer("The husband of Lannie Smock is Alvaro Smock.") == ["Alvaro Smock"]
    # replies the embedded model wrote: the last copula gives the answer, a relative clause after it is commentary
    assert parse_answer("The hobby of the person whose occupation is theatre manager is radio-controlled car "
                        "racing.") == ["radio-controlled car racing"]
    assert parse_answer("The husband of Lannie Smock is Lissa Coe, who has a hobby of cricket.") == ["Lissa Coe"]
    assert parse_answer("The answer is Bo Lee, whose hobby is chess.") == ["Bo Lee"]
    assert parse_answer("It is racing. The answer is <radio-controlled car racing>.") == ["radio-controlled car racing"]
    assert parse_answer("The answer is <answer>\nThe answer is <answer>\nThe answer is <answer>") == []
    assert parse_answer("The answer is J. R. R. Tolkien. He wrote it.") == ["J. R. R. Tolkien"]
    assert parse_answer("The answer is St. Louis. Yes.") == ["St. Louis"]
    # a relational sentence gives the side the question asks for (replies the embedded model wrote on PW-M)
    assert parse_answer("The answer is The wife of Sidney Toombs is Queenie Toombs.",
                        question="Who is the wife of Sidney Toombs?") == ["Queenie Toombs"]
    assert parse_answer("The answer is the occupation of Hoa Coe is advertising copywriter.",
                        question="Whose occupation is advertising copywriter?") == ["Hoa Coe"]
    assert parse_answer("The occupation of Hoa Coe is advertising copywriter.",
                        question="Whose occupation is advertising copywriter?") == ["Hoa Coe"]
    assert parse_answer("The occupation of Hoa Coe is advertising copywriter.") == ["advertising copywriter"]
    assert parse_answer("The answer is The friends of Ann are Bo Lee, Cy Tan.") == ["Bo Lee", "Cy Tan"]
    assert parse_answer("The answer is the University of Oxford.") == ["the University of Oxford"]
    assert parse_answer("The answer is The evidence says the occupation of Joan Riojas is electronics engineer.",
                        question="Who is the person whose occupation is electronics engineer?") == ["Joan Riojas"]
    # not a relational answer: an apposition before the copula (a HotpotQA reply)
    q = "Which US President was shot on the grounds of the Pan-American Exposition in Buffalo, New York?"
    assert parse_answer("The answer is William McKinley, the 25th President of the United States, was shot on the "
                        "grounds of the Pan-American Exposition in Buffalo, New York.", question=q)[0] == "William McKinley"
    assert parse_answer("The answer is **Bo Lee, Cy Tan and Di Wu**.") == ["Bo Lee", "Cy Tan", "Di Wu"]
    assert parse_answer("The answer is Rosencrantz and Guildenstern.") == ["Rosencrantz and Guildenstern"]
    assert parse_answer("Thus the answer is 1990. Done.") == ["1990"] and parse_answer("") == []
    assert parse_answer("It is based in Paris. The answer is <answer>Paris, France</answer>.") == ["Paris", "France"]
    # Replies cut off by the token limit, as the embedded model wrote them with a 48-token cap: no answer, not a
    # fragment that would be asserted as a fact ("Step 1: Scanning the evidence" became a person before).
    assert parse_answer("To answer this, let's go step by step.\nStep 1: Scanning the evidence") == []
    assert parse_answer("1. The evidence provides information about") == []
    assert parse_answer("Alvaro Smock has 4 friends.") == []  # complete, but no copula: nothing to extract
    assert parse_answer("Step 2: The friends of Bo Lee are Cy Tan, Di Wu.") == ["Cy Tan", "Di Wu"]


def test_cli_symbolic_run_writes_predictions_and_metrics(tiny_index, tmp_path, capsys):
    from logical_pyserini.picot.__main__ import main

    out = tmp_path / "run.jsonl"
    rc = main(["--questions", str(DATA / "questions.jsonl"), "--corpus", str(DATA / "corpus.jsonl"),
               "--index", str(tiny_index), "--method", "picot", "--gold-prolog", "--reader", "template",
               "--llm", "none", "--limit", "6", "--output", str(out), "--quiet"])
    assert rc == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 6 and all(r["prolog"] and r["trajectory"] for r in rows)
    metrics = json.loads(Path(str(out) + ".metrics.json").read_text())
    assert metrics["n"] == 6 and metrics["em"]["mean"] == pytest.approx(sum(r["em"] for r in rows) / 6)
    assert metrics["retriever_calls"]["mean"] > 1 and metrics["model_calls"]["mean"] == 0
    assert set(metrics["by_hops"]) == {str(r["hops"]) for r in rows}
    # a method that needs a model is recorded per question, not a crash
    rc = main(["--questions", str(DATA / "questions.jsonl"), "--index", str(tiny_index), "--method", "rag",
               "--llm", "none", "--limit", "2", "--output", str(tmp_path / "rag.jsonl"), "--quiet"])
    assert rc == 0
    rows = [json.loads(line) for line in (tmp_path / "rag.jsonl").read_text().splitlines()]
    assert all("needs a language model" in r["error"] for r in rows)
    assert main(["--questions", str(tmp_path / "missing.jsonl"), "--index", str(tiny_index),
                 "--output", str(tmp_path / "x.jsonl")]) == 2
    assert "missing.jsonl" in capsys.readouterr().err


# -- the language-model path, against a loopback OpenAI-compatible server -----------------------

LLM_DOCS = [("Ann Ray", "# Ann Ray\nThe occupation of Ann Ray is pilot.\nThe friend of Ann Ray is Bo Lee."),
            ("Bo Lee", "# Bo Lee\nThe occupation of Bo Lee is baker.\nThe friend of Bo Lee is Ann Ray."),
            ("Cy Tan", "# Cy Tan\nThe occupation of Cy Tan is cook.")]


class ScriptedModel:
    """Plays the model: a broken plan first (to exercise the repair round), then a valid one; reader
    questions answered from a table; the final answer repeats the Prolog answer it was given."""

    GOOD = ('**Query:** job(Y1, "pilot"), friend(Y1, Y2)\n**Target:** Y2\n**Definition:**\n'
            "job(X, Y) | What is the occupation of X? | Whose occupation is Y? | The occupation of X is Y.\n"
            "friend(X, Y) | Who is the friend of X? | Whose friend is Y? | Y is a friend of X.")
    READER = {"Whose occupation is pilot?": "Ann Ray", "Who is the friend of Ann Ray?": "Bo Lee"}

    def __init__(self):
        self.prompts: list[str] = []
        self.final_cut = False  # the final reply stops mid-sentence, as at a token limit
        self.final_text = None  # a fixed final reply instead of one that repeats the Prolog answer
        self.extract_reply = "I cannot tell."  # the reply to the answer-extraction turn
        self.extractions: list[list[dict]] = []  # the messages of every answer-extraction turn

    def __call__(self, path, body, headers):
        import re

        from logical_pyserini.picot._llm import prompts

        user = [m["content"] for m in body["messages"] if m["role"] == "user"]
        self.prompts.append(user[-1])
        if user[-1] == prompts()["answer"]["extract"]:
            self.extractions.append(body["messages"])
            text = self.extract_reply
        elif "devise a Prolog query" in user[0]:
            text = "**Query:** job(Y1, pilot(\n**Target:** Y2\n**Definition:**" if len(user) == 1 else self.GOOD
        elif "Notes from a Prolog derivation" in user[-1]:
            gave = re.search(r"<prolog>\n(.*)\n</prolog>", user[-1]).group(1)
            text = "Step 1: The notes say that" if self.final_cut else f"The notes give it. The answer is {gave}."
            text = self.final_text or text
        else:
            q = re.search(r"<question>\n(.*)\n</question>", user[-1]).group(1)
            text = f"From the evidence. The answer is {self.READER.get(q, 'none')}."
        return {"choices": [{"message": {"content": text}}], "usage": {"prompt_tokens": 10, "completion_tokens": 5}}


@pytest.fixture
def llm_corpus(tmp_path):
    """(corpus file, Lucene index) of LLM_DOCS."""
    from conftest import write_corpus

    from logical_pyserini.index import build_lucene_index

    corpus = write_corpus(tmp_path / "c.jsonl", LLM_DOCS)
    build_lucene_index(corpus, tmp_path / "idx", progress=False)
    return corpus, tmp_path / "idx"


@contextmanager
def scripted_server(script):
    """A loopback OpenAI-compatible server played by ``script``; yields its base URL."""
    from stub_server import serve

    server, url = serve(script)
    try:
        yield url
    finally:
        server.shutdown()
        server.server_close()


def test_llm_plan_repair_reader_and_final_answer(engine, llm_corpus):
    from logical_pyserini.models import get_model
    from logical_pyserini.picot import LuceneRetriever, Question, RunConfig, Schema, run_questions

    corpus, index = llm_corpus
    script = ScriptedModel()
    with scripted_server(script) as url:
        model = get_model("openai:scripted", base_url=url, api_key="x", cache=None)
        q = Question("q1", "Who is the friend of the person whose occupation is pilot?", ["Bo Lee"])
        cfg = RunConfig(method="picot", reader="llm", dataset="2wiki", k=2)
        [row] = run_questions([q], cfg, Schema({}), LuceneRetriever(index, corpus), model, progress=False)
        # --slice-hits 1 --max-passage-tokens 4: one passage per SLICE call, each cut to 4 tokens (words here)
        script.prompts.clear()
        cut = RunConfig(method="picot", reader="llm", dataset="2wiki", k=2, slice_k=1, max_passage_tokens=4)
        [row_cut] = run_questions([q], cut, Schema({}), LuceneRetriever(index, corpus),
                                  get_model("openai:scripted", base_url=url, api_key="x", cache=None),
                                  progress=False)
        cut_prompts = list(script.prompts)
        script.final_cut = True  # (another wording: the model layer's answer cache would repeat the reply)
        q2 = Question("q2", "Who is a friend of the person whose occupation is pilot?", ["Bo Lee"])
        [row_fallback] = run_questions([q2], cfg, Schema({}), LuceneRetriever(index, corpus),
                                       get_model("openai:scripted", base_url=url, api_key="x", cache=None),
                                       progress=False)
    assert row["error"] is None, row["error"]
    assert [a["ok"] for a in row["plan_attempts"]] == [False, True]          # one repair round
    assert "syntax error" in row["plan_attempts"][0]["error"]
    assert row["prolog"] == ['job(Y1, "pilot")', "friend(Y1, Y2)"] and row["prolog_answer"] == ["Bo Lee"]
    assert row["prediction"] == ["Bo Lee"] and row["em"] == 1.0 and "answer_from" not in row
    # A final reply cut off before its answer: the Prolog answer stands (and says so), not a fragment,
    # and with no second turn (answer extraction is only for a question Prolog gave no answer).
    assert row_fallback["prediction"] == ["Bo Lee"] and row_fallback["answer_from"] == "prolog"
    assert "reply_extract" not in row_fallback and "reply_extract" not in row and script.extractions == []
    assert row["model_calls"] == 2 + 2 + 1                                    # plan x2, SLICE x2, final
    assert row["retriever_calls"] == 3                                        # SLICE x2 + the question itself
    final = cut_prompts[-1]
    assert "Bo Lee is a friend of Ann Ray." in final                          # notes verbalise the facts
    assert "The occupation of Ann Ray is pilot." in final                     # passages are in the prompt
    assert all(len(c["docs"]) == 1 for s in row_cut["trajectory"] for c in s["calls"])
    assert row_cut["retriever_calls"] == 3 and row_cut["prolog_answer"] == ["Bo Lee"]
    assert "<document>\n# Ann Ray The\n</document>" in cut_prompts[-1]
    passages_part = cut_prompts[-1].split("(END EVIDENCE)")[0]
    assert "The occupation of Ann Ray is pilot." not in passages_part   # only the notes still state it


def test_count_questions_count_the_bindings_their_plan_found():
    from logical_pyserini.picot import Plan, count_answers, is_count_question, needs_count, strip_count_goals

    assert is_count_question("How many friends does Ann Ray have?") and not is_count_question("Who has many friends?")
    p = strip_count_goals(Plan(['husband("Ann", Y1)', "friend(Y1, Y2)", "count(Y2)"], "Y2", "llm"))
    assert p.goals == ['husband("Ann", Y1)', "friend(Y1, Y2)"] and p.target == "Y2"
    only = Plan(["count(Y1)"], "Y1", "llm")
    assert strip_count_goals(only) is only                                  # nothing would be left
    # Two friends of a husband, with 3 and 1 friends of their own: one count per binding (PhantomWiki's
    # answer list); a duplicated state is not counted twice.
    states = [{"Y1": "Bo", "Y2": "Cy", "Y3": t} for t in ("a", "b", "c", "c")] + [{"Y1": "Bo", "Y2": "Di", "Y3": "a"}]
    assert count_answers(states, "Y3") == ["1", "3"]
    chain = Plan(['husband("Ann", Y1)', "friend(Y1, Y2)", "friend(Y2, Y3)"], "Y3")
    assert needs_count("How many friends does the friend of Ann's husband have?", chain, ["a", "b"])
    assert not needs_count("How many seats does it have?", chain, ["45,000"])      # the text's number stays
    assert not needs_count("Who are the friends?", chain, ["a", "b"])
    agg = Plan(['mother("Ann", Y1)', "aggregate_all(count, distinct(child(Y1, Y2)), C)"], "C")
    assert not needs_count("How many children does Ann's mother have?", agg, ["2"])


class CountingScript(ScriptedModel):
    """A count question planned as a chain that ends in an invented ``count(V)`` goal."""

    GOOD = ('**Query:** job(Y1, "pilot"), friend(Y1, Y2), count(Y2)\n**Target:** Y2\n**Definition:**\n'
            "job(X, Y) | What is the occupation of X? | Whose occupation is Y? | The occupation of X is Y.\n"
            "friend(X, Y) | Who is the friend of X? | Whose friend is Y? | Y is a friend of X.\n"
            "count(X) | How many X? | How many X? | There are X.")


def test_llm_count_question_gets_a_count_not_the_names(engine, llm_corpus):
    row = _run_llm_question(llm_corpus, CountingScript(),
                            "How many friends does the person whose occupation is pilot have?", gold=["1"])
    assert row["error"] is None, row["error"]
    assert row["prolog"] == ['job(Y1, "pilot")', "friend(Y1, Y2)"]             # count(Y2) dropped, not read
    assert not any("How many" in c["text"] for s in row["trajectory"] for c in s["calls"])
    assert row["counted"] == ["Bo Lee"] and row["prolog_answer"] == ["1"]
    assert row["prediction"] == ["1"] and row["em"] == 1.0                      # the final prompt saw "1"


class PlanScript(ScriptedModel):
    """Plays the planner with ``plans`` (first reply, repaired reply); the rest as ScriptedModel."""

    def __init__(self, plans, reader=None):
        super().__init__()
        self.plans = plans
        self.READER = {**ScriptedModel.READER, **(reader or {})}

    def __call__(self, path, body, headers):
        user = [m["content"] for m in body["messages"] if m["role"] == "user"]
        if "devise a Prolog query" in user[0]:
            self.prompts.append(user[-1])
            text = self.plans[min(len(user), len(self.plans)) - 1]
            return {"choices": [{"message": {"content": text}}], "usage": {"prompt_tokens": 10, "completion_tokens": 5}}
        return super().__call__(path, body, headers)


def _run_llm_question(llm_corpus, script, question, gold=("Bo Lee",)):
    """One π-CoT question (LLM planner and reader, 2Wiki examples, k = 2) against ``script``; its row."""
    from logical_pyserini.models import get_model
    from logical_pyserini.picot import LuceneRetriever, Question, RunConfig, Schema, run_questions

    corpus, index = llm_corpus
    with scripted_server(script) as url:
        model = get_model("openai:scripted", base_url=url, api_key="x", cache=None)
        cfg = RunConfig(method="picot", reader="llm", dataset="2wiki", k=2)
        [row] = run_questions([Question("q1", question, list(gold))], cfg, Schema({}),
                              LuceneRetriever(index, corpus), model, progress=False)
    return row


def test_check_grounded_and_default_definitions(engine):
    from logical_pyserini.picot import Plan, QueryError, Schema
    from logical_pyserini.picot._llm import check_grounded, default_definition, with_default_definitions

    job = Schema({"job": default_definition("job")})
    q = "Who is the friend of the pilot Ann Ray?"
    check_grounded(q, Plan(['job("Ann Ray", Y)', '(Y = "Yes" -> Z = Y ; Z = "No")'], "Z"), job)  # outputs unchecked
    with pytest.raises(QueryError, match='"Sergei Tokarev"'):
        check_grounded(q, Plan(['job("Sergei Tokarev", Y)'], "Y"), job)
    with pytest.raises(QueryError, match="no sub-query starts from a constant"):  # an enumeration of the corpus
        check_grounded(q, Plan(["job(X, Y)", "job(Z, Y)"], "Z"), job)
    # constants inside aggregate_all / distinct count, and a parenthesis inside a string is part of it
    check_grounded(q, Plan(['aggregate_all(count, distinct(job("Ann Ray", Y)), C)'], "C"), job)
    check_grounded("Who directed Aylwin (Film)?", Plan(['job("Aylwin (Film)", D)'], "D"), job)
    with pytest.raises(QueryError, match='"Bo Kim"'):
        check_grounded(q, Plan(['aggregate_all(count, distinct(job("Bo Kim", Y)), C)'], "C"), job)
    d = default_definition("date_of_death")
    assert d.question(["Ann Ray", None]) == "What is the date of death of Ann Ray?"
    assert d.question([None, "1990"]) == "Whose date of death is 1990?"
    assert d.claim(["Ann Ray", "1990"]) == "The date of death of Ann Ray is 1990."
    plan = Plan(['job("Ann Ray", Y)', "date_of_death(Y, D)"], "D")
    schema, added = with_default_definitions(job, plan)
    assert added == ["date_of_death"] and schema.definition("date_of_death") == d
    with pytest.raises(QueryError, match="syntax"):                       # only missing definitions are filled
        with_default_definitions(job, Plan(["job(Y1, pilot("], "Y1"))


def test_planner_refuses_a_constant_copied_from_elsewhere(engine, llm_corpus):
    copied = ScriptedModel.GOOD.replace('job(Y1, "pilot")', 'job(Y1, "Ada Lutz")')
    row = _run_llm_question(llm_corpus, PlanScript([copied, ScriptedModel.GOOD]),
                            "Who is the friend of the person whose occupation is pilot?")
    assert [a["ok"] for a in row["plan_attempts"]] == [False, True]
    assert '"Ada Lutz"' in row["plan_attempts"][0]["error"] and row["prediction"] == ["Bo Lee"]


def test_a_relation_named_like_a_prolog_builtin_goes_to_the_repair_round(engine, llm_corpus):
    # HotpotQA: "Do Lush and P.O.D. both consist of four band members?" was planned with length/2, which
    # SWI-Prolog protects; it used to end the question with a Prolog error and no answer.
    from logical_pyserini.picot import KnowledgeBase, QueryError

    with pytest.raises(QueryError, match="length/2 is a built-in Prolog predicate"):
        KnowledgeBase({"member": 2, "length": 2})
    with KnowledgeBase({"member": 2}) as kb:                       # a library name (not protected) is fine
        assert kb.add_fact("member", ["P.O.D.", "Sonny Sandoval"])
    builtin = ScriptedModel.GOOD.replace("friend(", "length(")
    row = _run_llm_question(llm_corpus, PlanScript([builtin, ScriptedModel.GOOD]),
                            "Who is the friend of the person whose occupation is pilot?")
    assert row["error"] is None, row["error"]
    assert [a["ok"] for a in row["plan_attempts"]] == [False, True]
    assert "length/2 is a built-in" in row["plan_attempts"][0]["error"] and row["prediction"] == ["Bo Lee"]


def test_planner_fills_in_a_missing_definition_after_the_repair(engine, llm_corpus):
    undefined = ('**Query:** job(Y1, "pilot"), close_friend(Y1, Y2)\n**Target:** Y2\n**Definition:**\n'
                 "job(X, Y) | What is the occupation of X? | Whose occupation is Y? | The occupation of X is Y.")
    row = _run_llm_question(llm_corpus, PlanScript([undefined], {"What is the close friend of Ann Ray?": "Bo Lee"}),
                            "Who is the close friend of the person whose occupation is pilot?")
    assert row["error"] is None, row["error"]
    assert [a["ok"] for a in row["plan_attempts"]] == [False, False, True]
    assert "unknown predicate close_friend/2" in row["plan_attempts"][1]["error"]
    assert row["plan_attempts"][2]["default_definitions"] == ["close_friend"]
    asked = [c["text"] for s in row["trajectory"] for c in s["calls"]]
    assert "What is the close friend of Ann Ray?" in asked and row["prolog_answer"] == ["Bo Lee"]


def test_unplannable_question_is_answered_as_rag_answers_it(engine, llm_corpus):
    question = "Which friend of a pilot bakes bread?"
    row = _run_llm_question(llm_corpus, PlanScript(["I cannot write Prolog."], {question: "Bo Lee"}), question)
    assert row["fallback"] == "rag" and "no valid plan" in row["plan_error"] and row["error"] is None
    assert row["prediction"] == ["Bo Lee"] and row["docs"]             # RAG's answer over RAG's passages
    assert row["model_calls"] == 2 + 1 and row["retriever_calls"] == 1
    from logical_pyserini.picot import summarize
    assert summarize([row])["fallbacks"] == 1 and summarize([row])["errors"] == 0


def test_plan_without_an_answer_is_answered_as_rag_answers_it(engine, llm_corpus):
    # A valid plan whose second hop finds nothing, and a final reply cut off before its answer:
    # the question gets RAG's answer, never an empty prediction.
    question = "Who is the friend of the person whose occupation is pilot?"
    script = PlanScript([ScriptedModel.GOOD], {"Who is the friend of Ann Ray?": "none", question: "Bo Lee"})
    script.final_cut = True
    row = _run_llm_question(llm_corpus, script, question)
    assert row["error"] is None, row["error"]
    assert row["prolog_answer"] == [] and row["prediction"] == ["Bo Lee"] and row["em"] == 1.0
    assert row["answer_from"] == "rag" and row["fallback"] == "rag (no answer)"
    # plan, SLICE x2, final, its answer-extraction turn (no answer either), RAG
    assert row["model_calls"] == 1 + 2 + 1 + 1 + 1 and row["retriever_calls"] == 2 + 1 + 1
    from logical_pyserini.picot import summarize
    from logical_pyserini.picot import answered
    assert summarize([row])["fallbacks"] == 1
    assert not answered(["unknown"]) and not answered(["(no answer)"]) and answered(["0"])


def test_reader_non_answer_is_never_asserted(engine, llm_corpus):
    # "n/a" from the reader is no fact: the plan finds nothing and the question falls back to RAG.
    question = "Who is the friend of the person whose occupation is pilot?"
    script = PlanScript([ScriptedModel.GOOD], {"Who is the friend of Ann Ray?": "n/a", question: "Bo Lee"})
    row = _run_llm_question(llm_corpus, script, question)
    assert row["prolog_answer"] == [] and row["fallback"] == "rag (no answer)" and row["prediction"] == ["Bo Lee"]


def test_answer_that_restates_the_question_is_answered_as_rag_answers_it(engine, llm_corpus):
    # A plan that ends on its own starting constant ("pilot") answers nothing the question asked:
    # RAG's answer replaces it. A question that offers candidates keeps an answer it names.
    question = "Who is the friend of the person whose occupation is pilot?"
    script = PlanScript([ScriptedModel.GOOD], {question: "Bo Lee"})
    script.final_text = "The notes say pilot. The answer is pilot."
    row = _run_llm_question(llm_corpus, script, question)
    assert row["prolog_answer"] == ["Bo Lee"] and row["prediction"] == ["Bo Lee"] and row["em"] == 1.0
    assert row["answer_from"] == "rag" and row["fallback"] == "rag (echo)"
    assert row["model_calls"] == 1 + 2 + 1 + 1                      # plan, SLICE x2, final, RAG
    choice = "Who is the friend of the person whose occupation is pilot, Bo Lee or Cy Tan?"
    kept = _run_llm_question(llm_corpus, PlanScript([ScriptedModel.GOOD]), choice)
    assert kept["prediction"] == ["Bo Lee"] and "fallback" not in kept


def test_echoes_question():
    from logical_pyserini.picot import echoes_question

    q = "What university did the last Detroit Pistons player to wear the number 15 attend?"
    assert echoes_question(["Detroit Pistons"], q) and echoes_question(["the Detroit Pistons", "unknown"], q)
    assert not echoes_question(["Georgetown University"], q) and not echoes_question(["Detroit", "Georgetown"], q)
    assert not echoes_question([], q) and not echoes_question(["unknown"], q)
    # words every answer may share ("and", "of") do not make a new answer
    assert echoes_question(["Jesse Sandoval and Jon Sortland"],
                           "What group first had Jesse Sandoval as drummer and now has Jon Sortland?")
    for choice, named in (("Which is older, the Bayezid II Mosque or the Nusretiye Mosque?", "Nusretiye Mosque"),
                          ("Between Greyia and Calibanus, which genus contains more species?", "Greyia"),
                          ("Who was born first out of Peter Haslop and Barbara Nawratowicz?", "Peter Haslop")):
        assert not echoes_question([named], choice)
    assert echoes_question(["Nusretiye Mosque"], "Which style is the Nusretiye Mosque built in?")


@pytest.mark.parametrize("final_text, prediction, answer_from", [
    # "The answer is unknown." names nothing: Prolog's answer stands, with no second turn and no RAG.
    ("The evidence is unclear. The answer is unknown.", ["Bo Lee"], "prolog"),
    # Cut off mid-reasoning, the reply's last complete sentence is a step, not the answer: Prolog's stands.
    ("Let's think step by step.\n1. Find the pilot.\nStep 1: The occupation of Ann Ray is pilot.", ["Bo Lee"], "prolog"),
    # A reply that states its answer keeps it.
    ("Ann Ray is the pilot. The answer is Cy Tan.", ["Cy Tan"], None),
])
def test_final_reply_that_states_no_answer_leaves_the_prolog_answer(engine, llm_corpus, final_text, prediction,
                                                                    answer_from):
    question = "Who is the friend of the person whose occupation is pilot?"
    script = PlanScript([ScriptedModel.GOOD])
    script.final_text = final_text
    row = _run_llm_question(llm_corpus, script, question)
    assert row["prolog_answer"] == ["Bo Lee"] and row["prediction"] == prediction
    assert row.get("answer_from") == answer_from
    assert "fallback" not in row and not script.extractions and row["model_calls"] == 1 + 2 + 1


class BaselineScript(ScriptedModel):
    """IRCoT's step prompts: one reasoning sentence with no answer, then a sentence that gives it."""

    def __call__(self, path, body, headers):
        user = [m["content"] for m in body["messages"] if m["role"] == "user"]
        if "one sentence at a time" in user[-1]:
            self.prompts.append(user[-1])
            thoughts = user[-1].rsplit("Answer:", 1)[1].strip()
            text = ("The occupation of Ann Ray is pilot. More follows." if not thoughts else
                    "The friend of Ann Ray is Bo Lee, so the answer is Bo Lee.")
            return {"choices": [{"message": {"content": text}}], "usage": {"prompt_tokens": 10, "completion_tokens": 5}}
        return super().__call__(path, body, headers)


def test_baselines_cot_rag_and_ircot(llm_corpus):
    from logical_pyserini.models import get_model
    from logical_pyserini.picot import LuceneRetriever, Passage, Question, RunConfig, Schema, run_questions

    corpus, index = llm_corpus
    question = "Who is the friend of the person whose occupation is pilot?"
    script = BaselineScript()
    script.READER = {**ScriptedModel.READER, question: "Bo Lee"}
    q = Question("q1", question, ["Bo Lee"])
    universe = [Passage(d, t) for d, t in LLM_DOCS]
    rows = {}
    with scripted_server(script) as url:
        for method, setting in (("rag", "retrieval"), ("cot", "incontext"), ("ircot", "retrieval")):
            model = get_model("openai:baselines", base_url=url, api_key="x", cache=None)
            cfg = RunConfig(method=method, setting=setting, dataset="2wiki", k=1, corpus_passages=universe)
            script.prompts.clear()
            [rows[method]] = run_questions([q], cfg, Schema({}), LuceneRetriever(index, corpus), model, progress=False)
            rows[method]["prompts"] = list(script.prompts)
    for method, row in rows.items():
        assert row["error"] is None and row["prediction"] == ["Bo Lee"] and row["em"] == 1.0, (method, row)
    assert rows["rag"]["model_calls"] == 1 and rows["rag"]["retriever_calls"] == 1 and len(rows["rag"]["docs"]) == 1
    assert rows["cot"]["retriever_calls"] == 0                                      # in context: no retrieval
    assert all(text.split("\n")[1] in rows["cot"]["prompts"][0] for _, text in LLM_DOCS)  # every article in the prompt
    ircot = rows["ircot"]
    # one sentence, a retrieval with it, then the sentence that states the answer: two steps, no final call
    assert ircot["thoughts"] == ["The occupation of Ann Ray is pilot.",
                                 "The friend of Ann Ray is Bo Lee, so the answer is Bo Lee."]
    assert ircot["model_calls"] == 2 and ircot["retriever_calls"] == 2
    assert "Answer: The occupation of Ann Ray is pilot." in ircot["prompts"][1]     # the thought is carried on


class CutFinalScript(ScriptedModel):
    """The final chain of thought runs out of tokens before its answer, as the 1.5B model's often did."""

    def __call__(self, path, body, headers):
        from logical_pyserini.picot._llm import prompts

        user = [m["content"] for m in body["messages"] if m["role"] == "user"]
        if len(user) == 1 and prompts()["answer"]["instruction"].split("{notes}")[1][:40] in user[0]:
            self.prompts.append(user[0])
            text = "To answer this question, I'll analyze the evidence step by step:\n1. The first document"
            return {"choices": [{"message": {"content": text}}], "usage": {"prompt_tokens": 10, "completion_tokens": 5}}
        return super().__call__(path, body, headers)


def test_a_final_reply_cut_off_before_its_answer_gets_a_second_turn(llm_corpus):
    from logical_pyserini.models import get_model
    from logical_pyserini.picot import LuceneRetriever, Question, RunConfig, Schema, run_questions

    corpus, index = llm_corpus
    q = Question("q1", "Who is the friend of the person whose occupation is pilot?", ["Bo Lee"])
    rows, scripts = {}, {}
    for extraction in (True, False):
        scripts[extraction] = script = CutFinalScript()
        script.extract_reply = "The answer is Bo Lee."
        with scripted_server(script) as url:
            model = get_model("openai:cut", base_url=url, api_key="x", cache=None)
            cfg = RunConfig(method="rag", dataset="2wiki", k=1, answer_extraction=extraction)
            [rows[extraction]] = run_questions([q], cfg, Schema({}), LuceneRetriever(index, corpus), model,
                                               progress=False)
    on, off = rows[True], rows[False]
    assert on["error"] is None and on["prediction"] == ["Bo Lee"] and on["em"] == 1.0 and on["model_calls"] == 2
    assert on["reply"].endswith("1. The first document") and on["reply_extract"] == "The answer is Bo Lee."
    # The second turn continues the same chat: the evidence prompt, the cut-off reply, then the request.
    [turns] = scripts[True].extractions
    assert [m["role"] for m in turns] == ["user", "assistant", "user"] and turns[1]["content"] == on["reply"]
    assert "(BEGIN EVIDENCE)" in turns[0]["content"]
    # --no-answer-extraction: one call, and the cut-off reply gives no answer rather than a fragment.
    assert off["prediction"] == [] and off["model_calls"] == 1 and "reply_extract" not in off
    assert scripts[False].extractions == []


def test_in_context_setting_reads_the_whole_universe(engine):
    """In-context: every SLICE call gets all articles (no index); the template reader stays exact."""
    from logical_pyserini.picot import Passage, RunConfig, load_corpus, phantomwiki_schema, run_questions

    corpus = [Passage(d, t) for d, t in load_corpus(DATA / "corpus.jsonl").items()]
    cfg = RunConfig(method="picot", setting="incontext", reader="template", gold_prolog=True, corpus_passages=corpus)
    rows = run_questions(questions()[:10], cfg, phantomwiki_schema((DATA / "rules.pl").read_text()), None,
                         progress=False)
    assert all(r["error"] is None for r in rows)
    assert sum(r["em"] for r in rows) >= 9
    assert all(len(step_call["docs"]) == 12 for r in rows for s in r["trajectory"] for step_call in s["calls"])


def test_bench_report_reads_finished_and_cut_short_runs(tmp_path):
    """eval/bench_picot.py: rows of a finished run and of a cut-short one (torn last line) are both
    read back, and the report pairs the methods over the questions they share."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_picot", Path(__file__).parents[1] / "eval" / "bench_picot.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)

    def row(qid, hops, f1):
        return {"qid": qid, "hops": hops, "em": float(f1 == 1), "f1": f1, "retriever_calls": 2, "model_calls": 3,
                "seconds": 1.0, "prediction": ["x"], "gold": ["x"]}

    for stem, cmd in (("picot", "python eval/bench_picot.py llm --methods picot rag"),
                      ("rag", "python eval/bench_picot.py llm --methods picot rag")):
        (tmp_path / f"{stem}.meta.json").write_text(json.dumps({"spec": stem, "command": cmd, "note": "n"}))
    (tmp_path / "picot.jsonl").write_text(json.dumps(row("a", 1, 1.0)) + "\n")
    (tmp_path / "picot.jsonl.partial").write_text(json.dumps(row("b", 2, 1.0)) + "\n" + '{"qid": "c", "f1"')
    (tmp_path / "rag.jsonl.partial").write_text("".join(json.dumps(row(q, h, 0.0)) + "\n"
                                                        for q, h in (("a", 1), ("b", 2), ("c", 3))))
    assert sorted(r["qid"] for r in bench._saved_rows(tmp_path, "picot")) == ["a", "b"]
    text = "\n".join(bench.section([tmp_path], by_hops=True))
    assert text.count("python eval/bench_picot.py llm") == 1                  # one process, listed once
    assert "| picot | 2 | 100.0 ± 0.0 |" in text and "| rag | 3 | 0.0 ± 0.0 |" in text
    assert "| picot | rag | 2 | 100.0 | 2 / 0 / 0 | 0.5 |" in text          # paired over a, b only
    # a later slice of the same sample, run by another process, joins the section
    later = tmp_path / "later"
    later.mkdir()
    for stem in ("picot", "rag"):
        (later / f"{stem}.meta.json").write_text(json.dumps({"spec": stem, "command": "python later", "note": "n"}))
        (later / f"{stem}.jsonl").write_text(json.dumps(row("d", 1, float(stem == "rag"))) + "\n")
    text = "\n".join(bench.section([tmp_path, later], by_hops=True))
    assert "| picot | 3 | 66.7 ± 33.3 |" in text and "| rag | 4 | 25.0 ± 25.0 |" in text and "`python later`" in text
    assert "| picot | rag | 3 | 33.3 | 2 / 1 / 0 |" in text
    with pytest.raises(SystemExit, match="repeats questions"):
        bench.section([tmp_path, tmp_path], by_hops=False)


def test_bench_reparse_rescores_saved_replies_of_one_reply_methods_only(tmp_path):
    """eval/bench_picot.py reparse: a RAG row's saved reply is parsed again and rescored; a π-CoT row
    (its answer also depends on the Prolog answer) and the source folder are left as they were."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_picot", Path(__file__).parents[1] / "eval" / "bench_picot.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    reply = "The hobby of the person whose occupation is pilot is chess."
    old = {"qid": "a", "hops": 2, "em": 0.0, "f1": 0.0, "prediction": ["pilot is chess"], "gold": ["chess"],
           "reply": reply, "retriever_calls": 1, "model_calls": 1, "seconds": 1.0}
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    # a reply cut off by the token limit, answered by the second turn (answer extraction)
    cut = {**old, "qid": "b", "prediction": [], "reply": "Step 1: The evidence says", "reply_extract": "The answer is chess."}
    for stem in ("rag", "picot"):
        (src / f"{stem}.meta.json").write_text(json.dumps({"spec": stem, "command": "c", "note": "n"}))
        (src / f"{stem}.jsonl").write_text(json.dumps(old) + "\n" + (json.dumps(cut) + "\n" if stem == "rag" else ""))
    bench.main(["reparse", "--runs", str(src), "--output", str(out)])
    rag, rag_cut = [json.loads(line) for line in (out / "rag.jsonl").read_text().splitlines()]
    assert rag["prediction"] == ["chess"] and rag["em"] == 1.0 and rag["f1"] == 1.0
    assert rag_cut["prediction"] == ["chess"] and rag_cut["em"] == 1.0
    assert json.loads((out / "picot.jsonl").read_text())["prediction"] == ["pilot is chess"]
    assert "2 changed" in json.loads((out / "rag.meta.json").read_text())["note"]
    assert json.loads((src / "rag.jsonl").read_text().splitlines()[0])["prediction"] == ["pilot is chess"]
    with pytest.raises(SystemExit):
        bench.main(["reparse", "--runs", str(src), "--output", str(src)])

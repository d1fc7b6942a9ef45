"""Methods (π-CoT, CoT, standard RAG, IRCoT) and the run loop that writes predictions and metrics."""

from __future__ import annotations

import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Sequence

from ._count import count_answers, needs_count
from ._data import Question
from ._metrics import answered, echoes_question, paired_test, score, summarize
from ._prolog import PrologEngine, QueryError
from ._readers import READERS
from ._retrieval import InContext, Passage, Retriever
from ._schema import Schema
from ._slice import Plan, SliceExecutor

__all__ = ["METHODS", "RunConfig", "compare", "metrics", "run_questions"]

log = logging.getLogger("logical_pyserini.picot")


@dataclass
class RunConfig:
    """What the CLI selected; passed to every method."""

    method: str = "picot"
    setting: str = "retrieval"          # retrieval | incontext
    reader: str = "template"            # template | llm
    gold_prolog: bool = False
    dataset: str = "phantomwiki"        # few-shot examples and scoring mode
    k: int = 10                         # passages per retrieval call
    slice_k: int | None = None          # passages per SLICE call (None: k); the question's own retrieval uses k
    max_passage_tokens: int | None = None  # each passage cut to this many model tokens in prompts (None: whole)
    verify: str = "cot"                 # cot | logit (fact verification)
    ircot_iterations: int = 4
    max_new_tokens: int = 256           # final answer / baselines
    reader_max_new_tokens: int = 160    # one SLICE reader call
    plan_max_new_tokens: int = 384
    max_evidence_tokens: int = 6000
    max_slice_calls: int = 2000         # SLICE calls per question before it is cut off (reported as an error)
    answer_extraction: bool = True     # a second turn asks for the answer when the final reply names none
    corpus_passages: list[Passage] = field(default_factory=list)  # in-context PhantomWiki: the whole universe

    @property
    def score_mode(self) -> str:
        return "set" if self.dataset == "phantomwiki" else "token"


@dataclass
class Context:
    config: RunConfig
    schema: Schema
    retriever: Retriever
    model: Any = None


def _context_passages(q: Question, cfg: RunConfig) -> list[Passage]:
    return q.passages or cfg.corpus_passages


@dataclass
class FinalAnswer:
    """The final chain of thought: its parsed answers, the reply, and the second turn if one was needed."""
    prediction: list[str]
    reply: str
    extraction: str | None = None  # the reply to the second turn (``answer.extract``), when asked

    @property
    def calls(self) -> int:
        """Model calls: the reply, plus the second turn when it was asked."""
        return 1 if self.extraction is None else 2

    def fields(self) -> dict[str, Any]:
        """The row fields (``reply_extract`` only when the second turn was asked)."""
        out: dict[str, Any] = {"prediction": self.prediction, "reply": self.reply}
        if self.extraction is not None:
            out["reply_extract"] = self.extraction
        return out


def _final_answer(ctx: Context, q: Question, passages: Sequence[Passage], notes: Sequence[str] = (),
                  prolog_answer: Sequence[str] | None = None, extract: bool = True) -> FinalAnswer:
    from ._llm import answer_prompt, parse_answer, prompts

    p = prompts()
    text = answer_prompt(q.question, passages, ctx.model, notes, prolog_answer, ctx.config.max_evidence_tokens,
                         ctx.config.max_passage_tokens)
    messages = [{"role": "user", "content": text}]
    reply = ctx.model.chat(messages, max_new_tokens=ctx.config.max_new_tokens, version=p["version"])
    extraction = None
    first = parse_answer(reply, p["answer_sep"], q.question)
    if extract and ctx.config.answer_extraction and not answered(first):
        # Two-stage answer extraction (as in zero-shot CoT): a small model often spends the token budget
        # on its reasoning and is cut off before "The answer is", or answers "Yes, both ..." outside the
        # format. One more turn, with the reply so far, asks for the answer alone; it costs a call only
        # for these replies, and every method (RAG, CoT, IRCoT, π-CoT) shares it through this function.
        messages += [{"role": "assistant", "content": reply}, {"role": "user", "content": p["answer"]["extract"]}]
        extraction = ctx.model.chat(messages, max_new_tokens=EXTRACT_MAX_NEW_TOKENS, version=p["version"])
    pred = first if extraction is None else final_prediction(reply, extraction, q.question)
    return FinalAnswer(pred, reply, extraction)


def final_prediction(reply: str, extraction: str | None = None, question: str | None = None) -> list[str]:
    """The answers of a final reply, or of its second turn when the reply names none and the turn does.

    ``question`` picks the asked side of a relational sentence (:func:`parse_answer`).

    Also what ``eval/bench_picot.py reparse`` applies to saved rows (``reply``, ``reply_extract``).
    """
    from ._llm import parse_answer, prompts

    sep = prompts()["answer_sep"]
    pred = parse_answer(reply, sep, question)
    if not answered(pred) and extraction is not None:
        second = parse_answer(extraction, sep, question)
        if answered(second):
            return second
    return pred


#: New tokens for the answer-extraction turn: one line, "The answer is ...".
EXTRACT_MAX_NEW_TOKENS = 32


def method_picot(ctx: Context, q: Question) -> dict[str, Any]:
    from ._llm import states_answer

    cfg = ctx.config
    row: dict[str, Any] = {"model_calls": 0}
    schema = ctx.schema
    if cfg.gold_prolog:
        if not q.prolog:
            raise QueryError("--gold-prolog: the question has no gold Prolog query")
        plan = Plan(list(q.prolog["query"]), q.prolog["answer"], "gold")
        if cfg.reader == "llm":
            schema = schema.all_readable()  # the model answers derived relations directly
    else:
        if ctx.model is None:
            raise QueryError("planning needs a model: use --gold-prolog with --llm none")
        from ._llm import PlanError, Planner

        planner = Planner(ctx.model, cfg.dataset, cfg.plan_max_new_tokens)
        try:
            plan, schema, attempts = planner.plan(q.question, schema if cfg.dataset == "phantomwiki" else None)
        except PlanError as exc:
            # Do no harm: a question the model cannot plan is answered as standard RAG answers it
            # (the final step would see the same passages, only without notes).
            log.warning("question %s: %s; answering it as standard RAG does", q.qid, exc)
            rag = method_rag(ctx, q)
            return {**rag, "model_calls": planner.calls + rag["model_calls"], "plan_attempts": exc.attempts,
                    "plan_error": str(exc), "fallback": "rag"}
        row["plan_attempts"] = attempts
        row["model_calls"] += planner.calls
    options = {"verify": cfg.verify, "max_new_tokens": cfg.reader_max_new_tokens,
               "max_evidence_tokens": cfg.max_evidence_tokens,
               "max_passage_tokens": cfg.max_passage_tokens} if cfg.reader == "llm" else {}
    reader = READERS[cfg.reader](schema, model=ctx.model, **options)
    retriever = ctx.retriever
    executor = SliceExecutor(schema, reader, retriever, k=cfg.slice_k or cfg.k, max_acquisitions=cfg.max_slice_calls)
    res = executor.run(plan, _context_passages(q, cfg) if cfg.setting == "incontext" else None)
    if needs_count(q.question, plan, res.answers):
        # "How many ..." answered with the counted entities: count them (see _count.py).
        row["counted"] = list(res.answers)
        res.answers = count_answers(res.states, plan.target)
    row.update(prolog=plan.goals, target=plan.target, plan_source=plan.source, prolog_answer=res.answers,
               trajectory=res.steps, notes=res.notes, slice_error=res.error)
    row["model_calls"] += res.reader_calls
    calls = res.retriever_calls
    if ctx.model is None:
        row["prediction"] = res.answers
    else:
        if cfg.setting == "incontext":
            passages = _context_passages(q, cfg)
        else:  # the SLICE passages plus those retrieved for the original question
            retriever.reset()
            extra = retriever.retrieve(q.question, cfg.k)
            calls += retriever.calls
            seen = {p.docid for p in res.passages}
            passages = res.passages + [p for p in extra if p.docid not in seen]
        # A Prolog answer outranks a second turn: when the final reply names nothing, the symbolic answer
        # stands (on 2Wiki's comparisons the second turn named the directors instead of the film).
        final = _final_answer(ctx, q, passages, res.notes, res.answers, extract=not answered(res.answers))
        row.update(final.fields())
        row["model_calls"] += final.calls
        if answered(res.answers) and (not answered(row["prediction"]) or not states_answer(final.reply)):
            # The final reply gave no answer, or never stated one ("The answer is ..."): the Prolog answer
            # stands. A reply cut off by the token limit ends on a step of its reasoning ("The wife of X's
            # brother is Y."), which parse_answer would otherwise read as the answer (PW-M: 3 of 14 questions).
            log.warning("question %s: no answer stated in the final reply; using the Prolog answer", q.qid)
            row["prediction"], row["answer_from"] = list(res.answers), "prolog"
        echo = echoes_question(row["prediction"], q.question)  # False for a prediction that names nothing
        if not answered(row["prediction"]) or echo:
            # Do no harm, as for a question with no plan: the plan ran but neither Prolog nor the final
            # reply names anything (no fact found, or a placeholder such as "unknown" that the plan's
            # if-then-else bound), or the answer only restates the question's own names (a plan that bound
            # its target to its starting constant), so the question gets the answer standard RAG gives it.
            why = "the answer restates the question" if echo else "the plan gave no answer"
            log.warning("question %s: %s; answering it as standard RAG does", q.qid, why)
            rag = method_rag(ctx, q)
            row.update(prediction=rag["prediction"], reply_rag=rag["reply"], answer_from="rag",
                       fallback="rag (echo)" if echo else "rag (no answer)")
            row["model_calls"] += rag["model_calls"]
            calls += rag["retriever_calls"]
    row["retriever_calls"] = calls
    return row


def _need_model(ctx: Context, name: str) -> None:
    if ctx.model is None:
        raise QueryError(f"method {name} needs a language model (--llm embedded|PATH|openai:NAME)")


def method_cot(ctx: Context, q: Question) -> dict[str, Any]:
    """In-context chain of thought: all of the question's passages (gold + distractors)."""
    _need_model(ctx, "cot")
    final = _final_answer(ctx, q, _context_passages(q, ctx.config))
    return {**final.fields(), "model_calls": final.calls, "retriever_calls": 0}


def method_rag(ctx: Context, q: Question) -> dict[str, Any]:
    """Standard RAG: one retrieval with the question, then chain of thought."""
    _need_model(ctx, "rag")
    ctx.retriever.reset()
    passages = ctx.retriever.retrieve(q.question, ctx.config.k, _context_passages(q, ctx.config))
    final = _final_answer(ctx, q, passages)
    return {**final.fields(), "model_calls": final.calls, "retriever_calls": ctx.retriever.calls,
            "docs": [p.docid for p in passages]}


def method_ircot(ctx: Context, q: Question) -> dict[str, Any]:
    """IRCoT: retrieve with the question, then alternately write one reasoning sentence and retrieve
    with it, at most ``ircot_iterations`` times, until a sentence gives the answer."""
    from logical_pyserini.models import fence
    from logical_pyserini.prompts import fill

    from ._llm import evidence, parse_answer, prompts

    _need_model(ctx, "ircot")
    cfg = ctx.config
    p = prompts()
    ctx.retriever.reset()
    passages: dict[str, Passage] = {}
    for x in ctx.retriever.retrieve(q.question, cfg.k, _context_passages(q, cfg)):
        passages.setdefault(x.docid, x)
    thoughts: list[str] = []
    calls = 0
    reply = ""
    for _ in range(cfg.ircot_iterations):
        text = fill(p["ircot"]["instruction"], evidence=evidence(list(passages.values()), ctx.model,
                                                                 cfg.max_evidence_tokens, cfg.max_passage_tokens)) + \
            fill(p["ircot"]["question"], question=fence(q.question, "question"), thoughts=" ".join(thoughts))
        reply = ctx.model.chat([{"role": "user", "content": text}], max_new_tokens=64, version=p["version"])
        calls += 1
        sentence = (reply.strip().split("\n")[0].split(". ")[0] + ".").strip() if reply.strip() else ""
        if "answer is" in reply.lower():
            thoughts.append(reply.strip())
            break
        thoughts.append(sentence)
        for x in ctx.retriever.retrieve(sentence or q.question, cfg.k, _context_passages(q, cfg)):
            passages.setdefault(x.docid, x)
    joined = " ".join(thoughts)
    pred = parse_answer(joined, p["answer_sep"], q.question) if "answer is" in joined.lower() else []
    row: dict[str, Any] = {"prediction": pred, "reply": reply}
    if not pred:  # no answer within the iterations: one final chain of thought over what was gathered
        final = _final_answer(ctx, q, list(passages.values()))
        row = final.fields()
        calls += final.calls
    return {**row, "thoughts": thoughts, "model_calls": calls, "retriever_calls": ctx.retriever.calls}


METHODS: dict[str, Callable[[Context, Question], dict[str, Any]]] = {
    "picot": method_picot, "cot": method_cot, "rag": method_rag, "ircot": method_ircot}


def _one(ctx: Context, q: Question) -> dict[str, Any]:
    start = time.perf_counter()
    row: dict[str, Any] = {"qid": q.qid, "question": q.question, "gold": q.answers, "hops": q.hops,
                           "method": ctx.config.method}
    try:
        row.update(METHODS[ctx.config.method](ctx, q))
        row["error"] = row.pop("slice_error", None)
    except Exception as exc:  # one question's failure is recorded, the run goes on
        row.update(prediction=[], error=f"{type(exc).__name__}: {' '.join(str(exc).split())[:300]}")
        row.setdefault("model_calls", 0)
        row.setdefault("retriever_calls", ctx.retriever.calls)
        log.warning("question %s: %s", q.qid, row["error"])
    row["seconds"] = round(time.perf_counter() - start, 4)
    row["em"], row["f1"] = score(row["prediction"], q.answers, ctx.config.score_mode)
    return row


def run_questions(questions: Sequence[Question], config: RunConfig, schema: Schema, retriever: Retriever,
                  model: Any = None, threads: int = 1, progress: bool = True,
                  on_row: Callable[[dict[str, Any]], None] | None = None) -> list[dict[str, Any]]:
    """Answer every question; rows in input order.  ``on_row`` sees each row as soon as it is done
    (the CLI writes it out at once, so an interrupted run keeps what it answered)."""
    lock = threading.Lock()
    ctx = Context(config, schema, retriever if config.setting == "retrieval" else InContext(), model)
    from tqdm import tqdm

    bar = tqdm(total=len(questions), desc=f"picot {config.method}", disable=not progress)

    def work(q: Question) -> dict[str, Any]:
        r = _one(ctx, q)
        with lock:
            bar.update(1)
            if on_row is not None:
                on_row(r)
        return r

    if threads <= 1:
        rows = [work(q) for q in questions]
    else:
        if config.method == "picot":
            PrologEngine.get()  # SWI starts in this thread, so the engines workers attach are released per call
        with ThreadPoolExecutor(threads) as pool:
            rows = list(pool.map(work, questions))
    bar.close()
    return rows


def compare(runs: dict[str, Sequence[dict[str, Any]]], metric: str = "f1") -> list[dict[str, Any]]:
    """Paired t-tests between every two methods over the questions they share."""
    names = list(runs)
    out = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            ra = {r["qid"]: r[metric] for r in runs[a]}
            rb = {r["qid"]: r[metric] for r in runs[b]}
            shared = [q for q in ra if q in rb]
            if shared:
                out.append({"a": a, "b": b, "metric": metric,
                            **paired_test([ra[q] for q in shared], [rb[q] for q in shared])})
    return out


def metrics(rows: Sequence[dict[str, Any]], config: RunConfig) -> dict[str, Any]:
    cfg = {k: v for k, v in asdict(config).items() if k != "corpus_passages"}
    return {"config": cfg, **summarize(rows)}

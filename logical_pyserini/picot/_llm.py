"""The language-model parts of π-CoT, through :mod:`logical_pyserini.models` only: the planner
(question -> Prolog query, target, definitions; checked by SWI-Prolog, one repair round), the
reader for SLICE, and the final answer prompts shared with the baselines."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Sequence

from logical_pyserini.models import fence
from logical_pyserini.prompts import fill, load_prompt

from ._count import is_count_question, strip_count_goals
from ._metrics import is_answer
from ._prolog import Goal, QueryError
from ._readers import Reader
from ._retrieval import Passage
from ._schema import Definition, Schema
from ._slice import Plan, validate_plan

__all__ = ["LLMReader", "PlanError", "Planner", "answer_prompt", "check_grounded", "default_definition", "evidence",
           "parse_answer", "parse_plan", "states_answer", "with_default_definitions"]

_ANSWER = re.compile(r"the answer is[:\s]*(.+?)\s*\.?\s*$", re.IGNORECASE | re.DOTALL)


def prompts() -> dict[str, Any]:
    return load_prompt("picot")


def evidence(passages: Sequence[Passage], model=None, max_tokens: int | None = None,
             passage_tokens: int | None = None) -> str:
    """Passages fenced one by one (text can never pose as a prompt field), each cut to
    ``passage_tokens`` and all together to ``max_tokens`` (model tokens)."""
    texts = [p.text for p in passages]
    if model is not None and passage_tokens:
        texts = [model.truncate(t, passage_tokens) for t in texts]
    text = "\n".join(fence(t, "document") for t in texts)
    if model is not None and max_tokens:
        text = model.truncate(text, max_tokens)
    return text


# Greedy prefix: the *last* copula ("The hobby of the person whose occupation is X is Y" -> "Y").
_COPULA = re.compile(r"^.*\b(?:is|are|was|were)\s+(.+)$", re.IGNORECASE | re.DOTALL)
# An appositive relative clause after the answer is commentary: "Lissa Coe, who has a hobby of ..." -> "Lissa Coe".
_RELATIVE = re.compile(r",\s+(?:who|whom|whose|which|where)\b.*$", re.IGNORECASE | re.DOTALL)
#: A relational sentence "The R of X is Y" (last copula), as small models write an answer, also after a
#: reporting lead-in ("The evidence says the occupation of X is Y"). Only at the start of the answer and with
#: no comma in X: "McKinley, the 25th President of the United States, was shot ..." is not one.
_RELATIONAL = re.compile(r"^(?:[\w' ]{0,40}?\b(?:says|states|shows|indicates)\s+(?:that\s+)?)?"
                         r"the\s+[\w'-]+(?:\s+[\w'-]+){0,3}?\s+of\s+(?P<x>[^,]+)\s+(?:is|are|was|were)\s+(?P<y>.+)$",
                         re.IGNORECASE | re.DOTALL)


def _norm(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def _asked_side(sentence: str, question: str | None) -> str | None:
    """The side of "The R of X is Y" that ``question`` asks for: Y, unless Y is in the question and X is not
    ("Whose occupation is pilot?" answered "The occupation of Bo Lee is pilot" asks for Bo Lee)."""
    m = _RELATIONAL.match(sentence.strip())
    if m is None:
        return None
    x, y = m["x"].strip(), m["y"].strip()
    if question:
        q = f" {_norm(question)} "
        if f" {_norm(y)} " in q and f" {_norm(x)} " not in q:
            return x
    return y

_ABBREV = {"st", "mr", "mrs", "ms", "dr", "jr", "sr", "no", "vs", "mt", "ft", "co", "inc", "ltd"}


def _sentences(text: str) -> list[str]:
    """Split at ". " unless the word before the period is an initial or a common abbreviation
    ("J. R. R. Tolkien", "St. Louis")."""
    out, start = [], 0
    for m in re.finditer(r"\.\s+", text):
        word = re.findall(r"[A-Za-z]+$", text[start:m.start()])
        if word and (len(word[0]) == 1 or word[0].lower() in _ABBREV):
            continue
        out.append(text[start:m.start()])
        start = m.end()
    out.append(text[start:])
    return [x for x in out if x.strip(" .")]


def _unmarked(text: str | None) -> str:
    # Small models copy the prompt's placeholder ("The answer is <answer>Paris</answer>.") and bold the answer.
    return re.sub(r"</?answer>", "", (text or "").replace("**", ""), flags=re.IGNORECASE)


def states_answer(text: str) -> bool:
    """Whether a reply states its answer ("The answer is ..."), rather than leaving :func:`parse_answer` to
    read one from its last sentence (a guess: for a reply cut off by the token limit, a step of the reasoning)."""
    return _ANSWER.search(_unmarked(text)) is not None


def parse_answer(text: str, sep: str = ", ", question: str | None = None) -> list[str]:
    """The answers of a chain-of-thought reply, split on ``sep``.

    The answer is the first sentence after the last "The answer is" (small models often go on
    explaining after it).  Without that phrase, the reply's last sentence is used, reduced to what
    follows its last copula ("The husband of Ann is Bo Lee." -> "Bo Lee"), but only when that
    sentence is complete and has a copula: a reply cut off by the token limit ("Step 1: Scanning
    the evidence") gives no answer rather than a fragment that would be asserted as a fact.
    A relational sentence "The R of X is Y" (after "The answer is" too) gives the side that
    ``question`` asks for: Y, or X when Y is what the question names ("Whose occupation is
    pilot?" / "The occupation of Bo Lee is pilot." -> "Bo Lee").
    Markdown emphasis, ``<answer>`` tags, quotes and a trailing relative clause (", who ...")
    are stripped; an Oxford ", and " separates like ``sep``.
    """
    text = _unmarked(text)
    m = None
    for m in _ANSWER.finditer(text):
        pass
    if m:
        line = m.group(1).strip().splitlines()[0] if m.group(1).strip() else ""
        body = (_sentences(line) or [""])[0]
        body = _asked_side(_RELATIVE.sub("", body), question) or body
    else:
        lines = [ln for ln in text.strip().splitlines() if ln.strip()]
        if not lines or not re.search(r"[.!?][\"')\]]*$", lines[-1].strip()):
            return []  # cut off mid-sentence (or empty): no answer, not a fragment
        body = _sentences(lines[-1].strip())[-1]
        side = _asked_side(_RELATIVE.sub("", body).strip().rstrip("."), question)
        c = _COPULA.match(body)
        if side is None and c is None:
            return []
        body = side if side is not None else c.group(1)
    body = _RELATIVE.sub("", body.strip()).strip().strip(".").strip()
    body = re.sub(r",?\s+and\s+(?=[^,]+$)", sep, body) if sep.strip() == "," and "," in body else body
    # "<radio-controlled car racing>": the placeholder's brackets kept around the answer.
    parts = [p.strip().strip('"').strip("'").strip().strip("<>").strip()
             for p in re.split(re.escape(sep.strip()) + r"\s*", body)]
    # "The answer is <answer>\nThe answer is ...": a reply that repeats the template states no answer.
    return [p for p in parts if p and not re.match(r"the answer is\b", p, re.IGNORECASE)]


_PLAN = re.compile(r"\*\*Query:\*\*\s*(?P<query>.+?)\s*\*\*Target:\*\*\s*(?P<target>\S+)\s*\*\*Definition:\*\*\s*(?P<defs>.*)$",
                   re.DOTALL)
_DEF = re.compile(r"^\s*(?P<name>[a-z][A-Za-z0-9_]*)\((?P<args>[^)]*)\)\s*\|(?P<rest>.*)$")


def _template(text: str, var_names: list[str]) -> str:
    for i, v in enumerate(var_names):
        text = re.sub(rf"\b{re.escape(v)}\b", "{%d}" % i, text)
    return text.strip()


def parse_plan(text: str) -> tuple[Plan, dict[str, Definition]]:
    """A plan and its definitions from a planner reply (raises :class:`QueryError` when malformed)."""
    m = None
    for m in _PLAN.finditer(text or ""):
        pass
    if m is None:
        raise QueryError("the reply has no **Query:** / **Target:** / **Definition:** block")
    query = m["query"].strip().rstrip(".")
    goals = _split_goals(query)
    defs: dict[str, Definition] = {}
    for line in m["defs"].splitlines():
        d = _DEF.match(line)
        if not d:
            continue
        names = [a.strip() for a in d["args"].split(",") if a.strip()]
        fields = [f.strip() for f in d["rest"].split("|")]
        while len(fields) < 3:
            fields.insert(0, "")
        ask_obj, ask_subj, statement = (_template(f, names) for f in fields[-3:])
        defs[d["name"]] = Definition(d["name"], len(names), ask_obj, ask_subj, statement)
    return Plan(goals, m["target"].strip().rstrip("."), "llm"), defs


def _split_goals(query: str) -> list[str]:
    """Top-level comma split (commas inside parentheses and quotes stay)."""
    goals, depth, cur, quote = [], 0, [], None
    for ch in query:
        if quote:
            cur.append(ch)
            if ch == quote:
                quote = None
            continue
        if ch in "\"'":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            goals.append("".join(cur).strip())
            cur = []
            continue
        cur.append(ch)
    if "".join(cur).strip():
        goals.append("".join(cur).strip())
    return goals


_UNKNOWN = re.compile(r"unknown predicate (?P<name>[a-z][A-Za-z0-9_]*)/2\b")
_CALL = re.compile(r"\b(?P<name>[a-z][A-Za-z0-9_]*)\((?P<args>[^()]*)\)")  # innermost calls
_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.lower()))


def _relation_calls(goal: str) -> list[tuple[str, list[str]]]:
    """(name, string constants) of each innermost call in a goal, also inside ``aggregate_all``,
    ``distinct`` or if-then-else; strings are masked first, so "Aylwin (Film)" stays one constant."""
    strings: list[str] = []

    def mask(m: re.Match) -> str:
        strings.append(m.group(1))
        return f'"{len(strings) - 1}"'

    masked = _STRING.sub(mask, goal)
    return [(m["name"], [strings[int(i)] for i in re.findall(r'"(\d+)"', m["args"])]) for m in _CALL.finditer(masked)]


def check_grounded(question: str, plan: Plan, schema: Schema) -> None:
    """Every string constant that a relation sub-query starts from must come from the question
    (all of its words occur there): a small planner copies constants from its few-shot examples
    ("Sergei Tokarev" planned for a question about someone else), and such a plan retrieves for
    the wrong entity.  At least one such constant is needed: ``genus(X), genus(Y), ...`` names no
    entity and could only enumerate the corpus.  Constants elsewhere (``Y = "Yes"`` in a
    comparison) are outputs, not checked.

    Raises
    ------
    QueryError
        Naming the first constant that is not in the question, or saying that there is none.
    """
    words = _words(question)
    anchored = False
    for name, consts in (call for goal in plan.goals for call in _relation_calls(goal)):
        if schema.definition(name) is None:
            continue
        for const in consts:
            if not _words(const) <= words:
                raise QueryError(f'the constant "{const}" in {name}(...) does not occur in the question')
            anchored = True
    if not anchored:
        # genus(X), genus(Y), ...: with no constant the plan can only enumerate the corpus.
        raise QueryError("no sub-query starts from a constant of the question: "
                         "name one of its entities in double quotes")


def default_definition(name: str) -> Definition:
    """Templates read off a predicate's name, for a plan that uses a relation it did not define
    (``date_of_death(X, Y)`` -> "What is the date of death of X?")."""
    words = name.replace("_", " ").strip()
    return Definition(name, 2, f"What is the {words} of {{0}}?", f"Whose {words} is {{1}}?",
                      f"The {words} of {{0}} is {{1}}.")


def with_default_definitions(schema: Schema, plan: Plan, limit: int = 8) -> tuple[Schema, list[str]]:
    """``schema`` plus a :func:`default_definition` for each binary predicate the plan uses but
    neither defines nor the dataset knows; validated by SWI-Prolog (raises :class:`QueryError`)."""
    added: list[str] = []
    for _ in range(limit + 1):
        try:
            validate_plan(schema, plan)
            return schema, added
        except QueryError as exc:
            m = _UNKNOWN.search(str(exc))
            if m is None or m["name"] in added:
                raise
            added.append(m["name"])
            schema = Schema({**schema.readable, m["name"]: default_definition(m["name"])}, schema.derived,
                            schema.rules, schema.version)
    raise QueryError(f"more than {limit} undefined predicates")


class PlanError(QueryError):
    """No valid plan; ``attempts`` holds the model's replies and what was wrong with each."""

    def __init__(self, message: str, attempts: list[dict]) -> None:
        super().__init__(message)
        self.attempts = attempts


@dataclass
class Planner:
    """Question -> plan with the model; validated by SWI-Prolog; one repair round.  A count
    question's invented ``count(V)`` goal is dropped first (:func:`strip_count_goals`); a plan
    must start from the question's own constants (:func:`check_grounded`).  When both replies
    fail only because a relation has no definition, the last such plan is used with templates
    read off the predicate's name (:func:`with_default_definitions`)."""

    model: Any
    dataset: str = "phantomwiki"
    max_new_tokens: int = 384
    calls: int = 0

    def _examples(self) -> str:
        ex = prompts()["plan"]["examples"].get(self.dataset) or prompts()["plan"]["examples"]["phantomwiki"]
        return "\n".join(f"Question: {e['question']}\nAnswer: {e['answer']}\n" for e in ex)

    def plan(self, question: str, base: Schema | None = None) -> tuple[Plan, Schema, list[dict]]:
        """(plan, schema with every plan predicate readable, attempts log).

        Raises
        ------
        PlanError
            When neither the reply nor the repaired reply gives a valid query.
        """
        p = prompts()
        chat = [{"role": "user", "content": fill(p["plan"]["instruction"], examples=self._examples())
                 + fill(p["plan"]["question"], question=fence(question, "question"))}]
        attempts: list[dict] = []
        undefined: list[tuple[Plan, Schema]] = []  # plans refused only for a missing definition
        for _ in range(2):
            reply = self.model.chat(chat, max_new_tokens=self.max_new_tokens, version=p["version"])
            self.calls += 1
            try:
                plan, defs = parse_plan(reply)
                if is_count_question(question):
                    plan = strip_count_goals(plan)
                # The plan's own definitions win; a dataset's known predicates fill the gaps.  A
                # predicate with neither is an unknown predicate for SWI-Prolog: repaired or refused.
                known = base.all_readable().readable if base else {}
                schema = Schema({**known, **defs}, version=base.version if base else "")
                try:
                    validate_plan(schema, plan)
                except QueryError as exc:
                    if _UNKNOWN.search(str(exc)):
                        undefined.append((plan, schema))
                    raise
                check_grounded(question, plan, schema)
                attempts.append({"reply": reply, "ok": True})
                return plan, schema, attempts
            except QueryError as exc:
                attempts.append({"reply": reply, "ok": False, "error": str(exc)})
                chat += [{"role": "assistant", "content": reply},
                         {"role": "user", "content": fill(p["plan"]["repair"], error=str(exc))}]
        for plan, schema in reversed(undefined):
            try:
                schema, added = with_default_definitions(schema, plan)
                check_grounded(question, plan, schema)
            except QueryError as exc:
                attempts.append({"ok": False, "error": f"with default definitions: {exc}"})
                continue
            attempts.append({"ok": True, "default_definitions": added})
            return plan, schema, attempts
        raise PlanError(f"no valid plan after one repair: {attempts[1]['error']}", attempts)


class LLMReader(Reader):
    """The seed's reader (appendix A.2): fact extraction answers the question template from the
    passages; fact verification asks the entailment question and reads True/False from the reply,
    or (``verify='logit'``) from P(True) of the model's first token.  The prompt (``picot-3``) asks
    for the answer first and then one sentence of evidence: the seed's order, reasoning first, left
    the embedded 1.5B model's replies cut off before their answer at 48-128 new tokens."""

    name = "llm"

    def __init__(self, schema: Schema, model: Any, verify: str = "cot", max_new_tokens: int = 160,
                 max_evidence_tokens: int = 6000, max_passage_tokens: int | None = None) -> None:
        self.schema = schema
        self.model = model
        self.verify_mode = verify
        self.max_new_tokens = max_new_tokens
        self.max_evidence_tokens = max_evidence_tokens
        self.max_passage_tokens = max_passage_tokens
        self.calls = 0

    def _ask(self, question: str, passages: Sequence[Passage]) -> str:
        p = prompts()
        text = fill(p["reader"]["instruction"], evidence=evidence(passages, self.model, self.max_evidence_tokens, self.max_passage_tokens)) + \
            fill(p["reader"]["question"], question=fence(question, "question"))
        self.calls += 1
        return self.model.chat([{"role": "user", "content": text}], max_new_tokens=self.max_new_tokens,
                               version=p["version"])

    def extract(self, goal: Goal, definition: Definition, question: str, passages: Sequence[Passage]) -> list[tuple]:
        answers = parse_answer(self._ask(question, passages), prompts()["answer_sep"], question)
        free = [i for i, a in enumerate(goal.args) if a is None]
        rows = []
        for ans in answers:
            # a truth value is a verification's answer, never an entity to assert
            if not is_answer(ans) or ans.lower() in ("true", "false") or len(free) != 1:
                continue
            rows.append(tuple(ans if a is None else a for a in goal.args))
        return rows

    def verify(self, goal: Goal, definition: Definition, statement: str, passages: Sequence[Passage]) -> bool:
        p = prompts()
        if self.verify_mode == "logit":
            self.calls += 1
            prefix = fill(p["reader"]["logit"], evidence=evidence(passages, self.model, self.max_evidence_tokens, self.max_passage_tokens))
            suffix = fill(p["reader"]["logit_claim"], statement=fence(statement, "statement"))
            return float(self.model.true_false_probability([(prefix, suffix)], version=p["version"])[0]) > 0.5
        reply = self._ask(fill(p["reader"]["verify"], statement=statement), passages)
        answers = parse_answer(reply)
        return bool(answers) and answers[0].lower().startswith("true")


def answer_prompt(question: str, passages: Sequence[Passage], model: Any, notes: Sequence[str] = (),
                  prolog_answer: Sequence[str] | None = None, max_evidence_tokens: int = 6000,
                  max_passage_tokens: int | None = None) -> str:
    """The final chain-of-thought prompt: passages, then (π-CoT) the notes and the Prolog answer."""
    p = prompts()["answer"]
    note_text = ""
    if notes or prolog_answer is not None:
        note_text = fill(p["notes"], notes=fence("\n".join(notes) or "(none)", "notes"),
                         prolog_answer=fence(", ".join(prolog_answer or []) or "(no answer)", "prolog"))
    return fill(p["instruction"], evidence=evidence(passages, model, max_evidence_tokens, max_passage_tokens),
                notes=note_text) + \
        fill(p["question"], question=fence(question, "question"))

"""SLICE chaining: execute a plan (q1..qT, target) against a corpus, one sub-query at a time.

For step t the knowledge base is asked for the goals q1..qt need (``KnowledgeBase.pending``).  Each
readable goal is acquired once: with an unbound argument it is *fact extraction* (its question
template -> retrieve k passages -> the reader's answers asserted as facts); fully bound it is *fact
verification* (statement template -> retrieve -> the fact is asserted only if the reader says
true).  This repeats until nothing is pending; the state S_t is then the knowledge base queried
with q1..qt.  Derived predicates that the reader cannot read are resolved through the schema's
rules, whose bodies ask for more readable goals the same way.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Sequence

from ._prolog import Goal, KnowledgeBase, QueryError
from ._readers import Reader
from ._retrieval import Passage, Retriever
from ._schema import Schema

__all__ = ["Plan", "SliceExecutor", "SliceResult", "format_value", "validate_plan"]


@dataclass
class Plan:
    """A Prolog query as sub-queries in execution order, its target variable and source."""

    goals: list[str]
    target: str
    source: str = "gold"

    @property
    def query(self) -> str:
        return ", ".join(self.goals)


@dataclass
class SliceResult:
    answers: list[str]
    states: list[dict[str, Any]]
    facts: list[Goal]
    steps: list[dict[str, Any]]
    passages: list[Passage]
    retriever_calls: int
    reader_calls: int
    error: str | None = None
    notes: list[str] = field(default_factory=list)


def format_value(v: Any) -> str:
    """A state value as answer text (counts print as integers)."""
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def _knowledge_base(schema: Schema) -> KnowledgeBase:
    return KnowledgeBase({n: d.arity for n, d in schema.readable.items()}, schema.rules)


def validate_plan(schema: Schema, plan: Plan) -> None:
    """Parse and check ``plan`` with SWI-Prolog against ``schema`` (raises :class:`QueryError`)."""
    with _knowledge_base(schema) as kb:
        names = kb.parse(plan.query)
    if plan.target not in names:
        raise QueryError(f"target {plan.target} does not occur in the query")


class SliceExecutor:
    """Runs plans with one reader and one retriever.

    Parameters
    ----------
    schema
        Predicate definitions (templates) and rules.
    reader, retriever
        See :mod:`._readers`, :mod:`._retrieval`.
    k
        Passages per retrieval call.
    max_acquisitions
        Safety bound on SLICE calls per question (a runaway plan is cut off and reported).
    """

    def __init__(self, schema: Schema, reader: Reader, retriever: Retriever, k: int = 10,
                 max_acquisitions: int = 2000, max_states: int = 10_000) -> None:
        self.schema = schema
        self.reader = reader
        self.retriever = retriever
        self.k = k
        self.max_acquisitions = max_acquisitions
        self.max_states = max_states


    def _acquire(self, kb: KnowledgeBase, goal: Goal, context: Sequence[Passage] | None,
                 passages: dict[str, Passage]) -> dict[str, Any]:
        d = self.schema.definition(goal.pred)
        if goal.bound:
            text = d.claim(goal.args)
            found = self.retriever.retrieve(text, self.k, context)
            ok = self.reader.verify(goal, d, text, found)
            added = kb.add_fact(goal.pred, goal.args) if ok else False
            record = {"kind": "verify", "goal": str(goal), "text": text, "true": ok, "added": int(bool(added))}
        else:
            text = d.question(goal.args)
            found = self.retriever.retrieve(text, self.k, context)
            rows = self.reader.extract(goal, d, text, found)
            added = kb.add_facts((goal.pred, r) for r in rows)
            record = {"kind": "extract", "goal": str(goal), "text": text, "answers": [list(r) for r in rows],
                      "added": added}
        record["docs"] = [p.docid for p in found]
        for p in found:
            passages.setdefault(p.docid, p)
        kb.mark_acquired(goal)
        return record

    def run(self, plan: Plan, context: Sequence[Passage] | None = None) -> SliceResult:
        """Execute ``plan``; ``context``: the question's passages in the in-context setting."""
        self.retriever.reset()
        reader_calls0 = self.reader.calls
        steps: list[dict[str, Any]] = []
        passages: dict[str, Passage] = {}
        states: list[dict[str, Any]] = []
        error = None
        acquisitions = 0
        with _knowledge_base(self.schema) as kb:
            try:
                kb.parse(plan.query)
                for t in range(1, len(plan.goals) + 1):
                    prefix = ", ".join(plan.goals[:t])
                    start = time.perf_counter()
                    records = []
                    while True:
                        todo = kb.pending(prefix)
                        if not todo:
                            break
                        for goal in todo:
                            if acquisitions >= self.max_acquisitions:
                                raise QueryError(f"more than {self.max_acquisitions} SLICE calls; stopped")
                            acquisitions += 1
                            records.append(self._acquire(kb, goal, context, passages))
                    states = kb.states(prefix, self.max_states)
                    steps.append({"t": t, "subquery": plan.goals[t - 1], "calls": records, "states": len(states),
                                  "seconds": round(time.perf_counter() - start, 4)})
            except QueryError as exc:
                error = str(exc)
            except Exception as exc:  # a Prolog error inside one question must not end the run
                error = f"{type(exc).__name__}: {' '.join(str(exc).split())[:300]}"
            facts = kb.facts() if kb.module else []
        answers = sorted({format_value(s[plan.target]) for s in states
                          if s.get(plan.target) is not None}) if error is None else []
        notes = []
        for f in facts:
            d = self.schema.definition(f.pred)
            notes.append(d.claim(f.args) if d else str(f))
        return SliceResult(answers, states, facts, steps, list(passages.values()), self.retriever.calls,
                           self.reader.calls - reader_calls0, error, notes)

"""Count questions ("How many ...") whose plan forgot to count.

A small planner often writes the chain that *finds* the counted entities ("the friends of the
husband of X") and stops there, or closes it with an invented ``count(Y2)`` goal that no reader can
answer.  Its Prolog answer is then a list of names where a number is asked for.  Two checks repair
that without another model call:

* :func:`strip_count_goals` drops the invented one-argument ``count(V)`` / ``number(V)`` goals
  before the plan is validated, keeping ``V`` as the target;
* :func:`count_answers` turns the executed plan's states into counts: the distinct values of the
  target for each binding of the other variables, the answer ``aggregate_all(count, distinct(...), C)``
  gives for a chain whose last goal introduces the target.  It applies only when the plan has no
  aggregate of its own and its answers are not already numbers ("How many seats ..." answered
  "45,000" by the text stays as it is).
"""

from __future__ import annotations

import re
from typing import Any, Sequence

from ._slice import Plan, format_value

__all__ = ["count_answers", "is_count_question", "needs_count", "strip_count_goals"]

_HOW_MANY = re.compile(r"^\W*how\s+many\b", re.IGNORECASE)
_PSEUDO = re.compile(r"^(?:count|number|total|length|size)\(\s*([A-Z_][A-Za-z0-9_]*)\s*\)$")
_NUMBER = re.compile(r"^[+-]?\d[\d,]*(?:\.\d+)?$")


def is_count_question(question: str) -> bool:
    """True for questions that ask for a number of things ("How many daughters does ...")."""
    return bool(_HOW_MANY.match(question or ""))


def strip_count_goals(plan: Plan) -> Plan:
    """``plan`` without trailing invented ``count(V)`` goals (target: ``V``); unchanged otherwise."""
    goals, target = list(plan.goals), plan.target
    while len(goals) > 1 and (m := _PSEUDO.match(goals[-1].strip())):
        goals.pop()
        target = m.group(1)
    if goals == plan.goals:
        return plan
    return Plan(goals, target, plan.source)


def needs_count(question: str, plan: Plan, answers: Sequence[str]) -> bool:
    """Whether :func:`count_answers` should replace ``answers`` (see the module docstring)."""
    return (is_count_question(question) and bool(answers)
            and not any("aggregate_all" in g for g in plan.goals)
            and not all(_NUMBER.match(a.strip()) for a in answers))


def count_answers(states: Sequence[dict[str, Any]], target: str) -> list[str]:
    """Distinct ``target`` values counted per binding of the other variables, as sorted answer
    strings (several bindings, e.g. several friends of a husband, give several counts)."""
    groups: dict[tuple, set[str]] = {}
    for s in states:
        if s.get(target) is None:
            continue
        key = tuple(sorted((k, format_value(v)) for k, v in s.items() if k != target))
        groups.setdefault(key, set()).add(format_value(s[target]))
    return sorted({str(len(v)) for v in groups.values()}, key=int)

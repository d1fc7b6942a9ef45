"""SWI-Prolog through pyswip: one embedded engine, one module per question.

All text that reaches Prolog is a string literal made by :func:`prolog_string` (every quote,
backslash and control character escaped) or JSON parsed by Prolog itself; predicate names are
checked against a strict pattern.  Results come back as JSON, so no Prolog term is ever
rebuilt from Python-side string concatenation of values.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import re
import shutil
import threading
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Iterable, Sequence

__all__ = [
    "Goal",
    "KnowledgeBase",
    "PrologEngine",
    "PrologUnavailable",
    "QueryError",
    "prolog_string",
]

INSTALL_HINT = "install SWI-Prolog: apt-get install -y swi-prolog-nox (as root), then pip install pyswip"
_NAME = re.compile(r"[a-z][A-Za-z0-9_]*")


class PrologUnavailable(RuntimeError):
    """SWI-Prolog or pyswip is missing."""


class QueryError(ValueError):
    """A Prolog query that does not parse or uses unknown predicates."""


def prolog_string(text: str) -> str:
    r"""A Prolog double-quoted string literal whose value is exactly ``text``.

    Quotes, backslashes and every non-printable character are escaped (``\xHH\``), so the
    literal ends where we say it ends whatever ``text`` contains.
    """
    out = ['"']
    for ch in text:
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch.isprintable() and ch != "\u2028" and ch != "\u2029":
            out.append(ch)
        else:
            out.append(f"\\x{ord(ch):x}\\")
    out.append('"')
    return "".join(out)


def _check_name(name: str) -> str:
    if not _NAME.fullmatch(name):
        raise QueryError(f"bad predicate name {name!r}")
    return name


@dataclass(frozen=True)
class Goal:
    """A readable goal: predicate name and arguments (``None`` = unbound variable)."""

    pred: str
    args: tuple[Any, ...]

    @property
    def bound(self) -> bool:
        """All arguments are bound (fact verification), else fact extraction."""
        return all(a is not None for a in self.args)

    def to_json(self) -> str:
        return json.dumps({"pred": self.pred, "args": list(self.args)})

    def __str__(self) -> str:
        return f"{self.pred}({', '.join('_' if a is None else json.dumps(a, ensure_ascii=False) for a in self.args)})"


class PrologEngine:
    """The process-wide SWI-Prolog engine (SWI is embedded once per process).

    Every call runs under one lock, so threads may share the engine; questions stay apart
    because each has its own module (:class:`KnowledgeBase`).
    """

    _instance: "PrologEngine | None" = None
    _create_lock = threading.Lock()

    def __init__(self) -> None:
        if shutil.which("swipl") is None:
            raise PrologUnavailable(f"swipl not found on PATH; {INSTALL_HINT}")
        try:
            from pyswip import Prolog
            from pyswip.core import PL_thread_self, _lib
        except Exception as exc:  # ImportError, or libswipl not found
            raise PrologUnavailable(f"pyswip cannot load SWI-Prolog ({exc}); {INSTALL_HINT}") from None
        self._prolog = Prolog()
        self._thread_self, self._destroy_engine = PL_thread_self, _lib.PL_thread_destroy_engine
        self.lock = threading.RLock()
        self._ids = itertools.count(1)
        interp = resources.files(__package__).joinpath("interp.pl")
        with resources.as_file(interp) as path:
            with self._session():
                list(self._prolog.query(f"consult({prolog_string(str(path))})"))

    @classmethod
    def get(cls) -> "PrologEngine":
        """The shared engine, started on first use.

        Raises
        ------
        PrologUnavailable
            With the command that installs SWI-Prolog.
        """
        with cls._create_lock:
            if cls._instance is None:
                cls._instance = PrologEngine()
            return cls._instance

    def new_module(self) -> str:
        return f"picot_kb_{next(self._ids)}"

    @contextlib.contextmanager
    def _session(self):
        """The engine lock; in a thread that had no Prolog engine, the one pyswip attaches for the call is
        destroyed after it.  Left attached, such engines make SWI-Prolog's exit cleanup print "Failed to stop
        Prolog threads" after every threaded run (facts live in modules, not in engines, so nothing is lost)."""
        with self.lock:
            had_engine = self._thread_self() != -1
            try:
                yield
            finally:
                if not had_engine and self._thread_self() > 1:
                    self._destroy_engine()

    def once_json(self, goal: str, var: str = "J") -> Any:
        """Run ``goal`` once; it must bind ``var`` to a JSON string, returned decoded."""
        with self._session():
            sols = list(self._prolog.query(goal, maxresult=1))
        if not sols:
            raise QueryError(f"Prolog goal failed: {goal[:200]}")
        raw = sols[0][var]
        return json.loads(raw.decode("utf-8") if isinstance(raw, bytes) else raw)

    def run(self, goal: str) -> bool:
        """Run ``goal`` once; whether it succeeded."""
        with self._session():
            return bool(list(self._prolog.query(goal, maxresult=1)))


_RESERVED = re.compile(r"picot_reserved\((\w+), ?(\d+)\)")


def _error_text(exc: Exception) -> str:
    return " ".join(str(exc).split())[:300]


@dataclass
class KnowledgeBase:
    """One question's knowledge base: readable facts plus rules, in its own module.

    Parameters
    ----------
    readable
        ``{name: arity}`` of predicates that are filled from text (facts only).
    rules
        Prolog texts defining the other predicates (e.g. PhantomWiki's kinship rules), loaded in
        order; a predicate defined by an earlier text keeps that definition.  Clauses for
        readable predicates and directives are skipped.
    """

    readable: dict[str, int]
    rules: Sequence[str] = ()
    engine: PrologEngine = field(default_factory=PrologEngine.get)
    module: str = ""

    def __post_init__(self) -> None:
        for name in self.readable:
            _check_name(name)
        self.module = self.engine.new_module()
        spec = json.dumps([[n, a] for n, a in self.readable.items()])
        try:
            self.engine.run(f"picot_interp:kb_create({self.module}, {prolog_string(spec)})")
        except Exception as exc:
            self.close()
            m = _RESERVED.search(str(exc))
            if m is None:
                raise
            # A plan that names a relation length/2 is the plan's fault: a QueryError goes to the repair round.
            raise QueryError(f"{m[1]}/{m[2]} is a built-in Prolog predicate and cannot name a relation: "
                             f"rename it (e.g. {m[1]}_of)") from None
        for text in [self.rules] if isinstance(self.rules, str) else self.rules:
            if not text.strip():
                continue
            try:
                ok = self.engine.run(f"picot_interp:kb_load_rules({self.module}, {prolog_string(text)})")
            except Exception as exc:
                self.close()
                raise QueryError(f"rules do not parse: {_error_text(exc)}") from None
            if not ok:
                self.close()
                raise QueryError("rules could not be loaded")

    def close(self) -> None:
        """Remove every clause of this knowledge base from the engine."""
        if self.module:
            self.engine.run(f"picot_interp:kb_destroy({self.module})")
            self.module = ""

    def __enter__(self) -> "KnowledgeBase":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- queries -------------------------------------------------------------------------
    def parse(self, query: str) -> list[str]:
        """Parse and check ``query`` (a conjunction) with SWI-Prolog; its variable names.

        Raises
        ------
        QueryError
            On a syntax error, an unknown predicate or a non-constant argument.
        """
        try:
            out = self.engine.once_json(
                f"picot_interp:kb_parse_query({prolog_string(query)}, J, {self.module})")
        except Exception as exc:
            raise QueryError(_error_text(exc)) from None
        if not out.get("ok"):
            raise QueryError(out.get("error", "invalid query"))
        return list(out["vars"])

    def pending(self, query: str) -> list[Goal]:
        """Readable goals the query needs whose facts have not been acquired yet."""
        out = self.engine.once_json(f"picot_interp:kb_pending({self.module}, {prolog_string(query)}, J)")
        return [Goal(d["pred"], tuple(d["args"])) for d in out]

    def states(self, query: str, limit: int = 10_000) -> list[dict[str, Any]]:
        """Distinct variable assignments of ``query`` over the current facts and rules."""
        return self.engine.once_json(
            f"picot_interp:kb_states({self.module}, {prolog_string(query)}, {int(limit)}, J)")

    def facts(self) -> list[Goal]:
        """All readable facts asserted so far."""
        out = self.engine.once_json(f"picot_interp:kb_facts({self.module}, J)")
        return [Goal(d["pred"], tuple(d["args"])) for d in out]

    # -- updates -------------------------------------------------------------------------
    def add_fact(self, pred: str, args: Sequence[Any]) -> bool:
        """Assert ``pred(args...)``; values become Prolog strings (numbers stay numbers).

        Returns False (and asserts nothing) when ``pred``/arity is not readable here.
        """
        _check_name(pred)
        values = [a if isinstance(a, (int, float)) and not isinstance(a, bool) else str(a) for a in args]
        return self.engine.run(
            f"picot_interp:kb_add_fact({self.module}, {prolog_string(pred)}, {prolog_string(json.dumps(values))})")

    def add_facts(self, facts: Iterable[tuple[str, Sequence[Any]]]) -> int:
        return sum(self.add_fact(p, a) for p, a in facts)

    def mark_acquired(self, goal: Goal) -> None:
        """Record that the facts answering ``goal`` were fetched (hits or not)."""
        _check_name(goal.pred)
        self.engine.run(f"picot_interp:kb_mark_acquired({self.module}, {prolog_string(goal.to_json())})")

"""Predicate definitions: the question template (fact extraction) and statement template (fact
verification) of each predicate, as the seed's plans define them.  PhantomWiki's are data
(``data/phantomwiki.json``); an LLM plan brings its own."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any, Sequence

__all__ = ["Definition", "Schema", "phantomwiki_schema"]


def _fill(template: str, args: Sequence[Any]) -> str:
    out = template
    for i, a in enumerate(args):
        out = out.replace("{%d}" % i, "?" if a is None else str(a))
    return out


@dataclass(frozen=True)
class Definition:
    """How one predicate reads in natural language.

    ``ask_object``: question for the last argument given the first (``{0}``);
    ``ask_subject``: question for the first given the last (``{1}``);
    ``statement``: a claim about both.  ``phrases``/``multi``: how PhantomWiki's
    template sentences name the relation (template reader only).
    """

    name: str
    arity: int = 2
    ask_object: str = ""
    ask_subject: str = ""
    statement: str = ""
    phrases: tuple[str, ...] = ()
    multi: bool = False

    def question(self, args: Sequence[Any]) -> str:
        """The extraction question for a goal with unbound arguments (``None``)."""
        if self.arity == 2 and args[0] is None and args[1] is not None and self.ask_subject:
            return _fill(self.ask_subject, args)
        return _fill(self.ask_object or self.statement, args)

    def claim(self, args: Sequence[Any]) -> str:
        """The verification statement for a fully bound goal."""
        return _fill(self.statement, args)


@dataclass
class Schema:
    """Predicates a reader can answer from text (``readable``), the others' definitions
    (``derived``, answered through ``rules`` when the reader cannot read them) and the rules."""

    readable: dict[str, Definition]
    derived: dict[str, Definition] = field(default_factory=dict)
    rules: tuple[str, ...] = ()
    version: str = ""

    def definition(self, name: str) -> Definition | None:
        return self.readable.get(name) or self.derived.get(name)

    def all_readable(self) -> "Schema":
        """Every predicate readable (an LLM reader answers derived relations directly)."""
        return Schema({**self.readable, **self.derived}, {}, (), self.version)


@lru_cache(maxsize=None)
def _phantomwiki_data() -> dict[str, Any]:
    return json.loads(resources.files(__package__).joinpath("data/phantomwiki.json").read_text(encoding="utf-8"))


def phantomwiki_schema(rules: str = "") -> Schema:
    """PhantomWiki's article vocabulary; ``rules``: the universe's ``rules.pl`` (derived relations)."""
    data = _phantomwiki_data()
    readable = {n: Definition(n, 2, d["ask_object"], d["ask_subject"], d["statement"], tuple(d["phrases"]), d["multi"])
                for n, d in data["readable"].items()}
    derived = {n: Definition(n, 2, d["ask_object"], d["ask_subject"], d["statement"]) for n, d in data["derived"].items()}
    # The bridge is loaded first and wins: the generator defines child/2 through parent/2, a base
    # fact of its own database that articles only state as mother/father sentences.
    return Schema(readable, derived, (data["bridge"], rules), data["version"])

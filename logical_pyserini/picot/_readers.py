"""Readers answer one SLICE step from passages: fact extraction (the values of a goal's unbound
arguments) and fact verification (is a bound goal true).

``template``: a deterministic reader of PhantomWiki's templated sentences ("The mother of X is Y.",
"The friends of X are A, B."), so the symbolic machinery runs and is measured with no model.
``llm``: the seed's chain-of-thought reader through :mod:`logical_pyserini.models`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from ._prolog import Goal
from ._retrieval import Passage
from ._schema import Definition, Schema

__all__ = ["READERS", "Reader", "TemplateReader", "register_reader"]


class Reader:
    """Interface of a SLICE reader; ``calls`` counts model calls (0 for the template reader)."""

    name = ""
    calls = 0

    def extract(self, goal: Goal, definition: Definition, question: str, passages: Sequence[Passage]) -> list[tuple]:
        """Argument tuples of ``goal.pred`` facts that answer ``question`` (matching the bound args)."""
        raise NotImplementedError

    def verify(self, goal: Goal, definition: Definition, statement: str, passages: Sequence[Passage]) -> bool:
        raise NotImplementedError




@dataclass
class TemplateReader(Reader):
    """Parses PhantomWiki's article sentences into facts of the schema's readable predicates."""

    schema: Schema
    name: str = "template"
    _phrases: dict[str, Definition] = field(default_factory=dict, init=False)
    _sentence: re.Pattern = field(default=None, init=False)

    def __post_init__(self) -> None:
        for d in self.schema.readable.values():
            for p in d.phrases:
                self._phrases[p] = d
        # Longest phrase first, so "date of birth" is not read as "date" of "birth of X".
        names = "|".join(re.escape(p) for p in sorted(self._phrases, key=len, reverse=True))
        self._sentence = re.compile(rf"^The (?P<rel>{names}) of (?P<subj>.+?) (?:is|are) (?P<obj>.+?)\.?$")

    def facts(self, text: str) -> list[tuple[str, tuple[str, str]]]:
        """Every fact the templated sentences of ``text`` state."""
        out = []
        for line in text.splitlines():
            m = self._sentence.match(line.strip())
            if not m:
                continue
            d = self._phrases.get(m["rel"])
            if d is None:
                continue
            objs = [o.strip() for o in m["obj"].split(", ")] if d.multi else [m["obj"].strip()]
            out.extend((d.name, (m["subj"], o)) for o in objs if o)
        return out

    def _matching(self, goal: Goal, passages: Sequence[Passage]) -> list[tuple]:
        seen: dict[tuple, None] = {}
        for p in passages:
            for pred, args in self.facts(p.text):
                if pred == goal.pred and all(g is None or g == a for g, a in zip(goal.args, args)):
                    seen.setdefault(args, None)
        return list(seen)

    def extract(self, goal, definition, question, passages):
        return self._matching(goal, passages)

    def verify(self, goal, definition, statement, passages):
        return bool(self._matching(goal, passages))


def _llm_reader(schema: Schema, model: Any = None, **options: Any) -> Reader:
    from ._llm import LLMReader  # imports the model layer only when asked for

    if model is None:
        raise ValueError("the llm reader needs a model (--llm embedded|PATH|openai:NAME)")
    return LLMReader(schema, model, **options)


READERS: dict[str, Callable[..., Reader]] = {
    "template": lambda schema, model=None, **kw: TemplateReader(schema),
    "llm": _llm_reader,
}


def register_reader(name: str, factory: Callable[..., Reader]) -> None:
    """Add a reader: ``factory(schema=..., model=..., **options) -> Reader``."""
    READERS[name] = factory

"""The oracle interface: plausibility that a predicate holds for an entity."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..prompts import load_prompt
from ._predicates import fill_statement

__all__ = ["Entity", "Oracle", "OracleError", "fill", "valuation_parts"]


class OracleError(RuntimeError):
    """An oracle cannot produce plausibilities (the message says why)."""


@dataclass(frozen=True)
class Entity:
    """A candidate as an oracle sees it.

    Attributes
    ----------
    docid : str
        Collection docid.
    title : str
        Entity name (fills ``{x}`` in statements).
    text : str or None
        Context (document text, already truncated); None in the
        ``parametric`` setting.
    """

    docid: str
    title: str
    text: str | None = None

    @property
    def key(self) -> str:
        """Cache key: docid, knowledge setting and a hash of what the oracle reads."""
        digest = hashlib.sha1(f"{self.title}\x00{self.text or ''}".encode("utf-8")).hexdigest()[:16]
        return f"{self.docid}|{'text' if self.text else 'title'}|{digest}"


def valuation_parts(entity: Entity, statement: str, prompt: dict | None = None) -> tuple[str, str]:
    """Truth-valuation prompt split into (entity prefix, predicate suffix).

    The prefix (context and title) is the same for every predicate of an
    entity, which lets a causal LM encode it once.  The document text is
    fenced (:func:`logical_pyserini.models.fence`): no line of it can pose as
    the prompt's ``Claim:`` or an answer, nor close the chat turn.
    """
    from ..models import fence

    v = (prompt or load_prompt("orlog"))["valuation"]
    prefix = ""
    if entity.text:
        prefix += fill(v["context"], title=entity.title, context=fence(entity.text, "document"))
    prefix += fill(v["entity"], title=entity.title)
    suffix = fill(v["statement"], statement=fill_statement(statement, entity.title)) + v["question"]
    return prefix, suffix


def fill(template: str, **values: str) -> str:
    """Fill ``{name}`` markers in one regex pass.

    ``str.format`` would choke on braces in titles and a chain of
    ``str.replace`` would re-scan inserted text; one pass over the template
    does neither, so hostile titles stay plain text.
    """
    return _MARKER.sub(lambda m: values[m.group(1)] if m.group(1) in values else m.group(0), template)


_MARKER = re.compile(r"\{(\w+)\}")


class Oracle:
    """Base class: subclasses implement :meth:`plausibilities`.

    Attributes
    ----------
    id : str
        Identifies the model and its settings (part of cache keys).
    prompt_version : str
        Version of the prompt wording (part of cache keys).
    lift : float
        The reranker's default ``lift`` for this oracle (see ``fuse``): 0
        here; a language model's P(True), multiplied over conjuncts, leaves
        every candidate of a hard query low while still ordering them.
    tie_spread : float
        The reranker's default ``tie_spread`` (see ``fuse``): 0 here; a
        language model's near-equal judgements of the base's top candidates
        say nothing about which comes first.
    usage : dict
        Running counters: ``pairs``, ``prompt_tokens`` (tokens a plain,
        unshared prompt per pair would hold), ``computed_tokens`` (tokens
        actually run through the model), ``generated_tokens``.
    """

    id: str = "oracle"
    prompt_version: str = ""
    lift: float = 0.0
    tie_spread: float = 0.0

    def __init__(self) -> None:
        self.usage = {"pairs": 0, "prompt_tokens": 0, "computed_tokens": 0, "generated_tokens": 0}

    def plausibilities(self, pairs: Sequence[tuple[Entity, str]]) -> np.ndarray:
        """Plausibility in [0, 1] that each statement (with ``{x}``) holds for its entity."""
        raise NotImplementedError

    def truncate(self, text: str, max_tokens: int) -> str:
        """``text`` cut to ``max_tokens`` tokens (whitespace words unless the oracle has a tokenizer)."""
        words = text.split()
        return text if len(words) <= max_tokens else " ".join(words[:max_tokens])

    def _count(self, **counts: int) -> None:
        for name, value in counts.items():
            self.usage[name] += int(value)

"""Baseline: LLM-as-reasoner -- the model reads query and entity and answers True/False."""

from __future__ import annotations

import re
import time
from typing import Any, Sequence

from ..prompts import load_prompt
from ._base import BaseReranker, DocTextFn, RerankedHit, RerankStats
from ._oracle import Entity, fill
from ._predicates import OrLogQuery

__all__ = ["LLMReasoner", "parse_answer"]

_ANSWER = re.compile(r"\b(true|false)\b", re.IGNORECASE)


def parse_answer(text: str) -> bool | None:
    """The verdict in a generated answer: the last standalone True/False word.

    The last one, because models that reason first state the verdict at the
    end ("... so it is not set in Rome. False").  None when there is none.
    """
    found = _ANSWER.findall(text or "")
    return found[-1].lower() == "true" if found else None


class LLMReasoner(BaseReranker):
    """Rerank by an LLM's True/False verdict on the whole query (seed 000, section 4.5).

    Verdicts score 1 (True) and 0 (False).  An answer without a verdict
    falls back to the base score, min-max scaled into [0, 1] over the
    reranked candidates, and is counted in ``stats.unparsable``.  Ties keep
    the input order.

    Parameters
    ----------
    backend : object
        Anything with ``generate(prompts, max_new_tokens) -> [(text,
        prompt_tokens, generated_tokens)]``: a :class:`TransformersOracle` or
        an :class:`OpenAIOracle`.
    depth, knowledge, context_tokens
        As for :class:`OrLogReranker`.
    max_new_tokens : int
        Generation budget per (query, entity).
    batch_size : int
        Prompts per ``generate`` call.
    """

    method = "llm-reasoner"

    def __init__(self, backend: Any, depth: int = 20, knowledge: str = "parametric+", context_tokens: int = 256,
                 max_new_tokens: int = 64, batch_size: int = 8):
        super().__init__(depth, knowledge, context_tokens)
        if not callable(getattr(backend, "generate", None)):
            raise ValueError(f"{type(backend).__name__} cannot generate text; the LLM-as-reasoner needs "
                             "an hf:PATH or openai:MODEL model")
        self.backend = backend
        self.max_new_tokens = int(max_new_tokens)
        self.batch_size = int(batch_size)
        self.prompt = load_prompt("orlog")["reasoner"]

    def prompt_for(self, question: str, entity: Entity) -> str:
        """The reasoner prompt for one (query, entity) pair."""
        p = self.prompt
        text = fill(p["context"], title=entity.title, context=entity.text) if entity.text else ""
        return text + fill(p["entity"], title=entity.title) + fill(p["query"], query=question) + p["question"]

    def rerank(self, query: Any, hits: Sequence[Any],
               doc_text_fn: DocTextFn | None = None) -> tuple[list[RerankedHit], RerankStats]:
        """Rerank one query's hits (same contract as :meth:`OrLogReranker.rerank`)."""
        stats = RerankStats(self.method)
        self.history.append(stats)
        try:
            question = OrLogQuery.coerce(query).question
            top = list(hits[: self.depth])
            stats.candidates = stats.pairs = len(top)
            if not top:
                return [], stats
            entities = self._entities(top, doc_text_fn, self.backend)
            prompts = [self.prompt_for(question, e) for e in entities]
            start = time.perf_counter()
            answers = []
            for s in range(0, len(prompts), self.batch_size):
                answers.extend(self.backend.generate(prompts[s : s + self.batch_size], self.max_new_tokens))
            stats.oracle_seconds = time.perf_counter() - start
        except Exception as exc:  # noqa: BLE001 - any failure keeps the base ranking (counted)
            return self._fail(hits, stats, exc), stats
        base = [float(h.score) for h in top]
        low, span = min(base), (max(base) - min(base)) or 1.0
        scores = []
        for (text, prompt_tokens, generated), b in zip(answers, base):
            stats.prompt_tokens += prompt_tokens
            stats.computed_tokens += prompt_tokens + generated
            stats.generated_tokens += generated
            verdict = parse_answer(text)
            if verdict is None:
                stats.unparsable += 1
                scores.append((b - low) / span)
            else:
                scores.append(1.0 if verdict else 0.0)
        stats.tokens_per_pair = stats.generated_tokens / len(top)
        return self._reorder(hits, scores), stats

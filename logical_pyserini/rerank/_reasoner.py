"""Baseline: LLM-as-reasoner -- the model reads query and entity and answers True/False."""

from __future__ import annotations

import re
import time
from typing import Any, Sequence

from ..prompts import load_prompt
from ._base import DEFAULT_FUSION, BaseReranker, DocTextFn, RerankedHit, RerankStats
from ._oracle import Entity, fill
from ._predicates import OrLogQuery, fill_statement


__all__ = ["LLMReasoner", "parse_answer"]

_ATOM_REF = re.compile(r"\b(\d+)\b")


def render_formula(node: Any) -> str:
    """Formula text over bare atom ids (``0 AND NOT 1``)."""
    return str(node).replace('"', "")

_ANSWER = re.compile(r"\b(true|false)\b", re.IGNORECASE)


def parse_answer(text: str) -> bool | None:
    """The verdict in a generated answer: the last standalone True/False word.

    The last one, because models that reason first state the verdict at the
    end ("... so it is not set in Rome. False").  None when there is none.
    """
    found = _ANSWER.findall(text or "")
    return found[-1].lower() == "true" if found else None


class LLMReasoner(BaseReranker):
    """Rerank by an LLM's True/False verdict on the whole request (seed 000, section 4.5).

    Two baselines, with the same model as OrLog:

    * LLM-as-reasoner (``logic=False``): the model reads the document and the
      user's natural-language question and answers True/False.
    * Logic-augmented LLM (``logic=True``): the same prompt plus the
      decomposition: the atomic conditions and the logical form over them.

    Verdicts score 1 (True) and 0 (False), fused with the base score like
    OrLog's posterior (``fusion``), so ties keep the base order.  An answer
    without a verdict scores 0.5 and is counted in ``stats.unparsable``.

    Parameters
    ----------
    model : LanguageModel or LLMOracle
        Anything with ``generate(prompts, max_new_tokens, system=...) -> [Completion]``
        and ``truncate``.
    depth, knowledge, context_tokens
        As for :class:`OrLogReranker`.
    logic : bool
        Add the decomposition to the prompt (the logic-augmented baseline).
    max_new_tokens : int
        Generation budget per (query, entity).
    batch_size : int
        Prompts per ``generate`` call.
    fusion : float
        Weight of the verdict against the min-max scaled base score.
    """

    method = "llm-reasoner"

    def __init__(self, model: Any, depth: int = 20, knowledge: str = "parametric+", context_tokens: int = 256,
                 logic: bool = False, max_new_tokens: int = 8, batch_size: int = 8,
                 fusion: float = DEFAULT_FUSION):
        super().__init__(depth, knowledge, context_tokens)
        if not callable(getattr(model, "generate", None)):
            raise ValueError(f"{type(model).__name__} cannot generate text; the LLM-as-reasoner needs a language "
                             "model (--oracle llm / --model SPEC)")
        self.model = model
        self.logic = bool(logic)
        self.method = "llm-reasoner+logic" if logic else "llm-reasoner"
        self.max_new_tokens = int(max_new_tokens)
        self.batch_size = int(batch_size)
        self.fusion = float(fusion)
        self.prompt = load_prompt("orlog")["reasoner"]

    def truncate(self, text: str, max_tokens: int) -> str:
        return self.model.truncate(text, max_tokens)

    def prompt_for(self, query: OrLogQuery, entity: Entity) -> str:
        """The reasoner's user message for one (query, entity) pair (the document fenced)."""
        from ..models import fence

        p = self.prompt
        text = fill(p["context"], title=entity.title, context=fence(entity.text, "document")) if entity.text else ""
        text += fill(p["entity"], title=entity.title) + fill(p["query"], query=" ".join(query.question.split()))
        if self.logic:
            conditions = "\n".join(f"({i}) {fill_statement(a, 'x')}" for i, a in enumerate(query.atoms))
            formula = _ATOM_REF.sub(r"(\1)", render_formula(query.formula))
            text += fill(p["logic"], conditions=conditions, formula=formula)
        return text + p["question"]

    def rerank(self, query: Any, hits: Sequence[Any],
               doc_text_fn: DocTextFn | None = None, depth: int | None = None) -> tuple[list[RerankedHit], RerankStats]:
        """Rerank one query's hits (same contract as :meth:`OrLogReranker.rerank`)."""
        from ._reranker import fuse

        stats = RerankStats(self.method)
        self.history.append(stats)
        try:
            q = OrLogQuery.coerce(query)
            top = list(hits[: depth or self.depth])
            stats.candidates = stats.pairs = len(top)
            stats.atoms = len(q.atoms)
            if not top:
                return [], stats
            entities = self._entities(top, doc_text_fn, self)
            prompts = [self.prompt_for(q, e) for e in entities]
            start = time.perf_counter()
            usage = getattr(self.model, "usage", None)  # duck-typed models may keep no counters
            hits_before = usage["cache_hits"] if usage else 0
            answers = []
            for s in range(0, len(prompts), self.batch_size):
                answers.extend(self.model.generate(prompts[s : s + self.batch_size], self.max_new_tokens,
                                                   version=self.prompt["version"], system=self.prompt["system"]))
            stats.oracle_seconds = time.perf_counter() - start
            stats.cache_hits = usage["cache_hits"] - hits_before if usage else 0  # as OrLogReranker counts them
        except Exception as exc:  # noqa: BLE001 - any failure keeps the base ranking (counted)
            return self._fail(hits, stats, exc), stats
        scores = []
        for answer in answers:
            stats.prompt_tokens += answer.prompt_tokens
            stats.computed_tokens += answer.prompt_tokens + answer.generated_tokens
            stats.generated_tokens += answer.generated_tokens
            verdict = parse_answer(answer.text)
            if verdict is None:
                stats.unparsable += 1
            scores.append(0.5 if verdict is None else float(verdict))
        # Seed 000, Table 2: generated tokens per pair, plus the one-off parse tokens when the prompt uses them.
        stats.tokens_per_pair = (stats.generated_tokens + (q.parse_tokens if self.logic else 0)) / len(top)
        return self._reorder(hits, fuse(scores, [float(h.score) for h in top], self.fusion), scores), stats

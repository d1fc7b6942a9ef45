"""LLM rewriter: few-shot prompt -> validate -> one repair -> rule fallback, with a cache."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any, Callable, TypeVar

from ..prompts import fill, load_prompt
from ..query import parse_query
from ._backends import BackendError, ChatBackend
from ._cache import RewriteCache
from ._rules import RuleRewriter
from ._types import Decomposition, Rewrite, RewriteError
from ._validate import validate_decomposition, validate_query

__all__ = ["LLMRewriter", "build_messages"]

log = logging.getLogger(__name__)

T = TypeVar("T")


def build_messages(prompt: dict[str, Any], question: str) -> list[dict[str, str]]:
    """Chat messages for ``question``: system, few-shot turns, then the request.

    The question is inserted JSON-encoded (quotes, backslashes and newlines
    escaped) into its own user turn, so no question text can close the data
    field, start a new line that looks like an instruction, or add a turn.
    """
    messages = [{"role": "system", "content": prompt["system"]}]
    for example in prompt.get("examples", []):
        messages.append({"role": "user", "content": fill(prompt["user"], question=json.dumps(example["question"]))})
        messages.append({"role": "assistant", "content": example["answer"]})
    messages.append({"role": "user", "content": fill(prompt["user"], question=json.dumps(question, ensure_ascii=False))})
    return messages


class LLMRewriter:
    """Rewrite questions with a chat model; never fails, falls back to rules.

    Each question gets one model call; an answer that does not validate gets
    one repair call that quotes the error; if that fails too, the rule
    rewriter answers.  Outcomes are counted in :attr:`stats`.

    Parameters
    ----------
    backend : ChatBackend
        :class:`HFBackend`, :class:`OpenAIBackend` or anything with
        ``model_id`` and ``chat(messages) -> str``.
    cache : str, Path or RewriteCache, optional
        JSONL cache file; reruns with the same model and prompt versions are free.
    fallback : RuleRewriter, optional
        The rules used when the model fails.
    max_leaves : int
        Most terms (or atoms) accepted in one answer.

    Attributes
    ----------
    stats : dict
        ``ok``, ``repaired``, ``fallback`` (fresh outcomes), ``cache_hits``,
        ``cache_misses``, ``model_calls``, ``backend_errors``.
    """

    def __init__(
        self,
        backend: ChatBackend,
        *,
        cache: str | Path | RewriteCache | None = None,
        fallback: RuleRewriter | None = None,
        prompt: str = "rewrite",
        decompose_prompt: str = "decompose",
        max_leaves: int = 8,
    ):
        self.backend = backend
        self.cache = RewriteCache(cache) if isinstance(cache, (str, Path)) else cache
        self.fallback = fallback or RuleRewriter()
        self.prompt = load_prompt(prompt)
        self.decompose_prompt = load_prompt(decompose_prompt)
        self.max_leaves = max_leaves
        self.stats: dict[str, int] = dict.fromkeys(
            ("ok", "repaired", "fallback", "cache_hits", "cache_misses", "model_calls", "backend_errors"), 0
        )

    @property
    def model_id(self) -> str:
        return self.backend.model_id

    # -- public interface -------------------------------------------------
    def rewrite(self, question: str) -> Rewrite:
        """Rewrite one question; ``source`` says which path produced it."""
        cached = self._cache_get("rewrite", self.prompt, question)
        if cached is not None:
            return Rewrite.from_tree(question, parse_query(cached["answer"]), "cache")
        check = lambda answer: validate_query(answer, question, max_leaves=self.max_leaves)  # noqa: E731
        tree, source, cacheable = self._ask(self.prompt, question, check)
        if tree is None:
            tree = self.fallback.tree(question)
        result = Rewrite.from_tree(question, tree, source)
        if cacheable:
            self._cache_put("rewrite", self.prompt, question, result.query, source)
        return result

    def decompose(self, question: str) -> Decomposition:
        """OrLog-style decomposition by the model (JSON), else from the rule rewrite."""
        cached = self._cache_get("decompose", self.decompose_prompt, question)
        if cached is not None:
            return Decomposition.from_dict({**cached["answer"], "question": question, "source": "cache"})
        check = lambda answer: validate_decomposition(answer, question, max_atoms=self.max_leaves)  # noqa: E731
        parts, source, cacheable = self._ask(self.decompose_prompt, question, check)
        if parts is None:
            result = Decomposition.from_tree(self.fallback.tree(question), question, "fallback")
        else:
            result = Decomposition(question, *parts, source=source)
        if cacheable:
            answer = {k: v for k, v in result.to_dict().items() if k not in ("question", "source")}
            self._cache_put("decompose", self.decompose_prompt, question, answer, source)
        return result

    # -- engine -------------------------------------------------------------
    def _ask(self, prompt: dict[str, Any], question: str, check: Callable[[str], T]) -> tuple[T | None, str, bool]:
        """``(value, source, cacheable)``; value None means "use the fallback".

        A backend error is not cached (the next run should try again); an
        answer that fails validation twice is (the model did answer).
        """
        messages = build_messages(prompt, question)
        for source in ("llm", "repaired"):
            try:
                answer = self._call(messages)
            except BackendError as exc:
                log.warning("falling back to rules for %r: %s", question, exc)
                self.stats["backend_errors"] += 1
                self.stats["fallback"] += 1
                return None, "fallback", False
            try:
                value = check(answer)
            except RewriteError as error:
                log.info("invalid %s answer for %r: %s", source, question, error)
                # One repair turn: the model sees its answer and what is wrong with it.
                messages = messages + [
                    {"role": "assistant", "content": answer},
                    {
                        "role": "user",
                        "content": fill(
                            prompt["repair"],
                            error=json.dumps(str(error), ensure_ascii=False),
                            answer=json.dumps(answer, ensure_ascii=False),
                        ),
                    },
                ]
                continue
            self.stats["ok" if source == "llm" else "repaired"] += 1
            return value, source, True
        log.warning("falling back to rules for %r: the repaired answer is still invalid", question)
        self.stats["fallback"] += 1
        return None, "fallback", True

    def _call(self, messages: list[dict[str, str]]) -> str:
        self.stats["model_calls"] += 1
        return self.backend.chat(messages)

    def _cache_get(self, task: str, prompt: dict[str, Any], question: str) -> dict[str, Any] | None:
        if self.cache is None:
            return None
        hit = self.cache.get(self.model_id, prompt["version"], task, question)
        self.stats["cache_hits" if hit is not None else "cache_misses"] += 1
        return hit

    def _cache_put(self, task: str, prompt: dict[str, Any], question: str, answer: Any, source: str) -> None:
        if self.cache is not None:
            self.cache.put(self.model_id, prompt["version"], task, question, answer, source)

"""``get_rewriter("rules" | "hf:PATH" | "openai:MODEL")`` for CLIs and scripts."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from ._backends import HFBackend, OpenAIBackend
from ._cache import RewriteCache
from ._llm import LLMRewriter
from ._rules import RuleRewriter
from ._types import Decomposition, Rewriter

__all__ = ["decompose", "get_rewriter"]

SPEC_HELP = "rules | rules:explicit | hf:PATH (model folder or .gguf file) | openai:MODEL"


def get_rewriter(
    spec: str = "rules",
    *,
    cache: str | Path | RewriteCache | None = None,
    base_url: str | None = None,
    api_key: str | None = None,
    max_new_tokens: int | None = None,
    timeout: float | None = None,
) -> Rewriter:
    """Build a rewriter from a spec string.

    Parameters
    ----------
    spec : str
        ``rules``; ``rules:explicit`` (connective-driven rules only); ``hf:PATH``
        with PATH a model folder or a ``.gguf`` file;
        ``openai:MODEL`` for an OpenAI-compatible endpoint.
    cache : optional
        JSONL rewrite cache (LLM rewriters only; the rules need none).
    base_url, api_key, timeout : optional
        For ``openai:``; defaults come from ``OPENAI_BASE_URL`` / ``OPENAI_API_KEY``.
    max_new_tokens : int, optional
        Generation limit for the model's replies.

    Raises
    ------
    ValueError
        For an unknown spec or missing parts.
    """
    kind, sep, arg = spec.partition(":")
    kind = kind.strip().lower()
    if kind == "rules" and (not sep or arg == "explicit"):
        return RuleRewriter(implicit=not sep)
    if kind == "hf" and arg:
        kwargs = {"max_new_tokens": max_new_tokens} if max_new_tokens else {}
        return LLMRewriter(HFBackend(arg, **kwargs), cache=cache)
    if kind == "openai" and arg:
        kwargs = {"max_tokens": max_new_tokens} if max_new_tokens else {}
        if timeout:
            kwargs["timeout"] = timeout
        return LLMRewriter(OpenAIBackend(arg, base_url=base_url, api_key=api_key, **kwargs), cache=cache)
    raise ValueError(f"unknown rewriter {spec!r}; expected {SPEC_HELP}")


@lru_cache(maxsize=1)
def _default_rules() -> RuleRewriter:
    return RuleRewriter()


def decompose(question: str, rewriter: Rewriter | None = None) -> Decomposition:
    """OrLog-style decomposition of ``question`` (rules unless a rewriter is given).

    >>> decompose("Birds of Chile but not of Peru").formula
    '0 AND NOT 1'
    """
    return (rewriter or _default_rules()).decompose(question)

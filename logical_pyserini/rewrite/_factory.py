"""``get_rewriter("rules" | "llm" | "llm:MODEL_SPEC" | ...)`` for CLIs and scripts (a name -> builder registry)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable

from ._llm import LLMRewriter
from ._rules import RuleRewriter
from ._types import Decomposition, Rewriter

__all__ = ["REWRITERS", "SPEC_HELP", "decompose", "get_rewriter"]

SPEC_HELP = ("rules | rules:explicit | llm (the --model language model) | llm:MODEL_SPEC | llm-draft[:MODEL_SPEC] "
             "(the model corrects the rules' draft) | hf:PATH | openai:NAME")


def _rules(arg: str, options: dict[str, Any]) -> Rewriter:
    if arg not in ("", "explicit"):
        raise ValueError(f"unknown rules variant {arg!r}; expected rules or rules:explicit")
    return RuleRewriter(implicit=not arg)


def _llm(arg: str, options: dict[str, Any], draft: bool = False) -> Rewriter:
    from ..models import get_model

    model = options.pop("model", None)
    factory = options.pop("model_factory", None)
    kwargs = {k: options.pop(k) for k in ("max_new_tokens",) if options.get(k)}
    if arg or (model is None and factory is None):
        model = get_model(arg or "embedded", **{k: v for k, v in options.items() if v is not None})
    elif model is None:  # built only now: a rules run never loads (or asks to install) a model
        model = factory()
    return LLMRewriter(model, draft=draft, **kwargs)


def _named(kind: str) -> Callable[[str, dict[str, Any]], Rewriter]:
    # Older spellings: ``hf:PATH`` is a model path, ``openai:NAME`` a server model.
    return lambda arg, options: _llm(f"openai:{arg}" if kind == "openai" else arg, options) if arg else _bad(kind)


def _bad(kind: str) -> Rewriter:
    raise ValueError(f"{kind}: needs a model ({SPEC_HELP})")


#: ``--rewrite`` kinds: name -> builder(arg, options).
REWRITERS: dict[str, Callable[[str, dict[str, Any]], Rewriter]] = {
    "rules": _rules, "llm": _llm, "llm-draft": lambda arg, options: _llm(arg, options, draft=True),
    "hf": _named("hf"), "openai": _named("openai"),
}


def get_rewriter(spec: str = "rules", **options: Any) -> Rewriter:
    """Build a rewriter from a spec string.

    Parameters
    ----------
    spec : str
        ``rules``; ``rules:explicit`` (connective-driven rules only); ``llm``
        (the language model passed as ``model=``, else the embedded one);
        ``llm:MODEL_SPEC`` with any :func:`logical_pyserini.models.get_model`
        spec; ``llm-draft`` / ``llm-draft:MODEL_SPEC`` (the model is shown the
        rules' query as a draft to keep or correct); ``hf:PATH`` and ``openai:NAME`` (older spellings).
    **options
        ``model`` (a LanguageModel), ``model_factory`` (called for the model when
        a model-backed spec names none, e.g. the CLI's ``--model`` flags),
        ``max_new_tokens``, or options for ``get_model`` (``base_url``,
        ``api_key``, ``concurrency``, ``cache``, ``timeout``).

    Raises
    ------
    ValueError
        For an unknown spec or missing parts.
    ModelError
        When the model is not installed or cannot be loaded.
    """
    kind, _, arg = spec.strip().partition(":")
    kind = kind.lower()
    if kind not in REWRITERS:
        raise ValueError(f"unknown rewriter {spec!r}; expected {SPEC_HELP}")
    return REWRITERS[kind](arg, dict(options))


@lru_cache(maxsize=1)
def _default_rules() -> RuleRewriter:
    return RuleRewriter()


def decompose(question: str, rewriter: Rewriter | None = None) -> Decomposition:
    """OrLog-style decomposition of ``question`` (rules unless a rewriter is given).

    >>> decompose("Birds of Chile but not of Peru").formula
    '0 AND NOT 1'
    """
    return (rewriter or _default_rules()).decompose(question)

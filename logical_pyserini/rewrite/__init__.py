"""Natural language -> logical query.

* :class:`RuleRewriter` -- deterministic English patterns from ``rules.json``
  (the default; no model).
* :class:`LLMRewriter` -- a chat model (:class:`HFBackend` for a local
  transformers model or GGUF file, :class:`OpenAIBackend` for an
  OpenAI-compatible endpoint) with a few-shot prompt from
  :mod:`logical_pyserini.prompts`, validation, one repair, rule fallback and a
  JSONL cache.
* :func:`decompose` -- OrLog-style atoms (``"{x} is a comedy film"``) plus a
  logical form over them (:class:`Decomposition`), the input of ProbLog reranking.
* :func:`get_rewriter` -- ``rules`` / ``hf:PATH`` / ``openai:MODEL``.

CLI: ``python -m logical_pyserini.rewrite --topics FILE --output FILE``.

>>> from logical_pyserini.rewrite import RuleRewriter
>>> RuleRewriter().rewrite("Birds of the Dominican Republic or Trinidad").query
'"Birds of the Dominican Republic" OR "Birds of Trinidad"'
"""

from ._backends import BackendError, ChatBackend, HFBackend, OpenAIBackend
from ._cache import RewriteCache
from ._factory import decompose, get_rewriter
from ._guard import GUARD_MODES, GuardDecision, exclusion_scopes, guard_decision, guard_rewrite
from ._llm import LLMRewriter, build_messages
from ._rules import RuleRewriter
from ._statements import leaf_for, statement_for
from ._types import SOURCES, Decomposition, Rewrite, Rewriter, RewriteError
from ._validate import validate_decomposition, validate_query

__all__ = [
    "GUARD_MODES",
    "SOURCES",
    "GuardDecision",
    "exclusion_scopes",
    "guard_decision",
    "guard_rewrite",
    "BackendError",
    "ChatBackend",
    "Decomposition",
    "HFBackend",
    "LLMRewriter",
    "OpenAIBackend",
    "Rewrite",
    "RewriteCache",
    "RewriteError",
    "Rewriter",
    "RuleRewriter",
    "build_messages",
    "decompose",
    "get_rewriter",
    "leaf_for",
    "statement_for",
    "validate_decomposition",
    "validate_query",
]

"""Natural language -> logical query.

* :class:`RuleRewriter` -- deterministic English patterns from ``rules.json``
  (the default; no model).
* :class:`LLMRewriter` -- any :mod:`logical_pyserini.models` language model
  with a few-shot prompt from :mod:`logical_pyserini.prompts`: one call gives
  the atoms (natural-language predicate + search phrase) and the formula;
  validation against the grammar, one repair, rule fallback with a logged
  warning; answers cached by the model layer.
* :func:`decompose` -- OrLog-style atoms (``"{x} is a comedy film"``) plus a
  logical form over them (:class:`Decomposition`), the input of ProbLog reranking.
* :func:`guard_rewrite` -- rewriting that does no harm: the question stays the
  positive leaf, only the exclusions its cues confirm are kept; an
  :class:`ExclusionVerifier` (``verify=``) lets a language model veto the ones
  that only describe the asker's situation (:func:`build_verifier`); an
  :class:`ExclusionProposer` (``proposer=``) lets it add the one exclusion the
  cues missed (:func:`build_proposer`).
* :func:`get_rewriter` -- ``rules`` / ``llm`` / ``llm:MODEL_SPEC`` (registry :data:`REWRITERS`).

CLI: ``python -m logical_pyserini.rewrite --topics FILE --output FILE``.

>>> from logical_pyserini.rewrite import RuleRewriter
>>> RuleRewriter().rewrite("Birds of the Dominican Republic or Trinidad").query
'"Birds of the Dominican Republic" OR "Birds of Trinidad"'
"""

from ._factory import REWRITERS, decompose, get_rewriter
from ._guard import (GUARD_MODES, GUARD_NOT_WEIGHT, GuardDecision, excluded_positive_terms, exclusion_scopes,
                     guard_decision, guard_rewrite, negative_clauses)
from ._llm import LLMRewriter, build_messages
from ._rules import RuleRewriter, split_clauses
from ._statements import leaf_for, question_phrase, statement_for
from ._types import SOURCES, Decomposition, Rewrite, Rewriter, RewriteError
from ._validate import validate_decomposition, validate_query
from ._propose import PROPOSE_MODES, ExclusionProposer, build_proposer, name_candidates, top_candidate
from ._verify import VERIFY_MODES, ExclusionVerifier, build_verifier

__all__ = [
    "GUARD_MODES",
    "GUARD_NOT_WEIGHT",
    "VERIFY_MODES",
    "ExclusionVerifier",
    "build_verifier",
    "PROPOSE_MODES",
    "ExclusionProposer",
    "build_proposer",
    "name_candidates",
    "top_candidate",
    "REWRITERS",
    "SOURCES",
    "GuardDecision",
    "excluded_positive_terms",
    "exclusion_scopes",
    "guard_decision",
    "guard_rewrite",
    "negative_clauses",
    "Decomposition",
    "LLMRewriter",
    "Rewrite",
    "RewriteError",
    "Rewriter",
    "RuleRewriter",
    "build_messages",
    "split_clauses",
    "decompose",
    "get_rewriter",
    "leaf_for",
    "question_phrase",
    "statement_for",
    "validate_decomposition",
    "validate_query",
]

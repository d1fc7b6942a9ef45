"""OrLog reranking: LLM plausibilities for atomic predicates, ProbLog posteriors, and a baseline.

>>> from logical_pyserini.query import parse_query
>>> from logical_pyserini.rerank import OrLogReranker, get_oracle   # doctest: +SKIP
>>> reranker = OrLogReranker(get_oracle("dense"), depth=20)          # doctest: +SKIP
>>> new_hits, stats = reranker.rerank(parse_query('"museum" AND NOT "art"'), hits)  # doctest: +SKIP
"""

from ._base import KNOWLEDGE, RerankedHit, RerankStats, hit_title_text, searcher_doc_text_fn
from ._cache import PlausibilityCache
from ._cli import add_rerank_arguments, apply_rerank, build_reranker, rerank_summary
from ._dense import DEFAULT_LAMBDA, DEFAULT_TAU, DenseOracle, fit_calibration
from ._hf import CausalLM, load_causal_lm, single_token_ids
from ._openai import OpenAIOracle, answer_probability
from ._oracle import Entity, Oracle, OracleError, valuation_parts
from ._predicates import OrLogQuery, fill_statement, leaf_statement
from ._problog import BACKENDS, CompiledFormula, available_backends, formula_program, program_posterior
from ._reasoner import LLMReasoner, parse_answer
from ._reranker import OrLogReranker, get_oracle
from ._transformers import TransformersOracle, true_false_probability

__all__ = [
    "BACKENDS", "DEFAULT_LAMBDA", "DEFAULT_TAU", "KNOWLEDGE",
    "CausalLM", "CompiledFormula", "DenseOracle", "Entity", "LLMReasoner", "OpenAIOracle", "Oracle",
    "OracleError", "OrLogQuery", "OrLogReranker", "PlausibilityCache", "RerankStats", "RerankedHit",
    "TransformersOracle",
    "add_rerank_arguments", "answer_probability", "apply_rerank", "available_backends", "build_reranker",
    "fill_statement", "fit_calibration", "formula_program", "get_oracle", "hit_title_text", "leaf_statement",
    "load_causal_lm", "parse_answer", "program_posterior", "rerank_summary", "searcher_doc_text_fn",
    "single_token_ids", "true_false_probability", "valuation_parts",
]

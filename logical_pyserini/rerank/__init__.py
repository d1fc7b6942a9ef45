"""OrLog reranking: LLM plausibilities for atomic predicates, ProbLog posteriors, and a baseline.

>>> from logical_pyserini.query import parse_query
>>> from logical_pyserini.rerank import OrLogReranker, get_oracle   # doctest: +SKIP
>>> reranker = OrLogReranker(get_oracle("llm"), depth=20)            # doctest: +SKIP
>>> new_hits, stats = reranker.rerank(parse_query('"museum" AND NOT "art"'), hits)  # doctest: +SKIP
"""

from ._base import KNOWLEDGE, RerankedHit, RerankStats, hit_title_text, pool_hits, searcher_doc_text_fn
from ._cli import (CANDIDATE_SOURCES, add_rerank_arguments, added_candidates, apply_rerank, build_reranker,
                   pool_question, prefetch_rerank, rerank_candidates, rerank_summary)
from ._dense import DEFAULT_LAMBDA, DEFAULT_TAU, DenseOracle, fit_calibration
from ._llm import LLMOracle
from ._oracle import Entity, Oracle, OracleError, valuation_parts
from ._predicates import OrLogQuery, fill_statement, leaf_statement
from ._problog import BACKENDS, CompiledFormula, available_backends, formula_program, program_posterior
from ._reasoner import LLMReasoner, parse_answer
from ._reranker import (DEFAULT_FUSION, DEFAULT_LIFT, LIFT_FLOOR, LIFT_RATIO, LOW_CONFIDENCE_FUSION, ORACLES,
                        TIE_SPREAD, TIE_TOP, OrLogReranker, fuse, get_oracle)

__all__ = [
    "BACKENDS", "CANDIDATE_SOURCES", "DEFAULT_FUSION", "DEFAULT_LAMBDA", "DEFAULT_LIFT", "DEFAULT_TAU", "KNOWLEDGE",
    "LIFT_FLOOR", "LIFT_RATIO", "LOW_CONFIDENCE_FUSION", "TIE_SPREAD", "TIE_TOP",
    "ORACLES", "CompiledFormula", "DenseOracle", "Entity", "LLMOracle", "LLMReasoner", "OrLogQuery",
    "OrLogReranker", "Oracle", "OracleError", "RerankStats", "RerankedHit", "add_rerank_arguments",
    "added_candidates", "apply_rerank", "available_backends", "build_reranker", "fill_statement", "fit_calibration",
    "formula_program", "fuse", "get_oracle", "hit_title_text", "leaf_statement", "parse_answer", "pool_hits",
    "pool_question", "prefetch_rerank", "program_posterior", "rerank_candidates", "rerank_summary",
    "searcher_doc_text_fn", "valuation_parts",
]

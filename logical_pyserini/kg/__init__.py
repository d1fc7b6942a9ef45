"""Step-wise first-order queries over a knowledge graph (ROG, seed 004).

A BetaE query becomes a deterministic plan of single-operator steps
(projection, intersection, union; negation as a set subtracted at the end of
its step) whose intermediate sets are cached per query.  Executors behind one
interface run the plan: ``exact`` (sparse set algebra), ``scored`` (fuzzy sets
completed by mined relation-path rules and, with ``--projection embedding|fused``,
a learned ComplEx-N3 link predictor trained by ``train-embeddings``) and ``llm`` (a language model judges
candidates against serialised graph evidence).  This package has its own graph
store and asks :mod:`logical_pyserini.models` for language-model calls; the
retrieval stack never imports it.
"""

from ._answers import ReferenceGraph, reference_answers
from ._betae import QUERY_STRUCTURES, TYPES, QueryFileError, load_queries, restricted_loads, structure_name
from ._evaluate import PROTOCOLS, Dataset, EvalConfig, evaluate, load_dataset, select_queries
from ._exact import ExactExecutor
from ._executor import Execution, Executor, ExecutorError, executor_names, get_executor, register_executor
from ._graph import GraphError, KnowledgeGraph, read_triples
from ._llm import LikelihoodRatios, LLMExecutor, parse_ids
from ._metrics import aggregate, filtered_ranks, query_metrics
from ._plan import Plan, PlanError, Step, compile_query
from ._rules import Rule, RuleSet, mine_rules
from ._embedding import EmbeddingError, LinkPredictor, TrainConfig, default_embedding_path, train_complex
from ._scored import (
    FEATURES, GRAPH_FEATURES, PROJECTIONS, Projection, ProjectionWeights, ScoredExecutor, fit_projection_weights,
    register_projection,
)

__all__ = [
    "EmbeddingError", "GRAPH_FEATURES", "LinkPredictor", "PROJECTIONS", "Projection", "TrainConfig",
    "default_embedding_path", "register_projection", "train_complex",
    "FEATURES", "PROTOCOLS", "QUERY_STRUCTURES", "TYPES", "Dataset", "EvalConfig", "ExactExecutor", "Execution", "Executor",
    "ExecutorError", "GraphError", "KnowledgeGraph", "LikelihoodRatios", "LLMExecutor", "Plan", "PlanError",
    "ProjectionWeights", "QueryFileError", "ReferenceGraph",
    "Rule", "RuleSet", "ScoredExecutor", "Step", "aggregate", "compile_query", "evaluate", "executor_names",
    "filtered_ranks", "fit_projection_weights", "get_executor", "load_dataset", "load_queries", "mine_rules", "parse_ids", "query_metrics",
    "read_triples", "reference_answers", "register_executor", "restricted_loads", "select_queries",
    "structure_name",
]

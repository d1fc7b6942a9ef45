"""π-CoT (seed 003): Prolog-initialised chain of thought for multi-hop QA over our searchers.

A consumer of the retrieval stack: it retrieves through
:class:`~logical_pyserini.search.LogicalLuceneSearcher` and asks :mod:`logical_pyserini.models`
for language-model calls; nothing in the retrieval stack imports it.

``python -m logical_pyserini.picot --questions Q.jsonl --corpus C.jsonl --index DIR --method picot
--gold-prolog --reader template --llm none --output run.jsonl``

Pieces: :class:`KnowledgeBase` (one SWI-Prolog module per question, facts asserted from JSON,
never from concatenated text), :class:`SliceExecutor` (SLICE chaining: fact extraction and
verification per sub-query, demand-driven through the rules), readers (``template``: PhantomWiki's
templated sentences, no model; ``llm``: the seed's chain-of-thought reader), methods
``picot | cot | rag | ircot`` and EM/F1 over answer sets.
"""

from ._count import count_answers, is_count_question, needs_count, strip_count_goals
from ._data import Question, load_multihop, load_questions
from ._metrics import (
    NON_ANSWERS, answered, echoes_question, is_answer, mean_se, normalize_answer, paired_test, score, set_scores,
    summarize, token_scores,
)
from ._prolog import Goal, KnowledgeBase, PrologEngine, PrologUnavailable, QueryError, prolog_string
from ._readers import READERS, Reader, TemplateReader, register_reader
from ._retrieval import InContext, LuceneRetriever, Passage, Retriever, load_corpus
from ._run import METHODS, RunConfig, compare, metrics, run_questions
from ._schema import Definition, Schema, phantomwiki_schema
from ._slice import Plan, SliceExecutor, SliceResult, validate_plan

__all__ = [
    "METHODS", "NON_ANSWERS", "READERS",
    "Definition", "Goal", "InContext", "KnowledgeBase", "LuceneRetriever", "Passage", "Plan", "PrologEngine",
    "PrologUnavailable", "QueryError", "Question", "Reader", "Retriever", "RunConfig", "Schema", "SliceExecutor",
    "SliceResult", "TemplateReader",
    "answered", "compare", "count_answers", "echoes_question", "is_answer", "is_count_question", "load_corpus",
    "load_multihop", "load_questions", "mean_se",
    "metrics", "needs_count", "normalize_answer",
    "paired_test", "phantomwiki_schema", "prolog_string", "register_reader", "run_questions", "score",
    "set_scores", "strip_count_goals", "summarize", "token_scores", "validate_plan",
]

"""The leaf-score oracle: plausibilities from the exact normalised leaf scores (no model).

OrLog needs P(predicate holds for entity).  Without a language model, the best
evidence the system has is the retrieval score of the predicate's leaf for
that document, exactly as logical search computes it: the exact BM25 (or
dense, hybrid) score, normalised into [0, 1] by the searcher's normaliser
(``max`` by default, a fitted sigmoid with ``--calibration``).  With these
plausibilities the ProbLog posterior is the logical score with exact
probabilistic semantics (AND = product, NOT = 1 − x, OR = noisy-or, repeated
atoms handled exactly), so reranking keeps what the base run got right instead
of replacing it with a weaker signal (the dense MiniLM oracle lowers P@1 on the
demo: eval/results/leaf_oracle.md).  It is the default oracle when no LLM is
installed.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Callable, Sequence

import numpy as np

from ._oracle import Entity, Oracle, OracleError
from ._predicates import PLACEHOLDER
from ..prompts import load_prompt

__all__ = ["LeafScoreFn", "LeafScoreOracle", "statement_leaf"]

#: ``(leaf text, docids) -> normalised scores in [0, 1]``, e.g. ``LogicalLuceneSearcher.leaf_scores``.
LeafScoreFn = Callable[[str, list[str]], np.ndarray]


def statement_leaf(statement: str) -> str:
    """The search leaf behind a statement.

    A statement made from a query leaf (``{x} matches the description "art
    museums"``) gives back exactly that leaf; any other statement (a
    decomposition's ``{x} is a comedy film``) is scored as its own words.
    """
    before, _, after = load_prompt("orlog")["leaf_statement"].partition("{leaf}")
    if before and statement.startswith(before) and statement.endswith(after) and len(statement) > len(before + after):
        return statement[len(before): len(statement) - len(after)]
    return " ".join(statement.replace(PLACEHOLDER, " ").split())


class LeafScoreOracle(Oracle):
    """Plausibility = the exact normalised score of the statement's leaf for the entity's document.

    Parameters
    ----------
    score_fn : LeafScoreFn, optional
        Scores a leaf for documents; the search CLI binds the searcher's
        ``leaf_scores`` (see :meth:`bind`) before the first rerank.
    """

    prompt_version = "leaf-1"

    def __init__(self, score_fn: LeafScoreFn | None = None, name: str = "leaf"):
        super().__init__()
        self.score_fn = score_fn
        self.id = name

    def bind(self, score_fn: LeafScoreFn, name: str | None = None) -> None:
        """Use ``score_fn`` (and cache under ``name``, which should name the index and normaliser)."""
        self.score_fn = score_fn
        if name:
            self.id = name

    def plausibilities(self, pairs: Sequence[tuple[Entity, str]]) -> np.ndarray:
        if self.score_fn is None:
            raise OracleError("the leaf-score oracle has no searcher to score leaves with (bind one first)")
        out = np.zeros(len(pairs), dtype=np.float64)
        by_leaf: dict[str, list[int]] = defaultdict(list)
        for i, (_, statement) in enumerate(pairs):
            by_leaf[statement_leaf(statement)].append(i)
        for leaf, rows in by_leaf.items():  # one exact-scoring pass per leaf
            values = np.asarray(self.score_fn(leaf, [pairs[i][0].docid for i in rows]), dtype=np.float64)
            out[rows] = np.clip(np.nan_to_num(values, nan=0.0), 0.0, 1.0)
        self._count(pairs=len(pairs))
        return out

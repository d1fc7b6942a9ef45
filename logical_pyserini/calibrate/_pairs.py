"""Judged (leaf, document) pairs from logical topics and qrels.

Qrels judge whole topics, not leaves.  A pair ``(leaf, doc)`` gets a label
only when it is *forced*: when giving the leaf the other truth value would
contradict the topic's judgement for ``doc``, whatever the unknown leaves are
(three-valued, Kleene evaluation), given the leaf labels already known for
``doc`` from other topics.  So:

* a relevant doc (topic true) labels every leaf reached through ``AND`` and
  ``NOT`` only -- ``a AND b AND NOT c`` gives ``a``, ``b`` relevant and ``c``
  non-relevant; below an ``OR`` nothing is forced on its own;
* a non-relevant doc (topic false) labels every leaf reached through ``OR``
  and ``NOT`` -- ``a OR b`` gives ``a``, ``b`` non-relevant -- and, for
  ``a AND b``, labels ``b`` non-relevant once ``a`` is known relevant for
  that doc (e.g. because the doc is relevant to another topic ``a AND c``);
* a single-leaf topic labels its leaf both ways.

Labels are propagated between topics until nothing changes.  Relevant docs
are the qrels' positives.  Non-relevant docs are the topic's judged
non-relevant docs when the qrels have any (relevance <= 0); only for topics
whose qrels list positives alone are they sampled from the documents the
topic's positive leaves retrieve (top ``depth`` of every retriever) that are
not judged relevant -- unjudged documents then count as non-relevant, as in
trec_eval.  Sampling unjudged documents from qrels that judge only part of the
pool can invert the fit (the best-scoring unjudged documents are often
relevant); :func:`~logical_pyserini.calibrate.fit_sigmoid` refuses a negative
slope.  ``negatives_per_positive`` per relevant doc (3 by default: many
sampled docs get no forced label).  A pair labelled
both ways is dropped.  The same pairs are scored by every retriever, so the
calibrations are fitted on the same data.
"""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass, field
from typing import Mapping

import numpy as np

from ..query import Node, Not, Or, Term, distinct_terms, normalize_text, positive_terms

logger = logging.getLogger(__name__)

__all__ = ["LeafScores", "PairSet", "collect_pairs", "forced_labels"]


def forced_labels(
    node: Node, truth: bool, known: Mapping[str, bool] | None = None
) -> list[tuple[Term, bool]]:
    """Leaves whose truth value follows from the formula having value ``truth``.

    Parameters
    ----------
    node : Node
        The topic's query.
    truth : bool
        The judgement: True for a relevant document.
    known : mapping, optional
        Normalised leaf text -> truth value already known for this document.

    Examples
    --------
    >>> from logical_pyserini.query import parse_query
    >>> [(t.text, v) for t, v in forced_labels(parse_query("a AND NOT b"), True)]
    [('a', True), ('b', False)]
    >>> forced_labels(parse_query("a AND b"), False)
    []
    >>> [(t.text, v) for t, v in forced_labels(parse_query("a AND b"), False, {"a": True})]
    [('b', False)]
    """
    known = dict(known or {})
    out = []
    for term in distinct_terms(node):
        text = normalize_text(term.text)
        if text in known:
            continue
        # The leaf is forced to v when its other value would make the formula
        # definitely contradict the judgement.
        contradicts = [v for v in (True, False) if _kleene(node, {**known, text: v}) is (not truth)]
        if len(contradicts) == 1:
            out.append((term, not contradicts[0]))
    return out


def _kleene(node: Node, values: Mapping[str, bool]) -> bool | None:
    """Three-valued value of the formula: None where unknown leaves decide it."""
    if isinstance(node, Term):
        return values.get(normalize_text(node.text))
    if isinstance(node, Not):
        value = _kleene(node.child, values)
        return None if value is None else not value
    children = [_kleene(c, values) for c in node.children]
    dominant = isinstance(node, Or)  # True decides an OR, False decides an AND
    if dominant in children:
        return dominant
    return None if None in children else not dominant


class LeafScores:
    """One retriever's leaf search and exact leaf scores, in collection docids.

    Parameters
    ----------
    name : str
        The retriever's calibration key (``bm25``, ``dense``, ``impact``...).
    scorer : LeafRetriever
        The retriever (e.g. a searcher's ``leaves``).
    """

    def __init__(self, name: str, scorer):
        self.name = name
        self.scorer = scorer
        self._lookup = scorer.key
        self._keys: dict[str, int | None] = {}

    def key(self, docid: str) -> int | None:
        if docid not in self._keys:
            self._keys[docid] = self._lookup(docid)
        return self._keys[docid]

    def top(self, text: str, k: int) -> list[str]:
        return self.scorer.docids(self.scorer.search(text, k).docs)

    def score(self, text: str, docids: list[str]) -> np.ndarray:
        keys = np.array([self.key(d) for d in docids], dtype=np.int64)
        return np.asarray(self.scorer.score(text, keys), dtype=np.float64)


@dataclass
class PairSet:
    """Labelled pairs and, per retriever, their raw scores."""

    pairs: list[tuple[str, str, bool]] = field(default_factory=list)  # (leaf text, docid, label)
    scores: dict[str, np.ndarray] = field(default_factory=dict)
    topics_used: int = 0
    conflicts: int = 0
    unknown_docids: int = 0

    @property
    def labels(self) -> np.ndarray:
        return np.array([label for _, _, label in self.pairs], dtype=int)


def collect_pairs(
    topics: dict[str, Node],
    qrels: dict[str, dict[str, int]],
    retrievers: list[LeafScores],
    depth: int = 100,
    negatives_per_positive: float = 3.0,
    seed: int = 0,
) -> PairSet:
    """Label (leaf, doc) pairs from judged topics and score them with every retriever.

    Parameters
    ----------
    topics : dict
        qid -> parsed query.
    qrels : dict
        qid -> docid -> relevance (> 0 is relevant).
    retrievers : list of LeafScores
        Retrievers to score the pairs with (and to draw negatives from).
    depth : int
        Depth of the leaf searches negatives are drawn from.
    negatives_per_positive : float
        Non-relevant docs sampled per relevant doc of a topic.
    seed : int
        Seed of the negative sampling.
    """
    rng = random.Random(seed)
    judgements: list[tuple[Node, str, bool]] = []
    out = PairSet()
    for qid, tree in topics.items():
        judged = qrels.get(qid, {})
        relevant = sorted(d for d, rel in judged.items() if rel > 0)
        known = [d for d in relevant if all(r.key(d) is not None for r in retrievers)]
        out.unknown_docids += len(relevant) - len(known)
        if not known:
            continue
        candidates = sorted(d for d, rel in judged.items() if rel <= 0)
        if not candidates:  # positives-only qrels: unjudged retrieved documents stand in
            pool: set[str] = set()
            for term in positive_terms(tree):
                for retriever in retrievers:
                    pool.update(retriever.top(term.text, depth))
            candidates = sorted(pool - set(relevant))
        negatives = rng.sample(candidates, min(len(candidates), round(negatives_per_positive * len(known))))
        negatives = [d for d in negatives if all(r.key(d) is not None for r in retrievers)]  # other index may lack it
        out.topics_used += 1
        judgements += [(tree, d, True) for d in known] + [(tree, d, False) for d in negatives]

    labels: dict[tuple[str, str], bool] = {}  # (leaf text, docid) -> relevant?
    conflicted: set[tuple[str, str]] = set()
    by_doc: dict[str, dict[str, bool]] = {}
    changed = True
    while changed:  # propagate labels between topics until nothing new is forced
        changed = False
        for tree, doc, truth in judgements:
            for term, label in forced_labels(tree, truth, by_doc.get(doc)):
                key = (normalize_text(term.text), doc)
                if key not in labels:
                    labels[key] = label
                    by_doc.setdefault(doc, {})[key[0]] = label
                    changed = True
                elif labels[key] != label:
                    conflicted.add(key)
    out.conflicts = len(conflicted)
    out.pairs = [(text, doc, label) for (text, doc), label in labels.items() if (text, doc) not in conflicted]
    for retriever in retrievers:
        out.scores[retriever.name] = _score_pairs(retriever, out.pairs)
    return out


def _score_pairs(retriever: LeafScores, pairs: list[tuple[str, str, bool]]) -> np.ndarray:
    """Raw scores of every pair, one retriever call per distinct leaf."""
    by_text: dict[str, list[int]] = {}
    for i, (text, _, _) in enumerate(pairs):
        by_text.setdefault(text, []).append(i)
    retriever.scorer.prepare(list(by_text))  # e.g. every dense leaf in one encoder batch
    scores = np.zeros(len(pairs), dtype=np.float64)
    for text, idx in by_text.items():
        scores[idx] = retriever.score(text, [pairs[i][1] for i in idx])
    return scores

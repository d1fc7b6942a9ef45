"""Shared by both rerankers: candidate texts, re-ordering, per-query statistics."""

from __future__ import annotations

import json
import logging
import re
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Sequence

from ._oracle import Entity, Oracle

__all__ = ["DEFAULT_FUSION", "DEFAULT_LIFT", "KNOWLEDGE", "LIFT_RATIO", "LOW_CONFIDENCE_FUSION", "RerankStats",
           "RerankedHit", "TIE_SPREAD", "TIE_TOP", "hit_title_text", "pool_hits", "searcher_doc_text_fn"]

#: Posterior (or verdict) weight of a reranker's final score, against the scaled base score (see ``fuse``;
#: measured in eval/results/orlog_llm.md and synthetic_llm.md).
DEFAULT_FUSION = 0.8

#: When no reranked candidate reaches this posterior, an OrLog query's posteriors are scaled up (at most
#: ``MAX_LIFT`` times) so that its best candidate does: the model's relative judgement keeps its weight
#: against the base score (see ``fuse``; measured in eval/results/synthetic_llm.md).  The LLM oracle's
#: default (``Oracle.lift``); the leaf-score oracle keeps 0 (with it, BM25 + OrLog(leaf) lost 0.0004 nDCG@10
#: on the demo, eval/results/leaf_oracle.md).
DEFAULT_LIFT = 0.5
MAX_LIFT = 10.0

#: The lift applies only when the model singles out a candidate: its best posterior is at least this many times the
#: posterior of the base run's top candidate.  Posteriors that are all low *and* close together (0.31 against 0.23)
#: are a low-confidence judgement; lifted, they overturned base rankings that were right (eval/results/fusion.md).
LIFT_RATIO = 2.0

#: Nor is a topic lifted whose best posterior stays below this, per positive conjunct of its formula (0.25 for one
#: positive leaf with NOTs, 0.25 ** 3 for ``a AND b AND c``, whose product is low even when each judgement is fair):
#: the model judges no candidate to satisfy it, and scaling 0.11 against 0.05 up to the lift turns noise into a
#: confident order.  On the first runs of the blind long-question sets longq17 and longq18 such lifts overturned
#: right base rankings on 5 topics; on the 17 sets the earlier rules were chosen on, no lifted topic had a best
#: posterior below 0.3 (eval/results/fusion.md, 24th session).
LIFT_FLOOR = 0.25

#: Posterior weight for such a low-confidence query (every posterior below the lift, none singled out): the base
#: score keeps 30% instead of 20%, so a one-facet article judged 0.45 does not overturn four right answers judged
#: 0.31 with a clear base margin (eval/longq14 lq05; eval/results/fusion.md).
LOW_CONFIDENCE_FUSION = 0.7

#: When the posteriors (as lifted) of the base run's top ``TIE_TOP`` candidates lie within this of one another, the
#: model does not tell them apart, and the base's first candidate stays first (the others are fused as usual).
#: Mid-range posteriors close together (0.43-0.50 for four right articles and a hard negative) are neither low (the
#: lift rules) nor a judgement; fused at weight 0.8 a 0.04 edge overturned the base's right top on longq21's first
#: run.  The LLM oracle's default (``Oracle.tie_spread``); measured in eval/results/fusion.md (25th session).
TIE_SPREAD = 0.1
TIE_TOP = 5

logger = logging.getLogger("logical_pyserini.rerank")

#: ``parametric``: the model sees the entity title only; ``parametric+``: title
#: and the document text (truncated to a token budget).
KNOWLEDGE = ("parametric", "parametric+")

# Gap between consecutive reranked scores: keeps run files in the reranked
# order even for equal posteriors (trec_eval re-sorts ties by docid), and
# stays far below the 4 decimals anyone reads.
_TIE_STEP = 1e-9

DocTextFn = Callable[[Any], tuple[str, str | None]]


@dataclass
class RerankedHit:
    """A hit after reranking, shaped like Pyserini's ``ScoredDoc`` (``docid``, ``score``).

    Attributes
    ----------
    docid : str
        Collection docid.
    score : float
        Within the reranked depth: the reranker's score (posterior, or the
        reasoner's 1 / 0 / fallback), minus 1e-9 per rank so that ties keep
        their order in run files.  Below the depth: ``-(position below)``,
        which keeps the base order under every reranked hit.  After a
        fallback: the base score.
    base_score : float
        Score in the input ranking.
    base_rank : int
        0-based position in the input ranking.
    rerank_score : float or None
        The posterior / reasoner verdict itself, before the fusion with the
        base score (None below the depth or after a fallback).
    hit : object
        The input hit (``raw`` / ``contents`` / ``lucene_docid`` are forwarded).
    """

    docid: str
    score: float
    base_score: float
    base_rank: int
    rerank_score: float | None = None
    hit: Any = field(default=None, repr=False, compare=False)

    def __getattr__(self, name: str):
        hit = self.__dict__.get("hit")  # via __dict__: no recursion before __init__ has run
        if hit is not None and name in ("raw", "contents", "lucene_docid", "leaf_scores", "lucene_document"):
            return getattr(hit, name)
        raise AttributeError(name)


@dataclass
class RerankStats:
    """What reranking one query did and cost.

    Token fields count only pairs actually sent to the model (not cache hits).
    ``tokens_per_pair`` follows seed 000 (Table 2): for OrLog, one scored
    position per predicate (a single forward pass, nothing decoded) plus the
    one-off parsing tokens spread over the candidates; for the LLM-as-reasoner,
    the generated tokens per (query, entity) pair.
    """

    method: str
    candidates: int = 0
    atoms: int = 0
    pairs: int = 0
    cache_hits: int = 0
    prompt_tokens: int = 0
    computed_tokens: int = 0
    generated_tokens: int = 0
    unparsable: int = 0
    fallback: bool = False
    error: str | None = None
    oracle_seconds: float = 0.0
    problog_seconds: float = 0.0
    tokens_per_pair: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def hit_title_text(hit: Any, searcher: Any = None) -> tuple[str, str | None]:
    """(title, text) of a hit from its stored raw JSON.

    Uses ``hit.raw`` (LogicalHit), ``hit.lucene_document`` (Pyserini's
    ``JScoredDoc``) or ``searcher.doc(docid)``.  JsonCollection
    documents may have a ``title``; without one the title is the first
    sentence of the text, cut to ten words.
    """
    raw = getattr(hit, "raw", None)
    if raw is None and getattr(hit, "lucene_document", None) is not None:  # Pyserini's JScoredDoc
        raw = hit.lucene_document.get("raw")
    if raw is None and searcher is not None:
        doc = searcher.doc(hit.docid)
        raw = doc.raw() if doc is not None else None
    title, text = None, None
    if raw:
        try:
            obj = json.loads(raw)
            title = obj.get("title")
            text = obj.get("contents", obj.get("text"))
        except (json.JSONDecodeError, AttributeError):
            text = raw
    if text is None:
        text = getattr(hit, "contents", None)
    if not title:
        first = re.split(r"(?<=[.!?])\s", (text or "").strip(), maxsplit=1)[0]
        title = " ".join(first.split()[:10]).rstrip(".") or str(hit.docid)
    return str(title), text


@dataclass
class _PooledHit:
    """An added candidate: its own hit (text access) under the base score it is given."""

    hit: Any
    score: float

    @property
    def docid(self) -> str:
        return str(self.hit.docid)

    def __getattr__(self, name: str):
        hit = self.__dict__.get("hit")
        if hit is None:
            raise AttributeError(name)
        return getattr(hit, name)


def pool_hits(hits: Sequence[Any], extra: Sequence[Any], depth: int) -> tuple[list[Any], int]:
    """Candidates for a reranker: the top ``depth`` hits plus ``extra`` documents not among them.

    An added document gets the lowest base score of the top ``depth`` (it was
    not ranked there, so it never outranks a base candidate on the base score;
    only its posterior can lift it).  It is removed from further down the base
    ranking, so no docid appears twice.

    Parameters
    ----------
    hits : sequence
        The base ranking (``docid``, ``score``), best first.
    extra : sequence
        Other candidates (e.g. the top documents of a dense search of the question).
    depth : int
        Base hits reranked.

    Returns
    -------
    (list, int)
        The new ranking to hand to the reranker and its rerank depth
        (``min(depth, len(hits))`` plus the number of documents added).
    """
    top = list(hits[:depth])
    seen = {str(h.docid) for h in top}
    floor = min((float(h.score) for h in top), default=0.0)
    added = []
    for h in extra:
        if str(h.docid) not in seen:
            seen.add(str(h.docid))
            added.append(_PooledHit(h, floor))
    rest = [h for h in hits[depth:] if str(h.docid) not in seen]
    return top + added + rest, len(top) + len(added)


def searcher_doc_text_fn(searcher: Any) -> DocTextFn:
    """A ``doc_text_fn`` reading documents from a (Logical)LuceneSearcher."""
    return lambda hit: hit_title_text(hit, searcher)


class BaseReranker:
    """Depth, knowledge setting and re-ordering shared by the rerankers."""

    method = "base"

    def __init__(self, depth: int = 20, knowledge: str = "parametric+", context_tokens: int = 256):
        if depth < 1:
            raise ValueError(f"depth must be >= 1, got {depth}")
        if knowledge not in KNOWLEDGE:
            raise ValueError(f"knowledge must be one of {KNOWLEDGE}, got {knowledge!r}")
        self.depth = int(depth)
        self.knowledge = knowledge
        self.context_tokens = int(context_tokens)
        self.history: list[RerankStats] = []

    def _entities(self, hits: Sequence[Any], doc_text_fn: DocTextFn | None, oracle: Oracle) -> list[Entity]:
        fn = doc_text_fn or hit_title_text
        out = []
        for hit in hits:
            title, text = fn(hit)
            if self.knowledge == "parametric" or not text:
                text = None
            else:
                text = oracle.truncate(text, self.context_tokens)
            out.append(Entity(str(hit.docid), title, text))
        return out

    @staticmethod
    def _reorder(hits: Sequence[Any], scores: Sequence[float], raw: Sequence[float]) -> list[RerankedHit]:
        """Top ``len(scores)`` hits sorted by (fused) score (ties: input order), the rest below in input order;
        ``raw`` are the reranker's own scores (``rerank_score``)."""
        n = len(scores)
        order = sorted(range(n), key=lambda i: (-scores[i], i))
        out = [RerankedHit(str(hits[i].docid), float(scores[i]) - rank * _TIE_STEP, float(hits[i].score), i,
                           float(raw[i]), hits[i]) for rank, i in enumerate(order)]
        out.extend(RerankedHit(str(h.docid), -float(j + 1), float(h.score), n + j, None, h)
                   for j, h in enumerate(hits[n:]))
        return out

    @staticmethod
    def _unchanged(hits: Sequence[Any]) -> list[RerankedHit]:
        return [RerankedHit(str(h.docid), float(h.score), float(h.score), i, None, h) for i, h in enumerate(hits)]

    def _fail(self, hits: Sequence[Any], stats: RerankStats, exc: BaseException) -> list[RerankedHit]:
        # Never lose a run: this query keeps its base ranking and the failure is counted.
        stats.fallback = True
        stats.error = f"{type(exc).__name__}: {exc}"
        logger.warning("%s reranking failed, base ranking kept: %s", self.method, stats.error)
        return self._unchanged(hits)

    def summary(self) -> dict[str, float]:
        """Totals over every query reranked so far."""
        keys = ("candidates", "pairs", "cache_hits", "prompt_tokens", "computed_tokens", "generated_tokens",
                "unparsable", "oracle_seconds", "problog_seconds")
        total: dict[str, float] = {k: sum(getattr(s, k) for s in self.history) for k in keys}
        total["queries"] = len(self.history)
        total["fallbacks"] = sum(s.fallback for s in self.history)
        reranked = [s for s in self.history if not s.fallback and s.candidates]
        n = sum(s.candidates for s in reranked)
        total["tokens_per_pair"] = sum(s.tokens_per_pair * s.candidates for s in reranked) / n if n else 0.0
        return total

"""What every logical searcher shares: the hit type, leaf normalisation and
``search`` / ``batch_search`` / ``explain`` on top of :func:`score_pool`.

A searcher mixes :class:`LogicalSearchMixin` in front of its Pyserini base
class (``LuceneSearcher``, ``FaissSearcher``) and supplies a few hooks: the
leaf backend, how document keys map to docids, and how one plain leaf is
delegated to Pyserini so that it ranks exactly as Pyserini does.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..compose import Normalizer, Operators, explain_tree
from ..query import NODE_TYPES, Node, Not, QuerySyntaxError, Term, distinct_terms, parse_query, pin_negated
from ..retrieve import LeafHits, LeafRetriever, get_retriever, retriever_names
from ._pipeline import LeafBackend, Pool, score_pool
from ._topk import TopKStats, _memo, score_everything, supports_topk, topk

__all__ = ["LeafNormalizer", "LogicalHit", "LogicalSearchMixin", "RetrieverBackend"]


class RetrieverBackend:
    """The pipeline's leaf backend over named retrievers that share one key space.

    Each leaf goes to the retriever its prefix names, else to ``default``.
    A prefix naming a registered retriever this searcher does not have is an
    error that says which index to add; an unregistered one lists the known names.
    """

    def __init__(self, retrievers: dict[str, LeafRetriever], default: str, missing_hint: str = ""):
        self.retrievers = retrievers
        self.default = default
        self.missing_hint = missing_hint

    def retriever(self, term: Term) -> str:
        name = term.retriever or self.default
        if name not in self.retrievers:
            cls = get_retriever(name)  # unknown names fail here, listing the registered ones
            have = ", ".join(self.retrievers)
            how = f"give {cls.index_option}" if cls.index_option else self.missing_hint
            raise ValueError(f"term {term} asks for a {name} retriever, but this searcher only has {have}; {how}")
        return name

    def _leaf(self, term: Term) -> tuple[LeafRetriever, object]:
        """The retriever of ``term`` and what it is given for it: the text, or the retriever's own
        key (``leaf_key``: a Lucene scorer serves ``bm25:`` and ``phrase:`` leaves alike)."""
        retriever = self.retrievers[self.retriever(term)]
        leaf_key = getattr(retriever, "leaf_key", None)
        return retriever, (leaf_key(term) if leaf_key is not None else term.text)

    def _keys(self, terms: list[Term]) -> list:
        return [self._leaf(t)[1] for t in terms]

    def search(self, term: Term, k: int, after: LeafHits | None = None) -> LeafHits:
        retriever, leaf = self._leaf(term)
        if after is not None and getattr(retriever, "extends", False):
            return retriever.search(leaf, k, after)  # only the hits beyond ``after`` cross from Java
        return retriever.search(leaf, k)

    # -- what exact top-k (search/_topk.py) needs ---------------------------
    extends = True  # search(term, k, after) extends an earlier list
    floor = 0.0  # exact top-k only runs over term retrievers, where a non-listed document scores 0

    def _only_retriever(self, terms: list[Term]) -> str | None:
        """The name of the one retriever object every term goes to (None: several, or one this
        searcher lacks, which the pooled path reports).  Names that share an object (``bm25`` and
        ``phrase`` on one Lucene index) count as one; the first in order is returned."""
        try:
            names = sorted({self.retriever(t) for t in terms})
        except ValueError:
            return None
        if not names or any(self.retrievers[n] is not self.retrievers[names[0]] for n in names):
            return None
        return names[0]

    def exact_topk(self, tree: Node) -> bool:
        """Whether every leaf of ``tree`` goes to one term retriever (complete hit lists,
        not fused) that can list documents in key order (``first_docs``)."""
        name = self._only_retriever(distinct_terms(tree))
        if name is None:
            return False
        retriever = self.retrievers[name]
        return retriever.complete_hits and not retriever.fused and hasattr(retriever, "first_docs")

    @property
    def num_docs(self) -> int:
        """Size of the key space (Lucene ``maxDoc``)."""
        first = next(iter(self.retrievers.values()))
        return int(getattr(first, "max_doc", first.num_docs))

    def first_docs(self, terms: list[Term], k: int, matching: bool) -> np.ndarray:
        retriever = self.retrievers[self.retriever(terms[0])]
        return retriever.first_docs(self._keys(terms), k, matching)

    def score(self, term: Term, docs: np.ndarray) -> np.ndarray:
        retriever, leaf = self._leaf(term)
        return retriever.score(leaf, docs)

    def score_many(self, terms: list[Term], docs: np.ndarray) -> list[np.ndarray]:
        """:meth:`score` of several leaves for the same documents (one pass where the retriever can)."""
        leaves = [self._leaf(t) for t in terms]
        one = len({id(retriever) for retriever, _ in leaves}) == 1
        many = getattr(leaves[0][0], "score_many", None) if one else None
        if many is None:
            return [retriever.score(leaf, docs) for retriever, leaf in leaves]
        return many([leaf for _, leaf in leaves], docs)

    def bound_query_ready(self, tree: Node) -> bool:
        """Whether the leaves of ``tree`` go to one retriever that ranks a
        :class:`~logical_pyserini.compose.BoundQuery` (``bound_search``) and
        normalises plain retrieval scores (not fused, no clipping)."""
        name = self._only_retriever(distinct_terms(tree))
        if name is None:
            return False
        cls = get_retriever(name)
        return hasattr(self.retrievers[name], "bound_search") and not cls.fused and not cls.clip_negative

    def bound_search(self, spec, k: int, after: LeafHits | None = None, score: list[Term] = ()) -> LeafHits:
        """Top ``k`` of a bound query; with ``score``, each hit also carries those leaves' exact
        scores (:attr:`LeafHits.values`) when the retriever can return them with the hits."""
        retriever = self.retrievers[self.retriever(spec.terms()[0])]
        return retriever.bound_search(spec, k, after, tuple(self._texts(retriever, score)))

    def first_hits(self, terms: list[Term], k: int, matching: bool, score: list[Term] = ()) -> LeafHits:
        """The first ``k`` keys that match any (``matching``) or none of ``terms``; ``score`` as
        in :meth:`bound_search`."""
        retriever = self.retrievers[self.retriever(terms[0])]
        if hasattr(retriever, "first_hits"):
            return retriever.first_hits(self._keys(terms), k, matching, tuple(self._texts(retriever, score)))
        docs = retriever.first_docs(self._keys(terms), k, matching)
        return LeafHits(docs, np.zeros(len(docs), dtype=np.float32), len(docs) < k)

    def score_all(self, terms: list[Term]) -> np.ndarray | None:
        """Every document's raw score on each of ``terms`` (one row per term), where the terms go
        to one retriever that can score the whole collection at once (a flat dense index); else None."""
        name = self._only_retriever(terms)
        if name is None or get_retriever(name).fused:
            return None
        score_all = getattr(self.retrievers[name], "score_all", None)
        return score_all(self._keys(terms)) if score_all is not None else None

    def remember(self, term: Term, hits: LeafHits) -> None:
        """Hand ``hits`` (from a call for ``term``) back to its retriever's docid cache, if it has one."""
        remember = getattr(self.retrievers[self.retriever(term)], "remember", None)
        if remember is not None:
            remember(hits)

    def _texts(self, retriever: LeafRetriever, terms: list[Term]) -> list[str]:
        """Leaves of ``terms`` if they all go to ``retriever`` (else none: it cannot score them)."""
        if any(self.retrievers[self.retriever(t)] is not retriever for t in terms):
            return []
        return self._keys(terms)

    def components(self, term: Term, docs: np.ndarray) -> dict[str, float] | None:
        retriever, leaf = self._leaf(term)
        components = getattr(retriever, "components", None)
        return components(leaf, docs) if components else None

    def prepare(self, trees: list[Node], skip_single_leaves: bool = False) -> None:
        """Hand every retriever all of its leaf texts at once (one encoder batch per batch of queries)."""
        texts: dict[int, tuple[LeafRetriever, list]] = {}
        for tree in trees:
            if skip_single_leaves and isinstance(tree, Term):
                continue
            for term in distinct_terms(tree):
                retriever, leaf = self._leaf(term)
                texts.setdefault(id(retriever), (retriever, []))[1].append(leaf)
        for retriever, batch in texts.values():
            retriever.prepare(batch)


@dataclass
class LogicalHit:
    """One ranked document, shaped like Pyserini's ``ScoredDoc``.

    Attributes
    ----------
    docid : str
        Collection docid.
    score : float
        Combined logical score (for a single-leaf query: Pyserini's own score).
    lucene_docid : int or None
        Internal Lucene docid (None for a dense-only search).
    leaf_scores : dict
        Term text -> normalised leaf score (empty for single-leaf queries).
    faiss_row : int or None
        Row in the Faiss index (dense and hybrid searches).
    """

    docid: str
    score: float
    lucene_docid: int | None
    leaf_scores: dict[str, float] = field(default_factory=dict)
    _searcher: Any = field(default=None, repr=False, compare=False)
    faiss_row: int | None = None

    @property
    def lucene_document(self):
        """The stored Lucene document (fetched on first access)."""
        if self.lucene_docid is None:
            raise LookupError(
                f"hit {self.docid!r} comes from a dense-only search: no Lucene index stores its text "
                "(use LogicalHybridSearcher, or look the docid up in your corpus)"
            )
        from .._bootstrap import jvm_lock

        with jvm_lock:
            return self._searcher.object.doc(int(self.lucene_docid))

    @property
    def raw(self) -> str | None:
        """The stored raw document (the JSON line for JsonCollection indexes)."""
        return self.lucene_document.get("raw")

    @property
    def contents(self) -> str | None:
        """Indexed text: the stored ``contents`` field, else ``contents`` of the raw JSON."""
        doc = self.lucene_document
        stored = doc.get("contents")
        if stored is not None:
            return stored
        raw = doc.get("raw")
        try:
            return json.loads(raw).get("contents") if raw else None
        except (json.JSONDecodeError, AttributeError):
            return raw


class LeafNormalizer:
    """A :class:`Normalizer` as the pipeline calls it: by retriever name, so each retriever's
    own rules apply (:meth:`LeafRetriever.normalize`: fused leaves pass through, negative
    similarities count as 0 under ``max``)."""

    def __init__(self, normalizer: Normalizer):
        self.normalizer = normalizer

    def __call__(self, raw: np.ndarray, leaf_max: float, pool_min: float, retriever: str = "bm25") -> np.ndarray:
        return get_retriever(retriever).normalize(self.normalizer, raw, leaf_max, pool_min)


class LogicalSearchMixin:
    """``search`` / ``batch_search`` / ``explain`` for any leaf backend.

    Subclasses call :meth:`_setup` and implement :meth:`_backend`,
    :meth:`_docids`, :meth:`_key` and :meth:`_hit`; :meth:`_single_leaf`
    (delegate a plain leaf to Pyserini) and :meth:`_release_thread` are optional.
    """

    operators: Operators
    normalizer: Normalizer
    leaf_hits: int
    #: Rank the union of each positive leaf's top ``leaf_hits`` instead of the exact
    #: top-k over the whole collection (the only choice for ``minmax``).
    pooled: bool = False
    #: Set to a :class:`TopKStats` to record what the last exact search did.
    topk_stats: TopKStats | None = None

    def _setup(self, operators: Operators | None, normalize: str | Normalizer, leaf_hits: int,
               pooled: bool = False) -> None:
        self.pooled = bool(pooled)
        self.operators = operators or Operators()
        self.normalizer = normalize if isinstance(normalize, Normalizer) else Normalizer(normalize)
        if leaf_hits < 1:
            raise ValueError(f"leaf_hits must be >= 1, got {leaf_hits}")
        self.leaf_hits = int(leaf_hits)

    # -- hooks -------------------------------------------------------------
    def _retrievers(self) -> dict[str, LeafRetriever]:
        """Name -> retriever in this searcher's key space (built-in ones plus :meth:`add_retriever`'s)."""
        raise NotImplementedError

    #: Retriever of leaves without a prefix.
    leaf_retriever: str = "bm25"
    #: Retriever of *negated* leaves without a prefix (None: ``leaf_retriever``).  A dense or hybrid leaf
    #: such as "history museums" scores every museum high, so its complement would sink them all; BM25
    #: excludes only the documents that say it.
    negated_retriever: str | None = None
    #: How to get a missing built-in retriever (completes the error message).
    _missing_hint: str = ""

    def _backend(self, trees: list[Node]) -> LeafBackend:
        """A backend ready for ``trees`` (every leaf handed to its retriever's ``prepare`` in one batch)."""
        backend = self._retriever_backend()
        backend.prepare(trees, skip_single_leaves=self._single_leaves_delegated)
        return backend

    def _retriever_backend(self) -> "RetrieverBackend":
        return RetrieverBackend({**self._retrievers(), **getattr(self, "_extra_retrievers", {})},
                                self.leaf_retriever, self._missing_hint)

    #: One-leaf queries go to Pyserini (and its own encoder), so they need no preparation.
    _single_leaves_delegated: bool = False

    def add_retriever(self, retriever: LeafRetriever, name: str | None = None) -> None:
        """Let leaves with the prefix ``name`` (default: the retriever's registry name) use ``retriever``.

        ``retriever`` may index the same corpus in another index (an impact
        index next to a BM25 index): its documents are matched to this
        searcher's by collection docid.

        Raises
        ------
        ValueError
            If the two indexes hold different docids.
        """
        from ..retrieve import MappedRetriever

        name = name or retriever.name
        get_retriever(name)  # must be registered, so the grammar and the normaliser know it
        mapped = MappedRetriever.onto(retriever, self._all_docids(), "this searcher's index",
                                      f"the {name} index")
        self._extra_retrievers = {**getattr(self, "_extra_retrievers", {}), name: mapped}

    def available_retrievers(self) -> tuple[str, ...]:
        """Names of the retrievers this searcher's leaves can use (its own and those added)."""
        return (*self._retrievers(), *getattr(self, "_extra_retrievers", {}))

    def calibration_keys(self, trees: list[Node]) -> set[str]:
        """Calibration keys (``bm25``, ``dense``...) whose sigmoid parameters the leaves of ``trees`` need."""
        backend = self._retriever_backend()
        keys: set[str] = set()
        for term in (t for tree in trees for t in distinct_terms(tree)):
            try:
                keys |= backend.retrievers[backend.retriever(term)].calibration_keys()
            except ValueError:
                continue  # a retriever this searcher lacks: that topic fails on its own when searched
        return keys

    def _all_docids(self) -> list[str]:
        """Docid of every key of this searcher, in key order."""
        return next(iter(self._retrievers().values())).all_docids()

    def _single_leaf(self, term: Term, k: int) -> list | None:
        """Hits of a one-leaf query straight from Pyserini, or None to use the pipeline."""
        return None

    def _docids(self, keys: np.ndarray) -> list[str]:
        raise NotImplementedError

    def _key(self, docid: str) -> int | None:
        """Document key of a collection docid (None if absent)."""
        raise NotImplementedError

    def _hit(self, docid: str, score: float, key: int, leaf_scores: dict[str, float]) -> LogicalHit:
        raise NotImplementedError

    def _release_thread(self) -> None:
        """Called at the end of a ``batch_search`` worker (JVM threads must detach)."""

    def clear_caches(self) -> None:
        """Forget what repeated queries reuse: parsed queries, per-tree plans and each
        retriever's cached leaf queries, leaf maxima, bound queries and docids (a benchmark
        of first-seen queries calls this before each search; results do not change)."""
        self._plan_cache().clear()
        for retriever in self._retriever_backend().retrievers.values():
            clear = getattr(retriever, "clear_caches", None)
            if clear is not None:
                clear()

    def _plan_cache(self) -> dict:
        """This searcher's parsed queries and per-tree plans (see :func:`topk`)."""
        plans = getattr(self, "_plans", None)
        if plans is None:
            plans = self._plans = {}
        return plans

    # -- search ------------------------------------------------------------
    def _tree(self, q: str | Node) -> Node:
        """The tree of ``q`` (negated leaves pinned to ``negated_retriever``); query text seen before reuses its
        (immutable) tree."""
        pin = self.negated_retriever
        if not isinstance(q, str):
            return q if pin is None else pin_negated(q, pin)
        # (Keyed on the registered retriever names, the grammar's prefixes, and the pinned retriever; an
        # error is raised each time, never kept.)
        return _memo(self._plan_cache(), ("query", q, retriever_names(), pin),
                     lambda: parse_query(q) if pin is None else pin_negated(parse_query(q), pin))

    @property
    def _leaf_normalizer(self) -> LeafNormalizer:
        return LeafNormalizer(self.normalizer)

    def search(self, q: str | Node, k: int = 10, **kwargs) -> list[LogicalHit]:
        """Search with a logical query.

        Parameters
        ----------
        q : str or Node
            Query text in the logical query language (or a parsed tree).  Any
            other query object (a Lucene ``Query``, a query vector) is passed
            to the Pyserini searcher unchanged.
        k : int
            Number of hits.

        Returns
        -------
        list of LogicalHit
            Best first.

        Raises
        ------
        QuerySyntaxError
            For malformed query text (with position).
        NoPositiveTermError
            For queries that only exclude.
        """
        if not isinstance(q, (str, *NODE_TYPES)):
            parent = super()
            if not hasattr(parent, "search"):
                raise TypeError(f"{type(self).__name__}.search takes query text or a parsed tree, not {type(q).__name__}")
            return parent.search(q, k, **kwargs)
        tree = self._tree(q)
        return self._search_tree(tree, k, self._backend([tree]))

    def _search_tree(self, tree: Node, k: int, backend: LeafBackend) -> list[LogicalHit]:
        if isinstance(tree, Term):
            hits = self._single_leaf(tree, k)
            if hits is not None:
                return hits
        normalizer = self._leaf_normalizer
        pool = None
        if not self.pooled and supports_topk(backend, normalizer, tree):
            stats = TopKStats() if self.topk_stats is not None else None
            pool = topk(tree, backend, self.operators, normalizer, k, stats, plans=self._plan_cache())
            if stats is not None:
                self.topk_stats = stats
        elif not self.pooled:
            pool = score_everything(tree, backend, self.operators, normalizer, k)
        if pool is None:
            pool = score_pool(tree, backend, self.operators, normalizer, self.leaf_hits)
        return self._hits(pool, k)

    def _hits(self, pool: Pool, k: int) -> list[LogicalHit]:
        top = pool.ranking(k)
        docids = self._docids(pool.docs[top])
        texts = [key[0] for key in pool.normalized]
        # Columns as Python lists first: one conversion per column, not per value (1,000-hit runs).
        columns = [values[top].tolist() for values in pool.normalized.values()]
        return [
            self._hit(docid, score, key, dict(zip(texts, leaf_values)))
            for docid, score, key, *leaf_values in zip(docids, pool.combined[top].tolist(), pool.docs[top].tolist(),
                                                       *columns)
        ]

    def leaf_scores(self, leaf: str | Term, docids: list[str]) -> np.ndarray:
        """Exact normalised score of one leaf for each of ``docids``, as logical search computes it.

        The leaf's exact retrieval score for every document, normalised with the
        searcher's normaliser (``max`` divides by the leaf's best score in the
        index; a calibration file gives σ((s − τ)λ)), clipped to [0, 1].  A docid
        missing from the index scores 0.  Used by the leaf-score OrLog oracle.
        """
        term = leaf if isinstance(leaf, Term) else Term(leaf)
        keys = [self._key(str(d)) for d in docids]
        present = np.array([k is not None for k in keys], dtype=bool)
        out = np.zeros(len(keys), dtype=np.float64)
        if not present.any():
            return out
        backend = self._backend([term])
        docs = np.array([k for k in keys if k is not None], dtype=np.int64)
        raw = np.asarray(backend.score(term, docs), dtype=np.float64)
        top = backend.search(term, 1)
        normalized = self._leaf_normalizer(raw, top.max, float(raw.min()), backend.retriever(term))
        out[present] = np.clip(normalized, 0.0, 1.0)
        return out

    def batch_search(
        self, queries: list[str], qids: list[str], k: int = 10, threads: int = 1, **kwargs
    ) -> dict[str, list[LogicalHit]]:
        """Search many queries; same results as calling :meth:`search` on each.

        Parameters
        ----------
        queries, qids : list of str
            Query texts and their ids (same length).
        k : int
            Hits per query.
        threads : int
            Worker threads.  Lucene work runs in the JVM and Faiss releases
            the GIL, so threads overlap with Python time; on 2 cores gains
            are modest.

        Raises
        ------
        QuerySyntaxError
            On the first malformed query (message prefixed with its qid); the
            CLI handles bad topics one by one instead.
        """
        if len(queries) != len(qids):
            raise ValueError(f"{len(queries)} queries but {len(qids)} qids")
        trees = []
        for qid, q in zip(qids, queries):
            try:
                trees.append(self._tree(q))
            except QuerySyntaxError as exc:
                raise QuerySyntaxError(f"qid {qid}: {exc.reason}", exc.query, exc.position) from None
        backend = self._backend(trees)  # all leaves of the batch prepared at once
        if threads <= 1:
            return {qid: self._search_tree(tree, k, backend) for qid, tree in zip(qids, trees)}

        results = _in_threads(lambda tree: self._search_tree(tree, k, backend), trees, threads, self._release_thread)
        return dict(zip(qids, results))

    def explain(self, q: str | Node, docid: str) -> dict:
        """How ``docid`` is scored for ``q``.

        Returns
        -------
        dict
            The operator tree; every node has ``value``, operators have ``op``
            and ``children``, leaves have ``term``, ``retriever`` (the query's
            prefix), ``scored_by`` (the retriever that scored it), ``raw``
            (exact leaf score) and ``normalized``; fused hybrid leaves also
            have ``components`` (raw BM25 and dense scores).  The top level
            also has ``docid`` and ``score`` (equal to the root's ``value``)
            and ``candidate`` (whether a positive leaf retrieved the document).

        Raises
        ------
        KeyError
            If ``docid`` is not in the index.
        """
        tree = self._tree(q)
        key = self._key(docid)
        if key is None:
            raise KeyError(f"docid {docid!r} is not in the index")
        backend = self._backend([tree])
        pool = None
        if not self.pooled and not supports_topk(backend, self._leaf_normalizer, tree):
            # scored as search scores it (a flat dense index scores every document)
            pool = score_everything(tree, backend, self.operators, self._leaf_normalizer, 1,
                                    extra_docs=np.array([key]))
        if pool is None:
            pool = score_pool(tree, backend, self.operators, self._leaf_normalizer, self.leaf_hits,
                              extra_docs=np.array([key]))
        index = int(np.searchsorted(pool.docs, key))
        report = explain_tree(tree, index, pool.trace, pool.raw)
        _annotate_leaves(tree, report, backend, np.array([key], dtype=np.int64))
        report.update(docid=docid, score=report["value"], candidate=bool(pool.is_candidate[index]))
        return report


def _in_threads(func, items: list, threads: int, release) -> list:
    """``[func(x) for x in items]`` on ``threads`` worker threads, in order.

    Each worker calls ``release`` once, when it has no more work, so a thread
    attached to the JVM detaches before it ends (a pool that detaches after
    every task re-attaches on its next Java call and may end attached).  The
    first exception is re-raised after all workers stop.
    """
    results: list = [None] * len(items)
    errors: list[BaseException] = []
    claim = iter(range(len(items)))
    claim_lock = threading.Lock()

    def work() -> None:
        try:
            while not errors:
                with claim_lock:
                    i = next(claim, None)
                if i is None:
                    return
                try:
                    results[i] = func(items[i])
                except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread
                    errors.append(exc)
        finally:
            release()

    workers = [threading.Thread(target=work, name=f"logical-search-{n}", daemon=True)
               for n in range(min(threads, len(items)))]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    if errors:
        raise errors[0]
    return results


def _annotate_leaves(node: Node, report: dict, backend: LeafBackend, doc: np.ndarray) -> None:
    """Add ``scored_by`` (and a fused leaf's ``components``) to every leaf of an explanation."""
    if isinstance(node, Term):
        report["scored_by"] = backend.retriever(node)
        components = getattr(backend, "components", None)
        parts = components(node, doc) if components else None
        if parts:
            report["components"] = parts
        return
    children = (node.child,) if isinstance(node, Not) else node.children
    for child, sub in zip(children, report["children"]):
        _annotate_leaves(child, sub, backend, doc)

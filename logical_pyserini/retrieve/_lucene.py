"""BM25 leaves on a Lucene index: top hits per leaf and exact scores for any docs.

This is the hot path of logical search, so it talks to Lucene directly rather
than through ``LuceneSearcher.search``, which loads every hit's stored
document and rounds scores to 4 decimals.  Documents are handled by their
internal Lucene ids (numpy int arrays) until the final ranking; only the
returned hits are mapped back to collection docids, through the ``id`` doc
values, with a cache.
"""

from __future__ import annotations

import binascii
import functools
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

try:  # hits cross from Java as JSON: orjson decodes a top-10 payload ~3x faster than json
    from orjson import loads as _loads
except ImportError:  # pragma: no cover - a dependency; the standard library still works
    from json import loads as _loads

from .._bootstrap import ensure_pyserini, jvm_lock
from ._base import LeafRetriever

logger = logging.getLogger(__name__)

__all__ = ["LeafHits", "LuceneLeafScorer", "LucenePhraseLeaves", "Phrase", "check_lucene_index"]


def check_lucene_index(index_dir: str | os.PathLike) -> Path:
    """Fail with a clear message unless ``index_dir`` holds a Lucene index.

    Pyserini itself prints "Unrecognized index name" and carries on, or raises
    a Java stack trace; we want one sentence and a non-zero exit.
    """
    path = Path(index_dir)
    if not path.is_dir():
        raise FileNotFoundError(f"Lucene index not found: {index_dir} is not a directory")
    if not any(p.name.startswith("segments_") for p in path.iterdir()):
        raise FileNotFoundError(f"Lucene index not found: {index_dir} has no segments_N file (not a Lucene index?)")
    return path

# Entries per cache of leaf queries, weights, maxima, bound queries and sorts (small Java
# objects).  A topic set is searched round after round in benchmarks and tuning: at 256, 324
# queries of 2-4 leaves cycled through the caches and every lookup missed (34.6 Java calls per
# warm top-10 query instead of 4).
_CACHE_SIZE = 4096
# Above this depth a leaf search first counts its matches (one cheap call).
_COUNT_FIRST = 4096
# Docids kept for reuse (returned hits, and every hit of a sorted search that carries them):
# past this many entries the cache starts over, so long runs keep bounded memory.
_DOCID_CACHE_MAX = 200_000
# Setting one bit from Python costs about as much as converting this many words of
# a bit set's backing array (measured: ~1.5 us per call, ~0.3 us per word).
_SET_CALL_WORDS = 5


@dataclass(frozen=True)
class Phrase:
    """The leaf :class:`LuceneLeafScorer` is given for a ``phrase:`` term: its words must occur
    adjacent and in order (a Lucene ``PhraseQuery``).  A plain ``str`` is a bag of words; the two
    never compare equal, so the scorer's caches keep them apart."""

    text: str

    def __str__(self) -> str:
        return f"phrase:{self.text!r}"


@dataclass(frozen=True)
class LeafHits:
    """Top hits of one leaf sub-search.

    Attributes
    ----------
    docs : np.ndarray
        Internal Lucene docids (int64), best first.
    scores : np.ndarray
        Exact BM25 scores (float32, as Lucene computes them).
    complete : bool
        True when every document matching the leaf is in ``docs``, so any other
        document's exact score is 0.
    values : tuple of np.ndarray or None
        Exact raw scores (float32) of every document of ``docs`` on other leaves,
        when the call asked for them (``score=`` of :meth:`LuceneLeafScorer.bound_search`
        and :meth:`LuceneLeafScorer.first_hits`): they come back with the hits, from the
        same Java search.
    ids : tuple of str or None
        Collection docids of ``docs`` when they came with the hits (same calls, where the
        ``id`` field has binary doc values).
    """

    docs: np.ndarray
    scores: np.ndarray
    complete: bool
    values: tuple | None = field(default=None, repr=False, compare=False)
    ids: tuple | None = field(default=None, repr=False, compare=False)

    @property
    def max(self) -> float:
        return float(self.scores[0]) if len(self.scores) else 0.0


def _bitset_words(local_docs: np.ndarray, max_doc: int) -> list[int]:
    """``FixedBitSet`` backing array (signed 64-bit words) with ``local_docs`` set."""
    words = np.zeros((max_doc + 63) // 64, dtype=np.uint64)
    np.bitwise_or.at(words, local_docs // 64, np.left_shift(np.uint64(1), (local_docs % 64).astype(np.uint64)))
    return words.view(np.int64).tolist()


class LuceneLeafScorer(LeafRetriever):
    """BM25 leaves (registry name ``bm25``): sub-searches and exact scoring against one Lucene index.

    Parameters
    ----------
    index_dir : str
        Lucene index directory.
    analyzer : Java Analyzer, optional
        Analyzer to build leaf queries with; pass the one of the
        ``LuceneSearcher`` that searches the same index so that leaves and
        plain search tokenize identically.  Default: Anserini's English
        analyzer (Porter stemmer, stopwords), as ``LuceneSearcher`` uses.
    similarity : Java Similarity, optional
        Default BM25 with k1=0.9, b=0.4 (Anserini's default).
    """

    name = "bm25"
    extends = True  # search(text, k, after) extends an earlier list (exact top-k)
    index_option = "--index"

    def __init__(self, index_dir: str, analyzer=None, similarity=None):
        ensure_pyserini()
        from jnius import autoclass, cast

        self._autoclass = autoclass
        paths = autoclass("java.nio.file.Paths")
        directory = autoclass("org.apache.lucene.store.FSDirectory").open(paths.get(str(index_dir)))
        reader = autoclass("org.apache.lucene.index.DirectoryReader").open(directory)
        self._reader = cast("org.apache.lucene.index.IndexReader", reader)
        self._searcher = autoclass("org.apache.lucene.search.IndexSearcher")(self._reader)
        if similarity is None:
            similarity = autoclass("org.apache.lucene.search.similarities.BM25Similarity")(0.9, 0.4)
        self._searcher.setSimilarity(similarity)
        if analyzer is None:
            analyzer = autoclass("io.anserini.analysis.DefaultEnglishAnalyzer").newDefaultInstance()
        self._analyzer = analyzer
        self._generator = autoclass("io.anserini.search.query.BagOfWordsQueryGenerator")()
        self._score_mode = autoclass("org.apache.lucene.search.ScoreMode").COMPLETE
        self._collector_cls = autoclass("org.apache.lucene.search.TopScoreDocCollector")
        self._bitset_cls = autoclass("org.apache.lucene.util.FixedBitSet")
        # Reading TopDocs.scoreDocs through pyjnius builds one Python proxy per
        # hit (~4 us each); Jackson serialises the whole TopDocs in one call and
        # Float.toString round-trips float32 exactly.  Measured 4x faster at 1000 hits.
        self._json = autoclass("com.fasterxml.jackson.databind.ObjectMapper")()
        # TopFieldDocs carry their SortFields, which Jackson cannot describe: write them as {}.
        self._json.configure(autoclass("com.fasterxml.jackson.databind.SerializationFeature").FAIL_ON_EMPTY_BEANS,
                             False)
        # (context, docBase, maxDoc) per segment, for exact scoring segment by segment.
        self._segments = [(ctx, ctx.docBase, ctx.reader().maxDoc()) for ctx in self._reader.leaves().toArray()]
        self._starts = np.array([base for _, base, _ in self._segments], dtype=np.int64)
        self._id_kind = self._docid_storage()
        self._index_dir = str(index_dir)
        self._positions: bool | None = None  # whether ``contents`` has positions: read on the first phrase leaf
        self._query_builder = None
        self._docid_cache: dict[int, str] = {}
        self._score_doc = autoclass("org.apache.lucene.search.ScoreDoc")
        # A logical search touches each leaf several times (growing depth, exact
        # scores); building a query goes through pyjnius overload resolution and
        # the analyzer, so recent queries and weights are kept (thread-safe caches).
        self._cached_query = functools.lru_cache(maxsize=_CACHE_SIZE)(self._build_query)
        self._cached_weight = functools.lru_cache(maxsize=_CACHE_SIZE)(self._build_weight)
        self.num_docs = int(self._reader.numDocs())
        self.max_doc = int(self._reader.maxDoc())
        self._boolean = autoclass("org.apache.lucene.search.BooleanQuery$Builder")
        self._occur = autoclass("org.apache.lucene.search.BooleanClause$Occur")
        self._match_all = autoclass("org.apache.lucene.search.MatchAllDocsQuery")()
        # Exact top-k (search/_topk.py): bound queries, pruning collectors, shared accept-doc bit sets.
        self._boost_query = autoclass("org.apache.lucene.search.BoostQuery")
        self._dismax = autoclass("org.apache.lucene.search.DisjunctionMaxQuery")
        self._array_list = autoclass("java.util.ArrayList")
        self._function_score = autoclass("org.apache.lucene.queries.function.FunctionScoreQuery")
        self._values_source = autoclass("org.apache.lucene.search.DoubleValuesSource")
        self._cached_bound_query = functools.lru_cache(maxsize=_CACHE_SIZE)(self._build_bound_query)
        # The leaf maximum (top-1 score) is a property of the index: kept per leaf text.
        self._cached_top1 = functools.lru_cache(maxsize=_CACHE_SIZE)(functools.partial(self._first_search, k=1))
        self._shared_bits: dict[int, object] = {}
        # Sorts whose fields after the first are leaves' exact scores (see _scored_search).
        self._sort_cls = autoclass("org.apache.lucene.search.Sort")
        self._sort_field = autoclass("org.apache.lucene.search.SortField")
        self._sort_field_type = autoclass("org.apache.lucene.search.SortField$Type")
        self._field_collector_cls = autoclass("org.apache.lucene.search.TopFieldCollector")
        self._cached_sort = functools.lru_cache(maxsize=_CACHE_SIZE)(self._build_sort)
        self._cached_listing = functools.lru_cache(maxsize=_CACHE_SIZE)(self._build_listing)

    # -- queries -----------------------------------------------------------
    def set_similarity(self, similarity) -> None:
        with jvm_lock:
            self._searcher.setSimilarity(similarity)
            self._cached_weight.cache_clear()
            self._cached_top1.cache_clear()
            self._cached_sort.cache_clear()

    def clear_caches(self) -> None:
        """Forget cached leaf queries, weights, leaf maxima, bound queries, sorts and docids
        (benchmarks time first-seen queries this way)."""
        with jvm_lock:
            for cache in (self._cached_query, self._cached_weight, self._cached_top1, self._cached_bound_query,
                          self._cached_sort, self._cached_listing):
                cache.cache_clear()
            self._docid_cache.clear()

    def query(self, text: "str | Phrase"):
        """The Lucene query of a leaf: bag of words, as ``LuceneSearcher.search`` builds it (a
        :class:`Phrase`: a ``PhraseQuery`` of the same tokens)."""
        with jvm_lock:
            return self._cached_query(text)

    @staticmethod
    def leaf_key(term) -> "str | Phrase":
        """What this scorer is given for a query :class:`~logical_pyserini.query.Term`: its text
        (a bag of words, ``bm25:`` or no prefix) or a :class:`Phrase` (``phrase:``)."""
        return Phrase(term.text) if term.retriever == LucenePhraseLeaves.name else term.text

    def _build_query(self, leaf: "str | Phrase"):
        if isinstance(leaf, Phrase):
            return self._phrase_query(leaf.text)
        return self._generator.buildQuery("contents", self._analyzer, leaf)

    def _phrase_query(self, text: str):
        """Lucene's ``QueryBuilder.createPhraseQuery`` with this scorer's analyzer: the same tokens as
        the bag of words, at the positions the analyzer gives them (a removed stopword leaves a gap,
        as it did at indexing); one token is a ``TermQuery``; no token matches nothing."""
        if self._positions is None:
            self._positions = self._has_positions()
        if not self._positions:
            raise ValueError(f"phrase: leaves need word positions, and the index {self._index_dir} was built "
                             "without them; rebuild it with python -m logical_pyserini.index (which stores "
                             "positions) or Anserini's -storePositions")
        if self._query_builder is None:
            self._query_builder = self._autoclass("org.apache.lucene.util.QueryBuilder")(self._analyzer)
        query = self._query_builder.createPhraseQuery("contents", text)
        return query if query is not None else self._boolean().build()

    def _has_positions(self) -> bool:
        """Whether every segment indexed ``contents`` with positions (an empty index: vacuously)."""
        for ctx, _, _ in self._segments:
            info = ctx.reader().getFieldInfos().fieldInfo("contents")
            if info is None:
                continue
            if not info.getIndexOptions().toString().startswith("DOCS_AND_FREQS_AND_POSITIONS"):
                return False
        return True

    def _build_weight(self, text: str):
        return self._searcher.createWeight(self._searcher.rewrite(self.query(text)), self._score_mode, 1.0)

    def search(self, text: str, k: int, after: LeafHits | None = None) -> LeafHits:
        """Top ``k`` documents of one leaf with exact scores.

        With ``after`` (this leaf's top hits at a smaller depth), only the hits
        beyond it cross from Java (``IndexSearcher.searchAfter``) and the
        returned list is ``after`` extended to depth ``k``.  The top hit alone
        (the leaf's maximum, which ``max`` normalisation divides by) is cached
        per leaf text.
        """
        if after is not None:
            return self._search(self.query, text, k, after)
        return self._cached_top1(text) if int(k) == 1 else self._first_search(text, k)

    def _first_search(self, text: str, k: int) -> LeafHits:
        """A leaf's top ``k`` from scratch, with a warning when it matches nothing."""
        hits = self._search(self.query, text, k, None)
        if len(hits.docs) == 0:
            if isinstance(text, Phrase):
                logger.warning("%s matches no document (do its words ever stand together?)", text)
            else:
                logger.warning("term %r matches no document (are all its words stopwords?)", text)
        return hits

    def bound_search(self, spec, k: int, after: LeafHits | None = None, score: tuple[str, ...] = ()) -> LeafHits:
        """Top ``k`` documents of a :class:`~logical_pyserini.compose.BoundQuery` (scores as
        Lucene computes them, in float32), extending ``after`` like :meth:`search`.

        With ``score`` (leaf texts), the hits come with those leaves' exact scores
        (:attr:`LeafHits.values`) from the same search, and ``after`` is ignored.
        """
        if score:
            return self._scored_search(self._bound_query(spec), k, tuple(score), by_score=True)
        return self._search(self._bound_query, spec, k, after)

    def _build_sort(self, texts: tuple[str, ...], by_score: bool):
        """Relevance (``by_score``) or index order first, then each leaf's score as a sort field,
        rewritten once for this searcher (each leaf's Weight is built here, not per search);
        last, where the ``id`` field has binary doc values, the collection docid
        (``STRING_VAL`` reads them), so hits need no docid lookups afterwards."""
        fields = [self._sort_field.FIELD_SCORE if by_score else self._sort_field.FIELD_DOC]
        fields += [self._values_source.fromQuery(self.query(t)).getSortField(True) for t in texts]
        if self._id_kind == "BINARY":
            fields.append(self._sort_field("id", self._sort_field_type.STRING_VAL))
        return self._sort_cls(*fields).rewrite(self._searcher)

    def _scored_search(self, query, k: int, texts: tuple[str, ...], by_score: bool) -> LeafHits:
        """Top ``k`` of ``query`` by score (or the first ``k`` by docid) with the exact score of
        every leaf in ``texts`` for each hit: one search, three Java calls.

        The leaves are sort fields after the first (``DoubleValuesSource.fromQuery``): the
        collector evaluates them only for documents that enter or tie the queue, by advancing
        each leaf's own scorer, so a value is bit for bit the leaf's search score (0 where
        the leaf does not match).  Relevance first keeps Lucene's dynamic pruning
        (``TopFieldCollector`` sets the minimum competitive score), docid first stops after
        ``k`` matches.
        """
        want = max(1, min(int(k), self.max_doc))
        with jvm_lock:
            sort = self._cached_sort(texts, by_score)
            manager = self._field_collector_cls.createSharedManager(sort, want, None, want)
            payload = self._json.writeValueAsString(self._searcher.search(query, manager))
        score_docs = _loads(payload)["scoreDocs"]
        n = len(score_docs)
        docs = np.fromiter((sd["doc"] for sd in score_docs), dtype=np.int64, count=n)
        if self._id_kind == "BINARY":  # the docid, last: a BytesRef as Jackson writes it
            a2b = binascii.a2b_base64
            ids = tuple(a2b(b["bytes"])[b["offset"]:b["offset"] + b["length"]].decode("utf-8")
                        for b in [sd["fields"].pop() for sd in score_docs])
            self._remember_docids(docs.tolist(), ids)
        else:
            ids = None
        fields = np.array([sd["fields"] for sd in score_docs], dtype=np.float64).reshape(n, len(texts) + 1)
        scores = fields[:, 0].astype(np.float32) if by_score else np.zeros(n, dtype=np.float32)
        values = tuple(fields[:, i + 1].astype(np.float32) for i in range(len(texts)))
        return LeafHits(docs, scores, complete=n < want, values=values, ids=ids)

    def _search(self, build, key, k: int, after: LeafHits | None) -> LeafHits:
        done = 0 if after is None else len(after.docs)
        if after is not None and (after.complete or done >= k):
            return after
        want = int(k) - done
        with jvm_lock:
            query = build(key)
            if want > _COUNT_FIRST:  # a collector for k hits preallocates k entries: size it to the matches
                want = min(want, int(self._searcher.count(query)) - done + 1)
            last = self._score_doc(int(after.docs[-1]), float(after.scores[-1])) if done else None
            # Count only as many hits as are kept, so Lucene's dynamic pruning
            # (block-max WAND / MaxScore) starts at once; the top hits are the same.
            manager = self._collector_cls.createSharedManager(want, last, want)
            payload = self._json.writeValueAsString(self._searcher.search(query, manager))
        score_docs = _loads(payload)["scoreDocs"]
        n = len(score_docs)
        docs = np.fromiter((sd["doc"] for sd in score_docs), dtype=np.int64, count=n)
        scores = np.array([sd["score"] for sd in score_docs], dtype=np.float32)
        if done:
            docs, scores = np.concatenate([after.docs, docs]), np.concatenate([after.scores, scores])
        return LeafHits(docs, scores, complete=n < want)

    def _bound_query(self, spec):
        with jvm_lock:
            return self._cached_bound_query(spec)

    def _build_bound_query(self, spec):
        """The Lucene query of a bound query: a boosted leaf, a BooleanQuery of SHOULD clauses
        (sum), a DisjunctionMaxQuery (max), or a conjunction scored by the product of its
        clauses (``FunctionScoreQuery.boostByValue`` over MUST + FILTER clauses)."""
        if spec.op == "leaf":
            query = self.query(self.leaf_key(spec.term))
        else:
            children = [self._build_bound_query(c) for c in spec.children]
            if spec.op == "sum":
                builder = self._boolean()
                for child in children:
                    builder.add(child, self._occur.SHOULD)
                query = builder.build()
            elif spec.op == "max":
                clauses = self._array_list()
                for child in children:
                    clauses.add(child)
                query = self._dismax(clauses, 0.0)
            elif spec.op == "product":
                builder = self._boolean()
                builder.add(children[0], self._occur.MUST)
                for child in children[1:]:
                    builder.add(child, self._occur.FILTER)  # each factor matches, so none defaults to 1
                query = builder.build()
                for child in children[1:]:
                    query = self._function_score.boostByValue(query, self._values_source.fromQuery(child))
            else:
                raise ValueError(f"unknown bound query operation {spec.op!r}")
        return query if spec.weight == 1.0 else self._boost_query(query, float(spec.weight))

    def score(self, text: str, docs: np.ndarray) -> np.ndarray:
        """Exact BM25 score of ``text`` for each of ``docs`` (0 where it does not match).

        Lucene's own scorer runs over the leaf's weight with the requested
        documents as *accept docs* (a bit set per segment, the mechanism Lucene
        uses for deletions), and a top-N collector gathers the matches; the
        whole pass stays in Java, and the values are bit-identical to what a
        search or ``IndexSearcher.explain`` reports.
        """
        return self.score_many([text], docs)[0]

    def score_many(self, texts: list[str], docs: np.ndarray) -> list[np.ndarray]:
        """:meth:`score` of several leaves for the same documents: the bit sets are
        built once and every leaf's pass runs under one lock."""
        docs = np.asarray(docs, dtype=np.int64)
        if len(docs) == 0:
            return [np.zeros(0, dtype=np.float32) for _ in texts]
        seg_of = np.searchsorted(self._starts, docs, side="right") - 1
        segments = [(seg, docs[seg_of == seg] - self._segments[seg][1]) for seg in np.unique(seg_of)]
        payloads = []
        with jvm_lock:  # weights, scorers, collectors and the shared bit sets are per-call Java state
            bits = [(seg, self._accept_bits(seg, local)) for seg, local in segments]
            try:
                for text in texts:
                    weight = self._cached_weight(text)
                    collector = self._collector_cls.create(len(docs), 2**31 - 1)
                    for seg, accept in bits:
                        ctx = self._segments[seg][0]
                        bulk = weight.bulkScorer(ctx)
                        if bulk is None:  # no document of this segment matches the leaf
                            continue
                        bulk.score(collector.getLeafCollector(ctx), accept)
                    payloads.append(self._json.writeValueAsString(collector.topDocs()))
            finally:
                for seg, accept in bits:
                    if accept is self._shared_bits.get(seg):
                        accept.clear(0, self._segments[seg][2])
        return [self._matched_scores(payload, docs) for payload in payloads]

    def _accept_bits(self, seg: int, local: np.ndarray):
        """A ``FixedBitSet`` of ``local`` docs of segment ``seg``.  Few documents are set one
        call each on a bit set kept per segment (cleared after use); many cross as the
        backing array (one call, but ``maxDoc / 64`` words converted)."""
        max_doc = self._segments[seg][2]
        if len(local) * 64 * _SET_CALL_WORDS >= max_doc:
            return self._bitset_cls(_bitset_words(local, max_doc), max_doc)
        shared = self._shared_bits.get(seg)
        if shared is None:
            shared = self._shared_bits[seg] = self._bitset_cls(max_doc)
        for d in local.tolist():
            shared.set(d)
        return shared

    def first_hits(self, texts: list[str], k: int, matching: bool, score: tuple[str, ...] = ()) -> LeafHits:
        """:meth:`first_docs` as a :class:`LeafHits` (scores 0); with ``score`` (leaf texts), each
        hit also carries those leaves' exact scores (:attr:`LeafHits.values`, same search)."""
        with jvm_lock:
            query = self._cached_listing(tuple(texts), bool(matching))
            if score:
                return self._scored_search(query, k, tuple(score), by_score=False)
            payload = self._json.writeValueAsString(self._searcher.search(query, int(k)))
        score_docs = _loads(payload)["scoreDocs"]
        docs = np.fromiter((sd["doc"] for sd in score_docs), dtype=np.int64, count=len(score_docs))
        return LeafHits(docs, np.zeros(len(docs), dtype=np.float32), len(docs) < int(k))

    def _build_listing(self, texts: tuple[str, ...], matching: bool):
        """The filter-only query of :meth:`first_hits` (every match scores 0)."""
        builder = self._boolean()
        if matching:
            inner = self._boolean()
            for text in texts:
                inner.add(self.query(text), self._occur.SHOULD)
            builder.add(inner.build(), self._occur.FILTER)
        else:
            builder.add(self._match_all, self._occur.FILTER)
            for text in texts:
                builder.add(self.query(text), self._occur.MUST_NOT)
        return builder.build()

    @staticmethod
    def _matched_scores(payload: str, docs: np.ndarray) -> np.ndarray:
        out = np.zeros(len(docs), dtype=np.float32)
        matched = _loads(payload)["scoreDocs"]
        if matched:
            found = np.fromiter((sd["doc"] for sd in matched), dtype=np.int64, count=len(matched))
            values = np.array([sd["score"] for sd in matched], dtype=np.float32)
            order = np.argsort(found)
            pos = np.minimum(np.searchsorted(found[order], docs), len(found) - 1)
            hit = found[order[pos]] == docs
            out[hit] = values[order[pos[hit]]]
        return out

    def first_docs(self, texts: list[str], k: int, matching: bool) -> np.ndarray:
        """The first ``k`` documents (by internal docid) that match any of ``texts``
        (``matching``) or none of them.

        One Lucene search with no scoring clause (filter clauses only): every
        score is equal, so the top-k collector keeps the lowest docids and
        stops early.
        """
        return np.sort(self.first_hits(texts, k, matching).docs)

    def explain(self, text: str, doc: int) -> float:
        """Lucene's explanation value for one document (a slow, independent check)."""
        with jvm_lock:
            return float(self._searcher.explain(self.query(text), int(doc)).getValue().floatValue())

    # -- docids ------------------------------------------------------------
    def _docid_storage(self) -> str:
        """How the ``id`` field can be read: BINARY / SORTED doc values, or stored."""
        if not self._segments:
            return "stored"
        info = self._segments[0][0].reader().getFieldInfos().fieldInfo("id")
        kind = info.getDocValuesType().toString() if info is not None else "NONE"
        return kind if kind in ("BINARY", "SORTED") else "stored"

    def docids(self, docs: np.ndarray) -> list[str]:
        """Collection docids of internal Lucene docids (cached)."""
        cache = self._docid_cache
        out = [cache.get(d) for d in np.asarray(docs, dtype=np.int64).tolist()]
        if None in out:
            missing = sorted({int(d) for d, i in zip(docs, out) if i is None})
            with jvm_lock:  # doc values iterators are per-call Java objects (see jvm_lock)
                found = self._resolve(missing)
            self._remember_docids(missing, [found[d] for d in missing])
            out = [i if i is not None else found[int(d)] for d, i in zip(docs, out)]
        return out

    def remember(self, hits: LeafHits) -> None:
        """Put the docids that came with ``hits`` (:attr:`LeafHits.ids`) back in the docid cache
        (hits kept by a caller outlive the cache, which starts over when full)."""
        if hits.ids is not None:
            self._remember_docids(hits.docs.tolist(), hits.ids)

    def _remember_docids(self, docs: list[int], ids) -> None:
        if len(self._docid_cache) + len(docs) > _DOCID_CACHE_MAX:
            self._docid_cache.clear()
        self._docid_cache.update(zip(docs, ids))

    def _resolve(self, docs: list[int]) -> dict[int, str]:
        found: dict[int, str] = {}
        arr = np.asarray(docs, dtype=np.int64)
        seg_of = np.searchsorted(self._starts, arr, side="right") - 1
        for seg in np.unique(seg_of):
            ctx, base, _ = self._segments[seg]
            leaf = ctx.reader()
            members = [int(d) for d in arr[seg_of == seg]]
            if self._id_kind == "BINARY":
                values = leaf.getBinaryDocValues("id")
                for d in members:
                    values.advanceExact(d - base)
                    found[d] = values.binaryValue().utf8ToString()
            elif self._id_kind == "SORTED":
                values = leaf.getSortedDocValues("id")
                for d in members:
                    values.advanceExact(d - base)
                    found[d] = values.lookupOrd(values.ordValue()).utf8ToString()
            else:
                stored = leaf.storedFields()
                for d in members:
                    found[d] = stored.document(d - base).get("id")
        return found

    def lucene_docid(self, docid: str) -> int | None:
        """Internal Lucene docid of a collection docid (None if absent)."""
        with jvm_lock:
            top = self._searcher.search(self._autoclass("org.apache.lucene.search.TermQuery")(
                self._autoclass("org.apache.lucene.index.Term")("id", docid)), 1)
            docs = top.scoreDocs
            return int(docs[0].doc) if len(docs) else None

    def key(self, docid: str) -> int | None:
        return self.lucene_docid(docid)

    def close(self) -> None:
        self._reader.close()


class LucenePhraseLeaves(LuceneLeafScorer):
    """Positional phrase leaves (registry name ``phrase``): ``phrase:"care home"`` matches documents
    where the words stand adjacent and in order, scored by BM25 over the phrase's frequency.

    A searcher serves them with the same :class:`LuceneLeafScorer` as its BM25 leaves (it builds a
    ``PhraseQuery`` for a :class:`Phrase` key), so a query that mixes the two still gets the exact
    top-k and the Boolean peer; this class is what the registry, the grammar and the normaliser know
    of them.  The index must store positions (``python -m logical_pyserini.index`` does).
    """

    name = "phrase"
    index_option = None  # the searcher's own index

    def _build_query(self, leaf: "str | Phrase"):
        # On its own (not through a searcher's backend), every text given to it is a phrase.
        return super()._build_query(leaf if isinstance(leaf, Phrase) else Phrase(leaf))

    @classmethod
    def calibration_key(cls) -> str | None:
        return "bm25"  # the same BM25 similarity, so the same sigmoid parameters

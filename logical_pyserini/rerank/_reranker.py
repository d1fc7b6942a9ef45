"""OrLog reranking: plausibilities per (candidate, predicate), ProbLog posterior per candidate."""

from __future__ import annotations

import time
from typing import Any, Sequence

import numpy as np
from tqdm import tqdm

from ._base import BaseReranker, DocTextFn, RerankedHit, RerankStats
from ._cache import PlausibilityCache
from ._oracle import Entity, Oracle
from ._predicates import OrLogQuery
from ._problog import CompiledFormula, available_backends

__all__ = ["OrLogReranker", "get_oracle"]


def get_oracle(spec: str, **kwargs: Any) -> Oracle:
    """Build an oracle from a CLI spec.

    Parameters
    ----------
    spec : str
        ``leaf`` (exact normalised leaf scores; needs a searcher bound,
        see :class:`LeafScoreOracle`), ``dense`` (packaged MiniLM), ``dense:DIR`` (another local sentence
        encoder), ``hf:PATH`` (local model directory or ``.gguf`` file),
        ``openai:MODEL`` (completions endpoint at ``$OPENAI_BASE_URL``).
    **kwargs
        Passed to the oracle class (e.g. ``device``, ``dtype``, ``base_url``).

    Raises
    ------
    ValueError
        For an unknown spec.
    OracleError
        When the model cannot serve True/False plausibilities.
    """
    kind, _, arg = spec.partition(":")
    if kind == "leaf" and not arg:
        from ._leaf import LeafScoreOracle

        return LeafScoreOracle(**kwargs)
    if kind == "dense":
        from ._dense import DenseOracle

        return DenseOracle(arg or None, **kwargs)
    if kind == "hf" and arg:
        from ._transformers import TransformersOracle

        return TransformersOracle(arg, **kwargs)
    if kind == "openai" and arg:
        from ._openai import OpenAIOracle

        return OpenAIOracle(arg, **kwargs)
    raise ValueError(f"unknown oracle {spec!r}; expected leaf, dense, hf:PATH or openai:MODEL")


class OrLogReranker(BaseReranker):
    """Rerank the top ``depth`` hits by the posterior that they satisfy the query.

    Parameters
    ----------
    oracle : Oracle
        Source of plausibilities (see :func:`get_oracle`).
    depth : int
        Candidates reranked; hits below keep their order under them.
    knowledge : str
        ``parametric`` (title only) or ``parametric+`` (title + text).
    cache : PlausibilityCache or str, optional
        Cache object or JSONL path; in-memory when None.
    context_tokens : int
        Token budget for the document text in ``parametric+``.
    backend : str, optional
        ProbLog knowledge compiler (``sdd``, else ``ddnnf``).
    progress : bool
        Progress bar while the oracle scores many pairs.
    oracle_batch : int
        Pairs handed to the oracle per call.

    Examples
    --------
    >>> reranker = OrLogReranker(get_oracle("dense"))                  # doctest: +SKIP
    >>> new_hits, stats = reranker.rerank(parse_query('"a" OR "b"'), hits)  # doctest: +SKIP
    """

    method = "orlog"

    def __init__(self, oracle: Oracle, depth: int = 20, knowledge: str = "parametric+",
                 cache: PlausibilityCache | str | None = None, context_tokens: int = 256,
                 backend: str | None = None, progress: bool = False, oracle_batch: int = 64):
        super().__init__(depth, knowledge, context_tokens)
        if not hasattr(oracle, "plausibilities"):
            raise TypeError(f"{type(oracle).__name__} is not an oracle (no plausibilities method)")
        self.oracle = oracle
        self.cache = cache if isinstance(cache, PlausibilityCache) else PlausibilityCache(cache)
        backends = available_backends()
        if not backends:
            raise RuntimeError("no ProbLog knowledge compiler available (install pysdd for sdd)")
        if backend is not None and backend not in backends:
            raise ValueError(f"ProbLog backend {backend!r} unavailable here; available: {backends}")
        self.backend = backend or backends[0]
        self.progress = progress
        self.oracle_batch = int(oracle_batch)

    def plausibility_matrix(self, entities: Sequence[Entity], atoms: Sequence[str],
                            stats: RerankStats | None = None) -> np.ndarray:
        """``(len(entities), len(atoms))`` plausibilities, from the cache where possible."""
        oracle = self.oracle
        version = getattr(oracle, "prompt_version", "")
        keys = [[(oracle.id, version, e.key, a) for a in atoms] for e in entities]
        matrix = np.full((len(entities), len(atoms)), np.nan)
        todo: list[tuple[int, int]] = []
        for i, row in enumerate(keys):
            for j, key in enumerate(row):
                value = self.cache.get(key)
                if value is None:
                    todo.append((i, j))
                else:
                    matrix[i, j] = value
        before = dict(oracle.usage) if hasattr(oracle, "usage") else {}
        start = time.perf_counter()
        steps = range(0, len(todo), self.oracle_batch)
        for s in tqdm(steps, desc="oracle", unit="batch", leave=False,
                      disable=not self.progress or len(steps) < 2):
            chunk = todo[s : s + self.oracle_batch]
            values = np.asarray(oracle.plausibilities([(entities[i], atoms[j]) for i, j in chunk]), dtype=float)
            if values.shape != (len(chunk),) or not np.all((values >= 0) & (values <= 1)):
                raise ValueError(f"oracle {oracle.id} returned values outside [0, 1] or of the wrong shape")
            for (i, j), v in zip(chunk, values):
                matrix[i, j] = v
            self.cache.put_many([(keys[i][j], float(v)) for (i, j), v in zip(chunk, values)])
        if stats is not None:
            stats.oracle_seconds += time.perf_counter() - start
            stats.pairs += len(entities) * len(atoms)
            stats.cache_hits += len(entities) * len(atoms) - len(todo)
            after = getattr(oracle, "usage", {})
            for name in ("prompt_tokens", "computed_tokens", "generated_tokens"):
                setattr(stats, name, getattr(stats, name) + after.get(name, 0) - before.get(name, 0))
        return matrix

    def rerank(self, query: Any, hits: Sequence[Any],
               doc_text_fn: DocTextFn | None = None) -> tuple[list[RerankedHit], RerankStats]:
        """Rerank one query's hits.

        Parameters
        ----------
        query : Node, decomposition or OrLogQuery
            A logical query tree (one predicate per distinct leaf) or an
            object with ``atoms`` and ``to_tree()``.
        hits : sequence
            Hits with ``docid`` and ``score``, best first.
        doc_text_fn : callable, optional
            ``hit -> (title, text)``; default reads ``hit.raw`` (see
            :func:`hit_title_text`).

        Returns
        -------
        (list of RerankedHit, RerankStats)
            On any failure (oracle error, bad values) the base ranking comes
            back with ``stats.fallback`` set and the error text.
        """
        stats = RerankStats(self.method)
        self.history.append(stats)
        try:
            q = OrLogQuery.coerce(query)
            top = list(hits[: self.depth])
            stats.candidates, stats.atoms = len(top), len(q.atoms)
            if not top:
                return [], stats
            entities = self._entities(top, doc_text_fn, self.oracle)
            matrix = self.plausibility_matrix(entities, q.atoms, stats)
            start = time.perf_counter()
            posteriors = CompiledFormula(q.formula, self.backend).posteriors(matrix)
            stats.problog_seconds = time.perf_counter() - start
        except Exception as exc:  # noqa: BLE001 - any failure keeps the base ranking (counted)
            return self._fail(hits, stats, exc), stats
        # Seed 000 accounting: one decoding-free forward pass per predicate, plus parsing amortised.
        stats.tokens_per_pair = len(q.atoms) + q.parse_tokens / len(top)
        return self._reorder(hits, posteriors), stats

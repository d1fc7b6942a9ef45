"""Exact top-k: bound-query path vs threshold loop vs pooled vs plain, interleaved on one index.

    python eval/bench_topk_paths.py SIZE HITS [QUERIES]

Uses the corpus and index of ``eval/bench_latency.py`` (``eval/data/index-SIZE``, built by it) and its
queries; per query the median of 2 interleaved repeats, then the median over queries (ms) and the ratio to
plain ``LuceneSearcher.search``.  Written to choose ``_topk._BOUND_MAX_K`` (which path large k takes).
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "eval"))


def main(argv: list[str]) -> None:
    from bench_latency import make_queries

    from logical_pyserini.search import LogicalLuceneSearcher, _topk  # (sets up Java before pyserini)
    from pyserini.search.lucene import LuceneSearcher

    size, hits = int(argv[0]), int(argv[1])
    n_queries = int(argv[2]) if len(argv) > 2 else 54
    index = ROOT / "eval" / "data" / f"index-{size}"
    searcher = LogicalLuceneSearcher(str(index))
    pooled = LogicalLuceneSearcher(str(index), pooled=True)

    def exact(bound: bool):
        def run(logical, plain):
            old = _topk._BOUND_MAX_K
            _topk._BOUND_MAX_K = 10**9 if bound else -1
            try:
                return searcher.search(logical, hits)
            finally:
                _topk._BOUND_MAX_K = old
        return run

    modes = {"plain": lambda logical, plain: LuceneSearcher.search(searcher, plain, hits),
             "bound query": exact(True), "threshold loop": exact(False),
             "pooled": lambda logical, plain: pooled.search(logical, hits)}
    queries = make_queries(n_queries)
    for logical, plain in queries[:10]:  # warm the JIT and caches
        for run in modes.values():
            run(logical, plain)
    times = {m: [[] for _ in queries] for m in modes}
    for _ in range(2):
        for i, (logical, plain) in enumerate(queries):
            for m, run in modes.items():
                t = time.perf_counter()
                run(logical, plain)
                times[m][i].append(time.perf_counter() - t)
    med = {m: statistics.median(statistics.median(t) for t in v) * 1e3 for m, v in times.items()}
    print(f"{size:,} docs, hits {hits}, {n_queries} queries: "
          + ", ".join(f"{m} {v:.2f} ms ({v / med['plain']:.2f}x)" for m, v in med.items()))


if __name__ == "__main__":
    main(sys.argv[1:])

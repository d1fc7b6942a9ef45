"""Latency of logical search vs plain LuceneSearcher on the same index and queries.

    python eval/bench_latency.py [--sizes 10000,100000] [--queries 200] [--repeats 3] [--quick]

For each corpus size a synthetic corpus is generated (Zipfian vocabulary,
~80 words per document), indexed in-process, and searched with 3-leaf logical
queries (``a AND b AND NOT c``, ``(a OR b) AND NOT c``, ``a AND (b OR c)``) and
with plain BM25 over the same words.  Both run in the same process,
interleaved query by query, ``--repeats`` times; we report medians and the
ratio logical / plain, at ``--hits`` 1000 (run files) and 10 (interactive).
Logical time includes parsing, every leaf sub-search, exact scoring of every
candidate for every leaf, composition and docid lookup of the returned hits.

Also reports effectiveness of plain vs logical on the bundled demo data by
number of negations.  Results go to ``eval/results/latency.md``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TEMPLATES = ["{a} AND {b} AND NOT {c}", "({a} OR {b}) AND NOT {c}", "{a} AND ({b} OR {c})"]


def make_corpus(path: Path, n_docs: int, seed: int = 7, vocab_size: int = 30000, length: int = 80) -> None:
    """Synthetic documents with a Zipfian word distribution (deterministic)."""
    rng = random.Random(seed)
    vocab = [f"t{i}x" for i in range(vocab_size)]
    weights = [1.0 / (r + 1) ** 1.05 for r in range(vocab_size)]
    cum = list(_accumulate(weights))
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as f:
        for i in range(n_docs):
            n = max(10, int(rng.gauss(length, length / 4)))
            words = rng.choices(vocab, cum_weights=cum, k=n)
            f.write(json.dumps({"id": f"doc{i:07d}", "contents": " ".join(words)}) + "\n")


def _accumulate(values):
    total = 0.0
    for v in values:
        total += v
        yield total


def make_queries(n: int, seed: int = 11) -> list[tuple[str, str]]:
    """(logical query, plain text) pairs; leaves are 1-2 mid-frequency words."""
    rng = random.Random(seed)

    def leaf() -> str:
        words = [f"t{rng.randint(20, 3000)}x" for _ in range(rng.choice([1, 1, 2]))]
        return '"' + " ".join(words) + '"'

    out = []
    for i in range(n):
        a, b, c = leaf(), leaf(), leaf()
        logical = TEMPLATES[i % len(TEMPLATES)].format(a=a, b=b, c=c)
        out.append((logical, " ".join(x.strip('"') for x in (a, b, c))))
    return out


def time_pair(searcher, queries, hits: int, repeats: int) -> dict:
    """Median seconds per query for plain and logical, interleaved."""
    from pyserini.search.lucene import LuceneSearcher

    plain_t, logical_t, ratios = [], [], []
    for logical, plain in queries[: min(10, len(queries))]:  # warm the JIT and caches
        LuceneSearcher.search(searcher, plain, hits)
        searcher.search(logical, hits)
    for _ in range(repeats):
        for logical, plain in queries:
            t0 = time.perf_counter()
            LuceneSearcher.search(searcher, plain, hits)
            t1 = time.perf_counter()
            searcher.search(logical, hits)
            t2 = time.perf_counter()
            plain_t.append(t1 - t0)
            logical_t.append(t2 - t1)
            ratios.append((t2 - t1) / (t1 - t0))
    return {
        "plain_ms": statistics.median(plain_t) * 1e3,
        "logical_ms": statistics.median(logical_t) * 1e3,
        "ratio_of_medians": statistics.median(logical_t) / statistics.median(plain_t),
        "median_ratio": statistics.median(ratios),
        "n": len(plain_t),
    }


def effectiveness(index: Path) -> str:
    """Plain BM25 (natural topics) vs logical (logical topics) on the demo data, by negations."""
    import tempfile

    from logical_pyserini.data import DEMO_DIR
    from logical_pyserini.demo import ensure_index
    from logical_pyserini.eval import evaluate_runs, format_table, read_groups
    from logical_pyserini.search.__main__ import main as search

    ensure_index(DEMO_DIR / "corpus.jsonl", index)
    with tempfile.TemporaryDirectory() as tmp:
        runs = {"bm25": Path(tmp) / "bm25.txt", "logical": Path(tmp) / "logical.txt"}
        search(["--index", str(index), "--topics", str(DEMO_DIR / "topics.natural.tsv"), "--plain",
                "--output", str(runs["bm25"]), "--quiet"])
        search(["--index", str(index), "--topics", str(DEMO_DIR / "topics.logical.tsv"),
                "--output", str(runs["logical"]), "--quiet"])
        groups = read_groups(f"{DEMO_DIR / 'metadata.jsonl'}:negations")[1]
        rows = evaluate_runs(DEMO_DIR / "qrels.txt", runs, "nDCG@10 P@1 RR", groups)
    return format_table(rows, "negations")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default="10000,100000", help="Corpus sizes, comma separated.")
    p.add_argument("--queries", type=int, default=200)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--data", default=str(ROOT / "eval" / "data"), help="Where generated corpora/indexes go.")
    p.add_argument("--output", default=str(ROOT / "eval" / "results" / "latency.md"))
    p.add_argument("--quick", action="store_true", help="Seconds: 2,000 docs, 20 queries, 1 repeat.")
    args = p.parse_args(argv)
    if args.quick:
        args.sizes, args.queries, args.repeats = "2000", 20, 1

    from logical_pyserini.index import build_lucene_index
    from logical_pyserini.search import LogicalLuceneSearcher

    queries = make_queries(args.queries)
    rows = []
    for size in (int(s) for s in args.sizes.split(",")):
        corpus = Path(args.data) / f"synthetic-{size}.jsonl"
        index = Path(args.data) / f"index-{size}"
        if not corpus.exists():
            make_corpus(corpus, size)
        if not (index / "done").exists():
            t = time.perf_counter()
            build_lucene_index(corpus, index, overwrite=True, progress=False)
            (index / "done").write_text(f"{time.perf_counter() - t:.1f}\n")
        # (hits, leaf depth): a run file at the default depth, interactive top-10
        # at the default depth, and top-10 with shallower leaves.
        for hits, leaf_hits in ((1000, 1000), (10, 1000), (10, 100)):
            searcher = LogicalLuceneSearcher(str(index), leaf_hits=leaf_hits)
            r = time_pair(searcher, queries, hits, args.repeats)
            rows.append((size, hits, leaf_hits, r))
            print(f"{size} docs, hits={hits}, leaf-hits={leaf_hits}: plain {r['plain_ms']:.2f} ms, "
                  f"logical {r['logical_ms']:.2f} ms, ratio {r['ratio_of_medians']:.2f}", file=sys.stderr)
            searcher.close()

    lines = [
        "# Logical search latency vs plain LuceneSearcher",
        "",
        f"Command: `python eval/bench_latency.py {' '.join(argv if argv is not None else sys.argv[1:])}`  ",
        f"Date: {dt.date.today().isoformat()}; machine: {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} cores, Python {platform.python_version()}; 1 search thread.  ",
        f"{args.queries} three-leaf queries ({'; '.join(TEMPLATES)}), {args.repeats} repeats, interleaved; "
        "times are medians per query.",
        "",
        "| docs | hits | leaf hits | plain BM25 (ms) | logical (ms) | ratio of medians | median per-query ratio |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for size, hits, leaf_hits, r in rows:
        lines.append(f"| {size:,} | {hits} | {leaf_hits} | {r['plain_ms']:.2f} | {r['logical_ms']:.2f} | "
                     f"{r['ratio_of_medians']:.2f} | {r['median_ratio']:.2f} |")
    lines += ["", "## Effectiveness on the demo data (plain BM25 on natural topics vs logical)", "",
              effectiveness(Path(args.data) / "demo-index"), ""]
    out = Path(args.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())

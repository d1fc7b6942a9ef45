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

Memory: for each size, plain and logical search each run in a fresh
subprocess (same queries, ``--hits`` 1000) that reports its peak resident
set size (``VmHWM`` of ``/proc/self/status``, JVM included; on Linux
``ru_maxrss`` would include the parent's RSS, which it keeps across
fork + exec) at start, after opening the index and after the queries.  A PNG of median latency and
peak RSS vs corpus size goes next to the Markdown file (``latency.png``).
Sizes up to 100,000 run by default; ``--sizes 10000,100000,1000000`` adds 1M
(about 450 MB of JSONL and a ~2 GB index under ``--data``).

Also reports effectiveness of plain vs logical on the bundled demo data by
number of negations, and the ProbLog cost per reranked candidate (measured by
``problog_timing`` of ``eval/bench_orlog.py``).  Results go to
``eval/results/latency.md``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import random
import resource
import statistics
import subprocess
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
    from logical_pyserini.search import SearchConfig, run_topics

    ensure_index(DEMO_DIR / "corpus.jsonl", index)
    with tempfile.TemporaryDirectory() as tmp:
        runs = {"bm25": Path(tmp) / "bm25.txt", "logical": Path(tmp) / "logical.txt"}
        run_topics(SearchConfig(index=str(index), topics=str(DEMO_DIR / "topics.natural.tsv"), plain="text",
                                output=str(runs["bm25"]), quiet=True))
        run_topics(SearchConfig(index=str(index), topics=str(DEMO_DIR / "topics.logical.tsv"),
                                output=str(runs["logical"]), quiet=True))
        groups = read_groups(f"{DEMO_DIR / 'metadata.jsonl'}:negations")[1]
        rows = evaluate_runs(DEMO_DIR / "qrels.txt", runs, "nDCG@10 P@1 RR", groups)
    return format_table(rows, "negations")


def peak_rss_child(mode: str, index: str, n_queries: int, hits: int) -> None:
    """Child process of :func:`peak_rss`: open one searcher, run the queries, print peak RSS (JSON)."""
    def peak_mb() -> float:
        # VmHWM is this process image's own high-water mark; Linux carries ru_maxrss over from the
        # (large, JVM-holding) parent across fork + exec, so it is only the fallback.
        try:
            with open("/proc/self/status") as f:
                return next(int(line.split()[1]) for line in f if line.startswith("VmHWM:")) / 1024
        except (OSError, StopIteration):
            return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux

    start = peak_mb()
    from logical_pyserini.search import LogicalLuceneSearcher

    queries = make_queries(n_queries)
    if mode == "plain":
        from pyserini.search.lucene import LuceneSearcher

        searcher = LuceneSearcher(index)
        run = lambda logical, plain: searcher.search(plain, hits)  # noqa: E731
    else:
        searcher = LogicalLuceneSearcher(index)
        run = lambda logical, plain: searcher.search(logical, hits)  # noqa: E731
    opened = peak_mb()
    for logical, plain in queries:
        run(logical, plain)
    print(json.dumps({"python_mb": start, "open_mb": opened, "peak_mb": peak_mb()}))


def peak_rss(index: Path, n_queries: int, hits: int = 1000) -> dict[str, dict]:
    """Peak RSS (MB) of plain and logical search, each measured in a fresh interpreter."""
    out = {}
    for mode in ("plain", "logical"):
        done = subprocess.run([sys.executable, __file__, "--rss-child", mode, "--rss-index", str(index),
                               "--queries", str(n_queries), "--rss-hits", str(hits)],
                              capture_output=True, text=True, check=True)
        out[mode] = json.loads(done.stdout.strip().splitlines()[-1])
    return out


def problog_cost(quick: bool) -> list[str]:
    """ProbLog ms per reranked candidate by formula shape, from ``eval/bench_orlog.py`` (pending if absent)."""
    try:
        sys.path.insert(0, str(ROOT / "eval"))
        from bench_orlog import problog_timing, read_tsv

        from logical_pyserini.data import DEMO_DIR
        from logical_pyserini.rerank import available_backends

        topics = read_tsv(DEMO_DIR / "topics.logical.tsv")
        n_candidates, repeats = (10, 1) if quick else (20, 5)
        rows, worst = problog_timing(topics, n_candidates, repeats)
    except Exception as exc:  # a colleague's script: report, never fail the latency benchmark
        return [f"Pending: `eval/bench_orlog.py` could not be used ({type(exc).__name__}: {exc})."]
    backends = available_backends()
    return [f"Measured with `problog_timing` of `eval/bench_orlog.py` on the demo topics' formula shapes: "
            f"{n_candidates} candidates, random plausibilities, median of {repeats} repeat(s).  Cell: ms per "
            "candidate with one ProbLog program each / ms to compile the formula once + µs per re-weighted "
            "evaluation (speed-up).", "",
            "| formula shape | atoms | " + " | ".join(backends) + " |", "|---|---:|" + "---|" * len(backends),
            *rows, "", f"Largest posterior difference between the two ways: {worst:.1e}."]


def plot(rows: list, rss: dict, path: Path) -> None:
    """Median latency (left) and peak RSS (right) against corpus size."""
    sys.path.insert(0, str(ROOT / "eval"))
    from _common import pyplot

    plt = pyplot()
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    sizes = sorted({size for size, *_ in rows})
    for hits, leaf_hits, color in ((1000, 1000, "C0"), (10, 1000, "C1"), (10, 100, "C2")):
        sel = {size: r for size, h, lh, r in rows if (h, lh) == (hits, leaf_hits)}
        xs = [s for s in sizes if s in sel]
        ax1.plot(xs, [sel[s]["logical_ms"] for s in xs], "-o", color=color,
                 label=f"logical, hits {hits}, leaf hits {leaf_hits}")
        if leaf_hits == 1000:
            ax1.plot(xs, [sel[s]["plain_ms"] for s in xs], "--s", color=color, label=f"plain BM25, hits {hits}")
    ax1.set(xscale="log", yscale="log", xlabel="documents", ylabel="median ms / query", title="Latency")
    ax1.legend(fontsize=7)
    for mode, style in (("plain", "--s"), ("logical", "-o")):
        xs = sorted(rss)
        ax2.plot(xs, [rss[s][mode]["peak_mb"] for s in xs], style, label=f"{mode}: peak after queries")
        ax2.plot(xs, [rss[s][mode]["open_mb"] for s in xs], style, alpha=0.4, label=f"{mode}: after opening")
    ax2.set(xscale="log", xlabel="documents", ylabel="peak RSS (MB)", title="Memory (fresh process each)")
    ax2.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default="10000,100000", help="Corpus sizes, comma separated.")
    p.add_argument("--queries", type=int, default=200)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--data", default=str(ROOT / "eval" / "data"), help="Where generated corpora/indexes go.")
    p.add_argument("--output", default=None, help="Default eval/results/latency.md (eval/results-quick/ with --quick).")
    p.add_argument("--quick", action="store_true", help="Seconds: 2,000 docs, 20 queries, 1 repeat.")
    p.add_argument("--rss-child", choices=["plain", "logical"], help=argparse.SUPPRESS)
    p.add_argument("--rss-index", help=argparse.SUPPRESS)
    p.add_argument("--rss-hits", type=int, default=1000, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.output is None:  # --quick never overwrites the committed full results
        args.output = str(ROOT / "eval" / ("results-quick" if args.quick else "results") / "latency.md")
    if args.rss_child:
        peak_rss_child(args.rss_child, args.rss_index, args.queries, args.rss_hits)
        return 0
    if args.quick:
        args.sizes, args.queries, args.repeats = "2000", 20, 1

    from logical_pyserini.index import build_lucene_index
    from logical_pyserini.search import LogicalLuceneSearcher

    queries = make_queries(args.queries)
    rows, rss = [], {}
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
        rss[size] = peak_rss(index, args.queries)
        print(f"{size} docs, peak RSS: plain {rss[size]['plain']['peak_mb']:.0f} MB, "
              f"logical {rss[size]['logical']['peak_mb']:.0f} MB", file=sys.stderr)

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
    lines += ["", "## Peak memory", "",
              f"Each searcher in a fresh Python process: open the index, run the {args.queries} queries at "
              "hits 1000, read its peak RSS (`VmHWM`; the JVM heap lives in the same process; default `-Xmx` "
              "from `LOGICAL_PYSERINI_JAVA_HEAP`).  MB.", "",
              "| search | docs | Python alone | after imports and opening | after the queries | growth from queries |",
              "|---|---:|---:|---:|---:|---:|"]
    for size in rss:
        for mode in ("plain", "logical"):
            m = rss[size][mode]
            lines.append(f"| {mode} | {size:,} | {m['python_mb']:.0f} | {m['open_mb']:.0f} | {m['peak_mb']:.0f} | "
                         f"{m['peak_mb'] - m['open_mb']:.0f} |")
    out = Path(args.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    plot(rows, rss, out.with_suffix(".png"))
    lines += ["", f"Figure: `{out.with_suffix('.png').name}` (median latency and peak RSS vs corpus size).", "",
              "## ProbLog cost per reranked candidate (OrLog)", "", *problog_cost(args.quick),
              "", "## Effectiveness on the demo data (plain BM25 on natural topics vs logical)", "",
              effectiveness(Path(args.data) / "demo-index"), ""]
    out.write_text("\n".join(lines))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())

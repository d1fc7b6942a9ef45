"""Latency of logical search vs plain LuceneSearcher on the same index and queries.

    python eval/bench_latency.py [--sizes 10000,100000] [--queries 270] [--repeats 3] [--quick]

For each corpus size a synthetic corpus is generated (Zipfian vocabulary,
~80 words per document), indexed in-process, and searched with 2- to 4-leaf
logical queries with and without NOT (:data:`TEMPLATES`) and with plain BM25
over the same words.  Four searches run in the same process, interleaved
query by query, ``--repeats`` times: plain ``LuceneSearcher.search``, exact
logical top-k (the default), the pooled logical search of earlier versions
(``pooled=True``, leaf depth 1000) and the Boolean peer (a strict Lucene
BooleanQuery of the same tree, ``boolean_search``).  Per query the median over
repeats is kept; we report p50 / p99 over queries, the ratio of medians to
plain BM25, per-leaf-count and NOT / no-NOT ratios, and the backend calls per
exact query (each a constant number of Java calls: search, exact scoring of a
batch of documents, or one docid-order listing).  Logical time includes
parsing, every leaf sub-search, exact scoring, composition and docid lookup of
the returned hits.

Exactness on the benchmark corpus: every query's exact top-10 is compared with
exhaustive scoring (every document scored on every leaf), and so is the pooled
top-10.

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

TEMPLATES = [
    "{a} AND {b}", "{a} AND NOT {b}", "{a} OR {b}",
    "{a} AND {b} AND NOT {c}", "({a} OR {b}) AND NOT {c}", "{a} AND ({b} OR {c})",
    "{a} AND {b} AND {c} AND NOT {d}", "({a} OR {b}) AND ({c} OR {d})", "{a} AND ({b} OR {c}) AND NOT {d}",
]
MODES = ("plain", "exact", "cold", "pooled", "boolean")
METRICS = ("wall", "cpu")


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
        template = TEMPLATES[i % len(TEMPLATES)]
        leaves = {name: leaf() for name in "abcd" if "{" + name + "}" in template}
        logical = template.format(**leaves)
        out.append((logical, " ".join(x.strip('"') for x in leaves.values())))
    return out


def query_group(logical: str) -> tuple[int, bool]:
    """(number of leaves, has NOT) of a benchmark query."""
    return logical.count('"') // 2, "NOT" in logical


def _modes(searcher, pooled, hits: int, cold_searcher=None) -> dict:
    """Mode name -> function(logical, plain) running one search of that mode.

    ``cold`` clears the caches of ``cold_searcher`` (default ``searcher``) before each search;
    a separate one keeps ``exact``'s caches warm when the modes are interleaved.
    """
    from pyserini.search.lucene import LuceneSearcher

    cold_searcher = cold_searcher or searcher

    def cold(logical, plain):
        cold_searcher.clear_caches()  # a first-seen query: parse, plan, leaf queries, maxima, bound query, docids
        return cold_searcher.search(logical, hits)

    return {
        "plain": lambda logical, plain: LuceneSearcher.search(searcher, plain, hits),
        "exact": lambda logical, plain: searcher.search(logical, hits),
        "cold": cold,
        "pooled": lambda logical, plain: pooled.search(logical, hits),
        "boolean": lambda logical, plain: searcher.boolean_search(logical, hits),
    }


def time_modes(searcher, pooled, queries, hits: int, repeats: int, cold_searcher=None, order: str = "round") -> dict:
    """Per-query median seconds (wall clock and this thread's CPU time) of every mode over
    ``repeats`` rounds; backend calls of exact search.

    ``order="round"`` (the default, the issue's protocol): each round runs every query in one
    mode, then every query in the next, so modes alternate round by round.  ``"query"``: every
    mode on one query, then the next query (each search then follows other modes' work, e.g.
    the pooled mode's 1,000-hit lists, in the CPU caches and the JVM heap).

    Thread CPU time (``time.thread_time``) includes the Java work, which runs on the
    calling thread through JNI, but not the time the process waits for a core, so its
    ratios survive a machine shared with other jobs; JIT and GC threads are not in it.
    """
    from logical_pyserini.search import TopKStats

    run = _modes(searcher, pooled, hits, cold_searcher)
    for logical, plain in queries[: min(20, len(queries))]:  # warm the JIT and caches
        for mode in MODES:
            run[mode](logical, plain)
    times = {metric: {mode: [[] for _ in queries] for mode in MODES} for metric in METRICS}
    if order == "query":
        schedule = [(i, mode) for i in range(len(queries)) for mode in MODES]
    else:
        schedule = [(i, mode) for mode in MODES for i in range(len(queries))]
    for _ in range(repeats):
        for i, mode in schedule:
            logical, plain = queries[i]
            c0, t0 = time.thread_time(), time.perf_counter()
            run[mode](logical, plain)
            times["wall"][mode][i].append(time.perf_counter() - t0)
            times["cpu"][mode][i].append(time.thread_time() - c0)
    calls = []
    for logical, _ in queries:
        searcher.topk_stats = TopKStats()
        searcher.search(logical, hits)
        calls.append(searcher.topk_stats.calls)
    searcher.topk_stats = None
    per_query = {metric: {mode: [statistics.median(t) for t in times[metric][mode]] for mode in MODES}
                 for metric in METRICS}
    return {"per_query": per_query, "calls": calls}


class _JavaCounter:
    """Wraps a pyjnius object: counts and times (thread CPU) every call, constructor and
    field read that crosses into Java, and wraps what comes back (``java_calls``)."""

    calls = 0
    seconds = 0.0

    def __init__(self, real):
        object.__setattr__(self, "_real", real)

    @staticmethod
    def is_java(x) -> bool:
        import jnius

        return isinstance(x, jnius.JavaClass) or (isinstance(x, type) and issubclass(x, jnius.JavaClass))

    @classmethod
    def wrap(cls, x):
        if isinstance(x, list):  # a Java array (e.g. Pyserini's hits): each element crossed
            _JavaCounter.calls += len(x)
            return [cls.wrap(v) for v in x]
        return cls(x) if cls.is_java(x) else x

    @classmethod
    def unwrap(cls, x):
        if isinstance(x, _JavaCounter):
            return object.__getattribute__(x, "_real")
        if isinstance(x, (list, tuple)):
            return type(x)(cls.unwrap(v) for v in x)
        return x

    @classmethod
    def timed(cls, func, *args):
        t = time.thread_time()
        try:
            return func(*args)
        finally:
            _JavaCounter.seconds += time.thread_time() - t
            _JavaCounter.calls += 1

    def __getattr__(self, name):
        attr = getattr(object.__getattribute__(self, "_real"), name)
        if callable(attr) and not self.is_java(attr):
            return lambda *args: self.wrap(self.timed(attr, *self.unwrap(args)))
        _JavaCounter.calls += 1  # a field read (e.g. ``hit.docid``)
        return self.wrap(attr)

    def __call__(self, *args):
        return self.wrap(self.timed(object.__getattribute__(self, "_real"), *self.unwrap(args)))

    def __iter__(self):
        return (self.wrap(x) for x in object.__getattribute__(self, "_real"))

    def __len__(self):
        return len(object.__getattribute__(self, "_real"))


def java_calls(searcher, pooled, queries, hits: int) -> dict:
    """Per mode: mean and max Java calls per query, and the share of this thread's CPU time
    spent inside them (the rest is Python: parsing, numpy, building queries, JSON decoding).

    The Java handles a mode uses are wrapped by :class:`_JavaCounter` (results of calls too):
    every handle of the leaf scorer for exact search, Pyserini's searcher object for plain
    search and the Boolean peer (whose BooleanQuery building, ``retrieve.boolean_query``, is
    not counted); the queries run untimed, and the handles are put back.
    """
    leaves = searcher.leaves
    saved = {name: value for name, value in vars(leaves).items() if _JavaCounter.is_java(value)}
    saved_segments, saved_object = leaves._segments, searcher.object
    run = _modes(searcher, pooled, hits)
    out = {}

    def count(mode):
        counts, java, total = [], 0.0, 0.0
        for logical, plain in queries:
            _JavaCounter.calls, _JavaCounter.seconds = 0, 0.0
            t = time.thread_time()
            run[mode](logical, plain)
            total += time.thread_time() - t
            counts.append(_JavaCounter.calls)
            java += _JavaCounter.seconds
        out[mode] = {"mean": statistics.mean(counts), "max": max(counts), "java_share": java / total if total else 0.0,
                     "cpu_ms": total / len(queries) * 1e3, "java_ms": java / len(queries) * 1e3}

    try:
        searcher.object = _JavaCounter(saved_object)
        count("plain")
        count("boolean")
        searcher.object = saved_object
        for name, value in saved.items():
            setattr(leaves, name, _JavaCounter(value))
        leaves._segments = [(_JavaCounter(ctx), base, n) for ctx, base, n in saved_segments]
        leaves.clear_caches()  # so that cached leaf queries are wrapped ones
        count("cold")
        for logical, plain in queries:  # fill the caches again (with wrapped objects)
            run["exact"](logical, plain)
        count("exact")
    finally:
        for name, value in saved.items():
            setattr(leaves, name, value)
        leaves._segments, searcher.object = saved_segments, saved_object
        leaves._shared_bits = {}
        leaves.clear_caches()  # cached queries hold wrapped objects
    return {mode: out[mode] for mode in ("plain", "exact", "cold", "boolean")}  # (table order)


def summarize(result: dict, queries, modes=MODES, metric: str = "wall") -> dict:
    """p50 / p99 (ms) per mode and ratio of medians to plain, overall and per query group."""
    per_query = result["per_query"][metric]

    def pct(values, q):
        values = sorted(values)
        return values[min(len(values) - 1, int(round(q * (len(values) - 1))))] * 1e3

    out = {mode: {"p50": pct(per_query[mode], 0.5), "p99": pct(per_query[mode], 0.99)} for mode in modes}
    for mode in modes:
        out[mode]["ratio"] = out[mode]["p50"] / out["plain"]["p50"]
    groups = {}
    for i, (logical, _) in enumerate(queries):
        groups.setdefault(query_group(logical), []).append(i)
    out["groups"] = {
        g: {mode: statistics.median(per_query[mode][i] for i in idx) / statistics.median(per_query["plain"][i] for i in idx)
            for mode in modes} | {"n": len(idx)}
        for g, idx in sorted(groups.items())
    }
    calls = result["calls"]
    out["calls"] = (statistics.mean(calls), max(calls)) if calls else (0, 0)
    return out


def _latency_table(rows, metric: str) -> list[str]:
    """Markdown rows: p50 / p99 per mode and ratios to plain, for one metric (``wall`` or ``cpu``)."""
    out = ["| docs | hits | plain p50 / p99 (ms) | exact p50 / p99 | cold p50 / p99 | pooled p50 / p99 | "
           "boolean p50 / p99 | exact / plain | cold / plain | pooled / plain | boolean / plain | backend ops |",
           "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for size, hits, r, _ in rows:
        r = r[metric]
        cells = " | ".join(f"{r[m]['p50']:.2f} / {r[m]['p99']:.2f}" for m in MODES)
        ratios = " | ".join(f"{r[m]['ratio']:.2f}" for m in MODES if m != "plain")
        out.append(f"| {size:,} | {hits} | {cells} | {ratios} | {r['calls'][0]:.1f} / {r['calls'][1]} |")
    return out


def equality(searcher, pooled, queries, k: int = 10) -> dict:
    """How many top-k lists of exact and pooled search equal exhaustive scoring."""
    from logical_pyserini.query import parse_query
    from logical_pyserini.search import exhaustive, topk

    backend = searcher._retriever_backend()
    normalizer = searcher._leaf_normalizer
    same = {"exact": 0, "pooled": 0}
    for logical, _ in queries:
        tree = parse_query(logical)
        ref = exhaustive(tree, backend, searcher.operators, normalizer)
        want = [(int(ref.docs[i]), float(ref.combined[i])) for i in ref.ranking(k)]
        got = topk(tree, backend, searcher.operators, normalizer, k)
        same["exact"] += [(int(got.docs[i]), float(got.combined[i])) for i in got.ranking(k)] == want
        hits = pooled.search(tree, k)
        same["pooled"] += [(h.lucene_docid, h.score) for h in hits] == want
    same["n"] = len(queries)
    return same


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
    for hits, color in ((1000, "C0"), (10, "C1")):
        sel = {size: r for size, h, r in rows if h == hits}
        xs = [s for s in sizes if s in sel]
        for mode, style in (("plain", "--s"), ("exact", "-o"), ("pooled", ":^"), ("boolean", "-.x")):
            ax1.plot(xs, [sel[s][mode]["p50"] for s in xs], style, color=color, label=f"{mode}, hits {hits}")
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


def _carried(previous: str, heading: str) -> list[str]:
    """Section ``heading`` of the previous output file, marked as carried over (``--latency-only``)."""
    if heading not in previous:
        return ["", heading, "", "Not measured in this run (`--latency-only`)."]
    body = previous.split(heading, 1)[1].split("\n## ", 1)[0].strip("\n")
    return ["", heading, "", "Carried over from the previous full run of this script (not re-measured with "
            "`--latency-only`; see git history for its date and code).", "", body]


def benchmark_index(data: Path, size: int) -> Path:
    """The synthetic corpus of ``size`` documents and its Lucene index under ``data`` (built once)."""
    from logical_pyserini.index import build_lucene_index

    corpus = data / f"synthetic-{size}.jsonl"
    index = data / f"index-{size}"
    if not corpus.exists():
        make_corpus(corpus, size)
    if not (index / "done").exists():
        t = time.perf_counter()
        build_lucene_index(corpus, index, overwrite=True, progress=False)
        (index / "done").write_text(f"{time.perf_counter() - t:.1f}\n")
    return index


EQUALITY_ONLY = "## Equality checked separately"


def equality_only(args, queries) -> int:
    """``--equality-only``: equality counts per size, written into the output file's own section."""
    from logical_pyserini.search import LogicalLuceneSearcher

    rows = []
    for size in (int(s) for s in args.sizes.split(",")):
        index = benchmark_index(Path(args.data), size)
        searcher = LogicalLuceneSearcher(str(index))
        pooled = LogicalLuceneSearcher(str(index), pooled=True, leaf_hits=1000)
        t = time.perf_counter()
        e = equality(searcher, pooled, queries)
        rows.append(f"| {size:,} | {e['n']} | {e['exact']} | {e['pooled']} | {time.perf_counter() - t:.0f} |")
        print(f"{size} docs, top-10 equal to exhaustive: {e}", file=sys.stderr)
        searcher.close()
        pooled.close()
    section = [EQUALITY_ONLY, "",
               f"Command: `python eval/bench_latency.py {' '.join(sys.argv[1:])}`; date {dt.date.today().isoformat()}. "
               f"The first {args.queries} benchmark queries, top-10 docids and scores against exhaustive scoring.", "",
               "| docs | queries | exact = exhaustive | pooled (leaf depth 1000) = exhaustive | seconds |",
               "|---:|---:|---:|---:|---:|", *rows, ""]
    out = Path(args.output)
    text = out.read_text() if out.exists() else ""
    if EQUALITY_ONLY in text:  # replace the previous section
        head, tail = text.split(EQUALITY_ONLY, 1)
        rest = tail.split("\n## ", 1)
        text = head + ("## " + rest[1] if len(rest) > 1 else "")
    marker = "\n## Peak memory"
    text = text.replace(marker, "\n" + "\n".join(section) + marker, 1) if marker in text else \
        text.rstrip("\n") + "\n\n" + "\n".join(section)
    from logical_pyserini._io import atomic_write_text

    atomic_write_text(out, text)
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default="10000,100000", help="Corpus sizes, comma separated.")
    p.add_argument("--queries", type=int, default=270, help="Queries (a multiple of 9 covers every template equally).")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--data", default=str(ROOT / "eval" / "data"), help="Where generated corpora/indexes go.")
    p.add_argument("--output", default=None, help="Default eval/results/latency.md (eval/results-quick/ with --quick).")
    p.add_argument("--quick", action="store_true", help="Seconds: 2,000 docs, 20 queries, 1 repeat.")
    p.add_argument("--check-max-size", type=int, default=100000,
                   help="Equality with exhaustive scoring and peak memory only up to this corpus size "
                        "(exhaustive scoring lists every leaf completely: minutes per query set at 1M).")
    p.add_argument("--latency-only", action="store_true",
                   help="Time and check equality only; keep the peak-memory, ProbLog and effectiveness sections "
                        "of the existing output file (marked as carried over), e.g. on a starved machine.")
    p.add_argument("--order", choices=["round", "query"], default="round",
                   help="round (default): each round runs all queries in one mode, then the next mode (modes "
                        "alternate round by round); query: all modes on one query, then the next query.")
    p.add_argument("--equality-only", action="store_true",
                   help="Only compare exact (and pooled) top-10 with exhaustive scoring at every size of --sizes "
                        "over --queries queries, and put the counts in the output file's 'Equality checked "
                        "separately' section (for 1M, where the full run skips it: minutes).")
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

    from logical_pyserini.search import LogicalLuceneSearcher

    queries = make_queries(args.queries)
    if args.equality_only:
        return equality_only(args, queries)
    rows, rss, equal, load = [], {}, {}, {}
    for size in (int(s) for s in args.sizes.split(",")):
        index = benchmark_index(Path(args.data), size)
        searcher = LogicalLuceneSearcher(str(index))
        pooled = LogicalLuceneSearcher(str(index), pooled=True, leaf_hits=1000)
        cold = LogicalLuceneSearcher(str(index))  # its own caches, cleared before each of its searches
        for hits in (10, 1000):  # interactive top-10 and a run file
            before = os.getloadavg()[0]
            timed = time_modes(searcher, pooled, queries, hits, args.repeats, cold, args.order)
            r = {metric: summarize(timed, queries, metric=metric) for metric in METRICS}
            load[(size, hits)] = (before, os.getloadavg()[0])
            calls = java_calls(searcher, pooled, queries, hits)
            rows.append((size, hits, r, calls))
            for metric in METRICS:
                print(f"{size} docs, hits={hits}, {metric}: " + ", ".join(
                    f"{m} {r[metric][m]['p50']:.2f} ms ({r[metric][m]['ratio']:.2f}x)" for m in MODES), file=sys.stderr)
            print(f"{size} docs, hits={hits}, Java calls per query: "
                  + ", ".join(f"{m} {c['mean']:.1f}" for m, c in calls.items()), file=sys.stderr)
        if size <= args.check_max_size:
            equal[size] = equality(searcher, pooled, queries)
            print(f"{size} docs, top-10 equal to exhaustive: {equal[size]}", file=sys.stderr)
        searcher.close()
        pooled.close()
        cold.close()
        if size <= args.check_max_size and not args.latency_only:
            rss[size] = peak_rss(index, args.queries)
            print(f"{size} docs, peak RSS: plain {rss[size]['plain']['peak_mb']:.0f} MB, "
                  f"logical {rss[size]['logical']['peak_mb']:.0f} MB", file=sys.stderr)

    lines = [
        "# Logical search latency vs plain LuceneSearcher",
        "",
        f"Command: `python eval/bench_latency.py {' '.join(argv if argv is not None else sys.argv[1:])}`  ",
        f"Date: {dt.date.today().isoformat()}; machine: {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} cores (shared with other jobs: compare ratios, not absolute times), "
        f"Python {platform.python_version()}; 1 search thread.  ",
        "1-minute load average before / after each timing block (2 cores; other sessions' model runs): "
        + "; ".join(f"{size:,} docs hits {hits}: {a:.1f} / {b:.1f}" for (size, hits), (a, b) in load.items()) + ".  ",
        f"{args.queries} queries with 2-4 leaves ({'; '.join(TEMPLATES)}), {args.repeats} rounds, "
        + ("modes alternating round by round (each round: all queries in one mode, then the next mode)"
           if args.order == "round" else "interleaved query by query (all modes on one query, then the next)")
        + "; per query the median over rounds; p50 / p99 over queries.  plain: "
        "`LuceneSearcher.search` on the leaves' words; exact: the default exact top-k (parsed queries, plans, leaf "
        "queries, leaf maxima, bound queries and docids cached, as when queries repeat); cold: the same on a "
        "second searcher whose caches are cleared (`clear_caches()`) before every query (a first-seen query); pooled: `pooled=True`, leaf depth 1000 (earlier default, not "
        "exact); boolean: the Boolean peer (strict BooleanQuery of the same tree, through "
        "`LuceneSearcher.search`).  Ratio: p50 / plain p50.  Backend ops: operations per exact query (mean / "
        "max; a search, an exact scoring pass or a docid-order listing).",
        "",
        "## Wall clock",
        "",
        *_latency_table(rows, "wall"),
        "",
        "## Thread CPU time",
        "",
        "`time.thread_time()` of the searching thread: Lucene runs on it through JNI, so this is the search's own "
        "work without the time spent waiting for a core (the machine is shared); JIT and GC threads are not in it.",
        "",
        *_latency_table(rows, "cpu"),
        "",
        "## Java calls per query and where the CPU time goes",
        "",
        "One untimed pass per mode with every Java handle of the leaf scorer and of Pyserini's searcher wrapped by "
        "a counter (`_JavaCounter`): calls, constructors and field reads that cross JNI, and the thread CPU time "
        "inside them (Lucene's work plus the crossing itself); the rest is Python (parsing, bounds, numpy, JSON "
        "decoding, hit objects).  The counter's own overhead inflates both a little.  The Boolean peer's "
        "BooleanQuery building is not counted.",
        "",
        "| docs | hits | mode | Java calls mean / max | CPU ms / query | in Java | Python |",
        "|---:|---:|---|---:|---:|---:|---:|",
    ]
    for size, hits, _, calls in rows:
        for mode, c in calls.items():
            lines.append(f"| {size:,} | {hits} | {mode} | {c['mean']:.1f} / {c['max']} | {c['cpu_ms']:.2f} | "
                         f"{c['java_ms']:.2f} ({c['java_share']:.0%}) | {c['cpu_ms'] - c['java_ms']:.2f} |")
    lines += ["", "## By number of leaves and NOT (ratio of per-group medians to plain BM25)", "",
              "| docs | hits | leaves | NOT | queries | exact / plain | cold / plain | pooled / plain | boolean / plain "
              "| exact / plain (CPU) | cold / plain (CPU) | boolean / plain (CPU) |",
              "|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for size, hits, r, _ in rows:
        for (n_leaves, has_not), g in r["wall"]["groups"].items():
            c = r["cpu"]["groups"][(n_leaves, has_not)]
            lines.append(f"| {size:,} | {hits} | {n_leaves} | {'yes' if has_not else 'no'} | {g['n']} | "
                         f"{g['exact']:.2f} | {g['cold']:.2f} | {g['pooled']:.2f} | {g['boolean']:.2f} | "
                         f"{c['exact']:.2f} | {c['cold']:.2f} | {c['boolean']:.2f} |")
    lines += ["", "## Equality with exhaustive scoring (top-10 docids and scores)", "",
              "| docs | queries | exact = exhaustive | pooled (leaf depth 1000) = exhaustive |", "|---:|---:|---:|---:|"]
    for size, e in equal.items():
        lines.append(f"| {size:,} | {e['n']} | {e['exact']} | {e['pooled']} |")
    skipped = sorted({size for size, *_ in rows if size not in equal})
    if skipped:
        lines += ["", f"Not checked in this run at {', '.join(f'{s:,}' for s in skipped)} documents (`--check-max-size "
                  f"{args.check_max_size}`; `--equality-only` checks a size on its own, below when it was run); "
                  "the property tests in `tests/test_topk.py` cover every path."]
    out = Path(args.output)
    previous = out.read_text() if out.exists() else ""
    out.parent.mkdir(parents=True, exist_ok=True)
    if rss:
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
        lines += ["", f"Figure: `{out.with_suffix('.png').name}` (median latency and peak RSS vs corpus size)."]
    else:
        lines += _carried(previous, "## Peak memory")
    plot([(size, hits, r["wall"]) for size, hits, r, _ in rows], rss, out.with_suffix(".png"))  # (the memory panel stays empty with --latency-only)
    if args.latency_only:
        lines += _carried(previous, "## ProbLog cost per reranked candidate (OrLog)")
        lines += _carried(previous, "## Effectiveness on the demo data (plain BM25 on natural topics vs logical)")
        lines.append("")
    else:
        lines += ["", "## ProbLog cost per reranked candidate (OrLog)", "", *problog_cost(args.quick),
                  "", "## Effectiveness on the demo data (plain BM25 on natural topics vs logical)", "",
                  effectiveness(Path(args.data) / "demo-index"), ""]
    out.write_text("\n".join(lines))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())

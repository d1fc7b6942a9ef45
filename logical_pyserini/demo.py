"""The demo: bundled corpus -> Lucene index -> plain and logical search -> runs -> evaluation.

    python -m logical_pyserini.demo [--index indexes/demo] [--runs runs]

Everything runs in one process through the same APIs the CLIs configure
(``logical_pyserini.index``, :func:`logical_pyserini.search.run_topics`,
``.eval``), so the demo exercises exactly what users run.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

from .data import DEMO_DIR

__all__ = ["main"]


def _fingerprint(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def ensure_index(corpus: Path, index: Path) -> None:
    """Build the demo index unless one built from this exact corpus exists."""
    from .index import build_lucene_index

    stamp = index / "corpus.sha256"
    if stamp.is_file() and stamp.read_text().strip() == _fingerprint(corpus):
        print(f"[demo] index {index} is up to date", file=sys.stderr)
        return
    n = build_lucene_index(corpus, index, overwrite=True)
    stamp.write_text(_fingerprint(corpus) + "\n")
    print(f"[demo] indexed {n} documents into {index}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m logical_pyserini.demo", description=__doc__.splitlines()[0])
    p.add_argument("--data", default=str(DEMO_DIR), help="Folder with the demo corpus, topics, qrels, metadata.")
    p.add_argument("--index", default="indexes/demo", help="Where to build the Lucene index.")
    p.add_argument("--runs", default="runs", help="Where to write run files and the evaluation table.")
    p.add_argument("--measures", default="nDCG@10 P@1 RR R@100")
    p.add_argument("--rerank", action="store_true",
                   help="Also rerank the logical run with OrLog and the embedded dense oracle (a few minutes "
                   "on 2 cores the first time; plausibilities are cached in RUNS/demo.orlog-cache.jsonl).")
    args = p.parse_args(argv)

    data, runs = Path(args.data), Path(args.runs)
    runs.mkdir(parents=True, exist_ok=True)
    ensure_index(data / "corpus.jsonl", Path(args.index))

    from .eval import evaluate_runs, format_table, read_groups
    from .search import SearchConfig, build_searcher, run_topics

    logical, natural = str(data / "topics.logical.tsv"), str(data / "topics.natural.tsv")
    plan = {
        # What a user types, searched with plain BM25: the baseline.
        "bm25": dict(topics=natural, plain="text", run_tag="bm25"),
        # The Boolean peer: the same logical queries as a strict Lucene BooleanQuery (what a user would
        # hand-build instead of logical search).
        "boolean": dict(topics=logical, plain="boolean", run_tag="boolean"),
        # The same needs written in the logical query language.
        "logical": dict(topics=logical, run_tag="logical"),
        # The questions rewritten by the embedded rule rewriter, then searched logically.
        "rules+logical": dict(topics=natural, rewrite="rules", run_tag="rules-logical"),
    }
    if args.rerank:
        # Logical search, top 20 reranked by OrLog with the embedded dense oracle (no LLM).
        plan["logical+orlog"] = dict(topics=logical, rerank="orlog", oracle="dense",
                                     oracle_cache=str(runs / "demo.orlog-cache.jsonl"), run_tag="logical-orlog")
    paths = {}
    searcher = None  # one searcher (one JVM index reader) serves every run
    for name, options in plan.items():
        paths[name] = runs / f"demo.{name}.txt"
        config = SearchConfig(output=str(paths[name]), index=args.index, hits=1000, quiet=True, **options)
        searcher = searcher or build_searcher(config)
        print(f"[demo] {name}: {', '.join(f'{k}={v}' for k, v in options.items())} -> {paths[name]}",
              file=sys.stderr)
        report = run_topics(config, searcher=searcher)
        print(report.summary(), file=sys.stderr)
        if report.failures:
            print(f"[demo] the {name} run reported failed topics (see above)", file=sys.stderr)
            return 1

    tables = []
    for field in (None, "negations", "template"):
        groups = read_groups(f"{data / 'metadata.jsonl'}:{field}")[1] if field else None
        rows = evaluate_runs(data / "qrels.txt", paths, args.measures, groups)
        if field:
            rows = [r for r in rows if r.group != "all"]
        tables.append(format_table(rows, field or "all"))
    report = "\n\n".join(tables)
    (runs / "demo.eval.md").write_text(report + "\n", encoding="utf-8")
    print(report)
    print(f"\n[demo] runs in {runs}/, table in {runs / 'demo.eval.md'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The demo: bundled corpus -> Lucene index -> plain and logical search -> runs -> evaluation.

    python -m logical_pyserini.demo [--index indexes/demo] [--runs runs]

Everything runs in one process through the same APIs the CLIs configure
(``logical_pyserini.index``, :func:`logical_pyserini.search.run_topics`,
``.eval``), so the demo exercises exactly what users run.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
from pathlib import Path

from ._topics import read_topics
from .data import DEMO_DIR
from .models import DTYPE_HELP, DTYPES

__all__ = ["main"]

#: Dense candidates OrLog(LLM) judges beyond the logical top hits: off by default, since 3 (+0.006 nDCG@10 on
#: the LLM topics) costs the demo ~2 minutes of its ~10 (eval/results/orlog_llm_pool.md).
DEMO_ADD_DENSE = 0
#: Hybrid hits OrLog(LLM) judges beside the lexical top --llm-depth (--rerank-add-hybrid): on all 160 demo topics
#: 30 raised nDCG@10 from 0.936 to 0.954 (Boolean peer 0.899) for ~30% more judgements
#: (eval/results/orlog_llm_160topics.md).
DEMO_ADD_HYBRID = 30


def _fingerprint(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def _ensure(corpus: str | os.PathLike, index: str | os.PathLike, build, done: str) -> None:
    """Build ``index`` with ``build(corpus, index)`` unless one built from this exact corpus exists."""
    corpus, index = Path(corpus), Path(index)
    stamp = index / "corpus.sha256"
    if stamp.is_file() and stamp.read_text().strip() == _fingerprint(corpus):
        print(f"[demo] {index} is up to date", file=sys.stderr)
        return
    n = build(corpus, index)
    stamp.write_text(_fingerprint(corpus) + "\n")
    print(f"[demo] {done} {n} documents into {index}", file=sys.stderr)


def ensure_index(corpus: str | os.PathLike, index: str | os.PathLike) -> None:
    """Build the demo's Lucene index unless one built from this exact corpus exists."""
    from .index import build_lucene_index

    _ensure(corpus, index, lambda c, i: build_lucene_index(c, i, overwrite=True), "indexed")


def ensure_dense_index(corpus: str | os.PathLike, index: str | os.PathLike) -> None:
    """Build the demo's Faiss index (packaged MiniLM encoder) unless one built from this exact corpus exists."""
    from .index import build_faiss_index

    _ensure(corpus, index, lambda c, i: build_faiss_index(c, i, overwrite=True), "encoded")


def llm_subset(data: Path, per_template: int, skip: int = 0) -> list[str]:
    """The LLM rows' topics: ``per_template`` topics of each template (metadata order) after its first ``skip``."""
    import json

    seen: dict[str, int] = {}
    out = []
    for line in (data / "metadata.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        rank = seen[row["template"]] = seen.get(row["template"], 0) + 1
        if skip < rank <= skip + per_template:
            out.append(row["qid"])
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m logical_pyserini.demo", description=__doc__.splitlines()[0])
    p.add_argument("--data", default=str(DEMO_DIR), help="Folder with the demo corpus, topics, qrels, metadata.")
    p.add_argument("--index", default="indexes/demo", help="Where to build the Lucene index.")
    p.add_argument("--runs", default="runs", help="Where to write run files and the evaluation table.")
    p.add_argument("--measures", default="nDCG@10 P@1 RR R@100")
    p.add_argument("--rerank", action="store_true",
                   help="Also rerank the logical run with OrLog and the embedded dense oracle (a few minutes "
                   "on 2 cores the first time).")
    p.add_argument("--no-llm", action="store_true",
                   help="Skip the language-model rows (NL -> --rewrite llm -> logical search -> --rerank orlog "
                   "--oracle llm), which install the embedded model on first use (~1.1 GB from PyPI).")
    p.add_argument("--llm-topics-per-template", type=int, default=1, metavar="N",
                   help="The LLM rows run on the first N topics of each template (10 templates; default 1).")
    p.add_argument("--llm-depth", type=int, default=30, metavar="NUM",
                   help="Hits reranked by OrLog(LLM) (default 30; seed 000 uses 20). A perfect reranker of the "
                   "logical run's top 20 reaches 0.944 nDCG@10 on the LLM topics, of its top 30 0.964; depth 30 "
                   "costs ~250 more judgements (~2.5 minutes on 2 cores) and left no topic below the Boolean peer "
                   "(eval/results/orlog_llm_20topics.md).")
    p.add_argument("--llm-leaves", default="lexical", choices=("lexical", "hybrid"),
                   help="First stage of the LLM rows: lexical (default) scores the rewrite's leaves with BM25; "
                   "hybrid scores its positive leaves with BM25 + dense (a Faiss index of the corpus is built once, "
                   "--dense-index) and its negated leaves with BM25, so documents that paraphrase a leaf (\"the "
                   "second city of Portugal\" for Porto) can reach the reranked top. Hybrid raised the default "
                   "topics but lowered the next topic of each template (eval/results/orlog_llm_hybrid_20topics.md).")
    p.add_argument("--llm-add-dense", type=int, default=DEMO_ADD_DENSE, metavar="K",
                   help="OrLog(LLM) also judges the top K documents of a dense search of the question that the "
                   "logical run did not rank in its top --llm-depth (--rerank-add-dense; builds --dense-index "
                   f"once; at depth 20, 3 raised nDCG@10 on the LLM topics from 0.943 to 0.949 and added ~2 minutes; "
                   f"default {DEMO_ADD_DENSE}).")
    p.add_argument("--llm-add-hybrid", type=int, default=DEMO_ADD_HYBRID, metavar="K",
                   help="OrLog(LLM) also judges the top K hits of the rewrite searched with hybrid positive leaves "
                   "(BM25 + dense) and BM25 negated leaves that the lexical run did not rank in its top --llm-depth "
                   "(--rerank-add-hybrid; builds --dense-index once). The lexical run stays the base ranking. On all "
                   "160 demo topics 30 raised nDCG@10 from 0.936 to 0.954 (Boolean peer 0.899), ~30%% more "
                   f"judgements; 0 turns it off (default {DEMO_ADD_HYBRID}).")
    p.add_argument("--dense-index", default="indexes/demo-dense", help="Where to build the Faiss index.")
    p.add_argument("--model", default="embedded", help="Language model spec for the LLM rows.")
    p.add_argument("--model-dtype", default=None, choices=DTYPES, help=DTYPE_HELP)
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
        plan["logical+orlog"] = dict(topics=logical, rerank="orlog", oracle="dense", run_tag="logical-orlog")
    subset = [] if args.no_llm else llm_subset(data, args.llm_topics_per_template)
    if subset:
        llm_topics = runs / "demo.llm-topics.tsv"
        texts = read_topics(natural)
        llm_topics.write_text("".join(f"{q}\t{texts[q]}\n" for q in subset), encoding="utf-8")
        # The model's own structure (no guard), answers cached so a rerun is free.
        llm = dict(topics=str(llm_topics), rewrite="llm", rewrite_guard="off", model=args.model,
                   model_dtype=args.model_dtype, install_model=True,
                   model_cache=str(runs / "demo.model-cache.sqlite"))
        if args.llm_leaves == "hybrid" or args.llm_add_dense or args.llm_add_hybrid:
            ensure_dense_index(data / "corpus.jsonl", Path(args.dense_index))
            llm.update(dense_index=args.dense_index, leaf_retriever="bm25")  # lexical leaves, dense pool
        if args.llm_leaves == "hybrid":
            llm.update(leaf_retriever="hybrid", negated_leaf_retriever="bm25")
        # NL -> LLM rewrite (query line + natural-language predicates) -> logical search.
        plan["llm+logical"] = dict(llm, run_tag="llm-logical")
        # ... then the top hits reranked by OrLog with the same model as oracle (P(True), shared prefix).
        plan["llm+logical+orlog"] = dict(llm, rerank="orlog", oracle="llm", rerank_depth=args.llm_depth,
                                         rerank_add_dense=args.llm_add_dense, rerank_add_hybrid=args.llm_add_hybrid,
                                         run_tag="llm-logical-orlog")
    paths = {}
    searchers: dict = {}  # one searcher per set of indexes (one JVM index reader) serves every run
    for name, options in plan.items():
        paths[name] = runs / f"demo.{name}.txt"
        # Progress bars for the model runs (minutes on a CPU); the lexical runs take a second.
        config = SearchConfig(output=str(paths[name]), index=args.index, hits=1000, quiet=not name.startswith("llm"),
                              **options)
        key = (config.dense_index, config.leaf_retriever, config.negated_leaf_retriever)
        searcher = searchers[key] = searchers.get(key) or build_searcher(config)
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
        # The LLM runs hold only the subset: they are scored in their own table below.
        full = {k: v for k, v in paths.items() if not k.startswith("llm")}
        rows = evaluate_runs(data / "qrels.txt", full, args.measures, groups)
        if field:
            rows = [r for r in rows if r.group != "all"]
        tables.append(format_table(rows, field or "all"))
    if subset:
        # Every run on the LLM subset, side by side (the LLM runs hold only these topics).
        rows = evaluate_runs(data / "qrels.txt", paths, args.measures, dict.fromkeys(subset, "llm-subset"))
        tables.append(f"LLM rows: {len(subset)} topics ({args.llm_topics_per_template} per template: "
                      f"{', '.join(subset)}), model {args.model}, {args.llm_leaves} leaves, OrLog depth "
                      f"{args.llm_depth} + dense {args.llm_add_dense} + hybrid {args.llm_add_hybrid}\n\n"
                      + format_table([r for r in rows if r.group == "llm-subset"], "subset"))
    report = "\n\n".join(tables)
    (runs / "demo.eval.md").write_text(report + "\n", encoding="utf-8")
    print(report)
    print(f"\n[demo] runs in {runs}/, table in {runs / 'demo.eval.md'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

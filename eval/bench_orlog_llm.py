"""OrLog with a language-model oracle on the demo: effectiveness (seed 000 Table 1 shape, with the Boolean peer),
tokens (Table 2 shape) and oracle throughput (shared prefix vs full prompts).

Pipeline per topic: the natural question -> ``--rewrite llm`` (one model call: logical query + natural-language
predicates) -> ITLR logical search -> top ``--depth`` reranked by

* OrLog(LLM): P(True) per (document, predicate) from one forward pass, ProbLog posterior, fused with the
  base score (``--fusion``: posterior weight; 1.0 = posterior only);
* LLM-as-reasoner: the model reads the document and the user's question and answers True/False;
* logic-augmented LLM: the same plus the decomposition (atoms and logical form).

Reference rows on the same topics: BM25 on the question (what a user types), the Boolean peer (a strict Lucene
BooleanQuery of the gold logical query) and ITLR on the gold logical query.  Everything uses the same model.
Throughput is measured cold (no answer cache) on the topics with the most predicates, shared prefix vs full
prompts, with peak RSS.

    python eval/bench_orlog_llm.py [--topics-per-template 1] [--depth 20] [--model embedded] [--dtype auto]
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from _common import qrels_subset  # noqa: E402


def main(argv=None) -> int:
    from logical_pyserini.models import DTYPES

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="embedded")
    ap.add_argument("--dtype", default="bfloat16", choices=DTYPES)
    ap.add_argument("--index", default=str(ROOT / "indexes" / "demo"))
    ap.add_argument("--dense-index", default=None, help="Faiss index of the demo corpus: the LLM rewrite is "
                    "searched with hybrid positive leaves and BM25 negated leaves (--leaf-retriever hybrid "
                    "--negated-leaf-retriever bm25) and an 'ITLR hybrid (gold logic)' row is added; OrLog reranks "
                    "that run")
    ap.add_argument("--add-dense", type=int, default=0, metavar="K", help="OrLog also judges the top K documents "
                    "of a dense search of the natural question that are not in its top --depth (--rerank-add-dense; "
                    "Faiss index --pool-index, built if missing)")
    ap.add_argument("--add-hybrid", type=int, default=0, metavar="K",
                    help="OrLog also judges the top K hits of the LLM rewrite searched with hybrid positive leaves "
                    "and BM25 negated leaves that are not in its top --depth (--rerank-add-hybrid; Faiss index "
                    "--pool-index, built if missing); the lexical run stays the base ranking")
    ap.add_argument("--pool-index", default=str(ROOT / "indexes" / "demo-dense"))
    ap.add_argument("--topics-per-template", type=int, default=1)
    ap.add_argument("--skip-per-template", type=int, default=0, help="start after this many topics of each "
                    "template (held-out slices: --skip-per-template 2 leaves out the 20 topics read so far)")
    ap.add_argument("--depth", default="20,30", help="rerank depth(s), comma-separated: one OrLog row each "
                    "(the reasoners and the throughput run use the first)")
    ap.add_argument("--fusion", type=float, default=None, help="posterior weight (default: the reranker's)")
    ap.add_argument("--reasoner-topics", type=int, default=None, help="topics for the two generating baselines "
                    "(default: all)")
    ap.add_argument("--no-reasoners", action="store_true", help="skip the generating baselines")
    ap.add_argument("--throughput-topics", type=int, default=2, help="0 skips the throughput rows")
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--cache", default=str(ROOT / "runs" / "demo.model-cache.sqlite"))
    ap.add_argument("--runs", type=Path, default=None, help="keep the run files here (default: a temp folder)")
    ap.add_argument("--output", type=Path, default=ROOT / "eval" / "results" / "orlog_llm.md")
    args = ap.parse_args(argv)
    depths = [int(d) for d in str(args.depth).split(",")]

    from logical_pyserini._topics import read_topics
    from logical_pyserini.data import DEMO_DIR
    from logical_pyserini.demo import ensure_dense_index, ensure_index, llm_subset
    from logical_pyserini.eval import evaluate_runs, format_sign_tests, format_table, sign_tests
    from logical_pyserini.models import ModelCache, TransformersModel, get_model
    from logical_pyserini.query import parse_query
    from logical_pyserini.rerank import (DEFAULT_FUSION, LLMOracle, LLMReasoner, OrLogQuery, OrLogReranker,
                                         pool_hits, searcher_doc_text_fn)
    from logical_pyserini.rewrite import LLMRewriter
    from logical_pyserini.search import LogicalLuceneSearcher, open_run_writer

    data = Path(DEMO_DIR)
    ensure_index(data / "corpus.jsonl", Path(args.index))
    qids = llm_subset(data, args.topics_per_template, args.skip_per_template)

    natural, logical = read_topics(data / "topics.natural.tsv"), read_topics(data / "topics.logical.tsv")
    t0 = time.perf_counter()
    lm = get_model(args.model, cache=args.cache, threads=args.threads, dtype=args.dtype)
    load_s = time.perf_counter() - t0
    rewriter = LLMRewriter(lm)
    searcher = LogicalLuceneSearcher(args.index)
    doc_text = searcher_doc_text_fn(searcher)
    # The first stage of the LLM rows: lexical ITLR, or hybrid leaves when a Faiss index is given
    # (paraphrases such as "the second city of Portugal" for "Porto" are out of the lexical top k).
    first = searcher
    if args.dense_index:
        from logical_pyserini.search import LogicalHybridSearcher

        first = LogicalHybridSearcher(args.index, args.dense_index, leaf_retriever="hybrid", negated_retriever="bm25")

    pool = None
    if args.add_dense or args.add_hybrid:
        from logical_pyserini.search import LogicalHybridSearcher

        ensure_dense_index(data / "corpus.jsonl", Path(args.pool_index))
        pool = LogicalHybridSearcher(args.index, args.pool_index, leaf_retriever="bm25")

    runs: dict[str, dict[str, list]] = {"bm25 (question)": {}, "Boolean peer (gold logic)": {},
                                        "ITLR (gold logic)": {}, "ITLR on the LLM rewrite (base)": {}}
    if first is not searcher:
        runs["ITLR hybrid (gold logic)"] = {}
    queries, trees, parse_s = {}, {}, 0.0
    for q in qids:
        start = time.perf_counter()
        rw = rewriter.rewrite(natural[q])
        parse_s += time.perf_counter() - start
        queries[q] = OrLogQuery.coerce(rw.decomposition) if rw.decomposition else OrLogQuery.from_tree(rw.tree, natural[q])
        trees[q] = rw.tree
        gold = parse_query(logical[q])
        runs["bm25 (question)"][q] = searcher.plain_search(natural[q], k=100)
        runs["Boolean peer (gold logic)"][q] = searcher.boolean_search(gold, k=100)
        runs["ITLR (gold logic)"][q] = searcher.search(gold, k=100)
        runs["ITLR on the LLM rewrite (base)"][q] = first.search(rw.tree, k=100)
        if first is not searcher:
            runs["ITLR hybrid (gold logic)"][q] = first.search(gold, k=100)
        print(f"[bench] {q}: {natural[q]!r} -> {rw.tree}", file=sys.stderr)
    base = runs["ITLR on the LLM rewrite (base)"]

    def candidates(q: str, depth: int) -> tuple[list, int | None]:
        """The base run, plus (--add-dense) the dense top K of the question and (--add-hybrid) the hybrid top K of
        the rewrite that it did not rank in the top depth."""
        if pool is None:
            return base[q], None
        extra = pool.dense_candidates(natural[q], args.add_dense) if args.add_dense else []
        extra += pool.hybrid_candidates(trees[q], args.add_hybrid) if args.add_hybrid else []
        return pool_hits(base[q], extra, depth)

    costs = {}
    fusion = DEFAULT_FUSION if args.fusion is None else args.fusion
    orlog_names = []
    for depth in depths:
        reranker = OrLogReranker(LLMOracle(lm), depth, fusion=fusion)
        name = (f"+ OrLog(LLM), depth {depth}" + (f" + dense {args.add_dense}" if args.add_dense else "")
                + (f" + hybrid {args.add_hybrid}" if args.add_hybrid else ""))
        orlog_names.append(name)
        runs[name] = {}
        for q in qids:
            hits, pooled_depth = candidates(q, depth)
            runs[name][q] = reranker.rerank(queries[q], hits, doc_text, depth=pooled_depth)[0]
        s = reranker.summary()
        costs[name] = (f"{s['tokens_per_pair']:.2f}", f"{int(s['pairs'])} ({int(s['cache_hits'])} cached)",
                       f"{s['oracle_seconds']:.1f}")
    if not args.no_reasoners:
        sub = qids[: args.reasoner_topics or len(qids)]
        for logic in (False, True):
            reasoner = LLMReasoner(lm, depths[0], logic=logic, max_new_tokens=4, batch_size=1, fusion=fusion)
            name = f"+ {'logic-augmented LLM' if logic else 'LLM-as-reasoner'}, depth {depths[0]}"
            runs[name] = {q: reasoner.rerank(queries[q], base[q], doc_text)[0] for q in sub}
            s = reasoner.summary()
            costs[name] = (f"{s['tokens_per_pair']:.2f}", f"{int(s['pairs'])} ({int(s['cache_hits'])} cached)",
                           f"{s['oracle_seconds']:.1f}")

    # Runs to TREC files; qrels restricted to the topics a run holds (a missing topic would count as 0).
    folder = args.runs or Path(tempfile.mkdtemp(prefix="orlog_llm."))
    folder.mkdir(parents=True, exist_ok=True)
    qrels = folder / "qrels.subset.txt"
    qrels_subset(data / "qrels.txt", qids, qrels)
    paths = {}
    for i, (name, run) in enumerate(runs.items()):
        paths[name] = folder / f"run{i}.txt"
        with open_run_writer(str(paths[name]), "trec", 100, "bench") as writer:
            for q, hits in run.items():
                writer.write(q, hits)
    complete = {k: v for k, v in paths.items() if len(runs[k]) == len(qids)}
    table = format_table(evaluate_runs(qrels, complete, "seed000"))
    per_topic = {(r.run, r.group): r.values["nDCG@10"]
                 for r in evaluate_runs(qrels, complete, "nDCG@10", {q: q for q in qids}) if r.group != "all"}
    topic_runs = ["Boolean peer (gold logic)", "ITLR on the LLM rewrite (base)", *orlog_names]
    topic_table = ["| topic | " + " | ".join(topic_runs) + " |", "|---|" + "---:|" * len(topic_runs),
                   *(f"| {q} | " + " | ".join(f"{per_topic[(n, q)]:.3f}" for n in topic_runs) + " |" for q in qids)]
    orlog_name = orlog_names[-1]
    tests = format_sign_tests(sign_tests(qrels, {orlog_name: paths[orlog_name],
                                                 **{k: v for k, v in complete.items() if k != orlog_name}},
                                         "P@1 nDCG@10", baseline=orlog_name))

    # Throughput, cold: no answer cache; shared prefix vs full prompts on the same pairs.
    by_atoms = sorted(qids, key=lambda q: -len(queries[q].atoms))[: args.throughput_topics]
    cold = {}
    for shared in (True, False) if by_atoms else ():
        m = TransformersModel(model=lm.model, tokenizer=lm.tokenizer, model_id=lm.id, batch_size=16,
                              shared_prefix=shared, cache=ModelCache(enabled=False))
        oracle = LLMOracle(m)
        rr = OrLogReranker(oracle, depths[0], oracle_batch=64)
        start = time.perf_counter()
        for q in by_atoms:
            rr.rerank(queries[q], base[q], doc_text)
        seconds = time.perf_counter() - start
        cold[shared] = (oracle.usage["pairs"], seconds, oracle.usage["prompt_tokens"], oracle.usage["computed_tokens"])
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    lines = [
        "# OrLog with the language-model oracle (demo)", "",
        f"Command: `python eval/bench_orlog_llm.py {' '.join(argv if argv is not None else sys.argv[1:])}`  ",
        f"Date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC; machine: {platform.machine()}, "
        f"{os.cpu_count()} CPUs (load average at the end {os.getloadavg()[0]:.1f}); model `{lm.id}` on "
        f"{lm.device} ({load_s:.1f}s to load); LLM rewrite of {len(qids)} questions {parse_s:.1f}s.  ",
        f"Topics: {len(qids)} ({args.topics_per_template} per template after the first {args.skip_per_template}: "
        f"{', '.join(qids)}); OrLog depth "
        f"{', '.join(map(str, depths))}, fusion {fusion} (posterior weight).", "",
        table, "",
        "| reranker | tokens/pair | pairs | model seconds |", "|---|---|---|---|",
        *[f"| {name} | {t} | {p} | {sec} |" for name, (t, p, sec) in costs.items()], "",
        "Tokens per pair follow seed 000 (Table 2): OrLog = one scored position per predicate plus the one-off "
        "parse tokens of the LLM rewrite spread over the candidates; the reasoners = generated tokens (+ parse "
        "tokens for the logic-augmented one).", "",
        "nDCG@10 per topic:", "", *topic_table, "",
        f"Paired two-tailed sign tests, {orlog_name} against each run (wins/losses are the other run's):", "",
        tests, "",
    ]
    if cold:  # --throughput-topics 0: no section (eval/bench_oracle_throughput.py measures it on any device)
        lines += [f"## Oracle throughput (cold, no answer cache; topics {', '.join(by_atoms)})", "",
                  "| prompts | pairs | seconds | pairs/s | prompt tokens | tokens run | saved |",
                  "|---|---|---|---|---|---|---|"]
    for shared in cold:
        pairs, seconds, prompt, computed = cold[shared]
        lines.append(f"| {'shared head + document prefix (KV reuse)' if shared else 'full prompts'} | {pairs} | "
                     f"{seconds:.1f} | {pairs / seconds:.2f} | {prompt} | {computed} | "
                     f"{1 - computed / max(prompt, 1):.0%} |")
    lines += ["", f"Peak RSS of the process: {rss:.0f} MiB."]
    text = "\n".join(lines) + "\n"
    from logical_pyserini._io import atomic_write_text

    atomic_write_text(args.output, text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Held-out check of the demo's LLM pipeline: demo datasets of other seeds, the unchanged `make demo` pipeline.

    python eval/bench_demo_heldout.py [--seeds 29,31,37] [--topics-per-template 4] [--work runs/heldout]

The demo's defaults (OrLog depth, hybrid candidates) were chosen on the bundled demo's qrels.  For each seed,
``scripts/make_demo_data.py --seed S`` writes a new demo dataset (new documents, noise and topics of the same ten
templates) and ``python -m logical_pyserini.demo --data ...`` runs on it unchanged: BM25, the Boolean peer, ITLR,
rules + ITLR, and the LLM rows (NL -> ``--rewrite llm`` -> ITLR -> OrLog(LLM)) on the first N topics of each
template.  Then the same LLM search at depth 20 and 30 without the hybrid candidates (every pair from the demo's
model cache), and the ceiling of a perfect reranker of each candidate set.  Writes ``demo_heldout.md``: a summary
over the seeds, then per seed every run, sign tests against the demo's OrLog run, and nDCG@10 per template.
Everything is cached under ``--work``: a second run only re-scores.
"""

from __future__ import annotations

import math
import sys
import time
from collections import defaultdict
from pathlib import Path

from _common import ROOT, base_parser, command, header, log, qrels_subset, write_lines

ORLOG = "+ OrLog(LLM), demo default"  # the demo's own LLM row: depth and hybrid candidates as in `make demo`


def _dataset(seed: int, work: Path) -> Path:
    """The demo dataset of ``seed`` (generated once by scripts/make_demo_data.py)."""
    out = work / f"seed{seed}"
    if not (out / "corpus.jsonl").is_file():
        sys.path.insert(0, str(ROOT / "scripts"))
        import make_demo_data

        make_demo_data.generate(out, seed=seed)
    return out


def _ceiling(run: dict[str, list[str]], relevant: dict[str, set[str]], k: int = 10) -> float:
    """Mean nDCG@k of a perfect reranker of each query's candidates (binary relevance)."""
    total = 0.0
    for qid, pool in run.items():
        found = min(len(relevant[qid] & set(pool)), k)
        ideal = min(len(relevant[qid]), k)
        total += sum(1 / math.log2(i + 2) for i in range(found)) / sum(1 / math.log2(i + 2) for i in range(ideal))
    return total / len(run)


def _ranked(path: Path) -> dict[str, list[str]]:
    rows = defaultdict(list)
    for line in path.read_text(encoding="utf-8").splitlines():
        qid, _, doc, rank, *_ = line.split()
        rows[qid].append((int(rank), doc))
    return {q: [d for _, d in sorted(v)] for q, v in rows.items()}


def _seed(seed: int, args, work: Path) -> dict:
    """Run the demo and the ablations on one seed; return its runs, tables and ceilings."""
    from logical_pyserini.demo import DEMO_ADD_HYBRID, main as demo_main
    from logical_pyserini.query import parse_query
    from logical_pyserini.search import LogicalHybridSearcher, SearchConfig, run_topics

    data = _dataset(seed, work)
    runs_dir, index, dense = work / f"r{seed}", work / f"index{seed}", work / f"dense{seed}"
    start = time.perf_counter()
    if demo_main(["--data", str(data), "--index", str(index), "--dense-index", str(dense), "--runs", str(runs_dir),
                  "--llm-topics-per-template", str(args.topics_per_template), "--model", args.model]) != 0:
        raise SystemExit(f"the demo failed on seed {seed}")
    topics = runs_dir / "demo.llm-topics.tsv"
    cache = runs_dir / "demo.model-cache.sqlite"
    for depth in (20, 30):  # the LLM row without the hybrid candidates: every pair is in the demo's cache
        config = SearchConfig(output=str(runs_dir / f"orlog{depth}.txt"), index=str(index), topics=str(topics),
                              hits=1000, rewrite="llm", rewrite_guard="off", model=args.model, model_cache=str(cache),
                              dense_index=str(dense), leaf_retriever="bm25", rerank="orlog", oracle="llm",
                              rerank_depth=depth, quiet=True)
        run_topics(config)
    seconds = time.perf_counter() - start

    subset = [line.split("\t")[0] for line in topics.read_text(encoding="utf-8").splitlines() if line.strip()]
    qrels = runs_dir / "qrels.subset.txt"
    lines = qrels_subset(data / "qrels.txt", subset, qrels)
    relevant = defaultdict(set)
    for l in lines:
        q, _, doc, grade = l.split()
        if int(grade) > 0:
            relevant[q].add(doc)

    base = _ranked(runs_dir / "demo.llm+logical.txt")
    pool = LogicalHybridSearcher(str(index), str(dense), leaf_retriever="bm25")
    trees = {l.split("\t")[0]: parse_query(l.split("\t")[1]) for l in
             (runs_dir / "demo.llm+logical.txt.rewrites.tsv").read_text(encoding="utf-8").splitlines() if l.strip()}
    union = {q: base[q][:30] + [h.docid for h in pool.hybrid_candidates(trees[q], DEMO_ADD_HYBRID)] for q in base}
    ceilings = {f"top {d}": _ceiling({q: v[:d] for q, v in base.items()}, relevant) for d in (20, 30, 50)}
    ceilings[f"top 30 ∪ hybrid top {DEMO_ADD_HYBRID}"] = _ceiling(union, relevant)
    ceilings["documents per topic"] = sum(len(set(v)) for v in union.values()) / len(union)

    names = {"BM25 (question)": "bm25", "Boolean peer (gold logic)": "boolean", "ITLR (gold logic)": "logical",
             "rules rewrite + ITLR": "rules+logical", "LLM rewrite + ITLR (base)": "llm+logical"}
    files = {name: runs_dir / f"demo.{f}.txt" for name, f in names.items()}
    files["+ OrLog(LLM), depth 20"] = runs_dir / "orlog20.txt"
    files["+ OrLog(LLM), depth 30"] = runs_dir / "orlog30.txt"
    files[ORLOG] = runs_dir / "demo.llm+logical+orlog.txt"
    return {"seed": seed, "qrels": qrels, "files": files, "ceilings": ceilings, "seconds": seconds,
            "metadata": data / "metadata.jsonl", "topics": len(subset)}


def main(argv=None) -> int:
    p = base_parser(__doc__, data=False)
    p.add_argument("--seeds", default="29,31,37", help="Seeds of the held-out demo datasets (the bundled is 13).")
    p.add_argument("--topics-per-template", type=int, default=4, help="LLM topics per template and seed.")
    p.add_argument("--work", default=str(ROOT / "runs" / "heldout"), help="Datasets, indexes, runs, model caches.")
    p.add_argument("--model", default="embedded", help="Language model of the LLM rows.")
    args = p.parse_args(argv)
    seeds = [int(s) for s in args.seeds.split(",")]
    if 13 in seeds:
        p.error("seed 13 is the bundled demo: not held out")

    from logical_pyserini.eval import evaluate_runs, format_sign_tests, format_table, read_groups, sign_tests

    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    results = []
    for seed in seeds:
        log(f"[heldout] seed {seed}")
        results.append(_seed(seed, args, work))

    # Summary: nDCG@10 per seed and the mean over seeds (every seed has the same number of topics).
    ndcg, better = {}, {}
    for r in results:
        for row in evaluate_runs(r["qrels"], r["files"], "nDCG@10"):
            ndcg[(row.run, r["seed"])] = row.values["nDCG@10"]
        tests = sign_tests(r["qrels"], r["files"], "nDCG@10", baseline=ORLOG)
        better[r["seed"]] = next((t.losses, t.wins) for t in tests if t.run == "Boolean peer (gold logic)")
    cols = [f"seed {r['seed']}" for r in results]
    out = header("Held-out check of the demo's LLM pipeline: demo datasets the defaults were never chosen on",
                 command(__file__, argv),
                 f"Seeds {', '.join(map(str, seeds))}: {args.topics_per_template} topics per template each "
                 f"(the first ones), model {args.model}. The demo's defaults (OrLog depth, hybrid candidates) were "
                 "chosen on the bundled demo (seed 13); these datasets have new documents and topics.")
    out += ["## Summary (nDCG@10)", "", "| run | " + " | ".join(cols) + " | mean |", "|---|" + "---:|" * (len(cols) + 1)]
    for name in results[0]["files"]:
        vals = [ndcg[(name, r["seed"])] for r in results]
        out.append(f"| {name} | " + " | ".join(f"{v:.3f}" for v in vals) + f" | **{sum(vals) / len(vals):.3f}** |")
    out.append("| OrLog vs Boolean peer, topics better / worse | "
               + " | ".join(f"{better[r['seed']][0]} / {better[r['seed']][1]}" for r in results)
               + f" | {sum(b[0] for b in better.values())} / {sum(b[1] for b in better.values())} |")
    for key in results[0]["ceilings"]:
        vals = [r["ceilings"][key] for r in results]
        label = "candidates: documents per topic" if key == "documents per topic" else f"ceiling: {key}"
        out.append(f"| {label} | " + " | ".join(f"{v:.3f}" for v in vals) + f" | {sum(vals) / len(vals):.3f} |")
    out.append("")
    for r in results:
        _, groups = read_groups(f"{r['metadata']}:template")
        out += [f"## Seed {r['seed']}", "", f"{r['topics']} topics; {r['seconds']:.0f} s for the demo and the two "
                "ablation rows (most of it the OrLog judgements on a first run).", "",
                format_table(evaluate_runs(r["qrels"], r["files"], "nDCG@10 P@1 RR R@100")), "",
                "Paired two-tailed sign tests against the demo's OrLog run:", "",
                format_sign_tests(sign_tests(r["qrels"], r["files"], "nDCG@10 P@1", baseline=ORLOG)), "",
                "nDCG@10 per template:", "",
                format_table([row for row in evaluate_runs(
                    r["qrels"], {k: r["files"][k] for k in ("Boolean peer (gold logic)", "LLM rewrite + ITLR (base)",
                                                            "+ OrLog(LLM), depth 30", ORLOG)},
                    "nDCG@10", groups) if row.group != "all"], "template"), ""]
    path = Path(args.results) / "demo_heldout.md"
    write_lines(path, out)
    log(f"[heldout] written {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The model-free default OrLog oracle: leaf-score plausibilities vs the dense MiniLM oracle, on the demo.

    python eval/bench_leaf_oracle.py [--quick] [--depth 20]

Base runs: plain BM25 on the English questions and ITLR on the logical topics
(the demo's runs), each reranked (top ``--depth``) by OrLog with the formula of
the logical topic and (a) the leaf-score oracle (``--oracle leaf``: the exact
normalised leaf score of each atom's leaf, the default without an LLM) and (b)
the dense MiniLM oracle (``--oracle dense``, the previous default).  Reports
P@1 / nDCG@10 / RR, paired sign tests against each base run, and the Boolean
peer for reference.  The synthetic-benchmark counterpart is the
"ITLR + OrLog (leaf oracle)" row of ``eval/results/itlr_table1.md``.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from _common import base_parser, command, header, log, write_lines


def main(argv: list[str] | None = None) -> int:
    p = base_parser(__doc__, data=False)
    p.add_argument("--depth", type=int, default=20, help="Hits reranked per topic.")
    p.add_argument("--oracles", default="leaf,dense", help="Oracles to compare (dense is slow on 2 cores).")
    args = p.parse_args(argv)

    from logical_pyserini.data import DEMO_DIR
    from logical_pyserini.demo import ensure_index
    from logical_pyserini.eval import evaluate_runs, format_sign_tests, format_table, read_groups, sign_tests
    from logical_pyserini.search import SearchConfig, run_topics

    topics = {"natural": DEMO_DIR / "topics.natural.tsv", "logical": DEMO_DIR / "topics.logical.tsv"}
    qrels = DEMO_DIR / "qrels.txt"
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        if args.quick:  # every 8th topic
            for name, path in list(topics.items()):
                lines = path.read_text(encoding="utf-8").splitlines()[::8]
                topics[name] = tmp / path.name
                topics[name].write_text("\n".join(lines) + "\n", encoding="utf-8")
            keep = {line.split("\t")[0] for line in topics["logical"].read_text().splitlines()}
            qrels = tmp / "qrels.txt"
            qrels.write_text("".join(line for line in (DEMO_DIR / "qrels.txt").open() if line.split()[0] in keep))
        index = tmp / "index"
        ensure_index(DEMO_DIR / "corpus.jsonl", index)
        runs: dict[str, Path] = {}

        def run(name: str, topic_file: Path, **options) -> None:
            runs[name] = tmp / f"run{len(runs)}.txt"
            log(f"[leaf-oracle] {name}")
            report = run_topics(SearchConfig(topics=str(topic_file), output=str(runs[name]), index=str(index),
                                             hits=1000, quiet=True, **options))
            if report.failures:
                raise SystemExit(f"{name}: {len(report.failures)} topics failed: {report.failures}")

        run("BM25", topics["natural"], plain="text")
        run("Boolean peer", topics["logical"], plain="boolean")
        run("ITLR", topics["logical"])
        oracles = args.oracles.split(",")
        for oracle in oracles:
            run(f"ITLR + OrLog({oracle})", topics["logical"], rerank="orlog", oracle=oracle, rerank_depth=args.depth)
        # OrLog on the BM25 run: the formula comes from the logical topic of the same qid.
        from logical_pyserini._topics import read_topics
        from logical_pyserini.query import parse_query
        from logical_pyserini.rerank import OrLogReranker, get_oracle, searcher_doc_text_fn
        from logical_pyserini.search import LogicalLuceneSearcher
        from logical_pyserini.search._output import open_run_writer

        searcher = LogicalLuceneSearcher(str(index))
        natural, logical = read_topics(topics["natural"]), read_topics(topics["logical"])
        base = {q: searcher.plain_search(natural[q], 1000) for q in natural}
        for oracle in oracles:
            o = get_oracle(oracle)
            if oracle == "leaf":
                o.bind(searcher.leaf_scores, "leaf:max")
            reranker = OrLogReranker(o, args.depth)
            name = f"BM25 + OrLog({oracle})"
            runs[name] = tmp / f"run{len(runs)}.txt"
            log(f"[leaf-oracle] {name}")
            with open_run_writer(str(runs[name]), "trec", 1000, "x") as writer:
                for q, hits in base.items():
                    writer.write(q, reranker.rerank(parse_query(logical[q]), hits, searcher_doc_text_fn(searcher))[0])
        searcher.close()

        groups = read_groups(f"{DEMO_DIR / 'metadata.jsonl'}:template")[1]
        rows = [r for r in evaluate_runs(qrels, runs, "P@1 nDCG@10 RR") if r.group == "all"]
        tests = []
        for base_name in ("ITLR", "BM25"):
            pair = {base_name: runs[base_name], **{n: p for n, p in runs.items() if n.startswith(f"{base_name} + ")}}
            tests += [t for t in sign_tests(qrels, pair, "P@1 nDCG@10", base_name, groups)
                      if t.group == "all" or t.losses]
    lines = header("The default OrLog oracle without an LLM: leaf scores vs dense MiniLM (demo)",
                   command(__file__, argv),
                   f"{len(natural)} demo topics; OrLog reranks the top {args.depth} of the base run with the logical "
                   "topic's formula; leaf = the exact normalised (max) leaf score of each atom; dense = calibrated "
                   "MiniLM cosine between statement and entity text (parametric+).")
    lines += ["| run | queries | P@1 | nDCG@10 | RR |", "|---|---:|---:|---:|---:|"]
    lines += [f"| {r.run} | {r.n_queries} | {r.values['P@1']:.4f} | {r.values['nDCG@10']:.4f} | {r.values['RR']:.4f} |"
              for r in rows]
    lines += ["", "Paired two-tailed sign tests against the base run (overall, and every template where the "
              "reranked run loses a query):", "", format_sign_tests(tests, "template"), ""]
    path = write_lines(Path(args.results) / "leaf_oracle.md", lines)
    print("\n".join(lines))
    log(f"[leaf-oracle] written {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

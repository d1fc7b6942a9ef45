"""Operator and normalisation choices on the demo data (BM25 leaves): how the defaults were chosen.

    python eval/bench_choices.py [--quick] [--output eval/results/demo_choices.md]

Runs the bundled logical topics once per (normalisation, AND, OR, NOT) choice
and reports nDCG@10, P@1 and R@100 overall and by number of negations.
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
import tempfile
from itertools import product
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--index", default=str(ROOT / "indexes" / "demo"), help="Demo Lucene index (built if missing).")
    p.add_argument("--output", default=None, help="Default eval/results/demo_choices.md (eval/results-quick/ with --quick).")
    p.add_argument("--quick", action="store_true", help="Only the normalisations with default operators.")
    args = p.parse_args(argv)
    if args.output is None:  # --quick never overwrites the committed full results
        args.output = str(ROOT / "eval" / ("results-quick" if args.quick else "results") / "demo_choices.md")

    from logical_pyserini._topics import read_topics
    from logical_pyserini.compose import Operators
    from logical_pyserini.data import DEMO_DIR
    from logical_pyserini.demo import ensure_index
    from logical_pyserini.eval import evaluate_runs, read_groups
    from logical_pyserini.search import LogicalLuceneSearcher
    from logical_pyserini.search import open_run_writer

    ensure_index(DEMO_DIR / "corpus.jsonl", Path(args.index))
    topics = read_topics(DEMO_DIR / "topics.logical.tsv")
    groups = read_groups(f"{DEMO_DIR / 'metadata.jsonl'}:negations")[1]
    norms = ("max", "minmax", "none")
    ops = [("product", "sum", "complement")] if args.quick else list(
        product(("product", "sum", "min"), ("sum", "max", "noisy-or"), ("complement", "inverse")))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for norm, (and_, or_, not_) in product(norms, ops):
            searcher = LogicalLuceneSearcher(args.index, Operators(and_, or_, not_), norm)
            run = Path(tmp) / "run.txt"
            results = searcher.batch_search(list(topics.values()), list(topics), k=1000)
            with open_run_writer(str(run), "trec", 1000, "x") as writer:
                for qid, hits in results.items():
                    writer.write(qid, hits)
            evals = {r.group: r.values for r in evaluate_runs(DEMO_DIR / "qrels.txt", {"x": run},
                                                              "nDCG@10 P@1 R@100", groups)}
            rows.append((norm, and_, or_, not_, evals))
            searcher.close()
        # The Boolean peer: the strict Lucene BooleanQuery of the same trees (no operators, no normalisation).
        searcher = LogicalLuceneSearcher(args.index)
        run = Path(tmp) / "boolean.txt"
        with open_run_writer(str(run), "trec", 1000, "boolean") as writer:
            for qid, text in topics.items():
                writer.write(qid, searcher.boolean_search(text, 1000))
        boolean = {r.group: r.values for r in evaluate_runs(DEMO_DIR / "qrels.txt", {"x": run},
                                                            "nDCG@10 P@1 R@100", groups)}
        searcher.close()

    header = ["normalise", "AND", "OR", "NOT", "nDCG@10", "P@1", "R@100", "nDCG@10 0 NOT", "1 NOT", "2 NOT"]
    lines = [
        "# Operator and normalisation choices on the demo data (BM25 leaves)",
        "",
        f"Command: `python eval/bench_choices.py {' '.join(argv if argv is not None else sys.argv[1:])}`  ",
        f"Date: {dt.date.today().isoformat()}; 160 logical demo topics, leaf depth 1000, run depth 1000.",
        "",
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
    ]
    for norm, and_, or_, not_, e in [("Boolean peer (strict BooleanQuery)", "MUST", "SHOULD~1", "MUST_NOT", boolean),
                                     *sorted(rows, key=lambda r: -r[4]["all"]["nDCG@10"])]:
        lines.append(f"| {norm} | {and_} | {or_} | {not_} | {e['all']['nDCG@10']:.4f} | {e['all']['P@1']:.4f} | "
                     f"{e['all']['R@100']:.4f} | {e['0']['nDCG@10']:.4f} | {e['1']['nDCG@10']:.4f} | "
                     f"{e['2']['nDCG@10']:.4f} |")
    out = Path(args.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())

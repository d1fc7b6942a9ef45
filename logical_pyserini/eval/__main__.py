"""Evaluate TREC runs with ir_measures.

    python -m logical_pyserini.eval --qrels qrels.txt --run bm25=runs/a.txt logical=runs/b.txt \\
        --measures "nDCG@10 P@1 RR R@100" --group-by metadata.jsonl:negations
    python -m logical_pyserini.eval --qrels qrels.txt --run bm25=a.txt boolean=b.txt logical=c.txt \
        --measures seed000 --sign-test "nDCG@10 P@1" --baseline boolean --group-by metadata.jsonl:template
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .._cli import HelpFormatter
from ._evaluate import (
    DEFAULT_MEASURES,
    MEASURE_PRESETS,
    evaluate_runs,
    format_sign_tests,
    format_table,
    read_groups,
    sign_tests,
)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m logical_pyserini.eval",
        description="Score TREC runs with ir_measures; judged queries missing from a run count as 0.",
        formatter_class=HelpFormatter,
    )
    p.add_argument("--qrels", required=True, metavar="FILE|NAME",
                   help="TREC qrels file, or a Pyserini qrels name (dl19-passage, beir-v1.0.0-scifact-test, ...).")
    p.add_argument("--run", required=True, nargs="+", metavar="[NAME=]FILE",
                   help="One or more runs; NAME defaults to the file name.")
    p.add_argument("--measures", default=DEFAULT_MEASURES,
                   help="ir_measures measure names, space separated; F1@k (from P@k and R@k per query); presets: "
                   + ", ".join(f"{k} = {v}" for k, v in MEASURE_PRESETS.items()) + ".")
    p.add_argument("--sign-test", default=None, metavar="MEASURES",
                   help="Also run paired two-tailed sign tests of every run against --baseline on these measures "
                   "(per group with --group-by); ties are dropped, p is exact.")
    p.add_argument("--baseline", default=None, metavar="NAME", help="Baseline run of --sign-test (default: the first).")
    p.add_argument("--group-by", metavar="META.jsonl:FIELD", help="Also report per value of FIELD (per qid).")
    p.add_argument("--output", metavar="FILE", help="Also write the Markdown table to FILE.")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    runs = {}
    for spec in args.run:
        name, sep, path = spec.partition("=")
        if not sep:
            name, path = Path(spec).name, spec
        runs[name] = path
    try:
        group_name, groups = read_groups(args.group_by) if args.group_by else (None, None)
        from .._resources import resolve_qrels

        qrels = resolve_qrels(args.qrels)
        rows = evaluate_runs(qrels, runs, args.measures, groups)
        tests = sign_tests(qrels, runs, args.sign_test, args.baseline, groups) if args.sign_test else None
    except (FileNotFoundError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    table = format_table(rows, group_name)
    if tests is not None:
        table += "\n\nPaired two-tailed sign tests (wins / losses = queries where the run beats / trails the " \
                 "baseline; ties dropped):\n\n" + format_sign_tests(tests, group_name)
    print(table)
    if args.output:
        from .._io import OutputError, atomic_write_text

        try:
            atomic_write_text(args.output, table + "\n")
        except OutputError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

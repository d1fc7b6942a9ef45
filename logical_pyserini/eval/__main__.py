"""Evaluate TREC runs with ir_measures.

    python -m logical_pyserini.eval --qrels qrels.txt --run bm25=runs/a.txt logical=runs/b.txt \\
        --measures "nDCG@10 P@1 RR R@100" --group-by metadata.jsonl:negations
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ._evaluate import DEFAULT_MEASURES, evaluate_runs, format_table, read_groups


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m logical_pyserini.eval",
        description="Score TREC runs with ir_measures; judged queries missing from a run count as 0.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument("--qrels", required=True, metavar="FILE|NAME",
                   help="TREC qrels file, or a Pyserini qrels name (dl19-passage, beir-v1.0.0-scifact-test, ...).")
    p.add_argument("--run", required=True, nargs="+", metavar="[NAME=]FILE",
                   help="One or more runs; NAME defaults to the file name.")
    p.add_argument("--measures", default=DEFAULT_MEASURES, help="ir_measures measure names, space separated.")
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

        rows = evaluate_runs(resolve_qrels(args.qrels), runs, args.measures, groups)
    except (FileNotFoundError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    table = format_table(rows, group_name)
    print(table)
    if args.output:
        Path(args.output).parent.mkdir(parents=True, exist_ok=True)
        Path(args.output).write_text(table + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""``python -m logical_pyserini.kg``: answer BetaE queries with an executor and score them.

Example::

    python -m logical_pyserini.kg --data ../shared/data/nell-betae --executor exact \\
        --protocol complete --per-type 50 --output runs/kg-exact-complete.jsonl

``python -m logical_pyserini.kg train-embeddings --data DIR`` trains the link predictor that
``--projection embedding|fused`` of the scored executor reads (see ``kg/_train.py``).
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from .._cli import HelpFormatter
from .._io import OutputError
from ..models import ModelError
from ._betae import TYPES, QueryFileError
from ._embedding import EmbeddingError
from ._evaluate import PROTOCOLS, EvalConfig, evaluate
from ._executor import ExecutorError, executor_names, get_executor
from ._graph import GraphError


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m logical_pyserini.kg", description=__doc__.split("\n")[0],
                                formatter_class=HelpFormatter)
    p.add_argument("--data", required=True, help="BetaE-format folder (train.txt, valid.txt, test.txt/all.txt)")
    p.add_argument("--queries", help="BetaE query pickle (default: DATA/test-queries.pkl, "
                   "else DATA/test-queries.pkl.ori)")
    p.add_argument("--types", nargs="+", default=list(TYPES), choices=list(TYPES), metavar="TYPE",
                   help="query types: " + " ".join(TYPES))
    p.add_argument("--per-type", type=int, default=None, help="random queries per type (default: all)")
    p.add_argument("--seed", type=int, default=0, help="seed of the query sample and of rule mining")
    p.add_argument("--executor", default="exact", choices=executor_names())
    p.add_argument("--protocol", default="standard", choices=sorted(PROTOCOLS),
                   help="standard: graph = train+valid, score hard answers, filter easy ones; "
                   "complete: graph = full KG, every answer scored (exact must give MRR 100)")
    p.add_argument("--output", required=True, help="JSONL, one line per query; metrics go to OUTPUT.metrics.json")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    for name in executor_names():
        get_executor(name).add_arguments(p)
    return p


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["train-embeddings"]:
        from ._train import main as train_main

        return train_main(argv[1:])
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    data = Path(args.data)
    queries = Path(args.queries) if args.queries else next(
        (data / n for n in ("test-queries.pkl", "test-queries.pkl.ori") if (data / n).exists()),
        data / "test-queries.pkl")
    if args.per_type is not None and args.per_type < 1:
        print("error: --per-type must be >= 1", file=sys.stderr)
        return 2
    cls = get_executor(args.executor)
    config = EvalConfig(data=data, queries=queries, output=Path(args.output), types=tuple(args.types),
                        per_type=args.per_type, seed=args.seed, protocol=args.protocol, progress=not args.quiet)
    try:
        metrics = evaluate(config, lambda graph: cls.from_args(graph, args))
    except (GraphError, QueryFileError, OutputError, ModelError, EmbeddingError, ExecutorError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    run = metrics.pop("_run")
    print(f"{'type':>5} {'MRR':>6} {'H@1':>6} {'H@3':>6} {'H@10':>6} {'n':>6}")
    for qtype, m in metrics.items():
        print(f"{qtype:>5} {m['MRR']:6.1f} {m['Hits@1']:6.1f} {m['Hits@3']:6.1f} {m['Hits@10']:6.1f} {m['n']:6d}")
    print(f"{run['scored']} queries scored, {run['skipped']} skipped, {run['errors']} errors; "
          f"executor {run['queries_per_second']} queries/s; wrote {args.output} and {args.output}.metrics.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
